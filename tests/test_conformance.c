/*
 * test_conformance.c - the draft's rules an independent implementation
 * found mtc-core deviating from, one case per rule: wrong
 * rejects (more than 32 signatures, more than 64 X.509 extensions, a proof
 * longer than 64 hashes), the CA-side rules of the issuance log
 * (unrecognized entry and extension types, the current log, the
 * issuerAltName label) and signed checkpoints from the issuance job.
 */
#include "lib/mtc_fixture.h"
#include "mtc/cosig.h"
#include "mtc/error.h"
#include "test.h"

static fx F;
static int fx_ready;

/* CA 32473.1 with witnesses 32473.101 and 32473.102, 30 entries. */
static int setup(void)
{
    if (!fx_ready)
        fx_ready = fx_init(&F, MTC_SIG_ED25519, 2, 30, 7, 2) == 0 ? 1 : -1;
    return fx_ready == 1;
}

/* Rebuilds entry i's standalone certificate with proof p. */
static int rebuild(uint64_t i, const mtc_proof *p, uint8_t *der, size_t cap,
                   size_t *n)
{
    mtc_entry_scratch s;
    mtc_tbs_entry e;
    uint8_t spki[64];
    size_t sl;
    if (fx_entry(&F, i, &s, &e, spki, &sl))
        return -1;
    return mtc_cert_build(&e, spki, sl, mtc_serial(1, i), p, der, cap, n);
}

/* The signatures vector of p's known signatures (skipping the one of
 * index `skip`, -1: none) followed by 30 unknown cosigners 32473.99.k,
 * whose 5-byte IDs order after the 4-byte known ones; each unknown
 * signature is 64 junk bytes. */
static size_t sig_vector(const mtc_proof *p, long skip, uint8_t *vec)
{
    size_t n = 0;
    for (size_t i = 0; i < p->n_sigs; i++) {
        const mtc_subtree_sig *s = &p->sigs[i];
        if ((long)i == skip)
            continue;
        vec[n++] = (uint8_t)s->cosigner_id.len;
        memcpy(vec + n, s->cosigner_id.p, s->cosigner_id.len);
        n += s->cosigner_id.len;
        vec[n++] = (uint8_t)(s->signature.len >> 8);
        vec[n++] = (uint8_t)s->signature.len;
        memcpy(vec + n, s->signature.p, s->signature.len);
        n += s->signature.len;
    }
    for (int k = 0; k < 30; k++) {
        mtc_taid id;
        uint64_t arcs[2] = {99, (uint64_t)k};
        mtc_taid_from_text("32473", 5, &id);
        mtc_taid_append(&id, arcs, 2, &id);
        vec[n++] = (uint8_t)id.len;
        memcpy(vec + n, id.b, id.len);
        n += id.len;
        vec[n++] = 0;
        vec[n++] = 64;
        memset(vec + n, 0x5a + k, 64);
        n += 64;
    }
    return n;
}

/* 3 known and 30 unknown cosignatures verify; the unknown
 * ones are ignored, not a reason to reject the encoding. */
