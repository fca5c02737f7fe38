/*
 * run_summary.c - what a completed run contributes to the summary (headline
 * figures, then every metric) and the per-point summary table with 95 %
 * confidence half-widths. Separate because it only reads metrics and prints.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run_internal.h"
#include "mtc/error.h"
#include "sim/transient.h"

static void stat_add(run_stats *rs, const char *name, double v)
{
    if (!isfinite(v))
        return;
    if (rs->n == rs->cap) {
        size_t nc = rs->cap ? 2 * rs->cap : 64;
        stat_row *s = realloc(rs->s, nc * sizeof *s);
        if (!s)
            return;
        rs->s = s;
        rs->cap = nc;
    }
    snprintf(rs->s[rs->n].name, sizeof rs->s[rs->n].name, "%s", name);
    rs->s[rs->n++].v = v;
}

/* MSER-5 over one headline series of the measured window (x[0..n), one
 * value per grid step): "<name>.transient" is 1 when the window still holds
 * an initial transient (sim/transient.h) that moves the window's mean by
 * more than rel_floor of it, "<name>.truncation_h" is MSER-5's truncation
 * point in hours into the window. Too short a series adds nothing. */
static void transient_add(run_stats *rs, const char *name, const double *x,
                          size_t n, double step_h, double rel_floor)
{
    sim_transient tr;
    if (n < SIM_MSER_MIN_OBS || sim_mser5(x, n, &tr) != MTC_OK)
        return;
    int hit = tr.transient &&
              fabs(tr.mean_all - tr.mean_kept) > rel_floor * fabs(tr.mean_kept);
    char k[160];
    snprintf(k, sizeof k, "%s.transient", name);
    stat_add(rs, k, hit ? 1.0 : 0.0);
    snprintf(k, sizeof k, "%s.truncation_h", name);
    stat_add(rs, k, (double)tr.truncate * step_h);
}

/* The headline series in the window after the warm-up: the signatureless
 * fraction per grid interval (intervals without a full handshake are
 * skipped) and the relying-party state and log storage levels. */
static void collect_transients(sim_metrics *m, run_stats *rs)
{
    sim_metric *full = sim_metrics_find(m, "handshake_full");
    sim_metric *sl = sim_metrics_find(m, "handshake_signatureless");
    size_t len = full ? sim_metric_series_len(full) : 0;
    if (len < 2 || !sl || sim_metric_series_len(sl) != len)
        return;
    double step_h = sim_time_to_sec(sim_metrics_grid_time(m, 1) -
                                    sim_metrics_grid_time(m, 0)) / 3600.0;
    sim_time warm = sim_metrics_warmup_end(m);
    double *x = malloc(len * sizeof *x);
    if (!x)
        return;
    size_t n = 0;
    for (size_t k = 1; k < len; k++) {
        if (sim_metrics_grid_time(m, k - 1) < warm)
            continue;
        double df = sim_metric_series_value(full, SIM_ALL_COHORTS, k) -
                    sim_metric_series_value(full, SIM_ALL_COHORTS, k - 1);
        double ds = sim_metric_series_value(sl, SIM_ALL_COHORTS, k) -
                    sim_metric_series_value(sl, SIM_ALL_COHORTS, k - 1);
        if (df > 0)
            x[n++] = ds / df;
    }
    /* The fraction is judged on statistics alone: its noise is binomial,
     * and a shift of 1e-4 can be a tenfold change in failures. */
    transient_add(rs, "signatureless_fraction", x, n, step_h, 0);
    static const char *const gauges[] = {"rp_state_bytes", "log_storage_bytes"};
    for (size_t g = 0; g < 2; g++) {
        sim_metric *mt = sim_metrics_find(m, gauges[g]);
        size_t gl = mt ? sim_metric_series_len(mt) : 0;
        double *y = gl > len ? realloc(x, gl * sizeof *x) : x;
        if (!y)
            break;
        x = y;
        n = 0;
        for (size_t k = 0; k < gl; k++)
            if (sim_metrics_grid_time(m, k) >= warm)
                x[n++] = sim_metric_series_value(mt, SIM_ALL_COHORTS, k);
        /* Storage levels have almost no noise: a creep of a few bytes in a
         * megabyte (the compact tree's frontier, per-site records) is
         * statistically real and practically nothing. A transient there
         * counts when it moves the window's mean by 0.1 % or more, the
         * precision the summary's byte figures are read at. */
        transient_add(rs, gauges[g], x, n, step_h, 1e-3);
    }
    free(x);
}

