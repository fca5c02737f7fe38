/*
 * dist.c - distributions (GSL samplers and CDFs) and the thinned NHPP.
 *
 * Why a tagged struct and not function pointers: a scenario builds a few
 * hundred of these at most, while samplers run per event; a switch on the
 * kind is as fast as an indirect call and keeps the object plain data.
 */
#include "sim/dist.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_randist.h>

#include "sim/status.h"

struct sim_dist {
    int kind;
    double a, b;                /* parameters, meaning per kind */
    size_t n;                   /* outcomes (EMPIRICAL, ZIPF) */
    double *values;             /* EMPIRICAL: outcome values */
    double *prob;               /* EMPIRICAL, ZIPF: normalised pmf */
    double *cum;                /* EMPIRICAL, ZIPF: cumulative pmf */
    gsl_ran_discrete_t *table;  /* EMPIRICAL, ZIPF: Walker alias table */
};

static int new_dist(sim_dist **out, int kind, double a, double b)
{
    sim_dist *d = calloc(1, sizeof *d);
    if (!d)
        return SIM_ERR_NOMEM;
    d->kind = kind;
    d->a = a;
    d->b = b;
    *out = d;
    return SIM_OK;
}

static int pos(double x) { return isfinite(x) && x > 0; }

int sim_dist_const(sim_dist **out, double v)
{
    *out = NULL;
    if (!isfinite(v))
        return SIM_ERR_ARG;
    return new_dist(out, SIM_DIST_CONST, v, 0);
}

int sim_dist_exponential(sim_dist **out, double mean)
{
    *out = NULL;
    return pos(mean) ? new_dist(out, SIM_DIST_EXPONENTIAL, mean, 0) : SIM_ERR_ARG;
}

int sim_dist_lognormal(sim_dist **out, double mu, double sigma)
{
    *out = NULL;
    return isfinite(mu) && pos(sigma)
               ? new_dist(out, SIM_DIST_LOGNORMAL, mu, sigma)
               : SIM_ERR_ARG;
}

int sim_dist_weibull(sim_dist **out, double scale, double shape)
{
    *out = NULL;
    return pos(scale) && pos(shape)
               ? new_dist(out, SIM_DIST_WEIBULL, scale, shape)
               : SIM_ERR_ARG;
}

int sim_dist_pareto(sim_dist **out, double shape, double scale)
{
    *out = NULL;
    return pos(shape) && pos(scale)
               ? new_dist(out, SIM_DIST_PARETO, shape, scale)
               : SIM_ERR_ARG;
}

int sim_dist_gamma(sim_dist **out, double shape, double scale)
{
    *out = NULL;
    return pos(shape) && pos(scale)
               ? new_dist(out, SIM_DIST_GAMMA, shape, scale)
               : SIM_ERR_ARG;
}

int sim_dist_uniform(sim_dist **out, double lo, double hi)
{
    *out = NULL;
    return isfinite(lo) && isfinite(hi) && lo < hi
               ? new_dist(out, SIM_DIST_UNIFORM, lo, hi)
               : SIM_ERR_ARG;
}

/* Takes ownership of w (n weights, validated), builds pmf, cdf, table. */
static int finish_discrete(sim_dist *d, double *w, size_t n)
{
    double sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += w[i];
    d->n = n;
    d->prob = w;
    d->cum = malloc(n * sizeof *d->cum);
    d->table = gsl_ran_discrete_preproc(n, w);
    if (!d->cum || !d->table)
        return SIM_ERR_NOMEM;
    double c = 0;
    for (size_t i = 0; i < n; i++) {
        w[i] /= sum;
        c += w[i];
        d->cum[i] = c;
    }
    d->cum[n - 1] = 1.0;
    return SIM_OK;
}

int sim_dist_empirical(sim_dist **out, const double *values,
                       const double *weights, size_t n)
{
    *out = NULL;
    if (n == 0 || !values || !weights)
        return SIM_ERR_ARG;
    double sum = 0;
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(weights[i]) || weights[i] < 0 || !isfinite(values[i]))
            return SIM_ERR_ARG;
        sum += weights[i];
    }
    if (!(sum > 0) || !isfinite(sum))
        return SIM_ERR_ARG;
    sim_dist *d;
    int rc = new_dist(&d, SIM_DIST_EMPIRICAL, 0, 0);
    if (rc)
        return rc;
    double *w = malloc(n * sizeof *w);
    d->values = malloc(n * sizeof *d->values);
    if (!w || !d->values) {
        free(w);
        sim_dist_destroy(d);
        return SIM_ERR_NOMEM;
    }
    memcpy(w, weights, n * sizeof *w);
    memcpy(d->values, values, n * sizeof *d->values);
    rc = finish_discrete(d, w, n);
    if (rc) {
        sim_dist_destroy(d);
        return rc;
    }
    *out = d;
    return SIM_OK;
}

