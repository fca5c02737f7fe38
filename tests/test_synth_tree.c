/*
 * test_synth_tree.c - the store with synthetic unobserved history: its
 * answers equal a naive recursive reference of the same definition, its
 * proofs verify with mtc-core's verifiers and have the lengths of the real
 * store's, a wrong node fails verification, values never change as the
 * tree grows or is pruned, pruning refuses exactly what mtc/tree.h's store
 * refuses, and mtc_tree_memory_at() is mtc_tree_memory() in closed form.
 */
#include <string.h>

#include "lib/merkle_ref.h"
#include "mtc/error.h"
#include "mtc/merkle.h"
#include "mtc/synth_tree.h"
#include "mtc/tree.h"
#include "test.h"

#define NMAX 700

/* A world: leaf hashes d[], which entries are real, and after which
 * entries the tree size is a cut (a "checkpoint"). */
typedef struct world {
    mtc_hash d[NMAX];
    uint8_t real[NMAX];
    uint8_t cut[NMAX];
    uint8_t key[32];
} world;

static int observed(const world *w, uint64_t i) { return w->real[i] || w->cut[i]; }

static void world_init(world *w, uint64_t seed, unsigned real_per_1000)
{
    uint64_t rng = seed;
    for (uint64_t i = 0; i < NMAX; i++) {
        ref_leaf(seed, i, &w->d[i]);
        w->real[i] = ref_rand(&rng) % 1000 < real_per_1000;
        w->cut[i] = ref_rand(&rng) % 17 == 0;
    }
    for (int i = 0; i < 32; i++)
        w->key[i] = (uint8_t)(seed * 31 + (uint64_t)i);
}

/* The header's synthetic node, written out independently. */
static void ref_synth(const world *w, unsigned h, uint64_t k, mtc_hash *out)
{
    uint8_t m[42];
    m[0] = 2;
    memcpy(m + 1, w->key, 32);
    m[33] = (uint8_t)h;
    for (int i = 0; i < 8; i++)
        m[34 + i] = (uint8_t)(k >> (8 * (7 - i)));
    mtc_sha256(m, sizeof m, out);
}

/* Node (h, k) by the definition, recomputed from scratch. */
static void ref_node(const world *w, unsigned h, uint64_t k, mtc_hash *out)
{
    uint64_t s = k << h, e = (k + 1) << h;
    int any = 0;
    for (uint64_t i = s; i < e; i++)
        any |= observed(w, i);
    if (!any || (h == 0 && !w->real[k])) {
        ref_synth(w, h, k, out);
    } else if (h == 0) {
        *out = w->d[k];
    } else {
        mtc_hash a, b;
        ref_node(w, h - 1, 2 * k, &a);
        ref_node(w, h - 1, 2 * k + 1, &b);
        mtc_hash_node(&a, &b, out);
    }
}

/* MTH(D[s:e)) over the node values: split at the largest power of two. */
static void ref_range(const world *w, uint64_t s, uint64_t e, mtc_hash *out)
{
    uint64_t n = e - s;
    if (n == 0) {
        mtc_hash_empty(out);
        return;
    }
    if (!(n & (n - 1)) && s % n == 0) {
        ref_node(w, (unsigned)__builtin_ctzll(n), s / n, out);
        return;
    }
    uint64_t k = 1;
    while (2 * k < n)
        k *= 2;
    mtc_hash a, b;
    ref_range(w, s, s + k, &a);
    ref_range(w, s + k, e, &b);
    mtc_hash_node(&a, &b, out);
}

static mtc_synth_tree *new_synth(const world *w, unsigned tile)
{
    mtc_synth_tree_options o = {.tile_height = tile};
    memcpy(o.key, w->key, 32);
    return mtc_synth_tree_new(&o);
}

