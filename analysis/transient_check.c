/*
 * transient_check.c - the headline series' windows and verdicts
 * (transient_check.h). Pure arithmetic over arrays: the callers read the
 * series from wherever they keep them.
 */
#include "transient_check.h"

#include <math.h>
#include <stdlib.h>

#include "sim/transient.h"

const char *const tc_level_names[] = {"rp_state_bytes", "log_storage_bytes", NULL};

/* The fraction's noise is binomial, and a shift of 1e-4 can be a tenfold
 * change in failures: judged on statistics alone. The levels need a 0.1 %
 * shift as well (see the header). */
#define LEVEL_REL_FLOOR 1e-3

static tc_result judge(const double *x, size_t n, double step_h, double rel_floor)
{
    tc_result r = {0, 0, 0};
    sim_transient tr;
    if (n < SIM_MSER_MIN_OBS || sim_mser5(x, n, &tr) != 0)
        return r;
    r.judged = 1;
    r.transient = tr.transient &&
                  fabs(tr.mean_all - tr.mean_kept) > rel_floor * fabs(tr.mean_kept);
    r.truncation_h = (double)tr.truncate * step_h;
    return r;
}

static double step_hours(const int64_t *t, size_t n)
{
    return n >= 2 ? (double)(t[1] - t[0]) / 3.6e9 : 0;
}

size_t tc_fraction_window(const int64_t *t, const double *full, const double *sl,
                          size_t n, int64_t warm, double *out, double *step_h)
{
    size_t m = 0;
    *step_h = step_hours(t, n);
    for (size_t k = 1; k < n; k++) {
        if (t[k - 1] < warm)
            continue;
        double df = full[k] - full[k - 1], ds = sl[k] - sl[k - 1];
        if (df > 0 && isfinite(ds))
            out[m++] = ds / df;
    }
    return m;
}

size_t tc_level_window(const int64_t *t, const double *v, size_t n, int64_t warm,
                       double *out, double *step_h)
{
    size_t m = 0;
    *step_h = step_hours(t, n);
    for (size_t k = 0; k < n; k++)
        if (t[k] >= warm && isfinite(v[k]))
            out[m++] = v[k];
    return m;
}

tc_result tc_judge_fraction(const double *x, size_t n, double step_h)
{
    return judge(x, n, step_h, 0);
}

tc_result tc_judge_level(const double *x, size_t n, double step_h)
{
    return judge(x, n, step_h, LEVEL_REL_FLOOR);
}

tc_result tc_fraction(const int64_t *t, const double *full, const double *sl,
                      size_t n, int64_t warm)
{
    tc_result none = {0, 0, 0};
    double *x = n ? malloc(n * sizeof *x) : NULL, step;
    if (!x)
        return none;
    size_t m = tc_fraction_window(t, full, sl, n, warm, x, &step);
    tc_result r = judge(x, m, step, 0);
    free(x);
    return r;
}

tc_result tc_level(const int64_t *t, const double *v, size_t n, int64_t warm)
{
    tc_result none = {0, 0, 0};
    double *x = n ? malloc(n * sizeof *x) : NULL, step;
    if (!x)
        return none;
    size_t m = tc_level_window(t, v, n, warm, x, &step);
    tc_result r = judge(x, m, step, LEVEL_REL_FLOOR);
    free(x);
    return r;
}
