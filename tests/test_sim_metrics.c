/*
 * test_sim_metrics.c - counters, gauges, series on the grid, warm-up,
 * log histograms and their quantiles, exact merge (including a population
 * sharded 1, 2 and 3 ways giving identical results), enumeration, and the
 * Student-t confidence interval against its closed form and its coverage.
 */
#include "test.h"

#include <math.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_randist.h>

#include "lib/metrics_eq.h"
#include "sim/engine.h"
#include "sim/metrics.h"
#include "sim/rng.h"
#include "sim/status.h"

TEST(define_errors)
{
    sim_metrics *m;
    sim_metric *a, *b;
    ASSERT_OK(sim_metrics_create(&m, NULL, NULL));
    ASSERT_EQ(sim_metrics_counter(m, "", "", 1, 0, &a), SIM_ERR_ARG);
    ASSERT_EQ(sim_metrics_counter(m, "has space", "", 1, 0, &a), SIM_ERR_ARG);
    ASSERT_EQ(sim_metrics_counter(m, "x", "", 0, 0, &a), SIM_ERR_ARG);
    ASSERT_EQ(sim_metrics_counter(m, "x", "bad unit", 1, 0, &a), SIM_ERR_ARG);
    ASSERT_EQ(sim_metrics_counter(m, "x", "", 1, 99, &a), SIM_ERR_ARG);
    ASSERT_EQ(sim_metrics_histogram(m, "h", "s", 1, 0, 0, 1, 10, &a), SIM_ERR_ARG);
    ASSERT_EQ(sim_metrics_histogram(m, "h", "s", 1, 0, 1, 1, 10, &a), SIM_ERR_ARG);
    ASSERT_EQ(sim_metrics_histogram(m, "h", "s", 1, 0, 1, 10, 0, &a), SIM_ERR_ARG);
    ASSERT_EQ(sim_metrics_histogram(m, "h", "s", 1, SIM_METRIC_SERIES, 1, 10, 5, &a),
              SIM_ERR_ARG);
    ASSERT_EQ(sim_metrics_count(m), 0);
    /* get-or-create */
    ASSERT_OK(sim_metrics_counter(m, "handshakes", "", 3, 0, &a));
    ASSERT_OK(sim_metrics_counter(m, "handshakes", "", 3, 0, &b));
    ASSERT_TRUE(a == b);
    ASSERT_EQ(sim_metrics_counter(m, "handshakes", "", 2, 0, &b), SIM_ERR_METRIC);
    ASSERT_EQ(sim_metrics_gauge(m, "handshakes", "", 3, 0, &b), SIM_ERR_METRIC);
    ASSERT_EQ(sim_metrics_count(m), 1);
    const char *labels[] = {"chrome", "firefox", "frozen"};
    ASSERT_OK(sim_metric_set_cohort_labels(a, labels, 3));
    ASSERT_EQ(sim_metric_set_cohort_labels(a, labels, 2), SIM_ERR_ARG);
    ASSERT_STR_EQ(sim_metric_cohort_label(a, 2), "frozen");
    ASSERT_STR_EQ(sim_metric_cohort_label(a, SIM_ALL_COHORTS), "all");
    sim_metrics_destroy(m);
    sim_metrics_destroy(NULL);
    sim_metrics_config bad = {0, 0, -1, 0};
    ASSERT_EQ(sim_metrics_create(&m, &bad, NULL), SIM_ERR_ARG);
}

/* Records at given times: a counter and a gauge with series, warm-up 100,
 * grid 100, 200, 300, ... */
typedef struct rec {
    sim_metric *c, *g, *h;
} rec;

static void at_t(sim_engine *sim, void *arg)
{
    rec *r = arg;
    sim_time t = sim_now(sim);
    sim_counter_add(r->c, (size_t)(t / 50 % 2), 1);
    sim_gauge_add(r->g, 0, 1.0);
    sim_hist_observe(r->h, 0, (double)t);
}

TEST(series_and_warmup)
{
    sim_engine *sim;
    sim_metrics *m;
    rec r;
    ASSERT_OK(sim_engine_create(&sim, NULL));
    sim_metrics_config cfg = {100, 100, 100, 0};
    ASSERT_OK(sim_metrics_create(&m, &cfg, sim_engine_clock(sim)));
    ASSERT_OK(sim_metrics_counter(m, "events", "", 2, SIM_METRIC_SERIES, &r.c));
    ASSERT_OK(sim_metrics_gauge(m, "level", "", 1, SIM_METRIC_SERIES, &r.g));
    ASSERT_OK(sim_metrics_histogram(m, "when", "us", 1, 0, 1, 1e6, 10, &r.h));
    /* updates at 50 (warm-up), 100, 150, 200, 200, 250, 420 */
    sim_time ts[] = {50, 100, 150, 200, 200, 250, 420};
    for (size_t i = 0; i < 7; i++)
        ASSERT_OK(sim_call_at(sim, ts[i], at_t, &r));
    ASSERT_EQ(sim_engine_run(sim), SIM_RUN_EMPTY);
    sim_metrics_finish(m, 500);
    /* counters ignore t=50 */
    ASSERT_EQ(sim_counter_value(r.c, SIM_ALL_COHORTS), 6);
    ASSERT_EQ(sim_counter_value(r.c, 0), 4); /* 100, 200, 200, 420 */
    ASSERT_EQ(sim_counter_value(r.c, 1), 2); /* 150, 250 */
    /* gauge tracks the level through the warm-up */
    ASSERT_NEAR(sim_gauge_value(r.g, 0), 7, 0);
    /* grid points 100..500: value after all updates at times <= g */
    ASSERT_EQ(sim_metric_series_len(r.c), 5);
    ASSERT_EQ(sim_metrics_grid_time(m, 0), 100);
    ASSERT_EQ(sim_metrics_grid_time(m, 4), 500);
    double want_c[] = {1, 4, 5, 5, 6};   /* <=100, <=200, <=300, <=400, <=500 */
    double want_g[] = {2, 5, 6, 6, 7};   /* the level includes t=50 */
    for (size_t k = 0; k < 5; k++) {
        ASSERT_NEAR(sim_metric_series_value(r.c, SIM_ALL_COHORTS, k), want_c[k], 0);
        ASSERT_NEAR(sim_metric_series_value(r.g, 0, k), want_g[k], 0);
    }
    ASSERT_TRUE(isnan(sim_metric_series_value(r.c, 0, 5)));
    ASSERT_EQ(sim_hist_count(r.h, 0), 6);
    ASSERT_NEAR(sim_hist_min(r.h, 0), 100, 0);
    ASSERT_NEAR(sim_hist_sum(r.h, 0), 100 + 150 + 200 + 200 + 250 + 420, 0);
    /* finished: frozen */
    sim_counter_add(r.c, 0, 10);
    ASSERT_EQ(sim_counter_value(r.c, 0), 4);
    sim_metrics_destroy(m);
    sim_engine_destroy(sim);
}