int sim_dist_zipf(sim_dist **out, uint64_t n, double s)
{
    *out = NULL;
    if (n == 0 || n > ((uint64_t)1 << 32) || !isfinite(s) || s < 0)
        return SIM_ERR_ARG;
    sim_dist *d;
    int rc = new_dist(&d, SIM_DIST_ZIPF, (double)n, s);
    if (rc)
        return rc;
    double *w = malloc((size_t)n * sizeof *w);
    if (!w) {
        sim_dist_destroy(d);
        return SIM_ERR_NOMEM;
    }
    for (uint64_t k = 1; k <= n; k++)
        w[k - 1] = pow((double)k, -s);
    rc = finish_discrete(d, w, (size_t)n);
    if (rc) {
        sim_dist_destroy(d);
        return rc;
    }
    *out = d;
    return SIM_OK;
}

void sim_dist_destroy(sim_dist *d)
{
    if (!d)
        return;
    if (d->table)
        gsl_ran_discrete_free(d->table);
    free(d->values);
    free(d->prob);
    free(d->cum);
    free(d);
}

int sim_dist_kind(const sim_dist *d) { return d->kind; }

const char *sim_dist_name(const sim_dist *d)
{
    static const char *const names[] = {"const", "exponential", "lognormal",
                                        "weibull", "pareto", "gamma",
                                        "uniform", "empirical", "zipf"};
    return names[d->kind];
}

int sim_dist_format(const sim_dist *d, char *buf, size_t n)
{
    static const char *const par[][2] = {
        {"mean", NULL}, {"mean", NULL}, {"mu", "sigma"}, {"scale", "shape"},
        {"shape", "scale"}, {"shape", "scale"}, {"lo", "hi"}};
    const char *name = sim_dist_name(d);
    if (d->kind == SIM_DIST_ZIPF)
        return snprintf(buf, n, "%s(n=%zu,s=%.17g)", name, d->n, d->b);
    if (d->kind != SIM_DIST_EMPIRICAL) {
        if (!par[d->kind][1])
            return snprintf(buf, n, "%s(%s=%.17g)", name, par[d->kind][0], d->a);
        return snprintf(buf, n, "%s(%s=%.17g,%s=%.17g)", name, par[d->kind][0], d->a,
                        par[d->kind][1], d->b);
    }
    /* the length it would have, whatever n is */
    int len = snprintf(buf, n, "%s(values=[", name);
    for (int list = 0; list < 2; list++) {
        for (size_t i = 0; i < d->n; i++) {
            size_t at = (size_t)len < n ? (size_t)len : n;
            len += snprintf(buf + at, n - at, "%s%.17g", i ? "," : "",
                            list ? d->prob[i] : d->values[i]);
        }
        size_t at = (size_t)len < n ? (size_t)len : n;
        len += snprintf(buf + at, n - at, list ? "])" : "],p=[");
    }
    return len;
}

double sim_dist_sample(const sim_dist *d, gsl_rng *r)
{
    switch (d->kind) {
    case SIM_DIST_CONST: return d->a;
    case SIM_DIST_EXPONENTIAL: return gsl_ran_exponential(r, d->a);
    case SIM_DIST_LOGNORMAL: return gsl_ran_lognormal(r, d->a, d->b);
    case SIM_DIST_WEIBULL: return gsl_ran_weibull(r, d->a, d->b);
    case SIM_DIST_PARETO: return gsl_ran_pareto(r, d->a, d->b);
    case SIM_DIST_GAMMA: return gsl_ran_gamma(r, d->a, d->b);
    case SIM_DIST_UNIFORM: return gsl_ran_flat(r, d->a, d->b);
    case SIM_DIST_EMPIRICAL: return d->values[gsl_ran_discrete(r, d->table)];
    case SIM_DIST_ZIPF: return (double)(gsl_ran_discrete(r, d->table) + 1);
    default: return NAN;
    }
}

