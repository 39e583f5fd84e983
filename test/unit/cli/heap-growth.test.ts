import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { ROOT } from '../../support/paths';

/**
 * The factor V8 sets each old-generation limit with, from its own trace ("Limit: old size: …
 * new limit: … (1.3)") in a process that churns objects: the setting is taken at run time.
 */
function limitFactors(percent: number | undefined): string[] {
  const memory = path.join(ROOT, 'dist', 'cli', 'memory.js');
  const script = `
    ${percent === undefined ? '' : `require(${JSON.stringify(memory)}).limitHeapGrowth(${percent});`}
    let keep = [];
    for (let i = 0; i < 2e6; i++) { keep.push({ i, s: 'x' + i }); if (keep.length > 2e5) keep = []; }`;
  const out = spawnSync(process.execPath, ['--trace-gc-verbose', '-e', script], { encoding: 'utf8' });
  expect(out.status).toBe(0);
  return [...out.stdout.matchAll(/\[HeapController\] Limit: .*\(([\d.]+)\)/g)].map((m) => m[1]);
}

describe('limitHeapGrowth', () => {
  it('makes V8 set every later heap limit at 1 + percent / 100 of what its collection kept', () => {
    const factors = limitFactors(30);
    expect(factors.length).toBeGreaterThan(0);
    expect(new Set(factors)).toEqual(new Set(['1.3']));
  });

  it('at 0 leaves the factor to V8, as if never called: the first limit, before V8 knows its speed, at its maximum', () => {
    const factors = limitFactors(0);
    expect(factors.some((f) => f !== '1.3')).toBe(true);
    expect(factors[0]).toBe(limitFactors(undefined)[0]);
  });
});
