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
#include "transient_check.h"

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

static void transient_add(run_stats *rs, const char *name, tc_result r)
{
    if (!r.judged)
        return;
    char k[160];
    snprintf(k, sizeof k, "%s.transient", name);
    stat_add(rs, k, r.transient ? 1.0 : 0.0);
    snprintf(k, sizeof k, "%s.truncation_h", name);
    stat_add(rs, k, r.truncation_h);
}

/* A metric's series as arrays (grid times, values of all cohorts); 0 when
 * it has none. *t and *v are malloc'ed (caller frees). */
static size_t series_of(sim_metrics *m, const char *name, int64_t **t, double **v)
{
    sim_metric *mt = sim_metrics_find(m, name);
    size_t n = mt ? sim_metric_series_len(mt) : 0;
    *t = n ? malloc(n * sizeof **t) : NULL;
    *v = n ? malloc(n * sizeof **v) : NULL;
    if (!*t || !*v) {
        free(*t);
        free(*v);
        *t = NULL;
        *v = NULL;
        return 0;
    }
    for (size_t k = 0; k < n; k++) {
        (*t)[k] = sim_metrics_grid_time(m, k);
        (*v)[k] = sim_metric_series_value(mt, SIM_ALL_COHORTS, k);
    }
    return n;
}

/* The steady-state check of the headline series (transient_check.h):
 * "<series>.transient" (1: this run's window still holds an initial
 * transient) and "<series>.truncation_h" (MSER-5's cut, hours into the
 * window); the windows are kept in rs for the sweep point's pooled check. */