size_t sim_dist_sample_index(const sim_dist *d, gsl_rng *r)
{
    if (d->kind == SIM_DIST_EMPIRICAL || d->kind == SIM_DIST_ZIPF)
        return gsl_ran_discrete(r, d->table);
    return 0;
}

sim_time sim_dist_sample_duration(const sim_dist *d, gsl_rng *r)
{
    double s = sim_dist_sample(d, r);
    if (!(s > 0))
        return 0;
    if (s >= (double)SIM_DURATION_MAX * 1e-6)
        return SIM_DURATION_MAX;
    return sim_time_from_sec(s);
}

void sim_dist_support(const sim_dist *d, double *lo, double *hi)
{
    *lo = 0;
    *hi = INFINITY;
    switch (d->kind) {
    case SIM_DIST_CONST: *lo = *hi = d->a; break;
    case SIM_DIST_PARETO: *lo = d->b; break;
    case SIM_DIST_UNIFORM: *lo = d->a; *hi = d->b; break;
    case SIM_DIST_ZIPF: *lo = 1; *hi = (double)d->n; break;
    case SIM_DIST_EMPIRICAL:
        *lo = INFINITY;
        *hi = -INFINITY;
        for (size_t i = 0; i < d->n; i++) {
            if (d->prob[i] > 0 && d->values[i] < *lo)
                *lo = d->values[i];
            if (d->prob[i] > 0 && d->values[i] > *hi)
                *hi = d->values[i];
        }
        break;
    default: break;
    }
}

size_t sim_dist_footprint(int kind, uint64_t n)
{
    /* values, pmf and cumulative pmf (8 bytes each per outcome), GSL's
     * alias table (16) and its construction's work arrays (24) */
    uint64_t per = kind == SIM_DIST_EMPIRICAL ? 64 : kind == SIM_DIST_ZIPF ? 56 : 0;
    if (per && n > (SIZE_MAX - 4096) / per)
        return SIZE_MAX;
    return sizeof(sim_dist) + (size_t)(per * n);
}

double sim_dist_cdf(const sim_dist *d, double x)
{
    switch (d->kind) {
    case SIM_DIST_CONST: return x >= d->a ? 1.0 : 0.0;
    case SIM_DIST_EXPONENTIAL: return gsl_cdf_exponential_P(x, d->a);
    case SIM_DIST_LOGNORMAL: return gsl_cdf_lognormal_P(x, d->a, d->b);
    case SIM_DIST_WEIBULL: return gsl_cdf_weibull_P(x, d->a, d->b);
    case SIM_DIST_PARETO: return gsl_cdf_pareto_P(x, d->a, d->b);
    case SIM_DIST_GAMMA: return gsl_cdf_gamma_P(x, d->a, d->b);
    case SIM_DIST_UNIFORM: return gsl_cdf_flat_P(x, d->a, d->b);
    case SIM_DIST_ZIPF: {
        if (x < 1)
            return 0;
        double k = floor(x);
        return k >= (double)d->n ? 1.0 : d->cum[(size_t)k - 1];
    }
    case SIM_DIST_EMPIRICAL: {
        double p = 0;
        for (size_t i = 0; i < d->n; i++)
            if (d->values[i] <= x)
                p += d->prob[i];
        return p > 1 ? 1 : p;
    }
    default: return NAN;
    }
}

double sim_dist_mean(const sim_dist *d)
{
    switch (d->kind) {
    case SIM_DIST_CONST: return d->a;
    case SIM_DIST_EXPONENTIAL: return d->a;
    case SIM_DIST_LOGNORMAL: return exp(d->a + d->b * d->b / 2);
    case SIM_DIST_WEIBULL: return d->a * tgamma(1 + 1 / d->b);
    case SIM_DIST_PARETO: return d->a > 1 ? d->a * d->b / (d->a - 1) : INFINITY;
    case SIM_DIST_GAMMA: return d->a * d->b;
    case SIM_DIST_UNIFORM: return (d->a + d->b) / 2;
    case SIM_DIST_EMPIRICAL:
    case SIM_DIST_ZIPF: {
        double m = 0;
        for (size_t i = 0; i < d->n; i++)
            m += d->prob[i] * (d->kind == SIM_DIST_ZIPF ? (double)(i + 1)
                                                        : d->values[i]);
        return m;
    }
    default: return NAN;
    }
}

size_t sim_dist_outcomes(const sim_dist *d)
{
    return d->kind == SIM_DIST_EMPIRICAL || d->kind == SIM_DIST_ZIPF ? d->n : 0;
}

