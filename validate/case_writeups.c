/*
 * validate/case_writeups.c - case 4, figures of public write-ups of MTC
 * that state their inputs (docs/sources.md [writeup-le-proof],
 * [writeup-standalone-size], [writeup-lr-example]): 4a Let's Encrypt at 6
 * million a day with a checkpoint a minute; 4b a standalone certificate
 * with ML-DSA-44 cosigners; 4c a landmark-relative certificate for an
 * ECDSA leaf with two DNS names in a 7-hash subtree. Expected values that
 * the real encodings must meet are the draft's own structures (MTCProof,
 * the X.509 and DER rules); the write-ups' figures are shown beside them.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mtc/cert.h"
#include "mtc/der.h"
#include "mtc/entry.h"
#include "mtc/error.h"
#include "mtc/merkle.h"
#include "mtc/rp.h"
#include "mtc/sig.h"
#include "mtc/taid.h"
#include "vcases.h"
#include "vworld.h"

/* MTCProof framing (draft "Certificate Format"): extensions<0..2^16-1>
 * (empty: 2), uint48 start, uint48 end, the inclusion_proof and
 * signatures vectors' 2-byte lengths. */
#define PROOF_FRAMING (2 + 6 + 6 + 2 + 2)

/* A SubtreeSignature: cosigner_id<1..2^8-1> and signature<0..2^16-1>. */
static double subtree_sig_bytes(const char *id, double sig)
{
    mtc_taid t;
    mtc_taid_from_text(id, strlen(id), &t);
    return 1 + t.len + 2 + sig;
}

/* ---- 4a ---- */

int case_4a(vctx *c)
{
    const double rate = 6e6 / 86400;
    vw_proof_cfg cfg = {rate, 60, 3600, 3600, "ed25519", 0, 10, 90, MTC_SIG_ECDSA_P256};
    vw_proof_out o;
    if (vw_proof_run(c, &cfg, "letsencrypt-60s", &o) != MTC_OK)
        return -1;
    double eb = (rate + 1 / cfg.probe_every) * 60, batch = o.entries / o.checkpoints;
    v_row(c, "entries per checkpoint (6 M/day, 60 s)", "entries", 0, eb, 0, batch, batch,
          batch, 0, v_zquant(0.9995) * sqrt(eb / o.checkpoints));
    /* the write-up's figure is the length of a typical proof */
    double mode = o.sa.mode_hashes;
    v_row(c, "standalone proof, most common", "hashes", 0, 12, 0, mode, mode, mode, 0, 0);
    v_row(c, "standalone proof, most common", "bytes", 0, 384, 0, 32 * mode, 32 * mode,
          32 * mode, 0, 0);
    /* "16 %": to the percent */
    v_row(c, "its share of one ML-DSA-44 signature", "", 3, 0.16, 0, 32 * mode / 2420,
          32 * mode / 2420, 32 * mode / 2420, 0, 0.005);
    v_info(c, "standalone proof, mean over entries", "hashes", 2, 12, o.sa.mean_hashes);
    v_info(c, "mean proof's share of one ML-DSA-44 signature", "", 3, 0.16,
           32 * o.sa.mean_hashes / 2420);
    v_info(c, "standalone proof, largest", "hashes", 0, 12, o.sa.max_hashes);
    vw_probe_free(&o.probe);
    return 0;
}

/* ---- 4b ---- */

