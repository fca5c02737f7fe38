/*
 * rp_internal.h - the relying party's state, shared by rp.c (configuration
 * and certificate verification), rp_config.c (the text format) and
 * rp_update.c (verified landmark updates). Not a public header.
 */
#ifndef MTC_RP_INTERNAL_H
#define MTC_RP_INTERNAL_H

#include "mtc/rp.h"
#include "mtc/update.h"

struct rp_cosigner {
    mtc_taid id;
    mtc_sig_alg alg;
    size_t pk_len;
    uint8_t *pk;
};

struct rp_group {
    unsigned k;
    size_t n;
    size_t *members; /* indices into cosigners */
};

struct rp_subtree {
    uint64_t log, start, end;
    mtc_hash hash;
};

struct rp_range {
    uint64_t first, last;
};

/* What a verified update established for one log: rollback protection. */
struct rp_logstate {
    uint64_t log, last_landmark, num_active, ref_size;
    uint64_t last_size;     /* tree size of the last landmark (verified) */
};

struct mtc_rp_ca {
    mtc_taid ca_id;
    struct rp_cosigner *cosigners;
    size_t n_cosigners;
    struct rp_group *groups;
    size_t n_groups;
    struct rp_subtree *subtrees; /* sorted by (log, start, end) */
    size_t n_subtrees, cap_subtrees;
    struct rp_range *revoked;
    size_t n_revoked;
    struct rp_logstate *logs;    /* logs some update was applied to */
    size_t n_logs;
};

/* Verifies one log record as the proof set of one landmark (its
 * subtrees exactly that landmark's, the draft's "Trusted Subtrees" checks
 * otherwise) and adds them to rp's trusted subtrees; rp unchanged on
 * error. rp_update.c; mtc_rp_ca_apply_proof_set's core. */
int mtc__rp_apply_landmark(mtc_rp_ca *rp, const mtc_taid *ca_id,
                           const mtc_update_log *lg, uint64_t landmark,
                           mtc_update_result *res);

/* Index of the cosigner with this binary ID, or -1. */
long mtc__rp_find_cosigner(const mtc_rp_ca *rp, const uint8_t *id, size_t len);

/* 1 when the cosigners marked in ok[0..n_cosigners) satisfy every policy
 * group (and there is at least one group). */
int mtc__rp_policy_met(const mtc_rp_ca *rp, const uint8_t *ok);

#endif