TEST(series_cap)
{
    sim_time clock = 0;
    sim_metrics *m;
    sim_metric *c;
    sim_metrics_config cfg = {0, 0, 10, 5};
    ASSERT_OK(sim_metrics_create(&m, &cfg, &clock));
    ASSERT_OK(sim_metrics_counter(m, "c", "", 1, SIM_METRIC_SERIES, &c));
    clock = 1000;
    sim_counter_add(c, 0, 1);
    sim_metrics_finish(m, 2000);
    ASSERT_EQ(sim_metric_series_len(c), 5);
    ASSERT_TRUE(sim_metric_series_truncated(c));
    ASSERT_EQ(sim_counter_value(c, 0), 1);
    sim_metrics_destroy(m);
}

/* What a run's series will hold, known before they are filled: the
 * points to the end, and the capacity their growth reaches (64, doubled),
 * times the cells, times the size of a point (counters 8 bytes, gauges'
 * fixed point 16); histograms and metrics without series hold none. */
TEST(series_bytes_known_before_the_run)
{
    sim_time clock = 0;
    sim_metrics *m;
    sim_metric *c, *g, *plain, *h;
    sim_metrics_config cfg = {0, 0, 10, 0};
    ASSERT_OK(sim_metrics_create(&m, &cfg, &clock));
    ASSERT_OK(sim_metrics_counter(m, "c", "", 3, SIM_METRIC_SERIES, &c));
    ASSERT_OK(sim_metrics_gauge(m, "g", "", 2, SIM_METRIC_SERIES, &g));
    ASSERT_OK(sim_metrics_counter(m, "plain", "", 7, 0, &plain));
    ASSERT_OK(sim_metrics_histogram(m, "h", "s", 4, 0, 1e-3, 1e3, 10, &h));
    ASSERT_EQ(sim_metrics_series_points(m, 1000), 101);   /* 0, 10 .. 1000 */
    size_t want = 128 * 3 * 8 + 128 * 2 * 16;
    ASSERT_EQ(sim_metrics_series_bytes(m, 1000), want);
    /* what the series then hold is within that capacity */
    for (clock = 0; clock <= 1000; clock += 7) {
        sim_counter_add(c, 1, 1);
        sim_gauge_set(g, 0, (double)clock);
    }
    sim_metrics_finish(m, 1000);
    ASSERT_EQ(sim_metric_series_len(c), 101);
    ASSERT_EQ(sim_metric_series_len(g), 101);
    ASSERT_FALSE(sim_metric_series_truncated(c));
    sim_metrics_destroy(m);
    /* capped at max_points; no grid, no series */
    sim_metrics_config capped = {0, 0, 1, 1000};
    ASSERT_OK(sim_metrics_create(&m, &capped, &clock));
    ASSERT_OK(sim_metrics_counter(m, "c", "", 1, SIM_METRIC_SERIES, &c));
    ASSERT_EQ(sim_metrics_series_points(m, 1000000), 1000);
    ASSERT_EQ(sim_metrics_series_bytes(m, 1000000), 1000 * 8);
    sim_metrics_destroy(m);
    sim_metrics_config none = {0, 0, 0, 0};
    ASSERT_OK(sim_metrics_create(&m, &none, &clock));
    ASSERT_OK(sim_metrics_counter(m, "c", "", 1, SIM_METRIC_SERIES, &c));
    ASSERT_EQ(sim_metrics_series_bytes(m, 1000000), 0);
    sim_metrics_destroy(m);
}

TEST(histogram_bins_quantiles)
{
    sim_metrics *m;
    sim_metric *h;
    ASSERT_OK(sim_metrics_create(&m, NULL, NULL));
    /* 1 .. 1e4, 10 bins per decade: 40 bins */
    ASSERT_OK(sim_metrics_histogram(m, "lat", "s", 2, 0, 1.0, 1e4, 10, &h));
    ASSERT_EQ(sim_hist_nbins(h), 40);
    ASSERT_NEAR(sim_hist_edge(h, 0), 1.0, 0);
    ASSERT_NEAR(sim_hist_edge(h, 10), 10.0, 1e-12);
    ASSERT_NEAR(sim_hist_edge(h, 40), 1e4, 1e-9);
    ASSERT_TRUE(isnan(sim_hist_quantile(h, 0, 0.5)));
    /* every edge lands in the bin it opens */
    for (size_t i = 0; i < 40; i++) {
        sim_hist_observe(h, 1, sim_hist_edge(h, i));
        ASSERT_EQ(sim_hist_bin(h, 1, i + 1), 1);
    }
    sim_hist_observe(h, 1, 0.0);      /* underflow */
    sim_hist_observe(h, 1, -5.0);     /* underflow */
    sim_hist_observe(h, 1, 2e4);      /* overflow */
    ASSERT_EQ(sim_hist_bin(h, 1, 0), 2);
    ASSERT_EQ(sim_hist_bin(h, 1, 41), 1);
    ASSERT_NEAR(sim_hist_min(h, 1), -5.0, 0);
    ASSERT_NEAR(sim_hist_max(h, 1), 2e4, 0);
    /* cohort 0: 100 values inside each of bins 1..10 (decade 1..10) */
    for (size_t b = 0; b < 10; b++) {
        double a = sim_hist_edge(h, b), c = sim_hist_edge(h, b + 1);
        for (int k = 0; k < 100; k++)
            sim_hist_observe(h, 0, a + (c - a) * (k + 0.5) / 100);
    }
    ASSERT_EQ(sim_hist_count(h, 0), 1000);
    /* rank 500 ends bin 5: the quantile is that bin's upper edge */
    ASSERT_NEAR(sim_hist_quantile(h, 0, 0.5), sim_hist_edge(h, 5), 1e-12);
    ASSERT_NEAR(sim_hist_quantile(h, 0, 0.3), sim_hist_edge(h, 3), 1e-12);
    /* halfway through bin 5 (edges e4, e5): the geometric midpoint */
    ASSERT_NEAR(sim_hist_quantile(h, 0, 0.45),
                sqrt(sim_hist_edge(h, 4) * sim_hist_edge(h, 5)), 1e-12);
    ASSERT_NEAR(sim_hist_quantile(h, 0, 0), sim_hist_min(h, 0), 0);
    ASSERT_NEAR(sim_hist_quantile(h, 0, 1), sim_hist_max(h, 0), 0);
    ASSERT_EQ(sim_hist_count(h, SIM_ALL_COHORTS), 1043);
    sim_metrics_destroy(m);
}