static int append_to(mtc_synth_tree *t, const world *w, uint64_t upto)
{
    for (uint64_t i = mtc_synth_tree_size(t); i < upto; i++) {
        int rc = w->real[i] ? mtc_synth_tree_append(t, &w->d[i])
                            : mtc_synth_tree_append_opaque(t, 1);
        if (rc == MTC_OK && w->cut[i])
            rc = mtc_synth_tree_cut(t);
        if (rc != MTC_OK)
            return rc;
    }
    return MTC_OK;
}

/* The smallest size >= x and <= n that may be read (it ends at an
 * observed entry), or n + 1 when none. */
static uint64_t readable(const world *w, uint64_t x, uint64_t n)
{
    while (x <= n && (x == 0 || !observed(w, x - 1)))
        x++;
    return x;
}

/* A random valid subtree [*s, *e) holding index i, with e <= n and e a
 * readable size or the end of a full node; 0 when there is none. */
static int pick_subtree(const world *w, uint64_t *rng, uint64_t i, uint64_t n, uint64_t *s,
                        uint64_t *e)
{
    *e = readable(w, i + 1 + ref_rand(rng) % (n - i), n);
    if (*e > n)
        *e = readable(w, i + 1, n);
    if (*e > n)
        return 0;
    *s = i;
    for (int k = 0; k < 64; k++) {
        uint64_t cand = i & ~((UINT64_C(1) << k) - 1);
        if (mtc_subtree_valid(cand, *e) && ref_rand(rng) % 3 == 0)
            *s = cand;
    }
    if (!mtc_subtree_valid(*s, *e))
        *e = *s + 1;
    return 1;
}

TEST(all_real_is_the_rfc_tree)
{
    /* With every entry real no synthetic node exists: the RFC 9162 tree. */
    world w;
    world_init(&w, 3, 1000);
    mtc_synth_tree *t = new_synth(&w, 4);
    ASSERT_TRUE(t != NULL);
    mtc_node_source src;
    for (uint64_t n = 0; n <= 300; n++) {
        ASSERT_OK(append_to(t, &w, n));
        mtc_synth_tree_source(t, &src);
        mtc_hash h, r;
        ASSERT_OK(mtc_subtree_hash(&src, 0, n, &h));
        ref_mth(w.d, 0, n, &r);
        ASSERT_MEM_EQ(h.b, r.b, 32);
    }
    mtc_synth_tree_free(t);
}

TEST(answers_match_the_definition)
{
    static const unsigned density[] = {0, 3, 20, 150, 600};
    for (size_t di = 0; di < sizeof density / sizeof density[0]; di++) {
        world w;
        world_init(&w, 10 + di, density[di]);
        mtc_synth_tree *t = new_synth(&w, 4);
        ASSERT_TRUE(t != NULL);
        uint64_t rng = 99 + di;
        for (uint64_t n = 1; n <= NMAX; n += 1 + ref_rand(&rng) % 23) {
            ASSERT_OK(append_to(t, &w, n));
            mtc_node_source src;
            mtc_synth_tree_source(t, &src);
            mtc_hash h, r;
            if (observed(&w, n - 1)) {
                ASSERT_OK(mtc_subtree_hash(&src, 0, n, &h));
                ref_range(&w, 0, n, &r);
                ASSERT_MEM_EQ(h.b, r.b, 32);
            } else if (n & (n - 1)) {
                /* the structure at an unobserved end is not for reading */
                ASSERT_EQ(mtc_subtree_hash(&src, 0, n, &h), MTC_ERR_ARG);
            }
            for (int q = 0; q < 20; q++) {
                uint64_t i = ref_rand(&rng) % n, s, e;
                if (!pick_subtree(&w, &rng, i, n, &s, &e))
                    continue;
                ASSERT_OK(mtc_subtree_hash(&src, s, e, &h));
                ref_range(&w, s, e, &r);
                ASSERT_MEM_EQ(h.b, r.b, 32);
                ASSERT_OK(mtc_synth_tree_leaf_hash(t, i, &h));
                ref_node(&w, 0, i, &r);
                ASSERT_MEM_EQ(h.b, r.b, 32);
            }
        }
        /* values never change as the tree grows: every readable root */
        uint64_t n = mtc_synth_tree_size(t);
        mtc_node_source src;
        mtc_synth_tree_source(t, &src);
        for (uint64_t m = 1; m <= n; m++) {
            if (!observed(&w, m - 1))
                continue;
            mtc_hash h, r;
            ASSERT_OK(mtc_subtree_hash(&src, 0, m, &h));
            ref_range(&w, 0, m, &r);
            ASSERT_MEM_EQ(h.b, r.b, 32);
        }
        mtc_synth_tree_free(t);
    }
}

