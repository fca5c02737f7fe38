/*
 * ldist.c - distributions for scenarios: `lognormal{mu=1, sigma=0.5}` and
 * friends, as userdata over sim/dist.h.
 *
 * A Lua distribution keeps its constructor arguments, because a config
 * struct owns its sim_dist (sim/params.h): every parameter that receives
 * the distribution gets its own fresh instance (ldist_instance), while the
 * userdata's own instance serves mean/cdf/sample in the scenario.
 * Constructors take one table of named fields; an unknown or missing
 * field is an error at the scenario's line.
 *
 * Empirical and Zipf distributions hold tables of their outcomes in C: a
 * scenario could ask for gigabytes with a short list of arguments, so
 * their bytes are charged to --max-memory before they are allocated
 * (lhost_mem_charge), and building and sampling them to the instruction
 * budget (lhost_count).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>

#include "lhost.h"
#include "mtc/error.h"
#include "sim/rng.h"

#define LDIST_MT "mtcsim.dist"
#define LRNG_KEY "mtcsim.scenario_rng"

typedef struct ldist {
    int kind;               /* enum sim_dist_kind */
    double a, b;            /* the two parameters, in the sim_dist_* order */
    uint64_t n;             /* zipf: ranks */
    size_t count;           /* empirical */
    double *values, *weights;
    sim_dist *d;
    size_t charged;         /* bytes counted against --max-memory */
} ldist;

/* Instructions' worth of C work per outcome built or value drawn. */
#define COST_PER_OUTCOME 30
#define COST_PER_DRAW 20

/* The C bytes a distribution with these arguments holds (its sim_dist). */
static size_t dist_bytes(const ldist *x)
{
    uint64_t n = x->kind == SIM_DIST_ZIPF ? x->n : x->count;
    return sim_dist_footprint(x->kind, n);
}

static sim_dist *make(const ldist *x)
{
    sim_dist *d = NULL;
    int rc = MTC_ERR_ARG;
    switch (x->kind) {
    case SIM_DIST_CONST: rc = sim_dist_const(&d, x->a); break;
    case SIM_DIST_EXPONENTIAL: rc = sim_dist_exponential(&d, x->a); break;
    case SIM_DIST_LOGNORMAL: rc = sim_dist_lognormal(&d, x->a, x->b); break;
    case SIM_DIST_WEIBULL: rc = sim_dist_weibull(&d, x->a, x->b); break;
    case SIM_DIST_PARETO: rc = sim_dist_pareto(&d, x->a, x->b); break;
    case SIM_DIST_GAMMA: rc = sim_dist_gamma(&d, x->a, x->b); break;
    case SIM_DIST_UNIFORM: rc = sim_dist_uniform(&d, x->a, x->b); break;
    case SIM_DIST_EMPIRICAL:
        rc = sim_dist_empirical(&d, x->values, x->weights, x->count);
        break;
    case SIM_DIST_ZIPF: rc = sim_dist_zipf(&d, x->n, x->a); break;
    }
    return rc == MTC_OK ? d : NULL;
}

/* A new sim_dist for x; its bytes are charged first (raises when they
 * exceed --max-memory) and stay charged: the caller keeps it. */
static sim_dist *make_charged(lua_State *L, const ldist *x, const char *what)
{
    uint64_t n = x->kind == SIM_DIST_ZIPF ? x->n : x->count;
    lhost_mem_charge(L, dist_bytes(x), what);
    lhost_count(L, n * COST_PER_OUTCOME);
    return make(x);
}

static int d_gc(lua_State *L)
{
    ldist *x = luaL_checkudata(L, 1, LDIST_MT);
    sim_dist_destroy(x->d);
    free(x->values);
    free(x->weights);
    x->d = NULL;
    x->values = x->weights = NULL;
    lhost_mem_uncharge(L, x->charged);
    x->charged = 0;
    return 0;
}

/* The userdata, empty, before anything is acquired (so __gc is safe). */
static ldist *d_push(lua_State *L, int kind)
{
    ldist *x = lua_newuserdatauv(L, sizeof *x, 0);
    memset(x, 0, sizeof *x);
    x->kind = kind;
    luaL_setmetatable(L, LDIST_MT);
    return x;
}

