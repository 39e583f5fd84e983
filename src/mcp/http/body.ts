/**
 * One read and one parse of a POST body per request, shared by the handlers in front of the
 * SDK and the SDK itself (its handler takes `parsedBody`). Before parsing, a linear scan
 * refuses bodies nested deeper than a limit: JSON.parse and the schema checks after it
 * recurse, and a few MB of `[` stalls the event loop for everyone (or overflows the stack).
 */
import { ProtocolErrorCode } from '@modelcontextprotocol/server';
import type http from 'node:http';

/** Default deepest nesting of a request body: the JSON-RPC envelope takes 3, tool arguments the rest. */
export const DEFAULT_MAX_JSON_DEPTH = 64;

/** A POST body read once: its text and, when it is JSON, its value (undefined when it is not). */
export interface RequestBody {
  text: string;
  json: unknown;
}

const OPEN_OBJECT = 0x7b; // {
const OPEN_ARRAY = 0x5b; // [
const CLOSE_OBJECT = 0x7d; // }
const CLOSE_ARRAY = 0x5d; // ]
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * Tracks JSON nesting over a body fed in pieces (bytes or text): brackets inside strings do not
 * count. The structural characters are ASCII and never occur inside a UTF-8 multi-byte
 * sequence, so bytes can be scanned without decoding. One pass, no allocation.
 */
export class DepthScanner {
  private depth = 0;
  private inString = false;
  private escaped = false;

  constructor(private readonly max: number) {}

  /** Feeds the next piece; true once the nesting went deeper than `max`. */
  feed(piece: Uint8Array | string): boolean {
    const text = typeof piece === 'string';
    for (let i = 0; i < piece.length; i++) {
      const c = text ? (piece as string).charCodeAt(i) : (piece as Uint8Array)[i];
      if (this.inString) {
        if (this.escaped) this.escaped = false;
        else if (c === BACKSLASH) this.escaped = true;
        else if (c === QUOTE) this.inString = false;
      } else if (c === QUOTE) this.inString = true;
      else if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
        if (++this.depth > this.max) return true;
      } else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) this.depth--;
    }
    return false;
  }
}

/** Whether the JSON text nests objects/arrays deeper than `max`. */
export function nestsDeeperThan(text: string, max: number): boolean {
  return new DepthScanner(max).feed(text);
}

/** Whether a parsed value nests objects/arrays deeper than max; iterative, so any depth is safe to ask about. */
export function valueNestsDeeperThan(value: unknown, max: number): boolean {
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    if (typeof v !== 'object' || v === null) continue;
    if (depth > max) return true;
    for (const child of Object.values(v)) stack.push([child, depth + 1]);
  }
  return false;
}

/** Parses the text unless it nests too deep (then `tooDeep`); JSON that does not parse is left to the SDK. */
export function parseBody(text: string, maxDepth: number): RequestBody | { tooDeep: true } {
  if (nestsDeeperThan(text, maxDepth)) return { tooDeep: true };
  let json: unknown;
  try {
    json = text.length > 0 ? JSON.parse(text) : undefined;
  } catch {
    json = undefined; // the SDK answers -32700
  }
  return { text, json };
}

/**
 * The answer to a body nested too deep: -32602 (the envelope itself is shallow, so the excess
 * is always in params), with the limit in `data`. HTTP 400, id null: the body was not parsed.
 */
export function tooDeepResponse(maxDepth: number): Response {
  const error = {
    code: ProtocolErrorCode.InvalidParams,
    message: `Invalid params: the request nests JSON deeper than ${maxDepth} levels`,
    data: { maxDepth },
  };
  return Response.json({ jsonrpc: '2.0', id: null, error }, { status: 400 });
}

/**
 * Requests the SDK would answer with -32603 and a zod dump: `initialize` without params (or
 * with params that are not an object). Answered -32602 here, short; undefined for the rest.
 */
export function malformedRequestResponse(body: RequestBody | undefined): Response | undefined {
  const message = body?.json as { id?: unknown; method?: unknown; params?: unknown } | undefined;
  if (message === null || typeof message !== 'object' || message.method !== 'initialize') return undefined;
  if (message.params !== null && typeof message.params === 'object' && !Array.isArray(message.params)) return undefined;
  const id = typeof message.id === 'string' || typeof message.id === 'number' ? message.id : null;
  const error = {
    code: ProtocolErrorCode.InvalidParams,
    message: 'Invalid params: initialize needs params {protocolVersion, capabilities, clientInfo}',
  };
  return Response.json({ jsonrpc: '2.0', id, error }, { status: 200 });
}

/**
 * The body's chunks, scanned for nesting as they arrive. A body found too deep is read to its
 * end without scanning or keeping it (a client still sending would otherwise get a broken pipe
 * instead of the answer); past the size limit nothing more is read.
 */
export function readScanned(
  req: http.IncomingMessage,
  maxDepth: number,
  maxBytes: number,
): Promise<{ kind: 'read'; chunks: Buffer[] } | { kind: 'deep' | 'large' }> {
  return new Promise((resolve, reject) => {
    const scanner = new DepthScanner(maxDepth);
    const chunks: Buffer[] = [];
    let bytes = 0;
    let deep = false;
    const onData = (chunk: Buffer) => {
      bytes += chunk.length;
      if (bytes > maxBytes) {
        req.off('data', onData);
        req.pause();
        return resolve({ kind: 'large' });
      }
      if (deep) return;
      deep = scanner.feed(chunk);
      if (deep) chunks.length = 0;
      else chunks.push(chunk);
    };
    req.on('data', onData);
    req.once('end', () => resolve(deep ? { kind: 'deep' } : { kind: 'read', chunks }));
    req.once('error', reject);
  });
}

/** As the SDK's adapter answers a body over the limit. */
export function tooLargeResponse(maxBytes: number): Response {
  return Response.json(
    { jsonrpc: '2.0', error: { code: -32000, message: `Payload Too Large: Request body must not exceed ${maxBytes} bytes` }, id: null },
    { status: 413 },
  );
}

/** The request again, its body served from the chunks already read (the SDK's adapter reads it as a stream). */
export function replayed(req: http.IncomingMessage, chunks: Buffer[]): http.IncomingMessage {
  return Object.assign(Object.create(req) as http.IncomingMessage, {
    async *[Symbol.asyncIterator]() {
      yield* chunks;
    },
  });
}
