/*
 * plot_data.c - the numbers of a `mtcsim plot` figure, read from one
 * experiment: which metric (kind, unit, series), and its lines as a series
 * over time with the replication band, a CDF from the histogram bins, or
 * a statistic against the swept parameter with its interval. Separate
 * from drawing (plot_fig.c) and from options (cmd_plot.c).
 *
 * Statistics: only completed runs; bands and error bars are intervals
 * across replications (stats.h: Student-t, a fraction's Wilson interval
 * inside [0, 1]), as the report draws them.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "sim/names.h"
#include "plot_internal.h"
#include "rdb.h"
#include "sim/engine.h"

/* kind, unit and series flag of a stored metric; 1 when found. */
static int metric_info(plot_sel *s, const char *name)
{
    sim_metric_row m;
    if (sim_results_metric_info(s->r.db, s->r.exp, name, &m) != 0 || m.runs == 0)
        return 0;
    snprintf(s->kind, sizeof s->kind, "%s", m.kind);
    snprintf(s->unit, sizeof s->unit, "%s", m.unit);
    s->has_series = m.series;
    return 1;
}

int plot__resolve(plot_sel *s, const char *cmd)
{
    if (!strcmp(s->metric, "signatureless_fraction")) {
        if (!metric_info(s, "handshake_full") ||
            !metric_info(s, "handshake_signatureless")) {
            if (s->quiet)
                return HOST_USAGE;
            fprintf(stderr, "mtcsim %s: signatureless_fraction needs the metrics "
                            "handshake_full and handshake_signatureless, which "
                            "experiment %lld lacks\n", cmd, (long long)s->r.exp);
            return HOST_USAGE;
        }
        snprintf(s->kind, sizeof s->kind, "derived");
        snprintf(s->unit, sizeof s->unit, "fraction");
        return HOST_OK;
    }
    if (metric_info(s, s->metric))
        return HOST_OK;
    /* another figure the statistics module derives (a ratio, a share, a
     * latency change): one value per run, drawn against the sweep or as
     * bars; no series */
    for (size_t i = 0; stats_derived_names[i]; i++)
        if (!strcmp(s->metric, stats_derived_names[i])) {
            if (!metric_info(s, "handshake_full")) {
                if (!s->quiet)
                    fprintf(stderr, "mtcsim %s: %s is a figure of handshakes, and "
                                    "experiment %lld has none\n", cmd, s->metric,
                            (long long)s->r.exp);
                return HOST_USAGE;
            }
            snprintf(s->kind, sizeof s->kind, "statistic");
            snprintf(s->unit, sizeof s->unit, "%s",
                     stats_kind_of(s->metric) == STATS_FRACTION ? "fraction" : "");
            s->has_series = 0;
            return HOST_OK;
        }
    /* "auth_bytes.p99": a histogram and its statistic */
    char *dot = strrchr(s->metric, '.');
    if (dot) {
        *dot = '\0';
        if (metric_info(s, s->metric) && !strcmp(s->kind, "histogram")) {
            snprintf(s->stat, sizeof s->stat, "%s", dot + 1);
            return HOST_OK;
        }
        *dot = '.';
    }
    if (s->quiet)
        return HOST_USAGE;
    char best[200] = "";
    rdb_stat_known(s->r.db, s->r.exp, s->metric, best, sizeof best);
    fprintf(stderr, "mtcsim %s: experiment %lld of %s has no metric '%s'%s%s%s "
                    "(mtcsim ls %s --metrics lists them)\n", cmd,
            (long long)s->r.exp, s->r.dbpath, s->metric,
            best[0] ? " (did you mean '" : "", best, best[0] ? "'?)" : "",
            s->r.dbpath);
    return HOST_USAGE;
}

/* Cohort labels of the metric's breakdown in the experiment's first
 * completed run holding it (cohort_index order); their count. */
size_t plot__cohorts(plot_sel *s, char (*out)[64], size_t max)
{
    const char *m = !strcmp(s->kind, "derived") || !strcmp(s->kind, "statistic")
                        ? "handshake_full"
                        : s->metric;
    int64_t run;
    sim_cohort_row *c;
    size_t nc, n = 0;
    if (sim_results_first_run(s->r.db, s->r.exp, m, 1, &run) != 0 || run < 0 ||
        sim_results_cohorts(s->r.db, run, m, &c, &nc) != 0)
        return 0;
    for (size_t i = 0; i < nc && n < max; i++)
        snprintf(out[n++], 64, "%s", c[i].label);
    free(c);
    return n;
}

