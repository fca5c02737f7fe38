/*
 * lworld_run.c - building and running the world, the lworld.h contract:
 * engine, streams, metrics, entities, declared timed actions, the run,
 * on_finish, params. Apart: all of it happens after the scenario ran.
 */
#include "lrecord.h"
#include "lworld_internal.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>

#include "mtc/error.h"
#include "sim/status.h"

static int add_param(lworld *lw, const char *kind, const char *ent,
                     const sim_param_desc *d, const void *cfg)
{
    if (lw->nparams == lw->capparams) {
        size_t nc = lw->capparams ? 2 * lw->capparams : 64;
        lworld_param *p = realloc(lw->params, nc * sizeof *p);
        if (!p)
            return MTC_ERR_NOMEM;
        lw->params = p;
        lw->capparams = nc;
    }
    lworld_param *p = &lw->params[lw->nparams];
    p->kind = kind;
    snprintf(p->entity, sizeof p->entity, "%s", ent);
    p->desc = d;
    int n = sim_param_format(d, cfg, NULL, 0);
    p->value = malloc((size_t)n + 1);
    if (!p->value)
        return MTC_ERR_NOMEM;
    sim_param_format(d, cfg, p->value, (size_t)n + 1);
    lw->nparams++;
    return MTC_OK;
}

static int add_params(lworld *lw, const sim_param_schema *s, const char *ent,
                      const void *cfg)
{
    for (size_t i = 0; i < s->count; i++)
        if (add_param(lw, s->kind, ent, &s->params[i], cfg) != MTC_OK)
            return MTC_ERR_NOMEM;
    return MTC_OK;
}

/* The declaring file:line of the entity a world message names. */
static const char *blame(lua_State *L, const char *msg)
{
    const char *best = "";
    size_t bestpos = (size_t)-1;
    lworld__push_reg_table(L, K_ENTS);
    size_t n = lua_rawlen(L, -1);
    for (size_t i = 1; i <= n; i++) {
        lua_rawgeti(L, -1, (lua_Integer)i);
        lentity *e = lua_touserdata(L, -1);
        lua_pop(L, 1);
        const char *p = NULL;
        size_t l = strlen(e->name);
        for (const char *q = strstr(msg, e->name); q; q = strstr(q + 1, e->name)) {
            int before = q == msg || !(isalnum((unsigned char)q[-1]) ||
                                       q[-1] == '_' || q[-1] == '-');
            int after = !(isalnum((unsigned char)q[l]) || q[l] == '_' ||
                          q[l] == '-');
            if (before && after) {
                p = q;
                break;
            }
        }
        if (p && (size_t)(p - msg) < bestpos) {
            bestpos = (size_t)(p - msg);
            best = e->where;
        }
    }
    lua_pop(L, 1);
    return best;
}

