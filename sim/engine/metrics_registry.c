/*
 * metrics_registry.c - the metric registry: create and destroy, defining
 * metrics (get-or-create by name), cohort labels, and enumeration. The
 * layout and fixed point that all metrics_*.c share are in metrics_internal.h.
 */
#include "sim/metrics.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/status.h"

#include "metrics_internal.h"

#define DEFAULT_MAX_POINTS 1000000

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

void sim__metric_free(sim_metric *mt)
{
    if (!mt)
        return;
    free(mt->labels);
    free(mt->cnt);
    free(mt->lvl);
    free(mt->ser_cnt);
    free(mt->ser_lvl);
    free(mt->edges);
    free(mt->bin_tab);
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
        sim__metric_free(m->v[i]);
    free(m->v);
    free(m->flush);
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
int sim__metric_same_def(const sim_metric *a, const sim_metric *b)
{
    if (a->kind != b->kind || a->flags != b->flags || a->ncells != b->ncells ||
        strcmp(a->unit, b->unit))
        return 0;
    if (a->kind == SIM_METRIC_HISTOGRAM)
        return a->lo == b->lo && a->hi == b->hi &&
               a->per_decade == b->per_decade && a->nbins == b->nbins;
    return 1;
}

int sim__metric_alloc_cells(sim_metric *mt)
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
        /* a recorded figure's cells start unset: absent, not 0 */
        for (size_t i = 0; mt->lvl && (mt->flags & SIM_METRIC_RECORD) && i < c; i++)
            mt->lvl[i] = SIM__FX_UNSET;
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
        mt->bin_scale = (double)mt->per_decade * 0.30102999566398120;
        mt->bin_offset = mt->bin_scale * log2(mt->lo);
        mt->bin_tab = NULL;
        int rc = sim__hist_table_build(mt);
        if (rc != SIM_OK)
            return rc;
        for (size_t i = 0; i < c; i++) {
            mt->hmin[i] = INFINITY;
            mt->hmax[i] = -INFINITY;
        }
        return SIM_OK;
    }
}

int sim__metrics_add(sim_metrics *m, sim_metric *mt)
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

int sim__metrics_define(sim_metrics *m, const char *name, const char *unit,
                        int kind, size_t ncells, unsigned flags, double lo,
                        double hi, unsigned per_decade, sim_metric **out)
{
    *out = NULL;
    if (!valid_token(name, 1, SIM__NAME_MAX_LEN) ||
        !valid_token(unit ? unit : "", 0, SIM__UNIT_MAX_LEN) ||
        ncells == 0 || ncells > 65536 ||
        (flags & ~(SIM_METRIC_SERIES | SIM_METRIC_REPLICATED | SIM_METRIC_RECORD)) ||
        ((flags & SIM_METRIC_RECORD) &&
         (kind != SIM_METRIC_GAUGE || (flags & SIM_METRIC_SERIES))))
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
        if (!sim__metric_same_def(old, &probe))
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
    int rc = sim__metric_alloc_cells(mt);
    if (rc == SIM_OK)
        rc = sim__metrics_add(m, mt);
    if (rc) {
        sim__metric_free(mt);
        return rc;
    }
    *out = mt;
    return SIM_OK;
}

int sim_metrics_counter(sim_metrics *m, const char *name, const char *unit,
                        size_t ncohorts, unsigned flags, sim_metric **out)
{
    return sim__metrics_define(m, name, unit, SIM_METRIC_COUNTER, ncohorts,
                               flags, 0, 0, 0, out);
}

int sim_metrics_gauge(sim_metrics *m, const char *name, const char *unit,
                      size_t ncohorts, unsigned flags, sim_metric **out)
{
    return sim__metrics_define(m, name, unit, SIM_METRIC_GAUGE, ncohorts,
                               flags, 0, 0, 0, out);
}

int sim_metrics_histogram(sim_metrics *m, const char *name, const char *unit,
                          size_t ncohorts, unsigned flags, double lo,
                          double hi, unsigned per_decade, sim_metric **out)
{
    return sim__metrics_define(m, name, unit, SIM_METRIC_HISTOGRAM, ncohorts,
                               flags, lo, hi, per_decade, out);
}

int sim_metric_set_cohort_labels(sim_metric *mt, const char *const *labels,
                                 size_t n)
{
    if (n != mt->ncells || !labels)
        return SIM_ERR_ARG;
    for (size_t i = 0; i < n; i++)
        if (!labels[i] || strlen(labels[i]) > SIM__LABEL_MAX_LEN)
            return SIM_ERR_ARG;
    for (size_t i = 0; i < n; i++)
        snprintf(mt->labels[i], sizeof mt->labels[i], "%s", labels[i]);
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
