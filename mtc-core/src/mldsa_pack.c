/*
 * mldsa_pack.c - the byte encodings of FIPS 204 section 7.2: public key,
 * private key, signature (with the hint encoding of Algorithms 20 and 21)
 * and w1.
 *
 * Every encoding is a little-endian bit string of fixed-width fields
 * (IntegerToBits then BitsToBytes), so one packer/unpacker pair with a
 * 64-bit accumulator serves all widths. Decoding of private keys checks the
 * s1/s2 ranges without branches on the (secret) values; decoding of
 * signatures enforces every rule of HintBitUnpack, because a signature that
 * is accepted must have exactly one encoding.
 */
#include <string.h>

#include "mldsa_int.h"
#include "mtc/error.h"

void mtc__mldsa_pack_bits(uint8_t *out, const int32_t *v, size_t n,
                          unsigned bits)
{
    uint64_t acc = 0;
    unsigned have = 0;
    for (size_t i = 0; i < n; i++) {
        acc |= (uint64_t)(uint32_t)v[i] << have;
        have += bits;
        while (have >= 8) {
            *out++ = (uint8_t)acc;
            acc >>= 8;
            have -= 8;
        }
    }
}

void mtc__mldsa_unpack_bits(int32_t *v, const uint8_t *in, size_t n,
                            unsigned bits)
{
    uint64_t acc = 0, mask = ((uint64_t)1 << bits) - 1;
    unsigned have = 0;
    for (size_t i = 0; i < n; i++) {
        while (have < bits) {
            acc |= (uint64_t)*in++ << have;
            have += 8;
        }
        v[i] = (int32_t)(acc & mask);
        acc >>= bits;
        have -= bits;
    }
}

/* b - w for each coefficient (BitPack stores b - w_i). */
static void pack_offset(uint8_t *out, const mldsa_poly *a, int32_t b,
                        unsigned bits)
{
    int32_t t[MLDSA_N];
    for (unsigned i = 0; i < MLDSA_N; i++)
        t[i] = b - a->c[i];
    mtc__mldsa_pack_bits(out, t, MLDSA_N, bits);
}

static void unpack_offset(mldsa_poly *a, const uint8_t *in, int32_t b,
                          unsigned bits)
{
    mtc__mldsa_unpack_bits(a->c, in, MLDSA_N, bits);
    for (unsigned i = 0; i < MLDSA_N; i++)
        a->c[i] = b - a->c[i];
}

void mtc__mldsa_pk_encode(const mldsa_params *p, uint8_t *pk,
                          const uint8_t rho[32], const mldsa_poly *t1)
{
    memcpy(pk, rho, 32);
    for (unsigned i = 0; i < p->k; i++)
        mtc__mldsa_pack_bits(pk + 32 + 320 * i, t1[i].c, MLDSA_N, 10);
}

void mtc__mldsa_pk_decode(const mldsa_params *p, const uint8_t *pk,
                          uint8_t rho[32], mldsa_poly *t1)
{
    memcpy(rho, pk, 32);
    for (unsigned i = 0; i < p->k; i++)
        mtc__mldsa_unpack_bits(t1[i].c, pk + 32 + 320 * i, MLDSA_N, 10);
}

void mtc__mldsa_sk_encode(const mldsa_params *p, uint8_t *sk,
                          const uint8_t rho[32], const uint8_t key[32],
                          const uint8_t tr[64], const mldsa_poly *s1,
                          const mldsa_poly *s2, const mldsa_poly *t0)
{
    size_t eb = 32 * (size_t)p->eta_bits;
    memcpy(sk, rho, 32);
    memcpy(sk + 32, key, 32);
    memcpy(sk + 64, tr, 64);
    sk += 128;
    for (unsigned i = 0; i < p->l; i++, sk += eb)
        pack_offset(sk, &s1[i], p->eta, p->eta_bits);
    for (unsigned i = 0; i < p->k; i++, sk += eb)
        pack_offset(sk, &s2[i], p->eta, p->eta_bits);
    for (unsigned i = 0; i < p->k; i++, sk += 416)
        pack_offset(sk, &t0[i], 1 << (MLDSA_D - 1), MLDSA_D);
}

