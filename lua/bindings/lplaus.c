/*
 * lplaus.c - the plausible range of the time parameters a unit slip hits
 * (seconds given where minutes, hours or days were meant), the warning a
 * declaration outside it earns, and the state's list of warnings.
 *
 * The ranges are in the parameters' descriptors (plaus_lo, plaus_hi,
 * plaus_what; sim/params.h), owned by the module that owns the kind:
 * advice about scenarios, not a rule of the model, so a value outside
 * is legal, merely improbable. Zero is never judged (it means "none" or
 * "never" for several of these parameters).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <lauxlib.h>

#include "lplaus.h"
#include "sim/dist.h"
#include "sim/engine.h"

#define K_WARN "mtcsim.warnings"

#define MIN 60.0
#define HOUR 3600.0
#define DAY 86400.0

typedef struct plaus {
    double lo, hi;          /* seconds */
    const char *what;       /* "the time between update checks" */
} plaus;

/* An action argument that is a duration (args_doc names it "..._s"). */
static const plaus action_duration = {MIN, 365 * DAY, "an outage"};

static void warn(lua_State *L, const char *msg)
{
    if (lua_getfield(L, LUA_REGISTRYINDEX, K_WARN) != LUA_TTABLE) {
        lua_pop(L, 1);
        lua_newtable(L);
        lua_pushvalue(L, -1);
        lua_setfield(L, LUA_REGISTRYINDEX, K_WARN);
    }
    lua_pushstring(L, msg);
    lua_rawseti(L, -2, (lua_Integer)lua_rawlen(L, -2) + 1);
    lua_pop(L, 1);
}

/* The warning for value v (seconds, > 0) against range p, or nothing. */
static void judge(lua_State *L, const plaus *p, double v, const char *where,
                  const char *label, const char *name)
{
    if (!(v > 0) || (v >= p->lo && v <= p->hi))
        return;
    char lo[32], hi[32], msg[768], mean[320] = "";
    sim_format_seconds(p->lo, lo, sizeof lo);
    sim_format_seconds(p->hi, hi, sizeof hi);
    /* what the number would be had it been written in another unit: the
     * one nearest the middle of the plausible range (geometric mean) */
    static const struct { const char *fn; double f; } units[] = {
        {"minutes", MIN}, {"hours", HOUR}, {"days", DAY}, {"milliseconds", 1e-3}};
    double mid = sqrt(p->lo * p->hi), bd = INFINITY;
    for (int i = 0; i < 4; i++) {
        double m = v * units[i].f, d = fabs(log(m / mid));
        if (m >= p->lo && m <= p->hi && d < bd) {
            bd = d;
            snprintf(mean, sizeof mean, "; did you mean %s(%g) = %.15g s",
                     units[i].fn, v, m);
        }
    }
    snprintf(msg, sizeof msg, "%s%s%s: %s = %g s is implausibly %s for %s "
             "(plausible: %s .. %s)%s%s", where, *where ? ": " : "", label, name,
             v, v < p->lo ? "short" : "long", p->what, lo, hi, mean,
             mean[0] ? "?" : "");
    warn(L, msg);
}

void lplaus_check_entity(lua_State *L, const sim_param_schema *s,
                         const void *cfg, int tidx, const char *label,
                         const char *where)
{
    tidx = lua_absindex(L, tidx);
    for (size_t i = 0; i < s->count; i++) {
        const sim_param_desc *d = &s->params[i];
        if (!(d->plaus_hi > 0))
            continue;
        int given = lua_getfield(L, tidx, d->name) != LUA_TNIL;
        lua_pop(L, 1);
        if (!given)
            continue;
        const char *f = (const char *)cfg + d->offset;
        double v;
        if (d->type == SIM_PARAM_DURATION)
            v = sim_time_to_sec(*(const sim_time *)f);
        else if (d->type == SIM_PARAM_DIST && *(sim_dist *const *)f)
            v = sim_dist_mean(*(sim_dist *const *)f);
        else if (d->type == SIM_PARAM_REAL)
            v = *(const double *)f;
        else
            continue;
        const plaus p = {d->plaus_lo, d->plaus_hi, d->plaus_what};
        judge(L, &p, v, where, label, d->name);
    }
}

void lplaus_check_action(lua_State *L, const sim_world_action *a, int first,
                         int n, const char *where)
{
    /* args_doc names the arguments in order: "duration_s" */
    const char *doc = a->args_doc ? a->args_doc : "";
    for (int i = 0; i < n; i++) {
        char word[64] = "";
        int w = 0;
        while (*doc == ' ' || *doc == '[' || *doc == ']')
            doc++;
        while (*doc && *doc != ' ' && w < 63)
            word[w++] = *doc++;
        word[w] = '\0';
        size_t l = strlen(word);
        while (l && word[l - 1] == ']')
            word[--l] = '\0';
        if (l > 2 && !strcmp(word + l - 2, "_s") &&
            lua_type(L, first + i) == LUA_TNUMBER) {
            char label[160];
            snprintf(label, sizeof label, "sim:at '%s'", a->name);
            judge(L, &action_duration, lua_tonumber(L, first + i), where, label,
                  word);
        }
    }
}

size_t lplaus_count(lua_State *L)
{
    size_t n = 0;
    if (lua_getfield(L, LUA_REGISTRYINDEX, K_WARN) == LUA_TTABLE)
        n = lua_rawlen(L, -1);
    lua_pop(L, 1);
    return n;
}

const char *lplaus_get(lua_State *L, size_t i)
{
    const char *s = NULL;
    if (lua_getfield(L, LUA_REGISTRYINDEX, K_WARN) == LUA_TTABLE) {
        lua_rawgeti(L, -1, (lua_Integer)i + 1);
        s = lua_tostring(L, -1);   /* kept alive by the table */
        lua_pop(L, 1);
    }
    lua_pop(L, 1);
    return s ? s : "";
}
