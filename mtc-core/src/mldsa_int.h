/*
 * mldsa_int.h - internals of the ML-DSA implementation (FIPS 204), shared by
 * mldsa_poly.c (arithmetic, NTT, rounding), mldsa_pack.c (encodings),
 * mldsa_sample.c (SHAKE and the samplers) and mldsa.c (KeyGen/Sign/Verify).
 * Tests include this header to check the pieces one by one.
 *
 * Representation: a polynomial is 256 int32_t coefficients modulo
 * q = 8380417, not always fully reduced; each function states the range it
 * accepts and produces. Multiplication uses Montgomery reduction with
 * R = 2^32, so NTT-domain products carry a factor 2^-32 that the inverse
 * NTT removes again.
 */
#ifndef MTC_MLDSA_INT_H
#define MTC_MLDSA_INT_H

#include <stddef.h>
#include <stdint.h>

#include <openssl/evp.h>

#include "mtc/mldsa.h"

#define MLDSA_N 256
#define MLDSA_Q 8380417
#define MLDSA_D 13
#define MLDSA_QINV 58728449 /* q^-1 mod 2^32 */
#define MLDSA_K_MAX 8
#define MLDSA_L_MAX 7
#define MLDSA_CTILDE_MAX 64
#define MLDSA_SHAKE128_RATE 168
#define MLDSA_SHAKE256_RATE 136

typedef struct mldsa_poly {
    int32_t c[MLDSA_N];
} mldsa_poly;

/* One parameter set: FIPS 204 Table 1 and the derived encoding sizes. */
typedef struct mldsa_params {
    mtc_mldsa_sizes sizes;
    unsigned k, l;       /* matrix A is k x l */
    int32_t eta;         /* secret coefficient bound */
    unsigned tau;        /* number of +-1 in the challenge */
    int32_t beta;        /* tau * eta */
    int32_t gamma1;      /* mask range */
    int32_t gamma2;      /* low-order rounding range */
    unsigned omega;      /* maximum number of hint bits */
    size_t ctilde_len;   /* lambda / 4 */
    unsigned eta_bits;   /* bits per s1/s2 coefficient: 3 or 4 */
    unsigned z_bits;     /* bits per z coefficient: 18 or 20 */
    unsigned w1_bits;    /* bits per w1 coefficient: 6 or 4 */
} mldsa_params;

const mldsa_params *mtc__mldsa_params(mtc_mldsa_alg alg);

/* ---- arithmetic (mldsa_poly.c) ---- */

/* zeta^brv8(i) * 2^32 mod q, centered; entry 0 is unused by the NTT. */
extern const int32_t mtc__mldsa_zetas[MLDSA_N];

/* The per-coefficient helpers are inline: they run inside every loop of
 * signing and verification. */

/* a * 2^-32 mod q in (-q, q) for |a| < 2^31 * q. */
static inline int32_t mtc__mldsa_montgomery_reduce(int64_t a)
{
    int32_t t = (int32_t)(uint32_t)((uint64_t)a * (uint64_t)MLDSA_QINV);
    return (int32_t)((a - (int64_t)t * MLDSA_Q) >> 32);
}

/* Congruent value in [-6283008, 6283008] for a <= 2^31 - 2^22 - 1. */
static inline int32_t mtc__mldsa_reduce32(int32_t a)
{
    int32_t t = (a + (1 << 22)) >> 23;
    return a - t * MLDSA_Q;
}

/* Congruent value in [0, q) for |a| <= 2^31 - 2^22 - 1. */
static inline int32_t mtc__mldsa_freeze(int32_t a)
{
    a = mtc__mldsa_reduce32(a);
    return a + ((a >> 31) & MLDSA_Q);
}

/* Decompose (Algorithm 36) of r in [0, q) for gamma2 (q-1)/88 or (q-1)/32,
 * without branches on r.
 * r1 = floor((r + gamma2 - 1) / (2 gamma2)) leaves r0 = r - r1 2 gamma2 in
 * (-gamma2, gamma2]. 2 gamma2 is 2^11 * 93 or 2^9 * 1023; the division by
 * 93 (1023) is a multiply-shift, exact for r < q (checked exhaustively by
 * the tests). The branch is on the public parameter set only. */
