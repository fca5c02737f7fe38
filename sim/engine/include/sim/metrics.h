/*
 * sim/metrics.h - named metrics: counters, gauges, log-binned histograms.
 *
 * Model code records into metrics by handle; which metrics exist and how
 * they are broken down is decided where the model is wired up (the
 * scenario), not in the model's logic. A registry (sim_metrics) owns its
 * metrics; each metric has a unique name, a unit, a kind and `ncohorts`
 * cells (a breakdown: per browser cohort, per CA, ...; 1 = no breakdown).
 *
 * Time: the registry reads the simulation clock through a pointer (see
 * sim_engine_clock). Observations before `warmup_end` are not counted by
 * counters and histograms; gauges always track their level (a level must
 * be right when the warm-up ends) but their series start at `grid_start`.
 * Series: metrics created with SIM_METRIC_SERIES record, at every grid
 * point g = grid_start + k*grid_step (g <= finish time), their value after
 * all updates at times <= g (counters: the cumulative count since warm-up;
 * gauges: the level). Points are filled lazily by the next update or by
 * sim_metrics_finish(), so recording schedules no events.
 *
 * Exact merging: counters and histogram bins are integers; gauge levels,
 * series points and histogram sums are kept in fixed point (2^-32 units,
 * 128-bit), each value rounded once when observed. Merging two registries
 * (sim_metrics_merge) is therefore exact, associative and commutative:
 * results do not depend on how a population was split across MPI ranks.
 * Metrics flagged SIM_METRIC_REPLICATED hold values that every shard
 * computes identically (the PKI timeline every rank replays): merging
 * keeps one copy and checks that they agree.
 *
 * Enumeration: sim_metrics_count()/sim_metrics_at() list metrics in
 * creation order, with accessors for every stored number, so a results
 * writer can store everything by name without knowing the model.
 *
 * Not thread-safe. Hot-path updates are O(1) (histograms O(1) bin lookup)
 * and allocate only when a series grows.
 */
#ifndef SIM_METRICS_H
#define SIM_METRICS_H

#include <stddef.h>
#include <stdint.h>

#include "sim/engine.h"

typedef struct sim_metrics sim_metrics;
typedef struct sim_metric sim_metric;

enum sim_metric_kind {
    SIM_METRIC_COUNTER = 1,     /* int64 sum of increments */
    SIM_METRIC_GAUGE = 2,       /* a level, set or adjusted */
    SIM_METRIC_HISTOGRAM = 3    /* distribution of observed values */
};

/* Flags at creation. */
#define SIM_METRIC_SERIES 1u        /* record a time series on the grid */
#define SIM_METRIC_REPLICATED 2u    /* identical in every shard (see above) */
/* A figure of the whole run that the scenario computes once the run is
 * over (sim:record): a gauge without series whose value may still be set
 * after sim_metrics_finish, and only that. Its cells start unset: a cell
 * never set reads NaN (sim_gauge_value) and is stored as absent, so that
 * a figure recorded for some cohorts only never reads 0 for the others. */
#define SIM_METRIC_RECORD 4u

/* Pass as `cohort` to read the total over all cohorts. */
#define SIM_ALL_COHORTS ((size_t)-1)

typedef struct sim_metrics_config {
    sim_time warmup_end;    /* counters/histograms ignore earlier updates */
    sim_time grid_start;    /* first series point */
    sim_time grid_step;     /* series spacing; 0 = no series at all */
    size_t max_points;      /* series cap per metric; 0 = 1,000,000 */
} sim_metrics_config;

/* clock: read at every update (NULL: time is always 0). cfg may be NULL
 * (no warm-up, no grid). Errors: SIM_ERR_ARG (grid_step < 0), NOMEM. */
int sim_metrics_create(sim_metrics **out, const sim_metrics_config *cfg,
                       const sim_time *clock);
void sim_metrics_destroy(sim_metrics *m);   /* accepts NULL */

const sim_metrics_config *sim_metrics_get_config(const sim_metrics *m);

/* The grid points of every series of a run that ends at `finish` (at
 * most max_points), and the bytes the series of m's metrics created so
 * far will hold then (the capacity their growth reaches): what a run
 * will allocate for series, known before it fills them. SIZE_MAX when it
 * does not fit a size_t. */
size_t sim_metrics_series_points(const sim_metrics *m, sim_time finish);
size_t sim_metrics_series_bytes(const sim_metrics *m, sim_time finish);

/* Get-or-create. name: 1..127 printable ASCII characters without spaces;
 * unit: 0..31 such characters ("" for a pure count); 1 <= ncohorts <=
 * 65536. A second call with
 * the same name and the same definition returns the same metric; with a
 * different definition it fails with SIM_ERR_METRIC. *out is owned by
 * the registry. Errors: SIM_ERR_ARG (name, unit, ncohorts == 0, histogram
 * range), SIM_ERR_METRIC, SIM_ERR_NOMEM. */
