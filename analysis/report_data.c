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

#include <sqlite3.h>

#include "mtc/error.h"
#include "report_internal.h"
#include "sim/metrics.h"
#include "sim/world.h"

/* Number of completed runs of the experiment that hold metric `name`. */
int64_t report__have_metric(report *r, const char *name)
{
    sqlite3_stmt *st;
    int64_t n = 0;
    if (sqlite3_prepare_v2(r->db,
                           "SELECT count(*) FROM metric JOIN run USING (run_id) "
                           "WHERE experiment_id = ? AND status = 'completed' "
                           "AND name = ?", -1, &st, NULL) != SQLITE_OK)
        return 0;
    sqlite3_bind_int64(st, 1, r->exp);
    sqlite3_bind_text(st, 2, name, -1, SQLITE_STATIC);
    if (sqlite3_step(st) == SQLITE_ROW)
        n = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return n;
}

/* Completed runs of a sweep point (replication order). Caller frees. */
size_t report__point_runs(report *r, int64_t point, int64_t **ids)
{
    sqlite3_stmt *st;
    size_t n = 0, cap = 0;
    *ids = NULL;
    if (sqlite3_prepare_v2(r->db,
                           "SELECT run_id FROM run WHERE experiment_id = ? AND "
                           "sweep_point = ? AND status = 'completed' ORDER BY "
                           "replication, run_id", -1, &st, NULL) != SQLITE_OK)
        return 0;
    sqlite3_bind_int64(st, 1, r->exp);
    sqlite3_bind_int64(st, 2, point);
    while (sqlite3_step(st) == SQLITE_ROW) {
        if (n == cap) {
            cap = cap ? 2 * cap : 8;
            int64_t *p = realloc(*ids, cap * sizeof *p);
            if (!p)
                break;
            *ids = p;
        }
        (*ids)[n++] = sqlite3_column_int64(st, 0);
    }
    sqlite3_finalize(st);
    return n;
}

void report__series_free(series *s)
{
    free(s->t);
    free(s->v);
    s->t = NULL;
    s->v = NULL;
    s->n = 0;
}

/* The series of metric `name`, cohort_index `cohort` (-1: total) of a run. */
int report__series_read(report *r, int64_t run, const char *name, int64_t cohort,
                        series *s)
{
    sqlite3_stmt *st;
    size_t cap = 0;
    memset(s, 0, sizeof *s);
    if (sqlite3_prepare_v2(r->db,
                           "SELECT d.t, d.value FROM vector_data d JOIN vector v "
                           "USING (vector_id) JOIN metric m USING (metric_id) "
                           "WHERE m.run_id = ? AND m.name = ? AND "
                           "v.cohort_index = ? ORDER BY d.k", -1, &st,
                           NULL) != SQLITE_OK)
        return -1;
    sqlite3_bind_int64(st, 1, run);
    sqlite3_bind_text(st, 2, name, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 3, cohort);
    while (sqlite3_step(st) == SQLITE_ROW) {
        if (s->n == cap) {
            cap = cap ? 2 * cap : 256;
            int64_t *t = realloc(s->t, cap * sizeof *t);
            if (t)
                s->t = t;
            double *v = realloc(s->v, cap * sizeof *v);
            if (v)
                s->v = v;
            if (!t || !v)
                break;
        }
        s->t[s->n] = sqlite3_column_int64(st, 0);
        s->v[s->n] = sqlite3_column_double(st, 1);
        s->n++;
    }
    sqlite3_finalize(st);
    return 0;
}

