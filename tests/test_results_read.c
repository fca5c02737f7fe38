/*
 * test_results_read.c - the results database's read API (sim/results_read.h)
 * against what the writer stored and against SQL on the same file: the
 * catalogue (experiments, runs and their status, sweep points, a resumed
 * replication counted once, parameters with their variation, attributes
 * by prefix), values by run and cohort (scalars, histograms, series),
 * bins pooled over a point's completed runs, and table dumps with filters.
 */
#include "test.h"

#include <math.h>
#include <unistd.h>

#include <sqlite3.h>

#include "mtc/error.h"
#include "sim/engine.h"
#include "sim/metrics.h"
#include "sim/results.h"
#include "sim/results_read.h"
#include "lib/db_files.h"

static char path[512];

/* One run's registry: a counter with two cohorts and a series, and a
 * histogram; the values depend on (point, rep) so every run differs. */
static int store_run(sim_results *db, int64_t exp, int64_t point, int64_t rep,
                     int status, int64_t *run_out)
{
    sim_engine *eng;
    sim_metrics *m;
    sim_metric *c, *h;
    sim_metrics_config cfg = {0, 0, 10 * SIM_SEC, 0};
    const char *labels[] = {"alpha", "beta"};
    int rc;
    if ((rc = sim_engine_create(&eng, NULL)))
        return rc;
    if ((rc = sim_metrics_create(&m, &cfg, sim_engine_clock(eng))) ||
        (rc = sim_metrics_counter(m, "hits", "things", 2, SIM_METRIC_SERIES, &c)) ||
        (rc = sim_metrics_histogram(m, "lat", "s", 2, 0, 1, 1000, 10, &h)) ||
        (rc = sim_metric_set_cohort_labels(c, labels, 2)) ||
        (rc = sim_metric_set_cohort_labels(h, labels, 2)))
        return rc;
    for (int step = 0; step < 20; step++) {
        sim_engine_set_stop_time(eng, step * 3 * SIM_SEC + 1);
        sim_engine_run(eng);
        sim_counter_add(c, (size_t)(step % 2), step + 1 + point * 100 + rep);
        sim_hist_observe(h, (size_t)(step % 2), 1.5 + step + point + 0.25 * (double)rep);
    }
    sim_metrics_finish(m, 60 * SIM_SEC);
    sim_run_info ri = {exp, point, rep, (uint64_t)(7 + rep), NULL, NULL, "test",
                       0, 60 * SIM_SEC};
    int64_t run;
    char val[32];
    snprintf(val, sizeof val, "%lld", (long long)(3600 * (point + 1)));
    if ((rc = sim_results_run_begin(db, &ri, &run)) ||
        (rc = sim_results_add_param(db, run, "ca", "le", "landmark_interval", val)) ||
        (rc = sim_results_add_param(db, run, "scenario", "", "fixed", "same")) ||
        (rc = sim_results_mark_swept(db, run, "ca", "le", "landmark_interval")) ||
        (rc = sim_results_add_attr(db, run, "action.0", "3600 fail w1")) ||
        (rc = sim_results_add_attr(db, run, "loaded:lib.lua", "abc")) ||
        (rc = sim_results_store_metrics(db, run, m)) ||
        (rc = sim_results_run_end(db, run, status, 60 * SIM_SEC, 99,
                                  status == SIM_RUN_FAILED ? "it broke" : NULL)))
        return rc;
    sim_metrics_destroy(m);
    sim_engine_destroy(eng);
    *run_out = run;
    return MTC_OK;
}

/* Experiment 1: 2 points x 2 replications, replication 1 of point 0
 * completed twice (a resume), one failed run at point 1; experiment 2:
 * one run. */
