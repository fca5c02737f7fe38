/*
 * validate/case_closed.c - case 1b: the signatureless fraction of the
 * deployed system (steady start) with renewal at a fraction of the
 * lifetime, with and without keeping the old certificate, against the
 * closed form derived in docs/validation.md ("1b").
 *
 * Timing the derivation relies on: checkpoints every c with L a multiple
 * of c, one witness answering after d < F; a landmark is allocated at
 * ceil(s/L) L + d for a request at s, fetched by the update service at
 * the next multiple of F and published D later, so a landmark-relative
 * certificate becomes usable Delta = U + F + D after its request, U =
 * ceil(s/L) L - s uniform on (0, L). The ACME poll (Retry-After 600 s)
 * installs it before that. Clients are always online and check at Poisson
 * times of rate mu; a client can use the certificate iff its last check
 * came after the publication.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mtc/error.h"
#include "vcases.h"
#include "vworld.h"

typedef struct rcase {
    const char *label;
    double life, L, renew;
    int keep_old;
    double check_mean;      /* 1/mu */
} rcase;

static const double C_INT = 300, D_LAT = 1, F_INT = 600, D_PUB = 600, RETRY = 600;

/* The closed form: f = (1/R) int_0^R E_U[g(phi, U)] dphi, phi the phase of
 * the site's renewal cycle at the handshake (uniform on [0, R)), with the
 * previous certificate in service while phi < X (X = lifetime - R with
 * keep_old; the standalone delay (U mod c) + d without it). */
static double closed_form(const rcase *k, double D)
{
    const int N = 7200;
    double mu = 1 / k->check_mean, R = llround(k->renew * k->life), tot = 0;
    for (int i = 0; i < N; i++) {
        double U = (i + 0.5) * k->L / N, De = U + F_INT + D;
        double X = k->keep_old ? k->life - R : fmod(U, C_INT) + D_LAT;
        X = fmin(fmax(X, 0), R);
        /* phi < X: the old certificate, usable iff checked after V_old */
        double a1 = X - exp(-mu * (R - De)) * (1 - exp(-mu * X)) / mu;
        /* phi >= X: the new one, usable iff checked after V_new */
        double m = fmax(X, De);
        double a2 = m < R ? (R - m) - (exp(-mu * (m - De)) - exp(-mu * (R - De))) / mu : 0;
        tot += (a1 + a2) / R;
    }
    return tot / N;
}

static double run_rep(vctx *c, const rcase *k, int64_t ex, int64_t point, uint64_t rep)
{
    double D = D_PUB + (c->wrong == V_WRONG_LATE_LANDMARKS ? k->L : 0);
    double history = k->life + k->L + F_INT + D + RETRY, window = 2 * 86400.0;
    wfx f;
    if (wfx_init_start(&f, 31, rep, history + window, history, 3600, 0, 1, "steady") !=
        MTC_OK)
        return NAN;
    void *w = wfx_cfg("cosigner", "w1");
    wfx_str("cosigner", w, "algorithm", "ed25519");
    wfx_const("cosigner", w, "latency", D_LAT);
    wfx_add(&f, "cosigner", w);
    void *ca = wfx_cfg("ca", "ca");
    wfx_str("ca", ca, "algorithm", "ed25519");
    wfx_num("ca", ca, "rate", 0.05);
    wfx_num("ca", ca, "lifetime", k->life);
    wfx_num("ca", ca, "landmark_interval", k->L);
    wfx_num("ca", ca, "checkpoint_interval", C_INT);
    wfx_item("ca", ca, "cosigners", "w1");
    wfx_num("ca", ca, "quorum", 1);
    wfx_add(&f, "ca", ca);
    void *us = wfx_cfg("update_service", "updates");
    wfx_num("update_service", us, "fetch_interval", F_INT);
    wfx_const("update_service", us, "publication_delay", D);
    wfx_add(&f, "update_service", us);
    void *s = wfx_cfg("sites", "sites");
    wfx_num("sites", s, "count", 200);
    wfx_num("sites", s, "renew_fraction", k->renew);
    wfx_num("sites", s, "keep_old", k->keep_old);
    wfx_num("sites", s, "retry_after", RETRY);
    wfx_add(&f, "sites", s);
    void *b = wfx_cfg("browsers", "clients");
    wfx_num("browsers", b, "count", 400);
    wfx_num("browsers", b, "sessions_per_day", 0);
    wfx_num("browsers", b, "visits_per_hour", 2);
    wfx_num("browsers", b, "zipf_exponent", 0);
    wfx_exp("browsers", b, "update_interval", k->check_mean);
    wfx_num("browsers", b, "update_fail_prob", 0);
    wfx_num("browsers", b, "ticket_lifetime", 0);
    wfx_add(&f, "browsers", b);
    double fr = NAN;
    if (vw_run(c, &f, ex, point, 31, rep) == MTC_OK) {
        double full = (double)vw_counter(&f, "handshake_full", NULL);
        fr = full > 0 ? (double)vw_counter(&f, "handshake_signatureless", NULL) / full : NAN;
    }
    wfx_free(&f);
    return fr;
}

static const rcase sets[] = {
    {"1d/1h/75%/keep_old/12h", 86400, 3600, 0.75, 1, 43200},
    {"1d/1h/75%/no keep_old/12h", 86400, 3600, 0.75, 0, 43200},
    {"2d/2h/50%/keep_old/1d", 172800, 7200, 0.5, 1, 86400},
};

int case_1b(vctx *c)
{
    const unsigned R = 8;
    int64_t ex = vw_experiment(c, "renewal", sizeof sets / sizeof sets[0], R);
    for (size_t k = 0; k < sizeof sets / sizeof sets[0]; k++) {
        double x[8];
        for (unsigned r = 0; r < R; r++)
            if (!isfinite(x[r] = run_rep(c, &sets[k], ex, (int64_t)k, r)))
                return -1;
        vstat st;
        v_stat(x, R, &st);
        char name[96];
        snprintf(name, sizeof name, "signatureless, %s", sets[k].label);
        v_row(c, name, "", 4, closed_form(&sets[k], D_PUB), 0, st.mean, st.lo95, st.hi95,
              (int)R, st.tol);
    }
    return 0;
}
