/*
 * report_html.c - DIR/index.html of `mtcsim report`: provenance, each
 * figure with its caption and note, the summary table and the runs.
 * Separate: all HTML and its escaping live here, and nothing else does.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "mtc/error.h"
#include "rdb.h"
#include "report_internal.h"
#include "sim/engine.h"

static void html_text(FILE *f, const char *s)
{
    for (; s && *s; s++) {
        switch (*s) {
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '&': fputs("&amp;", f); break;
        case '"': fputs("&quot;", f); break;
        default: fputc(*s, f);
        }
    }
}

void report__html_text(FILE *f, const char *s)
{
    html_text(f, s);
}

/* The distinct (scenario, sha256, version) of the runs, in run order. */
static void html_scenarios(FILE *h, const sim_run_row *runs, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const sim_run_row *x = &runs[i];
        if (!rdb_new_provenance(runs, i))
            continue;
        fputs("<tr><th>scenario</th><td>", h);
        html_text(h, x->scenario_path[0] ? x->scenario_path : "(none)");
        fputs(" <small>sha256 ", h);
        html_text(h, x->scenario_sha256);
        fputs("</small>, mtcsim ", h);
        html_text(h, x->program_version);
        fputs("</td></tr>\n", h);
    }
}

static void html_provenance(report *r, FILE *h)
{
    sim_experiment_row e;
    if (sim_results_experiment(r->db, r->exp, &e) != 0)
        return;
    if (e.id >= 0) {
        fputs("<table class=\"kv\">\n<tr><th>database</th><td>", h);
        html_text(h, r->dbpath);
        fprintf(h, "</td></tr>\n<tr><th>experiment</th><td>%lld: ", (long long)r->exp);
        html_text(h, e.name);
        fputs("</td></tr>\n<tr><th>command</th><td><code>", h);
        html_text(h, e.command_line);
        fputs("</code></td></tr>\n<tr><th>created</th><td>", h);
        html_text(h, e.created_at);
        fprintf(h, "</td></tr>\n<tr><th>planned</th><td>%lld sweep point(s) &times; "
                   "%lld replication(s)</td></tr>\n",
                (long long)e.sweep_points, (long long)e.replications);
    }
    sim_run_row *runs;
    size_t n;
    if (sim_results_runs(r->db, r->exp, &runs, &n) != 0)
        return;
    html_scenarios(h, runs, n);
    free(runs);
    fputs("</table>\n", h);
}

/* 1 when the summaries hold w's metric for the total ("all") at w's point:
 * a metric with a breakdown shows its total only. */
static int has_total(const sim_summary_row *sr, size_t ns, const sim_summary_row *w)
{
    for (size_t i = 0; i < ns; i++)
        if (sr[i].point == w->point && !strcmp(sr[i].cohort, "all") &&
            !strcmp(sr[i].metric, w->metric) && !strcmp(sr[i].statistic, w->statistic))
            return 1;
    return 0;
}

