/**
 * The code each crypto worker thread runs (`crypto-pool.ts` starts them): CommonJS, as a
 * string, so the pool needs no file of its own beside it. A request is a job: Ed25519 signing
 * or checking of messages packed back to back, or ChaCha20-Poly1305 opening or sealing; the
 * answer's buffers move back to the pool.
 */
// The worker keeps the last signing key it made, since one key signs a whole `putMany`. An
// opening's or sealing's keys are wiped once used.
export const WORKER_CODE = `
const { parentPort } = require('node:worker_threads');
const { createPrivateKey, createPublicKey, sign, verify, createCipheriv, createDecipheriv } = require('node:crypto');
let lastD, lastKey;
const publicKeys = new Map();
function publicKey(bytes) {
  const x = Buffer.from(bytes).toString('base64url');
  let key = publicKeys.get(x);
  if (!key) {
    if (publicKeys.size >= 1024) publicKeys.delete(publicKeys.keys().next().value);
    key = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x }, format: 'jwk' });
    publicKeys.set(x, key);
  }
  return key;
}
function verifyAll({ keys, bytes, ends, signatures }) {
  const out = new Uint8Array(ends.length);
  let start = 0;
  for (let i = 0; i < ends.length; i++) {
    try {
      const key = publicKey(keys.subarray(32 * i, 32 * i + 32));
      out[i] = verify(null, bytes.subarray(start, ends[i]), key, signatures.subarray(64 * i, 64 * i + 64)) ? 1 : 0;
    } catch {
      out[i] = 0;
    }
    start = ends[i];
  }
  return { out };
}
function signAll({ jwk, bytes, ends }) {
  if (jwk.d !== lastD) { lastKey = createPrivateKey({ key: jwk, format: 'jwk' }); lastD = jwk.d; }
  const out = new Uint8Array(64 * ends.length);
  let start = 0;
  for (let i = 0; i < ends.length; i++) {
    out.set(sign(null, bytes.subarray(start, ends[i]), lastKey), 64 * i);
    start = ends[i];
  }
  return { out };
}
// Each of an opening's or sealing's items: its key, nonce, data (sealed or plain) and
// associated data, in order; the keys are wiped after.
function eachOf({ count: n, keys, nonces, bytes, ends }, use) {
  let start = 0;
  try {
    for (let i = 0; i < n; i++) {
      const aad = bytes.subarray(start, ends[2 * i]);
      const data = bytes.subarray(ends[2 * i], ends[2 * i + 1]);
      start = ends[2 * i + 1];
      use(i, keys.subarray(32 * i, 32 * i + 32), nonces.subarray(12 * i, 12 * i + 12), data, aad);
    }
  } finally {
    keys.fill(0);
  }
}
function openAll(request) {
  const out = new Uint8Array(request.bytes.length);
  const lengths = new Int32Array(request.count).fill(-1);
  let at = 0;
  eachOf(request, (i, key, nonce, sealed, aad) => {
    if (sealed.length < 16) return;
    const length = sealed.length - 16;
    const d = createDecipheriv('chacha20-poly1305', key, nonce, { authTagLength: 16 });
    d.setAuthTag(sealed.subarray(length));
    d.setAAD(aad, { plaintextLength: length });
    const plain = d.update(sealed.subarray(0, length));
    try { d.final(); } catch { return; }
    out.set(plain, at);
    at += length;
    lengths[i] = length;
  });
  return { out: out.subarray(0, at), lengths };
}
function sealAll(request) {
  const { count: n, ends } = request;
  let size = 0;
  for (let i = 0; i < n; i++) size += ends[2 * i + 1] - ends[2 * i] + 16;
  const out = new Uint8Array(size);
  const lengths = new Int32Array(n);
  let at = 0;
  eachOf(request, (i, key, nonce, plain, aad) => {
    const c = createCipheriv('chacha20-poly1305', key, nonce, { authTagLength: 16 });
    c.setAAD(aad, { plaintextLength: plain.length });
    for (const part of [c.update(plain), c.final(), c.getAuthTag()]) {
      out.set(part, at);
      at += part.length;
    }
    lengths[i] = plain.length + 16;
  });
  return { out, lengths };
}
parentPort.on('message', (request) => {
  try {
    const reply =
      request.kind === 'open' ? openAll(request)
      : request.kind === 'seal' ? sealAll(request)
      : request.kind === 'verify' ? verifyAll(request)
      : signAll(request);
    reply.job = request.job;
    const transfer = [reply.out.buffer];
    if (reply.lengths) transfer.push(reply.lengths.buffer);
    parentPort.postMessage(reply, transfer);
  } catch (error) {
    parentPort.postMessage({ job: request.job, error: String((error && error.message) || error) });
  }
});
`;
