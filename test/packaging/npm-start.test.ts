/**
 * `npm start` under a supervisor: SIGTERM to npm's own pid (a supervisor's `kill PID`) stops the
 * whole run (npm, the shell it may use, node, the Temporal dev server and its watchdog); so does
 * Ctrl-C to the process group, gracefully (npm forwards SIGINT too, so node gets it twice).
 *
 * Why this once failed: npm forwards SIGTERM only to the `sh -c` it runs the script in; dash
 * does not exec the command, dies of the signal and leaves node (and Temporal) orphaned.
 */
import { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import { freePort, onFreePorts } from '../support/ports';
import { spawnProcess } from '../support/processes';
import { tempDbFile } from '../support/temporal';

const seen = new Set<number>();

afterAll(() => {
  // never leave anything behind, even when a test failed
  for (const pid of seen) if (alive(pid)) process.kill(pid, 'SIGKILL');
});

/** Alive and not a zombie. */
function alive(pid: number): boolean {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

/** Every live descendant of pid (from /proc). */
function descendants(pid: number): number[] {
  const parents = new Map<number, number[]>();
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      parents.set(ppid, [...(parents.get(ppid) ?? []), Number(entry)]);
    } catch {
      // gone meanwhile
    }
  }
  const out: number[] = [];
  const walk = (p: number) => (parents.get(p) ?? []).forEach((c) => (out.push(c), walk(c)));
  walk(pid);
  return out.filter(alive);
}

const cmdline = (pid: number) => {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
  } catch {
    return '';
  }
};

async function npmStart(opts: {
  detached: boolean;
}): Promise<{ npm: ChildProcess; output: () => string; pids: number[]; temporalPort: number }> {
  return onFreePorts(
    () => npmStartOnce(opts),
    (err) => /address already in use/.test(err.message),
    'npm start',
  );
}

async function npmStartOnce(opts: {
  detached: boolean;
}): Promise<{ npm: ChildProcess; output: () => string; pids: number[]; temporalPort: number }> {
  const db = tempDbFile('mtt-npm-start-');
  const temporalPort = await freePort();
  const uiPort = await freePort();
  // --ignore-scripts skips only prestart (the build; pretest has built dist/), not the start script itself
  const proc = spawnProcess(
    'npm',
    [
      'start',
      '--ignore-scripts',
      '--',
      '--port',
      '0',
      '--temporal-port',
      String(temporalPort),
      '--ui-port',
      String(uiPort),
      '--db-file',
      db,
    ],
    {
      detached: opts.detached,
      env: { MCP_LOG_LEVEL: 'info' },
      name: 'npm start',
    },
  );
  const npm = proc.child;
  seen.add(proc.pid);
  await proc.waitFor(/MCP endpoint:/, 90_000);
  const pids = descendants(npm.pid!);
  pids.forEach((p) => seen.add(p));
  expect(pids.map(cmdline).join('\n')).toMatch(/temporal server start-dev/);
  expect(pids.map(cmdline).join('\n')).toMatch(/dist\/cli\/index\.js dev/);
  return { npm, output: proc.output, pids: [npm.pid!, ...pids], temporalPort };
}

async function allGone(pids: number[], withinMs: number, npm?: ChildProcess): Promise<number[]> {
  const deadline = Date.now() + withinMs;
  for (;;) {
    const left = pids.filter(alive);
    if (left.length === 0 || Date.now() > deadline) {
      // the processes are gone, but their last lines may still be in the pipes: read them to the end
      await Promise.all(
        [npm?.stdout, npm?.stderr].map((s) =>
          s && !s.closed
            ? new Promise((r) => {
                s.once('close', r);
                setTimeout(r, 5_000);
              })
            : undefined,
        ),
      );
      return left;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

test('SIGTERM to the npm process alone stops node, the Temporal dev server and everything else', async () => {
  const run = await npmStart({ detached: false });
  process.kill(run.npm.pid!, 'SIGTERM');
  const left = await allGone(run.pids, 20_000, run.npm);
  expect(left.map((p) => `${p} ${cmdline(p)}`)).toEqual([]);
  expect(run.output()).toMatch(/(SIGTERM|\(npm or its shell\) is gone): stopping/);
}, 150_000);

test('Ctrl-C to the process group stops everything gracefully (one stop despite two SIGINTs)', async () => {
  const run = await npmStart({ detached: true });
  process.kill(-run.npm.pid!, 'SIGINT');
  const left = await allGone(run.pids, 20_000, run.npm);
  expect(left.map((p) => `${p} ${cmdline(p)}`)).toEqual([]);
  // one stop; its reason is the SIGINT, or npm's exit when node's event loop was busy as both
  // arrived (the ppid check is a timer, and timers run before signal callbacks)
  expect(run.output().match(/: stopping/g)).toHaveLength(1);
  expect(run.output()).toMatch(/(SIGINT|\(npm or its shell\) is gone): stopping/);
  expect(run.output()).toMatch(/"state":"STOPPED"/);
}, 150_000);