static void html_summary(report *r, FILE *h)
{
    fprintf(h, "<h2>Summary</h2>\n<p>Mean over completed replications with its "
               "%.0f %% interval, as the run summary gives it: a Student-t "
               "half-width (&plusmn;), a fraction's Wilson interval [lo, hi], "
               "inside [0, 1], a 0/1 flag's count (cohort: all; a figure "
               "recorded per cohort: each cohort recorded). Counters and gauges: "
               "final value; histograms: mean and quantiles of the "
               "observations.</p>\n",
            100 * CI_LEVEL);
    /* The headline number first, computed from the scalars. */
    fputs("<table>\n<tr><th>sweep point</th><th>metric</th><th>statistic</th>"
          "<th>unit</th><th>n</th><th>mean</th><th>&plusmn; CI</th></tr>\n", h);
    if (report__have_metric(r, "handshake_full") &&
        report__have_metric(r, "handshake_signatureless")) {
        for (size_t p = 0; p < r->npoints; p++) {
            stats_interval ci;
            report__point_ci(r, "signatureless_fraction", "all", r->points[p], &ci);
            if (ci.n) {
                char m[40], c[96];
                stats_format_value(ci.mean, ci.kind, m, sizeof m);
                stats_format_ci(&ci, c, sizeof c);
                fputs("<tr class=\"head\"><td>", h);
                html_text(h, r->label[p]);
                fprintf(h, "</td><td>signatureless fraction</td><td>ratio</td><td></td>"
                           "<td>%zu</td><td>%s</td><td>%s</td></tr>\n", ci.n, m,
                        ci.n > 1 ? c : "(n=1)");
            }
        }
    }
    size_t rows = 0, ns;
    sim_summary_row *sr;
    if (sim_results_summaries(r->db, r->exp, &sr, &ns) == 0) {
        static const char *const shown[] = {"value", "mean", "p50", "p99"};
        for (size_t i = 0; i < ns; i++) {
            const sim_summary_row *w = &sr[i];
            int show = 0;
            for (int k = 0; k < 4; k++)
                show |= !strcmp(w->statistic, shown[k]);
            /* the total, and the cells of a figure recorded per cohort,
             * which has no total (a cohort it was not recorded for has no
             * row: absent, not 0) */
            if (!show || (strcmp(w->cohort, "all") && has_total(sr, ns, w)))
                continue;
            const char *lab = "?";
            for (size_t p = 0; p < r->npoints; p++)
                if (r->points[p] == w->point)
                    lab = r->label[p];
            char mname[240];
            if (strcmp(w->cohort, "all"))
                snprintf(mname, sizeof mname, "%s, cohort %s", w->metric, w->cohort);
            else
                snprintf(mname, sizeof mname, "%s", w->metric);
            fputs("<tr><td>", h);
            html_text(h, lab);
            const char *cells[3] = {mname, w->statistic, w->unit};
            for (int c = 0; c < 3; c++) {
                fputs("</td><td>", h);
                html_text(h, cells[c]);
            }
            /* the interval of the statistics module, as the run summary
             * prints it (a fraction's stays inside [0, 1]); no mean (no
             * value stored) is said, never shown as 0 */
            char stat[200], mv[40] = "&mdash;", cv[96] = "";
            if (!strcmp(w->statistic, "value"))
                snprintf(stat, sizeof stat, "%s", w->metric);
            else
                snprintf(stat, sizeof stat, "%s.%s", w->metric, w->statistic);
            stats_interval ci;
            report__point_ci(r, stat, w->cohort, w->point, &ci);
            if (ci.n) {
                stats_format_value(ci.mean, ci.kind, mv, sizeof mv);
                if (ci.n > 1)
                    stats_format_ci(&ci, cv, sizeof cv);
            } else if (!isnan(w->mean)) {
                snprintf(mv, sizeof mv, "%.6g", w->mean);
            }
            fprintf(h, "</td><td>%lld</td><td>%s</td><td>", (long long)w->n, mv);
            html_text(h, cv);
            fputs("</td></tr>\n", h);
            rows++;
        }
        free(sr);
    }
    fputs("</table>\n", h);
    if (rows == 0)
        fputs("<p class=\"note\">No replication summaries are stored for this "
              "experiment (the run command stores them with "
              "sim_results_summarize after each sweep point).</p>\n", h);
}

