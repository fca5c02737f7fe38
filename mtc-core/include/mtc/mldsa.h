/*
 * mtc/mldsa.h - ML-DSA (FIPS 204): ML-DSA-44, -65 and -87.
 *
 * Debian 12 ships no ML-DSA library, so mtc-core implements FIPS 204 itself
 * (SHAKE from OpenSSL). Pure ML-DSA only: the message is signed as
 * M' = 0 || len(ctx) || ctx || M (FIPS 204 Algorithms 2 and 3); HashML-DSA is
 * not provided. Keys are generated from a 32-byte seed xi (Algorithm 6), so
 * equal seeds give equal keys on every machine.
 *
 * Two ways to sign: from the encoded private key (mtc_mldsa_sign), or from a
 * key object (mtc_mldsa_key) that keeps the expanded matrix and the NTT forms
 * of s1, s2 and t0; a signer that signs many messages should hold a key
 * object, which saves the matrix expansion and 3 vector NTTs per signature.
 *
 * Secret data are handled without secret-dependent branches or table lookups
 * except where FIPS 204 makes them public: the rejection loops of key and
 * signature generation (whether a candidate is rejected, and how many bytes
 * a sampler consumes) and the challenge c, which is part of the signature.
 * Secret intermediates are wiped before returning.
 *
 * Thread safety: functions share no state; a key object may be used by
 * several threads at once for signing (it is read only after creation).
 */
#ifndef MTC_MLDSA_H
#define MTC_MLDSA_H

#include <stddef.h>
#include <stdint.h>

typedef enum mtc_mldsa_alg {
    MTC_MLDSA_44 = 44,
    MTC_MLDSA_65 = 65,
    MTC_MLDSA_87 = 87
} mtc_mldsa_alg;

#define MTC_MLDSA_SEED_LEN 32 /* xi of KeyGen */
#define MTC_MLDSA_RND_LEN 32  /* rnd of Sign_internal */
#define MTC_MLDSA_CTX_MAX 255 /* longest context string */

#define MTC_MLDSA44_PK_LEN 1312
#define MTC_MLDSA44_SK_LEN 2560
#define MTC_MLDSA44_SIG_LEN 2420
#define MTC_MLDSA65_PK_LEN 1952
#define MTC_MLDSA65_SK_LEN 4032
#define MTC_MLDSA65_SIG_LEN 3309
#define MTC_MLDSA87_PK_LEN 2592
#define MTC_MLDSA87_SK_LEN 4896
#define MTC_MLDSA87_SIG_LEN 4627

#define MTC_MLDSA_PK_MAX MTC_MLDSA87_PK_LEN
#define MTC_MLDSA_SK_MAX MTC_MLDSA87_SK_LEN
#define MTC_MLDSA_SIG_MAX MTC_MLDSA87_SIG_LEN

/* Sizes of one parameter set (FIPS 204 Table 2). */
typedef struct mtc_mldsa_sizes {
    mtc_mldsa_alg alg;
    const char *name; /* "ml-dsa-44", "ml-dsa-65", "ml-dsa-87" */
    size_t pk_len, sk_len, sig_len;
} mtc_mldsa_sizes;

/* NULL for an unknown algorithm / name. Names are matched case-insensitively
 * and may be written "ML-DSA-44" or "mldsa44". */
const mtc_mldsa_sizes *mtc_mldsa_sizes_get(mtc_mldsa_alg alg);
const mtc_mldsa_sizes *mtc_mldsa_sizes_by_name(const char *name);

/* KeyGen from a seed (FIPS 204 Algorithm 6). pk receives pk_len bytes, sk
 * sk_len bytes (sk may be NULL when only the public key is wanted).
 * MTC_OK, MTC_ERR_UNSUPPORTED (alg), MTC_ERR_NOMEM or MTC_ERR_CRYPTO. */
int mtc_mldsa_keygen(mtc_mldsa_alg alg, const uint8_t seed[MTC_MLDSA_SEED_LEN],
                     uint8_t *pk, uint8_t *sk);

