/**
 * Summarizes a .cpuprofile written with BENCH_PROFILE_SERVER=1:
 *   node build/bench/profile-summary.js bench/results/profiles/<file>.cpuprofile [regex] [rows]
 * Prints busy CPU (idle excluded) by package (self time), then the functions with the most
 * inclusive time (optionally only those whose "name file:line" matches regex).
 */
import fs from 'node:fs';

/** The parts of V8's .cpuprofile read here. */
interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}
type Loaded = ReturnType<typeof load>;

function load(file: string) {
  const prof = JSON.parse(fs.readFileSync(file, 'utf8')) as Profile;
  const nodes = new Map(prof.nodes.map((n) => [n.id, n]));
  const parents = new Map<number, number>();
  for (const n of prof.nodes) for (const c of n.children ?? []) parents.set(c, n.id);
  const self = new Map<number, number>();
  prof.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (prof.timeDeltas[i] ?? 0)));
  return { nodes, parents, self };
}

const shortUrl = (url: string) =>
  url.includes('node_modules/') ? url.replace(/.*node_modules\//, '') : url.replace(/.*\/dist\//, 'dist/');
const label = (n: ProfileNode) => `${n.callFrame.functionName || '(anonymous)'} ${shortUrl(n.callFrame.url)}:${n.callFrame.lineNumber}`;

function packageOf(url: string): string {
  if (!url) return '(native / GC / program)';
  const m = url.match(/node_modules\/((?:@[^/]+\/)?[^/]+)/);
  if (m) return m[1];
  if (url.startsWith('node:')) return `node:${url.slice(5).split('/')[0]}`;
  return url.includes('/dist/') ? 'this project (dist/)' : url;
}

function summarize({ nodes, parents, self }: Loaded) {
  const byPackage = new Map<string, number>();
  const inclusive = new Map<string, number>();
  let busy = 0;
  for (const [id, t] of self) {
    const node = nodes.get(id)!;
    if (node.callFrame.functionName === '(idle)') continue;
    busy += t;
    const pkg = packageOf(node.callFrame.url);
    byPackage.set(pkg, (byPackage.get(pkg) ?? 0) + t);
    const seen = new Set();
    for (let cur: number | undefined = id; cur !== undefined; cur = parents.get(cur)) {
      const l = label(nodes.get(cur)!);
      if (!seen.has(l)) inclusive.set(l, (inclusive.get(l) ?? 0) + t);
      seen.add(l);
    }
  }
  return { busy, byPackage, inclusive };
}

function print(rows: Iterable<[string, number]>, busy: number, limit: number): void {
  [...rows]
    .sort((a, b) => b[1] - a[1])
    .slice(0, limit)
    .forEach(([name, t]) => console.log(`${((100 * t) / busy).toFixed(1).padStart(5)}%  ${name}`));
}

if (require.main === module) {
  const [file, pattern, rows] = process.argv.slice(2);
  if (!file) {
    console.error('usage: node build/bench/profile-summary.js <file.cpuprofile> [regex] [rows]');
    process.exit(2);
  }
  const { busy, byPackage, inclusive } = summarize(load(file));
  console.log(`busy CPU: ${(busy / 1e6).toFixed(2)} s\n\nself time by package:`);
  print(byPackage, busy, 20);
  const re = new RegExp(pattern ?? '.');
  console.log('\ninclusive time by function:');
  print(
    [...inclusive].filter(([l]) => re.test(l) && !l.startsWith('(root)')),
    busy,
    Number(rows ?? 40),
  );
}
