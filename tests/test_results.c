/*
 * test_results.c - the results database: exact round trip of every metric
 * kind, provenance, run states, replication summaries against
 * sim_ci_student, appending, WAL readers, interrupted and killed runs
 * (a forked child signalled by the test), missing / corrupt / foreign /
 * other-version files left byte-for-byte unchanged, and the progress line.
 */
#include "test.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <sqlite3.h>

#include "mtc/error.h"
#include "sim/progress.h"
#include "sim/results.h"
#include "sim/rng.h"
#include "lib/db_files.h"
#include "lib/toy_world.h"

/* ---- helpers ---- */

static char tmpdir[256];

static const char *tmp_path(const char *name)
{
    static char buf[8][512];
    static int k;
    if (!tmpdir[0]) {
        const char *base = getenv("TMPDIR");
        snprintf(tmpdir, sizeof tmpdir, "%s/mtc_results_XXXXXX",
                 base && *base ? base : "/tmp");
        if (!mkdtemp(tmpdir)) {
            perror("mkdtemp");
            exit(1);
        }
    }
    k = (k + 1) % 8;
    snprintf(buf[k], sizeof buf[k], "%s/%s", tmpdir, name);
    test_db_remove(buf[k]);
    return buf[k];
}

/* One number from a query with printf-style SQL (test-only). */
static double q_num(sqlite3 *db, const char *fmt, ...)
{
    char sql[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(sql, sizeof sql, fmt, ap);
    va_end(ap);
    sqlite3_stmt *st;
    double v = NAN;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
        fprintf(stderr, "bad test SQL %s: %s\n", sql, sqlite3_errmsg(db));
        return NAN;
    }
    if (sqlite3_step(st) == SQLITE_ROW &&
        sqlite3_column_type(st, 0) != SQLITE_NULL)
        v = sqlite3_column_double(st, 0);
    sqlite3_finalize(st);
    return v;
}

static int64_t q_int(sqlite3 *db, const char *fmt, ...)
{
    char sql[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(sql, sizeof sql, fmt, ap);
    va_end(ap);
    sqlite3_stmt *st;
    int64_t v = INT64_MIN;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
        fprintf(stderr, "bad test SQL %s: %s\n", sql, sqlite3_errmsg(db));
        return v;
    }
    if (sqlite3_step(st) == SQLITE_ROW &&
        sqlite3_column_type(st, 0) != SQLITE_NULL)
        v = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return v;
}

