/*
 * test_rp_update.c - relying-party updates (mtc/update.h): the CA builds
 * one from its signed checkpoint and landmarks, the relying party trusts
 * landmark subtrees only after checking the cosignatures, the
 * consistency proofs and the landmark structure; every refusal reason is
 * produced by an update that breaks exactly that rule, and a refused
 * update leaves the relying party unchanged. The codec is strict and
 * canonical.
 */
#include "lib/mtc_fixture.h"
#include "mtc/error.h"
#include "mtc/update.h"
#include "test.h"

static fx F;
static uint64_t next_entry;

static int batch(uint64_t count, uint64_t ts, int landmark)
{
    return fx_batch(&F, &next_entry, count, ts, landmark);
}

/* CA 32473.1, witnesses 32473.101 and .102; 3 batches of 7, a landmark
 * after each. */
static int setup(void)
{
    return fx_three_landmarks(&F, &next_entry);
}

/* The relying party of the CA certificate plus both witnesses (policy:
 * CA, and both witnesses), with no trusted subtree. */
static mtc_rp_ca *new_rp(void)
{
    mtc_rp_ca *rp;
    if (fx_rp(&F, &rp) != MTC_OK)
        return NULL;
    mtc_rp_ca_clear_subtrees(rp);
    return rp;
}

static mtc_update *build(void)
{
    const mtc_landmarks *lm = F.lm;
    mtc_update *u;
    return mtc_update_from_ilogs(&F.ca_id, &F.log, &lm, 1, &u) == MTC_OK ? u
                                                                          : NULL;
}

/* A mutable copy of u's single log record. */
typedef struct copy {
    mtc_update u;
    mtc_update_log lg;
    mtc_update_cosig cs[8];
    mtc_update_subtree st[64];
} copy;

static void copy_of(copy *c, const mtc_update *u)
{
    c->u = *u;
    c->lg = u->logs[0];
    memcpy(c->cs, c->lg.cosigs, c->lg.n_cosigs * sizeof c->cs[0]);
    memcpy(c->st, c->lg.subtrees, c->lg.n_subtrees * sizeof c->st[0]);
    c->lg.cosigs = c->cs;
    c->lg.subtrees = c->st;
    c->u.logs = &c->lg;
}

static int apply(mtc_rp_ca *rp, const mtc_update *u, mtc_update_reason *why)
{
    mtc_update_result r;
    int rc = mtc_rp_ca_apply_update(rp, u, &r);
    *why = r.reason;
    return rc;
}