TEST(unknown_cosigners_beyond_32_are_ignored)
{
    ASSERT_TRUE(setup());
    mtc_rp_ca *rp;
    ASSERT_OK(fx_rp(&F, &rp));
    mtc_rp_ca_clear_subtrees(rp); /* the signatures must decide */
    mtc_proof_storage st;
    mtc_proof p;
    ASSERT_OK(mtc_ilog_standalone_proof(F.log, 9, (mtc_slice){NULL, 0}, &st, &p));
    ASSERT_EQ(p.n_sigs, 3);
    static uint8_t vec[8192];
    size_t n = sig_vector(&p, -1, vec);
    ASSERT_EQ(n, 3 * (1 + 4 + 2 + 64) + 30 * (1 + 5 + 2 + 64));
    p.sig_vec = (mtc_slice){vec, n}; /* encoded as is: 33 signatures */
    static uint8_t der[16384];
    size_t len;
    ASSERT_OK(rebuild(9, &p, der, sizeof der, &len));
    mtc_rp_result r;
    ASSERT_OK(mtc_rp_verify(rp, der, len, -1, &r));
    ASSERT_EQ(r.reason, MTC_RP_OK);
    ASSERT_EQ(r.valid_sigs, 3);
    ASSERT_EQ(r.ignored_sigs, 30);
    /* Decoding keeps all 33 (sigs[] the first 32) and re-encodes exactly. */
    mtc_cert c;
    ASSERT_OK(mtc_cert_parse(der, len, &c));
    mtc_proof q;
    ASSERT_OK(mtc_proof_decode(c.sig_value.p, c.sig_value.len, &q));
    ASSERT_EQ(q.n_sigs_total, 33);
    ASSERT_EQ(q.n_sigs, MTC_PROOF_MAX_SIGS);
    size_t cur = 0, count = 0;
    mtc_subtree_sig sg;
    while (mtc_proof_sig_next(&q, &cur, &sg))
        count++;
    ASSERT_EQ(count, 33);
    static uint8_t again[16384];
    size_t al;
    ASSERT_OK(mtc_proof_encode(&q, again, sizeof again, &al));
    ASSERT_EQ(al, c.sig_value.len);
    ASSERT_MEM_EQ(again, c.sig_value.p, al);
    /* The policy still needs the known ones: without the CA's signature
     * the 32 others do not satisfy it. */
    p.sig_vec = (mtc_slice){vec, sig_vector(&p, 0, vec)};
    ASSERT_OK(rebuild(9, &p, der, sizeof der, &len));
    ASSERT_EQ(mtc_rp_verify(rp, der, len, -1, &r), MTC_ERR_NOT_TRUSTED);
    ASSERT_EQ(r.reason, MTC_RP_COSIGNERS);
    ASSERT_EQ(r.ignored_sigs, 30);
    /* Still strict: the last unknown ID made equal to the one before it. */
    n = sig_vector(&p, -1, vec);
    memcpy(vec + n - 72 + 1, vec + n - 144 + 1, 5);
    p.sig_vec = (mtc_slice){vec, n};
    ASSERT_OK(rebuild(9, &p, der, sizeof der, &len));
    ASSERT_EQ(mtc_rp_verify(rp, der, len, -1, &r), MTC_ERR_CERT);
    ASSERT_EQ(r.reason, MTC_RP_PROOF_ENCODING);
    mtc_rp_ca_free(rp);
}

/* a proof of more than 64 hashes is a well-formed MTCProof
 * whose evaluation fails: reason inclusion-proof, not proof-encoding. */
TEST(long_inclusion_proof_fails_evaluation)
{
    ASSERT_TRUE(setup());
    mtc_rp_ca *rp;
    ASSERT_OK(fx_rp(&F, &rp));
    mtc_proof_storage st;
    mtc_proof p;
    ASSERT_OK(mtc_ilog_standalone_proof(F.log, 3, (mtc_slice){NULL, 0}, &st, &p));
    static mtc_hash many[2047];
    for (size_t k = 0; k < 2047; k++)
        memset(many[k].b, (int)k, 32);
    memcpy(many, p.inclusion, p.n_inclusion * sizeof *many);
    static const size_t lengths[] = {65, 200, 2047};
    for (size_t t = 0; t < 3; t++) {
        p.inclusion = many;
        p.n_inclusion = lengths[t];
        static uint8_t der[131072];
        size_t len;
        ASSERT_OK(rebuild(3, &p, der, sizeof der, &len));
        mtc_cert c;
        mtc_proof q;
        ASSERT_OK(mtc_cert_parse(der, len, &c));
        ASSERT_OK(mtc_proof_decode(c.sig_value.p, c.sig_value.len, &q));
        ASSERT_EQ(q.n_inclusion, lengths[t]);
        mtc_rp_result r;
        ASSERT_EQ(mtc_rp_verify(rp, der, len, -1, &r), MTC_ERR_PROOF);
        ASSERT_EQ(r.reason, MTC_RP_INCLUSION_PROOF);
    }
    mtc_rp_ca_free(rp);
}

