import { ConfigError } from '../../../src/mcp/config';
import { parseCliSettings } from '../../../src/cli/cli-settings';
import { parseVersioning } from '../../../src/cli/worker-versioning';

test('the CLI settings take the environment, and a flag wins over it', () => {
  expect(parseCliSettings({}, {})).toEqual({
    logLevel: 'info',
    heapGrowthPercent: 30,
    workflowSemiSpaceMb: 4,
    versioningBehavior: 'PINNED',
    setCurrent: false,
  });
  const env = { MCP_LOG_LEVEL: 'debug', MCP_TOOLS_MODULE: 'env.js', MCP_TOOLS_FILE: 'tools.json', MCP_AUTH_TOKENS: 'alice:t1' };
  expect(parseCliSettings({}, env)).toMatchObject({
    logLevel: 'debug',
    toolsModule: 'env.js',
    tools: 'tools.json',
    authTokens: 'alice:t1',
  });
  expect(parseCliSettings({ logLevel: 'warn', toolsModule: 'flag.js' }, env)).toMatchObject({ logLevel: 'warn', toolsModule: 'flag.js' });
  // an empty variable is unset, like every other setting
  expect(parseCliSettings({}, { MCP_LOG_LEVEL: '', MCP_TOOLS_MODULE: '' })).toEqual({
    logLevel: 'info',
    heapGrowthPercent: 30,
    workflowSemiSpaceMb: 4,
    versioningBehavior: 'PINNED',
    setCurrent: false,
  });
});

test('the heap growth is a whole percent from 0 (V8 decides) up; the flag wins over MCP_HEAP_GROWTH_PERCENT', () => {
  expect(parseCliSettings({}, { MCP_HEAP_GROWTH_PERCENT: '0' }).heapGrowthPercent).toBe(0);
  expect(parseCliSettings({ heapGrowthPercent: '50' }, { MCP_HEAP_GROWTH_PERCENT: '0' }).heapGrowthPercent).toBe(50);
  for (const bad of ['-1', '2.5', 'lots', '1001'])
    expect(() => parseCliSettings({}, { MCP_HEAP_GROWTH_PERCENT: bad })).toThrow(
      /heapGrowthPercent \(--heap-growth-percent or MCP_HEAP_GROWTH_PERCENT\)/,
    );
});

test("the workflow threads' semi-space is whole MB from 0 (V8 decides) up; the flag wins over MCP_WORKFLOW_SEMI_SPACE_MB", () => {
  expect(parseCliSettings({}, { MCP_WORKFLOW_SEMI_SPACE_MB: '0' }).workflowSemiSpaceMb).toBe(0);
  expect(parseCliSettings({ workflowSemiSpaceMb: '8' }, { MCP_WORKFLOW_SEMI_SPACE_MB: '0' }).workflowSemiSpaceMb).toBe(8);
  for (const bad of ['-1', '0.5', 'big', '257'])
    expect(() => parseCliSettings({}, { MCP_WORKFLOW_SEMI_SPACE_MB: bad })).toThrow(
      /workflowSemiSpaceMb \(--workflow-semi-space-mb or MCP_WORKFLOW_SEMI_SPACE_MB\)/,
    );
});

test('tokens come only from the environment, never from an option of the same name', () => {
  expect(parseCliSettings({ authTokens: 'mallory:x' }, {}).authTokens).toBeUndefined();
});

test('a bad CLI setting names its flag and variable', () => {
  expect(() => parseCliSettings({}, { MCP_LOG_LEVEL: 'loud' })).toThrow(ConfigError);
  expect(() => parseCliSettings({}, { MCP_LOG_LEVEL: 'loud' })).toThrow(/logLevel \(--log-level or MCP_LOG_LEVEL\)/);
  expect(() => parseCliSettings({ versioningBehavior: 'SOMETIMES' }, {})).toThrow(
    /versioningBehavior \(--versioning-behavior or MCP_VERSIONING_BEHAVIOR\)/,
  );
});

test('versioning reads MCP_BUILD_ID, MCP_DEPLOYMENT_NAME and MCP_VERSIONING_BEHAVIOR through the merge; flags win', () => {
  const env = {
    MCP_BUILD_ID: 'env-build',
    MCP_DEPLOYMENT_NAME: 'payments',
    MCP_VERSIONING_BEHAVIOR: 'AUTO_UPGRADE',
    MCP_SET_CURRENT_VERSION: '1',
  };
  expect(parseVersioning({}, env)).toEqual({
    buildId: 'env-build',
    deploymentName: 'payments',
    behavior: 'AUTO_UPGRADE',
    setCurrent: true,
  });
  expect(parseVersioning({ buildId: 'flag-build', versioningBehavior: 'PINNED' }, env)).toMatchObject({
    buildId: 'flag-build',
    behavior: 'PINNED',
  });
  expect(parseVersioning({ buildId: 'r1' }, {})).toEqual({
    buildId: 'r1',
    deploymentName: 'mcp-temporal-tasks',
    behavior: 'PINNED',
    setCurrent: false,
  });
  expect(() => parseVersioning({ setCurrent: true }, {})).toThrow(/--set-current needs --build-id/);
  expect(() => parseVersioning({ buildId: 'r1', deploymentName: 'a.b' }, {})).toThrow(/must be at most 255 characters without "\."/);
});
