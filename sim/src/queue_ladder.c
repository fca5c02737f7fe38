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
 * Location of a pending event, in the high bits of ev->flags (the engine
 * uses the low byte): LOC_HEAP (found by scanning the small heap, so that
 * sifting never writes to events), LOC_BUCKET with the rung depth (slot =
 * index within the bucket, which is recomputed from the time), LOC_TOP
 * (slot = index in top).
 */
#include "queue.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "mtc/error.h"

#ifndef LADDER_K
#define LADDER_K 256        /* target events per rung-0 bucket at the front */
#endif
#ifndef LADDER_SPLIT
#define LADDER_SPLIT 16     /* buckets larger than this become a rung... */
#endif
#ifndef LADDER_LEAF
#define LADDER_LEAF 4       /* ...of buckets of about this many events */
#endif
#define LOC_SHIFT 8
#define LOC_MASK (3u << LOC_SHIFT)
#define LOC_HEAP (1u << LOC_SHIFT)
#define LOC_BUCKET (2u << LOC_SHIFT)
#define LOC_TOP (3u << LOC_SHIFT)
#define DEPTH_SHIFT 10
#define DEPTH_MASK (7u << DEPTH_SHIFT)

static inline void set_loc(sim_event *ev, uint32_t loc)
{
    ev->flags = (ev->flags & ~(LOC_MASK | DEPTH_MASK)) | loc;
}

static int vec_reserve(sim__evvec *v, size_t need)
{
    if (need <= v->cap)
        return MTC_OK;
    if (need > UINT32_MAX / 2)
        return MTC_ERR_LIMIT;
    uint32_t cap = v->cap ? v->cap : 8;
    while (cap < need)
        cap *= 2;
    sim_event **nv = realloc(v->v, cap * sizeof *nv);
    if (!nv)
        return MTC_ERR_NOMEM;
    v->v = nv;
    v->cap = cap;
    return MTC_OK;
}

static inline int vec_push(sim__evvec *v, sim_event *ev)
{
    if (v->n == v->cap) {
        int rc = vec_reserve(v, (size_t)v->n + 1);
        if (rc)
            return rc;
    }
    ev->slot = v->n;
    v->v[v->n++] = ev;
    return MTC_OK;
}

static void vec_remove(sim__evvec *v, sim_event *ev)
{
    uint32_t i = ev->slot;
    sim_event *last = v->v[--v->n];
    if (i != v->n) {
        v->v[i] = last;
        last->slot = i;
    }
}

int sim__ladder_init(sim__ladder *q)
{
    memset(q, 0, sizeof *q);
    /* no rung yet: every event (times are >= 0) goes to the top, and the
     * first pop cuts rung 0 */
    q->bot_end = 0;
    return sim__heap4_init(&q->heap, 0);
}

void sim__ladder_free(sim__ladder *q)
{
    sim__heap4_free(&q->heap);
    for (int d = 0; d < SIM__LADDER_DEPTH; d++) {
        for (size_t i = 0; i < q->rung[d].cap; i++)
            free(q->rung[d].bk[i].v);
        free(q->rung[d].bk);
    }
    free(q->top.v);
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
        sim__evvec *bk = realloc(r->bk, nb * sizeof *bk);
        if (!bk)
            return MTC_ERR_NOMEM;
        memset(bk + r->cap, 0, (nb - r->cap) * sizeof *bk);
        r->bk = bk;
        r->cap = nb;
    }
    for (size_t i = 0; i < nb; i++)
        r->bk[i].n = 0;
    r->nb = nb;
    r->cur = 0;
    return MTC_OK;
}

static int heap_push(sim__ladder *q, sim_event *ev)
{
    int rc = sim__heap4_push(&q->heap, ev);
    if (rc == MTC_OK)
        set_loc(ev, LOC_HEAP);
    return rc;
}

