/**
 * The protocol revisions this server speaks, one line each (in the order their HTTP handlers
 * run in front of the SDK's). Dropping one is deleting its line and its folder.
 */
import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import { rev2025_11_25 } from './rev2025-11-25';
import { rev2026_07_28 } from './rev2026-07-28';
import type { Era, ProtocolRevision } from './revision';

export const REVISIONS: readonly ProtocolRevision[] = [
  rev2025_11_25,
  rev2026_07_28,
];

export function revisionOf(era: Era): ProtocolRevision {
  const revision = REVISIONS.find((r) => r.era === era);
  if (!revision) throw new ProtocolError(ProtocolErrorCode.InvalidRequest, `Unsupported protocol revision (${era})`);
  return revision;
}
