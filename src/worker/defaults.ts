/**
 * How long a workflow task waits on a worker's sticky queue before Temporal hands it to any
 * worker. The SDK's 10 s is how long a crashed worker's tasks stall; the measurements behind
 * this value are in docs/configuration.md (`--sticky-schedule-to-start-timeout`). Its own file:
 * the CLI's settings read it without loading the plugin (and the SDK behind it).
 */
export const DEFAULT_STICKY_SCHEDULE_TO_START_TIMEOUT_MS = 2000;
