/*
 * mtc_fixture.c - see mtc_fixture.h.
 */
#include "mtc_fixture.h"

#include <stdio.h>
#include <string.h>

#include "mtc/error.h"

static void seed_for(uint8_t seed[32], uint64_t v, uint8_t kind)
{
    memset(seed, 0, 32);
    seed[0] = kind;
    for (int i = 0; i < 8; i++)
        seed[1 + i] = (uint8_t)(v >> (8 * i));
}

int fx_entry(const fx *f, uint64_t i, mtc_entry_scratch *s, mtc_tbs_entry *e,
             uint8_t spki[64], size_t *spki_len)
{
    uint8_t seed[32], pk[32];
    size_t pl;
    mtc_sig_key *k;
    seed_for(seed, i, 'e');
    if (mtc_sig_key_from_seed(MTC_SIG_ED25519, seed, &k) != MTC_OK)
        return -1;
    mtc_sig_key_public(k, pk, &pl);
    mtc_sig_key_free(k);
    if (mtc_sig_spki_der(MTC_SIG_ED25519, pk, pl, spki, 64, spki_len) != MTC_OK)
        return -1;
    char name[64];
    snprintf(name, sizeof name, "host%llu.example", (unsigned long long)i);
    return mtc_tbs_entry_tls_server(e, s, (mtc_slice){f->issuer, f->issuer_len},
                                    FX_T0 + (int64_t)i, FX_T0 + (int64_t)i + 7 * 86400,
                                    name, spki, *spki_len) == MTC_OK ? 0 : -1;
}

int fx_batch(fx *f, uint64_t *next, uint64_t count, uint64_t ts, int landmark)
{
    for (uint64_t i = 0; i < count; i++) {
        mtc_entry_scratch s;
        mtc_tbs_entry e;
        uint8_t spki[64];
        size_t sl;
        if (fx_entry(f, (*next)++, &s, &e, spki, &sl) ||
            mtc_ilog_append(f->log, (mtc_slice){NULL, 0}, &e, NULL))
            return -1;
    }
    if (mtc_ilog_checkpoint_signed(f->log, f->cos, f->n_cos, ts))
        return -1;
    return landmark ? mtc_landmarks_append(f->lm, mtc_ilog_size(f->log)) : 0;
}

int fx_three_landmarks(fx *f, uint64_t *next)
{
    *next = 0;
    if (fx_init(f, MTC_SIG_ED25519, 2, 0, 1, 0))
        return -1;
    for (int b = 0; b < 3; b++)
        if (fx_batch(f, next, 7, FX_T0 + 60 * (uint64_t)(b + 1), 1))
            return -1;
    return 0;
}

int fx_init(fx *f, mtc_sig_alg alg, size_t witnesses, uint64_t n,
            uint64_t batch, uint64_t per_landmark)
{
    memset(f, 0, sizeof *f);
    if (witnesses + 1 > FX_MAX_COSIGNERS)
        return -1;
    mtc_taid_from_text("32473.1", 7, &f->ca_id);
    mtc_der_writer w;
    mtc_der_writer_init(&w, f->issuer, sizeof f->issuer);
    mtc_taid_name_der(&w, &f->ca_id);
    f->issuer_len = w.len;
    f->n_cos = witnesses + 1;
    for (size_t c = 0; c < f->n_cos; c++) {
        uint8_t seed[32];
        seed_for(seed, c, 'c');
        if (mtc_sig_key_from_seed(alg, seed, &f->keys[c]) != MTC_OK)
            return -1;
        f->cos[c].key = f->keys[c];
        if (c == 0) {
            f->cos[c].id = f->ca_id;
        } else {
            char id[32];
            snprintf(id, sizeof id, "32473.%zu", 100 + c);
            mtc_taid_from_text(id, strlen(id), &f->cos[c].id);
        }
    }
    uint8_t pk[MTC_SIG_PK_MAX];
    size_t pl;
    mtc_sig_key_public(f->keys[0], pk, &pl);
    mtc_ca_params ca = {f->ca_id, alg, pk, pl, UINT64_C(1) << 48,
                        (UINT64_C(2) << 48) - 1, FX_T0, FX_T0 + 365 * 86400};
    if (mtc_ca_cert_build(&ca, f->ca_cert, sizeof f->ca_cert, &f->ca_cert_len))
        return -1;
    f->log = mtc_ilog_new(&f->ca_id, 1, NULL);
    f->lm = mtc_landmarks_new(8);
    if (!f->log || !f->lm)
        return -1;
    uint64_t batches = 0;
    for (uint64_t i = 0; i < n; i++) {
        mtc_entry_scratch s;
        mtc_tbs_entry e;
        uint8_t spki[64];
        size_t sl;
        uint64_t idx;
        if (fx_entry(f, i, &s, &e, spki, &sl) ||
            mtc_ilog_append(f->log, (mtc_slice){NULL, 0}, &e, &idx) || idx != i)
            return -1;
        if ((i + 1) % batch == 0 || i + 1 == n) {
            if (mtc_ilog_checkpoint(f->log, f->cos, f->n_cos))
                return -1;
            batches++;
            if (per_landmark && batches % per_landmark == 0 &&
                mtc_landmarks_append(f->lm, mtc_ilog_size(f->log)))
                return -1;
        }
    }
    return 0;
}

