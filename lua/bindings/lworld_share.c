/*
 * lworld_share.c - one warm-up for several runs (`mtcsim run
 * --share-warmup`): the key that says when runs may share it, the warm-up
 * run once, and a run continuing it in a forked process.
 *
 * Why it is exact: the model sees a run only through its configs (every
 * field set through its schema), its seed and replication (the streams),
 * and the calls scheduled on its engine. Two runs of one replication
 * whose world and entities have the same parameters, and whose timed
 * calls before the warm-up end are the same world actions, execute the
 * same events in the same order up to the warm-up end; a Lua function
 * scheduled before it is refused (its effect cannot be compared). What
 * may differ is what the scenario schedules at or after the warm-up end
 * and what its Lua code does with the results (on_finish). Those calls
 * are scheduled by each continuing run into a room of seqs the warm-up
 * kept free where its build would have scheduled them
 * (sim_engine_set_next_seq), so ties at one time are broken as in a run
 * of its own: the continuation's events are those of the unshared run,
 * bit for bit (tests/sh_share_warmup.sh compares the databases).
 */
#include "lrecord.h"
#include "lworld_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>

#include "mtc/error.h"
#include "sim/status.h"

typedef struct kbuf {
    char *b;
    size_t n, cap;
    int failed;
} kbuf;

static void kput(kbuf *k, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void kput(kbuf *k, const char *fmt, ...)
{
    if (k->failed)
        return;
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int m = vsnprintf(k->b ? k->b + k->n : NULL, k->b ? k->cap - k->n : 0,
                          fmt, ap);
        va_end(ap);
        if (m < 0) {
            k->failed = 1;
            return;
        }
        if (k->b && (size_t)m < k->cap - k->n) {
            k->n += (size_t)m;
            return;
        }
        size_t nc = k->cap ? 2 * k->cap : 4096;
        while (nc < k->n + (size_t)m + 1)
            nc *= 2;
        char *p = realloc(k->b, nc);
        if (!p) {
            k->failed = 1;
            return;
        }
        k->b = p;
        k->cap = nc;
    }
}

/* One parameter exactly: sim_param_format, except that reals and the
 * hourly profiles (printed with %g there) are written in hex. */
static void key_param(kbuf *k, const char *kind, const char *ent,
                      const sim_param_desc *d, const void *cfg)
{
    const char *f = (const char *)cfg + d->offset;
    kput(k, "%s.%s.%s=", kind, ent, d->name);
    if (d->type == SIM_PARAM_REAL) {
        kput(k, "%a\n", *(const double *)f);
    } else if (d->type == SIM_PARAM_PROFILE) {
        for (int i = 0; i < SIM_PROFILE_HOURS; i++)
            kput(k, "%s%a", i ? "," : "", ((const double *)f)[i]);
        kput(k, "\n");
    } else {
        int n = sim_param_format(d, cfg, NULL, 0);
        char *v = n >= 0 ? malloc((size_t)n + 1) : NULL;
        if (!v) {
            k->failed = 1;
            return;
        }
        sim_param_format(d, cfg, v, (size_t)n + 1);
        kput(k, "%s\n", v);
        free(v);
    }
}

static void key_schema(kbuf *k, const sim_param_schema *s, const char *ent,
                       const void *cfg)
{
    for (size_t i = 0; i < s->count; i++)
        key_param(k, s->kind, ent, &s->params[i], cfg);
}

/* The first firing time of a timed record (the table on top), as the
 * build computes it. */
static sim_time record_at(lua_State *L, int rec, int *every, double *t,
                          double *start)
{
    lua_getfield(L, rec, "t");
    *t = lua_tonumber(L, -1);
    lua_getfield(L, rec, "start");
    *start = lua_tonumber(L, -1);
    lua_getfield(L, rec, "every");
    *every = lua_toboolean(L, -1);
    lua_pop(L, 3);
    if (*every)
        return *start >= 0 ? sim_time_from_sec(*start) : sim_time_from_sec(*t);
    return sim_time_from_sec(*t);
}