int sim_metrics_counter(sim_metrics *m, const char *name, const char *unit,
                        size_t ncohorts, unsigned flags, sim_metric **out);
int sim_metrics_gauge(sim_metrics *m, const char *name, const char *unit,
                      size_t ncohorts, unsigned flags, sim_metric **out);
/* Log bins: edges lo * 10^(i / per_decade), i = 0..nbins, the last edge
 * >= hi; plus an underflow bin (x < lo, including 0 and negatives) and an
 * overflow bin (x >= last edge). 0 < lo < hi, 1 <= per_decade <= 1000,
 * nbins <= 100000. SIM_METRIC_SERIES is not supported for histograms. */
int sim_metrics_histogram(sim_metrics *m, const char *name, const char *unit,
                          size_t ncohorts, unsigned flags, double lo,
                          double hi, unsigned per_decade, sim_metric **out);

/* Names the cells of a breakdown (copied; n == ncohorts, at most 63 chars
 * each). Default labels are "0", "1", ... Error: SIM_ERR_ARG. */
int sim_metric_set_cohort_labels(sim_metric *mt, const char *const *labels,
                                 size_t n);

/* ---- recording (cohort < ncohorts, asserted) ---- */
void sim_counter_add(sim_metric *c, size_t cohort, int64_t n);
void sim_gauge_set(sim_metric *g, size_t cohort, double v);
void sim_gauge_add(sim_metric *g, size_t cohort, double dv);
void sim_hist_observe(sim_metric *h, size_t cohort, double x);
/* Exactly sim_hist_observe(h, cohort, (double)x), faster for the integer
 * quantities recorded per handshake (bytes, round trips): a value seen
 * recently finds its bin without a logarithm, and the sum needs no
 * floating-point conversion. */
void sim_hist_observe_u32(sim_metric *h, size_t cohort, uint32_t x);
/* Exactly n calls of sim_hist_observe(h, cohort, x), in one. */
void sim_hist_observe_n(sim_metric *h, size_t cohort, double x, uint64_t n);
/* Exactly sim_hist_observe(h, cohort[i], x[i]) for i = 0..n-1 (each
 * cohort[i] < ncohorts, asserted; a NAN is ignored), in one call: for a
 * model that holds a histogram's observations back and records them
 * together (see deferred observations), without a call, a check of the
 * registry and a reload of the bin table's fields per observation. Reads
 * the arrays only; they stay the caller's. */
void sim_hist_observe_many(sim_metric *h, const uint32_t *cohort,
                           const double *x, size_t n);

/* ---- deferred observations ----
 * A histogram keeps no order: count, bins, fixed-point sum and extremes
 * are the same whichever way its observations arrive. So a model that
 * records the same value into the same cell many times may count those
 * observations and record them later, n at a time (sim_hist_observe_n),
 * and the metric ends bit for bit as if each had been recorded at once.
 * Such a model counts only while sim_metrics_recording() (what
 * the observation would have counted), and registers a flush function
 * that records everything it holds. The registry calls every flush
 * function in sim_metrics_flush() and at the start of
 * sim_metrics_finish(); whoever reads histograms before the end (a
 * scenario's callback) calls sim_metrics_flush() first. */
typedef void (*sim_metrics_flush_fn)(void *ctx);
/* Registers fn(ctx), which must stay valid until removed or the registry
 * is destroyed. Error: SIM_ERR_NOMEM. */
int sim_metrics_add_flush(sim_metrics *m, sim_metrics_flush_fn fn, void *ctx);
/* Unregisters fn(ctx) without calling it; no-op if not registered. */
void sim_metrics_remove_flush(sim_metrics *m, sim_metrics_flush_fn fn, void *ctx);
/* Calls every registered flush function, in registration order. */
void sim_metrics_flush(sim_metrics *m);
/* Whether counters and histograms count an observation now: the registry
 * is not finished and the clock has reached the warm-up's end. */
int sim_metrics_recording(const sim_metrics *m);

/* Flushes deferred observations (sim_metrics_flush), fills series points
 * up to `end` (inclusive) and freezes the registry: later updates are
 * ignored. Call once, at the end of the run. */
void sim_metrics_finish(sim_metrics *m, sim_time end);

/* Adds src into dst: metrics matched by name (missing ones are copied),
 * definitions (kind, unit, cohorts, flags, bins) and configs must be
 * identical, and series of equal length. Exact (see above). Errors:
 * SIM_ERR_METRIC (mismatch, or REPLICATED values that differ; dst is
 * then partly merged and should be discarded), SIM_ERR_NOMEM. */
