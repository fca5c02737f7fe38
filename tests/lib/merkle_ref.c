/*
 * merkle_ref.c - recursive reference definitions (see merkle_ref.h).
 */
#include "merkle_ref.h"

#include <string.h>

static uint64_t largest_pow2_below(uint64_t n)
{
    uint64_t k = 1;
    while (k * 2 < n)
        k *= 2;
    return k;
}

void ref_mth(const mtc_hash *d, uint64_t start, uint64_t end, mtc_hash *out)
{
    uint64_t n = end - start;
    if (n == 0) {
        mtc_sha256("", 0, out);
        return;
    }
    if (n == 1) {
        *out = d[start];
        return;
    }
    uint64_t k = largest_pow2_below(n);
    mtc_hash l, r;
    ref_mth(d, start, start + k, &l);
    ref_mth(d, start + k, end, &r);
    uint8_t buf[65];
    buf[0] = 1;
    memcpy(buf + 1, l.b, 32);
    memcpy(buf + 33, r.b, 32);
    mtc_sha256(buf, sizeof buf, out); /* not mtc_hash_node: independent */
}

/* PATH(m, D[base:base+n]) */
static size_t path(const mtc_hash *d, uint64_t m, uint64_t base, uint64_t n,
                   mtc_hash *proof)
{
    if (n <= 1)
        return 0;
    uint64_t k = largest_pow2_below(n);
    size_t len;
    if (m < k) {
        len = path(d, m, base, k, proof);
        ref_mth(d, base + k, base + n, &proof[len]);
    } else {
        len = path(d, m - k, base + k, n - k, proof);
        ref_mth(d, base, base + k, &proof[len]);
    }
    return len + 1;
}

size_t ref_inclusion(const mtc_hash *d, uint64_t index, uint64_t start,
                     uint64_t end, mtc_hash *proof)
{
    return path(d, index - start, start, end - start, proof);
}

/* SUBTREE_SUBPROOF(start, end, D[base:base+n], b) */
static size_t subproof(const mtc_hash *d, uint64_t start, uint64_t end,
                       uint64_t base, uint64_t n, int b, mtc_hash *proof)
{
    if (start == 0 && end == n) {
        if (b)
            return 0;
        ref_mth(d, base, base + n, &proof[0]);
        return 1;
    }
    uint64_t k = largest_pow2_below(n);
    size_t len;
    if (end <= k) {
        len = subproof(d, start, end, base, k, b, proof);
        ref_mth(d, base + k, base + n, &proof[len]);
    } else if (k <= start) {
        len = subproof(d, start - k, end - k, base + k, n - k, b, proof);
        ref_mth(d, base, base + k, &proof[len]);
    } else {
        len = subproof(d, 0, end - k, base + k, n - k, 0, proof);
        ref_mth(d, base, base + k, &proof[len]);
    }
    return len + 1;
}

size_t ref_subtree_consistency(const mtc_hash *d, uint64_t start, uint64_t end,
                               uint64_t n, mtc_hash *proof)
{
    if (start == end)
        return 0;
    return subproof(d, start, end, 0, n, 1, proof);
}

uint64_t ref_rand(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

void ref_leaf(uint64_t seed, uint64_t i, mtc_hash *out)
{
    uint8_t buf[16];
    for (int k = 0; k < 8; k++) {
        buf[k] = (uint8_t)(seed >> (8 * k));
        buf[8 + k] = (uint8_t)(i >> (8 * k));
    }
    mtc_hash_leaf(buf, sizeof buf, out);
}
