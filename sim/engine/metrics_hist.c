/*
 * metrics_hist.c - histograms: logarithmic bins, observing (with the bin
 * cache of sim_hist_observe_u32, a hot path), and reading counts, sums,
 * extremes and quantiles. Histograms have no series and no grid.
 */
#include "sim/metrics.h"

#include <assert.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sim/status.h"

#include "metrics_internal.h"

/* ---- recording ---- */

/* log2(y) for a finite normal y > 0 to about 1e-4: the exponent plus a
 * quartic in the mantissa. Only a first guess of the bin (the stored
 * edges decide), so it need not be exact, only cheaper than log10. */
static double approx_log2(double y)
{
    uint64_t b;
    memcpy(&b, &y, sizeof b);
    double e = (double)((int)((b >> 52) & 0x7ff) - 1023);
    b = (b & UINT64_C(0x000fffffffffffff)) | UINT64_C(0x3ff0000000000000);
    double m;
    memcpy(&m, &b, sizeof m);
    return e - 1.7417939 +
           (2.8212026 + (-1.4699568 + (0.44717955 - 0.056570851 * m) * m) * m) * m;
}

/* The bin of x, lo <= x < edges[nbins], from the first guess settled
 * against the stored edges. */
static size_t bin_settle(const sim_metric *h, double x)
{
    /* per_decade x log10(x / lo), as log2(x) x per_decade x log10(2)
     * less the same of lo; x is finite and >= lo > 0 here (a subnormal x
     * only spoils the guess, which the edges correct) */
    double f = h->bin_scale * approx_log2(x) - h->bin_offset;
    size_t i = f < 0 ? 0 : (size_t)f;
    if (i >= h->nbins)
        i = h->nbins - 1;
    /* the guess's error (and pow's rounding in the edges): settle against
     * the stored edges, which alone decide the bin */
    while (i > 0 && x < h->edges[i])
        i--;
    while (i + 1 < h->nbins && x >= h->edges[i + 1])
        i++;
    return i + 1;
}

static uint64_t bits_of(double x)
{
    uint64_t b;
    memcpy(&b, &x, sizeof b);
    return b;
}

static double double_of(uint64_t b)
{
    double x;
    memcpy(&x, &b, sizeof x);
    return x;
}

/* What bin_index reads of a histogram: copied to locals by a caller
 * that records many observations (sim_hist_observe_many), since its own
 * stores to the bins could otherwise alias them. */
typedef struct hist_keys {
    const sim_metric *h;
    double lo, top;         /* lo, edges[nbins] */
    const double *edges;
    const uint32_t *tab;    /* bin_tab */
    unsigned shift;         /* bin_tab_shift */
    uint64_t key0;          /* bin_tab_key0 */
    size_t nbins;
} hist_keys;

static inline hist_keys keys_of(const sim_metric *h)
{
    return (hist_keys){h, h->lo, h->edges[h->nbins], h->edges, h->bin_tab,
                       h->bin_tab_shift, h->bin_tab_key0, h->nbins};
}

static inline size_t bin_of(const hist_keys *k, double x)
{
    if (!(x >= k->lo))
        return 0;
    if (x >= k->top)
        return k->nbins + 1;
    if (!k->tab)
        return bin_settle(k->h, x);
    /* x > 0 here, so its bits order as its values do: the cell is the
     * bits above the shift. An entry is the bin of the cell's least value,
     * doubled, plus 1 when the cell holds that bin's upper edge (never
     * more than one edge: sim__hist_table_build). */
    uint32_t e = k->tab[(bits_of(x) >> k->shift) - k->key0];
    size_t b = e >> 1;
    /* without a branch: whether x passed the cell's edge is data, and a
     * mispredicted branch costs more than reading edges[b] (b <= nbins,
     * always an edge) */
    return b + ((e & 1) & (size_t)(x >= k->edges[b]));
}

static size_t bin_index(const sim_metric *h, double x)
{
    hist_keys k = keys_of(h);
    return bin_of(&k, x);
}

