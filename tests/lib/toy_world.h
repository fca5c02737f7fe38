/*
 * tests/lib/toy_world.h - a synthetic experiment for the results database
 * and report tests: a toy model on the real engine, random streams and
 * metrics (NOT the world model), recording metrics under the names of
 * docs/metrics.md, driven through sim/results.h exactly as `mtcsim run`
 * drives a real run (run_begin, params, engine, store, run_end).
 *
 * The model: two browser cohorts handshake as Poisson processes; a client
 * holds the current landmark with probability 1 - exp(-t / (L + lag)),
 * L = landmark interval (the swept parameter); a signatureless handshake
 * costs ~ N(700, 40) bytes, otherwise ~ N(3900, 150); baselines are drawn
 * around 4200 (classical) and 17000 (ML-DSA-44) bytes. Two CAs issue as
 * Poisson processes (standalone delay ~ Exp(60 s), landmark-relative
 * delay ~ U(0, L) + Exp(60 s)); each hour every signer signs one
 * checkpoint. All draws come from per-entity sim_streams.
 */
#ifndef MTC_TESTS_TOY_WORLD_H
#define MTC_TESTS_TOY_WORLD_H

#include <signal.h>
#include <stdint.h>

#include "sim/engine.h"
#include "sim/metrics.h"
#include "sim/results.h"

typedef struct toy_config {
    sim_time duration;          /* planned span; SIM_TIME_MAX: until stopped */
    sim_time grid_step;         /* series spacing */
    double landmark_hours;      /* L, the swept parameter */
    double handshake_rate;      /* per cohort, per second */
    uint64_t seed;
    int64_t sweep_point, replication;
    /* When set, stops the run (as the host's signal handler would). */
    const volatile sig_atomic_t *stop;
    /* > 0: run in chunks of this much simulated time and store metrics
     * after each (the periodic flush); after the first one, `flushed_fd`
     * (if >= 0) gets one byte. */
    sim_time flush_every;
    int flushed_fd;
} toy_config;

/* Defaults: 2 days, 1 h grid, L = 1 h, 0.05 handshakes/s, seed 1. */
void toy_defaults(toy_config *c);

/* Runs the toy model into a fresh registry; *out owned by the caller.
 * Used for round-trip tests that compare the registry with the DB. */
int toy_simulate(const toy_config *c, sim_metrics **out, sim_time *reached,
                 uint64_t *events);

/* A complete run recorded in db under experiment exp: returns the status
 * the run was ended with (SIM_RUN_COMPLETED or SIM_RUN_INTERRUPTED) or a
 * negative error; *run_id is set once the run row exists. */
int toy_record_run(sim_results *db, int64_t exp, const toy_config *c,
                   int64_t *run_id);

/* An experiment of npoints sweep points (L = 1, 4, 16, ... hours) times
 * reps replications, each summarized. */
int toy_record_sweep(sim_results *db, int npoints, int reps, int64_t *exp);

#endif
