/*
 * validate/vstats.c - the statistics every case judges with: replication
 * means with Student-t intervals, quantiles, and the binomial band of a
 * coverage count. Thin wrappers over GSL, in one place so that every row
 * of docs/validation.md is judged the same way.
 */
#include <math.h>

#include <gsl/gsl_cdf.h>

#include "vcase.h"

double v_tquant(double p, double dof) { return gsl_cdf_tdist_Pinv(p, dof); }

double v_zquant(double p) { return gsl_cdf_ugaussian_Pinv(p); }

void v_stat(const double *x, size_t n, vstat *out)
{
    double s = 0, ss = 0;
    for (size_t i = 0; i < n; i++)
        s += x[i];
    double m = n ? s / (double)n : NAN;
    for (size_t i = 0; i < n; i++)
        ss += (x[i] - m) * (x[i] - m);
    out->n = n;
    out->mean = m;
    out->sd = n > 1 ? sqrt(ss / (double)(n - 1)) : 0;
    out->se = n > 1 ? out->sd / sqrt((double)n) : 0;
    double t95 = n > 1 ? v_tquant(0.975, (double)(n - 1)) : 0;
    double t999 = n > 1 ? v_tquant(0.9995, (double)(n - 1)) : 0;
    out->lo95 = m - t95 * out->se;
    out->hi95 = m + t95 * out->se;
    out->tol = t999 * out->se;
}

/* P(X <= k) for X ~ Binomial(n, p). */
static double binom_cdf(unsigned k, unsigned n, double p)
{
    return gsl_cdf_binomial_P(k, p, n);
}

void v_binom_band(unsigned n, double p, double level, unsigned *lo,
                  unsigned *hi)
{
    double tail = (1 - level) / 2;
    unsigned a = 0, b = n;
    /* largest a with P(X < a) <= tail, smallest b with P(X > b) <= tail */
    while (a < n && binom_cdf(a, n, p) <= tail)
        a++;
    while (b > 0 && 1 - binom_cdf(b - 1, n, p) <= tail)
        b--;
    *lo = a;
    *hi = b;
}