TEST(codec_roundtrip_and_strict)
{
    ASSERT_OK(setup());
    mtc_update *u = build();
    ASSERT_TRUE(u != NULL);
    ASSERT_EQ(u->n_logs, 1);
    ASSERT_EQ(u->logs[0].n_cosigs, 3);
    ASSERT_EQ_U64(u->logs[0].ref_size, 21);
    size_t n;
    ASSERT_EQ(mtc_update_encode(u, NULL, 0, &n), MTC_ERR_LIMIT);
    uint8_t *buf = malloc(n + 1);
    size_t n2;
    ASSERT_OK(mtc_update_encode(u, buf, n, &n2));
    ASSERT_EQ(n2, n);
    ASSERT_MEM_EQ(buf, MTC_UPDATE_LABEL, MTC_UPDATE_LABEL_LEN);
    mtc_update *d;
    ASSERT_OK(mtc_update_decode(buf, n, &d));
    ASSERT_EQ(d->logs[0].n_subtrees, u->logs[0].n_subtrees);
    ASSERT_EQ(d->logs[0].n_cosigs, 3);
    uint8_t *again = malloc(n);
    ASSERT_OK(mtc_update_encode(d, again, n, &n2));
    ASSERT_EQ(n2, n);
    ASSERT_MEM_EQ(again, buf, n); /* canonical */
    mtc_update_free(d);
    /* every truncation, and any trailing byte, is malformed */
    size_t step = test_scale() < 1 ? 7 : 1;
    for (size_t l = 0; l < n; l += step)
        ASSERT_EQ(mtc_update_decode(buf, l, &d), MTC_ERR_PARSE);
    buf[n] = 0;
    ASSERT_EQ(mtc_update_decode(buf, n + 1, &d), MTC_ERR_PARSE);
    /* wrong label */
    buf[0] ^= 1;
    ASSERT_EQ(mtc_update_decode(buf, n, &d), MTC_ERR_PARSE);
    buf[0] ^= 1;
    /* cosigners out of order, logs out of order, ref_size 0 */
    copy c;
    copy_of(&c, u);
    mtc_update_cosig t = c.cs[0];
    c.cs[0] = c.cs[1];
    c.cs[1] = t;
    ASSERT_OK(mtc_update_encode(&c.u, buf, n, &n2));
    ASSERT_EQ(mtc_update_decode(buf, n, &d), MTC_ERR_PARSE);
    copy_of(&c, u);
    c.cs[1] = c.cs[0]; /* a duplicate */
    ASSERT_OK(mtc_update_encode(&c.u, buf, n, &n2));
    ASSERT_EQ(mtc_update_decode(buf, n2, &d), MTC_ERR_PARSE);
    copy_of(&c, u);
    c.lg.ref_size = 0;
    ASSERT_OK(mtc_update_encode(&c.u, buf, n, &n2));
    ASSERT_EQ(mtc_update_decode(buf, n2, &d), MTC_ERR_PARSE);
    mtc_update_log two[2] = {u->logs[0], u->logs[0]};
    mtc_update u2 = {u->ca_id, two, 2};
    uint8_t *big = malloc(2 * n);
    ASSERT_OK(mtc_update_encode(&u2, big, 2 * n, &n2));
    ASSERT_EQ(mtc_update_decode(big, n2, &d), MTC_ERR_PARSE); /* log 1 twice */
    two[1].log_number = 2;
    ASSERT_OK(mtc_update_encode(&u2, big, 2 * n, &n2));
    ASSERT_OK(mtc_update_decode(big, n2, &d));
    ASSERT_EQ(d->n_logs, 2);
    mtc_update_free(d);
    /* fields out of range are refused by the encoder */
    copy_of(&c, u);
    c.lg.log_number = 70000;
    ASSERT_EQ(mtc_update_encode(&c.u, buf, n, &n2), MTC_ERR_ARG);
    copy_of(&c, u);
    c.st[0].end = UINT64_C(1) << 48;
    ASSERT_EQ(mtc_update_encode(&c.u, buf, n, &n2), MTC_ERR_ARG);
    free(big);
    free(again);
    free(buf);
    mtc_update_free(u);
    fx_free(&F);
}

/* landmark subtrees are trusted only through an update, and
 * then landmark-relative certificates verify. */
