/*
 * report_figures.c - the figures of `mtcsim report`: which ones, in which
 * order, their captions, their numbers in DIR/data/<figure>.dat, or the note
 * saying why one is left out. Separate from the queries (report_data.c),
 * gnuplot (report_gnuplot.c) and the page (report_html.c).
 */
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plot_internal.h"
#include "report_internal.h"
#include "sim/engine.h"

#define MAX_LINES 16      /* lines per figure (sweep points, signers) */

/* ---- figure records ---- */

figure *report__fig_new(report *r, const char *name, const char *title)
{
    figure *g = &r->figs[r->nfigs++];
    memset(g, 0, sizeof *g);
    snprintf(g->name, sizeof g->name, "%s", name);
    snprintf(g->title, sizeof g->title, "%s", title);
    return g;
}

void report__fig_note(figure *g, const char *fmt, ...)
{
    size_t n = strlen(g->note);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(g->note + n, sizeof g->note - n, fmt, ap);
    va_end(ap);
}

/* Appends to gp/NAME.vars.gp the scenario's sim:at actions (markers on a
 * time axis from the measured window's start `from_us`, scaled by `scale`
 * per microsecond), and with ymin0 a y axis from 0 (rates). */
static void vars_markers(report *r, const figure *g, double scale, int64_t from_us,
                         int ymin0)
{
    plot_fig *f = calloc(1, sizeof *f);
    char fn[96];
    snprintf(fn, sizeof fn, "%s.vars.gp", g->name);
    FILE *v = f ? report__open_in(r, "gp", fn, "a") : NULL;
    if (v) {
        plot__markers(r, f, scale, from_us);
        plot__write_markers(v, f);
        if (ymin0)
            fputs("set yrange [0:*]\n", v);
        fclose(v);
    }
    free(f);
}

/* Whether every metric of need[0..n) is in the experiment's completed
 * runs; if not, g's note says which is missing. */
static int have_metrics(report *r, figure *g, const char *const *need, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!report__have_metric(r, need[i])) {
            report__fig_note(g, "Not drawn: metric %s is missing from this "
                                "experiment's completed runs.", need[i]);
            return 0;
        }
    return 1;
}

/* DIR/data/NAME.dat of figure g, opened for writing; NULL on failure. */
static FILE *open_data(report *r, const figure *g)
{
    char fn[96];
    snprintf(fn, sizeof fn, "%s.dat", g->name);
    return report__open_in(r, "data", fn, "w");
}

/* The note of a figure drawn for the first MAX_LINES sweep points only. */
static void note_points_cut(report *r, figure *g)
{
    if (r->npoints > MAX_LINES)
        report__fig_note(g, "Only the first %d of %zu sweep points are drawn. ",
                         MAX_LINES, r->npoints);
}

/* Settings and images of a figure of nblocks lines over the measured
 * window (x in `unit`, `scale` per microsecond from w0), with the
 * scenario's sim:at markers and, with ymin0, a y axis from 0. */
static void draw_over_window(report *r, figure *g, size_t nblocks,
                             const char *unit, double scale, int64_t w0,
                             const char *ylabel, int ymin0, const char *script)
{
    char xl[96];
    snprintf(xl, sizeof xl, REPORT_WINDOW_XLABEL, unit);
    if (report__write_vars(r, g, nblocks, xl, ylabel, 0) == 0) {
        vars_markers(r, g, scale, w0, ymin0);
        report__run_gnuplot(r, g, script);
    }
}

/* ---- figures ---- */

