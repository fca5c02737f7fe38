/*
 * mldsa.c - ML-DSA key generation, signing and verification (FIPS 204
 * Algorithms 1-3 and 6-8) on top of mldsa_poly.c, mldsa_sample.c and
 * mldsa_pack.c.
 *
 * Expected workload: a CA or cosigner signs many messages with one key
 * (hence the key object, which keeps A-hat and the NTT forms of s1, s2, t0),
 * while relying parties verify under many different public keys (hence
 * Verify expands A one entry at a time from rho and keeps no state).
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <openssl/crypto.h>
#include <openssl/rand.h>

#include "mldsa_int.h"
#include "mtc/error.h"

static const mldsa_params params[3] = {
    {{MTC_MLDSA_44, "ml-dsa-44", MTC_MLDSA44_PK_LEN, MTC_MLDSA44_SK_LEN,
      MTC_MLDSA44_SIG_LEN},
     4, 4, 2, 39, 78, 1 << 17, (MLDSA_Q - 1) / 88, 80, 32, 3, 18, 6},
    {{MTC_MLDSA_65, "ml-dsa-65", MTC_MLDSA65_PK_LEN, MTC_MLDSA65_SK_LEN,
      MTC_MLDSA65_SIG_LEN},
     6, 5, 4, 49, 196, 1 << 19, (MLDSA_Q - 1) / 32, 55, 48, 4, 20, 4},
    {{MTC_MLDSA_87, "ml-dsa-87", MTC_MLDSA87_PK_LEN, MTC_MLDSA87_SK_LEN,
      MTC_MLDSA87_SIG_LEN},
     8, 7, 2, 60, 120, 1 << 19, (MLDSA_Q - 1) / 32, 75, 64, 3, 20, 4},
};

const mldsa_params *mtc__mldsa_params(mtc_mldsa_alg alg)
{
    for (size_t i = 0; i < 3; i++)
        if (params[i].sizes.alg == alg)
            return &params[i];
    return NULL;
}

const mtc_mldsa_sizes *mtc_mldsa_sizes_get(mtc_mldsa_alg alg)
{
    const mldsa_params *p = mtc__mldsa_params(alg);
    return p ? &p->sizes : NULL;
}

const mtc_mldsa_sizes *mtc_mldsa_sizes_by_name(const char *name)
{
    static const char *const alt[3] = {"mldsa44", "mldsa65", "mldsa87"};
    if (!name)
        return NULL;
    for (size_t i = 0; i < 3; i++)
        if (!strcasecmp(name, params[i].sizes.name) || !strcasecmp(name, alt[i]))
            return &params[i].sizes;
    return NULL;
}

struct mtc_mldsa_key {
    const mldsa_params *p;
    uint8_t rho[32], key[32], tr[64];
    uint8_t pk[MTC_MLDSA_PK_MAX];
    uint8_t sk[MTC_MLDSA_SK_MAX];
    mldsa_poly a[MLDSA_K_MAX * MLDSA_L_MAX]; /* A-hat, row-major k x l */
    /* s1, s2, t0 in normal form: signing multiplies them by the sparse
     * challenge directly (mtc__mldsa_poly_mul_sparse). */
    mldsa_poly s1[MLDSA_L_MAX];
    mldsa_poly s2[MLDSA_K_MAX];
    mldsa_poly t0[MLDSA_K_MAX];
};

void mtc_mldsa_key_free(mtc_mldsa_key *key)
{
    if (!key)
        return;
    OPENSSL_cleanse(key, sizeof *key);
    free(key);
}

mtc_mldsa_alg mtc_mldsa_key_alg(const mtc_mldsa_key *key)
{
    return key->p->sizes.alg;
}

const uint8_t *mtc_mldsa_key_pk(const mtc_mldsa_key *key)
{
    return key->pk;
}

void mtc_mldsa_key_sk(const mtc_mldsa_key *key, uint8_t *sk)
{
    memcpy(sk, key->sk, key->p->sizes.sk_len);
}