TEST(update_makes_landmark_certs_verify)
{
    ASSERT_OK(setup());
    mtc_rp_ca *rp = new_rp();
    ASSERT_TRUE(rp != NULL);
    uint8_t der[4096];
    size_t len;
    mtc_rp_result r;
    ASSERT_OK(fx_cert(&F, 10, 1, der, sizeof der, &len));
    ASSERT_EQ(mtc_rp_verify(rp, der, len, -1, &r), MTC_ERR_NOT_TRUSTED);
    ASSERT_EQ(mtc_rp_ca_log_state(rp, 1, NULL, NULL), MTC_ERR_RANGE);
    mtc_update *u = build();
    ASSERT_TRUE(u != NULL);
    mtc_update_result res;
    ASSERT_OK(mtc_rp_ca_apply_update(rp, u, &res));
    ASSERT_EQ(res.reason, MTC_UPDATE_OK);
    ASSERT_EQ(res.valid_cosigs, 3);
    ASSERT_EQ(res.n_subtrees, u->logs[0].n_subtrees);
    ASSERT_EQ(mtc_rp_ca_subtree_count(rp), u->logs[0].n_subtrees);
    uint64_t last, ref;
    ASSERT_OK(mtc_rp_ca_log_state(rp, 1, &last, &ref));
    ASSERT_EQ(last, 3);
    ASSERT_EQ(ref, 21);
    for (uint64_t i = 0; i < 21; i++) {
        ASSERT_OK(fx_cert(&F, i, 1, der, sizeof der, &len));
        ASSERT_OK(mtc_rp_verify(rp, der, len, -1, &r));
        ASSERT_EQ(r.used_trusted_subtree, 1);
    }
    /* re-applying the same update is not a rollback */
    ASSERT_OK(mtc_rp_ca_apply_update(rp, u, &res));
    /* a newer update (two more landmarks) replaces the log's subtrees */
    ASSERT_OK(batch(5, FX_T0 + 400, 1));
    ASSERT_OK(batch(5, FX_T0 + 500, 1));
    mtc_update *u2 = build();
    ASSERT_OK(mtc_rp_ca_apply_update(rp, u2, &res));
    ASSERT_OK(mtc_rp_ca_log_state(rp, 1, &last, &ref));
    ASSERT_EQ(last, 5);
    ASSERT_EQ(ref, 31);
    ASSERT_OK(fx_cert(&F, 29, 1, der, sizeof der, &len));
    ASSERT_OK(mtc_rp_verify(rp, der, len, -1, &r));
    /* and the old one is now a rollback, refused without change */
    size_t before = mtc_rp_ca_subtree_count(rp);
    mtc_update_reason why;
    ASSERT_EQ(apply(rp, u, &why), MTC_ERR_LANDMARK);
    ASSERT_EQ(why, MTC_UPDATE_ROLLBACK);
    ASSERT_EQ(mtc_rp_ca_subtree_count(rp), before);
    ASSERT_OK(mtc_rp_ca_log_state(rp, 1, &last, &ref));
    ASSERT_EQ(last, 5);
    mtc_update_free(u2);
    mtc_update_free(u);
    mtc_rp_ca_free(rp);
    fx_free(&F);
}

/* The landmarks text of u with its last landmark number moved by delta
 * (sizes unchanged), into out, as the update c. 0, or -1 when it does not
 * fit. */
static int renumber(const mtc_update *u, int64_t delta, char *out, size_t cap,
                    copy *c)
{
    const char *t = (const char *)u->logs[0].landmarks.p;
    size_t len = u->logs[0].landmarks.len;
    unsigned long long last = 0, num = 0;
    const char *nl = memchr(t, '\n', len);
    if (!nl || sscanf(t, "%llu %llu", &last, &num) != 2)
        return -1;
    size_t rest = len - (size_t)(nl - t);
    int k = snprintf(out, cap, "%llu %llu",
                     (unsigned long long)((int64_t)last + delta), num);
    if (k <= 0 || (size_t)k + rest > cap)
        return -1;
    memcpy(out + k, nl, rest);
    copy_of(c, u);
    c->lg.landmarks.p = (const uint8_t *)out;
    c->lg.landmarks.len = (size_t)k + rest;
    return 0;
}

/* Landmark numbers are signed by nobody: an update whose numbers were
 * rewritten (sizes, subtrees and cosignatures genuine) must not freeze a
 * relying party by making every later genuine update look like a
 * rollback. A number above its landmark's size is refused outright
 * (landmark L has size >= L), and a rollback is judged on the verified
 * sizes, not on numbers. */
