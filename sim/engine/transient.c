/*
 * transient.c - MSER-5 truncation and the transient verdict
 * (sim/transient.h). One pass for batch means, one backward pass of suffix
 * sums, so a series of any length costs O(n).
 */
#include "sim/transient.h"

#include <math.h>
#include <stdlib.h>

#include "sim/status.h"

int sim_mser5(const double *x, size_t n, sim_transient *out)
{
    if (!x || !out || n < SIM_MSER_MIN_OBS)
        return SIM_ERR_ARG;
    for (size_t i = 0; i < n; i++)
        if (!isfinite(x[i]))
            return SIM_ERR_ARG;
    size_t b = n / SIM_MSER_BATCH;
    double *z = malloc(b * sizeof *z);
    if (!z)
        return SIM_ERR_NOMEM;
    for (size_t j = 0; j < b; j++) {
        double s = 0;
        for (size_t k = 0; k < SIM_MSER_BATCH; k++)
            s += x[j * SIM_MSER_BATCH + k];
        z[j] = s / SIM_MSER_BATCH;
    }
    /* Suffix sums from the back: MSER(d) for every d in one pass. The
     * centred form (sum of squares about a running shift) keeps the
     * variance accurate when the level is large against the spread. */
    double shift = z[b - 1], s1 = 0, s2 = 0, best = INFINITY;
    size_t dbest = 0;
    double *mser = malloc(b * sizeof *mser);
    if (!mser) {
        free(z);
        return SIM_ERR_NOMEM;
    }
    for (size_t j = b; j-- > 0;) {
        double v = z[j] - shift;
        s1 += v;
        s2 += v * v;
        double m = (double)(b - j);
        double ss = s2 - s1 * s1 / m;
        if (ss < 0)
            ss = 0;
        mser[j] = ss / (m * m);
    }
    /* Search the first half only (White's rule): late in a stationary
     * series the few retained batches make MSER small by chance, so an
     * unrestricted search often ends there. A minimiser on the boundary
     * b/2 means the series was still moving. Smallest d wins ties: delete
     * no more than needed. */
    for (size_t d = 0; d <= b / 2; d++)
        if (mser[d] < best) {
            best = mser[d];
            dbest = d;
        }
    double all = 0, kept = 0;
    for (size_t j = 0; j < b; j++)
        all += z[j];
    for (size_t j = dbest; j < b; j++)
        kept += z[j];
    size_t bk = b - dbest;
    double mean_all = all / (double)b, mean_kept = kept / (double)bk;
    double var = 0;
    for (size_t j = dbest; j < b; j++)
        var += (z[j] - mean_kept) * (z[j] - mean_kept);
    var /= (double)(bk - 1);
    double se = sqrt(var / (double)bk);
    double var_all = 0;
    for (size_t j = 0; j < b; j++)
        var_all += (z[j] - mean_all) * (z[j] - mean_all);
    var_all /= (double)(b - 1);
    double se_all = sqrt(var_all / (double)b);
    out->n = n;
    out->batches = b;
    out->truncate = dbest * SIM_MSER_BATCH;
    out->mser = best;
    out->mean_all = mean_all;
    out->mean_kept = mean_kept;
    out->se_kept = se;
    out->past_middle = dbest == b / 2;
    out->se_all = se_all;
    /* Deleted batches outside the retained range, on the side of the
     * shift: a transient displaces them systematically, a rare event in a
     * steady series displaces one. */
    double lo = INFINITY, hi = -INFINITY;
    for (size_t j = dbest; j < b; j++) {
        lo = z[j] < lo ? z[j] : lo;
        hi = z[j] > hi ? z[j] : hi;
    }
    size_t outside = 0;
    for (size_t j = 0; j < dbest; j++)
        outside += mean_all < mean_kept ? z[j] < lo : z[j] > hi;
    out->outside = outside * SIM_MSER_BATCH;
    out->transient = dbest >= 2 && 2 * outside >= dbest && outside >= 2 &&
                     fabs(mean_all - mean_kept) > 2.0 * se;
    free(mser);
    free(z);
    return SIM_OK;
}
