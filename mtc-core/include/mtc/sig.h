/*
 * mtc/sig.h - the signature-algorithm table of mtc-core.
 *
 * One interface for every algorithm a CA, cosigner, subject key or baseline
 * chain may use: Ed25519 and ECDSA P-256 through OpenSSL, ML-DSA-44/65/87
 * through mtc-core's own FIPS 204 implementation (mtc/mldsa.h).
 *
 * Keys are derived from a 32-byte seed so that simulations reproduce to the
 * bit, and signing is deterministic for every algorithm (ECDSA uses RFC 6979
 * nonces, ML-DSA its deterministic variant with an empty context): the same
 * key and message always give the same signature bytes, hence the same sizes.
 */
#ifndef MTC_SIG_H
#define MTC_SIG_H

#include <stddef.h>
#include <stdint.h>

typedef enum mtc_sig_alg {
    MTC_SIG_NONE = 0,
    MTC_SIG_ED25519 = 1,
    MTC_SIG_ECDSA_P256 = 2, /* ECDSA with SHA-256 over P-256 */
    MTC_SIG_MLDSA44 = 3,
    MTC_SIG_MLDSA65 = 4,
    MTC_SIG_MLDSA87 = 5
} mtc_sig_alg;

#define MTC_SIG_SEED_LEN 32
#define MTC_SIG_PK_MAX 2592   /* ML-DSA-87 public key */
#define MTC_SIG_MAX 4627      /* ML-DSA-87 signature */

typedef struct mtc_sig_info {
    mtc_sig_alg alg;
    const char *name;     /* "ed25519", "ecdsa-p256", "ml-dsa-44", ... */
    size_t pk_len;        /* raw public key length (P-256: 65, uncompressed) */
    size_t sig_max;       /* largest signature (ECDSA: DER, up to 72) */
    const uint8_t *alg_id_der; /* DER AlgorithmIdentifier for signatures */
    size_t alg_id_der_len;
} mtc_sig_info;

/* Table lookups; NULL when unknown. */
const mtc_sig_info *mtc_sig_info_get(mtc_sig_alg alg);
const mtc_sig_info *mtc_sig_info_by_name(const char *name);
/* All known algorithms, in enum order; *count receives the number. */
const mtc_sig_info *mtc_sig_all(size_t *count);

typedef struct mtc_sig_key mtc_sig_key;

/* Derives a private key from a 32-byte seed. MTC_OK, MTC_ERR_UNSUPPORTED,
 * MTC_ERR_NOMEM or MTC_ERR_CRYPTO; *out is owned by the caller. */
int mtc_sig_key_from_seed(mtc_sig_alg alg, const uint8_t seed[MTC_SIG_SEED_LEN],
                          mtc_sig_key **out);
void mtc_sig_key_free(mtc_sig_key *key); /* NULL allowed */
mtc_sig_alg mtc_sig_key_alg(const mtc_sig_key *key);

/* The raw public key (pk must hold info->pk_len bytes). */
int mtc_sig_key_public(const mtc_sig_key *key, uint8_t *pk, size_t *pk_len);

/* Deterministic signature of msg into sig (room for info->sig_max bytes). */
int mtc_sig_sign(const mtc_sig_key *key, const uint8_t *msg, size_t msg_len,
                 uint8_t *sig, size_t *sig_len);

/* MTC_OK when valid; MTC_ERR_SIGNATURE when not; MTC_ERR_KEY for a
 * malformed public key. */
int mtc_sig_verify(mtc_sig_alg alg, const uint8_t *pk, size_t pk_len,
                   const uint8_t *msg, size_t msg_len, const uint8_t *sig,
                   size_t sig_len);

/* DER SubjectPublicKeyInfo of a raw public key: writes at most out_cap
 * bytes; *out_len gets the length. MTC_ERR_LIMIT when out_cap is short. */
int mtc_sig_spki_der(mtc_sig_alg alg, const uint8_t *pk, size_t pk_len,
                     uint8_t *out, size_t out_cap, size_t *out_len);

/* Parses a DER SubjectPublicKeyInfo into algorithm and raw key. */
int mtc_sig_spki_parse(const uint8_t *der, size_t der_len, mtc_sig_alg *alg,
                       uint8_t *pk, size_t pk_cap, size_t *pk_len);

#endif
