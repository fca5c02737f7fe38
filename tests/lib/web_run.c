/*
 * web_run.c - see web_run.h.
 */
#include "web_run.h"

#include <stdio.h>
#include <string.h>

#include "chains_fixture.h"
#include "mtc/error.h"

web_sites_config *wrun_sites_new(void)
{
    void *c = NULL;
    sim_param_config_new(&sim_sites_schema, &c);
    return c;
}

web_browsers_config *wrun_browsers_new(void)
{
    void *c = NULL;
    sim_param_config_new(&sim_browsers_schema, &c);
    return c;
}

int wrun_create(wrun *r, const wfx_config *pc, uint64_t seed, uint64_t rep,
                uint32_t shard, uint32_t nshards, sim_time warmup,
                int check_invariants, const web_sites_config *const *sites,
                size_t nsites, const web_browsers_config *const *cohorts,
                size_t ncohorts)
{
    return wrun_create_q(r, SIM_QUEUE_DEFAULT, pc, seed, rep, shard, nshards,
                         warmup, check_invariants, sites, nsites, cohorts,
                         ncohorts);
}

int wrun_create_q(wrun *r, int queue, const wfx_config *pc, uint64_t seed,
                  uint64_t rep, uint32_t shard, uint32_t nshards,
                  sim_time warmup, int check_invariants,
                  const web_sites_config *const *sites, size_t nsites,
                  const web_browsers_config *const *cohorts, size_t ncohorts)
{
    return wrun_create_chains(r, fixture_chains(), queue, pc, seed, rep, shard,
                              nshards, warmup, check_invariants, sites, nsites,
                              cohorts, ncohorts);
}

int wrun_create_chains(wrun *r, mtc_chain_cache *chains, int queue,
                       const wfx_config *pc, uint64_t seed, uint64_t rep,
                       uint32_t shard, uint32_t nshards, sim_time warmup,
                       int check_invariants,
                       const web_sites_config *const *sites, size_t nsites,
                       const web_browsers_config *const *cohorts,
                       size_t ncohorts)
{
    memset(r, 0, sizeof *r);
    sim_metrics_config mc = {warmup, 0, SIM_HOUR, 0};
    sim_engine_config ec = {queue, 0};
    if (sim_engine_create(&r->sim, &ec) ||
        sim_metrics_create(&r->metrics, &mc, sim_engine_clock(r->sim)) ||
        sim_rng_create(&r->rng, seed, rep) || wfx_create(&r->pki, pc, r->sim)) {
        snprintf(r->err, sizeof r->err, "environment");
        return -1;
    }
    web_env env;
    memset(&env, 0, sizeof env);
    env.engine = r->sim;
    env.metrics = r->metrics;
    env.rng = r->rng;
    env.shard = shard;
    env.nshards = nshards;
    env.pki = wfx_pki(r->pki);
    web_tls_config_defaults(&env.tls);
    env.tls.epoch = pc->epoch;
    env.check_invariants = check_invariants;
    env.chains = chains;
    int rc = web_create(&r->wb, &env, sites, nsites, cohorts, ncohorts, r->err,
                        sizeof r->err);
    if (rc == MTC_OK)
        rc = web_start(r->wb, r->err, sizeof r->err);
    return rc;
}

void wrun_step(wrun *r, sim_time t)
{
    sim_engine_set_stop_time(r->sim, t);
    sim_engine_run(r->sim);
}

void wrun_until(wrun *r, sim_time t)
{
    wrun_step(r, t);
    sim_metrics_finish(r->metrics, t);
}

void wrun_free(wrun *r)
{
    web_destroy(r->wb);
    wfx_destroy(r->pki);
    sim_metrics_destroy(r->metrics);
    sim_rng_destroy(r->rng);
    sim_engine_destroy(r->sim);
    memset(r, 0, sizeof *r);
}

int64_t wrun_counter(const wrun *r, const char *name)
{
    sim_metric *m = sim_metrics_find(r->metrics, name);
    return m ? sim_counter_value(m, SIM_ALL_COHORTS) : 0;
}

int64_t wrun_cell(const wrun *r, const char *name, size_t k)
{
    sim_metric *m = sim_metrics_find(r->metrics, name);
    return m ? sim_counter_value(m, k) : -1;
}
