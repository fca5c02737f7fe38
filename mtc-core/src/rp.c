/*
 * rp.c - relying-party configuration and the draft's verification
 * procedure, step by step, with a reason for each failure.
 *
 * Trusted subtrees are looked up on every landmark-relative verification,
 * so they are kept sorted by (log, start, end) for binary search; they are
 * replaced wholesale at each landmark update, which is rare by comparison.
 */
#include "mtc/rp.h"

#include <stdlib.h>
#include <string.h>

#include "mtc/cosig.h"
#include "mtc/error.h"
#include "mtc/merkle.h"
#include "rp_internal.h"

static const char *const reason_names[MTC_RP_REASON_COUNT] = {
    "ok", "malformed", "unknown-issuer", "signature-algorithm",
    "signature-algorithm-mismatch", "proof-encoding", "serial-range", "revoked",
    "log-number-zero", "entry-too-large", "inclusion-proof", "subtree-hash",
    "cosigner-policy", "not-yet-valid", "expired"};

const char *mtc_rp_reason_name(mtc_rp_reason r)
{
    return (unsigned)r < MTC_RP_REASON_COUNT ? reason_names[r] : "unknown";
}

mtc_rp_ca *mtc_rp_ca_new(const mtc_taid *ca_id)
{
    mtc_rp_ca *rp = calloc(1, sizeof *rp);
    if (rp)
        rp->ca_id = *ca_id;
    return rp;
}

void mtc_rp_ca_free(mtc_rp_ca *rp)
{
    if (!rp)
        return;
    for (size_t i = 0; i < rp->n_cosigners; i++)
        free(rp->cosigners[i].pk);
    for (size_t i = 0; i < rp->n_groups; i++)
        free(rp->groups[i].members);
    free(rp->cosigners);
    free(rp->groups);
    free(rp->subtrees);
    free(rp->revoked);
    free(rp->logs);
    free(rp);
}

const mtc_taid *mtc_rp_ca_id(const mtc_rp_ca *rp)
{
    return &rp->ca_id;
}

long mtc__rp_find_cosigner(const mtc_rp_ca *rp, const uint8_t *id, size_t len)
{
    for (size_t i = 0; i < rp->n_cosigners; i++)
        if (rp->cosigners[i].id.len == len &&
            !memcmp(rp->cosigners[i].id.b, id, len))
            return (long)i;
    return -1;
}

int mtc_rp_ca_add_cosigner(mtc_rp_ca *rp, const mtc_taid *id, mtc_sig_alg alg,
                           const uint8_t *pk, size_t pk_len)
{
    const mtc_sig_info *info = mtc_sig_info_get(alg);
    if (!info)
        return MTC_ERR_UNSUPPORTED;
    if (pk_len != info->pk_len)
        return MTC_ERR_KEY;
    if (id->len == 0 || mtc__rp_find_cosigner(rp, id->b, id->len) >= 0)
        return MTC_ERR_CONFIG;
    struct rp_cosigner *c =
        realloc(rp->cosigners, (rp->n_cosigners + 1) * sizeof *c);
    if (!c)
        return MTC_ERR_NOMEM;
    rp->cosigners = c;
    uint8_t *copy = malloc(pk_len);
    if (!copy)
        return MTC_ERR_NOMEM;
    memcpy(copy, pk, pk_len);
    c[rp->n_cosigners++] = (struct rp_cosigner){*id, alg, pk_len, copy};
    return MTC_OK;
}

int mtc_rp_ca_add_policy(mtc_rp_ca *rp, unsigned k, const mtc_taid *ids,
                         size_t n)
{
    if (k == 0 || k > n)
        return MTC_ERR_CONFIG;
    size_t *m = malloc(n * sizeof *m);
    if (!m)
        return MTC_ERR_NOMEM;
    for (size_t i = 0; i < n; i++) {
        long c = mtc__rp_find_cosigner(rp, ids[i].b, ids[i].len);
        for (size_t j = 0; c >= 0 && j < i; j++)
            if (m[j] == (size_t)c)
                c = -1; /* listed twice would let one signature count twice */
        if (c < 0) {
            free(m);
            return MTC_ERR_CONFIG;
        }
        m[i] = (size_t)c;
    }
    struct rp_group *g = realloc(rp->groups, (rp->n_groups + 1) * sizeof *g);
    if (!g) {
        free(m);
        return MTC_ERR_NOMEM;
    }
    rp->groups = g;
    g[rp->n_groups++] = (struct rp_group){k, n, m};
    return MTC_OK;
}