int lworld__schedule_records(lworld *lw, int tidx, int which, char *err,
                             size_t errlen)
{
    lua_State *L = lhost_state(lw->h);
    size_t n = lua_rawlen(L, tidx);
    for (size_t i = 1; i <= n; i++) {
        lua_rawgeti(L, tidx, (lua_Integer)i);
        int rec = lua_gettop(L);
        lua_getfield(L, rec, "t");
        double t = lua_tonumber(L, -1);
        lua_getfield(L, rec, "start");
        double start = lua_tonumber(L, -1);
        lua_getfield(L, rec, "every");
        int every = lua_toboolean(L, -1);
        lua_pop(L, 3);
        sim_time at, period = 0;
        if (every) {
            period = sim_time_from_sec(t);
            at = start >= 0 ? sim_time_from_sec(start) : period;
        } else {
            at = sim_time_from_sec(t);
        }
        if ((which == LWORLD_CALLS_BEFORE && at >= lw->wc.warmup) ||
            (which == LWORLD_CALLS_AFTER && at < lw->wc.warmup)) {
            lua_settop(L, rec - 1);
            continue;
        }
        lua_getfield(L, rec, "where");
        lcall *c = lworld__call_new(lw, lua_tostring(L, -1), err, errlen);
        lua_pop(L, 1);
        if (!c) {
            lua_settop(L, rec - 1);
            return MTC_ERR_NOMEM;
        }
        if (lua_getfield(L, rec, "fn") == LUA_TFUNCTION) {
            c->fnref = luaL_ref(L, LUA_REGISTRYINDEX);
        } else {
            lua_pop(L, 1);
            lua_getfield(L, rec, "action");
            snprintf(c->action, sizeof c->action, "%s", lua_tostring(L, -1));
            lua_getfield(L, rec, "target");
            snprintf(c->target, sizeof c->target, "%s", lua_tostring(L, -1));
            lua_getfield(L, rec, "args");
            c->nargs = lua_rawlen(L, -1);
            for (size_t k = 0; k < c->nargs && k < ACT_MAX_ARGS; k++) {
                lua_rawgeti(L, -1, (lua_Integer)k + 1);
                c->args[k] = lua_tonumber(L, -1);
                lua_pop(L, 1);
            }
            lua_pop(L, 3);
            const sim_world_action *a = lworld__find_action(c->action);
            int idx = sim_world_find(lw->world, a->kind, c->target);
            if (idx < 0) {
                lua_settop(L, rec - 1);
                snprintf(err, errlen, "%s%ssim:at: action '%s' needs a %s, and "
                                      "there is no %s named '%s'", c->where,
                         lworld__wsep(c->where),
                         c->action, a->kind, a->kind, c->target);
                return SIM_ERR_CONFIG;
            }
        }
        lua_settop(L, rec - 1);
        c->period = period;
        if (!every && at > lw->wc.duration) {
            snprintf(err, errlen, "%s%ssim:at: time %.17g s is after the end "
                                  "of the simulation (duration %.17g s)",
                     c->where, lworld__wsep(c->where), t,
                     sim_time_to_sec(lw->wc.duration));
            return SIM_ERR_CONFIG;
        }
        if (at > lw->wc.duration) {         /* it would never fire */
            lworld__call_free(lw, c);
        } else if (lworld__schedule_call(lw, c, at) != MTC_OK) {
            snprintf(err, errlen, "%s%scannot schedule", c->where,
                     lworld__wsep(c->where));
            return MTC_ERR_NOMEM;
        }
    }
    return MTC_OK;
}

void lworld__keep_action_records(lua_State *L)
{
    /* The records are calls now: their Lua copies go back to the memory
     * cap, except the first LRECORD_MAX world actions (data, no
     * closures), which the run records as attributes (lrecord.h). The
     * K_ATS table is on top; it is popped. */
    int ats = lua_gettop(L);
    size_t n = lua_rawlen(L, ats);
    lua_createtable(L, 0, 0);
    lua_Integer kept = 0;
    for (size_t i = 1; i <= n && kept < LRECORD_MAX; i++) {
        lua_rawgeti(L, ats, (lua_Integer)i);
        int is_action = lua_type(L, -1) == LUA_TTABLE &&
                        lua_getfield(L, -1, "action") == LUA_TSTRING;
        if (lua_type(L, -2) == LUA_TTABLE)
            lua_pop(L, 1);                  /* the action field */
        if (is_action)
            lua_rawseti(L, ats + 1, ++kept);    /* keeps the record */
        else
            lua_pop(L, 1);
    }
    lua_setfield(L, LUA_REGISTRYINDEX, K_ATS);
    lua_settop(L, ats - 1);
}

int lworld_build(lhost *h, uint64_t seed, uint64_t replication,
                 const sim_shard *shard, lworld **out,
                 char *err, size_t errlen)
{
    return lworld_build_prof(h, seed, replication, shard, NULL, out, err,
                             errlen);
}

int lworld_build_prof(lhost *h, uint64_t seed, uint64_t replication,
                      const sim_shard *shard, sim_prof *prof, lworld **out,
                      char *err, size_t errlen)
{
    return lworld__build(h, seed, replication, shard, prof, 0, out, err,
                         errlen);
}

