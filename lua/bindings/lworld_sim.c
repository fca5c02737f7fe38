/*
 * lworld_sim.c - the sim object: sim:at/every (stored before the run,
 * scheduled during it), sim:now/act/set/on_finish, sim:metric/metrics and
 * sim:<action>(...). Apart because it acts on time and the running world.
 */
#include "lworld_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>

#include "lplaus.h"
#include "lunits.h"
#include "mtc/error.h"
#include "sim/status.h"

static const char *target_name(lua_State *L, int i)
{
    lentity *e = luaL_testudata(L, i, ENTITY_MT);
    if (e)
        return e->name;
    if (lua_type(L, i) != LUA_TSTRING)
        luaL_argerror(L, i, "expected an entity or its name");
    return lua_tostring(L, i);
}

/* ---- the sim table ------------------------------------------------------- */

static double check_time(lua_State *L, int i, const char *fn)
{
    double lit;   /* "3d", "90min": a literal with its unit */
    if (lua_type(L, i) == LUA_TSTRING &&
        lunits_parse(lua_tostring(L, i), &lit, NULL, 0) == LUNITS_DURATION) {
        lua_pushnumber(L, lit);
        lua_replace(L, i);
    }
    if (lua_type(L, i) != LUA_TNUMBER)
        luaL_error(L, "%s: time must be a number of seconds (e.g. days(3)) "
                      "or a duration such as \"3d\", got %s", fn,
                   luaL_typename(L, i));
    double t = lua_tonumber(L, i);
    if (!(t >= 0) || !isfinite(t) || t > 9e12)
        luaL_error(L, "%s: time %f s is out of range", fn, t);
    return t;
}

static void call_fire(sim_engine *sim, void *arg);

int lworld__schedule_call(lworld *lw, lcall *c, sim_time at)
{
    sim_prof_handler(lw->prof, (sim_handler)call_fire, SIM_PART_SCENARIO);
    return sim_call_at(lw->engine, at, call_fire, c);
}

/* What one pending call holds in C: the record and its slot in the
 * engine's event pool (an estimate of the pool's per-event size). */
#define LCALL_COST (sizeof(lcall) + 64)

lcall *lworld__call_new(lworld *lw, const char *where, char *err,
                        size_t errlen)
{
    /* in the scenario's one account (lhost_mem_reserve), with its Lua
     * memory and the C memory it holds: a separate count let pending
     * calls and Lua each fill the cap */
    if (lhost_mem_reserve(lw->h, LCALL_COST)) {
        size_t cap = lhost_get_config(lw->h)->max_memory;
        snprintf(err, errlen, "%s%stimed actions: %zu pending calls hold %zu "
                              "KiB, with the scenario's other memory %zu KiB: "
                              "the memory cap (--max-memory %zu MiB) is "
                              "reached",
                 where, lworld__wsep(where), lw->ncalls, lw->cbytes >> 10,
                 lhost_mem_counted(lw->h) >> 10, cap >> 20);
        return NULL;
    }
    lcall *c = calloc(1, sizeof *c);
    if (!c) {
        lhost_mem_release(lw->h, LCALL_COST);
        snprintf(err, errlen, "%s%stimed actions: out of memory", where,
                 lworld__wsep(where));
        return NULL;
    }
    c->lw = lw;
    c->fnref = LUA_NOREF;
    c->next = lw->calls;
    if (lw->calls)
        lw->calls->prev = c;
    lw->calls = c;
    lw->ncalls++;
    lw->cbytes += LCALL_COST;
    snprintf(c->where, sizeof c->where, "%s", where);
    return c;
}

void lworld__call_free(lworld *lw, lcall *c)
{
    if (c->prev)
        c->prev->next = c->next;
    else
        lw->calls = c->next;
    if (c->next)
        c->next->prev = c->prev;
    if (c->fnref != LUA_NOREF)
        luaL_unref(lhost_state(lw->h), LUA_REGISTRYINDEX, c->fnref);
    lw->ncalls--;
    lw->cbytes -= LCALL_COST;
    lhost_mem_release(lw->h, LCALL_COST);
    free(c);
}