/* Fills key->a with A-hat = ExpandA(rho) (Algorithm 32). */
static int expand_a(mldsa_xof *x, mtc_mldsa_key *key)
{
    const mldsa_params *p = key->p;
    for (unsigned r = 0; r < p->k; r++)
        for (unsigned s = 0; s < p->l; s++) {
            int rc = mtc__mldsa_expand_a_entry(x, key->rho, r, s,
                                               &key->a[r * p->l + s]);
            if (rc)
                return rc;
        }
    return MTC_OK;
}

/* Work space of key setup: the secrets in normal form. */
typedef struct keygen_ws {
    uint8_t h[128];
    mldsa_poly s1[MLDSA_L_MAX], s2[MLDSA_K_MAX], t0[MLDSA_K_MAX];
    mldsa_poly s1hat[MLDSA_L_MAX], t1[MLDSA_K_MAX], t;
} keygen_ws;

/* t = NTT^-1(A-hat o NTT(s1)) + s2 and its Power2Round, given key->a and
 * w->s1hat = NTT(s1); row i into t1[i], t0[i]. */
static void compute_t(const mtc_mldsa_key *key, keygen_ws *w, mldsa_poly *t1,
                      mldsa_poly *t0)
{
    const mldsa_params *p = key->p;
    for (unsigned i = 0; i < p->k; i++) {
        mtc__mldsa_poly_pointwise(&w->t, &key->a[i * p->l], &w->s1hat[0]);
        for (unsigned j = 1; j < p->l; j++)
            mtc__mldsa_poly_pointwise_acc(&w->t, &key->a[i * p->l + j],
                                          &w->s1hat[j]);
        mtc__mldsa_poly_reduce(&w->t);
        mtc__mldsa_invntt_tomont(&w->t);
        for (unsigned n = 0; n < MLDSA_N; n++)
            mtc__mldsa_power2round(mtc__mldsa_freeze(w->t.c[n] + w->s2[i].c[n]),
                                   &t1[i].c[n], &t0[i].c[n]);
    }
}

/* After s1, s2 (normal form in w), rho, K and key->a are set: computes t,
 * the encodings, tr and the NTT forms kept by the key. check_sk: compare
 * against an already decoded sk (key->sk, key->tr, w->t0) instead. */
static int finish_key(mldsa_xof *x, mtc_mldsa_key *key, keygen_ws *w,
                      int check_sk)
{
    const mldsa_params *p = key->p;
    for (unsigned j = 0; j < p->l; j++) {
        key->s1[j] = w->s1[j];
        w->s1hat[j] = w->s1[j];
        mtc__mldsa_ntt(&w->s1hat[j]);
    }
    if (!check_sk) {
        compute_t(key, w, w->t1, w->t0);
    } else {
        /* The decoded t0 must be the one the secrets imply. */
        uint32_t diff = 0;
        mldsa_poly *t0c = malloc(sizeof(mldsa_poly) * MLDSA_K_MAX);
        if (!t0c)
            return MTC_ERR_NOMEM;
        compute_t(key, w, w->t1, t0c);
        for (unsigned i = 0; i < p->k; i++)
            for (unsigned n = 0; n < MLDSA_N; n++)
                diff |= (uint32_t)(t0c[i].c[n] ^ w->t0[i].c[n]);
        OPENSSL_cleanse(t0c, sizeof(mldsa_poly) * MLDSA_K_MAX);
        free(t0c);
        if (diff)
            return MTC_ERR_KEY;
    }
    mtc__mldsa_pk_encode(p, key->pk, key->rho, w->t1);
    uint8_t tr[64];
    mldsa_buf in[1] = {{key->pk, p->sizes.pk_len}};
    int rc = mtc__mldsa_shake(x, 1, in, 1, tr, 64);
    if (rc)
        return rc;
    if (check_sk) {
        if (CRYPTO_memcmp(tr, key->tr, 64) != 0)
            return MTC_ERR_KEY;
    } else {
        memcpy(key->tr, tr, 64);
        mtc__mldsa_sk_encode(p, key->sk, key->rho, key->key, key->tr, w->s1,
                             w->s2, w->t0);
    }
    for (unsigned i = 0; i < p->k; i++) {
        key->s2[i] = w->s2[i];
        key->t0[i] = w->t0[i];
    }
    return MTC_OK;
}

