'use strict';
/**
 * The processes a benchmark run owns: a Temporal dev server (SQLite in a temp dir), one worker
 * and one MCP server (`serve`), all on 127.0.0.1; plus /proc sampling of their RSS and CPU.
 * Everything started here is registered with a Cleanup and stopped by it, also on errors/signals.
 */
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const net = require('node:net');
const os = require('node:os');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..');
const CLI = path.join(ROOT, 'dist', 'cli', 'index.js');
const HOST = '127.0.0.1';

function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, HOST, () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

/** Stop functions run last-in first-out; pids get a synchronous SIGKILL if the process exits first. */
class Cleanup {
  constructor() {
    this.steps = [];
    this.pids = new Set();
    this.done = false;
  }

  add(name, pid, stop) {
    this.steps.push({ name, pid, stop });
    if (pid) this.pids.add(pid);
  }

  async run() {
    if (this.done) return;
    this.done = true;
    for (const { name, pid, stop } of this.steps.reverse()) {
      try {
        await stop();
        this.pids.delete(pid);
      } catch (err) {
        console.error(`cleanup ${name}: ${err.message}`);
      }
    }
    this.killLeftovers();
  }

  /** Last resort (process 'exit'): SIGKILL whatever we started and is still alive. */
  killLeftovers() {
    for (const pid of this.pids) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
    this.pids.clear();
  }
}

/** `node dist/cli/index.js ...args` with its output collected; waitFor resolves on a regex match. */
function spawnCli(args, env, nodeArgs = []) {
  return spawnProcess(process.execPath, [...nodeArgs, CLI, ...args], env);
}

/** Any command, with its output collected; waitFor resolves on a regex match. */
function spawnProcess(command, args, env) {
  const child = spawn(command, args, { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const waiters = new Set();
  const onData = (d) => {
    out = (out + d.toString()).slice(-64 * 1024);
    waiters.forEach((w) => w());
  };
  child.stdout.on('data', onData);
  child.stderr.on('data', onData);
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => {
    waiters.forEach((w) => w());
    resolve(code ?? signal);
  }));
  const alive = () => child.exitCode === null && child.signalCode === null;
  return {
    child,
    output: () => out,
    waitFor: (pattern, timeoutMs = 60_000) => waitForOutput(pattern, timeoutMs, () => out, alive, waiters),
    stop: (timeoutMs = 15_000) => stopProcess(child, exited, alive, timeoutMs),
  };
}

function waitForOutput(pattern, timeoutMs, output, alive, waiters) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => finish(new Error(`timed out waiting for ${pattern}:\n${output()}`)), timeoutMs);
    const finish = (err, match) => {
      clearTimeout(timer);
      waiters.delete(check);
      err ? reject(err) : resolve(match);
    };
    const check = () => {
      const m = output().match(pattern);
      if (m) finish(null, m);
      else if (!alive()) finish(new Error(`process exited before ${pattern}:\n${output()}`));
    };
    waiters.add(check);
    check();
  });
}

/** SIGTERM, then SIGKILL after timeoutMs. */
async function stopProcess(child, exited, alive, timeoutMs) {
  if (!alive()) return exited;
  child.kill('SIGTERM');
  const timer = setTimeout(() => alive() && child.kill('SIGKILL'), timeoutMs);
  const code = await exited;
  clearTimeout(timer);
  return code;
}

