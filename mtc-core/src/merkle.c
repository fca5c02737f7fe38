/*
 * merkle.c - subtrees, inclusion and consistency proofs (draft "Subtrees",
 * RFC 9162 section 2.1).
 *
 * Generation follows the draft's recursive definitions, unrolled: walking
 * from the root down we meet the proof's nodes top first, so each generator
 * collects them top-down and reverses once at the end. Every node a proof
 * contains is itself a valid subtree of the tree, which is what lets a node
 * source answer with a single range_hash() per node. Verification is the
 * draft's bit-walking procedures, transcribed step by step so that they can
 * be checked against the text.
 */
#include "mtc/merkle.h"

#include <string.h>

#include "mtc/error.h"

/* Largest power of two strictly smaller than n (n >= 2). */
static uint64_t split_point(uint64_t n)
{
    return UINT64_C(1) << (63 - __builtin_clzll(n - 1));
}

int mtc_subtree_valid(uint64_t start, uint64_t end)
{
    if (start > end)
        return 0;
    uint64_t size = end - start;
    if (size > (UINT64_C(1) << 63))
        return start == 0; /* BIT_CEIL(size) would be 2^64 */
    if (size <= 1)
        return 1; /* BIT_CEIL is 1: every start is a multiple */
    uint64_t ceil = UINT64_C(1) << (64 - __builtin_clzll(size - 1));
    return (start & (ceil - 1)) == 0;
}

/* ---- array source ------------------------------------------------------ */

static void array_mth(const mtc_hash *leaves, uint64_t start, uint64_t end,
                      mtc_hash *out)
{
    if (end - start == 1) {
        *out = leaves[start];
        return;
    }
    uint64_t k = split_point(end - start);
    mtc_hash l, r;
    array_mth(leaves, start, start + k, &l);
    array_mth(leaves, start + k, end, &r);
    mtc_hash_node(&l, &r, out);
}

static int array_range_hash(void *ctx, uint64_t start, uint64_t end,
                            mtc_hash *out)
{
    /* The const cast is confined here: the source never writes. */
    const mtc_hash *leaves = (const mtc_hash *)ctx;
    array_mth(leaves, start, end, out);
    return MTC_OK;
}

void mtc_array_source(mtc_node_source *src, const mtc_hash *leaves, uint64_t n)
{
    src->range_hash = array_range_hash;
    src->ctx = (void *)(uintptr_t)leaves;
    src->size = n;
}

/* ---- generation -------------------------------------------------------- */

int mtc_subtree_hash(const mtc_node_source *src, uint64_t start, uint64_t end,
                     mtc_hash *out)
{
    if (!mtc_subtree_valid(start, end))
        return MTC_ERR_SUBTREE;
    if (end > src->size)
        return MTC_ERR_RANGE;
    if (start == end) {
        mtc_hash_empty(out);
        return MTC_OK;
    }
    return src->range_hash(src->ctx, start, end, out);
}

/* Nodes collected top-down, as [start, end) ranges, before hashing. */
typedef struct node_list {
    mtc_subtree node[MTC_PROOF_MAX];
    size_t len;
} node_list;

static void node_list_push(node_list *l, uint64_t start, uint64_t end)
{
    /* Depth is bounded by 64 for inclusion and by 64 + 1 for consistency
     * (each step halves the tree), well within MTC_PROOF_MAX. */
    l->node[l->len].start = start;
    l->node[l->len].end = end;
    l->len++;
}

/* Hashes the collected nodes in reverse (bottom-up) order into proof[]. */
static int node_list_emit(const mtc_node_source *src, const node_list *l,
                          mtc_hash *proof, size_t *len)
{
    for (size_t i = 0; i < l->len; i++) {
        const mtc_subtree *s = &l->node[l->len - 1 - i];
        int rc = src->range_hash(src->ctx, s->start, s->end, &proof[i]);
        if (rc != MTC_OK)
            return rc;
    }
    *len = l->len;
    return MTC_OK;
}

int mtc_inclusion_proof(const mtc_node_source *src, uint64_t index,
                        uint64_t start, uint64_t end, mtc_hash *proof,
                        size_t *len)
{
    if (!mtc_subtree_valid(start, end))
        return MTC_ERR_SUBTREE;
    if (end > src->size || index < start || index >= end)
        return MTC_ERR_RANGE;
    /* PATH(m, D[start:end]), with m relative to `base`. */
    node_list l = {.len = 0};
    uint64_t base = start, n = end - start, m = index - start;
    while (n > 1) {
        uint64_t k = split_point(n);
        if (m < k) {
            node_list_push(&l, base + k, base + n);
            n = k;
        } else {
            node_list_push(&l, base, base + k);
            base += k;
            m -= k;
            n -= k;
        }
    }
    return node_list_emit(src, &l, proof, len);
}

