/**
 * Prometheus in tests: the text format read back (samples and metric names), and Debian's
 * `prometheus` started on a free port with a generated config, asked for its alerts and targets.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort, HOST } from './ports';
import { type ChildHandle, spawnProcess } from './processes';
import { waitFor } from './wait';

export const PROMETHEUS = process.env.PROMETHEUS_BIN ?? '/usr/bin/prometheus';
export const PROMTOOL = process.env.PROMTOOL_BIN ?? '/usr/bin/promtool';

/** Throws a clear error where Debian's prometheus package (both binaries) is not installed. */
export function assertPrometheusInstalled(): void {
  const missing = [PROMETHEUS, PROMTOOL].filter((bin) => !fs.existsSync(bin));
  if (missing.length)
    throw new Error(`${missing.join(', ')} not found: install Debian's prometheus (apt-get install prometheus), as .ci/run does`);
}

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** Every sample of a text-format page (comments skipped). */
export function parseSamples(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)/.exec(line);
    if (!m) continue;
    const labels: Record<string, string> = {};
    for (const [, k, v] of (m[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) labels[k] = v;
    samples.push({ name: m[1], labels, value: Number(m[3]) });
  }
  return samples;
}

/** The names a page declares (`# TYPE`), with a histogram's and a summary's series names. */
export function metricNames(text: string): Set<string> {
  const names = new Set<string>();
  for (const [, name, type] of text.matchAll(/^# TYPE (\S+) (\S+)$/gm)) {
    names.add(name);
    if (type === 'histogram') for (const s of ['_bucket', '_sum', '_count']) names.add(name + s);
    if (type === 'summary') for (const s of ['_sum', '_count']) names.add(name + s);
  }
  for (const s of parseSamples(text)) names.add(s.name);
  return names;
}

/** The sum of the samples of `name` whose labels include `labels`. */
export function sampleSum(samples: Sample[], name: string, labels: Record<string, string> = {}): number {
  return samples
    .filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))
    .reduce((sum, s) => sum + s.value, 0);
}

export async function scrape(url: string): Promise<string> {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`${url}: HTTP ${response.status}`);
  return response.text();
}

export interface RunningPrometheus {
  url: string;
  proc: ChildHandle;
  /** Alerts by name and state (`pending`, `firing`), from /api/v1/alerts. */
  alerts(): Promise<Array<{ labels: Record<string, string>; state: string }>>;
  /** An instant query's samples (labels and value), from /api/v1/query. */
  query(expr: string): Promise<Array<{ metric: Record<string, string>; value: number }>>;
  /** Scrape targets and their health, from /api/v1/targets. */
  targets(): Promise<Array<{ labels: Record<string, string>; health: string; lastError: string }>>;
  stop(): Promise<void>;
}

/**
 * Prometheus on a free port scraping `targets` (job name → host:port) every `scrapeS`, with the
 * rules files given, evaluated every `evaluateS`; its config and data in a temp folder removed on stop.
 */
export async function startPrometheus(opts: {
  targets: Record<string, string>;
  ruleFiles: string[];
  scrapeS: number;
  evaluateS: number;
}): Promise<RunningPrometheus> {
  assertPrometheusInstalled();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mtt-prometheus-'));
  const scrapeConfigs = Object.entries(opts.targets)
    .map(([job, target]) => `  - job_name: ${job}\n    static_configs:\n      - targets: ['${target}']`)
    .join('\n');
  const config = [
    'global:',
    `  scrape_interval: ${opts.scrapeS}s`,
    `  scrape_timeout: ${opts.scrapeS}s`,
    `  evaluation_interval: ${opts.evaluateS}s`,
    'rule_files:',
    ...opts.ruleFiles.map((f) => `  - ${JSON.stringify(f)}`),
    'scrape_configs:',
    scrapeConfigs,
    '',
  ].join('\n');
  fs.writeFileSync(path.join(dir, 'prometheus.yml'), config);
  const port = await freePort();
  const proc = spawnProcess(
    PROMETHEUS,
    [
      `--config.file=${path.join(dir, 'prometheus.yml')}`,
      `--storage.tsdb.path=${path.join(dir, 'data')}`,
      `--web.listen-address=${HOST}:${port}`,
    ],
    { name: 'prometheus' },
  );
  await proc.waitFor(/Server is ready to receive web requests/, 60_000);
  const url = `http://${HOST}:${port}`;
  const api = async (p: string) => ((await (await fetch(`${url}${p}`)).json()) as { data: any }).data;
  return {
    url,
    proc,
    alerts: async () => (await api('/api/v1/alerts')).alerts,
    query: async (expr) =>
      (await api(`/api/v1/query?query=${encodeURIComponent(expr)}`)).result.map((r: any) => ({
        metric: r.metric,
        value: Number(r.value[1]),
      })),
    targets: async () => (await api('/api/v1/targets')).activeTargets,
    stop: async () => {
      await proc.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Waits until `prometheus` has an alert `name` in `state` (and returns it). */
export function alertIn(prometheus: RunningPrometheus, name: string, state: 'pending' | 'firing', timeoutMs = 60_000) {
  return waitFor(
    async () => (await prometheus.alerts()).find((a) => a.labels.alertname === name && a.state === state),
    timeoutMs,
    500,
    `no ${state} alert ${name}`,
  );
}
