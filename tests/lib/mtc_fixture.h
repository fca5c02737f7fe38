/*
 * tests/lib/mtc_fixture.h - a small, deterministic MTC world for tests and
 * fuzz corpora: a CA (ID 32473.1, log 1), k witnesses, entries appended in
 * checkpointed batches, landmarks, and the matching relying party.
 *
 * Entry i is a TLS server entry for "host<i>.example" with an Ed25519 key
 * from seed i, so certificates can be rebuilt from the index alone.
 */
#ifndef MTC_TESTS_FIXTURE_H
#define MTC_TESTS_FIXTURE_H

#include "mtc/cert.h"
#include "mtc/ilog.h"
#include "mtc/landmark.h"
#include "mtc/rp.h"
#include "mtc/update.h"

#define FX_MAX_COSIGNERS 4
#define FX_T0 1767225600 /* 2026-01-01 */

typedef struct fx {
    mtc_taid ca_id;
    mtc_sig_key *keys[FX_MAX_COSIGNERS];
    mtc_cosigner cos[FX_MAX_COSIGNERS]; /* [0] is the CA cosigner */
    size_t n_cos;
    mtc_ilog *log;
    mtc_landmarks *lm;
    uint8_t issuer[64];
    size_t issuer_len;
    uint8_t ca_cert[4096];
    size_t ca_cert_len;
} fx;

/* Builds the world: n entries in batches of `batch`, a landmark every
 * `per_landmark` batches (0: none). Returns 0 on success. */
int fx_init(fx *f, mtc_sig_alg alg, size_t witnesses, uint64_t n,
            uint64_t batch, uint64_t per_landmark);
void fx_free(fx *f);

/* Appends entries *next .. *next + count - 1 (advancing *next) and closes
 * the batch with a checkpoint signed at ts; with landmark, allocates a
 * landmark at it. 0 on success. */
int fx_batch(fx *f, uint64_t *next, uint64_t count, uint64_t ts, int landmark);

/* fx_init's world with no entries, then 3 batches of 7 entries at
 * FX_T0 + 60, + 120, + 180, a landmark after each (the proof sets', staples'
 * and updates' tests and fuzzers start from it). *next: the next entry. */
int fx_three_landmarks(fx *f, uint64_t *next);

/* The entry fields and SPKI of entry i (borrowing scratch and spki). */
int fx_entry(const fx *f, uint64_t i, mtc_entry_scratch *s, mtc_tbs_entry *e,
             uint8_t spki[64], size_t *spki_len);

/* Certificate of entry i: standalone or landmark-relative. 0 on success. */
int fx_cert(fx *f, uint64_t i, int landmark_relative, uint8_t *out, size_t cap,
            size_t *len);

/* A relying party trusting the CA, all witnesses (policy: CA and all
 * witnesses) and the active landmark subtrees. */
int fx_rp(fx *f, mtc_rp_ca **rp);

/* 1 when subtree st lies within the CA's log and carries the log's real
 * hash of it, else 0: a relying party may trust it (what the staple and
 * update fuzz targets check of every subtree a relying party accepted). */
int fx_subtree_real(const fx *f, const mtc_update_subtree *st);

#endif