int case_4b(vctx *c)
{
    /* The Chrome root program's minimum (docs/sources.md [crqp-cosign]):
     * the CA's own ML-DSA-44 cosignature and one mirror's, at Let's
     * Encrypt's rate with a checkpoint a minute. */
    const double rate = 6e6 / 86400;
    const int keys[2] = {MTC_SIG_ECDSA_P256, MTC_SIG_MLDSA44};
    const char *kname[2] = {"ECDSA P-256 key", "ML-DSA-44 key"};
    for (int k = 0; k < 2; k++) {
        vw_proof_cfg cfg = {rate, 60, 3600, 900, "ml-dsa-44", 1, 30, 90, keys[k]};
        vw_proof_out o;
        if (vw_proof_run(c, &cfg, k ? "standalone-mldsa-key" : "standalone-ecdsa-key", &o) !=
            MTC_OK)
            return -1;
        /* the MTCProof is exactly the draft's structure: framing, 32
         * bytes per hash, one SubtreeSignature each from the CA
         * (32473.1) and the mirror (32473.9999.1) */
        double expect = PROOF_FRAMING + 32 * o.sa.mean_hashes +
                        subtree_sig_bytes("32473.1", 2420) +
                        subtree_sig_bytes("32473.9999.1", 2420);
        char row[96];
        snprintf(row, sizeof row, "standalone MTCProof, mean, %s", kname[k]);
        v_row(c, row, "bytes", 1, expect, 0, o.sa.mean_proof, o.sa.mean_proof,
              o.sa.mean_proof, 0, 0);
        snprintf(row, sizeof row, "signatures in a standalone proof, %s", kname[k]);
        v_row(c, row, "", 0, 2, 0, o.sa.sigs, o.sa.sigs, o.sa.sigs, 0, 0);
        snprintf(row, sizeof row, "standalone certificate, mean, %s", kname[k]);
        v_info(c, row, "bytes", 0, 133000, o.sa.mean_der);
        vw_probe_free(&o.probe);
    }
    return 0;
}

/* ---- 4c ---- */

/* Bytes of a DER element with `content` bytes of contents. */
static double der(double content)
{
    return 1 + (content < 128 ? 1 : content < 256 ? 2 : content < 65536 ? 3 : 4) + content;
}

/* The certificate's size from the draft's and X.509's definitions alone
 * (docs/validation.md, 4c, has the table): ECDSA P-256 key, issuer the
 * CA-ID name of "32473.1" (the draft's experimental UTF8String form),
 * validity as UTCTime, empty subject, extensions keyUsage, extKeyUsage,
 * subjectAltName with the two names; an MTCProof with `hashes` hashes and
 * no signature. */
static double expected_lr_bytes(const char *n1, const char *n2, int hashes)
{
    double version = 5;                             /* [0] { INTEGER 2 } */
    double serial = der(7);                         /* (1 << 48) | index */
    double alg = 14;                                /* id-alg-mtcProof */
    double issuer = der(der(der(der(10) + der(7)))); /* 1.3.6.1.4.1.44363.47.1 = "32473.1" */
    double validity = der(2 * der(13));             /* two UTCTime */
    double subject = der(0);
    double spki = der(der(der(7) + der(8)) + der(1 + 65)); /* id-ecPublicKey, P-256 */
    double ku = der(der(3) + der(1) + der(4));      /* critical, digitalSignature */
    double eku = der(der(3) + der(der(der(8))));    /* serverAuth */
    double san = der(der(3) + der(1) + der(der(der(strlen(n1)) + der(strlen(n2)))));
    double exts = der(der(ku + eku + san));         /* [3] { SEQUENCE OF } */
    double tbs = der(version + serial + alg + issuer + validity + subject + spki + exts);
    double proof = PROOF_FRAMING + 32.0 * hashes;
    return der(tbs + alg + der(1 + proof));
}

typedef struct leaves {
    mtc_hash h[128];
} leaves;

static int leaves_range(void *ctx, uint64_t start, uint64_t end, mtc_hash *out)
{
    const leaves *l = ctx;
    if (end - start == 1) {
        *out = l->h[start];
        return MTC_OK;
    }
    uint64_t k = 1;
    while (2 * k < end - start)
        k *= 2;
    mtc_hash a, b;
    leaves_range(ctx, start, start + k, &a);
    leaves_range(ctx, start + k, end, &b);
    mtc_hash_node(&a, &b, out);
    return MTC_OK;
}