int sim_metrics_merge(sim_metrics *dst, const sim_metrics *src);

/* ---- transport (MPI: gather encodings on rank 0, decode, merge) ---- */

/* Encodes the whole registry - config, definitions, labels, values,
 * series - into a malloc'ed buffer (*buf owned by the caller; free()).
 * The encoding is canonical: equal registries give equal bytes, and
 * sim_metrics_decode() of an encoding re-encodes to the same bytes.
 * Little-endian, versioned ("SIMM", version 1). Errors: SIM_ERR_NOMEM. */
int sim_metrics_encode(const sim_metrics *m, uint8_t **buf, size_t *len);

/* Builds a new, finished registry (no clock) from an encoding. Input is
 * treated as untrusted: every count and length is checked against the
 * remaining bytes and the definition rules above. Errors: SIM_ERR_PARSE
 * (malformed, trailing bytes, wrong magic or version), SIM_ERR_NOMEM. */
int sim_metrics_decode(sim_metrics **out, const uint8_t *buf, size_t len);

/* ---- enumeration and reading ---- */
size_t sim_metrics_count(const sim_metrics *m);
const sim_metric *sim_metrics_at(const sim_metrics *m, size_t i);
sim_metric *sim_metrics_find(const sim_metrics *m, const char *name);

const char *sim_metric_name(const sim_metric *mt);
const char *sim_metric_unit(const sim_metric *mt);
int sim_metric_kind(const sim_metric *mt);
const char *sim_metric_kind_name(int kind);   /* "counter", ... */
unsigned sim_metric_flags(const sim_metric *mt);
size_t sim_metric_cohorts(const sim_metric *mt);
/* "all" for SIM_ALL_COHORTS (or any index out of range). */
const char *sim_metric_cohort_label(const sim_metric *mt, size_t cohort);

int64_t sim_counter_value(const sim_metric *c, size_t cohort);
/* A gauge's level; NaN for a cell of a recorded figure (SIM_METRIC_RECORD)
 * that was never set (absent, not 0). The total sums the set cells (NaN
 * when none is). */
double sim_gauge_value(const sim_metric *g, size_t cohort);

/* Series: number of points recorded, point times, values (counter:
 * cumulative count; gauge: level). cohort may be SIM_ALL_COHORTS. */
size_t sim_metric_series_len(const sim_metric *mt);
sim_time sim_metrics_grid_time(const sim_metrics *m, size_t k);
/* The end of the warm-up the registry was created with. */
sim_time sim_metrics_warmup_end(const sim_metrics *m);
double sim_metric_series_value(const sim_metric *mt, size_t cohort, size_t k);
/* 1 when the series hit max_points and later points were dropped. */
int sim_metric_series_truncated(const sim_metric *mt);

/* Histograms: nbins regular bins; bin index 0 is the underflow, 1..nbins
 * the regular bins [edge(i-1), edge(i)), nbins+1 the overflow. */
size_t sim_hist_nbins(const sim_metric *h);
double sim_hist_edge(const sim_metric *h, size_t i);   /* i = 0..nbins */
uint64_t sim_hist_bin(const sim_metric *h, size_t cohort, size_t i);
uint64_t sim_hist_count(const sim_metric *h, size_t cohort);
double sim_hist_sum(const sim_metric *h, size_t cohort);
double sim_hist_mean(const sim_metric *h, size_t cohort);  /* NAN if empty */
double sim_hist_min(const sim_metric *h, size_t cohort);   /* NAN if empty */
double sim_hist_max(const sim_metric *h, size_t cohort);   /* NAN if empty */
/* The q-quantile (0 <= q <= 1) read from the bins: the bin holding rank
 * q*count, interpolated geometrically inside it (log bins), clamped to
 * [min, max]; underflow and overflow ranks give min and max. NAN if
 * empty. Resolution: a factor 10^(1/per_decade). */
double sim_hist_quantile(const sim_metric *h, size_t cohort, double q);

/* ---- replications ---- */
typedef struct sim_ci {
    size_t n;           /* replications */
    double level;       /* e.g. 0.95 */
    double mean, sd;    /* sample mean and standard deviation (n-1) */
    double half_width;  /* t_{(1+level)/2, n-1} * sd / sqrt(n) */
    double lo, hi;      /* mean -/+ half_width */
} sim_ci;

/* Student-t confidence interval of the mean of x[0..n) (one value per
 * replication), via gsl_stats and gsl_cdf_tdist_Pinv. Errors: SIM_ERR_ARG
 * (n < 2, level outside (0, 1), a value not finite). */
int sim_ci_student(const double *x, size_t n, double level, sim_ci *out);

#endif