void plot__stat_name(const plot_sel *s, char *buf, size_t n)
{
    if (!strcmp(s->kind, "histogram"))
        snprintf(buf, n, "%s.%s", s->metric, s->stat[0] ? s->stat : "mean");
    else
        snprintf(buf, n, "%s", s->metric);
}

/* A line title: "[tag: ][point label][, cohort]". */
static void line_title(const plot_sel *s, size_t p, const char *cohort,
                       char *buf, size_t n)
{
    int pts = s->npoints > 1 || s->r.npoints > 1;
    snprintf(buf, n, "%s%s%s%s", s->tag ? s->tag : "",
             pts ? s->r.label[p] : "", pts && strcmp(cohort, "all") ? ", " : "",
             strcmp(cohort, "all") || !pts ? cohort : "");
}

/* Rescales the y values (or x, for CDFs) of every line to a natural unit
 * of s->unit; returns its label. */
static const char *natural(plot_sel *s, plot_fig *f, int on_x)
{
    double mag = 0;
    for (size_t i = 0; i < f->nlines; i++)
        for (size_t k = 0; k < f->lines[i].n; k++) {
            double v = fabs(on_x ? f->lines[i].rows[k].x : f->lines[i].rows[k].y);
            if (isfinite(v) && v > mag)
                mag = v;
        }
    const char *label;
    double sc = plot__unit_scale(s->unit, mag, &label);
    for (size_t i = 0; sc != 1.0 && i < f->nlines; i++)
        for (size_t k = 0; k < f->lines[i].n; k++) {
            plot_row *r = &f->lines[i].rows[k];
            if (on_x) {
                r->x *= sc;
            } else {
                r->y *= sc;
                r->lo *= sc;
                r->hi *= sc;
            }
        }
    return label;
}

size_t plot__series(plot_sel *s, plot_fig *f)
{
    int frac = !strcmp(s->kind, "derived");
    int counter = !strcmp(s->kind, "counter");
    const char *tu = "hours";
    double scale = 1.0 / (double)SIM_HOUR;
    size_t added = 0;
    int64_t w0 = -1;    /* the first line's window start, for the markers */
    for (size_t pi = 0; pi < s->npoints; pi++) {
        size_t p = s->points[pi];
        int64_t *ids, *reps, *seeds;
        size_t nr = rdb_point_runs(s->r.db, s->r.exp, s->r.points[p], &ids, &reps, &seeds);
        /* each point from the start of its own measured window: points
         * whose warm-ups differ (a steady warm-up grows with the landmark
         * interval) line up, and the warm-up's zeros are left out */
        int64_t w = nr ? report__run_warmup(&s->r, ids[0]) : 0;
        for (size_t c = 0; c < s->ncohorts && nr; c++) {
            series *A = calloc(nr, sizeof *A), *B = calloc(nr, sizeof *B);
            size_t len = SIZE_MAX;
            for (size_t k = 0; A && B && k < nr; k++) {
                report__series_read(&s->r, ids[k], frac ? "handshake_signatureless"
                                                        : s->metric,
                                    s->cohorts[c], &A[k]);
                if (frac)
                    report__series_read(&s->r, ids[k], "handshake_full",
                                        s->cohorts[c], &B[k]);
                len = A[k].n < len ? A[k].n : len;
                len = frac && B[k].n < len ? B[k].n : len;
            }
            char title[200];
            line_title(s, p, s->cohorts[c], title, sizeof title);
            plot_line *l = A && B && len != SIZE_MAX && len > 1
                               ? plot__line(f, "%s (n=%zu)", title, nr) : NULL;
            double *x = l ? malloc(nr * sizeof *x) : NULL;
            if (l && added == 0) {
                scale = report__time_scale(A[0].t[len - 1] - w, &tu);
                w0 = w;
            }
            for (size_t k = x ? report__window_start(&A[0], len, w, counter || frac) : len;
                 k < len; k++) {
                size_t n = 0;
                double dt_h = (double)(A[0].t[k] - (k ? A[0].t[k - 1] : 0)) /
                              (double)SIM_HOUR;
                for (size_t j = 0; j < nr; j++) {
                    if (frac) {
                        double df = B[j].v[k] - B[j].v[k - 1];
                        if (df > 0)
                            x[n++] = (A[j].v[k] - A[j].v[k - 1]) / df;
                    } else if (counter) {
                        if (dt_h > 0)
                            x[n++] = (A[j].v[k] - A[j].v[k - 1]) / dt_h;
                    } else {
                        x[n++] = A[j].v[k];
                    }
                }
                if (!n)
                    continue;
                double m, lo, hi;
                stats_band(x, n, &m, &lo, &hi);
                plot__row(l, (double)(A[0].t[k] - w) * scale, m, lo, hi);
            }
            free(x);
            if (l)
                added++;
            for (size_t k = 0; A && B && k < nr; k++) {
                report__series_free(&A[k]);
                report__series_free(&B[k]);
            }
            free(A);
            free(B);
        }
        free(ids);
        free(reps);
        free(seeds);
    }
    snprintf(f->xlabel, sizeof f->xlabel, REPORT_WINDOW_XLABEL, tu);
    plot__markers(&s->r, f, scale, w0 > 0 ? w0 : 0);
    /* a rate per hour starts at 0, not at its smallest value */
    f->ymin0 = counter;
    f->style = PLOT_BAND;
    return added;
}