static void collect_transients(sim_metrics *m, run_stats *rs)
{
    int64_t warm = sim_metrics_warmup_end(m);
    int64_t *t1, *t2;
    double *full, *sl;
    size_t n1 = series_of(m, "handshake_full", &t1, &full);
    size_t n2 = series_of(m, "handshake_signatureless", &t2, &sl);
    if (n1 && n1 == n2 && (rs->win[0] = malloc(n1 * sizeof(double)))) {
        rs->nwin[0] = tc_fraction_window(t1, full, sl, n1, warm, rs->win[0],
                                         &rs->win_step_h);
        transient_add(rs, "signatureless_fraction",
                      tc_judge_fraction(rs->win[0], rs->nwin[0], rs->win_step_h));
    }
    free(t1);
    free(t2);
    free(full);
    free(sl);
    for (size_t g = 0; tc_level_names[g] && g + 1 < RUN_TC_SERIES; g++) {
        int64_t *t;
        double *v;
        size_t n = series_of(m, tc_level_names[g], &t, &v);
        if (n && (rs->win[g + 1] = malloc(n * sizeof(double)))) {
            rs->nwin[g + 1] = tc_level_window(t, v, n, warm, rs->win[g + 1],
                                              &rs->win_step_h);
            transient_add(rs, tc_level_names[g],
                          tc_judge_level(rs->win[g + 1], rs->nwin[g + 1], rs->win_step_h));
        }
        free(t);
        free(v);
    }
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
    /* Per arm, the share of full handshakes whose server flight exceeds
     * the TCP initial window or the QUIC amplification budget. */
    static const char *const over[2] = {"flight_over_tcp_iw", "flight_over_quic_amp"};
    static const char *const arm[4] = {"", "_baseline_classical", "_baseline_mldsa44",
                                       "_today"};
    for (int i = 0; full && sim_counter_value(full, SIM_ALL_COHORTS) > 0 && i < 2; i++)
        for (int a = 0; a < 4; a++) {
            char n[160];
            snprintf(n, sizeof n, "%s%s", over[i], arm[a]);
            sim_metric *o = sim_metrics_find(m, n);
            if (!o)
                continue;
            snprintf(n, sizeof n, "%s%s_share", over[i], arm[a]);
            stat_add(rs, n, (double)sim_counter_value(o, SIM_ALL_COHORTS) /
                                (double)sim_counter_value(full, SIM_ALL_COHORTS));
        }
    /* MTC against each baseline. The classical and ML-DSA-44 chains are
     * built around the sites' own keys, so the bytes saved are the
     * certificate mechanism's alone; a ratio still has the key on both
     * sides, so the summary names the key (run_print_summary). "today" is
     * the deployed ECDSA key and chain: it compares keys as well. */
    sim_metric *ab = sim_metrics_find(m, "auth_bytes");
    static const char *const base[] = {"classical", "mldsa44", "today"};
    static const char *const bmetric[] = {"auth_bytes_baseline_classical",
                                          "auth_bytes_baseline_mldsa44",
                                          "auth_bytes_today_classical"};
    for (int i = 0; ab && i < 3; i++) {
        sim_metric *b = sim_metrics_find(m, bmetric[i]);
        if (b && sim_hist_count(ab, SIM_ALL_COHORTS) &&
            sim_hist_count(b, SIM_ALL_COHORTS)) {
            char n[160];
            double mb = sim_hist_mean(b, SIM_ALL_COHORTS);
            double ma = sim_hist_mean(ab, SIM_ALL_COHORTS);
            snprintf(n, sizeof n, "auth_bytes_ratio_vs_%s", base[i]);
            stat_add(rs, n, ma / mb);
            snprintf(n, sizeof n, "auth_bytes_saved_vs_%s", base[i]);
            stat_add(rs, n, mb - ma);
        }
    }
    static const char *const rtt[] = {"tcp", "quic"};
    for (int i = 0; i < 2; i++) {
        char n[160], bn[160];
        snprintf(n, sizeof n, "extra_rtt_%s", rtt[i]);
        snprintf(bn, sizeof bn, "extra_rtt_%s_baseline_mldsa44", rtt[i]);
        sim_metric *a = sim_metrics_find(m, n), *b = sim_metrics_find(m, bn);
        if (a && b && sim_hist_count(a, SIM_ALL_COHORTS) &&
            sim_hist_count(b, SIM_ALL_COHORTS)) {
            snprintf(n, sizeof n, "extra_rtt_%s_saved_vs_mldsa44", rtt[i]);
            stat_add(rs, n, sim_hist_mean(b, SIM_ALL_COHORTS) -
                                sim_hist_mean(a, SIM_ALL_COHORTS));
        }
    }
    /* Handshake latency (cohorts with a network path): the relative
     * change of MTC's p50 and p90 against the same handshakes priced with
     * each baseline chain (run_print_summary states the assumptions). */
    sim_metric *lat = sim_metrics_find(m, "handshake_ms");
    static const char *const lat_base[3] = {"handshake_ms_baseline_classical",
                                            "handshake_ms_baseline_mldsa44",
                                            "handshake_ms_today"};
    static const char *const lat_vs[3] = {"classical", "mldsa44", "today"};
    for (int i = 0; lat && sim_hist_count(lat, SIM_ALL_COHORTS) && i < 3; i++) {
        char n[160];
        sim_metric *b = sim_metrics_find(m, lat_base[i]);
        if (!b || !sim_hist_count(b, SIM_ALL_COHORTS))
            continue;
        static const double q[] = {0.5, 0.9};
        static const char *const qn[] = {"p50", "p90"};
        for (int j = 0; j < 2; j++) {
            double a = sim_hist_quantile(lat, SIM_ALL_COHORTS, q[j]);
            double bq = sim_hist_quantile(b, SIM_ALL_COHORTS, q[j]);
            if (!(bq > 0))
                continue;
            snprintf(n, sizeof n, "handshake_ms_change_%s_vs_%s", qn[j], lat_vs[i]);
            stat_add(rs, n, a / bq - 1.0);
        }
    }
    collect_transients(m, rs);
    /* The leaf key behind every ratio: the one key that made full
     * handshakes, else "mixed". */
    sim_metric *bk = sim_metrics_find(m, "handshake_full_by_key");
    rs->leaf_key[0] = 0;
    for (size_t c = 0; bk && c < sim_metric_cohorts(bk); c++) {
        if (sim_counter_value(bk, c) <= 0)
            continue;
        const char *lab = sim_metric_cohort_label(bk, c);
        if (rs->leaf_key[0] && strcmp(rs->leaf_key, lab ? lab : "?"))
            snprintf(rs->leaf_key, sizeof rs->leaf_key, "mixed");
        else if (!rs->leaf_key[0])
            snprintf(rs->leaf_key, sizeof rs->leaf_key, "%s", lab ? lab : "?");
    }
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
    "auth_bytes_saved_vs_classical", "auth_bytes_saved_vs_mldsa44",
    "auth_bytes_ratio_vs_today", "extra_rtt_quic_saved_vs_mldsa44",
    "extra_rtt_tcp.mean", "extra_rtt_quic.mean", "handshake_ms.p50",
    "handshake_ms.p99", "handshake_ms_change_p50_vs_classical",
    "handshake_ms_change_p90_vs_classical",
    "handshake_ms_change_p50_vs_mldsa44", "handshake_ms_change_p90_vs_mldsa44",
    "handshake_ms_change_p50_vs_today", "handshake_ms_change_p90_vs_today",
    "verify_ms.mean", "verify_ms_baseline_classical.mean", "verify_ms_today.mean",
    "flight_over_tcp_iw_share", "flight_over_tcp_iw_baseline_mldsa44_share",
    "flight_over_tcp_iw_today_share", "flight_over_quic_amp_share",
    "flight_over_quic_amp_baseline_mldsa44_share", "flight_over_quic_amp_today_share",
    "handshake_full",
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
        if (first->leaf_key[0])
            printf("# like for like: MTC and the classical and ML-DSA-44 chains "
                   "all use the sites' leaf key (%s); the chains are each site's "
                   "profile of today's (2-4 certificates, 2-3 SCTs), the ML-DSA-44 "
                   "one with every CA and log key ML-DSA-44; \"today\" is that "
                   "chain with its own leaf key (RSA or ECDSA)\n", first->leaf_key);
        for (size_t s = 0; s < first->n; s++)
            if (!strncmp(first->s[s].name, "handshake_ms_change_", 20)) {
                printf("# latency: handshake_ms_change_* = MTC's quantile / the "
                       "baseline's - 1, both on the same connections (each "
                       "client's rtt and jitter, bandwidth, transport, the "
                       "loss draw; each arm its own key's signing and "
                       "verification time); "
                       "model and simplifications in docs/model.md\n");
                break;
            }
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
        /* The steady-state check of the point (transient_check.h): each
         * headline series' window averaged over the replications, then
         * judged. A transient is where every replication is at the same
         * time; a burst of misses in one replication of a steady system
         * is not, and averaging keeps it from being read as one (a single
         * replication's verdict is in its "<series>.transient" row). */
        for (size_t k = 0; k < RUN_TC_SERIES; k++) {
            size_t len = (size_t)-1, nr = 0;
            for (size_t r = 0; r < nruns; r++)
                if (runs[r].point == p && runs[r].win[k]) {
                    nr++;
                    if (runs[r].nwin[k] < len)
                        len = runs[r].nwin[k];
                }
            if (!nr || len == (size_t)-1 || len == 0)
                continue;
            double *avg = calloc(len, sizeof *avg);
            if (!avg)
                continue;
            for (size_t r = 0; r < nruns; r++)
                if (runs[r].point == p && runs[r].win[k])
                    for (size_t i = 0; i < len; i++)
                        avg[i] += runs[r].win[k][i] / (double)nr;
            const char *nm = k ? tc_level_names[k - 1] : "signatureless_fraction";
            tc_result v = k ? tc_judge_level(avg, len, first->win_step_h)
                            : tc_judge_fraction(avg, len, first->win_step_h);
            free(avg);
            if (v.judged && v.transient)
                printf("warning: %s: MSER-5 finds an initial transient in the "
                       "measured window (mean of %zu replication%s; truncation "
                       "%.3g h into the window): this figure still describes a "
                       "start-up, not the deployed system; lengthen the warm-up "
                       "or use world{ start = \"steady\" }\n",
                       nm, nr, nr == 1 ? "" : "s", v.truncation_h);
        }
    }
}