int lworld__charge_action(lworld *lw, const char *action, char *err,
                          size_t errlen)
{
    const sim_world_action *a = lworld__find_action(action);
    if (!a || !a->holds)
        return 0;
    if (lhost_mem_reserve(lw->h, a->holds) == 0) {
        lw->abytes += a->holds;     /* for the run: see lworld_internal.h */
        return 0;
    }
    snprintf(err, errlen, "what the world keeps for its actions (%zu KiB so "
             "far, %zu bytes more for this one), with the scenario's other "
             "memory %zu KiB, would exceed --max-memory %zu MiB",
             lw->abytes >> 10, a->holds, lhost_mem_counted(lw->h) >> 10,
             lhost_get_config(lw->h)->max_memory >> 20);
    return -1;
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
        rc = lworld__charge_action(lw, c->action, e, sizeof e)
                 ? MTC_ERR_LIMIT
                 : sim_world_act(lw->world, c->action, c->target, c->args,
                                 c->nargs, e, sizeof e);
        if (rc != MTC_OK)
            snprintf(lw->err, sizeof lw->err, "%s%ssim:at: %s on '%s': %s",
                     c->where, lworld__wsep(c->where), c->action, c->target, e);
    }
    if (rc == SIM_ERR_STATE) {
        /* stopped by the run's interrupt flag (lhost_set_interrupt): the
         * run ends interrupted, not failed */
        sim_engine_stop(sim);
    } else if (rc != MTC_OK) {
        lw->failed = 1;
        sim_engine_stop(sim);
    } else if (c->period > 0) {
        sim_time next = sim_now(sim) + c->period;
        if (next > lw->wc.duration) {
            lworld__call_free(lw, c);
        } else if (lworld__schedule_call(lw, c, next) != MTC_OK) {
            snprintf(lw->err, sizeof lw->err, "%s%ssim:every: cannot schedule",
                     c->where, lworld__wsep(c->where));
            lw->failed = 1;
            sim_engine_stop(sim);
        }
        return;
    }
    /* a one-shot call has fired (or failed): its memory goes back, so the
     * cap bounds the pending calls, not every call ever made */
    if (c->period == 0)
        lworld__call_free(lw, c);
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
    lworld__where(L, 1, wh);
    if (every) {
        if (!(t > 0))
            return luaL_error(L, "sim:every: the period must be > 0");
        /* a period that rounds to 0 us would fire once, not every t */
        if (sim_time_from_sec(t) < 1) {
            char v[32];
            snprintf(v, sizeof v, "%g", t);     /* lua_pushfstring has no %g */
            return luaL_error(L, "sim:every: the period %s s is below the "
                                 "clock's resolution (1 us)", v);
        }
        if (!lua_isnoneornil(L, 4))
            start = check_time(L, 4, fn);
        else
            start = -1;     /* first call one period after the start */
        luaL_checktype(L, 3, LUA_TFUNCTION);
    } else if (lua_type(L, 3) == LUA_TSTRING) {
        const char *a = lua_tostring(L, 3);
        const sim_world_action *act = lworld__find_action(a);
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
        /* "2h": a literal, of the kind the argument takes (a rate is not
         * a duration, a duration is not an index) */
        const char *kinds = act->arg_kinds ? act->arg_kinds : "";
        for (int i = 5; i <= lua_gettop(L); i++) {
            double lit;
            if (lua_type(L, i) != LUA_TSTRING)
                continue;
            int u = lunits_parse(lua_tostring(L, i), &lit, NULL, 0);
            if (u == LUNITS_NONE)
                continue;
            char kind = (size_t)(i - 5) < strlen(kinds) ? kinds[i - 5] : 0;
            if (u != LUNITS_DURATION || kind != 'd')
                return luaL_error(L, "sim:at: argument %d of '%s' (%s) is %s "
                                     "\"%s\"; it takes %s", i - 4, a,
                                  act->args_doc ? act->args_doc : "",
                                  u == LUNITS_RATE ? "a rate" : "a duration",
                                  lua_tostring(L, i),
                                  kind == 'd' ? "a duration (\"2h\" or seconds)"
                                  : kind == 'i' ? "a log entry index (a plain integer)"
                                  : kind == 'l' ? "a log number (a plain integer)"
                                                : "a plain integer");
            lua_pushnumber(L, lit);
            lua_replace(L, i);
        }
        double av[ACT_MAX_ARGS];
        for (int i = 5; i <= lua_gettop(L); i++) {
            if (lua_type(L, i) != LUA_TNUMBER)
                return luaL_error(L, "sim:at: argument %d of '%s' must be a "
                                     "number", i - 4, a);
            av[i - 5] = lua_tonumber(L, i);
        }
        /* kind and range now, not when the action fires after hours of
         * simulation */
        char aerr[256];
        if (sim_world_action_check(act, av, n, aerr, sizeof aerr) != MTC_OK)
            return luaL_error(L, "sim:at: %s", aerr);
        lplaus_check_action(L, act, 5, (int)n, wh);   /* an outage of 12 s */
        (void)tg;
    } else {
        luaL_checktype(L, 3, LUA_TFUNCTION);
    }
    lworld *lw = lworld__current(L);
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
        lworld__append_reg(L, K_ATS);
        return 0;
    }
    /* during the run: schedule now (relative to nothing: t is absolute) */
    int rec = lua_gettop(L);
    char cerr[512];
    lcall *c = lworld__call_new(lw, "", cerr, sizeof cerr);
    if (!c)
        return luaL_error(L, "%s: %s", fn, cerr);
    snprintf(c->where, sizeof c->where, "%s", wh);
    if (lua_getfield(L, rec, "fn") == LUA_TFUNCTION)
        c->fnref = luaL_ref(L, LUA_REGISTRYINDEX);
    else
        lua_pop(L, 1);
    if (lua_getfield(L, rec, "action") == LUA_TSTRING) {
        snprintf(c->action, sizeof c->action, "%s", lua_tostring(L, -1));
        lua_getfield(L, rec, "target");
        snprintf(c->target, sizeof c->target, "%s", lua_tostring(L, -1));
        lua_pop(L, 1);
        lua_getfield(L, rec, "args");
        c->nargs = lua_rawlen(L, -1);
        if (c->nargs > ACT_MAX_ARGS)    /* checked above; kept in bounds */
            c->nargs = ACT_MAX_ARGS;
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
    if (at < now || at > lw->wc.duration) {
        lworld__call_free(lw, c);       /* it would never fire */
        if (at < now)
            return luaL_error(L, "%s: time %f s is in the past (now %f s)",
                              fn, sim_time_to_sec(at), sim_time_to_sec(now));
        return 0;
    }
    if (lworld__schedule_call(lw, c, at) != MTC_OK) {
        lworld__call_free(lw, c);
        return luaL_error(L, "%s: cannot schedule", fn);
    }
    return 0;
}

