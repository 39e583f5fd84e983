import type { DataConverter, PayloadCodec } from '@temporalio/common';
import path from 'node:path';

/**
 * An optional payload codec module (e.g. encryption), named by TEMPORAL_PAYLOAD_CODEC and
 * exporting `payloadCodecs`. Server and workers must load the same one.
 */
export function loadDataConverter(env: NodeJS.ProcessEnv = process.env): DataConverter | undefined {
  const modulePath = env.TEMPORAL_PAYLOAD_CODEC;
  if (!modulePath) return undefined;
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- the user's codec module, by path at run time
  const loaded = require(path.resolve(modulePath)) as { payloadCodecs?: PayloadCodec[] };
  if (!Array.isArray(loaded.payloadCodecs)) throw new Error(`${modulePath} must export payloadCodecs: PayloadCodec[]`);
  return { payloadCodecs: loaded.payloadCodecs };
}
