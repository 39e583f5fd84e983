/** Tools from JSON Schema and workflow type names: tools files and defineWorkflowTool. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ToolRegistry } from '../../../src/mcp/core/tool-registry';
import { workflowTypeOf } from '../../../src/tool-definition';
import { defineWorkflowTool, parseToolsFile, ToolsFileError, toolsFromFile } from '../../../src/mcp/workflow-tools';

const ROOT = path.resolve(__dirname, '..', '..', '..');
const greet = {
  name: 'greet',
  description: 'd',
  inputSchema: { type: 'object' as const, properties: { name: { type: 'string' } }, required: ['name'] },
  workflowType: 'GreetWorkflow',
  taskQueue: 'python-tools',
  taskMode: 'optional',
};

describe('tools files', () => {
  test('examples/python/tools.json gives tools started by type name on their own task queue', async () => {
    const tools = toolsFromFile(path.join(ROOT, 'examples', 'python', 'tools.json'));
    expect(tools.map((t) => [t.name, workflowTypeOf(t), t.taskQueue, t.taskMode])).toEqual([
      ['greet_python', 'GreetWorkflow', 'python-tools', 'optional'],
      ['approve_deployment', 'ApproveDeploymentWorkflow', 'python-tools', 'required'],
      ['provision_python', 'ProvisionWorkflow', 'python-tools', 'optional'],
    ]);
    expect(tools[0].executionTimeout).toBe(2 * 3_600_000); // "2 hours", in the one duration grammar
    expect(new ToolRegistry(tools).list()).toHaveLength(3); // no workflow function needed
    const ok = await tools[0].inputSchema['~standard'].validate({ name: 'Ada' });
    expect(ok.issues).toBeUndefined();
    const bad = await tools[0].inputSchema['~standard'].validate({ name: '', extra: 1 });
    expect(bad.issues?.[0].message).toMatch(/fewer than 1 characters|additional properties/);
  });

  test.each(['go', 'java'])('examples/%s/tools.json exposes the approval and the provisioning tool on its own queue', (lang) => {
    const tools = toolsFromFile(path.join(ROOT, 'examples', lang, 'tools.json'));
    expect(tools.map((t) => [t.name, workflowTypeOf(t), t.taskQueue, t.taskMode])).toEqual([
      [`approve_deployment_${lang}`, 'ApproveDeploymentWorkflow', `${lang}-tools`, 'required'],
      [`provision_${lang}`, 'ProvisionWorkflow', `${lang}-tools`, 'optional'],
    ]);
  });

  test.each([
    [{ tools: [{ ...greet, taskMode: 'maybe' }] }, /tool "greet" \(tools\[0\]\): taskMode: Invalid option/],
    [{ tools: [{ ...greet, workflowType: undefined }] }, /tool "greet" \(tools\[0\]\): workflowType: required/],
    [{ tools: [{ ...greet, workflowtype: 'X' }] }, /tool "greet" \(tools\[0\]\): workflowtype: unknown field/],
    [{ tools: [{ ...greet, inputSchema: { type: 'array' } }] }, /tool "greet" \(tools\[0\]\): inputSchema\.type: must be "object"/],
    [
      { tools: [{ ...greet, inputSchema: { type: 'object', properties: { a: { type: 'strin' } } } }] },
      /tool "greet" \(tools\[0\]\): inputSchema: not a valid JSON Schema/,
    ],
    [{ tools: [{ ...greet, executionTimeout: 'soon' }] }, /tool "greet" \(tools\[0\]\): executionTimeout: /],
    [{ tools: [greet, greet] }, /tool "greet" \(tools\[1\]\): name: the name is used twice/],
    [{ tools: [{ ...greet, name: undefined }] }, /tool \(tools\[0\]\): name: required/],
    [{ tools: [] }, /tools: list at least one tool/],
    [{ tool: [] }, /tools: required.*tool: unknown field/],
  ])('refuses bad file #%# naming the tool and the field', (data, message) => {
    expect(() => parseToolsFile(data, 'tools file t.json')).toThrow(ToolsFileError);
    expect(() => parseToolsFile(data, 'tools file t.json')).toThrow(message);
  });

  test('a file that is not JSON says so', () => {
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'mtt-')), 'tools.yaml');
    fs.writeFileSync(file, 'tools:\n  - name: greet\n');
    expect(() => toolsFromFile(file)).toThrow(/not JSON \(only JSON is read\)/);
  });

  test('defineWorkflowTool is the same from code', () => {
    const tool = defineWorkflowTool({
      ...greet,
      taskMode: 'required',
      outputSchema: { type: 'object', properties: { greeting: { type: 'string' } } },
      result: 'text',
    });
    expect(workflowTypeOf(tool)).toBe('GreetWorkflow');
    expect(tool.outputSchema?.['~standard'].jsonSchema).toBeDefined();
    expect(tool.result).toBe('text');
    expect(() => defineWorkflowTool({ ...greet, taskMode: 'x' as never })).toThrow(/tool "greet": taskMode/);
  });
});

test('tools files name scopes; a scope that is not a scope token is refused with the tool named', () => {
  const entry = { name: 'a', description: 'd', inputSchema: { type: 'object' }, workflowType: 'W', taskMode: 'optional' };
  expect(parseToolsFile({ tools: [{ ...entry, scopes: ['tools:admin'] }] })[0].scopes).toEqual(['tools:admin']);
  expect(() => parseToolsFile({ tools: [{ ...entry, scopes: ['two words'] }] })).toThrow(ToolsFileError);
  expect(() => parseToolsFile({ tools: [{ ...entry, scopes: ['two words'] }] })).toThrow(
    /tool "a" \(tools\[0\]\): scopes\.0: an OAuth scope token/,
  );
});

test('tools files take dedupe: false (retries never attach); a dedupe that is not a boolean is refused with the tool named', () => {
  const entry = { name: 'send', description: 'd', inputSchema: { type: 'object' }, workflowType: 'W', taskMode: 'optional' };
  expect(parseToolsFile({ tools: [{ ...entry, dedupe: false }] })[0].dedupe).toBe(false);
  expect(parseToolsFile({ tools: [entry] })[0].dedupe).toBeUndefined();
  expect(() => parseToolsFile({ tools: [{ ...entry, dedupe: 'no' }] })).toThrow(/tool "send" \(tools\[0\]\): dedupe: /);
});
