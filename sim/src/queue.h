/*
 * queue.h - the pending-event set of the engine (internal).
 *
 * Two structures with one contract: a total order on (time, seq), O(1)
 * access to the minimum, removal of any pending event through the intrusive
 * fields of sim_event (slot, next, prev). Neither allocates per event; both
 * grow their own arrays. The engine dispatches on the kind with a switch.
 */
#ifndef SIM_QUEUE_H
#define SIM_QUEUE_H

#include <stddef.h>

#include "sim/engine.h"

/* (time, seq) order: nonzero when a fires before b. */
static inline int sim__before(const sim_event *a, const sim_event *b)
{
    return a->time < b->time || (a->time == b->time && a->seq < b->seq);
}

/* 4-ary heap of (time, event) pairs. Node i sits at base[i + 3] so that the
 * four children of any node (4i+1..4i+4) share one 64-byte cache line; the
 * event's seq is read only on time ties. */
typedef struct sim__hnode {
    sim_time time;
    sim_event *ev;
} sim__hnode;

typedef struct sim__heap4 {
    sim__hnode *mem;    /* 64-byte aligned allocation */
    sim__hnode *a;      /* mem + 3 */
    size_t n, cap;
} sim__heap4;

int sim__heap4_init(sim__heap4 *h);
void sim__heap4_free(sim__heap4 *h);
int sim__heap4_push(sim__heap4 *h, sim_event *ev);
/* Removes and returns the minimum if its time <= limit, else NULL. */
sim_event *sim__heap4_pop_upto(sim__heap4 *h, sim_time limit);
void sim__heap4_remove(sim__heap4 *h, sim_event *ev);

/* Calendar queue (R. Brown, CACM 31(10), 1988): nb (a power of two) buckets
 * of `width` us, each a sorted doubly linked list; a "year" is nb*width.
 * Invariant: the current window [top - width, top) of bucket `cur` starts at
 * or before the earliest pending time. Resized (and the width re-estimated
 * from the spacing of the earliest events) when n leaves [nb/2, 2nb]. */
typedef struct sim__calq {
    sim_event **b;
    size_t nb;          /* power of two */
    size_t mask;
    sim_time width;
    size_t n;
    size_t cur;
    sim_time top;       /* end of the current bucket's window */
    int resizing;
} sim__calq;

int sim__calq_init(sim__calq *q);
void sim__calq_free(sim__calq *q);
int sim__calq_push(sim__calq *q, sim_event *ev);
sim_event *sim__calq_pop_upto(sim__calq *q, sim_time limit);
void sim__calq_remove(sim__calq *q, sim_event *ev);

#endif
