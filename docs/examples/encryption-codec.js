// An AES-256-GCM payload codec for Temporal: arguments, results, memo and signals are stored
// encrypted in Temporal's history. Use it with
//   TEMPORAL_PAYLOAD_CODEC=./docs/examples/encryption-codec.js
//   MCP_ENCRYPTION_KEY=<64 hex chars>   (the same on every server and worker)
'use strict';
const { createCipheriv, createDecipheriv, randomBytes } = require('node:crypto');

const ENCODING = 'binary/encrypted';

function key() {
  const hex = process.env.MCP_ENCRYPTION_KEY ?? '';
  if (!/^[0-9a-f]{64}$/i.test(hex)) throw new Error('MCP_ENCRYPTION_KEY must be 64 hex characters (32 bytes)');
  return Buffer.from(hex, 'hex');
}

const encoder = new TextEncoder();

class EncryptionCodec {
  constructor(secret = key()) {
    this.secret = secret;
  }

  async encode(payloads) {
    return payloads.map((payload) => {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', this.secret, iv);
      const plain = Buffer.from(JSON.stringify({ metadata: b64Map(payload.metadata), data: b64(payload.data) }));
      const data = Buffer.concat([iv, cipher.update(plain), cipher.final(), cipher.getAuthTag()]);
      return { metadata: { encoding: encoder.encode(ENCODING) }, data };
    });
  }

  async decode(payloads) {
    return payloads.map((payload) => {
      if (Buffer.from(payload.metadata?.encoding ?? []).toString() !== ENCODING) return payload;
      const buf = Buffer.from(payload.data);
      const decipher = createDecipheriv('aes-256-gcm', this.secret, buf.subarray(0, 12));
      decipher.setAuthTag(buf.subarray(buf.length - 16));
      const plain = Buffer.concat([decipher.update(buf.subarray(12, buf.length - 16)), decipher.final()]);
      const { metadata, data } = JSON.parse(plain.toString());
      return { metadata: unb64Map(metadata), data: Buffer.from(data, 'base64') };
    });
  }
}

const b64 = (bytes) => Buffer.from(bytes ?? []).toString('base64');
const b64Map = (m = {}) => Object.fromEntries(Object.entries(m).map(([k, v]) => [k, b64(v)]));
const unb64Map = (m = {}) => Object.fromEntries(Object.entries(m).map(([k, v]) => [k, Buffer.from(v, 'base64')]));

module.exports = { payloadCodecs: [new EncryptionCodec()], EncryptionCodec };