static int s_at(lua_State *L) { return add_timed(L, 0); }
static int s_every(lua_State *L) { return add_timed(L, 1); }

static int s_now(lua_State *L)
{
    lworld *lw = lworld__current(L);
    lua_pushnumber(L, lw ? sim_time_to_sec(sim_now(lw->engine)) : 0.0);
    return 1;
}

/* sim:act(action, target, args...) */
static int s_act(lua_State *L)
{
    const char *a = luaL_checkstring(L, 2);
    return lworld__do_act(L, a, target_name(L, 3), 4);
}

/* sim:set(target, param, value) */
static int s_set(lua_State *L)
{
    lentity *e = luaL_testudata(L, 2, ENTITY_MT);
    if (!e) {
        const char *n = luaL_checkstring(L, 2);
        lworld__push_reg_table(L, K_NAMES);
        lua_getfield(L, -1, n);
        e = luaL_testudata(L, -1, ENTITY_MT);
        if (!e)
            return luaL_error(L, "sim:set: no entity named '%s'", n);
        lua_pop(L, 2);
    }
    return lworld__set_live(L, e, luaL_checkstring(L, 3), 4);
}

static int s_on_finish(lua_State *L)
{
    luaL_checktype(L, 2, LUA_TFUNCTION);
    lua_pushvalue(L, 2);
    lworld__append_reg(L, K_FINISH);
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

/* sim:record(name, value [, cohort]): a figure of the run the scenario
 * computes (in sim:on_finish, or during the run: the last value counts),
 * stored as a gauge flagged SIM_METRIC_RECORD, so that it gets the
 * replication summary, compare, plot and export like any metric. With a
 * cohort (a browser cohort's name) it is one cell of a breakdown by the
 * browser cohorts (the cohorts of handshake_full), which has no total
 * (the results store its cells only: they may be rates or shares); a name
 * is either a total or a breakdown. */
static int s_record(lua_State *L)
{
    lworld *lw = lworld__current(L);
    const char *name = luaL_checkstring(L, 2);
    double v = luaL_checknumber(L, 3);
    if (!lw)
        return luaL_error(L, "sim:record: figures are recorded once the "
                             "simulation runs (use it in sim:on_finish)");
    /* the gauge's 2^-32 fixed point holds |v| < 2^31 */
    luaL_argcheck(L, isfinite(v) && fabs(v) < 2147483648.0, 3,
                  "a finite number of magnitude below 2^31");
    const sim_metric *full = sim_metrics_find(lw->metrics, "handshake_full");
    size_t n = 1, cell = 0;
    const char *labels[256];
    if (!lua_isnoneornil(L, 4)) {
        const char *coh = luaL_checkstring(L, 4);
        n = full ? sim_metric_cohorts(full) : 0;
        luaL_argcheck(L, n > 0 && n <= 256, 4, "the run has no browser cohorts");
        cell = n;
        for (size_t k = 0; k < n; k++) {
            labels[k] = sim_metric_cohort_label(full, k);
            if (!strcmp(labels[k], coh))
                cell = k;
        }
        if (cell == n)
            return luaL_error(L, "sim:record: '%s' is not a browser cohort", coh);
    }
    sim_metric *g;
    int rc = sim_metrics_gauge(lw->metrics, name, "", n, SIM_METRIC_RECORD, &g);
    if (rc == SIM_ERR_ARG)
        return luaL_error(L, "sim:record: '%s' is not a metric name (1..127 "
                             "printable characters, no spaces)", name);
    if (rc != SIM_OK)
        return luaL_error(L, "sim:record: '%s' is a metric of the model, or was "
                             "recorded %s a cohort before", name,
                          n > 1 ? "without" : "with");
    if (n > 1 && sim_metric_set_cohort_labels(g, labels, n) != SIM_OK)
        return luaL_error(L, "sim:record: cohort labels");
    sim_gauge_set(g, cell, v);
    return 0;
}

/* sim:metric(name [, cohort]): counter -> integer, gauge -> number,
 * histogram -> {count, sum, mean, min, max, p50, p90, p99}; nil if the
 * run has no such metric. */
static int s_metric(lua_State *L)
{
    lworld *lw = lworld__current(L);
    const char *name = luaL_checkstring(L, 2);
    if (!lw)
        return luaL_error(L, "sim:metric: metrics exist once the simulation "
                             "runs (use it in sim:at or sim:on_finish)");
    sim_metric *m = sim_metrics_find(lw->metrics, name);
    if (!m) {
        lua_pushnil(L);
        return 1;
    }
    /* a histogram's deferred observations, recorded before it is read */
    sim_metrics_flush(lw->metrics);
    size_t c = cohort_arg(L, m, 3);
    switch (sim_metric_kind(m)) {
    case SIM_METRIC_COUNTER:
        lua_pushinteger(L, sim_counter_value(m, c));
        return 1;
    case SIM_METRIC_GAUGE: {
        /* a recorded figure's cell never set: nil, as an absent metric */
        double v = sim_gauge_value(m, c);
        if (isnan(v))
            lua_pushnil(L);
        else
            lua_pushnumber(L, v);
        return 1;
    }
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

/* sim:quantile(name, q [, cohort]) -> the q-quantile of a histogram
 * (sim_hist_quantile: read from its bins, to a bin's resolution); nil if
 * the run has no such metric or the cell is empty. A quantile other than
 * the p50 / p90 / p99 of sim:metric, e.g. one of a censored distribution
 * (docs/model.md "Revocation reach"). */
static int s_quantile(lua_State *L)
{
    lworld *lw = lworld__current(L);
    const char *name = luaL_checkstring(L, 2);
    double q = luaL_checknumber(L, 3);
    if (!lw)
        return luaL_error(L, "sim:quantile: metrics exist once the simulation "
                             "runs (use it in sim:at or sim:on_finish)");
    if (!(q >= 0 && q <= 1))
        return luaL_error(L, "sim:quantile: q = %f is not in [0, 1]", q);
    sim_metric *m = sim_metrics_find(lw->metrics, name);
    if (!m) {
        lua_pushnil(L);
        return 1;
    }
    if (sim_metric_kind(m) != SIM_METRIC_HISTOGRAM)
        return luaL_error(L, "sim:quantile: '%s' is a %s, not a histogram", name,
                          sim_metric_kind_name(sim_metric_kind(m)));
    sim_metrics_flush(lw->metrics);
    size_t c = cohort_arg(L, m, 4);
    if (sim_hist_count(m, c) == 0)
        lua_pushnil(L);
    else
        lua_pushnumber(L, sim_hist_quantile(m, c, q));
    return 1;
}

/* sim:metrics() -> list of metric names */
static int s_metrics(lua_State *L)
{
    lworld *lw = lworld__current(L);
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
    return lworld__do_act(L, lua_tostring(L, lua_upvalueindex(1)),
                          target_name(L, 2), 3);
}

/* sim:<action>(target, args...) for every world action */
static int s_index(lua_State *L)
{
    const char *k = luaL_checkstring(L, 2);
    if (lworld__find_action(k)) {
        lua_pushvalue(L, 2);
        lua_pushcclosure(L, s_action_closure, 1);
        return 1;
    }
    return luaL_error(L, "sim has no method or action '%s'", k);
}

/* The sim table: created, kept in the registry (K_SIM) and set as
 * mtcsim.sim in the table on top. */
void lworld__sim_register(lua_State *L)
{
    /* the sim table */
    static const luaL_Reg sim[] = {
        {"at", s_at}, {"every", s_every}, {"now", s_now}, {"act", s_act},
        {"set", s_set}, {"metric", s_metric}, {"quantile", s_quantile},
        {"metrics", s_metrics},
        {"on_finish", s_on_finish}, {"record", s_record}, {NULL, NULL}};
    luaL_newlib(L, sim);
    const lhost_config *c = lhost_get_config(lhost_of(L));
    lua_pushinteger(L, (lua_Integer)c->seed);
    lua_setfield(L, -2, "seed");
    lua_pushinteger(L, (lua_Integer)c->replication);
    lua_setfield(L, -2, "replication");
    lua_newtable(L);
    lua_pushcfunction(L, s_index);
    lua_setfield(L, -2, "__index");
    /* protected like the entities' (the scenario cannot swap the action
     * lookup behind sim:<action>) */
    lua_pushliteral(L, "mtcsim.sim");
    lua_setfield(L, -2, "__metatable");
    lua_setmetatable(L, -2);
    lua_pushvalue(L, -1);
    lua_setfield(L, LUA_REGISTRYINDEX, K_SIM);
    lua_setfield(L, -2, "sim");
}
