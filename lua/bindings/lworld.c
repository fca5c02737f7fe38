/*
 * lworld.c - scenario declarations bound generically to the world model:
 * one constructor per entity kind, driven by its sim_param_schema; timed
 * actions (sim:at, sim:every) and the run itself.
 *
 * Nothing here knows a model: parameters are converted by their schema
 * type, actions come from sim_world_actions(), so a parameter or action
 * added to the model is usable from Lua without touching this file.
 * Everything a scenario declares is kept in registry tables of its Lua
 * state until lworld_build() hands the configs to the world.
 */
#include "lworld.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>

#include "mtc/error.h"

#define ENTITY_MT "mtcsim.entity"
#define K_ENTS "mtcsim.entities"     /* array of entities, declaration order */
#define K_NAMES "mtcsim.names"       /* name -> entity */
#define K_WORLD "mtcsim.world"       /* the world config entity, if declared */
#define K_ATS "mtcsim.at"            /* array of timed actions */
#define K_FINISH "mtcsim.finish"     /* array of on_finish functions */
#define K_SIM "mtcsim.sim"           /* the sim table */

#define WHERE_MAX 256
#define ACT_MAX_ARGS 8

typedef struct lentity {
    const sim_param_schema *schema;
    void *cfg;          /* owned until handed to the world */
    int index;          /* within its kind once added; -1 before */
    char name[SIM_PARAM_NAME_MAX];
    char where[WHERE_MAX];
} lentity;

/* A scheduled scenario action: a Lua function or a world action. */
typedef struct lcall {
    struct lcall *next;
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
    sim_rng *rng;
    sim_engine *engine;
    sim_metrics *metrics;
    sim_world *world;
    sim_world_config wc;        /* copy of the effective world config */
    lcall *calls;
    lworld_param *params;
    size_t nparams, capparams;
    int running, done, failed;
    volatile sig_atomic_t *interrupt;
    lworld_progress_fn progress;
    void *progress_ctx;
    uint32_t tick;
    char err[4096];
};

static lworld *current(lua_State *L)
{
    return lhost_get_user(lhost_of(L));
}

/* ---- helpers ------------------------------------------------------------- */

static void push_reg_table(lua_State *L, const char *key)
{
    if (lua_getfield(L, LUA_REGISTRYINDEX, key) != LUA_TTABLE) {
        lua_pop(L, 1);
        lua_newtable(L);
        lua_pushvalue(L, -1);
        lua_setfield(L, LUA_REGISTRYINDEX, key);
    }
}

static void append_reg(lua_State *L, const char *key)
{
    push_reg_table(L, key);
    lua_insert(L, -2);
    lua_rawseti(L, -2, (lua_Integer)lua_rawlen(L, -2) + 1);
    lua_pop(L, 1);
}

/* "file:line" of the Lua code at `level` ("" when unknown). */
static void where(lua_State *L, int level, char *out)
{
    luaL_where(L, level);
    snprintf(out, WHERE_MAX, "%s", lua_tostring(L, -1));
    lua_pop(L, 1);
    size_t n = strlen(out);
    if (n >= 2 && out[n - 2] == ':' && out[n - 1] == ' ')
        out[n - 2] = 0;
}

/* "where: " or "" */
static const char *wsep(const char *w)
{
    return *w ? ": " : "";
}

static size_t edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 63 || lb > 63)
        return 99;
    size_t prev[64], cur[64];
    for (size_t j = 0; j <= lb; j++)
        prev[j] = j;
    for (size_t i = 1; i <= la; i++) {
        cur[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t c = prev[j - 1] + (a[i - 1] != b[j - 1]);
            if (prev[j] + 1 < c)
                c = prev[j] + 1;
            if (cur[j - 1] + 1 < c)
                c = cur[j - 1] + 1;
            cur[j] = c;
        }
        memcpy(prev, cur, (lb + 1) * sizeof *prev);
    }
    return prev[lb];
}

static const char *suggest(const sim_param_schema *s, const char *k)
{
    const char *best = NULL;
    size_t bd = 3;
    for (size_t i = 0; i < s->count; i++) {
        size_t d = edit_distance(k, s->params[i].name);
        if (d < bd) {
            bd = d;
            best = s->params[i].name;
        }
    }
    return best;
}

static lentity *check_entity(lua_State *L, int i)
{
    return luaL_checkudata(L, i, ENTITY_MT);
}

static const char *entity_label(const lentity *e, char *buf, size_t n)
{
    if (!strcmp(e->schema->kind, "world"))
        snprintf(buf, n, "world");
    else
        snprintf(buf, n, "%s '%s'", e->schema->kind, e->name);
    return buf;
}

/* ---- converting a Lua value through a parameter descriptor ---------------- */

#define RATE_MT "mtcsim.rate"

/* Seconds per unit of a rate unit ("1/h" -> 3600), or 0 if not a rate. */
static double rate_unit(const char *u)
{
    if (!u)
        return 0;
    if (!strcmp(u, "1/s"))
        return 1;
    if (!strcmp(u, "1/min"))
        return 60;
    if (!strcmp(u, "1/h"))
        return 3600;
    if (!strcmp(u, "1/d"))
        return 86400;
    return 0;
}

static int is_rate(lua_State *L, int idx)
{
    if (lua_type(L, idx) != LUA_TTABLE || !lua_getmetatable(L, idx))
        return 0;
    luaL_getmetatable(L, RATE_MT);
    int r = lua_rawequal(L, -1, -2);
    lua_pop(L, 2);
    return r;
}

/*
 * The number a numeric parameter gets from the value at idx: a plain
 * number is taken in the parameter's own unit; a rate (per_hour(30)...)
 * is converted to it, so `visits_per_hour = per_day(240)` and
 * `rate = per_day(6e6)` (a 1/s parameter) both mean what they say.
 * 1 with *v set, 0 when the value is not a number or rate, -1 on a unit
 * mismatch (message in err).
 */