/* Headline figures first (docs/metrics.md names, when the run has them),
 * then every metric: counters and gauges (total), histograms (count, mean,
 * p50, p99). */
void run_collect_stats(sim_metrics *m, run_stats *rs)
{
    sim_metric *full = sim_metrics_find(m, "handshake_full");
    sim_metric *sl = sim_metrics_find(m, "handshake_signatureless");
    if (full && sl && sim_counter_value(full, SIM_ALL_COHORTS) > 0)
        stat_add(rs, "signatureless_fraction",
                 (double)sim_counter_value(sl, SIM_ALL_COHORTS) /
                     (double)sim_counter_value(full, SIM_ALL_COHORTS));
    sim_metric *ab = sim_metrics_find(m, "auth_bytes");
    static const char *const base[] = {"auth_bytes_baseline_classical",
                                        "auth_bytes_baseline_mldsa44"};
    for (int i = 0; ab && i < 2; i++) {
        sim_metric *b = sim_metrics_find(m, base[i]);
        if (b && sim_hist_count(ab, SIM_ALL_COHORTS) &&
            sim_hist_count(b, SIM_ALL_COHORTS)) {
            char n[160];
            snprintf(n, sizeof n, "auth_bytes_ratio_vs_%s",
                     i ? "mldsa44" : "classical");
            stat_add(rs, n, sim_hist_mean(ab, SIM_ALL_COHORTS) /
                                sim_hist_mean(b, SIM_ALL_COHORTS));
        }
    }
    collect_transients(m, rs);
    size_t n = sim_metrics_count(m);
    for (size_t i = 0; i < n; i++) {
        const sim_metric *mt = sim_metrics_at(m, i);
        const char *name = sim_metric_name(mt);
        char k[160];
        switch (sim_metric_kind(mt)) {
        case SIM_METRIC_COUNTER:
            stat_add(rs, name, (double)sim_counter_value(mt, SIM_ALL_COHORTS));
            break;
        case SIM_METRIC_GAUGE:
            stat_add(rs, name, sim_gauge_value(mt, SIM_ALL_COHORTS));
            break;
        default:
            if (!sim_hist_count(mt, SIM_ALL_COHORTS))
                break;
            snprintf(k, sizeof k, "%s.count", name);
            stat_add(rs, k, (double)sim_hist_count(mt, SIM_ALL_COHORTS));
            snprintf(k, sizeof k, "%s.mean", name);
            stat_add(rs, k, sim_hist_mean(mt, SIM_ALL_COHORTS));
            snprintf(k, sizeof k, "%s.p50", name);
            stat_add(rs, k, sim_hist_quantile(mt, SIM_ALL_COHORTS, 0.5));
            snprintf(k, sizeof k, "%s.p99", name);
            stat_add(rs, k, sim_hist_quantile(mt, SIM_ALL_COHORTS, 0.99));
            break;
        }
    }
}

/* The short summary's rows (docs/metrics.md names); --summary all prints
 * every statistic. A model without any of them gets everything. */
static const char *const headline[] = {
    "signatureless_fraction", "auth_bytes.mean", "auth_bytes.p99",
    "auth_bytes_ratio_vs_classical", "auth_bytes_ratio_vs_mldsa44",
    "extra_rtt_tcp.mean", "extra_rtt_quic.mean", "handshake_full",
    "handshake_resumed", "handshake_retry", "revoked_accepted",
    "revocation_exposure.mean", "revocation_exposure.p99",
    "issuance_delay_standalone.mean", "issuance_delay_standalone.p99",
    "issuance_delay_landmark.mean", "issuance_delay_landmark.p99",
    "log_entries", "signatures", "log_storage_bytes", "rp_state_bytes",
    "update_publication_bytes.mean", "update_bytes",
    "cosign_quorum_failures", "cosign_quorum_stall.mean",
    "cosign_quorum_stall.p99", "signatureless_fraction.transient",
    "rp_state_bytes.transient", "log_storage_bytes.transient", NULL};

