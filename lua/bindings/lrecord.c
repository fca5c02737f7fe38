/*
 * lrecord.c - the scheduled world actions of a scenario and the files it
 * loaded, as run attributes (lrecord.h). Reads the declarations sim:at keeps in the state (K_ATS);
 * separate from lworld_sim.c, which schedules them, because recording is
 * the command's business and needs nothing of the engine.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lrecord.h"
#include "lworld_internal.h"

typedef struct act_rec {
    double t;
    size_t order;
    char value[512];
} act_rec;

static int by_time(const void *a, const void *b)
{
    const act_rec *x = a, *y = b;
    if (x->t != y->t)
        return x->t < y->t ? -1 : 1;
    return x->order < y->order ? -1 : x->order > y->order;
}

static size_t record_actions(lhost *h, lrecord_fn fn, void *ctx)
{
    lua_State *L = lhost_state(h);
    int top = lua_gettop(L);
    size_t n = 0;
    act_rec *recs = NULL;
    if (lua_getfield(L, LUA_REGISTRYINDEX, K_ATS) != LUA_TTABLE) {
        lua_settop(L, top);
        return 0;
    }
    size_t len = lua_rawlen(L, -1);
    recs = calloc(len ? len : 1, sizeof *recs);
    for (size_t i = 1; recs && i <= len; i++) {
        lua_rawgeti(L, -1, (lua_Integer)i);
        int rec = lua_gettop(L);
        if (lua_type(L, rec) == LUA_TTABLE &&
            lua_getfield(L, rec, "action") == LUA_TSTRING) {
            act_rec *r = &recs[n];
            lua_getfield(L, rec, "target");
            lua_getfield(L, rec, "t");
            r->t = lua_tonumber(L, -1);
            r->order = n;
            size_t k = (size_t)snprintf(r->value, sizeof r->value, "%.17g %s %s",
                                        r->t, lua_tostring(L, rec + 1),
                                        lua_tostring(L, rec + 2) ? lua_tostring(L, rec + 2) : "?");
            if (lua_getfield(L, rec, "args") == LUA_TTABLE) {
                size_t na = lua_rawlen(L, -1);
                for (size_t a = 1; a <= na && k < sizeof r->value; a++) {
                    lua_rawgeti(L, -1, (lua_Integer)a);
                    k += (size_t)snprintf(r->value + k, sizeof r->value - k, " %.17g",
                                          lua_tonumber(L, -1));
                    lua_pop(L, 1);
                }
            }
            n++;
        }
        lua_settop(L, rec - 1);
    }
    lua_settop(L, top);
    if (recs)
        qsort(recs, n, sizeof *recs, by_time);
    for (size_t i = 0; recs && i < n; i++) {
        char name[32];
        snprintf(name, sizeof name, "action.%04zu", i + 1);
        fn(ctx, name, recs[i].value);
    }
    free(recs);
    return n;
}

typedef struct loaded_ctx {
    lrecord_fn fn;
    void *ctx;
} loaded_ctx;

static void put_loaded(void *c, const char *rel, const char *sha)
{
    loaded_ctx *l = c;
    char name[LHOST_PATH_MAX + 8];
    snprintf(name, sizeof name, "loaded:%s", rel);
    l->fn(l->ctx, name, sha);
}

size_t lrecord_actions(lhost *h, lrecord_fn fn, void *ctx)
{
    size_t n = record_actions(h, fn, ctx);
    loaded_ctx l = {fn, ctx};
    return n + lhost_loaded_files(h, put_loaded, &l);
}
