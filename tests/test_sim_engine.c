/*
 * test_sim_engine.c - the event engine: order, ties, cancel/reschedule,
 * stop time and predicate, one-off calls, and determinism, for each queue.
 */
#include "test.h"

#include <gsl/gsl_randist.h>

#include "sim/engine.h"
#include "sim/rng.h"
#include "sim/status.h"

/* golden_trace's pinned hash (see there). */
#define GOLDEN_TRACE 0x799e62f08b6cbf08ULL

static const int kinds[] = {SIM_QUEUE_HEAP4, SIM_QUEUE_CALENDAR,
                           SIM_QUEUE_LADDER};
#define NKINDS 3

static sim_engine *mk(int kind)
{
    sim_engine *s = NULL;
    sim_engine_config c = {kind, 0};
    if (sim_engine_create(&s, &c) != SIM_OK)
        return NULL;
    return s;
}

static uint64_t fnv(uint64_t h, uint64_t v)
{
    for (int i = 0; i < 8; i++) {
        h ^= (v >> (8 * i)) & 0xff;
        h *= 0x100000001b3ULL;
    }
    return h;
}

/* ---- trace recorder: each fired event appends its (time, tag) ---- */
typedef struct tev {
    sim_event ev;
    uint64_t tag;
} tev;

typedef struct trace {
    sim_time *t;
    uint64_t *tag;
    size_t n, cap;
} trace;

static void on_fire(sim_engine *sim, sim_event *ev)
{
    trace *tr = ((tev *)ev)->ev.arg;
    if (tr->n < tr->cap) {
        tr->t[tr->n] = sim_now(sim);
        tr->tag[tr->n] = ((tev *)ev)->tag;
    }
    tr->n++;
}

TEST(create_errors)
{
    sim_engine *s = NULL;
    sim_engine_config c = {99, 0};
    ASSERT_EQ(sim_engine_create(&s, &c), SIM_ERR_ARG);
    ASSERT_TRUE(s == NULL);
    c.queue = SIM_QUEUE_HEAP4;
    c.start = -1;
    ASSERT_EQ(sim_engine_create(&s, &c), SIM_ERR_ARG);
    ASSERT_OK(sim_engine_create(&s, NULL));
    ASSERT_TRUE(sim_engine_queue_kind(s) != SIM_QUEUE_DEFAULT);
    ASSERT_EQ(sim_engine_run(s), SIM_RUN_EMPTY);
    sim_engine_destroy(s);
    sim_engine_destroy(NULL);
    ASSERT_EQ(sim_time_from_sec(1.5), 1500000);
    ASSERT_EQ(sim_time_from_sec(-2e-6), -2);
    ASSERT_EQ(sim_time_from_sec(1e300), SIM_TIME_MAX);
    ASSERT_NEAR(sim_time_to_sec(SIM_DAY), 86400.0, 0);
}

/* Random times (many ties) fire sorted by (time, schedule order). */
TEST(order_and_ties)
{
    size_t n = (size_t)(20000 * test_scale());
    for (int k = 0; k < NKINDS; k++) {
        sim_engine *s = mk(kinds[k]);
        ASSERT_TRUE(s);
        tev *e = calloc(n, sizeof *e);
        trace tr = {calloc(n, sizeof(sim_time)), calloc(n, 8), 0, n};
        gsl_rng *r = sim_rng_alloc_stream(7, 0, SIM_STREAM_TEST, 1);
        for (size_t i = 0; i < n; i++) {
            sim_event_init(&e[i].ev, on_fire, &tr);
            e[i].tag = i;
            /* times from a small range (ties) and a wide one (gaps) */
            sim_time at = (i & 1) ? (sim_time)gsl_rng_uniform_int(r, 50)
                                  : (sim_time)gsl_rng_uniform_int(r, 4000000000UL);
            ASSERT_OK(sim_schedule(s, &e[i].ev, at));
        }
        ASSERT_EQ(sim_engine_pending(s), n);
        ASSERT_EQ(sim_engine_run(s), SIM_RUN_EMPTY);
        ASSERT_EQ(tr.n, n);
        ASSERT_EQ(sim_engine_events_executed(s), n);
        for (size_t i = 1; i < n; i++) {
            ASSERT_TRUE(tr.t[i - 1] <= tr.t[i]);
            if (tr.t[i - 1] == tr.t[i])
                ASSERT_TRUE(tr.tag[i - 1] < tr.tag[i]); /* seq = insertion */
            ASSERT_EQ(tr.t[i], e[tr.tag[i]].ev.time);
        }
        gsl_rng_free(r);
        free(tr.t);
        free(tr.tag);
        free(e);
        sim_engine_destroy(s);
    }
}

