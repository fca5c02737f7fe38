/*
 * rng.c - Philox4x64-10 as a gsl_rng_type, and per-entity streams.
 *
 * The state caches the last block computed (4 draws), keyed by the stream
 * name and block index, so sequential draws cost one block per four. The
 * state points at the current sim_stream; a standalone gsl_rng points at a
 * sim_stream inside its own state.
 */
#include "sim/rng.h"

#include <stdlib.h>
#include <string.h>

#include "sim/status.h"

#define PHILOX_M0 0xD2E7470EE14C6C93ULL
#define PHILOX_M1 0xCA5A826395121157ULL
#define PHILOX_W0 0x9E3779B97F4A7C15ULL
#define PHILOX_W1 0xBB67AE8584CAA73BULL
#define STREAM_TAG 0x6d746373696d0001ULL

__extension__ typedef unsigned __int128 u128;

static inline void mulhilo(uint64_t a, uint64_t b, uint64_t *hi, uint64_t *lo)
{
    u128 p = (u128)a * b;
    *hi = (uint64_t)(p >> 64);
    *lo = (uint64_t)p;
}

void sim_philox4x64_10(const uint64_t ctr[4], const uint64_t key[2],
                       uint64_t out[4])
{
    uint64_t c0 = ctr[0], c1 = ctr[1], c2 = ctr[2], c3 = ctr[3];
    uint64_t k0 = key[0], k1 = key[1];
    for (int r = 0; r < 10; r++) {
        uint64_t hi0, lo0, hi1, lo1;
        mulhilo(PHILOX_M0, c0, &hi0, &lo0);
        mulhilo(PHILOX_M1, c2, &hi1, &lo1);
        uint64_t n0 = hi1 ^ c1 ^ k0;
        uint64_t n1 = lo1;
        uint64_t n2 = hi0 ^ c3 ^ k1;
        uint64_t n3 = lo0;
        c0 = n0;
        c1 = n1;
        c2 = n2;
        c3 = n3;
        k0 += PHILOX_W0;
        k1 += PHILOX_W1;
    }
    out[0] = c0;
    out[1] = c1;
    out[2] = c2;
    out[3] = c3;
}

typedef struct philox_state {
    uint64_t key[2];
    sim_stream *cur;        /* borrowed stream, or NULL for `own` */
    sim_stream own;         /* used by standalone generators */
    /* cache: block `cblock` of stream (ckind, cid) */
    uint64_t cid, cblock;
    uint32_t ckind, cvalid;
    uint64_t buf[4];
} philox_state;

static inline uint64_t next_draw(philox_state *s)
{
    sim_stream *st = s->cur ? s->cur : &s->own;
    uint64_t n = st->n++;
    uint64_t blk = n >> 2;
    if (!s->cvalid || blk != s->cblock || st->id != s->cid ||
        st->kind != s->ckind) {
        uint64_t ctr[4] = {blk, st->id, st->kind, STREAM_TAG};
        sim_philox4x64_10(ctr, s->key, s->buf);
        s->cblock = blk;
        s->cid = st->id;
        s->ckind = st->kind;
        s->cvalid = 1;
    }
    return s->buf[n & 3];
}

static void philox_set(void *vstate, unsigned long seed)
{
    philox_state *s = vstate;
    memset(s, 0, sizeof *s);
    s->key[0] = seed;
    s->key[1] = 0;
    s->cur = NULL; /* NULL means `own`: keeps gsl_rng_clone()'s copy valid */
}

static unsigned long philox_get(void *vstate)
{
    return (unsigned long)(next_draw(vstate) >> 32);
}

static double philox_get_double(void *vstate)
{
    return (double)(next_draw(vstate) >> 11) * 0x1.0p-53;
}

static const gsl_rng_type philox_type = {
    "sim_philox4x64_10", 0xFFFFFFFFUL, 0, sizeof(philox_state),
    philox_set, philox_get, philox_get_double};

const gsl_rng_type *sim_rng_philox = &philox_type;

static void bind_key(philox_state *s, uint64_t seed, uint64_t rep)
{
    s->key[0] = seed;
    s->key[1] = rep;
    s->cvalid = 0;
}

gsl_rng *sim_rng_alloc_stream(uint64_t seed, uint64_t replication,
                              uint32_t kind, uint64_t id)
{
    gsl_rng *r = gsl_rng_alloc(sim_rng_philox);
    if (!r)
        return NULL;
    philox_state *s = r->state;
    bind_key(s, seed, replication);
    sim_stream_init(&s->own, kind, id);
    s->cur = NULL;
    return r;
}

uint64_t sim_rng_draw_at(uint64_t seed, uint64_t replication, uint32_t kind,
                         uint64_t id, uint64_t n)
{
    uint64_t ctr[4] = {n >> 2, id, kind, STREAM_TAG}, key[2] = {seed, replication},
             out[4];
    sim_philox4x64_10(ctr, key, out);
    return out[n & 3];
}

struct sim_rng {
    gsl_rng *g;
    uint64_t seed, rep;
};

int sim_rng_create(sim_rng **out, uint64_t seed, uint64_t replication)
{
    *out = NULL;
    sim_rng *r = calloc(1, sizeof *r);
    if (!r)
        return SIM_ERR_NOMEM;
    r->g = sim_rng_alloc_stream(seed, replication, SIM_STREAM_GLOBAL, 0);
    if (!r->g) {
        free(r);
        return SIM_ERR_NOMEM;
    }
    r->seed = seed;
    r->rep = replication;
    *out = r;
    return SIM_OK;
}

void sim_rng_destroy(sim_rng *r)
{
    if (!r)
        return;
    gsl_rng_free(r->g);
    free(r);
}

gsl_rng *sim_rng_use(sim_rng *r, sim_stream *st)
{
    philox_state *s = r->g->state;
    s->cur = st;     /* the cache is keyed by (kind, id, block): still valid */
    return r->g;
}

uint64_t sim_rng_seed(const sim_rng *r) { return r->seed; }
uint64_t sim_rng_replication(const sim_rng *r) { return r->rep; }
