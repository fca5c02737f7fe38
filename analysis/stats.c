/*
 * stats.c - the statistics of one run over either source (stats.h): the
 * table of derived figures, a statistic by name, and every statistic of a
 * run in summary order. Intervals, formatting and verdicts over
 * replications are in stats_summary.c.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/results_read.h"
#include "stats.h"

stats_source stats_live(const sim_metrics *m)
{
    stats_source s = {m, NULL, -1};
    return s;
}

stats_source stats_stored(sim_results *db, int64_t run)
{
    stats_source s = {NULL, db, run};
    return s;
}

/* ---- reading a source ---- */

#define NO_COHORT ((size_t)-2)   /* SIM_ALL_COHORTS is (size_t)-1 */

/* The cohort index of label in a live metric; NO_COHORT when it has none
 * (a figure the scenario records per cohort has no total: its cells may
 * be rates or shares, whose sum means nothing; the results store none). */
static size_t live_cohort(const sim_metric *mt, const char *cohort)
{
    if (!strcmp(cohort, "all"))
        return (sim_metric_flags(mt) & SIM_METRIC_RECORD) && sim_metric_cohorts(mt) > 1
                   ? NO_COHORT
                   : SIM_ALL_COHORTS;
    for (size_t c = 0; c < sim_metric_cohorts(mt); c++) {
        const char *l = sim_metric_cohort_label(mt, c);
        if (l && !strcmp(l, cohort))
            return c;
    }
    return NO_COHORT;
}

/* A counter's or gauge's value; 1 when the run has it. */
static int src_scalar(const stats_source *s, const char *metric,
                      const char *cohort, double *v)
{
    if (s->live) {
        const sim_metric *mt = sim_metrics_find(s->live, metric);
        size_t c = mt ? live_cohort(mt, cohort) : NO_COHORT;
        if (!mt || c == NO_COHORT || sim_metric_kind(mt) == SIM_METRIC_HISTOGRAM)
            return 0;
        *v = sim_metric_kind(mt) == SIM_METRIC_COUNTER
                 ? (double)sim_counter_value(mt, c)
                 : sim_gauge_value(mt, c);
        return !isnan(*v);   /* a recorded cell never set is absent */
    }
    int found = 0;
    return sim_results_scalar(s->db, s->run, metric, cohort, v, &found) == 0 && found;
}

/* A histogram's summary; 1 when the run has the histogram. */
static int src_hist(const stats_source *s, const char *metric, const char *cohort,
                    sim_hist_row *h)
{
    if (s->live) {
        const sim_metric *mt = sim_metrics_find(s->live, metric);
        size_t c = mt ? live_cohort(mt, cohort) : NO_COHORT;
        if (!mt || c == NO_COHORT || sim_metric_kind(mt) != SIM_METRIC_HISTOGRAM)
            return 0;
        size_t k = c;
        h->count = (double)sim_hist_count(mt, k);
        h->sum = sim_hist_sum(mt, k);
        h->mean = sim_hist_mean(mt, k);
        h->min = sim_hist_min(mt, k);
        h->max = sim_hist_max(mt, k);
        h->p50 = sim_hist_quantile(mt, k, 0.50);
        h->p90 = sim_hist_quantile(mt, k, 0.90);
        h->p99 = sim_hist_quantile(mt, k, 0.99);
        return 1;
    }
    int found = 0;
    return sim_results_histogram(s->db, s->run, metric, cohort, h, &found) == 0 &&
           found;
}

/* A series (grid times, values); its length, 0 when absent. The arrays
 * are malloc'ed (caller frees). */
static size_t src_series(const stats_source *s, const char *metric,
                         const char *cohort, int64_t **t, double **v)
{
    *t = NULL;
    *v = NULL;
    if (s->live) {
        const sim_metric *mt = sim_metrics_find(s->live, metric);
        size_t c = mt ? live_cohort(mt, cohort) : NO_COHORT;
        size_t n = mt && c != NO_COHORT ? sim_metric_series_len(mt) : 0;
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
            (*t)[k] = sim_metrics_grid_time(s->live, k);
            (*v)[k] = sim_metric_series_value(mt, c, k);
        }
        return n;
    }
    sim_series ser;
    if (sim_results_series(s->db, s->run, metric, cohort, &ser) != 0)
        return 0;
    *t = ser.t;
    *v = ser.v;
    return ser.n;
}

