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
#include "lworld.h"
#include "sim/names.h"
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
                        (size_t)o->max_mem_mb << 20, o->out ? o->out_dir : NULL,
                        o->traceback};
    lhost *h = lhost_create(&cfg, err, errlen);
    if (!h)
        return NULL;
    lhost_set_interrupt(h, o->interrupt);
    lhost_set_account(h, o->account);
    lhost_set_chain_cache(h, o->chains);
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
    lua_newtable(L);
    for (size_t i = 0; i < o->nsweeps; i++) {
        lua_pushstring(L, o->sweep_value[i]);
        lua_setfield(L, -2, o->sweep_name[i]);
    }
    if (lhost_pcall(h, 3, 0, err, errlen) != MTC_OK ||
        lworld_set_overrides(h, o->set_name, o->set_value, o->nsets, err,
                             errlen) != MTC_OK ||
        lhost_run_file(h, o->scenario, err, errlen) != MTC_OK) {
        lhost_destroy(h);
        return NULL;
    }
    return h;
}

/*
 * Reading what the scenario declared. mtcsim._declared is a field of a
 * table the scenario can write to, so its result is data from the
 * scenario like any other: it is read inside a protected call (an
 * allocation failure cannot escape), with raw accesses only (no
 * metamethod of the scenario runs), and every field is type-checked
 * before the host allocates anything sized by it.
 */
typedef struct plan_reader {
    plan *pl;
    axis *sweeps;           /* every declared sweep, fixed ones included */
    size_t nsweeps;
    char msg[512];          /* a malformed declaration: why */
} plan_reader;

/* Pushes t[k] without metamethods; returns its type. */
static int raw_field(lua_State *L, int t, const char *k)
{
    lua_pushstring(L, k);
    return lua_rawget(L, t);
}

/* 0 with *out set (NULL for nil), -1 for a type other than string,
 * number or boolean. */
static int scalar_str(lua_State *L, int idx, char **out)
{
    int ty = lua_type(L, idx);
    *out = NULL;
    if (ty == LUA_TNIL)
        return 0;
    if (ty == LUA_TNUMBER || ty == LUA_TBOOLEAN) {
        sval v;
        char buf[64];
        sval_read(L, idx, &v);
        sval_format(&v, buf, sizeof buf);
        *out = xstrdup(buf);
        return 0;
    }
    if (ty != LUA_TSTRING)
        return -1;
    *out = xstrdup(lua_tostring(L, idx));
    return 0;
}

/* The length of the sequence at idx (a table without a metatable), or -1. */
static lua_Integer raw_list_len(lua_State *L, int idx, lua_Integer max)
{
    if (lua_type(L, idx) != LUA_TTABLE || lua_getmetatable(L, idx)) {
        if (lua_type(L, idx) == LUA_TTABLE)
            lua_pop(L, 1);
        return -1;
    }
    lua_Integer n = (lua_Integer)lua_rawlen(L, idx);
    return n > max ? -1 : n;
}

#define MAX_PARAMS 10000
#define MAX_SWEEPS 64
#define MAX_RUNS 1000000L

/* lua_CFunction: (declared table, plan_reader *) -> 0 or 1 results: a
 * false value means "malformed" (reason in pr->msg). Raises only for
 * memory errors. Everything it allocates hangs off pr at once, so the
 * caller frees it whatever happens. */