/* ---- distributions ---- */

/* Appends the CDF of the pooled bins of the completed runs of point index
 * p (all points when p == SIZE_MAX), cohort label c; 1 when drawn. */
static int cdf_line(plot_sel *s, plot_fig *f, size_t p, const char *c)
{
    int64_t point = p == SIZE_MAX ? -1 : s->r.points[p];
    sim_bins b;
    if (sim_results_bins(s->r.db, s->r.exp, point, s->metric, c, &b) != 0)
        return 0;
    int drawn = 0;
    if (!(b.total > 0))
        goto done;
    char title[200];
    if (p == SIZE_MAX)
        snprintf(title, sizeof title, "%s%s", s->tag ? s->tag : "", c);
    else
        line_title(s, p, c, title, sizeof title);
    plot_line *l = plot__line(f, "%s (n=%lld)", title, (long long)b.runs);
    if (!l)
        goto done;
    plot__row(l, b.min, 0, 0, 0);
    double cum = 0;
    for (size_t i = 0; i < b.n; i++) {
        cum += b.count[i];
        double x = isnan(b.hi[i]) ? b.max : b.hi[i];
        x = x > b.max ? b.max : x < b.min ? b.min : x;
        plot__row(l, x, cum / b.total, cum / b.total, cum / b.total);
    }
    drawn = 1;
done:
    sim_bins_free(&b);
    return drawn;
}

size_t plot__cdf(plot_sel *s, plot_fig *f)
{
    size_t added = 0;
    for (size_t pi = 0; pi < s->npoints; pi++)
        for (size_t c = 0; c < s->ncohorts; c++)
            added += (size_t)cdf_line(s, f, s->points[pi], s->cohorts[c]);
    f->style = PLOT_LINES;
    return added;
}

/* ---- against the swept parameter ---- */