int mtc_subtree_consistency_proof(const mtc_node_source *src, uint64_t start,
                                  uint64_t end, uint64_t n, mtc_hash *proof,
                                  size_t *len)
{
    if (!mtc_subtree_valid(start, end))
        return MTC_ERR_SUBTREE;
    if (end > n || n > src->size)
        return MTC_ERR_RANGE;
    node_list l = {.len = 0};
    if (start == end)
        return node_list_emit(src, &l, proof, len);
    /* SUBTREE_SUBPROOF(s, e, D[base:base+size], known), unrolled. */
    uint64_t base = 0, size = n, s = start, e = end;
    int known = 1; /* the verifier knows the current subtree's hash */
    for (;;) {
        if (s == 0 && e == size) {
            if (!known)
                node_list_push(&l, base, base + size);
            break;
        }
        uint64_t k = split_point(size);
        if (e <= k) {
            node_list_push(&l, base + k, base + size);
            size = k;
        } else if (k <= s) {
            node_list_push(&l, base, base + k);
            base += k;
            s -= k;
            e -= k;
            size -= k;
        } else {
            /* s < k < e, which validity forces to s == 0. */
            node_list_push(&l, base, base + k);
            base += k;
            e -= k;
            size -= k;
            known = 0;
        }
    }
    return node_list_emit(src, &l, proof, len);
}

int mtc_consistency_proof(const mtc_node_source *src, uint64_t m, uint64_t n,
                          mtc_hash *proof, size_t *len)
{
    if (m == 0)
        return MTC_ERR_ARG; /* RFC 9162 defines PROOF(m, D_n) for 0 < m */
    if (m > n || n > src->size)
        return MTC_ERR_RANGE;
    /* PROOF(m, D_n) is SUBTREE_PROOF(0, m, D_n) (draft, "Generating"). */
    return mtc_subtree_consistency_proof(src, 0, m, n, proof, len);
}

/* ---- verification ------------------------------------------------------ */

int mtc_inclusion_evaluate(uint64_t index, uint64_t start, uint64_t end,
                           const mtc_hash *entry_hash, const mtc_hash *proof,
                           size_t len, mtc_hash *out)
{
    /* Step 1. */
    if (!mtc_subtree_valid(start, end))
        return MTC_ERR_SUBTREE;
    if (index < start || index >= end)
        return MTC_ERR_RANGE;
    /* Steps 2-3. */
    uint64_t fn = index - start, sn = end - start - 1;
    mtc_hash r = *entry_hash;
    /* Step 4. */
    for (size_t i = 0; i < len; i++) {
        if (sn == 0)
            return MTC_ERR_PROOF_LEN;
        if ((fn & 1) || fn == sn) {
            mtc_hash_node(&proof[i], &r, &r);
            while (!(fn & 1)) {
                fn >>= 1;
                sn >>= 1;
            }
        } else {
            mtc_hash_node(&r, &proof[i], &r);
        }
        fn >>= 1;
        sn >>= 1;
    }
    /* Step 5. */
    if (sn != 0)
        return MTC_ERR_PROOF_LEN;
    *out = r;
    return MTC_OK;
}

int mtc_inclusion_verify(uint64_t index, uint64_t start, uint64_t end,
                         const mtc_hash *entry_hash, const mtc_hash *proof,
                         size_t len, const mtc_hash *subtree_hash)
{
    mtc_hash expected;
    int rc = mtc_inclusion_evaluate(index, start, end, entry_hash, proof, len,
                                    &expected);
    if (rc != MTC_OK)
        return rc;
    return mtc_hash_equal(&expected, subtree_hash) ? MTC_OK : MTC_ERR_PROOF;
}

