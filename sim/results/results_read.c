/*
 * results_read.c - the read API's experiments, runs, sweep points,
 * parameters, attributes and metric catalogue (sim/results_read.h).
 * Values of metrics (scalars, histograms, series, bins), summaries and
 * table dumps are in results_values.c.
 */
#include <stdlib.h>
#include <string.h>

#include "results_internal.h"
#include "sim/results_read.h"

int sim_results_read_begin(sim_results *db)
{
    if (!db)
        return MTC_ERR_ARG;
    return exec(db, "BEGIN");
}

int sim_results_read_end(sim_results *db)
{
    if (!db)
        return MTC_ERR_ARG;
    return exec(db, "COMMIT");
}

/* ---- experiments ---- */

static void experiment_of(sqlite3_stmt *st, sim_experiment_row *e)
{
    e->id = sqlite3_column_int64(st, 0);
    rd_text(st, 1, e->name, sizeof e->name);
    rd_text(st, 2, e->command_line, sizeof e->command_line);
    rd_text(st, 3, e->created_at, sizeof e->created_at);
    e->sweep_points = sqlite3_column_int64(st, 4);
    e->replications = sqlite3_column_int64(st, 5);
}

#define EXPERIMENT_COLS \
    "SELECT experiment_id, name, command_line, created_at, sweep_points, " \
    "replications FROM experiment "

int sim_results_experiments(sim_results *db, sim_experiment_row **rows,
                            size_t *n)
{
    RD_LIST(db, rows, n, EXPERIMENT_COLS "ORDER BY experiment_id", (void)0,
            experiment_of);
}

int sim_results_experiment(sim_results *db, int64_t exp, sim_experiment_row *out)
{
    if (!db || !out)
        return MTC_ERR_ARG;
    memset(out, 0, sizeof *out);
    out->id = -1;
    RD_ROW(db, EXPERIMENT_COLS "WHERE experiment_id = ?",
           sqlite3_bind_int64(st, 1, exp), experiment_of(st, out), "experiment");
}

/* An aggregate's one value (max, min) into *id unless it is NULL (no rows
 * aggregated). */
static void id_of(sqlite3_stmt *st, int64_t *id)
{
    if (sqlite3_column_type(st, 0) != SQLITE_NULL)
        *id = sqlite3_column_int64(st, 0);
}

int sim_results_latest_experiment(sim_results *db, int64_t *exp)
{
    if (!db || !exp)
        return MTC_ERR_ARG;
    *exp = -1;
    RD_ROW(db, "SELECT max(experiment_id) FROM experiment", (void)0,
           id_of(st, exp), "latest experiment");
}

/* ---- runs ---- */

static int status_of(const char *s)
{
    for (int k = SIM_RUN_RUNNING; k <= SIM_RUN_FAILED; k++)
        if (!strcmp(s, sim_run_status_name(k)))
            return k;
    return -1;
}

static void run_of(sqlite3_stmt *st, sim_run_row *r)
{
    char status[32];
    r->id = sqlite3_column_int64(st, 0);
    r->experiment_id = sqlite3_column_int64(st, 1);
    r->sweep_point = sqlite3_column_int64(st, 2);
    r->replication = sqlite3_column_int64(st, 3);
    r->seed = (uint64_t)sqlite3_column_int64(st, 4);
    rd_text(st, 5, status, sizeof status);
    r->status = status_of(status);
    r->has_reached = sqlite3_column_type(st, 6) != SQLITE_NULL;
    r->sim_reached = sqlite3_column_int64(st, 6);
    r->warmup_end = sqlite3_column_int64(st, 7);
    r->events = sqlite3_column_int64(st, 8);
    r->wall_time_s = rd_real(st, 9);
    r->pid = sqlite3_column_int64(st, 10);
    rd_text(st, 11, r->hostname, sizeof r->hostname);
    rd_text(st, 12, r->started_at, sizeof r->started_at);
    rd_text(st, 13, r->scenario_path, sizeof r->scenario_path);
    rd_text(st, 14, r->scenario_sha256, sizeof r->scenario_sha256);
    rd_text(st, 15, r->program_version, sizeof r->program_version);
    rd_text(st, 16, r->error, sizeof r->error);
}

#define RUN_COLS                                                             \
    "SELECT run_id, experiment_id, sweep_point, replication, seed, status, " \
    "sim_reached, warmup_end, events, wall_time_s, pid, hostname, "         \
    "started_at, scenario_path, scenario_sha256, program_version, error "   \
    "FROM run "

int sim_results_runs(sim_results *db, int64_t exp, sim_run_row **rows, size_t *n)
{
    RD_LIST(db, rows, n, RUN_COLS "WHERE experiment_id = ? ORDER BY run_id",
            sqlite3_bind_int64(st, 1, exp), run_of);
}

