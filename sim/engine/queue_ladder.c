/*
 * queue_ladder.c - ladder queue: unsorted top, rungs of buckets, small heap.
 *
 * Why: at 10^6 pending events a heap's sift walks ~10 levels of a 24 MB
 * array in a dependent chain of cache misses, and a calendar queue walks a
 * list per insert. Here an insert appends a pointer to a bucket array (the
 * tails of the few thousand active buckets stay in cache); a bucket, when
 * its time comes, is either split into a finer rung (when it holds more
 * than LADDER_SPLIT events) or moved into the heap, which therefore holds
 * a handful of events and costs a few comparisons. This follows the ladder
 * queue of Tang, Goh and Thng (ACM TOMACS 2005) with a heap instead of a
 * sorted list as the bottom, and rung 0's width taken from the spacing of
 * the earliest events rather than from the whole span.
 *
 * Time is partitioned: heap < bot_end <= deepest rung < ... < rung 0 <=
 * top; within the heap the order is (time, seq). So the order is exact
 * and identical to the other queues'.
 *
 * Entries carry their key, (time, seq), next to the event pointer: cuts,
 * splits and moves into the heap read and copy entries sequentially and
 * never touch an event. An entry is found for removal from its time alone
 * (the partition above says which tier and bucket holds it). Removal from
 * a small bucket or the heap is immediate; from a big bucket or the top
 * (thousands of entries) the seq is recorded as stale and the entry is
 * dropped when it surfaces (the stale keys form a min-heap: the next one
 * to surface is its minimum, one comparison per pop), and when stale
 * entries reach a quarter of those held they are purged in one pass, so
 * memory stays within 4/3 of the pending events.
 */
#include "queue.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "sim/status.h"

#ifndef LADDER_K
/* Target events per rung-0 bucket at the front; rung 0 has at most
 * 4n/LADDER_K buckets. Every insert appends to the one its time falls
 * in, so their tails and descriptors should stay in cache: at 10^6
 * pending, 4096 makes ~980 buckets (~78 KB of tails and descriptors)
 * where 256 made ~15,600 (~1.2 MB); the bigger buckets cost a wider
 * split each (at most LADDER_FANOUT children, the big ones split again). */
#define LADDER_K 4096
#endif
#ifndef LADDER_SPLIT
#define LADDER_SPLIT 16     /* buckets larger than this become a rung... */
#endif
#ifndef LADDER_LEAF
#define LADDER_LEAF 4       /* ...of buckets of about this many events */
#endif
#ifndef LADDER_FANOUT
#define LADDER_FANOUT 1024  /* ...but at most this many per split */
#endif
#ifndef LADDER_KEEP_CAP
#define LADDER_KEEP_CAP 4096 /* consumed buckets keep arrays up to this */
#endif
#ifndef LADDER_SCAN_MAX
#define LADDER_SCAN_MAX 64  /* remove by search from vectors up to this size */
#endif

/* Releases v's array (to the slab when it came from there). */
static void vec_drop(sim__ladder *q, sim__nvec *v)
{
    if (v->v) {
        int cls = sim__slab_class(v->cap);
        if (cls >= 0)
            sim__slab_release(&q->slab, v->v, cls);
        else
            free(v->v);
    }
    v->v = NULL;
    v->cap = 0;
}

/* Moves v's entries into a new array of cap (>= v->n) nodes: a slab block
 * when cap is a slab class (bucket arrays: on huge pages), else malloc'd.
 * On failure v is unchanged. */
static int vec_setcap(sim__ladder *q, sim__nvec *v, uint32_t cap)
{
    int cls = sim__slab_class(cap);
    sim__hnode *nv = cls >= 0 ? sim__slab_alloc(&q->slab, cls)
                              : malloc((size_t)cap * sizeof *nv);
    if (!nv)
        return SIM_ERR_NOMEM;
    if (v->n)
        memcpy(nv, v->v, (size_t)v->n * sizeof *nv);
    vec_drop(q, v);
    v->v = nv;
    v->cap = cap;
    return SIM_OK;
}

static int vec_reserve(sim__ladder *q, sim__nvec *v, size_t need)
{
    if (need <= v->cap)
        return SIM_OK;
    if (need > UINT32_MAX / 2)
        return SIM_ERR_LIMIT;
    uint32_t cap = v->cap ? v->cap : SIM__SLAB_MIN;
    while (cap < need)
        cap *= 2;
    return vec_setcap(q, v, cap);
}

