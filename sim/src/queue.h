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

/* 4-ary heap of (time, seq, event) nodes. The key is inline so that
 * comparisons never touch the events and compile to flag arithmetic rather
 * than unpredictable branches. Node i sits at mem[i + 3] so that the four
 * children of a node (4i+1..4i+4) start on a 32-byte boundary. */
typedef struct sim__hnode {
    sim_time time;
    uint64_t seq;
    sim_event *ev;
} sim__hnode;

typedef struct sim__heap4 {
    sim__hnode *mem;    /* 64-byte aligned allocation */
    sim__hnode *a;      /* mem + 3 */
    size_t n, cap;
    int track;          /* keep ev->slot = node index (else find by scan) */
} sim__heap4;

/* track: maintain ev->slot for O(log n) removal. Without it sifting never
 * writes to events (the ladder's small bottom heap finds an event to
 * cancel by scanning instead). */
int sim__heap4_init(sim__heap4 *h, int track);
void sim__heap4_free(sim__heap4 *h);
int sim__heap4_push(sim__heap4 *h, sim_event *ev);
/* Removes and returns the minimum if its time <= limit, else NULL. */
sim_event *sim__heap4_pop_upto(sim__heap4 *h, sim_time limit);
/* Removes a pending event (found through ev->slot, or by scanning). */
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

/* Ladder queue (after Tang, Goh, Thng, ACM TOMACS 2005): a small 4-ary
 * heap holds the events before `bot_end`; after it come up to
 * SIM_LADDER_RUNGS rungs, each a span cut into nb buckets of width w (an
 * unsorted array of event pointers per bucket); events after rung 0 go to
 * an unsorted `top` array. Rung i+1 spans exactly the rung-i bucket just
 * taken, cut finer: a bucket too full to heapify cheaply is spawned into a
 * new rung instead. When the heap runs dry the next bucket of the deepest
 * rung is moved into it (or spawned); an exhausted rung is dropped; when
 * no rung is left the top is re-cut into rung 0. Every event is moved O(1)
 * times (O(rungs) at worst), mostly with sequential memory access, and the
 * heap stays small and cache-resident whatever the shape of the time
 * distribution. */
typedef struct sim__evvec {
    sim_event **v;
    uint32_t n, cap;
} sim__evvec;

#define SIM_LADDER_RUNGS 8

typedef struct sim__rung {
    sim__evvec *bk;     /* nb buckets (bk_cap allocated) */
    size_t nb, bk_cap;
    size_t cur;         /* next bucket to take */
    sim_time start;     /* start of bucket 0 */
    sim_time w;         /* bucket width, >= 1 */
    sim_time end;       /* end of the span: start + nb * w (saturated) */
} sim__rung;

typedef struct sim__ladder {
    sim__heap4 heap;
    sim__rung rung[SIM_LADDER_RUNGS];
    size_t nr;          /* rungs in use; rung nr-1 is the deepest */
    sim_time bot_end;   /* heap holds exactly the events before this */
    sim__evvec top;
    size_t n;
} sim__ladder;

int sim__ladder_init(sim__ladder *q);
void sim__ladder_free(sim__ladder *q);
int sim__ladder_push(sim__ladder *q, sim_event *ev);
/* *out = the minimum if its time <= limit, else NULL. Moving a bucket into
 * the heap may need memory: MTC_ERR_NOMEM, with the order intact. */
int sim__ladder_pop_upto(sim__ladder *q, sim_time limit, sim_event **out);
void sim__ladder_remove(sim__ladder *q, sim_event *ev);

#endif
