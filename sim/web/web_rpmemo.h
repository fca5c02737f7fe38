/*
 * web_rpmemo.h - a memo of relying-party states derived from the update
 * services' views (internal to sim/web): the what-ifs that hand a client
 * signed bytes beside the update service's (staples, web_staple.c; proof
 * sets from Landmark Distribution Points, web_ldp.c) verify those bytes
 * once per (copy, update service, base view version), not once per client.
 *
 * A state is the base view with the relying-party state replaced by a
 * clone to which the copy was applied (by the caller's apply function),
 * and a view version of its own, version_base + its index, so that the
 * verification memo tells it apart from the base and from every other
 * state. States are allocated one by one: a view's address stays put
 * while the memo grows.
 *
 * Ownership: the memo owns its states and their relying-party states;
 * web_rpmemo_free releases them. Not thread-safe (one per web side).
 */
#ifndef MTCSIM_WEB_RPMEMO_H
#define MTCSIM_WEB_RPMEMO_H

#include <stddef.h>
#include <stdint.h>

#include "mtc/rp.h"
#include "sim/pki.h"

typedef struct web_rpstate {
    uint32_t copy;           /* the caller's index of the copy applied */
    uint32_t us, base_version;
    int ok;                  /* the copy verified against the base state */
    mtc_rp_ca *rp;           /* owned */
    sim_ca_view view;        /* the base view with rp and version replaced */
} web_rpstate;

typedef struct web_rpmemo {
    uint32_t version_base;   /* above every other kind of view's versions */
    web_rpstate **states;
    size_t nstates, capstates;
    uint32_t *index;         /* open addressing over states (+1; 0 empty) */
    size_t index_cap;
} web_rpmemo;

/* Applies copy `s->copy` to s->rp (a clone of the base view's) and may
 * edit s->view (its logs); returns whether the copy verified. */
typedef int (*web_rpmemo_apply)(void *ctx, web_rpstate *s);

/* An empty memo whose states' views are numbered from version_base. */
void web_rpmemo_init(web_rpmemo *m, uint32_t version_base);

/* The state of copy `copy` applied to base view v of update service us,
 * made with apply(ctx, ...) on first use. NULL when out of memory. */
const web_rpstate *web_rpmemo_get(web_rpmemo *m, uint32_t copy, uint32_t us,
                                  const sim_ca_view *v, web_rpmemo_apply apply,
                                  void *ctx);

void web_rpmemo_free(web_rpmemo *m);

#endif