int lworld__build(lhost *h, uint64_t seed, uint64_t replication,
                  const sim_shard *shard, sim_prof *prof, int share,
                  lworld **out, char *err, size_t errlen)
{
    lua_State *L = lhost_state(h);
    *out = NULL;
    lworld *lw = calloc(1, sizeof *lw);
    if (!lw)
        return MTC_ERR_NOMEM;
    lw->h = h;
    lw->share = share;
    lw->prof = prof;
    sim_prof_phase(prof, SIM_PHASE_SETUP);
    *out = lw;
    char e[1024];
    int rc;
    const sim_param_schema *ws = sim_world_schema("world");
    void *wcfg = NULL;
    if (lua_getfield(L, LUA_REGISTRYINDEX, K_WORLD) != LUA_TNIL) {
        lentity *we = lua_touserdata(L, -1);
        if (!we->cfg) {     /* its __gc ran (only --unsafe can call it) */
            lua_pop(L, 1);
            snprintf(err, errlen, "%s%sworld: the declaration was released "
                                  "(its __gc was called)", we->where,
                     lworld__wsep(we->where));
            return SIM_ERR_CONFIG;
        }
        wcfg = we->cfg;
        we->cfg = NULL;
    } else if (sim_param_config_new(ws, &wcfg) != MTC_OK) {
        lua_pop(L, 1);
        return MTC_ERR_NOMEM;
    }
    lua_pop(L, 1);
    memcpy(&lw->wc, wcfg, sizeof lw->wc);
    rc = add_params(lw, ws, "world", wcfg);
    sim_metrics_config mc;
    sim_world_metrics_config(&lw->wc, &mc);
    if (rc == MTC_OK)
        rc = sim_rng_create(&lw->rng, seed, replication);
    if (rc == MTC_OK)
        rc = sim_engine_create(&lw->engine, NULL);
    if (rc == MTC_OK)
        sim_engine_set_prof(lw->engine, prof, SIM_PART_OTHER);
    if (rc == MTC_OK)
        rc = sim_metrics_create(&lw->metrics, &mc, sim_engine_clock(lw->engine));
    if (rc != MTC_OK) {
        sim_param_config_free(ws, wcfg);
        snprintf(err, errlen, "cannot set up the run: %s", sim_strerror(rc));
        return rc;
    }
    lw->shard = shard;
    sim_world_env env = {lw->engine, lw->metrics, lw->rng,
                         shard ? (uint32_t)shard->rank : 0,
                         shard ? (uint32_t)shard->size : 1, 0,
                         lhost_interrupt_flag(h), lhost_chain_cache(h)};
    rc = sim_world_create(&lw->world, &env, wcfg, e, sizeof e);
    sim_param_config_free(ws, wcfg);
    if (rc != MTC_OK) {
        snprintf(err, errlen, "world: %s", e);
        return SIM_ERR_CONFIG;
    }
    /* entities, in declaration order */
    lworld__push_reg_table(L, K_ENTS);
    size_t n = lua_rawlen(L, -1);
    for (size_t i = 1; i <= n; i++) {
        lua_rawgeti(L, -1, (lua_Integer)i);
        lentity *en = lua_touserdata(L, -1);
        lua_pop(L, 1);
        if (!en->cfg) {     /* released (__gc called): nothing to add */
            lua_pop(L, 1);
            snprintf(err, errlen, "%s%s%s '%s': the declaration was released "
                                  "(its __gc was called)", en->where,
                     lworld__wsep(en->where), en->schema->kind, en->name);
            return SIM_ERR_CONFIG;
        }
        if (add_params(lw, en->schema, en->name, en->cfg) != MTC_OK) {
            lua_pop(L, 1);
            snprintf(err, errlen, "out of memory");
            return MTC_ERR_NOMEM;
        }
        void *cfg = en->cfg;
        en->cfg = NULL;     /* the world owns it now, also on failure */
        rc = sim_world_add(lw->world, en->schema->kind, cfg, e, sizeof e);
        if (rc < 0) {
            lua_pop(L, 1);
            snprintf(err, errlen, "%s%s%s '%s': %s", en->where,
                     lworld__wsep(en->where), en->schema->kind, en->name, e);
            return SIM_ERR_CONFIG;
        }
        en->index = rc;
    }
    lua_pop(L, 1);
    rc = sim_world_start(lw->world, e, sizeof e);
    const volatile sig_atomic_t *stop = lhost_interrupt_flag(h);
    if (rc != MTC_OK && stop && *stop) {
        /* a signal ended the start (the steady warm-up): the run is
         * interrupted, not wrong; lw stays for the caller to record */
        snprintf(err, errlen, "%s", e);
        return SIM_ERR_STATE;
    }
    if (rc != MTC_OK) {
        const char *w = blame(L, e);
        snprintf(err, errlen, "%s%s%s", w, lworld__wsep(w), e);
        return SIM_ERR_CONFIG;
    }
    /* the metric series, which the scenario sizes (duration / grid_step
     * points x cohorts per series): counted with its memory before the run
     * fills them, for the run */
    size_t sb = sim_metrics_series_bytes(lw->metrics, lw->wc.duration);
    if (lhost_mem_reserve(h, sb)) {
        snprintf(err, errlen, "world: its metric series would hold %zu MiB "
                 "(%zu points per series at grid_step %.6g s over %.6g s, "
                 "times the cohorts of each), with the scenario's other "
                 "memory %zu MiB: more than --max-memory %zu MiB; choose a "
                 "larger grid_step or a shorter duration",
                 (sb >> 20) + 1,
                 sim_metrics_series_points(lw->metrics, lw->wc.duration),
                 sim_time_to_sec(lw->wc.grid_step),
                 sim_time_to_sec(lw->wc.duration), lhost_mem_counted(h) >> 20,
                 lhost_get_config(h)->max_memory >> 20);
        return MTC_ERR_CONFIG;
    }
    lw->series_bytes = sb;
    /* timed actions declared by the scenario: under a shared warm-up
     * only those before its end (lworld_share.c schedules the rest) */
    lhost_set_user(h, lw);
    lw->running = 1;
    lworld__push_reg_table(L, K_ATS);
    rc = lworld__schedule_records(lw, lua_gettop(L),
                                  lw->share ? LWORLD_CALLS_BEFORE
                                            : LWORLD_CALLS_ALL, err, errlen);
    if (rc != MTC_OK) {
        lua_pop(L, 1);
        return rc;
    }
    if (lw->share) {
        /* the room the runs continuing this warm-up schedule their later
         * calls into: they sort as if scheduled here, before anything
         * the run schedules */
        lw->seq_room = sim_engine_next_seq(lw->engine);
        sim_engine_set_next_seq(lw->engine, lw->seq_room + LWORLD_SEQ_ROOM);
        lua_pushvalue(L, -1);
        lua_setfield(L, LUA_REGISTRYINDEX, K_HELD);
    }
    lworld__keep_action_records(L);
    return MTC_OK;
}

