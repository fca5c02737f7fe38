/*
 * world.c - the world: entity configs by kind, lifecycle, dispatch of
 * actions and live parameter changes to the module owning the kind.
 *
 * The world knows no model: it stores configs (validated by their schema
 * when added), checks names, and calls the modules' hooks in table order
 * (world_modules.c). Entity counts are small (tens of CAs, a few browser
 * cohorts), so lookups are linear.
 */
#include "sim/world.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mtc/error.h"
#include "sim/status.h"
#include "sim/world_module.h"
#include "sim/world_prof.h"

typedef struct kind_store {
    const sim_param_schema *schema;
    const sim_world_module *mod;
    size_t name_off;
    void **cfg;
    size_t n, cap;
} kind_store;

struct sim_world {
    sim_world_env env;
    sim_world_config cfg;
    kind_store *kinds;
    size_t nkinds;
    void **mstate;          /* per module in table order */
    int started, finished;
};

static int fail(char *err, size_t errlen, int rc, const char *fmt, ...)
{
    if (err && errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
    return rc;
}

size_t sim_world_kind_count(void)
{
    size_t n = 1;
    for (size_t m = 0; m < sim_world_module_count; m++)
        n += sim_world_module_table[m]->nkinds;
    return n;
}

const sim_param_schema *sim_world_kind(size_t i)
{
    if (i == 0)
        return &sim_world_config_schema;
    i--;
    for (size_t m = 0; m < sim_world_module_count; m++) {
        const sim_world_module *mod = sim_world_module_table[m];
        if (i < mod->nkinds)
            return mod->kinds[i];
        i -= mod->nkinds;
    }
    return NULL;
}

const sim_param_schema *sim_world_schema(const char *kind)
{
    const sim_param_schema *s;
    for (size_t i = 0; (s = sim_world_kind(i)) != NULL; i++)
        if (!strcmp(s->kind, kind))
            return s;
    return NULL;
}

size_t sim_world_action_count(void)
{
    size_t n = 0;
    for (size_t m = 0; m < sim_world_module_count; m++)
        n += sim_world_module_table[m]->nactions;
    return n;
}

const sim_world_action *sim_world_action_at(size_t i)
{
    for (size_t m = 0; m < sim_world_module_count; m++) {
        const sim_world_module *mod = sim_world_module_table[m];
        if (i < mod->nactions)
            return &mod->actions[i];
        i -= mod->nactions;
    }
    return NULL;
}

void sim_world_metrics_config(const sim_world_config *wc,
                              sim_metrics_config *out)
{
    memset(out, 0, sizeof *out);
    out->warmup_end = wc->warmup;
    out->grid_start = 0;
    out->grid_step = wc->grid_step;
}

static kind_store *find_kind(const sim_world *w, const char *kind)
{
    for (size_t i = 0; i < w->nkinds; i++)
        if (!strcmp(w->kinds[i].schema->kind, kind))
            return &w->kinds[i];
    return NULL;
}

static const char *cfg_name(const kind_store *k, const void *cfg)
{
    return (const char *)cfg + k->name_off;
}

int sim_world_create(sim_world **out, const sim_world_env *env,
                     const sim_world_config *world_cfg, char *err,
                     size_t errlen)
{
    *out = NULL;
    if (!env || !env->engine || !env->metrics || !env->rng || !world_cfg)
        return fail(err, errlen, SIM_ERR_ARG,
                    "world: engine, metrics, rng and config are required");
    if (env->nshards == 0 || env->shard >= env->nshards)
        return fail(err, errlen, SIM_ERR_ARG,
                    "world: shard %u of %u is not valid", env->shard,
                    env->nshards);
    if (sim_world_config_schema.validate) {
        int rc = sim_world_config_schema.validate(world_cfg, err, errlen);
        if (rc != SIM_OK)
            return rc;
    }
    sim_world *w = calloc(1, sizeof *w);
    if (!w)
        return fail(err, errlen, SIM_ERR_NOMEM, "world: out of memory");
    w->env = *env;
    w->cfg = *world_cfg;
    size_t nk = 0;
    for (size_t m = 0; m < sim_world_module_count; m++)
        nk += sim_world_module_table[m]->nkinds;
    w->kinds = calloc(nk ? nk : 1, sizeof *w->kinds);
    w->mstate = calloc(sim_world_module_count + 1, sizeof *w->mstate);
    if (!w->kinds || !w->mstate) {
        sim_world_destroy(w);
        return fail(err, errlen, SIM_ERR_NOMEM, "world: out of memory");
    }
    for (size_t m = 0; m < sim_world_module_count; m++) {
        const sim_world_module *mod = sim_world_module_table[m];
        for (size_t k = 0; k < mod->nkinds; k++) {
            kind_store *ks = &w->kinds[w->nkinds++];
            ks->schema = mod->kinds[k];
            ks->mod = mod;
            const sim_param_desc *d = sim_param_find(ks->schema, "name");
            if (!d || d->type != SIM_PARAM_STRING) {
                sim_world_destroy(w);
                return fail(err, errlen, SIM_ERR_CONFIG,
                            "kind %s: schema has no string parameter 'name'",
                            ks->schema->kind);
            }
            ks->name_off = d->offset;
        }
    }
    *out = w;
    return SIM_OK;
}

void sim_world_destroy(sim_world *w)
{
    if (!w)
        return;
    if (w->mstate)
        for (size_t m = sim_world_module_count; m-- > 0;)
            if (w->mstate[m])
                sim_world_module_table[m]->destroy(w->mstate[m]);
    for (size_t i = 0; i < w->nkinds; i++) {
        kind_store *k = &w->kinds[i];
        for (size_t j = 0; j < k->n; j++)
            sim_param_config_free(k->schema, k->cfg[j]);
        free(k->cfg);
    }
    free(w->kinds);
    free(w->mstate);
    free(w);
}

static int name_taken(const sim_world *w, const char *name)
{
    for (size_t i = 0; i < w->nkinds; i++)
        for (size_t j = 0; j < w->kinds[i].n; j++)
            if (!strcmp(cfg_name(&w->kinds[i], w->kinds[i].cfg[j]), name))
                return 1;
    return 0;
}

int sim_world_add(sim_world *w, const char *kind, void *cfg, char *err,
                  size_t errlen)
{
    kind_store *k = find_kind(w, kind);
    if (!k) {
        const sim_param_schema *s = sim_world_schema(kind);
        if (s)
            sim_param_config_free(s, cfg);
        if (!strcmp(kind, "world"))
            return fail(err, errlen, SIM_ERR_CONFIG,
                        "world: the world config is given to sim_world_create");
        return fail(err, errlen, SIM_ERR_CONFIG,
                    "unknown entity kind '%s'", kind);
    }
    int rc = SIM_OK;
    const char *name = cfg_name(k, cfg);
    if (w->started) {
        rc = fail(err, errlen, SIM_ERR_STATE,
                  "%s %s: the world has already started", kind, name);
        goto bad;
    }
    if (!name[0]) {
        rc = fail(err, errlen, SIM_ERR_CONFIG, "%s: name: must not be empty",
                  kind);
        goto bad;
    }
    if (name_taken(w, name) || !strcmp(name, w->cfg.name)) {
        rc = fail(err, errlen, SIM_ERR_CONFIG,
                  "%s %s: name: already used by another entity", kind, name);
        goto bad;
    }
    if (k->schema->validate) {
        char sub[256];
        sub[0] = 0;
        rc = k->schema->validate(cfg, sub, sizeof sub);
        if (rc != SIM_OK) {
            rc = fail(err, errlen, rc, "%s %s: %s", kind, name, sub);
            goto bad;
        }
    }
    if (k->n == k->cap) {
        size_t nc = k->cap ? 2 * k->cap : 8;
        void **p = realloc(k->cfg, nc * sizeof *p);
        if (!p) {
            rc = fail(err, errlen, SIM_ERR_NOMEM, "out of memory");
            goto bad;
        }
        k->cfg = p;
        k->cap = nc;
    }
    k->cfg[k->n] = cfg;
    return (int)k->n++;
bad:
    sim_param_config_free(k->schema, cfg);
    return rc;
}

sim_time sim_world_steady_history(const sim_world *w, char *why,
                                  size_t whylen)
{
    sim_time h = 0;
    if (why && whylen)
        why[0] = 0;
    for (size_t m = 0; m < sim_world_module_count; m++)
        if (sim_world_module_table[m]->history) {
            sim_time part = sim_world_module_table[m]->history(w, why, whylen);
            h = part > SIM_TIME_MAX - h ? SIM_TIME_MAX : h + part;
        }
    return h;
}

int sim_world_start(sim_world *w, char *err, size_t errlen)
{
    if (w->started)
        return fail(err, errlen, SIM_ERR_STATE, "world: already started");
    w->started = 1;
    for (size_t m = 0; m < sim_world_module_count; m++) {
        int rc = sim_world_module_table[m]->start(w, &w->mstate[m], err,
                                                  errlen);
        if (rc != SIM_OK)
            return rc;
    }
    /* After the modules: their configuration errors are more specific. */
    if (w->cfg.start == SIM_START_STEADY) {
        char why[384];
        sim_time h = sim_world_steady_history(w, why, sizeof why);
        if (w->cfg.warmup < h)
            return fail(err, errlen, SIM_ERR_CONFIG,
                        "world: warmup: a steady start needs at least %.17g s "
                        "(%.6g days) of history before the measured window "
                        "(%s), got %.17g s; use warmup = steady_warmup{...} "
                        "(docs/scenarios.md) or start = \"empty\" for a cold "
                        "start",
                        sim_time_to_sec(h), sim_time_to_sec(h) / 86400.0, why,
                        sim_time_to_sec(w->cfg.warmup));
    }
    sim_engine_set_stop_time(w->env.engine, w->cfg.duration);
    return SIM_OK;
}

void sim_world_finish(sim_world *w)
{
    if (!w || !w->started || w->finished)
        return;
    w->finished = 1;
    for (size_t m = 0; m < sim_world_module_count; m++)
        if (sim_world_module_table[m]->finish && w->mstate[m])
            sim_world_module_table[m]->finish(w, w->mstate[m]);
    sim_time end = sim_now(w->env.engine);
    if (end > w->cfg.duration)
        end = w->cfg.duration;
    sim_metrics_finish(w->env.metrics, end);
}

int sim_world_run(sim_world *w, char *err, size_t errlen)
{
    int rc = sim_world_start(w, err, errlen);
    if (rc != SIM_OK)
        return rc;
    rc = sim_engine_run(w->env.engine);
    if (rc < 0)
        return fail(err, errlen, rc, "engine: %s", sim_strerror(rc));
    sim_world_finish(w);
    return SIM_OK;
}

const sim_world_env *sim_world_get_env(const sim_world *w) { return &w->env; }

const sim_world_config *sim_world_get_config(const sim_world *w)
{
    return &w->cfg;
}

size_t sim_world_count(const sim_world *w, const char *kind)
{
    const kind_store *k = find_kind(w, kind);
    return k ? k->n : 0;
}

int sim_world_find(const sim_world *w, const char *kind, const char *name)
{
    const kind_store *k = find_kind(w, kind);
    if (k)
        for (size_t j = 0; j < k->n; j++)
            if (!strcmp(cfg_name(k, k->cfg[j]), name))
                return (int)j;
    return MTC_ERR_RANGE;
}

const void *sim_world_entity_config(const sim_world *w, const char *kind,
                                    size_t index)
{
    const kind_store *k = find_kind(w, kind);
    return k && index < k->n ? k->cfg[index] : NULL;
}

const char *sim_world_entity_name(const sim_world *w, const char *kind,
                                  size_t index)
{
    const kind_store *k = find_kind(w, kind);
    return k && index < k->n ? cfg_name(k, k->cfg[index]) : NULL;
}

void *const *sim_world_entities(const sim_world *w, const char *kind,
                                size_t *count)
{
    const kind_store *k = find_kind(w, kind);
    *count = k ? k->n : 0;
    return k ? k->cfg : NULL;
}

void *sim_world_module_state(const sim_world *w, const sim_world_module *m)
{
    for (size_t i = 0; i < sim_world_module_count; i++)
        if (sim_world_module_table[i] == m)
            return w->mstate[i];
    return NULL;
}

/* Finds entity `name` in any kind. */
static int find_entity(const sim_world *w, const char *name, kind_store **ks,
                       size_t *index)
{
    for (size_t i = 0; i < w->nkinds; i++)
        for (size_t j = 0; j < w->kinds[i].n; j++)
            if (!strcmp(cfg_name(&w->kinds[i], w->kinds[i].cfg[j]), name)) {
                *ks = &w->kinds[i];
                *index = j;
                return 1;
            }
    return 0;
}

static void *module_state(const sim_world *w, const sim_world_module *m)
{
    return sim_world_module_state(w, m);
}

/* Written so that NaN fails every test. */
int sim_world_action_check(const sim_world_action *a, const double *args,
                           size_t nargs, char *err, size_t errlen)
{
    const char *kinds = a->arg_kinds ? a->arg_kinds : "";
    for (size_t i = 0; i < nargs && kinds[i]; i++) {
        double v = args[i];
        int integral = v == floor(v);
        switch (kinds[i]) {
        case 'd':
            if (!(v > 0 && v <= SIM_WORLD_ACTION_DURATION_MAX))
                return fail(err, errlen, SIM_ERR_CONFIG,
                            "%s: argument %zu (a duration) must be in (0, %g] "
                            "s, got %g", a->name, i + 1,
                            SIM_WORLD_ACTION_DURATION_MAX, v);
            break;
        case 'i':
            if (!(v >= 0 && v < 281474976710656.0 && integral))
                return fail(err, errlen, SIM_ERR_CONFIG,
                            "%s: argument %zu (a log entry index) must be an "
                            "integer in [0, 2^48), got %g", a->name, i + 1, v);
            if (i > 0 && kinds[i - 1] == 'i' && !(args[i - 1] <= v))
                return fail(err, errlen, SIM_ERR_CONFIG,
                            "%s: the range %g..%g is empty (first > last)",
                            a->name, args[i - 1], v);
            break;
        case 'l':
        case 'k': {
            double lo = kinds[i] == 'l' ? 1 : 0;
            if (!(v >= lo && v <= 65535 && integral))
                return fail(err, errlen, SIM_ERR_CONFIG,
                            "%s: argument %zu (a %s) must be an integer in "
                            "%g..65535, got %g", a->name, i + 1,
                            kinds[i] == 'l' ? "log number" : "count", lo, v);
            break;
        }
        default:
            break;
        }
    }
    return SIM_OK;
}

int sim_world_act(sim_world *w, const char *action, const char *entity_name,
                  const double *args, size_t nargs, char *err, size_t errlen)
{
    if (!w->started)
        return fail(err, errlen, SIM_ERR_STATE,
                    "%s: the world has not started", action);
    const sim_world_action *a = NULL, *x;
    for (size_t i = 0; !a && (x = sim_world_action_at(i)) != NULL; i++)
        if (!strcmp(x->name, action))
            a = x;
    if (!a)
        return fail(err, errlen, SIM_ERR_CONFIG, "unknown action '%s'", action);
    kind_store *k;
    size_t index;
    if (!find_entity(w, entity_name, &k, &index))
        return fail(err, errlen, SIM_ERR_CONFIG, "%s: no entity named '%s'",
                    action, entity_name);
    if (strcmp(k->schema->kind, a->kind))
        return fail(err, errlen, SIM_ERR_CONFIG,
                    "%s: '%s' is a %s, the action needs a %s", action,
                    entity_name, k->schema->kind, a->kind);
    if (nargs < a->min_args || nargs > a->max_args)
        return fail(err, errlen, SIM_ERR_CONFIG,
                    "%s: takes %zu to %zu arguments (%s), got %zu", action,
                    a->min_args, a->max_args, a->args_doc, nargs);
    if (sim_world_action_check(a, args, nargs, err, errlen) != SIM_OK)
        return SIM_ERR_CONFIG;
    if (!k->mod->act)
        return fail(err, errlen, SIM_ERR_CONFIG, "%s: not implemented by %s",
                    action, k->mod->name);
    return k->mod->act(w, module_state(w, k->mod), a, k->schema->kind, index,
                       args, nargs, err, errlen);
}

int sim_world_set(sim_world *w, const char *entity_name, const char *param,
                  double value, char *err, size_t errlen)
{
    if (!w->started)
        return fail(err, errlen, SIM_ERR_STATE,
                    "set: the world has not started");
    kind_store *k;
    size_t index;
    if (!find_entity(w, entity_name, &k, &index))
        return fail(err, errlen, SIM_ERR_CONFIG, "set: no entity named '%s'",
                    entity_name);
    const sim_param_desc *d = sim_param_find(k->schema, param);
    if (!d)
        return fail(err, errlen, SIM_ERR_CONFIG,
                    "set: %s %s has no parameter '%s'", k->schema->kind,
                    entity_name, param);
    if (d->type != SIM_PARAM_INT && d->type != SIM_PARAM_REAL &&
        d->type != SIM_PARAM_DURATION && d->type != SIM_PARAM_BOOL)
        return fail(err, errlen, SIM_ERR_CONFIG,
                    "set: %s: only numeric parameters can change live",
                    param);
    /* the descriptor says what is live; the module applies it */
    if (!(d->flags & SIM_PARAM_LIVE) || !k->mod->set)
        return fail(err, errlen, SIM_ERR_CONFIG,
                    "set: %s: not a live parameter of %s", param,
                    k->schema->kind);
    /* Range check on a scratch copy of the one field. */
    char scratch[256];
    char *tmp = calloc(1, k->schema->config_size);
    if (!tmp)
        return fail(err, errlen, SIM_ERR_NOMEM, "out of memory");
    int rc = sim_param_set_number(d, tmp, value, scratch, sizeof scratch);
    free(tmp);
    if (rc != SIM_OK)
        return fail(err, errlen, rc, "set: %s %s: %s", k->schema->kind,
                    entity_name, scratch);
    return k->mod->set(w, module_state(w, k->mod), k->schema->kind, index, d,
                       value, err, errlen);
}

/* ---- profile names (sim/world_prof.h) ---- */

const sim_prof_names *sim_world_prof_names(void)
{
    static const char *const phase[SIM_PHASE_COUNT] = {
        "setup", "warm-up", "window", "finish", "results"};
    static const char *const part[SIM_PART_COUNT] = {
        "engine and other", "log appends and hashing", "signing",
        "verification", "update channel", "handshakes and clients",
        "metrics", "scenario (Lua)", "results writing"};
    static const char *const work[SIM_WORK_COUNT] = {
        "log entries", "log hash compressions", "signatures",
        "signature verifications", "full handshakes",
        "ckpt signatures ed25519", "ckpt signatures ecdsa-p256",
        "ckpt signatures ml-dsa-44", "ckpt signatures ml-dsa-65",
        "ckpt signatures ml-dsa-87"};
    static const sim_prof_names n = {part, SIM_PART_COUNT, phase,
                                     SIM_PHASE_COUNT, work, SIM_WORK_COUNT};
    return &n;
}