/* Extensions [3] { SEQUENCE { n extensions } } with OIDs 1.2.3.4.k
 * (k < 128 single-byte arcs, then two bytes); dup_of >= 0 makes the last
 * one repeat extension dup_of's OID. */
static size_t many_exts(uint8_t *out, size_t cap, size_t n, long dup_of)
{
    mtc_der_writer w;
    mtc_der_writer_init(&w, out, cap);
    size_t m3 = mtc_der_open(&w, MTC_DER_CONTEXT | MTC_DER_CONSTRUCTED | 3);
    size_t ml = mtc_der_open(&w, MTC_DER_SEQUENCE);
    for (size_t k = 0; k < n; k++) {
        size_t kk = (dup_of >= 0 && k == n - 1) ? (size_t)dup_of : k;
        uint8_t oid[8] = {0x2a, 0x03, 0x04};
        size_t ol = 3;
        if (kk >= 128)
            oid[ol++] = (uint8_t)(0x80 | (kk >> 7));
        oid[ol++] = (uint8_t)(kk & 0x7f);
        size_t mx = mtc_der_open(&w, MTC_DER_SEQUENCE);
        mtc_der_prim(&w, MTC_DER_OID, oid, ol);
        static const uint8_t null_der[] = {0x05, 0x00};
        mtc_der_prim(&w, MTC_DER_OCTET_STRING, null_der, sizeof null_der);
        mtc_der_close(&w, mx);
    }
    mtc_der_close(&w, ml);
    mtc_der_close(&w, m3);
    return w.err == MTC_OK ? w.len : 0;
}

/* RFC 5280 sets no limit on the number of extensions. */
TEST(more_than_64_extensions)
{
    ASSERT_TRUE(setup());
    static const size_t counts[] = {65, 200, 1000};
    for (size_t t = 0; t < 3; t++) {
        mtc_entry_scratch s;
        mtc_tbs_entry e;
        uint8_t spki[64];
        size_t sl;
        ASSERT_EQ(fx_entry(&F, 1, &s, &e, spki, &sl), 0);
        static uint8_t exts[32768];
        size_t el = many_exts(exts, sizeof exts, counts[t], -1);
        ASSERT_TRUE(el > 0);
        e.extensions = (mtc_slice){exts, el};
        /* the log entry parses */
        static uint8_t entry[65536];
        size_t n;
        ASSERT_OK(mtc_log_entry_encode((mtc_slice){NULL, 0}, &e, entry,
                                       sizeof entry, &n));
        mtc_slice px;
        unsigned type;
        mtc_tbs_entry back;
        ASSERT_OK(mtc_log_entry_parse(entry, n, &px, &type, &back));
        ASSERT_EQ(back.extensions.len, el);
        /* a log takes it, and its certificate verifies end to end */
        mtc_ilog *log = mtc_ilog_new(&F.ca_id, 1, NULL);
        ASSERT_TRUE(log != NULL);
        uint64_t idx;
        ASSERT_OK(mtc_ilog_append(log, (mtc_slice){NULL, 0}, &e, &idx));
        ASSERT_OK(mtc_ilog_checkpoint(log, F.cos, F.n_cos));
        mtc_proof_storage st;
        mtc_proof p;
        ASSERT_OK(mtc_ilog_standalone_proof(log, 0, (mtc_slice){NULL, 0}, &st, &p));
        static uint8_t der[65536];
        size_t len;
        ASSERT_OK(mtc_cert_build(&e, spki, sl, mtc_serial(1, 0), &p, der,
                                 sizeof der, &len));
        mtc_cert c;
        ASSERT_OK(mtc_cert_parse(der, len, &c));
        mtc_rp_ca *rp;
        ASSERT_OK(fx_rp(&F, &rp));
        mtc_rp_ca_clear_subtrees(rp);
        mtc_rp_result r;
        ASSERT_OK(mtc_rp_verify(rp, der, len, -1, &r));
        mtc_rp_ca_free(rp);
        /* a duplicate OID is still refused, however far apart */
        el = many_exts(exts, sizeof exts, counts[t], 3);
        e.extensions = (mtc_slice){exts, el};
        ASSERT_OK(mtc_log_entry_encode((mtc_slice){NULL, 0}, &e, entry,
                                       sizeof entry, &n));
        ASSERT_EQ(mtc_log_entry_parse(entry, n, &px, &type, &back), MTC_ERR_CERT);
        ASSERT_OK(mtc_cert_build(&e, spki, sl, mtc_serial(1, 0), &p, der,
                                 sizeof der, &len));
        ASSERT_EQ(mtc_cert_parse(der, len, &c), MTC_ERR_CERT);
        mtc_ilog_free(log); /* p borrowed its signatures */
    }
}