int sim__ladder_push(sim__ladder *q, sim_event *ev)
{
    int rc;
    sim_time t = ev->time;
    if (t < q->bot_end) {
        rc = heap_push(q, ev);
    } else {
        int d = q->depth - 1;
        while (d >= 0 && t >= q->rung[d].end)
            d--;
        if (d >= 0) {
            rc = vec_push(&q->rung[d].bk[bucket_of(&q->rung[d], t)], ev);
            if (rc == MTC_OK)
                set_loc(ev, LOC_BUCKET | ((uint32_t)d << DEPTH_SHIFT));
        } else {
            rc = vec_push(&q->top, ev);
            if (rc == MTC_OK)
                set_loc(ev, LOC_TOP);
        }
    }
    if (rc == MTC_OK)
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
    for (size_t i = 0; i < n; i++) {
        sim_time t = q->top.v[i]->time;
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
    for (size_t i = 0; i < n; i++) {
        sim_time t = q->top.v[i]->time;
        if (t < r->end || r->end == SIM_TIME_MAX)
            r->bk[bucket_of(r, t)].n++;
    }
    for (size_t b = 0; b < nb; b++) {
        size_t c = r->bk[b].n;
        r->bk[b].n = 0;
        if (rc == MTC_OK)
            rc = vec_reserve(&r->bk[b], c);
    }
    if (rc)
        return rc;
    sim_event **v = q->top.v;
    size_t keep = 0;
    for (size_t i = 0; i < n; i++) {
        sim_event *ev = v[i];
        if (ev->time >= r->end && r->end != SIM_TIME_MAX) {
            v[keep] = ev;
            ev->slot = (uint32_t)keep++;
            continue;
        }
        sim__evvec *bk = &r->bk[bucket_of(r, ev->time)];
        ev->slot = bk->n;
        bk->v[bk->n++] = ev;
        set_loc(ev, LOC_BUCKET);
    }
    q->top.n = keep;
    q->depth = 1;
    q->bot_end = lo;
    return MTC_OK;
}

/* Splits bucket b = [bstart, bend) of the deepest rung into a new rung of
 * buckets of about LADDER_LEAF events. MTC_OK, or an error with nothing
 * moved. */
static int split(sim__ladder *q, sim__evvec *b, sim_time bstart, sim_time bend)
{
    int d = q->depth;
    sim__rung *r = &q->rung[d];
    sim_time mx = bstart;
    for (uint32_t i = 0; i < b->n; i++)
        if (b->v[i]->time > mx)
            mx = b->v[i]->time;
    if (mx == bstart)
        return MTC_ERR_LIMIT; /* all at one time: nothing to split */
    size_t nb = b->n / LADDER_LEAF + 1;
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
        r->bk[bucket_of(r, b->v[i]->time)].n++;
    for (size_t k = 0; k < nb; k++) {
        size_t c = r->bk[k].n;
        r->bk[k].n = 0;
        if (rc == MTC_OK)
            rc = vec_reserve(&r->bk[k], c);
    }
    if (rc)
        return rc;
    uint32_t loc = LOC_BUCKET | ((uint32_t)d << DEPTH_SHIFT);
    for (uint32_t i = 0; i < b->n; i++) {
        sim_event *ev = b->v[i];
        sim__evvec *bk = &r->bk[bucket_of(r, ev->time)];
        ev->slot = bk->n;
        bk->v[bk->n++] = ev;
        set_loc(ev, loc);
    }
    b->n = 0;
    q->depth = d + 1;
    q->bot_end = bstart;
    return MTC_OK;
}

/* Refills the empty heap from the rungs (cutting rung 0 when there is
 * none). 1 when the heap has events, 0 when the queue is empty, < 0 on
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
        sim__evvec *b = &r->bk[r->cur];
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
            split(q, b, bstart, bend) == MTC_OK)
            continue;
        /* move the bucket into the heap; on failure put back what was
         * not moved (the heap keeps what it got: still ordered) */
        uint32_t n = b->n;
        q->bot_end = bend;
        for (uint32_t i = 0; i < n; i++) {
            if (i + 8 < n)
                __builtin_prefetch(b->v[i + 8]);
            if (heap_push(q, b->v[i]) != MTC_OK) {
                memmove(b->v, b->v + i, (n - i) * sizeof *b->v);
                b->n = n - i;
                for (uint32_t j = 0; j < b->n; j++)
                    b->v[j]->slot = j;
                r->cur--;
                q->bot_end = bstart;
                return q->heap.n ? 1 : MTC_ERR_NOMEM;
            }
        }
        b->n = 0;
    }
    return 1;
}

int sim__ladder_pop_upto(sim__ladder *q, sim_time limit, sim_event **out)
{
    *out = NULL;
    if (q->heap.n == 0) {
        int r = refill(q);
        if (r <= 0)
            return r;
    }
    *out = sim__heap4_pop_upto(&q->heap, limit);
    if (*out)
        q->n--;
    return MTC_OK;
}

void sim__ladder_remove(sim__ladder *q, sim_event *ev)
{
    switch (ev->flags & LOC_MASK) {
    case LOC_HEAP:
        sim__heap4_remove(&q->heap, ev);
        break;
    case LOC_BUCKET: {
        sim__rung *r = &q->rung[(ev->flags & DEPTH_MASK) >> DEPTH_SHIFT];
        vec_remove(&r->bk[bucket_of(r, ev->time)], ev);
        break;
    }
    default:
        vec_remove(&q->top, ev);
        break;
    }
    set_loc(ev, 0);
    q->n--;
}
