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
#include "sim/names.h"

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

int rdb_run_stat(sim_results *db, int64_t run_id, const char *stat,
                 const char *cohort, double *v)
{
    stats_source src = stats_stored(db, run_id);
    stats_val x;
    if (!stats_value(&src, stat, cohort, &x))
        return 0;
    *v = x.v;
    return 1;
}

size_t rdb_point_vals(sim_results *db, int64_t exp, int64_t point,
                      const char *stat, const char *cohort, stats_val **out,
                      int64_t **reps, int64_t **seeds)
{
    int64_t *ids, *rp, *sd;
    size_t nr = rdb_point_runs(db, exp, point, &ids, &rp, &sd), n = 0;
    *out = malloc((nr ? nr : 1) * sizeof **out);
    for (size_t k = 0; *out && k < nr; k++) {
        stats_source src = stats_stored(db, ids[k]);
        if (stats_value(&src, stat, cohort, &(*out)[n])) {
            rp[n] = rp[k];
            sd[n] = sd[k];
            n++;
        }
    }
    free(ids);
    if (reps)
        *reps = rp;
    else
        free(rp);
    if (seeds)
        *seeds = sd;
    else
        free(sd);
    return *out ? n : 0;
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

/* Candidate names for a did-you-mean: d below *bd replaces best. */
static void nearer(const char *stat, const char *cand, size_t *bd, char *best,
                   size_t n)
{
    size_t d = sim_name_distance(stat, cand);
    if (d < *bd) {
        *bd = d;
        snprintf(best, n, "%s", cand);
    }
}

int rdb_stat_known(sim_results *db, int64_t exp, const char *stat, char *best,
                   size_t n)
{
    static const char *const hstats[] = {"count", "sum", "mean", "min", "max",
                                         "p50", "p90", "p99"};
    best[0] = '\0';
    for (size_t i = 0; stats_derived_names[i]; i++)
        if (!strcmp(stat, stats_derived_names[i]))
            return 1;
    for (size_t k = 0; k < STATS_SERIES; k++) {
        char b[200];
        snprintf(b, sizeof b, "%s.transient", stats_series[k]);
        if (!strcmp(stat, b))
            return 1;
        snprintf(b, sizeof b, "%s.truncation_h", stats_series[k]);
        if (!strcmp(stat, b))
            return 1;
    }
    char(*names)[160] = NULL;
    size_t nn = 0;
    if (sim_results_metric_names(db, exp, &names, &nn) != 0)
        nn = 0;
    int known = 0;
    const char *dot = strrchr(stat, '.');
    for (size_t i = 0; i < nn && !known; i++) {
        sim_metric_row m;
        if (!strcmp(stat, names[i])) {
            known = 1;
        } else if (dot && (size_t)(dot - stat) == strlen(names[i]) &&
                   !strncmp(stat, names[i], (size_t)(dot - stat)) &&
                   sim_results_metric_info(db, exp, names[i], &m) == 0 &&
                   !strcmp(m.kind, "histogram")) {
            for (size_t h = 0; h < sizeof hstats / sizeof *hstats; h++)
                known |= !strcmp(dot + 1, hstats[h]);
        }
    }
    if (!known) {
        size_t bd = 4;
        for (size_t i = 0; stats_derived_names[i]; i++)
            nearer(stat, stats_derived_names[i], &bd, best, n);
        for (size_t i = 0; i < nn; i++) {
            nearer(stat, names[i], &bd, best, n);
            /* "auth_bytes.p9" -> "auth_bytes.p90" */
            if (dot) {
                char b[200];
                for (size_t h = 0; h < sizeof hstats / sizeof *hstats; h++) {
                    snprintf(b, sizeof b, "%s.%s", names[i], hstats[h]);
                    nearer(stat, b, &bd, best, n);
                }
            }
        }
    }
    free(names);
    return known;
}

int rdb_new_provenance(const sim_run_row *runs, size_t i)
{
    const sim_run_row *x = &runs[i];
    for (size_t j = 0; j < i; j++)
        if (!strcmp(runs[j].scenario_path, x->scenario_path) &&
            !strcmp(runs[j].scenario_sha256, x->scenario_sha256) &&
            !strcmp(runs[j].program_version, x->program_version))
            return 0;
    return 1;
}