/* All at one time: strictly insertion order; reschedule goes to the back. */
TEST(ties_exact)
{
    for (int k = 0; k < NKINDS; k++) {
        sim_engine *s = mk(kinds[k]);
        tev e[100];
        trace tr = {calloc(100, sizeof(sim_time)), calloc(100, 8), 0, 100};
        for (int i = 0; i < 100; i++) {
            sim_event_init(&e[i].ev, on_fire, &tr);
            e[i].tag = (uint64_t)i;
            ASSERT_OK(sim_schedule(s, &e[i].ev, 1000));
        }
        ASSERT_OK(sim_reschedule(s, &e[0].ev, 1000)); /* now last */
        ASSERT_EQ(sim_engine_run(s), SIM_RUN_EMPTY);
        ASSERT_EQ(tr.n, 100);
        for (int i = 0; i < 99; i++)
            ASSERT_EQ(tr.tag[i], i + 1);
        ASSERT_EQ(tr.tag[99], 0);
        ASSERT_EQ(sim_now(s), 1000);
        free(tr.t);
        free(tr.tag);
        sim_engine_destroy(s);
    }
}

TEST(schedule_errors)
{
    for (int k = 0; k < NKINDS; k++) {
        sim_engine *s = mk(kinds[k]);
        sim_event a;
        trace tr = {NULL, NULL, 0, 0};
        sim_event_init(&a, on_fire, &tr);
        ASSERT_EQ(sim_cancel(s, &a), SIM_ERR_STATE);
        ASSERT_OK(sim_schedule(s, &a, 10));
        ASSERT_TRUE(sim_event_pending(&a));
        ASSERT_EQ(sim_schedule(s, &a, 20), SIM_ERR_STATE);
        ASSERT_EQ(sim_engine_run(s), SIM_RUN_EMPTY);
        ASSERT_FALSE(sim_event_pending(&a));
        ASSERT_EQ(sim_now(s), 10);
        ASSERT_EQ(sim_schedule(s, &a, 9), SIM_ERR_PAST);
        ASSERT_EQ(sim_schedule_in(s, &a, -1), SIM_ERR_PAST);
        ASSERT_EQ(sim_reschedule(s, &a, 5), SIM_ERR_PAST);
        ASSERT_OK(sim_schedule_in(s, &a, SIM_TIME_MAX)); /* saturates */
        ASSERT_EQ(a.time, SIM_TIME_MAX);
        ASSERT_OK(sim_cancel(s, &a));
        ASSERT_EQ(sim_engine_pending(s), 0);
        sim_engine_destroy(s);
    }
}

/* Random schedule/cancel/reschedule/run-a-little against a brute-force
 * model of the pending set; both queues must fire exactly the same. */