static int64_t src_warmup_end(const stats_source *s)
{
    if (s->live)
        return sim_metrics_warmup_end(s->live);
    sim_run_row *r = malloc(sizeof *r);
    int64_t w = r && sim_results_run(s->db, s->run, r) == 0 ? r->warmup_end : 0;
    free(r);
    return w;
}

/* ---- the derived figures ---- */

enum { D_FRACTION, D_COMPLEMENT, D_OF_SUM, D_RATIO_MEAN, D_SAVED_MEAN, D_QCHANGE,
       D_QDIFF };

typedef struct derived {
    const char *name;
    int how;
    const char *a, *b;  /* numerator / MTC side, denominator / baseline */
    double q;           /* D_QCHANGE: the quantile */
} derived;

/* Like for like: the classical and ML-DSA-44 chains are built around the
 * sites' own keys (the bytes saved are the certificate mechanism's alone);
 * "today" is the deployed ECDSA key and chain, so it compares keys too.
 * Latency changes price MTC and a baseline on the same connections. */
static const derived defs[] = {
    {"signatureless_fraction", D_FRACTION, "handshake_signatureless", "handshake_full", 0},
    /* the full handshakes that fell back to a standalone certificate (the
     * client lacked the landmark, or is not MTC-aware): 1 - the above */
    {"fallback_share", D_COMPLEMENT, "handshake_signatureless", "handshake_full", 0},
    /* resumed connections over all connections: a / (a + b) */
    {"resumed_share", D_OF_SUM, "handshake_resumed", "handshake_full", 0},
    {"flight_over_tcp_iw_share", D_FRACTION, "flight_over_tcp_iw", "handshake_full", 0},
    {"flight_over_tcp_iw_baseline_classical_share", D_FRACTION,
     "flight_over_tcp_iw_baseline_classical", "handshake_full", 0},
    {"flight_over_tcp_iw_baseline_mldsa44_share", D_FRACTION,
     "flight_over_tcp_iw_baseline_mldsa44", "handshake_full", 0},
    {"flight_over_tcp_iw_today_share", D_FRACTION, "flight_over_tcp_iw_today",
     "handshake_full", 0},
    {"flight_over_quic_amp_share", D_FRACTION, "flight_over_quic_amp", "handshake_full", 0},
    {"flight_over_quic_amp_baseline_classical_share", D_FRACTION,
     "flight_over_quic_amp_baseline_classical", "handshake_full", 0},
    {"flight_over_quic_amp_baseline_mldsa44_share", D_FRACTION,
     "flight_over_quic_amp_baseline_mldsa44", "handshake_full", 0},
    {"flight_over_quic_amp_today_share", D_FRACTION, "flight_over_quic_amp_today",
     "handshake_full", 0},
    {"auth_bytes_ratio_vs_classical", D_RATIO_MEAN, "auth_bytes",
     "auth_bytes_baseline_classical", 0},
    {"auth_bytes_saved_vs_classical", D_SAVED_MEAN, "auth_bytes",
     "auth_bytes_baseline_classical", 0},
    {"auth_bytes_ratio_vs_mldsa44", D_RATIO_MEAN, "auth_bytes",
     "auth_bytes_baseline_mldsa44", 0},
    {"auth_bytes_saved_vs_mldsa44", D_SAVED_MEAN, "auth_bytes",
     "auth_bytes_baseline_mldsa44", 0},
    {"auth_bytes_ratio_vs_today", D_RATIO_MEAN, "auth_bytes",
     "auth_bytes_today_classical", 0},
    {"auth_bytes_saved_vs_today", D_SAVED_MEAN, "auth_bytes",
     "auth_bytes_today_classical", 0},
    {"extra_rtt_tcp_saved_vs_mldsa44", D_SAVED_MEAN, "extra_rtt_tcp",
     "extra_rtt_tcp_baseline_mldsa44", 0},
    {"extra_rtt_quic_saved_vs_mldsa44", D_SAVED_MEAN, "extra_rtt_quic",
     "extra_rtt_quic_baseline_mldsa44", 0},
    {"handshake_ms_change_p50_vs_classical", D_QCHANGE, "handshake_ms",
     "handshake_ms_baseline_classical", 0.5},
    {"handshake_ms_change_p90_vs_classical", D_QCHANGE, "handshake_ms",
     "handshake_ms_baseline_classical", 0.9},
    {"handshake_ms_change_p50_vs_mldsa44", D_QCHANGE, "handshake_ms",
     "handshake_ms_baseline_mldsa44", 0.5},
    {"handshake_ms_change_p90_vs_mldsa44", D_QCHANGE, "handshake_ms",
     "handshake_ms_baseline_mldsa44", 0.9},
    {"handshake_ms_change_p50_vs_today", D_QCHANGE, "handshake_ms",
     "handshake_ms_today", 0.5},
    {"handshake_ms_change_p90_vs_today", D_QCHANGE, "handshake_ms",
     "handshake_ms_today", 0.9},
    /* the same quantiles' difference in milliseconds (MTC - baseline) */
    {"handshake_ms_extra_p50_vs_classical", D_QDIFF, "handshake_ms",
     "handshake_ms_baseline_classical", 0.5},
    {"handshake_ms_extra_p90_vs_classical", D_QDIFF, "handshake_ms",
     "handshake_ms_baseline_classical", 0.9},
    {"handshake_ms_extra_p50_vs_mldsa44", D_QDIFF, "handshake_ms",
     "handshake_ms_baseline_mldsa44", 0.5},
    {"handshake_ms_extra_p90_vs_mldsa44", D_QDIFF, "handshake_ms",
     "handshake_ms_baseline_mldsa44", 0.9},
    {"handshake_ms_extra_p50_vs_today", D_QDIFF, "handshake_ms",
     "handshake_ms_today", 0.5},
    {"handshake_ms_extra_p90_vs_today", D_QDIFF, "handshake_ms",
     "handshake_ms_today", 0.9},
};
#define NDEFS (sizeof defs / sizeof defs[0])

