/*
 * test_tree.c - the compact tree store gives the same answers as a naive
 * full tree in every storage mode, before and after pruning.
 */
#include <string.h>

#include "lib/merkle_ref.h"
#include "mtc/error.h"
#include "mtc/merkle.h"
#include "mtc/tree.h"
#include "test.h"

/* Leaf callback over a test array; counts calls and refuses pruned indices
 * so that a store asking for them is caught. */
typedef struct leaf_ctx {
    const mtc_hash *d;
    uint64_t calls;
    uint64_t refuse_below;
    uint64_t fail_at; /* UINT64_MAX: never */
} leaf_ctx;

static int leaf_cb(void *ctx, uint64_t index, mtc_hash *out)
{
    leaf_ctx *c = ctx;
    c->calls++;
    if (index < c->refuse_below || index == c->fail_at)
        return MTC_ERR_CALLBACK;
    *out = c->d[index];
    return MTC_OK;
}

typedef struct mode {
    const char *name;
    unsigned tile;
    int keep;
    int callback;
} mode;

static const mode modes[] = {
    {"full", 0, 1, 0},
    {"tile2+leaves", 2, 1, 0},
    {"tile4+callback", 4, 0, 1},
    {"tile3+callback", 3, 0, 1},
    {"tile8+callback", 8, 0, 1},
};
#define NMODES (sizeof modes / sizeof modes[0])

static mtc_tree *new_store(const mode *m, leaf_ctx *lc)
{
    mtc_tree_options o = {.tile_height = m->tile, .keep_leaves = m->keep,
                          .leaf_fn = m->callback ? leaf_cb : NULL,
                          .leaf_ctx = lc};
    return mtc_tree_new(&o);
}

/* Compares store and reference on random queries; returns mismatches. */
static int compare_queries(mtc_tree *t, const mtc_hash *d, uint64_t lo,
                           uint64_t *rng, int queries)
{
    int bad = 0;
    uint64_t n = mtc_tree_size(t);
    mtc_node_source src;
    mtc_tree_source(t, &src);
    mtc_hash p[MTC_PROOF_MAX], r[MTC_PROOF_MAX], h, rh;
    size_t len, rlen;
    for (int q = 0; q < queries && n > lo; q++) {
        uint64_t i = lo + ref_rand(rng) % (n - lo);
        /* leaf */
        bad += mtc_tree_leaf_hash(t, i, &h) != MTC_OK || memcmp(&h, &d[i], 32);
        /* a valid subtree holding i with start >= lo when possible */
        uint64_t e = i + 1 + ref_rand(rng) % (n - i);
        uint64_t s = i;
        for (int k = 0; k < 64; k++) {
            uint64_t cand = i & ~((UINT64_C(1) << k) - 1);
            if (cand < lo || !mtc_subtree_valid(cand, e))
                continue;
            if (ref_rand(rng) % 3 == 0)
                s = cand;
        }
        if (!mtc_subtree_valid(s, e))
            e = s + 1;
        ref_mth(d, s, e, &rh);
        bad += mtc_tree_subtree_hash(t, s, e, &h) != MTC_OK || memcmp(&h, &rh, 32);
        bad += mtc_inclusion_proof(&src, i, s, e, p, &len) != MTC_OK;
        rlen = ref_inclusion(d, i, s, e, r);
        bad += len != rlen || memcmp(p, r, len * 32);
        /* inclusion in the whole tree at a random size > i */
        uint64_t m = i + 1 + ref_rand(rng) % (n - i);
        bad += mtc_inclusion_proof(&src, i, 0, m, p, &len) != MTC_OK;
        rlen = ref_inclusion(d, i, 0, m, r);
        bad += len != rlen || memcmp(p, r, len * 32);
        /* subtree consistency of [s, e) with a size >= e */
        uint64_t nn = e + ref_rand(rng) % (n - e + 1);
        bad += mtc_subtree_consistency_proof(&src, s, e, nn, p, &len) != MTC_OK;
        rlen = ref_subtree_consistency(d, s, e, nn, r);
        bad += len != rlen || memcmp(p, r, len * 32);
        /* RFC consistency from a size past lo */
        uint64_t mm = i + 1;
        bad += mtc_consistency_proof(&src, mm, nn >= mm ? nn : n, p, &len) != MTC_OK;
        rlen = ref_subtree_consistency(d, 0, mm, nn >= mm ? nn : n, r);
        bad += len != rlen || memcmp(p, r, len * 32);
    }
    return bad;
}