static int key_new(mtc_mldsa_alg alg, mtc_mldsa_key **out, mldsa_xof *x,
                   keygen_ws **ws)
{
    const mldsa_params *p = mtc__mldsa_params(alg);
    *out = NULL;
    *ws = NULL;
    if (!p)
        return MTC_ERR_UNSUPPORTED;
    mtc_mldsa_key *key = calloc(1, sizeof *key);
    keygen_ws *w = calloc(1, sizeof *w);
    if (!key || !w) {
        free(key);
        free(w);
        return MTC_ERR_NOMEM;
    }
    int rc = mtc__mldsa_xof_init(x);
    if (rc) {
        free(key);
        free(w);
        return rc;
    }
    key->p = p;
    *out = key;
    *ws = w;
    return MTC_OK;
}

static void key_new_done(int rc, mtc_mldsa_key **out, mldsa_xof *x,
                         keygen_ws *w)
{
    mtc__mldsa_xof_done(x);
    if (w) {
        OPENSSL_cleanse(w, sizeof *w);
        free(w);
    }
    if (rc) {
        mtc_mldsa_key_free(*out);
        *out = NULL;
    }
}

int mtc_mldsa_key_from_seed(mtc_mldsa_alg alg,
                            const uint8_t seed[MTC_MLDSA_SEED_LEN],
                            mtc_mldsa_key **out)
{
    mldsa_xof x;
    keygen_ws *w;
    int rc = key_new(alg, out, &x, &w);
    if (rc)
        return rc;
    mtc_mldsa_key *key = *out;
    const mldsa_params *p = key->p;
    /* (rho, rho', K) = H(xi || k || l, 128) (Algorithm 6). */
    uint8_t kl[2] = {(uint8_t)p->k, (uint8_t)p->l};
    mldsa_buf in[2] = {{seed, MTC_MLDSA_SEED_LEN}, {kl, 2}};
    rc = mtc__mldsa_shake(&x, 1, in, 2, w->h, 128);
    if (rc)
        goto done;
    memcpy(key->rho, w->h, 32);
    memcpy(key->key, w->h + 96, 32);
    rc = expand_a(&x, key);
    for (unsigned r = 0; !rc && r < p->l; r++)
        rc = mtc__mldsa_expand_s_entry(&x, p, w->h + 32, r, &w->s1[r]);
    for (unsigned r = 0; !rc && r < p->k; r++)
        rc = mtc__mldsa_expand_s_entry(&x, p, w->h + 32, p->l + r, &w->s2[r]);
    if (!rc)
        rc = finish_key(&x, key, w, 0);
done:
    key_new_done(rc, out, &x, w);
    return rc;
}

int mtc_mldsa_key_from_sk(mtc_mldsa_alg alg, const uint8_t *sk, size_t sk_len,
                          mtc_mldsa_key **out)
{
    const mldsa_params *p0 = mtc__mldsa_params(alg);
    *out = NULL;
    if (!p0)
        return MTC_ERR_UNSUPPORTED;
    if (!sk || sk_len != p0->sizes.sk_len)
        return MTC_ERR_KEY;
    mldsa_xof x;
    keygen_ws *w;
    int rc = key_new(alg, out, &x, &w);
    if (rc)
        return rc;
    mtc_mldsa_key *key = *out;
    memcpy(key->sk, sk, sk_len);
    rc = mtc__mldsa_sk_decode(key->p, sk, key->rho, key->key, key->tr, w->s1,
                              w->s2, w->t0);
    if (!rc)
        rc = expand_a(&x, key);
    if (!rc)
        rc = finish_key(&x, key, w, 1);
    key_new_done(rc, out, &x, w);
    return rc;
}

