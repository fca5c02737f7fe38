/*
 * results_values.c - the read API's values (sim/results_read.h): a run's
 * scalars, histogram summaries and series by cohort, histogram bins pooled
 * over runs, stored replication summaries, and table dumps for export.
 * Separate from results_read.c (the catalogue: experiments, runs, points,
 * parameters, metric names), which says what there is to read.
 */
#include <stdlib.h>
#include <string.h>

#include "results_internal.h"
#include "sim/results_read.h"

/* Binds the key of a run's value: ?1 the run, ?2 the metric, ?3 the
 * cohort. */
static void bind_value_key(sqlite3_stmt *st, int64_t run, const char *metric,
                           const char *cohort)
{
    sqlite3_bind_int64(st, 1, run);
    sqlite3_bind_text(st, 2, metric, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 3, cohort, -1, SQLITE_STATIC);
}

/* One row of a run's value (sql's ?1 the run, ?2 the metric, ?3 the
 * cohort): *found = fill(st, out) when there is a row, else 0. */
static int read_value(sim_results *db, const char *sql, int64_t run,
                      const char *metric, const char *cohort,
                      int (*fill)(sqlite3_stmt *, void *), void *out,
                      int *found, const char *what)
{
    if (!db || !metric || !cohort || !out || !found)
        return MTC_ERR_ARG;
    *found = 0;
    RD_ROW(db, sql, bind_value_key(st, run, metric, cohort),
           *found = fill(st, out), what);
}

/* A scalar's value into *(double *)v; a NULL (a NaN or infinity stored)
 * is not found. */
static int scalar_of(sqlite3_stmt *st, void *v)
{
    if (sqlite3_column_type(st, 0) == SQLITE_NULL)
        return 0;
    *(double *)v = sqlite3_column_double(st, 0);
    return 1;
}

int sim_results_scalar(sim_results *db, int64_t run, const char *metric,
                       const char *cohort, double *v, int *found)
{
    return read_value(db, "SELECT s.value FROM scalar s JOIN metric m USING "
                          "(metric_id) WHERE m.run_id = ? AND m.name = ? AND "
                          "s.cohort = ?",
                      run, metric, cohort, scalar_of, v, found, "scalar");
}

static int hist_of(sqlite3_stmt *st, void *row)
{
    sim_hist_row *out = row;
    double *f[8] = {&out->count, &out->sum, &out->mean, &out->min,
                    &out->max, &out->p50, &out->p90, &out->p99};
    for (int c = 0; c < 8; c++)
        *f[c] = rd_real(st, c);
    return 1;
}

int sim_results_histogram(sim_results *db, int64_t run, const char *metric,
                          const char *cohort, sim_hist_row *out, int *found)
{
    return read_value(db, "SELECT h.count, h.sum, h.mean, h.min, h.max, "
                          "h.p50, h.p90, h.p99 FROM histogram h JOIN metric m "
                          "USING (metric_id) WHERE m.run_id = ? AND m.name = ? "
                          "AND h.cohort = ?",
                      run, metric, cohort, hist_of, out, found, "histogram");
}

void sim_series_free(sim_series *s)
{
    if (!s)
        return;
    free(s->t);
    free(s->v);
    memset(s, 0, sizeof *s);
}

int sim_results_series(sim_results *db, int64_t run, const char *metric,
                       const char *cohort, sim_series *out)
{
    if (!db || !metric || !cohort || !out)
        return MTC_ERR_ARG;
    memset(out, 0, sizeof *out);
    sqlite3_stmt *st;
    int rc = prep(db, "SELECT d.t, d.value FROM vector_data d JOIN vector v "
                      "USING (vector_id) JOIN metric m USING (metric_id) WHERE "
                      "m.run_id = ? AND m.name = ? AND v.cohort = ? ORDER BY d.k",
                  &st);
    if (rc)
        return rc;
    bind_value_key(st, run, metric, cohort);
    size_t cap = 0, capv = 0;
    int s;
    while ((s = sqlite3_step(st)) == SQLITE_ROW) {
        if (rd_grow((void **)&out->t, &cap, out->n, sizeof *out->t) ||
            rd_grow((void **)&out->v, &capv, out->n, sizeof *out->v)) {
            rc = fail(db, MTC_ERR_NOMEM, "out of memory");
            break;
        }
        out->t[out->n] = sqlite3_column_int64(st, 0);
        out->v[out->n] = sqlite3_column_double(st, 1);
        out->n++;
    }
    if (!rc && s != SQLITE_DONE)
        rc = db_fail(db, "series");
    sqlite3_finalize(st);
    if (rc)
        sim_series_free(out);
    return rc;
}