TEST(rewritten_landmark_numbers_do_not_freeze)
{
    ASSERT_OK(setup());
    mtc_rp_ca *rp = new_rp();
    mtc_update *u = build();
    mtc_update_reason why;
    ASSERT_OK(apply(rp, u, &why));
    ASSERT_OK(batch(5, FX_T0 + 400, 1));
    ASSERT_OK(batch(5, FX_T0 + 500, 1));
    mtc_update *u2 = build();
    char text[4096];
    copy c;
    /* far beyond any size: refused, nothing changes */
    ASSERT_EQ(renumber(u2, 1000000, text, sizeof text, &c), 0);
    ASSERT_EQ(apply(rp, &c.u, &why), MTC_ERR_LANDMARK);
    ASSERT_EQ(why, MTC_UPDATE_LANDMARKS);
    uint64_t last, ref;
    ASSERT_OK(mtc_rp_ca_log_state(rp, 1, &last, &ref));
    ASSERT_EQ(last, 3);
    /* so is one moved by less, while the oldest listed landmark (size 0
     * here) cannot have that number */
    ASSERT_EQ(renumber(u2, 1, text, sizeof text, &c), 0);
    ASSERT_EQ(apply(rp, &c.u, &why), MTC_ERR_LANDMARK);
    ASSERT_EQ(why, MTC_UPDATE_LANDMARKS);
    /* the genuine updates that follow are taken: the relying party is not
     * frozen */
    ASSERT_OK(apply(rp, u2, &why));
    ASSERT_OK(mtc_rp_ca_log_state(rp, 1, &last, &ref));
    ASSERT_EQ(last, 5);
    ASSERT_OK(batch(5, FX_T0 + 600, 1));
    mtc_update *u3 = build();
    ASSERT_OK(apply(rp, u3, &why));
    ASSERT_OK(mtc_rp_ca_log_state(rp, 1, &last, &ref));
    ASSERT_EQ(last, 6);
    /* an older genuine update is still a rollback (smaller sizes) */
    ASSERT_EQ(apply(rp, u2, &why), MTC_ERR_LANDMARK);
    ASSERT_EQ(why, MTC_UPDATE_ROLLBACK);
    mtc_update_free(u3);
    mtc_update_free(u2);
    mtc_update_free(u);
    mtc_rp_ca_free(rp);
    fx_free(&F);
}

