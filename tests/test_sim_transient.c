/*
 * test_sim_transient.c - MSER-5 (sim/transient.h): exact truncation on
 * deterministic series, the false-alarm rate on stationary noise, and
 * detection of decaying transients like the first days of a cold start.
 */
#include <math.h>
#include <stdlib.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "sim/rng.h"
#include "sim/status.h"
#include "sim/transient.h"
#include "test.h"

TEST(rejects_bad_input)
{
    double x[40] = {0};
    sim_transient tr;
    ASSERT_EQ(sim_mser5(NULL, 40, &tr), SIM_ERR_ARG);
    ASSERT_EQ(sim_mser5(x, SIM_MSER_MIN_OBS - 1, &tr), SIM_ERR_ARG);
    x[7] = NAN;
    ASSERT_EQ(sim_mser5(x, 40, &tr), SIM_ERR_ARG);
    x[7] = INFINITY;
    ASSERT_EQ(sim_mser5(x, 40, &tr), SIM_ERR_ARG);
}

TEST(constant_series_keeps_everything)
{
    double x[100];
    for (size_t i = 0; i < 100; i++)
        x[i] = 0.9924;
    sim_transient tr;
    ASSERT_OK(sim_mser5(x, 100, &tr));
    ASSERT_EQ(tr.batches, (size_t)20);
    ASSERT_EQ(tr.truncate, (size_t)0);
    ASSERT_FALSE(tr.transient);
    ASSERT_NEAR(tr.mean_kept, 0.9924, 1e-12);
}

/* A level shift over the first 3 batches, then batches alternating
 * between two levels: MSER is minimised exactly after the shift, and the
 * shift is a transient. */
TEST(step_is_truncated_exactly)
{
    double x[200];
    for (size_t i = 0; i < 200; i++)
        x[i] = i < 15 ? 0.5 : ((i / 5) % 2 ? 1.0 : 0.98);
    sim_transient tr;
    ASSERT_OK(sim_mser5(x, 200, &tr));
    ASSERT_EQ(tr.truncate, (size_t)15);
    ASSERT_TRUE(tr.transient);
    ASSERT_FALSE(tr.past_middle);
    ASSERT_NEAR(tr.mean_kept, (19 * 1.0 + 18 * 0.98) / 37, 1e-12);
}

/* A trend through the whole window never settles: the minimiser is the
 * boundary of the search, and the deleted half lies below the rest. */
TEST(trend_is_past_middle)
{
    double x[100];
    for (size_t i = 0; i < 100; i++)
        x[i] = 1.0 - exp(-(double)i / 200.0);
    sim_transient tr;
    ASSERT_OK(sim_mser5(x, 100, &tr));
    ASSERT_TRUE(tr.past_middle);
    ASSERT_TRUE(tr.transient);
}

/* Stationary AR(1) noise (phi 0.5, like hourly fractions of a steady
 * population): the verdict must rarely say "transient". Over 400 seeded
 * series of 96 points the false-alarm rate must stay under 10 % (4.25 %
 * when written). */
TEST(stationary_noise_false_alarms)
{
    size_t n = 96, reps = 400, alarms = 0;
    double *x = malloc(n * sizeof *x);
    ASSERT_TRUE(x != NULL);
    for (size_t r = 0; r < reps; r++) {
        gsl_rng *g = sim_rng_alloc_stream(11, r, SIM_STREAM_TEST, 0);
        double e = 0;
        for (size_t i = 0; i < n; i++) {
            e = 0.5 * e + gsl_ran_gaussian(g, 0.002);
            x[i] = 0.999 + e;
        }
        gsl_rng_free(g);
        sim_transient tr;
        if (sim_mser5(x, n, &tr) != SIM_OK) {
            free(x);
            ASSERT_TRUE(0);
        }
        alarms += (size_t)tr.transient;
    }
    free(x);
    printf("stationary AR(1): %zu/%zu false alarms\n", alarms, reps);
    ASSERT_TRUE(alarms * 10 < reps);
}

/* A steady signatureless fraction of a large population: 1.0 in most
 * hours, a rare hour with a miss or two. The retained part after MSER's
 * cut can be exactly constant, so its standard error is 0; a rare event
 * in the deleted part must still not read as a transient. */
TEST(rare_events_are_not_a_transient)
{
    size_t n = 48, reps = 400, alarms = 0;
    double x[48];
    for (size_t r = 0; r < reps; r++) {
        gsl_rng *g = sim_rng_alloc_stream(13, r, SIM_STREAM_TEST, 0);
        for (size_t i = 0; i < n; i++)
            x[i] = 1.0 - 2e-5 * (double)gsl_ran_poisson(g, 0.1);
        gsl_rng_free(g);
        sim_transient tr;
        ASSERT_OK(sim_mser5(x, n, &tr));
        alarms += (size_t)tr.transient;
    }
    printf("rare events: %zu/%zu false alarms\n", alarms, reps);
    ASSERT_TRUE(alarms * 20 < reps);
}

/* A cold start: the fraction rises as 1 - 0.08 exp(-t/6) (hours) under
 * the same noise. Detected in at least 95 % of series, and the truncation
 * point lands where the remaining bias is below the noise. */
TEST(decaying_transient_is_detected)
{
    size_t n = 96, reps = 200, found = 0, late = 0;
    double *x = malloc(n * sizeof *x);
    ASSERT_TRUE(x != NULL);
    for (size_t r = 0; r < reps; r++) {
        gsl_rng *g = sim_rng_alloc_stream(12, r, SIM_STREAM_TEST, 0);
        double e = 0;
        for (size_t i = 0; i < n; i++) {
            e = 0.5 * e + gsl_ran_gaussian(g, 0.002);
            x[i] = 0.999 - 0.08 * exp(-(double)i / 6.0) + e;
        }
        gsl_rng_free(g);
        sim_transient tr;
        if (sim_mser5(x, n, &tr) != SIM_OK) {
            free(x);
            ASSERT_TRUE(0);
        }
        found += (size_t)tr.transient;
        /* bias left at the truncation point: 0.08 exp(-d/6) */
        late += 0.08 * exp(-(double)tr.truncate / 6.0) < 0.004;
    }
    free(x);
    printf("decaying transient: detected %zu/%zu, truncated past it %zu/%zu\n",
           found, reps, late, reps);
    ASSERT_TRUE(found * 100 >= reps * 95);
    ASSERT_TRUE(late * 100 >= reps * 90);
}

static const test_case cases[] = {
    {"rejects_bad_input", rejects_bad_input},
    {"constant_series_keeps_everything", constant_series_keeps_everything},
    {"step_is_truncated_exactly", step_is_truncated_exactly},
    {"trend_is_past_middle", trend_is_past_middle},
    {"stationary_noise_false_alarms", stationary_noise_false_alarms},
    {"rare_events_are_not_a_transient", rare_events_are_not_a_transient},
    {"decaying_transient_is_detected", decaying_transient_is_detected},
};
TEST_MAIN(cases)
