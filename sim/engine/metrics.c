/*
 * metrics.c - metric registry: recording, series on a grid, exact merge.
 *
 * Layout: every metric keeps its per-cohort cells in flat arrays; series
 * are point-major (series[k * ncells + cohort]) and grow by doubling.
 * Fixed point: value * 2^32 rounded to a signed 128-bit integer, so sums
 * of up to ~2^63 observations of magnitude up to ~2^31 cannot overflow,
 * and addition is exact, hence order-independent.
 */
#include "sim/metrics.h"

#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_statistics_double.h>

#include "sim/status.h"

__extension__ typedef __int128 fx_t;

#define FX_ONE 4294967296.0 /* 2^32 */
#define SIM__HCACHE 64
#define NAME_MAX_LEN 127
#define UNIT_MAX_LEN 31
#define LABEL_MAX_LEN 63
#define DEFAULT_MAX_POINTS 1000000

struct sim_metric {
    sim_metrics *reg;
    char name[NAME_MAX_LEN + 1];
    char unit[UNIT_MAX_LEN + 1];
    int kind;
    unsigned flags;
    size_t ncells;
    char (*labels)[LABEL_MAX_LEN + 1];  /* ncells labels, "0", "1", ... */
    /* counter / gauge */
    int64_t *cnt;
    fx_t *lvl;
    /* series */
    size_t npts, cap_pts;
    int truncated;
    /* catch_up's memo: grid_time(npts) = ng_t, valid iff ng_for == npts + 1
     * (zeroed metrics never match), so that an update between two grid
     * points costs one comparison */
    size_t ng_for;
    sim_time ng_t;
    int64_t *ser_cnt;
    fx_t *ser_lvl;
    /* histogram */
    double lo, hi;
    unsigned per_decade;
    size_t nbins;
    double *edges;      /* nbins + 1 */
    uint64_t *bins;     /* ncells * (nbins + 2) */
    uint64_t *hcount;
    fx_t *hsum;
    double *hmin, *hmax;
    /* sim_hist_observe_u32's bin cache: direct-mapped on x (bins of a
     * metric never change; copying a metric copies a still-valid cache) */
    uint32_t hc_x[SIM__HCACHE];
    uint32_t hc_bin[SIM__HCACHE];   /* bin index + 1; 0 = empty */
};

struct sim_metrics {
    sim_metrics_config cfg;
    const sim_time *clock;
    sim_metric **v;
    size_t n, cap;
    int finished;
};

static fx_t to_fx(double v)
{
    double s = nearbyint(v * FX_ONE);
    if (!(s == s))
        return 0;
    if (s >= 8.5e37)
        s = 8.5e37;
    if (s <= -8.5e37)
        s = -8.5e37;
    return (fx_t)s;
}

static double from_fx(fx_t x) { return (double)x / FX_ONE; }

/* Sums wrap modulo 2^64 / 2^128 instead of overflowing (undefined in C):
 * still exact and order-independent, and only reachable with absurd
 * values (or a hostile encoding). */
static inline int64_t add_i64(int64_t a, int64_t b)
{
    return (int64_t)((uint64_t)a + (uint64_t)b);
}

static inline fx_t add_fx(fx_t a, fx_t b)
{
    __extension__ typedef unsigned __int128 ufx;
    return (fx_t)((ufx)a + (ufx)b);
}

static inline sim_time now_of(const sim_metrics *m)
{
    return m->clock ? *m->clock : 0;
}

int sim_metrics_create(sim_metrics **out, const sim_metrics_config *cfg,
                       const sim_time *clock)
{
    *out = NULL;
    sim_metrics_config def = {0, 0, 0, 0};
    if (!cfg)
        cfg = &def;
    if (cfg->grid_step < 0)
        return SIM_ERR_ARG;
    sim_metrics *m = calloc(1, sizeof *m);
    if (!m)
        return SIM_ERR_NOMEM;
    m->cfg = *cfg;
    if (m->cfg.max_points == 0)
        m->cfg.max_points = DEFAULT_MAX_POINTS;
    m->clock = clock;
    *out = m;
    return SIM_OK;
}

static void metric_free(sim_metric *mt)
{
    if (!mt)
        return;
    free(mt->labels);
    free(mt->cnt);
    free(mt->lvl);
    free(mt->ser_cnt);
    free(mt->ser_lvl);
    free(mt->edges);
    free(mt->bins);
    free(mt->hcount);
    free(mt->hsum);
    free(mt->hmin);
    free(mt->hmax);
    free(mt);
}

void sim_metrics_destroy(sim_metrics *m)
{
    if (!m)
        return;
    for (size_t i = 0; i < m->n; i++)
        metric_free(m->v[i]);
    free(m->v);
    free(m);
}

const sim_metrics_config *sim_metrics_get_config(const sim_metrics *m)
{
    return &m->cfg;
}