int mtc__rp_policy_met(const mtc_rp_ca *rp, const uint8_t *ok)
{
    int satisfied = rp->n_groups > 0;
    for (size_t g = 0; g < rp->n_groups && satisfied; g++) {
        unsigned have = 0;
        for (size_t m = 0; m < rp->groups[g].n; m++)
            have += ok[rp->groups[g].members[m]];
        satisfied = have >= rp->groups[g].k;
    }
    return satisfied;
}

int mtc_rp_ca_revoke(mtc_rp_ca *rp, uint64_t first, uint64_t last)
{
    if (first > last)
        return MTC_ERR_ARG;
    struct rp_range *r = realloc(rp->revoked, (rp->n_revoked + 1) * sizeof *r);
    if (!r)
        return MTC_ERR_NOMEM;
    rp->revoked = r;
    r[rp->n_revoked++] = (struct rp_range){first, last};
    return MTC_OK;
}

int mtc_rp_ca_revoke_ranges(mtc_rp_ca *rp, const mtc_serial_range *ranges, size_t n)
{
    if (n == 0)
        return MTC_OK;
    if (!ranges || n > SIZE_MAX / sizeof(struct rp_range) - rp->n_revoked)
        return MTC_ERR_ARG;
    for (size_t i = 0; i < n; i++)
        if (ranges[i].first > ranges[i].last)
            return MTC_ERR_ARG;
    struct rp_range *r = realloc(rp->revoked, (rp->n_revoked + n) * sizeof *r);
    if (!r)
        return MTC_ERR_NOMEM;
    rp->revoked = r;
    for (size_t i = 0; i < n; i++)
        r[rp->n_revoked + i] = (struct rp_range){ranges[i].first, ranges[i].last};
    rp->n_revoked += n;
    return MTC_OK;
}

static int subtree_cmp(uint64_t log, uint64_t start, uint64_t end,
                       const struct rp_subtree *s)
{
    if (log != s->log)
        return log < s->log ? -1 : 1;
    if (start != s->start)
        return start < s->start ? -1 : 1;
    if (end != s->end)
        return end < s->end ? -1 : 1;
    return 0;
}

