/*
 * lworld_internal.h - what the parts of the world binding share (internal
 * to lua/bindings/; the contract is lworld.h): registry keys, entities,
 * timed calls, the run's state, and the helpers more than one part calls.
 *
 * Nothing in the binding knows a model: parameters are converted by their
 * schema type, actions come from sim_world_action_at(), so a parameter or
 * action added to the model is usable from Lua without touching it.
 * Everything a scenario declares is kept in registry tables of its Lua
 * state until lworld_build() hands the configs to the world.
 *
 * lworld.c         lworld_register, mtcsim.schemas/actions, the helpers
 * lworld_value.c   a Lua value through a parameter descriptor (rates...)
 * lworld_entity.c  mtcsim.<kind>{...} and entity handles
 * lworld_sim.c     the sim table: sim:at/every/act/set/metric/on_finish
 * lworld_run.c     lworld_build, lworld_run and the rest of lworld.h
 */
#ifndef MTCSIM_LWORLD_INTERNAL_H
#define MTCSIM_LWORLD_INTERNAL_H

#include <stddef.h>

#include <lua.h>

#include "lworld.h"

#define ENTITY_MT "mtcsim.entity"
#define K_ENTS "mtcsim.entities"     /* array of entities, declaration order */
#define K_NAMES "mtcsim.names"       /* name -> entity */
#define K_WORLD "mtcsim.world"       /* the world config entity, if declared */
#define K_ATS "mtcsim.at"            /* array of timed actions */
#define K_FINISH "mtcsim.finish"     /* array of on_finish functions */
#define K_SIM "mtcsim.sim"           /* the sim table */
#define K_HELD "mtcsim.held"         /* a shared warm-up's timed records,
                                      * all of them (lworld_share.c) */

#define RATE_MT "mtcsim.rate"

#define WHERE_MAX 256
#define ACT_MAX_ARGS 8

typedef struct lentity {
    const sim_param_schema *schema;
    void *cfg;          /* owned until handed to the world */
    int index;          /* within its kind once added; -1 before */
    int released;       /* its __gc ran: cfg is gone, the handle is dead */
    char name[SIM_PARAM_NAME_MAX];
    char where[WHERE_MAX];
} lentity;

/* A scheduled scenario action: a Lua function or a world action. Kept in
 * the run's list from lworld__call_new until it has fired (one-shot) or
 * the run is destroyed (periodic). */
typedef struct lcall {
    struct lcall *next, *prev;
    lworld *lw;
    int fnref;          /* LUA_NOREF for a world action */
    sim_time period;    /* > 0: sim:every */
    char action[SIM_PARAM_NAME_MAX], target[SIM_PARAM_NAME_MAX];
    double args[ACT_MAX_ARGS];
    size_t nargs;
    char where[WHERE_MAX];
} lcall;

struct lworld {
    lhost *h;
    const sim_shard *shard; /* NULL: not sharded */
    size_t merge_bytes;     /* metrics bytes gathered from other ranks */
    int shards_missing;     /* rank 0: a signal stopped it before every
                             * rank's shard arrived (lworld_shards.c) */
    char shard_why[600];    /* rank 0: which ranks sent nothing, or why
                             * another rank stopped; "" */
    sim_rng *rng;
    sim_engine *engine;
    sim_metrics *metrics;
    sim_world *world;
    sim_world_config wc;        /* copy of the effective world config */
    lcall *calls;
    size_t ncalls;          /* in the list */
    size_t cbytes;          /* C memory held for the scenario's pending
                             * calls (counted in lhost_mem_reserve's account
                             * while they are pending) */
    size_t abytes;          /* world memory its actions may keep, counted
                             * in the same account for the rest of the run
                             * (lworld__charge_action) */
    size_t series_bytes;    /* its metric series, counted at the build */
    uint64_t events;        /* all ranks' events, once the run ended */
    lworld_param *params;
    size_t nparams, capparams;
    int running, done, failed;
    volatile sig_atomic_t *interrupt;
    lworld_progress_fn progress;
    void *progress_ctx;
    uint32_t tick;
    sim_prof *prof;         /* NULL: no profile (borrowed) */
    int share;              /* built to share its warm-up: the calls at or
                             * after the warm-up end are not scheduled */
    int warmed;             /* the engine ran the shared warm-up */
    uint64_t replication;   /* share: the replication it was built for */
    uint64_t seq_room;      /* share: the first seq of the room reserved
                             * for the later calls (sim_engine_next_seq) */
    char err[4096];
};

/* ---- lworld.c ------------------------------------------------------------ */

/* The run, once lworld_build() started the world; NULL while the scenario
 * declares. */
lworld *lworld__current(lua_State *L);
/* Pushes the registry table `key`, creating it if absent. */
void lworld__push_reg_table(lua_State *L, const char *key);
/* Pops the top value and appends it to the registry table `key`. */
void lworld__append_reg(lua_State *L, const char *key);
/* "file:line" of the Lua code at `level` into out[WHERE_MAX] ("" when
 * unknown). */
void lworld__where(lua_State *L, int level, char *out);
/* ": " after a non-empty where, "" otherwise. */
const char *lworld__wsep(const char *w);

/* ---- lworld_run.c ------------------------------------------------------- */

/* lworld_build_prof; share 1: the calls at or after the warm-up end are
 * held back for lworld_share_continue (the world's warm-up is shared). */