static uint64_t run_random_ops(int kind, size_t n, size_t ops, uint64_t seed)
{
    sim_engine *s = mk(kind);
    tev *e = calloc(n, sizeof *e);
    size_t cap = ops * 2;
    trace tr = {calloc(cap, sizeof(sim_time)), calloc(cap, 8), 0, cap};
    gsl_rng *r = sim_rng_alloc_stream(seed, 0, SIM_STREAM_TEST, 2);
    uint64_t h = 14695981039346656037ULL;
    int bad = 0;
    for (size_t i = 0; i < n; i++) {
        sim_event_init(&e[i].ev, on_fire, &tr);
        e[i].tag = i;
    }
    for (size_t op = 0; op < ops && !bad; op++) {
        size_t i = gsl_rng_uniform_int(r, n);
        double u = gsl_rng_uniform(r);
        sim_time now = sim_now(s);
        /* mixture: near future with ties, far future, exact now */
        sim_time dt = u < 0.3 ? (sim_time)gsl_rng_uniform_int(r, 10)
                    : u < 0.9 ? (sim_time)gsl_ran_exponential(r, 1e6)
                              : (sim_time)gsl_rng_uniform_int(r, 1000000000UL);
        double v = gsl_rng_uniform(r);
        if (v < 0.45) {
            int pend = sim_event_pending(&e[i].ev);
            int rc = sim_schedule(s, &e[i].ev, now + dt);
            if (pend ? rc != SIM_ERR_STATE : rc != SIM_OK)
                bad = 1;
        } else if (v < 0.6) {
            int pend = sim_event_pending(&e[i].ev);
            int rc = sim_cancel(s, &e[i].ev);
            if (pend ? rc != SIM_OK : rc != SIM_ERR_STATE)
                bad = 1;
        } else if (v < 0.8) {
            if (sim_reschedule(s, &e[i].ev, now + dt) != SIM_OK)
                bad = 1;
        } else {
            /* run up to a random horizon */
            sim_engine_set_stop_time(s, now + (sim_time)gsl_rng_uniform_int(r, 2000000));
            int why = sim_engine_run(s);
            if (why != SIM_RUN_STOP_TIME && why != SIM_RUN_EMPTY)
                bad = 1;
        }
        /* pending count agrees with the events' own flags */
        if (op % 97 == 0) {
            size_t c = 0;
            for (size_t j = 0; j < n; j++)
                c += (size_t)sim_event_pending(&e[j].ev);
            if (c != sim_engine_pending(s))
                bad = 1;
        }
    }
    sim_engine_set_stop_time(s, SIM_TIME_MAX);
    if (sim_engine_run(s) != SIM_RUN_EMPTY)
        bad = 1;
    for (size_t k = 0; k < tr.n && k < cap; k++) {
        if (k && tr.t[k] < tr.t[k - 1])
            bad = 1;
        h = fnv(fnv(h, (uint64_t)tr.t[k]), tr.tag[k]);
    }
    h = fnv(h, tr.n);
    gsl_rng_free(r);
    free(tr.t);
    free(tr.tag);
    free(e);
    sim_engine_destroy(s);
    return bad ? 0 : h;
}

TEST(cancel_reschedule_random)
{
    size_t ops = (size_t)(200000 * test_scale());
    for (uint64_t seed = 1; seed <= 3; seed++) {
        uint64_t h1 = run_random_ops(SIM_QUEUE_HEAP4, 3000, ops, seed);
        uint64_t h2 = run_random_ops(SIM_QUEUE_CALENDAR, 3000, ops, seed);
        uint64_t h3 = run_random_ops(SIM_QUEUE_LADDER, 3000, ops, seed);
        ASSERT_NE(h1, 0);
        ASSERT_NE(h2, 0);
        ASSERT_EQ_U64(h1, h2);
        ASSERT_EQ_U64(h1, h3);
    }
}

/* Cancel really removes: a cancelled event never fires; reschedule fires
 * once at the new time. */
TEST(cancel_semantics)
{
    for (int k = 0; k < NKINDS; k++) {
        sim_engine *s = mk(kinds[k]);
        tev e[50];
        trace tr = {calloc(50, sizeof(sim_time)), calloc(50, 8), 0, 50};
        for (int i = 0; i < 50; i++) {
            sim_event_init(&e[i].ev, on_fire, &tr);
            e[i].tag = (uint64_t)i;
            ASSERT_OK(sim_schedule(s, &e[i].ev, 100 + i));
        }
        for (int i = 0; i < 50; i += 2)
            ASSERT_OK(sim_cancel(s, &e[i].ev));
        ASSERT_OK(sim_reschedule(s, &e[1].ev, 1000));
        ASSERT_EQ(sim_engine_run(s), SIM_RUN_EMPTY);
        ASSERT_EQ(tr.n, 25);
        for (size_t i = 0; i < 24; i++)
            ASSERT_EQ(tr.tag[i], 3 + 2 * i);
        ASSERT_EQ(tr.tag[24], 1);
        ASSERT_EQ(tr.t[24], 1000);
        free(tr.t);
        free(tr.tag);
        sim_engine_destroy(s);
    }
}

/* A self-rescheduling ticker every 10 us. */
static void tick(sim_engine *sim, sim_event *ev)
{
    (*(int *)ev->arg)++;
    sim_schedule_in(sim, ev, 10);
}

static int pred_ge(sim_engine *sim, void *arg)
{
    (void)sim;
    return *(int *)arg >= 37;
}

static void stopper(sim_engine *sim, void *arg)
{
    (void)arg;
    sim_engine_stop(sim);
}

