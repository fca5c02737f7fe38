/*
 * ilog.c - issuance log: leaf hashes in a tree store, checkpoint batches
 * with their covering subtrees and cosignatures, proof assembly.
 *
 * Batches are appended in index order, so the batch of an entry is found
 * by binary search on the batch ends. Each batch owns one allocation
 * holding its signatures.
 */
#include "mtc/ilog.h"

#include <stdlib.h>
#include <string.h>

#include "mtc/error.h"

struct batch {
    uint64_t from, to;
    mtc_subtree sub[2];
    size_t n_sigs;            /* per subtree, and on the checkpoint */
    mtc_subtree_sig *sigs;    /* [3 * n_sigs]: subtree s at s * n_sigs,
                                 the checkpoint's at 2 * n_sigs */
    uint8_t *blob;            /* signature bytes and cosigner IDs */
    uint64_t timestamp;       /* of the checkpoint signatures; 0: none */
    mtc_hash root;            /* MTH of [0, to) */
};

struct mtc_ilog {
    mtc_taid ca_id, log_id;
    uint64_t number;
    mtc_tree *tree;
    struct batch *batches;
    size_t n_batches, cap_batches;
    int retired;
    size_t n_ext_types;
    unsigned ext_types[MTC_ILOG_MAX_EXT_TYPES];
};

mtc_ilog *mtc_ilog_new(const mtc_taid *ca_id, uint64_t log_number,
                       const mtc_tree_options *opts)
{
    if (log_number == 0 || log_number > MTC_LOG_NUMBER_MAX)
        return NULL;
    mtc_ilog *l = calloc(1, sizeof *l);
    if (!l)
        return NULL;
    l->ca_id = *ca_id;
    l->number = log_number;
    if (mtc_taid_log_id(ca_id, log_number, &l->log_id) != MTC_OK ||
        !(l->tree = mtc_tree_new(opts))) {
        free(l);
        return NULL;
    }
    return l;
}

void mtc_ilog_free(mtc_ilog *l)
{
    if (!l)
        return;
    for (size_t i = 0; i < l->n_batches; i++) {
        free(l->batches[i].sigs);
        free(l->batches[i].blob);
    }
    free(l->batches);
    mtc_tree_free(l->tree);
    free(l);
}

const mtc_taid *mtc_ilog_ca_id(const mtc_ilog *l) { return &l->ca_id; }
const mtc_taid *mtc_ilog_log_id(const mtc_ilog *l) { return &l->log_id; }
uint64_t mtc_ilog_number(const mtc_ilog *l) { return l->number; }
uint64_t mtc_ilog_size(const mtc_ilog *l) { return mtc_tree_size(l->tree); }
mtc_tree *mtc_ilog_tree(mtc_ilog *l) { return l->tree; }

uint64_t mtc_ilog_checkpoint_size(const mtc_ilog *l)
{
    return l->n_batches ? l->batches[l->n_batches - 1].to : 0;
}

void mtc_ilog_retire(mtc_ilog *l) { l->retired = 1; }
int mtc_ilog_is_current(const mtc_ilog *l) { return !l->retired; }

int mtc_ilog_recognize_ext(mtc_ilog *l, unsigned ext_type)
{
    if (ext_type > 0xffff)
        return MTC_ERR_ARG;
    for (size_t i = 0; i < l->n_ext_types; i++)
        if (l->ext_types[i] == ext_type)
            return MTC_OK;
    if (l->n_ext_types == MTC_ILOG_MAX_EXT_TYPES)
        return MTC_ERR_LIMIT;
    l->ext_types[l->n_ext_types++] = ext_type;
    return MTC_OK;
}

/* The CA-side rules on an entry's extensions vector (well-formed, checked
 * by the caller): every extension_type must be one the log recognizes. */
static int exts_recognized(const mtc_ilog *l, mtc_slice exts)
{
    for (size_t i = 0; i + 4 <= exts.len;) {
        unsigned type = (unsigned)(exts.p[i] << 8 | exts.p[i + 1]);
        size_t dlen = (size_t)(exts.p[i + 2] << 8 | exts.p[i + 3]);
        size_t k = 0;
        while (k < l->n_ext_types && l->ext_types[k] != type)
            k++;
        if (k == l->n_ext_types)
            return MTC_ERR_UNSUPPORTED;
        i += 4 + dlen;
    }
    return MTC_OK;
}

int mtc_ilog_append_hash(mtc_ilog *l, const mtc_hash *leaf, uint64_t *index)
{
    if (l->retired)
        return MTC_ERR_NOT_CURRENT;
    uint64_t i = mtc_tree_size(l->tree);
    int rc = mtc_tree_append(l->tree, leaf);
    if (rc == MTC_OK && index)
        *index = i;
    return rc;
}

