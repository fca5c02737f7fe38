/*
 * metrics_internal.h - what the metrics_*.c files share (internal).
 *
 * Layout: every metric keeps its per-cohort cells in flat arrays; series
 * are point-major (series[k * ncells + cohort]) and grow by doubling.
 * Fixed point: value * 2^32 rounded to a signed 128-bit integer, so sums
 * of up to ~2^63 observations of magnitude up to ~2^31 cannot overflow,
 * and addition is exact, hence order-independent.
 *
 * The arithmetic helpers are static inline because the recording paths
 * (sim_counter_add, sim_gauge_*, sim_hist_observe*) use them on every
 * update, as they did when all of this was one file.
 */
#ifndef SIM_METRICS_INTERNAL_H
#define SIM_METRICS_INTERNAL_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "sim/metrics.h"

/* A fixed-point value: value * 2^32 in a signed 128-bit integer. */
__extension__ typedef __int128 sim__fx_t;
__extension__ typedef unsigned __int128 sim__ufx_t;

#define SIM__FX_ONE 4294967296.0 /* 2^32 */
#define SIM__HCACHE 64
/* the most entries of a histogram's bin table (16 KiB) */
#define SIM__BIN_TAB_MAX 4096
#define SIM__NAME_MAX_LEN 127
#define SIM__UNIT_MAX_LEN 31
#define SIM__LABEL_MAX_LEN 63

/* One metric: its definition, and per-cohort cells of its kind. */
struct sim_metric {
    sim_metrics *reg;
    char name[SIM__NAME_MAX_LEN + 1];
    char unit[SIM__UNIT_MAX_LEN + 1];
    int kind;
    unsigned flags;
    size_t ncells;
    char (*labels)[SIM__LABEL_MAX_LEN + 1];  /* ncells labels, "0", "1", ... */
    /* counter / gauge */
    int64_t *cnt;
    sim__fx_t *lvl;
    /* series */
    size_t npts, cap_pts;
    int truncated;
    /* catch_up's memo: grid_time(npts) = ng_t, valid iff ng_for == npts + 1
     * (zeroed metrics never match), so that an update between two grid
     * points costs one comparison */
    size_t ng_for;
    sim_time ng_t;
    int64_t *ser_cnt;
    sim__fx_t *ser_lvl;
    /* histogram */
    double lo, hi;
    unsigned per_decade;
    size_t nbins;
    double *edges;      /* nbins + 1 */
    /* bin_index's first guess is bin_scale * log2(x) - bin_offset, with
     * bin_scale = per_decade * log10(2) and bin_offset = bin_scale *
     * log2(lo): no division per observation (set with the edges) */
    double bin_scale, bin_offset;
    /* bin_index's table (sim__hist_table_build; NULL: none, the guess is
     * settled against the edges): one entry per cell of the doubles'
     * bits above bin_tab_shift, from lo's cell; owned */
    uint32_t *bin_tab;
    unsigned bin_tab_shift;
    uint64_t bin_tab_key0;
    uint64_t *bins;     /* ncells * (nbins + 2) */
    uint64_t *hcount;
    sim__fx_t *hsum;
    double *hmin, *hmax;
    /* sim_hist_observe_u32's bin cache: direct-mapped on x (bins of a
     * metric never change; copying a metric copies a still-valid cache) */
    uint32_t hc_x[SIM__HCACHE];
    uint32_t hc_bin[SIM__HCACHE];   /* bin index + 1; 0 = empty */
};

/* The registry: its configuration, clock and metrics in definition order. */
struct sim_metrics {
    sim_metrics_config cfg;
    const sim_time *clock;
    sim_metric **v;
    size_t n, cap;
    int finished;
    /* deferred-observation sources (sim_metrics_add_flush), borrowed */
    struct sim__flush { sim_metrics_flush_fn fn; void *ctx; } *flush;
    size_t nflush, cap_flush;
};