TEST(cut_after_reading_the_edge_is_refused)
{
    world w;
    world_init(&w, 5, 0);
    mtc_synth_tree *t = new_synth(&w, 0);
    ASSERT_TRUE(t != NULL);
    ASSERT_OK(mtc_synth_tree_cut(t)); /* empty: nothing to declare */
    ASSERT_OK(mtc_synth_tree_append_opaque(t, 8));
    mtc_node_source src;
    mtc_synth_tree_source(t, &src);
    mtc_hash h, before, after;
    ASSERT_OK(mtc_subtree_hash(&src, 0, 8, &before)); /* one full node */
    ASSERT_EQ(mtc_synth_tree_cut(t), MTC_ERR_ARG);     /* it would change */
    ASSERT_OK(mtc_synth_tree_append_opaque(t, 4));
    ASSERT_OK(mtc_synth_tree_cut(t));
    ASSERT_OK(mtc_synth_tree_cut(t)); /* already one */
    mtc_synth_tree_source(t, &src);
    ASSERT_OK(mtc_subtree_hash(&src, 0, 12, &h));
    ASSERT_OK(mtc_subtree_hash(&src, 0, 8, &after));
    ASSERT_MEM_EQ(before.b, after.b, 32);
    ASSERT_EQ(mtc_subtree_hash(&src, 0, 10, &h), MTC_ERR_ARG);
    mtc_synth_tree_free(t);
}

static uint64_t path_len(uint64_t i, uint64_t n)
{
    if (n <= 1)
        return 0;
    uint64_t k = 1;
    while (2 * k < n)
        k *= 2;
    return 1 + (i < k ? path_len(i, k) : path_len(i - k, n - k));
}