int lworld__stop_pred(sim_engine *sim, void *arg)
{
    lworld *lw = arg;
    if (lw->progress && (++lw->tick & 4095) == 0)
        lw->progress(lw->progress_ctx, sim_now(sim),
                     sim_engine_events_executed(sim));
    return lw->failed || (lw->interrupt && *lw->interrupt);
}

int lworld_run(lworld *lw, volatile sig_atomic_t *interrupt,
               lworld_progress_fn progress, void *progress_ctx, char *err,
               size_t errlen)
{
    lw->interrupt = interrupt;
    lw->progress = progress;
    lw->progress_ctx = progress_ctx;
    sim_engine_set_stop_predicate(lw->engine, lworld__stop_pred, lw);
    int reason = SIM_RUN_STOP_TIME;
    if (lw->warmed && (lw->failed || (interrupt && *interrupt)))
        reason = SIM_RUN_PREDICATE;     /* the shared warm-up ended so */
    if (reason == SIM_RUN_STOP_TIME && lw->prof && lw->wc.warmup > sim_now(lw->engine) &&
        lw->wc.warmup < lw->wc.duration) {
        /* the same events in the same order, with the phase moved between
         * the last event at or before the warm-up end and the first after */
        sim_prof_phase(lw->prof, SIM_PHASE_WARMUP);
        sim_engine_set_stop_time(lw->engine, lw->wc.warmup);
        reason = sim_engine_run(lw->engine);
    }
    sim_prof_phase(lw->prof, SIM_PHASE_WINDOW);
    if (reason == SIM_RUN_STOP_TIME) {
        sim_engine_set_stop_time(lw->engine, lw->wc.duration);
        reason = sim_engine_run(lw->engine);
    }
    sim_prof_phase(lw->prof, SIM_PHASE_FINISH);
    int prev = sim_prof_enter(lw->prof, SIM_PART_METRICS);
    int interrupted = interrupt && *interrupt && !lw->failed;
    if (reason < 0 && !lw->failed) {
        lw->failed = 1;
        snprintf(lw->err, sizeof lw->err, "engine: %s", sim_strerror(reason));
    }
    sim_world_finish(lw->world);
    sim_prof_leave(lw->prof, prev);
    /* Sharded: every rank reports its shard to rank 0, whatever happened
     * to it; rank 0 then holds the whole run (lworld_shards.c). */
    int sharded = lw->shard && lw->shard->size > 1;
    if (sharded)
        lworld__shards_gather(lw, &interrupted);
    else
        lw->events = sim_engine_events_executed(lw->engine);
    int finish_here = !lw->shard || lw->shard->rank == 0;
    if (!lw->failed && !interrupted && finish_here) {
        sim_prof_enter(lw->prof, SIM_PART_SCENARIO);
        lua_State *L = lhost_state(lw->h);
        lworld__push_reg_table(L, K_FINISH);
        size_t n = lua_rawlen(L, -1);
        for (size_t i = 1; i <= n && !lw->failed && !interrupted; i++) {
            lua_rawgeti(L, -1, (lua_Integer)i);
            lua_getfield(L, LUA_REGISTRYINDEX, K_SIM);
            int prc = lhost_pcall(lw->h, 1, 0, lw->err, sizeof lw->err);
            if (prc == SIM_ERR_STATE)   /* the interrupt flag stopped it */
                interrupted = 1;
            else if (prc != MTC_OK)
                lw->failed = 1;
        }
        lua_pop(L, 1);
        sim_prof_leave(lw->prof, prev);
    }
    if (sharded)
        lworld__shards_answer(lw, &interrupted);
    lw->running = 0;
    lw->done = 1;
    if (lw->failed) {
        snprintf(err, errlen, "%s", lw->err);
        return MTC_ERR_CALLBACK;
    }
    if (interrupted) {
        snprintf(err, errlen, "interrupted at simulated time %.6g s%s%.600s",
                 sim_time_to_sec(sim_now(lw->engine)),
                 lw->shard_why[0] ? "; " : "", lw->shard_why);
        return SIM_ERR_STATE;
    }
    return MTC_OK;
}

