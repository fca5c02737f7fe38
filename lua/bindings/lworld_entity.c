/*
 * lworld_entity.c - what a scenario declares: mtcsim.<kind>{...} (one
 * constructor per schema) and the entity handles (e:get/set/act, action
 * methods). Apart from the sim table, which shares set_live and do_act.
 */
#include "lworld_internal.h"

#include <stdio.h>
#include <string.h>

#include <lauxlib.h>

#include "lplaus.h"
#include "sim/names.h"
#include "mtc/error.h"

static const char *suggest(const sim_param_schema *s, const char *k)
{
    const char *best = NULL;
    size_t bd = 3;
    for (size_t i = 0; i < s->count; i++) {
        size_t d = sim_name_distance(k, s->params[i].name);
        if (d < bd) {
            bd = d;
            best = s->params[i].name;
        }
    }
    return best;
}

/* A finalized handle can still be reached (a finalizer may resurrect it,
 * and --unsafe has debug.getmetatable), so every method refuses one whose
 * __gc ran instead of reading the configuration it no longer owns. */
/* A name is recorded inside lists ("[w1,w2]"), shares ("le:0.57") and
 * cohort labels, so it may not contain their separators: letters,
 * digits, '_', '-' and '.' only. NULL when fine, else what is wrong. */
static const char *bad_name(const char *n, size_t len)
{
    if (len == 0)
        return "is empty";
    if (len >= SIM_PARAM_NAME_MAX)
        return "is longer than 63 characters";
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)n[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
              (c >= '0' && c <= '9') || c == '_' || c == '-' || c == '.'))
            return "may contain only letters, digits, '_', '-' and '.' "
                   "(',' ':' and the like would make recorded lists "
                   "ambiguous)";
    }
    return NULL;
}

static lentity *check_entity(lua_State *L, int i)
{
    lentity *e = luaL_checkudata(L, i, ENTITY_MT);
    if (e->released)
        luaL_error(L, "%s '%s' already released", e->schema->kind, e->name);
    return e;
}

static const char *entity_label(const lentity *e, char *buf, size_t n)
{
    if (!strcmp(e->schema->kind, "world"))
        snprintf(buf, n, "world");
    else
        snprintf(buf, n, "%s '%s'", e->schema->kind, e->name);
    return buf;
}

/* ---- declarations: mtcsim.<kind>{...} ------------------------------------- */

static int e_gc(lua_State *L)
{
    lentity *e = luaL_checkudata(L, 1, ENTITY_MT);
    sim_param_config_free(e->schema, e->cfg);
    e->cfg = NULL;
    e->released = 1;
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
    if (lworld__current(L))
        return luaL_error(L, "mtcsim.%s: entities are declared by the scenario, "
                             "not while the simulation runs", s->kind);
    lentity *e = lua_newuserdatauv(L, sizeof *e, 0);
    memset(e, 0, sizeof *e);
    e->schema = s;
    e->index = -1;
    luaL_setmetatable(L, ENTITY_MT);
    int eidx = lua_gettop(L);
    lworld__where(L, 1, e->where);
    if (sim_param_config_new(s, &e->cfg) != MTC_OK)
        return luaL_error(L, "out of memory");

    lua_getfield(L, 1, "name");
    if (lua_type(L, -1) == LUA_TSTRING) {
        size_t len;
        const char *n = lua_tolstring(L, -1, &len);
        const char *why = bad_name(n, len);
        if (why && (!is_world || len))
            return luaL_error(L, "mtcsim.%s: name '%s' %s", s->kind,
                              lua_tostring(L, -1), why);
        snprintf(e->name, sizeof e->name, "%s", n);
    } else if (!is_world)
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
    lua_createtable(L, 0, 8);       /* the keys given, for lplaus */
    int given = lua_gettop(L);
    for (size_t i = 0; i < s->count; i++) {
        const sim_param_desc *d = &s->params[i];
        lua_getfield(L, 1, d->name);
        if (!lua_isnil(L, -1) &&
            lworld__set_value(L, d, e->cfg, -1, err, sizeof err))
            return luaL_error(L, "%s: %s", label, err);
        if (!lua_isnil(L, -1)) {
            lua_pushboolean(L, 1);
            lua_setfield(L, given, d->name);
        }
        lua_pop(L, 1);
    }
    /* the command line's --set KIND.ENTITY.PARAM, over the declaration */
    size_t applied;
    if (lworld__apply_overrides(L, s, e->name, e->cfg, label, given, &applied,
                                err, sizeof err) != MTC_OK) {
        lua_pushstring(L, err);     /* the option is the place, not a line */
        return lua_error(L);
    }
    if (s->validate && s->validate(e->cfg, err, sizeof err) != MTC_OK)
        return luaL_error(L, "%s: %s%s", label, err, applied ? " (with this "
                          "command line's --set of its parameters)" : "");
    lplaus_check_entity(L, s, e->cfg, given, label, e->where);   /* unit slips */

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
        lworld__push_reg_table(L, K_NAMES);
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
        lworld__append_reg(L, K_ENTS);
    }
    lua_settop(L, eidx);
    return 1;
}

