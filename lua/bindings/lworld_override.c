/*
 * lworld_override.c - `--set KIND.ENTITY.PARAM=VALUE`: an entity's
 * parameter set from the command line, whatever the scenario gives it (in
 * the manner of OMNeT++'s `**.rtt = ...`). Patterns: KIND.ENTITY.PARAM,
 * KIND.*.PARAM (every entity of KIND), *.PARAM (every entity that has
 * PARAM) and world.PARAM. Where several match one parameter the most
 * specific wins (a named entity over its kind, a kind over *).
 *
 * The host installs the list in the scenario's state before the scenario
 * runs (lworld_set_overrides); each constructor applies it after the
 * declaration's own values, through the same conversion and checks as a
 * scenario value (lworld__set_value, the kind's cross-field rules, the
 * plausible ranges), so an override is checked like a declaration, and
 * its messages name the option instead of a file:line. Apart from the
 * constructor because it is the command line's business, not the
 * scenario's.
 */
#include "lworld_internal.h"

#include <stdio.h>
#include <string.h>

#include <lauxlib.h>

#include "lplaus.h"
#include "mtc/error.h"
#include "sim/names.h"

#define K_OVERRIDES "mtcsim.overrides"   /* the installed list (userdata) */

typedef struct override {
    char kind[SIM_PARAM_NAME_MAX];      /* "" for * */
    char entity[SIM_PARAM_NAME_MAX];    /* "" for * (and the world) */
    char param[SIM_PARAM_NAME_MAX];
    const char *value;                  /* the command line's text */
    char option[SIM_PARAM_NAME_MAX * 3 + 8];   /* "--set browsers.b.rtt" */
    size_t matched;                     /* entities it was applied to */
} override;

typedef struct override_list {
    size_t n;
    override o[];
} override_list;

static override_list *list_of(lua_State *L)
{
    override_list *l = NULL;
    if (lua_getfield(L, LUA_REGISTRYINDEX, K_OVERRIDES) == LUA_TUSERDATA)
        l = lua_touserdata(L, -1);
    lua_pop(L, 1);
    return l;
}

/* The closest of the schemas' kind names to word, or NULL. */
static const char *suggest_kind(const char *word)
{
    size_t n = sim_world_kind_count();
    const char *c[64];
    size_t k = 0;
    for (size_t i = 0; i < n && k < 64; i++)
        c[k++] = sim_world_kind(i)->kind;
    return sim_name_closest(word, c, k);
}

static const char *suggest_param(const sim_param_schema *s, const char *word)
{
    const char *c[256];
    size_t k = 0;
    for (size_t i = 0; i < s->count && k < 256; i++)
        c[k++] = s->params[i].name;
    return sim_name_closest(word, c, k);
}