static void q_text(sqlite3 *db, char *out, size_t len, const char *fmt, ...)
{
    char sql[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(sql, sizeof sql, fmt, ap);
    va_end(ap);
    sqlite3_stmt *st;
    out[0] = '\0';
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
        return;
    if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
        snprintf(out, len, "%s", (const char *)sqlite3_column_text(st, 0));
    else
        snprintf(out, len, "(null)");
    sqlite3_finalize(st);
}

static int file_hash(const char *path, char hex[65])
{
    return sim_sha256_file_hex(path, hex);
}

static int write_file(const char *path, const void *data, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return -1;
    size_t w = fwrite(data, 1, n, f);
    return fclose(f) == 0 && w == n ? 0 : -1;
}

/* A registry with every kind: counter with series and 3 cohorts (one
 * beyond 2^53), one-cohort gauge with series, histograms with under- and
 * overflow, a REPLICATED counter without series. */
static int every_kind(sim_metrics **out, sim_engine **eng)
{
    sim_metric *c, *g, *h, *h1, *r;
    sim_metrics_config cfg = {0, 0, 10 * SIM_SEC, 0};
    int rc;
    const char *labels[] = {"chrome", "firefox, \"quoted\"", "frozen"};
    if ((rc = sim_engine_create(eng, NULL)) ||
        (rc = sim_metrics_create(out, &cfg, sim_engine_clock(*eng))))
        return rc;
    sim_metrics *m = *out;
    if ((rc = sim_metrics_counter(m, "c3", "things", 3, SIM_METRIC_SERIES, &c)) ||
        (rc = sim_metrics_gauge(m, "g1", "bytes", 1, SIM_METRIC_SERIES, &g)) ||
        (rc = sim_metrics_histogram(m, "h3", "s", 3, 0, 1, 1000, 10, &h)) ||
        (rc = sim_metrics_histogram(m, "h1", "bytes", 1, 0, 10, 1e4, 100, &h1)) ||
        (rc = sim_metrics_counter(m, "rep", "", 1, SIM_METRIC_REPLICATED, &r)) ||
        (rc = sim_metric_set_cohort_labels(c, labels, 3)) ||
        (rc = sim_metric_set_cohort_labels(h, labels, 3)))
        return rc;
    sim_time *clock = (sim_time *)sim_engine_clock(*eng);
    /* The engine's clock is only read here; advance it with runs. */
    (void)clock;
    for (int step = 0; step < 50; step++) {
        sim_engine_set_stop_time(*eng, step * 3 * SIM_SEC + 1);
        sim_engine_run(*eng);
        sim_counter_add(c, (size_t)(step % 3), step + 1);
        sim_gauge_add(g, 0, 0.1 * step - 1.7);
        sim_hist_observe(h, (size_t)(step % 3), 0.37 * step);  /* 0: underflow */
        sim_hist_observe(h1, 0, 1.0 + step * 613.0);           /* overflow too */
    }
    sim_counter_add(c, 2, (int64_t)1 << 60);
    sim_counter_add(r, 0, 42);
    sim_metrics_finish(m, 150 * SIM_SEC);
    return MTC_OK;
}

/* Compares everything stored for run_id with the registry m. */
static void check_stored(test_ctx *tc_, sqlite3 *db, int64_t run,
                         const sim_metrics *m)
{
    ASSERT_EQ(q_int(db, "SELECT count(*) FROM metric WHERE run_id = %lld",
                    (long long)run),
              sim_metrics_count(m));
    for (size_t i = 0; i < sim_metrics_count(m); i++) {
        const sim_metric *mt = sim_metrics_at(m, i);
        const char *name = sim_metric_name(mt);
        int kind = sim_metric_kind(mt);
        size_t nc = sim_metric_cohorts(mt);
        char txt[256];
        int64_t mid = q_int(db, "SELECT metric_id FROM metric WHERE run_id = "
                                "%lld AND name = '%s'", (long long)run, name);
        ASSERT_TRUE(mid > 0);
        q_text(db, txt, sizeof txt, "SELECT kind FROM metric WHERE metric_id = %lld",
               (long long)mid);
        ASSERT_STR_EQ(txt, sim_metric_kind_name(kind));
        q_text(db, txt, sizeof txt, "SELECT unit FROM metric WHERE metric_id = %lld",
               (long long)mid);
        ASSERT_STR_EQ(txt, sim_metric_unit(mt));
        ASSERT_EQ(q_int(db, "SELECT cohorts FROM metric WHERE metric_id = %lld",
                        (long long)mid), nc);
        size_t cells = nc > 1 ? nc + 1 : 1;
        for (size_t k = 0; k < cells; k++) {
            size_t cohort = (nc == 1 || k == nc) ? SIM_ALL_COHORTS : k;
            long long idx = cohort == SIM_ALL_COHORTS ? -1 : (long long)k;
            const char *table = kind == SIM_METRIC_HISTOGRAM ? "histogram" : "scalar";
            q_text(db, txt, sizeof txt, "SELECT cohort FROM %s WHERE metric_id = "
                   "%lld AND cohort_index = %lld", table, (long long)mid, idx);
            ASSERT_STR_EQ(txt, sim_metric_cohort_label(mt, cohort));
            if (kind == SIM_METRIC_COUNTER) {
                ASSERT_EQ(q_int(db, "SELECT value FROM scalar WHERE metric_id = "
                                "%lld AND cohort_index = %lld", (long long)mid, idx),
                          sim_counter_value(mt, cohort));
                ASSERT_EQ(q_int(db, "SELECT typeof(value) = 'integer' FROM scalar "
                                "WHERE metric_id = %lld AND cohort_index = %lld",
                                (long long)mid, idx), 1);
            } else if (kind == SIM_METRIC_GAUGE) {
                double v = q_num(db, "SELECT value FROM scalar WHERE metric_id = "
                                 "%lld AND cohort_index = %lld", (long long)mid, idx);
                ASSERT_TRUE(v == sim_gauge_value(mt, cohort));
            } else {
                int64_t hid = q_int(db, "SELECT histogram_id FROM histogram WHERE "
                                    "metric_id = %lld AND cohort_index = %lld",
                                    (long long)mid, idx);
                ASSERT_EQ_U64(q_int(db, "SELECT count FROM histogram WHERE "
                                    "histogram_id = %lld", (long long)hid),
                              sim_hist_count(mt, cohort));
                static const char *const cols[] = {"sum", "mean", "min", "max",
                                                   "p50", "p90", "p99"};
                double want[7] = {sim_hist_sum(mt, cohort), sim_hist_mean(mt, cohort),
                                  sim_hist_min(mt, cohort), sim_hist_max(mt, cohort),
                                  sim_hist_quantile(mt, cohort, 0.5),
                                  sim_hist_quantile(mt, cohort, 0.9),
                                  sim_hist_quantile(mt, cohort, 0.99)};
                for (int j = 0; j < 7; j++) {
                    double got = q_num(db, "SELECT %s FROM histogram WHERE "
                                       "histogram_id = %lld", cols[j], (long long)hid);
                    if (!(got == want[j] || (isnan(got) && isnan(want[j]))))
                        TEST_FAIL_("%s.%s[%zu]: %.17g != %.17g", name, cols[j], k,
                                   got, want[j]);
                }
                size_t nb = sim_hist_nbins(mt);
                uint64_t total = 0;
                size_t nonzero = 0;
                for (size_t b = 0; b < nb + 2; b++) {
                    uint64_t cnt = sim_hist_bin(mt, cohort, b);
                    total += cnt;
                    if (!cnt)
                        continue;
                    nonzero++;
                    ASSERT_EQ_U64(q_int(db, "SELECT count FROM histogram_bin WHERE "
                                        "histogram_id = %lld AND bin = %zu",
                                        (long long)hid, b), cnt);
                    double lo = q_num(db, "SELECT lo FROM histogram_bin WHERE "
                                      "histogram_id = %lld AND bin = %zu",
                                      (long long)hid, b);
                    double hi = q_num(db, "SELECT hi FROM histogram_bin WHERE "
                                      "histogram_id = %lld AND bin = %zu",
                                      (long long)hid, b);
                    if (b == 0)
                        ASSERT_TRUE(isnan(lo));
                    else
                        ASSERT_TRUE(lo == sim_hist_edge(mt, b - 1));
                    if (b == nb + 1)
                        ASSERT_TRUE(isnan(hi));
                    else
                        ASSERT_TRUE(hi == sim_hist_edge(mt, b));
                }
                ASSERT_EQ_U64(total, sim_hist_count(mt, cohort));
                ASSERT_EQ(q_int(db, "SELECT count(*) FROM histogram_bin WHERE "
                                "histogram_id = %lld", (long long)hid), nonzero);
            }
            if (sim_metric_flags(mt) & SIM_METRIC_SERIES) {
                int64_t vid = q_int(db, "SELECT vector_id FROM vector WHERE "
                                    "metric_id = %lld AND cohort_index = %lld",
                                    (long long)mid, idx);
                size_t len = sim_metric_series_len(mt);
                ASSERT_TRUE(len > 0);
                ASSERT_EQ(q_int(db, "SELECT points FROM vector WHERE vector_id = "
                                "%lld", (long long)vid), len);
                ASSERT_EQ(q_int(db, "SELECT count(*) FROM vector_data WHERE "
                                "vector_id = %lld", (long long)vid), len);
                for (size_t p = 0; p < len; p++) {
                    ASSERT_EQ(q_int(db, "SELECT t FROM vector_data WHERE vector_id "
                                    "= %lld AND k = %zu", (long long)vid, p),
                              sim_metrics_grid_time(m, p));
                    double v = q_num(db, "SELECT value FROM vector_data WHERE "
                                     "vector_id = %lld AND k = %zu", (long long)vid, p);
                    ASSERT_TRUE(v == sim_metric_series_value(mt, cohort, p));
                }
            }
        }
        if (!(sim_metric_flags(mt) & SIM_METRIC_SERIES))
            ASSERT_EQ(q_int(db, "SELECT count(*) FROM vector WHERE metric_id = %lld",
                            (long long)mid), 0);
    }
}

static int open_rw(const char *path, sim_results **db, int64_t *exp)
{
    char err[512];
    int rc = sim_results_open(path, SIM_RESULTS_CREATE, db, err, sizeof err);
    if (rc) {
        fprintf(stderr, "open %s: %s\n", path, err);
        return rc;
    }
    sim_experiment_info ei = {"test", "test_results", 1, 1};
    return sim_results_experiment_begin(*db, &ei, exp);
}

/* ---- tests ---- */

TEST(sha256_vectors)
{
    char hex[65];
    sim_sha256_hex("abc", 3, hex);
    ASSERT_STR_EQ(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    const char *p = tmp_path("abc.txt");
    ASSERT_OK(write_file(p, "abc", 3));
    ASSERT_OK(sim_sha256_file_hex(p, hex));
    ASSERT_STR_EQ(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    ASSERT_EQ(sim_sha256_file_hex(tmp_path("nope.txt"), hex), MTC_ERR_IO);
}

TEST(roundtrip_every_kind)
{
    sim_metrics *m = NULL;
    sim_engine *eng = NULL;
    sim_results *db = NULL;
    int64_t exp, run;
    const char *path = tmp_path("rt.db");
    ASSERT_OK(every_kind(&m, &eng));
    ASSERT_OK(open_rw(path, &db, &exp));
    sim_run_info ri = {exp, 0, 0, 5, NULL, NULL, "test-1", 0, 150 * SIM_SEC};
    ASSERT_OK(sim_results_run_begin(db, &ri, &run));
    /* Stored twice: the second copy replaces the first. */
    ASSERT_OK(sim_results_store_metrics(db, run, m));
    ASSERT_OK(sim_results_store_metrics(db, run, m));
    ASSERT_OK(sim_results_run_end(db, run, SIM_RUN_COMPLETED, 150 * SIM_SEC, 50, NULL));
    ASSERT_OK(sim_results_close(db));
    char err[256];
    ASSERT_OK(sim_results_open(path, SIM_RESULTS_READ, &db, err, sizeof err));
    sqlite3 *s = sim_results_sqlite(db);
    check_stored(tc_, s, run, m);
    ASSERT_EQ(q_int(s, "SELECT grid_step FROM run WHERE run_id = %lld", (long long)run),
              10 * SIM_SEC);
    /* Views give the same numbers by name. */
    ASSERT_EQ(q_int(s, "SELECT value FROM scalar_v WHERE run_id = %lld AND metric = "
                    "'c3' AND cohort = 'frozen'", (long long)run),
              sim_counter_value(sim_metrics_find(m, "c3"), 2));
    ASSERT_EQ(q_int(s, "SELECT count(*) FROM vector_v WHERE metric = 'g1'"),
              sim_metric_series_len(sim_metrics_find(m, "g1")));
    ASSERT_EQ(q_int(s, "PRAGMA user_version"), SIM_RESULTS_SCHEMA_VERSION);
    ASSERT_EQ(q_int(s, "PRAGMA application_id"), SIM_RESULTS_APPLICATION_ID);
    char txt[64];
    /* WAL, by the file's header (bytes 18 and 19 are 2): a reader with
     * no writer beside the file opens it immutable and reports "delete" */
    FILE *hf = fopen(path, "rb");
    unsigned char hdr[20] = {0};
    ASSERT_TRUE(hf && fread(hdr, 1, sizeof hdr, hf) == sizeof hdr);
    fclose(hf);
    ASSERT_EQ(hdr[18], 2);
    ASSERT_EQ(hdr[19], 2);
    q_text(s, txt, sizeof txt, "PRAGMA integrity_check");
    ASSERT_STR_EQ(txt, "ok");
    /* A read-only handle refuses writes. */
    ASSERT_EQ(sim_results_run_begin(db, &ri, &run), MTC_ERR_ARG);
    sim_results_close(db);
    sim_metrics_destroy(m);
    sim_engine_destroy(eng);
}

TEST(roundtrip_toy_run)
{
    toy_config c;
    sim_metrics *m = NULL;
    sim_time reached;
    uint64_t events;
    sim_results *db = NULL;
    int64_t exp, run;
    toy_defaults(&c);
    ASSERT_OK(toy_simulate(&c, &m, &reached, &events));
    ASSERT_EQ(reached, c.duration);
    const char *path = tmp_path("toy.db");
    ASSERT_OK(open_rw(path, &db, &exp));
    ASSERT_EQ(toy_record_run(db, exp, &c, &run), SIM_RUN_COMPLETED);
    sqlite3 *s = sim_results_sqlite(db);
    /* The recorded run is the same simulation: identical numbers. */
    check_stored(tc_, s, run, m);
    ASSERT_EQ(q_int(s, "SELECT events FROM run WHERE run_id = %lld", (long long)run),
              events);
    ASSERT_EQ(q_int(s, "SELECT sim_reached FROM run WHERE run_id = %lld",
                    (long long)run), reached);
    sim_results_close(db);
    sim_metrics_destroy(m);
}

TEST(provenance)
{
    sim_results *db = NULL;
    int64_t exp, run, run2;
    const char *path = tmp_path("prov.db");
    const char *scen = tmp_path("scenario.lua");
    const char *text = "-- a scenario\nsim:run()\n";
    char want[65], txt[256];
    ASSERT_OK(write_file(scen, text, strlen(text)));
    sim_sha256_hex(text, strlen(text), want);
    ASSERT_OK(open_rw(path, &db, &exp));
    sim_run_info ri = {exp, 3, 2, UINT64_MAX - 1, scen, NULL, "9.9.9", 5, SIM_TIME_MAX};
    ASSERT_OK(sim_results_run_begin(db, &ri, &run));
    sqlite3 *s = sim_results_sqlite(db);
    /* Visible at once as running. */
    q_text(s, txt, sizeof txt, "SELECT status FROM run WHERE run_id = %lld", (long long)run);
    ASSERT_STR_EQ(txt, "running");
    ASSERT_OK(sim_results_add_param(db, run, "ca", "le", "landmark_interval", "3600"));
    ASSERT_OK(sim_results_add_param(db, run, "ca", "le", "lifetime", "604800"));
    ASSERT_OK(sim_results_add_param(db, run, "ca", "le", "lifetime", "8640000"));
    ASSERT_OK(sim_results_add_param(db, run, "browsers", "chrome", "update_interval",
                                    "lognormal(mu=1,sigma=0.5)"));
    ASSERT_OK(sim_results_mark_swept(db, run, "ca", "le", "landmark_interval"));
    ASSERT_EQ(sim_results_mark_swept(db, run, "ca", "le", "nope"), MTC_ERR_CONFIG);
    ASSERT_TRUE(strstr(sim_results_errmsg(db), "nope") != NULL);
    ASSERT_OK(sim_results_add_attr(db, run, "mpi_ranks", "1"));
    ASSERT_EQ(sim_results_add_param(db, 9999, "ca", "x", "y", "z"), SIM_ERR_DB_NO_RUN);
    ASSERT_EQ(sim_results_add_param(db, run, "ca", NULL, "y", "z"), MTC_ERR_ARG);
    ASSERT_OK(sim_results_run_end(db, run, SIM_RUN_FAILED, 77, 12, "boom: bad thing"));
    ASSERT_EQ(sim_results_run_end(db, run, SIM_RUN_COMPLETED, 0, 0, NULL), SIM_ERR_DB_NO_RUN);
    ASSERT_EQ(sim_results_add_param(db, run, "ca", "x", "y", "z"), SIM_ERR_DB_NO_RUN);
    /* a second run with an explicit hash; bad hashes and statuses refused */
    sim_run_info r2 = ri;
    r2.scenario_sha256 = "XYZ";
    ASSERT_EQ(sim_results_run_begin(db, &r2, &run2), MTC_ERR_ARG);
    r2.scenario_sha256 = want;
    r2.scenario_path = "/nonexistent/but/hashed/by/caller.lua";
    ASSERT_OK(sim_results_run_begin(db, &r2, &run2));
    ASSERT_EQ(sim_results_run_end(db, run2, SIM_RUN_RUNNING, 0, 0, NULL), MTC_ERR_ARG);
    r2.scenario_sha256 = NULL;
    ASSERT_EQ(sim_results_run_begin(db, &r2, &run2), MTC_ERR_IO);
    ASSERT_OK(sim_results_close(db));

    ASSERT_OK(sim_results_open(path, SIM_RESULTS_READ, &db, NULL, 0));
    s = sim_results_sqlite(db);
    q_text(s, txt, sizeof txt, "SELECT scenario_sha256 FROM run WHERE run_id = %lld",
           (long long)run);
    ASSERT_STR_EQ(txt, want);
    q_text(s, txt, sizeof txt, "SELECT scenario_path FROM run WHERE run_id = %lld",
           (long long)run);
    ASSERT_STR_EQ(txt, scen);
    ASSERT_EQ_U64((uint64_t)q_int(s, "SELECT seed FROM run WHERE run_id = %lld",
                                  (long long)run), UINT64_MAX - 1);
    ASSERT_EQ(q_int(s, "SELECT sweep_point FROM run WHERE run_id = %lld", (long long)run), 3);
    ASSERT_EQ(q_int(s, "SELECT replication FROM run WHERE run_id = %lld", (long long)run), 2);
    ASSERT_EQ(q_int(s, "SELECT sim_start FROM run WHERE run_id = %lld", (long long)run), 5);
    ASSERT_EQ(q_int(s, "SELECT sim_stop IS NULL FROM run WHERE run_id = %lld",
                    (long long)run), 1);
    ASSERT_EQ(q_int(s, "SELECT sim_reached FROM run WHERE run_id = %lld", (long long)run), 77);
    ASSERT_EQ(q_int(s, "SELECT events FROM run WHERE run_id = %lld", (long long)run), 12);
    ASSERT_EQ(q_int(s, "SELECT pid FROM run WHERE run_id = %lld", (long long)run), getpid());
    q_text(s, txt, sizeof txt, "SELECT status || '|' || error || '|' || time_unit || '|' "
           "|| program_version FROM run WHERE run_id = %lld", (long long)run);
    ASSERT_STR_EQ(txt, "failed|boom: bad thing|us|9.9.9");
    ASSERT_EQ(q_int(s, "SELECT ended_at >= started_at AND length(started_at) = 24 "
                    "AND wall_time_s >= 0 FROM run WHERE run_id = %lld", (long long)run), 1);
    ASSERT_EQ(q_int(s, "SELECT count(*) FROM param WHERE run_id = %lld", (long long)run), 3);
    q_text(s, txt, sizeof txt, "SELECT value FROM param WHERE name = 'lifetime'");
    ASSERT_STR_EQ(txt, "8640000");
    q_text(s, txt, sizeof txt, "SELECT group_concat(name) FROM param WHERE swept = 1");
    ASSERT_STR_EQ(txt, "landmark_interval");
    q_text(s, txt, sizeof txt, "SELECT value FROM run_attr WHERE name = 'mpi_ranks'");
    ASSERT_STR_EQ(txt, "1");
    q_text(s, txt, sizeof txt, "SELECT status FROM run WHERE run_id = %lld", (long long)run2);
    ASSERT_STR_EQ(txt, "running");
    /* run2 was abandoned (its handle closed without ending it): stale */
    size_t n = 99;
    int64_t ids[4] = {0};
    ASSERT_OK(sim_results_stale_runs(db, ids, 4, &n));
    ASSERT_EQ(n, 1);
    ASSERT_EQ(ids[0], run2);
    sim_results_close(db);
}

/* One writer per experiment: a second handle cannot claim it while the
 * first holds it; the claim ends with the handle; a running row of an
 * unclaimed experiment is abandoned whatever host it names, one of a
 * claimed experiment is not. */
TEST(experiment_claims)
{
    sim_results *a = NULL, *b = NULL;
    int64_t exp;
    const char *path = tmp_path("claims.db");
    ASSERT_OK(sim_results_open(path, SIM_RESULTS_CREATE, &a, NULL, 0));
    ASSERT_OK(toy_record_sweep(a, 1, 2, &exp));
    ASSERT_OK(sim_results_flush(a));
    ASSERT_EQ(sqlite3_exec(sim_results_sqlite(a), "UPDATE run SET status = "
                           "'running', hostname = 'elsewhere.example', pid = 1 "
                           "WHERE run_id = 1", NULL, NULL, NULL), SQLITE_OK);
    ASSERT_OK(sim_results_open(path, SIM_RESULTS_APPEND, &b, NULL, 0));
    size_t n = 99;
    ASSERT_OK(sim_results_stale_runs(b, NULL, 0, &n));
    ASSERT_EQ(n, 1);        /* unclaimed: abandoned, though on another host */
    int busy = -1;
    ASSERT_OK(sim_results_claim_experiment(a, exp, &busy));
    ASSERT_EQ(busy, 0);
    ASSERT_OK(sim_results_claim_experiment(a, exp, &busy));     /* again: its own */
    ASSERT_EQ(busy, 0);
    ASSERT_OK(sim_results_claim_experiment(b, exp, &busy));
    ASSERT_EQ(busy, 1);
    ASSERT_OK(sim_results_stale_runs(b, NULL, 0, &n));
    ASSERT_EQ(n, 0);        /* claimed by a: its writer is alive */
    ASSERT_OK(sim_results_claim_experiment(b, exp + 1, &busy));  /* another one */
    ASSERT_EQ(busy, 0);
    ASSERT_OK(sim_results_close(a));
    ASSERT_OK(sim_results_claim_experiment(b, exp, &busy));
    ASSERT_EQ(busy, 0);
    ASSERT_EQ(sim_results_claim_experiment(b, 0, &busy), MTC_ERR_ARG);
    sim_results_close(b);
}

/* A run adds at most the capped text (parameters, attributes) and series
 * points, whatever it asks, with an error naming the cap; a refused store
 * stores nothing. */
TEST(per_run_caps)
{
    sim_metrics *m = NULL;
    sim_engine *eng = NULL;
    sim_results *db = NULL;
    int64_t exp, run;
    const char *path = tmp_path("caps.db");
    ASSERT_OK(every_kind(&m, &eng));
    ASSERT_OK(open_rw(path, &db, &exp));
    sim_results_set_caps(db, 100, 10);
    sim_run_info ri = {exp, 0, 0, 5, NULL, NULL, "test-1", 0, 150 * SIM_SEC};
    ASSERT_OK(sim_results_run_begin(db, &ri, &run));
    ASSERT_OK(sim_results_add_param(db, run, "world", "w", "a", "0123456789"));
    char big[120];
    memset(big, 'x', sizeof big - 1);
    big[sizeof big - 1] = 0;
    ASSERT_EQ(sim_results_add_param(db, run, "world", "w", "b", big), MTC_ERR_LIMIT);
    ASSERT_TRUE(strstr(sim_results_errmsg(db), "more than 100 bytes") != NULL);
    ASSERT_EQ(sim_results_add_attr(db, run, "c", big), MTC_ERR_LIMIT);
    ASSERT_EQ(sim_results_store_metrics(db, run, m), MTC_ERR_LIMIT);
    ASSERT_TRUE(strstr(sim_results_errmsg(db), "more than the 10 a run may store") != NULL);
    sqlite3 *s = sim_results_sqlite(db);
    ASSERT_EQ(q_int(s, "SELECT count(*) FROM metric WHERE run_id = %lld", (long long)run), 0);
    ASSERT_EQ(q_int(s, "SELECT count(*) FROM param WHERE run_id = %lld", (long long)run), 1);
    sim_results_set_caps(db, 0, 0);     /* the defaults hold them */
    ASSERT_OK(sim_results_store_metrics(db, run, m));
    ASSERT_OK(sim_results_run_end(db, run, SIM_RUN_COMPLETED, 150 * SIM_SEC, 50, NULL));
    ASSERT_OK(sim_results_close(db));
    sim_metrics_destroy(m);
    sim_engine_destroy(eng);
}

TEST(summaries_match_student_t)
{
    sim_results *db = NULL;
    int64_t exp;
    const char *path = tmp_path("sweep.db");
    char err[256];
    ASSERT_OK(sim_results_open(path, SIM_RESULTS_CREATE, &db, err, sizeof err));
    ASSERT_OK(toy_record_sweep(db, 2, 3, &exp));
    sqlite3 *s = sim_results_sqlite(db);
    ASSERT_EQ(q_int(s, "SELECT count(*) FROM run WHERE experiment_id = %lld AND "
                    "status = 'completed'", (long long)exp), 6);
    /* handshake_full, cohort all, point 1: recompute from the scalars */
    for (int point = 0; point < 2; point++) {
        double x[3];
        for (int r = 0; r < 3; r++)
            x[r] = q_num(s, "SELECT value FROM scalar_v JOIN run USING (run_id) WHERE "
                         "experiment_id = %lld AND sweep_point = %d AND replication = %d "
                         "AND metric = 'handshake_signatureless' AND cohort = 'all'",
                         (long long)exp, point, r);
        sim_ci ci;
        ASSERT_OK(sim_ci_student(x, 3, 0.95, &ci));
        ASSERT_TRUE(ci.sd > 0); /* replications differ */
        const char *w = "FROM summary WHERE experiment_id = %lld AND sweep_point = %d AND "
                        "metric = 'handshake_signatureless' AND cohort = 'all' AND "
                        "statistic = 'value'";
        char sql[512];
        snprintf(sql, sizeof sql, "SELECT n %s", w);
        ASSERT_EQ(q_int(s, sql, (long long)exp, point), 3);
        snprintf(sql, sizeof sql, "SELECT mean %s", w);
        ASSERT_TRUE(q_num(s, sql, (long long)exp, point) == ci.mean);
        snprintf(sql, sizeof sql, "SELECT stddev %s", w);
        ASSERT_TRUE(q_num(s, sql, (long long)exp, point) == ci.sd);
        snprintf(sql, sizeof sql, "SELECT ci_half_width %s", w);
        ASSERT_TRUE(q_num(s, sql, (long long)exp, point) == ci.half_width);
        snprintf(sql, sizeof sql, "SELECT ci_level %s", w);
        ASSERT_TRUE(q_num(s, sql, (long long)exp, point) == 0.95);
    }
    /* the swept parameter differs between the points; histograms summarized */
    ASSERT_EQ(q_int(s, "SELECT count(DISTINCT value) FROM param WHERE swept = 1"), 2);
    ASSERT_EQ(q_int(s, "SELECT count(*) FROM summary WHERE metric = 'auth_bytes' AND "
                    "cohort = 'all' AND statistic IN ('count','mean','p50','p90','p99')"),
              10);
    /* The larger landmark interval gives fewer signatureless handshakes. */
    ASSERT_TRUE(q_num(s, "SELECT mean FROM summary WHERE sweep_point = 0 AND metric = "
                      "'handshake_signatureless' AND cohort = 'all'") >
                q_num(s, "SELECT mean FROM summary WHERE sweep_point = 1 AND metric = "
                      "'handshake_signatureless' AND cohort = 'all'"));
    /* Only completed runs count: add an interrupted one to point 0. */
    sim_run_info ri = {exp, 0, 3, 7, NULL, NULL, "toy-1", 0, SIM_DAY};
    int64_t run;
    ASSERT_OK(sim_results_run_begin(db, &ri, &run));
    ASSERT_OK(sim_results_run_end(db, run, SIM_RUN_INTERRUPTED, 5, 5, NULL));
    ASSERT_OK(sim_results_summarize(db, exp, 0, 0.95));
    ASSERT_EQ(q_int(s, "SELECT max(n) FROM summary WHERE sweep_point = 0"), 3);
    ASSERT_EQ(sim_results_summarize(db, exp, 0, 1.5), MTC_ERR_ARG);
    sim_results_close(db);
}

TEST(single_run_summary)
{
    sim_results *db = NULL;
    int64_t exp;
    ASSERT_OK(sim_results_open(tmp_path("one.db"), SIM_RESULTS_CREATE, &db, NULL, 0));
    ASSERT_OK(toy_record_sweep(db, 1, 1, &exp));
    sqlite3 *s = sim_results_sqlite(db);
    ASSERT_EQ(q_int(s, "SELECT count(*) FROM summary WHERE n = 1 AND stddev IS NULL "
                    "AND ci_half_width IS NULL AND mean IS NOT NULL"),
              q_int(s, "SELECT count(*) FROM summary"));
    ASSERT_TRUE(q_num(s, "SELECT mean FROM summary WHERE metric = 'handshake_full' "
                      "AND cohort = 'all'") ==
                q_num(s, "SELECT value FROM scalar_v WHERE metric = 'handshake_full' "
                      "AND cohort = 'all'"));
    sim_results_close(db);
}

TEST(append_and_concurrent_reader)
{
    sim_results *db = NULL, *rd = NULL;
    int64_t exp1, exp2, run;
    const char *path = tmp_path("append.db");
    toy_config c;
    toy_defaults(&c);
    c.duration = SIM_DAY / 4;
    ASSERT_OK(open_rw(path, &db, &exp1));
    ASSERT_EQ(toy_record_run(db, exp1, &c, &run), SIM_RUN_COMPLETED);
    ASSERT_OK(sim_results_close(db));
    ASSERT_OK(sim_results_open(path, SIM_RESULTS_APPEND, &db, NULL, 0));
    sim_experiment_info ei = {"second", NULL, 1, 1};
    ASSERT_OK(sim_results_experiment_begin(db, &ei, &exp2));
    ASSERT_TRUE(exp2 > exp1);
    sim_run_info ri = {exp2, 0, 0, 1, NULL, NULL, "t", 0, SIM_DAY};
    ASSERT_OK(sim_results_run_begin(db, &ri, &run));
    /* A batch of parameters is open (write transaction); a reader still
     * reads the committed state: the new run row, without the params. */
    ASSERT_OK(sim_results_add_param(db, run, "ca", "x", "p", "1"));
    ASSERT_OK(sim_results_open(path, SIM_RESULTS_READ, &rd, NULL, 0));
    sqlite3 *r = sim_results_sqlite(rd);
    ASSERT_EQ(q_int(r, "SELECT count(*) FROM run"), 2);
    ASSERT_EQ(q_int(r, "SELECT count(*) FROM param WHERE run_id = %lld", (long long)run), 0);
    ASSERT_OK(sim_results_flush(db));
    ASSERT_EQ(q_int(r, "SELECT count(*) FROM param WHERE run_id = %lld", (long long)run), 1);
    ASSERT_OK(sim_results_run_end(db, run, SIM_RUN_COMPLETED, SIM_DAY, 0, NULL));
    sim_results_close(rd);
    sim_results_close(db);
    ASSERT_OK(sim_results_open(path, SIM_RESULTS_READ, &rd, NULL, 0));
    ASSERT_EQ(q_int(sim_results_sqlite(rd), "SELECT count(*) FROM experiment"), 2);
    sim_results_close(rd);
    sim_results_close(NULL);
}

/* Opening fails with `want`, the message mentions `needle`, and the file
 * (if any) has the same bytes afterwards. */
static void expect_refused(test_ctx *tc_, const char *path, int mode, int want,
                           const char *needle)
{
    char before[65] = "", after[65] = "", err[512];
    struct stat sb;
    int present = stat(path, &sb) == 0;
    int existed = present && S_ISREG(sb.st_mode);
    if (existed)
        ASSERT_OK(file_hash(path, before));
    sim_results *db = (sim_results *)1;
    ASSERT_EQ(sim_results_open(path, mode, &db, err, sizeof err), want);
    ASSERT_TRUE(db == NULL);
    if (!strstr(err, needle) || !strstr(err, path))
        TEST_FAIL_("message '%s' lacks '%s' or the path", err, needle);
    if (existed) {
        ASSERT_OK(file_hash(path, after));
        ASSERT_STR_EQ(after, before);
    } else if (!present) {
        ASSERT_TRUE(access(path, F_OK) != 0);
    }
}

TEST(bad_files_refused_untouched)
{
    const char *missing = tmp_path("missing.db");
    expect_refused(tc_, missing, SIM_RESULTS_READ, SIM_ERR_DB_NOT_FOUND, "No such file");
    expect_refused(tc_, missing, SIM_RESULTS_APPEND, SIM_ERR_DB_NOT_FOUND, "No such file");

    /* random bytes, in all modes */
    const char *junk = tmp_path("junk.db");
    unsigned char buf[8192];
    gsl_rng *r = sim_rng_alloc_stream(3, 0, SIM_STREAM_TEST, 9);
    ASSERT_TRUE(r != NULL);
    for (size_t i = 0; i < sizeof buf; i++)
        buf[i] = (unsigned char)gsl_rng_uniform_int(r, 256);
    gsl_rng_free(r);
    ASSERT_OK(write_file(junk, buf, sizeof buf));
    for (int mode = 0; mode <= 2; mode++)
        expect_refused(tc_, junk, mode, SIM_ERR_DB_NOT_SQLITE, "not an SQLite database");

    /* a valid SQLite database of another application */
    const char *foreign = tmp_path("foreign.db");
    sqlite3 *f;
    ASSERT_EQ(sqlite3_open(foreign, &f), SQLITE_OK);
    ASSERT_EQ(sqlite3_exec(f, "CREATE TABLE t (a, b); INSERT INTO t VALUES (1, 'x'); "
                           "PRAGMA application_id = 1234;", NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(f);
    for (int mode = 0; mode <= 2; mode++)
        expect_refused(tc_, foreign, mode, SIM_ERR_DB_FOREIGN, "another application");
    /* ...and one without an application_id but with tables */
    const char *plain = tmp_path("plain.db");
    ASSERT_EQ(sqlite3_open(plain, &f), SQLITE_OK);
    ASSERT_EQ(sqlite3_exec(f, "CREATE TABLE run (x);", NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(f);
    expect_refused(tc_, plain, SIM_RESULTS_CREATE, SIM_ERR_DB_FOREIGN, "another application");

    /* an mtcsim database of another schema version */
    const char *old = tmp_path("v99.db");
    sim_results *db;
    ASSERT_OK(sim_results_open(old, SIM_RESULTS_CREATE, &db, NULL, 0));
    sim_results_close(db);
    ASSERT_EQ(sqlite3_open(old, &f), SQLITE_OK);
    ASSERT_EQ(sqlite3_exec(f, "PRAGMA journal_mode = DELETE; PRAGMA user_version = 99;",
                           NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(f);
    for (int mode = 0; mode <= 2; mode++)
        expect_refused(tc_, old, mode, SIM_ERR_DB_VERSION, "schema version 99");

    /* a version-1 database that lost a table */
    const char *damaged = tmp_path("damaged.db");
    ASSERT_OK(sim_results_open(damaged, SIM_RESULTS_CREATE, &db, NULL, 0));
    sim_results_close(db);
    ASSERT_EQ(sqlite3_open(damaged, &f), SQLITE_OK);
    ASSERT_EQ(sqlite3_exec(f, "PRAGMA journal_mode = DELETE; DROP VIEW histogram_bin_v; "
                           "DROP TABLE histogram_bin;", NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(f);
    expect_refused(tc_, damaged, SIM_RESULTS_APPEND, SIM_ERR_DB_FOREIGN, "histogram_bin");

    /* a directory is not a database */
    expect_refused(tc_, tmpdir, SIM_RESULTS_READ, SIM_ERR_DB_NOT_SQLITE, "regular file");

    /* an empty file is an empty database: initialised in CREATE mode only */
    const char *empty = tmp_path("empty.db");
    ASSERT_OK(write_file(empty, "", 0));
    expect_refused(tc_, empty, SIM_RESULTS_READ, SIM_ERR_DB_FOREIGN, "empty");
    ASSERT_OK(sim_results_open(empty, SIM_RESULTS_CREATE, &db, NULL, 0));
    sim_results_close(db);
    ASSERT_OK(sim_results_open(empty, SIM_RESULTS_READ, &db, NULL, 0));
    sim_results_close(db);

    ASSERT_EQ(sim_results_open(NULL, 0, &db, NULL, 0), MTC_ERR_ARG);
    ASSERT_EQ(sim_results_open(empty, 7, &db, NULL, 0), MTC_ERR_ARG);
}

/* ---- interruption: a forked child runs the toy model "forever" ---- */

static volatile sig_atomic_t child_stop;

static void on_signal(int sig)
{
    (void)sig;
    child_stop = 1;
}

/* The child: the host's sequence with signal handlers that only set a
 * flag. Exits 0 when the run was ended as interrupted. */
static void child_main(const char *path, int fd)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sa.sa_flags = SA_RESTART;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sim_results *db;
    int64_t exp, run;
    if (open_rw(path, &db, &exp))
        _exit(3);
    toy_config c;
    toy_defaults(&c);
    c.duration = SIM_TIME_MAX;
    c.stop = &child_stop;
    c.flush_every = 6 * SIM_HOUR;
    c.flushed_fd = fd;
    int st = toy_record_run(db, exp, &c, &run);
    int rc = sim_results_close(db);
    _exit(st == SIM_RUN_INTERRUPTED && rc == MTC_OK ? 0 : 4);
}

/* Starts the child and waits until it has flushed metrics once. */
static pid_t start_child(const char *path)
{
    int p[2];
    if (pipe(p))
        return -1;
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        close(p[0]);
        child_main(path, p[1]);
    }
    close(p[1]);
    struct pollfd pf = {p[0], POLLIN, 0};
    char b;
    int ok = pid > 0 && poll(&pf, 1, 60000) == 1 && read(p[0], &b, 1) == 1;
    close(p[0]);
    if (!ok && pid > 0) {
        kill(pid, SIGKILL);
        waitpid(pid, NULL, 0);
        return -1;
    }
    return pid;
}

/* Checks the database after the child ended: consistent, one run with
 * `status`, metrics present and coherent. */
static void check_after(test_ctx *tc_, const char *path, const char *status)
{
    sim_results *db;
    char err[512], txt[64];
    ASSERT_OK(sim_results_open(path, SIM_RESULTS_READ, &db, err, sizeof err));
    sqlite3 *s = sim_results_sqlite(db);
    q_text(s, txt, sizeof txt, "PRAGMA integrity_check");
    ASSERT_STR_EQ(txt, "ok");
    ASSERT_EQ(q_int(s, "SELECT count(*) FROM pragma_foreign_key_check"), 0);
    ASSERT_EQ(q_int(s, "SELECT count(*) FROM run"), 1);
    q_text(s, txt, sizeof txt, "SELECT status FROM run");
    ASSERT_STR_EQ(txt, status);
    ASSERT_EQ(q_int(s, "SELECT count(*) FROM metric"), 11); /* the toy world's metrics */
    /* totals equal the sum of the cohorts */
    ASSERT_EQ(q_int(s, "SELECT value FROM scalar_v WHERE metric = 'handshake_full' AND "
                    "cohort = 'all'"),
              q_int(s, "SELECT sum(value) FROM scalar_v WHERE metric = 'handshake_full' "
                    "AND cohort_index >= 0"));
    ASSERT_TRUE(q_int(s, "SELECT value FROM scalar_v WHERE metric = 'handshake_full' "
                      "AND cohort = 'all'") > 0);
    /* every vector holds exactly its points */
    ASSERT_EQ(q_int(s, "SELECT count(*) FROM vector v WHERE points != (SELECT count(*) "
                    "FROM vector_data d WHERE d.vector_id = v.vector_id)"), 0);
    /* series are cumulative: the last point is at most the final count */
    ASSERT_TRUE(q_int(s, "SELECT value FROM vector_v WHERE metric = 'handshake_full' "
                      "AND cohort = 'all' ORDER BY k DESC LIMIT 1") <=
                q_int(s, "SELECT value FROM scalar_v WHERE metric = 'handshake_full' AND "
                      "cohort = 'all'"));
    ASSERT_EQ(q_int(s, "SELECT count(*) FROM vector_v a JOIN vector_v b USING "
                    "(run_id, metric, cohort) WHERE b.k = a.k + 1 AND b.value < a.value "
                    "AND a.kind = 'counter'"), 0);
    if (!strcmp(status, "interrupted")) {
        ASSERT_EQ(q_int(s, "SELECT ended_at IS NOT NULL AND wall_time_s > 0 AND "
                        "sim_reached > 0 AND events > 0 FROM run"), 1);
        /* stored at the end: the series reaches the time of the stop */
        ASSERT_EQ(q_int(s, "SELECT max(t) FROM vector_v WHERE metric = 'handshake_full'"),
                  q_int(s, "SELECT sim_reached / grid_step * grid_step FROM run"));
    } else {
        size_t n;
        int64_t id = 0;
        ASSERT_OK(sim_results_stale_runs(db, &id, 1, &n));
        ASSERT_EQ(n, 1);
        ASSERT_EQ(id, q_int(s, "SELECT run_id FROM run"));
        ASSERT_EQ(q_int(s, "SELECT ended_at IS NULL FROM run"), 1);
    }
    sim_results_close(db);
    /* and it can be appended to */
    ASSERT_OK(sim_results_open(path, SIM_RESULTS_APPEND, &db, err, sizeof err));
    sim_results_close(db);
}

static void interrupt_with(test_ctx *tc_, int sig, const char *name)
{
    const char *path = tmp_path(name);
    pid_t pid = start_child(path);
    ASSERT_TRUE(pid > 0);
    ASSERT_OK(kill(pid, sig));
    int wst = 0;
    ASSERT_EQ(waitpid(pid, &wst, 0), pid);
    if (sig == SIGKILL) {
        ASSERT_TRUE(WIFSIGNALED(wst) && WTERMSIG(wst) == SIGKILL);
        check_after(tc_, path, "running");
    } else {
        ASSERT_TRUE(WIFEXITED(wst));
        ASSERT_EQ(WEXITSTATUS(wst), 0);
        check_after(tc_, path, "interrupted");
    }
}

TEST(interrupted_by_sigint)
{
    interrupt_with(tc_, SIGINT, "int.db");
}

TEST(interrupted_by_sigterm)
{
    interrupt_with(tc_, SIGTERM, "term.db");
}

TEST(killed_leaves_running_row)
{
    interrupt_with(tc_, SIGKILL, "kill.db");
}

/* ---- progress line ---- */

TEST(progress_plain)
{
    sim_progress p;
    char buf[256];
    sim_progress_config cfg = {0, 10 * SIM_DAY, 100.0, 0, 0, 0, 0, 0, "run 1/3"};
    sim_progress_init(&p, &cfg);
    ASSERT_EQ(sim_progress_tick(&p, 100.5, SIM_DAY / 2, 500, buf, sizeof buf), 0);
    size_t n = sim_progress_tick(&p, 101.0, SIM_DAY, 1000, buf, sizeof buf);
    ASSERT_TRUE(n > 0);
    ASSERT_EQ(n, strlen(buf));
    ASSERT_TRUE(buf[n - 1] == '\n' && !strchr(buf, '\r'));
    if (!strstr(buf, "run 1/3 ") || !strstr(buf, "1d 00:00:00") ||
        !strstr(buf, "10d 00:00:00") || !strstr(buf, "10.0%") ||
        !strstr(buf, "1.0k ev/s") || !strstr(buf, "ETA 00:00:09"))
        TEST_FAIL_("line: %s", buf);
    /* plain lines are occasional: none 5 s later, one 10 s later */
    ASSERT_EQ(sim_progress_tick(&p, 106.0, 2 * SIM_DAY, 6000, buf, sizeof buf), 0);
    n = sim_progress_tick(&p, 111.0, 5 * SIM_DAY, 21000, buf, sizeof buf);
    ASSERT_TRUE(n > 0);
    if (!strstr(buf, "50.0%") || !strstr(buf, "2.0k ev/s") || !strstr(buf, "ETA 00:00:11"))
        TEST_FAIL_("line: %s", buf);
    n = sim_progress_finish(&p, 121.0, 10 * SIM_DAY, 42000, buf, sizeof buf);
    ASSERT_TRUE(n > 0 && strstr(buf, "100.0%") && strstr(buf, "wall 00:00:21"));
    /* truncation keeps a terminated string */
    char small[8];
    sim_progress_init(&p, &cfg);
    n = sim_progress_tick(&p, 102.0, SIM_DAY, 1, small, sizeof small);
    ASSERT_EQ(n, 7);
    ASSERT_EQ(strlen(small), 7);
}

TEST(progress_tty_quiet_short)
{
    sim_progress p;
    char buf[256];
    sim_progress_config cfg = {0, SIM_DAY, 0.0, 1, 0, 0, 0, 0, NULL};
    sim_progress_init(&p, &cfg);
    size_t n = sim_progress_tick(&p, 1.0, SIM_HOUR, 10, buf, sizeof buf);
    ASSERT_TRUE(n > 0 && buf[0] == '\r' && strstr(buf, "\033[K") && !strchr(buf, '\n'));
    ASSERT_EQ(sim_progress_tick(&p, 1.1, SIM_HOUR, 20, buf, sizeof buf), 0);
    ASSERT_TRUE(sim_progress_tick(&p, 1.3, 2 * SIM_HOUR, 30, buf, sizeof buf) > 0);
    n = sim_progress_finish(&p, 2.0, SIM_DAY, 40, buf, sizeof buf);
    ASSERT_TRUE(n > 0 && buf[0] == '\r' && buf[n - 1] == '\n');
    /* a run shorter than the delay shows nothing, not even at the end */
    sim_progress_init(&p, &cfg);
    ASSERT_EQ(sim_progress_tick(&p, 0.9, SIM_DAY, 10, buf, sizeof buf), 0);
    ASSERT_EQ(sim_progress_finish(&p, 0.95, SIM_DAY, 10, buf, sizeof buf), 0);
    /* quiet */
    cfg.quiet = 1;
    sim_progress_init(&p, &cfg);
    ASSERT_EQ(sim_progress_tick(&p, 50, SIM_HOUR, 10, buf, sizeof buf), 0);
    ASSERT_EQ(sim_progress_finish(&p, 60, SIM_DAY, 10, buf, sizeof buf), 0);
    /* no planned end: no percent, no ETA */
    sim_progress_config open_end = {0, 0, 0.0, 0, 0, 0, 0, 0, NULL};
    sim_progress_init(&p, &open_end);
    n = sim_progress_tick(&p, 3, 3 * SIM_HOUR, 10, buf, sizeof buf);
    ASSERT_TRUE(n > 0 && !strchr(buf, '%') && !strstr(buf, "ETA"));
}

static const test_case tests[] = {
    {"sha256_vectors", sha256_vectors},
    {"roundtrip_every_kind", roundtrip_every_kind},
    {"roundtrip_toy_run", roundtrip_toy_run},
    {"provenance", provenance},
    {"experiment_claims", experiment_claims},
    {"per_run_caps", per_run_caps},
    {"summaries_match_student_t", summaries_match_student_t},
    {"single_run_summary", single_run_summary},
    {"append_and_concurrent_reader", append_and_concurrent_reader},
    {"bad_files_refused_untouched", bad_files_refused_untouched},
    {"interrupted_by_sigint", interrupted_by_sigint},
    {"interrupted_by_sigterm", interrupted_by_sigterm},
    {"killed_leaves_running_row", killed_leaves_running_row},
    {"progress_plain", progress_plain},
    {"progress_tty_quiet_short", progress_tty_quiet_short},
};

int main(int argc, char **argv)
{
    int rc = test_run_all(tests, sizeof tests / sizeof tests[0], argc, argv);
    DIR *d = tmpdir[0] ? opendir(tmpdir) : NULL;
    if (d) {
        struct dirent *e;
        char p[600];
        while ((e = readdir(d)) != NULL) {
            if (e->d_name[0] == '.')
                continue;
            snprintf(p, sizeof p, "%s/%s", tmpdir, e->d_name);
            unlink(p);
        }
        closedir(d);
        rmdir(tmpdir);
    }
    return rc;
}