static int number_for(lua_State *L, const sim_param_desc *d, int idx, double *v,
                      char *err, size_t errlen)
{
    if (lua_type(L, idx) == LUA_TNUMBER) {
        *v = lua_tonumber(L, idx);
        return 1;
    }
    if (!is_rate(L, idx))
        return 0;
    double f = rate_unit(d->unit);
    if (f == 0) {
        snprintf(err, errlen, "%s: a rate (per_hour(...) etc.) was given, but "
                              "the parameter's unit is '%s'", d->name,
                 d->unit ? d->unit : "");
        return -1;
    }
    lua_getfield(L, idx, "per_second");
    *v = lua_tonumber(L, -1) * f;
    lua_pop(L, 1);
    return 1;
}

/* Sets d from the value at idx; MTC_OK or an error with a message in err
 * naming the parameter. May raise Lua errors for malformed lists. */
static int set_value(lua_State *L, const sim_param_desc *d, void *cfg, int idx,
                     char *err, size_t errlen)
{
    idx = lua_absindex(L, idx);
    int t = lua_type(L, idx);
    switch (d->type) {
    case SIM_PARAM_INT:
    case SIM_PARAM_REAL:
    case SIM_PARAM_DURATION: {
        double v;
        int k = number_for(L, d, idx, &v, err, errlen);
        if (k < 0)
            return MTC_ERR_CONFIG;
        if (k == 0)
            break;
        return sim_param_set_number(d, cfg, v, err, errlen);
    }
    case SIM_PARAM_BOOL:
        if (t != LUA_TBOOLEAN)
            break;
        return sim_param_set_number(d, cfg, lua_toboolean(L, idx), err, errlen);
    case SIM_PARAM_STRING:
    case SIM_PARAM_ENUM: {
        lentity *e = luaL_testudata(L, idx, ENTITY_MT);
        if (e && d->type == SIM_PARAM_STRING)
            return sim_param_set_string(d, cfg, e->name, err, errlen);
        if (t != LUA_TSTRING)
            break;
        return sim_param_set_string(d, cfg, lua_tostring(L, idx), err, errlen);
    }
    case SIM_PARAM_DIST:
        if (t != LUA_TNUMBER && !ldist_is(L, idx))
            break;
        return sim_param_set_dist(d, cfg, ldist_instance(L, idx), err, errlen);
    case SIM_PARAM_PROFILE: {
        if (t != LUA_TTABLE)
            break;
        double h[SIM_PROFILE_HOURS];
        size_t n = lua_rawlen(L, idx);
        for (size_t i = 0; i < n && i < SIM_PROFILE_HOURS; i++) {
            lua_rawgeti(L, idx, (lua_Integer)i + 1);
            if (lua_type(L, -1) != LUA_TNUMBER) {
                snprintf(err, errlen, "%s: hour %zu is a %s, not a number",
                         d->name, i, luaL_typename(L, -1));
                lua_pop(L, 1);
                return MTC_ERR_ARG;
            }
            h[i] = lua_tonumber(L, -1);
            lua_pop(L, 1);
        }
        return sim_param_set_profile(d, cfg, h, n, err, errlen);
    }
    case SIM_PARAM_LIST: {
        if (t != LUA_TTABLE)
            break;
        sim_param_list *l = (sim_param_list *)((char *)cfg + d->offset);
        l->count = 0;
        size_t n = lua_rawlen(L, idx);
        for (size_t i = 1; i <= n; i++) {
            lua_rawgeti(L, idx, (lua_Integer)i);
            lentity *e = luaL_testudata(L, -1, ENTITY_MT);
            const char *v = e ? e->name
                              : lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1)
                                                              : NULL;
            if (!v) {
                snprintf(err, errlen, "%s: item %zu is a %s, expected a name "
                                      "or an entity", d->name, i,
                         luaL_typename(L, -1));
                lua_pop(L, 1);
                return MTC_ERR_ARG;
            }
            int rc = sim_param_list_append(d, cfg, v, err, errlen);
            lua_pop(L, 1);
            if (rc != MTC_OK)
                return rc;
        }
        return MTC_OK;
    }
    }
    static const char *const expect[] = {
        "", "a number", "a number", "a duration in seconds (e.g. hours(2))",
        "a boolean", "a string", "a string (one of its names)",
        "a distribution (e.g. exponential{mean=60}) or a number",
        "a list of 24 hourly weights", "a list of names"};
    snprintf(err, errlen, "%s: expected %s, got %s", d->name,
             d->type >= 1 && d->type <= SIM_PARAM_LIST ? expect[d->type] : "?",
             luaL_typename(L, idx));
    return MTC_ERR_ARG;
}

/* ---- declarations: mtcsim.<kind>{...} ------------------------------------- */

static int e_gc(lua_State *L)
{
    lentity *e = check_entity(L, 1);
    sim_param_config_free(e->schema, e->cfg);
    e->cfg = NULL;
    return 0;
}

