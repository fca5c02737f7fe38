/*
 * sim/dist.h - probability distributions for the model, sampled with GSL.
 *
 * A sim_dist is an immutable, heap-allocated description of a distribution
 * (what a scenario declares: `lognormal{mu=..., sigma=...}`); sampling
 * takes the gsl_rng of the entity that draws (see sim/rng.h), so a shared
 * sim_dist never couples the draws of two entities. Every sampler is a GSL
 * function (gsl_ran_*), except Zipf, which GSL lacks: it is a
 * gsl_ran_discrete (Walker alias) table over the N ranks, O(N) memory and
 * O(1) per draw. Parameter conventions follow GSL and are repeated below.
 * Values are in the caller's unit (seconds for durations by convention:
 * sim_dist_sample_duration converts to sim_time).
 *
 * GSL reports errors through a process-wide handler that aborts by
 * default. Every argument is validated here before GSL sees it, so GSL can
 * only fail on allocation; programs should still call
 * gsl_set_error_handler_off() at startup (mtcsim does) so that such a
 * failure becomes SIM_ERR_NOMEM instead of an abort.
 */
#ifndef SIM_DIST_H
#define SIM_DIST_H

#include <stddef.h>
#include <stdint.h>

#include <gsl/gsl_rng.h>

#include "sim/engine.h"

enum sim_dist_kind {
    SIM_DIST_CONST = 0,
    SIM_DIST_EXPONENTIAL,
    SIM_DIST_LOGNORMAL,
    SIM_DIST_WEIBULL,
    SIM_DIST_PARETO,
    SIM_DIST_GAMMA,
    SIM_DIST_UNIFORM,
    SIM_DIST_EMPIRICAL,
    SIM_DIST_ZIPF
};

typedef struct sim_dist sim_dist;

/* Constructors: *out owned by the caller (sim_dist_destroy). Errors:
 * SIM_ERR_ARG naming no parameter in particular - each constructor has at
 * most two, and the conditions are stated here - and SIM_ERR_NOMEM. */

/* Always v (finite). */
int sim_dist_const(sim_dist **out, double v);
/* Exponential with the given mean > 0: p(x) = exp(-x/mean)/mean. */
int sim_dist_exponential(sim_dist **out, double mean);
/* Lognormal: log X ~ Normal(mu, sigma), sigma > 0. Mean exp(mu+sigma^2/2). */
int sim_dist_lognormal(sim_dist **out, double mu, double sigma);
/* Weibull, GSL's (a = scale > 0, b = shape > 0): F = 1 - exp(-(x/a)^b). */
int sim_dist_weibull(sim_dist **out, double scale, double shape);
/* Pareto, GSL's (a = shape > 0, b = scale > 0): F = 1 - (b/x)^a, x >= b.
 * Mean a*b/(a-1) for a > 1, infinite otherwise. */
int sim_dist_pareto(sim_dist **out, double shape, double scale);
/* Gamma, GSL's (a = shape > 0, b = scale > 0). Mean a*b. */
int sim_dist_gamma(sim_dist **out, double shape, double scale);
/* Uniform on [lo, hi), lo < hi. */
int sim_dist_uniform(sim_dist **out, double lo, double hi);
/* Discrete: values[i] with probability weights[i] / sum(weights); n >= 1,
 * weights finite, >= 0, with a positive sum. Arrays are copied. */
int sim_dist_empirical(sim_dist **out, const double *values,
                       const double *weights, size_t n);
/* Zipf over ranks 1..n (n >= 1, n <= 2^32): P(k) = k^-s / H(n, s), s >= 0.
 * Samples are the rank k as a double. */
int sim_dist_zipf(sim_dist **out, uint64_t n, double s);

void sim_dist_destroy(sim_dist *d);    /* accepts NULL */

int sim_dist_kind(const sim_dist *d);
const char *sim_dist_name(const sim_dist *d);

