/*
 * pki_ca_internal.h - what the files of a CA (pki_ca.c, pki_ca_log.c,
 * pki_ca_checkpoint.c, pki_ca_landmark.c, pki_ca_prune.c) share and the
 * rest of the PKI side does not need; the structures are in pki.h.
 */
#ifndef SIM_PKI_CA_INTERNAL_H
#define SIM_PKI_CA_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mtc/error.h"
#include "pki_internal.h"

/* ---- small deques -------------------------------------------------------- */

/* Appends val to arr[first, n), compacting or growing it; rc: MTC_OK, or
 * MTC_ERR_NOMEM with nothing appended. */
#define PKI_DEQUE_PUSH(arr, first, n, cap, val, rc)                          \
    do {                                                                     \
        if ((n) == (cap)) {                                                  \
            if ((first) > 0 && (first) >= (n) / 2) {                         \
                memmove((arr), (arr) + (first),                              \
                        ((n) - (first)) * sizeof *(arr));                    \
                (n) -= (first);                                              \
                (first) = 0;                                                 \
            } else {                                                         \
                size_t nc_ = (cap) ? 2 * (cap) : 16;                         \
                void *p_ = realloc((arr), nc_ * sizeof *(arr));              \
                if (!p_) {                                                   \
                    (rc) = MTC_ERR_NOMEM;                                    \
                    break;                                                   \
                }                                                            \
                (arr) = p_;                                                  \
                (cap) = nc_;                                                 \
            }                                                                \
        }                                                                    \
        (arr)[(n)++] = (val);                                                \
        (rc) = MTC_OK;                                                       \
    } while (0)

/* ---- pki_ca_log.c: the entry store ---- */

/* The open batch of l (the last one). */
static inline pki_batch *pki__open_batch(pki_log *l)
{
    return &l->batch[l->nbatch - 1];
}

/* Arrival time of entry i of l; i must be in [arr_base, tree size). */
static inline sim_time pki__arr_get(const pki_log *l, uint64_t i)
{
    return l->arr[l->arr_first + (size_t)(i - l->arr_base)];
}

/* First live site request of l with index >= i (l->nsite when none). */
size_t pki__site_lower(const pki_log *l, uint64_t i);
/* Opens a batch of l at entry `from`; cum: fetch bytes of [0, from). */
int pki__batch_open(pki_log *l, uint64_t from, sim_time opened, uint64_t cum);
/* A new empty log `number` of ca with its first batch open; NULL on OOM. */
pki_log *pki__log_new(pki_ca *ca, uint64_t number);
/* Frees a log with its site requests and reference signatures (NULL ok). */
void pki__log_free(pki_log *l);
/* Frees a site request and its name and key (NULL ok). */
void pki__site_free(pki_site_req *s);
/* Drops arrival times below entry index i. */
void pki__arr_drop(pki_log *l, uint64_t i);
/* Builds the site's entry into *e (borrowing ps->scratch). */
int pki__site_entry(pki_ca *ca, const pki_site_req *s, mtc_tbs_entry *e);

/* ---- pki_ca_checkpoint.c: the checkpoint job ---- */

/* Frees a job with its signatures and requests (NULL ok); cancels nothing. */
void pki__job_free(pki_job *job);
/* The checkpoint tick (arg: the CA): reschedules, then checkpoints unless
 * a job is in flight (then the tick is made up when that job completes). */
void pki__tick_fire(sim_engine *sim, sim_event *ev);

/* ---- pki_ca_landmark.c: certificates and landmarks ---- */

/* Inclusion proof of entry i in subtree sub of log l into st/p. */
int pki__fill_inclusion(pki_log *l, uint64_t i, mtc_subtree sub,
                        mtc_proof_storage *st, mtc_proof *p);
/* Builds the certificate for site s with proof p and delivers it. */
int pki__build_cert(pki_ca *ca, pki_site_req *s, mtc_proof *p, int kind,
                    uint64_t landmark);
/* Tells each site of l in [from, last checkpoint) that holds a standalone
 * certificate and no landmark one that no landmark one will come. */
void pki__landmark_never(pki_ca *ca, pki_log *l, uint64_t from);
/* l's newest landmark was just allocated: metrics, landmark certificates. */
int pki__landmark_added(pki_ca *ca, pki_log *l);
/* The current landmark interval's number (continuous across live changes
 * of landmark_interval). */
uint64_t pki__lm_interval_number(const pki_ca *ca);

/* ---- pki_ca_prune.c: pruning ---- */

/* The pruning timer (arg: the CA): prunes every log, drops failed logs
 * whose entries all expired, and reschedules itself. */
void pki__prune_fire(sim_engine *sim, sim_event *ev);

#endif
