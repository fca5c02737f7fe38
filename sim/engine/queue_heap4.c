/*
 * queue_heap4.c - 4-ary implicit min-heap on (time, seq).
 *
 * Why 4-ary: half the depth of a binary heap, and the four children of a
 * node are adjacent. Nodes carry (time, seq) inline, and the minimum of
 * four children is found with two independent comparisons and one more,
 * evaluated without branches (profiles showed mispredicted child
 * comparisons dominating small heaps). Each move writes the event's slot so
 * that cancel and reschedule are O(log n). Used alone, and as the bottom
 * tier of the ladder queue, where it stays small and cache-resident.
 */
#include "queue.h"

#include <stdlib.h>
#include <string.h>

#include "sim/status.h"

#define HEAP_MIN_CAP 64

static inline int node_before(const sim__hnode *x, const sim__hnode *y)
{
    return (x->time < y->time) | ((x->time == y->time) & (x->seq < y->seq));
}

int sim__heap4_init(sim__heap4 *h, int track)
{
    memset(h, 0, sizeof *h);
    h->track = track;
    return SIM_OK;
}

void sim__heap4_free(sim__heap4 *h)
{
    int track = h->track;
    free(h->mem);
    memset(h, 0, sizeof *h);
    h->track = track;
}

static int grow(sim__heap4 *h)
{
    size_t cap = h->cap ? h->cap * 2 : HEAP_MIN_CAP;
    if (cap > (size_t)UINT32_MAX - 4)
        return SIM_ERR_LIMIT;
    size_t bytes = (cap + 4) * sizeof(sim__hnode);
    bytes = (bytes + 63) & ~(size_t)63;
    sim__hnode *mem = aligned_alloc(64, bytes);
    if (!mem)
        return SIM_ERR_NOMEM;
    if (h->n)
        memcpy(mem + 3, h->a, h->n * sizeof(sim__hnode));
    free(h->mem);
    h->mem = mem;
    h->a = mem + 3;
    h->cap = cap;
    return SIM_OK;
}

static void sift_up(sim__hnode *a, size_t i, sim__hnode x, int track)
{
    while (i > 0) {
        size_t p = (i - 1) >> 2;
        if (!node_before(&x, &a[p]))
            break;
        a[i] = a[p];
        if (track)
            a[i].ev->slot = (uint32_t)i;
        i = p;
    }
    a[i] = x;
    if (track)
        x.ev->slot = (uint32_t)i;
}

static void sift_down(sim__hnode *a, size_t n, size_t i, sim__hnode x,
                      int track)
{
    for (;;) {
        size_t c = 4 * i + 1;
        if (c >= n)
            break;
        size_t m;
        if (c + 3 < n) {
            size_t m1 = c + (size_t)node_before(&a[c + 1], &a[c]);
            size_t m2 = c + 2 + (size_t)node_before(&a[c + 3], &a[c + 2]);
            size_t pick = (size_t)node_before(&a[m2], &a[m1]);
            m = m1 + pick * (m2 - m1);
        } else {
            m = c;
            for (size_t k = c + 1; k < n; k++)
                if (node_before(&a[k], &a[m]))
                    m = k;
        }
        if (!node_before(&a[m], &x))
            break;
        a[i] = a[m];
        if (track)
            a[i].ev->slot = (uint32_t)i;
        i = m;
    }
    a[i] = x;
    if (track)
        x.ev->slot = (uint32_t)i;
}

/* Removes node i, filling the hole with the last node. */
static void remove_at(sim__heap4 *h, size_t i)
{
    size_t n = --h->n;
    if (i == n)
        return;
    sim__hnode x = h->a[n];
    if (i > 0 && node_before(&x, &h->a[(i - 1) >> 2]))
        sift_up(h->a, i, x, h->track);
    else
        sift_down(h->a, n, i, x, h->track);
}

int sim__heap4_push(sim__heap4 *h, sim_event *ev)
{
    return sim__heap4_push_node(h, (sim__hnode){ev->time, ev->seq, ev});
}

sim_event *sim__heap4_pop_upto(sim__heap4 *h, sim_time limit)
{
    sim__hnode x;
    return sim__heap4_pop_node_upto(h, limit, &x) ? x.ev : NULL;
}

void sim__heap4_remove(sim__heap4 *h, sim_event *ev)
{
    if (h->track)
        remove_at(h, ev->slot);
    else
        sim__heap4_remove_seq(h, ev->seq);
}

int sim__heap4_push_node(sim__heap4 *h, sim__hnode x)
{
    if (h->n == h->cap) {
        int rc = grow(h);
        if (rc)
            return rc;
    }
    sift_up(h->a, h->n++, x, h->track);
    return SIM_OK;
}

int sim__heap4_pop_node_upto(sim__heap4 *h, sim_time limit, sim__hnode *out)
{
    if (h->n == 0 || h->a[0].time > limit)
        return 0;
    *out = h->a[0];
    size_t n = --h->n;
    if (n) {
        sift_down(h->a, n, 0, h->a[n], h->track);
        /* The new minimum usually fires next: start fetching it while the
         * caller runs this event's handler. */
        __builtin_prefetch(h->a[0].ev);
    }
    return 1;
}

int sim__heap4_remove_seq(sim__heap4 *h, uint64_t seq)
{
    size_t i;
    for (i = 0; i < h->n && h->a[i].seq != seq; i++)
        ;
    if (i == h->n)
        return 0;
    remove_at(h, i);
    return 1;
}