static inline void mtc__mldsa_decompose(int32_t gamma2, int32_t r,
                                        int32_t *r1, int32_t *r0)
{
    uint32_t x = (uint32_t)(r + gamma2 - 1), hi, m;
    if (gamma2 == (MLDSA_Q - 1) / 88) {
        hi = ((x >> 11) * 5638u) >> 19;
        m = 44;
    } else {
        hi = ((x >> 9) * 32801u) >> 25;
        m = 16;
    }
    int32_t lo = r - (int32_t)hi * 2 * gamma2;
    /* r - r0 = q - 1 exactly when hi = m: then r1 = 0 and r0 = r0 - 1. */
    uint32_t wrap = ((hi ^ m) - 1u) >> 31;
    hi &= wrap - 1u;
    lo -= (int32_t)wrap;
    *r1 = (int32_t)hi;
    *r0 = lo;
}

/* Forward NTT in place: input |c| < q, output |c| < 9q. */
void mtc__mldsa_ntt(mldsa_poly *p);
/* Inverse NTT times 2^32 in place: input |c| < q, output |c| < q. */
void mtc__mldsa_invntt_tomont(mldsa_poly *p);
/* r = a o b * 2^-32 (NTT domain), |r| < q when |a|,|b| < 9q. */
void mtc__mldsa_poly_pointwise(mldsa_poly *r, const mldsa_poly *a,
                               const mldsa_poly *b);
/* r += a o b * 2^-32. */
void mtc__mldsa_poly_pointwise_acc(mldsa_poly *r, const mldsa_poly *a,
                                   const mldsa_poly *b);
void mtc__mldsa_poly_reduce(mldsa_poly *p); /* reduce32 on each coeff */
void mtc__mldsa_poly_freeze(mldsa_poly *p); /* freeze on each coeff */

/* Power2Round (Algorithm 35) of r in [0, q): r = r1 * 2^d + r0 with
 * r0 in (-2^12, 2^12]. */
void mtc__mldsa_power2round(int32_t r, int32_t *r1, int32_t *r0);
/* UseHint (Algorithm 40) of r in [0, q); h is 0 or 1 (public). */
int32_t mtc__mldsa_use_hint(int32_t gamma2, int h, int32_t r);

/* The challenge c as its tau nonzero positions and signs (public). */
typedef struct mldsa_sparse {
    unsigned n;
    uint8_t pos[64];
    int8_t sign[64];
} mldsa_sparse;

void mtc__mldsa_sparse_from_poly(mldsa_sparse *sp, const mldsa_poly *c);
/* r = c * a in Z[X]/(X^256 + 1), exactly (no reduction): |r| <= n max|a|.
 * The memory access pattern depends on c only, not on a (the secret). */
void mtc__mldsa_poly_mul_sparse(mldsa_poly *r, const mldsa_sparse *c,
                                const mldsa_poly *a);

/* 1 when some centered coefficient has |c| >= bound, else 0; runs through
 * all coefficients without data-dependent branches. */
int mtc__mldsa_poly_exceeds(const mldsa_poly *p, int32_t bound);

/* ---- SHAKE (mldsa_sample.c) ---- */

/* The fetched SHAKE implementations and one digest context, owned by one
 * operation (an EVP_MD_CTX is not shareable between threads). */
typedef struct mldsa_xof {
    EVP_MD *shake128, *shake256;
    EVP_MD_CTX *ctx;
} mldsa_xof;

typedef struct mldsa_buf {
    const uint8_t *p;
    size_t n;
} mldsa_buf;

/* MTC_OK, MTC_ERR_NOMEM or MTC_ERR_CRYPTO. xof_done accepts a zeroed or
 * half-initialized struct. */
int mtc__mldsa_xof_init(mldsa_xof *x);
void mtc__mldsa_xof_done(mldsa_xof *x);
/* out = SHAKE{128,256}(in[0] || ... || in[nin-1]), outlen bytes. */
int mtc__mldsa_shake(mldsa_xof *x, int use256, const mldsa_buf *in,
                     size_t nin, uint8_t *out, size_t outlen);

/* ---- samplers (mldsa_sample.c) ---- */

/* RejNTTPoly(rho || s || r) (Algorithm 30): entry (r, s) of A-hat. */
int mtc__mldsa_expand_a_entry(mldsa_xof *x, const uint8_t rho[32],
                              unsigned r, unsigned s, mldsa_poly *out);
/* RejBoundedPoly(rho' || IntegerToBytes(idx, 2)) (Algorithm 31). */
int mtc__mldsa_expand_s_entry(mldsa_xof *x, const mldsa_params *p,
                              const uint8_t rhop[64], unsigned idx,
                              mldsa_poly *out);
/* ExpandMask (Algorithm 34): y[0..l-1] for counter kappa. */
int mtc__mldsa_expand_mask(mldsa_xof *x, const mldsa_params *p,
                           const uint8_t rhopp[64], unsigned kappa,
                           mldsa_poly *y);
