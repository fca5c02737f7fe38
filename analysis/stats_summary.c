/*
 * stats_summary.c - statistics over replications (stats.h): Student-t,
 * Wilson and count summaries, how tables print them, and the steady-state
 * verdict of a sweep point with its one line of text.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_statistics_double.h>

#include "sim/results_read.h"
#include "sim/transient.h"
#include "stats.h"

static double t_quantile(size_t n)
{
    return gsl_cdf_tdist_Pinv((1 + STATS_LEVEL) / 2, (double)(n - 1));
}

void stats_band(const double *x, size_t n, double *mean, double *lo, double *hi)
{
    sim_ci ci;
    if (n >= 2 && sim_ci_student(x, n, STATS_LEVEL, &ci) == 0) {
        *mean = ci.mean;
        *lo = ci.lo;
        *hi = ci.hi;
        return;
    }
    double s = 0;
    for (size_t i = 0; i < n; i++)
        s += x[i];
    *mean = *lo = *hi = n ? s / (double)n : NAN;
}

/* The Wilson score interval of proportion p at sample size n with z. */
static void wilson(double p, double n, double z, double *lo, double *hi)
{
    double z2 = z * z, d = 1 + z2 / n;
    double c = (p + z2 / (2 * n)) / d;
    double h = z * sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / d;
    /* at p = 0 (or 1) the bound is 0 (or 1) exactly, not its rounding */
    *lo = p <= 0 || c - h < 0 ? 0 : c - h;
    *hi = p >= 1 || c + h > 1 ? 1 : c + h;
}

stats_interval stats_summarize(const stats_val *v, size_t n)
{
    stats_interval ci;
    memset(&ci, 0, sizeof ci);
    ci.n = n;
    ci.kind = n ? v[0].kind : STATS_VALUE;
    double *x = malloc((n ? n : 1) * sizeof *x);
    if (!x || n == 0) {
        free(x);
        ci.mean = ci.lo = ci.hi = NAN;
        return ci;
    }
    double trials = 0;
    for (size_t i = 0; i < n; i++) {
        x[i] = v[i].v;
        trials += v[i].den;
        ci.flagged += v[i].kind == STATS_FLAG && v[i].v != 0;
    }
    stats_band(x, n, &ci.mean, &ci.lo, &ci.hi);
    sim_ci t;
    if (n >= 2 && sim_ci_student(x, n, STATS_LEVEL, &t) == 0)
        ci.half = t.half_width;
    ci.has_ci = n >= 2 && ci.kind != STATS_FLAG;
    if (ci.has_ci && ci.kind == STATS_FRACTION) {
        /* the effective trials the replications show, at most those counted
         * (a share the scenario recorded comes without its counts) */
        double p = ci.mean < 0 ? 0 : ci.mean > 1 ? 1 : ci.mean;
        if (!(trials > 0))
            trials = INFINITY;
        double s2 = gsl_stats_variance_m(x, 1, n, ci.mean), neff = trials;
        if (s2 > 0 && p * (1 - p) > 0)
            neff = fmin(trials, p * (1 - p) * (double)n / s2);
        wilson(p, neff, t_quantile(n), &ci.lo, &ci.hi);
    }
    free(x);
    return ci;
}

void stats_format_value(double v, int kind, char *buf, size_t n)
{
    if (!isfinite(v))
        snprintf(buf, n, "-");
    else if (v == floor(v) && fabs(v) < 1e15)
        snprintf(buf, n, "%.0f", v);
    else
        snprintf(buf, n, "%.6g", v);
    (void)kind;
}

void stats_format_ci(const stats_interval *ci, char *buf, size_t n)
{
    if (ci->kind == STATS_FLAG && ci->n >= 2)
        snprintf(buf, n, "flagged in %zu of %zu", ci->flagged, ci->n);
    else if (!ci->has_ci)
        snprintf(buf, n, "%s", "");
    else if (ci->kind == STATS_FRACTION)
        snprintf(buf, n, "[%.6g, %.6g]", ci->lo, ci->hi);
    else
        snprintf(buf, n, "+-%.3g", ci->half);
}