int sim__hist_table_build(sim_metric *h)
{
    free(h->bin_tab);
    h->bin_tab = NULL;
    /* the greatest value below the overflow bin */
    double top = nextafter(h->edges[h->nbins], 0.0);
    if (!(top >= h->lo))
        return SIM_OK;
    /* cells of 2^-k of an octave, k as small as lets no cell hold two
     * edges; none when the table would outgrow SIM__BIN_TAB_MAX */
    for (unsigned k = 1; k <= 12; k++) {
        unsigned shift = 52 - k;
        uint64_t key0 = bits_of(h->lo) >> shift, key1 = bits_of(top) >> shift;
        size_t len = (size_t)(key1 - key0 + 1);
        if (len > SIM__BIN_TAB_MAX)
            return SIM_OK;
        uint32_t *tab = malloc(len * sizeof *tab);
        if (!tab)
            return SIM_ERR_NOMEM;
        int fits = 1;
        for (size_t j = 0; j < len && fits; j++) {
            uint64_t key = key0 + j;
            double a = double_of(key << shift);
            double z = double_of(((key + 1) << shift) - 1);
            if (a < h->lo)
                a = h->lo;
            if (z > top)
                z = top;
            size_t b0 = bin_settle(h, a), b1 = bin_settle(h, z);
            fits = b1 - b0 <= 1 && b0 <= UINT32_MAX >> 1;
            tab[j] = (uint32_t)(b0 << 1 | (b1 > b0));
        }
        if (fits) {
            h->bin_tab = tab;
            h->bin_tab_shift = shift;
            h->bin_tab_key0 = key0;
            return SIM_OK;
        }
        free(tab);
    }
    return SIM_OK;
}

void sim_hist_observe(sim_metric *h, size_t cohort, double x)
{
    assert(h->kind == SIM_METRIC_HISTOGRAM && cohort < h->ncells);
    sim_metrics *m = h->reg;
    if (!sim__counting(m) || isnan(x))
        return;
    h->bins[cohort * (h->nbins + 2) + bin_index(h, x)]++;
    h->hcount[cohort]++;
    h->hsum[cohort] = sim__add_fx(h->hsum[cohort], sim__to_fx(x));
    if (x < h->hmin[cohort])
        h->hmin[cohort] = x;
    if (x > h->hmax[cohort])
        h->hmax[cohort] = x;
}

void sim_hist_observe_n(sim_metric *h, size_t cohort, double x, uint64_t n)
{
    assert(h->kind == SIM_METRIC_HISTOGRAM && cohort < h->ncells);
    sim_metrics *m = h->reg;
    if (n == 0 || !sim__counting(m) || isnan(x))
        return;
    h->bins[cohort * (h->nbins + 2) + bin_index(h, x)] += n;
    h->hcount[cohort] += n;
    /* n additions of sim__to_fx(x) in the sum's wrapping arithmetic */
    __extension__ typedef unsigned __int128 ufx;
    h->hsum[cohort] = sim__add_fx(h->hsum[cohort],
                                  (sim__fx_t)((ufx)sim__to_fx(x) * (ufx)n));
    if (x < h->hmin[cohort])
        h->hmin[cohort] = x;
    if (x > h->hmax[cohort])
        h->hmax[cohort] = x;
}

void sim_hist_observe_many(sim_metric *h, const uint32_t *cohort,
                           const double *x, size_t n)
{
    assert(h->kind == SIM_METRIC_HISTOGRAM);
    if (n == 0 || !sim__counting(h->reg))
        return;
    const hist_keys k = keys_of(h);
    size_t row = h->nbins + 2;
    /* a run of one cohort's observations keeps its count, sum and
     * extremes in registers: in memory, each observation waited for the
     * last one's stores. The sum is exact integer arithmetic (wrapping),
     * the extremes see the same values in the same order, so the cells
     * end as with one call per observation. */
    for (size_t i = 0; i < n;) {
        size_t c = cohort[i];
        assert(c < h->ncells);
        uint64_t *bins = h->bins + c * row, count = 0;
        sim__fx_t sum = 0;
        double mn = h->hmin[c], mx = h->hmax[c];
        for (; i < n && cohort[i] == c; i++) {
            double v = x[i];
            if (isnan(v))
                continue;
            bins[bin_of(&k, v)]++;
            count++;
            sum = sim__add_fx(sum, sim__to_fx(v));
            if (v < mn)
                mn = v;
            if (v > mx)
                mx = v;
        }
        h->hcount[c] += count;
        h->hsum[c] = sim__add_fx(h->hsum[c], sum);
        h->hmin[c] = mn;
        h->hmax[c] = mx;
    }
}