static int valid_token(const char *s, size_t minlen, size_t maxlen)
{
    if (!s)
        return 0;
    size_t n = strlen(s);
    if (n < minlen || n > maxlen)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (s[i] <= ' ' || s[i] > '~')
            return 0;
    return 1;
}

sim_metric *sim_metrics_find(const sim_metrics *m, const char *name)
{
    for (size_t i = 0; i < m->n; i++)
        if (!strcmp(m->v[i]->name, name))
            return m->v[i];
    return NULL;
}

/* Same definition: what merge and get-or-create require. */
static int same_def(const sim_metric *a, const sim_metric *b)
{
    if (a->kind != b->kind || a->flags != b->flags || a->ncells != b->ncells ||
        strcmp(a->unit, b->unit))
        return 0;
    if (a->kind == SIM_METRIC_HISTOGRAM)
        return a->lo == b->lo && a->hi == b->hi &&
               a->per_decade == b->per_decade && a->nbins == b->nbins;
    return 1;
}

static int alloc_cells(sim_metric *mt)
{
    size_t c = mt->ncells;
    mt->labels = malloc(c * sizeof *mt->labels);
    if (!mt->labels)
        return SIM_ERR_NOMEM;
    for (size_t i = 0; i < c; i++)
        snprintf(mt->labels[i], sizeof mt->labels[i], "%zu", i);
    switch (mt->kind) {
    case SIM_METRIC_COUNTER:
        mt->cnt = calloc(c, sizeof *mt->cnt);
        return mt->cnt ? SIM_OK : SIM_ERR_NOMEM;
    case SIM_METRIC_GAUGE:
        mt->lvl = calloc(c, sizeof *mt->lvl);
        return mt->lvl ? SIM_OK : SIM_ERR_NOMEM;
    default:
        mt->edges = malloc((mt->nbins + 1) * sizeof *mt->edges);
        mt->bins = calloc(c * (mt->nbins + 2), sizeof *mt->bins);
        mt->hcount = calloc(c, sizeof *mt->hcount);
        mt->hsum = calloc(c, sizeof *mt->hsum);
        mt->hmin = malloc(c * sizeof *mt->hmin);
        mt->hmax = malloc(c * sizeof *mt->hmax);
        if (!mt->edges || !mt->bins || !mt->hcount || !mt->hsum || !mt->hmin ||
            !mt->hmax)
            return SIM_ERR_NOMEM;
        for (size_t i = 0; i <= mt->nbins; i++)
            mt->edges[i] = mt->lo * pow(10.0, (double)i / mt->per_decade);
        for (size_t i = 0; i < c; i++) {
            mt->hmin[i] = INFINITY;
            mt->hmax[i] = -INFINITY;
        }
        return SIM_OK;
    }
}

static int registry_add(sim_metrics *m, sim_metric *mt)
{
    if (m->n == m->cap) {
        size_t cap = m->cap ? 2 * m->cap : 16;
        sim_metric **v = realloc(m->v, cap * sizeof *v);
        if (!v)
            return SIM_ERR_NOMEM;
        m->v = v;
        m->cap = cap;
    }
    m->v[m->n++] = mt;
    return SIM_OK;
}

static int define(sim_metrics *m, const char *name, const char *unit, int kind,
                  size_t ncells, unsigned flags, double lo, double hi,
                  unsigned per_decade, sim_metric **out)
{
    *out = NULL;
    if (!valid_token(name, 1, NAME_MAX_LEN) || !valid_token(unit ? unit : "", 0, UNIT_MAX_LEN) ||
        ncells == 0 || ncells > 65536 ||
        (flags & ~(SIM_METRIC_SERIES | SIM_METRIC_REPLICATED)))
        return SIM_ERR_ARG;
    sim_metric probe;
    memset(&probe, 0, sizeof probe);
    probe.kind = kind;
    probe.flags = flags;
    probe.ncells = ncells;
    snprintf(probe.unit, sizeof probe.unit, "%s", unit ? unit : "");
    if (kind == SIM_METRIC_HISTOGRAM) {
        if (!(lo > 0) || !(hi > lo) || !isfinite(hi) || per_decade < 1 ||
            per_decade > 1000 || (flags & SIM_METRIC_SERIES))
            return SIM_ERR_ARG;
        double nb = ceil(per_decade * log10(hi / lo) - 1e-9);
        if (nb < 1)
            nb = 1;
        if (nb > 100000)
            return SIM_ERR_ARG;
        probe.lo = lo;
        probe.hi = hi;
        probe.per_decade = per_decade;
        probe.nbins = (size_t)nb;
    }
    sim_metric *old = sim_metrics_find(m, name);
    if (old) {
        if (!same_def(old, &probe))
            return SIM_ERR_METRIC;
        *out = old;
        return SIM_OK;
    }
    sim_metric *mt = calloc(1, sizeof *mt);
    if (!mt)
        return SIM_ERR_NOMEM;
    *mt = probe;
    mt->reg = m;
    snprintf(mt->name, sizeof mt->name, "%s", name);
    int rc = alloc_cells(mt);
    if (rc == SIM_OK)
        rc = registry_add(m, mt);
    if (rc) {
        metric_free(mt);
        return rc;
    }
    *out = mt;
    return SIM_OK;
}

