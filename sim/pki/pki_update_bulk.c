/*
 * pki_update_bulk.c - update_service proofs = "bulk": the consistency
 * proofs of new landmark subtrees shipped as bulk subtree consistency
 * proofs (draft-reilly-plants-bulk-subtree-proofs, mtc/bulk.h) instead of
 * one subtree consistency proof per subtree. Separate from the default
 * path, which it leaves untouched: with proofs = "per_subtree" nothing here
 * runs.
 *
 * At a fetch, for every log with new subtrees, the service builds (with
 * the log's real tree) one bulk proof of exactly the subtrees the default
 * path proves one by one, against the same reference checkpoint, verifies
 * it when `verify` is on (as the default path verifies each proof), and
 * keeps it with that reference. A set the draft's wire limits cannot hold
 * (1365 subtrees, 2047 tiles) is split into runs that fit, each its own
 * proof; at the simulated cadences one proof suffices.
 *
 * An update from version va to vb carries, for every reference of (va,
 * vb], a proof of those of its subtrees still trusted in vb: the kept
 * proof when all are, else the proof of the subset, derived from the kept
 * proof's tiles alone (mtc_bulk_source: the tree may have moved on). The
 * proofs part of CAUpdate (pki_update_encode.c) becomes
 *
 *   Bulk       = uint32 ref || opaque proof<1..2^16-1>
 *   (proof: a BulkSubtreeProof, 12 + 48 x subtrees + 32 x tiles bytes)
 *
 * in place of Proof proofs<0..2^32-1>; everything else is unchanged. The
 * bulk proof repeats each subtree's range and hash, which the LogUpdate
 * already carries: the draft's format is self-contained, and it is kept
 * as the draft has it.
 */
#include <stdlib.h>
#include <string.h>

#include "mtc/bulk.h"
#include "mtc/error.h"
#include "pki_internal.h"
#include "pki_update_internal.h"

void pki__bulk_free(pki_refckpt *r)
{
    for (size_t i = 0; i < r->nbulk; i++)
        mtc_bulk_free(r->bulk[i]);
    free(r->bulk);
    r->bulk = NULL;
    r->nbulk = 0;
}

/* The draft's order: ascending start, ties by descending end. */
static int bulk_cmp(const void *a, const void *b)
{
    const mtc_subtree *x = a, *y = b;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    if (x->end != y->end)
        return x->end > y->end ? -1 : 1;
    return 0;
}

/* Sorts subs[0..n) in the draft's order and drops duplicates; the count. */
static size_t bulk_order(mtc_subtree *subs, size_t n)
{
    if (n == 0)
        return 0;
    qsort(subs, n, sizeof *subs, bulk_cmp);
    size_t k = 1;
    for (size_t i = 1; i < n; i++)
        if (bulk_cmp(&subs[i], &subs[k - 1]) != 0)
            subs[k++] = subs[i];
    return k;
}

/* Builds proofs of subs[0..n) in runs that fit the wire limits, appended
 * to *out (*nout of them). */
static int build_runs(const mtc_node_source *src, uint64_t size,
                      const mtc_subtree *subs, size_t n, mtc_bulk_proof ***out,
                      size_t *nout)
{
    size_t run = n < MTC_BULK_MAX_SUBTREES ? n : MTC_BULK_MAX_SUBTREES;
    size_t at = 0;
    while (at < n) {
        size_t k = n - at < run ? n - at : run;
        mtc_bulk_proof *p = NULL;
        int rc = mtc_bulk_build(src, size, subs + at, k, &p);
        if (rc == MTC_ERR_LIMIT && k > 1) { /* too many tiles: halve */
            run = k / 2;
            continue;
        }
        if (rc != MTC_OK)
            return rc;
        mtc_bulk_proof **q = realloc(*out, (*nout + 1) * sizeof *q);
        if (!q) {
            mtc_bulk_free(p);
            return MTC_ERR_NOMEM;
        }
        *out = q;
        q[(*nout)++] = p;
        at += k;
    }
    return MTC_OK;
}

