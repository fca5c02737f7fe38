/*
 * mldsa_poly.c - arithmetic modulo q = 8380417 for ML-DSA: Montgomery and
 * Barrett-style reductions, the NTT of FIPS 204 Algorithms 41 and 42,
 * Power2Round, Decompose and UseHint.
 *
 * Why Montgomery with 32-bit coefficients: every product of the NTT and of
 * the NTT-domain multiplication is one 32x32->64 multiply plus one
 * reduction, and coefficients may grow to 9q (forward) or 256q (inverse)
 * inside int32_t without intermediate reductions. Rounding functions
 * (Decompose) work on secret data during signing, so they use multiply-shift
 * divisions checked exhaustively by tests/test_mldsa_poly.c instead of '/'.
 */
#include <string.h>

#include "mldsa_int.h"

/* zeta = 1753 is a primitive 512th root of unity mod q; the table holds
 * zeta^brv8(i) * 2^32 mod q, centered (FIPS 204 Appendix B, in Montgomery
 * form). tests/test_mldsa_poly.c recomputes it. */
const int32_t mtc__mldsa_zetas[MLDSA_N] = {
    -4186625, 25847, -2608894, -518909, 237124, -777960, -876248, 466468,
    1826347, 2353451, -359251, -2091905, 3119733, -2884855, 3111497, 2680103,
    2725464, 1024112, -1079900, 3585928, -549488, -1119584, 2619752, -2108549,
    -2118186, -3859737, -1399561, -3277672, 1757237, -19422, 4010497, 280005,
    2706023, 95776, 3077325, 3530437, -1661693, -3592148, -2537516, 3915439,
    -3861115, -3043716, 3574422, -2867647, 3539968, -300467, 2348700, -539299,
    -1699267, -1643818, 3505694, -3821735, 3507263, -2140649, -1600420, 3699596,
    811944, 531354, 954230, 3881043, 3900724, -2556880, 2071892, -2797779,
    -3930395, -1528703, -3677745, -3041255, -1452451, 3475950, 2176455, -1585221,
    -1257611, 1939314, -4083598, -1000202, -3190144, -3157330, -3632928, 126922,
    3412210, -983419, 2147896, 2715295, -2967645, -3693493, -411027, -2477047,
    -671102, -1228525, -22981, -1308169, -381987, 1349076, 1852771, -1430430,
    -3343383, 264944, 508951, 3097992, 44288, -1100098, 904516, 3958618,
    -3724342, -8578, 1653064, -3249728, 2389356, -210977, 759969, -1316856,
    189548, -3553272, 3159746, -1851402, -2409325, -177440, 1315589, 1341330,
    1285669, -1584928, -812732, -1439742, -3019102, -3881060, -3628969, 3839961,
    2091667, 3407706, 2316500, 3817976, -3342478, 2244091, -2446433, -3562462,
    266997, 2434439, -1235728, 3513181, -3520352, -3759364, -1197226, -3193378,
    900702, 1859098, 909542, 819034, 495491, -1613174, -43260, -522500,
    -655327, -3122442, 2031748, 3207046, -3556995, -525098, -768622, -3595838,
    342297, 286988, -2437823, 4108315, 3437287, -3342277, 1735879, 203044,
    2842341, 2691481, -2590150, 1265009, 4055324, 1247620, 2486353, 1595974,
    -3767016, 1250494, 2635921, -3548272, -2994039, 1869119, 1903435, -1050970,
    -1333058, 1237275, -3318210, -1430225, -451100, 1312455, 3306115, -1962642,
    -1279661, 1917081, -2546312, -1374803, 1500165, 777191, 2235880, 3406031,
    -542412, -2831860, -1671176, -1846953, -2584293, -3724270, 594136, -3776993,
    -2013608, 2432395, 2454455, -164721, 1957272, 3369112, 185531, -1207385,
    -3183426, 162844, 1616392, 3014001, 810149, 1652634, -3694233, -1799107,
    -3038916, 3523897, 3866901, 269760, 2213111, -975884, 1717735, 472078,
    -426683, 1723600, -1803090, 1910376, -1667432, -1104333, -260646, -3833893,
    -2939036, -2235985, -420899, -2286327, 183443, -976891, 1612842, -3545687,
    -554416, 3919660, -48306, -1362209, 3937738, 1400424, -846154, 1976782,
};

/* 2^64 / 256 mod q: after the inverse butterflies one Montgomery product
 * with it divides by 256 and multiplies by 2^32 (cancelling the 2^-32 of
 * the preceding NTT-domain product). */
#define MLDSA_INV256_MONT2 41978

void mtc__mldsa_ntt(mldsa_poly *p)
{
    int32_t *a = p->c;
    unsigned m = 0;
    for (unsigned len = 128; len > 0; len >>= 1) {
        for (unsigned start = 0; start < MLDSA_N; start += 2 * len) {
            int64_t z = mtc__mldsa_zetas[++m];
            for (unsigned j = start; j < start + len; j++) {
                int32_t t = mtc__mldsa_montgomery_reduce(z * a[j + len]);
                a[j + len] = a[j] - t;
                a[j] = a[j] + t;
            }
        }
    }
}

