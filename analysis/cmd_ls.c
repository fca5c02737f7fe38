/*
 * cmd_ls.c - `mtcsim ls FILE.db`: what a results database holds, without
 * SQL: its experiments, their sweep points with the swept values, run
 * status counts (and what is missing), and on request every run, every
 * parameter and every metric (the names `mtcsim plot` and `compare` take).
 *
 * Read-only, like report and export. Runs left "running" by a process that
 * is gone are shown as abandoned (sim_results_stale_runs), so a researcher
 * sees at once what `mtcsim run --resume` would redo. Every text from the
 * database is printed escaped (safetext.h): a shared database is data.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "analysis.h"
#include "mtc/error.h"
#include "rdb.h"
#include "safetext.h"

enum { SHOW_RUNS = 1, SHOW_PARAMS = 2, SHOW_METRICS = 4 };

static void usage(FILE *f)
{
    fprintf(f,
        "usage: mtcsim ls FILE.db [--experiment N] [--runs] [--params] [--metrics]\n\n"
        "Lists the experiments of a results database: scenario, command, grid,\n"
        "run status counts (completed, failed, interrupted, running, abandoned,\n"
        "missing) and each sweep point with its swept values.\n\n"
        "  --experiment N  only experiment N, with its runs, parameters and metrics\n"
        "  --runs          every run: id, point, replication, seed, status, events,\n"
        "                  wall time, error\n"
        "  --params        every parameter of the experiment's first run; '*' marks\n"
        "                  those that differ between runs (the swept ones)\n"
        "  --metrics       every metric: name, kind, unit, cohorts, series (the\n"
        "                  names mtcsim plot and mtcsim compare take)\n\n"
        "The database is opened read-only. Exit status 0, or 2 for a missing,\n"
        "foreign or corrupt file or an unknown experiment.\n");
}

/* Run ids left "running" by a process that is gone (this host only). */
typedef struct stale_set {
    int64_t *ids;
    size_t n;
} stale_set;

static int is_stale(const stale_set *s, int64_t id)
{
    for (size_t i = 0; i < s->n; i++)
        if (s->ids[i] == id)
            return 1;
    return 0;
}

/* Column c of st as text escaped into eb[i] (safetext.h). */
#define ESC(st, c, i) safetext(col_text(st, c), eb[i], sizeof eb[i])

static const char *col_text(sqlite3_stmt *st, int c)
{
    const char *t = (const char *)sqlite3_column_text(st, c);
    return t ? t : "";
}

static void ls_points(sqlite3 *db, int64_t exp, const stale_set *stale)
{
    char eb[6][2048];   /* database text, escaped (ESC) */
    sqlite3_stmt *st, *pq;
    if (sqlite3_prepare_v2(db,
                           "SELECT sweep_point, count(DISTINCT replication), "
                           "sum(status = 'completed'), sum(status = 'failed'), "
                           "sum(status = 'interrupted'), min(run_id) FROM run "
                           "WHERE experiment_id = ? GROUP BY sweep_point ORDER BY 1",
                           -1, &st, NULL) != SQLITE_OK)
        return;
    if (sqlite3_prepare_v2(db,
                           "SELECT name, value FROM param WHERE run_id = ? AND "
                           "swept = 1 ORDER BY entity_kind, entity_name, name",
                           -1, &pq, NULL) != SQLITE_OK) {
        sqlite3_finalize(st);
        return;
    }
    printf("  %5s %6s %9s %6s %11s  %s\n", "point", "reps", "completed",
           "failed", "interrupted", "swept values");
    sqlite3_bind_int64(st, 1, exp);
    while (sqlite3_step(st) == SQLITE_ROW) {
        printf("  %5lld %6lld %9lld %6lld %11lld  ",
               (long long)sqlite3_column_int64(st, 0),
               (long long)sqlite3_column_int64(st, 1),
               (long long)sqlite3_column_int64(st, 2),
               (long long)sqlite3_column_int64(st, 3),
               (long long)sqlite3_column_int64(st, 4));
        sqlite3_reset(pq);
        sqlite3_bind_int64(pq, 1, sqlite3_column_int64(st, 5));
        int any = 0;
        while (sqlite3_step(pq) == SQLITE_ROW)
            printf("%s%s=%s", any++ ? " " : "", ESC(pq, 0, 0), ESC(pq, 1, 1));
        printf("%s\n", any ? "" : "(no swept parameter)");
    }
    (void)stale;
    sqlite3_finalize(pq);
    sqlite3_finalize(st);
}

