/*
 * report_data.c - the reads of the results database that the figures and
 * the page of `mtcsim report` share: metric presence, completed runs, sweep
 * points, series, per-run values, and the Student-t band. Separate: queries
 * only one figure or table needs stay with it (report_figures.c, _html.c).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mtc/error.h"
#include "plot_internal.h"
#include "rdb.h"
#include "report_internal.h"
#include "sim/metrics.h"
#include "sim/world.h"

/* Number of completed runs of the experiment that hold metric `name`. */
int64_t report__have_metric(report *r, const char *name)
{
    sim_metric_row m;
    if (sim_results_metric_info(r->db, r->exp, name, &m) != MTC_OK)
        return 0;
    return m.runs;
}

/* Completed runs of a sweep point (replication order). Caller frees. */
size_t report__point_runs(report *r, int64_t point, int64_t **ids)
{
    int64_t *reps, *seeds;
    size_t n = rdb_point_runs(r->db, r->exp, point, ids, &reps, &seeds);
    free(reps);
    free(seeds);
    return n;
}

void report__series_free(series *s)
{
    sim_series_free(s);
}

int report__series_read(report *r, int64_t run, const char *name,
                        const char *cohort, series *s)
{
    return sim_results_series(r->db, run, name, cohort, s) == MTC_OK ? 0 : -1;
}

int64_t report__run_warmup(report *r, int64_t run)
{
    sim_run_row *row = malloc(sizeof *row);
    int64_t w = row && sim_results_run(r->db, run, row) == MTC_OK && row->id >= 0
                    ? row->warmup_end
                    : 0;
    free(row);
    return w > 0 ? w : 0;
}

size_t report__window_start(const series *s, size_t len, int64_t w, int rate)
{
    size_t k = rate ? 1 : 0;
    while (k < len && (rate ? s->t[k - 1] : s->t[k]) < w)
        k++;
    return k;
}

/* Time axis: days for spans of 3 days or more, else hours. */
double report__time_scale(int64_t span_us, const char **unit)
{
    if (span_us >= 3 * SIM_DAY) {
        *unit = "days";
        return 1.0 / (double)SIM_DAY;
    }
    *unit = "hours";
    return 1.0 / (double)SIM_HOUR;
}

/* ---- sweep points ---- */

int report__load_points(report *r)
{
    sim_point_row *pts;
    size_t np;
    if (sim_results_points(r->db, r->exp, &pts, &np) != MTC_OK)
        return -1;
    int rc = -1;
    r->points = malloc((np ? np : 1) * sizeof *r->points);
    r->label = malloc((np ? np : 1) * sizeof *r->label);
    r->xval = malloc((np ? np : 1) * sizeof *r->xval);
    if (!r->points || !r->label || !r->xval)
        goto done;
    r->npoints = np;
    r->x_numeric = 1;
    for (size_t i = 0; i < np; i++) {
        char *l = r->label[i];
        l[0] = '\0';
        r->points[i] = pts[i].point;
        r->xval[i] = (double)r->points[i];
        sim_param_row *ps;
        size_t nps;
        if (sim_results_run_params(r->db, pts[i].first_run, 1, &ps, &nps) != MTC_OK)
            goto done;
        for (size_t k = 0; k < nps; k++) {
            const char *name = ps[k].name, *val = ps[k].value;
            size_t n = strlen(l);
            snprintf(l + n, 128 - n, "%s%s=%s", n ? ", " : "", name, val);
            if (k == 0) {
                char *end;
                double v = strtod(val, &end);
                if (end == val || *end || !isfinite(v))
                    r->x_numeric = 0;
                else
                    r->xval[i] = v;
                if (i == 0)
                    snprintf(r->xname, sizeof r->xname, "%s", name);
            }
        }
        free(ps);
        if (!l[0])
            snprintf(l, 128, "point %lld", (long long)r->points[i]);
    }
    if (!r->x_numeric)
        for (size_t i = 0; i < r->npoints; i++)
            r->xval[i] = (double)r->points[i];
    rc = 0;
done:
    free(pts);
    return rc;
}

/* ---- values per run ---- */

void report__point_ci(report *r, const char *stat, const char *cohort,
                      int64_t point, stats_interval *ci)
{
    stats_val *v;
    size_t n = rdb_point_vals(r->db, r->exp, point, stat, cohort, &v, NULL, NULL);
    *ci = stats_summarize(v, n);
    free(v);
}

const char *report__swept_unit(report *r)
{
    if (!r->x_numeric || r->npoints < 2)
        return "";
    /* the parameters of each point's first run, side by side */
    sim_point_row *pts;
    size_t np;
    if (sim_results_points(r->db, r->exp, &pts, &np) != MTC_OK)
        return "";
    sim_param_row **ps = calloc(np ? np : 1, sizeof *ps);
    size_t *nps = calloc(np ? np : 1, sizeof *nps);
    const char *unit = "";
    for (size_t i = 0; ps && nps && i < np; i++)
        if (sim_results_run_params(r->db, pts[i].first_run, 0, &ps[i], &nps[i]))
            goto done;
    for (size_t j = 0; ps && nps && np == r->npoints && j < nps[0] && !unit[0]; j++) {
        const sim_param_row *p0 = &ps[0][j];
        if (!strcmp(p0->kind, "scenario"))
            continue;
        int same = 1;
        for (size_t i = 0; same && i < np; i++) {
            const sim_param_row *q = NULL;
            for (size_t k = 0; k < nps[i] && !q; k++)
                if (!strcmp(ps[i][k].kind, p0->kind) &&
                    !strcmp(ps[i][k].entity, p0->entity) &&
                    !strcmp(ps[i][k].name, p0->name))
                    q = &ps[i][k];
            char *end;
            double v = q ? strtod(q->value, &end) : 0;
            same = q && end != q->value && v == r->xval[i];
        }
        if (!same)
            continue;
        const sim_param_schema *ks = sim_world_schema(p0->kind);
        const sim_param_desc *d = ks ? sim_param_find(ks, p0->name) : NULL;
        if (d && d->type == SIM_PARAM_DURATION)
            unit = "s";
    }
done:
    for (size_t i = 0; ps && i < np; i++)
        free(ps[i]);
    free(ps);
    free(nps);
    free(pts);
    return unit;
}

double report__sweep_axis(report *r, char *xlabel, size_t n)
{
    const char *xu = r->x_numeric ? report__swept_unit(r) : "", *xun = "";
    double xs = 1.0, xmax = 0;
    for (size_t p = 0; p < r->npoints; p++)
        xmax = fabs(r->xval[p]) > xmax ? fabs(r->xval[p]) : xmax;
    if (xu[0]) {
        xs = plot__unit_scale(xu, xmax, &xun);
        snprintf(xlabel, n, "%s (%s)", r->xname, xun);
    } else {
        snprintf(xlabel, n, "%s", r->xname);
    }
    return xs;
}