int mtc_mldsa_keygen(mtc_mldsa_alg alg, const uint8_t seed[MTC_MLDSA_SEED_LEN],
                     uint8_t *pk, uint8_t *sk)
{
    mtc_mldsa_key *key;
    int rc = mtc_mldsa_key_from_seed(alg, seed, &key);
    if (rc)
        return rc;
    memcpy(pk, key->pk, key->p->sizes.pk_len);
    if (sk)
        mtc_mldsa_key_sk(key, sk);
    mtc_mldsa_key_free(key);
    return MTC_OK;
}

/* mu = H(tr || M', 64) with M' = 0 || |ctx| || ctx || M (Algorithms 2, 3,
 * 7 and 8). */
static int compute_mu(mldsa_xof *x, const uint8_t tr[64], const uint8_t *msg,
                      size_t msg_len, const uint8_t *ctx, size_t ctx_len,
                      uint8_t mu[64])
{
    uint8_t pre[2] = {0, (uint8_t)ctx_len};
    mldsa_buf in[4] = {{tr, 64}, {pre, 2}, {ctx, ctx_len}, {msg, msg_len}};
    return mtc__mldsa_shake(x, 1, in, 4, mu, 64);
}

/* Everything Sign_internal keeps per attempt; wiped at the end. */
typedef struct sign_ws {
    uint8_t mu[64], rhopp[64], ctilde[MLDSA_CTILDE_MAX];
    uint8_t seed[128];
    uint8_t w1enc[MLDSA_K_MAX * 32 * 6];
    mldsa_poly y[MLDSA_L_MAX], yhat[MLDSA_L_MAX], z[MLDSA_L_MAX];
    mldsa_poly w[MLDSA_K_MAX];  /* w - cs2 after the first check */
    mldsa_poly w1[MLDSA_K_MAX]; /* HighBits(w), then HighBits(w - cs2) */
    mldsa_poly h[MLDSA_K_MAX];
    mldsa_poly c, tmp;
    mldsa_sparse cs;
} sign_ws;

