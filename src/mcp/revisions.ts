/**
 * The protocol revisions this server speaks, one line each. Dropping one is deleting its line
 * and its folder.
 */
import { type ProtocolEra, ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import { rev2025_11_25 } from './rev2025-11-25';
import { rev2026_07_28 } from './rev2026-07-28';
import type { ProtocolRevision } from './revision';

export const REVISIONS: readonly ProtocolRevision[] = [rev2025_11_25, rev2026_07_28];

/** The revision of a request, from the SDK's name for it. */
export function revisionOf(sdkEra: ProtocolEra): ProtocolRevision {
  const revision = REVISIONS.find((r) => r.sdkEra === sdkEra);
  if (!revision) throw new ProtocolError(ProtocolErrorCode.InvalidRequest, `Unsupported protocol revision (${sdkEra})`);
  return revision;
}