const char *const stats_derived_names[] = {
    "signatureless_fraction", "fallback_share", "resumed_share",
    "flight_over_tcp_iw_share",
    "flight_over_tcp_iw_baseline_classical_share",
    "flight_over_tcp_iw_baseline_mldsa44_share", "flight_over_tcp_iw_today_share",
    "flight_over_quic_amp_share", "flight_over_quic_amp_baseline_classical_share",
    "flight_over_quic_amp_baseline_mldsa44_share", "flight_over_quic_amp_today_share",
    "auth_bytes_ratio_vs_classical", "auth_bytes_saved_vs_classical",
    "auth_bytes_ratio_vs_mldsa44", "auth_bytes_saved_vs_mldsa44",
    "auth_bytes_ratio_vs_today", "auth_bytes_saved_vs_today",
    "extra_rtt_tcp_saved_vs_mldsa44", "extra_rtt_quic_saved_vs_mldsa44",
    "handshake_ms_change_p50_vs_classical", "handshake_ms_change_p90_vs_classical",
    "handshake_ms_change_p50_vs_mldsa44", "handshake_ms_change_p90_vs_mldsa44",
    "handshake_ms_change_p50_vs_today", "handshake_ms_change_p90_vs_today",
    "handshake_ms_extra_p50_vs_classical", "handshake_ms_extra_p90_vs_classical",
    "handshake_ms_extra_p50_vs_mldsa44", "handshake_ms_extra_p90_vs_mldsa44",
    "handshake_ms_extra_p50_vs_today", "handshake_ms_extra_p90_vs_today", NULL};