static void ls_runs(sqlite3 *db, int64_t exp, const stale_set *stale)
{
    char eb[6][2048];   /* database text, escaped (ESC) */
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db,
                           "SELECT run_id, sweep_point, replication, seed, status, "
                           "events, wall_time_s, error FROM run WHERE "
                           "experiment_id = ? ORDER BY run_id", -1, &st,
                           NULL) != SQLITE_OK)
        return;
    printf("  runs:\n  %6s %5s %4s %20s %-12s %12s %9s  %s\n", "run", "point",
           "rep", "seed", "status", "events", "wall_s", "error");
    sqlite3_bind_int64(st, 1, exp);
    while (sqlite3_step(st) == SQLITE_ROW) {
        int64_t id = sqlite3_column_int64(st, 0);
        const char *status = col_text(st, 4);
        char wall[32] = "";
        if (sqlite3_column_type(st, 6) != SQLITE_NULL)
            snprintf(wall, sizeof wall, "%.2f", sqlite3_column_double(st, 6));
        printf("  %6lld %5lld %4lld %20llu %-12s %12lld %9s  %s\n", (long long)id,
               (long long)sqlite3_column_int64(st, 1),
               (long long)sqlite3_column_int64(st, 2),
               (unsigned long long)sqlite3_column_int64(st, 3),
               !strcmp(status, "running") && is_stale(stale, id)
                   ? "abandoned" : safetext(status, eb[1], sizeof eb[1]),
               (long long)sqlite3_column_int64(st, 5), wall, ESC(st, 7, 0));
    }
    sqlite3_finalize(st);
}

static void ls_params(sqlite3 *db, int64_t exp)
{
    char eb[6][2048];   /* database text, escaped (ESC) */
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db,
                           "SELECT p.entity_kind, p.entity_name, p.name, p.value, "
                           "(SELECT count(DISTINCT q.value) FROM param q JOIN run "
                           "r USING (run_id) WHERE r.experiment_id = ?1 AND "
                           "q.entity_kind = p.entity_kind AND q.entity_name = "
                           "p.entity_name AND q.name = p.name) FROM param p "
                           "WHERE p.run_id = (SELECT min(run_id) FROM run WHERE "
                           "experiment_id = ?1) ORDER BY p.entity_kind = "
                           "'scenario' DESC, p.entity_kind, p.entity_name, p.name",
                           -1, &st, NULL) != SQLITE_OK)
        return;
    printf("  parameters (first run; * differs between runs):\n");
    sqlite3_bind_int64(st, 1, exp);
    while (sqlite3_step(st) == SQLITE_ROW)
        printf("  %c %-16s %-16s %-28s %s\n",
               sqlite3_column_int64(st, 4) > 1 ? '*' : ' ', ESC(st, 0, 0),
               ESC(st, 1, 1), ESC(st, 2, 2), ESC(st, 3, 3));
    sqlite3_finalize(st);
}