TEST(every_size_every_root)
{
    /* After each append, the root of every earlier size matches. */
    const uint64_t N = 300;
    mtc_hash d[300];
    for (uint64_t i = 0; i < N; i++)
        ref_leaf(1, i, &d[i]);
    for (size_t mi = 0; mi < NMODES; mi++) {
        leaf_ctx lc = {d, 0, 0, UINT64_MAX};
        mtc_tree *t = new_store(&modes[mi], &lc);
        ASSERT_TRUE(t != NULL);
        mtc_hash h, r;
        ASSERT_OK(mtc_tree_root(t, 0, &h));
        mtc_hash_empty(&r);
        ASSERT_MEM_EQ(h.b, r.b, 32);
        for (uint64_t n = 1; n <= N; n++) {
            ASSERT_OK(mtc_tree_append(t, &d[n - 1]));
            ASSERT_EQ_U64(mtc_tree_size(t), n);
            for (uint64_t m = 0; m <= n; m += (n > 64 ? 7 : 1)) {
                ASSERT_OK(mtc_tree_root(t, m, &h));
                ref_mth(d, 0, m, &r);
                if (memcmp(h.b, r.b, 32))
                    TEST_FAIL_("mode %s size %llu root %llu", modes[mi].name,
                               (unsigned long long)n, (unsigned long long)m);
            }
        }
        ASSERT_EQ(mtc_tree_root(t, N + 1, &h), MTC_ERR_RANGE);
        ASSERT_EQ(mtc_tree_leaf_hash(t, N, &h), MTC_ERR_RANGE);
        mtc_tree_free(t);
    }
}

TEST(random_queries_all_modes)
{
    uint64_t rng = 77;
    uint64_t N = 10000 + ref_rand(&rng) % 5000;
    mtc_hash *d = malloc(N * sizeof *d);
    for (uint64_t i = 0; i < N; i++)
        ref_leaf(2, i, &d[i]);
    int queries = (int)(100 * test_scale()) + 10;
    for (size_t mi = 0; mi < NMODES; mi++) {
        leaf_ctx lc = {d, 0, 0, UINT64_MAX};
        mtc_tree *t = new_store(&modes[mi], &lc);
        for (uint64_t i = 0; i < N; i++)
            ASSERT_OK(mtc_tree_append(t, &d[i]));
        ASSERT_EQ(compare_queries(t, d, 0, &rng, queries), 0);
        mtc_tree_free(t);
    }
    free(d);
}

TEST(pruning_keeps_later_proofs)
{
    uint64_t rng = 78;
    const uint64_t N = 20000;
    mtc_hash *d = malloc(N * sizeof *d);
    for (uint64_t i = 0; i < N; i++)
        ref_leaf(3, i, &d[i]);
    int queries = (int)(40 * test_scale()) + 5;
    for (size_t mi = 0; mi < NMODES; mi++) {
        leaf_ctx lc = {d, 0, 0, UINT64_MAX};
        mtc_tree *t = new_store(&modes[mi], &lc);
        uint64_t appended = 0, pruned = 0;
        /* Interleave appends and prunes, as a CA does. */
        for (int round = 0; round < 5; round++) {
            uint64_t target = N * (uint64_t)(round + 1) / 5;
            for (; appended < target; appended++)
                ASSERT_OK(mtc_tree_append(t, &d[appended]));
            size_t before = mtc_tree_memory(t);
            pruned += (appended - pruned) / 2 + ref_rand(&rng) % 100;
            ASSERT_OK(mtc_tree_prune(t, pruned));
            uint64_t eff = mtc_tree_pruned_below(t);
            ASSERT_TRUE(eff <= pruned);
            ASSERT_TRUE(pruned - eff < (UINT64_C(1) << modes[mi].tile));
            ASSERT_TRUE(mtc_tree_memory(t) <= before);
            /* The callback must never be asked for a pruned entry. */
            lc.refuse_below = eff;
            ASSERT_EQ(compare_queries(t, d, pruned, &rng, queries), 0);
            /* Pruned entries answer MTC_ERR_PRUNED, not garbage. */
            if (eff >= (UINT64_C(1) << (modes[mi].tile + 1))) {
                mtc_hash h;
                ASSERT_EQ(mtc_tree_leaf_hash(t, 0, &h), MTC_ERR_PRUNED);
                ASSERT_EQ(mtc_tree_subtree_hash(t, 0, 2, &h), MTC_ERR_PRUNED);
                /* [0, eff) may still be answerable from the one left
                 * sibling kept per level; if so, correctly. */
                int rc = mtc_tree_subtree_hash(t, 0, eff, &h);
                ASSERT_TRUE(rc == MTC_ERR_PRUNED || rc == MTC_OK);
                if (rc == MTC_OK) {
                    mtc_hash r;
                    ref_mth(d, 0, eff, &r);
                    ASSERT_MEM_EQ(h.b, r.b, 32);
                }
            }
        }
        /* Pruning backwards is a no-op; beyond the end is an error. */
        ASSERT_OK(mtc_tree_prune(t, 1));
        ASSERT_EQ(mtc_tree_prune(t, N + 1), MTC_ERR_RANGE);
        mtc_tree_free(t);
    }
    free(d);
}

