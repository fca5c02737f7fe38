/*
 * tests/lib/web_pki_fixture.h - a TEST FIXTURE: a small, deterministic
 * PKI behind the web_pki table (sim/web.h), so the web side's tests do
 * not depend on the PKI module. It is built on the real mtc-core: each CA
 * has a real issuance log (mtc_ilog) with real checkpoints signed by its
 * CA cosigner (and optional witnesses), a real landmark sequence, real
 * standalone and landmark-relative certificates, and every publication's
 * relying-party state is a real mtc_rp_ca with the active landmark
 * subtrees and revoked ranges.
 *
 * Timing is deliberately simple (what the closed-form tests assume):
 * a request is appended and checkpointed at once, its standalone
 * certificate is delivered `sa_delay` later; every landmark_interval (at
 * k * landmark_interval) a landmark is allocated, the landmark-relative
 * certificates it covers are delivered, and a publication is made
 * `pub_delay` later. With landmarks off, no landmark is ever allocated.
 */
#ifndef WEB_PKI_FIXTURE_H
#define WEB_PKI_FIXTURE_H

#include "sim/web.h"

typedef struct wfx_config {
    size_t nca;                 /* 1..4 */
    mtc_sig_alg alg;            /* cosigner algorithm */
    size_t witnesses;           /* external cosigners per CA (policy: all) */
    sim_time lifetime;          /* certificate lifetime */
    sim_time landmark_interval; /* 0: no landmarks at all */
    sim_time sa_delay;          /* request -> standalone certificate */
    sim_time pub_delay;         /* landmark -> publication */
    uint64_t background;        /* background entries per landmark interval */
    int64_t epoch;
    int staple;                 /* what-if: checkpoints are signed (at the
                                   epoch + sim time in seconds) and every
                                   landmark makes a staple (mtc/staple.h) */
    unsigned ldp;               /* > 0 (with staple): certificates name that
                                   many Landmark Distribution Points, which
                                   serve each landmark's proof set */
    double ldp_fail_prob;       /* a fetch from them fails */
} wfx_config;

void wfx_defaults(wfx_config *c);

typedef struct wfx wfx;

/* Creates the PKI on engine sim and schedules its landmark events.
 * Returns 0 on success. */
int wfx_create(wfx **out, const wfx_config *cfg, sim_engine *sim);
void wfx_destroy(wfx *f);

/* The table for web_env.pki (points into f). */
const web_pki *wfx_pki(wfx *f);

/* Statistics for assertions. */
uint64_t wfx_landmarks(const wfx *f, size_t ca);
uint32_t wfx_pubs(const wfx *f);
uint64_t wfx_issued(const wfx *f);

/* A fresh relying party for (publication, ca) built again from scratch
 * (not the shared one): for cross-checks. Caller frees. */
int wfx_rp_fresh(wfx *f, uint32_t pub, size_t ca, mtc_rp_ca **out);

#endif
