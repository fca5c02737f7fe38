/*
 * engine.c - clock, scheduling and the run loop.
 *
 * The loop pops the earliest event (up to the stop time), advances the
 * clock and calls the handler; stop requests and the predicate are checked
 * after each event. seq is one engine-wide counter, so (time, seq) is a
 * total order independent of the queue structure: both queues produce the
 * same sequence of events, bit for bit.
 */
#include "sim/engine.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim/prof.h"
#include "sim/status.h"
#include "queue.h"

#define EV_PENDING 1u
#define EV_POOLED 2u

typedef struct pool_ev {
    sim_event ev;       /* first: a sim_event* is a pool_ev* */
    sim_call_fn fn;
    void *arg;
    struct pool_ev *free_next;
} pool_ev;

typedef struct pool_block {
    struct pool_block *next;
    pool_ev evs[256];
} pool_block;

struct sim_engine {
    sim_time now;
    sim_time stop_time;
    uint64_t seq;
    uint64_t executed;
    int kind;
    int stop_flag;
    sim_stop_pred pred;
    void *pred_arg;
    size_t pending;
    union {
        sim__heap4 heap;
        sim__calq cal;
        sim__ladder lad;
    } q;
    pool_block *blocks;
    pool_ev *free_list;
    sim_prof *prof;     /* NULL: no profile (sim/prof.h) */
    int prof_dflt;      /* part of unregistered handlers */
};

sim_time sim_time_from_sec(double s)
{
    if (isnan(s))
        return 0;
    double us = nearbyint(s * 1e6);
    if (us >= 9.2233720368547758e18)
        return SIM_TIME_MAX;
    if (us <= -9.2233720368547758e18)
        return -SIM_TIME_MAX;
    return (sim_time)us;
}

const char *sim_queue_name(int kind)
{
    switch (kind) {
    case SIM_QUEUE_HEAP4: return "heap4";
    case SIM_QUEUE_CALENDAR: return "calendar";
    case SIM_QUEUE_LADDER: return "ladder";
    case SIM_QUEUE_DEFAULT: return "default";
    default: return "unknown";
    }
}

/* Chosen by `mtcsim bench engine` (hold model, 1e3..1e7 pending). */
#define SIM_QUEUE_WINNER SIM_QUEUE_LADDER

int sim_engine_create(sim_engine **out, const sim_engine_config *cfg)
{
    sim_engine_config def = {SIM_QUEUE_DEFAULT, 0};
    if (!out)
        return SIM_ERR_ARG;
    *out = NULL;
    if (!cfg)
        cfg = &def;
    int kind = cfg->queue == SIM_QUEUE_DEFAULT ? SIM_QUEUE_WINNER : cfg->queue;
    if (kind != SIM_QUEUE_HEAP4 && kind != SIM_QUEUE_CALENDAR &&
        kind != SIM_QUEUE_LADDER)
        return SIM_ERR_ARG;
    if (cfg->start < 0)
        return SIM_ERR_ARG;
    sim_engine *s = calloc(1, sizeof *s);
    if (!s)
        return SIM_ERR_NOMEM;
    s->now = cfg->start;
    s->stop_time = SIM_TIME_MAX;
    s->kind = kind;
    int rc = kind == SIM_QUEUE_HEAP4      ? sim__heap4_init(&s->q.heap, 1)
             : kind == SIM_QUEUE_CALENDAR ? sim__calq_init(&s->q.cal)
                                          : sim__ladder_init(&s->q.lad);
    if (rc) {
        free(s);
        return rc;
    }
    *out = s;
    return SIM_OK;
}

void sim_engine_destroy(sim_engine *sim)
{
    if (!sim)
        return;
    if (sim->kind == SIM_QUEUE_HEAP4)
        sim__heap4_free(&sim->q.heap);
    else if (sim->kind == SIM_QUEUE_CALENDAR)
        sim__calq_free(&sim->q.cal);
    else
        sim__ladder_free(&sim->q.lad);
    for (pool_block *b = sim->blocks, *n; b; b = n) {
        n = b->next;
        free(b);
    }
    free(sim);
}