/* Every refusal, each by an update breaking exactly one rule. */
TEST(every_refusal_reason)
{
    ASSERT_OK(setup());
    mtc_rp_ca *rp = new_rp();
    mtc_update *u = build();
    ASSERT_TRUE(rp && u);
    mtc_update_reason why;
    copy c;
    /* wrong CA */
    copy_of(&c, u);
    mtc_taid_from_text("32473.2", 7, &c.u.ca_id);
    ASSERT_EQ(apply(rp, &c.u, &why), MTC_ERR_CONFIG);
    ASSERT_EQ(why, MTC_UPDATE_WRONG_CA);
    /* malformed in memory: log number 0 */
    copy_of(&c, u);
    c.lg.log_number = 0;
    ASSERT_EQ(apply(rp, &c.u, &why), MTC_ERR_ARG);
    ASSERT_EQ(why, MTC_UPDATE_MALFORMED);
    /* landmarks: text broken, or the reference does not contain the last */
    copy_of(&c, u);
    c.lg.landmarks.len--;
    ASSERT_EQ(apply(rp, &c.u, &why), MTC_ERR_LANDMARK);
    ASSERT_EQ(why, MTC_UPDATE_LANDMARKS);
    static const char beyond[] = "3 3\n22\n14\n7\n0\n";
    copy_of(&c, u);
    c.lg.landmarks = (mtc_slice){(const uint8_t *)beyond, sizeof beyond - 1};
    ASSERT_EQ(apply(rp, &c.u, &why), MTC_ERR_LANDMARK);
    ASSERT_EQ(why, MTC_UPDATE_LANDMARKS);
    /* cosigners: a witness missing; a corrupted signature (does not
     * count); an unknown cosigner does not help */
    copy_of(&c, u);
    c.lg.n_cosigs = 2;
    ASSERT_EQ(apply(rp, &c.u, &why), MTC_ERR_NOT_TRUSTED);
    ASSERT_EQ(why, MTC_UPDATE_COSIGNERS);
    copy_of(&c, u);
    uint8_t bad_sig[64];
    memcpy(bad_sig, c.cs[2].signature.p, 64);
    bad_sig[5] ^= 1;
    c.cs[2].signature = (mtc_slice){bad_sig, 64};
    mtc_update_result res;
    ASSERT_EQ(mtc_rp_ca_apply_update(rp, &c.u, &res), MTC_ERR_NOT_TRUSTED);
    ASSERT_EQ(res.reason, MTC_UPDATE_COSIGNERS);
    ASSERT_EQ(res.valid_cosigs, 2);
    ASSERT_EQ(res.invalid_cosigs, 1);
    c.cs[2] = u->logs[0].cosigs[2];
    mtc_taid_from_text("32473.999", 9, &c.cs[3].cosigner_id);
    c.cs[3] = c.cs[2];
    mtc_taid_from_text("32473.999", 9, &c.cs[3].cosigner_id);
    c.lg.n_cosigs = 4;
    ASSERT_OK(mtc_rp_ca_apply_update(rp, &c.u, &res));
    ASSERT_EQ(res.ignored_cosigs, 1);
    ASSERT_EQ(res.valid_cosigs, 3);
    mtc_rp_ca_free(rp);
    rp = new_rp();
    /* subtrees: one missing, one extra, one moved */
    copy_of(&c, u);
    c.lg.n_subtrees--;
    ASSERT_EQ(apply(rp, &c.u, &why), MTC_ERR_PROOF);
    ASSERT_EQ(why, MTC_UPDATE_SUBTREES);
    copy_of(&c, u);
    c.st[c.lg.n_subtrees] = c.st[0];
    c.lg.n_subtrees++;
    ASSERT_EQ(apply(rp, &c.u, &why), MTC_ERR_PROOF);
    ASSERT_EQ(why, MTC_UPDATE_SUBTREES);
    copy_of(&c, u);
    c.st[1].start++;
    ASSERT_EQ(apply(rp, &c.u, &why), MTC_ERR_PROOF);
    ASSERT_EQ(why, MTC_UPDATE_SUBTREES);
    /* a subtree hash the checkpoint does not contain; a broken proof */
    copy_of(&c, u);
    c.st[1].hash.b[0] ^= 1;
    ASSERT_EQ(apply(rp, &c.u, &why), MTC_ERR_PROOF);
    ASSERT_EQ(why, MTC_UPDATE_SUBTREE_PROOF);
    copy_of(&c, u);
    ASSERT_TRUE(c.st[0].n_consistency > 0);
    c.st[0].n_consistency--;
    ASSERT_EQ(apply(rp, &c.u, &why), MTC_ERR_PROOF);
    ASSERT_EQ(why, MTC_UPDATE_SUBTREE_PROOF);
    /* no refusal changed anything */
    ASSERT_EQ(mtc_rp_ca_subtree_count(rp), 0);
    ASSERT_EQ(mtc_rp_ca_log_state(rp, 1, NULL, NULL), MTC_ERR_RANGE);
    ASSERT_OK(apply(rp, u, &why));
    for (int k = 0; k < MTC_UPDATE_REASON_COUNT; k++)
        ASSERT_TRUE(strcmp(mtc_update_reason_name((mtc_update_reason)k), "unknown"));
    mtc_update_free(u);
    mtc_rp_ca_free(rp);
    fx_free(&F);
}

/* The draft's other form of evidence: a cosigner that signed a larger
 * checkpoint, with a consistency proof from the reference checkpoint. */
