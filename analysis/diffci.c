/*
 * diffci.c - paired and Welch intervals of a difference of means (GSL's
 * Student-t quantiles). Separate so that compare and the report compute
 * differences one way.
 */
#include <math.h>
#include <stdlib.h>

#include <gsl/gsl_cdf.h>

#include "diffci.h"

static void mean_var(const double *x, size_t n, double *m, double *v)
{
    double s = 0, q = 0;
    for (size_t i = 0; i < n; i++)
        s += x[i];
    *m = n ? s / (double)n : NAN;
    for (size_t i = 0; i < n; i++)
        q += (x[i] - *m) * (x[i] - *m);
    *v = n > 1 ? q / (double)(n - 1) : NAN;
}

void diffci_paired(const double *a, const double *b, size_t n, double level,
                   diffci *out)
{
    double *d = malloc((n ? n : 1) * sizeof *d);
    out->method = DIFF_NONE;
    out->n = n;
    out->df = 0;
    if (!d || n == 0) {
        out->diff = out->lo = out->hi = NAN;
        free(d);
        return;
    }
    for (size_t i = 0; i < n; i++)
        d[i] = b[i] - a[i];
    double m, v;
    mean_var(d, n, &m, &v);
    free(d);
    out->diff = out->lo = out->hi = m;
    if (n < 2)
        return;
    double h = gsl_cdf_tdist_Pinv((1 + level) / 2, (double)(n - 1)) *
               sqrt(v / (double)n);
    out->method = DIFF_PAIRED;
    out->df = (double)(n - 1);
    out->lo = m - h;
    out->hi = m + h;
}

void diffci_welch(const double *a, size_t na, const double *b, size_t nb,
                  double level, diffci *out)
{
    double ma, va, mb, vb;
    mean_var(a, na, &ma, &va);
    mean_var(b, nb, &mb, &vb);
    out->method = DIFF_NONE;
    out->n = na < nb ? na : nb;
    out->df = 0;
    out->diff = out->lo = out->hi = mb - ma;
    if (na < 2 || nb < 2)
        return;
    double qa = va / (double)na, qb = vb / (double)nb, se2 = qa + qb;
    out->method = DIFF_WELCH;
    if (!(se2 > 0)) {   /* no spread on either side: the difference is exact */
        out->df = (double)(na + nb - 2);
        return;
    }
    /* Welch-Satterthwaite degrees of freedom */
    double df = se2 * se2 / (qa * qa / (double)(na - 1) + qb * qb / (double)(nb - 1));
    double h = gsl_cdf_tdist_Pinv((1 + level) / 2, df) * sqrt(se2);
    out->df = df;
    out->lo = out->diff - h;
    out->hi = out->diff + h;
}

int diffci_matched(const double *a, const int64_t *ra, const int64_t *sa,
                   size_t na, const double *b, const int64_t *rb,
                   const int64_t *sb, size_t nb, double level, diffci *out)
{
    double *pb = malloc((na ? na : 1) * sizeof *pb);   /* b in a's order */
    int paired = pb && na == nb;
    for (size_t i = 0; paired && i < na; i++) {
        size_t j = 0;
        while (j < nb && (rb[j] != ra[i] || sb[j] != sa[i]))
            j++;
        if (j == nb)
            paired = 0;
        else
            pb[i] = b[j];
    }
    if (paired)
        diffci_paired(a, pb, na, level, out);
    else
        diffci_welch(a, na, b, nb, level, out);
    free(pb);
    return paired;
}

int diffci_significant(const diffci *d)
{
    return d->method != DIFF_NONE && (d->lo > 0 || d->hi < 0);
}