/* Parses one pattern into o; 0, or -1 with the reason in err. */
static int parse_pattern(const char *name, override *o, char *err, size_t errlen)
{
    char part[3][SIM_PARAM_NAME_MAX];
    int n = 0;
    const char *p = name;
    for (;;) {
        const char *dot = strchr(p, '.');
        size_t len = dot ? (size_t)(dot - p) : strlen(p);
        if (n == 3 || len == 0 || len >= SIM_PARAM_NAME_MAX) {
            snprintf(err, errlen, "expected KIND.ENTITY.PARAM, KIND.*.PARAM, "
                     "*.PARAM or world.PARAM");
            return -1;
        }
        memcpy(part[n], p, len);
        part[n++][len] = 0;
        if (!dot)
            break;
        p = dot + 1;
    }
    if (n == 1) {
        snprintf(err, errlen, "expected KIND.ENTITY.PARAM, KIND.*.PARAM, "
                 "*.PARAM or world.PARAM");
        return -1;
    }
    const char *kind = part[0], *param = part[n - 1];
    const char *entity = n == 3 ? part[1] : "*";
    if (n == 2 && strcmp(kind, "*") && strcmp(kind, "world")) {
        snprintf(err, errlen, "give the entity: %s.ENTITY.%s, or %s.*.%s for "
                 "every %s entity", kind, param, kind, param, kind);
        return -1;
    }
    if (n == 3 && !strcmp(kind, "world")) {
        snprintf(err, errlen, "the world has no name: world.%s", param);
        return -1;
    }
    if (strchr(param, '*')) {
        snprintf(err, errlen, "the parameter must be named, not '*'");
        return -1;
    }
    snprintf(o->kind, sizeof o->kind, "%s", strcmp(kind, "*") ? kind : "");
    snprintf(o->entity, sizeof o->entity, "%s", strcmp(entity, "*") ? entity : "");
    snprintf(o->param, sizeof o->param, "%s", param);
    if (o->kind[0]) {
        const sim_param_schema *s = sim_world_schema(o->kind);
        if (!s) {
            const char *sg = suggest_kind(o->kind);
            snprintf(err, errlen, "no entity kind '%s'%s%s%s (kinds: mtcsim "
                     "params)", o->kind, sg ? " (did you mean '" : "",
                     sg ? sg : "", sg ? "'?)" : "");
            return -1;
        }
        if (!sim_param_find(s, param) || !strcmp(param, "name")) {
            const char *sg = suggest_param(s, param);
            snprintf(err, errlen, "%s has no parameter '%s'%s%s%s (see mtcsim "
                     "params %s)", o->kind, param, sg ? " (did you mean '" : "",
                     sg ? sg : "", sg ? "'?)" : "", o->kind);
            return -1;
        }
    } else {
        size_t ns = sim_world_kind_count();
        int any = 0;
        for (size_t i = 0; i < ns && !any; i++)
            any = sim_param_find(sim_world_kind(i), param) != NULL;
        if (!any || !strcmp(param, "name")) {
            snprintf(err, errlen, "no entity kind has a parameter '%s' (see "
                     "mtcsim params)", param);
            return -1;
        }
    }
    return 0;
}

int lworld_set_overrides(lhost *h, const char *const *names,
                         const char *const *values, size_t n, char *err,
                         size_t errlen)
{
    lua_State *L = lhost_state(h);
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        k += strchr(names[i], '.') != NULL;
    override_list *l = lua_newuserdatauv(L, sizeof *l + k * sizeof l->o[0], 0);
    memset(l, 0, sizeof *l + k * sizeof l->o[0]);
    for (size_t i = 0; i < n; i++) {
        if (!strchr(names[i], '.'))
            continue;   /* a scenario parameter: the library's */
        override *o = &l->o[l->n];
        char why[400];
        if (parse_pattern(names[i], o, why, sizeof why)) {
            snprintf(err, errlen, "--set %s: %s", names[i], why);
            lua_pop(L, 1);
            return MTC_ERR_ARG;
        }
        for (size_t j = 0; j < l->n; j++)
            if (!strcmp(l->o[j].kind, o->kind) && !strcmp(l->o[j].entity, o->entity) &&
                !strcmp(l->o[j].param, o->param)) {
                snprintf(err, errlen, "--set %s: the same parameters as %s",
                         names[i], l->o[j].option);
                lua_pop(L, 1);
                return MTC_ERR_ARG;
            }
        o->value = values[i];
        snprintf(o->option, sizeof o->option, "--set %s", names[i]);
        l->n++;
    }
    lua_setfield(L, LUA_REGISTRYINDEX, K_OVERRIDES);
    return MTC_OK;
}

/* The override of (kind, entity, param) that wins, or NULL. */
static override *find(override_list *l, const char *kind, const char *entity,
                      const char *param)
{
    override *best = NULL;
    int bs = -1;
    for (size_t i = 0; l && i < l->n; i++) {
        override *o = &l->o[i];
        if (strcmp(o->param, param) || (o->kind[0] && strcmp(o->kind, kind)) ||
            (o->entity[0] && strcmp(o->entity, entity)))
            continue;
        int sc = (o->entity[0] ? 2 : 0) + (o->kind[0] ? 1 : 0);
        if (sc > bs) {
            bs = sc;
            best = o;
        }
    }
    return best;
}

/* Pushes the Lua value the override's text stands for, for parameter d: the
 * text itself for strings and names; otherwise the value of the text as an
 * expression in the scenario library's helpers (30, hours(2),
 * lognormal{median=30,sigma=0.5}, {"brotli"}, true), or the text when it
 * is no expression ("5h", "30ms": a quantity the conversion reads). */
