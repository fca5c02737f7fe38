/*
 * bulk.c - bulk subtree consistency proofs (mtc/bulk.h): the tiling, the
 * proof's encoding, and the draft's COMPUTE descent with a memo.
 *
 * Workload: an update service builds one proof per reference checkpoint
 * for a handful to a few hundred landmark subtrees; relying parties verify
 * each once. Verification input is untrusted, so every loop is bounded by
 * the wire limits (1365 subtrees, 2047 tiles) and the descent by the tree
 * depth; the memo keeps the subtree checks from re-hashing what the root
 * check computed (the draft's SHOULD), which bounds adversarial nested
 * subtree sets to O(subtrees * depth) hashes.
 */
#include "mtc/bulk.h"

#include <stdlib.h>
#include <string.h>

#include "mtc/error.h"

/* Largest power of two strictly smaller than n (n >= 2). */
static uint64_t split_point(uint64_t n)
{
    return UINT64_C(1) << (63 - __builtin_clzll(n - 1));
}

size_t mtc_bulk_encoded_len(size_t n_subtrees, size_t n_tiles)
{
    return 8 + 2 + 48 * n_subtrees + 2 + (size_t)MTC_HASH_LEN * n_tiles;
}

/* ---- tiling ---------------------------------------------------------- */

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* FRONTIER(s, e): at each step the largest power of two that divides s
 * (any, when s is 0) and fits in what is left. */
static void frontier(uint64_t s, uint64_t e, mtc_subtree *tiles, size_t cap,
                     size_t *count)
{
    while (s < e) {
        uint64_t left = e - s;
        uint64_t fit = UINT64_C(1) << (63 - __builtin_clzll(left));
        uint64_t align = s ? s & (~s + 1) : fit;
        uint64_t size = align < fit ? align : fit;
        if (*count < cap)
            tiles[*count] = (mtc_subtree){s, s + size};
        (*count)++;
        s += size;
    }
}

int mtc_bulk_tiling(const mtc_subtree *subs, size_t n_subs, uint64_t n,
                    mtc_subtree *tiles, size_t cap, size_t *count)
{
    *count = 0;
    if (n_subs > SIZE_MAX / 2 - 2)
        return MTC_ERR_LIMIT;
    uint64_t *pt = malloc((2 * n_subs + 2) * sizeof *pt);
    if (!pt)
        return MTC_ERR_NOMEM;
    size_t np = 0;
    pt[np++] = 0;
    pt[np++] = n;
    for (size_t i = 0; i < n_subs; i++) {
        if (subs[i].start > n || subs[i].end > n) {
            free(pt);
            return MTC_ERR_RANGE;
        }
        pt[np++] = subs[i].start;
        pt[np++] = subs[i].end;
    }
    qsort(pt, np, sizeof *pt, cmp_u64);
    for (size_t i = 1; i < np; i++)
        if (pt[i] != pt[i - 1])
            frontier(pt[i - 1], pt[i], tiles, cap, count);
    free(pt);
    return *count <= cap ? MTC_OK : MTC_ERR_LIMIT;
}

/* The draft's order: ascending start, ties by descending end, no
 * duplicates; each valid, non-empty, within n. */
static int check_subtrees(const mtc_subtree *s, size_t k, uint64_t n)
{
    if (k == 0 || n == 0)
        return MTC_ERR_ARG;
    if (k > MTC_BULK_MAX_SUBTREES)
        return MTC_ERR_LIMIT;
    for (size_t i = 0; i < k; i++) {
        if (s[i].start >= s[i].end)
            return MTC_ERR_SUBTREE;
        if (!mtc_subtree_valid(s[i].start, s[i].end))
            return MTC_ERR_SUBTREE;
        if (s[i].end > n)
            return MTC_ERR_RANGE;
        if (i && !(s[i - 1].start < s[i].start ||
                   (s[i - 1].start == s[i].start && s[i - 1].end > s[i].end)))
            return MTC_ERR_ARG;
    }
    return MTC_OK;
}

/* ---- COMPUTE --------------------------------------------------------- */