size_t plot__sweep(plot_sel *s, plot_fig *f)
{
    size_t added = 0;
    int bars = !s->r.x_numeric;
    /* one point, several cohorts: the cohorts are the categories */
    int by_cohort = bars && s->npoints == 1 && s->ncohorts > 1;
    const char *xu = bars ? "" : report__swept_unit(&s->r);
    const char *xlab = "";
    double mx = 0;
    for (size_t i = 0; i < s->npoints; i++)
        mx = fabs(s->r.xval[s->points[i]]) > mx ? fabs(s->r.xval[s->points[i]]) : mx;
    double xs = xu[0] ? plot__unit_scale(xu, mx, &xlab) : 1.0;
    size_t nlines = by_cohort ? 1 : s->ncohorts;
    size_t ncat = by_cohort ? s->ncohorts : s->npoints;
    for (size_t c = 0; c < nlines; c++) {
        plot_line *l = by_cohort
            ? plot__line(f, "%s%s", s->tag ? s->tag : "", s->r.label[s->points[0]])
            : plot__line(f, "%s%s", s->tag ? s->tag : "", s->cohorts[c]);
        if (!l)
            break;
        for (size_t i = 0; i < ncat; i++) {
            size_t p = s->points[by_cohort ? 0 : i];
            const char *coh = s->cohorts[by_cohort ? i : c];
            char stat[200];
            stats_interval ci;
            plot__stat_name(s, stat, sizeof stat);
            report__point_ci(&s->r, stat, coh, s->r.points[p], &ci);
            if (ci.n)
                plot__row(l, bars ? (double)i : s->r.xval[p] * xs, ci.mean, ci.lo,
                          ci.hi);
        }
        added++;
    }
    if (bars) {
        f->nxtics = ncat < 64 ? ncat : 64;
        for (size_t i = 0; i < f->nxtics; i++)
            snprintf(f->xtics[i], sizeof f->xtics[i], "%s",
                     by_cohort ? s->cohorts[i] : s->r.label[s->points[i]]);
    }
    if (bars)
        snprintf(f->xlabel, sizeof f->xlabel, by_cohort ? "cohort" : "sweep point");
    else if (xu[0])
        snprintf(f->xlabel, sizeof f->xlabel, "%s (%s)", s->r.xname, xlab);
    else
        snprintf(f->xlabel, sizeof f->xlabel, "%s", s->r.xname);
    if (!bars && s->npoints > 2) {
        double lo = INFINITY, hi = 0;
        for (size_t i = 0; i < s->npoints; i++) {
            lo = s->r.xval[s->points[i]] < lo ? s->r.xval[s->points[i]] : lo;
            hi = s->r.xval[s->points[i]] > hi ? s->r.xval[s->points[i]] : hi;
        }
        f->logx = lo > 0 && hi / lo >= 20;
    }
    f->style = bars ? PLOT_BARS : PLOT_ERRORBARS;
    return added;
}

void plot__finish(plot_sel *s, plot_fig *f, int view)
{
    char stat[200];
    plot__stat_name(s, stat, sizeof stat);
    int frac = !strcmp(s->kind, "derived");
    if (view == VIEW_SERIES) {
        if (frac)
            snprintf(f->ylabel, sizeof f->ylabel, "signatureless fraction per grid interval");
        else if (!strcmp(s->kind, "counter"))
            snprintf(f->ylabel, sizeof f->ylabel, "%s per hour (%s)", s->metric, s->unit);
        else
            snprintf(f->ylabel, sizeof f->ylabel, "%s (%s)", s->metric,
                     natural(s, f, 0));
    } else if (view == VIEW_CDF) {
        double mn = INFINITY, mx = 0;
        for (size_t i = 0; i < f->nlines; i++)
            for (size_t k = 0; k < f->lines[i].n; k++) {
                double x = f->lines[i].rows[k].x;
                mn = x < mn ? x : mn;
                mx = x > mx ? x : mx;
            }
        /* log bins: a log axis when the values span two decades or more;
         * durations on it keep seconds, with tics at 1 s, 1 min, 1 h... */
        f->logx = mn > 0 && mx / mn >= 100;
        f->time_tics = f->logx && !strcmp(s->unit, "s");
        const char *u = f->time_tics ? "log scale" : natural(s, f, 1);
        snprintf(f->xlabel, sizeof f->xlabel, "%s (%s)", s->metric, u);
        snprintf(f->ylabel, sizeof f->ylabel, "fraction of observations <= x");
    } else {
        const char *u = frac ? "fraction" : natural(s, f, 0);
        /* a ratio or a change has no unit: no empty "()" */
        snprintf(f->ylabel, sizeof f->ylabel, u[0] ? "%s (%s)" : "%s%s", stat, u);
    }
}

void plot__markers(report *r, plot_fig *f, double scale, int64_t from_us)
{
    sim_attr_row *a;
    size_t n;
    if (sim_results_attrs(r->db, r->exp, "action.", 1, &a, &n) != 0)
        return;
    for (size_t i = 0; i < n && f->nmarkers < 32; i++) {
        /* "T ACTION TARGET [ARGS]" (lrecord.h) */
        char action[64], target[64];
        double t;
        if (sscanf(a[i].value, "%lf %63s %63s", &t, action, target) != 3)
            continue;
        /* on an axis from from_us (the measured window's start); an action
         * before it is off the figure */
        double x = (t * 1e6 - (double)from_us) * scale;
        if (x < 0)
            continue;
        int dup = 0;
        for (size_t k = 0; k < f->nmarkers && !dup; k++)
            dup = f->markers[k].x == x;
        if (dup)
            continue;
        plot_marker *m = &f->markers[f->nmarkers++];
        m->x = x;
        snprintf(m->label, sizeof m->label, "%.40s %.40s", action, target);
    }
    free(a);
}