int sim_metrics_counter(sim_metrics *m, const char *name, const char *unit,
                        size_t ncohorts, unsigned flags, sim_metric **out)
{
    return define(m, name, unit, SIM_METRIC_COUNTER, ncohorts, flags, 0, 0, 0, out);
}

int sim_metrics_gauge(sim_metrics *m, const char *name, const char *unit,
                      size_t ncohorts, unsigned flags, sim_metric **out)
{
    return define(m, name, unit, SIM_METRIC_GAUGE, ncohorts, flags, 0, 0, 0, out);
}

int sim_metrics_histogram(sim_metrics *m, const char *name, const char *unit,
                          size_t ncohorts, unsigned flags, double lo,
                          double hi, unsigned per_decade, sim_metric **out)
{
    return define(m, name, unit, SIM_METRIC_HISTOGRAM, ncohorts, flags, lo, hi,
                  per_decade, out);
}

int sim_metric_set_cohort_labels(sim_metric *mt, const char *const *labels,
                                 size_t n)
{
    if (n != mt->ncells || !labels)
        return SIM_ERR_ARG;
    for (size_t i = 0; i < n; i++)
        if (!labels[i] || strlen(labels[i]) > LABEL_MAX_LEN)
            return SIM_ERR_ARG;
    for (size_t i = 0; i < n; i++)
        snprintf(mt->labels[i], sizeof mt->labels[i], "%s", labels[i]);
    return SIM_OK;
}

/* ---- series ---- */

static inline int has_series(const sim_metric *mt)
{
    return (mt->flags & SIM_METRIC_SERIES) && mt->reg->cfg.grid_step > 0;
}

static sim_time grid_time(const sim_metrics *m, size_t k)
{
    return m->cfg.grid_start + (sim_time)k * m->cfg.grid_step;
}

/* Appends one point holding the current values. 0 on success. */
static int append_point(sim_metric *mt)
{
    if (mt->npts >= mt->reg->cfg.max_points) {
        mt->truncated = 1;
        return -1;
    }
    if (mt->npts == mt->cap_pts) {
        size_t cap = mt->cap_pts ? 2 * mt->cap_pts : 64;
        if (cap > mt->reg->cfg.max_points)
            cap = mt->reg->cfg.max_points;
        if (mt->kind == SIM_METRIC_COUNTER) {
            int64_t *s = realloc(mt->ser_cnt, cap * mt->ncells * sizeof *s);
            if (!s)
                goto nomem;
            mt->ser_cnt = s;
        } else {
            fx_t *s = realloc(mt->ser_lvl, cap * mt->ncells * sizeof *s);
            if (!s)
                goto nomem;
            mt->ser_lvl = s;
        }
        mt->cap_pts = cap;
    }
    if (mt->kind == SIM_METRIC_COUNTER)
        memcpy(mt->ser_cnt + mt->npts * mt->ncells, mt->cnt,
               mt->ncells * sizeof *mt->cnt);
    else
        memcpy(mt->ser_lvl + mt->npts * mt->ncells, mt->lvl,
               mt->ncells * sizeof *mt->lvl);
    mt->npts++;
    return 0;
nomem:
    /* Out of memory: the series stops here and says so. */
    mt->truncated = 1;
    return -1;
}

/* Fills the points strictly before t (inclusive when `incl`). */
static void catch_up_slow(sim_metric *mt, sim_time t, int incl)
{
    const sim_metrics *m = mt->reg;
    while (!mt->truncated) {
        sim_time g = grid_time(m, mt->npts);
        if (incl ? g > t : g >= t)
            break;
        if (append_point(mt))
            break;
    }
    mt->ng_t = grid_time(m, mt->npts);
    mt->ng_for = mt->npts + 1;
}

static inline void catch_up(sim_metric *mt, sim_time t, int incl)
{
    if (!incl && mt->ng_for == mt->npts + 1 && t <= mt->ng_t)
        return; /* the next grid point is not before t: nothing to append */
    catch_up_slow(mt, t, incl);
}

/* ---- recording ---- */

void sim_counter_add(sim_metric *c, size_t cohort, int64_t n)
{
    assert(c->kind == SIM_METRIC_COUNTER && cohort < c->ncells);
    sim_metrics *m = c->reg;
    sim_time t = now_of(m);
    if (m->finished || t < m->cfg.warmup_end)
        return;
    if (has_series(c))
        catch_up(c, t, 0);
    c->cnt[cohort] = add_i64(c->cnt[cohort], n);
}

void sim_gauge_set(sim_metric *g, size_t cohort, double v)
{
    assert(g->kind == SIM_METRIC_GAUGE && cohort < g->ncells);
    sim_metrics *m = g->reg;
    if (m->finished)
        return;
    if (has_series(g))
        catch_up(g, now_of(m), 0);
    g->lvl[cohort] = to_fx(v);
}