/* the CA logs (and so signs) only entry types and entry
 * extension types it recognizes. */
TEST(ca_refuses_unrecognized_types)
{
    ASSERT_TRUE(setup());
    mtc_entry_scratch s;
    mtc_tbs_entry e;
    uint8_t spki[64];
    size_t sl;
    ASSERT_EQ(fx_entry(&F, 2, &s, &e, spki, &sl), 0);
    mtc_ilog *log = mtc_ilog_new(&F.ca_id, 1, NULL);
    ASSERT_TRUE(log != NULL);
    static const uint8_t ext7[] = {0, 7, 0, 1, 0x42};
    mtc_slice x7 = {ext7, sizeof ext7};
    uint64_t idx;
    ASSERT_EQ(mtc_ilog_append(log, x7, &e, &idx), MTC_ERR_UNSUPPORTED);
    ASSERT_EQ(mtc_ilog_size(log), 0);
    /* malformed extensions stay malformed */
    static const uint8_t bad[] = {0, 7, 0, 9};
    ASSERT_EQ(mtc_ilog_append(log, (mtc_slice){bad, sizeof bad}, &e, &idx),
              MTC_ERR_CERT);
    /* the same bytes as an encoded entry, and as a null_entry */
    uint8_t entry[4096], null_entry[16];
    size_t n, nn;
    ASSERT_OK(mtc_log_entry_encode(x7, &e, entry, sizeof entry, &n));
    ASSERT_EQ(mtc_ilog_append_entry(log, entry, n, &idx), MTC_ERR_UNSUPPORTED);
    ASSERT_OK(mtc_log_entry_encode_null(x7, null_entry, sizeof null_entry, &nn));
    ASSERT_EQ(mtc_ilog_append_entry(log, null_entry, nn, &idx), MTC_ERR_UNSUPPORTED);
    /* an unknown entry type (2) */
    uint8_t t2[] = {0, 0, 0, 2};
    ASSERT_EQ(mtc_ilog_append_entry(log, t2, sizeof t2, &idx), MTC_ERR_UNSUPPORTED);
    ASSERT_EQ(mtc_ilog_size(log), 0);
    /* A CA that implements extension 7 registers it. */
    ASSERT_OK(mtc_ilog_recognize_ext(log, 7));
    ASSERT_OK(mtc_ilog_append(log, x7, &e, &idx));
    ASSERT_OK(mtc_ilog_append_entry(log, entry, n, &idx));
    ASSERT_OK(mtc_ilog_append_entry(log, null_entry, nn, &idx));
    ASSERT_EQ(idx, 2);
    /* the entry appended from bytes has the leaf hash of those bytes */
    mtc_hash h1, h2;
    mtc_hash_leaf(entry, n, &h1);
    ASSERT_OK(mtc_tree_leaf_hash(mtc_ilog_tree(log), 1, &h2));
    ASSERT_MEM_EQ(h1.b, h2.b, 32);
    ASSERT_EQ(mtc_ilog_recognize_ext(log, 0x10000), MTC_ERR_ARG);
    for (unsigned k = 100; k < 100 + MTC_ILOG_MAX_EXT_TYPES - 1; k++)
        ASSERT_OK(mtc_ilog_recognize_ext(log, k));
    ASSERT_EQ(mtc_ilog_recognize_ext(log, 999), MTC_ERR_LIMIT);
    mtc_ilog_free(log);
}