int pki__bulk_take(pki_version *v, size_t ref, size_t nproofs0,
                   const mtc_node_source *src, uint64_t ref_size,
                   const mtc_hash *root, int checked)
{
    size_t n = v->nproofs - nproofs0;
    mtc_subtree *subs = malloc((n ? n : 1) * sizeof *subs);
    if (!subs)
        return MTC_ERR_NOMEM;
    for (size_t i = 0; i < n; i++)
        subs[i] = (mtc_subtree){v->proofs[nproofs0 + i].start,
                                v->proofs[nproofs0 + i].end};
    n = bulk_order(subs, n);
    mtc_bulk_proof **out = NULL;
    size_t nout = 0;
    int rc = build_runs(src, ref_size, subs, n, &out, &nout);
    for (size_t i = 0; i < nout && rc == MTC_OK && checked; i++)
        rc = mtc_bulk_verify(out[i], ref_size, root);
    free(subs);
    if (rc != MTC_OK) {
        for (size_t i = 0; i < nout; i++)
            mtc_bulk_free(out[i]);
        free(out);
        return rc;
    }
    pki_refckpt *r = &v->refs[ref];
    pki__bulk_free(r);
    r->bulk = out;
    r->nbulk = nout;
    return MTC_OK;
}

/* The proof of those of p's subtrees that b still trusts (log `log`):
 * p itself (*owned = 0), a derived one (*owned = 1), or NULL when none. */
static int still_trusted(const mtc_bulk_proof *p, uint64_t log,
                         const pki_version *b, mtc_bulk_proof **out,
                         int *owned)
{
    *out = NULL;
    *owned = 0;
    mtc_subtree *keep = malloc(p->n_subtrees * sizeof *keep);
    if (!keep)
        return MTC_ERR_NOMEM;
    size_t k = 0;
    for (size_t i = 0; i < p->n_subtrees; i++) {
        pki_tsub t = {log, 0, p->subtrees[i].start, p->subtrees[i].end, {{0}}};
        if (pki__has_sub(b, &t))
            keep[k++] = (mtc_subtree){t.start, t.end};
    }
    int rc = MTC_OK;
    if (k == p->n_subtrees) {
        *out = (mtc_bulk_proof *)p;
    } else if (k > 0) {
        mtc_bulk_source_state st;
        mtc_node_source src;
        rc = mtc_bulk_source(p, &st, &src);
        if (rc == MTC_OK) {
            rc = mtc_bulk_build(&src, p->tree_size, keep, k, out);
            mtc_bulk_source_free(&st);
        }
        *owned = rc == MTC_OK;
    }
    free(keep);
    return rc;
}

void pki__bulk_encode(const pki_update *u, size_t ci, uint32_t va,
                      uint32_t vb, pki_bw *w)
{
    const pki_version *b = pki__ver_at(u, ci, vb);
    pki_bw body = {0};
    uint8_t *enc = NULL;
    size_t base = 0;
    for (uint32_t k = va + 1; k <= vb; k++) {
        const pki_version *v = pki__ver_at(u, ci, k);
        for (size_t i = 0; i < v->nrefs; i++) {
            const pki_refckpt *r = &v->refs[i];
            for (size_t j = 0; j < r->nbulk; j++) {
                mtc_bulk_proof *p;
                int owned;
                size_t len = 0;
                int rc = still_trusted(r->bulk[j], r->log, b, &p, &owned);
                if (rc == MTC_OK && p)
                    rc = mtc_bulk_encode(p, NULL, 0, &len);
                if (rc == MTC_ERR_LIMIT) /* the length alone, as asked */
                    rc = MTC_OK;
                uint8_t *e = rc == MTC_OK && p ? realloc(enc, len) : enc;
                if (e)
                    enc = e;
                if (rc == MTC_OK && p && e)
                    rc = mtc_bulk_encode(p, enc, len, &len);
                if (rc != MTC_OK || (p && !e)) {
                    body.failed = 1; /* no length: the update is not counted */
                } else if (p) {
                    pki__bw_uint(&body, base + i, 4);
                    pki__bw_uint(&body, len, 2);
                    sim_bytebuf_put(&body, enc, len);
                }
                if (owned)
                    mtc_bulk_free(p);
            }
        }
        base += v->nrefs;
    }
    free(enc);
    if (body.failed)
        w->failed = 1;
    pki__bw_uint(w, body.n, 4);
    sim_bytebuf_put(w, body.b, body.n);
    free(body.b);
}