void sim_gauge_add(sim_metric *g, size_t cohort, double dv)
{
    assert(g->kind == SIM_METRIC_GAUGE && cohort < g->ncells);
    sim_metrics *m = g->reg;
    if (m->finished)
        return;
    if (has_series(g))
        catch_up(g, now_of(m), 0);
    g->lvl[cohort] = add_fx(g->lvl[cohort], to_fx(dv));
}

static size_t bin_index(const sim_metric *h, double x)
{
    if (!(x >= h->lo))
        return 0;
    if (x >= h->edges[h->nbins])
        return h->nbins + 1;
    double f = (double)h->per_decade * log10(x / h->lo);
    size_t i = f < 0 ? 0 : (size_t)f;
    if (i >= h->nbins)
        i = h->nbins - 1;
    /* pow/log10 rounding: settle against the stored edges */
    while (i > 0 && x < h->edges[i])
        i--;
    while (i + 1 < h->nbins && x >= h->edges[i + 1])
        i++;
    return i + 1;
}

void sim_hist_observe(sim_metric *h, size_t cohort, double x)
{
    assert(h->kind == SIM_METRIC_HISTOGRAM && cohort < h->ncells);
    sim_metrics *m = h->reg;
    if (m->finished || now_of(m) < m->cfg.warmup_end || isnan(x))
        return;
    h->bins[cohort * (h->nbins + 2) + bin_index(h, x)]++;
    h->hcount[cohort]++;
    h->hsum[cohort] = add_fx(h->hsum[cohort], to_fx(x));
    if (x < h->hmin[cohort])
        h->hmin[cohort] = x;
    if (x > h->hmax[cohort])
        h->hmax[cohort] = x;
}

void sim_hist_observe_n(sim_metric *h, size_t cohort, double x, uint64_t n)
{
    assert(h->kind == SIM_METRIC_HISTOGRAM && cohort < h->ncells);
    sim_metrics *m = h->reg;
    if (n == 0 || m->finished || now_of(m) < m->cfg.warmup_end || isnan(x))
        return;
    h->bins[cohort * (h->nbins + 2) + bin_index(h, x)] += n;
    h->hcount[cohort] += n;
    /* n additions of to_fx(x) in the sum's wrapping arithmetic */
    __extension__ typedef unsigned __int128 ufx;
    h->hsum[cohort] = add_fx(h->hsum[cohort], (fx_t)((ufx)to_fx(x) * (ufx)n));
    if (x < h->hmin[cohort])
        h->hmin[cohort] = x;
    if (x > h->hmax[cohort])
        h->hmax[cohort] = x;
}

void sim_hist_observe_u32(sim_metric *h, size_t cohort, uint32_t x)
{
    assert(h->kind == SIM_METRIC_HISTOGRAM && cohort < h->ncells);
    sim_metrics *m = h->reg;
    if (m->finished || now_of(m) < m->cfg.warmup_end)
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
    /* to_fx((double)x) exactly: x * 2^32 has at most 32 significant bits */
    h->hsum[cohort] = add_fx(h->hsum[cohort], (fx_t)x << 32);
    double dx = (double)x;
    if (dx < h->hmin[cohort])
        h->hmin[cohort] = dx;
    if (dx > h->hmax[cohort])
        h->hmax[cohort] = dx;
}

void sim_metrics_finish(sim_metrics *m, sim_time end)
{
    if (m->finished)
        return;
    for (size_t i = 0; i < m->n; i++)
        if (has_series(m->v[i]))
            catch_up(m->v[i], end, 1);
    m->finished = 1;
}

/* ---- merge ---- */

static int clone_into(sim_metrics *dst, const sim_metric *s)
{
    sim_metric *mt = calloc(1, sizeof *mt);
    if (!mt)
        return SIM_ERR_NOMEM;
    *mt = *s;
    mt->reg = dst;
    mt->labels = NULL;
    mt->cnt = NULL;
    mt->lvl = NULL;
    mt->ser_cnt = NULL;
    mt->ser_lvl = NULL;
    mt->edges = NULL;
    mt->bins = NULL;
    mt->hcount = NULL;
    mt->hsum = NULL;
    mt->hmin = mt->hmax = NULL;
    mt->cap_pts = 0;
    int rc = alloc_cells(mt);
    size_t c = s->ncells;
    if (rc == SIM_OK)
        memcpy(mt->labels, s->labels, c * sizeof *mt->labels);
    if (rc == SIM_OK && s->npts) {
        if (s->kind == SIM_METRIC_COUNTER) {
            mt->ser_cnt = malloc(s->npts * c * sizeof *mt->ser_cnt);
            if (mt->ser_cnt)
                memcpy(mt->ser_cnt, s->ser_cnt, s->npts * c * sizeof *mt->ser_cnt);
        } else {
            mt->ser_lvl = malloc(s->npts * c * sizeof *mt->ser_lvl);
            if (mt->ser_lvl)
                memcpy(mt->ser_lvl, s->ser_lvl, s->npts * c * sizeof *mt->ser_lvl);
        }
        if (!mt->ser_cnt && !mt->ser_lvl)
            rc = SIM_ERR_NOMEM;
        mt->cap_pts = s->npts;
    }
    if (rc == SIM_OK) {
        switch (s->kind) {
        case SIM_METRIC_COUNTER:
            memcpy(mt->cnt, s->cnt, c * sizeof *mt->cnt);
            break;
        case SIM_METRIC_GAUGE:
            memcpy(mt->lvl, s->lvl, c * sizeof *mt->lvl);
            break;
        default:
            memcpy(mt->bins, s->bins, c * (s->nbins + 2) * sizeof *mt->bins);
            memcpy(mt->hcount, s->hcount, c * sizeof *mt->hcount);
            memcpy(mt->hsum, s->hsum, c * sizeof *mt->hsum);
            memcpy(mt->hmin, s->hmin, c * sizeof *mt->hmin);
            memcpy(mt->hmax, s->hmax, c * sizeof *mt->hmax);
        }
        rc = registry_add(dst, mt);
    }
    if (rc)
        metric_free(mt);
    return rc;
}