/* only the current log may be appended to. */
TEST(retired_log_takes_no_entries)
{
    ASSERT_TRUE(setup());
    mtc_ilog *log = mtc_ilog_new(&F.ca_id, 1, NULL);
    ASSERT_TRUE(log != NULL);
    mtc_entry_scratch s;
    mtc_tbs_entry e;
    uint8_t spki[64];
    size_t sl;
    uint64_t idx;
    ASSERT_EQ(fx_entry(&F, 4, &s, &e, spki, &sl), 0);
    ASSERT_TRUE(mtc_ilog_is_current(log));
    ASSERT_OK(mtc_ilog_append(log, (mtc_slice){NULL, 0}, &e, &idx));
    mtc_ilog_retire(log);
    ASSERT_FALSE(mtc_ilog_is_current(log));
    mtc_hash h = {{0}};
    ASSERT_EQ(mtc_ilog_append(log, (mtc_slice){NULL, 0}, &e, &idx),
              MTC_ERR_NOT_CURRENT);
    ASSERT_EQ(mtc_ilog_append_hash(log, &h, &idx), MTC_ERR_NOT_CURRENT);
    uint8_t null_entry[4] = {0, 0, 0, 0};
    ASSERT_EQ(mtc_ilog_append_entry(log, null_entry, 4, &idx), MTC_ERR_NOT_CURRENT);
    ASSERT_EQ(mtc_ilog_size(log), 1);
    /* what was appended is still certified and provable */
    ASSERT_OK(mtc_ilog_checkpoint(log, F.cos, F.n_cos));
    mtc_proof_storage st;
    mtc_proof p;
    ASSERT_OK(mtc_ilog_standalone_proof(log, 0, (mtc_slice){NULL, 0}, &st, &p));
    ASSERT_STR_EQ(mtc_error_name(MTC_ERR_NOT_CURRENT), "MTC_ERR_NOT_CURRENT");
    mtc_ilog_free(log);
}

/* An entry's extensions with one issuerAltName whose value is `ian`. */
static size_t ian_exts(uint8_t *out, size_t cap, const uint8_t *ian, size_t n,
                       int critical)
{
    static const uint8_t oid[] = {0x55, 0x1d, 0x12}, t = 0xff;
    mtc_der_writer w;
    mtc_der_writer_init(&w, out, cap);
    size_t m3 = mtc_der_open(&w, MTC_DER_CONTEXT | MTC_DER_CONSTRUCTED | 3);
    size_t ml = mtc_der_open(&w, MTC_DER_SEQUENCE);
    size_t mx = mtc_der_open(&w, MTC_DER_SEQUENCE);
    mtc_der_prim(&w, MTC_DER_OID, oid, sizeof oid);
    if (critical)
        mtc_der_prim(&w, MTC_DER_BOOLEAN, &t, 1);
    mtc_der_prim(&w, MTC_DER_OCTET_STRING, ian, n);
    mtc_der_close(&w, mx);
    mtc_der_close(&w, ml);
    mtc_der_close(&w, m3);
    return w.len;
}

