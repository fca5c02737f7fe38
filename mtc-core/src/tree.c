/*
 * tree.c - the compact append-only tree store (see mtc/tree.h).
 *
 * Storage: for each stored level l, the hashes of the full nodes at that
 * level (node j covers entries [j*2^l, (j+1)*2^l)), in fixed-size chunks so
 * that growth never copies gigabytes and pruning can free whole chunks.
 * Levels >= tile_height are always stored; level 0 too when leaves are
 * kept. The leaf hashes of the incomplete last tile live in `tail`, so
 * appends never need the leaf callback.
 *
 * Reading: a valid subtree decomposes into at most 64 full nodes along its
 * right edge; a full node is either stored or (below the tile height)
 * recomputed from at most 2^tile_height leaf hashes.
 */
#include "mtc/tree.h"

#include <stdlib.h>
#include <string.h>

#include "mtc/error.h"

#define TREE_LEVELS 49     /* levels 0..48: 2^48 entries at most */
#define CHUNK_SHIFT 12     /* 4096 hashes, 128 KiB per chunk */
#define CHUNK_SIZE (UINT64_C(1) << CHUNK_SHIFT)
#define FIRST_CHUNK_MIN 4  /* chunk 0 starts small: most levels stay tiny */
#define TILE_HEIGHT_MAX 16

typedef struct level {
    mtc_hash **chunks;   /* chunks[c] holds nodes [c*CHUNK_SIZE, ...) */
    size_t nchunks;      /* slots in chunks[] */
    size_t chunk0_cap;   /* capacity of chunks[0] while it grows */
    uint64_t count;      /* nodes appended at this level */
    uint64_t first_kept; /* nodes below this index were pruned */
} level;

struct mtc_tree {
    mtc_tree_options opt;
    uint64_t size;
    uint64_t pruned_below;
    level levels[TREE_LEVELS];
    mtc_hash *tail;      /* leaf hashes of the incomplete last tile */
    size_t memory;       /* bytes of heap held, kept exact */
};

static int level_stored(const mtc_tree *t, unsigned l)
{
    return l >= t->opt.tile_height || (l == 0 && t->opt.keep_leaves);
}

mtc_tree *mtc_tree_new(const mtc_tree_options *opts)
{
    mtc_tree_options o = {.tile_height = 0, .keep_leaves = 1};
    if (opts)
        o = *opts;
    if (o.tile_height > TILE_HEIGHT_MAX)
        return NULL;
    if (o.tile_height > 0 && !o.keep_leaves && !o.leaf_fn)
        return NULL;
    mtc_tree *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    t->opt = o;
    t->memory = sizeof *t;
    if (o.tile_height > 0) {
        size_t tail_bytes = sizeof(mtc_hash) << o.tile_height;
        t->tail = malloc(tail_bytes);
        if (!t->tail) {
            free(t);
            return NULL;
        }
        t->memory += tail_bytes;
    }
    return t;
}

void mtc_tree_free(mtc_tree *t)
{
    if (!t)
        return;
    for (unsigned l = 0; l < TREE_LEVELS; l++) {
        for (size_t c = 0; c < t->levels[l].nchunks; c++)
            free(t->levels[l].chunks[c]);
        free(t->levels[l].chunks);
    }
    free(t->tail);
    free(t);
}

uint64_t mtc_tree_size(const mtc_tree *t) { return t->size; }
uint64_t mtc_tree_pruned_below(const mtc_tree *t) { return t->pruned_below; }
size_t mtc_tree_memory(const mtc_tree *t) { return t->memory; }

/* Makes room for node `count` of a level. On failure nothing changes. */
static int level_reserve(mtc_tree *t, level *lv)
{
    uint64_t j = lv->count;
    size_t c = (size_t)(j >> CHUNK_SHIFT);
    if (c >= lv->nchunks) {
        size_t n = lv->nchunks ? 2 * lv->nchunks : 1;
        while (n <= c)
            n *= 2;
        mtc_hash **nc = realloc(lv->chunks, n * sizeof *nc);
        if (!nc)
            return MTC_ERR_NOMEM;
        memset(nc + lv->nchunks, 0, (n - lv->nchunks) * sizeof *nc);
        t->memory += (n - lv->nchunks) * sizeof *nc;
        lv->chunks = nc;
        lv->nchunks = n;
    }
    if (c == 0) {
        /* Chunk 0 grows by doubling up to a full chunk. */
        if (j < lv->chunk0_cap)
            return MTC_OK;
        size_t cap = lv->chunk0_cap ? 2 * lv->chunk0_cap : FIRST_CHUNK_MIN;
        if (cap > CHUNK_SIZE)
            cap = CHUNK_SIZE;
        mtc_hash *p = realloc(lv->chunks[0], cap * sizeof *p);
        if (!p)
            return MTC_ERR_NOMEM;
        t->memory += (cap - lv->chunk0_cap) * sizeof *p;
        lv->chunks[0] = p;
        lv->chunk0_cap = cap;
        return MTC_OK;
    }
    if (!lv->chunks[c]) {
        lv->chunks[c] = malloc(CHUNK_SIZE * sizeof(mtc_hash));
        if (!lv->chunks[c])
            return MTC_ERR_NOMEM;
        t->memory += CHUNK_SIZE * sizeof(mtc_hash);
    }
    return MTC_OK;
}