/* The bin an observation lands in is the one its edges bound, whatever
 * way the bin is found (bin table or settling the first guess): each
 * edge, the doubles either side of it, and log-uniform values, over
 * ranges with tables of every size and one too wide for a table. */
static int lands_in_its_bin(sim_metric *h, double x)
{
    size_t nb = sim_hist_nbins(h), want;
    if (!(x >= sim_hist_edge(h, 0)))
        want = 0;
    else if (x >= sim_hist_edge(h, nb))
        want = nb + 1;
    else {
        /* edge(want - 1) <= x < edge(want), by bisection */
        size_t a = 0, b = nb;
        while (b - a > 1) {
            size_t c = a + (b - a) / 2;
            if (x < sim_hist_edge(h, c))
                b = c;
            else
                a = c;
        }
        want = b;
    }
    uint64_t before = sim_hist_bin(h, 0, want);
    sim_hist_observe(h, 0, x);
    return sim_hist_bin(h, 0, want) == before + 1;
}

TEST(histogram_bin_is_the_edges)
{
    struct { double lo, hi; unsigned per_decade; } def[] = {
        {0.1, 1e6, 100},   /* handshake_ms: 700 bins */
        {1.0, 1e4, 10},
        {1e-6, 1e6, 10},
        {1.0, 65536.0, 1},
        {1e-30, 1e30, 1000}, /* too wide for a table */
        {1.0, 1.5, 1000},
    };
    gsl_rng *r = sim_rng_alloc_stream(5, 0, SIM_STREAM_TEST, 0);
    for (size_t d = 0; d < sizeof def / sizeof def[0]; d++) {
        sim_metrics *m;
        sim_metric *h;
        ASSERT_OK(sim_metrics_create(&m, NULL, NULL));
        ASSERT_OK(sim_metrics_histogram(m, "x", "", 1, 0, def[d].lo, def[d].hi,
                                        def[d].per_decade, &h));
        size_t nb = sim_hist_nbins(h);
        for (size_t i = 0; i <= nb; i++) {
            double e = sim_hist_edge(h, i);
            ASSERT_TRUE(lands_in_its_bin(h, e));
            ASSERT_TRUE(lands_in_its_bin(h, nextafter(e, 0.0)));
            ASSERT_TRUE(lands_in_its_bin(h, nextafter(e, INFINITY)));
        }
        double l0 = log(def[d].lo), l1 = log(sim_hist_edge(h, nb));
        for (int k = 0; k < 20000; k++)
            ASSERT_TRUE(lands_in_its_bin(h, exp(l0 + (l1 - l0) * gsl_rng_uniform(r))));
        ASSERT_TRUE(lands_in_its_bin(h, 0.0));
        ASSERT_TRUE(lands_in_its_bin(h, -1.0));
        ASSERT_TRUE(lands_in_its_bin(h, INFINITY));
        sim_metrics_destroy(m);
    }
    gsl_rng_free(r);
}

/* Deferred observations: a source counts while the registry records and
 * records n at a time when flushed; the histogram ends bit for bit as
 * the same observations recorded at once. */
typedef struct pending {
    sim_metric *h;
    double x[3];
    uint64_t n[3];
    int calls;
} pending;

static void pending_flush(void *ctx)
{
    pending *p = ctx;
    p->calls++;
    for (int i = 0; i < 3; i++) {
        sim_hist_observe_n(p->h, 0, p->x[i], p->n[i]);
        p->n[i] = 0;
    }
}

TEST(deferred_observations_exact)
{
    sim_time clock = 0;
    sim_metrics_config cfg = {50, 0, 0, 0};
    sim_metrics *now_m, *late_m;
    sim_metric *now_h, *late_h;
    ASSERT_OK(sim_metrics_create(&now_m, &cfg, &clock));
    ASSERT_OK(sim_metrics_create(&late_m, &cfg, &clock));
    ASSERT_OK(sim_metrics_histogram(now_m, "h", "B", 1, 0, 10, 1e6, 100, &now_h));
    ASSERT_OK(sim_metrics_histogram(late_m, "h", "B", 1, 0, 10, 1e6, 100, &late_h));
    pending p = {late_h, {1234.5, 7261.0, 0.3}, {0, 0, 0}, 0};
    pending q = {late_h, {1.0, 2.0, 3.0}, {0, 0, 0}, 0};
    ASSERT_OK(sim_metrics_add_flush(late_m, pending_flush, &p));
    ASSERT_OK(sim_metrics_add_flush(late_m, pending_flush, &q));
    sim_metrics_remove_flush(late_m, pending_flush, &q);
    gsl_rng *r = sim_rng_alloc_stream(9, 0, SIM_STREAM_TEST, 0);
    for (int k = 0; k < 3000; k++) {
        clock = k / 10;
        int i = (int)gsl_rng_uniform_int(r, 3);
        sim_hist_observe(now_h, 0, p.x[i]);
        /* the warm-up: nothing counted before 50 */
        ASSERT_EQ(sim_metrics_recording(late_m), clock >= 50);
        if (sim_metrics_recording(late_m))
            p.n[i]++;
        if (k == 1000) {
            sim_metrics_flush(late_m);
            ASSERT_EQ(sim_hist_count(late_h, 0), sim_hist_count(now_h, 0));
        }
    }
    ASSERT_TRUE(sim_hist_count(late_h, 0) < sim_hist_count(now_h, 0));
    sim_metrics_finish(now_m, clock);
    sim_metrics_finish(late_m, clock);
    ASSERT_FALSE(sim_metrics_recording(late_m));
    ASSERT_EQ(p.calls, 2);
    ASSERT_EQ(q.calls, 0);
    ASSERT_EQ_U64(sim_hist_count(late_h, 0), sim_hist_count(now_h, 0));
    ASSERT_TRUE(sim_hist_sum(late_h, 0) == sim_hist_sum(now_h, 0));
    ASSERT_TRUE(sim_hist_min(late_h, 0) == sim_hist_min(now_h, 0));
    ASSERT_TRUE(sim_hist_max(late_h, 0) == sim_hist_max(now_h, 0));
    for (size_t b = 0; b < sim_hist_nbins(now_h) + 2; b++)
        ASSERT_EQ_U64(sim_hist_bin(late_h, 0, b), sim_hist_bin(now_h, 0, b));
    /* finished: a further flush records nothing */
    p.n[0] = 5;
    sim_metrics_flush(late_m);
    ASSERT_EQ_U64(sim_hist_count(late_h, 0), sim_hist_count(now_h, 0));
    gsl_rng_free(r);
    sim_metrics_destroy(now_m);
    sim_metrics_destroy(late_m);
}