static int build(void)
{
    const char *base = getenv("TMPDIR");
    snprintf(path, sizeof path, "%s/mtc_read_%d.db", base && *base ? base : "/tmp",
             (int)getpid());
    unlink(path);
    char err[512];
    sim_results *db;
    int rc = sim_results_open(path, SIM_RESULTS_CREATE, &db, err, sizeof err);
    if (rc)
        return rc;
    sim_experiment_info e1 = {"sweep", "mtcsim run sweep.lua", 2, 2};
    sim_experiment_info e2 = {"other", NULL, 1, 1};
    int64_t x1, x2, run;
    if ((rc = sim_results_experiment_begin(db, &e1, &x1)))
        return rc;
    static const int plan[][3] = {{0, 0, SIM_RUN_COMPLETED}, {0, 1, SIM_RUN_COMPLETED},
                                  {1, 0, SIM_RUN_COMPLETED}, {1, 1, SIM_RUN_FAILED},
                                  {1, 1, SIM_RUN_COMPLETED}, {0, 1, SIM_RUN_COMPLETED}};
    for (size_t i = 0; i < sizeof plan / sizeof plan[0]; i++)
        if ((rc = store_run(db, x1, plan[i][0], plan[i][1], plan[i][2], &run)))
            return rc;
    if ((rc = sim_results_experiment_begin(db, &e2, &x2)) ||
        (rc = store_run(db, x2, 0, 0, SIM_RUN_COMPLETED, &run)))
        return rc;
    return sim_results_close(db);
}

static sim_results *open_ro(void)
{
    char err[512];
    sim_results *db = NULL;
    if (sim_results_open(path, SIM_RESULTS_READ, &db, err, sizeof err))
        fprintf(stderr, "open: %s\n", err);
    return db;
}

static double q_num(sqlite3 *q, const char *sql)
{
    sqlite3_stmt *st;
    double v = NAN;
    if (sqlite3_prepare_v2(q, sql, -1, &st, NULL) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW)
        v = sqlite3_column_double(st, 0);
    sqlite3_finalize(st);
    return v;
}

TEST(catalogue)
{
    sim_results *db = open_ro();
    ASSERT_TRUE(db != NULL);
    int64_t latest;
    ASSERT_EQ(sim_results_latest_experiment(db, &latest), MTC_OK);
    ASSERT_EQ(latest, 2);
    sim_experiment_row *ex;
    size_t n;
    ASSERT_EQ(sim_results_experiments(db, &ex, &n), MTC_OK);
    ASSERT_EQ(n, 2);
    ASSERT_TRUE(!strcmp(ex[0].name, "sweep") && !strcmp(ex[0].command_line,
                                                         "mtcsim run sweep.lua"));
    ASSERT_TRUE(ex[0].sweep_points == 2 && ex[0].replications == 2);
    ASSERT_TRUE(!strcmp(ex[1].command_line, ""));
    free(ex);
    sim_experiment_row e;
    ASSERT_EQ(sim_results_experiment(db, 9, &e), MTC_OK);
    ASSERT_EQ(e.id, -1);

    sim_run_row *runs;
    ASSERT_EQ(sim_results_runs(db, 1, &runs, &n), MTC_OK);
    ASSERT_EQ(n, 6);
    ASSERT_EQ(runs[3].status, SIM_RUN_FAILED);
    ASSERT_TRUE(!strcmp(runs[3].error, "it broke") && runs[0].error[0] == 0);
    ASSERT_TRUE(runs[0].has_reached && runs[0].sim_reached == 60 * SIM_SEC);
    ASSERT_TRUE(runs[0].events == 99 && runs[0].seed == 7 && runs[1].seed == 8);
    ASSERT_TRUE(!strcmp(runs[0].program_version, "test"));
    free(runs);

    sim_point_row *pts;
    ASSERT_EQ(sim_results_points(db, 1, &pts, &n), MTC_OK);
    ASSERT_EQ(n, 2);
    ASSERT_TRUE(pts[0].completed == 3 && pts[0].completed_reps == 2 &&
                pts[0].replications == 2 && pts[0].failed == 0);
    ASSERT_TRUE(pts[1].completed == 2 && pts[1].failed == 1 && pts[1].first_run == 3);
    free(pts);

    /* the resumed replication counts once, with its latest run */
    sim_run_ref *refs;
    ASSERT_EQ(sim_results_point_runs(db, 1, 0, &refs, &n), MTC_OK);
    ASSERT_EQ(n, 2);
    ASSERT_TRUE(refs[0].run_id == 1 && refs[1].run_id == 6 && refs[1].replication == 1);
    free(refs);
    ASSERT_EQ(sim_results_point_runs(db, 1, 1, &refs, &n), MTC_OK);
    ASSERT_TRUE(n == 2 && refs[1].run_id == 5);
    free(refs);
    sim_results_close(db);
}

