/*
 * metrics_codec.c - sim_metrics_encode/decode: a registry as canonical
 * little-endian bytes and back (MPI ranks send them to rank 0). The decoder
 * treats its input as untrusted (fuzzed by tests/fuzz_metrics.c).
 */
#include "sim/metrics.h"

#include <stdlib.h>
#include <string.h>

#include "sim/status.h"

#include "metrics_internal.h"

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

static void put_fx(wbuf *w, sim__fx_t x)
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

static sim__fx_t get_fx(rbuf *r)
{
    uint64_t lo = get_u64(r), hi = get_u64(r);
    __extension__ unsigned __int128 u = ((unsigned __int128)hi << 64) | lo;
    return (sim__fx_t)u;
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
    char name[SIM__NAME_MAX_LEN + 1], unit[SIM__UNIT_MAX_LEN + 1];
    int kind = get_u8(r);
    uint32_t flags = get_u32(r), ncells = get_u32(r);
    get_str(r, name, SIM__NAME_MAX_LEN);
    get_str(r, unit, SIM__UNIT_MAX_LEN);
    if (r->err || ncells == 0 || ncells > 65536 || !room(r, ncells, 1))
        return SIM_ERR_PARSE;
    char(*labels)[SIM__LABEL_MAX_LEN + 1] = malloc(ncells * sizeof *labels);
    if (!labels)
        return SIM_ERR_NOMEM;
    for (uint32_t k = 0; k < ncells; k++)
        get_str(r, labels[k], SIM__LABEL_MAX_LEN);
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
    int rc = sim__metrics_define(m, name, unit, kind, ncells, flags, lo, hi, per, &mt);
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