const char *const stats_headline[] = {
    "signatureless_fraction", "fallback_share", "resumed_share", "auth_bytes.mean", "auth_bytes.p99",
    "auth_bytes_ratio_vs_classical", "auth_bytes_ratio_vs_mldsa44",
    "auth_bytes_saved_vs_classical", "auth_bytes_saved_vs_mldsa44",
    "auth_bytes_ratio_vs_today", "extra_rtt_quic_saved_vs_mldsa44",
    "extra_rtt_tcp.mean", "extra_rtt_quic.mean", "handshake_ms.p50",
    "handshake_ms.p99", "handshake_ms_change_p50_vs_classical",
    "handshake_ms_change_p90_vs_classical",
    "handshake_ms_change_p50_vs_mldsa44", "handshake_ms_change_p90_vs_mldsa44",
    "handshake_ms_change_p50_vs_today", "handshake_ms_change_p90_vs_today",
    "handshake_ms_extra_p50_vs_today", "handshake_ms_extra_p90_vs_today",
    "handshake_ms_extra_p50_vs_mldsa44", "handshake_ms_extra_p90_vs_mldsa44",
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

const char *const stats_series[STATS_SERIES] = {
    "signatureless_fraction", "rp_state_bytes", "log_storage_bytes"};

static const derived *find_def(const char *name)
{
    for (size_t i = 0; i < NDEFS; i++)
        if (!strcmp(defs[i].name, name))
            return &defs[i];
    return NULL;
}

int stats_kind_of(const char *name)
{
    const derived *d = find_def(name);
    if (d)
        return d->how == D_FRACTION || d->how == D_COMPLEMENT || d->how == D_OF_SUM
                   ? STATS_FRACTION
                   : STATS_VALUE;
    size_t l = strlen(name);
    if (l > 10 && !strcmp(name + l - 10, ".transient"))
        return STATS_FLAG;
    return STATS_VALUE;
}

/* A stored figure named "..._share" (what a scenario records, e.g. the
 * share of online clients lacking the latest landmark) that lies in
 * [0, 1] is a fraction: its interval is Wilson's, inside [0, 1], with the
 * effective trials its replications show (no count caps them). Other
 * counters and gauges are values. */
static int scalar_kind(const char *name, double v)
{
    size_t l = strlen(name);
    return l > 6 && !strcmp(name + l - 6, "_share") && v >= 0 && v <= 1
               ? STATS_FRACTION
               : STATS_VALUE;
}

static double quantile_of(const sim_hist_row *h, double q)
{
    return q == 0.5 ? h->p50 : q == 0.9 ? h->p90 : h->p99;
}

/* A derived figure; 1 when defined for this run. */
static int derived_value(const stats_source *s, const derived *d,
                         const char *cohort, stats_val *out)
{
    memset(out, 0, sizeof *out);
    if (d->how == D_FRACTION || d->how == D_COMPLEMENT || d->how == D_OF_SUM) {
        double a, b;
        if (!src_scalar(s, d->b, cohort, &b) || !src_scalar(s, d->a, cohort, &a))
            return 0;
        if (d->how == D_COMPLEMENT)
            a = b - a;
        else if (d->how == D_OF_SUM)
            b += a;
        if (!(b > 0))
            return 0;
        out->v = a / b;
        out->kind = STATS_FRACTION;
        out->num = a;
        out->den = b;
        return isfinite(out->v);
    }
    sim_hist_row ha, hb;
    if (!src_hist(s, d->a, cohort, &ha) || !src_hist(s, d->b, cohort, &hb) ||
        !(ha.count > 0) || !(hb.count > 0))
        return 0;
    if (d->how == D_RATIO_MEAN) {
        out->v = ha.mean / hb.mean;
    } else if (d->how == D_SAVED_MEAN) {
        out->v = hb.mean - ha.mean;
    } else if (d->how == D_QDIFF) {
        out->v = quantile_of(&ha, d->q) - quantile_of(&hb, d->q);
    } else {
        double qa = quantile_of(&ha, d->q), qb = quantile_of(&hb, d->q);
        if (!(qb > 0))
            return 0;
        out->v = qa / qb - 1.0;
    }
    return isfinite(out->v);
}

/* ---- steady-state windows ---- */

/* Window k (stats_series) of a run into *w (malloc'ed), its length; the
 * grid step in hours into *step_h. 0 when the run has no such series. */
static size_t window_of(const stats_source *s, size_t k, int64_t warm,
                        double **w, double *step_h)
{
    int64_t *t1 = NULL, *t2 = NULL;
    double *v1 = NULL, *v2 = NULL;
    size_t m = 0;
    *w = NULL;
    if (k == 0) {
        size_t n1 = src_series(s, "handshake_full", "all", &t1, &v1);
        size_t n2 = src_series(s, "handshake_signatureless", "all", &t2, &v2);
        if (n1 && n1 == n2 && (*w = malloc(n1 * sizeof **w)))
            m = tc_fraction_window(t1, v1, v2, n1, warm, *w, step_h);
    } else {
        size_t n = src_series(s, tc_level_names[k - 1], "all", &t1, &v1);
        if (n && (*w = malloc(n * sizeof **w)))
            m = tc_level_window(t1, v1, n, warm, *w, step_h);
    }
    free(t1);
    free(t2);
    free(v1);
    free(v2);
    return m;
}

static tc_result judge_window(size_t k, const double *w, size_t n, double step_h)
{
    return k == 0 ? tc_judge_fraction(w, n, step_h) : tc_judge_level(w, n, step_h);
}

static size_t series_index(const char *name, size_t len)
{
    for (size_t k = 0; k < STATS_SERIES; k++)
        if (strlen(stats_series[k]) == len && !strncmp(stats_series[k], name, len))
            return k;
    return STATS_SERIES;
}

/* "SERIES.transient" or "SERIES.truncation_h" of a run; 1 when judged. */
static int steady_value(const stats_source *s, const char *name, stats_val *out)
{
    const char *dot = strrchr(name, '.');
    if (!dot)
        return 0;
    int flag = !strcmp(dot, ".transient");
    if (!flag && strcmp(dot, ".truncation_h"))
        return 0;
    size_t k = series_index(name, (size_t)(dot - name));
    if (k == STATS_SERIES)
        return 0;
    double *w, step = 0;
    size_t n = window_of(s, k, src_warmup_end(s), &w, &step);
    tc_result r = judge_window(k, w, n, step);
    free(w);
    if (!r.judged)
        return 0;
    memset(out, 0, sizeof *out);
    out->kind = flag ? STATS_FLAG : STATS_VALUE;
    out->v = flag ? (r.transient ? 1.0 : 0.0) : r.truncation_h;
    return 1;
}

int stats_value(const stats_source *src, const char *name, const char *cohort,
                stats_val *out)
{
    memset(out, 0, sizeof *out);
    const derived *d = find_def(name);
    if (d)
        return derived_value(src, d, cohort, out);
    if (src_scalar(src, name, cohort, &out->v)) {
        out->kind = scalar_kind(name, out->v);
        return isfinite(out->v);
    }
    const char *dot = strrchr(name, '.');
    if (!dot || (size_t)(dot - name) >= 160)
        return 0;
    if (!strcmp(cohort, "all") && steady_value(src, name, out))
        return 1;
    char metric[160];
    snprintf(metric, sizeof metric, "%.*s", (int)(dot - name), name);
    sim_hist_row h;
    if (!src_hist(src, metric, cohort, &h))
        return 0;
    static const char *const cols[] = {"count", "sum", "mean", "min", "max",
                                       "p50", "p90", "p99"};
    const double vals[] = {h.count, h.sum, h.mean, h.min, h.max, h.p50, h.p90, h.p99};
    for (int i = 0; i < 8; i++)
        if (!strcmp(cols[i], dot + 1)) {
            out->v = vals[i];
            return isfinite(out->v);
        }
    return 0;
}

/* ---- a run's statistics ---- */

static void add(stats_run *r, const char *name, const stats_val *v)
{
    if (!isfinite(v->v))
        return;
    if (r->n == r->cap) {
        size_t nc = r->cap ? 2 * r->cap : 64;
        stats_row *s = realloc(r->s, nc * sizeof *s);
        if (!s)
            return;
        r->s = s;
        r->cap = nc;
    }
    snprintf(r->s[r->n].name, sizeof r->s[r->n].name, "%s", name);
    r->s[r->n].recorded = 0;
    r->s[r->n++].val = *v;
}

static void add_plain(stats_run *r, const char *name, double v)
{
    stats_val x = {v, STATS_VALUE, 0, 0};
    add(r, name, &x);
}

/* A counter's or gauge's value, with its kind (scalar_kind). */
static void add_scalar(stats_run *r, const char *name, double v)
{
    stats_val x = {v, scalar_kind(name, v), 0, 0};
    add(r, name, &x);
}

/* The steady-state flags of a run (total only); the windows are kept in
 * r for the point's pooled verdict. */
void stats_collect_steady(const stats_source *s, stats_run *r)
{
    int64_t warm = src_warmup_end(s);
    for (size_t k = 0; k < STATS_SERIES; k++) {
        double step = 0;
        r->nwin[k] = window_of(s, k, warm, &r->win[k], &step);
        if (r->win[k])
            r->win_step_h = step;
        tc_result t = judge_window(k, r->win[k], r->nwin[k], step);
        if (!t.judged)
            continue;
        char name[160];
        stats_val f = {t.transient ? 1.0 : 0.0, STATS_FLAG, 0, 0};
        snprintf(name, sizeof name, "%s.transient", stats_series[k]);
        add(r, name, &f);
        snprintf(name, sizeof name, "%s.truncation_h", stats_series[k]);
        add_plain(r, name, t.truncation_h);
    }
}

/* The one leaf key that made full handshakes, else "mixed". */
static void leaf_key(const stats_source *s, stats_run *r)
{
    r->leaf_key[0] = 0;
    if (!s->live)
        return;
    const sim_metric *bk = sim_metrics_find(s->live, "handshake_full_by_key");
    for (size_t c = 0; bk && c < sim_metric_cohorts(bk); c++) {
        if (sim_counter_value(bk, c) <= 0)
            continue;
        const char *lab = sim_metric_cohort_label(bk, c);
        if (r->leaf_key[0] && strcmp(r->leaf_key, lab ? lab : "?"))
            snprintf(r->leaf_key, sizeof r->leaf_key, "mixed");
        else if (!r->leaf_key[0])
            snprintf(r->leaf_key, sizeof r->leaf_key, "%s", lab ? lab : "?");
    }
}

void stats_collect(const stats_source *src, const char *cohort, stats_run *out)
{
    snprintf(out->cohort, sizeof out->cohort, "%s", cohort);
    for (size_t i = 0; i < NDEFS; i++) {
        stats_val v;
        if (derived_value(src, &defs[i], cohort, &v))
            add(out, defs[i].name, &v);
    }
    if (!strcmp(cohort, "all"))
        stats_collect_steady(src, out);
    leaf_key(src, out);
    /* every metric: counters and gauges, then histograms' statistics */
    if (src->live) {
        size_t n = sim_metrics_count(src->live);
        for (size_t i = 0; i < n; i++) {
            const sim_metric *mt = sim_metrics_at(src->live, i);
            const char *name = sim_metric_name(mt);
            size_t k = live_cohort(mt, cohort);
            if (k == NO_COHORT)
                continue;
            char b[200];
            switch (sim_metric_kind(mt)) {
            case SIM_METRIC_COUNTER:
                add_scalar(out, name, (double)sim_counter_value(mt, k));
                break;
            case SIM_METRIC_GAUGE:
                /* a recorded cell never set is absent, not 0 */
                if (isnan(sim_gauge_value(mt, k)))
                    break;
                add_scalar(out, name, sim_gauge_value(mt, k));
                if (out->n && !strcmp(out->s[out->n - 1].name, name))
                    out->s[out->n - 1].recorded =
                        (sim_metric_flags(mt) & SIM_METRIC_RECORD) != 0;
                break;
            default:
                if (!sim_hist_count(mt, k))
                    break;
                snprintf(b, sizeof b, "%s.count", name);
                add_plain(out, b, (double)sim_hist_count(mt, k));
                snprintf(b, sizeof b, "%s.mean", name);
                add_plain(out, b, sim_hist_mean(mt, k));
                snprintf(b, sizeof b, "%s.p50", name);
                add_plain(out, b, sim_hist_quantile(mt, k, 0.5));
                snprintf(b, sizeof b, "%s.p99", name);
                add_plain(out, b, sim_hist_quantile(mt, k, 0.99));
                break;
            }
        }
        return;
    }
    sim_metric_row *m;
    size_t n;
    if (sim_results_run_metrics(src->db, src->run, &m, &n) != 0)
        return;
    /* a registry's order is its creation order; a stored run's by name */
    for (size_t i = 0; i < n; i++) {
        char b[200];
        if (strcmp(m[i].kind, "histogram")) {
            double v;
            if (src_scalar(src, m[i].name, cohort, &v))
                add_scalar(out, m[i].name, v);
            continue;
        }
        sim_hist_row h;
        if (!src_hist(src, m[i].name, cohort, &h) || !(h.count > 0))
            continue;
        static const char *const sfx[] = {"count", "mean", "p50", "p99"};
        const double vals[] = {h.count, h.mean, h.p50, h.p99};
        for (int k = 0; k < 4; k++) {
            snprintf(b, sizeof b, "%s.%s", m[i].name, sfx[k]);
            add_plain(out, b, vals[k]);
        }
    }
    free(m);
}

size_t stats_cohorts(const stats_source *src, char (*out)[64], size_t max)
{
    size_t n = 0;
    if (src->live) {
        const sim_metric *mt = sim_metrics_find(src->live, "handshake_full");
        for (size_t c = 0; mt && c < sim_metric_cohorts(mt) && n < max; c++) {
            const char *l = sim_metric_cohort_label(mt, c);
            snprintf(out[n++], 64, "%s", l ? l : "");
        }
        return n;
    }
    sim_cohort_row *c;
    size_t nc;
    if (sim_results_cohorts(src->db, src->run, "handshake_full", &c, &nc) != 0)
        return 0;
    for (size_t i = 0; i < nc && n < max; i++)
        snprintf(out[n++], 64, "%s", c[i].label);
    free(c);
    return n;
}

void stats_collect_cohorts(const stats_source *src, stats_run *out)
{
    stats_collect(src, "all", out);
    char labels[64][64];
    size_t n = stats_cohorts(src, labels, 64);
    if (n < 2)   /* one cohort is the total */
        return;
    out->cohorts = calloc(n, sizeof *out->cohorts);
    for (size_t i = 0; out->cohorts && i < n; i++) {
        out->cohorts[i].point = out->point;
        out->cohorts[i].rep = out->rep;
        stats_collect(src, labels[i], &out->cohorts[i]);
        out->ncohorts++;
    }
}

const stats_run *stats_run_cohort(const stats_run *r, const char *cohort)
{
    if (!strcmp(cohort, "all"))
        return r;
    for (size_t i = 0; i < r->ncohorts; i++)
        if (!strcmp(r->cohorts[i].cohort, cohort))
            return &r->cohorts[i];
    return NULL;
}

void stats_run_free(stats_run *r)
{
    for (size_t i = 0; i < r->ncohorts; i++)
        stats_run_free(&r->cohorts[i]);
    free(r->cohorts);
    free(r->s);
    for (size_t k = 0; k < STATS_SERIES; k++)
        free(r->win[k]);
    memset(r, 0, sizeof *r);
}
