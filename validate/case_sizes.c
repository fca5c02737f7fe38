/*
 * validate/case_sizes.c - case 3, the draft's "Size Estimates", every
 * figure it gives, from real encodings: 3a the issuance rates it derives
 * (from the renewal of sites in the deployed system) and the relying
 * party's state; 3b proof hashes and bytes at its checkpoint and landmark
 * cadences at its per-CA rate; 3c the logarithmic bound (2^32 entries)
 * and its comparison with ML-DSA-44 signatures. Source: docs/sources.md
 * [draft-size-estimates], [sizes-sig], [draft-pq-chain].
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mtc/error.h"
#include "mtc/sig.h"
#include "sim/pki.h"
#include "vcases.h"
#include "vworld.h"

/* The draft's inputs (2025-06-09) and its renewal assumption. */
#define LE_ACTIVE 558e6
#define CT_UNEXPIRED 2.1e9
#define CT_RATE_NOW 444000.0
#define RENEW_H (0.75 * 168)    /* 7-day certificates renewed at 75 % */

/* ---- 3a ---- */

int case_3a(vctx *c)
{
    /* Sites renewing 7-day certificates at 75 % in the deployed system
     * (steady start): in any window of one renewal period (126 h) each
     * site requests exactly once, so the per-CA issuance rate of a CA
     * with A active sites is A / 126 h. Measured over exactly 126 h. */
    const int N = 2000;
    const double F = 600, D = 600, RA = 600, life = 7 * 86400.0, L = 3600;
    double history = life + L + F + D + RA, window = RENEW_H * 3600;
    wfx f;
    if (wfx_init_start(&f, 71, 0, history + window, history, 3600, 0, 1, "steady") != MTC_OK)
        return -1;
    void *w = wfx_cfg("cosigner", "mirror");
    wfx_str("cosigner", w, "role", "mirror");
    wfx_str("cosigner", w, "algorithm", "ed25519");
    wfx_add(&f, "cosigner", w);
    void *ca = wfx_cfg("ca", "ca");
    wfx_str("ca", ca, "algorithm", "ed25519");
    wfx_num("ca", ca, "rate", 0);
    wfx_item("ca", ca, "cosigners", "mirror");
    wfx_add(&f, "ca", ca);
    void *us = wfx_cfg("update_service", "updates");
    wfx_add(&f, "update_service", us);
    void *s = wfx_cfg("sites", "sites");
    wfx_num("sites", s, "count", N);
    wfx_add(&f, "sites", s);
    if (vw_run(c, &f, vw_experiment(c, "renewal", 1, 1), 0, 71, 0) != MTC_OK) {
        wfx_free(&f);
        return -1;
    }
    double per_site_h = (double)vw_counter(&f, "log_entries", NULL) / N / RENEW_H;
    v_row(c, "issuance, one CA (558 M active)", "1/h", 0, LE_ACTIVE / RENEW_H, 0,
          LE_ACTIVE * per_site_h, LE_ACTIVE * per_site_h, LE_ACTIVE * per_site_h, 0, 0);
    v_row(c, "issuance, all CAs (2.1 G unexpired)", "1/h", 0, CT_UNEXPIRED / RENEW_H, 0,
          CT_UNEXPIRED * per_site_h, CT_UNEXPIRED * per_site_h, CT_UNEXPIRED * per_site_h,
          0, 0);
    v_info(c, "the draft's rounding of the two (4.4 M, 17 M)", "1/h", 0, 4.4e6,
           LE_ACTIVE / RENEW_H);
    v_info(c, "increase over today's all-CA rate (444,000/h)", "x", 2,
           CT_UNEXPIRED / RENEW_H / CT_RATE_NOW, CT_UNEXPIRED * per_site_h / CT_RATE_NOW);
    /* The relying party's state for 7-day certificates, hourly landmarks:
     * max_active = ceil(168 / 1) + 1 = 169 landmarks, 2 hashes each. */
    uint32_t pub = sim_pki_pub_latest(f.w, 0);
    const sim_ca_view *v = sim_pki_pub_view(f.w, 0, pub, 0);
    double hashes = v ? (double)v->nsubtrees : NAN;
    double ma = v && v->nlogs ? (double)v->log[0].max_active : NAN;
    v_row(c, "max_active_landmarks, 7 d / 1 h", "", 0, 169, 0, ma, ma, ma, 0, 0);
    v_row(c, "RP state, trusted subtree hashes", "hashes", 0, 338, 0, hashes, hashes, hashes,
          0, 0);
    v_row(c, "RP state, subtree hash bytes", "bytes", 0, 10816, 0, 32 * hashes, 32 * hashes,
          32 * hashes, 0, 0);
    double st = vw_gauge(&f, "rp_state_bytes", NULL);
    v_info(c, "RP state as mtcsim counts it (+ range, header)", "bytes", 0, 10816, st);
    wfx_free(&f);
    return 0;
}

/* ---- 3b ---- */

