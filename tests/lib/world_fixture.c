/*
 * world_fixture.c - see world_fixture.h.
 */
#include "world_fixture.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chains_fixture.h"
#include "mtc/error.h"
#include "mtc/sig.h"

static void die(const char *what, const char *msg)
{
    fprintf(stderr, "world fixture: %s: %s\n", what, msg);
    abort();
}

int wfx_init(wfx *f, uint64_t seed, uint64_t rep, double duration,
             double warmup, double grid, uint32_t shard, uint32_t nshards)
{
    return wfx_init_start(f, seed, rep, duration, warmup, grid, shard, nshards,
                          "empty");
}

int wfx_init_start(wfx *f, uint64_t seed, uint64_t rep, double duration,
                   double warmup, double grid, uint32_t shard,
                   uint32_t nshards, const char *start)
{
    return wfx_init_history(f, seed, rep, duration, warmup, grid, shard,
                            nshards, start, 0);
}

int wfx_init_history(wfx *f, uint64_t seed, uint64_t rep, double duration,
                     double warmup, double grid, uint32_t shard,
                     uint32_t nshards, const char *start, int eager_history)
{
    memset(f, 0, sizeof *f);
    void *wc;
    if (sim_param_config_new(&sim_world_config_schema, &wc) != MTC_OK)
        die("world", "config");
    wfx_str("world", wc, "start", start);
    wfx_num("world", wc, "duration", duration);
    wfx_num("world", wc, "warmup", warmup);
    wfx_num("world", wc, "grid_step", grid);
    sim_metrics_config mc;
    sim_world_metrics_config(wc, &mc);
    int rc = sim_engine_create(&f->eng, NULL);
    if (rc == MTC_OK)
        rc = sim_metrics_create(&f->m, &mc, sim_engine_clock(f->eng));
    if (rc == MTC_OK)
        rc = sim_rng_create(&f->rng, seed, rep);
    if (rc == MTC_OK) {
        sim_world_env env = {f->eng, f->m, f->rng, shard, nshards,
                             eager_history, NULL, fixture_chains()};
        rc = sim_world_create(&f->w, &env, wc, f->err, sizeof f->err);
    }
    sim_param_config_free(&sim_world_config_schema, wc);
    return rc;
}

void wfx_free(wfx *f)
{
    sim_world_destroy(f->w);
    sim_metrics_destroy(f->m);
    sim_rng_destroy(f->rng);
    sim_engine_destroy(f->eng);
    memset(f, 0, sizeof *f);
}

static const sim_param_desc *desc(const char *kind, const char *param)
{
    const sim_param_schema *s = sim_world_schema(kind);
    if (!s)
        die(kind, "unknown kind");
    const sim_param_desc *d = sim_param_find(s, param);
    if (!d)
        die(kind, param);
    return d;
}

void *wfx_cfg(const char *kind, const char *name)
{
    void *c;
    if (sim_param_config_new(sim_world_schema(kind), &c) != MTC_OK)
        die(kind, "config");
    wfx_str(kind, c, "name", name);
    return c;
}

void wfx_num(const char *kind, void *cfg, const char *param, double v)
{
    char err[256];
    if (sim_param_set_number(desc(kind, param), cfg, v, err, sizeof err))
        die(kind, err);
}

void wfx_str(const char *kind, void *cfg, const char *param, const char *v)
{
    char err[256];
    if (sim_param_set_string(desc(kind, param), cfg, v, err, sizeof err))
        die(kind, err);
}

void wfx_const(const char *kind, void *cfg, const char *param, double v)
{
    char err[256];
    sim_dist *d;
    if (sim_dist_const(&d, v) ||
        sim_param_set_dist(desc(kind, param), cfg, d, err, sizeof err))
        die(kind, param);
}

void wfx_exp(const char *kind, void *cfg, const char *param, double mean)
{
    char err[256];
    sim_dist *d;
    if (sim_dist_exponential(&d, mean) ||
        sim_param_set_dist(desc(kind, param), cfg, d, err, sizeof err))
        die(kind, param);
}

void wfx_lognormal(const char *kind, void *cfg, const char *param, double median,
                   double sigma)
{
    char err[256];
    sim_dist *d;
    if (sim_dist_lognormal(&d, log(median), sigma) ||
        sim_param_set_dist(desc(kind, param), cfg, d, err, sizeof err))
        die(kind, param);
}

void wfx_item(const char *kind, void *cfg, const char *param, const char *v)
{
    char err[256];
    if (sim_param_list_append(desc(kind, param), cfg, v, err, sizeof err))
        die(kind, err);
}

int wfx_add(wfx *f, const char *kind, void *cfg)
{
    int i = sim_world_add(f->w, kind, cfg, f->err, sizeof f->err);
    if (i < 0)
        die(kind, f->err);
    return i;
}

int wfx_run(wfx *f)
{
    return sim_world_run(f->w, f->err, sizeof f->err);
}

size_t wfx_spki(uint64_t seed, uint8_t *out, size_t cap)
{
    uint8_t s[32] = {0}, pk[MTC_SIG_PK_MAX];
    memcpy(s, &seed, sizeof seed);
    s[31] = 0x5a;
    mtc_sig_key *k;
    size_t pl, len = 0;
    if (mtc_sig_key_from_seed(MTC_SIG_ECDSA_P256, s, &k) != MTC_OK)
        die("spki", "key");
    mtc_sig_key_public(k, pk, &pl);
    mtc_sig_key_free(k);
    if (mtc_sig_spki_der(MTC_SIG_ECDSA_P256, pk, pl, out, cap, &len) != MTC_OK)
        die("spki", "der");
    return len;
}