static int l_declare(lua_State *L)
{
    const sim_param_schema *s = lua_touserdata(L, lua_upvalueindex(1));
    int is_world = !strcmp(s->kind, "world");
    char err[512], label[128];
    if (!lua_istable(L, 1))
        return luaL_error(L, "mtcsim.%s expects a table: mtcsim.%s{%sparameter "
                             "= value, ...}", s->kind, s->kind,
                          is_world ? "" : "name = \"...\", ");
    if (current(L))
        return luaL_error(L, "mtcsim.%s: entities are declared by the scenario, "
                             "not while the simulation runs", s->kind);
    lentity *e = lua_newuserdatauv(L, sizeof *e, 0);
    memset(e, 0, sizeof *e);
    e->schema = s;
    e->index = -1;
    luaL_setmetatable(L, ENTITY_MT);
    int eidx = lua_gettop(L);
    where(L, 1, e->where);
    if (sim_param_config_new(s, &e->cfg) != MTC_OK)
        return luaL_error(L, "out of memory");

    lua_getfield(L, 1, "name");
    if (lua_type(L, -1) == LUA_TSTRING)
        snprintf(e->name, sizeof e->name, "%s", lua_tostring(L, -1));
    else if (!is_world)
        return luaL_error(L, "mtcsim.%s: parameter 'name' is required (a "
                             "unique string)", s->kind);
    lua_pop(L, 1);
    entity_label(e, label, sizeof label);

    /* unknown keys: report the alphabetically first, deterministically */
    const char *unknown = NULL;
    lua_pushnil(L);
    while (lua_next(L, 1)) {
        lua_pop(L, 1);
        if (lua_type(L, -1) != LUA_TSTRING)
            return luaL_error(L, "%s: parameters must be named (found a %s key)",
                              label, luaL_typename(L, -1));
        const char *k = lua_tostring(L, -1);
        if (!sim_param_find(s, k) && (!unknown || strcmp(k, unknown) < 0))
            unknown = k;
    }
    if (unknown) {
        const char *sg = suggest(s, unknown);
        return luaL_error(L, "%s: unknown parameter '%s'%s%s%s (see mtcsim "
                             "params %s)", label, unknown,
                          sg ? " (did you mean '" : "", sg ? sg : "",
                          sg ? "'?)" : "", s->kind);
    }
    for (size_t i = 0; i < s->count; i++) {
        const sim_param_desc *d = &s->params[i];
        lua_getfield(L, 1, d->name);
        if (!lua_isnil(L, -1) && set_value(L, d, e->cfg, -1, err, sizeof err))
            return luaL_error(L, "%s: %s", label, err);
        lua_pop(L, 1);
    }
    if (s->validate && s->validate(e->cfg, err, sizeof err) != MTC_OK)
        return luaL_error(L, "%s: %s", label, err);

    if (is_world) {
        if (lua_getfield(L, LUA_REGISTRYINDEX, K_WORLD) != LUA_TNIL) {
            lentity *o = lua_touserdata(L, -1);
            return luaL_error(L, "mtcsim.world declared twice (first at %s)",
                              o->where);
        }
        lua_pop(L, 1);
        lua_pushvalue(L, eidx);
        lua_setfield(L, LUA_REGISTRYINDEX, K_WORLD);
    } else {
        push_reg_table(L, K_NAMES);
        if (lua_getfield(L, -1, e->name) != LUA_TNIL) {
            lentity *o = lua_touserdata(L, -1);
            return luaL_error(L, "%s: the name '%s' is already used by the %s "
                                 "declared at %s (names are unique across all "
                                 "kinds)", label, e->name, o->schema->kind,
                              o->where);
        }
        lua_pop(L, 1);
        lua_pushvalue(L, eidx);
        lua_setfield(L, -2, e->name);
        lua_pop(L, 1);
        lua_pushvalue(L, eidx);
        append_reg(L, K_ENTS);
    }
    lua_settop(L, eidx);
    return 1;
}

/* ---- entity methods ------------------------------------------------------- */

static const void *entity_cfg(lua_State *L, lentity *e)
{
    lworld *lw = current(L);
    if (e->cfg)
        return e->cfg;
    if (lw && lw->world && e->index >= 0)
        return sim_world_entity_config(lw->world, e->schema->kind,
                                       (size_t)e->index);
    if (lw && !strcmp(e->schema->kind, "world"))
        return &lw->wc;
    return NULL;
}

/* e:get(param): numbers for numeric parameters, text otherwise. */
static int e_get(lua_State *L)
{
    lentity *e = check_entity(L, 1);
    const char *p = luaL_checkstring(L, 2);
    const sim_param_desc *d = sim_param_find(e->schema, p);
    char label[128];
    if (!d)
        return luaL_error(L, "%s: unknown parameter '%s'",
                          entity_label(e, label, sizeof label), p);
    const void *cfg = entity_cfg(L, e);
    if (!cfg)
        return luaL_error(L, "%s: configuration not available",
                          entity_label(e, label, sizeof label));
    const char *f = (const char *)cfg + d->offset;
    switch (d->type) {
    case SIM_PARAM_INT: lua_pushinteger(L, *(const int64_t *)f); return 1;
    case SIM_PARAM_REAL: lua_pushnumber(L, *(const double *)f); return 1;
    case SIM_PARAM_DURATION:
        lua_pushnumber(L, sim_time_to_sec(*(const sim_time *)f));
        return 1;
    case SIM_PARAM_BOOL: lua_pushboolean(L, *(const int *)f); return 1;
    default: break;
    }
    int n = sim_param_format(d, cfg, NULL, 0);
    luaL_Buffer b;
    char *buf = luaL_buffinitsize(L, &b, (size_t)n + 1);
    sim_param_format(d, cfg, buf, (size_t)n + 1);
    luaL_pushresultsize(&b, (size_t)n);
    return 1;
}

/* Runs a world action now; raises with the model's message. */
static int do_act(lua_State *L, const char *action, const char *target,
                  int first_arg)
{
    lworld *lw = current(L);
    if (!lw || !lw->running)
        return luaL_error(L, "%s: actions run during the simulation: schedule "
                             "it with sim:at(t, \"%s\", target, ...)", action,
                          action);
    double args[ACT_MAX_ARGS];
    int n = lua_gettop(L) - first_arg + 1;
    if (n < 0)
        n = 0;
    if (n > ACT_MAX_ARGS)
        return luaL_error(L, "%s: at most %d arguments", action, ACT_MAX_ARGS);
    for (int i = 0; i < n; i++)
        args[i] = luaL_checknumber(L, first_arg + i);
    char err[512];
    if (sim_world_act(lw->world, action, target, args, (size_t)n, err,
                      sizeof err) != MTC_OK)
        return luaL_error(L, "%s on '%s': %s", action, target, err);
    return 0;
}