sim_metrics *lworld_metrics(lworld *lw) { return lw->metrics; }
size_t lworld_merge_bytes(const lworld *lw) { return lw->merge_bytes; }
int lworld_shards_whole(const lworld *lw) { return !lw->shards_missing; }
sim_time lworld_duration(const lworld *lw) { return lw->wc.duration; }
sim_world *lworld_world(lworld *lw) { return lw->world; }
sim_engine *lworld_engine(lworld *lw) { return lw->engine; }
uint64_t lworld_events(const lworld *lw) { return lw->events; }

const lworld_param *lworld_params(const lworld *lw, size_t *count)
{
    *count = lw->nparams;
    return lw->params;
}

void lworld_destroy(lworld *lw)
{
    if (!lw)
        return;
    if (lhost_get_user(lw->h) == lw)
        lhost_set_user(lw->h, NULL);
    sim_world_destroy(lw->world);
    sim_metrics_destroy(lw->metrics);
    sim_engine_destroy(lw->engine);
    sim_rng_destroy(lw->rng);
    while (lw->calls) {
        lcall *c = lw->calls;
        lw->calls = c->next;
        free(c);
    }
    /* what the run counted in the host's account goes back (the host
     * outlives its world) */
    lhost_mem_release(lw->h, lw->cbytes + lw->abytes + lw->series_bytes);
    for (size_t i = 0; i < lw->nparams; i++)
        free(lw->params[i].value);
    free(lw->params);
    free(lw);
}
