/*
 * web_rpmemo.c - the memo of relying-party states (web_rpmemo.h): an
 * open-addressing index over the states, kept at most half full.
 */
#include "web_rpmemo.h"

#include <stdlib.h>
#include <string.h>

#include "mtc/error.h"
#include "mtc/staple.h" /* mtc_rp_ca_clone */

void web_rpmemo_init(web_rpmemo *m, uint32_t version_base)
{
    memset(m, 0, sizeof *m);
    m->version_base = version_base;
}

static size_t slot(uint32_t copy, uint32_t us, uint32_t ver, size_t cap)
{
    uint64_t k = ((uint64_t)copy << 40) ^ ((uint64_t)us << 32) ^ ver;
    k *= UINT64_C(0x9e3779b97f4a7c15);
    return (size_t)(k >> 17) & (cap - 1);
}

static int index_grow(web_rpmemo *m)
{
    size_t cap = m->index_cap ? 2 * m->index_cap : 256;
    uint32_t *ix = calloc(cap, sizeof *ix);
    if (!ix)
        return MTC_ERR_NOMEM;
    for (size_t i = 0; i < m->nstates; i++) {
        const web_rpstate *s = m->states[i];
        size_t j = slot(s->copy, s->us, s->base_version, cap);
        while (ix[j])
            j = (j + 1) & (cap - 1);
        ix[j] = (uint32_t)i + 1;
    }
    free(m->index);
    m->index = ix;
    m->index_cap = cap;
    return MTC_OK;
}

const web_rpstate *web_rpmemo_get(web_rpmemo *m, uint32_t copy, uint32_t us,
                                  const sim_ca_view *v, web_rpmemo_apply apply,
                                  void *ctx)
{
    if (2 * (m->nstates + 1) > m->index_cap && index_grow(m) != MTC_OK)
        return NULL;
    size_t j = slot(copy, us, v->version, m->index_cap);
    for (; m->index[j]; j = (j + 1) & (m->index_cap - 1)) {
        const web_rpstate *s = m->states[m->index[j] - 1];
        if (s->copy == copy && s->us == us && s->base_version == v->version)
            return s;
    }
    if (m->nstates == m->capstates) {
        size_t nc = m->capstates ? 2 * m->capstates : 64;
        web_rpstate **p = realloc(m->states, nc * sizeof *p);
        if (!p)
            return NULL;
        m->states = p;
        m->capstates = nc;
    }
    web_rpstate *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    *s = (web_rpstate){copy, us, v->version, 0, mtc_rp_ca_clone(v->rp), *v};
    if (!s->rp) {
        free(s);
        return NULL;
    }
    s->ok = apply(ctx, s);
    s->view.version = m->version_base + (uint32_t)m->nstates;
    s->view.rp = s->rp;
    m->states[m->nstates] = s;
    m->index[j] = (uint32_t)++m->nstates;
    return s;
}

void web_rpmemo_free(web_rpmemo *m)
{
    for (size_t i = 0; i < m->nstates; i++) {
        mtc_rp_ca_free(m->states[i]->rp);
        free(m->states[i]);
    }
    free(m->states);
    free(m->index);
    memset(m, 0, sizeof *m);
}
