/*
 * validate/vworld.h - worlds for the validation cases: built through the
 * schema path of tests/lib/world_fixture.h (the one `mtcsim run` uses),
 * recorded in the runs database, and probed with certificate requests
 * whose real certificates are decoded (proof hashes, bytes).
 */
#ifndef VALIDATE_VWORLD_H
#define VALIDATE_VWORLD_H

#include "lib/world_fixture.h"
#include "vcase.h"

/* A new experiment in the runs database; 0 when runs are not stored. */
int64_t vw_experiment(vctx *c, const char *name, int64_t points, int64_t reps);

/* Records a finished run of world f (every entity's parameters, every
 * metric) as (exp, point, rep) with its seed. */
void vw_record(vctx *c, int64_t exp, int64_t point, uint64_t seed, uint64_t rep,
               wfx *f);

/* Starts the world (entities added): 0, or a message on stderr. */
int vw_start(wfx *f);
/* Runs a started world to its duration, finishes and records it. */
int vw_complete(vctx *c, wfx *f, int64_t exp, int64_t point, uint64_t seed,
                uint64_t rep);
/* vw_start + vw_complete. */
int vw_run(vctx *c, wfx *f, int64_t exp, int64_t point, uint64_t seed,
           uint64_t rep);

/* ---- certificate probes ---- */

typedef struct vw_cert {
    int kind;               /* SIM_CERT_STANDALONE or SIM_CERT_LANDMARK */
    unsigned hashes;        /* inclusion proof hashes */
    unsigned sigs;          /* signatures in the MTCProof */
    size_t proof_len;       /* MTCProof bytes */
    size_t der_len;         /* certificate bytes */
    uint64_t start, end;    /* the proof's subtree */
} vw_cert;

typedef struct vw_probe {
    wfx *f;
    size_t ca;
    int key_alg;            /* mtc_sig_alg of the probe's subject key */
    uint8_t spki[4096];
    size_t spki_len;
    vw_cert *certs;
    size_t n, cap;
    unsigned requests;
} vw_probe;

/* A probe on CA `ca` of a started world, with a real subject key. */
int vw_probe_init(vw_probe *p, wfx *f, size_t ca, int key_alg);
void vw_probe_free(vw_probe *p);
/* Schedules requests at t0 + k * every (+ a fraction `phase` of every),
 * t < t1, seconds. Each is a real entry for probe<k>.example; its
 * standalone and landmark-relative certificates are decoded on arrival. */
int vw_probe_schedule(vw_probe *p, double t0, double t1, double every,
                      double phase);

/* Summary of the probe's certificates of one kind. */
typedef struct vw_summary {
    size_t n;
    double mean_hashes, mean_proof, mean_der;
    unsigned max_hashes, min_hashes;
    unsigned mode_hashes;   /* the most common proof length */
    size_t max_proof, max_der, min_der;
    unsigned sigs;          /* signatures per proof (of the last one) */
} vw_summary;
void vw_probe_summary(const vw_probe *p, int kind, vw_summary *s);

/* ---- cold-start proof worlds ---- */

/* One CA issuing at `rate` per second from time 0, checkpoints every
 * `ckpt`, landmarks every `landmark`, with `mirrors` external cosigners
 * (all required), all signing with `alg` ("ed25519", "ml-dsa-44"); probe
 * requests every `probe_every` seconds from `probe_from` to the end, with
 * subject keys of mtc_sig_alg `key_alg`. A cold start on purpose: the size
 * of a proof depends on the size and alignment of the batch or landmark
 * interval, both stationary from the first one. */
typedef struct vw_proof_cfg {
    double rate, ckpt, landmark, duration;
    const char *alg;
    int mirrors;
    double probe_every, probe_from;
    int key_alg;
} vw_proof_cfg;

typedef struct vw_proof_out {
    vw_probe probe;         /* the certificates (free with vw_probe_free) */
    vw_summary sa, lr;      /* standalone, landmark-relative */
    double entries;         /* log_entries */
    double checkpoints;     /* checkpoints */
    double lm_subtree_mean; /* landmark_subtree_size mean */
    double lm_interval;     /* entries of the last landmark's interval */
} vw_proof_out;

int vw_proof_run(vctx *c, const vw_proof_cfg *cfg, const char *name,
                 vw_proof_out *out);

/* Metric shortcuts (totals, or one cohort by label). */
int64_t vw_counter(wfx *f, const char *name, const char *cohort);
double vw_gauge(wfx *f, const char *name, const char *cohort);

#endif