int mtc_subtree_consistency_verify(uint64_t start, uint64_t end, uint64_t n,
                                   const mtc_hash *node_hash,
                                   const mtc_hash *root_hash,
                                   const mtc_hash *proof, size_t len)
{
    /* Step 1. */
    if (!mtc_subtree_valid(start, end))
        return MTC_ERR_SUBTREE;
    if (end > n)
        return MTC_ERR_RANGE;
    /* Step 2. */
    if (start == end) {
        mtc_hash empty;
        mtc_hash_empty(&empty);
        if (len != 0)
            return MTC_ERR_PROOF_LEN;
        return mtc_hash_equal(node_hash, &empty) ? MTC_OK : MTC_ERR_PROOF;
    }
    /* Step 3. */
    uint64_t fn = start, sn = end - 1, tn = n - 1;
    /* Steps 4-5. */
    if (sn == tn) {
        while (fn != sn) {
            fn >>= 1;
            sn >>= 1;
            tn >>= 1;
        }
    } else {
        while (fn != sn && (sn & 1)) {
            fn >>= 1;
            sn >>= 1;
            tn >>= 1;
        }
    }
    /* Steps 6-7. */
    mtc_hash fr, sr;
    size_t i = 0;
    if (fn == sn) {
        fr = sr = *node_hash;
    } else {
        if (len == 0)
            return MTC_ERR_PROOF_LEN;
        fr = sr = proof[0];
        i = 1;
    }
    /* Step 8. */
    for (; i < len; i++) {
        const mtc_hash *c = &proof[i];
        if (tn == 0)
            return MTC_ERR_PROOF_LEN;
        if ((sn & 1) || sn == tn) {
            if (fn < sn)
                mtc_hash_node(c, &fr, &fr);
            mtc_hash_node(c, &sr, &sr);
            while (!(sn & 1)) {
                fn >>= 1;
                sn >>= 1;
                tn >>= 1;
            }
        } else {
            mtc_hash_node(&sr, c, &sr);
        }
        fn >>= 1;
        sn >>= 1;
        tn >>= 1;
    }
    /* Step 9. */
    if (tn != 0)
        return MTC_ERR_PROOF_LEN;
    if (!mtc_hash_equal(&fr, node_hash) || !mtc_hash_equal(&sr, root_hash))
        return MTC_ERR_PROOF;
    return MTC_OK;
}

int mtc_consistency_verify(uint64_t m, uint64_t n, const mtc_hash *old_root,
                           const mtc_hash *new_root, const mtc_hash *proof,
                           size_t len)
{
    if (m == 0)
        return MTC_ERR_ARG;
    if (m > n)
        return MTC_ERR_RANGE;
    if (m == n) {
        if (len != 0)
            return MTC_ERR_PROOF_LEN;
        return mtc_hash_equal(old_root, new_root) ? MTC_OK : MTC_ERR_PROOF;
    }
    /* RFC 9162 2.1.4.2, step 1: a power-of-two old tree's root is itself
     * the first node of the path; it is not sent, so prepend it. */
    const mtc_hash *path[MTC_PROOF_MAX + 1];
    size_t plen = 0;
    if (len > MTC_PROOF_MAX)
        return MTC_ERR_PROOF_LEN;
    if ((m & (m - 1)) == 0)
        path[plen++] = old_root;
    for (size_t i = 0; i < len; i++)
        path[plen++] = &proof[i];
    if (plen == 0)
        return MTC_ERR_PROOF_LEN;
    /* Steps 2-4. */
    uint64_t fn = m - 1, sn = n - 1;
    while (fn & 1) {
        fn >>= 1;
        sn >>= 1;
    }
    mtc_hash fr = *path[0], sr = *path[0];
    /* Step 5. */
    for (size_t i = 1; i < plen; i++) {
        const mtc_hash *c = path[i];
        if (sn == 0)
            return MTC_ERR_PROOF_LEN;
        if ((fn & 1) || fn == sn) {
            mtc_hash_node(c, &fr, &fr);
            mtc_hash_node(c, &sr, &sr);
            if (!(fn & 1)) {
                while (!(fn & 1) && fn != 0) {
                    fn >>= 1;
                    sn >>= 1;
                }
            }
        } else {
            mtc_hash_node(&sr, c, &sr);
        }
        fn >>= 1;
        sn >>= 1;
    }
    /* Step 6. */
    if (sn != 0)
        return MTC_ERR_PROOF_LEN;
    if (!mtc_hash_equal(&fr, old_root) || !mtc_hash_equal(&sr, new_root))
        return MTC_ERR_PROOF;
    return MTC_OK;
}

/* ---- covering subtrees ------------------------------------------------- */

int mtc_covering_subtrees(uint64_t start, uint64_t end, mtc_subtree *left,
                          mtc_subtree *right)
{
    if (start > end)
        return MTC_ERR_ARG;
    if (end - start <= 1) {
        left->start = start;
        left->end = end;
        right->start = right->end = end;
        return MTC_OK;
    }
    uint64_t last = end - 1;
    /* Bit where the paths of start and last diverge. */
    unsigned split = 63 - (unsigned)__builtin_clzll(start ^ last);
    uint64_t mask = (UINT64_C(1) << split) - 1;
    uint64_t mid = last & ~mask;
    /* Height of the lowest common ancestor of [start, mid): one above the
     * highest zero bit of start below `split`, or 0 when there is none. */
    uint64_t zeros = ~start & mask;
    unsigned left_split = zeros ? 64 - (unsigned)__builtin_clzll(zeros) : 0;
    uint64_t left_start = start & ~((UINT64_C(1) << left_split) - 1);
    left->start = left_start;
    left->end = mid;
    right->start = mid;
    right->end = end;
    return MTC_OK;
}
