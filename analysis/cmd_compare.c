/*
 * cmd_compare.c - `mtcsim compare A.db[:EXP] B.db[:EXP]`: two experiments
 * side by side, for "before and after a change" and "two scenarios".
 *
 * For every sweep point the two share (matched by their swept values, or
 * the single point of each), every headline statistic of the run summary:
 * the mean of each side with its interval (stats.h), and the difference
 * B - A with its interval. The interval is paired when the two sides ran
 * the same replications with the same seeds (common random numbers: the
 * same streams drive both, so most noise cancels in each pair), Welch's
 * otherwise. A '*' marks differences whose interval excludes 0.
 * With --vs-cohort REF, one experiment against itself sets a cohort against
 * REF within each run; two experiments give a difference of differences
 * (the cohort minus REF within each run of each side, then B - A).
 * With --out DIR: DIR/compare.txt (the table) and overlaid figures of both
 * sides (the signatureless fraction, authentication bytes, issuance
 * delays, and each --metric), drawn as `mtcsim plot` draws them.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "analysis.h"
#include "compare_match.h"
#include "diffci.h"
#include "plot_internal.h"
#include "rdb.h"

#define MAX_EXTRA 16

static void usage(FILE *f)
{
    fprintf(f,
        "usage: mtcsim compare A.db[:EXP] B.db[:EXP] [--out DIR] [--metric NAME ...]\n"
        "                      [--stat NAME ...] [--axis NAME ...] [--all]\n"
        "                      [--cohort NAME | --by-cohort] [--vs-cohort REF]\n\n"
        "Compares two experiments (default: the latest of each file; the two\n"
        "may be in one file: r.db:1 r.db:2). For each sweep point they share\n"
        "(matched by swept values), each headline statistic: mean of A and of B\n"
        "with 95 %% intervals (Student-t half-widths; a fraction's Wilson\n"
        "interval [lo,hi]; a 0/1 flag's count k/n), the difference B - A with its 95 %%\n"
        "interval and the relative difference. The interval is paired when both\n"
        "sides ran the same replications with the same seeds (common random\n"
        "numbers), Welch's otherwise; '*' marks an interval that excludes 0.\n\n"
        "Points are paired on every effective parameter that varies between\n"
        "sweep points of either side (not only on the swept marks); each pair\n"
        "says what it paired and every parameter in which B differs from A.\n"
        "A difference in a parameter not declared with --axis is a WARNING;\n"
        "with --axis, it is refused (exit 2). When both sides ran the same\n"
        "scenario (file and loaded files' SHA-256, entity --set options), the\n"
        "world and entity parameters follow from the scenario parameters: points\n"
        "are matched on those, and the others' differences are said to follow.\n"
        "The same experiment on both sides compares each pair of its points once\n"
        "when an --axis lets points pair across it, else (and with --vs-cohort)\n"
        "each point with itself.\n\n"
        "  --out DIR      also write DIR/compare.txt and overlaid figures of A and\n"
        "                 B (signatureless fraction, auth bytes, issuance delays)\n"
        "  --metric NAME  one more overlaid figure (repeatable; as mtcsim plot)\n"
        "  --stat NAME    one more table row, e.g. update_bytes, auth_bytes.p90\n"
        "                 (repeatable)\n"
        "  --axis NAME    a parameter the comparison is about: it may differ\n"
        "                 between A and B and points pair across it (NAME,\n"
        "                 ENTITY.NAME or KIND.ENTITY.NAME; repeatable)\n"
        "  --all          every statistic the runs have, not only the headline\n"
        "  --cohort NAME  the statistics of one browser cohort instead of the total\n"
        "  --by-cohort    the total, then each browser cohort\n"
        "  --vs-cohort REF  with --cohort NAME or --by-cohort: with the same\n"
        "                 experiment on both sides, cohort NAME (B) against REF\n"
        "                 (A) within each run (paired by replication), e.g. r.db\n"
        "                 r.db --cohort enterprise --vs-cohort regular-desktop;\n"
        "                 across two experiments, the difference of differences:\n"
        "                 NAME - REF within each run of each side (the A and B\n"
        "                 columns), then B - A, paired by replication and seed\n"
        "                 when both sides ran the same ones, Welch's otherwise\n\n"
        "Exit status 0, 1 when a figure fails, 2 for bad usage or input.\n");
}

typedef struct side {
    char path[4096];
    int64_t exp_req;
    sim_results *res;
    plot_sel *s;
    char name[256];
    int64_t reps;
} side;

static int open_side(side *d, const char *spec)
{
    rdb_split_spec(spec, d->path, sizeof d->path, &d->exp_req);
    if (rdb_open("compare", d->path, &d->res) != HOST_OK)
        return HOST_USAGE;
    d->s = calloc(1, sizeof *d->s);
    if (!d->s)
        return HOST_FAIL;
    report *r = &d->s->r;
    r->db = d->res;
    r->dbpath = d->path;
    r->exp = d->exp_req >= 0 ? d->exp_req : rdb_latest_experiment(r->db);
    if (r->exp < 0 || !rdb_experiment_exists(r->db, r->exp)) {
        fprintf(stderr, "mtcsim compare: %s %s\n", d->path,
                d->exp_req >= 0 ? "has no such experiment" : "holds no experiment");
        return HOST_USAGE;
    }
    if (report__load_points(r) != 0 || r->npoints == 0) {
        fprintf(stderr, "mtcsim compare: %s: experiment %lld has no runs\n",
                d->path, (long long)r->exp);
        return HOST_USAGE;
    }
    sim_experiment_row e;
    if (sim_results_experiment(r->db, r->exp, &e) == 0 && e.id >= 0) {
        snprintf(d->name, sizeof d->name, "%s", e.name);
        d->reps = e.replications;
    }
    return HOST_OK;
}

/* 1 when both sides are one experiment of one file. */
static int same_experiment(const side *A, const side *B)
{
    struct stat sa, sb;
    return A->s->r.exp == B->s->r.exp && stat(A->path, &sa) == 0 &&
           stat(B->path, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

static void close_side(side *d)
{
    if (d->s) {
        free(d->s->r.points);
        free(d->s->r.label);
        free(d->s->r.xval);
        free(d->s);
    }
    sim_results_close(d->res);
}

/* The statistics of a compared row set: headline, --all, --stat. */
typedef struct stat_list {
    char (*name)[160];
    size_t n, cap;
} stat_list;

static void stat_push(stat_list *l, const char *name)
{
    for (size_t i = 0; i < l->n; i++)
        if (!strcmp(l->name[i], name))
            return;
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 64;
        char(*p)[160] = realloc(l->name, cap * sizeof *p);
        if (!p)
            return;
        l->name = p;
        l->cap = cap;
    }
    snprintf(l->name[l->n++], 160, "%s", name);
}

/* Every statistic the experiment's first completed run has. */
static void stat_all(sim_results *db, int64_t exp, stat_list *l)
{
    int64_t run = -1;
    sim_metric_row *m;
    size_t n;
    /* the first completed run stands for all */
    sim_run_row *runs;
    size_t nr;
    if (sim_results_runs(db, exp, &runs, &nr) == 0) {
        for (size_t i = 0; i < nr; i++)
            if (runs[i].status == SIM_RUN_COMPLETED) {
                run = runs[i].id;
                break;
            }
        free(runs);
    }
    if (run < 0 || sim_results_run_metrics(db, run, &m, &n) != 0)
        return;
    for (size_t i = 0; i < n; i++) {
        char b[200];
        if (!strcmp(m[i].kind, "histogram")) {
            static const char *const hs[] = {"count", "mean", "p50", "p99"};
            for (int k = 0; k < 4; k++) {
                snprintf(b, sizeof b, "%s.%s", m[i].name, hs[k]);
                stat_push(l, b);
            }
        } else {
            stat_push(l, m[i].name);
        }
    }
    free(m);
}

/* Values of `stat` at a point's completed runs, with replication and seed,
 * and their interval (stats.h); *v holds the plain values. */
static size_t values(side *d, size_t p, const char *stat, const char *cohort,
                     double **v, int64_t **reps, int64_t **seeds, stats_interval *ci)
{
    stats_val *x;
    size_t n = rdb_point_vals(d->s->r.db, d->s->r.exp, d->s->r.points[p], stat,
                              cohort, &x, reps, seeds);
    *ci = stats_summarize(x, n);
    *v = malloc((n ? n : 1) * sizeof **v);
    for (size_t k = 0; *v && k < n; k++)
        (*v)[k] = x[k].v;
    free(x);
    return *v ? n : 0;
}

/* Within each run of a side's point, `stat` of cohort minus `stat` of
 * cohort ref (both cohorts of a run share its world, seeds and time), with
 * each run's replication and seed and the differences' Student-t
 * interval; runs lacking either cell are left out. */
static size_t values_vs(side *d, size_t p, const char *stat, const char *cohort,
                        const char *ref, double **v, int64_t **reps, int64_t **seeds,
                        stats_interval *ci)
{
    stats_val *x, *y;
    int64_t *rx, *sx, *ry, *sy;
    size_t nx = rdb_point_vals(d->s->r.db, d->s->r.exp, d->s->r.points[p], stat,
                               cohort, &x, &rx, &sx);
    size_t ny = rdb_point_vals(d->s->r.db, d->s->r.exp, d->s->r.points[p], stat,
                               ref, &y, &ry, &sy);
    stats_val *dv = malloc((nx ? nx : 1) * sizeof *dv);
    *v = malloc((nx ? nx : 1) * sizeof **v);
    *reps = malloc((nx ? nx : 1) * sizeof **reps);
    *seeds = malloc((nx ? nx : 1) * sizeof **seeds);
    size_t n = 0;
    for (size_t i = 0; dv && *v && *reps && *seeds && i < nx; i++)
        for (size_t j = 0; j < ny; j++)
            if (ry[j] == rx[i] && sy[j] == sx[i]) {
                /* a difference is a plain value: a share's difference may
                 * be negative, so it gets a t-interval, not Wilson's */
                dv[n] = (stats_val){x[i].v - y[j].v, STATS_VALUE, NAN, NAN};
                (*v)[n] = dv[n].v;
                (*reps)[n] = rx[i];
                (*seeds)[n] = sx[i];
                n++;
                break;
            }
    *ci = stats_summarize(dv, n);
    free(dv);
    free(x);
    free(y);
    free(rx);
    free(sx);
    free(ry);
    free(sy);
    return *v && *reps && *seeds ? n : 0;
}

/* A side's interval in one column: "0.0123" (Student-t half-width),
 * "[0.901512,0.960803]" (a fraction's Wilson interval, six significant digits as the summary), "2/5" (runs flagged),
 * "-" with one run. */
static void fmt_side(char *b, size_t n, const stats_interval *ci)
{
    if (ci->n < 2)
        snprintf(b, n, "-");
    else if (ci->kind == STATS_FLAG)
        snprintf(b, n, "%zu/%zu", ci->flagged, ci->n);
    else if (ci->kind == STATS_FRACTION)
        snprintf(b, n, "[%.6g,%.6g]", ci->lo, ci->hi);
    else
        snprintf(b, n, "%.3g", ci->half);
}

static void fmt_num(char *b, size_t n, double v, int sign)
{
    if (!isfinite(v))
        snprintf(b, n, "-");
    else if (v == floor(v) && fabs(v) < 1e15)
        snprintf(b, n, sign ? "%+.0f" : "%.0f", v);
    else
        snprintf(b, n, sign ? "%+.6g" : "%.6g", v);
}

/* One table row: both sides' means and half-widths, the difference and its
 * interval. With did_ref, each side's values are its runs' differences
 * cohort_b - did_ref (cohort_a is then cohort_b), and B - A is a difference
 * of differences. Returns 1 when printed, 2 when every value of both sides
 * is 0 (left out of the table, named below it), 0 when a side lacks it. */
static int compare_row(FILE *f, side *A, side *B, size_t pa, size_t pb,
                       const char *stat, const char *cohort_a,
                       const char *cohort_b, const char *did_ref, int *paired_out)
{
    double *va, *vb;
    int64_t *ra, *sa, *rb, *sb;
    stats_interval ca, cb;
    size_t na = did_ref ? values_vs(A, pa, stat, cohort_b, did_ref, &va, &ra, &sa, &ca)
                        : values(A, pa, stat, cohort_a, &va, &ra, &sa, &ca);
    size_t nb = did_ref ? values_vs(B, pb, stat, cohort_b, did_ref, &vb, &rb, &sb, &cb)
                        : values(B, pb, stat, cohort_b, &vb, &rb, &sb, &cb);
    int printed = 0, zero = na && nb;
    for (size_t i = 0; zero && i < na; i++)
        zero = va[i] == 0;
    for (size_t i = 0; zero && i < nb; i++)
        zero = vb[i] == 0;
    if (zero) {
        printed = 2;
    } else if (na && nb) {
        /* paired when the two sides ran the same (replication, seed) set;
         * one pair has no interval, so it is not called paired */
        diffci d;
        int paired = diffci_matched(va, ra, sa, na, vb, rb, sb, nb, CI_LEVEL, &d);
        *paired_out = paired && na >= 2;
        double ma = ca.mean;
        char s1[32], s2[48], s3[32], s4[48], s5[32], s6[32], s7[32], ci[72];
        fmt_num(s1, sizeof s1, ma, 0);
        fmt_num(s3, sizeof s3, cb.mean, 0);
        fmt_side(s2, sizeof s2, &ca);
        fmt_side(s4, sizeof s4, &cb);
        fmt_num(s5, sizeof s5, d.diff, 1);
        if (d.method != DIFF_NONE) {
            fmt_num(s6, sizeof s6, d.lo, 1);
            fmt_num(s7, sizeof s7, d.hi, 1);
            snprintf(ci, sizeof ci, "[%s, %s]", s6, s7);
        } else {
            snprintf(ci, sizeof ci, "(n < 2)");
        }
        char rel[32] = "";
        if (ma != 0 && isfinite(ma))
            snprintf(rel, sizeof rel, "%+.3g%%", 100 * d.diff / fabs(ma));
        fprintf(f, "%-36s %12s %9s %12s %9s %12s %-28s %c %9s\n", stat, s1, s2, s3,
                s4, s5, ci, diffci_significant(&d) ? '*' : ' ', rel);
        printed = 1;
    }
    free(va);
    free(vb);
    free(ra);
    free(sa);
    free(rb);
    free(sb);
    return printed;
}

/* The parameters of both sides' points, the declared axes, and the
 * cohorts whose tables are printed ("all": the total). */
typedef struct match_ctx {
    cmp_side a, b;
    const char *const *axes;
    size_t naxes;
    char (*cohorts)[64];
    size_t ncohorts;
    const char *vs_cohort;      /* --vs-cohort: A's cohort; NULL: the table's */
} match_ctx;

/* Completed runs of a side's point (for "what was paired"). */
static size_t point_nruns(side *d, size_t p)
{
    int64_t *ids, *reps, *seeds;
    size_t n = rdb_point_runs(d->s->r.db, d->s->r.exp, d->s->r.points[p], &ids,
                              &reps, &seeds);
    free(ids);
    free(reps);
    free(seeds);
    return n;
}

/* Points of one side that no pair uses, as a note. */
static void print_unpaired(FILE *f, const char *tag, side *d, size_t (*pairs)[2],
                           size_t npairs, int which)
{
    for (size_t i = 0; i < d->s->r.npoints; i++) {
        int used = 0;
        for (size_t k = 0; k < npairs && !used; k++)
            used = pairs[k][which] == i;
        if (!used)
            fprintf(f, "not compared: %s [%s]: no point of the other side has the "
                       "same values of the parameters that vary between sweep "
                       "points (declare one with --axis NAME to compare across "
                       "it)\n", tag, d->s->r.label[i]);
    }
}

/* The rows of one pair and cohort. With --vs-cohort: within one
 * experiment, cohort against REF in each run; across two, the difference of
 * differences (did: each side's within-run difference, then B - A). */
static void print_rows(FILE *f, side *A, side *B, size_t pa, size_t pb,
                       const stat_list *stats, const char *cohort,
                       const char *vs_cohort, int did)
{
    const char *cohort_a = vs_cohort && !did ? vs_cohort : cohort;
    if (vs_cohort && did)
        fprintf(f, "-- cohort %s minus cohort %s within each run (A and B columns: "
                   "the mean of the runs' differences); B - A: the difference of "
                   "differences\n", cohort, vs_cohort);
    else if (vs_cohort)
        fprintf(f, "-- cohort %s (B) against cohort %s (A)\n", cohort, vs_cohort);
    else if (strcmp(cohort, "all"))
        fprintf(f, "-- cohort %s\n", cohort);
    fprintf(f, "%-36s %12s %9s %12s %9s %12s %-28s %c %9s\n", "statistic",
            "A mean", "+-95%", "B mean", "+-95%", "B - A", "95% CI of B - A",
            ' ', "B/A - 1");
    int paired = 0, any_paired = 0, rows = 0;
    /* the statistics that are 0 on both sides, named after the table: a
     * list as long as the statistics (a fixed buffer cut --all's list
     * short, in the middle of a name) */
    unsigned char *zero = calloc(stats->n ? stats->n : 1, 1);
    size_t zeros = 0;
    for (size_t i = 0; i < stats->n; i++) {
        int got = compare_row(f, A, B, pa, pb, stats->name[i], cohort_a, cohort,
                              did ? vs_cohort : NULL, &paired);
        if (got == 1) {
            rows++;
            any_paired |= paired;
        } else if (got == 2 && zero) {
            zero[i] = 1;
            zeros++;
        }
    }
    if (zeros) {
        fputs("0 on both sides: ", f);
        for (size_t i = 0, k = 0; i < stats->n; i++)
            if (zero[i])
                fprintf(f, "%s%s", k++ ? ", " : "", stats->name[i]);
        fputc('\n', f);
    }
    if (!zero)
        fputs("0 on both sides: (not listed: out of memory)\n", f);
    free(zero);
    if (!rows)
        fprintf(f, "(no statistic is present on both sides)\n");
    else
        fprintf(f, "intervals of B - A: %s\n",
                any_paired ? "paired (same replications and seeds: common "
                             "random numbers)"
                           : "Welch (independent runs)");
}

/* The cohorts to print: "all", or --cohort NAME (one of A's browser
 * cohorts), or with --by-cohort "all" and each of them. */
static int pick_cohorts(side *A, const char *cohort, int by_cohort, match_ctx *mc)
{
    const char *want[2] = {cohort, mc->vs_cohort};
    char have[64][64];
    size_t nh = 0;
    int64_t *ids, *reps, *seeds;
    size_t nr = rdb_point_runs(A->s->r.db, A->s->r.exp, A->s->r.points[0], &ids,
                               &reps, &seeds);
    if (nr) {
        stats_source src = stats_stored(A->s->r.db, ids[0]);
        nh = stats_cohorts(&src, have, 64);
    }
    free(ids);
    free(reps);
    free(seeds);
    mc->cohorts = calloc(nh + 1, sizeof *mc->cohorts);
    if (!mc->cohorts)
        return HOST_FAIL;
    for (int w = 0; w < 2; w++) {
        if (!want[w])
            continue;
        int found = 0;
        for (size_t i = 0; i < nh; i++)
            found |= !strcmp(have[i], want[w]);
        if (!found) {
            char list[1024] = "";
            for (size_t i = 0; i < nh; i++) {
                size_t l = strlen(list);
                snprintf(list + l, sizeof list - l, "%s%s", i ? ", " : "", have[i]);
            }
            fprintf(stderr, "mtcsim compare: %s %s: A has no such browser "
                            "cohort (its cohorts: %s)\n",
                    w ? "--vs-cohort" : "--cohort", want[w], list[0] ? list : "none");
            return HOST_USAGE;
        }
    }
    /* cohort names are entity names, under 64 bytes: the precision bounds
     * what the compiler cannot see (the sanitized build's -O1 warns) */
    if (cohort) {
        snprintf(mc->cohorts[mc->ncohorts++], 64, "%.63s", cohort);
        return HOST_OK;
    }
    /* against a cohort, the total is not a cohort of the same kind */
    if (!mc->vs_cohort)
        snprintf(mc->cohorts[mc->ncohorts++], 64, "all");
    for (size_t i = 0; by_cohort && nh > 1 && i < nh; i++)
        if (!mc->vs_cohort || strcmp(have[i], mc->vs_cohort))
            snprintf(mc->cohorts[mc->ncohorts++], 64, "%.63s", have[i]);
    return HOST_OK;
}

static void print_table(FILE *f, side *A, side *B, size_t (*pairs)[2],
                        size_t npairs, const match_ctx *mc, const stat_list *stats)
{
    fprintf(f, "A: %s experiment %lld (%s): %zu sweep point%s, %lld replication%s\n",
            A->path, (long long)A->s->r.exp, A->name, A->s->r.npoints,
            A->s->r.npoints == 1 ? "" : "s", (long long)A->reps, A->reps == 1 ? "" : "s");
    fprintf(f, "B: %s experiment %lld (%s): %zu sweep point%s, %lld replication%s\n",
            B->path, (long long)B->s->r.exp, B->name, B->s->r.npoints,
            B->s->r.npoints == 1 ? "" : "s", (long long)B->reps, B->reps == 1 ? "" : "s");
    if (!same_experiment(A, B)) {
        print_unpaired(f, "A", A, pairs, npairs, 0);
        print_unpaired(f, "B", B, pairs, npairs, 1);
    }
    for (size_t k = 0; k < npairs; k++) {
        size_t pa = pairs[k][0], pb = pairs[k][1];
        const char *la = A->s->r.label[pa], *lb = B->s->r.label[pb];
        fprintf(f, "\n== A [%s] vs B [%s]\n", la, lb);
        char diff[2048], fol[2048];
        size_t nd, und, nf;
        cmp_differences(&mc->a, pa, &mc->b, pb, mc->axes, mc->naxes, diff,
                        sizeof diff, &nd, &und, fol, sizeof fol, &nf);
        fprintf(f, "paired: A sweep point %lld (%zu completed runs) with B sweep "
                   "point %lld (%zu completed runs), matched on every parameter "
                   "that varies between sweep points\n",
                (long long)A->s->r.points[pa], point_nruns(A, pa),
                (long long)B->s->r.points[pb], point_nruns(B, pb));
        if (nd == 0 && nf == 0)
            fprintf(f, "parameters: the same on both sides\n");
        else if (nd == 0)
            fprintf(f, "parameters: the scenario parameters are the same on both "
                       "sides\n");
        else if (und == 0)
            fprintf(f, "parameters: B differs from A in the declared axis: %s\n", diff);
        else
            fprintf(f, "WARNING: B differs from A in %zu parameter%s%s: %s; a "
                       "difference below is the effect of all of them (declare "
                       "the ones under study with --axis NAME)\n", nd,
                    nd == 1 ? "" : "s", mc->naxes ? " not all declared" : "", diff);
        if (nf)
            fprintf(f, "following from them (the same scenario and files, the same "
                       "entity --set options): %s\n", fol);
        for (size_t c = 0; c < mc->ncohorts; c++)
            print_rows(f, A, B, pa, pb, stats, mc->cohorts[c], mc->vs_cohort,
                       !same_experiment(A, B));
    }
    if (npairs == 0)
        fprintf(f, "\nno sweep point of A matches one of B (compare the swept "
                   "values with mtcsim ls)\n");
}

/* One overlaid figure of `metric`: A's lines then B's. 0 drawn, 1 skipped,
 * -1 failed. */
static int overlay(side *A, side *B, const char *metric, size_t (*pairs)[2],
                   size_t npairs, const char *dir)
{
    side *sd[2] = {A, B};
    static const char *const tags[2] = {"A: ", "B: "};
    plot_fig *f = calloc(1, sizeof *f);
    if (!f)
        return -1;
    int view = VIEW_AUTO;
    for (int i = 0; i < 2; i++) {
        plot_sel *s = sd[i]->s;
        snprintf(s->metric, sizeof s->metric, "%s", metric);
        s->stat[0] = '\0';
        s->quiet = 1;
        if (plot__resolve(s, "compare") != HOST_OK) {
            free(f);
            return 1;
        }
        s->tag = tags[i];
        s->ncohorts = 1;
        snprintf(s->cohorts[0], sizeof s->cohorts[0], "all");
        s->npoints = 0;
        int sweep = A->s->r.npoints > 1 && B->s->r.npoints > 1;
        if (i == 0)
            view = !strcmp(s->kind, "histogram") ? VIEW_CDF
                   : sweep                       ? VIEW_SWEEP
                   : s->has_series || !strcmp(s->kind, "derived") ? VIEW_SERIES
                                                                   : VIEW_BARS;
        if (view == VIEW_SWEEP || view == VIEW_BARS) {
            for (size_t p = 0; p < s->r.npoints && p < PLOT_MAX_POINTS; p++)
                s->points[s->npoints++] = p;
            if (view == VIEW_BARS)
                s->r.x_numeric = 0;
        } else {
            /* a point paired with several of the other side (an --axis)
             * is drawn once: the same line twice is a duplicate legend */
            for (size_t k = 0; k < npairs && s->npoints < PLOT_MAX_LINES / 2; k++) {
                size_t j = 0;
                while (j < s->npoints && s->points[j] != pairs[k][i])
                    j++;
                if (j == s->npoints)
                    s->points[s->npoints++] = pairs[k][i];
            }
        }
        if (view == VIEW_SERIES)
            plot__series(s, f);
        else if (view == VIEW_CDF)
            plot__cdf(s, f);
        else
            plot__sweep(s, f);
    }
    if (plot__prune(f) == 0) {
        free(f);
        return 1;
    }
    plot__dedupe(f);
    plot__finish(A->s, f, view);
    snprintf(f->title, sizeof f->title, "%s: A = %.90s:%lld, B = %.90s:%lld", metric,
             A->path, (long long)A->s->r.exp, B->path, (long long)B->s->r.exp);
    char out[4400];
    snprintf(out, sizeof out, "%s/%s.png", dir, metric);
    int rc = plot__draw(f, out, "compare");
    if (rc == 0)
        printf("%s\n", out);
    plot__fig_free(f);
    free(f);
    return rc;
}

int cmd_compare(int argc, char **argv)
{
    const char *spec[2] = {NULL, NULL}, *out = NULL;
    const char *extra_m[MAX_EXTRA], *extra_s[MAX_EXTRA], *axes[MAX_EXTRA];
    size_t naxes = 0;
    const char *cohort = NULL, *vs_cohort = NULL;
    int by_cohort = 0;
    size_t nm = 0, ns = 0;
    int all = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int has_v = i + 1 < argc;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return HOST_OK;
        } else if (!strcmp(a, "--out") && has_v) {
            out = argv[++i];
        } else if (!strcmp(a, "--metric") && has_v && nm < MAX_EXTRA) {
            extra_m[nm++] = argv[++i];
        } else if (!strcmp(a, "--cohort") && has_v) {
            cohort = argv[++i];
        } else if (!strcmp(a, "--by-cohort")) {
            by_cohort = 1;
        } else if (!strcmp(a, "--vs-cohort") && has_v) {
            vs_cohort = argv[++i];
        } else if (!strcmp(a, "--axis") && has_v && naxes < MAX_EXTRA) {
            axes[naxes++] = argv[++i];
        } else if (!strcmp(a, "--stat") && has_v && ns < MAX_EXTRA) {
            extra_s[ns++] = argv[++i];
        } else if (!strcmp(a, "--all")) {
            all = 1;
        } else if (a[0] == '-' && a[1]) {
            fprintf(stderr, "mtcsim compare: unknown or incomplete option '%s'\n", a);
            usage(stderr);
            return HOST_USAGE;
        } else if (!spec[0] || !spec[1]) {
            spec[spec[0] ? 1 : 0] = a;
        } else {
            fprintf(stderr, "mtcsim compare: unexpected argument '%s'\n", a);
            return HOST_USAGE;
        }
    }
    if (cohort && by_cohort) {
        fprintf(stderr, "mtcsim compare: --cohort and --by-cohort exclude each other\n");
        return HOST_USAGE;
    }
    if (vs_cohort && !cohort && !by_cohort) {
        fprintf(stderr, "mtcsim compare: --vs-cohort REF needs --cohort NAME or "
                        "--by-cohort (the cohorts set against REF)\n");
        return HOST_USAGE;
    }
    if (!spec[1]) {
        fprintf(stderr, "mtcsim compare: expected two experiments, A.db[:EXP] B.db[:EXP]\n");
        usage(stderr);
        return HOST_USAGE;
    }
    side A, B;
    memset(&A, 0, sizeof A);
    memset(&B, 0, sizeof B);
    int status = open_side(&A, spec[0]);
    if (status == HOST_OK)
        status = open_side(&B, spec[1]);
    stat_list stats = {NULL, 0, 0};
    size_t(*pairs)[2] = NULL;
    FILE *txt = NULL;
    match_ctx mc;
    memset(&mc, 0, sizeof mc);
    if (status != HOST_OK)
        goto done;
    /* a --stat nobody has would print nothing: a typo is said, with the
     * nearest name */
    for (size_t i = 0; i < ns; i++) {
        char best[200];
        if (rdb_stat_known(A.s->r.db, A.s->r.exp, extra_s[i], best, sizeof best) ||
            rdb_stat_known(B.s->r.db, B.s->r.exp, extra_s[i], best, sizeof best))
            continue;
        fprintf(stderr, "mtcsim compare: --stat %s: neither experiment has such a "
                        "statistic%s%s%s\n", extra_s[i], best[0] ? " (did you mean '" : "",
                best, best[0] ? "'?)" : "");
        status = HOST_USAGE;
        goto done;
    }
    for (int i = 0; stats_headline[i]; i++)
        stat_push(&stats, stats_headline[i]);
    if (all)
        stat_all(A.s->r.db, A.s->r.exp, &stats);
    for (size_t i = 0; i < ns; i++)
        stat_push(&stats, extra_s[i]);
    size_t maxp = A.s->r.npoints * B.s->r.npoints;
    pairs = calloc(maxp ? maxp : 1, sizeof *pairs);
    mc.axes = axes;
    mc.naxes = naxes;
    mc.vs_cohort = vs_cohort;
    if (pick_cohorts(&A, cohort, by_cohort, &mc) != HOST_OK) {
        status = HOST_USAGE;
        goto done;
    }
    if (cmp_side_load(A.s->r.db, A.s->r.exp, A.s->r.points, A.s->r.npoints, &mc.a) ||
        cmp_side_load(B.s->r.db, B.s->r.exp, B.s->r.points, B.s->r.npoints, &mc.b)) {
        fprintf(stderr, "mtcsim compare: cannot read the parameters: %s\n",
                sim_results_errmsg(A.res));
        status = HOST_FAIL;
        goto done;
    }
    size_t npairs = pairs ? cmp_match(&mc.a, &mc.b, axes, naxes, pairs, maxp) : 0;
    /* one experiment against itself: each pair of distinct points once
     * when there are such pairs (an axis is declared), else (and with
     * --vs-cohort, the difference within runs) each point with itself */
    if (same_experiment(&A, &B)) {
        int distinct = 0;
        for (size_t i = 0; !vs_cohort && i < npairs; i++)
            distinct |= pairs[i][0] < pairs[i][1];
        size_t k = 0;
        for (size_t i = 0; i < npairs; i++)
            if (distinct ? pairs[i][0] < pairs[i][1] : pairs[i][0] == pairs[i][1]) {
                pairs[k][0] = pairs[i][0];
                pairs[k][1] = pairs[i][1];
                k++;
            }
        npairs = k;
    }
    /* differences nobody declared: a warning, or with --axis a refusal */
    size_t worst = 0;
    for (size_t k = 0; k < npairs; k++) {
        char diff[2048], fol[2048];
        size_t nd, und, nf;
        cmp_differences(&mc.a, pairs[k][0], &mc.b, pairs[k][1], axes, naxes, diff,
                        sizeof diff, &nd, &und, fol, sizeof fol, &nf);
        if (und > worst)
            worst = und;
        if (und && naxes) {
            fprintf(stderr, "mtcsim compare: refused: A [%s] and B [%s] differ in "
                            "parameters that are not the declared axis (%s); a "
                            "difference would mix their effects\n",
                    A.s->r.label[pairs[k][0]], B.s->r.label[pairs[k][1]], diff);
            status = HOST_USAGE;
            goto done;
        }
    }
    if (worst)
        fprintf(stderr, "mtcsim compare: warning: the paired points differ in "
                        "parameters nobody declared (see WARNING lines); declare "
                        "the ones under study with --axis NAME\n");
    print_table(stdout, &A, &B, pairs, npairs, &mc, &stats);
    if (out) {
        if (mkdir(out, 0777) != 0 && errno != EEXIST) {
            fprintf(stderr, "mtcsim compare: cannot create %s: %s\n", out, strerror(errno));
            status = HOST_FAIL;
            goto done;
        }
        char p[4200];
        snprintf(p, sizeof p, "%s/compare.txt", out);
        if (!(txt = fopen(p, "w"))) {
            fprintf(stderr, "mtcsim compare: cannot write %s: %s\n", p, strerror(errno));
            status = HOST_FAIL;
            goto done;
        }
        print_table(txt, &A, &B, pairs, npairs, &mc, &stats);
        printf("\n%s\n", p);
        static const char *const figs[] = {"signatureless_fraction", "auth_bytes",
                                           "issuance_delay_landmark",
                                           "issuance_delay_standalone"};
        for (size_t i = 0; i < 4 + nm; i++) {
            const char *mname = i < 4 ? figs[i] : extra_m[i - 4];
            int rc = overlay(&A, &B, mname, pairs, npairs, out);
            if (rc < 0)
                status = HOST_FAIL;
            else if (rc > 0 && i >= 4)
                fprintf(stderr, "mtcsim compare: metric %s is not in both "
                                "experiments; no figure\n", mname);
        }
    }
done:
    if (txt && fclose(txt) != 0)
        status = HOST_FAIL;
    cmp_side_free(&mc.a);
    cmp_side_free(&mc.b);
    free(mc.cohorts);
    free(stats.name);
    free(pairs);
    close_side(&A);
    close_side(&B);
    return status;
}