int lworld__build(lhost *h, uint64_t seed, uint64_t replication,
                  const sim_shard *shard, sim_prof *prof, int share,
                  lworld **out, char *err, size_t errlen);
/* The engine's stop predicate of a run: the progress callback, and
 * nonzero once the run failed or its interrupt flag is set. */
int lworld__stop_pred(sim_engine *sim, void *arg);
/* Which timed records lworld__schedule_records schedules, by their first
 * firing time against the warm-up end. */
enum { LWORLD_CALLS_ALL, LWORLD_CALLS_BEFORE, LWORLD_CALLS_AFTER };
/* Room of seqs a shared warm-up keeps for each continuing run's calls. */
#define LWORLD_SEQ_ROOM ((uint64_t)1 << 40)
/* Turns the timed records of the table at stack index tidx of lw->h's
 * state (sim:at/every, in declaration order) into scheduled calls: all,
 * or those first firing before or at/after the warm-up end. MTC_OK, or an
 * error with the message (file:line) in err; the stack is as it was. */
int lworld__schedule_records(lworld *lw, int tidx, int which, char *err,
                             size_t errlen);
/* Replaces K_ATS (the table on top, popped) by the world actions the run
 * records as attributes (lrecord.h), releasing the closures. */
void lworld__keep_action_records(lua_State *L);

/* ---- lworld_shards.c ----------------------------------------------------- */

/* The end of a sharded run, on every rank, without collectives (a dead
 * rank must not hold rank 0 where a signal cannot stop it). gather: the
 * other ranks send rank 0 their shard's report (end, events, metrics);
 * rank 0 merges them in rank order into lw->metrics and lw->events, and
 * sets lw->failed/err, *interrupted and lw->shard_why from them; stopped
 * by a signal, it waits 0.3 s more and names the ranks that sent nothing
 * (lw->shards_missing). answer, after rank 0's on_finish: rank 0 tells
 * the others how the run ended, and they end it the same way. */
void lworld__shards_gather(lworld *lw, int *interrupted);
void lworld__shards_answer(lworld *lw, int *interrupted);

/* ---- lworld_value.c ------------------------------------------------------ */

/* A numeric parameter's value from idx (number, or rate converted to d's
 * unit): 1 with *v set, 0 if neither, -1 on a unit mismatch (err). */
int lworld__number_for(lua_State *L, const sim_param_desc *d, int idx,
                       double *v, char *err, size_t errlen);
/* Sets d in cfg from the value at idx; MTC_OK or an error with a message in
 * err naming the parameter. May raise Lua errors for malformed lists. */
int lworld__set_value(lua_State *L, const sim_param_desc *d, void *cfg,
                      int idx, char *err, size_t errlen);

/* ---- lworld_override.c --------------------------------------------------- */

/* Applies the installed --set KIND.ENTITY.PARAM overrides that match an
 * entity of schema s named `entity` ("" for the world) to cfg, after the
 * declaration's values: each converted as a declared value and judged
 * against its plausible range under the option's name; its key is removed
 * from the table at `given` (the declaration's keys, a copy, for the
 * declaration's own plausibility check). *applied: how many. MTC_OK, or
 * an error naming the option in err; may raise the errors of evaluating
 * the option's value (their position is the option). */
int lworld__apply_overrides(lua_State *L, const sim_param_schema *s,
                            const char *entity, void *cfg, const char *label,
                            int given, size_t *applied, char *err, size_t errlen);

/* ---- lworld_entity.c ----------------------------------------------------- */

/* Registers the entity metatable and one mtcsim.<kind> constructor per
 * schema into the table on top. */
void lworld__entity_register(lua_State *L);
/* The world action named `name`, or NULL. */
const sim_world_action *lworld__find_action(const char *name);
/* Runs a world action on target now, numeric args from first_arg on;
 * raises with the model's message (or if the run is not running). */
int lworld__do_act(lua_State *L, const char *action, const char *target,
                   int first_arg);
/* Sets e's parameter p from the value at vidx: live during the run, into
 * its config before it; raises on errors. */
int lworld__set_live(lua_State *L, lentity *e, const char *p, int vidx);

/* ---- lworld_sim.c -------------------------------------------------------- */

/* Creates the sim table, keeps it in the registry (K_SIM) and sets it as
 * field "sim" of the table on top. */
void lworld__sim_register(lua_State *L);
/* Schedules c to fire at `at` on lw's engine; MTC_OK or an engine error. */
int lworld__schedule_call(lworld *lw, lcall *c, sim_time at);
/* A zeroed call (fnref LUA_NOREF) in lw's list, its memory counted against
 * the run's memory cap (--max-memory covers what C holds for the
 * scenario, not only Lua's heap). NULL with a message (where: ...) in err
 * when the cap or malloc refuses. */
lcall *lworld__call_new(lworld *lw, const char *where, char *err,
                        size_t errlen);
/* Unlinks, unreferences and frees c (a call that will not fire again). */
void lworld__call_free(lworld *lw, lcall *c);
/* Before a world action runs: counts what the world may keep for it
 * (sim_world_action.holds) against the memory cap, for the rest of the
 * run (an event's slot returns to the engine's pool, not to malloc).
 * 0, or -1 with the message in err. */
int lworld__charge_action(lworld *lw, const char *action, char *err,
                          size_t errlen);

#endif
