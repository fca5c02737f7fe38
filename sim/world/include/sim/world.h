/*
 * sim/world.h - the world's frame: entities by kind, lifecycle, what-if
 * actions and live parameter changes, dispatched to the module that owns
 * each kind. The frame knows no model: the modules (sim/pki/, sim/web/)
 * plug into it (sim/world_module.h) and publish their own contracts
 * (sim/pki.h, sim/web.h); the Lua binding (lua/) drives everything through
 * the kind registry and the action table below without knowing any model.
 *
 * Entities. Every configurable thing is an entity of a *kind* ("ca",
 * "cosigner", "update_service", "sites", "browsers"); its configuration is
 * a plain struct described by a sim_param_schema (sim/params.h). Every
 * schema has a STRING parameter "name"; names are unique across the whole
 * world (an action names its target by name alone). Entities refer to each
 * other by name (a CA's `cosigners` list), resolved at sim_world_start().
 * Within a kind, entities are numbered 0, 1, ... in the order added; that
 * number is the "index" used by the modules' query functions (ca index,
 * update service index, ...).
 *
 * Time. Simulated time is sim_time (microseconds since the scenario epoch;
 * sim/engine.h). The world config's `epoch` gives the Unix time of sim time
 * 0, used for certificate validity dates.
 *
 * Sharding (MPI). With nshards > 1 every rank builds the same world; each
 * module says what it simulates on every rank and what it splits between
 * ranks (sim/pki.h: the PKI is replayed on every rank; sim/web.h: browsers
 * are split by id).
 *
 * Random streams (sim/rng.h): stream kinds 16..63 belong to the PKI side,
 * 64..127 to the web side (each side documents its own assignments).
 *
 * Statuses: the simulator's space (sim/status.h), named by sim_strerror().
 *
 * Ownership: the environment's engine, metrics registry and rng are
 * borrowed and must outlive the world. Everything the query functions
 * return is owned by the world and valid until sim_world_destroy() unless
 * stated otherwise. Not thread-safe; one world per engine.
 */
#ifndef SIM_WORLD_H
#define SIM_WORLD_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "sim/engine.h"
#include "sim/metrics.h"
#include "sim/params.h"
#include "sim/rng.h"
#include "sim/status.h"

typedef struct sim_world sim_world;
struct mtc_chain_cache;         /* mtc/chain_cache.h; only carried here */

/* What the world runs in (all borrowed). */
typedef struct sim_world_env {
    sim_engine *engine;
    sim_metrics *metrics;
    sim_rng *rng;               /* seed and replication key every stream */
    uint32_t shard, nshards;    /* nshards >= 1, shard < nshards */
    /* Nonzero: every checkpoint is signed when made and the warm-up's
     * sampled proofs are built. Zero (the default): what no measured
     * quantity can observe is deferred and made only if something uses
     * it (a signature when read, in the warm-up and the window alike);
     * every result is bit-identical either way, measured CPU aside
     * (docs/model-pki.md "The warm-up's cost"; tests compare the two). */
    int eager_history;
    /* A flag (the run's SIGINT/SIGTERM flag) that ends the long loops of
     * sim_world_start (the steady start's warm-up) early: the start then
     * fails with SIM_ERR_STATE. NULL: none. */
    const volatile sig_atomic_t *stop;
    /* The process's cache of built baseline chains (mtc/chain_cache.h),
     * handed to the modules that build chains (the web side's baselines):
     * a caller that builds many worlds creates one and lends it to each,
     * so each chain is signed once per process. Results are the same
     * with or without it. NULL: each world builds its own. */
    struct mtc_chain_cache *chains;
} sim_world_env;

/* ---- statuses ------------------------------------------------------------ */

/* The message of any status of the simulator's space (sim/status.h):
 * mtc-core's range by mtc_strerror(), every other block by the layer that
 * owns it; never NULL ("unknown error" for a code no block defines). */
const char *sim_strerror(int rc);

/* The enumerator's name ("SIM_ERR_STATE", "MTC_ERR_PROOF"); never NULL
 * ("SIM_ERR_UNKNOWN" for a code no block defines). */
const char *sim_status_name(int rc);

/* ---- the entity-kind registry ------------------------------------------- */