static void fig_fraction(report *r)
{
    figure *g = report__fig_new(r, "fraction", "Signatureless fraction over time");
    snprintf(g->caption, sizeof g->caption,
             "Fraction of full handshakes in each grid interval that used a "
             "landmark-relative (signatureless) certificate "
             "(handshake_signatureless / handshake_full, all cohorts). Line: "
             "mean over the completed replications of each sweep point; "
             "band: %.0f %% Student-t confidence interval across "
             "replications (absent with one replication). Time runs from "
             "the start of each point's measured window (the warm-up, "
             "whose length may differ between points, is left out). "
             "Dashed: the scenario's sim:at actions.",
             100 * CI_LEVEL);
    const char *need[] = {"handshake_full", "handshake_signatureless"};
    if (!have_metrics(r, g, need, 2))
        return;
    FILE *f = open_data(r, g);
    if (!f)
        return;
    size_t nblocks = 0, rows = 0;
    const char *unit = "hours";
    double scale = 1.0 / (double)SIM_HOUR;
    int64_t w0 = 0;
    for (size_t p = 0; p < r->npoints && nblocks < MAX_LINES; p++) {
        int64_t *ids;
        size_t nr = report__point_runs(r, r->points[p], &ids);
        int64_t w = nr ? report__run_warmup(r, ids[0]) : 0;
        series *S = calloc(nr ? nr : 1, sizeof *S), *F = calloc(nr ? nr : 1, sizeof *F);
        size_t len = SIZE_MAX;
        for (size_t k = 0; S && F && k < nr; k++) {
            report__series_read(r, ids[k], "handshake_signatureless", "all", &S[k]);
            report__series_read(r, ids[k], "handshake_full", "all", &F[k]);
            len = S[k].n < len ? S[k].n : len;
            len = F[k].n < len ? F[k].n : len;
        }
        if (S && F && nr > 0 && len != SIZE_MAX && len > 0) {
            if (nblocks == 0) {
                scale = report__time_scale(F[0].t[len - 1] - w, &unit);
                w0 = w;
            }
            char lab[160];
            report__gp_label(lab, sizeof lab, r->label[p]);
            fprintf(f, "%s\"%s (n=%zu)\" \"mean\" \"lo\" \"hi\"\n",
                    nblocks ? "\n\n" : "", lab, nr);
            double *x = malloc(nr * sizeof *x);
            for (size_t k = x ? report__window_start(&F[0], len, w, 1) : len; k < len;
                 k++) {
                size_t n = 0;
                for (size_t j = 0; j < nr; j++) {
                    double ds = S[j].v[k] - S[j].v[k - 1];
                    double df = F[j].v[k] - F[j].v[k - 1];
                    if (df > 0)
                        x[n++] = ds / df;
                }
                if (n == 0)
                    continue;
                double m, lo, hi;
                stats_band(x, n, &m, &lo, &hi);
                fprintf(f, "%.10g %.10g %.10g %.10g\n", (double)(F[0].t[k] - w) * scale,
                        m, lo < 0 ? 0 : lo, hi > 1 ? 1 : hi);
                rows++;
            }
            free(x);
            nblocks++;
        }
        for (size_t k = 0; S && F && k < nr; k++) {
            report__series_free(&S[k]);
            report__series_free(&F[k]);
        }
        free(S);
        free(F);
        free(ids);
    }
    fclose(f);
    note_points_cut(r, g);
    if (nblocks == 0) {
        report__fig_note(g, "Not drawn: the metrics have no series (created without "
                            "SIM_METRIC_SERIES, or no grid).");
        return;
    }
    if (rows == 0) {
        report__fig_note(g, "Not drawn: no grid interval has a full handshake "
                            "(a world without browsers?).");
        return;
    }
    draw_over_window(r, g, nblocks, unit, scale, w0, "signatureless fraction", 0,
                     "fraction.gp");
}

/* Writes the CDF of metric `name` pooled over the completed runs of the
 * experiment (point < 0) or of one point, as a data block. Returns 1 when
 * a block was written. *allpos: all x > 0 (log scale possible); [*xlo,
 * *xhi] grows to the block's observations (the figure's x range). */
static int cdf_block(report *r, FILE *f, const char *name, int64_t point,
                     const char *label, size_t *nblocks, int *allpos, double xs,
                     double *xlo, double *xhi)
{
    sim_bins b;
    if (sim_results_bins(r->db, r->exp, point, name, "all", &b) != 0)
        return 0;
    if (!(b.total > 0)) {
        sim_bins_free(&b);
        return 0;
    }
    double mn = b.min, mx = b.max;
    char lab[160];
    report__gp_label(lab, sizeof lab, label);
    fprintf(f, "%s\"%s\" \"F\"\n", *nblocks ? "\n\n" : "", lab);
    fprintf(f, "%.10g 0\n", mn * xs);
    if (!(mn > 0))
        *allpos = 0;
    if (mn * xs < *xlo)
        *xlo = mn * xs;
    if (mx * xs > *xhi)
        *xhi = mx * xs;
    double cum = 0;
    for (size_t i = 0; i < b.n; i++) {
        cum += b.count[i];
        double x = isnan(b.hi[i]) ? mx : b.hi[i];
        if (x > mx)
            x = mx;
        if (x < mn)
            x = mn;
        fprintf(f, "%.10g %.10g\n", x * xs, cum / b.total);
    }
    (*nblocks)++;
    sim_bins_free(&b);
    return 1;
}

typedef struct cdf_line {
    const char *metric;
    int per_point;      /* one line per sweep point when there is a sweep */
    int required;       /* the figure is omitted without it */
} cdf_line;

