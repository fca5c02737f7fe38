/*
 * report_cohorts.c - the parts of `mtcsim report` that look inside a
 * sweep and a population: the signatureless fraction per browser cohort
 * (figure and summary rows), and each sweep point's paired difference to a
 * reference point.
 *
 * Why paired differences: the runs of every sweep point use the same seeds
 * and replications (common random numbers), so a point and the reference
 * see the same traffic; the difference of each pair cancels most of the
 * noise, and its interval is far narrower than the two means' intervals
 * suggest. Unpaired runs fall back to Welch's interval (diffci.h).
 * These figures are drawn with the `mtcsim plot` machinery (plot_*.c): one
 * self-contained script beside each image, NAME.png.gp and NAME.svg.gp.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diffci.h"
#include "plot_internal.h"
#include "rdb.h"

/* A plot selection over the report's experiment (sharing its points). */
static plot_sel *sel_of(report *r, const char *metric)
{
    plot_sel *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->r = *r;
    s->quiet = 1;
    snprintf(s->metric, sizeof s->metric, "%s", metric);
    if (plot__resolve(s, "report") != 0) {
        free(s);
        return NULL;
    }
    for (size_t p = 0; p < r->npoints && p < PLOT_MAX_POINTS; p++)
        s->points[s->npoints++] = p;
    return s;
}

/* Data file, PNG and SVG of f as figure g. */
static void draw(report *r, figure *g, plot_fig *f)
{
    char p[4200];
    snprintf(p, sizeof p, "%s.dat", g->name);
    FILE *d = report__open_in(r, "data", p, "w");
    if (d) {
        plot__print(f, d);
        fclose(d);
    }
    int ok = 1;
    for (int k = 0; k < 2 && ok; k++) {
        snprintf(p, sizeof p, "%s/%s.%s", r->out, g->name, k ? "svg" : "png");
        ok = plot__draw(f, p, "report") == 0;
    }
    if (ok) {
        g->drawn = 1;
    } else {
        report__fig_note(g, "gnuplot failed (see %s.png.gp). ", g->name);
        r->failures++;
    }
}

void report__fig_cohorts(report *r)
{
    plot_sel *s = sel_of(r, "signatureless_fraction");
    char(*c)[64] = calloc(PLOT_MAX_LINES, 64);
    size_t n = s && c ? plot__cohorts(s, c, PLOT_MAX_LINES) : 0;
    if (n < 2) {   /* no breakdown: the total is the fraction figure */
        free(s);
        free(c);
        return;
    }
    figure *g = report__fig_new(r, "fraction_by_cohort",
                                "Signatureless fraction per browser cohort");
    int sweep = r->npoints > 1;
    snprintf(g->caption, sizeof g->caption,
             "Signatureless fraction of each browser cohort's full handshakes "
             "(handshake_signatureless / handshake_full of the cohort), %s, "
             "mean over the completed replications with %.0f %% Student-t "
             "%s.", sweep ? "against the swept parameter" : "per grid interval",
             100 * CI_LEVEL, sweep ? "error bars" : "bands");
    for (size_t i = 0; i < n; i++)
        snprintf(s->cohorts[s->ncohorts++], 64, "%s", c[i]);
    plot_fig *f = calloc(1, sizeof *f);
    if (f) {
        if (!sweep)
            s->npoints = 1;
        int view = sweep ? VIEW_SWEEP : VIEW_SERIES;
        if (sweep)
            plot__sweep(s, f);
        else
            plot__series(s, f);
        if (plot__prune(f) == 0) {
            report__fig_note(g, "Not drawn: no cohort has full handshakes.");
        } else {
            plot__finish(s, f, view);
            snprintf(f->title, sizeof f->title, "%s", g->title);
            draw(r, g, f);
        }
        plot__fig_free(f);
    }
    free(f);
    free(s);
    free(c);
}

/* The values of `stat` at point p with their (replication, seed). */
static size_t values(report *r, size_t p, const char *stat, double **v,
                     int64_t **reps, int64_t **seeds)
{
    int64_t *ids;
    size_t nr = rdb_point_runs(r->db, r->exp, r->points[p], &ids, reps, seeds);
    *v = malloc((nr ? nr : 1) * sizeof **v);
    size_t n = 0;
    for (size_t k = 0; *v && k < nr; k++) {
        double x;
        if (rdb_run_stat(r->db, ids[k], stat, "all", &x)) {
            (*v)[n] = x;
            (*reps)[n] = (*reps)[k];
            (*seeds)[n] = (*seeds)[k];
            n++;
        }
    }
    free(ids);
    return *v ? n : 0;
}

/* Point p minus the reference point: paired on (replication, seed) when
 * every run has its partner, Welch otherwise. */
static int diff_to_ref(report *r, size_t p, const char *stat, diffci *d)
{
    double *a, *b;
    int64_t *ra, *sa, *rb, *sb;
    size_t na = values(r, r->ref, stat, &a, &ra, &sa);
    size_t nb = values(r, p, stat, &b, &rb, &sb);
    int ok = na && nb;
    if (ok)
        diffci_matched(a, ra, sa, na, b, rb, sb, nb, CI_LEVEL, d);
    free(a);
    free(b);
    free(ra);
    free(sa);
    free(rb);
    free(sb);
    return ok;
}