typedef struct memo_slot {
    uint64_t s, e;              /* e == 0: empty (interior nodes have e >= 2) */
    mtc_hash h;
} memo_slot;

typedef struct cctx {
    const mtc_subtree *range;   /* tile ranges, ascending */
    const mtc_hash *hash;       /* tile hashes */
    size_t nt;
    memo_slot *memo;            /* NULL: no memo */
    size_t cap, used;
} cctx;

static size_t memo_slot_of(uint64_t s, uint64_t e, size_t cap)
{
    uint64_t k = (s * UINT64_C(0x9e3779b97f4a7c15)) ^ (e * UINT64_C(0xc2b2ae3d27d4eb4f));
    return (size_t)(k >> 17) & (cap - 1);
}

static memo_slot *memo_find(cctx *c, uint64_t s, uint64_t e)
{
    size_t h = memo_slot_of(s, e, c->cap);
    while (c->memo[h].e && !(c->memo[h].s == s && c->memo[h].e == e))
        h = (h + 1) & (c->cap - 1);
    return &c->memo[h];
}

static int memo_put(cctx *c, uint64_t s, uint64_t e, const mtc_hash *h)
{
    if (2 * (c->used + 1) > c->cap) {
        size_t nc = c->cap ? 2 * c->cap : 256;
        memo_slot *old = c->memo;
        size_t oc = c->cap;
        c->memo = calloc(nc, sizeof *c->memo);
        if (!c->memo) {
            c->memo = old;
            return MTC_ERR_NOMEM;
        }
        c->cap = nc;
        for (size_t i = 0; i < oc; i++)
            if (old[i].e)
                *memo_find(c, old[i].s, old[i].e) = old[i];
        free(old);
    }
    memo_slot *m = memo_find(c, s, e);
    if (!m->e)
        c->used++;
    *m = (memo_slot){s, e, *h};
    return MTC_OK;
}

/* Index of the tile starting at s, or nt. */
static size_t tile_at(const cctx *c, uint64_t s)
{
    size_t lo = 0, hi = c->nt;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (c->range[mid].start < s)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < c->nt && c->range[lo].start == s ? lo : c->nt;
}

static int compute(cctx *c, uint64_t s, uint64_t e, mtc_hash *out)
{
    size_t t = tile_at(c, s);
    if (t < c->nt && c->range[t].end == e) {
        *out = c->hash[t];
        return MTC_OK;
    }
    if (e - s <= 1)
        return MTC_ERR_PROOF;
    if (c->memo) {
        memo_slot *m = memo_find(c, s, e);
        if (m->e) {
            *out = m->h;
            return MTC_OK;
        }
    }
    uint64_t mid = s + split_point(e - s);
    mtc_hash l, r;
    int rc = compute(c, s, mid, &l);
    if (rc == MTC_OK)
        rc = compute(c, mid, e, &r);
    if (rc != MTC_OK)
        return rc;
    mtc_hash_node(&l, &r, out);
    return c->memo ? memo_put(c, s, e, out) : MTC_OK;
}

/* ---- build ----------------------------------------------------------- */

int mtc_bulk_build(const mtc_node_source *src, uint64_t n,
                   const mtc_subtree *subs, size_t n_subs,
                   mtc_bulk_proof **out)
{
    *out = NULL;
    int rc = check_subtrees(subs, n_subs, n);
    if (rc != MTC_OK)
        return rc;
    if (n > src->size)
        return MTC_ERR_RANGE;
    size_t nt = 0;
    rc = mtc_bulk_tiling(subs, n_subs, n, NULL, 0, &nt);
    if (rc != MTC_OK && rc != MTC_ERR_LIMIT)
        return rc;
    if (nt > MTC_BULK_MAX_TILES)
        return MTC_ERR_LIMIT;
    mtc_subtree *ranges = malloc(nt * sizeof *ranges);
    mtc_bulk_proof *p = malloc(sizeof *p + n_subs * sizeof *p->subtrees +
                               nt * sizeof *p->tiles);
    if (!ranges || !p) {
        free(ranges);
        free(p);
        return MTC_ERR_NOMEM;
    }
    p->tree_size = n;
    p->subtrees = (mtc_bulk_subtree *)(p + 1);
    p->n_subtrees = n_subs;
    p->tiles = (mtc_hash *)(p->subtrees + n_subs);
    p->n_tiles = nt;
    rc = mtc_bulk_tiling(subs, n_subs, n, ranges, nt, &nt);
    for (size_t i = 0; rc == MTC_OK && i < nt; i++)
        rc = mtc_subtree_hash(src, ranges[i].start, ranges[i].end, &p->tiles[i]);
    for (size_t i = 0; rc == MTC_OK && i < n_subs; i++) {
        p->subtrees[i].start = subs[i].start;
        p->subtrees[i].end = subs[i].end;
        rc = mtc_subtree_hash(src, subs[i].start, subs[i].end,
                              &p->subtrees[i].hash);
    }
    free(ranges);
    if (rc != MTC_OK) {
        free(p);
        return rc;
    }
    *out = p;
    return MTC_OK;
}