void sim_bins_free(sim_bins *b)
{
    if (!b)
        return;
    free(b->hi);
    free(b->count);
    memset(b, 0, sizeof *b);
}

#define BINS_WHERE                                                           \
    "FROM histogram_bin b JOIN histogram h USING (histogram_id) JOIN metric " \
    "m USING (metric_id) JOIN run USING (run_id) WHERE experiment_id = ?1 "  \
    "AND status = 'completed' AND (?2 < 0 OR sweep_point = ?2) AND m.name = " \
    "?3 AND h.cohort = ?4"

static void bind_bins(sqlite3_stmt *st, int64_t exp, int64_t point,
                      const char *metric, const char *cohort)
{
    sqlite3_bind_int64(st, 1, exp);
    sqlite3_bind_int64(st, 2, point < 0 ? -1 : point);
    sqlite3_bind_text(st, 3, metric, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 4, cohort, -1, SQLITE_STATIC);
}

int sim_results_bins(sim_results *db, int64_t exp, int64_t point,
                     const char *metric, const char *cohort, sim_bins *out)
{
    if (!db || !metric || !cohort || !out)
        return MTC_ERR_ARG;
    memset(out, 0, sizeof *out);
    sqlite3_stmt *st = NULL;
    int rc = prep(db, "SELECT min(h.min), max(h.max), sum(b.count), "
                      "count(DISTINCT run_id) " BINS_WHERE, &st);
    if (rc)
        return rc;
    bind_bins(st, exp, point, metric, cohort);
    int s = sqlite3_step(st);
    if (s != SQLITE_ROW) {
        rc = db_fail(db, "bins");
    } else if (sqlite3_column_type(st, 2) != SQLITE_NULL) {
        out->min = sqlite3_column_double(st, 0);
        out->max = sqlite3_column_double(st, 1);
        out->total = sqlite3_column_double(st, 2);
        out->runs = sqlite3_column_int64(st, 3);
    }
    sqlite3_finalize(st);
    if (rc || !(out->total > 0))
        return rc;
    rc = prep(db, "SELECT b.bin, min(b.hi), sum(b.count) " BINS_WHERE
                  " GROUP BY b.bin ORDER BY b.bin", &st);
    if (rc)
        return rc;
    bind_bins(st, exp, point, metric, cohort);
    size_t cap = 0, capc = 0;
    while ((s = sqlite3_step(st)) == SQLITE_ROW) {
        if (rd_grow((void **)&out->hi, &cap, out->n, sizeof *out->hi) ||
            rd_grow((void **)&out->count, &capc, out->n, sizeof *out->count)) {
            rc = fail(db, MTC_ERR_NOMEM, "out of memory");
            break;
        }
        out->hi[out->n] = rd_real(st, 1);
        out->count[out->n] = sqlite3_column_double(st, 2);
        out->n++;
    }
    if (!rc && s != SQLITE_DONE)
        rc = db_fail(db, "bins");
    sqlite3_finalize(st);
    if (rc)
        sim_bins_free(out);
    return rc;
}

static void summary_of(sqlite3_stmt *st, sim_summary_row *r)
{
    r->point = sqlite3_column_int64(st, 0);
    rd_text(st, 1, r->metric, sizeof r->metric);
    rd_text(st, 2, r->cohort, sizeof r->cohort);
    rd_text(st, 3, r->statistic, sizeof r->statistic);
    rd_text(st, 4, r->unit, sizeof r->unit);
    r->n = sqlite3_column_int64(st, 5);
    r->mean = rd_real(st, 6);
    r->stddev = rd_real(st, 7);
    r->ci_half_width = rd_real(st, 8);
}

