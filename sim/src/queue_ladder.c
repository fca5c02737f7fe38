/*
 * queue_ladder.c - two-tier queue: cache-resident heap + unsorted buckets.
 *
 * Why: at 10^6 pending events a heap's sift touches ~10 levels of a 16 MB
 * array in a dependent chain, and every moved node writes into a random
 * event; a calendar queue does a dependent list walk per insert. Here most
 * inserts append a pointer to one of ~n/LADDER_K bucket arrays (whose tails
 * stay in cache) and sorting happens only in a heap of ~LADDER_K events.
 * This is a simplified ladder queue (Tang, Goh, Thng, ACM TOMACS 2005) with
 * one rung and a heap as its bottom.
 *
 * Location of a pending event, in the high bits of ev->flags (the engine
 * uses the low byte): LOC_HEAP (found by scanning the small heap, so that
 * sifting never writes to events), LOC_BUCKET (slot =
 * index in bucket (time - start) / w), LOC_TOP (slot = index in top).
 * Order is exact: the three tiers partition time, and the heap orders by
 * (time, seq).
 */
#include "queue.h"

#include <stdlib.h>
#include <string.h>

#include "mtc/error.h"

#ifndef LADDER_K
#define LADDER_K 128
#endif
#define LOC_SHIFT 8
#define LOC_MASK (3u << LOC_SHIFT)
#define LOC_HEAP (1u << LOC_SHIFT)
#define LOC_BUCKET (2u << LOC_SHIFT)
#define LOC_TOP (3u << LOC_SHIFT)

static inline void set_loc(sim_event *ev, uint32_t loc)
{
    ev->flags = (ev->flags & ~LOC_MASK) | loc;
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
    q->w = 1;
    /* no rung yet: every event (times are >= 0) goes to the top, and the
     * first pop cuts the rung */
    q->bot_end = 0;
    q->r_end = 0;
    return sim__heap4_init(&q->heap, 0);
}

void sim__ladder_free(sim__ladder *q)
{
    sim__heap4_free(&q->heap);
    for (size_t i = 0; i < q->bk_cap; i++)
        free(q->bk[i].v);
    free(q->bk);
    free(q->top.v);
    memset(q, 0, sizeof *q);
}

static inline size_t bucket_of(const sim__ladder *q, sim_time t)
{
    return (size_t)((uint64_t)(t - q->start) / (uint64_t)q->w);
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
    } else if (t < q->r_end) {
        rc = vec_push(&q->bk[bucket_of(q, t)], ev);
        if (rc == MTC_OK)
            set_loc(ev, LOC_BUCKET);
    } else {
        rc = vec_push(&q->top, ev);
        if (rc == MTC_OK)
            set_loc(ev, LOC_TOP);
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

/* Re-cuts the front of the top into buckets. Called with heap and buckets
 * empty. The width is chosen from a strided sample of the pending times so
 * that the first bucket holds about LADDER_K events (the density is highest
 * at the front); the rung is at most 4n/LADDER_K+1 buckets long and later
 * events (the far tail, about 1 %) stay in the top for the next cut. */
static int rebuild(sim__ladder *q)
{
    enum { SAMPLE = 256 };
    sim_time smp[SAMPLE];
    size_t n = q->top.n, m = 0;
    size_t stride = n / SAMPLE + 1;
    sim_time lo = SIM_TIME_MAX, hi = 0;
    for (size_t i = 0; i < n; i++) {
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
    /* ...but wide enough that the rung reaches the sample's 99th
     * percentile: every cut then takes in ~99 % of the pending events and
     * is paid for by as many pops, whatever the shape of the distribution
     * (a dense spike at the front would otherwise give a short rung and a
     * re-cut of the whole top every few events). */
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
    if (nb > q->bk_cap) {
        sim__evvec *nbk = realloc(q->bk, nb * sizeof *nbk);
        if (!nbk)
            return MTC_ERR_NOMEM;
        memset(nbk + q->bk_cap, 0, (nb - q->bk_cap) * sizeof *nbk);
        q->bk = nbk;
        q->bk_cap = nb;
    }
    q->nb = nb;
    q->w = (sim_time)w;
    q->start = lo;
    q->cur = 0;
    q->bot_end = lo;
    uint64_t end = (uint64_t)lo + w * nb;
    if (w > (uint64_t)SIM_TIME_MAX / nb || end > (uint64_t)SIM_TIME_MAX)
        end = (uint64_t)SIM_TIME_MAX;
    q->r_end = (sim_time)end;
    for (size_t i = 0; i < nb; i++)
        q->bk[i].n = 0;
    sim_event **v = q->top.v;
    size_t keep = 0;
    int rc = MTC_OK;
    for (size_t i = 0; i < n; i++) {
        sim_event *ev = v[i];
        /* an event at SIM_TIME_MAX with a saturated r_end: last bucket */
        if (ev->time >= q->r_end && q->r_end != SIM_TIME_MAX) {
            v[keep] = ev;
            ev->slot = (uint32_t)keep++;
            continue;
        }
        size_t b = bucket_of(q, ev->time);
        if (b >= nb)
            b = nb - 1;
        if (rc == MTC_OK && (rc = vec_push(&q->bk[b], ev)) == MTC_OK) {
            set_loc(ev, LOC_BUCKET);
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
            for (uint32_t i = 0; i < q->bk[b].n; i++) {
                sim_event *ev = q->bk[b].v[i];
                q->top.v[q->top.n] = ev;
                ev->slot = (uint32_t)q->top.n++;
                set_loc(ev, LOC_TOP);
            }
            q->bk[b].n = 0;
        }
        q->nb = 0;
        q->bot_end = q->r_end = lo;
    }
    return rc;
}

/* Moves the next nonempty bucket into the (empty) heap. 0 when there is
 * nothing left in the rung. */
static int advance(sim__ladder *q)
{
    while (q->cur < q->nb) {
        sim__evvec *b = &q->bk[q->cur++];
        q->bot_end = q->cur == q->nb ? q->r_end
                                     : q->start + (sim_time)q->cur * q->w;
        if (b->n == 0)
            continue;
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
                q->cur--;
                q->bot_end = q->start + (sim_time)q->cur * q->w;
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
        size_t b = bucket_of(q, ev->time);
        if (b >= q->nb)
            b = q->nb - 1;
        vec_remove(&q->bk[b], ev);
        break;
    }
    default:
        vec_remove(&q->top, ev);
        break;
    }
    set_loc(ev, 0);
    q->n--;
}