TEST(stop_time_predicate_stop)
{
    for (int k = 0; k < NKINDS; k++) {
        sim_engine *s = mk(kinds[k]);
        int count = 0;
        sim_event ev;
        sim_event_init(&ev, tick, &count);
        ASSERT_OK(sim_schedule(s, &ev, 0));
        sim_engine_set_stop_time(s, 100);
        ASSERT_EQ(sim_engine_run(s), SIM_RUN_STOP_TIME);
        ASSERT_EQ(count, 11); /* 0,10,...,100 inclusive */
        ASSERT_EQ(sim_now(s), 100);
        sim_engine_set_stop_time(s, 155);
        ASSERT_EQ(sim_engine_run(s), SIM_RUN_STOP_TIME);
        ASSERT_EQ(count, 16);
        ASSERT_EQ(sim_now(s), 155); /* clock advanced to the stop time */
        sim_engine_set_stop_time(s, SIM_TIME_MAX);
        sim_engine_set_stop_predicate(s, pred_ge, &count);
        ASSERT_EQ(sim_engine_run(s), SIM_RUN_PREDICATE);
        ASSERT_EQ(count, 37);
        ASSERT_EQ(sim_now(s), 360);
        sim_engine_set_stop_predicate(s, NULL, NULL);
        ASSERT_OK(sim_call_at(s, 1000, stopper, NULL));
        ASSERT_EQ(sim_engine_run(s), SIM_RUN_STOPPED);
        ASSERT_EQ(sim_now(s), 1000);
        /* the stopper was scheduled (at t=360) before the tick for 1000
         * (at t=990): same time, lower seq, so the tick has not run */
        ASSERT_EQ(count, 100);
        ASSERT_TRUE(sim_event_pending(&ev));
        ASSERT_EQ(ev.time, 1000);
        ASSERT_EQ(sim_call_at(s, 999, stopper, NULL), SIM_ERR_PAST);
        ASSERT_EQ(sim_call_at(s, 2000, NULL, NULL), SIM_ERR_ARG);
        sim_engine_destroy(s);
    }
}

/* One-off calls from the pool, including ones scheduled from inside one. */
static void chain(sim_engine *sim, void *arg)
{
    int *c = arg;
    if (++*c < 1000)
        sim_call_at(sim, sim_now(sim) + (*c % 3), chain, arg);
}

TEST(call_at_pool)
{
    for (int k = 0; k < NKINDS; k++) {
        sim_engine *s = mk(kinds[k]);
        int c = 0;
        for (int i = 0; i < 600; i++) /* more than one pool block */
            ASSERT_OK(sim_call_at(s, 5000 + i, stopper, NULL));
        ASSERT_OK(sim_call_at(s, 0, chain, &c));
        sim_engine_set_stop_time(s, 4999);
        ASSERT_EQ(sim_engine_run(s), SIM_RUN_STOP_TIME);
        ASSERT_EQ(c, 1000);
        ASSERT_EQ(sim_engine_pending(s), 600);
        sim_engine_destroy(s); /* frees pending pooled events */
    }
}

/* ---- determinism: a small model with per-entity streams ---- */
typedef struct ent {
    sim_event ev;
    sim_stream st;
    uint32_t id;
} ent;

typedef struct world {
    sim_rng *rng;
    ent *e;
    size_t n;
    uint64_t h;
} world;

static void ent_fire(sim_engine *sim, sim_event *ev)
{
    ent *x = (ent *)ev;
    world *w = ev->arg;
    gsl_rng *r = sim_rng_use(w->rng, &x->st);
    w->h = fnv(fnv(w->h, (uint64_t)sim_now(sim)), x->id);
    double u = gsl_rng_uniform(r);
    /* sometimes cancel or delay a random other entity */
    if (u < 0.1) {
        ent *o = &w->e[gsl_rng_uniform_int(r, w->n)];
        if (sim_event_pending(&o->ev))
            sim_reschedule(sim, &o->ev, sim_now(sim) + (sim_time)gsl_rng_uniform_int(r, 1000));
    }
    sim_schedule_in(sim, ev, (sim_time)gsl_ran_exponential(r, 5000.0) / 10 * 10);
}

static uint64_t run_world(int kind, uint64_t seed, size_t n, sim_time until)
{
    sim_engine *s = mk(kind);
    world w = {NULL, calloc(n, sizeof(ent)), n, 14695981039346656037ULL};
    sim_rng_create(&w.rng, seed, 0);
    for (size_t i = 0; i < n; i++) {
        sim_event_init(&w.e[i].ev, ent_fire, &w);
        sim_stream_init(&w.e[i].st, 20, i);
        w.e[i].id = (uint32_t)i;
        sim_schedule(s, &w.e[i].ev, (sim_time)(i % 7) * 100);
    }
    sim_engine_set_stop_time(s, until);
    sim_engine_run(s);
    uint64_t h = fnv(w.h, sim_engine_events_executed(s));
    sim_rng_destroy(w.rng);
    free(w.e);
    sim_engine_destroy(s);
    return h;
}

