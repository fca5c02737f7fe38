/*
 * test_sim_prof.c - CPU profiles (sim/prof.h): cells add up to the CPU
 * time between creation and stop, busy work lands in the cell it ran in,
 * moves to the current cell read no clock, the engine charges events by
 * their handler's part (one-off calls by their function), and a NULL
 * profile is a no-op.
 */
#include <stdint.h>
#include <string.h>

#include "sim/engine.h"
#include "sim/prof.h"
#include "sim/status.h"
#include "test.h"

static const char *const parts[] = {"other", "a", "b"};
static const char *const phases[] = {"one", "two"};
static const char *const works[] = {"w0", "w1"};
static const sim_prof_names names = {parts, 3, phases, 2, works, 2};

/* Burns about `s` seconds of this thread's CPU. */
static void burn(double s)
{
    double t0 = sim_prof_thread_cpu();
    volatile uint64_t x = 1;
    while (sim_prof_thread_cpu() - t0 < s)
        for (int i = 0; i < 10000; i++)
            x = x * 6364136223846793005u + 1442695040888963407u;
}

TEST(cells_add_up_and_hold_their_work)
{
    sim_prof *p;
    double t0 = sim_prof_thread_cpu();
    ASSERT_OK(sim_prof_create(&p, &names));
    int prev = sim_prof_enter(p, 1);
    ASSERT_EQ(prev, 0);
    burn(0.05);
    sim_prof_phase(p, 1);
    int prev2 = sim_prof_enter(p, 2);
    ASSERT_EQ(prev2, 1);
    burn(0.03);
    sim_prof_leave(p, prev2);
    sim_prof_leave(p, prev);
    sim_prof_work(p, 1, 7);
    sim_prof_work(p, 5, 9);     /* out of range: ignored */
    sim_prof_stop(p);
    double t1 = sim_prof_thread_cpu();
    double sum = 0;
    for (int ph = 0; ph < 2; ph++)
        for (int pt = 0; pt < 3; pt++)
            sum += sim_prof_seconds(p, ph, pt);
    ASSERT_TRUE(sum <= t1 - t0 + 1e-6);
    ASSERT_TRUE(sim_prof_seconds(p, 0, 1) >= 0.05);
    ASSERT_TRUE(sim_prof_seconds(p, 1, 2) >= 0.03);
    ASSERT_TRUE(sim_prof_seconds(p, 1, 2) < 0.03 + 0.02);
    ASSERT_EQ_U64(sim_prof_work_count(p, 1, 1), 7);
    ASSERT_EQ_U64(sim_prof_work_count(p, 0, 1), 0);
    ASSERT_EQ_U64(sim_prof_work_count(p, 1, 0), 0);
    /* enter a, phase, enter b, leave to a, leave to other, stop: 6 reads */
    ASSERT_EQ_U64(sim_prof_reads(p), 6);
    ASSERT_TRUE(sim_prof_read_cost(p) > 0);
    /* after stop nothing more is charged */
    sim_prof_enter(p, 2);
    burn(0.01);
    sim_prof_stop(p);
    ASSERT_TRUE(sim_prof_seconds(p, 1, 2) < 0.03 + 0.02);
    sim_prof_destroy(p);
}

TEST(same_cell_reads_nothing)
{
    sim_prof *p;
    ASSERT_OK(sim_prof_create(&p, &names));
    for (int i = 0; i < 1000; i++) {
        int prev = sim_prof_enter(p, 0);
        sim_prof_leave(p, prev);
        sim_prof_phase(p, 0);
    }
    ASSERT_EQ_U64(sim_prof_reads(p), 0);
    sim_prof_destroy(p);
}

TEST(null_profile_is_a_noop)
{
    ASSERT_EQ(sim_prof_enter(NULL, 2), 0);
    sim_prof_leave(NULL, 1);
    sim_prof_phase(NULL, 1);
    sim_prof_work(NULL, 0, 1);
    sim_prof_stop(NULL);
    ASSERT_OK(sim_prof_handler(NULL, NULL, 1));
    ASSERT_EQ_U64(sim_prof_reads(NULL), 0);
    ASSERT_TRUE(sim_prof_seconds(NULL, 0, 0) == 0);
    sim_prof_destroy(NULL);
}

TEST(bad_names_refused)
{
    sim_prof *p = (sim_prof *)&p;
    sim_prof_names n = names;
    n.nparts = 0;
    ASSERT_EQ(sim_prof_create(&p, &n), SIM_ERR_ARG);
    ASSERT_TRUE(p == NULL);
    n = names;
    n.nphases = SIM_PROF_MAX_PHASES + 1;
    ASSERT_EQ(sim_prof_create(&p, &n), SIM_ERR_ARG);
    ASSERT_EQ(sim_prof_create(&p, NULL), SIM_ERR_ARG);
}

static void ev_a(sim_engine *s, sim_event *e)
{
    (void)s;
    (void)e;
    burn(0.02);
}

