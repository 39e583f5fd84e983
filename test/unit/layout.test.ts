/**
 * The house rule (issue 22): code imports only what runs on its own side. Server (`mcp/`,
 * `tasks/`), worker, workflow and activity code import the shared modules and their own folder
 * (the MCP side may also import the task store, `tasks/`); `cli/` may import anything; the `.`
 * entry (src/index.ts) is the server side's barrel. Scans every relative import (static,
 * dynamic, require, require.resolve) under src/ and names each one that breaks the rule.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const SRC = path.resolve(__dirname, '..', '..', 'src');

/** Workflow-safe names and the tool type both sides use. */
const SHARED = ['contract.ts', 'tool-definition.ts'];

/** Each side's folder and the other folders it may import besides its own and SHARED. */
const SIDES: Record<string, string[]> = {
  mcp: ['tasks'],
  tasks: [],
  // the plugin installs the activity helpers' interceptor: activities run in the worker's process
  worker: ['activities'],
  workflows: [],
  activities: [],
  // the task card's page (a browser bundle, scripts/bundle-card.js)
  card: [],
};

/**
 * Modules a side may NAME (require.resolve: a path handed on, never loaded there): the plugin
 * gives the bundler the workflow-side interceptor module, which runs in the workflow sandbox.
 */
const NAMED: Record<string, string[]> = { worker: ['workflows'] };

/** Top-level files: the shared ones import only each other; `.` is the server side's barrel. */
const TOP_LEVEL: Record<string, string[]> = {
  'contract.ts': [],
  'tool-definition.ts': [],
  'index.ts': ['mcp', 'tasks'],
};

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    return e.isDirectory() ? sourceFiles(full) : e.name.endsWith('.ts') ? [full] : [];
  });
}

const IMPORT = /(\bfrom\s*|\bimport\s*\(\s*|\bimport\s+|\brequire\s*\(\s*|\brequire\.resolve\s*\(\s*)['"](\.{1,2}\/[^'"]*)['"]/g;

/** `file: specifier -> where it lands` for each relative import that leaves what `file` may import. */
export function offendingImports(src: string = SRC): string[] {
  const offending: string[] = [];
  for (const file of sourceFiles(src)) {
    const rel = path.relative(src, file).split(path.sep);
    const side = rel.length > 1 ? rel[0] : undefined;
    if (side === 'cli') continue;
    const allowedFolders = side ? [side, ...(SIDES[side] ?? [])] : TOP_LEVEL[rel[0]];
    const text = fs.readFileSync(file, 'utf8');
    for (const [, how, spec] of text.matchAll(IMPORT)) {
      const target = path.relative(src, path.resolve(path.dirname(file), spec)).split(path.sep);
      if (target[0] === '..') {
        // outside src/: only the package's own manifest (its version)
        if (target.join('/') !== '../package.json') offending.push(`${rel.join('/')}: ${spec} -> ${target.join('/')}`);
        continue;
      }
      // a folder's barrel (`../tasks`) is that folder; any other single name is a top-level file
      const isFolder = target.length === 1 && fs.statSync(path.join(src, target[0]), { throwIfNoEntry: false })?.isDirectory();
      const targetFile = target.length === 1 && !isFolder ? target[0].replace(/(\.js)?$/, '.ts').replace(/\.ts\.ts$/, '.ts') : undefined;
      const named = how.startsWith('require.resolve') && !!side && !!NAMED[side]?.includes(target[0]);
      const ok = named || (targetFile ? SHARED.includes(targetFile) : !!allowedFolders?.includes(target[0]));
      if (!ok) offending.push(`${rel.join('/')}: ${spec} -> ${target.join('/')}`);
    }
  }
  return offending;
}

test('every side folder is known to the rule (a new top-level folder gets a line here)', () => {
  const folders = fs
    .readdirSync(SRC, { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => e.name);
  expect(folders.filter((f) => f !== 'cli' && !(f in SIDES))).toEqual([]);
  const files = fs.readdirSync(SRC).filter((f) => f.endsWith('.ts'));
  expect(files.filter((f) => !(f in TOP_LEVEL))).toEqual([]);
});

test('server, worker, workflow and activity code import only the shared modules and their own side', () => {
  expect(offendingImports()).toEqual([]);
});

test('the scan catches an offending import (a worker reaching into the server)', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mtt-layout-'));
  try {
    fs.mkdirSync(path.join(dir, 'worker'));
    fs.mkdirSync(path.join(dir, 'mcp'));
    fs.writeFileSync(path.join(dir, 'contract.ts'), '');
    fs.writeFileSync(path.join(dir, 'mcp', 'tool-registry.ts'), '');
    fs.writeFileSync(
      path.join(dir, 'worker', 'index.ts'),
      "import { x } from '../contract';\nimport type { ToolRegistry } from '../mcp/tool-registry';\n",
    );
    expect(offendingImports(dir)).toEqual(['worker/index.ts: ../mcp/tool-registry -> mcp/tool-registry']);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('a protocol revision is its folder plus one line: only mcp/revisions.ts imports a revision folder', () => {
  const mcp = path.join(SRC, 'mcp');
  const offending: string[] = [];
  for (const file of sourceFiles(mcp)) {
    const rel = path.relative(mcp, file).split(path.sep);
    const own = rel.length > 1 ? rel[0] : undefined;
    for (const [, , spec] of fs.readFileSync(file, 'utf8').matchAll(IMPORT)) {
      const target = path.relative(mcp, path.resolve(path.dirname(file), spec)).split(path.sep);
      if (!/^rev\d{4}-\d{2}-\d{2}$/.test(target[0]) || target[0] === own) continue;
      if (rel.join('/') !== 'revisions.ts') offending.push(`mcp/${rel.join('/')}: ${spec}`);
    }
  }
  expect(offending).toEqual([]);
});

/** Every import cycle among src/ modules, type-only imports included, as `a -> b -> a`. */
export function importCycles(src: string = SRC): string[] {
  const resolve = (from: string, spec: string) => {
    const base = path.resolve(path.dirname(from), spec.replace(/\.js$/, ''));
    return [`${base}.ts`, path.join(base, 'index.ts')].find((f) => fs.existsSync(f));
  };
  const graph = new Map(
    sourceFiles(src).map((file) => [
      file,
      [...fs.readFileSync(file, 'utf8').matchAll(IMPORT)].flatMap(([, , spec]) => resolve(file, spec) ?? []),
    ]),
  );
  const cycles: string[] = [];
  const done = new Set<string>();
  const visit = (file: string, trail: string[]) => {
    if (trail.includes(file))
      return void cycles.push([...trail.slice(trail.indexOf(file)), file].map((f) => path.relative(src, f)).join(' -> '));
    if (done.has(file)) return;
    for (const next of graph.get(file) ?? []) visit(next, [...trail, file]);
    done.add(file);
  };
  for (const file of graph.keys()) visit(file, []);
  return cycles;
}

test('no import cycles, type-only imports included', () => {
  expect(importCycles()).toEqual([]);
});

test('the cycle scan catches a type-only cycle', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cycle-'));
  fs.writeFileSync(path.join(dir, 'a.ts'), "import type { B } from './b';\nexport interface A { b: B }\n");
  fs.writeFileSync(path.join(dir, 'b.ts'), "import type { A } from './a';\nexport interface B { a?: A }\n");
  expect(importCycles(dir)).toEqual(['a.ts -> b.ts -> a.ts']);
});
