/*
 * metrics_codec.c - sim_metrics_encode/decode: a registry as canonical
 * little-endian bytes and back (MPI ranks send them to rank 0), through
 * the bounded buffer and reader of sim/bytes.h. The decoder treats its
 * input as untrusted (fuzzed by tests/fuzz_metrics.c).
 */
#include "sim/metrics.h"

#include <stdlib.h>
#include <string.h>

#include "sim/bytes.h"
#include "sim/status.h"

#include "metrics_internal.h"

#define ENC_MAGIC 0x4d4d4953u /* "SIMM" little-endian */
#define ENC_VERSION 1u

/* A fixed-point value: its low, then its high 64 bits. */
static void put_fx(sim_bytebuf *w, sim__fx_t x)
{
    __extension__ unsigned __int128 u = (unsigned __int128)x;
    sim_bytebuf_put_u64(w, (uint64_t)u);
    sim_bytebuf_put_u64(w, (uint64_t)(u >> 64));
}

/* A name, unit or label: its length in one byte (they are bounded far
 * below 256), then its bytes. */
static void put_str(sim_bytebuf *w, const char *s)
{
    size_t n = strlen(s);
    sim_bytebuf_put_u8(w, (uint8_t)n);
    sim_bytebuf_put(w, s, n);
}

int sim_metrics_encode(const sim_metrics *m, uint8_t **buf, size_t *len)
{
    sim_bytebuf w = {NULL, 0, 0, 0};
    *buf = NULL;
    *len = 0;
    sim_bytebuf_put_u32(&w, ENC_MAGIC);
    sim_bytebuf_put_u32(&w, ENC_VERSION);
    sim_bytebuf_put_u64(&w, (uint64_t)m->cfg.warmup_end);
    sim_bytebuf_put_u64(&w, (uint64_t)m->cfg.grid_start);
    sim_bytebuf_put_u64(&w, (uint64_t)m->cfg.grid_step);
    sim_bytebuf_put_u64(&w, (uint64_t)m->cfg.max_points);
    sim_bytebuf_put_u8(&w, (uint8_t)(m->finished != 0));
    sim_bytebuf_put_u64(&w, (uint64_t)m->n);
    for (size_t i = 0; i < m->n; i++) {
        const sim_metric *mt = m->v[i];
        size_t c = mt->ncells;
        sim_bytebuf_put_u8(&w, (uint8_t)mt->kind);
        sim_bytebuf_put_u32(&w, mt->flags);
        sim_bytebuf_put_u32(&w, (uint32_t)c);
        put_str(&w, mt->name);
        put_str(&w, mt->unit);
        for (size_t k = 0; k < c; k++)
            put_str(&w, mt->labels[k]);
        if (mt->kind == SIM_METRIC_HISTOGRAM) {
            sim_bytebuf_put_f64(&w, mt->lo);
            sim_bytebuf_put_f64(&w, mt->hi);
            sim_bytebuf_put_u32(&w, mt->per_decade);
        }
        sim_bytebuf_put_u64(&w, (uint64_t)mt->npts);
        sim_bytebuf_put_u8(&w, (uint8_t)(mt->truncated != 0));
        switch (mt->kind) {
        case SIM_METRIC_COUNTER:
            for (size_t k = 0; k < c; k++)
                sim_bytebuf_put_u64(&w, (uint64_t)mt->cnt[k]);
            for (size_t k = 0; k < mt->npts * c; k++)
                sim_bytebuf_put_u64(&w, (uint64_t)mt->ser_cnt[k]);
            break;
        case SIM_METRIC_GAUGE:
            for (size_t k = 0; k < c; k++)
                put_fx(&w, mt->lvl[k]);
            for (size_t k = 0; k < mt->npts * c; k++)
                put_fx(&w, mt->ser_lvl[k]);
            break;
        default:
            for (size_t k = 0; k < c * (mt->nbins + 2); k++)
                sim_bytebuf_put_u64(&w, mt->bins[k]);
            for (size_t k = 0; k < c; k++) {
                sim_bytebuf_put_u64(&w, mt->hcount[k]);
                put_fx(&w, mt->hsum[k]);
                sim_bytebuf_put_f64(&w, mt->hmin[k]);
                sim_bytebuf_put_f64(&w, mt->hmax[k]);
            }
        }
    }
    if (w.failed) {
        free(w.b);
        return SIM_ERR_NOMEM;
    }
    *buf = w.b;
    *len = w.n;
    return SIM_OK;
}

static sim__fx_t get_fx(sim_bytereader *r)
{
    uint64_t lo = sim_bytereader_u64(r), hi = sim_bytereader_u64(r);
    __extension__ unsigned __int128 u = ((unsigned __int128)hi << 64) | lo;
    return (sim__fx_t)u;
}

/* A string of at most maxlen bytes into out[maxlen + 1]. */
static void get_str(sim_bytereader *r, char *out, size_t maxlen)
{
    size_t n = sim_bytereader_u8(r);
    const uint8_t *b = sim_bytereader_take(r, n);
    if (!b || n > maxlen) {
        r->bad = 1;
        out[0] = 0;
        return;
    }
    memcpy(out, b, n);
    out[n] = 0;
    if (strlen(out) != n)
        r->bad = 1; /* embedded NUL */
}