/* One attempt of the Sign_internal loop; 1 when (z, h) is accepted. */
static int sign_attempt(const mtc_mldsa_key *key, mldsa_xof *x, sign_ws *s,
                        unsigned kappa, unsigned flags, int *accepted,
                        int *z_exceeded)
{
    const mldsa_params *p = key->p;
    int rc = mtc__mldsa_expand_mask(x, p, s->rhopp, kappa, s->y);
    if (rc)
        return rc;
    *accepted = 0;
    for (unsigned j = 0; j < p->l; j++) {
        s->yhat[j] = s->y[j];
        mtc__mldsa_ntt(&s->yhat[j]);
    }
    /* w = NTT^-1(A-hat o NTT(y)), w1 = HighBits(w). */
    for (unsigned i = 0; i < p->k; i++) {
        mldsa_poly *w = &s->w[i];
        mtc__mldsa_poly_pointwise(w, &key->a[i * p->l], &s->yhat[0]);
        for (unsigned j = 1; j < p->l; j++)
            mtc__mldsa_poly_pointwise_acc(w, &key->a[i * p->l + j], &s->yhat[j]);
        mtc__mldsa_poly_reduce(w);
        mtc__mldsa_invntt_tomont(w);
        mtc__mldsa_poly_freeze(w);
        for (unsigned n = 0; n < MLDSA_N; n++) {
            int32_t r0;
            mtc__mldsa_decompose(p->gamma2, w->c[n], &s->w1[i].c[n], &r0);
        }
    }
    mtc__mldsa_w1_encode(p, s->w1enc, s->w1);
    mldsa_buf in[2] = {{s->mu, 64}, {s->w1enc, mtc__mldsa_w1_len(p)}};
    rc = mtc__mldsa_shake(x, 1, in, 2, s->ctilde, p->ctilde_len);
    if (!rc)
        rc = mtc__mldsa_sample_in_ball(x, p, s->ctilde, &s->c);
    if (rc)
        return rc;
    mtc__mldsa_sparse_from_poly(&s->cs, &s->c);

    /* z = y + <<c s1>>; reject when ||z|| >= gamma1 - beta. The outcome of
     * each check is public (FIPS 204 rejection); the checks themselves run
     * over all coefficients. Products with c are exact (|c s1| <= beta). */
    for (unsigned j = 0; j < p->l; j++) {
        mtc__mldsa_poly_mul_sparse(&s->tmp, &s->cs, &key->s1[j]);
        for (unsigned n = 0; n < MLDSA_N; n++)
            s->z[j].c[n] = s->y[j].c[n] + s->tmp.c[n];
        if (mtc__mldsa_poly_exceeds(&s->z[j], p->gamma1 - p->beta)) {
            if (!(flags & MLDSA_TEST_NO_Z_BOUND))
                return MTC_OK;
            *z_exceeded = 1;
        }
    }
    /* r = w - <<c s2>>: ||LowBits(r)|| < gamma2 - beta; keep HighBits(r)
     * for MakeHint. */
    for (unsigned i = 0; i < p->k; i++) {
        mtc__mldsa_poly_mul_sparse(&s->tmp, &s->cs, &key->s2[i]);
        for (unsigned n = 0; n < MLDSA_N; n++) {
            int32_t r = mtc__mldsa_freeze(s->w[i].c[n] - s->tmp.c[n]);
            s->w[i].c[n] = r;
            mtc__mldsa_decompose(p->gamma2, r, &s->w1[i].c[n], &s->tmp.c[n]);
        }
        if (mtc__mldsa_poly_exceeds(&s->tmp, p->gamma2 - p->beta))
            return MTC_OK;
    }
    /* <<c t0>> (|.| <= tau 2^12): ||.|| < gamma2, then
     * h = MakeHint(-ct0, w - cs2 + ct0), i.e.
     * HighBits(w - cs2 + ct0) != HighBits(w - cs2). */
    unsigned ones = 0;
    for (unsigned i = 0; i < p->k; i++) {
        mtc__mldsa_poly_mul_sparse(&s->tmp, &s->cs, &key->t0[i]);
        if (mtc__mldsa_poly_exceeds(&s->tmp, p->gamma2))
            return MTC_OK;
        for (unsigned n = 0; n < MLDSA_N; n++) {
            int32_t hi, lo;
            mtc__mldsa_decompose(p->gamma2,
                                 mtc__mldsa_freeze(s->w[i].c[n] + s->tmp.c[n]),
                                 &hi, &lo);
            uint32_t d = (uint32_t)(hi ^ s->w1[i].c[n]);
            s->h[i].c[n] = (int32_t)((d | (0u - d)) >> 31);
            ones += (unsigned)s->h[i].c[n];
        }
    }
    if (ones > p->omega)
        return MTC_OK;
    *accepted = 1;
    return MTC_OK;
}

int mtc_mldsa_key_sign(const mtc_mldsa_key *key, const uint8_t *msg,
                       size_t msg_len, const uint8_t *ctx, size_t ctx_len,
                       const uint8_t *rnd, uint8_t *sig)
{
    return mtc__mldsa_key_sign_flags(key, msg, msg_len, ctx, ctx_len, rnd, sig,
                                     0, NULL);
}

int mtc__mldsa_key_sign_flags(const mtc_mldsa_key *key, const uint8_t *msg,
                              size_t msg_len, const uint8_t *ctx,
                              size_t ctx_len, const uint8_t *rnd, uint8_t *sig,
                              unsigned flags, int *z_exceeded)
{
    int zx = 0;
    static const uint8_t zero[MTC_MLDSA_RND_LEN];
    const mldsa_params *p = key->p;
    if (ctx_len > MTC_MLDSA_CTX_MAX || (ctx_len && !ctx) || (msg_len && !msg))
        return MTC_ERR_ARG;
    sign_ws *s = malloc(sizeof *s);
    if (!s)
        return MTC_ERR_NOMEM;
    mldsa_xof x;
    int rc = mtc__mldsa_xof_init(&x);
    if (rc) {
        free(s);
        return rc;
    }
    rc = compute_mu(&x, key->tr, msg, msg_len, ctx, ctx_len, s->mu);
    if (rc)
        goto done;
    /* rho'' = H(K || rnd || mu, 64). */
    mldsa_buf in[3] = {{key->key, 32}, {rnd ? rnd : zero, 32}, {s->mu, 64}};
    rc = mtc__mldsa_shake(&x, 1, in, 3, s->rhopp, 64);
    if (rc)
        goto done;
    /* kappa enters ExpandMask as 2 bytes; 65536 / l attempts (each accepted
     * with probability > 1/6) are never needed in practice. */
    int accepted = 0;
    for (unsigned kappa = 0; !accepted; kappa += p->l) {
        if (kappa + p->l > 65536) {
            rc = MTC_ERR_CRYPTO;
            goto done;
        }
        zx = 0;
        rc = sign_attempt(key, &x, s, kappa, flags, &accepted, &zx);
        if (rc)
            goto done;
    }
    mtc__mldsa_sig_encode(p, sig, s->ctilde, s->z, s->h);
    if (z_exceeded)
        *z_exceeded = zx;
done:
    mtc__mldsa_xof_done(&x);
    OPENSSL_cleanse(s, sizeof *s);
    free(s);
    return rc;
}