/* xlabel: what x is, without its unit (the metric's, added with the
 * scale: "delay (s, log scale)"). */
static void fig_cdf(report *r, const char *name, const char *title,
                    const char *caption, const char *xlabel,
                    const cdf_line *lines, size_t nlines)
{
    figure *g = report__fig_new(r, name, title);
    snprintf(g->caption, sizeof g->caption, "%s", caption);
    for (size_t i = 0; i < nlines; i++)
        if (lines[i].required && !have_metrics(r, g, &lines[i].metric, 1))
            return;
    FILE *f = open_data(r, g);
    if (!f)
        return;
    size_t nblocks = 0;
    int allpos = 1;
    double xlo = INFINITY, xhi = -INFINITY;
    /* durations: seconds on the log axis, tics at 1 s, 1 min, 1 h... */
    double xs = 1.0;
    int secs = 0;
    sim_metric_row mi;
    memset(&mi, 0, sizeof mi);
    secs = sim_results_metric_info(r->db, r->exp, lines[nlines - 1].metric, &mi) == 0 &&
           mi.runs > 0 && !strcmp(mi.unit, "s");
    for (size_t i = 0; i < nlines; i++) {
        if (!report__have_metric(r, lines[i].metric)) {
            report__fig_note(g, "Metric %s is missing: its line is not drawn. ",
                             lines[i].metric);
            continue;
        }
        if (lines[i].per_point && r->npoints > 1) {
            for (size_t p = 0; p < r->npoints && p < MAX_LINES; p++) {
                char lab[200];
                snprintf(lab, sizeof lab, "%s, %s", lines[i].metric, r->label[p]);
                cdf_block(r, f, lines[i].metric, r->points[p], lab, &nblocks,
                          &allpos, xs, &xlo, &xhi);
            }
        } else {
            cdf_block(r, f, lines[i].metric, -1, lines[i].metric, &nblocks, &allpos, xs,
                      &xlo, &xhi);
        }
    }
    fclose(f);
    if (nblocks == 0) {
        report__fig_note(g, "Not drawn: the histograms are empty.");
        return;
    }
    note_points_cut(r, g);
    /* a log axis where the values span more than a decade and a half
     * (delays from seconds to hours); over a narrower span a log axis
     * would hold one labelled tic or none */
    int logx = allpos && xhi >= 30 * xlo;
    const char *unit = secs ? "s" : mi.unit[0] ? mi.unit : "";
    char xl[320];
    if (unit[0])
        snprintf(xl, sizeof xl, "%s (%s%s)", xlabel, unit, logx ? ", log scale" : "");
    else
        snprintf(xl, sizeof xl, "%s%s", xlabel, logx ? " (log scale)" : "");
    if (report__write_vars(r, g, nblocks, xl, "fraction of observations <= x",
                           logx) == 0) {
        char vf[96];
        snprintf(vf, sizeof vf, "%s.vars.gp", g->name);
        FILE *v = report__open_in(r, "gp", vf, "a");
        if (v) {
            /* the x range is the data's, not gnuplot's extension to the
             * next tic (a decade on a log axis) */
            double lo = xlo, hi = xhi > xlo ? xhi : xlo + (xlo > 0 ? xlo : 1);
            fprintf(v, "set xrange [%.10g:%.10g]\n", lo, hi);
            if (secs && logx)
                plot__time_tics(v);
            fclose(v);
        }
        report__run_gnuplot(r, g, "cdf.gp");
    }
}

