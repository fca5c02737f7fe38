/*
 * mldsa_sample.c - SHAKE through OpenSSL and the ML-DSA samplers: ExpandA
 * (RejNTTPoly), ExpandS (RejBoundedPoly), ExpandMask and SampleInBall.
 *
 * OpenSSL 3.0 squeezes a SHAKE only once (no EVP_DigestSqueeze), so the
 * rejection samplers squeeze a length that almost always suffices (5 blocks
 * for a matrix entry: 280 candidates for 256 slots, each rejected with
 * probability 2^-10) and, when it does not, squeeze again with one more
 * block and continue where they stopped: a SHAKE output is a prefix of every
 * longer output of the same input, so the result equals that of an
 * incremental squeeze. The retries are bounded (MLDSA_MAX_BLOCKS); running
 * past the bound has probability far below 2^-500 and is reported as
 * MTC_ERR_CRYPTO rather than looping without end.
 */
#include <string.h>

#include <openssl/crypto.h>

#include "mldsa_int.h"
#include "mtc/error.h"

#define MLDSA_MAX_BLOCKS 24

int mtc__mldsa_xof_init(mldsa_xof *x)
{
    memset(x, 0, sizeof *x);
    x->shake128 = EVP_MD_fetch(NULL, "SHAKE128", NULL);
    x->shake256 = EVP_MD_fetch(NULL, "SHAKE256", NULL);
    x->ctx = EVP_MD_CTX_new();
    if (!x->shake128 || !x->shake256 || !x->ctx) {
        int rc = x->ctx ? MTC_ERR_CRYPTO : MTC_ERR_NOMEM;
        mtc__mldsa_xof_done(x);
        return rc;
    }
    return MTC_OK;
}

void mtc__mldsa_xof_done(mldsa_xof *x)
{
    EVP_MD_CTX_free(x->ctx);
    EVP_MD_free(x->shake128);
    EVP_MD_free(x->shake256);
    memset(x, 0, sizeof *x);
}

int mtc__mldsa_shake(mldsa_xof *x, int use256, const mldsa_buf *in,
                     size_t nin, uint8_t *out, size_t outlen)
{
    if (EVP_DigestInit_ex(x->ctx, use256 ? x->shake256 : x->shake128, NULL) != 1)
        return MTC_ERR_CRYPTO;
    for (size_t i = 0; i < nin; i++)
        if (in[i].n && EVP_DigestUpdate(x->ctx, in[i].p, in[i].n) != 1)
            return MTC_ERR_CRYPTO;
    if (EVP_DigestFinalXOF(x->ctx, out, outlen) != 1)
        return MTC_ERR_CRYPTO;
    return MTC_OK;
}

int mtc__mldsa_expand_a_entry(mldsa_xof *x, const uint8_t rho[32],
                              unsigned r, unsigned s, mldsa_poly *out)
{
    return mtc__mldsa_expand_a_entry_blocks(x, rho, r, s, out, 5);
}

int mtc__mldsa_expand_a_entry_blocks(mldsa_xof *x, const uint8_t rho[32],
                                     unsigned r, unsigned s, mldsa_poly *out,
                                     unsigned first_blocks)
{
    uint8_t buf[MLDSA_MAX_BLOCKS * MLDSA_SHAKE128_RATE];
    uint8_t idx[2] = {(uint8_t)s, (uint8_t)r};
    mldsa_buf in[2] = {{rho, 32}, {idx, 2}};
    size_t len = first_blocks * MLDSA_SHAKE128_RATE, pos = 0;
    unsigned ctr = 0;
    for (;;) {
        int rc = mtc__mldsa_shake(x, 0, in, 2, buf, len);
        if (rc)
            return rc;
        /* CoeffFromThreeBytes: 23 bits, accepted when below q. The matrix
         * is public, so the branch is too. */
        while (ctr < MLDSA_N && pos + 3 <= len) {
            uint32_t v = (uint32_t)buf[pos] | (uint32_t)buf[pos + 1] << 8 |
                         (uint32_t)(buf[pos + 2] & 0x7f) << 16;
            pos += 3;
            if (v < MLDSA_Q)
                out->c[ctr++] = (int32_t)v;
        }
        if (ctr == MLDSA_N)
            return MTC_OK;
        len += MLDSA_SHAKE128_RATE;
        if (len > sizeof buf)
            return MTC_ERR_CRYPTO;
    }
}

int mtc__mldsa_expand_s_entry(mldsa_xof *x, const mldsa_params *p,
                              const uint8_t rhop[64], unsigned idx,
                              mldsa_poly *out)
{
    return mtc__mldsa_expand_s_entry_blocks(x, p, rhop, idx, out, 2);
}