static const char *target_name(lua_State *L, int i)
{
    lentity *e = luaL_testudata(L, i, ENTITY_MT);
    if (e)
        return e->name;
    if (lua_type(L, i) != LUA_TSTRING)
        luaL_argerror(L, i, "expected an entity or its name");
    return lua_tostring(L, i);
}

/* e:act(action, args...) */
static int e_act(lua_State *L)
{
    lentity *e = check_entity(L, 1);
    const char *a = luaL_checkstring(L, 2);
    return do_act(L, a, e->name, 3);
}

/* Live parameter change (during the run), or a declaration-time update. */
static int set_live(lua_State *L, lentity *e, const char *p, int vidx)
{
    lworld *lw = current(L);
    char err[512], label[128];
    entity_label(e, label, sizeof label);
    if (!lw) {
        const sim_param_desc *d = sim_param_find(e->schema, p);
        if (!d)
            return luaL_error(L, "%s: unknown parameter '%s'", label, p);
        if (!e->cfg || set_value(L, d, e->cfg, vidx, err, sizeof err))
            return luaL_error(L, "%s: %s", label, e->cfg ? err : "not settable");
        return 0;
    }
    if (!lw->running)
        return luaL_error(L, "%s: set: the simulation has ended", label);
    double v;
    const sim_param_desc *d = sim_param_find(e->schema, p);
    if (!d)
        return luaL_error(L, "%s: unknown parameter '%s'", label, p);
    if (lua_type(L, vidx) == LUA_TBOOLEAN) {
        v = lua_toboolean(L, vidx);
    } else {
        int k = number_for(L, d, vidx, &v, err, sizeof err);
        if (k < 0)
            return luaL_error(L, "%s: %s", label, err);
        if (k == 0)
            return luaL_error(L, "%s: set %s: live changes take a number", label, p);
    }
    if (sim_world_set(lw->world, e->name, p, v, err, sizeof err) != MTC_OK)
        return luaL_error(L, "%s: set %s: %s", label, p, err);
    return 0;
}

static int e_set(lua_State *L)
{
    lentity *e = check_entity(L, 1);
    return set_live(L, e, luaL_checkstring(L, 2), 3);
}

static int e_action_closure(lua_State *L)
{
    lentity *e = check_entity(L, 1);
    return do_act(L, lua_tostring(L, lua_upvalueindex(1)), e->name, 2);
}

static const sim_world_action *find_action(const char *name)
{
    size_t n;
    const sim_world_action *a = sim_world_actions(&n);
    for (size_t i = 0; i < n; i++)
        if (!strcmp(a[i].name, name))
            return &a[i];
    return NULL;
}

static int e_index(lua_State *L)
{
    lentity *e = check_entity(L, 1);
    const char *k = luaL_checkstring(L, 2);
    if (!strcmp(k, "name")) {
        lua_pushstring(L, e->name);
    } else if (!strcmp(k, "kind")) {
        lua_pushstring(L, e->schema->kind);
    } else if (!strcmp(k, "get")) {
        lua_pushcfunction(L, e_get);
    } else if (!strcmp(k, "set")) {
        lua_pushcfunction(L, e_set);
    } else if (!strcmp(k, "act")) {
        lua_pushcfunction(L, e_act);
    } else {
        const sim_world_action *a = find_action(k);
        if (a && !strcmp(a->kind, e->schema->kind)) {
            lua_pushstring(L, a->name);
            lua_pushcclosure(L, e_action_closure, 1);
        } else {
            char label[128];
            return luaL_error(L, "%s has no field or action '%s' (use "
                                 "e:get(\"%s\") for a parameter)",
                              entity_label(e, label, sizeof label), k, k);
        }
    }
    return 1;
}

static int e_tostring(lua_State *L)
{
    lentity *e = check_entity(L, 1);
    char label[128];
    lua_pushstring(L, entity_label(e, label, sizeof label));
    return 1;
}

/* ---- the sim table ------------------------------------------------------- */

static double check_time(lua_State *L, int i, const char *fn)
{
    if (lua_type(L, i) != LUA_TNUMBER)
        luaL_error(L, "%s: time must be a number of seconds (e.g. days(3)), "
                      "got %s", fn, luaL_typename(L, i));
    double t = lua_tonumber(L, i);
    if (!(t >= 0) || !isfinite(t) || t > 9e12)
        luaL_error(L, "%s: time %f s is out of range", fn, t);
    return t;
}

static void call_fire(sim_engine *sim, void *arg);

static int schedule_call(lworld *lw, lcall *c, sim_time at)
{
    return sim_call_at(lw->engine, at, call_fire, c);
}

static void call_fire(sim_engine *sim, void *arg)
{
    lcall *c = arg;
    lworld *lw = c->lw;
    if (lw->failed)
        return;
    int rc;
    if (c->fnref != LUA_NOREF) {
        lua_State *L = lhost_state(lw->h);
        lua_rawgeti(L, LUA_REGISTRYINDEX, c->fnref);
        lua_getfield(L, LUA_REGISTRYINDEX, K_SIM);
        rc = lhost_pcall(lw->h, 1, 0, lw->err, sizeof lw->err);
    } else {
        char e[512];
        rc = sim_world_act(lw->world, c->action, c->target, c->args, c->nargs,
                           e, sizeof e);
        if (rc != MTC_OK)
            snprintf(lw->err, sizeof lw->err, "%s%ssim:at: %s on '%s': %s",
                     c->where, wsep(c->where), c->action, c->target, e);
    }
    if (rc != MTC_OK) {
        lw->failed = 1;
        sim_engine_stop(sim);
        return;
    }
    if (c->period > 0) {
        sim_time next = sim_now(sim) + c->period;
        if (next <= lw->wc.duration && schedule_call(lw, c, next) != MTC_OK) {
            snprintf(lw->err, sizeof lw->err, "%s%ssim:every: cannot schedule",
                     c->where, wsep(c->where));
            lw->failed = 1;
            sim_engine_stop(sim);
        }
    }
}