/* v in fixed point, rounded to nearest: NaN gives 0, out of range saturates. */
static inline sim__fx_t sim__to_fx(double v)
{
    double x = v * SIM__FX_ONE;
    /* The common case without library calls, the same value: below 2^51
     * in magnitude, adding and taking away 1.5 x 2^52 rounds x to the
     * nearest integer, ties to even, as nearbyint does in the default
     * rounding mode (nothing in this program changes it), and the 64-bit
     * conversion of an integral value is exact. */
    if (x > -0x1p51 && x < 0x1p51) {
        double r = (x + 0x1.8p52) - 0x1.8p52;
        return (sim__fx_t)(int64_t)r;
    }
    double s = nearbyint(x);
    if (!(s == s))
        return 0;
    if (s >= 8.5e37)
        s = 8.5e37;
    if (s <= -8.5e37)
        s = -8.5e37;
    return (sim__fx_t)s;
}

/* A cell of a recorded figure (SIM_METRIC_RECORD) that the scenario has
 * not set: -2^127, which sim__to_fx never returns (it saturates at about
 * +-2^126), so that an unset cell reads as absent (NaN), never as 0. */
#define SIM__FX_UNSET ((sim__fx_t)((sim__ufx_t)1 << 127))

/* A fixed-point value as a double. */
static inline double sim__from_fx(sim__fx_t x) { return (double)x / SIM__FX_ONE; }

/* Sums wrap modulo 2^64 / 2^128 instead of overflowing (undefined in C):
 * still exact and order-independent, and only reachable with absurd
 * values (or a hostile encoding). */
static inline int64_t sim__add_i64(int64_t a, int64_t b)
{
    return (int64_t)((uint64_t)a + (uint64_t)b);
}

/* a + b in the same wrapping arithmetic, for fixed-point values. */
static inline sim__fx_t sim__add_fx(sim__fx_t a, sim__fx_t b)
{
    __extension__ typedef unsigned __int128 ufx;
    return (sim__fx_t)((ufx)a + (ufx)b);
}

/* The registry's clock; 0 when it has none (a decoded registry). */
static inline sim_time sim__now_of(const sim_metrics *m)
{
    return m->clock ? *m->clock : 0;
}

/* Whether counters and histograms count an observation now: not finished
 * and past the warm-up (sim_metrics_recording, and every observation). */
static inline int sim__counting(const sim_metrics *m)
{
    return !m->finished && sim__now_of(m) >= m->cfg.warmup_end;
}

/* Nonzero when mt records a series: SIM_METRIC_SERIES and a grid step. */
static inline int sim__has_series(const sim_metric *mt)
{
    return (mt->flags & SIM_METRIC_SERIES) && mt->reg->cfg.grid_step > 0;
}

/* metrics_registry.c, for merge and decode: */
/* Frees a metric and its arrays; accepts NULL. */
void sim__metric_free(sim_metric *mt);
/* Same definition: what merge and get-or-create require. */
int sim__metric_same_def(const sim_metric *a, const sim_metric *b);
/* Allocates mt's labels "0", "1", ... and empty cells of its kind. */
int sim__metric_alloc_cells(sim_metric *mt);

/* metrics_hist.c, for alloc_cells: */
/* (Re)builds histogram h's bin table from its edges, or leaves none when
 * the range needs more than SIM__BIN_TAB_MAX cells; the bins observed are
 * the same either way. SIM_ERR_NOMEM when out of memory. */
int sim__hist_table_build(sim_metric *h);
/* Appends mt to m, which then owns it; SIM_OK or SIM_ERR_NOMEM. */
int sim__metrics_add(sim_metrics *m, sim_metric *mt);
/* Get-or-create: the metric of this name and same definition, else new. */
int sim__metrics_define(sim_metrics *m, const char *name, const char *unit,
                        int kind, size_t ncells, unsigned flags, double lo,
                        double hi, unsigned per_decade, sim_metric **out);

#endif /* SIM_METRICS_INTERNAL_H */