static void push_value(lua_State *L, const sim_param_desc *d, const override *o)
{
    if (d->type == SIM_PARAM_STRING || d->type == SIM_PARAM_ENUM) {
        lua_pushstring(L, o->value);
        return;
    }
    int top = lua_gettop(L);
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    luaL_addstring(&b, "return ");
    luaL_addstring(&b, o->value);
    luaL_pushresult(&b);
    lua_pushfstring(L, "=%s", o->option);   /* errors say where: the option */
    if (luaL_loadbufferx(L, lua_tostring(L, -2), lua_rawlen(L, -2),
                         lua_tostring(L, -1), "t") == LUA_OK) {
        lua_newtable(L);                /* env: the library's helpers */
        lua_newtable(L);
        lhost_push_module(lhost_of(L));
        lua_setfield(L, -2, "__index");
        lua_setmetatable(L, -2);
        lua_setupvalue(L, -2, 1);
        lua_call(L, 0, 1);              /* its errors are the option's */
        if (!lua_isnil(L, -1)) {
            lua_replace(L, top + 1);
            lua_settop(L, top + 1);
            return;
        }
    }
    lua_settop(L, top);
    lua_pushstring(L, o->value);
}

int lworld__apply_overrides(lua_State *L, const sim_param_schema *s,
                            const char *entity, void *cfg, const char *label,
                            int given, size_t *applied, char *err, size_t errlen)
{
    override_list *l = list_of(L);
    *applied = 0;
    if (!l || !l->n)
        return MTC_OK;
    given = lua_absindex(L, given);
    int top = lua_gettop(L);
    for (size_t i = 0; i < s->count; i++) {
        const sim_param_desc *d = &s->params[i];
        override *o = find(l, s->kind, entity, d->name);
        if (!o)
            continue;
        push_value(L, d, o);
        char why[512];
        if (lworld__set_value(L, d, cfg, -1, why, sizeof why) != MTC_OK) {
            snprintf(err, errlen, "%s=%s: %s: %s", o->option, o->value, label, why);
            lua_settop(L, top);
            return SIM_ERR_CONFIG;
        }
        lua_pop(L, 1);
        o->matched++;
        (*applied)++;
        /* judged against its plausible range under the option's name; the
         * declaration's own value, replaced, is not judged */
        lua_pushnil(L);
        lua_setfield(L, given, d->name);
        lua_createtable(L, 0, 1);
        lua_pushboolean(L, 1);
        lua_setfield(L, -2, d->name);
        lplaus_check_entity(L, s, cfg, -1, label, o->option);
        lua_pop(L, 1);
    }
    return MTC_OK;
}

size_t lworld_override_count(lhost *h)
{
    override_list *l = list_of(lhost_state(h));
    return l ? l->n : 0;
}

size_t lworld_override_matched(lhost *h, size_t i, char *what, size_t n)
{
    lua_State *L = lhost_state(h);
    override_list *l = list_of(L);
    if (!l || i >= l->n)
        return 0;
    const override *o = &l->o[i];
    /* what it was meant to match, and the closest declared name */
    const char *c[256];
    size_t k = 0;
    int top = lua_gettop(L);
    if (o->entity[0] && lua_getfield(L, LUA_REGISTRYINDEX, K_NAMES) == LUA_TTABLE) {
        lua_pushnil(L);
        while (k < 256 && lua_next(L, -2)) {
            lentity *e = luaL_testudata(L, -1, ENTITY_MT);
            lua_pop(L, 1);
            if (e && (!o->kind[0] || !strcmp(e->schema->kind, o->kind)) &&
                lua_type(L, -1) == LUA_TSTRING)
                c[k++] = lua_tostring(L, -1);
        }
    }
    const char *sg = o->entity[0] ? sim_name_closest(o->entity, c, k) : NULL;
    if (o->entity[0])
        snprintf(what, n, "%s: the scenario declares no %s named '%s'%s%s%s",
                 o->option, o->kind[0] ? o->kind : "entity", o->entity,
                 sg ? " (did you mean '" : "", sg ? sg : "", sg ? "'?)" : "");
    else
        snprintf(what, n, "%s: the scenario declares no %s%s with a parameter "
                 "'%s'", o->option, o->kind[0] ? o->kind : "entity",
                 o->kind[0] ? " entity" : "", o->param);
    lua_settop(L, top);
    return o->matched;
}
