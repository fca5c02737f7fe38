/*
 * chain_internal.h - the signing parties of mtc/chain.h (chain_sign.c)
 * and the fixed RSA test keys (chain_keys.c). Internal to mtc-core.
 */
#ifndef MTC_CHAIN_INTERNAL_H
#define MTC_CHAIN_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "mtc/chain.h"
#include "mtc/sig.h"

#define MTC__CHAIN_RSA_KEYS 8   /* five 2,048-bit, then three 4,096-bit */

typedef struct mtc__chain_rsa_primes {
    unsigned bits;
    const char *p, *q;          /* hex */
} mtc__chain_rsa_primes;

extern const mtc__chain_rsa_primes mtc__chain_rsa_keys[MTC__CHAIN_RSA_KEYS];

#define MTC__CHAIN_SPKI_MAX (MTC_SIG_PK_MAX + 64)
#define MTC__CHAIN_SIG_MAX MTC_SIG_MAX   /* ML-DSA-87; RSA-4096 is 512 */

/* A party's key: an mtc/sig.h key, an RSA key (OpenSSL) or a P-384 scalar. */
typedef struct mtc__chain_key {
    mtc_chain_alg alg;
    mtc_sig_key *sk;            /* Ed25519, P-256, ML-DSA */
    void *pkey;                 /* RSA: EVP_PKEY */
    uint8_t d384[48];           /* P-384 private scalar */
    uint8_t spki[MTC__CHAIN_SPKI_MAX];
    size_t spki_len;
    uint8_t kid[20];            /* key identifier: SHA-256 of the key, truncated */
    size_t cv_len;              /* its CertificateVerify signature's length
                                   once a build measured it (0: not yet) */
} mtc__chain_key;

/*
 * The key of party `slot` (0..2) with algorithm alg: fixed, the same in
 * every run (a seed from slot and tag for ECDSA and sig.h algorithms; an
 * embedded RSA key by slot). MTC_ERR_UNSUPPORTED, MTC_ERR_CRYPTO,
 * MTC_ERR_NOMEM. Free with mtc__chain_key_free (also after a failure).
 */
int mtc__chain_key_init(mtc__chain_key *k, mtc_chain_alg alg, unsigned slot,
                        uint8_t tag);
void mtc__chain_key_free(mtc__chain_key *k);
/* Deterministic signature over msg (RSA PKCS #1 v1.5 with SHA-256; ECDSA
 * with SHA-256 / SHA-384 and a nonce derived from key and message). */
int mtc__chain_sign(const mtc__chain_key *k, const uint8_t *msg, size_t len,
                    uint8_t *sig, size_t *sig_len);
/* The DER AlgorithmIdentifier of signatures by keys of alg; NULL if none. */
const uint8_t *mtc__chain_sigalg_der(mtc_chain_alg alg, size_t *len);
/* The length of a TLS 1.3 CertificateVerify signature by a key of alg
 * (RSA: rsa_pss_rsae_sha256, the modulus length; others: a real one). */
int mtc__chain_cv_sig_len(const mtc__chain_key *k, size_t *len);

/* Keys made once and lent to many builds (mtc/chain_cache.h keeps one): a
 * party's key is fixed by its type, slot and tag, so the key one chain
 * made serves every other. At most one per (type, party): a few dozen. */
typedef struct mtc__chain_ring {
    struct mtc__chain_ring_key *k;  /* owned; entries never move */
    size_t n, cap;
} mtc__chain_ring;

/* The key (alg, slot, tag) of mtc__chain_key_init, made on first use and
 * kept in r (zero-initialised): *out is r's, valid until
 * mtc__chain_ring_free. Errors as mtc__chain_key_init's (nothing kept),
 * or MTC_ERR_NOMEM. */
int mtc__chain_ring_get(mtc__chain_ring *r, mtc_chain_alg alg, unsigned slot, uint8_t tag,
                        mtc__chain_key **out);
void mtc__chain_ring_free(mtc__chain_ring *r);  /* the keys; r is left empty */

/* The CA certificates of a built chain: its certificates 1 .. n (the
 * intermediate, then any cross-signed roots), borrowed. */
typedef struct mtc__chain_cas {
    const uint8_t *der[MTC_CHAIN_CERTS_MAX - 1];
    size_t len[MTC_CHAIN_CERTS_MAX - 1];
    size_t n;
} mtc__chain_cas;

/* 1 when chains of profile p built with options a and with options b
 * carry the same CA certificates, byte for byte: those depend on the
 * profile, not_before and the CA parties' key types (ca_alg, drop_cross),
 * and on nothing of the leaf (its name, key or lifetime). */
int mtc__chain_same_cas(const mtc_chain_profile *p, const mtc_chain_opts *a,
                        const mtc_chain_opts *b);

/* mtc_chain_build with the CA certificates copied from cas, those of a
 * chain of p built with options for which mtc__chain_same_cas(p, ., o)
 * holds, instead of signed again (nor their signers' keys made): the
 * leaf, its SCTs and the handshake signature are made as mtc_chain_build
 * makes them, so the result is the chain mtc_chain_build returns. Errors
 * as mtc_chain_build's; MTC_ERR_ARG when cas has the wrong count. */
int mtc__chain_build_cas(const mtc_chain_profile *p, const mtc_chain_opts *o,
                         const mtc__chain_cas *cas, mtc_chain *out);
/* The same with the parties' keys from ring (NULL: made for this build
 * and freed after it): the keys, and so every signature, are the same. */
int mtc__chain_build_ring(const mtc_chain_profile *p, const mtc_chain_opts *o,
                          const mtc__chain_cas *cas, mtc__chain_ring *ring, mtc_chain *out);

#endif
