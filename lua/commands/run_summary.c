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
    stats_collect_cohorts(&src, rs);
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

/* The value of statistic `name` in each of runs[0..n), into v; count. */
static size_t values_of(const run_stats *const *runs, size_t n, const char *name,
                        stats_val *v)
{
    size_t k = 0;
    for (size_t r = 0; r < n; r++)
        for (size_t j = 0; j < runs[r]->n; j++)
            if (!strcmp(runs[r]->s[j].name, name)) {
                v[k++] = runs[r]->s[j].val;
                break;
            }
    return k;
}

/* One table: the statistics of runs[0..n) (one point, one cohort). */
static void print_table(const char *lab, const char *cohort,
                        const run_stats *const *runs, size_t n, int all,
                        stats_val *x)
{
    const run_stats *first = runs[0];
    printf("\n== summary%s%s%s%s%s: %zu replication%s\n", *lab ? " [" : "", lab,
           *lab ? "]" : "", strcmp(cohort, "all") ? " cohort " : "",
           strcmp(cohort, "all") ? cohort : "", n, n == 1 ? "" : "s");
    if (n > 1)
        printf("%-44s %16s  %s\n", "metric", "mean", "95% interval");
    else
        printf("%-44s %16s\n", "metric", "value");
    if (first->leaf_key[0])
        printf("# like for like: MTC and the classical and ML-DSA-44 chains "
               "all use the sites' leaf key (%s); \"today\" is each site's "
               "chain exactly as served, with that chain's own leaf key "
               "(docs/model.md)\n", first->leaf_key);
    for (size_t s = 0; s < first->n; s++)
        if (!strncmp(first->s[s].name, "handshake_ms_change_", 20)) {
            printf("# latency: handshake_ms_change_* = MTC's quantile / the "
                   "baseline's - 1, both on the same connections (each "
                   "client's rtt and jitter, bandwidth, transport, the "
                   "site's key and signing time, the loss draw); "
                   "model and simplifications in docs/model.md\n");
            break;
        }
    if (n > 1)
        printf("# intervals: fractions Wilson (inside [0, 1]), 0/1 flags "
               "counted, other figures Student-t (analysis/stats.h)\n");
    int any = 0;
    for (size_t s = 0; s < first->n; s++)
        any |= shown(first->s[s].name, 0, 1);
    for (size_t s = 0; s < first->n; s++) {
        const char *name = first->s[s].name;
        /* what the scenario records is its own headline */
        if (!first->s[s].recorded && !shown(name, all, any))
            continue;
        size_t k = values_of(runs, n, name, x);
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
}

/* The value of statistic name in r; 1 when r has it. */
static int value_in(const run_stats *r, const char *name, double *v)
{
    for (size_t j = 0; r && j < r->n; j++)
        if (!strcmp(r->s[j].name, name)) {
            *v = r->s[j].val.v;
            return 1;
        }
    return 0;
}

/* Cohort `cohort` against cohort `ref` within each run of runs[0..n) (one
 * point): per statistic, the mean of the runs' differences and its
 * Student-t interval (the two cohorts of a run share its world, seeds and
 * time: a paired difference). Flags are left out. */
static void print_vs(const char *lab, const char *cohort, const char *ref,
                     const run_stats *const *runs, size_t n, int all, stats_val *x)
{
    const run_stats *c0 = stats_run_cohort(runs[0], cohort);
    const run_stats *r0 = stats_run_cohort(runs[0], ref);
    if (!c0 || !r0) {
        printf("\n== difference%s%s%s cohort %s - %s: no cohort '%s'\n", *lab ? " [" : "",
               lab, *lab ? "]" : "", cohort, ref, c0 ? ref : cohort);
        return;
    }
    printf("\n== difference%s%s%s cohort %s - %s: %zu replication%s, paired "
           "within each run\n", *lab ? " [" : "", lab, *lab ? "]" : "", cohort, ref,
           n, n == 1 ? "" : "s");
    printf("%-44s %16s  %s\n", "metric", "mean difference",
           n > 1 ? "95% interval (Student-t)" : "");
    int any = 0;
    for (size_t s = 0; s < c0->n; s++)
        any |= shown(c0->s[s].name, 0, 1);
    for (size_t s = 0; s < c0->n; s++) {
        const char *name = c0->s[s].name;
        if (c0->s[s].val.kind == STATS_FLAG ||
            (!c0->s[s].recorded && !shown(name, all, any)))
            continue;
        size_t k = 0;
        for (size_t r = 0; r < n; r++) {
            double a, b;
            if (value_in(stats_run_cohort(runs[r], cohort), name, &a) &&
                value_in(stats_run_cohort(runs[r], ref), name, &b)) {
                memset(&x[k], 0, sizeof x[k]);
                x[k].v = a - b;
                x[k++].kind = STATS_VALUE;
            }
        }
        if (!k)
            continue;
        stats_interval ci = stats_summarize(x, k);
        char v[40], c[64] = "";
        stats_format_value(k >= 2 ? ci.mean : x[0].v, STATS_VALUE, v, sizeof v);
        if (k >= 2)
            stats_format_ci(&ci, c, sizeof c);
        printf("%-44s %16s  %s\n", name, v, c);
    }
}

/* Per sweep point: every statistic over the replications (stats.h: mean
 * with a Student-t interval, a fraction's Wilson interval, a flag's
 * count) of the total or of cohorts, then the point's steady-state verdict
 * of each series. */
void run_print_summary(const plan *pl, const run_stats *runs, size_t nruns,
                       const run_opts *o, int steady_start)
{
    const run_stats **pr = malloc((nruns ? nruns : 1) * sizeof *pr);
    const run_stats **pc = malloc((nruns ? nruns : 1) * sizeof *pc);
    stats_val *x = malloc((nruns ? nruns : 1) * sizeof *x);
    for (size_t p = 0; pr && pc && x && p < pl->npoints; p++) {
        size_t nrep = 0;
        for (size_t r = 0; r < nruns; r++)
            if (runs[r].point == p)
                pr[nrep++] = &runs[r];
        if (!nrep)
            continue;
        char lab[512];
        run_point_label(pl, p, lab, sizeof lab);
        if (o->summary_cohort) {
            size_t nc = 0;
            for (size_t r = 0; r < nrep; r++) {
                const run_stats *c = stats_run_cohort(pr[r], o->summary_cohort);
                if (c)
                    pc[nc++] = c;
            }
            if (nc) {
                print_table(lab, o->summary_cohort, pc, nc, o->summary_all, x);
                if (o->vs_cohort && strcmp(o->vs_cohort, o->summary_cohort))
                    print_vs(lab, o->summary_cohort, o->vs_cohort, pr, nrep,
                             o->summary_all, x);
            } else {
                char have[1024] = "";
                for (size_t i = 0; i < pr[0]->ncohorts; i++) {
                    size_t l = strlen(have);
                    snprintf(have + l, sizeof have - l, "%s%s", i ? ", " : "",
                             pr[0]->cohorts[i].cohort);
                }
                printf("\n== summary%s%s%s: no cohort '%s' (cohorts: %s)\n",
                       *lab ? " [" : "", lab, *lab ? "]" : "", o->summary_cohort,
                       have[0] ? have : "none: one browser cohort");
            }
        } else {
            print_table(lab, "all", pr, nrep, o->summary_all, x);
        }
        for (size_t k = 0; !o->summary_cohort && k < STATS_SERIES; k++) {
            stats_verdict vd = stats_point_verdict(pr, nrep, k);
            if (!vd.nrep || !vd.r.judged)
                continue;
            char line[1024];
            stats_verdict_text(&vd, steady_start, line, sizeof line);
            printf("%s\n", line);
        }
        for (size_t ci = 0; o->by_cohort && ci < pr[0]->ncohorts; ci++) {
            const char *name = pr[0]->cohorts[ci].cohort;
            size_t nc = 0;
            for (size_t r = 0; r < nrep; r++) {
                const run_stats *c = stats_run_cohort(pr[r], name);
                if (c)
                    pc[nc++] = c;
            }
            print_table(lab, name, pc, nc, o->summary_all, x);
            if (o->vs_cohort && strcmp(o->vs_cohort, name))
                print_vs(lab, name, o->vs_cohort, pr, nrep, o->summary_all, x);
        }
    }
    free(pr);
    free(pc);
    free(x);
}