/* Checks that table arg 1 has only the allowed keys. */
static void check_keys(lua_State *L, const char *fn, const char *const *allowed)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    lua_pushnil(L);
    while (lua_next(L, 1)) {
        lua_pop(L, 1);
        if (lua_type(L, -1) != LUA_TSTRING)
            luaL_error(L, "%s: fields must be named (%s{name=value, ...})", fn, fn);
        const char *k = lua_tostring(L, -1);
        int ok = 0;
        for (const char *const *a = allowed; *a; a++)
            ok |= !strcmp(*a, k);
        if (!ok) {
            luaL_Buffer b;
            luaL_buffinit(L, &b);
            for (const char *const *a = allowed; *a; a++) {
                if (a != allowed)
                    luaL_addstring(&b, ", ");
                luaL_addstring(&b, *a);
            }
            luaL_pushresult(&b);
            luaL_error(L, "%s: unknown field '%s' (fields: %s)", fn, k,
                       lua_tostring(L, -1));
        }
    }
}

static int has(lua_State *L, const char *k)
{
    lua_getfield(L, 1, k);
    int r = !lua_isnil(L, -1);
    lua_pop(L, 1);
    return r;
}

static double num(lua_State *L, const char *fn, const char *k)
{
    lua_getfield(L, 1, k);
    if (lua_type(L, -1) != LUA_TNUMBER)
        luaL_error(L, "%s: field '%s' must be a number, got %s", fn, k,
                   luaL_typename(L, -1));
    double v = lua_tonumber(L, -1);
    lua_pop(L, 1);
    if (!isfinite(v))
        luaL_error(L, "%s: field '%s' is not finite", fn, k);
    return v;
}

static int finish(lua_State *L, ldist *x, const char *fn, const char *cond)
{
    size_t bytes = dist_bytes(x);
    x->d = make_charged(L, x, fn);
    x->charged += bytes;
    if (!x->d)
        return luaL_error(L, "%s: invalid parameters (%s)", fn, cond);
    return 1;
}

static int l_constant(lua_State *L)
{
    static const char *const k[] = {"value", NULL};
    double v;
    if (lua_type(L, 1) == LUA_TNUMBER) {
        v = lua_tonumber(L, 1);
    } else {
        check_keys(L, "constant", k);
        v = num(L, "constant", "value");
    }
    ldist *x = d_push(L, SIM_DIST_CONST);
    x->a = v;
    return finish(L, x, "constant", "value must be finite");
}

static int l_exponential(lua_State *L)
{
    static const char *const k[] = {"mean", "rate", NULL};
    check_keys(L, "exponential", k);
    double mean;
    if (has(L, "rate") == has(L, "mean"))
        return luaL_error(L, "exponential: give exactly one of mean, rate");
    if (has(L, "rate")) {
        double r = num(L, "exponential", "rate");
        mean = r > 0 ? 1.0 / r : -1;
    } else {
        mean = num(L, "exponential", "mean");
    }
    ldist *x = d_push(L, SIM_DIST_EXPONENTIAL);
    x->a = mean;
    return finish(L, x, "exponential", "mean > 0");
}

static int l_lognormal(lua_State *L)
{
    static const char *const k[] = {"mu", "median", "sigma", NULL};
    check_keys(L, "lognormal", k);
    if (has(L, "mu") == has(L, "median"))
        return luaL_error(L, "lognormal: give exactly one of mu, median (and sigma)");
    double mu;
    if (has(L, "median")) {
        double m = num(L, "lognormal", "median");
        if (!(m > 0))
            return luaL_error(L, "lognormal: median must be > 0");
        mu = log(m);
    } else {
        mu = num(L, "lognormal", "mu");
    }
    double sigma = num(L, "lognormal", "sigma");
    ldist *x = d_push(L, SIM_DIST_LOGNORMAL);
    x->a = mu;
    x->b = sigma;
    return finish(L, x, "lognormal", "sigma > 0");
}

static int two(lua_State *L, const char *fn, int kind, const char *ka,
               const char *kb, const char *cond)
{
    const char *const k[] = {ka, kb, NULL};
    check_keys(L, fn, k);
    double a = num(L, fn, ka), b = num(L, fn, kb);
    ldist *x = d_push(L, kind);
    x->a = a;
    x->b = b;
    return finish(L, x, fn, cond);
}

static int l_weibull(lua_State *L)
{
    return two(L, "weibull", SIM_DIST_WEIBULL, "scale", "shape",
               "scale > 0, shape > 0");
}

static int l_pareto(lua_State *L)
{
    return two(L, "pareto", SIM_DIST_PARETO, "shape", "scale",
               "shape > 0, scale > 0");
}

static int l_gamma(lua_State *L)
{
    return two(L, "gamma", SIM_DIST_GAMMA, "shape", "scale",
               "shape > 0, scale > 0");
}