static int same_data(const sim_metric *a, const sim_metric *b)
{
    size_t c = a->ncells;
    switch (a->kind) {
    case SIM_METRIC_COUNTER:
        if (memcmp(a->cnt, b->cnt, c * sizeof *a->cnt) ||
            (a->npts && memcmp(a->ser_cnt, b->ser_cnt, a->npts * c * sizeof *a->ser_cnt)))
            return 0;
        return 1;
    case SIM_METRIC_GAUGE:
        if (memcmp(a->lvl, b->lvl, c * sizeof *a->lvl) ||
            (a->npts && memcmp(a->ser_lvl, b->ser_lvl, a->npts * c * sizeof *a->ser_lvl)))
            return 0;
        return 1;
    default:
        return !memcmp(a->bins, b->bins, c * (a->nbins + 2) * sizeof *a->bins) &&
               !memcmp(a->hcount, b->hcount, c * sizeof *a->hcount) &&
               !memcmp(a->hsum, b->hsum, c * sizeof *a->hsum);
    }
}

int sim_metrics_merge(sim_metrics *dst, const sim_metrics *src)
{
    if (dst->cfg.warmup_end != src->cfg.warmup_end ||
        dst->cfg.grid_start != src->cfg.grid_start ||
        dst->cfg.grid_step != src->cfg.grid_step)
        return SIM_ERR_METRIC;
    /* check everything first, so a definition mismatch changes nothing */
    for (size_t i = 0; i < src->n; i++) {
        const sim_metric *s = src->v[i];
        const sim_metric *d = sim_metrics_find(dst, s->name);
        if (d && (!same_def(d, s) || d->npts != s->npts ||
                  d->truncated != s->truncated))
            return SIM_ERR_METRIC;
    }
    for (size_t i = 0; i < src->n; i++) {
        const sim_metric *s = src->v[i];
        sim_metric *d = sim_metrics_find(dst, s->name);
        if (!d) {
            int rc = clone_into(dst, s);
            if (rc)
                return rc;
            continue;
        }
        if (s->flags & SIM_METRIC_REPLICATED) {
            if (!same_data(d, s))
                return SIM_ERR_METRIC;
            continue;
        }
        size_t c = s->ncells;
        switch (s->kind) {
        case SIM_METRIC_COUNTER:
            for (size_t j = 0; j < c; j++)
                d->cnt[j] = add_i64(d->cnt[j], s->cnt[j]);
            for (size_t j = 0; j < s->npts * c; j++)
                d->ser_cnt[j] = add_i64(d->ser_cnt[j], s->ser_cnt[j]);
            break;
        case SIM_METRIC_GAUGE:
            for (size_t j = 0; j < c; j++)
                d->lvl[j] = add_fx(d->lvl[j], s->lvl[j]);
            for (size_t j = 0; j < s->npts * c; j++)
                d->ser_lvl[j] = add_fx(d->ser_lvl[j], s->ser_lvl[j]);
            break;
        default:
            for (size_t j = 0; j < c * (s->nbins + 2); j++)
                d->bins[j] += s->bins[j];
            for (size_t j = 0; j < c; j++) {
                d->hcount[j] += s->hcount[j];
                d->hsum[j] = add_fx(d->hsum[j], s->hsum[j]);
                if (s->hmin[j] < d->hmin[j])
                    d->hmin[j] = s->hmin[j];
                if (s->hmax[j] > d->hmax[j])
                    d->hmax[j] = s->hmax[j];
            }
        }
    }
    return SIM_OK;
}

/* ---- reading ---- */

size_t sim_metrics_count(const sim_metrics *m) { return m->n; }

const sim_metric *sim_metrics_at(const sim_metrics *m, size_t i)
{
    return i < m->n ? m->v[i] : NULL;
}