/* Also the regression test for a ladder bug it caught: a split rung's
 * rounded-up buckets reached past its end, so the heap took events beyond
 * it and one overtook an earlier event still in the parent rung. */
TEST(determinism_hash)
{
    sim_time until = (sim_time)(2e6 * test_scale());
    uint64_t a = run_world(SIM_QUEUE_HEAP4, 42, 1000, until);
    uint64_t b = run_world(SIM_QUEUE_HEAP4, 42, 1000, until);
    uint64_t c = run_world(SIM_QUEUE_CALENDAR, 42, 1000, until);
    uint64_t d = run_world(SIM_QUEUE_HEAP4, 43, 1000, until);
    uint64_t e = run_world(SIM_QUEUE_LADDER, 42, 1000, until);
    ASSERT_EQ_U64(a, b);
    ASSERT_EQ_U64(a, c);
    ASSERT_EQ_U64(a, e);
    ASSERT_TRUE(a != d);
}

/* Calendar queue under hostile time distributions: identical to the heap. */
static uint64_t hostile(int kind, int mode)
{
    sim_engine *s = mk(kind);
    size_t n = 5000;
    tev *e = calloc(n, sizeof *e);
    trace tr = {calloc(3 * n, sizeof(sim_time)), calloc(3 * n, 8), 0, 3 * n};
    gsl_rng *r = sim_rng_alloc_stream(9, (uint64_t)mode, SIM_STREAM_TEST, 3);
    for (size_t i = 0; i < n; i++) {
        sim_event_init(&e[i].ev, on_fire, &tr);
        e[i].tag = i;
        sim_time at;
        switch (mode) {
        case 0: at = (i % 2) ? 5 : (sim_time)1 << 50; break;  /* two clumps */
        case 1: at = (sim_time)gsl_ran_pareto(r, 0.5, 1.0); break; /* heavy tail */
        case 2: at = (sim_time)i * 1000000007LL; break;       /* sparse */
        case 3: at = (i % 3) ? SIM_TIME_MAX - (sim_time)(i % 7) : (sim_time)i; break; /* at the end of time */
        /* dense clusters a few us wide (ladder rungs split down to 1 us) */
        case 4: at = (sim_time)(i / 200) * 5000 + (sim_time)(i % 7); break;
        case 5: /* a dense front and a far tail (a web population): the
                   ladder spawns its first buckets into finer rungs */
            at = (i % 10) ? (sim_time)gsl_rng_uniform_int(r, 1000)
                          : (sim_time)gsl_rng_uniform_int(r, 1000000000UL) * 1000;
            break;
        default: /* nested densities: rungs below rungs, down to width 1 */
            at = (i % 2) ? (sim_time)gsl_rng_uniform_int(r, 50)
               : (i % 4) ? (sim_time)gsl_rng_uniform_int(r, 100000)
                         : (sim_time)gsl_rng_uniform_int(r, 1000000000UL) * 1000000;
            break;
        }
        sim_schedule(s, &e[i].ev, at);
    }
    /* drain half, then add more, drain all */
    sim_engine_set_stop_time(s, e[n / 2].ev.time);
    sim_engine_run(s);
    for (size_t i = 0; i < n; i++)
        if (!sim_event_pending(&e[i].ev)) {
            sim_time d = (sim_time)gsl_rng_uniform_int(r, 100);
            sim_schedule(s, &e[i].ev, sim_now(s) > SIM_TIME_MAX - d ? SIM_TIME_MAX : sim_now(s) + d);
        }
    sim_engine_set_stop_time(s, SIM_TIME_MAX);
    sim_engine_run(s);
    uint64_t h = 1;
    int bad = tr.n < n; /* every event fires at least once */
    for (size_t k = 0; k < tr.n; k++) {
        if (k && tr.t[k] < tr.t[k - 1])
            bad = 1;
        h = fnv(fnv(h, (uint64_t)tr.t[k]), tr.tag[k]);
    }
    gsl_rng_free(r);
    free(tr.t);
    free(tr.tag);
    free(e);
    sim_engine_destroy(s);
    return bad ? 0 : fnv(h, tr.n);
}

