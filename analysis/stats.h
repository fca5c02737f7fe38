/*
 * stats.h - the statistics of mtcsim, defined once: every derived figure
 * of a run (the signatureless fraction, byte ratios and savings against
 * the baselines, latency changes, flight shares), the headline list, the
 * steady-state verdicts, and the intervals over replications. `mtcsim run`
 * computes them from a live metrics registry, `compare`, `plot` and
 * `report` from a stored run: the same functions over either source, so a
 * figure means the same thing wherever it is printed.
 *
 * Intervals over replications, by kind of statistic:
 *  - a value: mean and Student-t interval;
 *  - a fraction (a count over a count, e.g. handshake_signatureless /
 *    handshake_full): the mean of the runs' fractions and a Wilson score
 *    interval, always inside [0, 1]. Its sample size is the effective
 *    number of trials the replications show (p (1 - p) R / s^2, the
 *    binomial variance over the observed variance of the mean: handshakes
 *    of one client are not independent), at most the handshakes counted,
 *    and z is the Student-t quantile with R - 1 degrees of freedom; far
 *    from 0 and 1 this is the Student-t interval, near them it stays
 *    inside [0, 1] (Agresti and Coull 1998; Kish's design effect);
 *    A counter or gauge named "..._share" whose value lies in [0, 1] (a
 *    share a scenario records with sim:record) is a fraction too, its
 *    effective trials not capped by a count;
 *  - a flag (0 or 1 per run, e.g. "<series>.transient"): a count, "flagged
 *    in k of n", never an interval.
 *
 * Sources are read-only views; nothing here prints except the functions
 * that take a FILE.
 */
#ifndef MTCSIM_STATS_H
#define MTCSIM_STATS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "sim/metrics.h"
#include "sim/results.h"
#include "transient_check.h"

#define STATS_LEVEL 0.95    /* confidence level of every interval */

/* One run's metrics: a live registry (live != NULL) or a stored run. */
typedef struct stats_source {
    const sim_metrics *live;
    sim_results *db;
    int64_t run;
} stats_source;

stats_source stats_live(const sim_metrics *m);
stats_source stats_stored(sim_results *db, int64_t run);

enum stats_kind { STATS_VALUE = 0, STATS_FRACTION = 1, STATS_FLAG = 2 };

/* A statistic of one run: its value, kind and, for a fraction, the
 * counts it divides (num / den). */
typedef struct stats_val {
    double v;
    int kind;
    double num, den;
} stats_val;

/*
 * A statistic of a run by name, for cohort `cohort` ("all": the total):
 *   a derived figure (stats_derived_names), "METRIC" (a counter's or
 *   gauge's final value), "METRIC.count|sum|mean|min|max|p50|p90|p99" (a
 *   histogram's), "SERIES.transient" (the run's MSER-5 flag, a flag) or
 *   "SERIES.truncation_h" for the steady-state series (stats_series).
 * Returns 1 and fills *out, or 0 when the run lacks it (or it is
 * undefined, e.g. a fraction of no handshakes).
 */
int stats_value(const stats_source *src, const char *name, const char *cohort,
                stats_val *out);

/* The derived figures' names, in summary order, NULL-ended. */
extern const char *const stats_derived_names[];
/* The headline list: what the short summary and `compare` show. */
extern const char *const stats_headline[];
/* 1 when name is a fraction or a flag by its name alone (for labels). */
int stats_kind_of(const char *name);

/* ---- a run's statistics, in summary order ---- */

#define STATS_SERIES 3   /* the steady-state series: fraction, two levels */
/* "signatureless_fraction", then tc_level_names. */
extern const char *const stats_series[STATS_SERIES];

typedef struct stats_row {
    char name[160];
    stats_val val;
    int recorded;       /* a figure the scenario recorded (sim:record) */
} stats_row;

typedef struct stats_run {
    size_t point, rep;          /* the caller's */
    char cohort[64];            /* "all", or the cohort these statistics are of */
    stats_row *s;
    size_t n, cap;
    char leaf_key[32];          /* the sites' key behind the ratios, "mixed", or "" */
    /* the steady-state series' measured windows, kept so that a point's
     * replications are averaged before they are judged */
    double *win[STATS_SERIES];
    size_t nwin[STATS_SERIES];
    double win_step_h;
    /* stats_collect_cohorts: the same statistics of each browser cohort */
    struct stats_run *cohorts;
    size_t ncohorts;
} stats_run;

/* Every statistic of a run for cohort `cohort`: the derived figures, the
 * steady-state flags, then every metric (counters and gauges: value;
 * histograms: count, mean, p50, p99). Appends to out (zeroed first by
 * the caller). */
void stats_collect(const stats_source *src, const char *cohort, stats_run *out);
/* stats_collect of the total, then of each browser cohort (the cohorts of
 * handshake_full) into out->cohorts. */
void stats_collect_cohorts(const stats_source *src, stats_run *out);
/* The cohort statistics of r labelled `cohort`, or NULL. */
const stats_run *stats_run_cohort(const stats_run *r, const char *cohort);
void stats_run_free(stats_run *r);
/* The browser cohorts of a source (the cohort labels of handshake_full), at
 * most max into out; their count. */
size_t stats_cohorts(const stats_source *src, char (*out)[64], size_t max);

/* ---- over replications ---- */

typedef struct stats_interval {
    int kind;           /* STATS_* */
    size_t n;           /* replications */
    double mean;
    int has_ci;         /* lo, hi hold an interval (n >= 2) */
    double lo, hi;
    double half;        /* STATS_VALUE: the Student-t half-width */
    size_t flagged;     /* STATS_FLAG: runs whose value is 1 */
} stats_interval;

/* The interval of v[0..n) (one statistic over replications). */
stats_interval stats_summarize(const stats_val *v, size_t n);
/* Mean and Student-t band of plain values x[0..n) (collapses for n < 2). */
void stats_band(const double *x, size_t n, double *mean, double *lo, double *hi);

/* The interval as the tables print it: "+- 0.0123", "[0.9612, 0.9871]",
 * "flagged in 2 of 5", or "" without one. */
void stats_format_ci(const stats_interval *ci, char *buf, size_t n);
/* A value: counts as the integers they are, else six significant digits
 * (enough to tell headline fractions apart). */
void stats_format_value(double v, int kind, char *buf, size_t n);

/* ---- the steady-state verdict of a sweep point ---- */

typedef struct stats_verdict {
    const char *series;     /* stats_series[k] */
    size_t nrep;            /* replications whose windows were averaged */
    tc_result r;            /* MSER-5 on the averaged window */
    size_t flagged, judged; /* runs flagged on their own / judged */
} stats_verdict;

/* The verdict of series k over runs[0..n) (one point): each run's window
 * averaged over the replications, then judged; a transient is where every
 * replication is at the same time, a burst in one of them is not. */
stats_verdict stats_point_verdict(const stats_run *const *runs, size_t n, size_t k);
/* The verdict as one line, identical in the run summary and the report:
 * "steady-state SERIES: ..." with the advice that fits the scenario
 * (steady_start: the world already starts steady). */
void stats_verdict_text(const stats_verdict *v, int steady_start, char *buf,
                        size_t n);
/* Whether experiment exp's world starts steady: 1, empty: 0, unknown: -1
 * (its first run's parameter world.start). */
int stats_steady_start(sim_results *db, int64_t exp);
/* The steady-state windows and flags of a run (what stats_collect adds
 * for them), for verdicts without every statistic. */
void stats_collect_steady(const stats_source *src, stats_run *out);

#endif
