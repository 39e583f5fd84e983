/** The shape of a dev server, apart from how it is started (the CLI's binary, or the SDK's download). */
export interface DevServerOptions {
  dbFile: string;
  host: string;
  port: number;
  uiPort: number;
  namespace: string;
  /**
   * SQLite runs in WAL mode; `full` (the default) syncs every commit, `normal` syncs at
   * checkpoints: faster, and a crashed process still loses nothing, but a power loss may drop
   * the last commits.
   */
  sqliteSynchronous?: 'full' | 'normal';
  /** Serves Temporal's Prometheus metrics at http://host:metricsPort/metrics (the bench counts calls there). */
  metricsPort?: number;
  log?: (line: string) => void;
}

/** A running `temporal server start-dev`: a real Temporal server on SQLite, with its Web UI. */
export interface DevServer {
  address: string;
  uiUrl: string;
  pid: number;
  stop(): Promise<void>;
}
