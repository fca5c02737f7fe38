/*
 * sim/engine.h - the discrete-event engine: clock, events, run loop.
 *
 * Simulated time is a signed 64-bit count of MICROSECONDS since the scenario
 * epoch (sim_time). Why microseconds: int64 covers +-292,000 years, and every
 * sim_time up to 2^53 us (285 years) converts to a double exactly, so a time
 * handed to GSL as seconds and back loses nothing; network and signing
 * latencies of interest are milliseconds, so finer resolution buys nothing.
 *
 * Events are intrusive: a sim_event lives inside the object it concerns (a
 * browser, a CA job), the caller owns its memory, and scheduling allocates
 * nothing. Events fire in (time, seq) order, where seq is an engine-wide
 * counter taken when the event is (re)scheduled: two events at the same time
 * fire in the order they were scheduled, on every run and every machine.
 * For one-off actions (a scenario's `sim:at(t, fn)`) sim_call_at() takes an
 * event from an engine-owned pool and returns it there after it fires.
 *
 * Three queue structures implement the same contract (sim_queue_kind);
 * they give the identical event order, only speed differs. The default,
 * the ladder queue, was chosen by `mtcsim bench engine` (sim/README.md):
 * it is the fastest from 1e5 pending events up.
 *
 * Not thread-safe: one engine per thread; engines share nothing.
 */
#ifndef SIM_ENGINE_H
#define SIM_ENGINE_H

#include <stddef.h>
#include <stdint.h>

typedef int64_t sim_time;

#define SIM_US ((sim_time)1)
#define SIM_MS ((sim_time)1000)
#define SIM_SEC ((sim_time)1000000)
#define SIM_MIN (60 * SIM_SEC)
#define SIM_HOUR (60 * SIM_MIN)
#define SIM_DAY (24 * SIM_HOUR)
#define SIM_TIME_MAX INT64_MAX
#define SIM_TIME_UNIT "us"

/* Seconds as a double (exact up to 2^53 us). */
static inline double sim_time_to_sec(sim_time t) { return (double)t * 1e-6; }

/* Nearest sim_time to s seconds; saturates at +-SIM_TIME_MAX, NaN gives 0. */
sim_time sim_time_from_sec(double s);

typedef struct sim_engine sim_engine;
typedef struct sim_event sim_event;

/* Called when ev fires; sim_now(sim) == ev->time. The handler may schedule,
 * cancel or reschedule any event, including ev itself (ev is no longer
 * pending when the handler runs), and may free ev unless it came from
 * sim_call_at(). */
typedef void (*sim_handler)(sim_engine *sim, sim_event *ev);

/* Treat as opaque except for `arg` (and `time`, read-only, while pending).
 * Initialise with sim_event_init() before first use. */
struct sim_event {
    sim_time time;      /* firing time while pending */
    uint64_t seq;       /* tie-break, assigned when scheduled */
    sim_handler fn;
    void *arg;          /* the payload: whatever the handler needs */
    sim_event *next;    /* queue-private */
    sim_event *prev;    /* queue-private */
    uint32_t slot;      /* queue-private: heap index or bucket */
    uint32_t flags;     /* engine (low byte) and queue private */
};

enum sim_queue_kind {
    SIM_QUEUE_DEFAULT = 0,
    SIM_QUEUE_HEAP4 = 1,    /* 4-ary implicit heap, cache-line aligned nodes */
    SIM_QUEUE_CALENDAR = 2, /* Brown's calendar queue with resizing */
    SIM_QUEUE_LADDER = 3    /* ladder: rungs of unsorted buckets + small heap */
};

typedef struct sim_engine_config {
    int queue;          /* enum sim_queue_kind */
    sim_time start;     /* initial clock value, usually 0 */
} sim_engine_config;

/* Why sim_engine_run() returned (all >= 0; errors are negative). */
enum sim_run_reason {
    SIM_RUN_EMPTY = 0,      /* no pending event left */
    SIM_RUN_STOP_TIME = 1,  /* next event is after the stop time */
    SIM_RUN_PREDICATE = 2,  /* the stop predicate returned nonzero */
    SIM_RUN_STOPPED = 3     /* a handler called sim_engine_stop() */
};

/* Creates an engine; cfg may be NULL (defaults). *out owned by the caller.
 * Errors: SIM_ERR_ARG (unknown queue kind), SIM_ERR_NOMEM. */
int sim_engine_create(sim_engine **out, const sim_engine_config *cfg);

/* Frees the engine and its pooled events. Caller-owned events still pending
 * are forgotten (not touched). Accepts NULL. */