void fx_free(fx *f)
{
    for (size_t c = 0; c < f->n_cos; c++)
        mtc_sig_key_free(f->keys[c]);
    mtc_ilog_free(f->log);
    mtc_landmarks_free(f->lm);
}

int fx_cert(fx *f, uint64_t i, int landmark_relative, uint8_t *out, size_t cap,
            size_t *len)
{
    mtc_entry_scratch s;
    mtc_tbs_entry e;
    uint8_t spki[64];
    size_t sl;
    mtc_proof_storage st;
    mtc_proof p;
    uint64_t lmn;
    if (fx_entry(f, i, &s, &e, spki, &sl))
        return -1;
    int rc = landmark_relative
                 ? mtc_ilog_landmark_proof(f->log, f->lm, i, (mtc_slice){NULL, 0},
                                           &st, &p, &lmn)
                 : mtc_ilog_standalone_proof(f->log, i, (mtc_slice){NULL, 0}, &st, &p);
    if (rc != MTC_OK)
        return rc;
    return mtc_cert_build(&e, spki, sl, mtc_serial(1, i), &p, out, cap, len);
}

int fx_rp(fx *f, mtc_rp_ca **out)
{
    mtc_rp_ca *rp;
    int rc = mtc_rp_ca_from_cert(f->ca_cert, f->ca_cert_len, &rp);
    if (rc != MTC_OK)
        return rc;
    mtc_taid ids[FX_MAX_COSIGNERS];
    for (size_t c = 1; c < f->n_cos; c++) {
        uint8_t pk[MTC_SIG_PK_MAX];
        size_t pl;
        mtc_sig_key_public(f->keys[c], pk, &pl);
        if ((rc = mtc_rp_ca_add_cosigner(rp, &f->cos[c].id,
                                         mtc_sig_key_alg(f->keys[c]), pk, pl)))
            goto fail;
        ids[c - 1] = f->cos[c].id;
    }
    if (f->n_cos > 1 &&
        (rc = mtc_rp_ca_add_policy(rp, (unsigned)(f->n_cos - 1), ids, f->n_cos - 1)))
        goto fail;
    uint64_t last = mtc_landmarks_last(f->lm);
    uint64_t first = mtc_landmarks_first_kept(f->lm);
    for (uint64_t l = first + 1; l <= last && l > 0; l++) {
        mtc_subtree s[2];
        if ((rc = mtc_landmarks_subtrees(f->lm, l, &s[0], &s[1])))
            goto fail;
        for (int k = 0; k < 2; k++) {
            if (s[k].start == s[k].end)
                continue;
            mtc_hash h;
            if ((rc = mtc_tree_subtree_hash(mtc_ilog_tree(f->log), s[k].start,
                                            s[k].end, &h)) ||
                (rc = mtc_rp_ca_add_subtree(rp, 1, s[k].start, s[k].end, &h)))
                goto fail;
        }
    }
    *out = rp;
    return MTC_OK;
fail:
    mtc_rp_ca_free(rp);
    return rc;
}

int fx_subtree_real(const fx *f, const mtc_update_subtree *st)
{
    mtc_hash real;
    return st->end <= mtc_ilog_size(f->log) &&
           mtc_tree_subtree_hash(mtc_ilog_tree(f->log), st->start, st->end,
                                 &real) == MTC_OK &&
           mtc_hash_equal(&real, &st->hash);
}