void mtc_bulk_free(mtc_bulk_proof *p) { free(p); }

/* ---- encoding -------------------------------------------------------- */

static uint8_t *put_u(uint8_t *q, uint64_t v, int bytes)
{
    for (int i = 0; i < bytes; i++)
        q[i] = (uint8_t)(v >> (8 * (bytes - 1 - i)));
    return q + bytes;
}

int mtc_bulk_encode(const mtc_bulk_proof *p, uint8_t *out, size_t cap,
                    size_t *out_len)
{
    *out_len = 0;
    if (p->n_subtrees == 0 || p->n_subtrees > MTC_BULK_MAX_SUBTREES ||
        p->n_tiles == 0 || p->n_tiles > MTC_BULK_MAX_TILES)
        return MTC_ERR_ARG;
    size_t len = mtc_bulk_encoded_len(p->n_subtrees, p->n_tiles);
    *out_len = len;
    if (!out || cap < len)
        return MTC_ERR_LIMIT;
    uint8_t *q = put_u(out, p->tree_size, 8);
    q = put_u(q, 48 * p->n_subtrees, 2);
    for (size_t i = 0; i < p->n_subtrees; i++) {
        q = put_u(q, p->subtrees[i].start, 8);
        q = put_u(q, p->subtrees[i].end, 8);
        memcpy(q, p->subtrees[i].hash.b, MTC_HASH_LEN);
        q += MTC_HASH_LEN;
    }
    q = put_u(q, (uint64_t)MTC_HASH_LEN * p->n_tiles, 2);
    for (size_t i = 0; i < p->n_tiles; i++) {
        memcpy(q, p->tiles[i].b, MTC_HASH_LEN);
        q += MTC_HASH_LEN;
    }
    return MTC_OK;
}

static uint64_t get_u(const uint8_t *q, int bytes)
{
    uint64_t v = 0;
    for (int i = 0; i < bytes; i++)
        v = v << 8 | q[i];
    return v;
}

int mtc_bulk_decode(const uint8_t *in, size_t len, mtc_bulk_proof **out)
{
    *out = NULL;
    if (len < 10)
        return MTC_ERR_PARSE;
    uint64_t n = get_u(in, 8);
    size_t sb = (size_t)get_u(in + 8, 2);
    if (sb == 0 || sb % 48 || len - 10 < sb + 2)
        return MTC_ERR_PARSE;
    const uint8_t *sp = in + 10;
    size_t tb = (size_t)get_u(sp + sb, 2);
    const uint8_t *tp = sp + sb + 2;
    if (tb == 0 || tb % MTC_HASH_LEN || len - 12 - sb != tb)
        return MTC_ERR_PARSE;
    size_t ns = sb / 48, nt = tb / MTC_HASH_LEN;
    mtc_bulk_proof *p = malloc(sizeof *p + ns * sizeof *p->subtrees +
                               nt * sizeof *p->tiles);
    if (!p)
        return MTC_ERR_NOMEM;
    p->tree_size = n;
    p->subtrees = (mtc_bulk_subtree *)(p + 1);
    p->n_subtrees = ns;
    p->tiles = (mtc_hash *)(p->subtrees + ns);
    p->n_tiles = nt;
    for (size_t i = 0; i < ns; i++, sp += 48) {
        p->subtrees[i].start = get_u(sp, 8);
        p->subtrees[i].end = get_u(sp + 8, 8);
        memcpy(p->subtrees[i].hash.b, sp + 16, MTC_HASH_LEN);
    }
    memcpy(p->tiles, tp, tb);
    *out = p;
    return MTC_OK;
}