TEST(larger_checkpoint_with_consistency_proof)
{
    ASSERT_OK(setup());
    mtc_update *u = build(); /* reference: 21 entries */
    ASSERT_OK(batch(4, FX_T0 + 900, 0)); /* witnesses now at 25 */
    mtc_checkpoint ck;
    ASSERT_OK(mtc_ilog_last_checkpoint(F.log, &ck));
    ASSERT_EQ_U64(ck.size, 25);
    mtc_hash proof[MTC_PROOF_MAX];
    size_t np;
    mtc_node_source src;
    mtc_tree_source(mtc_ilog_tree(F.log), &src);
    ASSERT_OK(mtc_consistency_proof(&src, 21, 25, proof, &np));
    copy c;
    copy_of(&c, u);
    for (size_t k = 1; k < 3; k++) { /* the witnesses' (sorted after the CA) */
        c.cs[k].timestamp = ck.timestamp;
        c.cs[k].tree_size = ck.size;
        c.cs[k].root = ck.root;
        c.cs[k].signature = ck.sigs[k].signature;
        c.cs[k].consistency = proof;
        c.cs[k].n_consistency = np;
    }
    mtc_rp_ca *rp = new_rp();
    mtc_update_result res;
    ASSERT_OK(mtc_rp_ca_apply_update(rp, &c.u, &res));
    ASSERT_EQ(res.valid_cosigs, 3);
    /* through the codec too */
    size_t n;
    mtc_update_encode(&c.u, NULL, 0, &n);
    uint8_t *buf = malloc(n);
    ASSERT_OK(mtc_update_encode(&c.u, buf, n, &n));
    mtc_update *d;
    ASSERT_OK(mtc_update_decode(buf, n, &d));
    ASSERT_OK(mtc_rp_ca_apply_update(rp, d, &res));
    mtc_update_free(d);
    free(buf);
    /* a wrong proof, or none, and those signatures do not count */
    mtc_update_reason why;
    c.cs[1].n_consistency = np - 1;
    mtc_rp_ca_free(rp);
    rp = new_rp();
    ASSERT_EQ(apply(rp, &c.u, &why), MTC_ERR_NOT_TRUSTED);
    ASSERT_EQ(why, MTC_UPDATE_COSIGNERS);
    c.cs[1].n_consistency = 0;
    ASSERT_EQ(apply(rp, &c.u, &why), MTC_ERR_NOT_TRUSTED);
    /* a signature on a smaller tree than the reference does not count */
    copy_of(&c, u);
    c.cs[1].tree_size = 20;
    ASSERT_EQ(apply(rp, &c.u, &why), MTC_ERR_NOT_TRUSTED);
    mtc_rp_ca_free(rp);
    mtc_update_free(u);
    fx_free(&F);
}

/* The builder's preconditions: a signed checkpoint containing the last
 * landmark. */
TEST(builder_needs_signed_checkpoint)
{
    ASSERT_OK(fx_init(&F, MTC_SIG_ED25519, 1, 10, 5, 1)); /* unsigned */
    const mtc_landmarks *lm = F.lm;
    mtc_update *u;
    ASSERT_EQ(mtc_update_from_ilogs(&F.ca_id, &F.log, &lm, 1, &u), MTC_ERR_RANGE);
    fx_free(&F);
    ASSERT_OK(setup());
    ASSERT_OK(mtc_landmarks_append(F.lm, 100)); /* beyond the checkpoint */
    lm = F.lm;
    ASSERT_EQ(mtc_update_from_ilogs(&F.ca_id, &F.log, &lm, 1, &u), MTC_ERR_LANDMARK);
    fx_free(&F);
}

static const test_case tests[] = {
    {"codec_roundtrip_and_strict", codec_roundtrip_and_strict},
    {"update_makes_landmark_certs_verify", update_makes_landmark_certs_verify},
    {"rewritten_landmark_numbers_do_not_freeze", rewritten_landmark_numbers_do_not_freeze},
    {"every_refusal_reason", every_refusal_reason},
    {"larger_checkpoint_with_consistency_proof", larger_checkpoint_with_consistency_proof},
    {"builder_needs_signed_checkpoint", builder_needs_signed_checkpoint},
};

TEST_MAIN(tests)
