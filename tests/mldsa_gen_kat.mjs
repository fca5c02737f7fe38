// tests/mldsa_gen_kat.mjs - writes tests/data/mldsa_kat.jsonl, the pinned
// known answers of the independent implementation @noble/post-quantum
// (version pinned in tests/sh_mldsa_xcheck.sh), so tests/test_mldsa.c
// checks the core even where node is absent. Inputs are derived from
// SHA-256 of fixed labels, so re-running gives the same file.
//   node tests/mldsa_gen_kat.mjs NODE_PREFIX > tests/data/mldsa_kat.jsonl
import { createHash } from 'node:crypto';
import { pathToFileURL } from 'node:url';

const prefix = process.argv[2] || 'build/node';
const mod = await import(pathToFileURL(
  `${prefix}/node_modules/@noble/post-quantum/ml-dsa.js`).href);
const algs = { 'ML-DSA-44': mod.ml_dsa44, 'ML-DSA-65': mod.ml_dsa65, 'ML-DSA-87': mod.ml_dsa87 };

const hex = (b) => Buffer.from(b).toString('hex');
// n bytes of SHA-256 counter-mode output for a label.
function bytes(label, n) {
  const out = Buffer.alloc(n);
  for (let i = 0, off = 0; off < n; i++, off += 32)
    createHash('sha256').update(`${label}/${i}`).digest().copy(out, off);
  return new Uint8Array(out);
}

for (const [name, dsa] of Object.entries(algs)) {
  // case 0: empty context, short message; case 1: longest context (255),
  // longer message; case 2: empty message, 1-byte context.
  const shapes = [[0, 33], [255, 1000], [1, 0]];
  shapes.forEach(([ctxLen, msgLen], i) => {
    const label = `mtcsim mldsa kat ${name} ${i}`;
    const seed = bytes(label + ' seed', 32);
    const msg = bytes(label + ' msg', msgLen);
    const ctx = bytes(label + ' ctx', ctxLen);
    const rnd = bytes(label + ' rnd', 32);
    const { publicKey, secretKey } = dsa.keygen(seed);
    const sigDet = dsa.sign(msg, secretKey, { context: ctx, extraEntropy: false });
    const sigRnd = dsa.sign(msg, secretKey, { context: ctx, extraEntropy: rnd });
    if (!dsa.verify(sigDet, msg, publicKey, { context: ctx }) ||
        !dsa.verify(sigRnd, msg, publicKey, { context: ctx }))
      throw new Error('noble failed to verify its own signature');
    console.log(JSON.stringify({
      alg: name, case: i, seed: hex(seed), msg: hex(msg), ctx: hex(ctx),
      rnd: hex(rnd), pk: hex(publicKey), sk: hex(secretKey),
      sig_det: hex(sigDet), sig_rnd: hex(sigRnd),
    }));
  });
}
