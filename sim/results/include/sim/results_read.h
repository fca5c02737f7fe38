/*
 * sim/results_read.h - reading a results database: experiments, runs,
 * sweep points, parameters and attributes, metrics by run and cohort,
 * histogram bins pooled over runs, series, replication summaries, and
 * whole tables for export. The one place outside the writer that knows
 * the schema (docs/results.md): the analysis commands, the run summary
 * and `mtcsim run --resume` read through it and never write SQL.
 *
 * Conventions. A handle from sim_results_open (any mode). Cohorts are
 * named by label; "all" is the total of every cohort. "Completed runs of
 * a point" means the runs with status "completed", one per replication
 * (a replication completed twice counts once: its latest run). Arrays
 * returned through pointer arguments are malloc'ed and owned by the
 * caller (free, or the named _free function); on error they are NULL and
 * counts 0. Text columns are copied into fixed fields and cut to fit
 * (sizes below; every value the simulator writes fits). Every function
 * returns MTC_OK or a negative mtc error code (MTC_ERR_ARG, MTC_ERR_NOMEM,
 * SIM_ERR_DB) with the message in sim_results_errmsg(); "not found" is
 * not an error (a flag or an id of -1 says so).
 */
#ifndef SIM_RESULTS_READ_H
#define SIM_RESULTS_READ_H

#include <stddef.h>
#include <stdint.h>

#include "sim/results.h"

/* One snapshot across many reads: a read transaction (a writer may
 * append meanwhile; the reader sees none of it until _read_end). */
int sim_results_read_begin(sim_results *db);
int sim_results_read_end(sim_results *db);

/* ---- experiments ---- */

typedef struct sim_experiment_row {
    int64_t id;                 /* -1: no such experiment */
    char name[256];
    char command_line[4096];    /* "" when none was stored */
    char created_at[64];
    int64_t sweep_points, replications;   /* as planned */
} sim_experiment_row;

/* Every experiment, by id. */
int sim_results_experiments(sim_results *db, sim_experiment_row **rows,
                            size_t *n);
/* One experiment (out->id = -1 when there is none with that id). */
int sim_results_experiment(sim_results *db, int64_t exp,
                           sim_experiment_row *out);
/* The highest experiment id, or -1 for an empty database. */
int sim_results_latest_experiment(sim_results *db, int64_t *exp);

/* ---- runs ---- */

typedef struct sim_run_row {
    int64_t id, experiment_id, sweep_point, replication;
    uint64_t seed;
    int status;                 /* SIM_RUN_*; -1 for an unknown text */
    int has_reached;            /* sim_reached is stored */
    sim_time sim_reached;
    sim_time warmup_end;        /* 0 when not stored */
    int64_t events;             /* 0 when not stored */
    double wall_time_s;         /* NAN when not stored */
    int64_t pid;
    char hostname[256];         /* "" when not stored */
    char started_at[64];
    char scenario_path[1024];   /* "" when not stored */
    char scenario_sha256[65];   /* "" when not stored */
    char program_version[64];
    char error[1024];           /* "" when none */
} sim_run_row;

/* Every run of an experiment (any status), by run id. */
int sim_results_runs(sim_results *db, int64_t exp, sim_run_row **rows,
                     size_t *n);

/* One run by id (out->id = -1 when there is none). */
int sim_results_run(sim_results *db, int64_t run, sim_run_row *out);

/* A completed run of a sweep point, for pairing across experiments. */
typedef struct sim_run_ref {
    int64_t run_id, replication;
    uint64_t seed;
} sim_run_ref;

/* The completed runs of (exp, point), by replication. */
int sim_results_point_runs(sim_results *db, int64_t exp, int64_t point,
                           sim_run_ref **runs, size_t *n);

/* A sweep point: its index and its runs' status counts. */
typedef struct sim_point_row {
    int64_t point;
    int64_t first_run;          /* lowest run id (whose parameters stand for it) */
    int64_t replications;       /* distinct replications begun */
    int64_t completed, failed, interrupted;   /* runs by status */
    int64_t completed_reps;     /* distinct replications completed */
} sim_point_row;

/* The sweep points that have runs, by index. */
int sim_results_points(sim_results *db, int64_t exp, sim_point_row **rows,
                       size_t *n);

/* ---- parameters and attributes ---- */

typedef struct sim_param_row {
    char kind[64], entity[128], name[128];
    char value[4096];
    int swept;                  /* marked as a sweep axis */
    int64_t distinct;           /* sim_results_experiment_params: distinct
                                 * values over the experiment's runs; else 0 */
} sim_param_row;

/* A run's parameters by (kind, entity, name); swept_only: those marked. */
int sim_results_run_params(sim_results *db, int64_t run, int swept_only,
                           sim_param_row **rows, size_t *n);
/* The parameters of the experiment's first run, each with the number of
 * distinct values it takes over all the experiment's runs. */
int sim_results_experiment_params(sim_results *db, int64_t exp,
                                  sim_param_row **rows, size_t *n);

typedef struct sim_attr_row {
    char name[256];
    char value[1024];
} sim_attr_row;

/* The distinct (name, value) run attributes of the experiment's runs
 * (completed_only: of its completed runs) whose name starts with prefix,
 * by name then value. */
int sim_results_attrs(sim_results *db, int64_t exp, const char *prefix,
                      int completed_only, sim_attr_row **rows, size_t *n);