static inline int vec_push(sim__ladder *q, sim__nvec *v, sim__hnode x)
{
    if (v->n == v->cap) {
        int rc = vec_reserve(q, v, (size_t)v->n + 1);
        if (rc)
            return rc;
    }
    v->v[v->n++] = x;
    return SIM_OK;
}

/* Capacity for exactly `need` more entries, also releasing most of an
 * allocation left much larger by an earlier, denser use of this bucket:
 * bucket arrays are reused from cut to cut, and without this their
 * capacities ratchet up to the densest cut ever seen. */
static int vec_fit(sim__ladder *q, sim__nvec *v, size_t need)
{
    if (v->n == 0 && v->cap > 64 && v->cap / 4 > need) {
        uint32_t cap = SIM__SLAB_MIN;
        while (cap < need)
            cap *= 2;
        /* on failure keep the larger block: still correct */
        (void)vec_setcap(q, v, cap);
    }
    return vec_reserve(q, v, need);
}

/* Frees the array of a consumed (empty) bucket that grew big: rung 0's
 * buckets fill with near-term pushes, and keeping each one's peak
 * capacity until the next cut held ~20x the pending events in memory. */
static void release_big(sim__ladder *q, sim__nvec *v)
{
    if (v->n == 0 && v->cap > LADDER_KEEP_CAP)
        vec_drop(q, v);
}

/* Removes the entry with this seq (order within a vector is free). */
static int vec_remove_seq(sim__nvec *v, uint64_t seq)
{
    for (uint32_t i = 0; i < v->n; i++)
        if (v->v[i].seq == seq) {
            v->v[i] = v->v[--v->n];
            return 1;
        }
    return 0;
}

/* ---- stale entries ----
 *
 * The keys of removed entries still held, in a min-heap on (time, seq).
 * The queue surfaces entries in (time, seq) order, so the next stale entry
 * to surface is always the stale heap's minimum: a popped entry is stale
 * iff its key equals that minimum. One comparison per pop, no lookup. */

static inline int is_next_stale(const sim__ladder *q, const sim__hnode *x)
{
    return q->stale.n && q->stale.a[0].seq == x->seq;
}

static int cmp_u64(const void *x, const void *y)
{
    uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
    return (a > b) - (a < b);
}

int sim__ladder_init(sim__ladder *q)
{
    memset(q, 0, sizeof *q);
    /* no rung yet: every event (times are >= 0) goes to the top, and the
     * first pop cuts rung 0 */
    q->bot_end = 0;
    sim__slab_init(&q->slab);
    sim__heap4_init(&q->stale, 0);
    return sim__heap4_init(&q->heap, 0);
}

void sim__ladder_free(sim__ladder *q)
{
    sim__heap4_free(&q->heap);
    for (int d = 0; d < SIM__LADDER_DEPTH; d++) {
        for (size_t i = 0; i < q->rung[d].cap; i++)
            vec_drop(q, &q->rung[d].bk[i]);
        free(q->rung[d].bk);
    }
    vec_drop(q, &q->top);
    sim__heap4_free(&q->stale);
    sim__slab_free(&q->slab);
    memset(q, 0, sizeof *q);
}

/* start + i * w, saturating at SIM_TIME_MAX (rungs near the end of time). */
static inline sim_time sat_offset(sim_time start, uint64_t i, uint64_t w)
{
    if (w && i > (uint64_t)(SIM_TIME_MAX - start) / w)
        return SIM_TIME_MAX;
    return start + (sim_time)(i * w);
}

static inline size_t bucket_of(const sim__rung *r, sim_time t)
{
    uint64_t b = (uint64_t)(t - r->start) / (uint64_t)r->w;
    return b < r->nb ? (size_t)b : r->nb - 1;
}

/* Makes room for nb buckets at depth d, all empty. */
static int rung_buckets(sim__rung *r, size_t nb)
{
    if (nb > r->cap) {
        sim__nvec *bk = realloc(r->bk, nb * sizeof *bk);
        if (!bk)
            return SIM_ERR_NOMEM;
        memset(bk + r->cap, 0, (nb - r->cap) * sizeof *bk);
        r->bk = bk;
        r->cap = nb;
    }
    for (size_t i = 0; i < nb; i++)
        r->bk[i].n = 0;
    r->nb = nb;
    r->cur = 0;
    return SIM_OK;
}

