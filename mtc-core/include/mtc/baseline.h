/*
 * mtc/baseline.h - the classical WebPKI chain MTC is compared with,
 * encoded for real: a leaf certificate with two embedded SCTs (RFC 6962,
 * signed over the precertificate entry) and its intermediate, every
 * signature made with the given algorithm (ECDSA P-256 today; ML-DSA-44
 * for the post-quantum baseline).
 *
 * The leaf's subject key is a separate choice (mtc_baseline_build_leaf):
 * a comparison of certificate mechanisms must keep the server's own key
 * (its SPKI in the leaf, its CertificateVerify) on both sides, so that
 * the difference is the chain alone.
 *
 * The SCTs' SignatureAndHashAlgorithm is (sha256, ecdsa) for ECDSA; for
 * other algorithms RFC 6962 has no code point, so the TLS 1.3
 * SignatureScheme value is written in its two bytes (an assumption only
 * affecting 2 bytes, not sizes of anything else).
 */
#ifndef MTC_BASELINE_H
#define MTC_BASELINE_H

#include <stddef.h>
#include <stdint.h>

#include "mtc/sig.h"

#define MTC_BASELINE_CERT_MAX 32768 /* ML-DSA-87 leaf with two SCTs: ~17 KB */

typedef struct mtc_baseline {
    mtc_sig_alg alg;       /* the chain: intermediate, SCTs, leaf signature */
    uint8_t leaf[MTC_BASELINE_CERT_MAX];
    size_t leaf_len;
    uint8_t intermediate[MTC_BASELINE_CERT_MAX];
    size_t intermediate_len;
    size_t sct_list_len;   /* the SignedCertificateTimestampList extension value */
    size_t leaf_sig_len;   /* the leaf's signature (by the intermediate) */
    size_t handshake_sig_len; /* a CertificateVerify signature by the leaf key */
    mtc_sig_alg leaf_alg;  /* the leaf's subject key */
} mtc_baseline;

/* The last second an X.509 time can name: 9999-12-31T23:59:59Z. */
#define MTC_BASELINE_TIME_MAX INT64_C(253402300799)

/*
 * Builds the chain for dns_name valid from not_before for `lifetime`
 * seconds, keys derived from fixed seeds (deterministic bytes).
 * MTC_ERR_UNSUPPORTED when alg is not in the table; MTC_ERR_ARG unless
 * 0 <= not_before and 0 < lifetime with not_before + lifetime <=
 * MTC_BASELINE_TIME_MAX.
 */
int mtc_baseline_build(mtc_sig_alg alg, const char *dns_name, int64_t not_before,
                       int64_t lifetime, mtc_baseline *out);

/*
 * The same chain (signatures by chain_alg) around a leaf whose subject key
 * is of leaf_alg: its SPKI is in the leaf and handshake_sig_len is a real
 * signature by it. mtc_baseline_build(alg, ...) is
 * mtc_baseline_build_leaf(alg, alg, ...). MTC_ERR_UNSUPPORTED when either
 * algorithm is not in the table.
 */
int mtc_baseline_build_leaf(mtc_sig_alg chain_alg, mtc_sig_alg leaf_alg,
                            const char *dns_name, int64_t not_before,
                            int64_t lifetime, mtc_baseline *out);

#endif