static int read_declared(lua_State *L)
{
    plan_reader *pr = lua_touserdata(L, 2);
    plan *pl = pr->pl;
    if (lua_type(L, 1) != LUA_TTABLE) {
        snprintf(pr->msg, sizeof pr->msg, "the scenario's declarations are a "
                 "%s, not a table (was mtcsim._declared replaced?)",
                 luaL_typename(L, 1));
        lua_pushboolean(L, 0);
        return 1;
    }
    lua_settop(L, 1);
    raw_field(L, 1, "params");
    lua_Integer np = lua_isnil(L, 2) ? 0 : raw_list_len(L, 2, MAX_PARAMS);
    if (np < 0) {
        snprintf(pr->msg, sizeof pr->msg, "declarations: 'params' is not a "
                 "list of at most %d parameters", MAX_PARAMS);
        lua_pushboolean(L, 0);
        return 1;
    }
    pl->params = calloc((size_t)np + 1, sizeof *pl->params);
    if (!pl->params)
        return luaL_error(L, "out of memory");
    for (lua_Integer i = 1; i <= np; i++) {
        lua_settop(L, 2);
        sparam *sp = &pl->params[pl->nparams];
        if (lua_rawgeti(L, 2, i) != LUA_TTABLE)
            goto bad_param;
        pl->nparams++;
        static const char *const keys[] = {"name", "doc", "value", "default",
                                           "source"};
        char **dst[] = {&sp->name, &sp->doc, &sp->value, &sp->def, &sp->source};
        for (size_t k = 0; k < 5; k++) {
            int ty = raw_field(L, 3, keys[k]);
            if ((k == 0 && ty != LUA_TSTRING) || scalar_str(L, -1, dst[k]))
                goto bad_param;
            if (!*dst[k])
                *dst[k] = xstrdup("");
            lua_pop(L, 1);
        }
        continue;
    bad_param:
        snprintf(pr->msg, sizeof pr->msg, "declarations: parameter %lld is "
                 "malformed", (long long)i);
        lua_pushboolean(L, 0);
        return 1;
    }
    lua_settop(L, 1);
    raw_field(L, 1, "sweeps");
    lua_Integer ns = lua_isnil(L, 2) ? 0 : raw_list_len(L, 2, MAX_SWEEPS);
    if (ns < 0) {
        snprintf(pr->msg, sizeof pr->msg, "declarations: 'sweeps' is not a "
                 "list of at most %d sweeps", MAX_SWEEPS);
        lua_pushboolean(L, 0);
        return 1;
    }
    pr->sweeps = calloc((size_t)ns + 1, sizeof *pr->sweeps);
    if (!pr->sweeps)
        return luaL_error(L, "out of memory");
    for (lua_Integer i = 1; i <= ns; i++) {
        lua_settop(L, 2);
        axis *ax = &pr->sweeps[pr->nsweeps];
        lua_Integer nv;
        if (lua_rawgeti(L, 2, i) != LUA_TTABLE ||
            raw_field(L, 3, "name") != LUA_TSTRING)
            goto bad_sweep;
        pr->nsweeps++;
        ax->name = xstrdup(lua_tostring(L, 4));
        raw_field(L, 3, "values");
        nv = raw_list_len(L, 5, MAX_POINTS);
        if (nv < 1)
            goto bad_sweep;
        ax->v = calloc((size_t)nv, sizeof *ax->v);
        if (!ax->v)
            return luaL_error(L, "out of memory");
        for (lua_Integer k = 1; k <= nv; k++) {
            int ty = lua_rawgeti(L, 5, k);
            if (ty != LUA_TNUMBER && ty != LUA_TSTRING && ty != LUA_TBOOLEAN)
                goto bad_sweep;
            sval_read(L, -1, &ax->v[ax->n++]);
            lua_pop(L, 1);
        }
        continue;
    bad_sweep:
        snprintf(pr->msg, sizeof pr->msg, "declarations: sweep %lld is not "
                 "{name = NAME, values = {1 to %d numbers, strings or "
                 "booleans}}", (long long)i, MAX_POINTS);
        lua_pushboolean(L, 0);
        return 1;
    }
    lua_settop(L, 1);
    raw_field(L, 1, "replications");
    if (lua_isinteger(L, 2)) {
        lua_Integer r = lua_tointeger(L, 2);
        if (r < 1 || r > 100000) {
            snprintf(pr->msg, sizeof pr->msg, "declarations: replications %lld "
                     "is not in 1..100000", (long long)r);
            lua_pushboolean(L, 0);
            return 1;
        }
        pl->reps = (long)r;
    } else if (!lua_isnil(L, 2)) {
        snprintf(pr->msg, sizeof pr->msg, "declarations: replications is a "
                 "%s, not an integer", luaL_typename(L, 2));
        lua_pushboolean(L, 0);
        return 1;
    }
    lua_pushboolean(L, 1);
    return 1;
}

static void free_axis(axis *ax)
{
    for (size_t k = 0; k < ax->n; k++)
        free(ax->v[k].s);
    free(ax->v);
    free(ax->name);
}

/* The declared parameter closest to a misspelt name, or NULL. */
static const char *suggest_param(const plan *pl, const char *name)
{
    const char *c[256];
    size_t n = 0;
    for (size_t k = 0; k < pl->nparams && n < 256; k++)
        c[n++] = pl->params[k].name;
    return sim_name_closest(name, c, n);
}

/* Reads params, sweeps and replications from the planning state and
 * checks --set names. HOST_OK or HOST_USAGE (message printed). */