TEST(params_attrs_metrics)
{
    sim_results *db = open_ro();
    ASSERT_TRUE(db != NULL);
    sim_param_row *ps;
    size_t n;
    ASSERT_EQ(sim_results_run_params(db, 3, 1, &ps, &n), MTC_OK);
    ASSERT_TRUE(n == 1 && !strcmp(ps[0].name, "landmark_interval") &&
                !strcmp(ps[0].value, "7200") && ps[0].swept);
    free(ps);
    ASSERT_EQ(sim_results_experiment_params(db, 1, &ps, &n), MTC_OK);
    ASSERT_EQ(n, 2);
    /* by kind: "ca" before "scenario"; the swept one varies */
    ASSERT_TRUE(!strcmp(ps[0].kind, "ca") && ps[0].distinct == 2);
    ASSERT_TRUE(!strcmp(ps[1].kind, "scenario") && ps[1].distinct == 1);
    free(ps);
    sim_attr_row *at;
    ASSERT_EQ(sim_results_attrs(db, 1, "loaded:", 0, &at, &n), MTC_OK);
    ASSERT_TRUE(n == 1 && !strcmp(at[0].name, "loaded:lib.lua") &&
                !strcmp(at[0].value, "abc"));
    free(at);
    ASSERT_EQ(sim_results_attrs(db, 1, "action.", 1, &at, &n), MTC_OK);
    ASSERT_TRUE(n == 1 && !strcmp(at[0].value, "3600 fail w1"));
    free(at);
    /* '_' and '%' in a prefix are bytes, not patterns */
    ASSERT_EQ(sim_results_attrs(db, 1, "load_d", 0, &at, &n), MTC_OK);
    ASSERT_EQ(n, 0);
    free(at);

    sim_metric_row mi;
    ASSERT_EQ(sim_results_metric_info(db, 1, "lat", &mi), MTC_OK);
    ASSERT_TRUE(mi.runs == 5 && !strcmp(mi.kind, "histogram") && !strcmp(mi.unit, "s"));
    ASSERT_EQ(sim_results_metric_info(db, 1, "nosuch", &mi), MTC_OK);
    ASSERT_EQ(mi.runs, 0);
    ASSERT_EQ(sim_results_metric_info(db, 1, "hits", &mi), MTC_OK);
    ASSERT_TRUE(mi.series && mi.cohorts == 2);
    char(*names)[160];
    ASSERT_EQ(sim_results_metric_names(db, 1, &names, &n), MTC_OK);
    ASSERT_TRUE(n == 2 && !strcmp(names[0], "hits") && !strcmp(names[1], "lat"));
    free(names);
    int64_t run;
    ASSERT_EQ(sim_results_first_run(db, 2, "lat", 1, &run), MTC_OK);
    ASSERT_EQ(run, 7);
    sim_cohort_row *co;
    ASSERT_EQ(sim_results_cohorts(db, 1, "hits", &co, &n), MTC_OK);
    ASSERT_TRUE(n == 2 && !strcmp(co[0].label, "alpha") && !strcmp(co[1].label, "beta"));
    free(co);
    sim_results_close(db);
}