static void fig_sweep(report *r, const char *name, const char *title,
                      const char *what, const char *ylabel, const char *stat,
                      const char *const *need, size_t nneed)
{
    figure *g = report__fig_new(r, name, title);
    snprintf(g->caption, sizeof g->caption,
             "%s against the swept parameter %s: mean over the completed "
             "replications of each sweep point, with %.0f %% confidence "
             "intervals (Student-t; a fraction's Wilson interval).", what, r->xname[0] ? r->xname : "(none)",
             100 * CI_LEVEL);
    if (!have_metrics(r, g, need, nneed))
        return;
    FILE *f = open_data(r, g);
    if (!f)
        return;
    char lab[160];
    report__gp_label(lab, sizeof lab, what);
    fprintf(f, "\"%s\" \"mean\" \"lo\" \"hi\"%s\n", lab,
            r->x_numeric ? "" : " \"point\"");
    size_t rows = 0;
    char xl[200];
    double xs = report__sweep_axis(r, xl, sizeof xl);
    for (size_t p = 0; p < r->npoints; p++) {
        stats_interval ci;
        report__point_ci(r, stat, "all", r->points[p], &ci);
        if (ci.n > 0 && r->x_numeric) {
            fprintf(f, "%.10g %.10g %.10g %.10g\n", r->xval[p] * xs, ci.mean,
                    ci.lo, ci.hi);
            rows++;
        } else if (ci.n > 0) {
            /* text values are categories: bars at 0, 1, ... labelled */
            char pl[160];
            report__gp_label(pl, sizeof pl, r->label[p]);
            fprintf(f, "%zu %.10g %.10g %.10g \"%s\"\n", p, ci.mean, ci.lo, ci.hi, pl);
            rows++;
        }
    }
    fclose(f);
    if (rows < 2) {
        report__fig_note(g, "Not drawn: fewer than two sweep points have completed runs.");
        return;
    }
    int logx = 0;
    if (r->x_numeric) {
        double mn = r->xval[0], mx = r->xval[0];
        for (size_t p = 1; p < r->npoints; p++) {
            mn = r->xval[p] < mn ? r->xval[p] : mn;
            mx = r->xval[p] > mx ? r->xval[p] : mx;
        }
        logx = mn > 0 && mx / mn >= 20;
    }
    if (report__write_vars(r, g, 1, xl, ylabel, logx) == 0)
        report__run_gnuplot(r, g, r->x_numeric ? "sweep.gp" : "bars.gp");
}

/* The lines of one sweep point: signatures per hour of each signer. */
static void signer_lines(report *r, FILE *f, size_t p, size_t *nblocks,
                         double *scale, const char **unit, size_t *cut, int64_t *w0)
{
    int64_t *ids;
    size_t nr = report__point_runs(r, r->points[p], &ids);
    int64_t w = nr ? report__run_warmup(r, ids[0]) : 0;
    sim_cohort_row *co = NULL;
    size_t nco = 0;
    if (nr == 0 || sim_results_cohorts(r->db, ids[0], "signatures", &co, &nco) != 0) {
        free(ids);
        return;
    }
    for (size_t ci = 0; ci < nco; ci++) {
        if (*nblocks >= MAX_LINES) {
            (*cut)++;
            continue;
        }
        char name[200], lab[200];
        if (r->npoints > 1)
            snprintf(name, sizeof name, "%s, %s", co[ci].label, r->label[p]);
        else
            snprintf(name, sizeof name, "%s", co[ci].label);
        report__gp_label(lab, sizeof lab, name);
        series *S = calloc(nr, sizeof *S);
        size_t len = SIZE_MAX;
        for (size_t k = 0; S && k < nr; k++) {
            report__series_read(r, ids[k], "signatures", co[ci].label, &S[k]);
            len = S[k].n < len ? S[k].n : len;
        }
        if (S && len != SIZE_MAX && len > 1) {
            if (*nblocks == 0) {
                *scale = report__time_scale(S[0].t[len - 1] - w, unit);
                *w0 = w;
            }
            fprintf(f, "%s\"%s\" \"per hour\"\n", *nblocks ? "\n\n" : "", lab);
            for (size_t k = report__window_start(&S[0], len, w, 1); k < len; k++) {
                double sum = 0, dt_h = (double)(S[0].t[k] - S[0].t[k - 1]) / (double)SIM_HOUR;
                for (size_t j = 0; j < nr; j++)
                    sum += S[j].v[k] - S[j].v[k - 1];
                if (dt_h > 0)
                    fprintf(f, "%.10g %.10g\n", (double)(S[0].t[k] - w) * *scale,
                            sum / (double)nr / dt_h);
            }
            (*nblocks)++;
        }
        for (size_t k = 0; S && k < nr; k++)
            report__series_free(&S[k]);
        free(S);
    }
    free(co);
    free(ids);
}

static void fig_signers(report *r)
{
    figure *g = report__fig_new(r, "signer_load", "Signer load");
    snprintf(g->caption, sizeof g->caption,
             "Signatures per hour made by each signer (CA and cosigners; "
             "metric signatures), per grid interval, mean over the "
             "completed replications%s, from the start of each point's "
             "measured window. Dashed: the scenario's sim:at actions.",
             r->npoints > 1 ? ", one line per signer and sweep point" : "");
    const char *need[] = {"signatures"};
    if (!have_metrics(r, g, need, 1))
        return;
    FILE *f = open_data(r, g);
    if (!f)
        return;
    const char *unit = "hours";
    double scale = 1.0 / (double)SIM_HOUR;
    size_t nblocks = 0, cut = 0;
    int64_t w0 = 0;
    for (size_t p = 0; p < r->npoints; p++)
        signer_lines(r, f, p, &nblocks, &scale, &unit, &cut, &w0);
    fclose(f);
    if (cut)
        report__fig_note(g, "%zu lines beyond the first %d are not drawn. ", cut,
                         MAX_LINES);
    if (nblocks == 0) {
        report__fig_note(g, "Not drawn: the signatures metric has no per-signer series.");
        return;
    }
    draw_over_window(r, g, nblocks, unit, scale, w0, "signatures per hour", 1,
                     "lines.gp");
}