/* ---- steady-state verdicts ---- */

stats_verdict stats_point_verdict(const stats_run *const *runs, size_t n, size_t k)
{
    stats_verdict v;
    memset(&v, 0, sizeof v);
    v.series = stats_series[k];
    size_t len = (size_t)-1;
    double step = 0;
    char flag[160];
    snprintf(flag, sizeof flag, "%s.transient", stats_series[k]);
    for (size_t r = 0; r < n; r++) {
        for (size_t j = 0; j < runs[r]->n; j++)
            if (!strcmp(runs[r]->s[j].name, flag)) {
                v.judged++;
                v.flagged += runs[r]->s[j].val.v != 0;
            }
        if (!runs[r]->win[k])
            continue;
        v.nrep++;
        step = runs[r]->win_step_h;
        if (runs[r]->nwin[k] < len)
            len = runs[r]->nwin[k];
    }
    if (!v.nrep || len == (size_t)-1 || len == 0)
        return v;
    double *avg = calloc(len, sizeof *avg);
    if (!avg)
        return v;
    for (size_t r = 0; r < n; r++)
        if (runs[r]->win[k])
            for (size_t i = 0; i < len; i++)
                avg[i] += runs[r]->win[k][i] / (double)v.nrep;
    v.r = k ? tc_judge_level(avg, len, step) : tc_judge_fraction(avg, len, step);
    free(avg);
    return v;
}

void stats_verdict_text(const stats_verdict *v, int steady_start, char *buf,
                        size_t n)
{
    char alone[96] = "";
    if (v->judged > 1)
        snprintf(alone, sizeof alone, "; replications flagged on their own: %zu "
                 "of %zu", v->flagged, v->judged);
    if (!v->r.judged) {
        snprintf(buf, n, "steady state: %s: not judged (MSER-5 needs %d grid "
                 "points in the measured window)", v->series, SIM_MSER_MIN_OBS);
        return;
    }
    if (!v->r.transient) {
        snprintf(buf, n, "steady state: %s: MSER-5 finds no initial transient "
                 "(mean of %zu replication%s%s)", v->series, v->nrep,
                 v->nrep == 1 ? "" : "s", alone);
        return;
    }
    const char *advice =
        steady_start == 1
            ? "the world already starts steady: lengthen the warm-up or the "
              "measured window, or look for a trend the scenario causes (an "
              "action, a growing population)"
        : steady_start == 0
            ? "the world starts empty: use world{ start = \"steady\" } or "
              "lengthen the warm-up"
            : "lengthen the warm-up, or start the world steady "
              "(world{ start = \"steady\" })";
    snprintf(buf, n, "warning: %s: MSER-5 finds an initial transient in the "
             "measured window (mean of %zu replication%s; truncation %.3g h "
             "into the window%s): this figure still describes a start-up, not "
             "the deployed system; %s", v->series, v->nrep,
             v->nrep == 1 ? "" : "s", v->r.truncation_h, alone, advice);
}

int stats_steady_start(sim_results *db, int64_t exp)
{
    sim_point_row *pts;
    size_t np;
    int steady = -1;
    if (!db || sim_results_points(db, exp, &pts, &np) != 0)
        return -1;
    sim_param_row *ps;
    size_t n;
    if (np && sim_results_run_params(db, pts[0].first_run, 0, &ps, &n) == 0) {
        for (size_t i = 0; i < n; i++)
            if (!strcmp(ps[i].kind, "world") && !strcmp(ps[i].name, "start"))
                steady = !strcmp(ps[i].value, "steady") ? 1
                         : !strcmp(ps[i].value, "empty") ? 0 : -1;
        free(ps);
    }
    free(pts);
    return steady;
}