/* ---- metrics ---- */

typedef struct sim_metric_row {
    char name[160];
    char kind[16];              /* "counter", "gauge", "histogram" */
    char unit[32];
    int64_t cohorts;            /* cohort cells (1: the total only) */
    int series;                 /* has a time series (in any run, for _info) */
    int64_t runs;               /* sim_results_metric_info: completed runs
                                 * holding it (0: absent); else 0 */
} sim_metric_row;

/* The metrics of one run, by name. */
int sim_results_run_metrics(sim_results *db, int64_t run,
                            sim_metric_row **rows, size_t *n);
/* A metric as the experiment's completed runs hold it (out->runs = 0 when
 * none does). */
int sim_results_metric_info(sim_results *db, int64_t exp, const char *name,
                            sim_metric_row *out);
/* The distinct metric names of the experiment's runs (for suggestions). */
int sim_results_metric_names(sim_results *db, int64_t exp,
                             char (**names)[160], size_t *n);
/* The lowest run id of the experiment holding metric (NULL: any metric),
 * completed runs only when completed_only; -1 when there is none. */
int sim_results_first_run(sim_results *db, int64_t exp, const char *metric,
                          int completed_only, int64_t *run);

typedef struct sim_cohort_row {
    int64_t index;
    char label[64];
} sim_cohort_row;

/* The cohorts of a metric's breakdown in a run (not the total), by index. */
int sim_results_cohorts(sim_results *db, int64_t run, const char *metric,
                        sim_cohort_row **rows, size_t *n);

/* A counter's or gauge's final value of a run and cohort; *found = 0 when
 * the run has no such value. */
int sim_results_scalar(sim_results *db, int64_t run, const char *metric,
                       const char *cohort, double *v, int *found);

/* A histogram's summary of a run and cohort (NAN where not stored). */
typedef struct sim_hist_row {
    double count, sum, mean, min, max, p50, p90, p99;
} sim_hist_row;
int sim_results_histogram(sim_results *db, int64_t run, const char *metric,
                          const char *cohort, sim_hist_row *out, int *found);

/* A metric's series of a run and cohort: n points (grid time, value). */
typedef struct sim_series {
    size_t n;
    int64_t *t;
    double *v;
} sim_series;
int sim_results_series(sim_results *db, int64_t run, const char *metric,
                       const char *cohort, sim_series *out);
void sim_series_free(sim_series *s);

/* A histogram's bins pooled over the completed runs of the experiment
 * (point < 0) or of one point, one cohort: by bin index, each bin's upper
 * edge (NAN for the overflow bin) and summed count, with the smallest and
 * largest observation and the total count. */
typedef struct sim_bins {
    double min, max, total;
    int64_t runs;               /* completed runs that contributed */
    size_t n;
    double *hi, *count;
} sim_bins;
int sim_results_bins(sim_results *db, int64_t exp, int64_t point,
                     const char *metric, const char *cohort, sim_bins *out);
void sim_bins_free(sim_bins *b);

/* ---- replication summaries (table summary) ---- */

typedef struct sim_summary_row {
    int64_t point;
    char metric[160], cohort[64], statistic[16], unit[32];
    int64_t n;
    double mean, stddev, ci_half_width;     /* NAN where not stored */
} sim_summary_row;

/* The experiment's stored summaries, by metric, statistic, point. */
int sim_results_summaries(sim_results *db, int64_t exp,
                          sim_summary_row **rows, size_t *n);

/* ---- whole tables (export) ---- */

enum sim_value_type { SIM_VALUE_NULL, SIM_VALUE_INT, SIM_VALUE_REAL,
                      SIM_VALUE_TEXT, SIM_VALUE_BLOB };

/* One field of a row; text and blob point into the reader's buffer and
 * stay valid only during the callback. */
typedef struct sim_value {
    int type;
    int64_t i;
    double d;
    const void *bytes;          /* TEXT (not NUL-terminated) and BLOB */
    size_t len;
} sim_value;

/* Called once with vals == NULL (the header: column names), then once
 * per row; a nonzero return stops the dump with MTC_ERR_CALLBACK. */
typedef int (*sim_results_row_fn)(void *arg, size_t ncols,
                                  const char *const *names,
                                  const sim_value *vals);

/* What a dump keeps: experiment < 0: all; metrics: comma-separated names
 * or NULL for all; cohort: one label or NULL for all. */
typedef struct sim_results_filter {
    int64_t experiment;
    const char *metrics;
    const char *cohort;
} sim_results_filter;

/* The tables of the database, then the views (scalar_v, vector_v,
 * histogram_v, histogram_bin_v), in that order; *ntables of them are
 * tables. */
int sim_results_table_names(sim_results *db, char (**names)[64], size_t *n,
                            size_t *ntables);

/* The rows of a table, or of a view with each row's experiment, sweep
 * point, replication and swept values (column swept: "name=value ...",
 * then one column per swept parameter of the filter's experiments, named
 * by the parameter or, when two share a name or a view's column has it,
 * KIND.ENTITY.NAME) joined in, that pass the filter. *rows: the
 * number of rows passed to fn. Errors: ARG (unknown table), DB, CALLBACK. */
int sim_results_dump(sim_results *db, const char *table,
                     const sim_results_filter *f, sim_results_row_fn fn,
                     void *arg, int64_t *rows);

#endif