static int l_uniform(lua_State *L)
{
    return two(L, "uniform", SIM_DIST_UNIFORM, "lo", "hi", "lo < hi");
}

static int l_zipf(lua_State *L)
{
    static const char *const k[] = {"n", "s", NULL};
    check_keys(L, "zipf", k);
    double n = num(L, "zipf", "n"), s = num(L, "zipf", "s");
    if (n < 1 || n > 4294967296.0 || n != floor(n))
        return luaL_error(L, "zipf: n must be an integer in 1..2^32");
    ldist *x = d_push(L, SIM_DIST_ZIPF);
    x->n = (uint64_t)n;
    x->a = s;
    return finish(L, x, "zipf", "s >= 0");
}

/* empirical{values={...}, weights={...}}: weights default to equal. */
static int l_empirical(lua_State *L)
{
    static const char *const k[] = {"values", "weights", NULL};
    check_keys(L, "empirical", k);
    lua_getfield(L, 1, "values");
    lua_getfield(L, 1, "weights");
    if (!lua_istable(L, 2))
        return luaL_error(L, "empirical: 'values' must be a list of numbers");
    size_t n = lua_rawlen(L, 2);
    if (n == 0 || n > 10000000)
        return luaL_error(L, "empirical: 'values' must have 1 to 10^7 entries");
    if (!lua_isnil(L, 3) && (!lua_istable(L, 3) || lua_rawlen(L, 3) != n))
        return luaL_error(L, "empirical: 'weights' must be a list as long as "
                             "'values' (%d)", (int)n);
    ldist *x = d_push(L, SIM_DIST_EMPIRICAL);
    lhost_mem_charge(L, 2 * n * sizeof(double), "empirical");
    x->charged = 2 * n * sizeof(double);
    x->values = malloc(n * sizeof *x->values);
    x->weights = malloc(n * sizeof *x->weights);
    if (!x->values || !x->weights)
        return luaL_error(L, "empirical: out of memory");
    x->count = n;
    for (size_t i = 0; i < n; i++) {
        lua_rawgeti(L, 2, (lua_Integer)i + 1);
        if (lua_type(L, -1) != LUA_TNUMBER)
            return luaL_error(L, "empirical: values[%d] is not a number", (int)i + 1);
        x->values[i] = lua_tonumber(L, -1);
        lua_pop(L, 1);
        x->weights[i] = 1;
        if (!lua_isnil(L, 3)) {
            lua_rawgeti(L, 3, (lua_Integer)i + 1);
            if (lua_type(L, -1) != LUA_TNUMBER)
                return luaL_error(L, "empirical: weights[%d] is not a number",
                                  (int)i + 1);
            x->weights[i] = lua_tonumber(L, -1);
            lua_pop(L, 1);
        }
    }
    return finish(L, x, "empirical", "finite values, weights >= 0 with a "
                                     "positive sum");
}

/* ---- methods ------------------------------------------------------------ */

static ldist *check(lua_State *L, int i)
{
    ldist *x = luaL_checkudata(L, i, LDIST_MT);
    if (!x->d)
        luaL_error(L, "distribution already released");
    return x;
}

static int m_mean(lua_State *L)
{
    lua_pushnumber(L, sim_dist_mean(check(L, 1)->d));
    return 1;
}

static int m_cdf(lua_State *L)
{
    ldist *x = check(L, 1);
    lua_pushnumber(L, sim_dist_cdf(x->d, luaL_checknumber(L, 2)));
    return 1;
}

static int m_name(lua_State *L)
{
    lua_pushstring(L, sim_dist_name(check(L, 1)->d));
    return 1;
}

/* The scenario's own stream (kind 15, id 1) of (seed, replication). */
static gsl_rng *scenario_rng(lua_State *L)
{
    lua_getfield(L, LUA_REGISTRYINDEX, LRNG_KEY);
    gsl_rng **slot = lua_touserdata(L, -1);
    lua_pop(L, 1);
    if (slot)
        return *slot;
    return NULL;
}

static int rng_gc(lua_State *L)
{
    gsl_rng **slot = lua_touserdata(L, 1);
    if (*slot)
        gsl_rng_free(*slot);
    *slot = NULL;
    return 0;
}