/* ---- entity methods ------------------------------------------------------- */

static const void *entity_cfg(lua_State *L, lentity *e)
{
    lworld *lw = lworld__current(L);
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
int lworld__do_act(lua_State *L, const char *action, const char *target,
                   int first_arg)
{
    lworld *lw = lworld__current(L);
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
    if (lworld__charge_action(lw, action, err, sizeof err) ||
        sim_world_act(lw->world, action, target, args, (size_t)n, err,
                      sizeof err) != MTC_OK)
        return luaL_error(L, "%s on '%s': %s", action, target, err);
    return 0;
}

/* e:act(action, args...) */
static int e_act(lua_State *L)
{
    lentity *e = check_entity(L, 1);
    const char *a = luaL_checkstring(L, 2);
    return lworld__do_act(L, a, e->name, 3);
}

/* Live parameter change (during the run), or a declaration-time update. */
int lworld__set_live(lua_State *L, lentity *e, const char *p, int vidx)
{
    lworld *lw = lworld__current(L);
    char err[512], label[128];
    entity_label(e, label, sizeof label);
    if (e->released)
        return luaL_error(L, "%s already released", label);
    if (!lw) {
        const sim_param_desc *d = sim_param_find(e->schema, p);
        if (!d)
            return luaL_error(L, "%s: unknown parameter '%s'", label, p);
        if (!e->cfg || lworld__set_value(L, d, e->cfg, vidx, err, sizeof err))
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
        int k = lworld__number_for(L, d, vidx, &v, err, sizeof err);
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
    return lworld__set_live(L, e, luaL_checkstring(L, 2), 3);
}

static int e_action_closure(lua_State *L)
{
    lentity *e = check_entity(L, 1);
    return lworld__do_act(L, lua_tostring(L, lua_upvalueindex(1)), e->name, 2);
}

const sim_world_action *lworld__find_action(const char *name)
{
    const sim_world_action *a;
    for (size_t i = 0; (a = sim_world_action_at(i)) != NULL; i++)
        if (!strcmp(a->name, name))
            return a;
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
        const sim_world_action *a = lworld__find_action(k);
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
    lentity *e = luaL_checkudata(L, 1, ENTITY_MT);
    char label[128];
    lua_pushfstring(L, "%s%s", entity_label(e, label, sizeof label),
                    e->released ? " (released)" : "");
    return 1;
}

/* The entity metatable and one constructor per kind, into the table on
 * top (mtcsim). */
void lworld__entity_register(lua_State *L)
{
    if (luaL_newmetatable(L, ENTITY_MT)) {
        lua_pushcfunction(L, e_index);
        lua_setfield(L, -2, "__index");
        lua_pushcfunction(L, e_gc);
        lua_setfield(L, -2, "__gc");
        lua_pushcfunction(L, e_tostring);
        lua_setfield(L, -2, "__tostring");
        /* protected: a scenario that could read the metatable could call
         * __gc on a live entity and free its configuration */
        lua_pushliteral(L, ENTITY_MT);
        lua_setfield(L, -2, "__metatable");
    }
    lua_pop(L, 1);
    /* one constructor per kind */
    const sim_param_schema *s;
    for (size_t i = 0; (s = sim_world_kind(i)) != NULL; i++) {
        lua_pushlightuserdata(L, (void *)s);
        lua_pushcclosure(L, l_declare, 1);
        lua_setfield(L, -2, s->kind);
    }
}