/* ---- verification ---------------------------------------------------- */

/* Steps 1-3: shape, order, tiling; *ranges gets the derived tile ranges
 * (owned by the caller). */
static int derive(const mtc_bulk_proof *p, uint64_t n, mtc_subtree **ranges)
{
    *ranges = NULL;
    if (p->tree_size != n || p->n_subtrees == 0 || n == 0)
        return MTC_ERR_ARG;
    if (p->n_subtrees > MTC_BULK_MAX_SUBTREES || p->n_tiles > MTC_BULK_MAX_TILES)
        return MTC_ERR_LIMIT;
    mtc_subtree *s = malloc(p->n_subtrees * sizeof *s);
    if (!s)
        return MTC_ERR_NOMEM;
    for (size_t i = 0; i < p->n_subtrees; i++)
        s[i] = (mtc_subtree){p->subtrees[i].start, p->subtrees[i].end};
    int rc = check_subtrees(s, p->n_subtrees, n);
    size_t nt = 0;
    if (rc == MTC_OK) {
        rc = mtc_bulk_tiling(s, p->n_subtrees, n, NULL, 0, &nt);
        if (rc == MTC_ERR_LIMIT)
            rc = MTC_OK;
        if (rc == MTC_OK && nt != p->n_tiles)
            rc = MTC_ERR_PROOF_LEN;
    }
    mtc_subtree *r = NULL;
    if (rc == MTC_OK && !(r = malloc(nt * sizeof *r)))
        rc = MTC_ERR_NOMEM;
    if (rc == MTC_OK)
        rc = mtc_bulk_tiling(s, p->n_subtrees, n, r, nt, &nt);
    free(s);
    if (rc != MTC_OK) {
        free(r);
        return rc;
    }
    *ranges = r;
    return MTC_OK;
}

int mtc_bulk_verify(const mtc_bulk_proof *p, uint64_t n, const mtc_hash *root)
{
    mtc_subtree *ranges;
    int rc = derive(p, n, &ranges);
    if (rc != MTC_OK)
        return rc;
    cctx c = {ranges, p->tiles, p->n_tiles, calloc(256, sizeof(memo_slot)),
              256, 0};
    mtc_hash h;
    rc = c.memo ? compute(&c, 0, n, &h) : MTC_ERR_NOMEM;
    if (rc == MTC_OK && !mtc_hash_equal(&h, root))
        rc = MTC_ERR_PROOF;
    for (size_t i = 0; rc == MTC_OK && i < p->n_subtrees; i++) {
        rc = compute(&c, p->subtrees[i].start, p->subtrees[i].end, &h);
        if (rc == MTC_OK && !mtc_hash_equal(&h, &p->subtrees[i].hash))
            rc = MTC_ERR_PROOF;
    }
    free(c.memo);
    free(ranges);
    return rc;
}

/* ---- a node source over a proof's tiles ------------------------------ */

static int source_range_hash(void *ctx, uint64_t start, uint64_t end,
                             mtc_hash *out)
{
    const mtc_bulk_source_state *st = ctx;
    cctx c = {st->ranges, st->p->tiles, st->p->n_tiles, NULL, 0, 0};
    return compute(&c, start, end, out);
}

int mtc_bulk_source(const mtc_bulk_proof *p, mtc_bulk_source_state *state,
                    mtc_node_source *src)
{
    state->p = p;
    int rc = derive(p, p->tree_size, &state->ranges);
    if (rc != MTC_OK)
        return rc;
    src->range_hash = source_range_hash;
    src->ctx = state;
    src->size = p->tree_size;
    return MTC_OK;
}

void mtc_bulk_source_free(mtc_bulk_source_state *state)
{
    if (state) {
        free(state->ranges);
        state->ranges = NULL;
    }
}