/* 1 when some coefficient of a is outside [-eta, eta], branch-free. */
static uint32_t out_of_eta(const mldsa_poly *a, int32_t eta)
{
    uint32_t bad = 0;
    for (unsigned i = 0; i < MLDSA_N; i++)
        bad |= (uint32_t)(eta - a->c[i]) >> 31 | (uint32_t)(eta + a->c[i]) >> 31;
    return bad;
}

int mtc__mldsa_sk_decode(const mldsa_params *p, const uint8_t *sk,
                         uint8_t rho[32], uint8_t key[32], uint8_t tr[64],
                         mldsa_poly *s1, mldsa_poly *s2, mldsa_poly *t0)
{
    size_t eb = 32 * (size_t)p->eta_bits;
    uint32_t bad = 0;
    memcpy(rho, sk, 32);
    memcpy(key, sk + 32, 32);
    memcpy(tr, sk + 64, 64);
    sk += 128;
    for (unsigned i = 0; i < p->l; i++, sk += eb) {
        unpack_offset(&s1[i], sk, p->eta, p->eta_bits);
        bad |= out_of_eta(&s1[i], p->eta);
    }
    for (unsigned i = 0; i < p->k; i++, sk += eb) {
        unpack_offset(&s2[i], sk, p->eta, p->eta_bits);
        bad |= out_of_eta(&s2[i], p->eta);
    }
    for (unsigned i = 0; i < p->k; i++, sk += 416)
        unpack_offset(&t0[i], sk, 1 << (MLDSA_D - 1), MLDSA_D);
    return bad ? MTC_ERR_KEY : MTC_OK;
}

void mtc__mldsa_sig_encode(const mldsa_params *p, uint8_t *sig,
                           const uint8_t *ctilde, const mldsa_poly *z,
                           const mldsa_poly *h)
{
    size_t zb = 32 * (size_t)p->z_bits;
    memcpy(sig, ctilde, p->ctilde_len);
    sig += p->ctilde_len;
    for (unsigned i = 0; i < p->l; i++, sig += zb)
        pack_offset(sig, &z[i], p->gamma1, p->z_bits);
    /* HintBitPack (Algorithm 20): positions of the ones, then the running
     * count after each polynomial. The hints are part of the signature, so
     * branching on them is fine. */
    memset(sig, 0, p->omega + p->k);
    unsigned index = 0;
    for (unsigned i = 0; i < p->k; i++) {
        for (unsigned j = 0; j < MLDSA_N; j++)
            if (h[i].c[j])
                sig[index++] = (uint8_t)j;
        sig[p->omega + i] = (uint8_t)index;
    }
}

int mtc__mldsa_sig_decode(const mldsa_params *p, const uint8_t *sig,
                          uint8_t *ctilde, mldsa_poly *z, mldsa_poly *h)
{
    size_t zb = 32 * (size_t)p->z_bits;
    memcpy(ctilde, sig, p->ctilde_len);
    sig += p->ctilde_len;
    for (unsigned i = 0; i < p->l; i++, sig += zb)
        unpack_offset(&z[i], sig, p->gamma1, p->z_bits);
    /* HintBitUnpack (Algorithm 21). */
    unsigned index = 0;
    for (unsigned i = 0; i < p->k; i++) {
        unsigned end = sig[p->omega + i];
        memset(&h[i], 0, sizeof h[i]);
        if (end < index || end > p->omega)
            return MTC_ERR_SIG_ENCODING; /* counts must not decrease */
        unsigned first = index;
        for (; index < end; index++) {
            if (index > first && sig[index - 1] >= sig[index])
                return MTC_ERR_SIG_ENCODING; /* not strictly increasing */
            h[i].c[sig[index]] = 1;
        }
    }
    for (unsigned i = index; i < p->omega; i++)
        if (sig[i])
            return MTC_ERR_SIG_ENCODING; /* nonzero padding */
    return MTC_OK;
}

size_t mtc__mldsa_w1_len(const mldsa_params *p)
{
    return (size_t)p->k * 32 * p->w1_bits;
}

void mtc__mldsa_w1_encode(const mldsa_params *p, uint8_t *out,
                          const mldsa_poly *w1)
{
    for (unsigned i = 0; i < p->k; i++)
        mtc__mldsa_pack_bits(out + (size_t)i * 32 * p->w1_bits, w1[i].c,
                             MLDSA_N, p->w1_bits);
}