static int shown(const char *name, int all, int any_headline)
{
    if (all || !any_headline)
        return 1;
    for (int i = 0; headline[i]; i++)
        if (!strcmp(headline[i], name))
            return 1;
    return 0;
}

/* Counts print as the integers they are (1234567, not 1.23457e+06);
 * other values with six significant digits. */
static void fmt_value(char *b, size_t n, double v)
{
    if (v == floor(v) && fabs(v) < 1e15)
        snprintf(b, n, "%.0f", v);
    else
        snprintf(b, n, "%.6g", v);
}

/* Per sweep point: every statistic's mean over replications, with the
 * 95 % Student-t half-width when there are two or more. */
void run_print_summary(const plan *pl, const run_stats *runs, size_t nruns,
                       int all)
{
    for (size_t p = 0; p < pl->npoints; p++) {
        const run_stats *first = NULL;
        size_t nrep = 0;
        for (size_t r = 0; r < nruns; r++)
            if (runs[r].point == p) {
                nrep++;
                if (!first)
                    first = &runs[r];
            }
        if (!first)
            continue;
        char lab[512];
        run_point_label(pl, p, lab, sizeof lab);
        printf("\n== summary%s%s%s: %zu replication%s\n", *lab ? " [" : "",
               lab, *lab ? "]" : "", nrep, nrep == 1 ? "" : "s");
        if (nrep > 1)
            printf("%-44s %16s %14s\n", "metric", "mean", "+-95%");
        else
            printf("%-44s %16s\n", "metric", "value");
        double *x = malloc(nrep * sizeof *x);
        int any = 0;
        for (size_t s = 0; s < first->n; s++)
            any |= shown(first->s[s].name, 0, 1);
        for (size_t s = 0; x && s < first->n; s++) {
            if (!shown(first->s[s].name, all, any))
                continue;
            size_t k = 0;
            for (size_t r = 0; r < nruns; r++) {
                if (runs[r].point != p)
                    continue;
                for (size_t j = 0; j < runs[r].n; j++)
                    if (!strcmp(runs[r].s[j].name, first->s[s].name)) {
                        x[k++] = runs[r].s[j].v;
                        break;
                    }
            }
            sim_ci ci;
            char v[40];
            if (k >= 2 && sim_ci_student(x, k, 0.95, &ci) == MTC_OK) {
                fmt_value(v, sizeof v, ci.mean);
                printf("%-44s %16s %14.3g\n", first->s[s].name, v, ci.half_width);
            } else {
                fmt_value(v, sizeof v, x[0]);
                printf("%-44s %16s\n", first->s[s].name, v);
            }
        }
        free(x);
        /* The transient check (MSER-5, sim/transient.h) on each headline
         * series: a window that still holds the first days of the system
         * describes a transient, not the deployed system. */
        for (size_t s = 0; s < first->n; s++) {
            const char *nm = first->s[s].name;
            const char *dot = strrchr(nm, '.');
            if (!dot || strcmp(dot, ".transient"))
                continue;
            size_t hits = 0, seen = 0;
            double trunc = 0;
            for (size_t r = 0; r < nruns; r++) {
                if (runs[r].point != p)
                    continue;
                for (size_t j = 0; j < runs[r].n; j++) {
                    if (!strcmp(runs[r].s[j].name, nm)) {
                        seen++;
                        hits += runs[r].s[j].v > 0;
                    }
                    if (!strncmp(runs[r].s[j].name, nm, (size_t)(dot - nm)) &&
                        !strcmp(runs[r].s[j].name + (dot - nm), ".truncation_h") &&
                        runs[r].s[j].v > trunc)
                        trunc = runs[r].s[j].v;
                }
            }
            if (hits)
                printf("warning: %.*s: MSER-5 finds an initial transient in the "
                       "measured window of %zu of %zu replication%s (truncation "
                       "up to %.3g h into the window): this figure still "
                       "describes a start-up, not the deployed system; lengthen "
                       "the warm-up or use world{ start = \"steady\" }\n",
                       (int)(dot - nm), nm, hits, seen, seen == 1 ? "" : "s",
                       trunc);
        }
    }
}