static mtc_hash *level_at(const level *lv, uint64_t j)
{
    return &lv->chunks[j >> CHUNK_SHIFT][j & (CHUNK_SIZE - 1)];
}

/*
 * Adding a node at level l completes a parent whenever that level holds an
 * odd number of nodes, and so on up: reserve room along the whole carry
 * chain first, so that a failed append leaves the store exactly as it was.
 * Returns the top level of the chain, or a negative error.
 */
static int reserve_chain(mtc_tree *t, unsigned l)
{
    unsigned top = l;
    while (top + 1 < TREE_LEVELS && (t->levels[top].count & 1))
        top++;
    for (unsigned k = l; k <= top; k++) {
        int rc = level_reserve(t, &t->levels[k]);
        if (rc != MTC_OK)
            return rc;
    }
    return (int)top;
}

/* Stores a new full node at level l and the parents it completes, up to
 * `top` from reserve_chain(). Cannot fail. */
static void push_chain(mtc_tree *t, unsigned l, unsigned top, const mtc_hash *h)
{
    mtc_hash cur = *h;
    for (unsigned k = l;; k++) {
        level *lv = &t->levels[k];
        uint64_t j = lv->count++;
        *level_at(lv, j) = cur;
        if (!(j & 1) || k == top)
            break;
        mtc_hash_node(level_at(lv, j - 1), &cur, &cur);
    }
}

int mtc_tree_append(mtc_tree *t, const mtc_hash *leaf_hash)
{
    if (t->size >= MTC_TREE_MAX_ENTRIES)
        return MTC_ERR_TREE_FULL;
    unsigned H = t->opt.tile_height;
    if (H == 0) {
        int top = reserve_chain(t, 0);
        if (top < 0)
            return top;
        push_chain(t, 0, (unsigned)top, leaf_hash);
        t->size++;
        return MTC_OK;
    }
    if (t->opt.keep_leaves) {
        int rc = level_reserve(t, &t->levels[0]);
        if (rc != MTC_OK)
            return rc;
    }
    uint64_t tile_mask = (UINT64_C(1) << H) - 1;
    uint64_t pos = t->size & tile_mask;
    if (pos == tile_mask) {
        /* The tile completes: fold its leaves into its root in place (the
         * tail is free again once size moves past the tile). */
        int top = reserve_chain(t, H);
        if (top < 0)
            return top;
        mtc_hash *w = t->tail;
        w[pos] = *leaf_hash;
        for (size_t width = (size_t)1 << H; width > 1; width /= 2)
            for (size_t i = 0; i < width / 2; i++)
                mtc_hash_node(&w[2 * i], &w[2 * i + 1], &w[i]);
        push_chain(t, H, (unsigned)top, &w[0]);
    } else {
        t->tail[pos] = *leaf_hash;
    }
    if (t->opt.keep_leaves) {
        level *lv0 = &t->levels[0];
        *level_at(lv0, lv0->count++) = *leaf_hash;
    }
    t->size++;
    return MTC_OK;
}

/* Leaf hash of entry i < size. */
static int leaf_get(const mtc_tree *t, uint64_t i, mtc_hash *out)
{
    unsigned H = t->opt.tile_height;
    uint64_t tail_start = t->size & ~((UINT64_C(1) << H) - 1);
    if (H > 0 && i >= tail_start) {
        *out = t->tail[i - tail_start];
        return MTC_OK;
    }
    if (i < t->pruned_below)
        return MTC_ERR_PRUNED;
    if (t->opt.keep_leaves) {
        *out = *level_at(&t->levels[0], i);
        return MTC_OK;
    }
    int rc = t->opt.leaf_fn(t->opt.leaf_ctx, i, out);
    return rc == MTC_OK ? MTC_OK : (rc < 0 ? rc : MTC_ERR_CALLBACK);
}

/* Hash of full node j at level l (requires (j+1) << l <= size). */
static int node_get(const mtc_tree *t, unsigned l, uint64_t j, mtc_hash *out)
{
    if (level_stored(t, l)) {
        const level *lv = &t->levels[l];
        if (j < lv->first_kept)
            return MTC_ERR_PRUNED;
        *out = *level_at(lv, j);
        return MTC_OK;
    }
    if (l == 0)
        return leaf_get(t, j, out);
    mtc_hash a, b;
    int rc = node_get(t, l - 1, 2 * j, &a);
    if (rc == MTC_OK)
        rc = node_get(t, l - 1, 2 * j + 1, &b);
    if (rc == MTC_OK)
        mtc_hash_node(&a, &b, out);
    return rc;
}

