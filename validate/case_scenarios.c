/*
 * validate/case_scenarios.c - case 6a: conservation laws on
 * every library scenario. validate/scenarios.sh runs each one through
 * `mtcsim run` (reduced as in tests/sh_scenarios.sh) into
 * results/validation/scenarios.db, in a child process started before the
 * other cases; this file waits for it and checks the identities below on
 * every run, in SQL over the results schema (docs/results.md). Each row
 * reads "checked items" (expected) against "items that hold" (simulated).
 */
#include <glob.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <sqlite3.h>

#include "vcases.h"

void case_6a_start(vctx *c)
{
    char log[600];
    snprintf(log, sizeof log, "%s/scenarios.out", c->outdir);
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        /* the runner ends with the validation that started it */
        prctl(PR_SET_PDEATHSIG, SIGTERM);
        if (!freopen(log, "w", stdout) || !freopen(log, "a", stderr))
            _exit(127);
        execl("/bin/sh", "sh", "validate/scenarios.sh", c->build, c->outdir, (char *)NULL);
        _exit(127);
    }
    c->child = pid > 0 ? (long)pid : 0;
}

/* The first column of the first row of sql, or -1. */
static long q1(sqlite3 *db, const char *sql)
{
    sqlite3_stmt *st;
    long v = -1;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
        fprintf(stderr, "validate: 6a: %s: %s\n", sqlite3_errmsg(db), sql);
        return -1;
    }
    if (sqlite3_step(st) == SQLITE_ROW)
        v = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return v;
}

/* A check: `from` is a FROM/WHERE clause over the rows to check, `ok`
 * the condition each must meet. */
static void check(vctx *c, sqlite3 *db, const char *name, const char *from,
                  const char *ok)
{
    char sql[2048];
    snprintf(sql, sizeof sql, "SELECT count(*) %s", from);
    long all = q1(db, sql);
    snprintf(sql, sizeof sql, "SELECT count(*) %s AND (%s)", from, ok);
    long good = q1(db, sql);
    v_row(c, name, "items", 0, (double)all, 0, (double)good, (double)good, (double)good, 0, 0);
}

/* the total (cohort -1) and the sum of the cohort rows of a metric */
#define TOTAL(tab, col) \
    "(SELECT " col " FROM " tab " t WHERE t.metric_id = m.metric_id AND t.cohort_index = -1)"
#define PARTS(tab, col) \
    "(SELECT sum(" col ") FROM " tab " t WHERE t.metric_id = m.metric_id AND t.cohort_index >= 0)"
/* cohort rows and a total: a figure a scenario records per cohort (a
 * share or a rate, lib/report.lua) has no total row, since a sum of
 * shares means nothing, and is not a sum to check */
#define HAS_PARTS(tab) \
    "EXISTS (SELECT 1 FROM " tab " t WHERE t.metric_id = m.metric_id AND t.cohort_index >= 0)" \
    " AND EXISTS (SELECT 1 FROM " tab " t WHERE t.metric_id = m.metric_id AND t.cohort_index = -1)"
/* a counter's value in the same run and cohort as metric row m2 / s2 */
#define SAME(name) \
    "(SELECT s3.value FROM metric m3 JOIN scalar s3 ON s3.metric_id = m3.metric_id" \
    " WHERE m3.run_id = m.run_id AND m3.name = '" name "' AND s3.cohort_index = s.cohort_index)"

int case_6a(vctx *c)
{
    int status = 0;
    if (c->child) {
        waitpid((pid_t)c->child, &status, 0);
        c->child = 0;
    }
    glob_t g;
    size_t nscen = glob("scenarios/*.lua", 0, NULL, &g) == 0 ? g.gl_pathc : 0;
    globfree(&g);
    char path[600];
    snprintf(path, sizeof path, "%s/scenarios.db", c->outdir);
    sqlite3 *db;
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
        fprintf(stderr, "validate: 6a: %s: cannot open\n", path);
        return -1;
    }
    long done = q1(db, "SELECT count(*) FROM run WHERE status = 'completed'");
    v_row(c, "library scenarios completed", "runs", 0, (double)nscen, 0, (double)done,
          (double)done, (double)done, 0, 0);
    check(c, db, "cohort rows sum to the total (counters, gauges)",
          "FROM metric m WHERE m.kind IN ('counter', 'gauge') AND " HAS_PARTS("scalar"),
          "abs(" TOTAL("scalar", "value") " - " PARTS("scalar", "t.value") ") <= 1e-9 * max(1, abs(" TOTAL("scalar", "value") "))");
    check(c, db, "cohort rows sum to the total (histogram counts)",
          "FROM metric m WHERE m.kind = 'histogram' AND " HAS_PARTS("histogram"),
          TOTAL("histogram", "count") " = " PARTS("histogram", "t.count"));
    check(c, db, "cohort rows sum to the total (histogram sums)",
          "FROM metric m WHERE m.kind = 'histogram' AND " HAS_PARTS("histogram"),
          "abs(" TOTAL("histogram", "sum") " - " PARTS("histogram", "t.sum") ") <= 1e-9 * max(1, abs(" TOTAL("histogram", "sum") "))");
    check(c, db, "signatureless <= full, per cohort and total",
          "FROM metric m JOIN scalar s ON s.metric_id = m.metric_id"
          " WHERE m.name = 'handshake_signatureless'",
          "s.value <= " SAME("handshake_full"));
    check(c, db, "signatureless <= full, per CA",
          "FROM metric m JOIN scalar s ON s.metric_id = m.metric_id"
          " WHERE m.name = 'handshake_signatureless_by_ca'",
          "s.value <= " SAME("handshake_full_by_ca"));
    check(c, db, "full handshakes by CA sum to full handshakes",
          "FROM metric m JOIN scalar s ON s.metric_id = m.metric_id"
          " WHERE m.name = 'handshake_full_by_ca' AND s.cohort_index = -1",
          "s.value = " SAME("handshake_full"));
    check(c, db, "signatureless by CA sum to signatureless",
          "FROM metric m JOIN scalar s ON s.metric_id = m.metric_id"
          " WHERE m.name = 'handshake_signatureless_by_ca' AND s.cohort_index = -1",
          "s.value = " SAME("handshake_signatureless"));
    check(c, db, "each full handshake priced once (5 histograms)",
          "FROM metric m JOIN histogram s ON s.metric_id = m.metric_id"
          " WHERE m.name IN ('auth_bytes', 'auth_bytes_baseline_classical',"
          " 'auth_bytes_baseline_mldsa44', 'extra_rtt_tcp', 'extra_rtt_quic')",
          "s.count = " SAME("handshake_full"));
    check(c, db, "verifications = full handshakes + retries",
          "FROM metric m JOIN scalar s ON s.metric_id = m.metric_id"
          " WHERE m.name = 'verify_outcome' AND s.cohort_index = -1",
          "s.value = (SELECT sum(s3.value) FROM metric m3 JOIN scalar s3 ON s3.metric_id ="
          " m3.metric_id WHERE m3.run_id = m.run_id AND m3.name IN ('handshake_full',"
          " 'handshake_retry') AND s3.cohort_index = -1)");
    sqlite3_close(db);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        fprintf(stderr, "validate: 6a: a scenario failed (see %s/scenarios.out)\n", c->outdir);
    return 0;
}