/* Enough bytes left for `count` items of `size` bytes? (Checked before
 * allocating what a hostile count asks for.) */
static int room(const sim_bytereader *r, uint64_t count, size_t size)
{
    return !r->bad && count <= sim_bytereader_left(r) / size;
}

static int decode_metric(sim_metrics *m, sim_bytereader *r)
{
    char name[SIM__NAME_MAX_LEN + 1], unit[SIM__UNIT_MAX_LEN + 1];
    int kind = sim_bytereader_u8(r);
    uint32_t flags = sim_bytereader_u32(r), ncells = sim_bytereader_u32(r);
    get_str(r, name, SIM__NAME_MAX_LEN);
    get_str(r, unit, SIM__UNIT_MAX_LEN);
    if (r->bad || ncells == 0 || ncells > 65536 || !room(r, ncells, 1))
        return SIM_ERR_PARSE;
    char(*labels)[SIM__LABEL_MAX_LEN + 1] = malloc(ncells * sizeof *labels);
    if (!labels)
        return SIM_ERR_NOMEM;
    for (uint32_t k = 0; k < ncells; k++)
        get_str(r, labels[k], SIM__LABEL_MAX_LEN);
    double lo = 0, hi = 0;
    unsigned per = 0;
    if (kind == SIM_METRIC_HISTOGRAM) {
        lo = sim_bytereader_f64(r);
        hi = sim_bytereader_f64(r);
        per = sim_bytereader_u32(r);
    }
    if (r->bad || sim_metrics_find(m, name) ||
        (kind != SIM_METRIC_COUNTER && kind != SIM_METRIC_GAUGE &&
         kind != SIM_METRIC_HISTOGRAM)) {
        free(labels);
        return SIM_ERR_PARSE;
    }
    sim_metric *mt;
    int rc = sim__metrics_define(m, name, unit, kind, ncells, flags, lo, hi, per, &mt);
    if (rc) {
        free(labels);
        return rc == SIM_ERR_NOMEM ? rc : SIM_ERR_PARSE;
    }
    memcpy(mt->labels, labels, ncells * sizeof *labels);
    free(labels);
    uint64_t npts = sim_bytereader_u64(r);
    uint8_t trunc = sim_bytereader_u8(r);
    size_t c = ncells;
    if (r->bad || trunc > 1 || npts > m->cfg.max_points ||
        (npts && !sim__has_series(mt)))
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
            mt->cnt[k] = (int64_t)sim_bytereader_u64(r);
        for (size_t k = 0; k < npts * c; k++)
            mt->ser_cnt[k] = (int64_t)sim_bytereader_u64(r);
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
            mt->bins[k] = sim_bytereader_u64(r);
        for (size_t k = 0; k < c; k++) {
            mt->hcount[k] = sim_bytereader_u64(r);
            mt->hsum[k] = get_fx(r);
            mt->hmin[k] = sim_bytereader_f64(r);
            mt->hmax[k] = sim_bytereader_f64(r);
        }
    }
    return r->bad ? SIM_ERR_PARSE : SIM_OK;
}

int sim_metrics_decode(sim_metrics **out, const uint8_t *buf, size_t len)
{
    *out = NULL;
    if (!buf && len)
        return SIM_ERR_ARG;
    sim_bytereader r = {buf, len, 0, 0};
    if (sim_bytereader_u32(&r) != ENC_MAGIC || sim_bytereader_u32(&r) != ENC_VERSION || r.bad)
        return SIM_ERR_PARSE;
    sim_metrics_config cfg;
    cfg.warmup_end = (sim_time)sim_bytereader_u64(&r);
    cfg.grid_start = (sim_time)sim_bytereader_u64(&r);
    cfg.grid_step = (sim_time)sim_bytereader_u64(&r);
    cfg.max_points = (size_t)sim_bytereader_u64(&r);
    uint8_t finished = sim_bytereader_u8(&r);
    uint64_t nmetrics = sim_bytereader_u64(&r);
    /* max_points must be what create() would store; each metric takes at
     * least 14 bytes */
    if (r.bad || cfg.grid_step < 0 || cfg.max_points == 0 || finished > 1 ||
        !room(&r, nmetrics, 14))
        return SIM_ERR_PARSE;
    sim_metrics *m;
    int rc = sim_metrics_create(&m, &cfg, NULL);
    if (rc)
        return rc;
    for (uint64_t i = 0; i < nmetrics && rc == SIM_OK; i++)
        rc = decode_metric(m, &r);
    if (rc == SIM_OK && (r.bad || sim_bytereader_left(&r) != 0))
        rc = SIM_ERR_PARSE;
    if (rc) {
        sim_metrics_destroy(m);
        return rc;
    }
    m->finished = finished;
    *out = m;
    return SIM_OK;
}