/* SampleInBall (Algorithm 29) of ctilde (p->ctilde_len bytes). */
int mtc__mldsa_sample_in_ball(mldsa_xof *x, const mldsa_params *p,
                              const uint8_t *ctilde, mldsa_poly *c);

/* The same samplers with an explicit first squeeze length, so tests can
 * force the re-squeeze path (the defaults almost never need it). The
 * result does not depend on the first length; sample_in_ball_len needs
 * first_len >= 8. */
int mtc__mldsa_expand_a_entry_blocks(mldsa_xof *x, const uint8_t rho[32],
                                     unsigned r, unsigned s, mldsa_poly *out,
                                     unsigned first_blocks);
int mtc__mldsa_expand_s_entry_blocks(mldsa_xof *x, const mldsa_params *p,
                                     const uint8_t rhop[64], unsigned idx,
                                     mldsa_poly *out, unsigned first_blocks);
int mtc__mldsa_sample_in_ball_len(mldsa_xof *x, const mldsa_params *p,
                                  const uint8_t *ctilde, mldsa_poly *c,
                                  size_t first_len);

/* ---- encodings (mldsa_pack.c) ---- */

/* Little-endian bit packing of n values of `bits` bits (SimpleBitPack);
 * values must be in [0, 2^bits). n * bits must be a multiple of 8. */
void mtc__mldsa_pack_bits(uint8_t *out, const int32_t *v, size_t n,
                          unsigned bits);
void mtc__mldsa_unpack_bits(int32_t *v, const uint8_t *in, size_t n,
                            unsigned bits);

/* pkEncode / pkDecode (Algorithms 22, 23). */
void mtc__mldsa_pk_encode(const mldsa_params *p, uint8_t *pk,
                          const uint8_t rho[32], const mldsa_poly *t1);
void mtc__mldsa_pk_decode(const mldsa_params *p, const uint8_t *pk,
                          uint8_t rho[32], mldsa_poly *t1);

/* skEncode / skDecode (Algorithms 24, 25). sk_decode returns MTC_ERR_KEY
 * when an s1/s2 coefficient is outside [-eta, eta] (branch-free check). */
void mtc__mldsa_sk_encode(const mldsa_params *p, uint8_t *sk,
                          const uint8_t rho[32], const uint8_t key[32],
                          const uint8_t tr[64], const mldsa_poly *s1,
                          const mldsa_poly *s2, const mldsa_poly *t0);
int mtc__mldsa_sk_decode(const mldsa_params *p, const uint8_t *sk,
                         uint8_t rho[32], uint8_t key[32], uint8_t tr[64],
                         mldsa_poly *s1, mldsa_poly *s2, mldsa_poly *t0);

/* sigEncode (Algorithm 26): z centered in (-gamma1, gamma1], h 0/1 with at
 * most omega ones. */
void mtc__mldsa_sig_encode(const mldsa_params *p, uint8_t *sig,
                           const uint8_t *ctilde, const mldsa_poly *z,
                           const mldsa_poly *h);
/* sigDecode (Algorithm 27) with HintBitUnpack (Algorithm 21): MTC_OK or
 * MTC_ERR_SIG_ENCODING for a malformed hint. z is not range-checked here
 * (Verify does that). */
int mtc__mldsa_sig_decode(const mldsa_params *p, const uint8_t *sig,
                          uint8_t *ctilde, mldsa_poly *z, mldsa_poly *h);

/* w1Encode (Algorithm 28) of k polynomials with coefficients in
 * [0, (q-1)/(2 gamma2)). */
void mtc__mldsa_w1_encode(const mldsa_params *p, uint8_t *out,
                          const mldsa_poly *w1);
size_t mtc__mldsa_w1_len(const mldsa_params *p);

/* ---- test hooks (mldsa.c) ---- */

/* MLDSA_TEST_NO_Z_BOUND: signing accepts an attempt whose ||z|| reaches
 * gamma1 - beta (reporting it in *z_exceeded), and verification skips that
 * bound. Only tests use it: to show that Verify's range check, not the
 * challenge comparison, is what rejects such a signature. */
#define MLDSA_TEST_NO_Z_BOUND 1u
int mtc__mldsa_key_sign_flags(const mtc_mldsa_key *key, const uint8_t *msg,
                              size_t msg_len, const uint8_t *ctx,
                              size_t ctx_len, const uint8_t *rnd, uint8_t *sig,
                              unsigned flags, int *z_exceeded);
int mtc__mldsa_verify_flags(mtc_mldsa_alg alg, const uint8_t *pk,
                            size_t pk_len, const uint8_t *msg, size_t msg_len,
                            const uint8_t *ctx, size_t ctx_len,
                            const uint8_t *sig, size_t sig_len, unsigned flags);

#endif
