/*
 * test_mldsa_poly.c - the building blocks of ML-DSA, each against its
 * definition in FIPS 204: the zeta table, Montgomery and Barrett-style
 * reductions, NTT multiplication against schoolbook multiplication in
 * Z_q[X]/(X^256 + 1), Power2Round / Decompose / UseHint exhaustively over
 * [0, q), bit packing round trips, SHAKE against known answers and the
 * samplers (ranges, weights, and the re-squeeze path giving the same
 * result as a long first squeeze).
 */
#include <openssl/rand.h>

#include "../mtc-core/src/mldsa_int.h"
#include "mtc/error.h"
#include "test.h"

#define Q MLDSA_Q

/* Deterministic test randomness: SplitMix64. */
static uint64_t rnd_next(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static int64_t modq(int64_t a)
{
    a %= Q;
    return a < 0 ? a + Q : a;
}

static int64_t powmod(int64_t b, int64_t e)
{
    int64_t r = 1;
    b = modq(b);
    while (e) {
        if (e & 1)
            r = r * b % Q;
        b = b * b % Q;
        e >>= 1;
    }
    return r;
}

static unsigned brv8(unsigned k)
{
    unsigned r = 0;
    for (int i = 0; i < 8; i++)
        r |= ((k >> i) & 1) << (7 - i);
    return r;
}

TEST(zetas_match_definition)
{
    int64_t r32 = powmod(2, 32);
    ASSERT_EQ(powmod(1753, 256), Q - 1); /* primitive 512th root */
    for (unsigned k = 0; k < MLDSA_N; k++) {
        int64_t z = mtc__mldsa_zetas[k];
        ASSERT_TRUE(z > -Q / 2 && z <= Q / 2);
        ASSERT_EQ(modq(z), powmod(1753, brv8(k)) * r32 % Q);
    }
}

TEST(reductions)
{
    uint64_t s = 1;
    int64_t rinv = powmod(powmod(2, 32), Q - 2);
    for (int i = 0; i < 200000; i++) {
        int64_t a = (int64_t)(rnd_next(&s) % ((uint64_t)Q << 31)) -
                    ((int64_t)Q << 30);
        int32_t m = mtc__mldsa_montgomery_reduce(a);
        ASSERT_TRUE(m > -Q && m < Q);
        ASSERT_EQ(modq(m), modq(a) * rinv % Q);
        /* |b| <= 2^31 - 2^22 - 1, the documented domain. */
        int32_t b = (int32_t)((int64_t)(rnd_next(&s) % 4286578687u) - 2143289343);
        int32_t r = mtc__mldsa_reduce32(b);
        ASSERT_TRUE(r >= -6283008 && r <= 6283008);
        ASSERT_EQ(modq(r), modq(b));
        int32_t f = mtc__mldsa_freeze(b);
        ASSERT_TRUE(f >= 0 && f < Q);
        ASSERT_EQ(f, modq(b));
    }
}

/* Schoolbook product in Z_q[X]/(X^256 + 1). */
static void schoolbook(int64_t *r, const int32_t *a, const int32_t *b)
{
    for (int i = 0; i < MLDSA_N; i++)
        r[i] = 0;
    for (int i = 0; i < MLDSA_N; i++)
        for (int j = 0; j < MLDSA_N; j++) {
            int64_t p = modq((int64_t)a[i] * b[j]);
            if (i + j < MLDSA_N)
                r[i + j] = modq(r[i + j] + p);
            else
                r[i + j - MLDSA_N] = modq(r[i + j - MLDSA_N] - p);
        }
}

TEST(ntt_multiplies_negacyclic)
{
    uint64_t s = 7;
    int rounds = test_scale() < 1 ? 5 : 30;
    for (int round = 0; round < rounds; round++) {
        mldsa_poly a, b, ah, bh, c;
        /* Extremes first: |coefficient| up to q - 1 (the NTT's bound). */
        for (int i = 0; i < MLDSA_N; i++) {
            int32_t lim = round == 0 ? Q - 1 : round == 1 ? 1 : Q / 2;
            a.c[i] = (int32_t)(rnd_next(&s) % (2 * (uint64_t)lim + 1)) - lim;
            b.c[i] = round == 0 ? -(Q - 1) : (int32_t)(rnd_next(&s) % Q) - Q / 2;
        }
        ah = a;
        bh = b;
        mtc__mldsa_ntt(&ah);
        mtc__mldsa_ntt(&bh);
        for (int i = 0; i < MLDSA_N; i++)
            ASSERT_TRUE(ah.c[i] > -9 * Q && ah.c[i] < 9 * Q);
        mtc__mldsa_poly_pointwise(&c, &ah, &bh);
        mtc__mldsa_invntt_tomont(&c);
        int64_t ref[MLDSA_N];
        schoolbook(ref, a.c, b.c);
        for (int i = 0; i < MLDSA_N; i++) {
            ASSERT_TRUE(c.c[i] > -Q && c.c[i] < Q);
            ASSERT_EQ(modq(c.c[i]), ref[i]);
        }
    }
}

TEST(power2round_exhaustive)
{
    int step = test_scale() < 1 ? 7 : 1;
    for (int32_t r = 0; r < Q; r += step) {
        int32_t r1, r0;
        mtc__mldsa_power2round(r, &r1, &r0);
        /* r0 = r mod+- 2^13 in (-2^12, 2^12], r1 = (r - r0) / 2^13. */
        int32_t e0 = r % 8192;
        if (e0 > 4096)
            e0 -= 8192;
        if (r0 != e0 || r1 != (r - e0) / 8192)
            TEST_FAIL_("Power2Round(%d) = (%d, %d), expected (%d, %d)", r, r1,
                       r0, (r - e0) / 8192, e0);
        if (r1 < 0 || r1 > 1023)
            TEST_FAIL_("t1 = %d out of 10 bits", r1);
    }
}

/* Decompose straight from Algorithm 36. */
static void decompose_ref(int32_t g2, int32_t r, int32_t *r1, int32_t *r0)
{
    int32_t a = 2 * g2;
    int32_t lo = r % a;
    if (lo > a / 2)
        lo -= a;
    if (r - lo == Q - 1) {
        *r1 = 0;
        *r0 = lo - 1;
    } else {
        *r1 = (r - lo) / a;
        *r0 = lo;
    }
}

TEST(decompose_and_hints_exhaustive)
{
    static const int32_t g2s[2] = {(Q - 1) / 88, (Q - 1) / 32};
    int step = test_scale() < 1 ? 7 : 1;
    for (int g = 0; g < 2; g++) {
        int32_t g2 = g2s[g], m = (Q - 1) / (2 * g2);
        for (int32_t r = 0; r < Q; r += step) {
            int32_t r1, r0, e1, e0;
            mtc__mldsa_decompose(g2, r, &r1, &r0);
            decompose_ref(g2, r, &e1, &e0);
            if (r1 != e1 || r0 != e0)
                TEST_FAIL_("Decompose_%d(%d) = (%d, %d), expected (%d, %d)",
                           g2, r, r1, r0, e1, e0);
            /* UseHint (Algorithm 40). */
            int32_t up = e0 > 0 ? (e1 + 1) % m : (e1 - 1 + m) % m;
            if (mtc__mldsa_use_hint(g2, 0, r) != e1 ||
                mtc__mldsa_use_hint(g2, 1, r) != up)
                TEST_FAIL_("UseHint_%d(., %d) wrong", g2, r);
        }
    }
}

TEST(hint_recovers_highbits)
{
    /* The property ML-DSA relies on (FIPS 204 section 3.6.2): for
     * |z| <= gamma2, UseHint(MakeHint(z, r), r) = HighBits(r + z). */
    static const int32_t g2s[2] = {(Q - 1) / 88, (Q - 1) / 32};
    uint64_t s = 99;
    for (int g = 0; g < 2; g++)
        for (int i = 0; i < 200000; i++) {
            int32_t g2 = g2s[g];
            int32_t r = (int32_t)(rnd_next(&s) % Q);
            int32_t z = (int32_t)(rnd_next(&s) % (2 * (uint64_t)g2 + 1)) - g2;
            int32_t r1, v1, lo;
            mtc__mldsa_decompose(g2, r, &r1, &lo);
            mtc__mldsa_decompose(g2, (int32_t)modq(r + z), &v1, &lo);
            int h = r1 != v1;
            ASSERT_EQ(mtc__mldsa_use_hint(g2, h, r), v1);
        }
}

TEST(exceeds_is_exact_at_the_bound)
{
    mldsa_poly p;
    memset(&p, 0, sizeof p);
    ASSERT_EQ(mtc__mldsa_poly_exceeds(&p, 1), 0);
    p.c[200] = 77;
    ASSERT_EQ(mtc__mldsa_poly_exceeds(&p, 78), 0);
    ASSERT_EQ(mtc__mldsa_poly_exceeds(&p, 77), 1);
    p.c[200] = -77;
    ASSERT_EQ(mtc__mldsa_poly_exceeds(&p, 78), 0);
    ASSERT_EQ(mtc__mldsa_poly_exceeds(&p, 77), 1);
    p.c[200] = 0;
    p.c[255] = (1 << 19);
    ASSERT_EQ(mtc__mldsa_poly_exceeds(&p, (1 << 19) - 120), 1);
}

TEST(bit_packing_round_trips)
{
    uint64_t s = 5;
    static const unsigned widths[] = {3, 4, 6, 10, 13, 18, 20};
    for (size_t w = 0; w < sizeof widths / sizeof widths[0]; w++) {
        int32_t v[MLDSA_N], back[MLDSA_N];
        uint8_t buf[MLDSA_N * 20 / 8];
        unsigned bits = widths[w];
        for (int i = 0; i < MLDSA_N; i++)
            v[i] = (int32_t)(rnd_next(&s) & ((1u << bits) - 1));
        v[0] = (int32_t)((1u << bits) - 1);
        mtc__mldsa_pack_bits(buf, v, MLDSA_N, bits);
        /* Little-endian bit order: bit j of the stream is bit j%8 of
         * byte j/8 (IntegerToBits, BitsToBytes). */
        for (unsigned j = 0; j < MLDSA_N * bits; j++) {
            unsigned want = (unsigned)(v[j / bits] >> (j % bits)) & 1;
            ASSERT_EQ((buf[j / 8] >> (j % 8)) & 1, want);
        }
        mtc__mldsa_unpack_bits(back, buf, MLDSA_N, bits);
        ASSERT_MEM_EQ(v, back, sizeof v);
    }
}

static void unhex(const char *h, uint8_t *out)
{
    for (size_t i = 0; h[2 * i]; i++) {
        unsigned v;
        sscanf(h + 2 * i, "%2x", &v);
        out[i] = (uint8_t)v;
    }
}

TEST(shake_known_answers_and_prefix)
{
    mldsa_xof x;
    ASSERT_OK(mtc__mldsa_xof_init(&x));
    uint8_t out[600], want[32], longer[600];
    /* SHAKE128("") and SHAKE256("") first 32 bytes (FIPS 202 examples). */
    ASSERT_OK(mtc__mldsa_shake(&x, 0, NULL, 0, out, 32));
    unhex("7f9c2ba4e88f827d616045507605853ed73b8093f6efbc88eb1a6eacfa66ef26", want);
    ASSERT_MEM_EQ(out, want, 32);
    ASSERT_OK(mtc__mldsa_shake(&x, 1, NULL, 0, out, 32));
    unhex("46b9dd2b0ba88d13233b3feb743eeb243fcd52ea62b81b82b50c27646ed5762f", want);
    ASSERT_MEM_EQ(out, want, 32);
    /* Split input equals joined input; short output is a prefix of long. */
    const uint8_t msg[] = "the quick brown fox";
    mldsa_buf one[1] = {{msg, 19}}, three[3] = {{msg, 4}, {NULL, 0}, {msg + 4, 15}};
    ASSERT_OK(mtc__mldsa_shake(&x, 1, one, 1, out, 300));
    ASSERT_OK(mtc__mldsa_shake(&x, 1, three, 3, longer, 600));
    ASSERT_MEM_EQ(out, longer, 300);
    mtc__mldsa_xof_done(&x);
}

TEST(samplers_ranges_and_resqueeze)
{
    mldsa_xof x;
    ASSERT_OK(mtc__mldsa_xof_init(&x));
    uint8_t rho[64];
    for (int i = 0; i < 64; i++)
        rho[i] = (uint8_t)(i * 37 + 1);
    static const mtc_mldsa_alg algs[3] = {MTC_MLDSA_44, MTC_MLDSA_65,
                                          MTC_MLDSA_87};
    for (int a = 0; a < 3; a++) {
        const mldsa_params *p = mtc__mldsa_params(algs[a]);
        mldsa_poly s1, s2, c1, c2;
        for (unsigned r = 0; r < 4; r++) {
            /* A-hat entries: in [0, q); one-block first squeeze (forced
             * re-squeezes) gives the same polynomial as the default. */
            ASSERT_OK(mtc__mldsa_expand_a_entry(&x, rho, r, r + 1, &s1));
            ASSERT_OK(mtc__mldsa_expand_a_entry_blocks(&x, rho, r, r + 1, &s2, 1));
            ASSERT_MEM_EQ(&s1, &s2, sizeof s1);
            for (int i = 0; i < MLDSA_N; i++)
                ASSERT_TRUE(s1.c[i] >= 0 && s1.c[i] < Q);
            /* s entries: in [-eta, eta]. */
            ASSERT_OK(mtc__mldsa_expand_s_entry(&x, p, rho, r, &s1));
            ASSERT_OK(mtc__mldsa_expand_s_entry_blocks(&x, p, rho, r, &s2, 1));
            ASSERT_MEM_EQ(&s1, &s2, sizeof s1);
            for (int i = 0; i < MLDSA_N; i++)
                ASSERT_TRUE(s1.c[i] >= -p->eta && s1.c[i] <= p->eta);
            /* Challenge: exactly tau coefficients, each +-1. */
            uint8_t ct[MLDSA_CTILDE_MAX];
            memset(ct, (int)(r * 11 + (unsigned)a), sizeof ct);
            ASSERT_OK(mtc__mldsa_sample_in_ball(&x, p, ct, &c1));
            ASSERT_OK(mtc__mldsa_sample_in_ball_len(&x, p, ct, &c2, 9));
            ASSERT_MEM_EQ(&c1, &c2, sizeof c1);
            unsigned weight = 0;
            for (int i = 0; i < MLDSA_N; i++) {
                ASSERT_TRUE(c1.c[i] >= -1 && c1.c[i] <= 1);
                weight += c1.c[i] != 0;
            }
            ASSERT_EQ(weight, p->tau);
        }
        /* Mask: in (-gamma1, gamma1]. */
        mldsa_poly y[MLDSA_L_MAX];
        ASSERT_OK(mtc__mldsa_expand_mask(&x, p, rho, 3, y));
        for (unsigned j = 0; j < p->l; j++)
            for (int i = 0; i < MLDSA_N; i++)
                ASSERT_TRUE(y[j].c[i] > -p->gamma1 && y[j].c[i] <= p->gamma1);
    }
    mtc__mldsa_xof_done(&x);
}

static const test_case cases[] = {
    {"zetas_match_definition", zetas_match_definition},
    {"reductions", reductions},
    {"ntt_multiplies_negacyclic", ntt_multiplies_negacyclic},
    {"power2round_exhaustive", power2round_exhaustive},
    {"decompose_and_hints_exhaustive", decompose_and_hints_exhaustive},
    {"hint_recovers_highbits", hint_recovers_highbits},
    {"exceeds_is_exact_at_the_bound", exceeds_is_exact_at_the_bound},
    {"bit_packing_round_trips", bit_packing_round_trips},
    {"shake_known_answers_and_prefix", shake_known_answers_and_prefix},
    {"samplers_ranges_and_resqueeze", samplers_ranges_and_resqueeze},
};

TEST_MAIN(cases)
