/*
 * run_plan.c - the Lua side of `mtcsim run`: a fresh scenario state for one
 * (point, replication), and the plan its declarations reveal (params, sweep
 * axes, replications), with --params' listing. Separate from the run loop:
 * it only reads the scenario, never builds or runs a world.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>

#include "host.h"
#include "lsuggest.h"
#include "run_internal.h"
#include "mtc/error.h"

#define MAX_POINTS 100000

/* ---- small helpers -------------------------------------------------------- */

static char *xstrdup(const char *s)
{
    char *d = strdup(s ? s : "");
    if (!d) {
        fprintf(stderr, "mtcsim: out of memory\n");
        exit(HOST_FAIL);
    }
    return d;
}

static void sval_format(const sval *v, char *buf, size_t n)
{
    if (v->type == LUA_TNUMBER) {
        if (v->is_int) {
            snprintf(buf, n, "%lld", (long long)v->i);
        } else {
            /* the shortest form that reads back exactly */
            snprintf(buf, n, "%.15g", v->d);
            if (strtod(buf, NULL) != v->d)
                snprintf(buf, n, "%.17g", v->d);
        }
    } else if (v->type == LUA_TBOOLEAN) {
        snprintf(buf, n, "%s", v->b ? "true" : "false");
    } else {
        snprintf(buf, n, "%s", v->s ? v->s : "");
    }
}

static void sval_read(lua_State *L, int idx, sval *v)
{
    memset(v, 0, sizeof *v);
    v->type = lua_type(L, idx);
    if (v->type == LUA_TNUMBER) {
        v->is_int = lua_isinteger(L, idx);
        v->i = lua_tointeger(L, idx);
        v->d = lua_tonumber(L, idx);
    } else if (v->type == LUA_TBOOLEAN) {
        v->b = lua_toboolean(L, idx);
    } else {
        v->type = LUA_TSTRING;
        v->s = xstrdup(lua_tostring(L, idx));
    }
}

static void sval_push(lua_State *L, const sval *v)
{
    if (v->type == LUA_TNUMBER) {
        if (v->is_int)
            lua_pushinteger(L, v->i);
        else
            lua_pushnumber(L, v->d);
    } else if (v->type == LUA_TBOOLEAN) {
        lua_pushboolean(L, v->b);
    } else {
        lua_pushstring(L, v->s);
    }
}

/* Which value of each axis point p takes (first axis slowest). */
static size_t axis_index(const plan *pl, size_t p, size_t a)
{
    size_t stride = 1;
    for (size_t k = pl->naxes; k-- > a + 1;)
        stride *= pl->axes[k].n;
    return (p / stride) % pl->axes[a].n;
}

void run_point_label(const plan *pl, size_t p, char *buf, size_t n)
{
    size_t k = 0;
    buf[0] = 0;
    for (size_t a = 0; a < pl->naxes && k < n; a++) {
        char v[128];
        sval_format(&pl->axes[a].v[axis_index(pl, p, a)], v, sizeof v);
        k += (size_t)snprintf(buf + k, n - k, "%s%s=%s", a ? " " : "",
                              pl->axes[a].name, v);
    }
}

/* ---- the Lua side of a run ----------------------------------------------- */

/* A fresh state with the scenario executed for (point, replication).
 * pl may be NULL (the planning execution: no point). */
lhost *run_scenario_state(const run_opts *o, const plan *pl, size_t p,
                          uint64_t rep, char *err, size_t errlen)
{
    lhost_config cfg = {o->unsafe, o->scenario, o->seed, rep, o->max_instr,
                        (size_t)o->max_mem_mb << 20, o->out ? o->out_dir : NULL};
    lhost *h = lhost_create(&cfg, err, errlen);
    if (!h)
        return NULL;
    lua_State *L = lhost_state(h);
    lhost_push_module(h);
    lua_getfield(L, -1, "_configure");
    lua_remove(L, -2);
    lua_newtable(L);
    for (size_t i = 0; i < o->nsets; i++) {
        lua_pushstring(L, o->set_value[i]);
        lua_setfield(L, -2, o->set_name[i]);
    }
    lua_newtable(L);
    for (size_t a = 0; pl && a < pl->naxes; a++) {
        sval_push(L, &pl->axes[a].v[axis_index(pl, p, a)]);
        lua_setfield(L, -2, pl->axes[a].name);
    }
    if (lhost_pcall(h, 2, 0, err, errlen) != MTC_OK ||
        lhost_run_file(h, o->scenario, err, errlen) != MTC_OK) {
        lhost_destroy(h);
        return NULL;
    }
    return h;
}

static char *field_str(lua_State *L, int t, const char *k)
{
    lua_getfield(L, t, k);
    char *r;
    if (lua_type(L, -1) == LUA_TNUMBER || lua_type(L, -1) == LUA_TBOOLEAN) {
        sval v;
        char buf[64];
        sval_read(L, -1, &v);
        sval_format(&v, buf, sizeof buf);
        r = xstrdup(buf);
    } else {
        r = xstrdup(lua_tostring(L, -1));
    }
    lua_pop(L, 1);
    return r;
}

/* The declared parameter closest to a misspelt name, or NULL. */
static const char *suggest_param(const plan *pl, const char *name)
{
    const char *c[256];
    size_t n = 0;
    for (size_t k = 0; k < pl->nparams && n < 256; k++)
        c[n++] = pl->params[k].name;
    return lsuggest_closest(name, c, n);
}

/* Reads params, sweeps and replications from the planning state and
 * checks --set names. HOST_OK or HOST_USAGE (message printed). */