/* The vector that holds (or would hold) an entry at time t; NULL: the
 * heap. */
static sim__nvec *home_of(sim__ladder *q, sim_time t)
{
    if (t < q->bot_end)
        return NULL;
    int d = q->depth - 1;
    while (d >= 0 && t >= q->rung[d].end)
        d--;
    return d >= 0 ? &q->rung[d].bk[bucket_of(&q->rung[d], t)] : &q->top;
}

int sim__ladder_push(sim__ladder *q, sim_event *ev)
{
    sim__hnode x = {ev->time, ev->seq, ev};
    sim__nvec *v = home_of(q, x.time);
    int rc = v ? vec_push(q, v, x) : sim__heap4_push_node(&q->heap, x);
    if (rc == SIM_OK)
        q->n++;
    return rc;
}

static int cmp_time(const void *x, const void *y)
{
    sim_time a = *(const sim_time *)x, b = *(const sim_time *)y;
    return (a > b) - (a < b);
}

/* Cuts rung 0 from the top. Called with no rung and an empty heap. The
 * width is chosen from a strided sample of the pending times so that the
 * first bucket holds about LADDER_K events (the density is highest at the
 * front), but wide enough that the rung reaches the sample's 99th
 * percentile: a cut then takes in ~99 % of the pending events and is paid
 * for by as many pops, whatever the shape of the distribution. The far
 * tail stays in the top for the next cut. */
static int cut_rung0(sim__ladder *q)
{
    enum { SAMPLE = 256 };
    sim_time smp[SAMPLE];
    size_t n = q->top.n, m = 0;
    assert(n > 0); /* the other tiers are empty and q->n > 0 */
    size_t stride = n / SAMPLE + 1;
    sim_time lo = SIM_TIME_MAX;
    const sim__hnode *tv = q->top.v;
    for (size_t i = 0; i < n; i++) {
        sim_time t = tv[i].time;
        if (t < lo)
            lo = t;
        if (i % stride == 0 && m < SAMPLE)
            smp[m++] = t;
    }
    qsort(smp, m, sizeof smp[0], cmp_time);
    size_t qi = (size_t)((double)LADDER_K / (double)n * (double)m);
    if (qi >= m)
        qi = m - 1;
    size_t max_nb = 4 * (n / LADDER_K) + 1;
    uint64_t w = (uint64_t)smp[qi] - (uint64_t)lo;
    uint64_t body = (uint64_t)smp[m - 1 - m / 100] - (uint64_t)lo + 1;
    uint64_t w_body = body / max_nb + (body % max_nb != 0);
    if (w < w_body)
        w = w_body;
    if (w == 0)
        w = 1;
    uint64_t hi_s = (uint64_t)smp[m - 1] - (uint64_t)lo + 1;
    uint64_t need = hi_s / w + 1;
    size_t nb = need < max_nb ? (size_t)need : max_nb;
    sim__rung *r = &q->rung[0];
    int rc = rung_buckets(r, nb);
    if (rc)
        return rc;
    r->start = lo;
    r->w = (sim_time)w;
    uint64_t end = (uint64_t)lo + w * nb;
    if (w > (uint64_t)SIM_TIME_MAX / nb || end > (uint64_t)SIM_TIME_MAX)
        end = (uint64_t)SIM_TIME_MAX;
    r->end = (sim_time)end;
    /* count first, reserve, then move: an allocation failure leaves the
     * top untouched */
    int all = r->end == SIM_TIME_MAX;
    for (size_t i = 0; i < n; i++)
        if (all || tv[i].time < r->end)
            r->bk[bucket_of(r, tv[i].time)].n++;
    for (size_t b = 0; b < nb; b++) {
        size_t c = r->bk[b].n;
        r->bk[b].n = 0;
        if (rc == SIM_OK)
            rc = vec_fit(q, &r->bk[b], c);
    }
    if (rc)
        return rc;
    sim__hnode *v = q->top.v;
    size_t keep = 0;
    for (size_t i = 0; i < n; i++) {
        sim__hnode x = v[i];
        if (!all && x.time >= r->end) {
            v[keep++] = x;
            continue;
        }
        sim__nvec *bk = &r->bk[bucket_of(r, x.time)];
        bk->v[bk->n++] = x;
    }
    q->top.n = (uint32_t)keep;
    q->depth = 1;
    q->bot_end = lo;
    return SIM_OK;
}

