/*
 * rdb.c - the read side shared by `mtcsim ls`, `plot` and `compare`:
 * opening, experiments, ids, and a run's statistics by name. Separate from
 * the report's queries (report_data.c), which work on one experiment's
 * figures; these name statistics the way the run summary prints them, so
 * a figure and a table agree with what `mtcsim run` showed.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "rdb.h"

int rdb_open(const char *cmd, const char *path, sim_results **res)
{
    char err[1024];
    if (sim_results_open(path, SIM_RESULTS_READ, res, err, sizeof err)) {
        fprintf(stderr, "mtcsim %s: %s\n", cmd, err);
        return HOST_USAGE;
    }
    return HOST_OK;
}

int64_t rdb_latest_experiment(sqlite3 *db)
{
    sqlite3_stmt *st;
    int64_t exp = -1;
    if (sqlite3_prepare_v2(db, "SELECT max(experiment_id) FROM experiment", -1,
                           &st, NULL) != SQLITE_OK)
        return -1;
    if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL)
        exp = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return exp;
}

int rdb_experiment_exists(sqlite3 *db, int64_t exp)
{
    sqlite3_stmt *st;
    int found = 0;
    if (sqlite3_prepare_v2(db, "SELECT 1 FROM experiment WHERE experiment_id = ?",
                           -1, &st, NULL) != SQLITE_OK)
        return 0;
    sqlite3_bind_int64(st, 1, exp);
    found = sqlite3_step(st) == SQLITE_ROW;
    sqlite3_finalize(st);
    return found;
}

int rdb_parse_id(const char *cmd, const char *opt, const char *v, int64_t *out)
{
    char *end;
    errno = 0;
    long long x = strtoll(v, &end, 10);
    if (!*v || *end || errno || x < 0) {
        fprintf(stderr, "mtcsim %s: %s: '%s' is not a non-negative integer\n",
                cmd, opt, v);
        return HOST_USAGE;
    }
    *out = x;
    return HOST_OK;
}

void rdb_split_spec(const char *spec, char *buf, size_t n, int64_t *exp)
{
    snprintf(buf, n, "%s", spec);
    *exp = -1;
    char *c = strrchr(buf, ':');
    if (!c || !c[1])
        return;
    char *end;
    errno = 0;
    long long x = strtoll(c + 1, &end, 10);
    if (*end || errno || x < 1)
        return;
    *c = '\0';
    *exp = x;
}

const char *const rdb_headline[] = {
    "signatureless_fraction", "auth_bytes.mean", "auth_bytes.p99",
    "auth_bytes_ratio_vs_classical", "auth_bytes_ratio_vs_mldsa44",
    "extra_rtt_tcp.mean", "extra_rtt_quic.mean", "handshake_full",
    "handshake_resumed", "handshake_retry", "revoked_accepted",
    "revocation_exposure.mean", "revocation_exposure.p99",
    "issuance_delay_standalone.mean", "issuance_delay_standalone.p99",
    "issuance_delay_landmark.mean", "issuance_delay_landmark.p99",
    "log_entries", "signatures", "log_storage_bytes", "rp_state_bytes",
    "update_publication_bytes.mean", "update_bytes",
    "cosign_quorum_failures", "cosign_quorum_stall.mean",
    "cosign_quorum_stall.p99", NULL};

/* A scalar (counter or gauge) of a run and cohort. */
static int scalar_of(sqlite3 *db, int64_t run, const char *metric,
                     const char *cohort, double *v)
{
    sqlite3_stmt *st;
    int got = 0;
    if (sqlite3_prepare_v2(db,
                           "SELECT s.value FROM scalar s JOIN metric m USING "
                           "(metric_id) WHERE m.run_id = ? AND m.name = ? AND "
                           "s.cohort = ?", -1, &st, NULL) != SQLITE_OK)
        return 0;
    sqlite3_bind_int64(st, 1, run);
    sqlite3_bind_text(st, 2, metric, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 3, cohort, -1, SQLITE_STATIC);
    if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL) {
        *v = sqlite3_column_double(st, 0);
        got = 1;
    }
    sqlite3_finalize(st);
    return got;
}