/* Quantiles of a lognormal sample agree with the law within a bin. */
TEST(histogram_vs_law)
{
    sim_metrics *m;
    sim_metric *h;
    ASSERT_OK(sim_metrics_create(&m, NULL, NULL));
    ASSERT_OK(sim_metrics_histogram(m, "x", "", 1, 0, 1e-3, 1e4, 20, &h));
    gsl_rng *r = sim_rng_alloc_stream(11, 0, SIM_STREAM_TEST, 0);
    size_t n = 200000;
    double sum = 0;
    for (size_t i = 0; i < n; i++) {
        double x = gsl_ran_lognormal(r, 1.0, 1.2);
        sum += x;
        sim_hist_observe(h, 0, x);
    }
    double res = pow(10, 1.0 / 20) - 1; /* one bin, relative */
    double qs[] = {0.1, 0.25, 0.5, 0.9, 0.99};
    for (size_t i = 0; i < 5; i++) {
        double want = gsl_cdf_lognormal_Pinv(qs[i], 1.0, 1.2);
        double got = sim_hist_quantile(h, 0, qs[i]);
        ASSERT_TRUE(fabs(got / want - 1) < res);
    }
    /* the exact fixed-point sum matches the double sum to rounding */
    ASSERT_NEAR(sim_hist_mean(h, 0), sum / (double)n, 1e-6 * sum / (double)n);
    gsl_rng_free(r);
    sim_metrics_destroy(m);
}

/* Exact merge: any grouping gives bit-identical values. */
static sim_metrics *filled(uint64_t seed)
{
    sim_time clock = 0;
    sim_metrics *m;
    sim_metric *c, *g, *h;
    sim_metrics_config cfg = {0, 0, 1000, 0};
    sim_metrics_create(&m, &cfg, NULL);
    (void)clock;
    sim_metrics_counter(m, "c", "", 2, 0, &c);
    sim_metrics_gauge(m, "g", "B", 2, 0, &g);
    sim_metrics_histogram(m, "h", "s", 2, 0, 1e-6, 1e6, 10, &h);
    gsl_rng *r = sim_rng_alloc_stream(seed, 0, SIM_STREAM_TEST, 0);
    for (int i = 0; i < 1000; i++) {
        size_t k = gsl_rng_uniform_int(r, 2);
        double x = gsl_ran_exponential(r, 0.3) * 1e3 / 7; /* not dyadic */
        sim_counter_add(c, k, 1 + (int64_t)gsl_rng_uniform_int(r, 5));
        sim_gauge_add(g, k, x);
        sim_hist_observe(h, k, x);
    }
    gsl_rng_free(r);
    sim_metrics_finish(m, 0);
    return m;
}

static int same_values(const sim_metrics *a, const sim_metrics *b)
{
    return metrics_equal(a, b, NULL);
}

TEST(merge_exact_associative)
{
    sim_metrics *a = filled(1), *b = filled(2), *c = filled(3);
    sim_metrics *e1, *e2;
    sim_metrics_config cfg = {0, 0, 1000, 0};
    /* (a + b) + c */
    ASSERT_OK(sim_metrics_create(&e1, &cfg, NULL));
    ASSERT_OK(sim_metrics_merge(e1, a));
    ASSERT_OK(sim_metrics_merge(e1, b));
    ASSERT_OK(sim_metrics_merge(e1, c));
    /* c + (b + a) */
    sim_metrics *ba;
    ASSERT_OK(sim_metrics_create(&ba, &cfg, NULL));
    ASSERT_OK(sim_metrics_merge(ba, b));
    ASSERT_OK(sim_metrics_merge(ba, a));
    ASSERT_OK(sim_metrics_create(&e2, &cfg, NULL));
    ASSERT_OK(sim_metrics_merge(e2, c));
    ASSERT_OK(sim_metrics_merge(e2, ba));
    ASSERT_TRUE(same_values(e1, e2));
    /* and the totals are the sums */
    const sim_metric *h = sim_metrics_find(e1, "h");
    ASSERT_EQ(sim_hist_count(h, SIM_ALL_COHORTS),
              sim_hist_count(sim_metrics_find(a, "h"), SIM_ALL_COHORTS) +
                  sim_hist_count(sim_metrics_find(b, "h"), SIM_ALL_COHORTS) +
                  sim_hist_count(sim_metrics_find(c, "h"), SIM_ALL_COHORTS));
    ASSERT_FALSE(same_values(e1, a));
    sim_metrics_destroy(a);
    sim_metrics_destroy(b);
    sim_metrics_destroy(c);
    sim_metrics_destroy(ba);
    sim_metrics_destroy(e1);
    sim_metrics_destroy(e2);
}

TEST(merge_mismatch_and_replicated)
{
    sim_metrics *a, *b, *c;
    sim_metric *x, *y, *ra, *rb;
    ASSERT_OK(sim_metrics_create(&a, NULL, NULL));
    ASSERT_OK(sim_metrics_create(&b, NULL, NULL));
    ASSERT_OK(sim_metrics_counter(a, "x", "", 1, 0, &x));
    ASSERT_OK(sim_metrics_counter(b, "x", "B", 1, 0, &y));
    ASSERT_EQ(sim_metrics_merge(a, b), SIM_ERR_METRIC);
    sim_metrics_destroy(b);
    /* replicated: kept once when equal, error when different */
    ASSERT_OK(sim_metrics_create(&b, NULL, NULL));
    ASSERT_OK(sim_metrics_counter(b, "x", "", 1, 0, &y));
    ASSERT_OK(sim_metrics_counter(a, "log_size", "", 1, SIM_METRIC_REPLICATED, &ra));
    ASSERT_OK(sim_metrics_counter(b, "log_size", "", 1, SIM_METRIC_REPLICATED, &rb));
    sim_counter_add(ra, 0, 42);
    sim_counter_add(rb, 0, 42);
    sim_counter_add(x, 0, 1);
    sim_counter_add(y, 0, 2);
    ASSERT_OK(sim_metrics_merge(a, b));
    ASSERT_EQ(sim_counter_value(ra, 0), 42);
    ASSERT_EQ(sim_counter_value(x, 0), 3);
    sim_counter_add(rb, 0, 1);
    ASSERT_EQ(sim_metrics_merge(a, b), SIM_ERR_METRIC);
    /* different configs */
    sim_metrics_config cfg = {5, 0, 0, 0};
    ASSERT_OK(sim_metrics_create(&c, &cfg, NULL));
    ASSERT_EQ(sim_metrics_merge(a, c), SIM_ERR_METRIC);
    /* a metric only in src is copied, with its labels */
    sim_metric *z;
    const char *l[] = {"p", "q"};
    ASSERT_OK(sim_metrics_gauge(c, "z", "", 2, 0, &z));
    ASSERT_OK(sim_metric_set_cohort_labels(z, l, 2));
    sim_gauge_set(z, 1, 2.5);
    sim_metrics *d;
    ASSERT_OK(sim_metrics_create(&d, &cfg, NULL));
    ASSERT_OK(sim_metrics_merge(d, c));
    sim_metric *z2 = sim_metrics_find(d, "z");
    ASSERT_TRUE(z2 && z2 != z);
    ASSERT_NEAR(sim_gauge_value(z2, 1), 2.5, 0);
    ASSERT_STR_EQ(sim_metric_cohort_label(z2, 0), "p");
    sim_metrics_destroy(a);
    sim_metrics_destroy(b);
    sim_metrics_destroy(c);
    sim_metrics_destroy(d);
}