/* Splits bucket b = [bstart, bend) of the deepest rung into a new rung of
 * buckets of about LADDER_LEAF events. SIM_OK, or an error with nothing
 * moved. */
static int split(sim__ladder *q, sim__nvec *b, sim_time bstart, sim_time bend)
{
    int d = q->depth;
    sim__rung *r = &q->rung[d];
    sim_time mx = bstart;
    for (uint32_t i = 0; i < b->n; i++)
        if (b->v[i].time > mx)
            mx = b->v[i].time;
    if (mx == bstart)
        return SIM_ERR_LIMIT; /* all at one time: nothing to split */
    /* A bucket of 10^5 events (rung 0 cut while most events were far
     * off, then filled by near-term pushes) split straight into 10^5/4
     * buckets would scatter its entries at random over megabytes; at
     * most LADDER_FANOUT buckets keep every bucket tail in cache, and
     * the children that are still big split again. */
    size_t nb = b->n / LADDER_LEAF + 1;
    if (nb > LADDER_FANOUT)
        nb = LADDER_FANOUT;
    uint64_t span = (uint64_t)mx - (uint64_t)bstart + 1;
    if (nb > span)
        nb = (size_t)span; /* no bucket narrower than 1 us */
    uint64_t w = span / nb + (span % nb != 0);
    int rc = rung_buckets(r, nb);
    if (rc)
        return rc;
    r->start = bstart;
    r->w = (sim_time)w;
    r->end = bend;
    for (uint32_t i = 0; i < b->n; i++)
        r->bk[bucket_of(r, b->v[i].time)].n++;
    for (size_t k = 0; k < nb; k++) {
        size_t c = r->bk[k].n;
        r->bk[k].n = 0;
        if (rc == SIM_OK)
            rc = vec_fit(q, &r->bk[k], c);
    }
    if (rc)
        return rc;
    for (uint32_t i = 0; i < b->n; i++) {
        sim__nvec *bk = &r->bk[bucket_of(r, b->v[i].time)];
        bk->v[bk->n++] = b->v[i];
        /* these events fire within the next few hundred: load them now,
         * many misses in flight at once */
        __builtin_prefetch(b->v[i].ev);
    }
    b->n = 0;
    release_big(q, b);
    q->depth = d + 1;
    q->bot_end = bstart;
    return SIM_OK;
}

/* Refills the empty heap from the rungs (cutting rung 0 when there is
 * none). 1 when the heap has entries, 0 when the queue is empty, < 0 on
 * error with the order intact. */
static int refill(sim__ladder *q)
{
    while (q->heap.n == 0) {
        if (q->n == 0)
            return 0;
        if (q->depth == 0) {
            int rc = cut_rung0(q);
            if (rc)
                return rc;
            continue;
        }
        sim__rung *r = &q->rung[q->depth - 1];
        while (r->cur < r->nb && r->bk[r->cur].n == 0)
            r->cur++;
        if (r->cur == r->nb) {
            q->bot_end = r->end;
            q->depth--;
            continue;
        }
        sim__nvec *b = &r->bk[r->cur];
        sim_time bstart = sat_offset(r->start, r->cur, (uint64_t)r->w);
        sim_time bend = r->cur + 1 == r->nb
                            ? r->end
                            : sat_offset(r->start, r->cur + 1, (uint64_t)r->w);
        /* a split rung's buckets may reach past its end (the width is
         * rounded up): the rung ends where its parent's bucket did */
        if (bend > r->end)
            bend = r->end;
        if (bstart > bend)
            bstart = bend;
        r->cur++;
        if (b->n > LADDER_SPLIT && q->depth < SIM__LADDER_DEPTH &&
            split(q, b, bstart, bend) == SIM_OK)
            continue;
        /* move the bucket into the heap; on failure put back what was
         * not moved (the heap keeps what it got: still ordered). These
         * events fire next: start loading them now, together, rather than
         * one cache miss at a time when each fires (a prefetch of a stale
         * entry's event, even a freed one, is harmless). */
        uint32_t n = b->n;
        q->bot_end = bend;
        for (uint32_t i = 0; i < n; i++)
            __builtin_prefetch(b->v[i].ev);
        for (uint32_t i = 0; i < n; i++) {
            if (sim__heap4_push_node(&q->heap, b->v[i]) != SIM_OK) {
                memmove(b->v, b->v + i, (n - i) * sizeof *b->v);
                b->n = n - i;
                r->cur--;
                q->bot_end = bstart;
                return q->heap.n ? 1 : SIM_ERR_NOMEM;
            }
        }
        b->n = 0;
        release_big(q, b);
    }
    return 1;
}