/*
 * sim:at(t, fn) / sim:at(t, "action", target, args...) and
 * sim:every(dt, fn [, start]). Before the run the request is stored
 * (with its file:line) and checked when the world is built; during the
 * run it is scheduled at once.
 */
static int add_timed(lua_State *L, int every)
{
    const char *fn = every ? "sim:every" : "sim:at";
    double t = check_time(L, 2, fn);
    double start = 0;
    int fidx = 3;
    char wh[WHERE_MAX];
    where(L, 1, wh);
    if (every) {
        if (!(t > 0))
            return luaL_error(L, "sim:every: the period must be > 0");
        if (!lua_isnoneornil(L, 4))
            start = check_time(L, 4, fn);
        else
            start = -1;     /* first call one period after the start */
        luaL_checktype(L, 3, LUA_TFUNCTION);
    } else if (lua_type(L, 3) == LUA_TSTRING) {
        const char *a = lua_tostring(L, 3);
        const sim_world_action *act = find_action(a);
        if (!act)
            return luaL_error(L, "sim:at: unknown action '%s' (see mtcsim "
                                 "params --actions)", a);
        const char *tg = target_name(L, 4);
        lentity *te = luaL_testudata(L, 4, ENTITY_MT);
        if (te && strcmp(te->schema->kind, act->kind))
            return luaL_error(L, "sim:at: action '%s' applies to a %s, not to "
                                 "%s '%s'", a, act->kind, te->schema->kind,
                              te->name);
        size_t n = (size_t)(lua_gettop(L) > 4 ? lua_gettop(L) - 4 : 0);
        if (n > 0 && act->max_args == 0)
            return luaL_error(L, "sim:at: action '%s' takes no arguments, "
                                 "got %d", a, (int)n);
        if (n < act->min_args || n > act->max_args || n > ACT_MAX_ARGS)
            return luaL_error(L, "sim:at: action '%s' takes %d to %d "
                                 "arguments (%s), got %d", a,
                              (int)act->min_args, (int)act->max_args,
                              act->args_doc ? act->args_doc : "", (int)n);
        for (int i = 5; i <= lua_gettop(L); i++)
            if (lua_type(L, i) != LUA_TNUMBER)
                return luaL_error(L, "sim:at: argument %d of '%s' must be a "
                                     "number", i - 4, a);
        (void)tg;
    } else {
        luaL_checktype(L, 3, LUA_TFUNCTION);
    }
    lworld *lw = current(L);
    if (lw && !lw->running)
        return luaL_error(L, "%s: the simulation has ended", fn);
    /* the record: {t, start, every, fn | action, target, args..., where} */
    lua_newtable(L);
    lua_pushnumber(L, t);
    lua_setfield(L, -2, "t");
    lua_pushnumber(L, start);
    lua_setfield(L, -2, "start");
    lua_pushboolean(L, every);
    lua_setfield(L, -2, "every");
    lua_pushstring(L, wh);
    lua_setfield(L, -2, "where");
    if (lua_type(L, fidx) == LUA_TFUNCTION) {
        lua_pushvalue(L, fidx);
        lua_setfield(L, -2, "fn");
    } else {
        lua_pushvalue(L, fidx);
        lua_setfield(L, -2, "action");
        lua_pushstring(L, target_name(L, 4));
        lua_setfield(L, -2, "target");
        lua_newtable(L);
        for (int i = 5; i <= lua_gettop(L) - 2; i++) {
            lua_pushvalue(L, i);
            lua_rawseti(L, -2, i - 4);
        }
        lua_setfield(L, -2, "args");
    }
    if (!lw) {
        append_reg(L, K_ATS);
        return 0;
    }
    /* during the run: schedule now (relative to nothing: t is absolute) */
    int rec = lua_gettop(L);
    lcall *c = calloc(1, sizeof *c);
    if (!c)
        return luaL_error(L, "out of memory");
    c->lw = lw;
    c->next = lw->calls;
    lw->calls = c;
    snprintf(c->where, sizeof c->where, "%s", wh);
    lua_getfield(L, rec, "fn");
    c->fnref = luaL_ref(L, LUA_REGISTRYINDEX);
    if (lua_getfield(L, rec, "action") == LUA_TSTRING) {
        luaL_unref(L, LUA_REGISTRYINDEX, c->fnref);
        c->fnref = LUA_NOREF;
        snprintf(c->action, sizeof c->action, "%s", lua_tostring(L, -1));
        lua_getfield(L, rec, "target");
        snprintf(c->target, sizeof c->target, "%s", lua_tostring(L, -1));
        lua_pop(L, 1);
        lua_getfield(L, rec, "args");
        c->nargs = lua_rawlen(L, -1);
        for (size_t i = 0; i < c->nargs; i++) {
            lua_rawgeti(L, -1, (lua_Integer)i + 1);
            c->args[i] = lua_tonumber(L, -1);
            lua_pop(L, 1);
        }
        lua_pop(L, 1);
    }
    lua_pop(L, 1);
    sim_time now = sim_now(lw->engine);
    sim_time at;
    if (every) {
        c->period = sim_time_from_sec(t);
        at = start >= 0 ? sim_time_from_sec(start) : now + c->period;
    } else {
        at = sim_time_from_sec(t);
    }
    if (at < now)
        return luaL_error(L, "%s: time %f s is in the past (now %f s)", fn,
                          sim_time_to_sec(at), sim_time_to_sec(now));
    if (at <= lw->wc.duration && schedule_call(lw, c, at) != MTC_OK)
        return luaL_error(L, "%s: cannot schedule", fn);
    return 0;
}

static int s_at(lua_State *L) { return add_timed(L, 0); }
static int s_every(lua_State *L) { return add_timed(L, 1); }

static int s_now(lua_State *L)
{
    lworld *lw = current(L);
    lua_pushnumber(L, lw ? sim_time_to_sec(sim_now(lw->engine)) : 0.0);
    return 1;
}

/* sim:act(action, target, args...) */
static int s_act(lua_State *L)
{
    const char *a = luaL_checkstring(L, 2);
    return do_act(L, a, target_name(L, 3), 4);
}

