/** What only the fault tests share; the rest comes from the support library (re-exported for their imports). */
export { ledgerCounts, ledgerDir, ledgerFiles, ledgerMarkers } from '../support/ledger';
export { createTask } from '../support/mcp-client';
export { restartableTemporal } from '../support/temporal';
export { sleep } from '../support/wait';

/** Prints the counts the closing note reports. */
export function report(caseName: string, counts: Record<string, number>): void {
  console.log(
    `[faults] ${caseName}: ${Object.entries(counts)
      .map(([k, v]) => `${k}=${v}`)
      .join(' ')}`,
  );
}
