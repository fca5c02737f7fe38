/*
 * pki_update_internal.h - what the update service's files (pki_update.c,
 * pki_update_version.c, pki_update_encode.c, pki_update_bulk.c) share and the rest of the
 * PKI side does not need; the structures are in pki.h.
 */
#ifndef SIM_PKI_UPDATE_INTERNAL_H
#define SIM_PKI_UPDATE_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "pki_internal.h"
#include "sim/bytes.h"

/* ---- pki_update_encode.c: the update's bytes ---- */

/* The growing buffer of sim/bytes.h: sim_bytebuf_put appends (nothing
 * once `failed` is set, out of memory). */
typedef sim_bytebuf pki_bw;

/* Appends v as a big-endian unsigned integer of `bytes` bytes. */
void pki__bw_uint(pki_bw *w, uint64_t v, int bytes);

/* ---- pki_update_version.c: versions of a CA's state ---- */

/* Version k of CA ci (k < u->nver[ci]). */
static inline pki_version *pki__ver_at(const pki_update *u, size_t ci,
                                       size_t k)
{
    return u->ver[ci][k];
}

/* Frees a version and everything it owns (NULL ok). */
void pki__version_free(pki_version *v);
/* Orders trusted subtrees by (log, start, end); a qsort comparator. */
int pki__tsub_cmp(const void *a, const void *b);
/* Sorts v's subtrees and builds its public view (as version `number`) and
 * real relying-party config; on error the caller frees v. */
int pki__version_finish(pki_update *u, size_t ci, pki_version *v,
                        uint32_t number, uint32_t rev_version);
/* Appends v to CA ci's versions, which then own it. */
int pki__version_push(pki_update *u, size_t ci, pki_version *v);
/* Verifies and takes what CA ci changed since the last fetch: a new
 * version in *out, or NULL when nothing changed. */
int pki__fetch_ca(pki_update *u, size_t ci, pki_version **out);

/* ---- pki_update_encode.c ---- */

/* 1 when v trusts subtree t (same log, start, end). */
int pki__has_sub(const pki_version *v, const pki_tsub *t);

/* ---- pki_update_bulk.c: proofs = "bulk" ---- */

/* Builds the bulk proofs of the subtrees of v's per-subtree proofs
 * [nproofs0, v->nproofs) (all of reference `ref`) against the tree of
 * ref_size entries read through src, verifies them against root when
 * `checked`, and gives them to v->refs[ref]. MTC_OK; MTC_ERR_NOMEM; any
 * other code is a build or verification failure (nothing given). */
int pki__bulk_take(pki_version *v, size_t ref, size_t nproofs0,
                   const mtc_node_source *src, uint64_t ref_size,
                   const mtc_hash *root, int checked);
/* Frees the bulk proofs of r. */
void pki__bulk_free(pki_refckpt *r);
/* Writes the proofs part of CA ci's update from version va to vb in the
 * bulk form: a bulk proof per reference of (va, vb] of those of its
 * subtrees still trusted in vb (pki_update_bulk.c has the format). */
void pki__bulk_encode(const pki_update *u, size_t ci, uint32_t va,
                      uint32_t vb, pki_bw *w);

#endif