const char *sim_metric_name(const sim_metric *mt) { return mt->name; }
const char *sim_metric_unit(const sim_metric *mt) { return mt->unit; }
int sim_metric_kind(const sim_metric *mt) { return mt->kind; }
unsigned sim_metric_flags(const sim_metric *mt) { return mt->flags; }
size_t sim_metric_cohorts(const sim_metric *mt) { return mt->ncells; }

const char *sim_metric_kind_name(int kind)
{
    switch (kind) {
    case SIM_METRIC_COUNTER: return "counter";
    case SIM_METRIC_GAUGE: return "gauge";
    case SIM_METRIC_HISTOGRAM: return "histogram";
    default: return "unknown";
    }
}

const char *sim_metric_cohort_label(const sim_metric *mt, size_t cohort)
{
    return cohort < mt->ncells ? mt->labels[cohort] : "all";
}

int64_t sim_counter_value(const sim_metric *c, size_t cohort)
{
    if (cohort != SIM_ALL_COHORTS)
        return cohort < c->ncells ? c->cnt[cohort] : 0;
    int64_t s = 0;
    for (size_t i = 0; i < c->ncells; i++)
        s = add_i64(s, c->cnt[i]);
    return s;
}

double sim_gauge_value(const sim_metric *g, size_t cohort)
{
    if (cohort != SIM_ALL_COHORTS)
        return cohort < g->ncells ? from_fx(g->lvl[cohort]) : NAN;
    fx_t s = 0;
    for (size_t i = 0; i < g->ncells; i++)
        s = add_fx(s, g->lvl[i]);
    return from_fx(s);
}

size_t sim_metric_series_len(const sim_metric *mt) { return mt->npts; }
int sim_metric_series_truncated(const sim_metric *mt) { return mt->truncated; }

sim_time sim_metrics_grid_time(const sim_metrics *m, size_t k)
{
    return grid_time(m, k);
}

double sim_metric_series_value(const sim_metric *mt, size_t cohort, size_t k)
{
    if (k >= mt->npts || (cohort != SIM_ALL_COHORTS && cohort >= mt->ncells))
        return NAN;
    size_t lo = cohort == SIM_ALL_COHORTS ? 0 : cohort;
    size_t hi = cohort == SIM_ALL_COHORTS ? mt->ncells : cohort + 1;
    if (mt->kind == SIM_METRIC_COUNTER) {
        int64_t s = 0;
        for (size_t i = lo; i < hi; i++)
            s = add_i64(s, mt->ser_cnt[k * mt->ncells + i]);
        return (double)s;
    }
    fx_t s = 0;
    for (size_t i = lo; i < hi; i++)
        s = add_fx(s, mt->ser_lvl[k * mt->ncells + i]);
    return from_fx(s);
}

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
        return cohort < h->ncells ? from_fx(h->hsum[cohort]) : NAN;
    fx_t s = 0;
    for (size_t c = 0; c < h->ncells; c++)
        s = add_fx(s, h->hsum[c]);
    return from_fx(s);
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

/* ---- replications ---- */

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

/* ---- encoding ---- */

#define ENC_MAGIC 0x4d4d4953u /* "SIMM" little-endian */
#define ENC_VERSION 1u

typedef struct wbuf {
    uint8_t *p;
    size_t n, cap;
    int err;
} wbuf;

static void put(wbuf *w, const void *src, size_t len)
{
    if (w->err)
        return;
    if (w->n + len > w->cap) {
        size_t cap = w->cap ? w->cap : 256;
        while (cap < w->n + len)
            cap *= 2;
        uint8_t *p = realloc(w->p, cap);
        if (!p) {
            w->err = 1;
            return;
        }
        w->p = p;
        w->cap = cap;
    }
    memcpy(w->p + w->n, src, len);
    w->n += len;
}

static void put_u64(wbuf *w, uint64_t v)
{
    uint8_t b[8];
    for (int i = 0; i < 8; i++)
        b[i] = (uint8_t)(v >> (8 * i));
    put(w, b, 8);
}

static void put_u32(wbuf *w, uint32_t v)
{
    uint8_t b[4];
    for (int i = 0; i < 4; i++)
        b[i] = (uint8_t)(v >> (8 * i));
    put(w, b, 4);
}

static void put_u8(wbuf *w, uint8_t v) { put(w, &v, 1); }

static void put_f64(wbuf *w, double d)
{
    uint64_t v;
    memcpy(&v, &d, 8);
    put_u64(w, v);
}

static void put_fx(wbuf *w, fx_t x)
{
    __extension__ unsigned __int128 u = (unsigned __int128)x;
    put_u64(w, (uint64_t)u);
    put_u64(w, (uint64_t)(u >> 64));
}

static void put_str(wbuf *w, const char *s)
{
    size_t n = strlen(s);
    put_u8(w, (uint8_t)n);
    put(w, s, n);
}