int run_make_plan(const run_opts *o, lhost *h, plan *pl)
{
    lua_State *L = lhost_state(h);
    char err[4096];
    int status = HOST_USAGE;
    plan_reader pr;
    memset(&pr, 0, sizeof pr);
    pr.pl = pl;
    pl->reps = 0;
    lhost_push_module(h);
    /* raw: a metatable the scenario set on mtcsim must not run here,
     * outside any protected call */
    lua_pushliteral(L, "_declared");
    lua_rawget(L, -2);
    lua_remove(L, -2);
    if (lhost_pcall(h, 0, 1, err, sizeof err) != MTC_OK) {
        fprintf(stderr, "mtcsim run: reading the scenario's declarations "
                        "(mtcsim._declared): %s\n", err);
        return HOST_USAGE;
    }
    /* the declarations table is on top: read it under protection */
    lua_pushcfunction(L, read_declared);
    lua_insert(L, -2);
    lua_pushlightuserdata(L, &pr);
    if (lua_pcall(L, 2, 1, 0) != LUA_OK) {
        fprintf(stderr, "mtcsim run: reading the scenario's declarations: %s\n",
                lua_tostring(L, -1) ? lua_tostring(L, -1) : "error");
        lua_pop(L, 1);
        goto done;
    }
    int ok = lua_toboolean(L, -1);
    lua_pop(L, 1);
    if (!ok) {
        fprintf(stderr, "mtcsim run: %s\n", pr.msg);
        goto done;
    }
    /* --set and --sweep of scenario parameters name declared ones (an
     * entity's parameter, KIND.ENTITY.PARAM, is checked by the binding) */
    for (size_t i = 0; i < o->nsets + o->nsweeps; i++) {
        int sweep = i >= o->nsets;
        const char *name = sweep ? o->sweep_name[i - o->nsets] : o->set_name[i];
        int found = strchr(name, '.') != NULL;
        for (size_t k = 0; k < pl->nparams; k++)
            found |= !strcmp(pl->params[k].name, name);
        if (!found) {
            fprintf(stderr, "mtcsim run: %s %s: the scenario declares no "
                            "parameter '%s' (declared:", sweep ? "--sweep" : "--set",
                    name, name);
            for (size_t k = 0; k < pl->nparams; k++)
                fprintf(stderr, " %s", pl->params[k].name);
            const char *sg = suggest_param(pl, name);
            fprintf(stderr, "%s)%s%s%s\n", pl->nparams ? "" : " none",
                    sg ? " (did you mean '" : "", sg ? sg : "", sg ? "'?)" : "");
            goto done;
        }
    }
    pl->axes = calloc(pr.nsweeps + 1, sizeof *pl->axes);
    if (!pl->axes) {
        fprintf(stderr, "mtcsim run: out of memory\n");
        goto done;
    }
    pl->npoints = 1;
    for (size_t i = 0; i < pr.nsweeps; i++) {
        axis *sw = &pr.sweeps[i];
        int declared = 0;
        for (size_t k = 0; k < pl->nparams; k++)
            declared |= !strcmp(pl->params[k].name, sw->name);
        if (!declared) {
            const char *sg = suggest_param(pl, sw->name);
            fprintf(stderr, "mtcsim run: sweep '%s' has no param('%s', ...) "
                            "that uses it%s%s%s\n", sw->name, sw->name,
                    sg ? " (did you mean '" : "", sg ? sg : "", sg ? "'?)" : "");
            goto done;
        }
        /* a sweep fixed by --set is still an axis, of its one value: the
         * runs stay marked swept in it, and their points say its value */
        if (pl->npoints > MAX_POINTS / sw->n) {
            fprintf(stderr, "mtcsim run: the sweep grid exceeds %d points\n",
                    MAX_POINTS);
            goto done;
        }
        pl->npoints *= sw->n;
        pl->axes[pl->naxes++] = *sw;    /* moved: the plan owns it now */
        memset(sw, 0, sizeof *sw);
    }
    if (o->reps > 0)
        pl->reps = o->reps;
    else if (pl->reps == 0)
        pl->reps = 1;
    /* the runs are counted before anything sized by them is allocated */
    if (pl->reps > MAX_RUNS / (long)pl->npoints) {
        fprintf(stderr, "mtcsim run: %zu sweep points x %ld replications is "
                        "more than %ld runs per invocation\n", pl->npoints,
                pl->reps, MAX_RUNS);
        goto done;
    }
    status = HOST_OK;
done:
    for (size_t i = 0; i < pr.nsweeps; i++)
        free_axis(&pr.sweeps[i]);
    free(pr.sweeps);
    return status;
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
    for (size_t a = 0; a < pl->naxes; a++)
        free_axis(&pl->axes[a]);
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
