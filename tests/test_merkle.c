/*
 * test_merkle.c - the Merkle layer against the draft's vectors, a naive
 * recursive reference, and every mutation of every proof.
 */
#include <string.h>

#include "lib/merkle_ref.h"
#include "mtc/error.h"
#include "mtc/merkle.h"
#include "mtc/tree.h"
#include "mtc/vectors.h"
#include "test.h"

/* ---- helpers ----------------------------------------------------------- */

static mtc_hash *make_leaves(uint64_t seed, uint64_t n)
{
    mtc_hash *d = malloc((n ? n : 1) * sizeof *d);
    for (uint64_t i = 0; i < n; i++)
        ref_leaf(seed, i, &d[i]);
    return d;
}

/* A full store over d[0..n): O(log n) node reads for the random tests. */
static mtc_tree *make_store(const mtc_hash *d, uint64_t n)
{
    mtc_tree *t = mtc_tree_new(NULL);
    for (uint64_t i = 0; t && i < n; i++)
        if (mtc_tree_append(t, &d[i]) != MTC_OK) {
            mtc_tree_free(t);
            return NULL;
        }
    return t;
}

static int proofs_equal(const mtc_hash *a, size_t alen, const mtc_hash *b,
                        size_t blen)
{
    return alen == blen && memcmp(a, b, alen * sizeof *a) == 0;
}

/* Random valid subtree [start, end) within [0, n), non-empty when n > 0. */
static void random_subtree(uint64_t *rng, uint64_t n, uint64_t *start,
                           uint64_t *end)
{
    for (;;) {
        uint64_t e = 1 + ref_rand(rng) % n;
        /* pick a size, then align start down */
        uint64_t size = 1 + ref_rand(rng) % e;
        uint64_t ceil = 1;
        while (ceil < size)
            ceil *= 2;
        uint64_t s = (e - size) & ~(ceil - 1);
        if (mtc_subtree_valid(s, e) && s < e) {
            *start = s;
            *end = e;
            return;
        }
    }
}

/* ---- vectors and primitives ------------------------------------------ */

TEST(draft_accumulated_vectors)
{
    static const char *expected[MTC_VECTOR_COUNT] = {
        "b82806ad4265bb151c1119c0f4db437bb4d1a1f887b3a7fba1cd4ebf552e3e81",
        "ac2a8f989e44d99e399db448050ff5f19757df53cfb716aa81015d3955d8163f",
        "10fa99b37bf9bf9ffa26b412fbd98bd75363256d0b75d61bc4538b9c9c5a0a74",
        "7fd9c8b926e9d2b5cf831560e8ce295a5ef97ad5c5ede4ea0dea28a8c8fc8bb0",
    };
    mtc_hash v[MTC_VECTOR_COUNT];
    ASSERT_OK(mtc_subtree_vectors(v));
    for (int i = 0; i < MTC_VECTOR_COUNT; i++) {
        char hex[65];
        mtc_hash_to_hex(&v[i], hex);
        ASSERT_STR_EQ(hex, expected[i]);
    }
}