/* ---- a population sharded over k "ranks" merges to the same result ---- */
typedef struct client {
    sim_event ev;
    sim_stream st;
    uint64_t id;
} client;

typedef struct shard {
    sim_rng *rng;
    sim_metric *visits, *online, *bytes;
} shard;

static void client_fire(sim_engine *sim, sim_event *ev)
{
    client *c = (client *)ev;
    shard *s = ev->arg;
    gsl_rng *r = sim_rng_use(s->rng, &c->st);
    size_t cohort = (size_t)(c->id % 3);
    sim_counter_add(s->visits, cohort, 1);
    sim_gauge_add(s->online, cohort, gsl_rng_uniform(r) < 0.5 ? 1 : -1);
    sim_hist_observe(s->bytes, cohort, gsl_ran_lognormal(r, 8, 0.5));
    sim_schedule_in(sim, ev, 1 + (sim_time)gsl_ran_exponential(r, 3 * SIM_MIN));
}

static sim_metrics *run_shard(size_t nclients, size_t k, size_t which)
{
    sim_engine *sim;
    sim_engine_create(&sim, NULL);
    sim_metrics *m;
    sim_metrics_config cfg = {SIM_HOUR, SIM_HOUR, 10 * SIM_MIN, 0};
    sim_metrics_create(&m, &cfg, sim_engine_clock(sim));
    shard s;
    sim_rng_create(&s.rng, 2026, 1);
    sim_metrics_counter(m, "visits", "", 3, SIM_METRIC_SERIES, &s.visits);
    sim_metrics_gauge(m, "online", "", 3, SIM_METRIC_SERIES, &s.online);
    sim_metrics_histogram(m, "bytes", "B", 3, 0, 100, 1e6, 20, &s.bytes);
    client *cl = calloc(nclients, sizeof *cl);
    for (size_t i = 0; i < nclients; i++) {
        if (i % k != which)
            continue;
        sim_event_init(&cl[i].ev, client_fire, &s);
        sim_stream_init(&cl[i].st, 50, i);
        cl[i].id = i;
        sim_schedule(sim, &cl[i].ev, (sim_time)i * SIM_SEC);
    }
    sim_engine_set_stop_time(sim, 6 * SIM_HOUR);
    sim_engine_run(sim);
    sim_metrics_finish(m, 6 * SIM_HOUR);
    free(cl);
    sim_rng_destroy(s.rng);
    sim_engine_destroy(sim);
    return m;
}

TEST(sharding_invariance)
{
    size_t n = (size_t)(600 * test_scale());
    sim_metrics *one = run_shard(n, 1, 0);
    ASSERT_TRUE(sim_counter_value(sim_metrics_find(one, "visits"), SIM_ALL_COHORTS) > 1000);
    ASSERT_EQ(sim_metric_series_len(sim_metrics_find(one, "online")), 31);
    for (size_t k = 2; k <= 3; k++) {
        sim_metrics *acc;
        sim_metrics_config cfg = {SIM_HOUR, SIM_HOUR, 10 * SIM_MIN, 0};
        ASSERT_OK(sim_metrics_create(&acc, &cfg, NULL));
        for (size_t w = k; w-- > 0;) { /* merge in reverse, for good measure */
            sim_metrics *part = run_shard(n, k, w);
            ASSERT_OK(sim_metrics_merge(acc, part));
            sim_metrics_destroy(part);
        }
        ASSERT_TRUE(same_values(one, acc));
        sim_metrics_destroy(acc);
    }
    sim_metrics_destroy(one);
}

/* Encoding: canonical round trip, decode + merge == merge, and every
 * truncation, bad magic, bad version and trailing byte rejected. */
TEST(encode_roundtrip)
{
    sim_metrics *one = run_shard(60, 1, 0), *dec = NULL;
    sim_metric *h;
    ASSERT_OK(sim_metrics_histogram(one, "extra", "B", 2, 0, 1, 1e3, 7, &h));
    sim_hist_observe(h, 1, 42.0);
    uint8_t *buf, *buf2;
    size_t len, len2;
    ASSERT_OK(sim_metrics_encode(one, &buf, &len));
    ASSERT_OK(sim_metrics_decode(&dec, buf, len));
    ASSERT_TRUE(same_values(one, dec));
    ASSERT_OK(sim_metrics_encode(dec, &buf2, &len2));
    ASSERT_EQ(len, len2);
    ASSERT_MEM_EQ(buf, buf2, len);
    ASSERT_STR_EQ(sim_metric_cohort_label(sim_metrics_find(dec, "visits"), 1), "1");
    /* decoded shards merge like the originals */
    sim_metrics *a = run_shard(60, 2, 0), *b = run_shard(60, 2, 1), *bd, *acc;
    uint8_t *eb;
    size_t el;
    ASSERT_OK(sim_metrics_encode(b, &eb, &el));
    ASSERT_OK(sim_metrics_decode(&bd, eb, el));
    sim_metrics_config cfg = {SIM_HOUR, SIM_HOUR, 10 * SIM_MIN, 0};
    ASSERT_OK(sim_metrics_create(&acc, &cfg, NULL));
    ASSERT_OK(sim_metrics_merge(acc, a));
    ASSERT_OK(sim_metrics_merge(acc, bd));
    sim_metrics *whole = run_shard(60, 1, 0);
    ASSERT_TRUE(same_values(whole, acc));
    /* rejections */
    sim_metrics *x = NULL;
    for (size_t cut = 0; cut < len; cut += (cut < 64 ? 1 : 37))
        ASSERT_EQ(sim_metrics_decode(&x, buf, cut), SIM_ERR_PARSE);
    ASSERT_TRUE(x == NULL);
    uint8_t *big = malloc(len + 1);
    memcpy(big, buf, len);
    big[len] = 0;
    ASSERT_EQ(sim_metrics_decode(&x, big, len + 1), SIM_ERR_PARSE);
    big[0] ^= 1;
    ASSERT_EQ(sim_metrics_decode(&x, big, len), SIM_ERR_PARSE);
    big[0] ^= 1;
    big[4] = 2; /* version */
    ASSERT_EQ(sim_metrics_decode(&x, big, len), SIM_ERR_PARSE);
    free(big);
    free(buf);
    free(buf2);
    free(eb);
    sim_metrics_destroy(one);
    sim_metrics_destroy(dec);
    sim_metrics_destroy(a);
    sim_metrics_destroy(b);
    sim_metrics_destroy(bd);
    sim_metrics_destroy(acc);
    sim_metrics_destroy(whole);
}