int sim_metrics_encode(const sim_metrics *m, uint8_t **buf, size_t *len)
{
    wbuf w = {NULL, 0, 0, 0};
    *buf = NULL;
    *len = 0;
    put_u32(&w, ENC_MAGIC);
    put_u32(&w, ENC_VERSION);
    put_u64(&w, (uint64_t)m->cfg.warmup_end);
    put_u64(&w, (uint64_t)m->cfg.grid_start);
    put_u64(&w, (uint64_t)m->cfg.grid_step);
    put_u64(&w, (uint64_t)m->cfg.max_points);
    put_u8(&w, (uint8_t)(m->finished != 0));
    put_u64(&w, (uint64_t)m->n);
    for (size_t i = 0; i < m->n; i++) {
        const sim_metric *mt = m->v[i];
        size_t c = mt->ncells;
        put_u8(&w, (uint8_t)mt->kind);
        put_u32(&w, mt->flags);
        put_u32(&w, (uint32_t)c);
        put_str(&w, mt->name);
        put_str(&w, mt->unit);
        for (size_t k = 0; k < c; k++)
            put_str(&w, mt->labels[k]);
        if (mt->kind == SIM_METRIC_HISTOGRAM) {
            put_f64(&w, mt->lo);
            put_f64(&w, mt->hi);
            put_u32(&w, mt->per_decade);
        }
        put_u64(&w, (uint64_t)mt->npts);
        put_u8(&w, (uint8_t)(mt->truncated != 0));
        switch (mt->kind) {
        case SIM_METRIC_COUNTER:
            for (size_t k = 0; k < c; k++)
                put_u64(&w, (uint64_t)mt->cnt[k]);
            for (size_t k = 0; k < mt->npts * c; k++)
                put_u64(&w, (uint64_t)mt->ser_cnt[k]);
            break;
        case SIM_METRIC_GAUGE:
            for (size_t k = 0; k < c; k++)
                put_fx(&w, mt->lvl[k]);
            for (size_t k = 0; k < mt->npts * c; k++)
                put_fx(&w, mt->ser_lvl[k]);
            break;
        default:
            for (size_t k = 0; k < c * (mt->nbins + 2); k++)
                put_u64(&w, mt->bins[k]);
            for (size_t k = 0; k < c; k++) {
                put_u64(&w, mt->hcount[k]);
                put_fx(&w, mt->hsum[k]);
                put_f64(&w, mt->hmin[k]);
                put_f64(&w, mt->hmax[k]);
            }
        }
    }
    if (w.err) {
        free(w.p);
        return SIM_ERR_NOMEM;
    }
    *buf = w.p;
    *len = w.n;
    return SIM_OK;
}

typedef struct rbuf {
    const uint8_t *p;
    size_t n, off;
    int err;
} rbuf;

static const uint8_t *take(rbuf *r, size_t len)
{
    if (r->err || len > r->n - r->off) {
        r->err = 1;
        return NULL;
    }
    const uint8_t *p = r->p + r->off;
    r->off += len;
    return p;
}

/* An n-byte little-endian unsigned integer; 0 (and r->err) when short. */
static uint64_t get_le(rbuf *r, int n)
{
    const uint8_t *b = take(r, (size_t)n);
    uint64_t v = 0;
    if (b)
        for (int i = n - 1; i >= 0; i--)
            v = (v << 8) | b[i];
    return v;
}

static uint64_t get_u64(rbuf *r) { return get_le(r, 8); }
static uint32_t get_u32(rbuf *r) { return (uint32_t)get_le(r, 4); }

static uint8_t get_u8(rbuf *r)
{
    const uint8_t *b = take(r, 1);
    return b ? b[0] : 0;
}

static double get_f64(rbuf *r)
{
    uint64_t v = get_u64(r);
    double d;
    memcpy(&d, &v, 8);
    return d;
}

static fx_t get_fx(rbuf *r)
{
    uint64_t lo = get_u64(r), hi = get_u64(r);
    __extension__ unsigned __int128 u = ((unsigned __int128)hi << 64) | lo;
    return (fx_t)u;
}

/* A string of at most maxlen bytes into out[maxlen + 1]. */
static void get_str(rbuf *r, char *out, size_t maxlen)
{
    size_t n = get_u8(r);
    const uint8_t *b = take(r, n);
    if (!b || n > maxlen) {
        r->err = 1;
        out[0] = 0;
        return;
    }
    memcpy(out, b, n);
    out[n] = 0;
    if (strlen(out) != n)
        r->err = 1; /* embedded NUL */
}

/* Enough bytes left for `count` items of `size` bytes? (Checked before
 * allocating what a hostile count asks for.) */
static int room(const rbuf *r, uint64_t count, size_t size)
{
    return !r->err && count <= (r->n - r->off) / size;
}