/* MTH(D[start:end]) for a valid, non-empty subtree with end <= size. */
static int tree_range_hash(void *ctx, uint64_t start, uint64_t end,
                           mtc_hash *out)
{
    const mtc_tree *t = ctx;
    /* Decompose into full nodes, largest first, then fold from the right:
     * MTH of a non-power-of-two range is HASH(left full node, MTH(rest)). */
    mtc_hash parts[64];
    unsigned nparts = 0;
    uint64_t pos = start, rem = end - start;
    while (rem) {
        unsigned l = 63 - (unsigned)__builtin_clzll(rem);
        int rc = node_get(t, l, pos >> l, &parts[nparts++]);
        if (rc != MTC_OK)
            return rc;
        pos += UINT64_C(1) << l;
        rem -= UINT64_C(1) << l;
    }
    mtc_hash acc = parts[nparts - 1];
    for (unsigned i = nparts - 1; i-- > 0;)
        mtc_hash_node(&parts[i], &acc, &acc);
    *out = acc;
    return MTC_OK;
}

void mtc_tree_source(mtc_tree *t, mtc_node_source *src)
{
    src->range_hash = tree_range_hash;
    src->ctx = t;
    src->size = t->size;
}

int mtc_tree_root(mtc_tree *t, uint64_t n, mtc_hash *out)
{
    mtc_node_source src;
    mtc_tree_source(t, &src);
    return mtc_subtree_hash(&src, 0, n, out);
}

int mtc_tree_subtree_hash(mtc_tree *t, uint64_t start, uint64_t end,
                          mtc_hash *out)
{
    mtc_node_source src;
    mtc_tree_source(t, &src);
    return mtc_subtree_hash(&src, start, end, out);
}

int mtc_tree_leaf_hash(mtc_tree *t, uint64_t index, mtc_hash *out)
{
    if (index >= t->size)
        return MTC_ERR_RANGE;
    return node_get(t, 0, index, out);
}

int mtc_tree_prune(mtc_tree *t, uint64_t index)
{
    if (index > t->size)
        return MTC_ERR_RANGE;
    unsigned H = t->opt.tile_height;
    uint64_t p = index & ~((UINT64_C(1) << H) - 1);
    if (p <= t->pruned_below)
        return MTC_OK;
    t->pruned_below = p;
    for (unsigned l = 0; l < TREE_LEVELS; l++) {
        if (!level_stored(t, l))
            continue;
        level *lv = &t->levels[l];
        /* Proofs for entries >= p need, at each level, the nodes over
         * [p, size) and at most the one left sibling just below them. */
        uint64_t keep = p >> l;
        keep = keep ? keep - 1 : 0;
        if (keep <= lv->first_kept)
            continue;
        lv->first_kept = keep;
        size_t last_free = (size_t)(keep >> CHUNK_SHIFT); /* exclusive */
        for (size_t c = 0; c < last_free && c < lv->nchunks; c++) {
            if (!lv->chunks[c])
                continue;
            size_t cap = c == 0 ? lv->chunk0_cap : CHUNK_SIZE;
            free(lv->chunks[c]);
            lv->chunks[c] = NULL;
            t->memory -= cap * sizeof(mtc_hash);
            if (c == 0)
                lv->chunk0_cap = 0;
        }
    }
    return MTC_OK;
}

/* Heap of one stored level holding `count` nodes of which those below
 * `first_kept` were pruned: as level_reserve() and mtc_tree_prune() leave
 * it. The chunk-pointer array doubles to the smallest power of two above
 * the last chunk index; chunk 0 doubles from FIRST_CHUNK_MIN up to a full
 * chunk; pruning freed every chunk below first_kept's and never shrinks
 * the pointer array. */
static size_t level_memory_at(uint64_t count, uint64_t first_kept)
{
    if (count == 0)
        return 0;
    uint64_t last = (count - 1) >> CHUNK_SHIFT;
    size_t nchunks = 1;
    while (nchunks <= last)
        nchunks *= 2;
    size_t m = nchunks * sizeof(mtc_hash *);
    uint64_t freed = first_kept >> CHUNK_SHIFT; /* chunks [0, freed) */
    if (freed == 0) {
        size_t cap = FIRST_CHUNK_MIN;
        while (cap < count && cap < CHUNK_SIZE)
            cap *= 2;
        m += cap * sizeof(mtc_hash);
    }
    uint64_t lo = freed > 1 ? freed : 1;
    if (last >= lo)
        m += (size_t)(last - lo + 1) * CHUNK_SIZE * sizeof(mtc_hash);
    return m;
}

size_t mtc_tree_memory_at(const mtc_tree_options *opts, uint64_t size,
                          uint64_t pruned_below)
{
    mtc_tree_options o = {.tile_height = 0, .keep_leaves = 1};
    if (opts)
        o = *opts;
    if (o.tile_height > TILE_HEIGHT_MAX || pruned_below > size ||
        (o.tile_height > 0 && !o.keep_leaves && !o.leaf_fn))
        return 0;
    mtc_tree shape = {.opt = o};
    size_t m = sizeof(mtc_tree);
    if (o.tile_height > 0)
        m += sizeof(mtc_hash) << o.tile_height;
    for (unsigned l = 0; l < TREE_LEVELS; l++) {
        if (!level_stored(&shape, l))
            continue;
        uint64_t keep = pruned_below >> l;
        keep = keep ? keep - 1 : 0;
        m += level_memory_at(size >> l, keep);
    }
    return m;
}