int case_3b(vctx *c)
{
    const double rate = 4.4e6 / 3600;   /* the draft's per-CA estimate */
    vw_proof_out o;
    /* Standalone: a checkpoint every 2 s, subtrees of about 2,444 entries:
     * ceil(log2 2444) = 12 hashes, 384 bytes. */
    vw_proof_cfg sa = {rate, 2, 3600, 600, "ed25519", 0, 1.7, 60, MTC_SIG_ECDSA_P256};
    if (vw_proof_run(c, &sa, "standalone-2s", &o) != MTC_OK)
        return -1;
    double batch = o.entries / o.checkpoints;
    /* (the probe requests add 2 / 1.7 entries per checkpoint) */
    double eb = (rate + 1 / sa.probe_every) * 2;
    v_row(c, "entries per 2 s checkpoint", "entries", 0, eb, 0, batch, batch, batch, 0,
          v_zquant(0.9995) * sqrt(eb / o.checkpoints));
    v_info(c, "the draft's round figure for it", "entries", 0, 2500, batch);
    /* The larger of the two covering subtrees of n entries holds at least
     * n/2 of them and fewer than 2n: its deepest proof has ceil(log2 n)
     * hashes, or one fewer when the interval straddles a power-of-two
     * boundary unevenly. The draft's figure is ceil(log2 n). */
    v_row(c, "standalone proof, largest (11 or 12)", "hashes", 1, 11.5, 0.5,
          o.sa.max_hashes, o.sa.max_hashes, o.sa.max_hashes, 0, 0.5);
    v_info(c, "the draft's figure", "bytes", 0, 384, 32.0 * o.sa.max_hashes);
    v_info(c, "standalone proof, mean over entries", "hashes", 2, 12, o.sa.mean_hashes);
    vw_probe_free(&o.probe);
    /* Landmark-relative: a landmark every hour, subtrees of about 4.4 M
     * entries: ceil(log2 4.4e6) = 23 hashes, 736 bytes, no signatures.
     * Checkpoints every minute (the proof does not depend on them). */
    vw_proof_cfg lr = {rate, 60, 3600, 2 * 3600 + 300, "ed25519", 0, 60, 90,
                       MTC_SIG_ECDSA_P256};
    if (vw_proof_run(c, &lr, "landmark-1h", &o) != MTC_OK)
        return -1;
    double el = 4.4e6 + 3600 / lr.probe_every;
    v_row(c, "entries per hourly landmark", "entries", 0, el, 0, o.lm_interval,
          o.lm_interval, o.lm_interval, 0, v_zquant(0.9995) * sqrt(el));
    v_row(c, "landmark-relative proof, largest (22 or 23)", "hashes", 1, 22.5, 0.5,
          o.lr.max_hashes, o.lr.max_hashes, o.lr.max_hashes, 0, 0.5);
    v_info(c, "the draft's figure", "bytes", 0, 736, 32.0 * o.lr.max_hashes);
    v_info(c, "landmark-relative proof, mean", "hashes", 2, 23, o.lr.mean_hashes);
    v_row(c, "landmark-relative MTCProof carries no signature", "signatures", 0, 0, 0,
          o.lr.sigs, o.lr.sigs, o.lr.sigs, 0, 0);
    v_info(c, "landmark-relative MTCProof, largest", "bytes", 0, 736,
           (double)o.lr.max_proof);
    /* "almost ten times smaller than the three ML-DSA-44 signatures" */
    v_info(c, "3 ML-DSA-44 signatures / largest proof", "x", 2, 3 * 2420 / 736.0,
           3 * 2420 / (double)o.lr.max_proof);
    vw_probe_free(&o.probe);
    return 0;
}

/* ---- 3c ---- */

/* `mtc sizes` (real, verified encodings): hashes and certificate bytes
 * of a landmark-relative certificate in a subtree of `size` entries. */
static int mtc_sizes(vctx *c, const char *alg, unsigned long long size, int *hashes,
                     int *bytes)
{
    char cmd[600], line[256];
    snprintf(cmd, sizeof cmd, "%s/mtc sizes", c->build);
    FILE *p = popen(cmd, "r");
    if (!p)
        return -1;
    int found = 0;
    while (fgets(line, sizeof line, p)) {
        char kind[32], a[32], cos[32];
        unsigned long long sub;
        int h, b;
        if (sscanf(line, "%31s %31s %31s %llu %d %d", kind, a, cos, &sub, &h, &b) == 6 &&
            !strcmp(kind, "landmark") && !strcmp(a, alg) && sub == size) {
            *hashes = h;
            *bytes = b;
            found = 1;
        }
    }
    return pclose(p) == 0 && found ? 0 : -1;
}

int case_3c(vctx *c)
{
    int h = 0, b = 0;
    if (mtc_sizes(c, "ecdsa-p256", 1ULL << 32, &h, &b))
        return -1;
    v_row(c, "proof in a subtree of 2^32 entries", "hashes", 0, 32, 0, h, h, h, 0, 0);
    v_row(c, "proof in a subtree of 2^32 entries", "bytes", 0, 1024, 0, 32.0 * h, 32.0 * h,
          32.0 * h, 0, 0);
    v_info(c, "its certificate, ECDSA P-256 key", "bytes", 0, 1024, b);
    const mtc_sig_info *ml = mtc_sig_info_get(MTC_SIG_MLDSA44);
    double sig = ml ? (double)ml->sig_max : NAN;
    v_row(c, "one ML-DSA-44 signature", "bytes", 0, 2420, 0, sig, sig, sig, 0, 0);
    v_row(c, "three ML-DSA-44 signatures (post-quantum SCTs)", "bytes", 0, 7260, 0, 3 * sig,
          3 * sig, 3 * sig, 0, 0);
    return 0;
}