/* Two dNSNames in a critical subjectAltName, with keyUsage and
 * extKeyUsage as mtc_tbs_entry_tls_server writes them. */
static size_t two_name_exts(uint8_t *buf, size_t cap, const char *n1, const char *n2)
{
    static const uint8_t ku_oid[] = {0x55, 0x1d, 0x0f}, eku_oid[] = {0x55, 0x1d, 0x25},
                         san_oid[] = {0x55, 0x1d, 0x11},
                         server[] = {0x2b, 0x06, 0x01, 0x05, 0x05, 0x07, 0x03, 0x01},
                         ku[] = {0x03, 0x02, 0x07, 0x80};
    static const uint8_t t = 0xff;
    mtc_der_writer w;
    mtc_der_writer_init(&w, buf, cap);
    size_t m3 = mtc_der_open(&w, MTC_DER_CONTEXT | MTC_DER_CONSTRUCTED | 3);
    size_t ml = mtc_der_open(&w, MTC_DER_SEQUENCE);
    size_t mx = mtc_der_open(&w, MTC_DER_SEQUENCE);
    mtc_der_prim(&w, MTC_DER_OID, ku_oid, sizeof ku_oid);
    mtc_der_prim(&w, MTC_DER_BOOLEAN, &t, 1);
    mtc_der_prim(&w, MTC_DER_OCTET_STRING, ku, sizeof ku);
    mtc_der_close(&w, mx);
    mx = mtc_der_open(&w, MTC_DER_SEQUENCE);
    mtc_der_prim(&w, MTC_DER_OID, eku_oid, sizeof eku_oid);
    size_t mo = mtc_der_open(&w, MTC_DER_OCTET_STRING);
    size_t ms = mtc_der_open(&w, MTC_DER_SEQUENCE);
    mtc_der_prim(&w, MTC_DER_OID, server, sizeof server);
    mtc_der_close(&w, ms);
    mtc_der_close(&w, mo);
    mtc_der_close(&w, mx);
    mx = mtc_der_open(&w, MTC_DER_SEQUENCE);
    mtc_der_prim(&w, MTC_DER_OID, san_oid, sizeof san_oid);
    mtc_der_prim(&w, MTC_DER_BOOLEAN, &t, 1);
    mo = mtc_der_open(&w, MTC_DER_OCTET_STRING);
    ms = mtc_der_open(&w, MTC_DER_SEQUENCE);
    mtc_der_prim(&w, MTC_DER_CONTEXT | 2, n1, strlen(n1));
    mtc_der_prim(&w, MTC_DER_CONTEXT | 2, n2, strlen(n2));
    mtc_der_close(&w, ms);
    mtc_der_close(&w, mo);
    mtc_der_close(&w, mx);
    mtc_der_close(&w, ml);
    mtc_der_close(&w, m3);
    return w.err == MTC_OK ? w.len : 0;
}

/* Builds the certificate with mtc-core, for entry 77 of a 128-entry
 * subtree, and verifies it as a relying party trusting that subtree. */
