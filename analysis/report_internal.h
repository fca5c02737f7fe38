/*
 * report_internal.h - what the files of `mtcsim report` share (internal
 * to lua/commands/; the command is cmd_report in host.h): the report and
 * figure state, and the functions one file keeps for the others.
 */
#ifndef MTCSIM_REPORT_INTERNAL_H
#define MTCSIM_REPORT_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "sim/results_read.h"

#include "stats.h"

#define CI_LEVEL STATS_LEVEL   /* of every band and interval (stats.h) */

/* One figure of the page: drawn (PNG + SVG exist), or a note says why not. */
typedef struct figure {
    char name[48];
    char title[160];
    char caption[1024];
    char note[512];     /* why it is missing / partial, or "" */
    int drawn;
} figure;

/* The state of one report: database, experiment, sweep points, figures. */
typedef struct report {
    sim_results *db;
    const char *dbpath, *out;
    int64_t exp;
    int quiet;
    /* sweep points of the experiment */
    size_t npoints;
    int64_t *points;
    char (*label)[128];     /* "landmark_interval=3600" or "point 0" */
    double *xval;           /* value of the first swept parameter */
    int x_numeric;
    char xname[128];        /* name of the first swept parameter, or "" */
    size_t ref;             /* index of the reference point (--reference) */
    figure figs[16];
    size_t nfigs;
    int failures;
} report;

/* A metric's series of one run: n points (t, v) in grid order. */
typedef sim_series series;

/* cmd_report.c: the command and its output directory */

/* fopen of r->out/SUB/NAME (r->out/NAME when SUB is ""). */
FILE *report__open_in(const report *r, const char *sub, const char *name,
                      const char *mode);

/* report_data.c: reading the database, and the statistics of a figure */

/* Number of completed runs of the experiment that hold metric `name`. */
int64_t report__have_metric(report *r, const char *name);
/* Completed runs of a sweep point (replication order). Caller frees. */
size_t report__point_runs(report *r, int64_t point, int64_t **ids);
/* Frees the arrays of a series read by report__series_read. */
void report__series_free(series *s);
/* The series of metric `name`, cohort label `cohort` ("all": the total)
 * of a run; 0, or -1 when it cannot be read. */
int report__series_read(report *r, int64_t run, const char *name,
                        const char *cohort, series *s);
/* Time axis: days for spans of 3 days or more, else hours. */
double report__time_scale(int64_t span_us, const char **unit);
/* Fills r->npoints, points, label, xval, x_numeric, xname; 0 or -1. */
int report__load_points(report *r);
/* The interval over the completed runs of a point of statistic `stat`
 * (stats_value names) of cohort `cohort` (stats_summarize: Student-t,
 * Wilson for a fraction); ci->n = 0 when no run has it. */
void report__point_ci(report *r, const char *stat, const char *cohort,
                      int64_t point, stats_interval *ci);
/* "s" when the first swept parameter is a duration in seconds (an entity
 * parameter of duration type takes exactly its values at every point),
 * else "": the unit of the sweep axis. */
const char *report__swept_unit(report *r);
/* The sweep axis of a sweep's figures in its natural unit (hours, days
 * rather than seconds): returns the scale from the swept values to it and
 * writes its label, "NAME (UNIT)" or "NAME", into xlabel[0..n). Text
 * values (categories): scale 1, label NAME. */
double report__sweep_axis(report *r, char *xlabel, size_t n);
/* A run's end of warm-up (us; 0 when not stored): where its measured
 * window starts, the origin of its series in the figures. */
int64_t report__run_warmup(report *r, int64_t run);
/* The first grid index k of series s inside the measured window from w:
 * for a level, t[k] >= w; for an interval (rate: k-1 to k, rate = 1),
 * t[k-1] >= w, never below 1. */
size_t report__window_start(const series *s, size_t len, int64_t w, int rate);
/* The x axis label of a series figure cropped to the measured window. */
#define REPORT_WINDOW_XLABEL "time since the start of the measured window (%s)"

/* report_gnuplot.c: gnuplot scripts, settings and runs */

/* Text safe inside a gnuplot double-quoted column header. */
void report__gp_label(char *dst, size_t n, const char *src);
/* Writes gp/NAME.vars.gp, the settings of figure g; 0 or -1. */
int report__write_vars(report *r, const figure *g, size_t nblocks,
                       const char *xlabel, const char *ylabel, int logx);
/* gnuplot on g with gp/SCRIPT: 0 and g->drawn when both images exist, else -1. */
int report__run_gnuplot(report *r, figure *g, const char *script);
/* Writes the embedded analysis scripts into gp/; 0 or -1. */
int report__write_scripts(report *r);

/* report_figures.c: the figures of a report */

/* Appends a figure (no caption, no note, not drawn) to r->figs. */
figure *report__fig_new(report *r, const char *name, const char *title);
/* Appends printf-formatted text to the note of figure g. */
void report__fig_note(figure *g, const char *fmt, ...);
/* Every figure, in report order: data, settings and images, or a note. */
void report__figures(report *r);

/* report_cohorts.c: per cohort, and differences to a reference point */

/* The signatureless fraction per browser cohort (when there are several). */
void report__fig_cohorts(report *r);
/* Each sweep point's paired difference to the reference point. */
void report__fig_diffs(report *r);
/* The per-cohort summary table of index.html (nothing without cohorts). */
void report__html_cohorts(report *r, FILE *h);

/* report_html.c: the page */

/* HTML-escaped text. */
void report__html_text(FILE *f, const char *s);

/* Writes r->out/index.html: provenance, figures, summary and runs; 0 or -1. */
int report__write_html(report *r);

/* report_transient.c: the steady-state check */
/* Writes the MSER-5 verdicts of every completed run's headline series. */
void report__html_transients(report *r, FILE *h);

#endif