TEST(enumeration)
{
    sim_metrics *m;
    sim_metric *x;
    ASSERT_OK(sim_metrics_create(&m, NULL, NULL));
    ASSERT_OK(sim_metrics_counter(m, "a.count", "", 1, 0, &x));
    ASSERT_OK(sim_metrics_gauge(m, "b.level", "B", 1, 0, &x));
    ASSERT_OK(sim_metrics_histogram(m, "c.delay", "s", 4, 0, 0.001, 100, 5, &x));
    ASSERT_EQ(sim_metrics_count(m), 3);
    const char *names[] = {"a.count", "b.level", "c.delay"};
    const char *kinds[] = {"counter", "gauge", "histogram"};
    const char *units[] = {"", "B", "s"};
    for (size_t i = 0; i < 3; i++) {
        const sim_metric *mt = sim_metrics_at(m, i);
        ASSERT_STR_EQ(sim_metric_name(mt), names[i]);
        ASSERT_STR_EQ(sim_metric_kind_name(sim_metric_kind(mt)), kinds[i]);
        ASSERT_STR_EQ(sim_metric_unit(mt), units[i]);
    }
    ASSERT_TRUE(sim_metrics_at(m, 3) == NULL);
    ASSERT_TRUE(sim_metrics_find(m, "nope") == NULL);
    ASSERT_EQ(sim_metric_cohorts(sim_metrics_at(m, 2)), 4);
    ASSERT_STR_EQ(sim_metric_cohort_label(sim_metrics_at(m, 2), 3), "3");
    sim_metrics_destroy(m);
}

TEST(ci_closed_form)
{
    double x[] = {1, 2, 3, 4, 5};
    sim_ci ci;
    ASSERT_OK(sim_ci_student(x, 5, 0.95, &ci));
    /* mean 3, s^2 = 2.5, t_{0.975,4} = 2.7764451051977987 */
    ASSERT_NEAR(ci.mean, 3, 1e-15);
    ASSERT_NEAR(ci.sd, sqrt(2.5), 1e-15);
    ASSERT_NEAR(ci.half_width, 2.7764451051977987 * sqrt(2.5) / sqrt(5.0), 1e-9);
    ASSERT_NEAR(ci.lo, 3 - ci.half_width, 1e-15);
    ASSERT_EQ(ci.n, 5);
    /* two replications, 90 %: t_{0.95,1} = 6.313751514675043 */
    double y[] = {10, 12};
    ASSERT_OK(sim_ci_student(y, 2, 0.90, &ci));
    ASSERT_NEAR(ci.half_width, 6.313751514675043 * sqrt(2.0) / sqrt(2.0), 1e-9);
    ASSERT_EQ(sim_ci_student(x, 1, 0.95, &ci), SIM_ERR_ARG);
    ASSERT_EQ(sim_ci_student(x, 5, 1.0, &ci), SIM_ERR_ARG);
    double z[] = {1, NAN};
    ASSERT_EQ(sim_ci_student(z, 2, 0.95, &ci), SIM_ERR_ARG);
}

/* Coverage: 95 % intervals from normal samples cover the mean ~95 % of
 * the time (binomial bounds, 4 sd). */
TEST(ci_coverage)
{
    gsl_rng *r = sim_rng_alloc_stream(12, 0, SIM_STREAM_TEST, 0);
    size_t trials = 4000, cover = 0;
    double x[8];
    for (size_t i = 0; i < trials; i++) {
        for (int j = 0; j < 8; j++)
            x[j] = 5 + gsl_ran_gaussian(r, 2.0);
        sim_ci ci;
        ASSERT_OK(sim_ci_student(x, 8, 0.95, &ci));
        cover += ci.lo <= 5 && 5 <= ci.hi;
    }
    double p = (double)cover / (double)trials, sd = sqrt(0.95 * 0.05 / (double)trials);
    ASSERT_TRUE(fabs(p - 0.95) < 4 * sd);
    gsl_rng_free(r);
}

/* 1 when both registries encode to the same bytes. */
static int same_encoding(const sim_metrics *a, const sim_metrics *b)
{
    uint8_t *ba = NULL, *bb = NULL;
    size_t la = 0, lb = 0;
    int same = sim_metrics_encode(a, &ba, &la) == SIM_OK &&
               sim_metrics_encode(b, &bb, &lb) == SIM_OK && la == lb &&
               memcmp(ba, bb, la) == 0;
    free(ba);
    free(bb);
    return same;
}

/* Two registries, each with the same histogram "h": one fed by the
 * general path, one by a fast path. */
static int twin_histograms(size_t cohorts, double lo, double hi, unsigned per_decade,
                           sim_metrics **a, sim_metrics **b, sim_metric **ha,
                           sim_metric **hb)
{
    int rc = sim_metrics_create(a, NULL, NULL);
    if (rc == SIM_OK)
        rc = sim_metrics_create(b, NULL, NULL);
    if (rc == SIM_OK)
        rc = sim_metrics_histogram(*a, "h", "", cohorts, 0, lo, hi, per_decade, ha);
    if (rc == SIM_OK)
        rc = sim_metrics_histogram(*b, "h", "", cohorts, 0, lo, hi, per_decade, hb);
    return rc;
}

/* The integer fast path records exactly what the general one does, for
 * values under, inside and above the bins, repeated (cache hits) and
 * colliding in the cache. */
TEST(observe_u32_equals_observe)
{
    sim_metrics *a, *b;
    sim_metric *ha, *hb;
    ASSERT_OK(twin_histograms(3, 10, 1e6, 100, &a, &b, &ha, &hb));
    gsl_rng *r = sim_rng_alloc_stream(11, 0, SIM_STREAM_TEST, 9);
    uint32_t few[5] = {0, 9, 10, 4000, 1000000};
    for (int i = 0; i < 200000; i++) {
        double u = gsl_rng_uniform(r);
        uint32_t x = u < 0.3 ? few[gsl_rng_uniform_int(r, 5)]
                   : u < 0.6 ? (uint32_t)gsl_rng_uniform_int(r, 64) * 997u
                   : u < 0.99 ? (uint32_t)gsl_rng_uniform_int(r, 3000000)
                              : UINT32_MAX - (uint32_t)gsl_rng_uniform_int(r, 3);
        size_t c = gsl_rng_uniform_int(r, 3);
        sim_hist_observe(ha, c, (double)x);
        sim_hist_observe_u32(hb, c, x);
    }
    gsl_rng_free(r);
    ASSERT_TRUE(same_encoding(a, b));
    ASSERT_TRUE(same_values(a, b));
    sim_metrics_destroy(a);
    sim_metrics_destroy(b);
}