/* Global configuration, kind "world". The seed and replication are not
 * here: they key env->rng. */
/* How a run starts (world parameter `start`). */
enum sim_world_start {
    /* The deployed system: the warm-up must hold the history a steady
     * state needs (sim_world_steady_history), checked at start. */
    SIM_START_STEADY = 0,
    /* The first day of a deployment: empty logs, clients without
     * landmarks, no check on the warm-up. */
    SIM_START_EMPTY = 1
};

typedef struct sim_world_config {
    char name[SIM_PARAM_NAME_MAX];  /* "world" */
    sim_time duration;      /* simulated span; events after it do not run */
    sim_time warmup;        /* metrics ignore counters/histograms before it */
    int start;              /* enum sim_world_start */
    sim_time grid_step;     /* series spacing (0: no series) */
    int64_t epoch;          /* Unix time (s) of sim time 0 */
} sim_world_config;

/* The world's own kind, "world" (world_params.c). The modules' kinds are
 * declared by their public headers (sim/pki.h, sim/web.h). */
extern const sim_param_schema sim_world_config_schema;

/* The schema of a kind, or NULL when no module provides it. */
const sim_param_schema *sim_world_schema(const char *kind);

/* The kinds: "world", then each module's in module table order. Kind i's
 * schema (i < sim_world_kind_count()), NULL past the end. */
size_t sim_world_kind_count(void);
const sim_param_schema *sim_world_kind(size_t i);

/* The metrics registry configuration a world config implies (warm-up end,
 * grid start 0, grid step): the host creates env->metrics with it. */
void sim_world_metrics_config(const sim_world_config *wc,
                              sim_metrics_config *out);

/*
 * The history a steady start needs before the measured window, from the
 * entities added so far: the longest certificate lifetime plus its CA's
 * landmark interval (every certificate valid in the window, and every
 * landmark a relying party may hold for it, was issued inside the run),
 * plus the longest update fetch interval and mean publication delay (a
 * client's newest landmark is no older than in steady state: publications
 * older than a lifetime cover no valid certificate, so a client's state is
 * equivalent to the deployed one once the run is longer than this), plus
 * the longest ACME Retry-After (a renewal's landmark-relative certificate
 * is installed). Sites spread their first requests over one renewal period
 * from time 0, so at the window each holds what it would at a uniformly
 * random phase of its renewal cycle (old and new where keep_old applies).
 * why (may be NULL) gets the terms, for error messages.
 */
sim_time sim_world_steady_history(const sim_world *w, char *why,
                                  size_t whylen);

/* ---- lifecycle ----------------------------------------------------------- */

/*
 * Creates an empty world. world_cfg (a struct made with
 * sim_param_config_new(&sim_world_config_schema, ...)) is copied; the
 * caller keeps ownership of it. env is copied (the pointers in it stay
 * borrowed). Errors: SIM_ERR_ARG (NULL env member, shard >= nshards),
 * SIM_ERR_NOMEM, the world schema's refusal; err gets a message.
 */
int sim_world_create(sim_world **out, const sim_world_env *env,
                     const sim_world_config *world_cfg, char *err,
                     size_t errlen);

/*
 * Adds an entity of `kind`. cfg is a config struct of that kind's schema
 * (sim_param_config_new); the world takes ownership of it on success AND
 * on failure. Returns the entity's index within its kind (>= 0), or a
 * negative status: SIM_ERR_CONFIG (unknown kind, empty or duplicate
 * name), SIM_ERR_STATE (already started), SIM_ERR_NOMEM, or the status of
 * the kind's validate() (its module's code). err names the problem.
 */
int sim_world_add(sim_world *w, const char *kind, void *cfg, char *err,
                  size_t errlen);

/*
 * Resolves references by name, validates the whole world (e.g. a CA's
 * quorum cannot exceed its cosigners), creates every metric, derives every
 * key and schedules the initial events. Call once, before running the
 * engine. Errors: SIM_ERR_STATE (called twice), SIM_ERR_CONFIG, and the
 * modules' start statuses (SIM_ERR_CONFIG with err naming entity and
 * parameter, MTC_ERR_NOMEM, crypto errors).
 */
int sim_world_start(sim_world *w, char *err, size_t errlen);