TEST(proofs_verify_and_have_the_real_lengths)
{
    world w;
    world_init(&w, 42, 40);
    mtc_synth_tree *t = new_synth(&w, 4);
    mtc_tree *real = mtc_tree_new(NULL);
    ASSERT_TRUE(t && real);
    ASSERT_OK(append_to(t, &w, NMAX));
    for (uint64_t i = 0; i < NMAX; i++)
        ASSERT_OK(mtc_tree_append(real, &w.d[i]));
    mtc_node_source src, rsrc;
    mtc_synth_tree_source(t, &src);
    mtc_tree_source(real, &rsrc);
    uint64_t rng = 5;
    int checked = 0;
    for (int q = 0; q < 600; q++) {
        uint64_t i = ref_rand(&rng) % NMAX;
        mtc_hash p[MTC_PROOF_MAX], rp[MTC_PROOF_MAX], root, sub;
        size_t len, rlen;
        uint64_t s, e;
        if (!pick_subtree(&w, &rng, i, NMAX, &s, &e))
            continue;
        /* inclusion in a subtree: real entries verify; lengths always
         * equal the real store's for the same indexes */
        ASSERT_OK(mtc_inclusion_proof(&src, i, s, e, p, &len));
        ASSERT_OK(mtc_inclusion_proof(&rsrc, i, s, e, rp, &rlen));
        ASSERT_EQ(len, rlen);
        ASSERT_OK(mtc_subtree_hash(&src, s, e, &sub));
        if (w.real[i]) {
            ASSERT_OK(mtc_inclusion_verify(i, s, e, &w.d[i], p, len, &sub));
            checked++;
            if (len > 0) {
                /* a wrong node fails */
                p[ref_rand(&rng) % len].b[ref_rand(&rng) % 32] ^= 0x10;
                ASSERT_TRUE(mtc_inclusion_verify(i, s, e, &w.d[i], p, len, &sub) != MTC_OK);
            }
        }
        /* subtree consistency into a later readable size */
        uint64_t n = readable(&w, e + ref_rand(&rng) % (NMAX - e + 1), NMAX);
        if (n > NMAX)
            continue;
        ASSERT_OK(mtc_subtree_hash(&src, 0, n, &root));
        ASSERT_OK(mtc_subtree_consistency_proof(&src, s, e, n, p, &len));
        ASSERT_OK(mtc_subtree_consistency_proof(&rsrc, s, e, n, rp, &rlen));
        ASSERT_EQ(len, rlen);
        ASSERT_OK(mtc_subtree_consistency_verify(s, e, n, &sub, &root, p, len));
        if (len > 0) {
            p[ref_rand(&rng) % len].b[0] ^= 1;
            ASSERT_TRUE(mtc_subtree_consistency_verify(s, e, n, &sub, &root, p, len) != MTC_OK);
        }
        /* RFC 9162 consistency between two readable sizes */
        uint64_t m = readable(&w, 1 + ref_rand(&rng) % n, n);
        mtc_hash old;
        ASSERT_OK(mtc_subtree_hash(&src, 0, m, &old));
        ASSERT_OK(mtc_consistency_proof(&src, m, n, p, &len));
        ASSERT_OK(mtc_consistency_proof(&rsrc, m, n, rp, &rlen));
        ASSERT_EQ(len, rlen);
        ASSERT_OK(mtc_consistency_verify(m, n, &old, &root, p, len));
        old.b[7] ^= 0x80;
        ASSERT_TRUE(mtc_consistency_verify(m, n, &old, &root, p, len) != MTC_OK);
    }
    ASSERT_TRUE(checked > 10);
    mtc_synth_tree_free(t);
    mtc_tree_free(real);
}

/* Leaf callback of a hashed store that refuses entries below a bound. */
typedef struct lctx {
    const mtc_hash *d;
    uint64_t refuse_below;
} lctx;

static int leaf_cb(void *ctx, uint64_t i, mtc_hash *out)
{
    lctx *c = ctx;
    if (i < c->refuse_below)
        return MTC_ERR_PRUNED;
    *out = c->d[i];
    return MTC_OK;
}