/* n observations in one call record exactly what n calls do. */
TEST(observe_n_equals_repeated_observe)
{
    sim_metrics *a, *b;
    sim_metric *ha, *hb;
    ASSERT_OK(twin_histograms(2, 1, 1e8, 20, &a, &b, &ha, &hb));
    gsl_rng *r = sim_rng_alloc_stream(12, 0, SIM_STREAM_TEST, 10);
    for (int i = 0; i < 300; i++) {
        double x = i % 7 == 0 ? 0.0 : gsl_ran_exponential(r, 3600.0);
        uint64_t n = gsl_rng_uniform_int(r, 40);
        size_t c = (size_t)(i % 2);
        for (uint64_t k = 0; k < n; k++)
            sim_hist_observe(ha, c, x);
        sim_hist_observe_n(hb, c, x, n);
    }
    gsl_rng_free(r);
    ASSERT_TRUE(same_encoding(a, b));
    sim_metrics_destroy(a);
    sim_metrics_destroy(b);
}

/* Observations recorded an array at a time (runs of one cohort, others
 * mixed in, NaN ignored, values under, inside and above the bins, zeros
 * of both signs, batches of every size up to 64 and none) record exactly
 * what one call per observation does, with and without the bin table
 * (the widest binning has none). */
TEST(observe_many_equals_observe)
{
    static const double wide[3][3] = {{10, 1e6, 100}, {1e-4, 1e4, 100}, {1e-100, 1e100, 100}};
    for (int d = 0; d < 3; d++) {
        sim_metrics *a, *b;
        sim_metric *ha, *hb;
        ASSERT_OK(twin_histograms(3, wide[d][0], wide[d][1], (unsigned)wide[d][2], &a, &b,
                                  &ha, &hb));
        gsl_rng *r = sim_rng_alloc_stream(13, 0, SIM_STREAM_TEST, (uint64_t)d);
        uint32_t k[64];
        double x[64];
        for (int batch = 0; batch < 3000; batch++) {
            size_t n = gsl_rng_uniform_int(r, 65);
            uint32_t c = (uint32_t)gsl_rng_uniform_int(r, 3);
            for (size_t i = 0; i < n; i++) {
                double u = gsl_rng_uniform(r);
                if (gsl_rng_uniform(r) < 0.2)
                    c = (uint32_t)gsl_rng_uniform_int(r, 3);
                k[i] = c;
                x[i] = u < 0.05 ? NAN : u < 0.08 ? (i % 2 ? -0.0 : 0.0)
                     : u < 0.1 ? -u : u < 0.12 ? 1e300 * u
                     : exp(log(wide[d][0]) + u * log(wide[d][1] / wide[d][0]) * 1.2);
                sim_hist_observe(ha, k[i], x[i]);
            }
            sim_hist_observe_many(hb, k, x, n);
        }
        gsl_rng_free(r);
        ASSERT_TRUE(same_encoding(a, b));
        ASSERT_TRUE(same_values(a, b));
        sim_metrics_destroy(a);
        sim_metrics_destroy(b);
    }
}

/* Every value lands in the bin its stored edges give (edges[j] <= x <
 * edges[j + 1]; under and over the range at the ends), whatever first
 * guess the lookup makes: at, just under and just over each edge, and
 * between, for a fine and a coarse binning. */
TEST(bin_is_the_edges_bin)
{
    const unsigned pds[2] = {100, 3};
    for (int v = 0; v < 2; v++) {
        sim_metrics *m;
        sim_metric *h;
        ASSERT_OK(sim_metrics_create(&m, NULL, NULL));
        ASSERT_OK(sim_metrics_histogram(m, "h", "", 1, 0, 0.1, 1e6, pds[v], &h));
        size_t nb = sim_hist_nbins(h);
        gsl_rng *r = sim_rng_alloc_stream(13, 0, SIM_STREAM_TEST, 11);
        for (int i = 0; i < 60000; i++) {
            size_t e = gsl_rng_uniform_int(r, nb + 1);
            double x = sim_hist_edge(h, e);
            int how = i % 4;
            if (how == 1)
                x = nextafter(x, 0.0);
            else if (how == 2)
                x = nextafter(x, INFINITY);
            else if (how == 3)
                x = 0.05 * pow(10.0, 8.5 * gsl_rng_uniform(r));
            size_t want;
            if (!(x >= sim_hist_edge(h, 0)))
                want = 0;
            else if (x >= sim_hist_edge(h, nb))
                want = nb + 1;
            else {
                size_t j = 0;
                while (!(x < sim_hist_edge(h, j + 1)))
                    j++;
                want = j + 1;
            }
            uint64_t before = sim_hist_bin(h, 0, want);
            sim_hist_observe(h, 0, x);
            ASSERT_EQ(sim_hist_bin(h, 0, want), before + 1);
        }
        ASSERT_EQ(sim_hist_count(h, 0), 60000);
        gsl_rng_free(r);
        sim_metrics_destroy(m);
    }
}

/* Values are kept in fixed point, v x 2^32 rounded to the nearest
 * integer, ties to even (nearbyint), NaN as 0 and saturated far out:
 * at ties, next to the bounds of the conversion's fast path (2^51 in
 * units of 2^-32) and at random magnitudes. */