int mtc_mldsa_key_sign_random(const mtc_mldsa_key *key, const uint8_t *msg,
                              size_t msg_len, const uint8_t *ctx,
                              size_t ctx_len, uint8_t *sig)
{
    uint8_t rnd[MTC_MLDSA_RND_LEN];
    if (RAND_bytes(rnd, sizeof rnd) != 1)
        return MTC_ERR_CRYPTO;
    int rc = mtc_mldsa_key_sign(key, msg, msg_len, ctx, ctx_len, rnd, sig);
    OPENSSL_cleanse(rnd, sizeof rnd);
    return rc;
}

int mtc_mldsa_sign(mtc_mldsa_alg alg, const uint8_t *sk, size_t sk_len,
                   const uint8_t *msg, size_t msg_len, const uint8_t *ctx,
                   size_t ctx_len, const uint8_t *rnd, uint8_t *sig)
{
    if (ctx_len > MTC_MLDSA_CTX_MAX)
        return MTC_ERR_ARG;
    mtc_mldsa_key *key;
    int rc = mtc_mldsa_key_from_sk(alg, sk, sk_len, &key);
    if (rc)
        return rc;
    rc = mtc_mldsa_key_sign(key, msg, msg_len, ctx, ctx_len, rnd, sig);
    mtc_mldsa_key_free(key);
    return rc;
}

/* Verify's work space (public data only). */
typedef struct verify_ws {
    uint8_t rho[32], tr[64], mu[64];
    uint8_t ctilde[MLDSA_CTILDE_MAX], ctilde2[MLDSA_CTILDE_MAX];
    uint8_t w1enc[MLDSA_K_MAX * 32 * 6];
    mldsa_poly t1[MLDSA_K_MAX], z[MLDSA_L_MAX], h[MLDSA_K_MAX];
    mldsa_poly w1[MLDSA_K_MAX];
    mldsa_poly chat, aij, acc, tmp;
    mldsa_sparse cs;
} verify_ws;

