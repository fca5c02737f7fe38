/*
 * tests/lib/metrics_eq.h - whether two metrics registries hold the same
 * values: the tests' one definition of "the same results" for runs that
 * must agree exactly (a merge against a whole, lazy against eager
 * signing, one process against shards).
 */
#ifndef MTC_TESTS_METRICS_EQ_H
#define MTC_TESTS_METRICS_EQ_H

#include "sim/metrics.h"

/* 1 when a and b have the same metrics by name and, for every cohort, the
 * same counter and gauge values, histogram counts, sums, minima, maxima
 * and bins, and series values (NAN, an empty histogram's minimum, equal
 * to itself); else 0. A metric named skip (NULL: none) is present in both
 * but its values are not compared (one measured rather than simulated,
 * such as CPU time). */
int metrics_equal(const sim_metrics *a, const sim_metrics *b, const char *skip);

#endif