int sim_results_run(sim_results *db, int64_t run, sim_run_row *out)
{
    if (!db || !out)
        return MTC_ERR_ARG;
    memset(out, 0, sizeof *out);
    out->id = -1;
    RD_ROW(db, RUN_COLS "WHERE run_id = ?", sqlite3_bind_int64(st, 1, run),
           run_of(st, out), "run");
}

int sim_results_point_runs(sim_results *db, int64_t exp, int64_t point,
                           sim_run_ref **runs, size_t *n)
{
    if (!db || !runs || !n)
        return MTC_ERR_ARG;
    *runs = NULL;
    *n = 0;
    sqlite3_stmt *st;
    int rc = prep(db, "SELECT run_id, replication, seed FROM run WHERE "
                      "experiment_id = ? AND sweep_point = ? AND status = "
                      "'completed' ORDER BY replication, run_id", &st);
    if (rc)
        return rc;
    sqlite3_bind_int64(st, 1, exp);
    sqlite3_bind_int64(st, 2, point);
    size_t cap = 0;
    int s;
    while ((s = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t rep = sqlite3_column_int64(st, 1);
        if (*n && (*runs)[*n - 1].replication == rep) {   /* its latest run */
            (*runs)[*n - 1].run_id = sqlite3_column_int64(st, 0);
            (*runs)[*n - 1].seed = (uint64_t)sqlite3_column_int64(st, 2);
            continue;
        }
        if (rd_grow((void **)runs, &cap, *n, sizeof **runs)) {
            rc = fail(db, MTC_ERR_NOMEM, "out of memory");
            break;
        }
        (*runs)[*n].run_id = sqlite3_column_int64(st, 0);
        (*runs)[*n].replication = rep;
        (*runs)[*n].seed = (uint64_t)sqlite3_column_int64(st, 2);
        (*n)++;
    }
    if (!rc && s != SQLITE_DONE)
        rc = db_fail(db, "point runs");
    sqlite3_finalize(st);
    if (rc) {
        free(*runs);
        *runs = NULL;
        *n = 0;
    }
    return rc;
}

static void point_of(sqlite3_stmt *st, sim_point_row *p)
{
    p->point = sqlite3_column_int64(st, 0);
    p->first_run = sqlite3_column_int64(st, 1);
    p->replications = sqlite3_column_int64(st, 2);
    p->completed = sqlite3_column_int64(st, 3);
    p->failed = sqlite3_column_int64(st, 4);
    p->interrupted = sqlite3_column_int64(st, 5);
    p->completed_reps = sqlite3_column_int64(st, 6);
}

int sim_results_points(sim_results *db, int64_t exp, sim_point_row **rows,
                       size_t *n)
{
    RD_LIST(db, rows, n,
            "SELECT sweep_point, min(run_id), count(DISTINCT replication), "
            "sum(status = 'completed'), sum(status = 'failed'), "
            "sum(status = 'interrupted'), count(DISTINCT CASE WHEN status = "
            "'completed' THEN replication END) FROM run WHERE experiment_id = ? "
            "GROUP BY sweep_point ORDER BY sweep_point",
            sqlite3_bind_int64(st, 1, exp), point_of);
}

/* ---- parameters and attributes ---- */

static void param_of(sqlite3_stmt *st, sim_param_row *p)
{
    rd_text(st, 0, p->kind, sizeof p->kind);
    rd_text(st, 1, p->entity, sizeof p->entity);
    rd_text(st, 2, p->name, sizeof p->name);
    rd_text(st, 3, p->value, sizeof p->value);
    p->swept = sqlite3_column_int(st, 4) != 0;
    p->distinct = sqlite3_column_int64(st, 5);
}

int sim_results_run_params(sim_results *db, int64_t run, int swept_only,
                           sim_param_row **rows, size_t *n)
{
    RD_LIST(db, rows, n,
            "SELECT entity_kind, entity_name, name, value, swept, 0 FROM param "
            "WHERE run_id = ?1 AND (?2 = 0 OR swept = 1) ORDER BY entity_kind, "
            "entity_name, name",
            (sqlite3_bind_int64(st, 1, run), sqlite3_bind_int(st, 2, swept_only)),
            param_of);
}

int sim_results_experiment_params(sim_results *db, int64_t exp,
                                  sim_param_row **rows, size_t *n)
{
    RD_LIST(db, rows, n,
            "SELECT p.entity_kind, p.entity_name, p.name, p.value, p.swept, "
            "(SELECT count(DISTINCT q.value) FROM param q JOIN run r USING "
            "(run_id) WHERE r.experiment_id = ?1 AND q.entity_kind = "
            "p.entity_kind AND q.entity_name = p.entity_name AND q.name = "
            "p.name) FROM param p WHERE p.run_id = (SELECT min(run_id) FROM "
            "run WHERE experiment_id = ?1) ORDER BY p.entity_kind, "
            "p.entity_name, p.name",
            sqlite3_bind_int64(st, 1, exp), param_of);
}

static void attr_of(sqlite3_stmt *st, sim_attr_row *a)
{
    rd_text(st, 0, a->name, sizeof a->name);
    rd_text(st, 1, a->value, sizeof a->value);
}

int sim_results_attrs(sim_results *db, int64_t exp, const char *prefix,
                      int completed_only, sim_attr_row **rows, size_t *n)
{
    /* substr, not LIKE or GLOB: a prefix is compared as bytes */
    RD_LIST(db, rows, n,
            "SELECT DISTINCT a.name, a.value FROM run_attr a JOIN run r USING "
            "(run_id) WHERE r.experiment_id = ?1 AND (?3 = 0 OR r.status = "
            "'completed') AND substr(a.name, 1, length(?2)) = ?2 ORDER BY "
            "a.name, a.value",
            (sqlite3_bind_int64(st, 1, exp),
             sqlite3_bind_text(st, 2, prefix ? prefix : "", -1, SQLITE_STATIC),
             sqlite3_bind_int(st, 3, completed_only)),
            attr_of);
}

/* ---- the metric catalogue ---- */

static void metric_of(sqlite3_stmt *st, sim_metric_row *m)
{
    rd_text(st, 0, m->name, sizeof m->name);
    rd_text(st, 1, m->kind, sizeof m->kind);
    rd_text(st, 2, m->unit, sizeof m->unit);
    m->cohorts = sqlite3_column_int64(st, 3);
    m->series = sqlite3_column_int(st, 4) != 0;
    m->runs = sqlite3_column_int64(st, 5);
}

int sim_results_run_metrics(sim_results *db, int64_t run, sim_metric_row **rows,
                            size_t *n)
{
    RD_LIST(db, rows, n,
            "SELECT name, kind, unit, cohorts, series, 0 FROM metric WHERE "
            "run_id = ? ORDER BY name",
            sqlite3_bind_int64(st, 1, run), metric_of);
}

int sim_results_metric_info(sim_results *db, int64_t exp, const char *name,
                            sim_metric_row *out)
{
    if (!db || !name || !out)
        return MTC_ERR_ARG;
    memset(out, 0, sizeof *out);
    RD_ROW(db,
           "SELECT m.name, m.kind, m.unit, max(m.cohorts), max(m.series), "
           "count(*) FROM metric m JOIN run USING (run_id) WHERE experiment_id "
           "= ? AND status = 'completed' AND m.name = ? GROUP BY m.kind, m.unit "
           "ORDER BY 6 DESC",
           (sqlite3_bind_int64(st, 1, exp),
            sqlite3_bind_text(st, 2, name, -1, SQLITE_STATIC)),
           metric_of(st, out), "metric");
}

static void name_of(sqlite3_stmt *st, char (*name)[160])
{
    rd_text(st, 0, *name, sizeof *name);
}

int sim_results_metric_names(sim_results *db, int64_t exp, char (**names)[160],
                             size_t *n)
{
    RD_LIST(db, names, n,
            "SELECT DISTINCT m.name FROM metric m JOIN run USING (run_id) WHERE "
            "experiment_id = ? ORDER BY 1",
            sqlite3_bind_int64(st, 1, exp), name_of);
}

int sim_results_first_run(sim_results *db, int64_t exp, const char *metric,
                          int completed_only, int64_t *run)
{
    if (!db || !run)
        return MTC_ERR_ARG;
    *run = -1;
    RD_ROW(db,
           "SELECT min(run_id) FROM metric JOIN run USING (run_id) WHERE "
           "experiment_id = ?1 AND (?2 IS NULL OR name = ?2) AND (?3 = 0 OR "
           "status = 'completed')",
           (sqlite3_bind_int64(st, 1, exp), bind_text(st, 2, metric),
            sqlite3_bind_int(st, 3, completed_only)),
           id_of(st, run), "first run");
}

static void cohort_of(sqlite3_stmt *st, sim_cohort_row *c)
{
    c->index = sqlite3_column_int64(st, 0);
    rd_text(st, 1, c->label, sizeof c->label);
}

int sim_results_cohorts(sim_results *db, int64_t run, const char *metric,
                        sim_cohort_row **rows, size_t *n)
{
    RD_LIST(db, rows, n,
            "WITH m AS (SELECT metric_id FROM metric WHERE run_id = ?1 AND "
            "name = ?2) SELECT cohort_index, cohort FROM scalar WHERE "
            "metric_id IN m AND cohort_index >= 0 UNION SELECT cohort_index, "
            "cohort FROM histogram WHERE metric_id IN m AND cohort_index >= 0 "
            "UNION SELECT cohort_index, cohort FROM vector WHERE metric_id IN m "
            "AND cohort_index >= 0 ORDER BY 1",
            (sqlite3_bind_int64(st, 1, run),
             sqlite3_bind_text(st, 2, metric ? metric : "", -1, SQLITE_STATIC)),
            cohort_of);
}