int mtc_ilog_append(mtc_ilog *l, mtc_slice exts, const mtc_tbs_entry *e,
                    uint64_t *index)
{
    if (l->retired)
        return MTC_ERR_NOT_CURRENT;
    if (mtc_entry_exts_check(exts) != MTC_OK)
        return MTC_ERR_CERT;
    int rc = exts_recognized(l, exts);
    if (rc == MTC_OK)
        rc = mtc_entry_check_issuer_alt_name(e->extensions);
    mtc_hash h;
    if (rc == MTC_OK)
        rc = mtc_log_entry_leaf_hash(exts, e, &h);
    if (rc != MTC_OK)
        return rc;
    return mtc_ilog_append_hash(l, &h, index);
}

int mtc_ilog_append_entry(mtc_ilog *l, const uint8_t *entry, size_t len,
                          uint64_t *index)
{
    mtc_slice exts;
    unsigned type;
    mtc_tbs_entry e;
    if (l->retired)
        return MTC_ERR_NOT_CURRENT;
    int rc = mtc_log_entry_parse(entry, len, &exts, &type, &e);
    if (rc != MTC_OK)
        return rc; /* unknown types: MTC_ERR_UNSUPPORTED */
    if (type == MTC_ENTRY_TBS_CERT)
        return mtc_ilog_append(l, exts, &e, index);
    if ((rc = exts_recognized(l, exts)) != MTC_OK)
        return rc;
    mtc_hash h;
    mtc_hash_leaf(entry, len, &h); /* a null_entry: nothing to certify */
    return mtc_ilog_append_hash(l, &h, index);
}

static int id_cmp(const void *a, const void *b)
{
    const mtc_cosigner *x = *(const mtc_cosigner *const *)a;
    const mtc_cosigner *y = *(const mtc_cosigner *const *)b;
    return mtc_taid_cmp(&x->id, &y->id);
}

/* Signs into the blob at *used; the signature slice goes to *sg. */
static int sign_into(struct batch *b, size_t *used, const mtc_cosigner *c,
                     const mtc_taid *log_id, uint64_t ts, mtc_subtree sub,
                     const mtc_hash *h, mtc_subtree_sig *sg)
{
    memcpy(b->blob + *used, c->id.b, c->id.len);
    sg->cosigner_id.p = b->blob + *used;
    sg->cosigner_id.len = c->id.len;
    *used += c->id.len;
    size_t sl;
    int rc = ts ? mtc_cosign_checkpoint(c, log_id, ts, sub.end, h,
                                        b->blob + *used, &sl)
                : mtc_cosign_subtree(c, log_id, sub.start, sub.end, h,
                                     b->blob + *used, &sl);
    if (rc != MTC_OK)
        return rc;
    sg->signature.p = b->blob + *used;
    sg->signature.len = sl;
    *used += sl;
    return MTC_OK;
}

/* timestamp 0: no checkpoint signatures (mtc_ilog_checkpoint). */
static int checkpoint(mtc_ilog *l, const mtc_cosigner *cosigners, size_t n,
                      uint64_t timestamp)
{
    uint64_t from = mtc_ilog_checkpoint_size(l), to = mtc_tree_size(l->tree);
    if (to == from)
        return MTC_OK;
    if (n > MTC_PROOF_MAX_SIGS)
        return MTC_ERR_LIMIT;
    const mtc_cosigner *order[MTC_PROOF_MAX_SIGS];
    for (size_t i = 0; i < n; i++)
        order[i] = &cosigners[i];
    qsort(order, n, sizeof order[0], id_cmp);
    for (size_t i = 1; i < n; i++)
        if (mtc_taid_equal(&order[i - 1]->id, &order[i]->id))
            return MTC_ERR_ARG;
    if (l->n_batches == l->cap_batches) {
        size_t nc = l->cap_batches ? 2 * l->cap_batches : 16;
        struct batch *b = realloc(l->batches, nc * sizeof *b);
        if (!b)
            return MTC_ERR_NOMEM;
        l->batches = b;
        l->cap_batches = nc;
    }
    struct batch b = {.from = from, .to = to, .n_sigs = n,
                      .timestamp = timestamp};
    int rc = mtc_covering_subtrees(from, to, &b.sub[0], &b.sub[1]);
    if (rc != MTC_OK)
        return rc;
    if ((rc = mtc_tree_subtree_hash(l->tree, 0, to, &b.root)) != MTC_OK)
        return rc;
    size_t blob_cap = 0;
    for (size_t i = 0; i < n; i++) {
        const mtc_sig_info *info = mtc_sig_info_get(mtc_sig_key_alg(order[i]->key));
        if (!info)
            return MTC_ERR_UNSUPPORTED;
        blob_cap += (timestamp ? 3 : 2) * (info->sig_max + order[i]->id.len);
    }
    b.sigs = calloc(3 * n + 1, sizeof *b.sigs);
    b.blob = malloc(blob_cap + 1);
    if (!b.sigs || !b.blob) {
        rc = MTC_ERR_NOMEM;
        goto fail;
    }
    size_t used = 0;
    /* Steps 1 and 4: the checkpoint, timestamped. */
    mtc_subtree all = {0, to};
    for (size_t i = 0; i < n && timestamp; i++)
        if ((rc = sign_into(&b, &used, order[i], &l->log_id, timestamp, all,
                            &b.root, &b.sigs[2 * n + i])) != MTC_OK)
            goto fail;
    /* Steps 2, 3 and 5: the covering subtrees, timestamp 0. */
    for (int s = 0; s < 2; s++) {
        if (b.sub[s].start == b.sub[s].end)
            continue;
        mtc_hash h;
        if ((rc = mtc_tree_subtree_hash(l->tree, b.sub[s].start, b.sub[s].end,
                                        &h)) != MTC_OK)
            goto fail;
        for (size_t i = 0; i < n; i++)
            if ((rc = sign_into(&b, &used, order[i], &l->log_id, 0, b.sub[s],
                                &h, &b.sigs[(size_t)s * n + i])) != MTC_OK)
                goto fail;
    }
    l->batches[l->n_batches++] = b;
    return MTC_OK;
fail:
    free(b.sigs);
    free(b.blob);
    return rc;
}

