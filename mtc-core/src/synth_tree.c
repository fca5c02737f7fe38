/*
 * synth_tree.c - the tree store with synthetic unobserved history (see
 * mtc/synth_tree.h).
 *
 * State: the size, the observed entries (real entries with their leaf
 * hash, and the last entry before each cut; in index order, since both
 * only come at the end; kept after pruning, 40 octets each), the node per
 * height that proofs still
 * need left of the boundary (the "frontier", computed at prune time), and
 * a memo of computed mixed nodes keyed by (height, index) in an
 * open-addressing table.
 *
 * Workload: appends (almost all opaque) far outnumber reads; reads come in
 * bursts for the newest entries (checkpoints every minute, a landmark per
 * hour), so the memo holds the right edge of the tree and every path to a
 * real entry once, and a checkpoint's root costs a few dozen hashes.
 */
#include "mtc/synth_tree.h"

#include <stdlib.h>
#include <string.h>

#include "mtc/error.h"
#include "mtc/tree.h"

#define LEVELS 49          /* heights 0..48: 2^48 entries at most */
#define TILE_HEIGHT_MAX 16
#define MEMO_MIN 64        /* slots of the first memo table (a power of 2) */

typedef struct real_entry {
    uint64_t index;
    mtc_hash leaf;
    int real;              /* 0: marks a cut; the leaf is synthetic */
} real_entry;

typedef struct memo_slot {
    uint64_t key;          /* 0: empty; else 1 + (height << 48 | index) */
    mtc_hash h;
} memo_slot;

struct mtc_synth_tree {
    unsigned tile_height;
    uint8_t key[MTC_HASH_LEN];
    uint64_t size;
    uint64_t pruned_below;
    real_entry *real;      /* observed entries real[0, n) */
    size_t n, cap;
    /* frontier[h]: node (h, (pruned_below >> h) - 1) when valid */
    mtc_hash frontier[LEVELS];
    uint8_t frontier_ok[LEVELS];
    memo_slot *memo;
    size_t memo_cap, memo_used;
    int edge_read;         /* a full node ending at size was read */
};

mtc_synth_tree *mtc_synth_tree_new(const mtc_synth_tree_options *opts)
{
    if (!opts || opts->tile_height > TILE_HEIGHT_MAX)
        return NULL;
    mtc_synth_tree *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    t->tile_height = opts->tile_height;
    memcpy(t->key, opts->key, sizeof t->key);
    return t;
}

void mtc_synth_tree_free(mtc_synth_tree *t)
{
    if (!t)
        return;
    free(t->real);
    free(t->memo);
    free(t);
}

uint64_t mtc_synth_tree_size(const mtc_synth_tree *t) { return t->size; }
uint64_t mtc_synth_tree_pruned_below(const mtc_synth_tree *t) { return t->pruned_below; }
size_t mtc_synth_tree_real_count(const mtc_synth_tree *t) { return t->n; }

size_t mtc_synth_tree_memory(const mtc_synth_tree *t)
{
    return sizeof *t + t->cap * sizeof *t->real + t->memo_cap * sizeof *t->memo;
}

int mtc_synth_tree_append_opaque(mtc_synth_tree *t, uint64_t count)
{
    if (count > MTC_TREE_MAX_ENTRIES - t->size)
        return MTC_ERR_TREE_FULL;
    t->size += count;
    if (count)
        t->edge_read = 0;
    return MTC_OK;
}

int mtc_synth_tree_append(mtc_synth_tree *t, const mtc_hash *leaf_hash)
{
    if (t->size >= MTC_TREE_MAX_ENTRIES)
        return MTC_ERR_TREE_FULL;
    if (t->n == t->cap) {
        size_t nc = t->cap ? 2 * t->cap : 16;
        real_entry *p = realloc(t->real, nc * sizeof *p);
        if (!p)
            return MTC_ERR_NOMEM;
        t->real = p;
        t->cap = nc;
    }
    t->real[t->n++] = (real_entry){t->size, *leaf_hash, 1};
    t->size++;
    t->edge_read = 0;
    return MTC_OK;
}

/* ---- node values ---------------------------------------------------------- */

static void synth_node(const mtc_synth_tree *t, unsigned h, uint64_t k, mtc_hash *out);

