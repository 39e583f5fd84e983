/**
 * The processes a benchmark run owns (the support library's process stack with the bench tools,
 * on 127.0.0.1, registered with a Cleanup) and /proc sampling of their RSS, CPU and open files.
 */
import fs from 'node:fs';
import os from 'node:os';

import type { DevServerOptions } from '../test/support/temporal';
import { BENCH_TOOLS, fromDist } from '../test/support/paths';
import type { Cleanup } from '../test/support/processes';
import { type ProcessStack, startProcessStack } from '../test/support/servers';
import { startTestCluster } from '../test/support/temporal-cluster';

/**
 * Temporal dev server + worker + `serve` with the demo tools (and the raw baseline, bench/tools), all registered with cleanup (the
 * support library's process stack). With profileDir, `serve` runs under --cpu-prof and writes a
 * .cpuprofile there when it exits; serveNodeArgs are Node flags for `serve` (bench/serve-memory.js
 * reads V8's heap through --trace-gc). sqliteSynchronous (`full`, the dev server's default, or
 * `normal`) is the durability class of the dev server's SQLite (see bench/config.js's durability).
 * The per-caller cap is off unless serveArgs set it: a bench is one caller holding up to
 * 1,000 live tasks, and the cap would refuse part of that load (right after a burst it counts
 * the burst's starts twice, which is meant) instead of letting it be measured.
 */
export interface InfraOptions {
  pollIntervalMs: number;
  profileDir?: string;
  metricsPort?: number;
  sqliteSynchronous?: DevServerOptions['sqliteSynchronous'];
  serveArgs?: string[];
  serveNodeArgs?: string[];
  workerNodeArgs?: string[];
}

export async function startInfra(
  cleanup: Cleanup,
  { pollIntervalMs, profileDir, metricsPort, sqliteSynchronous, serveArgs = [], serveNodeArgs = [], workerNodeArgs }: InfraOptions,
): Promise<ProcessStack & { temporalPids: Record<string, number> }> {
  const profiling = profileDir ? ['--cpu-prof', '--cpu-prof-dir', profileDir] : [];
  const cluster = await benchCluster(cleanup);
  const stack = await startProcessStack(cleanup, {
    temporalAddress: cluster?.address,
    toolsModule: BENCH_TOOLS,
    temporal: { ...(metricsPort ? { metricsPort } : {}), ...(sqliteSynchronous ? { sqliteSynchronous } : {}) },
    serveArgs: ['--poll-interval-ms', String(pollIntervalMs), '--max-running-tasks-per-caller', '0', ...serveArgs],
    serveNodeArgs: [...profiling, ...serveNodeArgs],
    workerNodeArgs,
    keepOutput: 64 * 1024,
  });
  // what the bench samples as Temporal: the dev server, or every process of the cluster
  return { ...stack, temporalPids: cluster?.pids ?? { temporal: stack.pids.temporal } };
}

/**
 * BENCH_TEMPORAL=cluster: the stack on a Temporal cluster on PostgreSQL (test/support/temporal-cluster,
 * its processes stopped with the rest) instead of a dev server: its address and its processes
 * (`temporal-frontend`, `temporal-history-1`…, `temporal-postgres`), or undefined.
 */
async function benchCluster(cleanup: Cleanup): Promise<{ address: string; pids: Record<string, number> } | undefined> {
  if (!process.env.BENCH_TEMPORAL) return undefined;
  if (process.env.BENCH_TEMPORAL !== 'cluster')
    throw new Error(`BENCH_TEMPORAL=${process.env.BENCH_TEMPORAL}: only "cluster" (or unset: a dev server)`);
  const tc = await startTestCluster((m) => console.error(`[cluster] ${m}`));
  cleanup.add('temporal cluster', undefined, () => tc.stop());
  const pids = Object.fromEntries([...tc.cluster.processes].map(([name, d]) => [`temporal-${name}`, d.pid]));
  return { address: tc.address, pids: { ...pids, 'temporal-postgres': tc.cluster.postgres.daemon().pid } };
}

