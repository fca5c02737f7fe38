/*
 * results_summary.c - replication summaries: per sweep point, the mean and
 * Student-t confidence interval of each statistic over the completed runs.
 * Kept apart because it reads stored runs back rather than writing a run.
 */
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "mtc/error.h"
#include "sim/results.h"
#include "results_internal.h"

/* Per completed run of the point: (metric, cohort, statistic, unit, value),
 * sorted so that the values of one summary row are consecutive. */
#define SUMMARY_SOURCE_SQL                                                   \
    "WITH r AS (SELECT run_id FROM run WHERE experiment_id = ?1 AND "        \
    "  sweep_point = ?2 AND status = 'completed'), "                         \
    "m AS (SELECT metric.* FROM metric JOIN r USING (run_id)), "             \
    "h AS (SELECT m.name, m.unit, h.* FROM histogram h JOIN m "              \
    "  USING (metric_id)) "                                                  \
    "SELECT m.name, s.cohort, 'value', m.unit, s.value FROM scalar s JOIN m " \
    "  USING (metric_id) WHERE s.value IS NOT NULL "                         \
    "UNION ALL SELECT name, cohort, 'count', unit, count FROM h "            \
    "UNION ALL SELECT name, cohort, 'mean', unit, mean FROM h "              \
    "  WHERE mean IS NOT NULL "                                              \
    "UNION ALL SELECT name, cohort, 'p50', unit, p50 FROM h "                \
    "  WHERE p50 IS NOT NULL "                                               \
    "UNION ALL SELECT name, cohort, 'p90', unit, p90 FROM h "                \
    "  WHERE p90 IS NOT NULL "                                               \
    "UNION ALL SELECT name, cohort, 'p99', unit, p99 FROM h "                \
    "  WHERE p99 IS NOT NULL "                                               \
    "ORDER BY 1, 2, 3"

static int same_key(sqlite3_stmt *q, const char *key[3])
{
    for (int i = 0; i < 3; i++) {
        const char *t = (const char *)sqlite3_column_text(q, i);
        if (!t || strcmp(t, key[i]))
            return 0;
    }
    return 1;
}

static int put_summary(sim_results *r, sqlite3_stmt *ins, int64_t exp,
                       int64_t point, char *key[4], const double *x,
                       size_t n, double level)
{
    sim_ci ci;
    sqlite3_bind_int64(ins, 1, exp);
    sqlite3_bind_int64(ins, 2, point);
    for (int i = 0; i < 4; i++)
        bind_text(ins, 3 + i, key[i]);
    sqlite3_bind_int64(ins, 7, (int64_t)n);
    if (n >= 2 && sim_ci_student(x, n, level, &ci) == MTC_OK) {
        bind_real(ins, 8, ci.mean);
        bind_real(ins, 9, ci.sd);
        sqlite3_bind_double(ins, 10, level);
        bind_real(ins, 11, ci.half_width);
        bind_real(ins, 12, ci.lo);
        bind_real(ins, 13, ci.hi);
    } else {
        bind_real(ins, 8, x[0]);
    }
    return step_done(r, ins, "insert summary");
}

int sim_results_summarize(sim_results *db, int64_t experiment_id,
                          int64_t sweep_point, double level)
{
    sqlite3_stmt *q = NULL, *ins = NULL, *del = NULL;
    char *key[4] = {NULL, NULL, NULL, NULL};
    double *x = NULL;
    size_t n = 0, cap = 0;
    int rc, s;
    if (!db)
        return MTC_ERR_ARG;
    if (!(level > 0 && level < 1))
        return fail(db, MTC_ERR_ARG, "summarize: level %g not in (0, 1)",
                    level);
    if ((rc = writable(db)) || (rc = sim_results_flush(db)))
        return rc;
    if ((rc = exec(db, "BEGIN IMMEDIATE")))
        return rc;
    if ((rc = prep(db, "DELETE FROM summary WHERE experiment_id = ? AND "
                       "sweep_point = ?", &del)) ||
        (rc = prep(db, SUMMARY_SOURCE_SQL, &q)) ||
        (rc = prep(db, "INSERT INTO summary (experiment_id, sweep_point, "
                       "metric, cohort, statistic, unit, n, mean, stddev, "
                       "ci_level, ci_half_width, ci_lo, ci_hi) VALUES "
                       "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", &ins)))
        goto done;
    sqlite3_bind_int64(del, 1, experiment_id);
    sqlite3_bind_int64(del, 2, sweep_point);
    if ((rc = step_done(db, del, "delete summary")))
        goto done;
    sqlite3_bind_int64(q, 1, experiment_id);
    sqlite3_bind_int64(q, 2, sweep_point);
    while ((s = sqlite3_step(q)) == SQLITE_ROW) {
        if (key[0] && !same_key(q, (const char **)key)) {
            if ((rc = put_summary(db, ins, experiment_id, sweep_point, key, x,
                                  n, level)))
                goto done;
            n = 0;
        }
        if (n == 0) {
            for (int i = 0; i < 4; i++) {
                const char *t = (const char *)sqlite3_column_text(q, i);
                free(key[i]);
                key[i] = strdup(t ? t : "");
                if (!key[i]) {
                    rc = fail(db, MTC_ERR_NOMEM, "out of memory");
                    goto done;
                }
            }
        }
        if (n == cap) {
            size_t nc = cap ? 2 * cap : 16;
            double *p = realloc(x, nc * sizeof *p);
            if (!p) {
                rc = fail(db, MTC_ERR_NOMEM, "out of memory");
                goto done;
            }
            x = p;
            cap = nc;
        }
        x[n++] = sqlite3_column_double(q, 4);
    }
    if (s != SQLITE_DONE) {
        rc = db_fail(db, "summary query");
        goto done;
    }
    if (n > 0)
        rc = put_summary(db, ins, experiment_id, sweep_point, key, x, n,
                         level);
done:
    sqlite3_finalize(q);
    sqlite3_finalize(ins);
    sqlite3_finalize(del);
    for (int i = 0; i < 4; i++)
        free(key[i]);
    free(x);
    return end_transaction(db, rc);
}