void sim_engine_destroy(sim_engine *sim);

/* The queue actually in use (never SIM_QUEUE_DEFAULT) and its name. */
int sim_engine_queue_kind(const sim_engine *sim);
const char *sim_queue_name(int kind);

sim_time sim_now(const sim_engine *sim);

/* A stable pointer to the clock, for readers such as sim_metrics. */
const sim_time *sim_engine_clock(const sim_engine *sim);

/* Events with time <= t run; then the run returns SIM_RUN_STOP_TIME with the
 * clock set to t. Default SIM_TIME_MAX. A later run may use a later t. */
void sim_engine_set_stop_time(sim_engine *sim, sim_time t);

/* pred(sim, arg) is evaluated after every event; nonzero stops the run
 * (SIM_RUN_PREDICATE). NULL removes it. */
typedef int (*sim_stop_pred)(sim_engine *sim, void *arg);
void sim_engine_set_stop_predicate(sim_engine *sim, sim_stop_pred pred,
                                   void *arg);

/* From a handler: the run returns SIM_RUN_STOPPED after this event. */
void sim_engine_stop(sim_engine *sim);

/* Runs events until a stop condition; returns a sim_run_reason, or
 * SIM_ERR_NOMEM if a queue could not grow (no event is lost; the run may
 * be resumed). */
int sim_engine_run(sim_engine *sim);

uint64_t sim_engine_events_executed(const sim_engine *sim);

/* A hint for prefetching: the event that runs next unless another is
 * scheduled before it or it is cancelled, when the queue knows it without
 * work (its minimum is at hand); else NULL. Handlers of large populations
 * use it to start loading the next entity's state while they run. Never
 * dereference it for anything but a prefetch. */
const sim_event *sim_engine_peek_hint(const sim_engine *sim);
size_t sim_engine_pending(const sim_engine *sim);

/* Prepares ev (not pending, handler fn, payload arg). */
void sim_event_init(sim_event *ev, sim_handler fn, void *arg);

static inline int sim_event_pending(const sim_event *ev)
{
    return (ev->flags & 1u) != 0;
}

/* Schedules a non-pending event at absolute time `at` (>= now).
 * Errors: SIM_ERR_PAST (at < now), SIM_ERR_STATE (already pending),
 * SIM_ERR_NOMEM (queue growth), SIM_ERR_LIMIT (2^32-2 pending). */
int sim_schedule(sim_engine *sim, sim_event *ev, sim_time at);

/* sim_schedule(sim, ev, now + delay); delay >= 0, saturating. */
int sim_schedule_in(sim_engine *sim, sim_event *ev, sim_time delay);

/* Removes a pending event. Error: SIM_ERR_STATE (not pending). */
int sim_cancel(sim_engine *sim, sim_event *ev);

/* Moves ev to `at` whether pending or not; it gets a fresh seq (it fires
 * after events already scheduled for the same time). Errors as
 * sim_schedule. On error ev is left as it was. */
int sim_reschedule(sim_engine *sim, sim_event *ev, sim_time at);

/* The seq the next scheduled event will get, and a way to move it. A
 * caller that must later schedule events which sort as if they had been
 * scheduled now (a warm-up shared by several runs, each of which then
 * schedules its own later calls) reads the counter, moves it
 * on by the room it needs, and later schedules into that room with the
 * counter set back to its start, then restores it. Every seq must stay
 * unique among pending events: set only values of a room reserved so,
 * or the counter's own later value. */
uint64_t sim_engine_next_seq(const sim_engine *sim);
void sim_engine_set_next_seq(sim_engine *sim, uint64_t seq);

/* One-off action from the engine's pool: fn(sim, arg) runs at `at`; the
 * event returns to the pool after it fires or when the engine is destroyed.
 * Errors as sim_schedule. */
typedef void (*sim_call_fn)(sim_engine *sim, void *arg);
int sim_call_at(sim_engine *sim, sim_time at, sim_call_fn fn, void *arg);

/* A profile (sim/prof.h; NULL: none, the default): before each event the
 * engine moves it to the part registered for the handler (sim_prof_handler;
 * for a sim_call_at event, its sim_call_fn cast to sim_handler), or to
 * `dflt`. The caller owns prof; it must outlive its use here. */
struct sim_prof;
void sim_engine_set_prof(sim_engine *sim, struct sim_prof *prof, int dflt);
/* The profile set, or NULL: model code reaches it through its engine. */
struct sim_prof *sim_engine_prof(const sim_engine *sim);

#endif