int lworld_share_key(lhost *h, char **key, char *why, size_t whylen)
{
    lua_State *L = lhost_state(h);
    *key = NULL;
    why[0] = '\0';
    kbuf k = {NULL, 0, 0, 0};
    const sim_param_schema *ws = sim_world_schema("world");
    void *own = NULL;
    const sim_world_config *wc;
    if (lua_getfield(L, LUA_REGISTRYINDEX, K_WORLD) != LUA_TNIL) {
        lentity *we = lua_touserdata(L, -1);
        wc = we->cfg;
    } else {
        if (sim_param_config_new(ws, &own) != MTC_OK) {
            lua_pop(L, 1);
            return MTC_ERR_NOMEM;
        }
        wc = own;
    }
    lua_pop(L, 1);
    if (!wc) {
        snprintf(why, whylen, "its world declaration was released");
        return MTC_OK;
    }
    if (wc->warmup <= 0 || wc->warmup >= wc->duration) {
        snprintf(why, whylen, "it has no warm-up before its measured window");
        sim_param_config_free(ws, own);
        return MTC_OK;
    }
    sim_time warm = wc->warmup;
    key_schema(&k, ws, "world", wc);
    sim_param_config_free(ws, own);
    lworld__push_reg_table(L, K_ENTS);
    size_t n = lua_rawlen(L, -1);
    for (size_t i = 1; i <= n && !why[0]; i++) {
        lua_rawgeti(L, -1, (lua_Integer)i);
        lentity *en = lua_touserdata(L, -1);
        lua_pop(L, 1);
        if (!en->cfg)
            snprintf(why, whylen, "%s '%s' was released", en->schema->kind,
                     en->name);
        else
            key_schema(&k, en->schema, en->name, en->cfg);
    }
    lua_pop(L, 1);
    lworld__push_reg_table(L, K_ATS);
    n = lua_rawlen(L, -1);
    for (size_t i = 1; i <= n && !why[0]; i++) {
        lua_rawgeti(L, -1, (lua_Integer)i);
        int rec = lua_gettop(L), every;
        double t, start;
        sim_time at = record_at(L, rec, &every, &t, &start);
        if (at >= warm) {       /* the run's own: each schedules its own */
            lua_pop(L, 1);
            continue;
        }
        if (lua_getfield(L, rec, "fn") == LUA_TFUNCTION) {
            lua_getfield(L, rec, "where");
            snprintf(why, whylen, "%s%s%s calls a Lua function before the "
                     "warm-up end", lua_tostring(L, -1) ? lua_tostring(L, -1) : "",
                     lworld__wsep(lua_tostring(L, -1) ? lua_tostring(L, -1) : ""),
                     every ? "sim:every" : "sim:at");
            lua_pop(L, 3);
            break;
        }
        lua_pop(L, 1);
        lua_getfield(L, rec, "action");
        lua_getfield(L, rec, "target");
        kput(&k, "at.%a.%d.%a.%a=%s(%s", t, every, start, (double)at,
             lua_tostring(L, -2), lua_tostring(L, -1));
        lua_pop(L, 2);
        lua_getfield(L, rec, "args");
        size_t na = lua_rawlen(L, -1);
        for (size_t a = 1; a <= na; a++) {
            lua_rawgeti(L, -1, (lua_Integer)a);
            kput(&k, ",%a", lua_tonumber(L, -1));
            lua_pop(L, 1);
        }
        kput(&k, ")\n");
        lua_pop(L, 2);
    }
    lua_pop(L, 1);
    if (k.failed) {
        free(k.b);
        return MTC_ERR_NOMEM;
    }
    if (why[0]) {
        free(k.b);
        return MTC_OK;
    }
    *key = k.b ? k.b : strdup("");
    return *key ? MTC_OK : MTC_ERR_NOMEM;
}

int lworld_share_warmup(lhost *h, uint64_t seed, uint64_t replication,
                        volatile sig_atomic_t *interrupt, lworld **out,
                        char *err, size_t errlen)
{
    int rc = lworld__build(h, seed, replication, NULL, NULL, 1, out, err,
                           errlen);
    if (rc != MTC_OK)
        return rc;
    lworld *lw = *out;
    lw->replication = replication;
    /* everything before the warm-up end; lworld_run goes on from there */
    lw->interrupt = interrupt;
    sim_engine_set_stop_predicate(lw->engine, lworld__stop_pred, lw);
    sim_engine_set_stop_time(lw->engine, lw->wc.warmup - 1);
    int reason = sim_engine_run(lw->engine);
    if (reason < 0 && !lw->failed) {
        lw->failed = 1;
        snprintf(lw->err, sizeof lw->err, "engine: %s", sim_strerror(reason));
    }
    lw->warmed = 1;
    return MTC_OK;
}

