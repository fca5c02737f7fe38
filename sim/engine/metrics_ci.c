/*
 * metrics_ci.c - sim_ci_student: the Student-t interval of a mean over
 * replications (GSL's t quantile). It uses no registry: separate from it.
 */
#include "sim/metrics.h"

#include <math.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_statistics_double.h>

#include "sim/status.h"

int sim_ci_student(const double *x, size_t n, double level, sim_ci *out)
{
    if (!x || n < 2 || !(level > 0 && level < 1))
        return SIM_ERR_ARG;
    for (size_t i = 0; i < n; i++)
        if (!isfinite(x[i]))
            return SIM_ERR_ARG;
    out->n = n;
    out->level = level;
    out->mean = gsl_stats_mean(x, 1, n);
    out->sd = gsl_stats_sd_m(x, 1, n, out->mean);
    double tq = gsl_cdf_tdist_Pinv((1 + level) / 2, (double)(n - 1));
    out->half_width = tq * out->sd / sqrt((double)n);
    out->lo = out->mean - out->half_width;
    out->hi = out->mean + out->half_width;
    return SIM_OK;
}
