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
/* Removes a pending event (found through ev->slot, or by scanning for
 * its seq in an untracked heap). */
void sim__heap4_remove(sim__heap4 *h, sim_event *ev);
/* Node-level access for the ladder (untracked heaps): push a node; pop the
 * minimum node if its time <= limit (1) or not (0); remove the node with
 * this seq, found by scanning (1), or report it absent (0). */
int sim__heap4_push_node(sim__heap4 *h, sim__hnode x);
int sim__heap4_pop_node_upto(sim__heap4 *h, sim_time limit, sim__hnode *out);
int sim__heap4_remove_seq(sim__heap4 *h, uint64_t seq);

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

/* Ladder queue (after Tang, Goh, Thng, ACM TOMACS 15(3), 2005): an
 * unsorted `top` for the far future, a stack of rungs of unsorted buckets
 * (each rung refines one bucket of the rung above), and a small 4-ary heap
 * as the bottom, holding exactly the entries before `bot_end`. Every entry
 * is moved O(1) times, mostly by sequential appends, and the heap stays a
 * few entries deep.
 *
 * Entries are (time, seq, event) nodes, so moving them between tiers never
 * touches the events (with 10^6 pending events in a large table, each touch
 * was a cache miss). Removal is by key: an entry in a small bucket or the
 * heap is taken out at once; one in a large bucket or the top is recorded
 * as stale and dropped when it surfaces (seq is unique per scheduling, so
 * the key never names another entry). Bucket arrays come from a slab
 * on huge pages (queue_slab.c). See queue_ladder.c. */
typedef struct sim__nvec {
    sim__hnode *v;
    uint32_t n, cap;
} sim__nvec;

/* Bucket i covers [start + i*w, start + (i+1)*w), the last one up to end. */
typedef struct sim__rung {
    sim__nvec *bk;
    size_t nb, cap;     /* buckets in use, allocated (kept for reuse) */
    size_t cur;         /* next bucket to consume */
    sim_time start, w, end;
} sim__rung;

/* Bucket arrays of 8 << c nodes, c < SIM__SLAB_CLASSES (up to 4096
 * nodes), carved from chunks backed by huge pages where the kernel allows
 * (queue_slab.c); larger arrays are malloc'd. */
#define SIM__SLAB_MIN 8
#define SIM__SLAB_CLASSES 10

typedef struct sim__slab {
    sim__hnode *free[SIM__SLAB_CLASSES]; /* linked through the first word */
    char *cur, *end;    /* the newest chunk's unused rest */
    void *chunks;       /* every chunk, linked through its header */
    size_t next_bytes;  /* size of the next chunk */
} sim__slab;

void sim__slab_init(sim__slab *s);
void sim__slab_free(sim__slab *s);
/* The class of a block of cap nodes, or -1 when cap is not a class's. */
int sim__slab_class(uint32_t cap);
/* A block of class cls (uninitialised), or NULL without memory. */
sim__hnode *sim__slab_alloc(sim__slab *s, int cls);
void sim__slab_release(sim__slab *s, sim__hnode *b, int cls);

#define SIM__LADDER_DEPTH 8

typedef struct sim__ladder {
    sim__heap4 heap;
    sim__rung rung[SIM__LADDER_DEPTH];
    int depth;          /* rungs in use */
    sim_time bot_end;   /* the heap holds exactly the entries before this */
    sim__nvec top;      /* entries at or after the end of rung 0 */
    size_t n;           /* entries held, stale ones included */
    sim__heap4 stale;   /* keys of removed entries still held */
    sim__slab slab;     /* the buckets' arrays */
} sim__ladder;

int sim__ladder_init(sim__ladder *q);
void sim__ladder_free(sim__ladder *q);
/* Adds an entry for ev at (ev->time, ev->seq). Never writes to ev. */
int sim__ladder_push(sim__ladder *q, sim_event *ev);
/* *out = the event of the minimum live entry if its time <= limit, else
 * NULL. Moving a bucket into the heap may need memory: SIM_ERR_NOMEM,
 * with the order intact. */
int sim__ladder_pop_upto(sim__ladder *q, sim_time limit, sim_event **out);
/* Removes the entry (time, seq), which must be held and live. Never fails
 * (without memory for the stale set it searches the entry's bucket) and
 * never touches the event, so a removed event may be freed at once. */
void sim__ladder_remove(sim__ladder *q, sim_time time, uint64_t seq);

#endif
