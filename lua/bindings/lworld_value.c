/*
 * lworld_value.c - converting a Lua value through a parameter descriptor:
 * numbers, rates with units, strings, distributions, profiles and lists.
 * Separate because it depends only on the schema types, not on entities.
 */
#include "lworld_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include <lauxlib.h>

#include "lunits.h"
#include "mtc/error.h"

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

/* 1 when the value at idx is a plain list: a table without a metatable
 * whose keys are exactly 1..#t. Anything else given to a list (a rate, a
 * table of named fields, a list with holes) would be read as a shorter
 * list than the scenario meant, silently. */
static int is_sequence(lua_State *L, int idx)
{
    if (lua_type(L, idx) != LUA_TTABLE)
        return 0;
    if (lua_getmetatable(L, idx)) {
        lua_pop(L, 1);
        return 0;
    }
    lua_Unsigned n = lua_rawlen(L, idx), keys = 0;
    lua_pushnil(L);
    while (lua_next(L, idx)) {
        lua_pop(L, 1);
        if (!lua_isinteger(L, -1) || lua_tointeger(L, -1) < 1 ||
            (lua_Unsigned)lua_tointeger(L, -1) > n) {
            lua_pop(L, 1);
            return 0;
        }
        keys++;
    }
    return keys == n;
}

/*
 * The number a numeric parameter gets from the value at idx: a plain
 * number is taken in the parameter's own unit; a rate (per_hour(30)...)
 * is converted to it, so `visits_per_hour = per_day(240)` and
 * `rate = per_day(6e6)` (a 1/s parameter) both mean what they say.
 * 1 with *v set, 0 when the value is not a number or rate, -1 on a unit
 * mismatch (message in err).
 */
int lworld__number_for(lua_State *L, const sim_param_desc *d, int idx,
                       double *v, char *err, size_t errlen)
{
    if (lua_type(L, idx) == LUA_TNUMBER) {
        *v = lua_tonumber(L, idx);
        return 1;
    }
    if (lua_type(L, idx) == LUA_TSTRING) {  /* a literal: "5h", "6e6/d" */
        size_t len;
        const char *s = lua_tolstring(L, idx, &len);
        if (strlen(s) != len) {     /* "5h\0x" must not read as "5h" */
            snprintf(err, errlen, "%s: '%s...' is not a quantity: it contains a "
                     "NUL byte", d->name, s);
            return -1;
        }
        return lunits_for_param(s, d->name, d->unit, v, err, errlen);
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
int lworld__set_value(lua_State *L, const sim_param_desc *d, void *cfg,
                      int idx, char *err, size_t errlen)
{
    idx = lua_absindex(L, idx);
    int t = lua_type(L, idx);
    switch (d->type) {
    case SIM_PARAM_INT:
    case SIM_PARAM_REAL:
    case SIM_PARAM_DURATION: {
        double v;
        int k = lworld__number_for(L, d, idx, &v, err, errlen);
        if (k < 0)
            return SIM_ERR_CONFIG;
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
        if (t == LUA_TSTRING) {   /* "30min": a constant with its unit */
            double v;
            int k = lworld__number_for(L, d, idx, &v, err, errlen);
            if (k < 0)
                return SIM_ERR_CONFIG;
            if (k == 0)
                break;
            if (!isfinite(v)) {
                snprintf(err, errlen, "%s: a constant distribution must be finite "
                         "(got %g)", d->name, v);
                return SIM_ERR_CONFIG;
            }
            lua_pushnumber(L, v);
            int rc = sim_param_set_dist(d, cfg, ldist_instance(L, -1), err, errlen);
            lua_pop(L, 1);
            return rc;
        }
        if (t != LUA_TNUMBER && !ldist_is(L, idx))
            break;
        if (t == LUA_TNUMBER && !isfinite(lua_tonumber(L, idx))) {
            snprintf(err, errlen, "%s: a constant distribution must be finite "
                     "(got %g)", d->name, lua_tonumber(L, idx));
            return SIM_ERR_CONFIG;
        }
        return sim_param_set_dist(d, cfg, ldist_instance(L, idx), err, errlen);
    case SIM_PARAM_PROFILE: {
        if (!is_sequence(L, idx))
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
        if (!is_sequence(L, idx))
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
        "a list of 24 hourly weights",
        "a list of names ({a, b, ...}, no other keys)"};
    snprintf(err, errlen, "%s: expected %s, got %s", d->name,
             d->type >= 1 && d->type <= SIM_PARAM_LIST ? expect[d->type] : "?",
             luaL_typename(L, idx));
    return MTC_ERR_ARG;
}