/* After the run: final gauges (storage, state sizes) and the metrics
 * registry's sim_metrics_finish() at the world's end time
 * (min(now, duration)). Idempotent. */
void sim_world_finish(sim_world *w);

/* Frees everything the world owns. Accepts NULL. */
void sim_world_destroy(sim_world *w);

/* Convenience: start, run the engine to `duration`, finish. */
int sim_world_run(sim_world *w, char *err, size_t errlen);

/* ---- entities ----------------------------------------------------------- */

const sim_world_env *sim_world_get_env(const sim_world *w);
const sim_world_config *sim_world_get_config(const sim_world *w);

/* Number of entities of a kind (0 for an unknown kind). */
size_t sim_world_count(const sim_world *w, const char *kind);

/* Index of the entity `name` of `kind`, or MTC_ERR_RANGE. */
int sim_world_find(const sim_world *w, const char *kind, const char *name);

/* The config struct of entity `index` of `kind` (owned by the world), or
 * NULL. After start it reflects live changes made by sim_world_set(). */
const void *sim_world_entity_config(const sim_world *w, const char *kind,
                                    size_t index);
const char *sim_world_entity_name(const sim_world *w, const char *kind,
                                  size_t index);

/* ---- what-if actions (sim:at(...)) --------------------------------------- */

typedef struct sim_world_action {
    const char *name;       /* "cosigner_down", ... */
    const char *kind;       /* kind of the target entity */
    size_t min_args, max_args;
    const char *args_doc;   /* "duration_s", "first_index last_index [log]" */
    const char *doc;        /* one line */
    /* One letter per argument, its kind and range (sim_world_action_check):
     * 'd' a duration in seconds, in (0, SIM_WORLD_ACTION_DURATION_MAX];
     * 'i' a log entry index, an integer in [0, 2^48), two in a row
     *     ("ii") a range first <= last;
     * 'l' a log number, an integer in 1..65535;
     * 'k' a count, an integer in 0..65535. */
    const char *arg_kinds;
    /* Bytes of world memory one call may keep until the run ends (an
     * event pending in the engine, an entry in a list): what a host
     * charges a scenario's memory cap for each call. 0: none. */
    size_t holds;
} sim_world_action;

/* What one pending event costs: an event of the engine's pool (80 bytes)
 * and its share of the queue's buckets. */
#define SIM_WORLD_EVENT_BYTES 128

/* The longest outage or unreachability an action takes (about 100 years:
 * the time axis holds it with room to spare). */
#define SIM_WORLD_ACTION_DURATION_MAX 3.2e9

/* Checks args (nargs of them) against a's arg_kinds: MTC_OK, or
 * SIM_ERR_CONFIG with a message naming the argument, its kind and the
 * range. What depends on the world (a CA's cosigner count for a count,
 * a log that is alive) is checked when the action runs. */
int sim_world_action_check(const sim_world_action *a, const double *args,
                           size_t nargs, char *err, size_t errlen);

/* The actions of every module, in module table order: action i
 * (i < sim_world_action_count()), NULL past the end. */
size_t sim_world_action_count(void);
const sim_world_action *sim_world_action_at(size_t i);

/*
 * Performs `action` on entity `entity_name` now (sim_now of the engine),
 * with numeric arguments. Errors: SIM_ERR_CONFIG (unknown action, unknown
 * entity, entity of the wrong kind, wrong number of arguments, argument
 * out of range: err says which), SIM_ERR_STATE (before start), others
 * from the module.
 * The modules' public headers list their actions (sim/pki.h);
 * sim_world_action_at() enumerates them all.
 */
int sim_world_act(sim_world *w, const char *action, const char *entity_name,
                  const double *args, size_t nargs, char *err, size_t errlen);

/*
 * Changes a live-changeable parameter of an entity now: those whose
 * descriptor says so (SIM_PARAM_LIVE, sim/params.h); the owning module's
 * set hook applies it. Units as in the schema (durations in seconds).
 * Errors: SIM_ERR_CONFIG (unknown entity or parameter, not live, out of
 * range), or the module's.
 * The action table lists it as action "set".
 */
int sim_world_set(sim_world *w, const char *entity_name, const char *param,
                  double value, char *err, size_t errlen);

#endif
