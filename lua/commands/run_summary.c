/*
 * run_summary.c - what a completed run contributes to the summary and the
 * per-point summary table. The statistics are the statistics module's
 * (analysis/stats.h) over the run's live registry, so the run summary,
 * `compare` and `report` print the same figures by the same definitions;
 * this file only chooses the rows and prints them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run_internal.h"

void run_collect_stats(sim_metrics *m, run_stats *rs)
{
    stats_source src = stats_live(m);
    stats_collect(&src, "all", rs);
}

static int shown(const char *name, int all, int any_headline)
{
    if (all || !any_headline)
        return 1;
    for (int i = 0; stats_headline[i]; i++)
        if (!strcmp(stats_headline[i], name))
            return 1;
    return 0;
}

/* The value of statistic `name` in each run of point p, into v; count. */
static size_t values_of(const run_stats *runs, size_t nruns, size_t p,
                        const char *name, stats_val *v)
{
    size_t k = 0;
    for (size_t r = 0; r < nruns; r++) {
        if (runs[r].point != p)
            continue;
        for (size_t j = 0; j < runs[r].n; j++)
            if (!strcmp(runs[r].s[j].name, name)) {
                v[k++] = runs[r].s[j].val;
                break;
            }
    }
    return k;
}

/* Per sweep point: every statistic over the replications (stats.h: mean
 * with a Student-t interval, a fraction's Wilson interval, a flag's
 * count), then the point's steady-state verdict of each series. */
void run_print_summary(const plan *pl, const run_stats *runs, size_t nruns,
                       int all, int steady_start)
{
    const run_stats **pr = malloc((nruns ? nruns : 1) * sizeof *pr);
    stats_val *x = malloc((nruns ? nruns : 1) * sizeof *x);
    for (size_t p = 0; pr && x && p < pl->npoints; p++) {
        const run_stats *first = NULL;
        size_t nrep = 0;
        for (size_t r = 0; r < nruns; r++)
            if (runs[r].point == p) {
                pr[nrep++] = &runs[r];
                if (!first)
                    first = &runs[r];
            }
        if (!first)
            continue;
        char lab[512];
        run_point_label(pl, p, lab, sizeof lab);
        printf("\n== summary%s%s%s: %zu replication%s\n", *lab ? " [" : "",
               lab, *lab ? "]" : "", nrep, nrep == 1 ? "" : "s");
        if (nrep > 1)
            printf("%-44s %16s  %s\n", "metric", "mean", "95% interval");
        else
            printf("%-44s %16s\n", "metric", "value");
        if (first->leaf_key[0])
            printf("# like for like: MTC and the classical and ML-DSA-44 chains "
                   "all use the sites' leaf key (%s); the chains are each site's "
                   "profile of today's (2-4 certificates, 2-3 SCTs), the ML-DSA-44 "
                   "one with every CA and log key ML-DSA-44; \"today\" is that "
                   "chain with its own leaf key (RSA or ECDSA)\n", first->leaf_key);
        for (size_t s = 0; s < first->n; s++)
            if (!strncmp(first->s[s].name, "handshake_ms_change_", 20)) {
                printf("# latency: handshake_ms_change_* = MTC's quantile / the "
                       "baseline's - 1, both on the same connections (each "
                       "client's rtt and jitter, bandwidth, transport, the "
                       "loss draw; each arm its own key's signing and "
                       "verification time); "
                       "model and simplifications in docs/model.md\n");
                break;
            }
        if (nrep > 1)
            printf("# intervals: fractions Wilson (inside [0, 1]), 0/1 flags "
                   "counted, other figures Student-t (analysis/stats.h)\n");
        int any = 0;
        for (size_t s = 0; s < first->n; s++)
            any |= shown(first->s[s].name, 0, 1);
        for (size_t s = 0; s < first->n; s++) {
            const char *name = first->s[s].name;
            if (!shown(name, all, any))
                continue;
            size_t k = values_of(runs, nruns, p, name, x);
            stats_interval ci = stats_summarize(x, k);
            char v[40], c[64];
            stats_format_value(k >= 2 ? ci.mean : x[0].v, x[0].kind, v, sizeof v);
            if (k >= 2) {
                stats_format_ci(&ci, c, sizeof c);
                if (ci.kind == STATS_FLAG)
                    snprintf(v, sizeof v, "-");
                printf("%-44s %16s  %s\n", name, v, c);
            } else {
                printf("%-44s %16s\n", name, v);
            }
        }
        for (size_t k = 0; k < STATS_SERIES; k++) {
            stats_verdict vd = stats_point_verdict(pr, nrep, k);
            if (!vd.nrep || !vd.r.judged)
                continue;
            char line[1024];
            stats_verdict_text(&vd, steady_start, line, sizeof line);
            printf("%s\n", line);
        }
    }
    free(pr);
    free(x);
}