static void ls_metrics(sqlite3 *db, int64_t exp)
{
    char eb[6][2048];   /* database text, escaped (ESC) */
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db,
                           "SELECT m.name, m.kind, m.unit, m.cohorts, m.series, "
                           "(SELECT group_concat(c, ',') FROM (SELECT cohort_index AS "
                           "i, cohort AS c FROM scalar s WHERE s.metric_id = "
                           "m.metric_id AND cohort_index >= 0 UNION SELECT "
                           "cohort_index, cohort FROM histogram h WHERE h.metric_id "
                           "= m.metric_id AND cohort_index >= 0 ORDER BY 1)) FROM "
                           "metric m WHERE m.run_id = (SELECT min(run_id) FROM "
                           "metric JOIN run USING (run_id) WHERE experiment_id = ?) "
                           "ORDER BY m.name", -1, &st,
                           NULL) != SQLITE_OK) {
        fprintf(stderr, "mtcsim ls: %s\n", sqlite3_errmsg(db));
        return;
    }
    printf("  metrics:\n  %-36s %-9s %-13s %6s  %s\n", "name", "kind", "unit",
           "series", "cohorts");
    sqlite3_bind_int64(st, 1, exp);
    while (sqlite3_step(st) == SQLITE_ROW)
        printf("  %-36s %-9s %-13s %6s  %s\n", ESC(st, 0, 0), ESC(st, 1, 1),
               ESC(st, 2, 2), sqlite3_column_int64(st, 4) ? "yes" : "no",
               sqlite3_column_int64(st, 3) > 1 ? ESC(st, 5, 3) : "(total only)");
    sqlite3_finalize(st);
}

/* One experiment: header, counts, points, and the sections asked for. */
static void ls_experiment(sqlite3 *db, sqlite3_stmt *ex, const stale_set *stale,
                          int show)
{
    char eb[6][2048];   /* database text, escaped (ESC) */
    int64_t exp = sqlite3_column_int64(ex, 0);
    int64_t npts = sqlite3_column_int64(ex, 4), reps = sqlite3_column_int64(ex, 5);
    printf("experiment %lld: %s  (%s)\n", (long long)exp, ESC(ex, 1, 0),
           ESC(ex, 3, 1));
    printf("  command: %s\n", ESC(ex, 2, 0));
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db,
                           "SELECT DISTINCT coalesce(scenario_path, '(none)'), "
                           "coalesce(scenario_sha256, ''), program_version FROM run "
                           "WHERE experiment_id = ? ORDER BY run_id", -1, &st,
                           NULL) == SQLITE_OK) {
        sqlite3_bind_int64(st, 1, exp);
        while (sqlite3_step(st) == SQLITE_ROW)
            printf("  scenario: %s  sha256 %.16s  mtcsim %s\n", ESC(st, 0, 0),
                   ESC(st, 1, 1), ESC(st, 2, 2));
        sqlite3_finalize(st);
    }
    long long c[5] = {0, 0, 0, 0, 0}, done = 0, abandoned = 0;
    if (sqlite3_prepare_v2(db,
                           "SELECT run_id, status FROM run WHERE experiment_id = ?",
                           -1, &st, NULL) == SQLITE_OK) {
        sqlite3_bind_int64(st, 1, exp);
        while (sqlite3_step(st) == SQLITE_ROW) {
            const char *s = col_text(st, 1);
            if (!strcmp(s, "completed"))
                c[0]++;
            else if (!strcmp(s, "failed"))
                c[1]++;
            else if (!strcmp(s, "interrupted"))
                c[2]++;
            else if (is_stale(stale, sqlite3_column_int64(st, 0)))
                abandoned++;
            else
                c[3]++;
        }
        sqlite3_finalize(st);
    }
    if (sqlite3_prepare_v2(db,
                           "SELECT count(*) FROM (SELECT DISTINCT sweep_point, "
                           "replication FROM run WHERE experiment_id = ? AND "
                           "status = 'completed')", -1, &st, NULL) == SQLITE_OK) {
        sqlite3_bind_int64(st, 1, exp);
        if (sqlite3_step(st) == SQLITE_ROW)
            done = sqlite3_column_int64(st, 0);
        sqlite3_finalize(st);
    }
    long long planned = (long long)(npts * reps);
    printf("  grid: %lld sweep point%s x %lld replication%s = %lld runs: %lld "
           "completed, %lld failed, %lld interrupted, %lld running, %lld "
           "abandoned; %lld to do%s\n",
           (long long)npts, npts == 1 ? "" : "s", (long long)reps,
           reps == 1 ? "" : "s", planned, c[0], c[1], c[2], c[3], abandoned,
           planned > done ? planned - done : 0,
           planned > done && !c[3] ? " (mtcsim run SCENARIO --resume FILE.db)" : "");
    ls_points(db, exp, stale);
    if (show & SHOW_RUNS)
        ls_runs(db, exp, stale);
    if (show & SHOW_PARAMS)
        ls_params(db, exp);
    if (show & SHOW_METRICS)
        ls_metrics(db, exp);
}

