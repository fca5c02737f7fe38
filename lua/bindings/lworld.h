/*
 * lworld.h - the world of one run, built from what a scenario declared.
 *
 * While the scenario runs, `mtcsim.<kind>{...}` (one constructor per kind
 * of sim_world_kind(), so new model kinds need no binding code) fills
 * config structs through their schemas, `mtcsim.world{...}` sets the
 * run's span, and `sim:at(...)` records timed actions; all of it lives in
 * the Lua state. lworld_build() then creates engine, random streams,
 * metrics and the world, adds the entities in declaration order and
 * starts it; lworld_run() runs it to its duration. Both report errors
 * with the scenario's file:line where the problem was declared.
 */
#ifndef MTCSIM_LWORLD_H
#define MTCSIM_LWORLD_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "lhost.h"
#include "sim/metrics.h"
#include "sim/shard.h"
#include "sim/world.h"
#include "sim/world_prof.h"

typedef struct lworld lworld;

/* One effective parameter of a run: entity kind and name, parameter
 * name, and its value formatted by sim_param_format. */
typedef struct lworld_param {
    const char *kind;                   /* the schema's kind (static) */
    char entity[SIM_PARAM_NAME_MAX];
    const sim_param_desc *desc;
    char *value;        /* malloc'd */
} lworld_param;

/*
 * Builds and starts the world declared in h's state (after the scenario
 * ran). seed/replication key the streams. `shard` (NULL: the whole run in
 * this process) makes the world one shard of a run spread over MPI ranks
 * (sim/shard.h): this process simulates its rank's browsers, and
 * lworld_run() merges all ranks' metrics into rank 0's before the
 * on_finish functions, which run on rank 0 only (point-to-point messages
 * that a signal can interrupt, lworld_shards.c); `shard` must outlive lw.
 * MTC_OK, or SIM_ERR_CONFIG
 * with a message (prefixed by the declaring file:line when known), or
 * SIM_ERR_STATE when the host's interrupt flag (lhost_set_interrupt)
 * ended the start (the steady warm-up): *out then has its parameters
 * and empty metrics, for the caller to record the run as interrupted.
 * *out is owned by the caller (lworld_destroy), also on error (NULL).
 */
int lworld_build(lhost *h, uint64_t seed, uint64_t replication,
                 const sim_shard *shard, lworld **out, char *err,
                 size_t errlen);

/*
 * lworld_build with a CPU profile (sim/prof.h, with the phases and parts
 * of sim/world_prof.h; NULL: none, the same as lworld_build). The build is
 * charged to the setup phase; lworld_run then moves it to warm-up, window
 * and finish (it runs the engine to the warm-up end, then on: the same
 * events in the same order). prof must outlive lw; the caller charges
 * what it does after the run (results writing) itself.
 */
int lworld_build_prof(lhost *h, uint64_t seed, uint64_t replication,
                      const sim_shard *shard, sim_prof *prof, lworld **out,
                      char *err, size_t errlen);

/*
 * Runs to the world's duration. `interrupt` (may be NULL) is polled
 * after every event: nonzero stops the run. Then finishes the world and
 * runs the scenario's on_finish functions. progress (may be NULL) is
 * called every few thousand events.
 * Returns MTC_OK (completed), SIM_ERR_STATE (interrupted) or
 * MTC_ERR_CALLBACK (a scenario callback or the model failed; err says
 * where).
 */
typedef void (*lworld_progress_fn)(void *ctx, sim_time now, uint64_t events);
int lworld_run(lworld *lw, volatile sig_atomic_t *interrupt,
               lworld_progress_fn progress, void *progress_ctx, char *err,
               size_t errlen);

/* The world's configured duration. */
sim_time lworld_duration(const lworld *lw);