static int build_lr(const char *n1, const char *n2, size_t *len, size_t *hashes,
                    int *verified)
{
    const int64_t nb = 1767225600, na = nb + 7 * 86400;
    mtc_taid ca_id;
    mtc_taid_from_text("32473.1", 7, &ca_id);
    uint8_t issuer[128], spki[256], exts[512], pk[MTC_SIG_PK_MAX];
    mtc_der_writer w;
    mtc_der_writer_init(&w, issuer, sizeof issuer);
    mtc_taid_name_der(&w, &ca_id);
    size_t issuer_len = w.len, pl, spki_len;
    uint8_t seed[32] = {'4', 'c'};
    mtc_sig_key *key, *cakey;
    int rc = mtc_sig_key_from_seed(MTC_SIG_ECDSA_P256, seed, &key);
    if (rc != MTC_OK)
        return rc;
    mtc_sig_key_public(key, pk, &pl);
    mtc_sig_key_free(key);
    mtc_sig_spki_der(MTC_SIG_ECDSA_P256, pk, pl, spki, sizeof spki, &spki_len);
    static mtc_entry_scratch scratch;
    mtc_tbs_entry e;
    rc = mtc_tbs_entry_tls_server(&e, &scratch, (mtc_slice){issuer, issuer_len}, nb, na, n1,
                                  spki, spki_len);
    if (rc != MTC_OK)
        return rc;
    e.extensions.p = exts;
    e.extensions.len = two_name_exts(exts, sizeof exts, n1, n2);
    static leaves lv;
    for (int i = 0; i < 128; i++) {
        uint8_t other[4] = {0, 0, 0, (uint8_t)i};
        mtc_hash_leaf(other, 4, &lv.h[i]);
    }
    const uint64_t index = 77;
    if ((rc = mtc_log_entry_leaf_hash((mtc_slice){NULL, 0}, &e, &lv.h[index])) != MTC_OK)
        return rc;
    mtc_node_source src = {leaves_range, &lv, 128};
    mtc_hash proof[16], root;
    size_t n;
    if ((rc = mtc_inclusion_proof(&src, index, 0, 128, proof, &n)) != MTC_OK ||
        (rc = mtc_subtree_hash(&src, 0, 128, &root)) != MTC_OK)
        return rc;
    mtc_proof p;
    memset(&p, 0, sizeof p);
    p.start = 0;
    p.end = 128;
    p.inclusion = proof;
    p.n_inclusion = n;
    static uint8_t out[8192];
    if ((rc = mtc_cert_build(&e, spki, spki_len, mtc_serial(1, index), &p, out, sizeof out,
                             len)) != MTC_OK)
        return rc;
    *hashes = n;
    /* the relying party: the CA certificate and the trusted subtree */
    uint8_t caseed[32] = {'c', 'a'}, cader[4096];
    size_t calen;
    if ((rc = mtc_sig_key_from_seed(MTC_SIG_ED25519, caseed, &cakey)) != MTC_OK)
        return rc;
    mtc_sig_key_public(cakey, pk, &pl);
    mtc_sig_key_free(cakey);
    mtc_ca_params cp = {ca_id, MTC_SIG_ED25519, pk, pl, 0, UINT64_MAX, nb, nb + 3650 * 86400};
    mtc_rp_ca *rp;
    if ((rc = mtc_ca_cert_build(&cp, cader, sizeof cader, &calen)) != MTC_OK ||
        (rc = mtc_rp_ca_from_cert(cader, calen, &rp)) != MTC_OK)
        return rc;
    mtc_rp_result res;
    *verified = mtc_rp_ca_add_subtree(rp, 1, 0, 128, &root) == MTC_OK &&
                mtc_rp_verify(rp, out, *len, nb + 3600, &res) == MTC_OK &&
                res.used_trusted_subtree;
    mtc_rp_ca_free(rp);
    return MTC_OK;
}

int case_4c(vctx *c)
{
    const char *n1 = "www.example.com", *n2 = "example.com";
    size_t len = 0, hashes = 0;
    int ok = 0;
    if (build_lr(n1, n2, &len, &hashes, &ok) != MTC_OK)
        return -1;
    v_row(c, "inclusion proof in a 128-entry subtree", "hashes", 0, 7, 0, (double)hashes,
          (double)hashes, (double)hashes, 0, 0);
    double e = expected_lr_bytes(n1, n2, 7);
    v_row(c, "landmark-relative certificate, 2 names", "bytes", 0, e, 0, (double)len,
          (double)len, (double)len, 0, 0);
    v_row(c, "verified by a relying party via the subtree", "", 0, 1, 0, ok, ok, ok, 0, 0);
    return 0;
}