int cmd_ls(int argc, char **argv)
{
    const char *path = NULL;
    int64_t exp = -1;
    int show = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            usage(stdout);
            return HOST_OK;
        } else if (!strcmp(argv[i], "--experiment") && i + 1 < argc) {
            if (rdb_parse_id("ls", argv[i], argv[i + 1], &exp) != HOST_OK)
                return HOST_USAGE;
            i++;
        } else if (!strcmp(argv[i], "--runs")) {
            show |= SHOW_RUNS;
        } else if (!strcmp(argv[i], "--params")) {
            show |= SHOW_PARAMS;
        } else if (!strcmp(argv[i], "--metrics")) {
            show |= SHOW_METRICS;
        } else if (argv[i][0] == '-' && argv[i][1]) {
            fprintf(stderr, "mtcsim ls: unknown or incomplete option '%s'\n", argv[i]);
            usage(stderr);
            return HOST_USAGE;
        } else if (!path) {
            path = argv[i];
        } else {
            fprintf(stderr, "mtcsim ls: unexpected argument '%s'\n", argv[i]);
            return HOST_USAGE;
        }
    }
    if (!path) {
        fprintf(stderr, "mtcsim ls: missing FILE.db\n");
        usage(stderr);
        return HOST_USAGE;
    }
    sim_results *res = NULL;
    if (rdb_open("ls", path, &res) != HOST_OK)
        return HOST_USAGE;
    sqlite3 *db = sim_results_sqlite(res);
    int status = HOST_OK;
    if (exp >= 0 && !rdb_experiment_exists(db, exp)) {
        fprintf(stderr, "mtcsim ls: %s has no experiment %lld\n", path, (long long)exp);
        sim_results_close(res);
        return HOST_USAGE;
    }
    if (exp >= 0 && !show)
        show = SHOW_RUNS | SHOW_PARAMS | SHOW_METRICS;
    stale_set stale = {NULL, 0};
    size_t n = 0;
    if (sim_results_stale_runs(res, NULL, 0, &n) == MTC_OK && n) {
        stale.ids = calloc(n, sizeof *stale.ids);
        if (stale.ids && sim_results_stale_runs(res, stale.ids, n, &stale.n) != MTC_OK)
            stale.n = 0;
        if (stale.n > n)
            stale.n = n;
    }
    /* One read transaction: a consistent listing while a run appends. */
    sqlite3_exec(db, "BEGIN", NULL, NULL, NULL);
    sqlite3_stmt *ex;
    if (sqlite3_prepare_v2(db,
                           "SELECT experiment_id, name, coalesce(command_line, ''), "
                           "created_at, sweep_points, replications FROM experiment "
                           "WHERE ?1 < 0 OR experiment_id = ?1 ORDER BY 1", -1,
                           &ex, NULL) != SQLITE_OK) {
        fprintf(stderr, "mtcsim ls: %s: %s\n", path, sqlite3_errmsg(db));
        status = HOST_FAIL;
    } else {
        sqlite3_bind_int64(ex, 1, exp);
        int k = 0;
        while (sqlite3_step(ex) == SQLITE_ROW) {
            if (k++)
                printf("\n");
            ls_experiment(db, ex, &stale, show);
        }
        if (!k)
            printf("%s holds no experiment yet\n", path);
        sqlite3_finalize(ex);
    }
    sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
    free(stale.ids);
    sim_results_close(res);
    return status;
}
