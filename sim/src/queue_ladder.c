/*
 * queue_ladder.c - ladder queue: cache-resident heap + rungs of unsorted
 * buckets.
 *
 * Why: at 10^6 pending events a heap's sift touches ~10 levels of a 16 MB
 * array in a dependent chain, and every moved node writes into a random
 * event; a calendar queue does a dependent list walk per insert. Here most
 * inserts append a pointer to one of ~n/LADDER_K bucket arrays (whose tails
 * stay in cache) and sorting happens only in a heap of ~LADDER_K events.
 * This is the ladder queue of Tang, Goh and Thng (ACM TOMACS 2005) with a
 * heap as its bottom. Rung 0 is cut so that it reaches the 99th percentile
 * of the pending times (every cut is then paid for by as many pops); where
 * the front is much denser than that average (a web population: clients
 * online now fire every few minutes, offline ones hours later, sites
 * months later) a rung-0 bucket holds far more than LADDER_K events, and
 * instead of heapifying it (a single-rung ladder then sorted ~10^5 events
 * in its heap) it is spawned into a finer rung below.
 *
 * Location of a pending event, in the high bits of ev->flags (the engine
 * uses the low byte): LOC_HEAP (found by scanning the small heap, so that
 * sifting never writes to events), LOC_BUCKET with the rung index (slot =
 * index in bucket (time - start) / w of that rung), LOC_TOP (slot = index
 * in top). Order is exact: heap, rungs (deepest first) and top partition
 * time, and the heap orders by (time, seq).
 */
#include "queue.h"

#include <stdlib.h>
#include <string.h>

#include "mtc/error.h"

#ifndef LADDER_K
#define LADDER_K 128
#endif
/* A bucket with more events than this is spawned into a new rung of
 * buckets holding about LADDER_CHILD events each. */
#define LADDER_SPAWN (4 * LADDER_K)
#define LADDER_CHILD (LADDER_K / 2)
#define LOC_SHIFT 8
#define LOC_MASK (3u << LOC_SHIFT)
#define RUNG_SHIFT 10
#define RUNG_MASK (7u << RUNG_SHIFT)
#define LOC_HEAP (1u << LOC_SHIFT)
#define LOC_BUCKET (2u << LOC_SHIFT)
#define LOC_TOP (3u << LOC_SHIFT)

static inline void set_loc(sim_event *ev, uint32_t loc)
{
    ev->flags = (ev->flags & ~(LOC_MASK | RUNG_MASK)) | loc;
}

static inline uint32_t loc_bucket(size_t rung)
{
    return LOC_BUCKET | (uint32_t)rung << RUNG_SHIFT;
}