int sim_results_summaries(sim_results *db, int64_t exp, sim_summary_row **rows,
                          size_t *n)
{
    RD_LIST(db, rows, n,
            "SELECT sweep_point, metric, cohort, statistic, unit, n, mean, "
            "stddev, ci_half_width FROM summary WHERE experiment_id = ? ORDER "
            "BY metric, statistic, sweep_point, cohort",
            sqlite3_bind_int64(st, 1, exp), summary_of);
}

/* ---- table dumps ---- */

/* The views, each with its run's place in the experiment joined in. */
static const char *const views[] = {"scalar_v", "vector_v", "histogram_v",
                                    "histogram_bin_v"};
#define NVIEWS (sizeof views / sizeof views[0])

static void table_name_of(sqlite3_stmt *st, char (*name)[64])
{
    rd_text(st, 0, *name, sizeof *name);
}

static int list_tables(sim_results *db, char (**names)[64], size_t *n)
{
    RD_LIST(db, names, n,
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT "
            "LIKE 'sqlite_%' ORDER BY name", (void)0, table_name_of);
}

int sim_results_table_names(sim_results *db, char (**names)[64], size_t *n,
                            size_t *ntables)
{
    if (!ntables)
        return MTC_ERR_ARG;
    *ntables = 0;
    int rc = list_tables(db, names, n);
    if (rc)
        return rc;
    *ntables = *n;
    char(*p)[64] = realloc(*names, (*n + NVIEWS) * sizeof *p);
    if (!p) {
        free(*names);
        *names = NULL;
        *n = *ntables = 0;
        return fail(db, MTC_ERR_NOMEM, "out of memory");
    }
    *names = p;
    for (size_t i = 0; i < NVIEWS; i++)
        snprintf(p[(*n)++], 64, "%s", views[i]);
    return MTC_OK;
}

/* The rows of each table that pass the filters: ?1 experiment (< 0: all),
 * ?2 comma-separated metric names (NULL: all), ?3 cohort (NULL: all). */
#define F_RUN "(?1 < 0 OR run_id IN (SELECT run_id FROM run WHERE experiment_id = ?1))"
#define F_METRIC "metric_id IN (SELECT metric_id FROM metric WHERE " F_RUN \
    " AND (?2 IS NULL OR instr(',' || ?2 || ',', ',' || name || ',') > 0))"
#define F_COHORT "(?3 IS NULL OR cohort = ?3)"

static const struct {
    const char *table, *where;
} filters[] = {
    {"experiment", "?1 < 0 OR experiment_id = ?1"},
    {"run", "?1 < 0 OR experiment_id = ?1"},
    {"run_attr", F_RUN},
    {"param", F_RUN},
    {"metric", F_METRIC},
    {"scalar", F_METRIC " AND " F_COHORT},
    {"vector", F_METRIC " AND " F_COHORT},
    {"histogram", F_METRIC " AND " F_COHORT},
    {"vector_data", "vector_id IN (SELECT vector_id FROM vector WHERE " F_METRIC
                    " AND " F_COHORT ")"},
    {"histogram_bin", "histogram_id IN (SELECT histogram_id FROM histogram WHERE "
                      F_METRIC " AND " F_COHORT ")"},
    {"summary", "(?1 < 0 OR experiment_id = ?1) AND (?2 IS NULL OR instr(',' || "
                "?2 || ',', ',' || metric || ',') > 0) AND " F_COHORT},
};

/* Columns of the views, which a swept parameter's column must not shadow. */
static const char *const view_cols[] = {
    "experiment_id", "sweep_point", "replication", "swept", "run_id", "metric",
    "kind", "unit", "metric_id", "cohort_index", "cohort", "value", "vector_id",
    "points", "truncated", "k", "t", "histogram_id", "count", "sum", "mean", "min",
    "max", "p50", "p90", "p99", "bin", "lo", "hi", NULL};

#define MAX_SWEPT_COLS 32

