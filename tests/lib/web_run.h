/*
 * tests/lib/web_run.h - runs the web side on the test PKI fixture: one
 * engine, metrics registry, rng, fixture and web state, for tests and the
 * web benchmark.
 */
#ifndef WEB_RUN_H
#define WEB_RUN_H

#include "sim/web.h"
#include "web_pki_fixture.h"

typedef struct wrun {
    sim_engine *sim;
    sim_metrics *metrics;
    sim_rng *rng;
    wfx *pki;
    web *wb;
    char err[256];
} wrun;

/* Site group and cohort configs with the schemas' defaults (free with
 * sim_param_config_free). */
web_sites_config *wrun_sites_new(void);
web_browsers_config *wrun_browsers_new(void);

/* Builds everything; warmup: metrics ignore earlier counts. 0 on success
 * (r->err says what failed). */
int wrun_create(wrun *r, const wfx_config *pc, uint64_t seed, uint64_t rep,
                uint32_t shard, uint32_t nshards, sim_time warmup,
                int check_invariants, const web_sites_config *const *sites,
                size_t nsites, const web_browsers_config *const *cohorts,
                size_t ncohorts);
/* The same on an engine with the given queue (enum sim_queue_kind). */
int wrun_create_q(wrun *r, int queue, const wfx_config *pc, uint64_t seed,
                  uint64_t rep, uint32_t shard, uint32_t nshards,
                  sim_time warmup, int check_invariants,
                  const web_sites_config *const *sites, size_t nsites,
                  const web_browsers_config *const *cohorts, size_t ncohorts);
/* The same with the web side's chain cache given (web_env.chains; NULL:
 * every chain built by the world itself). The others lend the process's
 * (lib/chains_fixture.h). */
int wrun_create_chains(wrun *r, mtc_chain_cache *chains, int queue,
                       const wfx_config *pc, uint64_t seed, uint64_t rep,
                       uint32_t shard, uint32_t nshards, sim_time warmup,
                       int check_invariants,
                       const web_sites_config *const *sites, size_t nsites,
                       const web_browsers_config *const *cohorts,
                       size_t ncohorts);
/* Runs to time t (inclusive), then finishes the metrics. */
void wrun_until(wrun *r, sim_time t);
/* Runs to time t (inclusive) and leaves the metrics open, so that a later
 * wrun_step or wrun_until goes on from there (a run in steps records what
 * one wrun_until to the last t would). */
void wrun_step(wrun *r, sim_time t);
void wrun_free(wrun *r);

/* Counter total over all cohorts, or 0 when absent. */
int64_t wrun_counter(const wrun *r, const char *name);
/* Counter value of cohort k, or -1 when the counter is absent. */
int64_t wrun_cell(const wrun *r, const char *name, size_t k);

#endif