static void fig_diff(report *r, const char *name, const char *stat,
                     const char *what, const char *unit)
{
    figure *g = report__fig_new(r, name, "");
    snprintf(g->title, sizeof g->title, "%s: difference to %s", what,
             r->label[r->ref]);
    snprintf(g->caption, sizeof g->caption,
             "%s of each sweep point minus that of the reference point %s, "
             "paired by replication: every point runs the same seeds "
             "(common random numbers), so each pair's difference cancels "
             "most of the noise. Error bars: %.0f %% interval of the mean "
             "paired difference (Welch's interval when the runs do not "
             "pair). Choose the reference with --reference K.",
             what, r->label[r->ref], 100 * CI_LEVEL);
    plot_sel *s = sel_of(r, stat);   /* only to know the metric is there */
    plot_fig *f = calloc(1, sizeof *f);
    if (!s || !f) {
        report__fig_note(g, "Not drawn: %s is missing from this experiment's "
                            "completed runs.", stat);
        free(s);
        free(f);
        return;
    }
    /* the sweep axis in its natural unit; text values as bars */
    int bars = !r->x_numeric;
    double xs = report__sweep_axis(r, f->xlabel, sizeof f->xlabel);
    plot_line *l = plot__line(f, "difference");
    size_t paired = 0, rows = 0;
    for (size_t p = 0; l && p < r->npoints; p++) {
        diffci d;
        if (!diff_to_ref(r, p, stat, &d))
            continue;
        paired += d.method == DIFF_PAIRED;
        plot__row(l, bars ? (double)p : r->xval[p] * xs, d.diff, d.lo, d.hi);
        rows++;
    }
    if (bars) {
        f->nxtics = r->npoints < 64 ? r->npoints : 64;
        for (size_t p = 0; p < f->nxtics; p++)
            snprintf(f->xtics[p], sizeof f->xtics[p], "%s", r->label[p]);
        snprintf(f->xlabel, sizeof f->xlabel, "sweep point");
    }
    f->style = bars ? PLOT_BARS : PLOT_ERRORBARS;
    if (!l) {
        free(s);
        free(f);
        return;
    }
    snprintf(l->title, sizeof l->title, "minus %s (%s)", r->label[r->ref],
             paired ? "paired" : "Welch");
    if (rows < 2) {
        report__fig_note(g, "Not drawn: fewer than two sweep points have %s.", stat);
    } else {
        snprintf(f->ylabel, sizeof f->ylabel, "difference of %s (%s)", stat, unit);
        snprintf(f->title, sizeof f->title, "%s", g->title);
        draw(r, g, f);
    }
    plot__fig_free(f);
    free(f);
    free(s);
}

void report__fig_diffs(report *r)
{
    if (r->npoints < 2)
        return;
    if (report__have_metric(r, "handshake_full"))
        fig_diff(r, "diff_fraction", "signatureless_fraction",
                 "Signatureless fraction", "fraction");
    if (report__have_metric(r, "auth_bytes"))
        fig_diff(r, "diff_auth_bytes", "auth_bytes.mean",
                 "Mean authentication bytes", "bytes");
}

void report__html_cohorts(report *r, FILE *h)
{
    plot_sel *s = sel_of(r, "signatureless_fraction");
    char(*c)[64] = calloc(PLOT_MAX_LINES, 64);
    size_t n = s && c ? plot__cohorts(s, c, PLOT_MAX_LINES) : 0;
    if (n >= 2) {
        fprintf(h, "<h2>Per cohort</h2>\n<p>Each browser cohort's signatureless "
                   "fraction and mean authentication bytes per full handshake: "
                   "mean over completed replications and the %.0f %% interval "
                   "(the fraction's Wilson interval, the bytes' Student-t "
                   "half-width).</p>\n<table>\n<tr><th>sweep "
                   "point</th><th>cohort</th><th>n</th><th>signatureless "
                   "fraction</th><th>CI</th><th>auth bytes mean</th>"
                   "<th>CI</th></tr>\n", 100 * CI_LEVEL);
        static const char *const stats[] = {"signatureless_fraction", "auth_bytes.mean"};
        for (size_t p = 0; p < r->npoints; p++)
            for (size_t i = 0; i < n; i++) {
                fputs("<tr><td>", h);
                report__html_text(h, r->label[p]);
                fputs("</td><td>", h);
                report__html_text(h, c[i]);
                size_t nrun = 0;
                char cells[2][160];
                for (int k = 0; k < 2; k++) {
                    stats_interval ci;
                    report__point_ci(r, stats[k], c[i], r->points[p], &ci);
                    char m[40], iv[96];
                    stats_format_value(ci.mean, ci.kind, m, sizeof m);
                    stats_format_ci(&ci, iv, sizeof iv);
                    if (ci.n)
                        snprintf(cells[k], sizeof cells[k], "<td>%s</td><td>%s</td>", m,
                                 ci.n > 1 ? iv : "(n=1)");
                    else
                        snprintf(cells[k], sizeof cells[k], "<td></td><td></td>");
                    nrun = ci.n > nrun ? ci.n : nrun;
                }
                fprintf(h, "</td><td>%zu</td>%s%s</tr>\n", nrun, cells[0], cells[1]);
            }
        fputs("</table>\n", h);
    }
    free(s);
    free(c);
}