/* Signs msg with context ctx (ctx_len <= 255; ctx may be NULL when
 * ctx_len is 0) using the encoded private key sk of sk_len bytes.
 * rnd is the 32-byte randomness of hedged signing; NULL selects the
 * deterministic variant (rnd = 0^32). sig receives exactly sig_len bytes.
 * MTC_OK; MTC_ERR_ARG (ctx too long, or msg/ctx NULL with a nonzero
 * length), MTC_ERR_KEY (sk of the wrong length
 * or inconsistent: bad s1/s2 coefficients, tr or t0 not matching),
 * MTC_ERR_UNSUPPORTED, MTC_ERR_NOMEM, MTC_ERR_CRYPTO. */
int mtc_mldsa_sign(mtc_mldsa_alg alg, const uint8_t *sk, size_t sk_len,
                   const uint8_t *msg, size_t msg_len, const uint8_t *ctx,
                   size_t ctx_len, const uint8_t *rnd, uint8_t *sig);

/* Verify (FIPS 204 Algorithm 3). MTC_OK when sig is a valid signature of
 * msg under ctx and pk; MTC_ERR_SIGNATURE when it is not (including a
 * context longer than 255 bytes); MTC_ERR_SIG_ENCODING when sig has the
 * wrong length or a malformed hint encoding; MTC_ERR_KEY when pk has the
 * wrong length; MTC_ERR_ARG when msg or ctx is NULL with a nonzero
 * length; MTC_ERR_UNSUPPORTED, MTC_ERR_NOMEM, MTC_ERR_CRYPTO. */
int mtc_mldsa_verify(mtc_mldsa_alg alg, const uint8_t *pk, size_t pk_len,
                     const uint8_t *msg, size_t msg_len, const uint8_t *ctx,
                     size_t ctx_len, const uint8_t *sig, size_t sig_len);

/* An expanded private key, ready for repeated signing. */
typedef struct mtc_mldsa_key mtc_mldsa_key;

/* Creates a key object from a seed (KeyGen) or from an encoded private key
 * (which is checked for consistency: tr = H(pk) and t0 recomputed from
 * rho, s1, s2). *out is owned by the caller; free with mtc_mldsa_key_free.
 * Errors as mtc_mldsa_keygen / mtc_mldsa_sign. */
int mtc_mldsa_key_from_seed(mtc_mldsa_alg alg,
                            const uint8_t seed[MTC_MLDSA_SEED_LEN],
                            mtc_mldsa_key **out);
int mtc_mldsa_key_from_sk(mtc_mldsa_alg alg, const uint8_t *sk, size_t sk_len,
                          mtc_mldsa_key **out);
void mtc_mldsa_key_free(mtc_mldsa_key *key); /* NULL allowed; wipes secrets */

mtc_mldsa_alg mtc_mldsa_key_alg(const mtc_mldsa_key *key);
/* The encoded public key (pk_len bytes), owned by the key object. */
const uint8_t *mtc_mldsa_key_pk(const mtc_mldsa_key *key);
/* Writes the encoded private key (sk_len bytes) to sk. */
void mtc_mldsa_key_sk(const mtc_mldsa_key *key, uint8_t *sk);

/* As mtc_mldsa_sign, with a key object. */
int mtc_mldsa_key_sign(const mtc_mldsa_key *key, const uint8_t *msg,
                       size_t msg_len, const uint8_t *ctx, size_t ctx_len,
                       const uint8_t *rnd, uint8_t *sig);

/* Hedged signing with 32 bytes from OpenSSL's RAND_bytes as rnd.
 * MTC_ERR_CRYPTO when the random generator fails; otherwise as above. */
int mtc_mldsa_key_sign_random(const mtc_mldsa_key *key, const uint8_t *msg,
                              size_t msg_len, const uint8_t *ctx,
                              size_t ctx_len, uint8_t *sig);

#endif