static void ev_b(sim_engine *s, sim_event *e)
{
    (void)s;
    (void)e;
    burn(0.01);
}

static void call_c(sim_engine *s, void *arg)
{
    (void)s;
    (void)arg;
    burn(0.01);
}

TEST(engine_charges_by_handler)
{
    sim_engine *s;
    sim_prof *p;
    ASSERT_OK(sim_engine_create(&s, NULL));
    ASSERT_OK(sim_prof_create(&p, &names));
    ASSERT_OK(sim_prof_handler(p, ev_a, 1));
    ASSERT_OK(sim_prof_handler(p, (sim_handler)call_c, 2));
    ASSERT_EQ(sim_prof_part_of(p, ev_b, 0), 0);
    ASSERT_EQ(sim_prof_part_of(p, ev_a, 0), 1);
    sim_engine_set_prof(s, p, 0);
    ASSERT_TRUE(sim_engine_prof(s) == p);
    sim_event a, b;
    sim_event_init(&a, ev_a, NULL);
    sim_event_init(&b, ev_b, NULL);
    ASSERT_OK(sim_schedule(s, &a, 10));
    ASSERT_OK(sim_schedule(s, &b, 20));
    ASSERT_OK(sim_call_at(s, 30, call_c, NULL));
    ASSERT_EQ(sim_engine_run(s), SIM_RUN_EMPTY);
    sim_prof_stop(p);
    ASSERT_TRUE(sim_prof_seconds(p, 0, 1) >= 0.02);
    ASSERT_TRUE(sim_prof_seconds(p, 0, 0) >= 0.01);    /* ev_b: unregistered */
    ASSERT_TRUE(sim_prof_seconds(p, 0, 2) >= 0.01);    /* the one-off call */
    ASSERT_TRUE(sim_prof_seconds(p, 0, 2) < 0.02);
    sim_engine_destroy(s);
    sim_prof_destroy(p);
}

TEST(handler_table_limit)
{
    sim_prof *p;
    ASSERT_OK(sim_prof_create(&p, &names));
    /* re-registering changes the part and takes no new slot */
    for (int i = 0; i < 2 * SIM_PROF_MAX_HANDLERS; i++)
        ASSERT_OK(sim_prof_handler(p, ev_a, i & 1));
    ASSERT_EQ(sim_prof_part_of(p, ev_a, 2), 1);
    sim_prof_destroy(p);
}

/* A sharded run's profile: one rank's cells added to another's give the
 * sums, cell by cell, work counts and clock reads included; anything but
 * an export is refused. */
TEST(export_add_sums_cells)
{
    sim_prof *p, *q;
    ASSERT_OK(sim_prof_create(&p, &names));
    ASSERT_OK(sim_prof_create(&q, &names));
    int prev = sim_prof_enter(p, 1);
    burn(0.02);
    sim_prof_work(p, 1, 7);
    sim_prof_phase(p, 1);
    sim_prof_work(p, 0, 3);
    sim_prof_leave(p, prev);
    sim_prof_stop(p);
    prev = sim_prof_enter(q, 2);
    burn(0.01);
    sim_prof_work(q, 1, 5);
    sim_prof_leave(q, prev);
    sim_prof_stop(q);
    double p01 = sim_prof_seconds(p, 0, 1), q02 = sim_prof_seconds(q, 0, 2);
    double q01 = sim_prof_seconds(q, 0, 1);
    uint64_t reads = sim_prof_reads(p) + sim_prof_reads(q);
    uint8_t cells[SIM_PROF_EXPORT_BYTES];
    sim_prof_export(p, cells);
    ASSERT_OK(sim_prof_add(q, cells, sizeof cells));
    ASSERT_NEAR(sim_prof_seconds(q, 0, 1), p01 + q01, 1e-9);
    ASSERT_NEAR(sim_prof_seconds(q, 0, 2), q02 + sim_prof_seconds(p, 0, 2), 1e-9);
    ASSERT_EQ_U64(sim_prof_work_count(q, 0, 1), 12);
    ASSERT_EQ_U64(sim_prof_work_count(q, 1, 0), 3);
    ASSERT_EQ_U64(sim_prof_reads(q), reads);
    ASSERT_EQ(sim_prof_add(q, cells, sizeof cells - 1), SIM_ERR_ARG);
    ASSERT_EQ_U64(sim_prof_work_count(q, 0, 1), 12);   /* unchanged */
    sim_prof_destroy(p);
    sim_prof_destroy(q);
}

static const test_case cases[] = {
    {"export_add_sums_cells", export_add_sums_cells},
    {"cells_add_up_and_hold_their_work", cells_add_up_and_hold_their_work},
    {"same_cell_reads_nothing", same_cell_reads_nothing},
    {"null_profile_is_a_noop", null_profile_is_a_noop},
    {"bad_names_refused", bad_names_refused},
    {"engine_charges_by_handler", engine_charges_by_handler},
    {"handler_table_limit", handler_table_limit},
};

TEST_MAIN(cases)