/* One column per swept parameter of the experiment (exp < 0: of every
 * experiment), named by the parameter (kind.entity.name when two swept
 * parameters share a name or a view's column has it), appended to sql as
 * ", (SELECT value ...) AS "name"". 0, or an error code. */
static int swept_columns(sim_results *db, int64_t exp, char *sql, size_t n)
{
    sqlite3_stmt *st;
    int rc = prep(db, "SELECT DISTINCT entity_kind, entity_name, name FROM param "
                      "WHERE swept = 1 AND (?1 < 0 OR run_id IN (SELECT run_id FROM "
                      "run WHERE experiment_id = ?1)) ORDER BY entity_kind, "
                      "entity_name, name", &st);
    if (rc)
        return rc;
    sqlite3_bind_int64(st, 1, exp);
    char *k[MAX_SWEPT_COLS], *e[MAX_SWEPT_COLS], *nm[MAX_SWEPT_COLS];
    size_t nc = 0;
    while (nc < MAX_SWEPT_COLS && sqlite3_step(st) == SQLITE_ROW) {
        k[nc] = sqlite3_mprintf("%s", sqlite3_column_text(st, 0));
        e[nc] = sqlite3_mprintf("%s", sqlite3_column_text(st, 1));
        nm[nc] = sqlite3_mprintf("%s", sqlite3_column_text(st, 2));
        nc++;
    }
    sqlite3_finalize(st);
    rc = MTC_OK;
    for (size_t i = 0; i < nc; i++) {
        int clash = 0;
        for (size_t j = 0; j < nc && !clash; j++)
            clash = j != i && nm[j] && nm[i] && !strcmp(nm[j], nm[i]);
        for (size_t j = 0; view_cols[j] && !clash; j++)
            clash = nm[i] && !strcmp(view_cols[j], nm[i]);
        char *col = clash ? sqlite3_mprintf("%s.%s.%s", k[i], e[i], nm[i])
                          : sqlite3_mprintf("%s", nm[i]);
        char *one = sqlite3_mprintf(
            ", (SELECT p.value FROM param p WHERE p.run_id = v.run_id AND p.swept = 1 "
            "AND p.entity_kind = %Q AND p.entity_name = %Q AND p.name = %Q) AS \"%w\"",
            k[i], e[i], nm[i], col);
        size_t l = strlen(sql);
        if (!col || !one || l + strlen(one) + 1 > n)
            rc = fail(db, MTC_ERR_NOMEM, "swept columns: too many or too long");
        else
            memcpy(sql + l, one, strlen(one) + 1);
        sqlite3_free(one);
        sqlite3_free(col);
    }
    for (size_t i = 0; i < nc; i++) {
        sqlite3_free(k[i]);
        sqlite3_free(e[i]);
        sqlite3_free(nm[i]);
    }
    return rc;
}

/* The SELECT of a dump into sql; 0, -1 for a name that is neither a
 * table of the database nor one of the views, or an error code. */
static int dump_sql(sim_results *db, const char *table, int64_t exp, char *sql,
                    size_t n)
{
    for (size_t i = 0; i < NVIEWS; i++)
        if (!strcmp(views[i], table)) {
            /* the swept values as one text column (as before), then one
             * column per swept parameter */
            snprintf(sql, n,
                     "SELECT r.experiment_id, r.sweep_point, r.replication, "
                     "(SELECT group_concat(p.name || '=' || p.value, ' ') FROM "
                     "param p WHERE p.run_id = v.run_id AND p.swept = 1) AS swept");
            int rc = swept_columns(db, exp, sql, n);
            if (rc)
                return rc;
            size_t l = strlen(sql);
            snprintf(sql + l, n - l,
                     ", v.* FROM \"%s\" v JOIN run r USING (run_id) WHERE "
                     "(?1 < 0 OR r.experiment_id = ?1) AND (?2 IS NULL OR "
                     "instr(',' || ?2 || ',', ',' || v.metric || ',') > 0) AND "
                     "(?3 IS NULL OR v.cohort = ?3)", views[i]);
            return 0;
        }
    /* a table: one the database has (its name then comes from there) */
    char(*names)[64];
    size_t nn, nt;
    if (sim_results_table_names(db, &names, &nn, &nt))
        return -1;
    int found = -1;
    for (size_t i = 0; i < nt && found < 0; i++)
        if (!strcmp(names[i], table))
            found = (int)i;
    const char *where = NULL;
    for (size_t i = 0; i < sizeof filters / sizeof filters[0]; i++)
        if (!strcmp(filters[i].table, table))
            where = filters[i].where;
    if (found >= 0)
        snprintf(sql, n, "SELECT * FROM \"%s\"%s%s", names[found],
                 where ? " WHERE " : "", where ? where : "");
    free(names);
    return found >= 0 ? 0 : -1;
}