/** A Temporal dev server on a fresh SQLite file in a temp dir (removed with it); opts go to startDevServer. */
async function startTemporal(cleanup, opts = {}) {
  const { startDevServer } = require('../dist/cli/dev-server');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mtt-bench-'));
  const dbFile = path.join(dir, 'temporal.db');
  const temporal = await startDevServer({ dbFile, host: HOST, port: await freePort(), uiPort: await freePort(), namespace: 'default', ...opts });
  cleanup.add('temporal dev server', temporal.pid, async () => {
    await temporal.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  return { temporal, dbFile };
}

/**
 * A Temporal dev server that can be SIGKILLed and started again as the same server (same
 * SQLite file, same ports), registered with cleanup (bench/chaos.js).
 */
async function startRestartableTemporal(cleanup) {
  const { startDevServer } = require('../dist/cli/dev-server');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mtt-bench-'));
  const opts = { dbFile: path.join(dir, 'temporal.db'), host: HOST, port: await freePort(), uiPort: await freePort(), namespace: 'default' };
  let current = await startDevServer(opts);
  cleanup.add('temporal dev server', current.pid, async () => {
    await current?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  return {
    address: current.address,
    pid: () => current?.pid,
    async kill() {
      const killed = current;
      current = undefined;
      process.kill(killed.pid, 'SIGKILL');
      await killed.stop().catch(() => undefined);
    },
    async restart() {
      current = await startDevServer(opts);
      cleanup.pids.add(current.pid);
    },
  };
}

/**
 * Temporal dev server + worker + `serve`, all registered with cleanup. With profileDir, `serve`
 * runs under --cpu-prof and writes a .cpuprofile there when it exits; serveNodeArgs are Node
 * flags for `serve` (bench/serve-memory.js reads V8's heap through --trace-gc).
 */
async function startInfra(cleanup, { pollIntervalMs, profileDir, metricsPort, serveArgs = [], serveNodeArgs = [] }) {
  const { temporal, dbFile } = await startTemporal(cleanup, { metricsPort });
  const env = { TEMPORAL_ADDRESS: temporal.address, TEMPORAL_NAMESPACE: 'default', MCP_TOOLS_MODULE: path.join(__dirname, '..', 'build', 'examples', 'demo', 'index.js') };
  // also used to start a new worker after one was killed (bench/peer)
  const startWorker = async () => {
    const worker = spawnCli(['worker'], env);
    cleanup.add('worker', worker.child.pid, () => worker.stop());
    await worker.waitFor(/worker polling task queue/);
    return worker;
  };
  const worker = await startWorker();
  const profiling = profileDir ? ['--cpu-prof', '--cpu-prof-dir', profileDir] : [];
  const serve = spawnCli(['serve', '--port', '0', '--poll-interval-ms', String(pollIntervalMs), ...serveArgs], env, [...profiling, ...serveNodeArgs]);
  cleanup.add('serve', serve.child.pid, () => serve.stop());
  const [, url] = await serve.waitFor(/MCP endpoint: (\S+)/);
  return {
    url,
    dbFile,
    address: temporal.address,
    pids: { server: serve.child.pid, worker: worker.child.pid, temporal: temporal.pid },
    outputs: { server: serve.output, worker: worker.output },
    startWorker,
  };
}

// ---- /proc sampling -------------------------------------------------------------------------

const CLOCK_TICKS = 100; // getconf CLK_TCK on Linux

function readRssMb(pid) {
  try {
    const m = fs.readFileSync(`/proc/${pid}/status`, 'utf8').match(/^VmRSS:\s+(\d+)\s+kB/m);
    return m ? Number(m[1]) / 1024 : NaN;
  } catch {
    return NaN;
  }
}

/** utime + stime of a process in seconds. */
function readCpuSeconds(pid) {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS; // fields 14 and 15 of stat
  } catch {
    return NaN;
  }
}

/** CPU seconds of the whole machine (all cores) since boot, from /proc/stat: busy and irq+softirq. */
function readMachineCpu() {
  const [, ...fields] = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/);
  const [user, nice, system, , , irq, softirq, steal] = fields.map(Number);
  return { busy: (user + nice + system + irq + softirq + (steal || 0)) / CLOCK_TICKS, irq: (irq + softirq) / CLOCK_TICKS };
}

const readMachineBusySeconds = () => readMachineCpu().busy;

/**
 * Samples the RSS of each pid every intervalMs: overall peak and a peak since the last
 * resetWindow(); cpuSnapshot() gives CPU seconds per process (and of this bench process).
 */
function startSampler(pids, intervalMs = 200) {
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
    cpuSnapshot: () => {
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

function machineInfo() {
  const cpuinfo = fs.readFileSync('/proc/cpuinfo', 'utf8');
  const model = (cpuinfo.match(/^model name\s*:\s*(.+)$/m) ?? [])[1] ?? os.cpus()[0]?.model;
  const { temporalCliVersion, findTemporalCli } = require('../dist/cli/cli-binary');
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
function readProtoCounters(file, proto) {
  const lines = fs.readFileSync(file, 'utf8').split('\n').filter((l) => l.startsWith(`${proto}:`));
  const names = lines[0].split(/\s+/).slice(1);
  const values = lines[1].split(/\s+/).slice(1).map(Number);
  return Object.fromEntries(names.map((n, i) => [n, values[i]]));
}

/**
 * Machine-wide TCP counters (loopback included): accept-queue overflows of listening sockets,
 * SYN retransmissions (a dropped connect is retried after 1, 2, 4, 8… s) and connections opened.
 */
function readTcpCounters() {
  try {
    const ext = readProtoCounters('/proc/net/netstat', 'TcpExt');
    const tcp = readProtoCounters('/proc/net/snmp', 'Tcp');
    return { listenOverflows: ext.ListenOverflows, synRetrans: ext.TCPSynRetrans, activeOpens: tcp.ActiveOpens };
  } catch {
    return {};
  }
}

function tcpDelta(before, after = readTcpCounters()) {
  return Object.fromEntries(Object.keys(after).map((k) => [k, after[k] - before[k]]));
}

/** % of one core the whole machine is busy over ms (before our processes exist: the background). */
async function machineBusyPercent(ms = 2000) {
  const before = readMachineBusySeconds();
  await new Promise((r) => setTimeout(r, ms));
  return (100 * (readMachineBusySeconds() - before)) / (ms / 1000);
}

module.exports = { Cleanup, startTemporal, startRestartableTemporal, startInfra, spawnCli, startSampler, spawnProcess, freePort, machineInfo, machineBusyPercent, readCpuSeconds, readTcpCounters, tcpDelta, HOST };
