#!/usr/bin/env node
// Builds the Java example worker (examples/java/, io.temporal:temporal-sdk pinned in its pom.xml)
// with Maven into the git-ignored examples/java/target/ (classes, and the dependencies copied into
// target/lib); the artifacts come from Maven Central into Maven's local repository (~/.m2).
// Skipped when target/ is newer than pom.xml and every source. `node build/scripts/java-examples.js`
// prints the worker's classpath.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { ROOT } from '../test/support/paths';

export const JAVA_DIR = path.join(ROOT, 'examples', 'java');
export const JAVA_MAIN = 'mcptasks.example.Worker';
const STAMP = path.join(JAVA_DIR, 'target', 'lib', '.built');

function newestSource(dir: string): number {
  let newest = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestSource(full) : fs.statSync(full).mtimeMs);
  }
  return newest;
}

function upToDate(): boolean {
  if (!fs.existsSync(STAMP)) return false;
  const sources = Math.max(fs.statSync(path.join(JAVA_DIR, 'pom.xml')).mtimeMs, newestSource(path.join(JAVA_DIR, 'src')));
  return fs.statSync(STAMP).mtimeMs >= sources;
}

/**
 * Runs `mvn -q -B <args>` in examples/java (or dir: another copy of it, e.g. an older commit's
 * worktree); throws with Maven's output when it fails or Maven is missing.
 */
export function runMaven(args: string[], dir = JAVA_DIR): string {
  const r = spawnSync(process.env.MVN ?? 'mvn', ['-q', '-B', ...args], { cwd: dir, encoding: 'utf8', timeout: 1_200_000 });
  if (r.status !== 0) {
    throw new Error(
      `mvn ${args.join(' ')} failed in ${dir} (are a JDK >= 17 and Maven installed, and Maven Central reachable?):\n` +
        `${(r.stdout ?? '').slice(-4000)}${(r.stderr ?? '').slice(-4000)}${r.error ? String(r.error) : ''}`,
    );
  }
  return r.stdout + r.stderr;
}

/** Builds the worker when its sources changed (the first time: Maven's downloads); returns its classpath. */
export function ensureJavaWorker({ log = (_m: string) => {} } = {}): string {
  if (!upToDate()) {
    log('mvn -q -B package -DskipTests (examples/java)');
    runMaven(['package', '-DskipTests']);
    fs.writeFileSync(STAMP, '');
  }
  return [path.join(JAVA_DIR, 'target', 'classes'), path.join(JAVA_DIR, 'target', 'lib', '*')].join(path.delimiter);
}

if (require.main === module) {
  try {
    console.log(ensureJavaWorker({ log: (m) => console.error(m) }));
  } catch (err) {
    console.error((err as Error).message);
    process.exit(1);
  }
}