TEST(pruning_refuses_what_the_hashed_store_refuses)
{
    static const unsigned tiles[] = {0, 2, 4};
    for (size_t ti = 0; ti < 3; ti++) {
        world w;
        world_init(&w, 70 + ti, 30);
        unsigned H = tiles[ti];
        lctx lc = {w.d, 0};
        mtc_tree_options o = {H, H == 0, leaf_cb, &lc};
        mtc_tree *real = mtc_tree_new(&o);
        mtc_synth_tree *t = new_synth(&w, H);
        mtc_synth_tree *ref = new_synth(&w, H); /* never pruned */
        ASSERT_TRUE(real && t && ref);
        uint64_t rng = 11 + ti, pruned = 0;
        for (uint64_t n = 50; n <= NMAX; n += 50) {
            ASSERT_OK(append_to(t, &w, n));
            ASSERT_OK(append_to(ref, &w, n));
            while (mtc_tree_size(real) < n)
                ASSERT_OK(mtc_tree_append(real, &w.d[mtc_tree_size(real)]));
            pruned += ref_rand(&rng) % (n - pruned + 1) / 2;
            ASSERT_OK(mtc_tree_prune(real, pruned));
            ASSERT_OK(mtc_synth_tree_prune(t, pruned));
            lc.refuse_below = mtc_tree_pruned_below(real);
            ASSERT_EQ_U64(mtc_synth_tree_pruned_below(t), mtc_tree_pruned_below(real));
            mtc_node_source src, rsrc, usrc;
            mtc_synth_tree_source(t, &src);
            mtc_tree_source(real, &rsrc);
            mtc_synth_tree_source(ref, &usrc);
            for (int q = 0; q < 200; q++) {
                uint64_t i = ref_rand(&rng) % n, s, e;
                if (!pick_subtree(&w, &rng, i, n, &s, &e))
                    continue;
                mtc_hash h, rh, uh;
                int a = mtc_subtree_hash(&src, s, e, &h);
                int b = mtc_subtree_hash(&rsrc, s, e, &rh);
                ASSERT_EQ(a, b);
                if (a == MTC_OK) {
                    ASSERT_OK(mtc_subtree_hash(&usrc, s, e, &uh));
                    ASSERT_MEM_EQ(h.b, uh.b, 32); /* pruning changed no value */
                }
                mtc_hash p[MTC_PROOF_MAX];
                size_t len;
                uint64_t m = readable(&w, e + ref_rand(&rng) % (n - e + 1), n);
                if (m > n)
                    continue;
                ASSERT_EQ(mtc_subtree_consistency_proof(&src, s, e, m, p, &len),
                          mtc_subtree_consistency_proof(&rsrc, s, e, m, p, &len));
                ASSERT_EQ(mtc_inclusion_proof(&src, i, 0, m, p, &len),
                          mtc_inclusion_proof(&rsrc, i, 0, m, p, &len));
                ASSERT_EQ(mtc_synth_tree_leaf_hash(t, i, &h), mtc_tree_leaf_hash(real, i, &rh));
            }
        }
        /* observed entries stay: every cut remains checkable */
        ASSERT_EQ(mtc_synth_tree_real_count(t), mtc_synth_tree_real_count(ref));
        mtc_tree_free(real);
        mtc_synth_tree_free(t);
        mtc_synth_tree_free(ref);
    }
}

TEST(opaque_appends_are_counted)
{
    world w;
    world_init(&w, 1, 0);
    mtc_synth_tree *t = new_synth(&w, 4);
    ASSERT_TRUE(t != NULL);
    /* a log years old in one call, then real entries on top */
    ASSERT_OK(mtc_synth_tree_append_opaque(t, UINT64_C(3000000000)));
    ASSERT_OK(mtc_synth_tree_append(t, &w.d[0]));
    ASSERT_OK(mtc_synth_tree_append_opaque(t, 12345));
    ASSERT_OK(mtc_synth_tree_append(t, &w.d[1]));
    uint64_t n = mtc_synth_tree_size(t);
    ASSERT_EQ_U64(n, UINT64_C(3000012347));
    mtc_node_source src;
    mtc_synth_tree_source(t, &src);
    mtc_hash root, p[MTC_PROOF_MAX];
    size_t len;
    ASSERT_OK(mtc_subtree_hash(&src, 0, n, &root));
    ASSERT_OK(mtc_inclusion_proof(&src, UINT64_C(3000000000), 0, n, p, &len));
    ASSERT_EQ(len, path_len(UINT64_C(3000000000), n));
    ASSERT_OK(mtc_inclusion_verify(UINT64_C(3000000000), 0, n, &w.d[0], p, len, &root));
    ASSERT_OK(mtc_consistency_proof(&src, UINT64_C(3000000001), n, p, &len));
    mtc_hash old;
    ASSERT_OK(mtc_subtree_hash(&src, 0, UINT64_C(3000000001), &old));
    ASSERT_OK(mtc_consistency_verify(UINT64_C(3000000001), n, &old, &root, p, len));
    /* pruning the prefix keeps later proofs */
    ASSERT_OK(mtc_synth_tree_prune(t, UINT64_C(3000000000)));
    mtc_synth_tree_source(t, &src);
    mtc_hash again;
    ASSERT_OK(mtc_subtree_hash(&src, 0, n, &again));
    ASSERT_MEM_EQ(again.b, root.b, 32);
    ASSERT_EQ(mtc_synth_tree_append_opaque(t, MTC_TREE_MAX_ENTRIES), MTC_ERR_TREE_FULL);
    ASSERT_EQ_U64(mtc_synth_tree_size(t), n);
    ASSERT_EQ(mtc_synth_tree_prune(t, n + 1), MTC_ERR_RANGE);
    ASSERT_EQ(mtc_synth_tree_leaf_hash(t, n, &again), MTC_ERR_RANGE);
    ASSERT_TRUE(mtc_synth_tree_memory(t) < 64 * 1024);
    /* another key, another history */
    world w2;
    world_init(&w2, 2, 0);
    mtc_synth_tree *u = new_synth(&w2, 4);
    ASSERT_OK(mtc_synth_tree_append_opaque(u, 1000));
    ASSERT_OK(mtc_synth_tree_cut(u));
    mtc_synth_tree *v = new_synth(&w, 4);
    ASSERT_OK(mtc_synth_tree_append_opaque(v, 1000));
    ASSERT_OK(mtc_synth_tree_cut(v));
    mtc_hash hu, hv;
    mtc_synth_tree_source(u, &src);
    ASSERT_OK(mtc_subtree_hash(&src, 0, 1000, &hu));
    mtc_synth_tree_source(v, &src);
    ASSERT_OK(mtc_subtree_hash(&src, 0, 1000, &hv));
    ASSERT_TRUE(memcmp(hu.b, hv.b, 32) != 0);
    mtc_synth_tree_free(t);
    mtc_synth_tree_free(u);
    mtc_synth_tree_free(v);
    mtc_synth_tree_options bad = {.tile_height = 17};
    ASSERT_TRUE(mtc_synth_tree_new(&bad) == NULL);
    ASSERT_TRUE(mtc_synth_tree_new(NULL) == NULL);
}