TEST(queues_hostile)
{
    for (int mode = 0; mode < 7; mode++) {
        uint64_t h = hostile(SIM_QUEUE_HEAP4, mode);
        ASSERT_NE(h, 0);
        ASSERT_EQ_U64(h, hostile(SIM_QUEUE_CALENDAR, mode));
        ASSERT_EQ_U64(h, hostile(SIM_QUEUE_LADDER, mode));
    }
}

/* Integer-only model (no libm in the loop), pinned hash: the same trace
 * on every machine and every queue. */
typedef struct gent {
    sim_event ev;
    sim_stream st;
    uint32_t id;
} gent;

typedef struct gworld {
    sim_rng *rng;
    gent *e;
    size_t n;
    uint64_t h, left;
} gworld;

static void gfire(sim_engine *sim, sim_event *ev)
{
    gent *x = (gent *)ev;
    gworld *w = ev->arg;
    gsl_rng *r = sim_rng_use(w->rng, &x->st);
    w->h = fnv(fnv(w->h, (uint64_t)sim_now(sim)), x->id);
    if (--w->left == 0) {
        sim_engine_stop(sim);
        return;
    }
    unsigned long u = gsl_rng_uniform_int(r, 100);
    gent *o = &w->e[gsl_rng_uniform_int(r, w->n)];
    if (u < 5 && o != x && sim_event_pending(&o->ev))
        sim_cancel(sim, &o->ev);
    else if (u < 15 && o != x)
        sim_reschedule(sim, &o->ev, sim_now(sim) + (sim_time)gsl_rng_uniform_int(r, 1000));
    sim_schedule_in(sim, ev, (sim_time)gsl_rng_uniform_int(r, 1000000));
}

TEST(golden_trace)
{
    for (int k = 0; k < NKINDS; k++) {
        sim_engine *s = mk(kinds[k]);
        gworld w = {NULL, calloc(500, sizeof(gent)), 500, 14695981039346656037ULL, 200000};
        ASSERT_OK(sim_rng_create(&w.rng, 31337, 2));
        for (size_t i = 0; i < w.n; i++) {
            sim_event_init(&w.e[i].ev, gfire, &w);
            sim_stream_init(&w.e[i].st, 60, i);
            w.e[i].id = (uint32_t)i;
            ASSERT_OK(sim_schedule(s, &w.e[i].ev, (sim_time)(i % 10)));
        }
        ASSERT_EQ(sim_engine_run(s), SIM_RUN_STOPPED);
        ASSERT_EQ_U64(fnv(w.h, (uint64_t)sim_now(s)), GOLDEN_TRACE);
        sim_rng_destroy(w.rng);
        free(w.e);
        sim_engine_destroy(s);
    }
}

/* The peek hint, when given, is the event that runs next (nothing is
 * scheduled in between here); the ladder and the heap give it whenever
 * events are pending and their minimum is at hand. */
typedef struct peek_ctx {
    const sim_event *expect;
    size_t given, bad, fired;
} peek_ctx;

static void peek_fire(sim_engine *sim, sim_event *ev)
{
    peek_ctx *c = ev->arg;
    (void)sim;
    if (c->expect && c->expect != ev)
        c->bad++;
    c->fired++;
}

static int peek_pred(sim_engine *sim, void *arg)
{
    (void)arg;
    (void)sim;
    return 1; /* one event per run */
}

TEST(peek_hint_is_next_or_null)
{
    for (int k = 0; k < NKINDS; k++) {
        sim_engine *s = mk(kinds[k]);
        size_t n = 3000;
        sim_event *e = calloc(n, sizeof *e);
        peek_ctx c = {NULL, 0, 0, 0};
        gsl_rng *r = sim_rng_alloc_stream(5, 0, SIM_STREAM_TEST, 9);
        ASSERT_TRUE(sim_engine_peek_hint(s) == NULL);
        for (size_t i = 0; i < n; i++) {
            sim_event_init(&e[i], peek_fire, &c);
            /* ties, a dense front and a far tail */
            sim_time at = i % 3 == 0 ? (sim_time)(i % 7)
                        : i % 3 == 1 ? (sim_time)gsl_rng_uniform_int(r, 1000)
                                     : (sim_time)gsl_rng_uniform_int(r, 1000000000UL);
            ASSERT_OK(sim_schedule(s, &e[i], at));
        }
        sim_engine_set_stop_predicate(s, peek_pred, NULL);
        while (sim_engine_pending(s) > 0) {
            c.expect = sim_engine_peek_hint(s);
            c.given += c.expect != NULL;
            ASSERT_EQ(sim_engine_run(s), SIM_RUN_PREDICATE);
        }
        ASSERT_EQ(c.fired, n);
        ASSERT_EQ(c.bad, 0);
        if (kinds[k] != SIM_QUEUE_CALENDAR)
            ASSERT_TRUE(c.given > n / 2);
        gsl_rng_free(r);
        free(e);
        sim_engine_destroy(s);
    }
}