int sim__ladder_pop_upto(sim__ladder *q, sim_time limit, sim_event **out)
{
    *out = NULL;
    for (;;) {
        if (q->heap.n == 0) {
            int r = refill(q);
            if (r <= 0)
                return r;
        }
        sim__hnode x;
        if (!sim__heap4_pop_node_upto(&q->heap, limit, &x))
            return SIM_OK;
        q->n--;
        if (is_next_stale(q, &x)) {
            sim__hnode y;
            sim__heap4_pop_node_upto(&q->stale, SIM_TIME_MAX, &y);
            continue;
        }
        *out = x.ev;
        return SIM_OK;
    }
}

/* 1 if v holds the seq in the sorted array k[0..n). */
static int in_sorted(const uint64_t *k, size_t n, uint64_t seq)
{
    return bsearch(&seq, k, n, sizeof *k, cmp_u64) != NULL;
}

static size_t purge_vec(sim__nvec *v, const uint64_t *k, size_t nk)
{
    size_t dropped = 0;
    for (uint32_t i = 0; i < v->n;)
        if (in_sorted(k, nk, v->v[i].seq)) {
            v->v[i] = v->v[--v->n];
            dropped++;
        } else {
            i++;
        }
    return dropped;
}

/* Drops every stale entry in one pass. Without memory for the sorted key
 * list it does nothing (stale entries are still dropped as they surface). */
static void purge_stale(sim__ladder *q)
{
    size_t nk = q->stale.n;
    uint64_t *k = malloc(nk * sizeof *k);
    if (!k)
        return;
    for (size_t i = 0; i < nk; i++)
        k[i] = q->stale.a[i].seq;
    qsort(k, nk, sizeof *k, cmp_u64);
    size_t dropped = 0;
    for (int d = 0; d < q->depth; d++) {
        sim__rung *r = &q->rung[d];
        for (size_t b = r->cur; b < r->nb; b++)
            dropped += purge_vec(&r->bk[b], k, nk);
    }
    dropped += purge_vec(&q->top, k, nk);
    for (size_t i = 0; i < nk; i++)
        dropped += (size_t)sim__heap4_remove_seq(&q->heap, k[i]);
    free(k);
    /* every stale key named an entry held somewhere above */
    assert(dropped == nk);
    q->n -= dropped;
    q->stale.n = 0;
}

/* Takes the entry out wherever it is (a full search: the last resort). */
static int remove_anywhere(sim__ladder *q, uint64_t seq)
{
    if (sim__heap4_remove_seq(&q->heap, seq) || vec_remove_seq(&q->top, seq))
        return 1;
    for (int d = 0; d < q->depth; d++)
        for (size_t b = q->rung[d].cur; b < q->rung[d].nb; b++)
            if (vec_remove_seq(&q->rung[d].bk[b], seq))
                return 1;
    return 0;
}

void sim__ladder_remove(sim__ladder *q, sim_time time, uint64_t seq)
{
    /* Immediate removal where the partition says the entry is, when that
     * is the heap or a small bucket. Entries at SIM_TIME_MAX can sit in
     * the last bucket of a rung that reaches the end of time, or in the
     * heap after it; a stale key is right wherever the entry is. */
    sim__nvec *v = home_of(q, time);
    if (!v) {
        if (sim__heap4_remove_seq(&q->heap, seq)) {
            q->n--;
            return;
        }
    } else if (v->n <= LADDER_SCAN_MAX && vec_remove_seq(v, seq)) {
        q->n--;
        return;
    }
    sim__hnode key = {time, seq, NULL};
    if (sim__heap4_push_node(&q->stale, key) == SIM_OK) {
        if (q->stale.n > LADDER_SCAN_MAX && 4 * q->stale.n > q->n)
            purge_stale(q);
        return;
    }
    /* no memory to record it */
    if (remove_anywhere(q, seq))
        q->n--;
}