/* the issuerAltName label rule, enforced by the CA. */
TEST(issuer_alt_name_label)
{
    ASSERT_TRUE(setup());
    /* directoryName [4] { SEQUENCE { SET { SEQUENCE { CN, "Example CA" } } } } */
    static const uint8_t good[] = {
        0x30, 0x19, 0xa4, 0x17, 0x30, 0x15, 0x31, 0x13, 0x30, 0x11, 0x06, 0x03,
        0x55, 0x04, 0x03, 0x0c, 0x0a, 'E', 'x', 'a', 'm', 'p', 'l', 'e', ' ',
        'C', 'A'};
    /* two GeneralNames: the label twice */
    static const uint8_t two[] = {
        0x30, 0x32, 0xa4, 0x17, 0x30, 0x15, 0x31, 0x13, 0x30, 0x11, 0x06, 0x03,
        0x55, 0x04, 0x03, 0x0c, 0x0a, 'E', 'x', 'a', 'm', 'p', 'l', 'e', ' ',
        'C', 'A', 0xa4, 0x17, 0x30, 0x15, 0x31, 0x13, 0x30, 0x11, 0x06, 0x03,
        0x55, 0x04, 0x03, 0x0c, 0x0a, 'E', 'x', 'a', 'm', 'p', 'l', 'e', ' ',
        'C', 'A'};
    /* a dNSName instead of a directoryName */
    static const uint8_t dns[] = {0x30, 0x0c, 0x82, 0x0a, 'c', 'a', '.',
                                  'e',  'x',  'a',  'm',  'p', 'l', 'e'};
    /* one RDN with two AttributeTypeAndValues (CN and O) */
    static const uint8_t multi[] = {
        0x30, 0x21, 0xa4, 0x1f, 0x30, 0x1d, 0x31, 0x1b, 0x30, 0x0b, 0x06, 0x03,
        0x55, 0x04, 0x03, 0x0c, 0x04, 'C', 'A', ' ', '1', 0x30, 0x0c, 0x06,
        0x03, 0x55, 0x04, 0x0a, 0x0c, 0x05, 'O', 'r', 'g', ' ', 'X'};
    struct {
        const uint8_t *v;
        size_t n;
        int critical, want;
    } cases[] = {{good, sizeof good, 0, MTC_OK},
                 {good, sizeof good, 1, MTC_ERR_CERT},
                 {two, sizeof two, 0, MTC_ERR_CERT},
                 {dns, sizeof dns, 0, MTC_ERR_CERT},
                 {multi, sizeof multi, 0, MTC_ERR_CERT}};
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        uint8_t exts[256];
        size_t el = ian_exts(exts, sizeof exts, cases[k].v, cases[k].n,
                             cases[k].critical);
        ASSERT_OK(mtc_der_validate(exts, el));
        ASSERT_EQ(mtc_entry_check_issuer_alt_name((mtc_slice){exts, el}),
                  cases[k].want);
        mtc_entry_scratch s;
        mtc_tbs_entry e;
        uint8_t spki[64];
        size_t sl;
        ASSERT_EQ(fx_entry(&F, 5, &s, &e, spki, &sl), 0);
        e.extensions = (mtc_slice){exts, el};
        mtc_ilog *log = mtc_ilog_new(&F.ca_id, 1, NULL);
        uint64_t idx;
        ASSERT_EQ(mtc_ilog_append(log, (mtc_slice){NULL, 0}, &e, &idx),
                  cases[k].want);
        mtc_ilog_free(log);
    }
    /* no extensions, or none of them an issuerAltName: nothing to check */
    ASSERT_OK(mtc_entry_check_issuer_alt_name((mtc_slice){NULL, 0}));
    mtc_entry_scratch s;
    mtc_tbs_entry e;
    uint8_t spki[64];
    size_t sl;
    ASSERT_EQ(fx_entry(&F, 5, &s, &e, spki, &sl), 0);
    ASSERT_OK(mtc_entry_check_issuer_alt_name(e.extensions));
}