TEST(pruning_frees_memory)
{
    /* A log that keeps a sliding window stays bounded in memory. */
    const uint64_t window = 1 << 16, total = (uint64_t)(1 << 20) * 1;
    mtc_tree_options o = {.tile_height = 0, .keep_leaves = 1};
    mtc_tree *t = mtc_tree_new(&o);
    size_t peak = 0;
    for (uint64_t i = 0; i < total; i++) {
        mtc_hash h;
        ref_leaf(4, i, &h);
        ASSERT_OK(mtc_tree_append(t, &h));
        if (i % 4096 == 0 && i > window)
            ASSERT_OK(mtc_tree_prune(t, i - window));
        if (mtc_tree_memory(t) > peak)
            peak = mtc_tree_memory(t);
    }
    /* Full mode costs 64 B per entry: the window plus chunk slack, not
     * the million entries appended. */
    ASSERT_TRUE(peak < 64 * window * 2 + (1 << 22));
    mtc_tree_free(t);
}

TEST(compact_memory_per_entry)
{
    leaf_ctx lc = {NULL, 0, 0, UINT64_MAX};
    mtc_tree_options o = {.tile_height = 4, .keep_leaves = 0,
                          .leaf_fn = leaf_cb, .leaf_ctx = &lc};
    mtc_tree *t = mtc_tree_new(&o);
    uint64_t n = UINT64_C(1) << 21; /* chunk rounding needs size to amortise */
    for (uint64_t i = 0; i < n; i++) {
        mtc_hash h;
        ref_leaf(5, i, &h);
        ASSERT_OK(mtc_tree_append(t, &h));
    }
    /* 64 / 2^4 = 4 B per entry plus chunk rounding: 300 million entries
     * fit in 2 GiB with room to spare. */
    double per = (double)mtc_tree_memory(t) / (double)n;
    ASSERT_TRUE(per > 3.9 && per < 4.3);
    ASSERT_TRUE(per * 300e6 < 2.0 * 1024 * 1024 * 1024);
    ASSERT_EQ_U64(lc.calls, 0); /* appends never need the callback */
    mtc_tree_free(t);
}

TEST(callback_errors_propagate)
{
    mtc_hash d[64];
    for (int i = 0; i < 64; i++)
        ref_leaf(6, (uint64_t)i, &d[i]);
    leaf_ctx lc = {d, 0, 0, 37};
    mtc_tree_options o = {.tile_height = 3, .keep_leaves = 0,
                          .leaf_fn = leaf_cb, .leaf_ctx = &lc};
    mtc_tree *t = mtc_tree_new(&o);
    for (int i = 0; i < 64; i++)
        ASSERT_OK(mtc_tree_append(t, &d[i]));
    mtc_node_source src;
    mtc_tree_source(t, &src);
    mtc_hash p[MTC_PROOF_MAX], h;
    size_t len;
    ASSERT_EQ(mtc_inclusion_proof(&src, 36, 0, 64, p, &len), MTC_ERR_CALLBACK);
    ASSERT_EQ(mtc_tree_leaf_hash(t, 37, &h), MTC_ERR_CALLBACK);
    /* Entries whose tiles avoid 37 still work, as do full tiles above it. */
    ASSERT_OK(mtc_inclusion_proof(&src, 3, 0, 64, p, &len));
    ASSERT_OK(mtc_tree_root(t, 64, &h));
    mtc_tree_free(t);
}

TEST(invalid_options)
{
    mtc_tree_options o = {.tile_height = 17, .keep_leaves = 1};
    ASSERT_TRUE(mtc_tree_new(&o) == NULL);
    o = (mtc_tree_options){.tile_height = 4, .keep_leaves = 0, .leaf_fn = NULL};
    ASSERT_TRUE(mtc_tree_new(&o) == NULL);
    mtc_tree_free(NULL);
}

static const test_case tests[] = {
    {"every_size_every_root", every_size_every_root},
    {"random_queries_all_modes", random_queries_all_modes},
    {"pruning_keeps_later_proofs", pruning_keeps_later_proofs},
    {"pruning_frees_memory", pruning_frees_memory},
    {"compact_memory_per_entry", compact_memory_per_entry},
    {"callback_errors_propagate", callback_errors_propagate},
    {"invalid_options", invalid_options},
};

TEST_MAIN(tests)