int sim_engine_queue_kind(const sim_engine *sim) { return sim->kind; }
sim_time sim_now(const sim_engine *sim) { return sim->now; }
const sim_time *sim_engine_clock(const sim_engine *sim) { return &sim->now; }
uint64_t sim_engine_events_executed(const sim_engine *sim) { return sim->executed; }
size_t sim_engine_pending(const sim_engine *sim) { return sim->pending; }

void sim_engine_set_stop_time(sim_engine *sim, sim_time t) { sim->stop_time = t; }

const sim_event *sim_engine_peek_hint(const sim_engine *sim)
{
    const sim__heap4 *h = sim->kind == SIM_QUEUE_LADDER ? &sim->q.lad.heap
                          : sim->kind == SIM_QUEUE_HEAP4 ? &sim->q.heap
                                                         : NULL;
    return h && h->n ? h->a[0].ev : NULL;
}

void sim_engine_set_stop_predicate(sim_engine *sim, sim_stop_pred pred,
                                   void *arg)
{
    sim->pred = pred;
    sim->pred_arg = arg;
}

void sim_engine_stop(sim_engine *sim) { sim->stop_flag = 1; }

void sim_event_init(sim_event *ev, sim_handler fn, void *arg)
{
    memset(ev, 0, sizeof *ev);
    ev->fn = fn;
    ev->arg = arg;
}

static inline int q_push(sim_engine *sim, sim_event *ev)
{
    switch (sim->kind) {
    case SIM_QUEUE_LADDER: return sim__ladder_push(&sim->q.lad, ev);
    case SIM_QUEUE_HEAP4: return sim__heap4_push(&sim->q.heap, ev);
    default: return sim__calq_push(&sim->q.cal, ev);
    }
}

static inline void q_remove(sim_engine *sim, sim_event *ev)
{
    switch (sim->kind) {
    case SIM_QUEUE_LADDER: sim__ladder_remove(&sim->q.lad, ev->time, ev->seq); break;
    case SIM_QUEUE_HEAP4: sim__heap4_remove(&sim->q.heap, ev); break;
    default: sim__calq_remove(&sim->q.cal, ev); break;
    }
}

static inline int q_pop_upto(sim_engine *sim, sim_time limit, sim_event **out)
{
    switch (sim->kind) {
    case SIM_QUEUE_LADDER:
        return sim__ladder_pop_upto(&sim->q.lad, limit, out);
    case SIM_QUEUE_HEAP4:
        *out = sim__heap4_pop_upto(&sim->q.heap, limit);
        return SIM_OK;
    default:
        *out = sim__calq_pop_upto(&sim->q.cal, limit);
        return SIM_OK;
    }
}

int sim_schedule(sim_engine *sim, sim_event *ev, sim_time at)
{
    if (ev->flags & EV_PENDING)
        return SIM_ERR_STATE;
    if (at < sim->now)
        return SIM_ERR_PAST;
    if (sim->pending >= (size_t)UINT32_MAX - 8)
        return SIM_ERR_LIMIT;
    ev->time = at;
    ev->seq = sim->seq;
    int rc = q_push(sim, ev);
    if (rc)
        return rc;
    sim->seq++;
    ev->flags |= EV_PENDING;
    sim->pending++;
    return SIM_OK;
}

int sim_schedule_in(sim_engine *sim, sim_event *ev, sim_time delay)
{
    if (delay < 0)
        return SIM_ERR_PAST;
    sim_time at = delay > SIM_TIME_MAX - sim->now ? SIM_TIME_MAX
                                                  : sim->now + delay;
    return sim_schedule(sim, ev, at);
}

int sim_cancel(sim_engine *sim, sim_event *ev)
{
    if (!(ev->flags & EV_PENDING))
        return SIM_ERR_STATE;
    q_remove(sim, ev);
    ev->flags &= ~EV_PENDING;
    sim->pending--;
    return SIM_OK;
}