/* the issuance job signs the checkpoint (steps 1 and 4). */
TEST(issuance_job_signs_checkpoints)
{
    ASSERT_TRUE(setup());
    mtc_ilog *log = mtc_ilog_new(&F.ca_id, 1, NULL);
    ASSERT_TRUE(log != NULL);
    mtc_checkpoint ck;
    ASSERT_EQ(mtc_ilog_last_checkpoint(log, &ck), MTC_ERR_RANGE);
    const uint64_t ts[3] = {FX_T0 + 2, FX_T0 + 4, FX_T0 + 6};
    uint64_t size = 0;
    for (int b = 0; b < 3; b++) {
        for (uint64_t i = 0; i < 5 + (uint64_t)b; i++) {
            mtc_entry_scratch s;
            mtc_tbs_entry e;
            uint8_t spki[64];
            size_t sl;
            ASSERT_EQ(fx_entry(&F, size, &s, &e, spki, &sl), 0);
            ASSERT_OK(mtc_ilog_append(log, (mtc_slice){NULL, 0}, &e, NULL));
            size++;
        }
        ASSERT_OK(mtc_ilog_checkpoint_signed(log, F.cos, F.n_cos, ts[b]));
        ASSERT_OK(mtc_ilog_last_checkpoint(log, &ck));
        ASSERT_EQ_U64(ck.size, size);
        ASSERT_EQ_U64(ck.timestamp, ts[b]);
        mtc_hash root;
        ASSERT_OK(mtc_tree_subtree_hash(mtc_ilog_tree(log), 0, size, &root));
        ASSERT_MEM_EQ(ck.root.b, root.b, 32);
        ASSERT_EQ(ck.n_sigs, F.n_cos);
        for (size_t k = 0; k < ck.n_sigs; k++) {
            /* ordered by ID, and each verifies as a timestamped checkpoint */
            if (k)
                ASSERT_TRUE(ck.sigs[k - 1].cosigner_id.len <
                                ck.sigs[k].cosigner_id.len ||
                            memcmp(ck.sigs[k - 1].cosigner_id.p,
                                   ck.sigs[k].cosigner_id.p,
                                   ck.sigs[k].cosigner_id.len) < 0);
            size_t c = 0;
            while (c < F.n_cos &&
                   (F.cos[c].id.len != ck.sigs[k].cosigner_id.len ||
                    memcmp(F.cos[c].id.b, ck.sigs[k].cosigner_id.p, F.cos[c].id.len)))
                c++;
            ASSERT_TRUE(c < F.n_cos);
            uint8_t pk[MTC_SIG_PK_MAX];
            size_t pl;
            mtc_sig_key_public(F.keys[c], pk, &pl);
            ASSERT_OK(mtc_cosig_verify(MTC_SIG_ED25519, pk, pl, &F.cos[c].id,
                                       mtc_ilog_log_id(log), ts[b], 0, size,
                                       &root, ck.sigs[k].signature.p,
                                       ck.sigs[k].signature.len));
            /* not valid for another time or size */
            ASSERT_EQ(mtc_cosig_verify(MTC_SIG_ED25519, pk, pl, &F.cos[c].id,
                                       mtc_ilog_log_id(log), ts[b] + 1, 0, size,
                                       &root, ck.sigs[k].signature.p,
                                       ck.sigs[k].signature.len),
                      MTC_ERR_SIGNATURE);
        }
        /* the subtree signatures certificates carry are unchanged */
        mtc_proof_storage st;
        mtc_proof p;
        ASSERT_OK(mtc_ilog_standalone_proof(log, size - 1, (mtc_slice){NULL, 0},
                                            &st, &p));
        ASSERT_EQ(p.n_sigs, F.n_cos);
    }
    /* timestamp 0 signs no checkpoint; the unsigned form reports none */
    ASSERT_OK(mtc_ilog_append_hash(log, &ck.root, NULL));
    ASSERT_EQ(mtc_ilog_checkpoint_signed(log, F.cos, F.n_cos, 0), MTC_ERR_ARG);
    ASSERT_OK(mtc_ilog_checkpoint(log, F.cos, F.n_cos));
    ASSERT_OK(mtc_ilog_last_checkpoint(log, &ck));
    ASSERT_EQ(ck.n_sigs, 0);
    ASSERT_EQ(ck.timestamp, 0);
    mtc_ilog_free(log);
}

static const test_case tests[] = {
    {"unknown_cosigners_beyond_32_are_ignored", unknown_cosigners_beyond_32_are_ignored},
    {"long_inclusion_proof_fails_evaluation", long_inclusion_proof_fails_evaluation},
    {"more_than_64_extensions", more_than_64_extensions},
    {"ca_refuses_unrecognized_types", ca_refuses_unrecognized_types},
    {"retired_log_takes_no_entries", retired_log_takes_no_entries},
    {"issuer_alt_name_label", issuer_alt_name_label},
    {"issuance_job_signs_checkpoints", issuance_job_signs_checkpoints},
};

TEST_MAIN(tests)