/* Index of the first element >= key. */
static size_t subtree_lower(const mtc_rp_ca *rp, uint64_t log, uint64_t start,
                            uint64_t end)
{
    size_t lo = 0, hi = rp->n_subtrees;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (subtree_cmp(log, start, end, &rp->subtrees[mid]) > 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

int mtc_rp_ca_add_subtree(mtc_rp_ca *rp, uint64_t log_number, uint64_t start,
                          uint64_t end, const mtc_hash *hash)
{
    if (start >= end || !mtc_subtree_valid(start, end))
        return MTC_ERR_SUBTREE;
    size_t i = subtree_lower(rp, log_number, start, end);
    if (i < rp->n_subtrees &&
        subtree_cmp(log_number, start, end, &rp->subtrees[i]) == 0) {
        rp->subtrees[i].hash = *hash;
        return MTC_OK;
    }
    if (rp->n_subtrees == rp->cap_subtrees) {
        size_t nc = rp->cap_subtrees ? 2 * rp->cap_subtrees : 16;
        struct rp_subtree *s = realloc(rp->subtrees, nc * sizeof *s);
        if (!s)
            return MTC_ERR_NOMEM;
        rp->subtrees = s;
        rp->cap_subtrees = nc;
    }
    memmove(&rp->subtrees[i + 1], &rp->subtrees[i],
            (rp->n_subtrees - i) * sizeof rp->subtrees[0]);
    rp->subtrees[i] = (struct rp_subtree){log_number, start, end, *hash};
    rp->n_subtrees++;
    return MTC_OK;
}

void mtc_rp_ca_clear_subtrees(mtc_rp_ca *rp)
{
    rp->n_subtrees = 0;
}

size_t mtc_rp_ca_revoked_count(const mtc_rp_ca *rp)
{
    return rp ? rp->n_revoked : 0;
}

size_t mtc_rp_ca_subtree_count(const mtc_rp_ca *rp)
{
    return rp->n_subtrees;
}

int mtc_rp_ca_from_cert(const uint8_t *der, size_t len, mtc_rp_ca **out)
{
    mtc_ca_params ca;
    *out = NULL;
    int rc = mtc_ca_cert_parse(der, len, &ca);
    if (rc != MTC_OK)
        return rc;
    mtc_rp_ca *rp = mtc_rp_ca_new(&ca.ca_id);
    if (!rp)
        return MTC_ERR_NOMEM;
    if ((rc = mtc_rp_ca_add_cosigner(rp, &ca.ca_id, ca.alg, ca.pk, ca.pk_len)) ||
        (rc = mtc_rp_ca_add_policy(rp, 1, &ca.ca_id, 1)) ||
        (ca.min_serial > 0 &&
         (rc = mtc_rp_ca_revoke(rp, 0, ca.min_serial - 1))) ||
        (ca.max_serial < UINT64_MAX &&
         (rc = mtc_rp_ca_revoke(rp, ca.max_serial + 1, UINT64_MAX)))) {
        mtc_rp_ca_free(rp);
        return rc;
    }
    *out = rp;
    return MTC_OK;
}

/* ---- verification ---------------------------------------------------------------- */

static int fail(mtc_rp_result *res, mtc_rp_reason r, int code)
{
    res->reason = r;
    return code;
}

int mtc_rp_verify_parsed(const mtc_rp_ca *rp, const mtc_cert *c, int64_t now,
                         mtc_rp_result *res)
{
    memset(res, 0, sizeof *res);
    /* The issuer selects the CA; its CA ID builds the log ID. */
    mtc_taid issuer;
    if (mtc_taid_from_name(c->issuer, &issuer) != MTC_OK ||
        !mtc_taid_equal(&issuer, &rp->ca_id))
        return fail(res, MTC_RP_UNKNOWN_ISSUER, MTC_ERR_NOT_TRUSTED);
    /* 1. signature field is id-alg-mtcProof, parameters omitted (and the
     *    Certificate's signatureAlgorithm must be the same, RFC 5280). */
    if (c->tbs_sig_alg.len != MTC_ALG_MTC_PROOF_DER_LEN ||
        memcmp(c->tbs_sig_alg.p, MTC_ALG_MTC_PROOF_DER, MTC_ALG_MTC_PROOF_DER_LEN))
        return fail(res, MTC_RP_SIG_ALG, MTC_ERR_CERT);
    if (c->sig_alg.len != c->tbs_sig_alg.len ||
        memcmp(c->sig_alg.p, c->tbs_sig_alg.p, c->sig_alg.len))
        return fail(res, MTC_RP_SIG_ALG_MISMATCH, MTC_ERR_CERT);
    /* 2. decode the MTCProof: whole octets, nothing after it. */
    mtc_proof p;
    if (!c->sig_whole_octets ||
        mtc_proof_decode(c->sig_value.p, c->sig_value.len, &p) != MTC_OK)
        return fail(res, MTC_RP_PROOF_ENCODING, MTC_ERR_CERT);
    res->start = p.start;
    res->end = p.end;
    /* 3. serial within [0, 2^64-1] */
    if (c->serial_status != MTC_OK)
        return fail(res, MTC_RP_SERIAL_RANGE, MTC_ERR_CERT);
    uint64_t serial = c->serial_num;
    res->serial = serial;
    /* 4. revoked ranges */
    for (size_t i = 0; i < rp->n_revoked; i++)
        if (serial >= rp->revoked[i].first && serial <= rp->revoked[i].last)
            return fail(res, MTC_RP_REVOKED, MTC_ERR_REVOKED);
    /* 5. index and log number */
    uint64_t index = serial & ((UINT64_C(1) << 48) - 1);
    uint64_t log_number = serial >> 48;
    res->index = index;
    res->log_number = log_number;
    if (log_number == 0)
        return fail(res, MTC_RP_LOG_ZERO, MTC_ERR_CERT);
    /* 6. log ID */
    mtc_taid log_id;
    if (mtc_taid_log_id(&rp->ca_id, log_number, &log_id) != MTC_OK)
        return fail(res, MTC_RP_UNKNOWN_ISSUER, MTC_ERR_NOT_TRUSTED);
    /* 7-9. the entry hash, in one pass over the TBSCertificate */
    int rc = mtc_cert_entry_hash(c, p.extensions, &res->entry_hash);
    if (rc != MTC_OK)
        return fail(res, MTC_RP_ENTRY_TOO_LARGE, rc);
    /* 10. evaluate the inclusion proof */
    mtc_hash expected;
    if (mtc_inclusion_evaluate(index, p.start, p.end, &res->entry_hash,
                               p.inclusion, p.n_inclusion, &expected) != MTC_OK)
        return fail(res, MTC_RP_INCLUSION_PROOF, MTC_ERR_PROOF);
    /* 11. a trusted subtree decides alone */
    size_t i = subtree_lower(rp, log_number, p.start, p.end);
    if (i < rp->n_subtrees &&
        subtree_cmp(log_number, p.start, p.end, &rp->subtrees[i]) == 0) {
        res->used_trusted_subtree = 1;
        if (!mtc_hash_equal(&expected, &rp->subtrees[i].hash))
            return fail(res, MTC_RP_SUBTREE_HASH, MTC_ERR_PROOF);
    } else {
        /* 12. cosigner policy over valid signatures of known cosigners */
        uint8_t valid[64] = {0};
        uint8_t *ok = rp->n_cosigners <= sizeof valid ? valid
                                                      : calloc(rp->n_cosigners, 1);
        if (!ok)
            return fail(res, MTC_RP_COSIGNERS, MTC_ERR_NOMEM);
        /* Every signature, however many: unknown cosigners are ignored
         * (the draft's MUST), so their number cannot make a proof bad. */
        size_t cur = 0;
        mtc_subtree_sig sg;
        while (mtc_proof_sig_next(&p, &cur, &sg)) {
            long ci = mtc__rp_find_cosigner(rp, sg.cosigner_id.p,
                                            sg.cosigner_id.len);
            if (ci < 0) {
                res->ignored_sigs++;
                continue;
            }
            const struct rp_cosigner *co = &rp->cosigners[ci];
            if (mtc_cosig_verify(co->alg, co->pk, co->pk_len, &co->id, &log_id,
                                 0, p.start, p.end, &expected,
                                 sg.signature.p, sg.signature.len) == MTC_OK) {
                ok[ci] = 1;
                res->valid_sigs++;
            }
        }
        int satisfied = mtc__rp_policy_met(rp, ok);
        if (ok != valid)
            free(ok);
        if (!satisfied)
            return fail(res, MTC_RP_COSIGNERS, MTC_ERR_NOT_TRUSTED);
    }
    /* The rest of path validation the draft leaves in place: validity. */
    if (now >= 0) {
        if (now < c->not_before)
            return fail(res, MTC_RP_NOT_YET_VALID, MTC_ERR_EXPIRED);
        if (now > c->not_after)
            return fail(res, MTC_RP_EXPIRED, MTC_ERR_EXPIRED);
    }
    res->reason = MTC_RP_OK;
    return MTC_OK;
}

int mtc_rp_verify(const mtc_rp_ca *rp, const uint8_t *der, size_t len,
                  int64_t now, mtc_rp_result *res)
{
    mtc_cert c;
    int rc = mtc_cert_parse(der, len, &c);
    if (rc != MTC_OK) {
        memset(res, 0, sizeof *res);
        res->reason = MTC_RP_MALFORMED;
        return rc;
    }
    return mtc_rp_verify_parsed(rp, &c, now, res);
}