void sim_hist_observe_u32(sim_metric *h, size_t cohort, uint32_t x)
{
    assert(h->kind == SIM_METRIC_HISTOGRAM && cohort < h->ncells);
    sim_metrics *m = h->reg;
    if (!sim__counting(m))
        return;
    size_t slot = (size_t)((x * UINT32_C(0x9e3779b1)) >> 26);
    size_t b;
    if (h->hc_bin[slot] && h->hc_x[slot] == x) {
        b = h->hc_bin[slot] - 1;
    } else {
        b = bin_index(h, (double)x);
        if (b < UINT32_MAX) {
            h->hc_x[slot] = x;
            h->hc_bin[slot] = (uint32_t)b + 1;
        }
    }
    h->bins[cohort * (h->nbins + 2) + b]++;
    h->hcount[cohort]++;
    /* sim__to_fx((double)x) exactly: x * 2^32 has at most 32 significant bits */
    h->hsum[cohort] = sim__add_fx(h->hsum[cohort], (sim__fx_t)x << 32);
    double dx = (double)x;
    if (dx < h->hmin[cohort])
        h->hmin[cohort] = dx;
    if (dx > h->hmax[cohort])
        h->hmax[cohort] = dx;
}

/* ---- reading ---- */

size_t sim_hist_nbins(const sim_metric *h) { return h->nbins; }

double sim_hist_edge(const sim_metric *h, size_t i)
{
    return i <= h->nbins ? h->edges[i] : NAN;
}

uint64_t sim_hist_bin(const sim_metric *h, size_t cohort, size_t i)
{
    if (i > h->nbins + 1)
        return 0;
    if (cohort != SIM_ALL_COHORTS)
        return cohort < h->ncells ? h->bins[cohort * (h->nbins + 2) + i] : 0;
    uint64_t s = 0;
    for (size_t c = 0; c < h->ncells; c++)
        s += h->bins[c * (h->nbins + 2) + i];
    return s;
}

uint64_t sim_hist_count(const sim_metric *h, size_t cohort)
{
    if (cohort != SIM_ALL_COHORTS)
        return cohort < h->ncells ? h->hcount[cohort] : 0;
    uint64_t s = 0;
    for (size_t c = 0; c < h->ncells; c++)
        s += h->hcount[c];
    return s;
}

double sim_hist_sum(const sim_metric *h, size_t cohort)
{
    if (cohort != SIM_ALL_COHORTS)
        return cohort < h->ncells ? sim__from_fx(h->hsum[cohort]) : NAN;
    sim__fx_t s = 0;
    for (size_t c = 0; c < h->ncells; c++)
        s = sim__add_fx(s, h->hsum[c]);
    return sim__from_fx(s);
}

double sim_hist_mean(const sim_metric *h, size_t cohort)
{
    uint64_t n = sim_hist_count(h, cohort);
    return n ? sim_hist_sum(h, cohort) / (double)n : NAN;
}

static double hist_extreme(const sim_metric *h, size_t cohort, int want_max)
{
    if (sim_hist_count(h, cohort) == 0)
        return NAN;
    size_t lo = cohort == SIM_ALL_COHORTS ? 0 : cohort;
    size_t hi = cohort == SIM_ALL_COHORTS ? h->ncells : cohort + 1;
    double v = want_max ? -INFINITY : INFINITY;
    for (size_t c = lo; c < hi; c++) {
        if (want_max ? h->hmax[c] > v : h->hmin[c] < v)
            v = want_max ? h->hmax[c] : h->hmin[c];
    }
    return v;
}

double sim_hist_min(const sim_metric *h, size_t cohort) { return hist_extreme(h, cohort, 0); }
double sim_hist_max(const sim_metric *h, size_t cohort) { return hist_extreme(h, cohort, 1); }

double sim_hist_quantile(const sim_metric *h, size_t cohort, double q)
{
    uint64_t n = sim_hist_count(h, cohort);
    if (n == 0 || !(q >= 0 && q <= 1))
        return NAN;
    double mn = sim_hist_min(h, cohort), mx = sim_hist_max(h, cohort);
    if (q == 0)
        return mn;
    if (q == 1)
        return mx;
    double rank = q * (double)n, cum = 0;
    for (size_t i = 0; i < h->nbins + 2; i++) {
        double c = (double)sim_hist_bin(h, cohort, i);
        if (c == 0 || cum + c < rank) {
            cum += c;
            continue;
        }
        if (i == 0)
            return mn;
        if (i == h->nbins + 1)
            return mx;
        double frac = (rank - cum) / c;
        double a = h->edges[i - 1], b = h->edges[i];
        double v = a * pow(b / a, frac);
        return v < mn ? mn : v > mx ? mx : v;
    }
    return mx;
}