/* Mean and Student-t band of x[0..n); the band collapses with n < 2. */
void report__band(const double *x, size_t n, double *mean, double *lo,
                  double *hi)
{
    sim_ci ci;
    if (n >= 2 && sim_ci_student(x, n, CI_LEVEL, &ci) == MTC_OK) {
        *mean = ci.mean;
        *lo = ci.lo;
        *hi = ci.hi;
        return;
    }
    double s = 0;
    for (size_t i = 0; i < n; i++)
        s += x[i];
    *mean = *lo = *hi = n ? s / (double)n : NAN;
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
    sqlite3_stmt *st = NULL, *pq = NULL;
    int rc = -1;
    if (sqlite3_prepare_v2(r->db,
                           "SELECT DISTINCT sweep_point FROM run WHERE "
                           "experiment_id = ? ORDER BY 1", -1, &st, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(r->db,
                           "SELECT p.name, p.value FROM param p JOIN run USING "
                           "(run_id) WHERE experiment_id = ? AND sweep_point = ? "
                           "AND swept = 1 AND run_id = (SELECT min(run_id) FROM "
                           "run WHERE experiment_id = ?1 AND sweep_point = ?2) "
                           "ORDER BY p.entity_kind, p.entity_name, p.name",
                           -1, &pq, NULL) != SQLITE_OK)
        goto done;
    sqlite3_bind_int64(st, 1, r->exp);
    size_t cap = 0;
    while (sqlite3_step(st) == SQLITE_ROW) {
        if (r->npoints == cap) {
            cap = cap ? 2 * cap : 8;
            int64_t *p = realloc(r->points, cap * sizeof *p);
            if (p)
                r->points = p;
            char(*l)[128] = realloc(r->label, cap * sizeof *l);
            if (l)
                r->label = l;
            double *x = realloc(r->xval, cap * sizeof *x);
            if (x)
                r->xval = x;
            if (!p || !l || !x)
                goto done;
        }
        r->points[r->npoints++] = sqlite3_column_int64(st, 0);
    }
    r->x_numeric = 1;
    for (size_t i = 0; i < r->npoints; i++) {
        char *l = r->label[i];
        l[0] = '\0';
        r->xval[i] = (double)r->points[i];
        int first = 1;
        sqlite3_reset(pq);
        sqlite3_bind_int64(pq, 1, r->exp);
        sqlite3_bind_int64(pq, 2, r->points[i]);
        while (sqlite3_step(pq) == SQLITE_ROW) {
            const char *name = (const char *)sqlite3_column_text(pq, 0);
            const char *val = (const char *)sqlite3_column_text(pq, 1);
            size_t n = strlen(l);
            snprintf(l + n, 128 - n, "%s%s=%s", n ? ", " : "", name, val);
            if (first) {
                char *end;
                double v = strtod(val, &end);
                if (end == val || *end || !isfinite(v))
                    r->x_numeric = 0;
                else
                    r->xval[i] = v;
                if (i == 0)
                    snprintf(r->xname, sizeof r->xname, "%s", name);
                first = 0;
            }
        }
        if (!l[0])
            snprintf(l, 128, "point %lld", (long long)r->points[i]);
    }
    if (!r->x_numeric)
        for (size_t i = 0; i < r->npoints; i++)
            r->xval[i] = (double)r->points[i];
    rc = 0;
done:
    sqlite3_finalize(st);
    sqlite3_finalize(pq);
    return rc;
}

/* ---- values per run ---- */

/* A value per completed run of a point, from `sql` (?1 experiment, ?2
 * point); returns the count, values in *out (caller frees). */
size_t report__per_run_values(report *r, const char *sql, int64_t point, double **out)
{
    sqlite3_stmt *st;
    size_t n = 0, cap = 0;
    *out = NULL;
    if (sqlite3_prepare_v2(r->db, sql, -1, &st, NULL) != SQLITE_OK)
        return 0;
    sqlite3_bind_int64(st, 1, r->exp);
    sqlite3_bind_int64(st, 2, point);
    while (sqlite3_step(st) == SQLITE_ROW) {
        if (sqlite3_column_type(st, 0) == SQLITE_NULL)
            continue;
        if (n == cap) {
            cap = cap ? 2 * cap : 8;
            double *p = realloc(*out, cap * sizeof *p);
            if (!p)
                break;
            *out = p;
        }
        (*out)[n++] = sqlite3_column_double(st, 0);
    }
    sqlite3_finalize(st);
    return n;
}

const char report__fraction_sql[] =
    "SELECT CAST(s.value AS REAL) / f.value FROM scalar_v s JOIN scalar_v f "
    "USING (run_id, cohort_index) WHERE s.metric = 'handshake_signatureless' "
    "AND f.metric = 'handshake_full' AND s.cohort_index = -1 AND f.value > 0 "
    "AND s." RUNS_OF_POINT;

/* If the first swept parameter is a duration in seconds (an entity
 * parameter of duration type takes exactly its values at every point),
 * its unit for the axis: "s"; else "". */
static const char *col(sqlite3_stmt *st, int c)
{
    const char *t = (const char *)sqlite3_column_text(st, c);
    return t ? t : "";
}

const char *report__swept_unit(report *r)
{
    if (!r->x_numeric || r->npoints < 2)
        return "";
    sqlite3_stmt *st;
    const char *unit = "";
    if (sqlite3_prepare_v2(r->db,
                           "SELECT p.entity_kind, p.name, group_concat(p.value, "
                           "' ') FROM (SELECT min(run_id) AS run_id FROM run WHERE "
                           "experiment_id = ? GROUP BY sweep_point ORDER BY "
                           "sweep_point) f JOIN param p USING (run_id) WHERE "
                           "p.entity_kind != 'scenario' GROUP BY p.entity_kind, "
                           "p.entity_name, p.name", -1, &st, NULL) != SQLITE_OK)
        return "";
    sqlite3_bind_int64(st, 1, r->exp);
    size_t nk;
    const sim_param_schema *const *ks = sim_world_schemas(&nk);
    while (!unit[0] && sqlite3_step(st) == SQLITE_ROW) {
        const char *vals = col(st, 2);
        size_t i = 0;
        int same = 1;
        for (const char *q = vals; same && *q && i < r->npoints; i++) {
            char *end;
            double v = strtod(q, &end);
            same = end != q && v == r->xval[i];
            q = *end ? end + 1 : end;
        }
        if (!same || i != r->npoints)
            continue;
        for (size_t k = 0; k < nk; k++)
            if (!strcmp(ks[k]->kind, col(st, 0))) {
                const sim_param_desc *d = sim_param_find(ks[k], col(st, 1));
                if (d && d->type == SIM_PARAM_DURATION)
                    unit = "s";
            }
    }
    sqlite3_finalize(st);
    return unit;
}