static int vec_push(sim__evvec *v, sim_event *ev)
{
    if (v->n == v->cap) {
        uint32_t cap = v->cap ? v->cap * 2 : 8;
        if (cap < v->cap)
            return MTC_ERR_LIMIT;
        sim_event **nv = realloc(v->v, cap * sizeof *nv);
        if (!nv)
            return MTC_ERR_NOMEM;
        v->v = nv;
        v->cap = cap;
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
    for (size_t r = 0; r < SIM_LADDER_RUNGS; r++) {
        for (size_t i = 0; i < q->rung[r].bk_cap; i++)
            free(q->rung[r].bk[i].v);
        free(q->rung[r].bk);
    }
    free(q->top.v);
    memset(q, 0, sizeof *q);
}

/* The bucket of rung r for time t (t in the rung's span; an event at
 * SIM_TIME_MAX past a saturated end goes to the last bucket). */
static inline size_t bucket_of(const sim__rung *r, sim_time t)
{
    size_t b = (size_t)((uint64_t)(t - r->start) / (uint64_t)r->w);
    return b < r->nb ? b : r->nb - 1;
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
        /* rung i+1 spans the bucket of rung i just before its `cur` */
        size_t r = q->nr;
        while (r > 0 && t >= q->rung[r - 1].end)
            r--;
        if (r > 0) {
            sim__rung *g = &q->rung[r - 1];
            rc = vec_push(&g->bk[bucket_of(g, t)], ev);
            if (rc == MTC_OK)
                set_loc(ev, loc_bucket(r - 1));
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

/* Makes room for nb buckets in rung g (all empty). */
static int rung_reserve(sim__rung *g, size_t nb)
{
    if (nb > g->bk_cap) {
        sim__evvec *nbk = realloc(g->bk, nb * sizeof *nbk);
        if (!nbk)
            return MTC_ERR_NOMEM;
        memset(nbk + g->bk_cap, 0, (nb - g->bk_cap) * sizeof *nbk);
        g->bk = nbk;
        g->bk_cap = nb;
    }
    for (size_t i = 0; i < nb; i++)
        g->bk[i].n = 0;
    return MTC_OK;
}

/* Re-cuts the front of the top into rung 0. Called with heap and rungs
 * empty. The width is chosen from a strided sample of the pending times so
 * that the first bucket holds about LADDER_K events (the density is highest
 * at the front), but wide enough that the rung (at most 4n/LADDER_K+1
 * buckets) reaches the sample's 99th percentile: every cut then takes in
 * ~99 % of the pending events and is paid for by as many pops, whatever
 * the shape of the distribution. Buckets that end up much fuller than
 * LADDER_K are spawned into finer rungs when they are reached. Later
 * events (the far tail, about 1 %) stay in the top for the next cut. */
static int rebuild(sim__ladder *q)
{
    enum { SAMPLE = 256 };
    sim_time smp[SAMPLE];
    size_t n = q->top.n, m = 0;
    size_t stride = n / SAMPLE + 1;
    sim_time lo = SIM_TIME_MAX, hi = 0;
    for (size_t i = 0; i < n; i++) {
        if (i + 8 < n)
            __builtin_prefetch(q->top.v[i + 8]);
        sim_time t = q->top.v[i]->time;
        if (t < lo)
            lo = t;
        if (t > hi)
            hi = t;
        if (i % stride == 0 && m < SAMPLE)
            smp[m++] = t;
    }
    qsort(smp, m, sizeof smp[0], cmp_time);
    /* the sample quantile K/n estimates where the first K events end */
    size_t qi = (size_t)((double)LADDER_K / (double)n * (double)m);
    if (qi >= m)
        qi = m - 1;
    uint64_t w = (uint64_t)smp[qi] - (uint64_t)lo;
    uint64_t span = (uint64_t)hi - (uint64_t)lo + 1;
    size_t max_nb = 4 * (n / LADDER_K) + 1;
    uint64_t body = (uint64_t)smp[m - 1 - m / 100] - (uint64_t)lo + 1;
    uint64_t w_body = body / max_nb + (body % max_nb != 0);
    if (w < w_body)
        w = w_body;
    if (w == 0)
        w = 1;
    uint64_t need = span / w + (span % w != 0);
    size_t nb = need < max_nb ? (size_t)need : max_nb;
    if (nb == 0)
        nb = 1;
    sim__rung *g = &q->rung[0];
    if (rung_reserve(g, nb) != MTC_OK)
        return MTC_ERR_NOMEM;
    g->nb = nb;
    g->w = (sim_time)w;
    g->start = lo;
    g->cur = 0;
    uint64_t end = (uint64_t)lo + w * nb;
    if (w > (uint64_t)SIM_TIME_MAX / nb || end > (uint64_t)SIM_TIME_MAX)
        end = (uint64_t)SIM_TIME_MAX;
    g->end = (sim_time)end;
    q->nr = 1;
    q->bot_end = lo;
    sim_event **v = q->top.v;
    size_t keep = 0;
    int rc = MTC_OK;
    for (size_t i = 0; i < n; i++) {
        sim_event *ev = v[i];
        if (i + 8 < n)
            __builtin_prefetch(v[i + 8]);
        /* an event at SIM_TIME_MAX with a saturated end: last bucket */
        if (ev->time >= g->end && g->end != SIM_TIME_MAX) {
            v[keep] = ev;
            ev->slot = (uint32_t)keep++;
            continue;
        }
        if (rc == MTC_OK &&
            (rc = vec_push(&g->bk[bucket_of(g, ev->time)], ev)) == MTC_OK) {
            set_loc(ev, loc_bucket(0));
            continue;
        }
        /* out of memory: keep it in the top (keep <= i: there is room) */
        v[keep] = ev;
        ev->slot = (uint32_t)keep++;
    }
    q->top.n = keep;
    if (rc) {
        /* undo: everything back into top, no rung */
        for (size_t b = 0; b < nb; b++) {
            for (uint32_t i = 0; i < g->bk[b].n; i++) {
                sim_event *ev = g->bk[b].v[i];
                q->top.v[q->top.n] = ev;
                ev->slot = (uint32_t)q->top.n++;
                set_loc(ev, LOC_TOP);
            }
            g->bk[b].n = 0;
        }
        q->nr = 0;
        q->bot_end = lo;
    }
    return rc;
}

/* Spawns bucket b = [start, end) of the deepest rung into a new rung of
 * finer buckets. 0: done (b is empty); 1: the span cannot be cut finer;
 * MTC_ERR_NOMEM: b is unchanged. */
static int spawn(sim__ladder *q, sim__evvec *b, sim_time start, sim_time end)
{
    uint64_t span = (uint64_t)end - (uint64_t)start;
    uint64_t want = b->n / LADDER_CHILD + 1;
    uint64_t w = span / want + (span % want != 0);
    if (w == 0)
        w = 1;
    uint64_t nb = span / w + (span % w != 0);
    if (nb < 2)
        return 1;
    size_t ri = q->nr;
    sim__rung *g = &q->rung[ri];
    if (rung_reserve(g, (size_t)nb) != MTC_OK)
        return MTC_ERR_NOMEM;
    g->nb = (size_t)nb;
    g->w = (sim_time)w;
    g->start = start;
    g->end = end;
    g->cur = 0;
    uint32_t n = b->n;
    for (uint32_t i = 0; i < n; i++) {
        sim_event *ev = b->v[i];
        if (i + 8 < n)
            __builtin_prefetch(b->v[i + 8]);
        if (vec_push(&g->bk[bucket_of(g, ev->time)], ev) != MTC_OK) {
            /* undo: b still lists every event */
            for (uint32_t j = 0; j < n; j++) {
                b->v[j]->slot = j;
                set_loc(b->v[j], loc_bucket(ri - 1));
            }
            for (size_t k = 0; k < g->nb; k++)
                g->bk[k].n = 0;
            return MTC_ERR_NOMEM;
        }
        set_loc(ev, loc_bucket(ri));
    }
    b->n = 0;
    q->nr = ri + 1;
    q->bot_end = start;
    return 0;
}

/* Takes the next nonempty bucket of the deepest rung: spawns it into a
 * finer rung when it is too full, else moves it into the (empty) heap.
 * 1: the heap is filled; 0: no rung is left; -1: out of memory (the
 * order is intact). */
static int advance(sim__ladder *q)
{
    while (q->nr > 0) {
        sim__rung *g = &q->rung[q->nr - 1];
        if (g->cur == g->nb) {
            /* exhausted; bot_end is already its end */
            q->nr--;
            continue;
        }
        size_t bi = g->cur++;
        sim__evvec *b = &g->bk[bi];
        sim_time b_start = g->start + (sim_time)bi * g->w;
        q->bot_end = g->cur == g->nb ? g->end : b_start + g->w;
        if (b->n == 0)
            continue;
        if (b->n > LADDER_SPAWN && q->nr < SIM_LADDER_RUNGS) {
            int rc = spawn(q, b, b_start, q->bot_end);
            if (rc == 0)
                continue;
            if (rc < 0) {
                g->cur--;
                q->bot_end = b_start;
                return -1;
            }
        }
        uint32_t n = b->n;
        for (uint32_t i = 0; i < n; i++) {
            if (i + 8 < n)
                __builtin_prefetch(b->v[i + 8]);
            /* the heap has held more than this before or grows now; on
             * NOMEM the event stays in its bucket (see below) */
            if (heap_push(q, b->v[i]) != MTC_OK) {
                /* put the bucket back: shift the unmoved rest down */
                memmove(b->v, b->v + i, (n - i) * sizeof *b->v);
                b->n = n - i;
                for (uint32_t j = 0; j < b->n; j++)
                    b->v[j]->slot = j;
                g->cur--;
                q->bot_end = b_start;
                return -1;
            }
        }
        b->n = 0;
        return 1;
    }
    return 0;
}

int sim__ladder_pop_upto(sim__ladder *q, sim_time limit, sim_event **out)
{
    *out = NULL;
    while (q->heap.n == 0) {
        if (q->n == 0)
            return MTC_OK;
        int r = advance(q);
        if (r < 0)
            return MTC_ERR_NOMEM;
        if (r == 0) {
            int rc = rebuild(q);
            if (rc)
                return rc;
        }
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
        sim__rung *g = &q->rung[(ev->flags & RUNG_MASK) >> RUNG_SHIFT];
        vec_remove(&g->bk[bucket_of(g, ev->time)], ev);
        break;
    }
    default:
        vec_remove(&q->top, ev);
        break;
    }
    set_loc(ev, 0);
    q->n--;
}