void mtc__mldsa_invntt_tomont(mldsa_poly *p)
{
    int32_t *a = p->c;
    unsigned m = MLDSA_N;
    for (unsigned len = 1; len < MLDSA_N; len <<= 1) {
        for (unsigned start = 0; start < MLDSA_N; start += 2 * len) {
            int64_t z = -(int64_t)mtc__mldsa_zetas[--m];
            for (unsigned j = start; j < start + len; j++) {
                int32_t t = a[j];
                a[j] = t + a[j + len];
                a[j + len] = mtc__mldsa_montgomery_reduce(z * (t - a[j + len]));
            }
        }
    }
    for (unsigned j = 0; j < MLDSA_N; j++)
        a[j] = mtc__mldsa_montgomery_reduce((int64_t)MLDSA_INV256_MONT2 * a[j]);
}

void mtc__mldsa_poly_pointwise(mldsa_poly *r, const mldsa_poly *a,
                               const mldsa_poly *b)
{
    for (unsigned i = 0; i < MLDSA_N; i++)
        r->c[i] = mtc__mldsa_montgomery_reduce((int64_t)a->c[i] * b->c[i]);
}

void mtc__mldsa_poly_pointwise_acc(mldsa_poly *r, const mldsa_poly *a,
                                   const mldsa_poly *b)
{
    for (unsigned i = 0; i < MLDSA_N; i++)
        r->c[i] += mtc__mldsa_montgomery_reduce((int64_t)a->c[i] * b->c[i]);
}

void mtc__mldsa_poly_reduce(mldsa_poly *p)
{
    for (unsigned i = 0; i < MLDSA_N; i++)
        p->c[i] = mtc__mldsa_reduce32(p->c[i]);
}

void mtc__mldsa_poly_freeze(mldsa_poly *p)
{
    for (unsigned i = 0; i < MLDSA_N; i++)
        p->c[i] = mtc__mldsa_freeze(p->c[i]);
}

void mtc__mldsa_power2round(int32_t r, int32_t *r1, int32_t *r0)
{
    /* r + 2^12 - 1 = r1 * 2^13 + rest puts r0 = r - r1 2^13 in
     * (-2^12, 2^12], the centered remainder mod+- 2^13. */
    int32_t hi = (r + (1 << (MLDSA_D - 1)) - 1) >> MLDSA_D;
    *r1 = hi;
    *r0 = r - hi * (1 << MLDSA_D);
}

int32_t mtc__mldsa_use_hint(int32_t gamma2, int h, int32_t r)
{
    int32_t m = (MLDSA_Q - 1) / (2 * gamma2), r1, r0;
    mtc__mldsa_decompose(gamma2, r, &r1, &r0);
    if (!h)
        return r1;
    if (r0 > 0)
        return r1 + 1 == m ? 0 : r1 + 1;
    return r1 == 0 ? m - 1 : r1 - 1;
}

int mtc__mldsa_poly_exceeds(const mldsa_poly *p, int32_t bound)
{
    uint32_t bad = 0;
    for (unsigned i = 0; i < MLDSA_N; i++) {
        int32_t a = p->c[i];
        int32_t s = a >> 31;
        int32_t abs = (a ^ s) - s;
        bad |= (uint32_t)(bound - 1 - abs) >> 31;
    }
    return (int)bad;
}

void mtc__mldsa_sparse_from_poly(mldsa_sparse *sp, const mldsa_poly *c)
{
    sp->n = 0;
    for (unsigned i = 0; i < MLDSA_N && sp->n < 64; i++)
        if (c->c[i]) {
            sp->pos[sp->n] = (uint8_t)i;
            sp->sign[sp->n++] = (int8_t)c->c[i];
        }
}

/* r += sign * ext[off .. off + 256): fixed trip count and no aliasing, so
 * the compiler vectorizes it at -O2. */
static void add_window(int32_t *restrict r, const int32_t *restrict ext,
                       int negative)
{
    if (negative)
        for (unsigned i = 0; i < MLDSA_N; i++)
            r[i] -= ext[i];
    else
        for (unsigned i = 0; i < MLDSA_N; i++)
            r[i] += ext[i];
}

void mtc__mldsa_poly_mul_sparse(mldsa_poly *r, const mldsa_sparse *c,
                                const mldsa_poly *a)
{
    /* Why not the NTT: c has only tau (39..60) nonzero +-1 coefficients, so
     * tau shifted additions of a cost less than NTT(c) plus an inverse
     * NTT, and give exact small results that need no reduction.
     * X^p a = sum a_i X^(i+p) with X^256 = -1: coefficient i of X^p a is
     * ext[256 - p + i] over ext = (-a, a), one contiguous window. */
    int32_t ext[2 * MLDSA_N];
    for (unsigned i = 0; i < MLDSA_N; i++) {
        ext[i] = -a->c[i];
        ext[MLDSA_N + i] = a->c[i];
    }
    memset(r, 0, sizeof *r);
    for (unsigned t = 0; t < c->n; t++)
        add_window(r->c, ext + MLDSA_N - c->pos[t], c->sign[t] < 0);
}