TEST(fixed_point_rounds_to_nearest_even)
{
    sim_metrics *m;
    sim_metric *g;
    ASSERT_OK(sim_metrics_create(&m, NULL, NULL));
    ASSERT_OK(sim_metrics_gauge(m, "g", "", 1, 0, &g));
    const double one = 4294967296.0, edge = 0x1p51 / 4294967296.0;
    double vs[64];
    size_t n = 0;
    for (int k = -3; k <= 3; k++)    /* ties around 0: -1.5 ... 3.5 units */
        vs[n++] = ((double)k + 0.5) / one;
    vs[n++] = 0.0;
    vs[n++] = -0.0;
    vs[n++] = 0.4 / one;
    vs[n++] = -0.6 / one;
    for (int sgn = -1; sgn <= 1; sgn += 2) {
        vs[n++] = sgn * edge;
        vs[n++] = sgn * nextafter(edge, 0.0);
        vs[n++] = sgn * nextafter(edge, INFINITY);
        vs[n++] = sgn * (edge - 0.5 / one);   /* a tie just inside */
        vs[n++] = sgn * (edge - 1.5 / one);
        vs[n++] = sgn * 1e12;
        vs[n++] = sgn * 1e30;               /* saturates */
    }
    vs[n++] = NAN;
    gsl_rng *r = sim_rng_alloc_stream(14, 0, SIM_STREAM_TEST, 12);
    for (int i = 0; i < 20000; i++) {
        double v = i < (int)n ? vs[i]
                 : (gsl_rng_uniform(r) - 0.5) * pow(10.0, 16.0 * gsl_rng_uniform(r) - 10.0);
        double x = nearbyint(v * one), want;
        if (isnan(x))
            want = 0.0;
        else
            want = (x >= 8.5e37 ? 8.5e37 : x <= -8.5e37 ? -8.5e37 : x) / one;
        sim_gauge_set(g, 0, v);
        double got = sim_gauge_value(g, 0);
        ASSERT_TRUE(got == want);
    }
    gsl_rng_free(r);
    sim_metrics_destroy(m);
}

/* A recorded figure (SIM_METRIC_RECORD, sim:record) may be set after the
 * registry is finished; any other gauge may not; the flag is for gauges
 * without series only, and survives the codec. */
TEST(recorded_after_finish)
{
    sim_metrics *m, *back;
    sim_metric *recd, *plain, *x;
    ASSERT_OK(sim_metrics_create(&m, NULL, NULL));
    ASSERT_OK(sim_metrics_gauge(m, "rec", "", 1, SIM_METRIC_RECORD, &recd));
    ASSERT_OK(sim_metrics_gauge(m, "plain", "", 1, 0, &plain));
    ASSERT_EQ(sim_metrics_counter(m, "c", "", 1, SIM_METRIC_RECORD, &x), SIM_ERR_ARG);
    ASSERT_EQ(sim_metrics_gauge(m, "g", "", 1, SIM_METRIC_RECORD | SIM_METRIC_SERIES, &x),
              SIM_ERR_ARG);
    sim_metrics_finish(m, 10);
    sim_gauge_set(recd, 0, 42.5);
    sim_gauge_set(plain, 0, 42.5);
    ASSERT_TRUE(sim_gauge_value(recd, 0) == 42.5);
    ASSERT_TRUE(sim_gauge_value(plain, 0) == 0);
    uint8_t *buf;
    size_t len;
    ASSERT_OK(sim_metrics_encode(m, &buf, &len));
    ASSERT_OK(sim_metrics_decode(&back, buf, len));
    const sim_metric *r2 = sim_metrics_find(back, "rec");
    ASSERT_TRUE(r2 && (sim_metric_flags(r2) & SIM_METRIC_RECORD) &&
                sim_gauge_value(r2, 0) == 42.5);
    free(buf);
    sim_metrics_destroy(back);
    sim_metrics_destroy(m);
}

/* A recorded figure's cell never set is absent (NaN), not 0: alone, in
 * the total, through the codec and through a merge (set plus unset is the
 * set value); sim_gauge_add starts an unset cell from 0. */
TEST(recorded_cell_unset_is_absent)
{
    sim_metrics *m, *back, *other;
    sim_metric *g, *o;
    ASSERT_OK(sim_metrics_create(&m, NULL, NULL));
    ASSERT_OK(sim_metrics_gauge(m, "rec", "", 3, SIM_METRIC_RECORD, &g));
    ASSERT_TRUE(isnan(sim_gauge_value(g, 0)) && isnan(sim_gauge_value(g, 2)));
    ASSERT_TRUE(isnan(sim_gauge_value(g, SIM_ALL_COHORTS)));
    sim_metrics_finish(m, 10);
    sim_gauge_set(g, 1, 0.25);
    ASSERT_TRUE(isnan(sim_gauge_value(g, 0)) && sim_gauge_value(g, 1) == 0.25 &&
                isnan(sim_gauge_value(g, 2)));
    ASSERT_TRUE(sim_gauge_value(g, SIM_ALL_COHORTS) == 0.25);
    uint8_t *buf;
    size_t len;
    ASSERT_OK(sim_metrics_encode(m, &buf, &len));
    ASSERT_OK(sim_metrics_decode(&back, buf, len));
    free(buf);
    const sim_metric *b = sim_metrics_find(back, "rec");
    ASSERT_TRUE(b && isnan(sim_gauge_value(b, 0)) && sim_gauge_value(b, 1) == 0.25);
    ASSERT_OK(sim_metrics_create(&other, NULL, NULL));
    ASSERT_OK(sim_metrics_gauge(other, "rec", "", 3, SIM_METRIC_RECORD, &o));
    sim_gauge_set(o, 0, 2);
    sim_gauge_add(o, 2, 1.5);
    ASSERT_OK(sim_metrics_merge(m, other));
    ASSERT_TRUE(sim_gauge_value(g, 0) == 2 && sim_gauge_value(g, 1) == 0.25 &&
                sim_gauge_value(g, 2) == 1.5);
    sim_metrics_destroy(other);
    sim_metrics_destroy(back);
    sim_metrics_destroy(m);
}

static const test_case cases[] = {
    {"recorded_after_finish", recorded_after_finish},
    {"recorded_cell_unset_is_absent", recorded_cell_unset_is_absent},
    {"series_bytes_known_before_the_run", series_bytes_known_before_the_run},
    {"fixed_point_rounds_to_nearest_even", fixed_point_rounds_to_nearest_even},
    {"bin_is_the_edges_bin", bin_is_the_edges_bin},
    {"observe_n_equals_repeated_observe", observe_n_equals_repeated_observe},
    {"observe_many_equals_observe", observe_many_equals_observe},
    {"observe_u32_equals_observe", observe_u32_equals_observe},
    {"define_errors", define_errors},
    {"series_and_warmup", series_and_warmup},
    {"series_cap", series_cap},
    {"histogram_bins_quantiles", histogram_bins_quantiles},
    {"histogram_bin_is_the_edges", histogram_bin_is_the_edges},
    {"deferred_observations_exact", deferred_observations_exact},
    {"histogram_vs_law", histogram_vs_law},
    {"merge_exact_associative", merge_exact_associative},
    {"merge_mismatch_and_replicated", merge_mismatch_and_replicated},
    {"sharding_invariance", sharding_invariance},
    {"encode_roundtrip", encode_roundtrip},
    {"enumeration", enumeration},
    {"ci_closed_form", ci_closed_form},
    {"ci_coverage", ci_coverage},
};

TEST_MAIN(cases)