sim_metrics *lworld_metrics(lworld *lw);
/* Sharded runs, rank 0: bytes of metrics gathered from the other ranks. */
size_t lworld_merge_bytes(const lworld *lw);
/* 0 on rank 0 of a sharded run that a signal stopped before every rank's
 * shard arrived: its metrics are then rank 0's part of the population
 * only, not the run's, and lworld_run's message names the ranks that
 * sent nothing. 1 otherwise. */
int lworld_shards_whole(const lworld *lw);
sim_world *lworld_world(lworld *lw);
sim_engine *lworld_engine(lworld *lw);
/* Events the run executed, once lworld_run returned: on a sharded run,
 * rank 0 gets the sum over every rank (other ranks their own). */
uint64_t lworld_events(const lworld *lw);

/* Every effective parameter of every entity (world first, then in
 * declaration order); owned by lw. */
const lworld_param *lworld_params(const lworld *lw, size_t *count);

void lworld_destroy(lworld *lw);    /* accepts NULL */

/*
 * One warm-up for several runs (lworld_share.c; `mtcsim run
 * --share-warmup`). Runs of one replication (the same seed and streams)
 * whose keys are equal make the same events up to the warm-up end.
 *
 * lworld_share_key: the key of h's declarations (after the scenario ran,
 * before any build): every parameter of the world and of each entity in
 * declaration order, exactly, and the timed world actions first firing
 * before the warm-up end. What a scenario schedules at or after it and
 * what its Lua code does with results are not in it. *key is NULL (and
 * `why` says why) when the run cannot share: no warm-up before its
 * window, or a Lua function scheduled before the warm-up end. *key is
 * malloc'd, the caller's. MTC_OK or MTC_ERR_NOMEM.
 *
 * lworld_share_warmup: builds h's world as lworld_build does (whole, no
 * profile), holding back the calls at or after the warm-up end, and runs
 * it to just before the warm-up end (interrupt as in lworld_run). Errors
 * as lworld_build; a failure or interruption of the warm-up itself is
 * kept in *out and ends each continuation so.
 *
 * lworld_share_continue: makes the warmed lw the run of state hm, which
 * must be h itself or another state of the same replication with an
 * equal key (checked: SIM_ERR_STATE with the reason when not, nothing
 * changed). Call it once per process, in a process of its own (fork
 * after lworld_share_warmup), then lworld_run: hm's on_finish functions
 * and calls run, its memory account (--max-memory) holds the world's
 * counted memory, and the caller destroys the other state (h) after a
 * success. Then lw is hm's, as if lworld_build had built it from hm.
 */
int lworld_share_key(lhost *h, char **key, char *why, size_t whylen);
int lworld_share_warmup(lhost *h, uint64_t seed, uint64_t replication,
                        volatile sig_atomic_t *interrupt, lworld **out,
                        char *err, size_t errlen);
int lworld_share_continue(lworld *lw, lhost *hm, uint64_t replication,
                          const char *key, char *err, size_t errlen);

/*
 * `--set KIND.ENTITY.PARAM=VALUE` (lworld_override.c): an entity's
 * parameter from the command line, whatever the scenario gives it.
 * Patterns KIND.ENTITY.PARAM, KIND.*.PARAM, *.PARAM and world.PARAM; the
 * most specific match wins. Installed in h's state before the scenario
 * runs (names without a '.' are scenario parameters and skipped; the
 * arrays must outlive the state); MTC_OK, or MTC_ERR_ARG with a message
 * naming the option (an unknown kind or parameter, a malformed or
 * repeated pattern). Each constructor then applies them, checked as the
 * declaration's own values are.
 */
int lworld_set_overrides(lhost *h, const char *const *names,
                         const char *const *values, size_t n, char *err,
                         size_t errlen);
/* How many overrides are installed in h's state. */
size_t lworld_override_count(lhost *h);
/* How many entities override i was applied to in h's state (after the
 * scenario ran); `what` gets the message for one that matched none
 * ("--set browsers.x.rtt: the scenario declares no browsers named 'x'
 * (did you mean ...)"). */
size_t lworld_override_matched(lhost *h, size_t i, char *what, size_t n);

#endif
