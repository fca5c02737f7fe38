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
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* Run ids left "running" with no writer at work (sim_results_stale_runs:
 * a process killed outright, on this host or another). */
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

/* Database text escaped into eb[i] (safetext.h). */
#define ESC(text, i) safetext((text), eb[i], sizeof eb[i])

static void ls_points(sim_results *db, int64_t exp)
{
    char eb[2][2048];   /* database text, escaped (ESC) */
    sim_point_row *pts;
    size_t np;
    if (sim_results_points(db, exp, &pts, &np) != MTC_OK)
        return;
    printf("  %5s %6s %9s %6s %11s  %s\n", "point", "reps", "completed",
           "failed", "interrupted", "swept values");
    for (size_t i = 0; i < np; i++) {
        printf("  %5lld %6lld %9lld %6lld %11lld  ", (long long)pts[i].point,
               (long long)pts[i].replications, (long long)pts[i].completed,
               (long long)pts[i].failed, (long long)pts[i].interrupted);
        sim_param_row *ps;
        size_t n = 0;
        if (sim_results_run_params(db, pts[i].first_run, 1, &ps, &n) != MTC_OK)
            ps = NULL;
        for (size_t k = 0; ps && k < n; k++)
            printf("%s%s=%s", k ? " " : "", ESC(ps[k].name, 0), ESC(ps[k].value, 1));
        printf("%s\n", n ? "" : "(no swept parameter)");
        free(ps);
    }
    free(pts);
}

static void ls_runs(const sim_run_row *runs, size_t nruns, const stale_set *stale)
{
    char eb[2][2048];   /* database text, escaped (ESC) */
    printf("  runs:\n  %6s %5s %4s %20s %-12s %12s %9s  %s\n", "run", "point",
           "rep", "seed", "status", "events", "wall_s", "error");
    for (size_t i = 0; i < nruns; i++) {
        const sim_run_row *x = &runs[i];
        char wall[32] = "";
        if (!isnan(x->wall_time_s))
            snprintf(wall, sizeof wall, "%.2f", x->wall_time_s);
        const char *status = x->status >= 0 ? sim_run_status_name(x->status) : "?";
        printf("  %6lld %5lld %4lld %20llu %-12s %12lld %9s  %s\n", (long long)x->id,
               (long long)x->sweep_point, (long long)x->replication,
               (unsigned long long)x->seed,
               x->status == SIM_RUN_RUNNING && is_stale(stale, x->id)
                   ? "abandoned" : ESC(status, 1),
               (long long)x->events, wall,
               x->status == SIM_RUN_RUNNING && is_stale(stale, x->id)
                   ? ABANDONED_WHY : ESC(x->error, 0));
    }
}

static void ls_params(sim_results *db, int64_t exp)
{
    char eb[4][2048];   /* database text, escaped (ESC) */
    sim_param_row *ps;
    size_t n;
    if (sim_results_experiment_params(db, exp, &ps, &n) != MTC_OK)
        return;
    printf("  parameters (first run; * differs between runs):\n");
    /* the scenario's own parameters first, then the entities' */
    for (int pass = 0; pass < 2; pass++)
        for (size_t i = 0; i < n; i++) {
            if ((pass == 0) != !strcmp(ps[i].kind, "scenario"))
                continue;
            printf("  %c %-16s %-16s %-28s %s\n", ps[i].distinct > 1 ? '*' : ' ',
                   ESC(ps[i].kind, 0), ESC(ps[i].entity, 1), ESC(ps[i].name, 2),
                   ESC(ps[i].value, 3));
        }
    free(ps);
}

