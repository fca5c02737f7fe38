/*
 * rdb.c - the read side shared by `mtcsim ls`, `plot` and `compare`:
 * opening, experiments, ids, and a run's statistics by name. Separate from
 * the report's queries (report_data.c), which work on one experiment's
 * figures; these name statistics the way the run summary prints them, so
 * a figure and a table agree with what `mtcsim run` showed.
 */
#include <errno.h>
#include <math.h>
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

int64_t rdb_latest_experiment(sim_results *db)
{
    int64_t exp = -1;
    if (sim_results_latest_experiment(db, &exp) != 0)
        return -1;
    return exp;
}

int rdb_experiment_exists(sim_results *db, int64_t exp)
{
    sim_experiment_row e;
    return sim_results_experiment(db, exp, &e) == 0 && e.id >= 0;
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
static int scalar_of(sim_results *db, int64_t run, const char *metric,
                     const char *cohort, double *v)
{
    int found = 0;
    return sim_results_scalar(db, run, metric, cohort, v, &found) == 0 && found;
}

/* A column of a run's histogram (count, mean, p50, ...). */
static int hist_of(sim_results *db, int64_t run, const char *metric,
                   const char *col, const char *cohort, double *v)
{
    sim_hist_row h;
    int found = 0;
    if (sim_results_histogram(db, run, metric, cohort, &h, &found) != 0 || !found)
        return 0;
    static const char *const cols[] = {"count", "sum", "mean", "min", "max",
                                       "p50", "p90", "p99"};
    const double vals[] = {h.count, h.sum, h.mean, h.min, h.max, h.p50, h.p90, h.p99};
    for (int i = 0; i < 8; i++)
        if (!strcmp(cols[i], col)) {
            if (isnan(vals[i]))
                return 0;
            *v = vals[i];
            return 1;
        }
    return 0;
}

int rdb_run_stat(sim_results *db, int64_t run_id, const char *stat,
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

size_t rdb_point_runs(sim_results *db, int64_t exp, int64_t point, int64_t **ids,
                      int64_t **reps, int64_t **seeds)
{
    sim_run_ref *runs;
    size_t n = 0;
    *ids = *reps = *seeds = NULL;
    if (sim_results_point_runs(db, exp, point, &runs, &n) != 0)
        return 0;
    *ids = malloc((n ? n : 1) * sizeof **ids);
    *reps = malloc((n ? n : 1) * sizeof **reps);
    *seeds = malloc((n ? n : 1) * sizeof **seeds);
    if (!*ids || !*reps || !*seeds) {
        free(*ids);
        free(*reps);
        free(*seeds);
        *ids = *reps = *seeds = NULL;
        n = 0;
    }
    for (size_t i = 0; i < n; i++) {
        (*ids)[i] = runs[i].run_id;
        (*reps)[i] = runs[i].replication;
        (*seeds)[i] = (int64_t)runs[i].seed;
    }
    free(runs);
    return n;
}