/* Removal from big buckets and the top of the ladder is recorded and
 * settled later (queue_ladder.c): a cancelled event may be freed at once
 * (ASan would see any later touch), rescheduling far-future events over
 * and over must not keep their old entries alive without bound, and the
 * events that remain fire exactly once, in order, on every queue. */
TEST(cancel_free_and_churn)
{
    const size_t n = 20000;
    for (int k = 0; k < NKINDS; k++) {
        sim_engine *s = mk(kinds[k]);
        ASSERT_TRUE(s != NULL);
        tev **e = calloc(n, sizeof *e);
        trace tr = {calloc(n, sizeof(sim_time)), calloc(n, 8), 0, n};
        ASSERT_TRUE(e && tr.t && tr.tag);
        gsl_rng *r = sim_rng_alloc_stream(7, 0, SIM_STREAM_TEST, 3);
        for (size_t i = 0; i < n; i++) {
            e[i] = malloc(sizeof *e[i]);
            ASSERT_TRUE(e[i] != NULL);
            sim_event_init(&e[i]->ev, on_fire, &tr);
            e[i]->tag = i;
            ASSERT_OK(sim_schedule(s, &e[i]->ev,
                                   1000000 + (sim_time)gsl_rng_uniform_int(r, 1000000000)));
        }
        /* a first pop cuts the ladder's rungs: later removals hit buckets */
        sim_engine_set_stop_time(s, 1000);
        ASSERT_EQ(sim_engine_run(s), SIM_RUN_STOP_TIME);
        size_t live = n;
        for (size_t i = 0; i < n; i += 2) { /* cancel and free half */
            ASSERT_OK(sim_cancel(s, &e[i]->ev));
            free(e[i]);
            e[i] = NULL;
            live--;
        }
        /* churn: 50 reschedules of every remaining event */
        for (int round = 0; round < 50; round++)
            for (size_t i = 1; i < n; i += 2)
                ASSERT_OK(sim_reschedule(s, &e[i]->ev,
                                         2000 + (sim_time)gsl_rng_uniform_int(r, 2000000000)));
        ASSERT_EQ(sim_engine_pending(s), live);
        sim_engine_set_stop_time(s, SIM_TIME_MAX);
        ASSERT_EQ(sim_engine_run(s), SIM_RUN_EMPTY);
        ASSERT_EQ(tr.n, live);
        for (size_t j = 0; j < tr.n; j++) {
            ASSERT_TRUE(tr.tag[j] % 2 == 1);
            ASSERT_TRUE(e[tr.tag[j]]->ev.time == tr.t[j]);
            if (j)
                ASSERT_TRUE(tr.t[j] >= tr.t[j - 1]);
        }
        for (size_t i = 0; i < n; i++)
            free(e[i]);
        free(e);
        free(tr.t);
        free(tr.tag);
        gsl_rng_free(r);
        sim_engine_destroy(s);
    }
}

/* Events at the end of time (SIM_TIME_MAX, where saturating delays land)
 * can be cancelled in every phase of a queue: before the first cut, while
 * they sit in a rung that reaches the end of time, and after everything
 * earlier has fired (the ladder's heap then holds them). */