TEST(hash_primitives)
{
    mtc_hash e;
    char hex[65];
    mtc_hash_empty(&e);
    mtc_hash_to_hex(&e, hex);
    ASSERT_STR_EQ(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    /* RFC 6962 test data: leaf hash of the empty entry. */
    mtc_hash_leaf("", 0, &e);
    mtc_hash_to_hex(&e, hex);
    ASSERT_STR_EQ(hex, "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d");
    uint64_t rng = 1;
    for (int i = 0; i < 1000; i++) {
        mtc_hash l, r, fast, slow;
        for (int k = 0; k < 32; k++) {
            l.b[k] = (uint8_t)ref_rand(&rng);
            r.b[k] = (uint8_t)ref_rand(&rng);
        }
        uint8_t buf[65] = {1};
        memcpy(buf + 1, l.b, 32);
        memcpy(buf + 33, r.b, 32);
        mtc_sha256(buf, sizeof buf, &slow);
        mtc_hash_node(&l, &r, &fast);
        ASSERT_MEM_EQ(fast.b, slow.b, 32);
        mtc_hash_node(&l, &r, &l); /* aliasing allowed */
        ASSERT_MEM_EQ(l.b, slow.b, 32);
    }
    mtc_hash p;
    ASSERT_OK(mtc_hash_from_hex(hex, 64, &p));
    ASSERT_MEM_EQ(p.b, e.b, 32);
    ASSERT_EQ(mtc_hash_from_hex(hex, 63, &p), MTC_ERR_PARSE);
    hex[10] = 'g';
    ASSERT_EQ(mtc_hash_from_hex(hex, 64, &p), MTC_ERR_PARSE);
}

/* BIT_CEIL in 128 bits, as the definition reads without overflow. */
static int valid_ref(uint64_t start, uint64_t end)
{
    if (start > end)
        return 0;
    unsigned __int128 size = end - start, ceil = 1;
    while (ceil < size)
        ceil *= 2;
    return ((unsigned __int128)start % ceil) == 0;
}

TEST(subtree_validity)
{
    const uint64_t top = UINT64_C(1) << 63;
    ASSERT_TRUE(mtc_subtree_valid(0, 0));
    ASSERT_TRUE(mtc_subtree_valid(5, 5));
    ASSERT_TRUE(mtc_subtree_valid(7, 8));
    ASSERT_FALSE(mtc_subtree_valid(8, 7));
    ASSERT_TRUE(mtc_subtree_valid(4, 8));
    ASSERT_TRUE(mtc_subtree_valid(8, 13));
    ASSERT_FALSE(mtc_subtree_valid(1, 5));
    ASSERT_FALSE(mtc_subtree_valid(4, 9));
    ASSERT_TRUE(mtc_subtree_valid(0, top + 1)); /* the draft's example */
    ASSERT_FALSE(mtc_subtree_valid(1, top + 2));
    ASSERT_TRUE(mtc_subtree_valid(0, UINT64_MAX));
    ASSERT_TRUE(mtc_subtree_valid(top, UINT64_MAX));
    ASSERT_TRUE(mtc_subtree_valid(UINT64_MAX, UINT64_MAX));
    ASSERT_TRUE(mtc_subtree_valid(UINT64_MAX - 1, UINT64_MAX));
    ASSERT_FALSE(mtc_subtree_valid(top - 1, UINT64_MAX));
    uint64_t rng = 7;
    for (int i = 0; i < 200000; i++) {
        uint64_t a = ref_rand(&rng), b = ref_rand(&rng);
        /* Bias towards aligned values and small sizes. */
        int shift = (int)(ref_rand(&rng) % 64);
        if (i % 3 == 0)
            a &= ~((UINT64_C(1) << shift) - 1);
        if (i % 2 == 0)
            b = a + (b >> (ref_rand(&rng) % 64));
        if (b < a && i % 5)
            b = a;
        ASSERT_EQ(mtc_subtree_valid(a, b), valid_ref(a, b));
    }
}

/* ---- exhaustive against the reference -------------------------------- */

TEST(exhaustive_small_trees)
{
    const uint64_t N = 70;
    mtc_hash *d = make_leaves(11, N);
    mtc_node_source src;
    mtc_array_source(&src, d, N);
    mtc_hash proof[MTC_PROOF_MAX], ref[MTC_PROOF_MAX], h, r;
    size_t len, rlen;
    for (uint64_t end = 0; end <= N; end++)
        for (uint64_t start = 0; start <= end; start++) {
            if (!mtc_subtree_valid(start, end)) {
                ASSERT_EQ(mtc_subtree_hash(&src, start, end, &h), MTC_ERR_SUBTREE);
                continue;
            }
            ASSERT_OK(mtc_subtree_hash(&src, start, end, &h));
            ref_mth(d, start, end, &r);
            ASSERT_MEM_EQ(h.b, r.b, 32);
            for (uint64_t i = start; i < end; i++) {
                ASSERT_OK(mtc_inclusion_proof(&src, i, start, end, proof, &len));
                rlen = ref_inclusion(d, i, start, end, ref);
                ASSERT_TRUE(proofs_equal(proof, len, ref, rlen));
                ASSERT_OK(mtc_inclusion_verify(i, start, end, &d[i], proof, len, &h));
            }
            for (uint64_t n = end; n <= N; n++) {
                mtc_hash root;
                ref_mth(d, 0, n, &root);
                ASSERT_OK(mtc_subtree_consistency_proof(&src, start, end, n, proof, &len));
                rlen = ref_subtree_consistency(d, start, end, n, ref);
                ASSERT_TRUE(proofs_equal(proof, len, ref, rlen));
                ASSERT_OK(mtc_subtree_consistency_verify(start, end, n, &h, &root,
                                                         proof, len));
                if (start == 0 && end > 0) {
                    /* RFC 9162 PROOF(m, D_n) and its own verifier. */
                    ASSERT_OK(mtc_consistency_proof(&src, end, n, ref, &rlen));
                    ASSERT_TRUE(proofs_equal(proof, len, ref, rlen));
                    ASSERT_OK(mtc_consistency_verify(end, n, &h, &root, proof, len));
                }
            }
        }
    free(d);
}

/*
 * Where mutation checks get the true hashes and canonical proofs of the
 * *altered* statements: the recursive reference for small trees; for trees
 * of 100,000 entries the store (whose answers for the original statements
 * were just checked against the reference), because the reference costs
 * O(n) hashes per node.
 */
typedef struct oracle {
    const mtc_hash *d;
    const mtc_node_source *src; /* NULL: use the reference */
} oracle;

static void o_mth(const oracle *o, uint64_t s, uint64_t e, mtc_hash *out)
{
    if (!o->src || mtc_subtree_hash(o->src, s, e, out) != MTC_OK)
        ref_mth(o->d, s, e, out);
}

static size_t o_incl(const oracle *o, uint64_t i, uint64_t s, uint64_t e,
                     mtc_hash *proof)
{
    size_t len;
    if (o->src && mtc_inclusion_proof(o->src, i, s, e, proof, &len) == MTC_OK)
        return len;
    return ref_inclusion(o->d, i, s, e, proof);
}

static size_t o_cons(const oracle *o, uint64_t s, uint64_t e, uint64_t n,
                     mtc_hash *proof)
{
    size_t len;
    if (o->src &&
        mtc_subtree_consistency_proof(o->src, s, e, n, proof, &len) == MTC_OK)
        return len;
    return ref_subtree_consistency(o->d, s, e, n, proof);
}

/* ---- mutations --------------------------------------------------------- */

/* Each proof hash gets three bit classes flipped: the first bit, the last
 * bit, and one pseudo-random bit in between. */
static const int n_bit_classes = 3;
static void flip_class(mtc_hash *h, int cls, uint64_t *rng)
{
    if (cls == 0)
        h->b[0] ^= 0x80;
    else if (cls == 1)
        h->b[31] ^= 0x01;
    else {
        uint64_t bit = 8 + ref_rand(rng) % (256 - 16);
        h->b[bit / 8] ^= (uint8_t)(1u << (bit % 8));
    }
}

/* Every mutation of an inclusion proof must fail; returns the number of
 * mutations that wrongly verified. */
static int inclusion_mutants_accepted(const oracle *o, uint64_t n,
                                      uint64_t index, uint64_t start,
                                      uint64_t end, const mtc_hash *proof,
                                      size_t len, uint64_t *rng)
{
    int bad = 0;
    mtc_hash sub, m[MTC_PROOF_MAX + 1], junk;
    o_mth(o, start, end, &sub);
    ref_leaf(999, ref_rand(rng), &junk);
    /* hash bits */
    for (size_t i = 0; i < len; i++)
        for (int c = 0; c < n_bit_classes; c++) {
            memcpy(m, proof, len * sizeof *m);
            flip_class(&m[i], c, rng);
            bad += mtc_inclusion_verify(index, start, end, &o->d[index], m, len, &sub) == MTC_OK;
        }
    /* truncation and extension at both ends */
    if (len > 0) {
        bad += mtc_inclusion_verify(index, start, end, &o->d[index], proof, len - 1, &sub) == MTC_OK;
        bad += mtc_inclusion_verify(index, start, end, &o->d[index], proof + 1, len - 1, &sub) == MTC_OK;
    }
    if (len < MTC_PROOF_MAX) {
        memcpy(m, proof, len * sizeof *m);
        m[len] = junk;
        bad += mtc_inclusion_verify(index, start, end, &o->d[index], m, len + 1, &sub) == MTC_OK;
        m[0] = junk;
        memcpy(m + 1, proof, len * sizeof *m);
        bad += mtc_inclusion_verify(index, start, end, &o->d[index], m, len + 1, &sub) == MTC_OK;
    }
    /* wrong entry and wrong subtree hash */
    for (int c = 0; c < n_bit_classes; c++) {
        mtc_hash e = o->d[index], s = sub;
        flip_class(&e, c, rng);
        flip_class(&s, c, rng);
        bad += mtc_inclusion_verify(index, start, end, &e, proof, len, &sub) == MTC_OK;
        bad += mtc_inclusion_verify(index, start, end, &o->d[index], proof, len, &s) == MTC_OK;
    }
    /* wrong index: with the claimed entry, and with the real entry there */
    for (int delta = -2; delta <= 2; delta++) {
        uint64_t j = index + (uint64_t)(int64_t)delta;
        if (delta == 0 || j < start || j >= end)
            continue;
        bad += mtc_inclusion_verify(j, start, end, &o->d[index], proof, len, &sub) == MTC_OK;
        bad += mtc_inclusion_verify(j, start, end, &o->d[j], proof, len, &sub) == MTC_OK;
    }
    /* wrong start or end: other valid subtrees holding the entry, each with
     * its own correct hash */
    uint64_t alts[][2] = {{start, end + 1}, {start, end - 1}, {start, end + 2},
                          {index, index + 1}, {start & (start - 1), end},
                          {0, end}, {start, n}};
    for (size_t a = 0; a < sizeof alts / sizeof alts[0]; a++) {
        uint64_t s = alts[a][0], e = alts[a][1];
        if ((s == start && e == end) || !mtc_subtree_valid(s, e) || e > n ||
            index < s || index >= e)
            continue;
        mtc_hash other, alt[MTC_PROOF_MAX];
        o_mth(o, s, e, &other);
        size_t alen = o_incl(o, index, s, e, alt);
        bad += (mtc_inclusion_verify(index, s, e, &o->d[index], proof, len, &other) == MTC_OK) !=
               proofs_equal(proof, len, alt, alen);
    }
    return bad;
}

static int consistency_mutants_accepted(const oracle *o, uint64_t N,
                                        uint64_t start, uint64_t end,
                                        uint64_t n, const mtc_hash *proof,
                                        size_t len, uint64_t *rng)
{
    int bad = 0;
    mtc_hash node, root, m[MTC_PROOF_MAX + 1], junk;
    o_mth(o, start, end, &node);
    o_mth(o, 0, n, &root);
    ref_leaf(998, ref_rand(rng), &junk);
#define CV(s, e, nn, nh, rh, p, l) \
    (mtc_subtree_consistency_verify(s, e, nn, nh, rh, p, l) == MTC_OK)
    for (size_t i = 0; i < len; i++)
        for (int c = 0; c < n_bit_classes; c++) {
            memcpy(m, proof, len * sizeof *m);
            flip_class(&m[i], c, rng);
            bad += CV(start, end, n, &node, &root, m, len);
        }
    if (len > 0) {
        bad += CV(start, end, n, &node, &root, proof, len - 1);
        bad += CV(start, end, n, &node, &root, proof + 1, len - 1);
    }
    if (len < MTC_PROOF_MAX) {
        memcpy(m, proof, len * sizeof *m);
        m[len] = junk;
        bad += CV(start, end, n, &node, &root, m, len + 1);
        m[0] = junk;
        memcpy(m + 1, proof, len * sizeof *m);
        bad += CV(start, end, n, &node, &root, m, len + 1);
    }
    for (int c = 0; c < n_bit_classes; c++) {
        mtc_hash a = node, b = root;
        flip_class(&a, c, rng);
        flip_class(&b, c, rng);
        bad += CV(start, end, n, &a, &root, proof, len);
        bad += CV(start, end, n, &node, &b, proof, len);
    }
    /* wrong tree size, with that size's real root */
    for (int delta = -2; delta <= 2; delta++) {
        uint64_t nn = n + (uint64_t)(int64_t)delta;
        if (delta == 0 || nn < end || nn > N)
            continue;
        mtc_hash r2, alt[MTC_PROOF_MAX];
        o_mth(o, 0, nn, &r2);
        size_t alen = o_cons(o, start, end, nn, alt);
        bad += CV(start, end, nn, &node, &r2, proof, len) !=
               proofs_equal(proof, len, alt, alen);
    }
    /* wrong start or end, with that subtree's real hash */
    uint64_t alts[][2] = {{start, end + 1}, {start, end - 1}, {start + 1, end},
                          {start & (start - 1), end}, {0, end}, {end - 1, end}};
    for (size_t a = 0; a < sizeof alts / sizeof alts[0]; a++) {
        uint64_t s = alts[a][0], e = alts[a][1];
        if ((s == start && e == end) || !mtc_subtree_valid(s, e) || e > n ||
            s == e)
            continue;
        mtc_hash other;
        o_mth(o, s, e, &other);
        /* A proof can be the canonical proof of two true statements at
         * once ([4,7) and [0,7) in a tree of 8 share theirs): the verifier
         * must accept exactly when it is the canonical one. */
        mtc_hash alt[MTC_PROOF_MAX];
        size_t alen = o_cons(o, s, e, n, alt);
        bad += CV(s, e, n, &other, &root, proof, len) !=
               proofs_equal(proof, len, alt, alen);
    }
#undef CV
    return bad;
}

static int rfc_mutants_accepted(const oracle *o, uint64_t N, uint64_t m_,
                                uint64_t n, const mtc_hash *proof, size_t len,
                                uint64_t *rng)
{
    int bad = 0;
    mtc_hash old, root, m[MTC_PROOF_MAX + 1], junk;
    o_mth(o, 0, m_, &old);
    o_mth(o, 0, n, &root);
    ref_leaf(997, ref_rand(rng), &junk);
    for (size_t i = 0; i < len; i++)
        for (int c = 0; c < n_bit_classes; c++) {
            memcpy(m, proof, len * sizeof *m);
            flip_class(&m[i], c, rng);
            bad += mtc_consistency_verify(m_, n, &old, &root, m, len) == MTC_OK;
        }
    if (len > 0) {
        bad += mtc_consistency_verify(m_, n, &old, &root, proof, len - 1) == MTC_OK;
        bad += mtc_consistency_verify(m_, n, &old, &root, proof + 1, len - 1) == MTC_OK;
    }
    memcpy(m, proof, len * sizeof *m);
    m[len] = junk;
    bad += mtc_consistency_verify(m_, n, &old, &root, m, len + 1) == MTC_OK;
    for (int delta = -2; delta <= 2; delta++) {
        uint64_t mm = m_ + (uint64_t)(int64_t)delta, nn = n + (uint64_t)(int64_t)delta;
        mtc_hash h2;
        if (delta && mm >= 1 && mm <= n) {
            o_mth(o, 0, mm, &h2);
            bad += mtc_consistency_verify(mm, n, &h2, &root, proof, len) == MTC_OK;
        }
        if (delta && nn >= m_ && nn <= N) {
            o_mth(o, 0, nn, &h2);
            bad += mtc_consistency_verify(m_, nn, &old, &h2, proof, len) == MTC_OK;
        }
    }
    return bad;
}

TEST(mutations_small_trees)
{
    /* Every proof of every tree up to 40 entries, every mutation. */
    const uint64_t N = 40;
    mtc_hash *d = make_leaves(12, N);
    mtc_node_source src;
    mtc_array_source(&src, d, N);
    mtc_hash proof[MTC_PROOF_MAX];
    size_t len;
    uint64_t rng = 99;
    oracle o = {d, NULL};
    for (uint64_t end = 1; end <= N; end++)
        for (uint64_t start = 0; start < end; start++) {
            if (!mtc_subtree_valid(start, end))
                continue;
            for (uint64_t i = start; i < end; i++) {
                ASSERT_OK(mtc_inclusion_proof(&src, i, start, end, proof, &len));
                ASSERT_EQ(inclusion_mutants_accepted(&o, N, i, start, end, proof,
                                                     len, &rng), 0);
            }
            for (uint64_t n = end; n <= N; n++) {
                ASSERT_OK(mtc_subtree_consistency_proof(&src, start, end, n, proof, &len));
                ASSERT_EQ(consistency_mutants_accepted(&o, N, start, end, n, proof,
                                                       len, &rng), 0);
                if (start == 0) {
                    ASSERT_OK(mtc_consistency_proof(&src, end, n, proof, &len));
                    ASSERT_EQ(rfc_mutants_accepted(&o, N, end, n, proof, len, &rng), 0);
                }
            }
        }
    free(d);
}

TEST(random_trees_up_to_100k)
{
    uint64_t rng = 2026;
    int trees = 4, queries = (int)(40 * test_scale()) + 5;
    for (int tr = 0; tr < trees; tr++) {
        uint64_t N = tr == 0 ? 100000 : 1 + ref_rand(&rng) % 100000;
        mtc_hash *d = make_leaves(100 + (uint64_t)tr, N);
        mtc_tree *t = make_store(d, N);
        ASSERT_TRUE(t != NULL);
        mtc_node_source src;
        mtc_tree_source(t, &src);
        oracle o = {d, &src};
        mtc_hash proof[MTC_PROOF_MAX], ref[MTC_PROOF_MAX], h;
        size_t len, rlen;
        for (int q = 0; q < queries; q++) {
            uint64_t s, e;
            random_subtree(&rng, N, &s, &e);
            uint64_t i = s + ref_rand(&rng) % (e - s);
            ASSERT_OK(mtc_inclusion_proof(&src, i, s, e, proof, &len));
            rlen = ref_inclusion(d, i, s, e, ref);
            ASSERT_TRUE(proofs_equal(proof, len, ref, rlen));
            ASSERT_OK(mtc_subtree_hash(&src, s, e, &h));
            ASSERT_OK(mtc_inclusion_verify(i, s, e, &d[i], proof, len, &h));
            ASSERT_EQ(inclusion_mutants_accepted(&o, N, i, s, e, proof, len, &rng), 0);

            uint64_t n = e + ref_rand(&rng) % (N - e + 1);
            mtc_hash root;
            ASSERT_OK(mtc_subtree_hash(&src, 0, n, &root));
            ASSERT_OK(mtc_subtree_consistency_proof(&src, s, e, n, proof, &len));
            rlen = ref_subtree_consistency(d, s, e, n, ref);
            ASSERT_TRUE(proofs_equal(proof, len, ref, rlen));
            ASSERT_OK(mtc_subtree_consistency_verify(s, e, n, &h, &root, proof, len));
            ASSERT_EQ(consistency_mutants_accepted(&o, N, s, e, n, proof, len, &rng), 0);

            uint64_t m = 1 + ref_rand(&rng) % n;
            mtc_hash old;
            ASSERT_OK(mtc_subtree_hash(&src, 0, m, &old));
            ASSERT_OK(mtc_consistency_proof(&src, m, n, proof, &len));
            ASSERT_OK(mtc_consistency_verify(m, n, &old, &root, proof, len));
            ASSERT_EQ(rfc_mutants_accepted(&o, N, m, n, proof, len, &rng), 0);
        }
        mtc_tree_free(t);
        free(d);
    }
}

/* ---- huge trees -------------------------------------------------------- */

/*
 * A tree of up to 2^64 - 1 leaves in which every leaf is `u` except leaf k,
 * which is `x`: any node's hash is computable in O(64), so proofs over
 * trees of 2^48 and more can be generated and checked for real.
 */
typedef struct sparse_tree {
    mtc_hash full_u[64]; /* hash of a full all-u node of height h */
    mtc_hash full_x[64]; /* hash of the full node of height h holding k */
    uint64_t k;
} sparse_tree;

static void sparse_init(sparse_tree *s, uint64_t k)
{
    s->k = k;
    ref_leaf(5, 0, &s->full_u[0]);
    ref_leaf(5, 1, &s->full_x[0]);
    for (int h = 1; h < 64; h++) {
        mtc_hash_node(&s->full_u[h - 1], &s->full_u[h - 1], &s->full_u[h]);
        if ((k >> (h - 1)) & 1)
            mtc_hash_node(&s->full_u[h - 1], &s->full_x[h - 1], &s->full_x[h]);
        else
            mtc_hash_node(&s->full_x[h - 1], &s->full_u[h - 1], &s->full_x[h]);
    }
}

static int sparse_range(void *ctx, uint64_t start, uint64_t end, mtc_hash *out)
{
    const sparse_tree *s = ctx;
    mtc_hash parts[64];
    int np = 0;
    uint64_t pos = start, rem = end - start;
    while (rem) {
        int h = 63 - __builtin_clzll(rem);
        uint64_t w = UINT64_C(1) << h;
        parts[np++] = (s->k >= pos && s->k - pos < w) ? s->full_x[h] : s->full_u[h];
        pos += w;
        rem -= w;
    }
    mtc_hash acc = parts[np - 1];
    for (int i = np - 2; i >= 0; i--)
        mtc_hash_node(&parts[i], &acc, &acc);
    *out = acc;
    return MTC_OK;
}

TEST(huge_trees_64bit)
{
    const uint64_t sizes[] = {MTC_TREE_MAX_ENTRIES, (UINT64_C(1) << 48) + 12345,
                              (UINT64_C(1) << 63) + 1, UINT64_MAX - 1};
    uint64_t rng = 4;
    for (size_t z = 0; z < sizeof sizes / sizeof sizes[0]; z++) {
        uint64_t N = sizes[z];
        sparse_tree st;
        sparse_init(&st, N - 1 - ref_rand(&rng) % 1000);
        mtc_node_source src = {sparse_range, &st, N};
        mtc_hash proof[MTC_PROOF_MAX], h, root, x = st.full_x[0];
        size_t len;
        ASSERT_OK(mtc_subtree_hash(&src, 0, N, &root));
        /* inclusion of k in the whole tree and in its covering subtrees */
        ASSERT_OK(mtc_inclusion_proof(&src, st.k, 0, N, proof, &len));
        ASSERT_OK(mtc_inclusion_verify(st.k, 0, N, &x, proof, len, &root));
        ASSERT_TRUE(mtc_inclusion_verify(st.k - 1, 0, N, &x, proof, len, &root) != MTC_OK);
        ASSERT_TRUE(mtc_inclusion_verify(st.k, 0, N, &st.full_u[0], proof, len, &root) != MTC_OK);
        mtc_subtree l, r;
        ASSERT_OK(mtc_covering_subtrees(st.k - 5000, N, &l, &r));
        const mtc_subtree *sub = st.k < r.start ? &l : &r;
        ASSERT_OK(mtc_subtree_hash(&src, sub->start, sub->end, &h));
        ASSERT_OK(mtc_inclusion_proof(&src, st.k, sub->start, sub->end, proof, &len));
        ASSERT_OK(mtc_inclusion_verify(st.k, sub->start, sub->end, &x, proof, len, &h));
        /* consistency of both covering subtrees with the whole tree */
        for (int side = 0; side < 2; side++) {
            const mtc_subtree *c = side ? &r : &l;
            ASSERT_OK(mtc_subtree_hash(&src, c->start, c->end, &h));
            ASSERT_OK(mtc_subtree_consistency_proof(&src, c->start, c->end, N, proof, &len));
            ASSERT_OK(mtc_subtree_consistency_verify(c->start, c->end, N, &h, &root, proof, len));
            proof[0].b[3] ^= 1;
            ASSERT_TRUE(mtc_subtree_consistency_verify(c->start, c->end, N, &h, &root, proof, len) != MTC_OK);
        }
        /* RFC 9162 consistency from a size just past k */
        uint64_t m = st.k + 1;
        mtc_hash old;
        ASSERT_OK(mtc_subtree_hash(&src, 0, m, &old));
        ASSERT_OK(mtc_consistency_proof(&src, m, N, proof, &len));
        ASSERT_OK(mtc_consistency_verify(m, N, &old, &root, proof, len));
        ASSERT_TRUE(mtc_consistency_verify(m, N, &root, &old, proof, len) != MTC_OK);
    }
}

/* ---- covering subtrees -------------------------------------------------- */

/* Independent statement: split [start, end) at the children of the lowest
 * common ancestor of start and end-1; each side is the lowest node that
 * holds its part, found by walking heights upward. */
static uint64_t shr(uint64_t x, int h) { return h >= 64 ? 0 : x >> h; }

static void cover_ref(uint64_t start, uint64_t end, mtc_subtree *l, mtc_subtree *r)
{
    if (end - start <= 1) {
        *l = (mtc_subtree){start, end};
        *r = (mtc_subtree){end, end};
        return;
    }
    uint64_t last = end - 1;
    int h = 0;
    while (shr(start, h) != shr(last, h))
        h++; /* start and last first share an ancestor at height h */
    uint64_t mid = (last >> (h - 1)) << (h - 1);
    int lh = 0;
    while (shr(start, lh) != shr(mid - 1, lh))
        lh++;
    uint64_t ls = lh == 64 ? 0 : (start >> lh) << lh;
    *l = (mtc_subtree){ls, mid};
    *r = (mtc_subtree){mid, end};
}

static int check_cover(uint64_t s, uint64_t e)
{
    mtc_subtree l, r, rl, rr;
    if (mtc_covering_subtrees(s, e, &l, &r) != MTC_OK)
        return 0;
    cover_ref(s, e, &rl, &rr);
    if (l.start != rl.start || l.end != rl.end || r.start != rr.start || r.end != rr.end)
        return 0;
    if (!mtc_subtree_valid(l.start, l.end) || !mtc_subtree_valid(r.start, r.end))
        return 0;
    if (l.end != r.start || l.start > s || r.end != e)
        return 0;
    if (e > s && !(s - l.start < l.end - s))
        return 0;
    return 1;
}

TEST(covering_subtrees)
{
    for (uint64_t e = 0; e <= 600; e++)
        for (uint64_t s = 0; s <= e; s++)
            if (!check_cover(s, e))
                TEST_FAIL_("cover [%llu, %llu) wrong", (unsigned long long)s,
                           (unsigned long long)e);
    uint64_t rng = 3;
    for (int i = 0; i < 200000; i++) {
        uint64_t a = ref_rand(&rng), b = ref_rand(&rng);
        if (i % 2)
            b = a + (b >> (ref_rand(&rng) % 64));
        if (b < a)
            b = a + (b >> 40);
        if (b < a)
            continue;
        if (!check_cover(a, b))
            TEST_FAIL_("cover [%llu, %llu) wrong", (unsigned long long)a,
                       (unsigned long long)b);
    }
    mtc_subtree l, r;
    ASSERT_OK(mtc_covering_subtrees(5, 13, &l, &r)); /* the draft's figure */
    ASSERT_EQ(l.start, 4);
    ASSERT_EQ(l.end, 8);
    ASSERT_EQ(r.start, 8);
    ASSERT_EQ(r.end, 13);
    ASSERT_EQ(mtc_covering_subtrees(6, 5, &l, &r), MTC_ERR_ARG);
}

/* ---- argument errors --------------------------------------------------- */

TEST(argument_errors)
{
    mtc_hash *d = make_leaves(1, 16);
    mtc_node_source src;
    mtc_array_source(&src, d, 16);
    mtc_hash proof[MTC_PROOF_MAX], h = d[0];
    size_t len;
    ASSERT_EQ(mtc_inclusion_proof(&src, 1, 1, 5, proof, &len), MTC_ERR_SUBTREE);
    ASSERT_EQ(mtc_inclusion_proof(&src, 8, 4, 8, proof, &len), MTC_ERR_RANGE);
    ASSERT_EQ(mtc_inclusion_proof(&src, 3, 4, 8, proof, &len), MTC_ERR_RANGE);
    ASSERT_EQ(mtc_inclusion_proof(&src, 16, 16, 17, proof, &len), MTC_ERR_RANGE);
    ASSERT_EQ(mtc_inclusion_proof(&src, 5, 5, 5, proof, &len), MTC_ERR_RANGE);
    ASSERT_EQ(mtc_subtree_hash(&src, 0, 17, &h), MTC_ERR_RANGE);
    ASSERT_EQ(mtc_subtree_consistency_proof(&src, 0, 9, 8, proof, &len), MTC_ERR_RANGE);
    ASSERT_EQ(mtc_subtree_consistency_proof(&src, 0, 8, 17, proof, &len), MTC_ERR_RANGE);
    ASSERT_EQ(mtc_consistency_proof(&src, 0, 8, proof, &len), MTC_ERR_ARG);
    ASSERT_EQ(mtc_consistency_proof(&src, 9, 8, proof, &len), MTC_ERR_RANGE);
    ASSERT_EQ(mtc_inclusion_evaluate(3, 1, 5, &h, proof, 0, &h), MTC_ERR_SUBTREE);
    /* a proof longer than any tree allows is a length error, not a crash */
    static mtc_hash lots[MTC_PROOF_MAX + 1];
    ASSERT_EQ(mtc_inclusion_verify(0, 0, 16, &h, lots, MTC_PROOF_MAX, &h), MTC_ERR_PROOF_LEN);
    ASSERT_EQ(mtc_consistency_verify(3, 16, &h, &h, lots, MTC_PROOF_MAX + 1), MTC_ERR_PROOF_LEN);
    ASSERT_EQ(mtc_subtree_consistency_verify(0, 3, 16, &h, &h, lots, MTC_PROOF_MAX), MTC_ERR_PROOF_LEN);
    /* the empty subtree: empty proof and HASH() only */
    mtc_hash empty;
    mtc_hash_empty(&empty);
    ASSERT_OK(mtc_subtree_consistency_verify(4, 4, 16, &empty, &h, proof, 0));
    ASSERT_EQ(mtc_subtree_consistency_verify(4, 4, 16, &h, &h, proof, 0), MTC_ERR_PROOF);
    ASSERT_EQ(mtc_subtree_consistency_verify(4, 4, 16, &empty, &h, lots, 1), MTC_ERR_PROOF_LEN);
    free(d);
}

/* A leaf hash from a shared prefix's state equals mtc_hash_leaf for every
 * entry length and prefix length around the block boundaries (lengths
 * 0..300, prefixes 0..len), and entries that differ after the prefix. */
TEST(leaf_hash_from_shared_prefix)
{
    uint8_t e[300];
    for (size_t i = 0; i < sizeof e; i++)
        e[i] = (uint8_t)(i * 131 + 7);
    size_t bad = 0, checked = 0;
    for (size_t len = 0; len <= sizeof e; len++)
        for (size_t shared = 0; shared <= len; shared++) {
            mtc_hash_mid m;
            mtc_hash_leaf_mid(e, shared, &m);
            ASSERT_TRUE(64 * m.blocks <= 1 + shared);
            mtc_hash a, b;
            if (len > shared)   /* the entry varies past the prefix */
                e[len - 1] ^= (uint8_t)(shared + 1);
            mtc_hash_leaf(e, len, &a);
            mtc_hash_leaf_from_mid(&m, e, len, &b);
            bad += memcmp(a.b, b.b, sizeof a.b) != 0;
            checked++;
        }
    ASSERT_EQ_U64(bad, 0);
    ASSERT_TRUE(checked > 40000);
}

static const test_case tests[] = {
    {"leaf_hash_from_shared_prefix", leaf_hash_from_shared_prefix},
    {"draft_accumulated_vectors", draft_accumulated_vectors},
    {"hash_primitives", hash_primitives},
    {"subtree_validity", subtree_validity},
    {"exhaustive_small_trees", exhaustive_small_trees},
    {"mutations_small_trees", mutations_small_trees},
    {"random_trees_up_to_100k", random_trees_up_to_100k},
    {"huge_trees_64bit", huge_trees_64bit},
    {"covering_subtrees", covering_subtrees},
    {"argument_errors", argument_errors},
};

TEST_MAIN(tests)