int mtc_synth_tree_cut(mtc_synth_tree *t)
{
    if (t->size == 0 || (t->n > 0 && t->real[t->n - 1].index == t->size - 1))
        return MTC_OK;
    if (t->edge_read)
        return MTC_ERR_ARG;
    mtc_hash leaf;
    synth_node(t, 0, t->size - 1, &leaf);
    int rc = mtc_synth_tree_append(t, &leaf);
    if (rc != MTC_OK)
        return rc;
    t->size--; /* recorded, not appended */
    t->real[t->n - 1].index = t->size - 1;
    t->real[t->n - 1].real = 0;
    return MTC_OK;
}

static void synth_node(const mtc_synth_tree *t, unsigned h, uint64_t k, mtc_hash *out)
{
    uint8_t m[1 + MTC_HASH_LEN + 1 + 8];
    m[0] = 0x02; /* neither a leaf (0x00) nor an interior node (0x01) */
    memcpy(m + 1, t->key, MTC_HASH_LEN);
    m[1 + MTC_HASH_LEN] = (uint8_t)h;
    for (int i = 0; i < 8; i++)
        m[2 + MTC_HASH_LEN + i] = (uint8_t)(k >> (56 - 8 * i));
    mtc_sha256(m, sizeof m, out);
}

/* First live real entry with index >= i. */
static size_t real_lower(const mtc_synth_tree *t, uint64_t i)
{
    size_t lo = 0, hi = t->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (t->real[mid].index < i)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* 1 when block [start, end) holds an observed entry. */
static int block_real(const mtc_synth_tree *t, uint64_t start, uint64_t end)
{
    size_t r = real_lower(t, start);
    return r < t->n && t->real[r].index < end;
}

static uint64_t memo_key(unsigned h, uint64_t k) { return 1 + ((uint64_t)h << 48 | k); }

static size_t memo_slot_of(uint64_t key, size_t cap)
{
    uint64_t x = key * UINT64_C(0x9e3779b97f4a7c15);
    return (size_t)(x >> 17) & (cap - 1);
}

static const mtc_hash *memo_get(const mtc_synth_tree *t, uint64_t key)
{
    if (!t->memo_cap)
        return NULL;
    for (size_t s = memo_slot_of(key, t->memo_cap);; s = (s + 1) & (t->memo_cap - 1)) {
        if (t->memo[s].key == key)
            return &t->memo[s].h;
        if (!t->memo[s].key)
            return NULL;
    }
}

static void memo_put_slot(memo_slot *tab, size_t cap, uint64_t key, const mtc_hash *h)
{
    size_t s = memo_slot_of(key, cap);
    while (tab[s].key && tab[s].key != key)
        s = (s + 1) & (cap - 1);
    tab[s].key = key;
    tab[s].h = *h;
}

/* Rebuilds the table with `cap` slots keeping the nodes that end past
 * `boundary`. On failure nothing changes. */
static int memo_rebuild(mtc_synth_tree *t, size_t cap, uint64_t boundary)
{
    memo_slot *tab = calloc(cap, sizeof *tab);
    if (!tab)
        return MTC_ERR_NOMEM;
    size_t used = 0;
    for (size_t s = 0; s < t->memo_cap; s++) {
        uint64_t key = t->memo[s].key;
        if (!key)
            continue;
        unsigned h = (unsigned)((key - 1) >> 48);
        uint64_t k = (key - 1) & ((UINT64_C(1) << 48) - 1);
        if (((k + 1) << h) <= boundary)
            continue;
        memo_put_slot(tab, cap, key, &t->memo[s].h);
        used++;
    }
    free(t->memo);
    t->memo = tab;
    t->memo_cap = cap;
    t->memo_used = used;
    return MTC_OK;
}

static int memo_put(mtc_synth_tree *t, uint64_t key, const mtc_hash *h)
{
    /* at most half full: short probe sequences */
    if (2 * (t->memo_used + 1) > t->memo_cap) {
        int rc = memo_rebuild(t, t->memo_cap ? 2 * t->memo_cap : MEMO_MIN, 0);
        if (rc != MTC_OK)
            return rc;
    }
    memo_put_slot(t->memo, t->memo_cap, key, h);
    t->memo_used++;
    return MTC_OK;
}

/* Hash of full node (h, k); no pruning rule applied (callers check). */
static int node_get(mtc_synth_tree *t, unsigned h, uint64_t k, mtc_hash *out)
{
    uint64_t start = k << h, end = (k + 1) << h;
    if (end == t->size)
        t->edge_read = 1;
    if (end <= t->pruned_below) {
        /* left of the boundary only the frontier remains */
        if (k + 1 == t->pruned_below >> h && t->frontier_ok[h]) {
            *out = t->frontier[h];
            return MTC_OK;
        }
        return MTC_ERR_PRUNED;
    }
    if (!block_real(t, start, end)) {
        synth_node(t, h, k, out);
        return MTC_OK;
    }
    if (h == 0) {
        *out = t->real[real_lower(t, start)].leaf;
        return MTC_OK;
    }
    uint64_t key = memo_key(h, k);
    const mtc_hash *m = memo_get(t, key);
    if (m) {
        *out = *m;
        return MTC_OK;
    }
    mtc_hash a, b;
    int rc = node_get(t, h - 1, 2 * k, &a);
    if (rc == MTC_OK)
        rc = node_get(t, h - 1, 2 * k + 1, &b);
    if (rc != MTC_OK)
        return rc;
    mtc_hash_node(&a, &b, out);
    return memo_put(t, key, out);
}

/* The pruning rule of mtc/tree.h's store with the same tile height: 1 when
 * that store would refuse full node (h, k). */
static int node_refused(const mtc_synth_tree *t, unsigned h, uint64_t k)
{
    uint64_t pb = t->pruned_below;
    if (h >= t->tile_height) {
        uint64_t keep = pb >> h;
        keep = keep ? keep - 1 : 0;
        return k < keep;
    }
    return (k << h) < pb;
}

static int range_hash(void *ctx, uint64_t start, uint64_t end, mtc_hash *out)
{
    mtc_synth_tree *t = ctx;
    /* a range that is not one full node shows the structure at its end:
     * only a cut or a real entry's end may be read so */
    uint64_t n = end - start;
    if (n & (n - 1)) {
        size_t r = real_lower(t, end - 1);
        if (r == t->n || t->real[r].index != end - 1)
            return MTC_ERR_ARG;
    }
    /* the same decomposition as mtc/tree.h: full nodes largest first,
     * folded from the right */
    mtc_hash parts[64];
    unsigned nparts = 0;
    uint64_t pos = start, rem = end - start;
    while (rem) {
        unsigned h = 63 - (unsigned)__builtin_clzll(rem);
        if (node_refused(t, h, pos >> h))
            return MTC_ERR_PRUNED;
        int rc = node_get(t, h, pos >> h, &parts[nparts++]);
        if (rc != MTC_OK)
            return rc;
        pos += UINT64_C(1) << h;
        rem -= UINT64_C(1) << h;
    }
    mtc_hash acc = parts[nparts - 1];
    for (unsigned i = nparts - 1; i-- > 0;)
        mtc_hash_node(&parts[i], &acc, &acc);
    *out = acc;
    return MTC_OK;
}

void mtc_synth_tree_source(mtc_synth_tree *t, mtc_node_source *src)
{
    src->range_hash = range_hash;
    src->ctx = t;
    src->size = t->size;
}

int mtc_synth_tree_leaf_hash(mtc_synth_tree *t, uint64_t index, mtc_hash *out)
{
    if (index >= t->size)
        return MTC_ERR_RANGE;
    if (node_refused(t, 0, index))
        return MTC_ERR_PRUNED;
    return node_get(t, 0, index, out);
}

int mtc_synth_tree_prune(mtc_synth_tree *t, uint64_t index)
{
    if (index > t->size)
        return MTC_ERR_RANGE;
    uint64_t p = index & ~((UINT64_C(1) << t->tile_height) - 1);
    if (p <= t->pruned_below)
        return MTC_OK;
    /* The new frontier from the old state: a frontier node ending left of
     * the old boundary is the old frontier node of its height; the others
     * are computed from the real entries still held. */
    mtc_hash nf[LEVELS];
    uint8_t nok[LEVELS] = {0};
    for (unsigned h = t->tile_height; h < LEVELS; h++) {
        if (!(p >> h))
            break;
        int rc = node_get(t, h, (p >> h) - 1, &nf[h]);
        if (rc != MTC_OK)
            return rc;
        nok[h] = 1;
    }
    int rc = memo_rebuild(t, t->memo_cap ? t->memo_cap : MEMO_MIN, p);
    if (rc != MTC_OK)
        return rc;
    memcpy(t->frontier, nf, sizeof nf);
    memcpy(t->frontier_ok, nok, sizeof nok);
    /* The observed entries stay (40 octets each, one per cut and real
     * entry): the structure at every cut remains checkable, and the one
     * node per height that straddles the boundary classifies as before. */
    t->pruned_below = p;
    return MTC_OK;
}