TEST(values_match_sql)
{
    sim_results *db = open_ro();
    ASSERT_TRUE(db != NULL);
    sqlite3 *q = sim_results_sqlite(db);
    double v;
    int found;
    ASSERT_EQ(sim_results_scalar(db, 2, "hits", "beta", &v, &found), MTC_OK);
    ASSERT_TRUE(found);
    ASSERT_EQ(v, q_num(q, "SELECT value FROM scalar_v WHERE run_id = 2 AND "
                          "metric = 'hits' AND cohort = 'beta'"));
    ASSERT_EQ(sim_results_scalar(db, 2, "hits", "gamma", &v, &found), MTC_OK);
    ASSERT_TRUE(!found);
    sim_hist_row h;
    ASSERT_EQ(sim_results_histogram(db, 2, "lat", "all", &h, &found), MTC_OK);
    ASSERT_TRUE(found);
    ASSERT_EQ(h.p90, q_num(q, "SELECT p90 FROM histogram_v WHERE run_id = 2 AND "
                              "metric = 'lat' AND cohort = 'all'"));
    ASSERT_EQ(h.count, 20);
    sim_series s;
    ASSERT_EQ(sim_results_series(db, 2, "hits", "alpha", &s), MTC_OK);
    ASSERT_EQ((double)s.n, q_num(q, "SELECT count(*) FROM vector_v WHERE run_id = 2 "
                                    "AND metric = 'hits' AND cohort = 'alpha'"));
    ASSERT_TRUE(s.n > 2 && s.t[1] - s.t[0] == 10 * SIM_SEC);
    ASSERT_EQ(s.v[s.n - 1], q_num(q, "SELECT value FROM vector_v WHERE run_id = 2 "
                                     "AND metric = 'hits' AND cohort = 'alpha' "
                                     "ORDER BY k DESC LIMIT 1"));
    sim_series_free(&s);
    /* bins: point 0's completed runs, its resumed replication counted with
     * each stored copy as SQL pools them */
    sim_bins b;
    ASSERT_EQ(sim_results_bins(db, 1, 0, "lat", "all", &b), MTC_OK);
    ASSERT_EQ(b.runs, 3);
    ASSERT_EQ(b.total, q_num(q, "SELECT sum(count) FROM histogram_bin_v JOIN run "
                                "USING (run_id) WHERE experiment_id = 1 AND "
                                "sweep_point = 0 AND metric = 'lat' AND cohort = 'all'"));
    double sum = 0;
    for (size_t i = 0; i < b.n; i++) {
        sum += b.count[i];
        ASSERT_TRUE(i + 1 == b.n || !isnan(b.hi[i]));
    }
    ASSERT_EQ(sum, b.total);
    ASSERT_TRUE(b.min <= b.max);
    sim_bins_free(&b);
    ASSERT_EQ(sim_results_bins(db, 1, 0, "nosuch", "all", &b), MTC_OK);
    ASSERT_TRUE(b.total == 0 && b.n == 0);
    sim_results_close(db);
}

typedef struct counted {
    int64_t header, rows;
    size_t ncols;
    int swept_col;
} counted;

static int count_row(void *arg, size_t ncols, const char *const *names,
                     const sim_value *vals)
{
    counted *c = arg;
    if (!vals) {
        c->header++;
        c->ncols = ncols;
        for (size_t i = 0; i < ncols; i++)
            if (!strcmp(names[i], "swept"))
                c->swept_col = (int)i;
        return 0;
    }
    c->rows++;
    return 0;
}

TEST(dumps)
{
    sim_results *db = open_ro();
    ASSERT_TRUE(db != NULL);
    sqlite3 *q = sim_results_sqlite(db);
    char(*names)[64];
    size_t n, nt;
    ASSERT_EQ(sim_results_table_names(db, &names, &n, &nt), MTC_OK);
    ASSERT_TRUE(nt == 11 && n == 15 && !strcmp(names[nt], "scalar_v"));
    free(names);
    sim_results_filter all = {-1, NULL, NULL};
    counted c = {0, 0, 0, -1};
    int64_t rows;
    ASSERT_EQ(sim_results_dump(db, "scalar", &all, count_row, &c, &rows), MTC_OK);
    ASSERT_TRUE(c.header == 1 && c.rows == rows);
    ASSERT_EQ((double)rows, q_num(q, "SELECT count(*) FROM scalar"));
    sim_results_filter one = {1, "lat", "beta"};
    memset(&c, 0, sizeof c);
    c.swept_col = -1;
    ASSERT_EQ(sim_results_dump(db, "histogram_v", &one, count_row, &c, &rows), MTC_OK);
    ASSERT_EQ(rows, 6);   /* the six runs of experiment 1 */
    ASSERT_TRUE(c.swept_col == 3);
    sim_results_filter metric_only = {-1, "hits", NULL};
    ASSERT_EQ(sim_results_dump(db, "metric", &metric_only, count_row, &c, &rows), MTC_OK);
    ASSERT_EQ(rows, 7);
    ASSERT_EQ(sim_results_dump(db, "no_such_table", &all, count_row, &c, &rows),
              MTC_ERR_ARG);
    ASSERT_EQ(sim_results_dump(db, "sqlite_master", &all, count_row, &c, &rows),
              MTC_ERR_ARG);
    sim_results_close(db);
}

static const test_case tests[] = {
    {"catalogue", catalogue},
    {"params_attrs_metrics", params_attrs_metrics},
    {"values_match_sql", values_match_sql},
    {"dumps", dumps},
};

int main(int argc, char **argv)
{
    if (build() != MTC_OK) {
        fprintf(stderr, "cannot build the test database %s\n", path);
        return 1;
    }
    int rc = test_run_all(tests, sizeof tests / sizeof tests[0], argc, argv);
    test_db_remove(path);
    return rc;
}
