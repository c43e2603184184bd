/**
 * The code each crypto worker thread runs (`crypto-pool.ts` starts them): CommonJS, as a
 * string, so the pool needs no file of its own beside it. A request is a job: Ed25519 signing
 * or checking of messages packed back to back, ChaCha20-Poly1305 opening or sealing, or the
 * opening of salted seals (their nonces and XChaCha subkeys made here); the answer's buffers
 * move back to the pool.
 */
// The worker keeps the last signing key it made, since one key signs a whole `putMany`. An
// opening's or sealing's keys are wiped once used.
export const WORKER_CODE = `
const { parentPort } = require('node:worker_threads');
const crypto = require('node:crypto');
const { createPrivateKey, createPublicKey, sign, verify, createCipheriv, createDecipheriv } = crypto;
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
// Each item of a batch: its associated data and its data (sealed or plain), packed in pairs.
function eachPart(bytes, ends, n, use) {
  let start = 0;
  for (let i = 0; i < n; i++) {
    use(i, bytes.subarray(start, ends[2 * i]), bytes.subarray(ends[2 * i], ends[2 * i + 1]));
    start = ends[2 * i + 1];
  }
}
// Each of an opening's or sealing's items: its key, nonce, data (sealed or plain) and
// associated data, in order; the keys are wiped after.
function eachOf({ count: n, keys, nonces, bytes, ends }, use) {
  try {
    eachPart(bytes, ends, n, (i, aad, data) =>
      use(i, keys.subarray(32 * i, 32 * i + 32), nonces.subarray(12 * i, 12 * i + 12), data, aad));
  } finally {
    keys.fill(0);
  }
}
// The plaintext of ChaCha20-Poly1305 ciphertext ‖ tag, or undefined where the tag does not match.
function openOne(key, nonce, sealed, aad) {
  if (sealed.length < 16) return undefined;
  const length = sealed.length - 16;
  const d = createDecipheriv('chacha20-poly1305', key, nonce, { authTagLength: 16 });
  d.setAuthTag(sealed.subarray(length));
  d.setAAD(aad, { plaintextLength: length });
  const plain = d.update(sealed.subarray(0, length));
  try { d.final(); } catch { return undefined; }
  return plain;
}
// Plaintexts of up to size bytes back to back, with each one's length (-1 where it did not
// open): an opening's answer. open(take) calls take(i, plain) for each.
function opened(n, size, open) {
  const out = new Uint8Array(size);
  const lengths = new Int32Array(n).fill(-1);
  let at = 0;
  open((i, plain) => {
    if (!plain) return;
    out.set(plain, at);
    at += plain.length;
    lengths[i] = plain.length;
  });
  return { out: out.subarray(0, at), lengths };
}
function openAll(request) {
  return opened(request.count, request.bytes.length, (take) =>
    eachOf(request, (i, key, nonce, sealed, aad) => take(i, openOne(key, nonce, sealed, aad))));
}
// HChaCha20 (draft-irtf-cfrg-xchacha §2.2) of a 32-byte key and a 16-byte nonce, into out (32
// bytes). The state is read and written in place as bytes, so little-endian hosts only, as
// core's are; core checks what this opens against noble's at start.
const hWords = new Uint32Array(16);
const hBytes = new Uint8Array(hWords.buffer);
const SIGMA = [0x61707865, 0x3320646e, 0x79622d32, 0x6b206574];
function quarter(s, a, b, c, d) {
  let x;
  s[a] += s[b]; x = s[d] ^ s[a]; s[d] = (x << 16) | (x >>> 16);
  s[c] += s[d]; x = s[b] ^ s[c]; s[b] = (x << 12) | (x >>> 20);
  s[a] += s[b]; x = s[d] ^ s[a]; s[d] = (x << 8) | (x >>> 24);
  s[c] += s[d]; x = s[b] ^ s[c]; s[b] = (x << 7) | (x >>> 25);
}
function hchacha(key, nonce, out) {
  const s = hWords;
  s.set(SIGMA);
  hBytes.set(key, 16);
  hBytes.set(nonce, 48);
  for (let i = 0; i < 10; i++) {
    quarter(s, 0, 4, 8, 12); quarter(s, 1, 5, 9, 13); quarter(s, 2, 6, 10, 14); quarter(s, 3, 7, 11, 15);
    quarter(s, 0, 5, 10, 15); quarter(s, 1, 6, 11, 12); quarter(s, 2, 7, 8, 13); quarter(s, 3, 4, 9, 14);
  }
  out.set(hBytes.subarray(0, 16));
  out.set(hBytes.subarray(48, 64), 16);
  s.fill(0);
}
// SHA-256 of salt ‖ aad, through buffers kept for it, good until the next call; one call where
// Node has crypto.hash, taken as a string: Node makes a Buffer of a digest several times slower.
let nonceInput = new Uint8Array(512);
const digest = new Uint8Array(32);
function saltedDigest(salt, aad) {
  if (nonceInput.length < 8 + aad.length) nonceInput = new Uint8Array(2 * (8 + aad.length));
  nonceInput.set(salt);
  nonceInput.set(aad, 8);
  const input = nonceInput.subarray(0, 8 + aad.length);
  if (!crypto.hash) return crypto.createHash('sha256').update(input).digest();
  const text = crypto.hash('sha256', input, 'latin1');
  for (let i = 0; i < 32; i++) digest[i] = text.charCodeAt(i);
  return digest;
}
// Salted seals (core's seal.ts): XChaCha20-Poly1305 under the batch's key, the nonce the first
// 24 bytes of SHA-256(salt ‖ aad): the subkey HChaCha20 of its first 16, the IV four zero bytes
// and its last 8. The keys are wiped after.
function openSaltedAll({ count: n, key, salts, bytes, ends }) {
  const subkey = new Uint8Array(32);
  const iv = new Uint8Array(12);
  try {
    return opened(n, bytes.length, (take) =>
      eachPart(bytes, ends, n, (i, aad, sealed) => {
        if (sealed.length < 16) return;
        const nonce = saltedDigest(salts.subarray(8 * i, 8 * i + 8), aad);
        hchacha(key, nonce.subarray(0, 16), subkey);
        iv.set(nonce.subarray(16, 24), 4);
        take(i, openOne(subkey, iv, sealed, aad));
      }));
  } finally {
    key.fill(0);
    subkey.fill(0);
  }
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
      : request.kind === 'openSalted' ? openSaltedAll(request)
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