static void ls_metrics(sim_results *db, int64_t exp)
{
    char eb[4][2048];   /* database text, escaped (ESC) */
    int64_t run;
    sim_metric_row *m = NULL;
    size_t n = 0;
    if (sim_results_first_run(db, exp, NULL, 0, &run) != MTC_OK ||
        (run >= 0 && sim_results_run_metrics(db, run, &m, &n) != MTC_OK)) {
        fprintf(stderr, "mtcsim ls: %s\n", sim_results_errmsg(db));
        return;
    }
    printf("  metrics:\n  %-36s %-9s %-13s %6s  %s\n", "name", "kind", "unit",
           "series", "cohorts");
    for (size_t i = 0; i < n; i++) {
        char cohorts[2048] = "";
        sim_cohort_row *c;
        size_t nc;
        if (m[i].cohorts > 1 && sim_results_cohorts(db, run, m[i].name, &c, &nc) == MTC_OK) {
            for (size_t k = 0; k < nc; k++) {
                size_t l = strlen(cohorts);
                snprintf(cohorts + l, sizeof cohorts - l, "%s%s", k ? "," : "",
                         c[k].label);
            }
            free(c);
        }
        printf("  %-36s %-9s %-13s %6s  %s\n", ESC(m[i].name, 0), ESC(m[i].kind, 1),
               ESC(m[i].unit, 2), m[i].series ? "yes" : "no",
               m[i].cohorts > 1 ? ESC(cohorts, 3) : "(total only)");
    }
    free(m);
}

/* One experiment: header, counts, points, and the sections asked for. */
static void ls_experiment(sim_results *db, const sim_experiment_row *e,
                          const stale_set *stale, int show)
{
    char eb[3][2048];   /* database text, escaped (ESC) */
    int64_t exp = e->id, npts = e->sweep_points, reps = e->replications;
    printf("experiment %lld: %s  (%s)\n", (long long)exp, ESC(e->name, 0),
           ESC(e->created_at, 1));
    printf("  command: %s\n", ESC(e->command_line, 0));
    sim_run_row *runs = NULL;
    size_t nruns = 0;
    if (sim_results_runs(db, exp, &runs, &nruns) != MTC_OK)
        nruns = 0;
    for (size_t i = 0; i < nruns; i++) {
        const sim_run_row *x = &runs[i];
        if (rdb_new_provenance(runs, i))
            printf("  scenario: %s  sha256 %.16s  mtcsim %s\n",
                   ESC(x->scenario_path[0] ? x->scenario_path : "(none)", 0),
                   ESC(x->scenario_sha256, 1), ESC(x->program_version, 2));
    }
    long long c[5] = {0, 0, 0, 0, 0}, done = 0, abandoned = 0;
    for (size_t i = 0; i < nruns; i++) {
        int st = runs[i].status;
        if (st == SIM_RUN_COMPLETED)
            c[0]++;
        else if (st == SIM_RUN_FAILED)
            c[1]++;
        else if (st == SIM_RUN_INTERRUPTED)
            c[2]++;
        else if (is_stale(stale, runs[i].id))
            abandoned++;
        else
            c[3]++;
    }
    sim_point_row *pts;
    size_t np;
    if (sim_results_points(db, exp, &pts, &np) == MTC_OK) {
        for (size_t i = 0; i < np; i++)
            done += pts[i].completed_reps;
        free(pts);
    }
    long long planned = (long long)(npts * reps);
    printf("  grid: %lld sweep point%s x %lld replication%s = %lld runs: %lld "
           "completed, %lld failed, %lld interrupted, %lld running, %lld "
           "abandoned; %lld to do%s\n",
           (long long)npts, npts == 1 ? "" : "s", (long long)reps,
           reps == 1 ? "" : "s", planned, c[0], c[1], c[2], c[3], abandoned,
           planned > done ? planned - done : 0,
           planned > done && !c[3] ? " (mtcsim run SCENARIO --resume FILE.db)" : "");
    ls_points(db, exp);
    if (show & SHOW_RUNS)
        ls_runs(runs, nruns, stale);
    if (show & SHOW_PARAMS)
        ls_params(db, exp);
    if (show & SHOW_METRICS)
        ls_metrics(db, exp);
    free(runs);
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
    sim_results *db = res;
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
    sim_results_read_begin(db);
    sim_experiment_row *ex;
    size_t nex;
    if (sim_results_experiments(db, &ex, &nex) != MTC_OK) {
        fprintf(stderr, "mtcsim ls: %s: %s\n", path, sim_results_errmsg(db));
        status = HOST_FAIL;
    } else {
        int k = 0;
        for (size_t i = 0; i < nex; i++) {
            if (exp >= 0 && ex[i].id != exp)
                continue;
            if (k++)
                printf("\n");
            ls_experiment(db, &ex[i], &stale, show);
        }
        if (!k)
            printf("%s holds no experiment yet\n", path);
        free(ex);
    }
    sim_results_read_end(db);
    free(stale.ids);
    sim_results_close(res);
    return status;
}