int sim_results_dump(sim_results *db, const char *table,
                     const sim_results_filter *f, sim_results_row_fn fn,
                     void *arg, int64_t *rows)
{
    if (!db || !table || !f || !fn || !rows)
        return MTC_ERR_ARG;
    *rows = 0;
    enum { SQL_MAX = 65536 };
    char *sql = malloc(SQL_MAX);
    if (!sql)
        return fail(db, MTC_ERR_NOMEM, "out of memory");
    int drc = strchr(table, '"') ? -1 : dump_sql(db, table, f->experiment, sql, SQL_MAX);
    if (drc) {
        free(sql);
        return drc < 0 ? fail(db, MTC_ERR_ARG, "no table or view named %s", table) : drc;
    }
    sqlite3_stmt *st;
    int rc = prep(db, sql, &st);
    free(sql);
    if (rc)
        return rc;
    int np = sqlite3_bind_parameter_count(st);
    if (np >= 1)
        sqlite3_bind_int64(st, 1, f->experiment);
    if (np >= 2 && f->metrics)
        sqlite3_bind_text(st, 2, f->metrics, -1, SQLITE_STATIC);
    if (np >= 3 && f->cohort)
        sqlite3_bind_text(st, 3, f->cohort, -1, SQLITE_STATIC);
    int nc = sqlite3_column_count(st);
    const char **names = calloc(nc ? (size_t)nc : 1, sizeof *names);
    sim_value *vals = calloc(nc ? (size_t)nc : 1, sizeof *vals);
    if (!names || !vals) {
        rc = fail(db, MTC_ERR_NOMEM, "out of memory");
        goto done;
    }
    for (int c = 0; c < nc; c++)
        names[c] = sqlite3_column_name(st, c);
    if (fn(arg, (size_t)nc, names, NULL)) {
        rc = fail(db, MTC_ERR_CALLBACK, "%s: the reader stopped", table);
        goto done;
    }
    int s;
    while ((s = sqlite3_step(st)) == SQLITE_ROW) {
        for (int c = 0; c < nc; c++) {
            sim_value *v = &vals[c];
            memset(v, 0, sizeof *v);
            switch (sqlite3_column_type(st, c)) {
            case SQLITE_INTEGER:
                v->type = SIM_VALUE_INT;
                v->i = sqlite3_column_int64(st, c);
                break;
            case SQLITE_FLOAT:
                v->type = SIM_VALUE_REAL;
                v->d = sqlite3_column_double(st, c);
                break;
            case SQLITE_BLOB:
                v->type = SIM_VALUE_BLOB;
                v->bytes = sqlite3_column_blob(st, c);
                v->len = (size_t)sqlite3_column_bytes(st, c);
                break;
            case SQLITE_TEXT:
                v->type = SIM_VALUE_TEXT;
                v->bytes = sqlite3_column_text(st, c);
                v->len = (size_t)sqlite3_column_bytes(st, c);
                break;
            default:
                v->type = SIM_VALUE_NULL;
            }
        }
        if (fn(arg, (size_t)nc, names, vals)) {
            rc = fail(db, MTC_ERR_CALLBACK, "%s: the reader stopped", table);
            goto done;
        }
        (*rows)++;
    }
    if (s != SQLITE_DONE)
        rc = db_fail(db, table);
done:
    free(names);
    free(vals);
    sqlite3_finalize(st);
    return rc;
}