/* sim:set(target, param, value) */
static int s_set(lua_State *L)
{
    lentity *e = luaL_testudata(L, 2, ENTITY_MT);
    if (!e) {
        const char *n = luaL_checkstring(L, 2);
        push_reg_table(L, K_NAMES);
        lua_getfield(L, -1, n);
        e = luaL_testudata(L, -1, ENTITY_MT);
        if (!e)
            return luaL_error(L, "sim:set: no entity named '%s'", n);
        lua_pop(L, 2);
    }
    return set_live(L, e, luaL_checkstring(L, 3), 4);
}

static int s_on_finish(lua_State *L)
{
    luaL_checktype(L, 2, LUA_TFUNCTION);
    lua_pushvalue(L, 2);
    append_reg(L, K_FINISH);
    return 0;
}

/* The cohort argument: nil (all), a 1-based index or a label. */
static size_t cohort_arg(lua_State *L, const sim_metric *m, int i)
{
    if (lua_isnoneornil(L, i))
        return SIM_ALL_COHORTS;
    size_t n = sim_metric_cohorts(m);
    if (lua_type(L, i) == LUA_TNUMBER) {
        lua_Integer k = luaL_checkinteger(L, i);
        luaL_argcheck(L, k >= 1 && (size_t)k <= n, i, "cohort out of range");
        return (size_t)k - 1;
    }
    const char *lab = luaL_checkstring(L, i);
    for (size_t k = 0; k < n; k++)
        if (!strcmp(sim_metric_cohort_label(m, k), lab))
            return k;
    luaL_error(L, "metric '%s' has no cohort '%s'", sim_metric_name(m), lab);
    return 0;
}

/* sim:metric(name [, cohort]): counter -> integer, gauge -> number,
 * histogram -> {count, sum, mean, min, max, p50, p90, p99}; nil if the
 * run has no such metric. */
static int s_metric(lua_State *L)
{
    lworld *lw = current(L);
    const char *name = luaL_checkstring(L, 2);
    if (!lw)
        return luaL_error(L, "sim:metric: metrics exist once the simulation "
                             "runs (use it in sim:at or sim:on_finish)");
    sim_metric *m = sim_metrics_find(lw->metrics, name);
    if (!m) {
        lua_pushnil(L);
        return 1;
    }
    size_t c = cohort_arg(L, m, 3);
    switch (sim_metric_kind(m)) {
    case SIM_METRIC_COUNTER:
        lua_pushinteger(L, sim_counter_value(m, c));
        return 1;
    case SIM_METRIC_GAUGE:
        lua_pushnumber(L, sim_gauge_value(m, c));
        return 1;
    default:
        break;
    }
    lua_createtable(L, 0, 8);
    lua_pushinteger(L, (lua_Integer)sim_hist_count(m, c));
    lua_setfield(L, -2, "count");
    static const struct { const char *k; double q; } qs[] = {
        {"p50", 0.5}, {"p90", 0.9}, {"p99", 0.99}};
    lua_pushnumber(L, sim_hist_sum(m, c));
    lua_setfield(L, -2, "sum");
    if (sim_hist_count(m, c)) {
        lua_pushnumber(L, sim_hist_mean(m, c));
        lua_setfield(L, -2, "mean");
        lua_pushnumber(L, sim_hist_min(m, c));
        lua_setfield(L, -2, "min");
        lua_pushnumber(L, sim_hist_max(m, c));
        lua_setfield(L, -2, "max");
        for (size_t i = 0; i < 3; i++) {
            lua_pushnumber(L, sim_hist_quantile(m, c, qs[i].q));
            lua_setfield(L, -2, qs[i].k);
        }
    }
    return 1;
}

