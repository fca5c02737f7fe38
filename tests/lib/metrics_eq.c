/*
 * tests/lib/metrics_eq.c - two metrics registries compared value by value
 * (metrics_eq.h).
 */
#include <math.h>
#include <string.h>

#include "metrics_eq.h"

/* Equal, with NAN equal to itself. */
static int deq(double a, double b) { return a == b || (isnan(a) && isnan(b)); }

static int same_cohort(const sim_metric *x, const sim_metric *y, size_t k)
{
    switch (sim_metric_kind(x)) {
    case SIM_METRIC_COUNTER:
        if (sim_counter_value(x, k) != sim_counter_value(y, k))
            return 0;
        break;
    case SIM_METRIC_GAUGE:
        if (sim_gauge_value(x, k) != sim_gauge_value(y, k))
            return 0;
        break;
    default:
        if (!deq(sim_hist_sum(x, k), sim_hist_sum(y, k)) ||
            sim_hist_count(x, k) != sim_hist_count(y, k) ||
            !deq(sim_hist_min(x, k), sim_hist_min(y, k)) ||
            !deq(sim_hist_max(x, k), sim_hist_max(y, k)))
            return 0;
        for (size_t j = 0; j < sim_hist_nbins(x) + 2; j++)
            if (sim_hist_bin(x, k, j) != sim_hist_bin(y, k, j))
                return 0;
    }
    for (size_t p = 0; p < sim_metric_series_len(x); p++)
        if (sim_metric_series_value(x, k, p) != sim_metric_series_value(y, k, p))
            return 0;
    return 1;
}

int metrics_equal(const sim_metrics *a, const sim_metrics *b, const char *skip)
{
    if (sim_metrics_count(a) != sim_metrics_count(b))
        return 0;
    for (size_t i = 0; i < sim_metrics_count(a); i++) {
        const sim_metric *x = sim_metrics_at(a, i);
        const sim_metric *y = sim_metrics_find(b, sim_metric_name(x));
        if (!y)
            return 0;
        if (skip && !strcmp(sim_metric_name(x), skip))
            continue;
        for (size_t k = 0; k < sim_metric_cohorts(x); k++)
            if (!same_cohort(x, y, k))
                return 0;
    }
    return 1;
}
