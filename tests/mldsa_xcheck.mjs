// tests/mldsa_xcheck.mjs - cross-check of mtc-core's ML-DSA against the
// independent implementation @noble/post-quantum, on fresh random seeds,
// messages and contexts every run. For each parameter set and round:
//   - public keys from the same seed are byte-identical;
//   - deterministic signatures are byte-identical;
//   - noble verifies mtc's hedged signature, mtc verifies noble's;
//   - both reject a one-bit change of the signature and a wrong context.
// Usage: node tests/mldsa_xcheck.mjs MTC_BINARY NODE_PREFIX [ROUNDS]
import { spawnSync } from 'node:child_process';
import { randomBytes, randomInt } from 'node:crypto';
import { pathToFileURL } from 'node:url';

const [mtc, prefix, roundsArg] = process.argv.slice(2);
const rounds = Number(roundsArg || 3);
const mod = await import(pathToFileURL(
  `${prefix}/node_modules/@noble/post-quantum/ml-dsa.js`).href);
const algs = { 'ml-dsa-44': mod.ml_dsa44, 'ml-dsa-65': mod.ml_dsa65, 'ml-dsa-87': mod.ml_dsa87 };
const hex = (b) => Buffer.from(b).toString('hex');
const unhex = (s) => new Uint8Array(Buffer.from(s, 'hex'));

// Runs mtc; returns { status, out } (stdout trimmed).
function run(args) {
  const r = spawnSync(mtc, args, { encoding: 'utf8' });
  if (r.error) throw r.error;
  return { status: r.status, out: r.stdout.trim(), err: r.stderr.trim() };
}
function must(args) {
  const r = run(args);
  if (r.status !== 0) throw new Error(`mtc ${args.slice(0, 2).join(' ')} failed (${r.status}): ${r.err}`);
  return r.out;
}

let checks = 0, failures = 0;
function check(cond, what) {
  checks++;
  if (!cond) { failures++; console.log(`FAIL ${what}`); }
}

for (const [name, dsa] of Object.entries(algs)) {
  for (let i = 0; i < rounds; i++) {
    const seed = randomBytes(32);
    const msg = randomBytes(i === 0 ? 0 : randomInt(1, 400));
    const ctx = randomBytes(i === 1 ? 255 : randomInt(0, 40));
    const tag = `${name} round ${i} (seed ${hex(seed)}, msg ${msg.length} B, ctx ${ctx.length} B)`;
    const { publicKey, secretKey } = dsa.keygen(new Uint8Array(seed));
    const base = ['--alg', name];

    const pk = must(['mldsa', 'keygen', ...base, '--seed', hex(seed)]);
    check(pk === hex(publicKey), `${tag}: public keys differ`);

    const sigDet = must(['mldsa', 'sign', ...base, '--seed', hex(seed), '--msg', hex(msg),
                         '--ctx', hex(ctx), '--deterministic']);
    const nobleDet = dsa.sign(new Uint8Array(msg), secretKey, { context: new Uint8Array(ctx), extraEntropy: false });
    check(sigDet === hex(nobleDet), `${tag}: deterministic signatures differ`);

    const sigRnd = must(['mldsa', 'sign', ...base, '--seed', hex(seed), '--msg', hex(msg), '--ctx', hex(ctx)]);
    check(sigRnd !== sigDet, `${tag}: hedged signature equals the deterministic one`);
    check(dsa.verify(unhex(sigRnd), new Uint8Array(msg), publicKey, { context: new Uint8Array(ctx) }),
          `${tag}: noble rejects mtc's hedged signature`);

    const nobleRnd = dsa.sign(new Uint8Array(msg), secretKey, { context: new Uint8Array(ctx) });
    const v = run(['mldsa', 'verify', ...base, '--pk', pk, '--msg', hex(msg), '--ctx', hex(ctx),
                   '--sig', hex(nobleRnd)]);
    check(v.status === 0, `${tag}: mtc rejects noble's hedged signature (${v.status})`);

    // One flipped bit, at a random position of the signature.
    const bad = unhex(sigRnd);
    const bit = randomInt(0, bad.length * 8);
    bad[bit >> 3] ^= 1 << (bit & 7);
    const vb = run(['mldsa', 'verify', ...base, '--pk', pk, '--msg', hex(msg), '--ctx', hex(ctx),
                    '--sig', hex(bad)]);
    check(vb.status === 1, `${tag}: mtc accepts signature with bit ${bit} flipped (${vb.status})`);
    check(!dsa.verify(bad, new Uint8Array(msg), publicKey, { context: new Uint8Array(ctx) }),
          `${tag}: noble accepts signature with bit ${bit} flipped`);

    // A different context.
    const ctx2 = Buffer.concat([ctx.subarray(0, Math.min(ctx.length, 254)), Buffer.from([0x01])]);
    const vc = run(['mldsa', 'verify', ...base, '--pk', pk, '--msg', hex(msg), '--ctx', hex(ctx2),
                    '--sig', sigRnd]);
    check(vc.status === 1, `${tag}: mtc accepts a wrong context (${vc.status})`);
  }
}
console.log(`mldsa cross-check: ${checks - failures}/${checks} checks passed ` +
            `(${rounds} rounds x 3 parameter sets)`);
process.exit(failures ? 1 : 0);