static gsl_rng *get_rng(lua_State *L)
{
    gsl_rng *r = scenario_rng(L);
    if (r)
        return r;
    gsl_rng **slot = lua_newuserdatauv(L, sizeof *slot, 0);
    *slot = NULL;
    lua_newtable(L);
    lua_pushcfunction(L, rng_gc);
    lua_setfield(L, -2, "__gc");
    lua_setmetatable(L, -2);
    const lhost_config *c = lhost_get_config(lhost_of(L));
    *slot = sim_rng_alloc_stream(c->seed, c->replication, 15, 1);
    if (!*slot)
        luaL_error(L, "out of memory");
    lua_setfield(L, LUA_REGISTRYINDEX, LRNG_KEY);
    return *slot;
}

/* d:sample() -> x;  d:sample(n) -> {x1, ..., xn} */
static int m_sample(lua_State *L)
{
    ldist *x = check(L, 1);
    gsl_rng *r = get_rng(L);
    if (lua_isnoneornil(L, 2)) {
        lua_pushnumber(L, sim_dist_sample(x->d, r));
        return 1;
    }
    lua_Integer n = luaL_checkinteger(L, 2);
    luaL_argcheck(L, n >= 0 && n <= 100000000, 2, "count out of range");
    lhost_count(L, (uint64_t)n * COST_PER_DRAW);
    lua_createtable(L, (int)n, 0);
    for (lua_Integer i = 1; i <= n; i++) {
        lua_pushnumber(L, sim_dist_sample(x->d, r));
        lua_rawseti(L, -2, i);
    }
    return 1;
}

static int m_tostring(lua_State *L)
{
    ldist *x = check(L, 1);
    lua_pushfstring(L, "%s(mean=%f)", sim_dist_name(x->d), sim_dist_mean(x->d));
    return 1;
}

/* mtcsim.random() in [0,1) / random(n) in 1..n from the scenario stream. */
static int l_random(lua_State *L)
{
    gsl_rng *r = get_rng(L);
    if (lua_isnoneornil(L, 1)) {
        lua_pushnumber(L, gsl_rng_uniform(r));
        return 1;
    }
    lua_Integer n = luaL_checkinteger(L, 1);
    luaL_argcheck(L, n >= 1 && n <= 4294967295LL, 1, "must be in 1..2^32-1");
    lua_pushinteger(L, 1 + (lua_Integer)gsl_rng_uniform_int(r, (unsigned long)n));
    return 1;
}

static int l_is_dist(lua_State *L)
{
    lua_pushboolean(L, luaL_testudata(L, 1, LDIST_MT) != NULL);
    return 1;
}

int ldist_is(lua_State *L, int idx)
{
    return luaL_testudata(L, idx, LDIST_MT) != NULL;
}

sim_dist *ldist_instance(lua_State *L, int idx)
{
    if (lua_type(L, idx) == LUA_TNUMBER) {
        sim_dist *d = NULL;
        if (sim_dist_const(&d, lua_tonumber(L, idx)) != MTC_OK)
            luaL_error(L, "a constant distribution must be finite");
        return d;
    }
    ldist *x = check(L, idx);
    /* owned by an entity's configuration until the world ends: the
     * tables of empirical and Zipf distributions stay charged for the
     * rest of the run (the others hold a few dozen bytes) */
    int tables = x->kind == SIM_DIST_EMPIRICAL || x->kind == SIM_DIST_ZIPF;
    sim_dist *d = tables ? make_charged(L, x, sim_dist_name(x->d)) : make(x);
    if (!d)
        luaL_error(L, "out of memory");
    return d;
}

void ldist_register(lua_State *L)
{
    static const luaL_Reg meth[] = {
        {"mean", m_mean}, {"cdf", m_cdf}, {"sample", m_sample},
        {"name", m_name}, {NULL, NULL}};
    if (luaL_newmetatable(L, LDIST_MT)) {
        luaL_newlib(L, meth);
        lua_setfield(L, -2, "__index");
        lua_pushcfunction(L, d_gc);
        lua_setfield(L, -2, "__gc");
        lua_pushcfunction(L, m_tostring);
        lua_setfield(L, -2, "__tostring");
        /* protected: __gc called on a live distribution would free it */
        lua_pushliteral(L, LDIST_MT);
        lua_setfield(L, -2, "__metatable");
    }
    lua_pop(L, 1);
    static const luaL_Reg fns[] = {
        {"constant", l_constant}, {"exponential", l_exponential},
        {"lognormal", l_lognormal}, {"weibull", l_weibull},
        {"pareto", l_pareto}, {"gamma", l_gamma}, {"uniform", l_uniform},
        {"empirical", l_empirical}, {"zipf", l_zipf}, {"random", l_random},
        {"is_dist", l_is_dist}, {NULL, NULL}};
    luaL_setfuncs(L, fns, 0);
}
