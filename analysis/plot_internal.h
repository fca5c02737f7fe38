/*
 * plot_internal.h - what `mtcsim plot` and `mtcsim compare` share (internal
 * to lua/commands/): a figure as lines of (x, y, lo, hi) rows, the way a
 * metric is selected from an experiment, and the functions that fill a
 * figure from the database and draw it with gnuplot.
 *
 * A figure is drawn from one self-contained gnuplot script (its numbers
 * inline as datablocks), written beside the image as IMAGE.gp, so that
 * `gnuplot IMAGE.gp` redraws it by hand, anywhere.
 */
#ifndef MTCSIM_PLOT_INTERNAL_H
#define MTCSIM_PLOT_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "report_internal.h"

#define PLOT_MAX_LINES 16
#define PLOT_MAX_POINTS 1024

typedef struct plot_row {
    double x, y, lo, hi;    /* lo = hi = y without an interval */
} plot_row;

typedef struct plot_line {
    char title[200];
    plot_row *rows;
    size_t n, cap;
} plot_line;

enum plot_style {
    PLOT_BAND,       /* line with a filled confidence band (series) */
    PLOT_LINES,      /* plain lines (CDFs) */
    PLOT_ERRORBARS,  /* points with error bars joined by lines (sweeps) */
    PLOT_BARS        /* bars with error bars at categories 0..n-1 */
};

/* A vertical marker: a what-if action at simulated time x. */
typedef struct plot_marker {
    double x;
    char label[96];
} plot_marker;

typedef struct plot_fig {
    char title[256], xlabel[320], ylabel[320];
    int style;
    int logx;
    int time_tics;          /* x is seconds on a log axis: 1 s, 1 min, 1 h... */
    plot_line lines[PLOT_MAX_LINES];
    size_t nlines;
    char xtics[64][64];     /* PLOT_BARS: category labels at x = 0, 1, ... */
    size_t nxtics;
    plot_marker markers[32];
    size_t nmarkers;
    double xmark;           /* > 0: a dashed "warm-up end" line at this x */
    int ymin0;              /* the y axis starts at 0 (rates, counts) */
    char note[512];         /* what was left out, for the caller to print */
} plot_fig;

/* How a metric is drawn (mtcsim plot --as). */
enum plot_view { VIEW_AUTO, VIEW_SERIES, VIEW_CDF, VIEW_SWEEP, VIEW_BARS };

/* A metric of one experiment and which of its lines to draw. */
typedef struct plot_sel {
    report r;               /* db, experiment, sweep points (report__load_points) */
    char metric[160];       /* a metric name, or "signatureless_fraction" */
    char kind[16];          /* counter, gauge, histogram, derived */
    char unit[32];
    int has_series;
    char stat[16];          /* histogram statistic for sweeps: mean, p99... */
    size_t points[PLOT_MAX_POINTS]; /* selected: indices into r.points */
    size_t npoints;
    char cohorts[PLOT_MAX_LINES][64];
    size_t ncohorts;
    const char *tag;        /* prefix of line titles ("A: "), or NULL */
    int quiet;              /* plot__resolve prints nothing */
} plot_sel;

/* plot_fig.c: figures */

/* A new line titled `title` (printf); NULL when the figure is full. */
plot_line *plot__line(plot_fig *f, const char *fmt, ...);
/* Appends a row; -1 on out of memory. */
int plot__row(plot_line *l, double x, double y, double lo, double hi);
/* Drops the lines without rows; the number left. */
size_t plot__prune(plot_fig *f);
/* No legend entry twice: a line with the title and rows of an earlier
 * one is dropped, one with its title and other rows gets " (2)", " (3)"...
 * Returns the number of lines left. */
size_t plot__dedupe(plot_fig *f);
/* Frees the rows of every line. */
void plot__fig_free(plot_fig *f);
/* Natural unit of values in `unit` whose magnitude is about `mag`: the
 * factor to multiply by and the label ("hours", "MB", or unit itself). */
double plot__unit_scale(const char *unit, double mag, const char **label);
/* Prints the figure's numbers: one block per line, "# title" then rows. */
void plot__print(const plot_fig *f, FILE *out);
/* Writes OUT.gp (the script with the data inline) and runs gnuplot on it
 * to draw OUT (.png or .svg by its extension). 0, or -1 with a message
 * printed (prefixed "mtcsim CMD: "). */
int plot__draw(const plot_fig *f, const char *out, const char *cmd);

/* plot_data.c: from the database */

/* Resolves sel->metric in the experiment: kind, unit, series; prints and
 * returns HOST_USAGE when absent (with a suggestion). */
int plot__resolve(plot_sel *s, const char *cmd);
/* The cohort labels of the metric's breakdown (cohort_index order) in the
 * experiment's first completed run holding it; their count (0: total only). */
size_t plot__cohorts(plot_sel *s, char (*out)[64], size_t max);
/* The lines of each view, appended to f; the number of lines added. */
size_t plot__series(plot_sel *s, plot_fig *f);
size_t plot__cdf(plot_sel *s, plot_fig *f);
size_t plot__sweep(plot_sel *s, plot_fig *f);
/* Natural units and axis labels once every line is in (all lines of f are
 * rescaled together, so overlaid experiments share one unit). */
void plot__finish(plot_sel *s, plot_fig *f, int view);
/* The statistic a sweep or bar view draws ("auth_bytes.mean", "log_entries"). */
void plot__stat_name(const plot_sel *s, char *buf, size_t n);
/* The sim:at actions recorded for the experiment's runs, as markers (time
 * scaled by `scale`); none for databases without the table. */
void plot__markers(report *r, plot_fig *f, double scale, int64_t from_us);
/* "set xtics" of durations (1 ms .. 1 y) for a log axis of seconds. */
void plot__time_tics(FILE *g);
/* The gnuplot commands drawing f's warm-up line and markers. */
void plot__write_markers(FILE *g, const plot_fig *f);

#endif