int lworld_share_continue(lworld *lw, lhost *hm, uint64_t replication,
                          const char *key, char *err, size_t errlen)
{
    lua_State *L = lhost_state(hm);
    int own = hm == lw->h;
    if (!lw->warmed || lw->share != 1 || replication != lw->replication) {
        snprintf(err, errlen, "not a warm-up of replication %llu",
                 (unsigned long long)replication);
        return SIM_ERR_STATE;
    }
    if (!own) {
        char *mine = NULL, why[512];
        if (lworld_share_key(hm, &mine, why, sizeof why) != MTC_OK)
            return MTC_ERR_NOMEM;
        int same = mine && !strcmp(mine, key);
        free(mine);
        if (!same) {
            snprintf(err, errlen, "its declarations before the warm-up end "
                     "differ from the shared warm-up's%s%s", why[0] ? ": " : "",
                     why);
            return SIM_ERR_STATE;
        }
        for (lcall *c = lw->calls; c; c = c->next)
            if (c->fnref != LUA_NOREF) {    /* the key refuses them */
                snprintf(err, errlen, "a Lua call is pending");
                return SIM_ERR_STATE;
            }
        /* what the run's memory account holds for the world moves to
         * the continuing run's host, the cap checked as at a build */
        size_t held = lw->series_bytes + lw->cbytes + lw->abytes;
        if (lhost_mem_reserve(hm, held)) {
            snprintf(err, errlen, "world: its metric series, pending calls "
                     "and actions hold %zu MiB, with the scenario's other "
                     "memory %zu MiB: more than --max-memory %zu MiB",
                     (held >> 20) + 1, lhost_mem_counted(hm) >> 20,
                     lhost_get_config(hm)->max_memory >> 20);
            return MTC_ERR_CONFIG;
        }
        lhost_mem_release(lw->h, held);
        /* the entities of hm are the world's (equal keys: the same kinds
         * and names in the same order, so the same indices) */
        lua_State *L0 = lhost_state(lw->h);
        lworld__push_reg_table(L0, K_ENTS);
        lworld__push_reg_table(L, K_ENTS);
        size_t n = lua_rawlen(L, -1);
        for (size_t i = 1; i <= n; i++) {
            lua_rawgeti(L, -1, (lua_Integer)i);
            lentity *en = lua_touserdata(L, -1);
            lua_pop(L, 1);
            lua_rawgeti(L0, -1, (lua_Integer)i);
            lentity *e0 = lua_touserdata(L0, -1);
            lua_pop(L0, 1);
            sim_param_config_free(en->schema, en->cfg);
            en->cfg = NULL;
            en->index = e0->index;
        }
        lua_pop(L, 1);
        lua_pop(L0, 1);
        if (lua_getfield(L, LUA_REGISTRYINDEX, K_WORLD) != LUA_TNIL) {
            lentity *we = lua_touserdata(L, -1);
            sim_param_config_free(sim_world_schema("world"), we->cfg);
            we->cfg = NULL;
        }
        lua_pop(L, 1);
        lhost_set_user(lw->h, NULL);
        lw->h = hm;
        lhost_set_user(hm, lw);
    }
    /* the run's own calls, at or after the warm-up end, into the room:
     * the warm-up's own host kept them in K_HELD (its K_ATS holds the
     * attribute records already), another host has them in K_ATS */
    uint64_t resume = sim_engine_next_seq(lw->engine);
    sim_engine_set_next_seq(lw->engine, lw->seq_room);
    int top = lua_gettop(L);
    lworld__push_reg_table(L, own ? K_HELD : K_ATS);
    int rc = lworld__schedule_records(lw, top + 1, LWORLD_CALLS_AFTER, err,
                                      errlen);
    uint64_t used = sim_engine_next_seq(lw->engine) - lw->seq_room;
    sim_engine_set_next_seq(lw->engine, resume);
    if (rc == MTC_OK && used > LWORLD_SEQ_ROOM) {
        snprintf(err, errlen, "more timed calls than a shared warm-up "
                 "keeps room for");
        rc = MTC_ERR_LIMIT;
    }
    if (own) {
        lua_pop(L, 1);
        lua_pushnil(L);
        lua_setfield(L, LUA_REGISTRYINDEX, K_HELD);
    } else {
        lworld__keep_action_records(L);     /* pops K_ATS */
    }
    lw->share = 2;          /* continued: once, in this process */
    return rc;
}