/* A column of a run's histogram (count, mean, p50, ...). */
static int hist_of(sqlite3 *db, int64_t run, const char *metric,
                   const char *col, const char *cohort, double *v)
{
    static const char *const cols[] = {"count", "sum", "mean", "min", "max",
                                       "p50", "p90", "p99", NULL};
    int ok = 0;
    for (int i = 0; cols[i]; i++)
        ok |= !strcmp(cols[i], col);
    if (!ok)
        return 0;
    char sql[256];
    snprintf(sql, sizeof sql,
             "SELECT h.%s FROM histogram h JOIN metric m USING (metric_id) "
             "WHERE m.run_id = ? AND m.name = ? AND h.cohort = ?", col);
    sqlite3_stmt *st;
    int got = 0;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
        return 0;
    sqlite3_bind_int64(st, 1, run);
    sqlite3_bind_text(st, 2, metric, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 3, cohort, -1, SQLITE_STATIC);
    if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL) {
        *v = sqlite3_column_double(st, 0);
        got = 1;
    }
    sqlite3_finalize(st);
    return got;
}

int rdb_run_stat(sqlite3 *db, int64_t run_id, const char *stat,
                 const char *cohort, double *v)
{
    double a, b;
    if (!strcmp(stat, "signatureless_fraction")) {
        if (!scalar_of(db, run_id, "handshake_signatureless", cohort, &a) ||
            !scalar_of(db, run_id, "handshake_full", cohort, &b) || !(b > 0))
            return 0;
        *v = a / b;
        return 1;
    }
    if (!strncmp(stat, "auth_bytes_ratio_vs_", 20)) {
        char base[96];
        snprintf(base, sizeof base, "auth_bytes_baseline_%s", stat + 20);
        if (!hist_of(db, run_id, "auth_bytes", "mean", cohort, &a) ||
            !hist_of(db, run_id, base, "mean", cohort, &b) || !(b > 0))
            return 0;
        *v = a / b;
        return 1;
    }
    if (scalar_of(db, run_id, stat, cohort, v))
        return 1;
    const char *dot = strrchr(stat, '.');
    if (!dot || (size_t)(dot - stat) >= 160)
        return 0;
    char metric[160];
    snprintf(metric, sizeof metric, "%.*s", (int)(dot - stat), stat);
    return hist_of(db, run_id, metric, dot + 1, cohort, v);
}

size_t rdb_point_runs(sqlite3 *db, int64_t exp, int64_t point, int64_t **ids,
                      int64_t **reps, int64_t **seeds)
{
    sqlite3_stmt *st;
    size_t n = 0, cap = 0;
    *ids = *reps = *seeds = NULL;
    if (sqlite3_prepare_v2(db,
                           "SELECT run_id, replication, seed FROM run WHERE "
                           "experiment_id = ? AND sweep_point = ? AND status = "
                           "'completed' ORDER BY replication, run_id", -1, &st,
                           NULL) != SQLITE_OK)
        return 0;
    sqlite3_bind_int64(st, 1, exp);
    sqlite3_bind_int64(st, 2, point);
    while (sqlite3_step(st) == SQLITE_ROW) {
        int64_t rep = sqlite3_column_int64(st, 1);
        if (n && (*reps)[n - 1] == rep) {   /* the latest completed copy */
            (*ids)[n - 1] = sqlite3_column_int64(st, 0);
            continue;
        }
        if (n == cap) {
            cap = cap ? 2 * cap : 8;
            int64_t *a = realloc(*ids, cap * sizeof *a);
            if (a)
                *ids = a;
            int64_t *b = realloc(*reps, cap * sizeof *b);
            if (b)
                *reps = b;
            int64_t *c = realloc(*seeds, cap * sizeof *c);
            if (c)
                *seeds = c;
            if (!a || !b || !c)
                break;
        }
        (*ids)[n] = sqlite3_column_int64(st, 0);
        (*reps)[n] = rep;
        (*seeds)[n] = sqlite3_column_int64(st, 2);
        n++;
    }
    sqlite3_finalize(st);
    return n;
}