int run_make_plan(const run_opts *o, lhost *h, plan *pl)
{
    lua_State *L = lhost_state(h);
    char err[4096];
    lhost_push_module(h);
    lua_getfield(L, -1, "_declared");
    lua_remove(L, -2);
    if (lhost_pcall(h, 0, 1, err, sizeof err) != MTC_OK) {
        fprintf(stderr, "mtcsim run: %s\n", err);
        return HOST_USAGE;
    }
    int t = lua_gettop(L);
    lua_getfield(L, t, "params");
    pl->nparams = lua_rawlen(L, -1);
    pl->params = calloc(pl->nparams + 1, sizeof *pl->params);
    for (size_t i = 0; i < pl->nparams; i++) {
        lua_rawgeti(L, -1, (lua_Integer)i + 1);
        int pt = lua_gettop(L);
        sparam *sp = &pl->params[i];
        sp->name = field_str(L, pt, "name");
        sp->doc = field_str(L, pt, "doc");
        sp->value = field_str(L, pt, "value");
        sp->def = field_str(L, pt, "default");
        sp->source = field_str(L, pt, "source");
        lua_pop(L, 1);
    }
    lua_pop(L, 1);
    for (size_t i = 0; i < o->nsets; i++) {
        int found = 0;
        for (size_t k = 0; k < pl->nparams; k++)
            found |= !strcmp(pl->params[k].name, o->set_name[i]);
        if (!found) {
            fprintf(stderr, "mtcsim run: --set %s: the scenario declares no "
                            "parameter '%s' (declared:", o->set_name[i],
                    o->set_name[i]);
            for (size_t k = 0; k < pl->nparams; k++)
                fprintf(stderr, " %s", pl->params[k].name);
            const char *sg = suggest_param(pl, o->set_name[i]);
            fprintf(stderr, "%s)%s%s%s\n", pl->nparams ? "" : " none",
                    sg ? " (did you mean '" : "", sg ? sg : "", sg ? "'?)" : "");
            return HOST_USAGE;
        }
    }
    lua_getfield(L, t, "sweeps");
    size_t ns = lua_rawlen(L, -1);
    pl->axes = calloc(ns + 1, sizeof *pl->axes);
    pl->npoints = 1;
    for (size_t i = 0; i < ns; i++) {
        lua_rawgeti(L, -1, (lua_Integer)i + 1);
        int st = lua_gettop(L);
        char *name = field_str(L, st, "name");
        int fixed = 0, declared = 0;
        for (size_t k = 0; k < o->nsets; k++)
            fixed |= !strcmp(o->set_name[k], name);
        for (size_t k = 0; k < pl->nparams; k++)
            declared |= !strcmp(pl->params[k].name, name);
        if (!declared) {
            const char *sg = suggest_param(pl, name);
            fprintf(stderr, "mtcsim run: sweep '%s' has no param('%s', ...) "
                            "that uses it%s%s%s\n", name, name,
                    sg ? " (did you mean '" : "", sg ? sg : "", sg ? "'?)" : "");
            free(name);
            return HOST_USAGE;
        }
        if (fixed) {
            free(name);
            lua_pop(L, 1);
            continue;
        }
        axis *ax = &pl->axes[pl->naxes++];
        ax->name = name;
        lua_getfield(L, st, "values");
        ax->n = lua_rawlen(L, -1);
        ax->v = calloc(ax->n, sizeof *ax->v);
        for (size_t k = 0; k < ax->n; k++) {
            lua_rawgeti(L, -1, (lua_Integer)k + 1);
            sval_read(L, -1, &ax->v[k]);
            lua_pop(L, 1);
        }
        lua_pop(L, 2);
        if (pl->npoints > MAX_POINTS / (ax->n ? ax->n : 1)) {
            fprintf(stderr, "mtcsim run: the sweep grid exceeds %d points\n",
                    MAX_POINTS);
            return HOST_USAGE;
        }
        pl->npoints *= ax->n;
    }
    lua_pop(L, 1);
    lua_getfield(L, t, "replications");
    pl->reps = o->reps > 0 ? o->reps
               : lua_isinteger(L, -1) ? (long)lua_tointeger(L, -1) : 1;
    lua_settop(L, t - 1);
    return HOST_OK;
}

void run_free_plan(plan *pl)
{
    for (size_t i = 0; i < pl->nparams; i++) {
        free(pl->params[i].name);
        free(pl->params[i].doc);
        free(pl->params[i].value);
        free(pl->params[i].def);
        free(pl->params[i].source);
    }
    free(pl->params);
    for (size_t a = 0; a < pl->naxes; a++) {
        for (size_t k = 0; k < pl->axes[a].n; k++)
            free(pl->axes[a].v[k].s);
        free(pl->axes[a].v);
        free(pl->axes[a].name);
    }
    free(pl->axes);
}

/* The effective scenario parameters of the state (after the script). */
int run_scenario_params(lhost *h, plan *tmp)
{
    memset(tmp, 0, sizeof *tmp);
    run_opts none = {0};
    return run_make_plan(&none, h, tmp);
}

void run_list_params(const plan *pl)
{
    printf("%-24s %-16s %-16s %s\n", "parameter", "value", "default", "doc");
    for (size_t i = 0; i < pl->nparams; i++)
        printf("%-24s %-16s %-16s %s\n", pl->params[i].name,
               pl->params[i].value, pl->params[i].def, pl->params[i].doc);
    for (size_t a = 0; a < pl->naxes; a++) {
        printf("sweep %s:", pl->axes[a].name);
        for (size_t k = 0; k < pl->axes[a].n; k++) {
            char v[128];
            sval_format(&pl->axes[a].v[k], v, sizeof v);
            printf(" %s", v);
        }
        printf("\n");
    }
    printf("points %zu, replications %ld, runs %zu\n", pl->npoints, pl->reps,
           pl->npoints * (size_t)pl->reps);
}
