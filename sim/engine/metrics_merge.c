/*
 * metrics_merge.c - sim_metrics_merge: exact, order-independent sums of two
 * registries (copying the metrics dst lacks, checking that replicated ones
 * agree). Apart from recording: it runs after a run, once per shard.
 */
#include "sim/metrics.h"

#include <stdlib.h>
#include <string.h>

#include "sim/status.h"

#include "metrics_internal.h"

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
    mt->bin_tab = NULL;
    mt->bins = NULL;
    mt->hcount = NULL;
    mt->hsum = NULL;
    mt->hmin = mt->hmax = NULL;
    mt->cap_pts = 0;
    int rc = sim__metric_alloc_cells(mt);
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
        rc = sim__metrics_add(dst, mt);
    }
    if (rc)
        sim__metric_free(mt);
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
        if (d && (!sim__metric_same_def(d, s) || d->npts != s->npts ||
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
                d->cnt[j] = sim__add_i64(d->cnt[j], s->cnt[j]);
            for (size_t j = 0; j < s->npts * c; j++)
                d->ser_cnt[j] = sim__add_i64(d->ser_cnt[j], s->ser_cnt[j]);
            break;
        case SIM_METRIC_GAUGE:
            /* an unset recorded cell adds nothing (and set plus unset is
             * the set value, not a sum with the marker) */
            for (size_t j = 0; j < c; j++)
                if (d->lvl[j] == SIM__FX_UNSET)
                    d->lvl[j] = s->lvl[j];
                else if (s->lvl[j] != SIM__FX_UNSET)
                    d->lvl[j] = sim__add_fx(d->lvl[j], s->lvl[j]);
            for (size_t j = 0; j < s->npts * c; j++)
                d->ser_lvl[j] = sim__add_fx(d->ser_lvl[j], s->ser_lvl[j]);
            break;
        default:
            for (size_t j = 0; j < c * (s->nbins + 2); j++)
                d->bins[j] += s->bins[j];
            for (size_t j = 0; j < c; j++) {
                d->hcount[j] += s->hcount[j];
                d->hsum[j] = sim__add_fx(d->hsum[j], s->hsum[j]);
                if (s->hmin[j] < d->hmin[j])
                    d->hmin[j] = s->hmin[j];
                if (s->hmax[j] > d->hmax[j])
                    d->hmax[j] = s->hmax[j];
            }
        }
    }
    return SIM_OK;
}
