/*
 * shard_driver.c - a sharded run of the engine, for tests/sh_mpi_shard.sh.
 *
 * Usage: shard_driver SEED CLIENTS DAYS
 * Every rank replays a shared timeline (an hourly "checkpoint" whose count
 * is a replicated metric) and simulates the clients with id % size == rank:
 * each client visits at exponential intervals drawn from its own stream
 * (seed, 0, kind, id) and records counters, a histogram and a series.
 * Rank 0 merges all shards and prints the SHA-256 of the merged metrics'
 * canonical encoding and a few totals: the output must be identical for
 * any number of ranks, which is what sharding promises.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include <gsl/gsl_randist.h>

#include "mtc/error.h"
#include "sim/world.h"
#include "mtc/hash.h"
#include "sim/engine.h"
#include "sim/metrics.h"
#include "sim/rng.h"
#include "sim/shard.h"

enum { KIND_CLIENT = 16 };

typedef struct client {
    sim_event ev;
    sim_stream st;
    struct world *w;
} client;

typedef struct world {
    sim_engine *sim;
    sim_rng *rng;
    sim_metric *visits, *bytes, *hourly, *ticks;
    sim_event tick;
} world;

static void on_visit(sim_engine *sim, sim_event *ev)
{
    client *c = ev->arg;
    world *w = c->w;
    gsl_rng *r = sim_rng_use(w->rng, &c->st);
    size_t cohort = (size_t)(c->st.id % 3);
    double size = 500 + gsl_ran_lognormal(r, 7.0, 0.8);
    sim_counter_add(w->visits, cohort, 1);
    sim_hist_observe(w->bytes, cohort, size);
    sim_counter_add(w->hourly, 0, (int64_t)size);
    sim_time gap = sim_time_from_sec(gsl_ran_exponential(r, 3600.0));
    sim_schedule(sim, ev, sim_now(sim) + gap + 1);
}

static void on_tick(sim_engine *sim, sim_event *ev)
{
    world *w = ev->arg;
    sim_counter_add(w->ticks, 0, 1);
    sim_schedule(sim, ev, sim_now(sim) + SIM_HOUR);
}

int main(int argc, char **argv)
{
    sim_shard sh;
    if (sim_shard_init(&sh, &argc, &argv) != MTC_OK) {
        fprintf(stderr, "shard_driver: cannot join the MPI job\n");
        return 1;
    }
    if (argc != 4) {
        fprintf(stderr, "usage: shard_driver SEED CLIENTS DAYS\n");
        sim_shard_finalize(&sh);
        return 2;
    }
    uint64_t seed = strtoull(argv[1], NULL, 10);
    uint64_t nclients = strtoull(argv[2], NULL, 10);
    sim_time end = (sim_time)strtoll(argv[3], NULL, 10) * SIM_DAY;
    world w = {0};
    sim_metrics *m = NULL;
    sim_metrics_config mc = {.warmup_end = SIM_HOUR, .grid_start = 0,
                             .grid_step = 6 * SIM_HOUR, .max_points = 0};
    int rc = sim_engine_create(&w.sim, NULL);
    if (rc == MTC_OK) rc = sim_rng_create(&w.rng, seed, 0);
    if (rc == MTC_OK) rc = sim_metrics_create(&m, &mc, sim_engine_clock(w.sim));
    if (rc == MTC_OK) rc = sim_metrics_counter(m, "visits", "visits", 3, SIM_METRIC_SERIES, &w.visits);
    if (rc == MTC_OK) rc = sim_metrics_histogram(m, "bytes", "bytes", 3, 0, 100, 1e7, 20, &w.bytes);
    if (rc == MTC_OK) rc = sim_metrics_counter(m, "bytes_total", "bytes", 1, SIM_METRIC_SERIES, &w.hourly);
    if (rc == MTC_OK) rc = sim_metrics_counter(m, "checkpoints", "ticks", 1, SIM_METRIC_REPLICATED | SIM_METRIC_SERIES, &w.ticks);
    uint64_t mine = 0;
    for (uint64_t id = (uint64_t)sh.rank; id < nclients; id += (uint64_t)sh.size)
        mine++;
    client *cl = calloc(mine ? mine : 1, sizeof *cl);
    if (!cl) rc = MTC_ERR_NOMEM;
    uint64_t k = 0;
    for (uint64_t id = (uint64_t)sh.rank; rc == MTC_OK && id < nclients;
         id += (uint64_t)sh.size, k++) {
        client *c = &cl[k];
        c->w = &w;
        sim_stream_init(&c->st, KIND_CLIENT, id);
        sim_event_init(&c->ev, on_visit, c);
        gsl_rng *r = sim_rng_use(w.rng, &c->st);
        rc = sim_schedule(w.sim, &c->ev, sim_time_from_sec(gsl_rng_uniform(r) * 3600));
    }
    if (rc == MTC_OK) {
        sim_event_init(&w.tick, on_tick, &w);
        rc = sim_schedule(w.sim, &w.tick, 0);
    }
    if (rc == MTC_OK) {
        sim_engine_set_stop_time(w.sim, end);
        rc = sim_engine_run(w.sim) >= 0 ? MTC_OK : MTC_ERR_NOMEM;
    }
    if (rc == MTC_OK)
        sim_metrics_finish(m, end);
    if (!sim_shard_all_ok(&sh, rc == MTC_OK)) {
        fprintf(stderr, "shard_driver: rank %d failed: %s\n", sh.rank, sim_strerror(rc));
        rc = rc ? rc : MTC_ERR_IO;
    } else {
        rc = sim_shard_merge_metrics(&sh, m, NULL);
    }
    if (rc == MTC_OK && sh.rank == 0) {
        uint8_t *buf = NULL;
        size_t len = 0;
        rc = sim_metrics_encode(m, &buf, &len);
        if (rc == MTC_OK) {
            mtc_hash h;
            char hex[65];
            mtc_sha256(buf, len, &h);
            mtc_hash_to_hex(&h, hex);
            printf("metrics %s\n", hex);
            printf("visits %" PRId64 "\n", sim_counter_value(w.visits, SIM_ALL_COHORTS));
            printf("checkpoints %" PRId64 "\n", sim_counter_value(w.ticks, 0));
            printf("bytes_p50 %.6f\n", sim_hist_quantile(w.bytes, SIM_ALL_COHORTS, 0.5));
        }
        free(buf);
    }
    if (rc != MTC_OK)
        fprintf(stderr, "shard_driver: %s\n", sim_strerror(rc));
    free(cl);
    sim_metrics_destroy(m);
    sim_rng_destroy(w.rng);
    sim_engine_destroy(w.sim);
    sim_shard_finalize(&sh);
    return rc == MTC_OK ? 0 : 1;
}
