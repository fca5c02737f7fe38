/*
 * tests/lib/world_fixture.h - builds a world for PKI tests through the same
 * schema-driven path the Lua binding uses: configs from the kind's schema,
 * parameters set by name (a misspelt name fails the test loudly).
 */
#ifndef MTC_TESTS_WORLD_FIXTURE_H
#define MTC_TESTS_WORLD_FIXTURE_H

#include <stdint.h>

#include "sim/world.h"

typedef struct wfx {
    sim_engine *eng;
    sim_metrics *m;
    sim_rng *rng;
    sim_world *w;
    char err[512];
} wfx;

/* World with the given seed, replication, duration, warm-up and grid (s);
 * shard/nshards for MPI-style tests. MTC_OK or an error (err filled).
 * A cold start (start = "empty"): these tests exercise mechanisms from
 * their first event. */
int wfx_init(wfx *f, uint64_t seed, uint64_t rep, double duration,
             double warmup, double grid, uint32_t shard, uint32_t nshards);
/* The same with the world's `start` ("steady" or "empty"). */
int wfx_init_start(wfx *f, uint64_t seed, uint64_t rep, double duration,
                   double warmup, double grid, uint32_t shard,
                   uint32_t nshards, const char *start);
/* The same with the env's eager_history (sim/world.h): 1 pays the
 * warm-up's history event by event, 0 (the others' default) defers what
 * the window cannot observe. */
int wfx_init_history(wfx *f, uint64_t seed, uint64_t rep, double duration,
                     double warmup, double grid, uint32_t shard,
                     uint32_t nshards, const char *start, int eager_history);
void wfx_free(wfx *f);

/* A config of `kind` named `name` with defaults; aborts on failure. */
void *wfx_cfg(const char *kind, const char *name);
/* Setters by parameter name; abort with a message on any error. */
void wfx_num(const char *kind, void *cfg, const char *param, double v);
void wfx_str(const char *kind, void *cfg, const char *param, const char *v);
void wfx_const(const char *kind, void *cfg, const char *param, double v);
void wfx_exp(const char *kind, void *cfg, const char *param, double mean);
/* A lognormal distribution by its median and sigma. */
void wfx_lognormal(const char *kind, void *cfg, const char *param, double median,
                   double sigma);
void wfx_item(const char *kind, void *cfg, const char *param, const char *v);
/* Adds (aborts on error); returns the index. */
int wfx_add(wfx *f, const char *kind, void *cfg);

/* Runs to the world's duration (start + run + finish). */
int wfx_run(wfx *f);

/* A real ECDSA P-256 SPKI from a seed (for site requests). */
size_t wfx_spki(uint64_t seed, uint8_t *out, size_t cap);

#endif