int sim_reschedule(sim_engine *sim, sim_event *ev, sim_time at)
{
    if (at < sim->now)
        return SIM_ERR_PAST;
    if (!(ev->flags & EV_PENDING))
        return sim_schedule(sim, ev, at);
    sim_time old_time = ev->time;
    uint64_t old_seq = ev->seq;
    if (sim->kind == SIM_QUEUE_LADDER) {
        /* The ladder removes by key and never fails to: add the new entry
         * first, so that a failure leaves everything as it was. */
        ev->time = at;
        ev->seq = sim->seq;
        int rc = sim__ladder_push(&sim->q.lad, ev);
        if (rc) {
            ev->time = old_time;
            ev->seq = old_seq;
            return rc;
        }
        sim->seq++;
        sim__ladder_remove(&sim->q.lad, old_time, old_seq);
        return SIM_OK;
    }
    sim_cancel(sim, ev);
    int rc = sim_schedule(sim, ev, at);
    if (rc) {
        /* Put it back where it was: same (time, seq), so the order is
         * unchanged. The queue had room for it a moment ago. */
        ev->time = old_time;
        ev->seq = old_seq;
        if (q_push(sim, ev) == SIM_OK) {
            ev->flags |= EV_PENDING;
            sim->pending++;
        }
    }
    return rc;
}

uint64_t sim_engine_next_seq(const sim_engine *sim) { return sim->seq; }
void sim_engine_set_next_seq(sim_engine *sim, uint64_t seq) { sim->seq = seq; }

static void call_trampoline(sim_engine *sim, sim_event *ev)
{
    pool_ev *p = (pool_ev *)ev;
    sim_call_fn fn = p->fn;
    void *arg = p->arg;
    p->free_next = sim->free_list;
    sim->free_list = p;
    fn(sim, arg);
}

int sim_call_at(sim_engine *sim, sim_time at, sim_call_fn fn, void *arg)
{
    if (!fn)
        return SIM_ERR_ARG;
    if (at < sim->now)
        return SIM_ERR_PAST;
    if (!sim->free_list) {
        pool_block *b = malloc(sizeof *b);
        if (!b)
            return SIM_ERR_NOMEM;
        b->next = sim->blocks;
        sim->blocks = b;
        for (size_t i = 0; i < sizeof b->evs / sizeof b->evs[0]; i++) {
            b->evs[i].free_next = sim->free_list;
            sim->free_list = &b->evs[i];
        }
    }
    pool_ev *p = sim->free_list;
    sim_event_init(&p->ev, call_trampoline, NULL);
    p->ev.flags = EV_POOLED;
    p->fn = fn;
    p->arg = arg;
    int rc = sim_schedule(sim, &p->ev, at);
    if (rc)
        return rc;
    sim->free_list = p->free_next;
    return SIM_OK;
}

int sim_engine_run(sim_engine *sim)
{
    sim->stop_flag = 0;
    for (;;) {
        sim_event *ev;
        int rc = q_pop_upto(sim, sim->stop_time, &ev);
        if (rc)
            return rc;
        if (!ev) {
            if (sim->pending == 0)
                return SIM_RUN_EMPTY;
            if (sim->now < sim->stop_time)
                sim->now = sim->stop_time;
            return SIM_RUN_STOP_TIME;
        }
        ev->flags &= ~EV_PENDING;
        sim->pending--;
        sim->now = ev->time;
        sim->executed++;
        if (sim->prof) {
            /* a one-off call is charged by its function, not the pool's */
            sim_handler key = (ev->flags & EV_POOLED)
                                  ? (sim_handler)((pool_ev *)ev)->fn
                                  : ev->fn;
            sim_prof_enter(sim->prof,
                           sim_prof_part_of(sim->prof, key, sim->prof_dflt));
        }
        ev->fn(sim, ev);
        if (sim->stop_flag)
            return SIM_RUN_STOPPED;
        if (sim->pred && sim->pred(sim, sim->pred_arg))
            return SIM_RUN_PREDICATE;
    }
}

void sim_engine_set_prof(sim_engine *sim, sim_prof *prof, int dflt)
{
    sim->prof = prof;
    sim->prof_dflt = dflt;
}

sim_prof *sim_engine_prof(const sim_engine *sim) { return sim->prof; }