int mtc__mldsa_expand_s_entry_blocks(mldsa_xof *x, const mldsa_params *p,
                                     const uint8_t rhop[64], unsigned idx,
                                     mldsa_poly *out, unsigned first_blocks)
{
    uint8_t buf[MLDSA_MAX_BLOCKS * MLDSA_SHAKE256_RATE];
    uint8_t ib[2] = {(uint8_t)idx, (uint8_t)(idx >> 8)};
    mldsa_buf in[2] = {{rhop, 64}, {ib, 2}};
    size_t len = first_blocks * MLDSA_SHAKE256_RATE, pos = 0;
    unsigned ctr = 0;
    int rc = MTC_OK;
    for (;;) {
        rc = mtc__mldsa_shake(x, 1, in, 2, buf, len);
        if (rc)
            break;
        /* CoeffFromHalfByte. Whether a nibble is rejected is the public
         * part of this rejection loop; the accepted values are mapped
         * without branches (b mod 5 as b - 5 floor(205 b / 1024), exact
         * for b < 15). */
        while (ctr < MLDSA_N && pos < len) {
            uint32_t nib[2] = {buf[pos] & 15u, (uint32_t)buf[pos] >> 4};
            pos++;
            for (int h = 0; h < 2 && ctr < MLDSA_N; h++) {
                uint32_t b = nib[h];
                if (p->eta == 2) {
                    if (b < 15)
                        out->c[ctr++] = 2 - (int32_t)(b - ((205 * b) >> 10) * 5);
                } else if (b < 9) {
                    out->c[ctr++] = 4 - (int32_t)b;
                }
            }
        }
        if (ctr == MLDSA_N)
            break;
        len += MLDSA_SHAKE256_RATE;
        if (len > sizeof buf) {
            rc = MTC_ERR_CRYPTO;
            break;
        }
    }
    OPENSSL_cleanse(buf, sizeof buf);
    return rc;
}

int mtc__mldsa_expand_mask(mldsa_xof *x, const mldsa_params *p,
                           const uint8_t rhopp[64], unsigned kappa,
                           mldsa_poly *y)
{
    uint8_t buf[32 * 20];
    size_t len = 32 * (size_t)p->z_bits;
    int rc = MTC_OK;
    for (unsigned r = 0; r < p->l; r++) {
        unsigned v = kappa + r;
        uint8_t ib[2] = {(uint8_t)v, (uint8_t)(v >> 8)};
        mldsa_buf in[2] = {{rhopp, 64}, {ib, 2}};
        rc = mtc__mldsa_shake(x, 1, in, 2, buf, len);
        if (rc)
            break;
        mtc__mldsa_unpack_bits(y[r].c, buf, MLDSA_N, p->z_bits);
        for (unsigned i = 0; i < MLDSA_N; i++)
            y[r].c[i] = p->gamma1 - y[r].c[i];
    }
    OPENSSL_cleanse(buf, sizeof buf);
    return rc;
}

int mtc__mldsa_sample_in_ball(mldsa_xof *x, const mldsa_params *p,
                              const uint8_t *ctilde, mldsa_poly *c)
{
    return mtc__mldsa_sample_in_ball_len(x, p, ctilde, c, MLDSA_SHAKE256_RATE);
}

int mtc__mldsa_sample_in_ball_len(mldsa_xof *x, const mldsa_params *p,
                                  const uint8_t *ctilde, mldsa_poly *c,
                                  size_t first_len)
{
    uint8_t buf[MLDSA_MAX_BLOCKS * MLDSA_SHAKE256_RATE];
    mldsa_buf in[1] = {{ctilde, p->ctilde_len}};
    size_t len = first_len;
    for (;;) {
        int rc = mtc__mldsa_shake(x, 1, in, 1, buf, len);
        if (rc)
            return rc;
        uint64_t signs = 0;
        for (int i = 0; i < 8; i++)
            signs |= (uint64_t)buf[i] << (8 * i);
        size_t pos = 8;
        memset(c, 0, sizeof *c);
        unsigned i = MLDSA_N - p->tau;
        for (; i < MLDSA_N; i++) {
            unsigned j;
            do {
                j = pos < len ? buf[pos] : MLDSA_N;
                pos++;
            } while (j > i && pos <= len);
            if (j > i)
                break; /* ran out of squeezed bytes */
            c->c[i] = c->c[j];
            c->c[j] = 1 - 2 * (int32_t)(signs & 1);
            signs >>= 1;
        }
        if (i == MLDSA_N)
            return MTC_OK;
        len += MLDSA_SHAKE256_RATE;
        if (len > sizeof buf)
            return MTC_ERR_CRYPTO;
    }
}