TEST(memory_at_is_the_stores_accounting)
{
    /* every storage mode, appends and prunes interleaved, past a chunk */
    static const mtc_tree_options modes[] = {
        {0, 1, NULL, NULL}, {2, 1, NULL, NULL}, {4, 0, leaf_cb, NULL}, {3, 0, leaf_cb, NULL}};
    mtc_hash h;
    ref_leaf(9, 0, &h);
    for (size_t mi = 0; mi < 4; mi++) {
        mtc_tree *t = mtc_tree_new(&modes[mi]);
        ASSERT_TRUE(t != NULL);
        uint64_t rng = 17 + mi, n = (uint64_t)(60000 * test_scale());
        for (uint64_t i = 1; i <= n; i++) {
            ASSERT_OK(mtc_tree_append(t, &h));
            if (ref_rand(&rng) % 997 == 0)
                ASSERT_OK(mtc_tree_prune(t, i - ref_rand(&rng) % (i / 3 + 1)));
            if (i % 61 == 0 || i < 300)
                ASSERT_EQ_U64(mtc_tree_memory_at(&modes[mi], i, mtc_tree_pruned_below(t)),
                              mtc_tree_memory(t));
        }
        mtc_tree_free(t);
    }
    mtc_tree_options bad = {4, 0, NULL, NULL};
    ASSERT_EQ(mtc_tree_memory_at(&bad, 10, 0), 0);
    ASSERT_EQ(mtc_tree_memory_at(NULL, 10, 11), 0);
}

static const test_case cases[] = {
    {"all_real_is_the_rfc_tree", all_real_is_the_rfc_tree},
    {"answers_match_the_definition", answers_match_the_definition},
    {"cut_after_reading_the_edge_is_refused", cut_after_reading_the_edge_is_refused},
    {"proofs_verify_and_have_the_real_lengths", proofs_verify_and_have_the_real_lengths},
    {"pruning_refuses_what_the_hashed_store_refuses",
     pruning_refuses_what_the_hashed_store_refuses},
    {"opaque_appends_are_counted", opaque_appends_are_counted},
    {"memory_at_is_the_stores_accounting", memory_at_is_the_stores_accounting},
};

TEST_MAIN(cases)
