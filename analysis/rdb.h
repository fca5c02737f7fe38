/*
 * rdb.h - what the analysis commands share around the read API
 * (sim/results_read.h): opening a results database read-only with the
 * command's messages, choosing an experiment, parsing ids, and per-run
 * values of a named statistic.
 *
 * These are program code: they print their messages to stderr prefixed
 * with the command's name, and return HOST_* codes.
 */
#ifndef MTCSIM_RDB_H
#define MTCSIM_RDB_H

#include <stddef.h>
#include <stdint.h>

#include "sim/results.h"
#include "sim/results_read.h"
#include "stats.h"

/* Opens path read-only; on failure prints "mtcsim CMD: message" and
 * returns HOST_USAGE (a missing, foreign or corrupt file is bad input). */
int rdb_open(const char *cmd, const char *path, sim_results **res);

/* The latest experiment id of db, or -1 when there is none. */
int64_t rdb_latest_experiment(sim_results *db);

/* 1 if the experiment exists. */
int rdb_experiment_exists(sim_results *db, int64_t exp);

/* Parses a positive integer option value; prints and returns HOST_USAGE
 * on bad input, HOST_OK otherwise. */
int rdb_parse_id(const char *cmd, const char *opt, const char *v, int64_t *out);

/* Splits "FILE.db:EXP" into path (copied into buf) and experiment (-1 when
 * not given). A suffix that is not a positive integer is part of the
 * path. */
void rdb_split_spec(const char *spec, char *buf, size_t n, int64_t *exp);

/* A statistic of a stored run by the name the run summary prints
 * (stats_value: derived figures, metrics, histogram statistics) of cohort
 * `cohort` ("all" for the total). Writes the value of run_id into *v and
 * returns 1, or 0 when the run lacks it. */
int rdb_run_stat(sim_results *db, int64_t run_id, const char *stat,
                 const char *cohort, double *v);

/* The values of `stat` (with their kinds and counts) at the completed runs
 * of (exp, point) that have it, with their replication and seed (each
 * array malloc'ed; reps and seeds may be NULL). Returns the count. */
size_t rdb_point_vals(sim_results *db, int64_t exp, int64_t point,
                      const char *stat, const char *cohort, stats_val **out,
                      int64_t **reps, int64_t **seeds);

/* Whether `stat` names a statistic of experiment exp (stats_value's
 * names: a derived figure, a metric its runs hold, HISTOGRAM.count|sum|
 * mean|min|max|p50|p90|p99, SERIES.transient|truncation_h): 1 or 0; when
 * 0, the nearest such name within a small edit distance into best ("" if
 * none), for a did-you-mean. */
int rdb_stat_known(sim_results *db, int64_t exp, const char *stat, char *best,
                   size_t n);

/* Completed runs of (exp, point) as (run_id, replication, seed), ordered
 * by replication (a resumed replication counts once: its latest completed
 * run). Arrays malloc'd; returns the count. */
size_t rdb_point_runs(sim_results *db, int64_t exp, int64_t point, int64_t **ids,
                      int64_t **reps, int64_t **seeds);

/* 1 when runs[i] is the first of runs[0..i] with its scenario path,
 * scenario hash and program version (what ls and the report list once
 * each), else 0. */
int rdb_new_provenance(const sim_run_row *runs, size_t i);

#endif