/* sim:metrics() -> list of metric names */
static int s_metrics(lua_State *L)
{
    lworld *lw = current(L);
    lua_newtable(L);
    if (!lw)
        return 1;
    size_t n = sim_metrics_count(lw->metrics);
    for (size_t i = 0; i < n; i++) {
        lua_pushstring(L, sim_metric_name(sim_metrics_at(lw->metrics, i)));
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    return 1;
}

static int s_action_closure(lua_State *L)
{
    return do_act(L, lua_tostring(L, lua_upvalueindex(1)), target_name(L, 2), 3);
}

/* sim:<action>(target, args...) for every world action */
static int s_index(lua_State *L)
{
    const char *k = luaL_checkstring(L, 2);
    if (find_action(k)) {
        lua_pushvalue(L, 2);
        lua_pushcclosure(L, s_action_closure, 1);
        return 1;
    }
    return luaL_error(L, "sim has no method or action '%s'", k);
}

/* mtcsim.schemas(): {kind = {doc=, params={{name, type, unit, min, max,
 * doc, default}, ...}}} for teaching and the docs. */
static int l_schemas(lua_State *L)
{
    static const char *const tn[] = {"", "int", "real", "duration", "bool",
                                      "string", "enum", "dist", "profile",
                                      "list"};
    size_t n;
    const sim_param_schema *const *ss = sim_world_schemas(&n);
    lua_newtable(L);
    for (size_t i = 0; i < n; i++) {
        const sim_param_schema *s = ss[i];
        void *cfg = NULL;
        sim_param_config_new(s, &cfg);
        lua_newtable(L);
        lua_pushstring(L, s->doc);
        lua_setfield(L, -2, "doc");
        lua_newtable(L);
        for (size_t j = 0; j < s->count; j++) {
            const sim_param_desc *d = &s->params[j];
            lua_newtable(L);
            lua_pushstring(L, d->name);
            lua_setfield(L, -2, "name");
            lua_pushstring(L, tn[d->type]);
            lua_setfield(L, -2, "type");
            lua_pushstring(L, d->unit ? d->unit : "");
            lua_setfield(L, -2, "unit");
            lua_pushstring(L, d->doc ? d->doc : "");
            lua_setfield(L, -2, "doc");
            if (d->type == SIM_PARAM_INT || d->type == SIM_PARAM_REAL ||
                d->type == SIM_PARAM_DURATION) {
                lua_pushnumber(L, d->min);
                lua_setfield(L, -2, "min");
                lua_pushnumber(L, d->max);
                lua_setfield(L, -2, "max");
            }
            if (d->type == SIM_PARAM_ENUM && d->choices) {
                lua_newtable(L);
                for (int c = 0; d->choices[c]; c++) {
                    lua_pushstring(L, d->choices[c]);
                    lua_rawseti(L, -2, c + 1);
                }
                lua_setfield(L, -2, "choices");
            }
            if (cfg) {
                char buf[512];
                sim_param_format(d, cfg, buf, sizeof buf);
                lua_pushstring(L, buf);
                lua_setfield(L, -2, "default");
            }
            lua_rawseti(L, -2, (lua_Integer)j + 1);
        }
        lua_setfield(L, -2, "params");
        lua_setfield(L, -2, s->kind);
        sim_param_config_free(s, cfg);
    }
    return 1;
}

/* mtcsim.actions(): {{name, kind, min_args, max_args, args, doc}, ...} */
static int l_actions(lua_State *L)
{
    size_t n;
    const sim_world_action *a = sim_world_actions(&n);
    lua_createtable(L, (int)n, 0);
    for (size_t i = 0; i < n; i++) {
        lua_newtable(L);
        lua_pushstring(L, a[i].name);
        lua_setfield(L, -2, "name");
        lua_pushstring(L, a[i].kind);
        lua_setfield(L, -2, "kind");
        lua_pushinteger(L, (lua_Integer)a[i].min_args);
        lua_setfield(L, -2, "min_args");
        lua_pushinteger(L, (lua_Integer)a[i].max_args);
        lua_setfield(L, -2, "max_args");
        lua_pushstring(L, a[i].args_doc ? a[i].args_doc : "");
        lua_setfield(L, -2, "args");
        lua_pushstring(L, a[i].doc ? a[i].doc : "");
        lua_setfield(L, -2, "doc");
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    return 1;
}

void lworld_register(lua_State *L)
{
    luaL_newmetatable(L, RATE_MT);  /* filled in by mtcsim.lua */
    lua_setfield(L, -2, "rate_mt");
    if (luaL_newmetatable(L, ENTITY_MT)) {
        lua_pushcfunction(L, e_index);
        lua_setfield(L, -2, "__index");
        lua_pushcfunction(L, e_gc);
        lua_setfield(L, -2, "__gc");
        lua_pushcfunction(L, e_tostring);
        lua_setfield(L, -2, "__tostring");
    }
    lua_pop(L, 1);
    /* one constructor per kind */
    size_t n;
    const sim_param_schema *const *ss = sim_world_schemas(&n);
    for (size_t i = 0; i < n; i++) {
        lua_pushlightuserdata(L, (void *)ss[i]);
        lua_pushcclosure(L, l_declare, 1);
        lua_setfield(L, -2, ss[i]->kind);
    }
    lua_pushcfunction(L, l_schemas);
    lua_setfield(L, -2, "schemas");
    lua_pushcfunction(L, l_actions);
    lua_setfield(L, -2, "actions");
    /* the sim table */
    static const luaL_Reg sim[] = {
        {"at", s_at}, {"every", s_every}, {"now", s_now}, {"act", s_act},
        {"set", s_set}, {"metric", s_metric}, {"metrics", s_metrics},
        {"on_finish", s_on_finish}, {NULL, NULL}};
    luaL_newlib(L, sim);
    const lhost_config *c = lhost_get_config(lhost_of(L));
    lua_pushinteger(L, (lua_Integer)c->seed);
    lua_setfield(L, -2, "seed");
    lua_pushinteger(L, (lua_Integer)c->replication);
    lua_setfield(L, -2, "replication");
    lua_newtable(L);
    lua_pushcfunction(L, s_index);
    lua_setfield(L, -2, "__index");
    lua_setmetatable(L, -2);
    lua_pushvalue(L, -1);
    lua_setfield(L, LUA_REGISTRYINDEX, K_SIM);
    lua_setfield(L, -2, "sim");
}

/* ---- building and running ------------------------------------------------- */

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
    push_reg_table(L, K_ENTS);
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

int lworld_build(lhost *h, uint64_t seed, uint64_t replication,
                 const sim_shard *shard, lworld **out,
                 char *err, size_t errlen)
{
    lua_State *L = lhost_state(h);
    *out = NULL;
    lworld *lw = calloc(1, sizeof *lw);
    if (!lw)
        return MTC_ERR_NOMEM;
    lw->h = h;
    *out = lw;
    char e[1024];
    int rc;
    const sim_param_schema *ws = sim_world_schema("world");
    void *wcfg = NULL;
    if (lua_getfield(L, LUA_REGISTRYINDEX, K_WORLD) != LUA_TNIL) {
        lentity *we = lua_touserdata(L, -1);
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
        rc = sim_metrics_create(&lw->metrics, &mc, sim_engine_clock(lw->engine));
    if (rc != MTC_OK) {
        sim_param_config_free(ws, wcfg);
        snprintf(err, errlen, "cannot set up the run: %s", mtc_strerror(rc));
        return rc;
    }
    lw->shard = shard;
    sim_world_env env = {lw->engine, lw->metrics, lw->rng,
                         shard ? (uint32_t)shard->rank : 0,
                         shard ? (uint32_t)shard->size : 1};
    rc = sim_world_create(&lw->world, &env, wcfg, e, sizeof e);
    sim_param_config_free(ws, wcfg);
    if (rc != MTC_OK) {
        snprintf(err, errlen, "world: %s", e);
        return MTC_ERR_CONFIG;
    }
    /* entities, in declaration order */
    push_reg_table(L, K_ENTS);
    size_t n = lua_rawlen(L, -1);
    for (size_t i = 1; i <= n; i++) {
        lua_rawgeti(L, -1, (lua_Integer)i);
        lentity *en = lua_touserdata(L, -1);
        lua_pop(L, 1);
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
            snprintf(err, errlen, "%s%s%s '%s': %s", en->where, wsep(en->where),
                     en->schema->kind, en->name, e);
            return MTC_ERR_CONFIG;
        }
        en->index = rc;
    }
    lua_pop(L, 1);
    rc = sim_world_start(lw->world, e, sizeof e);
    if (rc != MTC_OK) {
        const char *w = blame(L, e);
        snprintf(err, errlen, "%s%s%s", w, wsep(w), e);
        return MTC_ERR_CONFIG;
    }
    /* timed actions declared by the scenario */
    lhost_set_user(h, lw);
    lw->running = 1;
    push_reg_table(L, K_ATS);
    n = lua_rawlen(L, -1);
    for (size_t i = 1; i <= n; i++) {
        lua_rawgeti(L, -1, (lua_Integer)i);
        int rec = lua_gettop(L);
        lcall *c = calloc(1, sizeof *c);
        if (!c) {
            lua_settop(L, rec - 2);
            return MTC_ERR_NOMEM;
        }
        c->lw = lw;
        c->next = lw->calls;
        lw->calls = c;
        c->fnref = LUA_NOREF;
        lua_getfield(L, rec, "where");
        snprintf(c->where, sizeof c->where, "%s", lua_tostring(L, -1));
        lua_getfield(L, rec, "t");
        double t = lua_tonumber(L, -1);
        lua_getfield(L, rec, "start");
        double start = lua_tonumber(L, -1);
        lua_getfield(L, rec, "every");
        int every = lua_toboolean(L, -1);
        lua_pop(L, 4);
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
            const sim_world_action *a = find_action(c->action);
            int idx = sim_world_find(lw->world, a->kind, c->target);
            if (idx < 0) {
                lua_settop(L, rec - 2);
                snprintf(err, errlen, "%s%ssim:at: action '%s' needs a %s, and "
                                      "there is no %s named '%s'", c->where,
                         wsep(c->where),
                         c->action, a->kind, a->kind, c->target);
                return MTC_ERR_CONFIG;
            }
        }
        lua_settop(L, rec - 1);
        sim_time at;
        if (every) {
            c->period = sim_time_from_sec(t);
            at = start >= 0 ? sim_time_from_sec(start) : c->period;
        } else {
            at = sim_time_from_sec(t);
        }
        if (!every && at > lw->wc.duration) {
            lua_pop(L, 1);
            snprintf(err, errlen, "%s%ssim:at: time %.17g s is after the end "
                                  "of the simulation (duration %.17g s)",
                     c->where, wsep(c->where), t,
                     sim_time_to_sec(lw->wc.duration));
            return MTC_ERR_CONFIG;
        }
        if (at <= lw->wc.duration && schedule_call(lw, c, at) != MTC_OK) {
            lua_pop(L, 1);
            snprintf(err, errlen, "%s%scannot schedule", c->where,
                     wsep(c->where));
            return MTC_ERR_NOMEM;
        }
    }
    lua_pop(L, 1);
    return MTC_OK;
}

static int stop_pred(sim_engine *sim, void *arg)
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
    sim_engine_set_stop_predicate(lw->engine, stop_pred, lw);
    sim_engine_set_stop_time(lw->engine, lw->wc.duration);
    int reason = sim_engine_run(lw->engine);
    int interrupted = interrupt && *interrupt && !lw->failed;
    if (reason < 0 && !lw->failed) {
        lw->failed = 1;
        snprintf(lw->err, sizeof lw->err, "engine: %s", mtc_strerror(reason));
    }
    sim_world_finish(lw->world);
    /* Sharded: every rank reaches this merge (it is collective), whatever
     * happened to its own shard; rank 0 then holds the whole run. */
    if (lw->shard && lw->shard->size > 1) {
        int mrc = sim_shard_merge_metrics(lw->shard, lw->metrics, &lw->merge_bytes);
        if (mrc != MTC_OK && !lw->failed && !interrupted) {
            lw->failed = 1;
            snprintf(lw->err, sizeof lw->err, "merging the shards' metrics: %s",
                     mtc_strerror(mrc));
        }
    }
    int finish_here = !lw->shard || lw->shard->rank == 0;
    if (!lw->failed && !interrupted && finish_here) {
        lua_State *L = lhost_state(lw->h);
        push_reg_table(L, K_FINISH);
        size_t n = lua_rawlen(L, -1);
        for (size_t i = 1; i <= n && !lw->failed; i++) {
            lua_rawgeti(L, -1, (lua_Integer)i);
            lua_getfield(L, LUA_REGISTRYINDEX, K_SIM);
            if (lhost_pcall(lw->h, 1, 0, lw->err, sizeof lw->err) != MTC_OK)
                lw->failed = 1;
        }
        lua_pop(L, 1);
    }
    lw->running = 0;
    lw->done = 1;
    if (lw->failed) {
        snprintf(err, errlen, "%s", lw->err);
        return MTC_ERR_CALLBACK;
    }
    if (interrupted) {
        snprintf(err, errlen, "interrupted at simulated time %.6g s",
                 sim_time_to_sec(sim_now(lw->engine)));
        return MTC_ERR_SIM_STATE;
    }
    return MTC_OK;
}

sim_metrics *lworld_metrics(lworld *lw) { return lw->metrics; }
size_t lworld_merge_bytes(const lworld *lw) { return lw->merge_bytes; }
sim_time lworld_duration(const lworld *lw) { return lw->wc.duration; }
sim_world *lworld_world(lworld *lw) { return lw->world; }
sim_engine *lworld_engine(lworld *lw) { return lw->engine; }

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
    for (size_t i = 0; i < lw->nparams; i++)
        free(lw->params[i].value);
    free(lw->params);
    free(lw);
}
