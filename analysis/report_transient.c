/*
 * report_transient.c - the report's steady-state check: each sweep point's
 * verdict per series, the same lines the run summary prints (stats.h:
 * the replications' windows averaged, then MSER-5), recomputed from the
 * series in the database; a warning at the top of the section when one
 * still holds a transient; and each replication's own verdict as a
 * table. Separate because it only reads series and judges them.
 */
#include <stdlib.h>

#include "rdb.h"
#include "report_internal.h"
#include "transient_check.h"

typedef struct tc_row {
    int64_t run, point, rep;
    const char *series;
    tc_result r;
} tc_row;

static void add_row(tc_row **rows, size_t *n, size_t *cap, tc_row row)
{
    if (*n == *cap) {
        size_t nc = *cap ? 2 * *cap : 32;
        tc_row *p = realloc(*rows, nc * sizeof *p);
        if (!p)
            return;
        *rows = p;
        *cap = nc;
    }
    (*rows)[(*n)++] = row;
}

static size_t judge_runs(report *r, tc_row **rows)
{
    size_t n = 0, cap = 0, nruns;
    *rows = NULL;
    sim_run_row *runs;
    if (sim_results_runs(r->db, r->exp, &runs, &nruns) != 0)
        return 0;
    /* by sweep point, then replication (the table's order) */
    for (size_t i = 1; i < nruns; i++)
        for (size_t j = i; j > 0 && (runs[j].sweep_point < runs[j - 1].sweep_point ||
                                     (runs[j].sweep_point == runs[j - 1].sweep_point &&
                                      runs[j].replication < runs[j - 1].replication));
             j--) {
            sim_run_row t = runs[j];
            runs[j] = runs[j - 1];
            runs[j - 1] = t;
        }
    for (size_t i = 0; i < nruns; i++) {
        if (runs[i].status != SIM_RUN_COMPLETED)
            continue;
        int64_t run = runs[i].id;
        tc_row row = {run, runs[i].sweep_point, runs[i].replication, NULL, {0, 0, 0}};
        int64_t warm = runs[i].warmup_end;
        series full, sl;
        if (report__series_read(r, run, "handshake_full", "all", &full) == 0 &&
            report__series_read(r, run, "handshake_signatureless", "all", &sl) == 0 &&
            full.n && full.n == sl.n) {
            row.series = "signatureless_fraction";
            row.r = tc_fraction(full.t, full.v, sl.v, full.n, warm);
            if (row.r.judged)
                add_row(rows, &n, &cap, row);
        }
        report__series_free(&full);
        report__series_free(&sl);
        for (size_t g = 0; tc_level_names[g]; g++) {
            series s;
            if (report__series_read(r, run, tc_level_names[g], "all", &s) == 0 && s.n) {
                row.series = tc_level_names[g];
                row.r = tc_level(s.t, s.v, s.n, warm);
                if (row.r.judged)
                    add_row(rows, &n, &cap, row);
            }
            report__series_free(&s);
        }
    }
    free(runs);
    return n;
}

/* The verdict of every (point, series): the same lines, by the same
 * function, as the run summary prints (stats_verdict_text). */
static size_t point_verdicts(report *r, FILE *h, size_t *hits)
{
    int steady = stats_steady_start(r->db, r->exp);
    size_t n = 0;
    for (size_t p = 0; p < r->npoints; p++) {
        int64_t *ids, *reps, *seeds;
        size_t nr = rdb_point_runs(r->db, r->exp, r->points[p], &ids, &reps, &seeds);
        stats_run *runs = calloc(nr ? nr : 1, sizeof *runs);
        const stats_run **pr = calloc(nr ? nr : 1, sizeof *pr);
        for (size_t k = 0; runs && pr && k < nr; k++) {
            stats_source src = stats_stored(r->db, ids[k]);
            stats_collect_steady(&src, &runs[k]);
            pr[k] = &runs[k];
        }
        for (size_t k = 0; runs && pr && k < STATS_SERIES; k++) {
            stats_verdict v = stats_point_verdict(pr, nr, k);
            if (!v.nrep || !v.r.judged)
                continue;
            char line[1024];
            stats_verdict_text(&v, steady, line, sizeof line);
            fprintf(h, "<p class=\"verdict%s\">", v.r.transient ? " note" : "");
            if (r->npoints > 1) {
                fputs("[", h);
                report__html_text(h, r->label[p]);
                fputs("] ", h);
            }
            report__html_text(h, line);
            fputs("</p>\n", h);
            n++;
            *hits += (size_t)v.r.transient;
        }
        for (size_t k = 0; runs && k < nr; k++)
            stats_run_free(&runs[k]);
        free(runs);
        free(pr);
        free(ids);
        free(reps);
        free(seeds);
    }
    return n;
}

void report__html_transients(report *r, FILE *h)
{
    tc_row *rows;
    size_t n = judge_runs(r, &rows), hits = 0;
    fputs("<h2 id=\"steady-state\">Steady-state check</h2>\n", h);
    if (!n) {
        fputs("<p>No headline series long enough to judge (MSER-5 needs 20 grid "
              "points in the measured window).</p>\n", h);
        free(rows);
        return;
    }
    /* the verdicts first: each point's replications averaged, then judged */
    char *buf = NULL;
    size_t len = 0;
    FILE *vf = open_memstream(&buf, &len);
    size_t nv = vf ? point_verdicts(r, vf, &hits) : 0;
    if (vf)
        fclose(vf);
    if (hits)
        fprintf(h, "<p class=\"note\"><b>Warning:</b> MSER-5 finds an initial "
                   "transient in %zu of %zu series (each sweep point's "
                   "replications averaged): those figures still describe a "
                   "start-up, not the deployed system.</p>\n", hits, nv);
    else
        fprintf(h, "<p>MSER-5 finds no initial transient in the %zu series "
                   "judged (each sweep point's replications averaged).</p>\n", nv);
    if (buf)
        fputs(buf, h);
    free(buf);
    fputs("<p>Each replication on its own (a burst in one replication of a "
          "steady system can flag it; the verdicts above average the "
          "replications first):</p>\n", h);
    fputs("<table>\n<tr class=\"head\"><td>run</td><td>point</td><td>replication"
          "</td><td>series</td><td>truncation (h into the window)</td><td>transient"
          "</td></tr>\n", h);
    for (size_t i = 0; i < n; i++) {
        const tc_row *w = &rows[i];
        const char *lab = "";
        for (size_t k = 0; r->label && k < r->npoints; k++)
            if (r->points[k] == w->point)
                lab = r->label[k];
        fprintf(h, "<tr%s><td>%lld</td><td>%s</td><td>%lld</td><td>%s</td><td>%.3g"
                   "</td><td>%s</td></tr>\n",
                w->r.transient ? " class=\"bad\"" : "", (long long)w->run, lab,
                (long long)w->rep, w->series, w->r.truncation_h,
                w->r.transient ? "yes" : "no");
    }
    fputs("</table>\n", h);
    free(rows);
}