double sim_dist_pmf(const sim_dist *d, size_t i)
{
    if (i >= sim_dist_outcomes(d))
        return 0;
    return d->prob[i];
}

/* ---- NHPP ---- */

struct sim_nhpp {
    double rate;        /* mean events per second */
    double peak;        /* rate * max(weight) */
    sim_time period;
    sim_time phase;
    size_t nbins;
    double *w;          /* normalised weights, mean 1 */
    double *cumw;       /* cumw[i] = sum of w[0..i) */
};

int sim_nhpp_create(sim_nhpp **out, double rate, const double *profile,
                    size_t nbins, sim_time period, sim_time phase)
{
    *out = NULL;
    if (!isfinite(rate) || rate < 0 || period <= 0 || (nbins && !profile))
        return SIM_ERR_ARG;
    size_t nb = nbins ? nbins : 1;
    double sum = 0, mx = 0;
    for (size_t i = 0; i < nbins; i++) {
        if (!isfinite(profile[i]) || profile[i] < 0)
            return SIM_ERR_ARG;
        sum += profile[i];
    }
    if (nbins && !(sum > 0))
        return SIM_ERR_ARG;
    sim_nhpp *p = calloc(1, sizeof *p);
    if (!p)
        return SIM_ERR_NOMEM;
    p->w = malloc(nb * sizeof *p->w);
    p->cumw = malloc((nb + 1) * sizeof *p->cumw);
    if (!p->w || !p->cumw) {
        sim_nhpp_destroy(p);
        return SIM_ERR_NOMEM;
    }
    p->cumw[0] = 0;
    for (size_t i = 0; i < nb; i++) {
        p->w[i] = nbins ? profile[i] * (double)nb / sum : 1.0;
        if (p->w[i] > mx)
            mx = p->w[i];
        p->cumw[i + 1] = p->cumw[i] + p->w[i];
    }
    p->rate = rate;
    p->peak = rate * mx;
    p->period = period;
    p->phase = phase;
    p->nbins = nb;
    *out = p;
    return SIM_OK;
}

void sim_nhpp_destroy(sim_nhpp *p)
{
    if (!p)
        return;
    free(p->w);
    free(p->cumw);
    free(p);
}

/* Offset of t within its period, in [0, period). */
static sim_time period_offset(const sim_nhpp *p, sim_time t)
{
    sim_time u = (t - p->phase) % p->period;
    return u < 0 ? u + p->period : u;
}

static size_t bin_of(const sim_nhpp *p, sim_time off)
{
    size_t b = (size_t)((double)off * (double)p->nbins / (double)p->period);
    return b < p->nbins ? b : p->nbins - 1;
}

double sim_nhpp_rate_at(const sim_nhpp *p, sim_time t)
{
    return p->rate * p->w[bin_of(p, period_offset(p, t))];
}

sim_time sim_nhpp_next(const sim_nhpp *p, gsl_rng *r, sim_time now)
{
    if (!(p->peak > 0))
        return SIM_TIME_MAX;
    double mean_gap_s = 1.0 / p->peak;
    sim_time t = now;
    double acc = 0; /* seconds since now, kept in double: no rounding drift */
    for (;;) {
        acc += gsl_ran_exponential(r, mean_gap_s);
        sim_time d = sim_time_from_sec(acc);
        if (d > SIM_TIME_MAX - now)
            return SIM_TIME_MAX;
        t = now + d;
        if (gsl_rng_uniform(r) * p->peak < sim_nhpp_rate_at(p, t))
            return t;
    }
}

/* Expected arrivals in [phase + k*period, t): whole periods plus a part. */
static double cumulative(const sim_nhpp *p, sim_time t)
{
    sim_time u = t - p->phase;
    sim_time k = u / p->period, off = u % p->period;
    if (off < 0) {
        off += p->period;
        k--;
    }
    double bw = (double)p->period / (double)p->nbins; /* us per bin */
    size_t b = bin_of(p, off);
    double part = p->cumw[b] + p->w[b] * ((double)off - (double)b * bw) / bw;
    /* part is in "bins at weight 1"; one bin lasts bw microseconds */
    double per_period = p->rate * sim_time_to_sec(p->period);
    return (double)k * per_period + p->rate * part * bw * 1e-6;
}

double sim_nhpp_expected(const sim_nhpp *p, sim_time a, sim_time b)
{
    if (b <= a)
        return 0;
    return cumulative(p, b) - cumulative(p, a);
}