static int verify_ws_run(const mldsa_params *p, mldsa_xof *x, verify_ws *v,
                         const uint8_t *pk, const uint8_t *msg, size_t msg_len,
                         const uint8_t *ctx, size_t ctx_len, const uint8_t *sig,
                         unsigned flags)
{
    mtc__mldsa_pk_decode(p, pk, v->rho, v->t1);
    int rc = mtc__mldsa_sig_decode(p, sig, v->ctilde, v->z, v->h);
    if (rc)
        return rc;
    for (unsigned j = 0; j < p->l && !(flags & MLDSA_TEST_NO_Z_BOUND); j++)
        if (mtc__mldsa_poly_exceeds(&v->z[j], p->gamma1 - p->beta))
            return MTC_ERR_SIGNATURE;
    mldsa_buf in[2] = {{pk, p->sizes.pk_len}, {NULL, 0}};
    rc = mtc__mldsa_shake(x, 1, in, 1, v->tr, 64);
    if (!rc)
        rc = compute_mu(x, v->tr, msg, msg_len, ctx, ctx_len, v->mu);
    if (!rc)
        rc = mtc__mldsa_sample_in_ball(x, p, v->ctilde, &v->chat);
    if (rc)
        return rc;
    mtc__mldsa_sparse_from_poly(&v->cs, &v->chat);
    for (unsigned j = 0; j < p->l; j++)
        mtc__mldsa_ntt(&v->z[j]);
    /* w'_approx = NTT^-1(A-hat o NTT(z)) - c t1 2^d, row by row, each A-hat
     * entry sampled when needed. FIPS 204 subtracts NTT(c) o NTT(t1 2^d)
     * before the inverse NTT; by linearity the product can be taken in the
     * normal domain, exactly, with the sparse c (|c t1 2^d| < 2^29). */
    for (unsigned i = 0; i < p->k; i++) {
        for (unsigned j = 0; j < p->l; j++) {
            rc = mtc__mldsa_expand_a_entry(x, v->rho, i, j, &v->aij);
            if (rc)
                return rc;
            if (j == 0)
                mtc__mldsa_poly_pointwise(&v->acc, &v->aij, &v->z[0]);
            else
                mtc__mldsa_poly_pointwise_acc(&v->acc, &v->aij, &v->z[j]);
        }
        mtc__mldsa_poly_reduce(&v->acc);
        mtc__mldsa_invntt_tomont(&v->acc);
        mtc__mldsa_poly_mul_sparse(&v->tmp, &v->cs, &v->t1[i]);
        for (unsigned n = 0; n < MLDSA_N; n++) {
            int32_t w = v->acc.c[n] - mtc__mldsa_reduce32(v->tmp.c[n] * (1 << MLDSA_D));
            v->w1[i].c[n] =
                mtc__mldsa_use_hint(p->gamma2, v->h[i].c[n], mtc__mldsa_freeze(w));
        }
    }
    mtc__mldsa_w1_encode(p, v->w1enc, v->w1);
    mldsa_buf in2[2] = {{v->mu, 64}, {v->w1enc, mtc__mldsa_w1_len(p)}};
    rc = mtc__mldsa_shake(x, 1, in2, 2, v->ctilde2, p->ctilde_len);
    if (rc)
        return rc;
    return CRYPTO_memcmp(v->ctilde, v->ctilde2, p->ctilde_len) == 0
               ? MTC_OK
               : MTC_ERR_SIGNATURE;
}

int mtc_mldsa_verify(mtc_mldsa_alg alg, const uint8_t *pk, size_t pk_len,
                     const uint8_t *msg, size_t msg_len, const uint8_t *ctx,
                     size_t ctx_len, const uint8_t *sig, size_t sig_len)
{
    return mtc__mldsa_verify_flags(alg, pk, pk_len, msg, msg_len, ctx, ctx_len,
                                   sig, sig_len, 0);
}

int mtc__mldsa_verify_flags(mtc_mldsa_alg alg, const uint8_t *pk,
                            size_t pk_len, const uint8_t *msg, size_t msg_len,
                            const uint8_t *ctx, size_t ctx_len,
                            const uint8_t *sig, size_t sig_len, unsigned flags)
{
    const mldsa_params *p = mtc__mldsa_params(alg);
    if (!p)
        return MTC_ERR_UNSUPPORTED;
    if (!pk || pk_len != p->sizes.pk_len)
        return MTC_ERR_KEY;
    if (!sig || sig_len != p->sizes.sig_len)
        return MTC_ERR_SIG_ENCODING;
    if ((ctx_len && !ctx) || (msg_len && !msg))
        return MTC_ERR_ARG;
    if (ctx_len > MTC_MLDSA_CTX_MAX)
        return MTC_ERR_SIGNATURE; /* Algorithm 3 step 1: false */
    verify_ws *v = malloc(sizeof *v);
    if (!v)
        return MTC_ERR_NOMEM;
    mldsa_xof x;
    int rc = mtc__mldsa_xof_init(&x);
    if (!rc) {
        rc = verify_ws_run(p, &x, v, pk, msg, msg_len, ctx, ctx_len, sig,
                           flags);
        mtc__mldsa_xof_done(&x);
    }
    free(v);
    return rc;
}
