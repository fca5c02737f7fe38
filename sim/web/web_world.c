/*
 * web_world.c - the web side as a world module (sim/world_module.h):
 * kinds "sites" and "browsers", and the web_pki table over the PKI
 * module's sim_world_* queries. world_modules.c lists sim_web_module after
 * the PKI module, so the PKI has started when the web side starts.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mtc/error.h"
#include "sim/pki.h"
#include "sim/web.h"
#include "sim/world_module.h"

static size_t w_ca_count(void *ctx) { return sim_world_count(ctx, "ca"); }
static const sim_ca_info *w_ca(void *ctx, size_t ca) { return sim_pki_ca(ctx, ca); }
static const mtc_landmarks *w_landmarks(void *ctx, size_t ca, uint64_t log)
{
    return sim_pki_ca_landmarks(ctx, ca, log);
}
static int w_issue(void *ctx, size_t ca, const sim_issue_request *req, uint64_t *t)
{
    return sim_pki_issue(ctx, ca, req, t);
}
static int w_revoke(void *ctx, size_t ca, uint64_t log, uint64_t first, uint64_t last)
{
    return sim_pki_revoke(ctx, ca, log, first, last);
}
static int w_is_revoked(void *ctx, size_t ca, uint64_t serial, sim_time *since)
{
    return sim_pki_is_revoked(ctx, ca, serial, since);
}
static size_t w_us_count(void *ctx) { return sim_world_count(ctx, "update_service"); }
static uint32_t w_pub_latest(void *ctx, size_t us) { return sim_pki_pub_latest(ctx, us); }
static int w_pub_available(void *ctx, size_t us) { return sim_pki_pub_available(ctx, us); }
static const sim_ca_view *w_pub_view(void *ctx, size_t us, uint32_t pub, size_t ca)
{
    return sim_pki_pub_view(ctx, us, pub, ca);
}
static size_t w_update_bytes(void *ctx, size_t us, uint32_t from, uint32_t to)
{
    return sim_pki_update_bytes(ctx, us, from, to);
}
static sim_time w_pub_time(void *ctx, size_t us, uint32_t pub)
{
    return sim_pki_pub_time(ctx, us, pub);
}
static const sim_ca_staple *w_staple(void *ctx, size_t ca)
{
    return sim_pki_ca_staple(ctx, ca);
}
static const sim_lmgroup *w_us_group(void *ctx, size_t us)
{
    return sim_pki_us_group(ctx, us);
}
static mtc_sig_alg w_cosigner_alg(void *ctx, size_t ca, size_t i)
{
    mtc_sig_alg alg = MTC_SIG_NONE;
    if (sim_pki_ca_cosigner(ctx, ca, i, NULL, NULL, &alg, NULL, NULL) != MTC_OK)
        return sim_pki_ca(ctx, ca)->alg;
    return alg;
}

static const sim_ca_proof_set *w_proof_set(void *ctx, size_t ca, uint64_t log,
                                           uint64_t landmark)
{
    return sim_pki_ca_proof_set(ctx, ca, log, landmark);
}

static size_t w_update_parts(void *ctx, size_t us, uint32_t from, uint32_t to,
                             sim_update_parts *out)
{
    return sim_pki_update_parts(ctx, us, from, to, out);
}

static size_t w_revocations(void *ctx, size_t ca) { return sim_pki_revocations(ctx, ca); }
static sim_time w_revocation_at(void *ctx, size_t ca, size_t i)
{
    return sim_pki_revocation_at(ctx, ca, i);
}

static int w_us_find(void *ctx, const char *name)
{
    return sim_world_find(ctx, "update_service", name);
}

void web_pki_from_world(web_pki *out, sim_world *w)
{
    *out = (web_pki){w, w_ca_count, w_ca, w_landmarks, w_issue, w_revoke,
                     w_is_revoked, w_us_count, w_pub_latest, w_pub_available,
                     w_pub_view, w_update_bytes, w_us_find, w_pub_time,
                     w_staple, w_us_group, w_cosigner_alg, w_proof_set, w_update_parts,
                     w_revocations, w_revocation_at};
}

typedef struct web_module_state {
    web_pki pki;
    web *wb;
} web_module_state;

static int web_mod_start(sim_world *w, void **state, char *err, size_t errlen)
{
    web_module_state *st = calloc(1, sizeof *st);
    if (!st)
        return MTC_ERR_NOMEM;
    *state = st;
    web_pki_from_world(&st->pki, w);
    const sim_world_env *we = sim_world_get_env(w);
    web_env env;
    memset(&env, 0, sizeof env);
    env.engine = we->engine;
    env.metrics = we->metrics;
    env.rng = we->rng;
    env.shard = we->shard;
    env.nshards = we->nshards;
    env.pki = &st->pki;
    web_tls_config_defaults(&env.tls);
    env.tls.epoch = sim_world_get_config(w)->epoch;
    env.steady_sites = sim_world_get_config(w)->start == SIM_START_STEADY;
    env.stop = we->stop;
    env.chains = we->chains;
    size_t ns = 0, nb = 0;
    void *const *sites = sim_world_entities(w, "sites", &ns);
    void *const *cohorts = sim_world_entities(w, "browsers", &nb);
    int rc = web_create(&st->wb, &env, (const web_sites_config *const *)sites, ns,
                        (const web_browsers_config *const *)cohorts, nb, err, errlen);
    if (rc == MTC_OK)
        rc = web_start(st->wb, err, errlen);
    return rc;
}

static void web_mod_destroy(void *state)
{
    web_module_state *st = state;
    if (!st)
        return;
    web_destroy(st->wb);
    free(st);
}

/* The web side's part of a steady start's history: the longest ACME
 * Retry-After, so that a renewal's landmark-relative certificate is
 * installed (see sim_world_steady_history). */
static sim_time web_history(const sim_world *w, char *why, size_t whylen)
{
    size_t n;
    void *const *cfg = sim_world_entities(w, "sites", &n);
    sim_time t = 0;
    for (size_t i = 0; i < n; i++) {
        const web_sites_config *c = cfg[i];
        if (c->retry_after > t)
            t = c->retry_after;
    }
    if (t > 0 && why && whylen) {
        size_t len = strlen(why);
        if (len + 40 < whylen)
            snprintf(why + len, whylen - len, "%sACME Retry-After %.6g min",
                     len ? "; " : "", sim_time_to_sec(t) / 60.0);
    }
    return t;
}

static const sim_param_schema *const web_kinds[] = {&sim_sites_schema,
                                                     &sim_browsers_schema};

const sim_world_module sim_web_module = {
    .name = "web",
    .kinds = web_kinds,
    .nkinds = sizeof web_kinds / sizeof web_kinds[0],
    /* no actions yet: key compromise is scheduled by the sites' own
     * compromise_at parameter */
    .start = web_mod_start,
    .destroy = web_mod_destroy,
    .history = web_history,
};
