/*
 * test_warmup_history.c - the warm-up's history is paid only where the
 * window can observe it, and the measured window is bit-identical to the
 * event-by-event run.
 *
 * The same steady-start world (an ML-DSA-44 CA and an ECDSA P-256 mirror,
 * whose variable-length signatures exercise the deferred-length path; a
 * second CA with landmark staples, which read the reference checkpoint's
 * signatures at every landmark; an update service that verifies and ships
 * proofs; sites and browsers) runs twice: with the env's eager_history
 * (every warm-up checkpoint signed when made, every sampled proof built)
 * and without (the default: deferred). Every metric of the window, every
 * cohort, series point and histogram bin, must be equal bit for bit, the
 * measured CPU metric (sign_cpu_us) aside. The deferred run must also
 * have made far fewer signatures (counted by a CPU profile's work
 * counter), or the test would compare a run with itself.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "lib/world_fixture.h"
#include "mtc/error.h"
#include "sim/status.h"
#include "sim/world_prof.h"
#include "test.h"

#define DAY 86400.0

static void build(wfx *f)
{
    void *m = wfx_cfg("cosigner", "mirror");
    wfx_str("cosigner", m, "role", "mirror");
    wfx_str("cosigner", m, "algorithm", "ecdsa-p256");
    wfx_const("cosigner", m, "latency", 2);
    wfx_add(f, "cosigner", m);
    void *c = wfx_cfg("ca", "le");
    wfx_str("ca", c, "algorithm", "ml-dsa-44");
    wfx_num("ca", c, "rate", 2.0);
    wfx_num("ca", c, "lifetime", DAY);
    wfx_num("ca", c, "landmark_interval", 3600);
    wfx_num("ca", c, "checkpoint_interval", 300);
    wfx_item("ca", c, "cosigners", "mirror");
    wfx_num("ca", c, "quorum", 1);
    wfx_add(f, "ca", c);
    void *c2 = wfx_cfg("ca", "stapler");
    wfx_str("ca", c2, "algorithm", "ed25519");
    wfx_num("ca", c2, "rate", 0.5);
    wfx_num("ca", c2, "lifetime", DAY);
    wfx_num("ca", c2, "landmark_interval", 3600);
    wfx_num("ca", c2, "checkpoint_interval", 300);
    wfx_item("ca", c2, "cosigners", "mirror");
    wfx_num("ca", c2, "quorum", 1);
    wfx_num("ca", c2, "staple", 1);
    wfx_add(f, "ca", c2);
    void *us = wfx_cfg("update_service", "us");
    wfx_num("update_service", us, "fetch_interval", 600);
    wfx_const("update_service", us, "publication_delay", 600);
    wfx_num("update_service", us, "include_proofs", 1);
    wfx_add(f, "update_service", us);
    void *s = wfx_cfg("sites", "sites");
    wfx_num("sites", s, "count", 40);
    wfx_add(f, "sites", s);
    void *b = wfx_cfg("browsers", "b");
    wfx_num("browsers", b, "count", 40);
    wfx_add(f, "browsers", b);
}

/* Bit-for-bit equality of two doubles (NaN equal to NaN). */
static int same(double a, double b)
{
    return memcmp(&a, &b, sizeof a) == 0;
}

/* Compares every metric of a and b but measured CPU; returns the number
 * of differences (printing the first few). */
static int compare(const sim_metrics *a, const sim_metrics *b)
{
    int bad = 0;
    if (sim_metrics_count(a) != sim_metrics_count(b))
        return 1;
    for (size_t i = 0; i < sim_metrics_count(a); i++) {
        const sim_metric *x = sim_metrics_at(a, i);
        const sim_metric *y = sim_metrics_find(b, sim_metric_name(x));
        const char *name = sim_metric_name(x);
        if (!y || sim_metric_kind(x) != sim_metric_kind(y)) {
            bad++;
            continue;
        }
        if (strstr(name, "_cpu_"))
            continue;
        size_t nc = sim_metric_cohorts(x), ns = sim_metric_series_len(x);
        for (size_t k = 0; k < nc; k++) {
            int d = 0;
            switch (sim_metric_kind(x)) {
            case SIM_METRIC_COUNTER:
                d = sim_counter_value(x, k) != sim_counter_value(y, k);
                break;
            case SIM_METRIC_GAUGE:
                d = !same(sim_gauge_value(x, k), sim_gauge_value(y, k));
                break;
            default:
                d = sim_hist_count(x, k) != sim_hist_count(y, k) ||
                    !same(sim_hist_sum(x, k), sim_hist_sum(y, k)) ||
                    !same(sim_hist_min(x, k), sim_hist_min(y, k)) ||
                    !same(sim_hist_max(x, k), sim_hist_max(y, k));
                for (size_t j = 0; j < sim_hist_nbins(x) + 2 && !d; j++)
                    d = sim_hist_bin(x, k, j) != sim_hist_bin(y, k, j);
            }
            for (size_t t = 0; t < ns && !d; t++)
                d = !same(sim_metric_series_value(x, k, t),
                          sim_metric_series_value(y, k, t));
            if (d && bad++ < 5)
                fprintf(stderr, "metric %s cohort %zu differs\n", name, k);
        }
    }
    return bad;
}

static uint64_t run(wfx *f, int eager, sim_prof **pf, double window)
{
    double hist = DAY + 3600 + 600 + 600 + 600;
    if (wfx_init_history(f, 11, 0, hist + window, hist, 3600, 0, 1, "steady",
                         eager) != MTC_OK ||
        sim_prof_create(pf, sim_world_prof_names()) != SIM_OK)
        return 0;
    sim_engine_set_prof(f->eng, *pf, SIM_PART_OTHER);
    build(f);
    if (wfx_run(f) != MTC_OK) {
        fprintf(stderr, "run: %s\n", f->err);
        return 0;
    }
    uint64_t n = 0;
    for (int ph = 0; ph < SIM_PHASE_COUNT; ph++)
        n += sim_prof_work_count(*pf, ph, SIM_WORK_SIGNATURES);
    return n;
}

TEST(deferred_warmup_window_is_bit_identical)
{
    double window = (test_scale() < 1 ? 0.25 : 0.5) * DAY;
    wfx eager, lazy;
    sim_prof *pe = NULL, *pl = NULL;
    uint64_t se = run(&eager, 1, &pe, window);
    uint64_t sl = run(&lazy, 0, &pl, window);
    fprintf(stderr, "signatures made: eager %llu, deferred %llu\n",
            (unsigned long long)se, (unsigned long long)sl);
    ASSERT_TRUE(se > 0 && sl > 0);
    /* the warm-up is two thirds of the run and nearly all its signatures
     * go unused */
    ASSERT_TRUE(3 * sl < 2 * se);
    /* something in the window did use warm-up signatures: sites' standalone
     * certificates, reference checkpoints, staples */
    ASSERT_TRUE(sim_counter_value(sim_metrics_find(lazy.m, "handshake_full"),
                                  SIM_ALL_COHORTS) > 100);
    ASSERT_EQ(compare(eager.m, lazy.m), 0);
    ASSERT_EQ(compare(lazy.m, eager.m), 0);
    wfx_free(&eager);
    wfx_free(&lazy);
    sim_prof_destroy(pe);
    sim_prof_destroy(pl);
}

static const test_case cases[] = {
    {"deferred_warmup_window_is_bit_identical",
     deferred_warmup_window_is_bit_identical},
};

TEST_MAIN(cases)
