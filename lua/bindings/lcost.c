/*
 * lcost.c - the expected CPU time of a run (lcost.h): the declared
 * entities' parameters, read through their schemas, priced at unit costs.
 *
 * The unit costs were measured with `mtcsim run --profile` and
 * bench_study_rates on the reference machine (2-core AMD EPYC VM, shared;
 * CPU seconds, not wall), quickstart with one other process on the
 * machine: at `scale=0.05` (48.3 million log entries, 3.19 million
 * expected host visits) 4.6 CPU s, of which the log's part 3.5 (the
 * arrivals' draws, the count, the window's delay histograms: 68 ns an
 * entry once the run's other parts are priced); with log_history
 * "hashed" (every entry built and hashed) 16.8 CPU s, 319 ns an entry; at
 * full size (54.3 million entries, 71.7 million visits) 23.2 CPU s, of
 * which clients, handshakes and their verifications 17.9 (263 ns a visit
 * after the entries are priced); each figure less the profile's own clock
 * reads. The signers' rates are bench_study_rates' (checkpoint signing,
 * CPU seconds per signature).
 */
#include "lcost.h"

#include <string.h>

#include <lua.h>

#include "lworld_internal.h"
#include "mtc/error.h"

#define C_ENTRY_HASHED 319e-9  /* s per log entry, log_history "hashed" */
#define C_ENTRY_SYNTH 68e-9    /* s per log entry, synthetic history */
#define C_VISIT 263e-9      /* s per host visit */
#define C_RUN 0.3           /* s per run: setup, finish, results */
/* The share of the window's checkpoint signatures the simulator makes: a
 * signature is made only when something reads it (docs/model-pki.md "The
 * warm-up's cost"); quickstart at full size made 1,480 of its 17,280. */
#define SIGN_MADE_SHARE 0.086

/* CPU seconds per checkpoint signature by the CA parameter `algorithm`'s
 * order: ed25519, ecdsa-p256, ml-dsa-44, ml-dsa-65, ml-dsa-87. */
static const double C_SIGN[] = {53e-6, 65e-6, 212e-6, 299e-6, 457e-6};

/* A number parameter of cfg by name (durations in seconds, a
 * distribution's mean); `dflt` when the schema has no such number. */
static double num(const sim_param_schema *s, const void *cfg, const char *name,
                  double dflt)
{
    const sim_param_desc *d = sim_param_find(s, name);
    if (!d)
        return dflt;
    const char *p = (const char *)cfg + d->offset;
    switch (d->type) {
    case SIM_PARAM_INT: {
        int64_t v;
        memcpy(&v, p, sizeof v);
        return (double)v;
    }
    case SIM_PARAM_REAL: {
        double v;
        memcpy(&v, p, sizeof v);
        return v;
    }
    case SIM_PARAM_DURATION: {
        sim_time v;
        memcpy(&v, p, sizeof v);
        return sim_time_to_sec(v);
    }
    case SIM_PARAM_ENUM: {
        int v;
        memcpy(&v, p, sizeof v);
        return v;
    }
    case SIM_PARAM_DIST: {
        sim_dist *v;
        memcpy(&v, p, sizeof v);
        return v ? sim_dist_mean(v) : dflt;
    }
    default:
        return dflt;
    }
}

static size_t list_len(const sim_param_schema *s, const void *cfg,
                       const char *name)
{
    const sim_param_desc *d = sim_param_find(s, name);
    if (!d || d->type != SIM_PARAM_LIST)
        return 0;
    const sim_param_list *l = (const sim_param_list *)((const char *)cfg + d->offset);
    return l->count;
}

int lcost_estimate(lhost *h, lcost *out)
{
    memset(out, 0, sizeof *out);
    lua_State *L = lhost_state(h);
    const sim_param_schema *ws = sim_world_schema("world");
    double duration = 0, warmup = 0;
    if (lua_getfield(L, LUA_REGISTRYINDEX, K_WORLD) != LUA_TNIL) {
        lentity *we = lua_touserdata(L, -1);
        if (we && we->cfg) {
            duration = num(ws, we->cfg, "duration", 0);
            warmup = num(ws, we->cfg, "warmup", 0);
        }
    }
    lua_pop(L, 1);
    if (!(duration > 0))
        return SIM_ERR_CONFIG;
    double window = duration > warmup ? duration - warmup : 0;
    lworld__push_reg_table(L, K_ENTS);
    size_t n = lua_rawlen(L, -1);
    for (size_t i = 1; i <= n; i++) {
        lua_rawgeti(L, -1, (lua_Integer)i);
        lentity *e = lua_touserdata(L, -1);
        lua_pop(L, 1);
        if (!e || !e->cfg)
            continue;
        const sim_param_schema *s = e->schema;
        if (!strcmp(s->kind, "ca")) {
            double entries = num(s, e->cfg, "rate", 0) * duration;
            int hashed = (int)num(s, e->cfg, "log_history", 0) == 1;
            out->entries += entries;
            out->log_s += entries * (hashed ? C_ENTRY_HASHED : C_ENTRY_SYNTH);
            double ci = num(s, e->cfg, "checkpoint_interval", 0);
            int alg = (int)num(s, e->cfg, "algorithm", 2);
            if (alg < 0 || alg > 4)
                alg = 2;
            if (ci > 0) {
                /* the CA's three signatures per checkpoint, and each listed
                 * cosigner's, priced at the CA's algorithm */
                double sig = 3 * window / ci *
                             (1 + (double)list_len(s, e->cfg, "cosigners"));
                out->signatures += sig;
                out->sign_s += sig * SIGN_MADE_SHARE * C_SIGN[alg];
            }
        } else if (!strcmp(s->kind, "browsers")) {
            double count = num(s, e->cfg, "count", 0);
            double spd = num(s, e->cfg, "sessions_per_day", 0);
            double dur_h = num(s, e->cfg, "session_duration", 0) / 3600;
            double online_h = spd > 0 ? spd * dur_h : 24;
            if (online_h > 24)
                online_h = 24;
            out->visits += count * online_h * num(s, e->cfg, "visits_per_hour", 0) *
                           num(s, e->cfg, "hosts_per_visit", 1) * duration / 86400;
        }
    }
    lua_pop(L, 1);
    out->cpu_s = C_RUN + out->log_s + out->sign_s + C_VISIT * out->visits;
    /* entries and visits arrive through the whole run at the declared
     * rates, so the warm-up's part is its share of the duration; the
     * priced signatures are the window's */
    out->warmup_s = (out->log_s + C_VISIT * out->visits) * (warmup < duration ? warmup : duration) /
                    duration;
    return MTC_OK;
}
