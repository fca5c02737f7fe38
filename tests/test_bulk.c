/*
 * test_bulk.c - bulk subtree consistency proofs (mtc/bulk.h): the tiling
 * against a literal transcription of the draft's FRONTIER/TILING, proofs
 * against the naive recursive Merkle reference (landmark-like, nested and
 * overlapping subtree sets), round trips of the encoding, every single-byte
 * mutation and truncation refused, and subsets built from a proof alone.
 */
#include <stdlib.h>
#include <string.h>

#include "lib/merkle_ref.h"
#include "mtc/bulk.h"
#include "mtc/error.h"
#include "mtc/merkle.h"
#include "test.h"

static mtc_hash *make_leaves(uint64_t seed, uint64_t n)
{
    mtc_hash *d = malloc((n ? n : 1) * sizeof *d);
    for (uint64_t i = 0; i < n; i++)
        ref_leaf(seed, i, &d[i]);
    return d;
}

/* The draft's FRONTIER, word for word (doubling loop). */
static size_t draft_frontier(uint64_t s, uint64_t e, mtc_subtree *out, size_t k)
{
    while (s < e) {
        uint64_t size = 1;
        while (s % (size * 2) == 0 && s + size * 2 <= e)
            size *= 2;
        out[k++] = (mtc_subtree){s, s + size};
        s += size;
    }
    return k;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* The draft's TILING: sorted distinct breakpoints, FRONTIER between. */
static size_t draft_tiling(const mtc_subtree *L, size_t nl, uint64_t n,
                           mtc_subtree *out)
{
    uint64_t *pt = malloc((2 * nl + 2) * sizeof *pt);
    size_t np = 0, k = 0;
    pt[np++] = 0;
    pt[np++] = n;
    for (size_t i = 0; i < nl; i++) {
        pt[np++] = L[i].start;
        pt[np++] = L[i].end;
    }
    qsort(pt, np, sizeof *pt, cmp_u64);
    for (size_t i = 1; i < np; i++)
        if (pt[i] != pt[i - 1])
            k = draft_frontier(pt[i - 1], pt[i], out, k);
    free(pt);
    return k;
}

static int cmp_sub(const void *a, const void *b)
{
    const mtc_subtree *x = a, *y = b;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    return (x->end < y->end) - (x->end > y->end); /* descending end */
}

/* Sorts into the draft's order and drops duplicates and empty ones. */
static size_t canon(mtc_subtree *s, size_t k)
{
    qsort(s, k, sizeof *s, cmp_sub);
    size_t o = 0;
    for (size_t i = 0; i < k; i++) {
        if (s[i].start == s[i].end)
            continue;
        if (o && s[o - 1].start == s[i].start && s[o - 1].end == s[i].end)
            continue;
        s[o++] = s[i];
    }
    return o;
}

/* Landmark-like subtrees: consecutive intervals [b_i, b_{i+1}) of a tree
 * of n entries, each covered by the draft's two subtrees. */
static size_t landmark_set(uint64_t *rng, uint64_t n, size_t lms,
                           mtc_subtree *out)
{
    uint64_t *b = malloc((lms + 1) * sizeof *b);
    for (size_t i = 0; i <= lms; i++)
        b[i] = ref_rand(rng) % (n + 1);
    qsort(b, lms + 1, sizeof *b, cmp_u64);
    size_t k = 0;
    for (size_t i = 0; i < lms; i++) {
        mtc_subtree l, r;
        if (mtc_covering_subtrees(b[i], b[i + 1], &l, &r) != MTC_OK)
            continue;
        out[k++] = l;
        out[k++] = r;
    }
    free(b);
    return canon(out, k);
}

/* Random valid subtrees, nested and overlapping ones included. */
static size_t random_set(uint64_t *rng, uint64_t n, size_t want,
                         mtc_subtree *out)
{
    size_t k = 0;
    for (size_t tries = 0; k < want && tries < 50 * want; tries++) {
        uint64_t s = ref_rand(rng) % n, e = s + 1 + ref_rand(rng) % (n - s);
        if (mtc_subtree_valid(s, e))
            out[k++] = (mtc_subtree){s, e};
    }
    return canon(out, k);
}

TEST(tiling_matches_draft)
{
    uint64_t rng = 7;
    mtc_subtree L[64], a[4096], b[4096];
    for (int it = 0; it < 2000; it++) {
        uint64_t n = 1 + ref_rand(&rng) % 5000;
        size_t nl = random_set(&rng, n, 1 + ref_rand(&rng) % 20, L);
        size_t want = draft_tiling(L, nl, n, a), got = 0;
        ASSERT_OK(mtc_bulk_tiling(L, nl, n, b, 4096, &got));
        ASSERT_EQ(got, want);
        ASSERT_MEM_EQ(a, b, want * sizeof *a);
        /* a partition of [0, n) into full subtrees */
        uint64_t at = 0;
        for (size_t i = 0; i < got; i++) {
            uint64_t sz = b[i].end - b[i].start;
            ASSERT_EQ_U64(b[i].start, at);
            ASSERT_TRUE(sz && (sz & (sz - 1)) == 0 && b[i].start % sz == 0);
            at = b[i].end;
        }
        ASSERT_EQ_U64(at, n);
        /* the count alone, and a short buffer */
        size_t c = 0;
        ASSERT_EQ(mtc_bulk_tiling(L, nl, n, NULL, 0, &c), MTC_ERR_LIMIT);
        ASSERT_EQ(c, want);
    }
}

/* Builds, checks every hash against the naive reference, round-trips the
 * encoding and verifies; returns the encoding (caller frees) in *enc. */
static void check_one(test_ctx *tc_, const mtc_hash *d, uint64_t n,
                      const mtc_subtree *L, size_t nl, uint8_t **enc,
                      size_t *enc_len)
{
    mtc_node_source src;
    mtc_array_source(&src, d, n);
    mtc_bulk_proof *p = NULL, *q = NULL;
    ASSERT_OK(mtc_bulk_build(&src, n, L, nl, &p));
    mtc_hash root, h;
    ref_mth(d, 0, n, &root);
    for (size_t i = 0; i < nl; i++) {
        ref_mth(d, L[i].start, L[i].end, &h);
        ASSERT_MEM_EQ(&h, &p->subtrees[i].hash, sizeof h);
    }
    size_t nt = 0;
    ASSERT_EQ(mtc_bulk_tiling(L, nl, n, NULL, 0, &nt), MTC_ERR_LIMIT);
    ASSERT_EQ(p->n_tiles, nt);
    ASSERT_OK(mtc_bulk_verify(p, n, &root));
    size_t len = 0;
    ASSERT_EQ(mtc_bulk_encode(p, NULL, 0, &len), MTC_ERR_LIMIT);
    ASSERT_EQ(len, mtc_bulk_encoded_len(nl, nt));
    uint8_t *b = malloc(len), *b2 = malloc(len);
    ASSERT_OK(mtc_bulk_encode(p, b, len, &len));
    ASSERT_OK(mtc_bulk_decode(b, len, &q));
    ASSERT_OK(mtc_bulk_verify(q, n, &root));
    size_t len2 = 0;
    ASSERT_OK(mtc_bulk_encode(q, b2, len, &len2));
    ASSERT_EQ(len2, len);
    ASSERT_MEM_EQ(b, b2, len);
    /* the wrong root, the wrong size */
    mtc_hash bad = root;
    bad.b[0] ^= 1;
    ASSERT_EQ(mtc_bulk_verify(q, n, &bad), MTC_ERR_PROOF);
    ASSERT_TRUE(mtc_bulk_verify(q, n + 1, &root) != MTC_OK);
    free(b2);
    mtc_bulk_free(p);
    mtc_bulk_free(q);
    *enc = b;
    *enc_len = len;
}

TEST(proofs_against_reference)
{
    uint64_t rng = 11;
    int iters = (int)(300 * test_scale());
    mtc_subtree L[700];
    for (int it = 0; it < iters; it++) {
        uint64_t n = 1 + ref_rand(&rng) % 4000;
        mtc_hash *d = make_leaves((uint64_t)it, n);
        size_t nl = it % 2 ? landmark_set(&rng, n, 1 + ref_rand(&rng) % 200, L)
                           : random_set(&rng, n, 1 + ref_rand(&rng) % 40, L);
        if (nl == 0) {
            free(d);
            continue;
        }
        uint8_t *enc = NULL;
        size_t len = 0;
        check_one(tc_, d, n, L, nl, &enc, &len);
        free(enc);
        free(d);
        if (tc_->failed)
            return;
    }
}

/* The draft's own example of a partition a right-to-left fold gets wrong,
 * and a partial landmark subtree next to full ones. */
TEST(draft_examples)
{
    mtc_hash *d = make_leaves(3, 13);
    mtc_subtree L[] = {{0, 4}, {4, 8}, {8, 13}};
    uint8_t *enc;
    size_t len;
    check_one(tc_, d, 13, L, 3, &enc, &len);
    /* [8,13) is partial: its own tiles are [8,12) and [12,13) */
    ASSERT_EQ(len, mtc_bulk_encoded_len(3, 4));
    free(enc);
    mtc_subtree one[] = {{0, 13}};
    check_one(tc_, d, 13, one, 1, &enc, &len);
    ASSERT_EQ(len, mtc_bulk_encoded_len(1, 3)); /* [0,8) [8,12) [12,13) */
    free(enc);
    free(d);
}

/* Every single-byte change (three values per byte), every truncation and
 * an appended byte: decoding or verification fails. */
TEST(mutations_rejected)
{
    uint64_t rng = 5;
    int done = 0;
    mtc_subtree L[200];
    for (int it = 0; done < 6 && it < 100; it++) {
        uint64_t n = 2 + ref_rand(&rng) % 700;
        mtc_hash *d = make_leaves(100 + (uint64_t)it, n);
        size_t nl = it % 2 ? landmark_set(&rng, n, 1 + ref_rand(&rng) % 12, L)
                           : random_set(&rng, n, 1 + ref_rand(&rng) % 6, L);
        if (!nl) {
            free(d);
            continue;
        }
        mtc_hash root;
        ref_mth(d, 0, n, &root);
        uint8_t *enc;
        size_t len;
        check_one(tc_, d, n, L, nl, &enc, &len);
        if (tc_->failed)
            return;
        static const uint8_t flips[] = {0x01, 0x80, 0xff};
        for (size_t i = 0; i < len; i++)
            for (size_t f = 0; f < 3; f++) {
                enc[i] ^= flips[f];
                mtc_bulk_proof *q = NULL;
                int rc = mtc_bulk_decode(enc, len, &q);
                if (rc == MTC_OK)
                    rc = mtc_bulk_verify(q, n, &root);
                mtc_bulk_free(q);
                enc[i] ^= flips[f];
                if (rc == MTC_OK)
                    TEST_FAIL_("byte %zu ^ %02x of %zu accepted", i, flips[f], len);
            }
        uint8_t *ext = malloc(len + 1);
        memcpy(ext, enc, len);
        ext[len] = 0;
        for (size_t cut = 0; cut <= len + 1; cut++) {
            if (cut == len)
                continue;
            mtc_bulk_proof *q = NULL;
            int rc = mtc_bulk_decode(ext, cut, &q);
            if (rc == MTC_OK)
                rc = mtc_bulk_verify(q, n, &root);
            mtc_bulk_free(q);
            if (rc == MTC_OK)
                TEST_FAIL_("length %zu of %zu accepted", cut, len);
        }
        free(ext);
        free(enc);
        free(d);
        done++;
    }
    ASSERT_EQ(done, 6);
}

/* Structural tampering the draft lists: dropped, reordered and duplicated
 * subtrees; dropped and swapped tiles. */
TEST(tampering_rejected)
{
    mtc_hash *d = make_leaves(9, 1000);
    mtc_subtree L[] = {{0, 512}, {512, 768}, {768, 800}, {800, 803}, {803, 804}};
    mtc_node_source src;
    mtc_array_source(&src, d, 1000);
    mtc_bulk_proof *p;
    ASSERT_OK(mtc_bulk_build(&src, 1000, L, 5, &p));
    mtc_hash root;
    ref_mth(d, 0, 1000, &root);
    ASSERT_OK(mtc_bulk_verify(p, 1000, &root));
    mtc_bulk_proof t = *p, *p4;
    ASSERT_OK(mtc_bulk_build(&src, 1000, L, 4, &p4));
    t = *p4; /* [800,803) dropped: 803 is no breakpoint, the tiling differs */
    t.n_subtrees = 3;
    ASSERT_TRUE(mtc_bulk_verify(&t, 1000, &root) != MTC_OK);
    mtc_bulk_free(p4);
    /* The first dropped: its endpoints 0 and 512 stay breakpoints (0 always,
     * 512 as the next one's start), the tiling is unchanged, and what is
     * left is a valid proof of the smaller set. The draft's security
     * section says removing an entry always fails; it does not, and need
     * not: whether the set is complete is the update's check (the
     * subtrees must be exactly the active landmark subtrees). */
    t = *p;
    t.subtrees = p->subtrees + 1;
    t.n_subtrees = 4;
    ASSERT_OK(mtc_bulk_verify(&t, 1000, &root));
    t = *p;
    t.n_tiles--;
    ASSERT_EQ(mtc_bulk_verify(&t, 1000, &root), MTC_ERR_PROOF_LEN);
    mtc_bulk_subtree s0 = p->subtrees[0];
    p->subtrees[0] = p->subtrees[1];
    p->subtrees[1] = s0;
    ASSERT_EQ(mtc_bulk_verify(p, 1000, &root), MTC_ERR_ARG);
    p->subtrees[1] = p->subtrees[0]; /* duplicate */
    ASSERT_EQ(mtc_bulk_verify(p, 1000, &root), MTC_ERR_ARG);
    p->subtrees[0] = s0;
    p->subtrees[1] = (mtc_bulk_subtree){512, 768, {{0}}};
    ref_mth(d, 512, 768, &p->subtrees[1].hash);
    ASSERT_OK(mtc_bulk_verify(p, 1000, &root));
    mtc_hash tt = p->tiles[0];
    p->tiles[0] = p->tiles[1];
    p->tiles[1] = tt;
    ASSERT_EQ(mtc_bulk_verify(p, 1000, &root), MTC_ERR_PROOF);
    mtc_bulk_free(p);
    /* what the builder refuses */
    mtc_subtree bad[] = {{4, 8}, {0, 4}};
    ASSERT_EQ(mtc_bulk_build(&src, 1000, bad, 2, &p), MTC_ERR_ARG);
    mtc_subtree empty[] = {{4, 4}};
    ASSERT_EQ(mtc_bulk_build(&src, 1000, empty, 1, &p), MTC_ERR_SUBTREE);
    mtc_subtree unaligned[] = {{3, 5}};
    ASSERT_EQ(mtc_bulk_build(&src, 1000, unaligned, 1, &p), MTC_ERR_SUBTREE);
    mtc_subtree beyond[] = {{512, 1024}};
    ASSERT_EQ(mtc_bulk_build(&src, 1000, beyond, 1, &p), MTC_ERR_RANGE);
    ASSERT_EQ(mtc_bulk_build(&src, 1000, L, 0, &p), MTC_ERR_ARG);
    free(d);
}

/* A verified proof answers for any subset of its subtrees: the subset's
 * proof built from the proof alone equals the one built from the tree. */
TEST(subsets_from_proof)
{
    uint64_t rng = 21;
    mtc_subtree L[400], S[400];
    for (int it = 0; it < 60; it++) {
        uint64_t n = 1 + ref_rand(&rng) % 3000;
        mtc_hash *d = make_leaves(500 + (uint64_t)it, n);
        size_t nl = landmark_set(&rng, n, 1 + ref_rand(&rng) % 100, L);
        if (!nl) {
            free(d);
            continue;
        }
        mtc_node_source src, psrc;
        mtc_array_source(&src, d, n);
        mtc_bulk_proof *p, *a, *b;
        ASSERT_OK(mtc_bulk_build(&src, n, L, nl, &p));
        size_t ns = 0;
        for (size_t i = 0; i < nl; i++)
            if (ref_rand(&rng) % 3)
                S[ns++] = L[i];
        if (!ns)
            S[ns++] = L[nl - 1];
        mtc_bulk_source_state st;
        ASSERT_OK(mtc_bulk_source(p, &st, &psrc));
        ASSERT_OK(mtc_bulk_build(&src, n, S, ns, &a));
        ASSERT_OK(mtc_bulk_build(&psrc, n, S, ns, &b));
        ASSERT_EQ(a->n_tiles, b->n_tiles);
        ASSERT_MEM_EQ(a->tiles, b->tiles, a->n_tiles * sizeof *a->tiles);
        ASSERT_MEM_EQ(a->subtrees, b->subtrees, ns * sizeof *a->subtrees);
        ASSERT_TRUE(b->n_tiles <= p->n_tiles);
        mtc_bulk_source_free(&st);
        mtc_bulk_free(a);
        mtc_bulk_free(b);
        mtc_bulk_free(p);
        free(d);
    }
}

/* The wire limits and adversarial nested sets stay bounded. */
TEST(limits)
{
    uint64_t n = 1400;
    mtc_hash *d = make_leaves(77, n);
    mtc_node_source src;
    mtc_array_source(&src, d, n);
    /* [0,1), [0,2), ... all start at 0: descending end order */
    mtc_subtree *L = malloc(MTC_BULK_MAX_SUBTREES * sizeof *L);
    for (size_t i = 0; i < MTC_BULK_MAX_SUBTREES; i++)
        L[i] = (mtc_subtree){0, MTC_BULK_MAX_SUBTREES - i};
    mtc_bulk_proof *p;
    ASSERT_OK(mtc_bulk_build(&src, n, L, MTC_BULK_MAX_SUBTREES, &p));
    mtc_hash root;
    ref_mth(d, 0, n, &root);
    ASSERT_OK(mtc_bulk_verify(p, n, &root));
    size_t len;
    uint8_t *b = malloc(mtc_bulk_encoded_len(p->n_subtrees, p->n_tiles));
    ASSERT_OK(mtc_bulk_encode(p, b, mtc_bulk_encoded_len(p->n_subtrees, p->n_tiles), &len));
    ASSERT_TRUE(len <= 12 + 65535 * 2);
    free(b);
    mtc_bulk_free(p);
    mtc_subtree *L2 = malloc((MTC_BULK_MAX_SUBTREES + 1) * sizeof *L2);
    for (size_t i = 0; i <= MTC_BULK_MAX_SUBTREES; i++)
        L2[i] = (mtc_subtree){0, MTC_BULK_MAX_SUBTREES + 1 - i};
    ASSERT_EQ(mtc_bulk_build(&src, n, L2, MTC_BULK_MAX_SUBTREES + 1, &p),
              MTC_ERR_LIMIT);
    free(L2);
    free(L);
    free(d);
}

static const test_case tests[] = {
    {"tiling_matches_draft", tiling_matches_draft},
    {"proofs_against_reference", proofs_against_reference},
    {"draft_examples", draft_examples},
    {"mutations_rejected", mutations_rejected},
    {"tampering_rejected", tampering_rejected},
    {"subsets_from_proof", subsets_from_proof},
    {"limits", limits},
};

TEST_MAIN(tests)