static void html_runs(report *r, FILE *h)
{
    fputs("<h2>Runs</h2>\n<table>\n<tr><th>run</th><th>sweep point</th>"
          "<th>replication</th><th>seed</th><th>status</th><th>simulated</th>"
          "<th>events</th><th>wall (s)</th><th>started</th><th>error</th></tr>\n", h);
    sim_run_row *runs;
    size_t n;
    if (sim_results_runs(r->db, r->exp, &runs, &n) != 0)
        return;
    /* rows left 'running' by a writer that is gone (killed outright): shown
     * as abandoned, as `mtcsim ls` shows them, not as runs at work */
    int64_t *stale = NULL;
    size_t nstale = 0, total = 0;
    if (sim_results_stale_runs(r->db, NULL, 0, &total) == MTC_OK && total &&
        (stale = calloc(total, sizeof *stale)) &&
        sim_results_stale_runs(r->db, stale, total, &nstale) != MTC_OK)
        nstale = 0;
    if (nstale > total)
        nstale = total;     /* a writer left meanwhile: the first ones */
    size_t excluded = 0, abandoned = 0;
    for (size_t i = 0; i < n; i++) {
        const sim_run_row *x = &runs[i];
        int ok = x->status == SIM_RUN_COMPLETED;
        int gone = 0;
        for (size_t k = 0; x->status == SIM_RUN_RUNNING && k < nstale; k++)
            gone |= stale[k] == x->id;
        excluded += !ok;
        abandoned += gone;
        fprintf(h, "<tr%s><td>%lld</td><td>%lld</td><td>%lld</td><td>%llu</td><td>",
                ok ? "" : " class=\"bad\"", (long long)x->id,
                (long long)x->sweep_point, (long long)x->replication,
                (unsigned long long)x->seed);
        html_text(h, gone ? "abandoned" : x->status >= 0 ? sim_run_status_name(x->status)
                                                          : "?");
        fputs("</td><td>", h);
        if (x->has_reached) {
            char t[48];
            snprintf(t, sizeof t, "%.3f d", (double)x->sim_reached / (double)SIM_DAY);
            fputs(t, h);
        }
        fprintf(h, "</td><td>%lld</td><td>", (long long)x->events);
        if (!isnan(x->wall_time_s))
            fprintf(h, "%.3f", x->wall_time_s);
        fputs("</td><td>", h);
        html_text(h, x->started_at);
        fputs("</td><td>", h);
        html_text(h, gone ? ABANDONED_WHY : x->error);
        fputs("</td></tr>\n", h);
    }
    free(runs);
    free(stale);
    fputs("</table>\n", h);
    if (excluded)
        fprintf(h, "<p class=\"note\">%zu run(s) did not complete (interrupted, "
                   "failed, abandoned, or still running) and are excluded from the "
                   "figures and summaries.</p>\n", excluded);
    if (abandoned)
        fprintf(h, "<p class=\"note\">%zu run(s) abandoned: left marked running "
                   "by a process that is gone (killed outright, e.g. with SIGKILL "
                   "or out of memory); <code>mtcsim run SCENARIO --resume "
                   "FILE.db</code> reruns them.</p>\n", abandoned);
}

int report__write_html(report *r)
{
    FILE *h = report__open_in(r, "", "index.html", "w");
    if (!h)
        return -1;
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
          "<title>mtcsim report</title>\n<style>\n"
          "body{font-family:sans-serif;max-width:1000px;margin:2em auto;padding:0 1em;color:#222}\n"
          "table{border-collapse:collapse;margin:1em 0;font-size:90%}\n"
          "td,th{border:1px solid #ccc;padding:.2em .5em;text-align:left}\n"
          "tr.bad td{background:#fee} tr.head td{font-weight:bold}\n"
          "figure{margin:2em 0} img{max-width:100%;border:1px solid #eee}\n"
          ".note{color:#a40}\n</style>\n</head>\n<body>\n<h1>mtcsim report</h1>\n", h);
    html_provenance(r, h);
    fputs("<h2>Figures</h2>\n", h);
    for (size_t i = 0; i < r->nfigs; i++) {
        figure *g = &r->figs[i];
        fprintf(h, "<figure id=\"%s\">\n<h3>", g->name);
        html_text(h, g->title);
        fputs("</h3>\n", h);
        if (g->drawn)
            fprintf(h, "<a href=\"%s.svg\"><img src=\"%s.png\" alt=\"", g->name, g->name);
        if (g->drawn) {
            html_text(h, g->title);
            fprintf(h, "\"></a>\n");
        }
        fputs("<figcaption>", h);
        html_text(h, g->caption);
        if (g->drawn)
            fprintf(h, " <small>[<a href=\"%s.svg\">SVG</a>, <a href=\"data/%s.dat\">"
                       "data</a>]</small>", g->name, g->name);
        fputs("</figcaption>\n", h);
        if (g->note[0]) {
            fputs("<p class=\"note\">", h);
            html_text(h, g->note);
            fputs("</p>\n", h);
        }
        fputs("</figure>\n", h);
    }
    html_summary(r, h);
    report__html_cohorts(r, h);
    report__html_transients(r, h);
    html_runs(r, h);
    fputs("<p><small>Generated by mtcsim " MTCSIM_VERSION " (mtcsim report). "
          "Re-render a figure by hand in this directory with "
          "<code>gnuplot gp/NAME.vars.gp gp/SCRIPT.gp</code>.</small></p>\n"
          "</body>\n</html>\n", h);
    return fclose(h) == 0 ? 0 : -1;
}
