type Stop = () => Promise<void>;

/**
 * Ctrl-C (SIGINT) and SIGTERM stop everything once; a second signal exits at once. Under
 * `npm start` a Ctrl-C reaches us twice (from the terminal to the whole group, and forwarded by
 * npm), so a repeat within a second is the same request, not an impatient second one.
 *
 * Started by an npm script, we also stop when npm goes away (our parent changes): npm forwards
 * SIGTERM only to the shell it runs the script in, and a shell that does not `exec` (dash) dies
 * of it and leaves us orphaned. The start script execs, and this catches every other way.
 *
 * A long-running command listens before it starts anything: without a listener a signal kills
 * the process outright, so a Ctrl-C during start-up skipped the graceful stop. A signal that
 * comes before the command hands over its stop is kept, and the stop runs when it does.
 */
export function listenForStop(): (stop: Stop) => void {
  let stoppingSince = 0;
  let pending: Stop | undefined;
  const runPending = () => {
    const stop = pending;
    if (!stop || !stoppingSince) return;
    pending = undefined;
    stop().then(
      () => process.exit(0),
      (err) => {
        console.error(err);
        process.exit(1);
      },
    );
  };
  const handler = (reason: string) => {
    if (stoppingSince) {
      if (Date.now() - stoppingSince > 1000) process.exit(1);
      return;
    }
    stoppingSince = Date.now();
    console.error(`${reason}: stopping`);
    runPending();
  };
  process.on('SIGINT', () => handler('SIGINT'));
  process.on('SIGTERM', () => handler('SIGTERM'));
  if (process.env.npm_lifecycle_event) {
    const parent = process.ppid;
    setInterval(() => {
      if (process.ppid !== parent && !stoppingSince) handler(`parent process ${parent} (npm or its shell) is gone`);
    }, 500).unref();
  }
  return (stop) => {
    pending = stop;
    runPending();
  };
}