int mtc_ilog_checkpoint(mtc_ilog *l, const mtc_cosigner *cosigners, size_t n)
{
    return checkpoint(l, cosigners, n, 0);
}

int mtc_ilog_checkpoint_signed(mtc_ilog *l, const mtc_cosigner *cosigners,
                               size_t n, uint64_t timestamp)
{
    if (timestamp == 0)
        return MTC_ERR_ARG; /* a zero timestamp signs no checkpoint */
    return checkpoint(l, cosigners, n, timestamp);
}

int mtc_ilog_last_checkpoint(const mtc_ilog *l, mtc_checkpoint *out)
{
    if (l->n_batches == 0)
        return MTC_ERR_RANGE;
    const struct batch *b = &l->batches[l->n_batches - 1];
    out->size = b->to;
    out->timestamp = b->timestamp;
    out->root = b->root;
    out->n_sigs = b->timestamp ? b->n_sigs : 0;
    out->sigs = b->sigs + 2 * b->n_sigs;
    return MTC_OK;
}

static int fill_proof(mtc_ilog *l, uint64_t index, mtc_subtree sub,
                      mtc_slice exts, mtc_proof_storage *st, mtc_proof *p)
{
    memset(p, 0, sizeof *p);
    mtc_node_source src;
    mtc_tree_source(l->tree, &src);
    size_t n;
    mtc_hash tmp[MTC_PROOF_MAX];
    int rc = mtc_inclusion_proof(&src, index, sub.start, sub.end, tmp, &n);
    if (rc != MTC_OK)
        return rc;
    if (n > MTC_PROOF_MAX_HASHES)
        return MTC_ERR_LIMIT;
    memcpy(st->inclusion, tmp, n * sizeof tmp[0]);
    p->extensions = exts;
    p->start = sub.start;
    p->end = sub.end;
    p->inclusion = st->inclusion;
    p->n_inclusion = n;
    return MTC_OK;
}

int mtc_ilog_standalone_proof(mtc_ilog *l, uint64_t index, mtc_slice exts,
                              mtc_proof_storage *st, mtc_proof *p)
{
    if (index >= mtc_ilog_checkpoint_size(l))
        return MTC_ERR_RANGE;
    size_t lo = 0, hi = l->n_batches;
    while (lo < hi) { /* first batch with to > index */
        size_t mid = lo + (hi - lo) / 2;
        if (l->batches[mid].to > index)
            hi = mid;
        else
            lo = mid + 1;
    }
    const struct batch *b = &l->batches[lo];
    int s = index >= b->sub[0].start && index < b->sub[0].end ? 0 : 1;
    int rc = fill_proof(l, index, b->sub[s], exts, st, p);
    if (rc != MTC_OK)
        return rc;
    p->n_sigs = b->n_sigs;
    for (size_t i = 0; i < b->n_sigs; i++)
        p->sigs[i] = b->sigs[(size_t)s * b->n_sigs + i];
    return MTC_OK;
}

int mtc_ilog_landmark_proof(mtc_ilog *l, const mtc_landmarks *lm,
                            uint64_t index, mtc_slice exts,
                            mtc_proof_storage *st, mtc_proof *p,
                            uint64_t *landmark)
{
    mtc_subtree sub;
    int rc = mtc_landmarks_for_index(lm, index, landmark, &sub);
    if (rc != MTC_OK)
        return rc;
    return fill_proof(l, index, sub, exts, st, p);
}