TEST(cancel_at_end_of_time)
{
    const size_t n = 400;
    for (int k = 0; k < NKINDS; k++) {
        for (int phase = 0; phase < 3; phase++) {
            sim_engine *s = mk(kinds[k]);
            ASSERT_TRUE(s != NULL);
            tev *e = calloc(n, sizeof *e);
            trace tr = {calloc(n, sizeof(sim_time)), calloc(n, 8), 0, n};
            ASSERT_TRUE(e && tr.t && tr.tag);
            for (size_t i = 0; i < n; i++) {
                sim_event_init(&e[i].ev, on_fire, &tr);
                e[i].tag = i;
                /* even tags at the end of time, odd ones spread before it */
                sim_time at = i % 2 ? (sim_time)(i * 1000) : SIM_TIME_MAX;
                ASSERT_OK(sim_schedule(s, &e[i].ev, at));
            }
            if (phase >= 1) { /* first pops: the queue is cut */
                sim_engine_set_stop_time(s, 1000);
                sim_engine_run(s);
            }
            if (phase == 2) { /* all the finite ones fired */
                sim_engine_set_stop_time(s, SIM_TIME_MAX - 1);
                sim_engine_run(s);
            }
            size_t before = tr.n;
            for (size_t i = 0; i < n; i += 4) /* a quarter: half the MAX ones */
                ASSERT_OK(sim_cancel(s, &e[i].ev));
            sim_engine_set_stop_time(s, SIM_TIME_MAX);
            ASSERT_EQ(sim_engine_run(s), SIM_RUN_EMPTY);
            ASSERT_EQ(tr.n, n - n / 4);
            for (size_t j = 0; j < tr.n; j++)
                ASSERT_TRUE(tr.tag[j] % 4 != 0);
            /* the MAX ones fire last, in scheduling order */
            for (size_t j = before + 1; j < tr.n; j++)
                if (tr.t[j] == SIM_TIME_MAX && tr.t[j - 1] == SIM_TIME_MAX)
                    ASSERT_TRUE(tr.tag[j] > tr.tag[j - 1]);
            free(e);
            free(tr.t);
            free(tr.tag);
            sim_engine_destroy(s);
        }
    }
}

/* A room of seqs kept (sim_engine_set_next_seq) and filled later sorts
 * its events where they would have been had they been scheduled when the
 * room was kept: at a tie, before an event scheduled after the room was
 * kept but earlier in the run; in every queue. */
TEST(seq_room_sorts_as_if_scheduled_then)
{
    for (int k = 0; k < NKINDS; k++) {
        sim_engine *s = mk(kinds[k]);
        tev e[3];
        trace tr = {calloc(8, sizeof(sim_time)), calloc(8, 8), 0, 8};
        for (int i = 0; i < 3; i++) {
            sim_event_init(&e[i].ev, on_fire, &tr);
            e[i].tag = (uint64_t)i;
        }
        uint64_t room = sim_engine_next_seq(s);
        sim_engine_set_next_seq(s, room + 10);
        ASSERT_OK(sim_schedule(s, &e[0].ev, 500));     /* after the room */
        ASSERT_OK(sim_schedule(s, &e[1].ev, 100));
        sim_engine_set_stop_time(s, 200);
        ASSERT_EQ(sim_engine_run(s), SIM_RUN_STOP_TIME);   /* e1 ran */
        uint64_t resume = sim_engine_next_seq(s);
        sim_engine_set_next_seq(s, room);
        ASSERT_OK(sim_schedule(s, &e[2].ev, 500));     /* into the room */
        ASSERT_EQ(sim_engine_next_seq(s), room + 1);
        sim_engine_set_next_seq(s, resume);
        sim_engine_set_stop_time(s, SIM_TIME_MAX);
        ASSERT_EQ(sim_engine_run(s), SIM_RUN_EMPTY);
        ASSERT_EQ(tr.n, 3);
        ASSERT_EQ(tr.tag[0], 1);
        ASSERT_EQ(tr.tag[1], 2);    /* the room's, first at the tie */
        ASSERT_EQ(tr.tag[2], 0);
        free(tr.t);
        free(tr.tag);
        sim_engine_destroy(s);
    }
}

static const test_case cases[] = {
    {"seq_room_sorts_as_if_scheduled_then", seq_room_sorts_as_if_scheduled_then},
    {"peek_hint_is_next_or_null", peek_hint_is_next_or_null},
    {"create_errors", create_errors},
    {"order_and_ties", order_and_ties},
    {"ties_exact", ties_exact},
    {"schedule_errors", schedule_errors},
    {"cancel_reschedule_random", cancel_reschedule_random},
    {"cancel_semantics", cancel_semantics},
    {"cancel_free_and_churn", cancel_free_and_churn},
    {"cancel_at_end_of_time", cancel_at_end_of_time},
    {"stop_time_predicate_stop", stop_time_predicate_stop},
    {"call_at_pool", call_at_pool},
    {"determinism_hash", determinism_hash},
    {"queues_hostile", queues_hostile},
    {"golden_trace", golden_trace},
};

TEST_MAIN(cases)
