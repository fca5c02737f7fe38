/*
 * metrics_series.c - counters and gauges: recording, reading, and the series
 * each fills lazily on the grid (sim_metrics_finish closes it). Together
 * because every update catches its series up first, inline on the hot path.
 * Also the registry's deferred-observation sources, which
 * sim_metrics_finish flushes before it freezes the registry.
 */
#include "sim/metrics.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim/status.h"

#include "metrics_internal.h"

/* ---- series ---- */

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
            sim__fx_t *s = realloc(mt->ser_lvl, cap * mt->ncells * sizeof *s);
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
    sim_time t = sim__now_of(m);
    if (m->finished || t < m->cfg.warmup_end)
        return;
    if (sim__has_series(c))
        catch_up(c, t, 0);
    c->cnt[cohort] = sim__add_i64(c->cnt[cohort], n);
}

void sim_gauge_set(sim_metric *g, size_t cohort, double v)
{
    assert(g->kind == SIM_METRIC_GAUGE && cohort < g->ncells);
    sim_metrics *m = g->reg;
    /* a recorded figure is set once the run is over (sim:record) */
    if (m->finished && !(g->flags & SIM_METRIC_RECORD))
        return;
    if (sim__has_series(g))
        catch_up(g, sim__now_of(m), 0);
    g->lvl[cohort] = sim__to_fx(v);
}

void sim_gauge_add(sim_metric *g, size_t cohort, double dv)
{
    assert(g->kind == SIM_METRIC_GAUGE && cohort < g->ncells);
    sim_metrics *m = g->reg;
    if (m->finished)
        return;
    if (sim__has_series(g))
        catch_up(g, sim__now_of(m), 0);
    if (g->lvl[cohort] == SIM__FX_UNSET)
        g->lvl[cohort] = 0;
    g->lvl[cohort] = sim__add_fx(g->lvl[cohort], sim__to_fx(dv));
}

int sim_metrics_add_flush(sim_metrics *m, sim_metrics_flush_fn fn, void *ctx)
{
    if (m->nflush == m->cap_flush) {
        size_t cap = m->cap_flush ? 2 * m->cap_flush : 4;
        struct sim__flush *f = realloc(m->flush, cap * sizeof *f);
        if (!f)
            return SIM_ERR_NOMEM;
        m->flush = f;
        m->cap_flush = cap;
    }
    m->flush[m->nflush].fn = fn;
    m->flush[m->nflush].ctx = ctx;
    m->nflush++;
    return SIM_OK;
}

void sim_metrics_remove_flush(sim_metrics *m, sim_metrics_flush_fn fn, void *ctx)
{
    for (size_t i = 0; i < m->nflush; i++)
        if (m->flush[i].fn == fn && m->flush[i].ctx == ctx) {
            memmove(&m->flush[i], &m->flush[i + 1],
                    (m->nflush - i - 1) * sizeof *m->flush);
            m->nflush--;
            return;
        }
}

void sim_metrics_flush(sim_metrics *m)
{
    for (size_t i = 0; i < m->nflush; i++)
        m->flush[i].fn(m->flush[i].ctx);
}

int sim_metrics_recording(const sim_metrics *m)
{
    return sim__counting(m);
}

void sim_metrics_finish(sim_metrics *m, sim_time end)
{
    if (m->finished)
        return;
    sim_metrics_flush(m);
    for (size_t i = 0; i < m->n; i++)
        if (sim__has_series(m->v[i]))
            catch_up(m->v[i], end, 1);
    m->finished = 1;
}

/* ---- reading ---- */

int64_t sim_counter_value(const sim_metric *c, size_t cohort)
{
    if (cohort != SIM_ALL_COHORTS)
        return cohort < c->ncells ? c->cnt[cohort] : 0;
    int64_t s = 0;
    for (size_t i = 0; i < c->ncells; i++)
        s = sim__add_i64(s, c->cnt[i]);
    return s;
}

double sim_gauge_value(const sim_metric *g, size_t cohort)
{
    if (cohort != SIM_ALL_COHORTS)
        return cohort < g->ncells && g->lvl[cohort] != SIM__FX_UNSET
                   ? sim__from_fx(g->lvl[cohort])
                   : NAN;
    sim__fx_t s = 0;
    int any = 0;
    for (size_t i = 0; i < g->ncells; i++)
        if (g->lvl[i] != SIM__FX_UNSET) {
            s = sim__add_fx(s, g->lvl[i]);
            any = 1;
        }
    return any ? sim__from_fx(s) : NAN;
}

size_t sim_metric_series_len(const sim_metric *mt) { return mt->npts; }
int sim_metric_series_truncated(const sim_metric *mt) { return mt->truncated; }

sim_time sim_metrics_grid_time(const sim_metrics *m, size_t k)
{
    return grid_time(m, k);
}

sim_time sim_metrics_warmup_end(const sim_metrics *m) { return m->cfg.warmup_end; }

double sim_metric_series_value(const sim_metric *mt, size_t cohort, size_t k)
{
    if (k >= mt->npts || (cohort != SIM_ALL_COHORTS && cohort >= mt->ncells))
        return NAN;
    size_t lo = cohort == SIM_ALL_COHORTS ? 0 : cohort;
    size_t hi = cohort == SIM_ALL_COHORTS ? mt->ncells : cohort + 1;
    if (mt->kind == SIM_METRIC_COUNTER) {
        int64_t s = 0;
        for (size_t i = lo; i < hi; i++)
            s = sim__add_i64(s, mt->ser_cnt[k * mt->ncells + i]);
        return (double)s;
    }
    sim__fx_t s = 0;
    for (size_t i = lo; i < hi; i++)
        s = sim__add_fx(s, mt->ser_lvl[k * mt->ncells + i]);
    return sim__from_fx(s);
}

size_t sim_metrics_series_points(const sim_metrics *m, sim_time finish)
{
    const sim_metrics_config *c = &m->cfg;
    if (c->grid_step <= 0 || finish < c->grid_start)
        return 0;
    uint64_t k = (uint64_t)(finish - c->grid_start) / (uint64_t)c->grid_step;
    return k + 1 < c->max_points ? (size_t)k + 1 : c->max_points;
}

size_t sim_metrics_series_bytes(const sim_metrics *m, sim_time finish)
{
    size_t pts = sim_metrics_series_points(m, finish);
    if (!pts)
        return 0;
    /* the capacity append_point's doubling reaches */
    size_t cap = 64;
    while (cap < pts)
        cap *= 2;
    if (cap > m->cfg.max_points)
        cap = m->cfg.max_points;
    size_t total = 0;
    for (size_t i = 0; i < m->n; i++) {
        const sim_metric *mt = m->v[i];
        if (!sim__has_series(mt))
            continue;
        size_t per = mt->kind == SIM_METRIC_COUNTER ? sizeof *mt->ser_cnt
                                                    : sizeof *mt->ser_lvl;
        /* saturates rather than wraps: the caller compares with a cap */
        if (mt->ncells && cap > (SIZE_MAX - total) / per / mt->ncells)
            return SIZE_MAX;
        total += cap * mt->ncells * per;
    }
    return total;
}