/* ---- the figures of a report, in order ---- */

void report__figures(report *r)
{
    fig_fraction(r);
    static const cdf_line auth[] = {
        {"auth_bytes", 1, 1},
        {"auth_bytes_baseline_classical", 0, 0},
        {"auth_bytes_baseline_mldsa44", 0, 0},
    };
    fig_cdf(r, "auth_bytes_cdf", "Authentication bytes per handshake",
            "Distribution (CDF) of the authentication bytes of each full "
            "handshake (trust-anchor extension + Certificate + CertificateVerify, "
            "as negotiated; metric auth_bytes), pooled over the completed "
            "replications, against the same handshakes priced with a classical "
            "ECDSA P-256 chain with two SCTs and with its ML-DSA-44 equivalent, "
            "both around the site's own key and CertificateVerify (the difference "
            "is the certificate mechanism alone; the leaf keys are in "
            "handshake_full_by_key). Read from log-binned histograms: the "
            "resolution is the bin width.",
            "authentication bytes per full handshake", auth, 3);
    static const cdf_line today[] = {
        {"auth_bytes", 1, 1},
        {"auth_bytes_today_classical", 0, 1},
    };
    fig_cdf(r, "auth_bytes_today_cdf", "Authentication bytes against today's deployment",
            "Distribution (CDF) of the authentication bytes of each full handshake "
            "(auth_bytes) against today's classical deployment: an ECDSA P-256 "
            "server key and CertificateVerify with an ECDSA P-256 chain and two "
            "SCTs, whatever key the simulated sites hold (metric "
            "auth_bytes_today_classical). Unlike the figure above, this compares "
            "key algorithms as well as certificate mechanisms.",
            "authentication bytes per full handshake", today, 2);
    if (r->npoints > 1 && r->xname[0]) {
        const char *nf[] = {"handshake_full", "handshake_signatureless"};
        fig_sweep(r, "sweep_fraction", "Signatureless fraction across the sweep",
                  "Signatureless fraction of all full handshakes of a run",
                  "signatureless fraction", "signatureless_fraction", nf, 2);
        const char *na[] = {"auth_bytes"};
        fig_sweep(r, "sweep_auth_bytes", "Mean authentication bytes across the sweep",
                  "Mean authentication bytes per full handshake", "bytes",
                  "auth_bytes.mean", na, 1);
    } else {
        figure *g = report__fig_new(r, "sweep", "Sweep curves");
        snprintf(g->caption, sizeof g->caption,
                 "Summary metrics against the swept parameter.");
        report__fig_note(g, "Not drawn: this experiment is not a sweep (%zu sweep point%s%s).",
                         r->npoints, r->npoints == 1 ? "" : "s",
                         r->xname[0] ? "" : ", no parameter marked as swept");
    }
    static const cdf_line delays[] = {
        {"issuance_delay_standalone", 1, 0},
        {"issuance_delay_landmark", 1, 0},
    };
    if (!report__have_metric(r, "issuance_delay_standalone") &&
        !report__have_metric(r, "issuance_delay_landmark")) {
        figure *g = report__fig_new(r, "issuance_delay_cdf", "Issuance delays");
        snprintf(g->caption, sizeof g->caption, "Issuance delays.");
        report__fig_note(g, "Not drawn: metrics issuance_delay_standalone and "
                            "issuance_delay_landmark are missing from this experiment's "
                            "completed runs.");
    } else {
        fig_cdf(r, "issuance_delay_cdf", "Issuance delays",
                "Distribution (CDF) of the delay from a certificate request to "
                "the standalone certificate being ready (after cosigning) and to "
                "the landmark-relative certificate being ready (after the next "
                "landmark), all CAs, pooled over the completed replications, "
                "one line per sweep point.",
                "delay", delays, 2);
    }
    fig_signers(r);
    report__fig_cohorts(r);
    report__fig_diffs(r);
}