/* d as text with every parameter it was built with (what a run records
 * for a distribution parameter): "const(mean=V)", "exponential(mean=M)",
 * "lognormal(mu=M,sigma=S)", "weibull(scale=A,shape=B)",
 * "pareto(shape=A,scale=B)", "gamma(shape=A,scale=B)", "uniform(lo=L,hi=H)",
 * "empirical(values=[..],p=[..])" (normalised probabilities), "zipf(n=N,s=S)";
 * numbers with 17 significant digits. snprintf's contract: the length it
 * would have, buf cut to n. */
int sim_dist_format(const sim_dist *d, char *buf, size_t n);

double sim_dist_sample(const sim_dist *d, gsl_rng *r);

/* For EMPIRICAL and ZIPF: the index 0..n-1 drawn (rank - 1 for Zipf);
 * others: 0. */
size_t sim_dist_sample_index(const sim_dist *d, gsl_rng *r);

/* The longest duration a sample gives: 2^60 us, about 36,000 years.
 * Far below SIM_TIME_MAX, so that a time plus a few sampled durations
 * cannot overflow (uniform{lo=-1e308, hi=1e308} has a fine mean). */
#define SIM_DURATION_MAX ((sim_time)1 << 60)

/* A sample read as seconds, as a sim_time in [0, SIM_DURATION_MAX]
 * (negative and NaN samples give 0, larger ones saturate). */
sim_time sim_dist_sample_duration(const sim_dist *d, gsl_rng *r);

/* The smallest and largest values d can take: exact for the bounded
 * kinds (const, uniform, empirical, zipf); INFINITY above for the
 * others, whose lower end is 0 (pareto: its scale). */
void sim_dist_support(const sim_dist *d, double *lo, double *hi);

/* Bytes a distribution of this kind over n outcomes (empirical values,
 * Zipf ranks; ignored for the other kinds) needs at most while it is
 * built, GSL's tables included: what a caller that counts memory
 * charges before creating one. */
size_t sim_dist_footprint(int kind, uint64_t n);

/* P(X <= x). */
double sim_dist_cdf(const sim_dist *d, double x);

/* E[X]; INFINITY when it does not exist (Pareto with shape <= 1). */
double sim_dist_mean(const sim_dist *d);

/* For EMPIRICAL and ZIPF: number of outcomes and P(index i); else 0. */
size_t sim_dist_outcomes(const sim_dist *d);
double sim_dist_pmf(const sim_dist *d, size_t i);

/* Non-homogeneous Poisson process with a periodic (daily) profile, sampled
 * by thinning (Lewis & Shedler 1979): candidates at the peak rate, each
 * kept with probability rate(t) / peak. The profile is `nbins` relative
 * intensities over one `period`, piecewise constant, shifted by `phase`
 * (bin 0 starts at phase, e.g. a time zone offset); it is rescaled so that
 * its mean is 1, so `rate` (events per second) is the long-run mean rate. */
typedef struct sim_nhpp sim_nhpp;

/* profile may be NULL (constant: a homogeneous process). Errors:
 * SIM_ERR_ARG (rate < 0 or not finite, period <= 0, a weight < 0 or not
 * finite, all weights 0, nbins > 0 with NULL profile), SIM_ERR_NOMEM. */
int sim_nhpp_create(sim_nhpp **out, double rate, const double *profile,
                    size_t nbins, sim_time period, sim_time phase);
void sim_nhpp_destroy(sim_nhpp *p);   /* accepts NULL */

/* The first arrival at or after `now` (exclusive of any earlier one), or
 * SIM_TIME_MAX when the rate is 0. Successive calls with now = the last
 * arrival give the process. Draws from r only. */
sim_time sim_nhpp_next(const sim_nhpp *p, gsl_rng *r, sim_time now);

/* Intensity at t, events per second. */
double sim_nhpp_rate_at(const sim_nhpp *p, sim_time t);

/* Expected number of arrivals in [a, b) (exact integral of the profile). */
double sim_nhpp_expected(const sim_nhpp *p, sim_time a, sim_time b);

#endif