static int decode_metric(sim_metrics *m, rbuf *r)
{
    char name[NAME_MAX_LEN + 1], unit[UNIT_MAX_LEN + 1];
    int kind = get_u8(r);
    uint32_t flags = get_u32(r), ncells = get_u32(r);
    get_str(r, name, NAME_MAX_LEN);
    get_str(r, unit, UNIT_MAX_LEN);
    if (r->err || ncells == 0 || ncells > 65536 || !room(r, ncells, 1))
        return SIM_ERR_PARSE;
    char(*labels)[LABEL_MAX_LEN + 1] = malloc(ncells * sizeof *labels);
    if (!labels)
        return SIM_ERR_NOMEM;
    for (uint32_t k = 0; k < ncells; k++)
        get_str(r, labels[k], LABEL_MAX_LEN);
    double lo = 0, hi = 0;
    unsigned per = 0;
    if (kind == SIM_METRIC_HISTOGRAM) {
        lo = get_f64(r);
        hi = get_f64(r);
        per = get_u32(r);
    }
    if (r->err || sim_metrics_find(m, name) ||
        (kind != SIM_METRIC_COUNTER && kind != SIM_METRIC_GAUGE &&
         kind != SIM_METRIC_HISTOGRAM)) {
        free(labels);
        return SIM_ERR_PARSE;
    }
    sim_metric *mt;
    int rc = define(m, name, unit, kind, ncells, flags, lo, hi, per, &mt);
    if (rc) {
        free(labels);
        return rc == SIM_ERR_NOMEM ? rc : SIM_ERR_PARSE;
    }
    memcpy(mt->labels, labels, ncells * sizeof *labels);
    free(labels);
    uint64_t npts = get_u64(r);
    uint8_t trunc = get_u8(r);
    size_t c = ncells;
    if (r->err || trunc > 1 || npts > m->cfg.max_points ||
        (npts && !has_series(mt)))
        return SIM_ERR_PARSE;
    mt->truncated = trunc;
    size_t item = kind == SIM_METRIC_COUNTER ? 8 : 16;
    if (npts) {
        if (!room(r, npts, c * item)) /* also bounds npts * c: no overflow */
            return SIM_ERR_PARSE;
        if (kind == SIM_METRIC_COUNTER)
            mt->ser_cnt = malloc(npts * c * sizeof *mt->ser_cnt);
        else
            mt->ser_lvl = malloc(npts * c * sizeof *mt->ser_lvl);
        if (!mt->ser_cnt && !mt->ser_lvl)
            return SIM_ERR_NOMEM;
        mt->npts = mt->cap_pts = npts;
    }
    switch (kind) {
    case SIM_METRIC_COUNTER:
        for (size_t k = 0; k < c; k++)
            mt->cnt[k] = (int64_t)get_u64(r);
        for (size_t k = 0; k < npts * c; k++)
            mt->ser_cnt[k] = (int64_t)get_u64(r);
        break;
    case SIM_METRIC_GAUGE:
        for (size_t k = 0; k < c; k++)
            mt->lvl[k] = get_fx(r);
        for (size_t k = 0; k < npts * c; k++)
            mt->ser_lvl[k] = get_fx(r);
        break;
    default:
        if (!room(r, c * (mt->nbins + 2), 8))
            return SIM_ERR_PARSE;
        for (size_t k = 0; k < c * (mt->nbins + 2); k++)
            mt->bins[k] = get_u64(r);
        for (size_t k = 0; k < c; k++) {
            mt->hcount[k] = get_u64(r);
            mt->hsum[k] = get_fx(r);
            mt->hmin[k] = get_f64(r);
            mt->hmax[k] = get_f64(r);
        }
    }
    return r->err ? SIM_ERR_PARSE : SIM_OK;
}

int sim_metrics_decode(sim_metrics **out, const uint8_t *buf, size_t len)
{
    *out = NULL;
    if (!buf && len)
        return SIM_ERR_ARG;
    rbuf r = {buf, len, 0, 0};
    if (get_u32(&r) != ENC_MAGIC || get_u32(&r) != ENC_VERSION || r.err)
        return SIM_ERR_PARSE;
    sim_metrics_config cfg;
    cfg.warmup_end = (sim_time)get_u64(&r);
    cfg.grid_start = (sim_time)get_u64(&r);
    cfg.grid_step = (sim_time)get_u64(&r);
    cfg.max_points = (size_t)get_u64(&r);
    uint8_t finished = get_u8(&r);
    uint64_t nmetrics = get_u64(&r);
    /* max_points must be what create() would store; each metric takes at
     * least 14 bytes */
    if (r.err || cfg.grid_step < 0 || cfg.max_points == 0 || finished > 1 ||
        !room(&r, nmetrics, 14))
        return SIM_ERR_PARSE;
    sim_metrics *m;
    int rc = sim_metrics_create(&m, &cfg, NULL);
    if (rc)
        return rc;
    for (uint64_t i = 0; i < nmetrics && rc == SIM_OK; i++)
        rc = decode_metric(m, &r);
    if (rc == SIM_OK && r.off != r.n)
        rc = SIM_ERR_PARSE;
    if (rc) {
        sim_metrics_destroy(m);
        return rc;
    }
    m->finished = finished;
    *out = m;
    return SIM_OK;
}