// ---- /proc sampling -------------------------------------------------------------------------

const CLOCK_TICKS = 100; // getconf CLK_TCK on Linux

/** Open file descriptors of a process. */
export function fdCount(pid: number): number {
  try {
    return fs.readdirSync(`/proc/${pid}/fd`).length;
  } catch {
    return NaN;
  }
}

export function readRssMb(pid: number): number {
  try {
    const m = fs.readFileSync(`/proc/${pid}/status`, 'utf8').match(/^VmRSS:\s+(\d+)\s+kB/m);
    return m ? Number(m[1]) / 1024 : NaN;
  } catch {
    return NaN;
  }
}

/** utime + stime of a process in seconds. */
export function readCpuSeconds(pid: number): number {
  try {
    return cpuSecondsOf(fs.readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return NaN;
  }
}

/** utime + stime in seconds from a /proc stat line (a process's or a thread's). */
function cpuSecondsOf(stat: string): number {
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS; // fields 14 and 15 of stat
}

/** CPU seconds of each live thread of a process, with the thread's name: [tid, name, seconds]. */
export function readThreadCpuSeconds(pid: number): Array<[number, string, number]> {
  const threads: Array<[number, string, number]> = [];
  for (const tid of fs.readdirSync(`/proc/${pid}/task`)) {
    try {
      const name = fs.readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim();
      threads.push([Number(tid), name, cpuSecondsOf(fs.readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8'))]);
    } catch {
      // the thread ended between the listing and the read
    }
  }
  return threads;
}

/** CPU seconds of the whole machine (all cores) since boot, from /proc/stat: busy and irq+softirq. */
function readMachineCpu(): { busy: number; irq: number } {
  const [, ...fields] = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/);
  const [user, nice, system, , , irq, softirq, steal] = fields.map(Number);
  return { busy: (user + nice + system + irq + softirq + (steal || 0)) / CLOCK_TICKS, irq: (irq + softirq) / CLOCK_TICKS };
}

const readMachineBusySeconds = () => readMachineCpu().busy;

/**
 * Samples the RSS of each pid every intervalMs: overall peak and a peak since the last
 * resetWindow(); cpuSnapshot() gives CPU seconds per process (and of this bench process).
 */
export type Sampler = ReturnType<typeof startSampler>;

export function startSampler(pids: Record<string, number>, intervalMs = 200) {
  const names = Object.keys(pids);
  const peak = Object.fromEntries(names.map((n) => [n, 0]));
  let windowPeak = { ...peak };
  let windowTotalPeak = 0; // the peak of the sum, which the sum of peaks overstates
  const sample = () => {
    let total = 0;
    for (const n of names) {
      const rss = readRssMb(pids[n]); // pids[n] is read each time: a restarted process is followed
      total += rss;
      if (rss > peak[n]) peak[n] = rss;
      if (rss > windowPeak[n]) windowPeak[n] = rss;
    }
    if (total > windowTotalPeak) windowTotalPeak = total;
  };
  sample();
  const timer = setInterval(sample, intervalMs);
  timer.unref();
  return {
    peak: () => ({ ...peak }),
    current: () => Object.fromEntries(names.map((n) => [n, readRssMb(pids[n])])),
    resetWindow: () => {
      sample();
      windowPeak = Object.fromEntries(names.map((n) => [n, readRssMb(pids[n])]));
      windowTotalPeak = 0;
      sample();
    },
    windowTotalPeak: () => {
      sample();
      return windowTotalPeak;
    },
    windowPeak: () => {
      sample();
      return { ...windowPeak };
    },
    cpuSnapshot: (): Record<string, number> => {
      const own = process.cpuUsage();
      return {
        ...Object.fromEntries(names.map((n) => [n, readCpuSeconds(pids[n])])),
        bench: (own.user + own.system) / 1e6,
        machine: readMachineBusySeconds(),
        irq: readMachineCpu().irq, // not attributed to any process (loopback networking is mostly softirq)
      };
    },
    stop: () => clearInterval(timer),
  };
}

export interface MachineInfo {
  nproc: number;
  cpuModel: string | undefined;
  memTotalMb: number;
  kernel: string;
  node: string;
  temporalCli: string | undefined;
}

export function machineInfo(): MachineInfo {
  const cpuinfo = fs.readFileSync('/proc/cpuinfo', 'utf8');
  const model = (cpuinfo.match(/^model name\s*:\s*(.+)$/m) ?? [])[1] ?? os.cpus()[0]?.model;
  const { temporalCliVersion, findTemporalCli } = fromDist<typeof import('../dist/cli/cli-binary')>('cli/cli-binary');
  const cli = findTemporalCli();
  return {
    nproc: os.availableParallelism ? os.availableParallelism() : os.cpus().length,
    cpuModel: model,
    memTotalMb: Math.round(os.totalmem() / 2 ** 20),
    kernel: os.release(),
    node: process.version,
    temporalCli: cli ? temporalCliVersion(cli.path) : undefined,
  };
}

/** Named counters of one protocol ("TcpExt", "Tcp") from /proc/net/netstat or /proc/net/snmp. */
function readProtoCounters(file: string, proto: string): Record<string, number> {
  const lines = fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.startsWith(`${proto}:`));
  const names = lines[0].split(/\s+/).slice(1);
  const values = lines[1].split(/\s+/).slice(1).map(Number);
  return Object.fromEntries(names.map((n, i) => [n, values[i]]));
}

/**
 * Machine-wide TCP counters (loopback included): accept-queue overflows of listening sockets,
 * SYN retransmissions (a dropped connect is retried after 1, 2, 4, 8… s) and connections opened.
 */
export type TcpCounters = Partial<Record<'listenOverflows' | 'synRetrans' | 'activeOpens', number>>;

export function readTcpCounters(): TcpCounters {
  try {
    const ext = readProtoCounters('/proc/net/netstat', 'TcpExt');
    const tcp = readProtoCounters('/proc/net/snmp', 'Tcp');
    return { listenOverflows: ext.ListenOverflows, synRetrans: ext.TCPSynRetrans, activeOpens: tcp.ActiveOpens };
  } catch {
    return {};
  }
}

export function tcpDelta(before: TcpCounters, after = readTcpCounters()): TcpCounters {
  const keys = Object.keys(after) as Array<keyof TcpCounters>;
  return Object.fromEntries(keys.map((k) => [k, (after[k] ?? NaN) - (before[k] ?? NaN)]));
}

/**
 * machineInfo() and how busy the machine is before the run starts anything (logged, with a
 * warning when that will skew the results).
 */
export async function machineAtStart(
  log: (msg: string) => void,
  what: string,
): Promise<MachineInfo & { backgroundCpuPercentAtStart: number }> {
  const machine = machineInfo();
  log(`${what} on ${machine.nproc} × ${machine.cpuModel}`);
  const busy = await machineBusyPercent();
  if (busy > 20) {
    log(`WARNING: the machine is already ${busy.toFixed(0)}% busy (of one core) before the run: results will be skewed`);
  }
  return { ...machine, backgroundCpuPercentAtStart: busy };
}

/** % of one core the whole machine is busy over ms (before our processes exist: the background). */
export async function machineBusyPercent(ms = 2000): Promise<number> {
  const before = readMachineBusySeconds();
  await new Promise((r) => setTimeout(r, ms));
  return (100 * (readMachineBusySeconds() - before)) / (ms / 1000);
}

/**
 * Waits until the machine is quiet again (under `percent` of one core over 2 s), at most
 * `maxMs`: a section that follows a heavy one (1,000 tasks cancelled) then does not pay for
 * Temporal's work on the one before. Resolves with the busy % last seen.
 */
export async function untilQuiet(percent = 30, maxMs = 60_000): Promise<number> {
  const deadline = Date.now() + maxMs;
  for (;;) {
    const busy = await machineBusyPercent();
    if (busy < percent || Date.now() > deadline) return busy;
  }
}
