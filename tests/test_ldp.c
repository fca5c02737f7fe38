/*
 * test_ldp.c - the Landmark Distribution Points extension (mtc/ldp.h):
 * canonical round trips, every mutation and truncation of an encoding
 * refused or decoded to what re-encodes to it, the extension carried in a
 * real certificate and found again, and the request URL.
 */
#include "lib/mtc_fixture.h"
#include "mtc/cert.h"
#include "mtc/entry.h"
#include "mtc/error.h"
#include "mtc/ldp.h"
#include "mtc/staple.h"
#include "test.h"

static mtc_slice S(const char *s)
{
    return (mtc_slice){(const uint8_t *)s, strlen(s)};
}

TEST(round_trip_is_canonical)
{
    mtc_ldp d = {3, {S("http://ldp.a.example/"), S("https://ldp2.a.example/mtc"),
                     S("http://x")}};
    uint8_t buf[1024];
    size_t len = 0, need = 0;
    ASSERT_EQ(mtc_ldp_encode(&d, NULL, 0, &need), MTC_ERR_LIMIT);
    ASSERT_EQ(mtc_ldp_encode(&d, buf, sizeof buf, &len), MTC_OK);
    ASSERT_EQ(len, need);
    /* SEQUENCE header + three [6] elements */
    ASSERT_EQ(len, 2 + (2 + 21) + (2 + 26) + (2 + 8));
    ASSERT_EQ(buf[0], 0x30);
    ASSERT_EQ(buf[2], 0x86);
    mtc_ldp back;
    ASSERT_EQ(mtc_ldp_decode(buf, len, &back), MTC_OK);
    ASSERT_EQ(back.n, 3);
    for (size_t i = 0; i < 3; i++) {
        ASSERT_EQ(back.uri[i].len, d.uri[i].len);
        ASSERT_TRUE(!memcmp(back.uri[i].p, d.uri[i].p, d.uri[i].len));
    }
    uint8_t again[1024];
    size_t l2 = 0;
    ASSERT_EQ(mtc_ldp_encode(&back, again, sizeof again, &l2), MTC_OK);
    ASSERT_EQ(l2, len);
    ASSERT_TRUE(!memcmp(again, buf, len));
    /* a short buffer says how much it needs */
    ASSERT_EQ(mtc_ldp_encode(&d, buf, 10, &l2), MTC_ERR_LIMIT);
    ASSERT_EQ(l2, len);
}

TEST(encoder_refuses_what_the_decoder_would)
{
    uint8_t buf[600];
    size_t len;
    mtc_ldp d = {0, {{NULL, 0}}};
    ASSERT_EQ(mtc_ldp_encode(&d, buf, sizeof buf, &len), MTC_ERR_ARG);
    const char *bad[] = {"ftp://x", "http://", "https://", "http:///path", "http://a b",
                         "HTTP://x", "http://x\x7f", ""};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        d = (mtc_ldp){1, {S(bad[i])}};
        ASSERT_EQ(mtc_ldp_encode(&d, buf, sizeof buf, &len), MTC_ERR_ARG);
    }
    char longu[300];
    memset(longu, 'a', sizeof longu);
    memcpy(longu, "http://", 7);
    d = (mtc_ldp){1, {{(const uint8_t *)longu, 255}}};
    ASSERT_EQ(mtc_ldp_encode(&d, buf, sizeof buf, &len), MTC_OK);
    d.uri[0].len = 256;
    ASSERT_EQ(mtc_ldp_encode(&d, buf, sizeof buf, &len), MTC_ERR_ARG);
    d = (mtc_ldp){MTC_LDP_MAX_URIS + 1, {{NULL, 0}}};
    ASSERT_EQ(mtc_ldp_encode(&d, buf, sizeof buf, &len), MTC_ERR_ARG);
}

TEST(decoder_refuses_other_forms)
{
    mtc_ldp out;
    /* empty SEQUENCE (SIZE 1..MAX) */
    const uint8_t empty[] = {0x30, 0x00};
    ASSERT_EQ(mtc_ldp_decode(empty, sizeof empty, &out), MTC_ERR_CERT);
    /* a dNSName [2] instead of a URI */
    const uint8_t dns[] = {0x30, 0x03, 0x82, 0x01, 'x'};
    ASSERT_EQ(mtc_ldp_decode(dns, sizeof dns, &out), MTC_ERR_CERT);
    /* a constructed [6] */
    const uint8_t cons[] = {0x30, 0x0a, 0xa6, 0x08, 'h', 't', 't', 'p', ':', '/', '/', 'x'};
    ASSERT_EQ(mtc_ldp_decode(cons, sizeof cons, &out), MTC_ERR_CERT);
    /* trailing byte after the SEQUENCE */
    const uint8_t trail[] = {0x30, 0x0a, 0x86, 0x08, 'h', 't', 't', 'p', ':', '/', '/', 'x', 0};
    ASSERT_EQ(mtc_ldp_decode(trail, sizeof trail, &out), MTC_ERR_DER_TRAILING);
    ASSERT_EQ(mtc_ldp_decode(trail, sizeof trail - 1, &out), MTC_OK);
    ASSERT_EQ(out.n, 1);
    /* nine URIs: more than fit */
    uint8_t nine[2 + 9 * 10];
    nine[0] = 0x30;
    nine[1] = 9 * 10;
    for (int i = 0; i < 9; i++)
        memcpy(nine + 2 + 10 * i, "\x86\x08http://x", 10);
    ASSERT_EQ(mtc_ldp_decode(nine, sizeof nine, &out), MTC_ERR_LIMIT);
    ASSERT_EQ(out.n, 0);
}

TEST(every_mutation_and_truncation_is_refused_or_canonical)
{
    mtc_ldp d = {2, {S("http://ldp.le.example/"), S("https://ldp-b.le.example/p")}};
    uint8_t b[256], m[256], again[256];
    size_t len, l2;
    ASSERT_EQ(mtc_ldp_encode(&d, b, sizeof b, &len), MTC_OK);
    static const uint8_t flips[] = {0x01, 0x02, 0x04, 0x08, 0x10, 0x20, 0x40, 0x80, 0xff};
    size_t accepted = 0, tried = 0;
    for (size_t i = 0; i < len; i++)
        for (size_t f = 0; f < sizeof flips; f++) {
            memcpy(m, b, len);
            m[i] ^= flips[f];
            mtc_ldp out;
            tried++;
            if (mtc_ldp_decode(m, len, &out) != MTC_OK) {
                ASSERT_EQ(out.n, 0); /* nothing half-decoded */
                continue;
            }
            accepted++;
            /* accepted only as a canonical encoding of valid URIs: a
             * changed character inside a URI that stays a valid URI */
            ASSERT_EQ(mtc_ldp_encode(&out, again, sizeof again, &l2), MTC_OK);
            ASSERT_EQ(l2, len);
            ASSERT_TRUE(!memcmp(again, m, len));
            ASSERT_TRUE(i >= 4); /* never a tag or a length */
        }
    /* most flips inside the URIs keep them valid; every structural one fails */
    ASSERT_TRUE(accepted > 0 && accepted < tried);
    for (size_t n = 0; n < len; n++) {
        mtc_ldp out;
        ASSERT_TRUE(mtc_ldp_decode(b, n, &out) != MTC_OK);
    }
}

TEST(carried_in_a_certificate_and_found_again)
{
    fx F;
    ASSERT_EQ(fx_init(&F, MTC_SIG_ED25519, 1, 8, 4, 1), 0);
    mtc_entry_scratch s;
    mtc_tbs_entry e;
    uint8_t spki[64];
    size_t sl;
    ASSERT_EQ(fx_entry(&F, 3, &s, &e, spki, &sl), 0);
    mtc_ldp d = {1, {S("http://ldp.ca.example/")}};
    uint8_t exts[1024];
    size_t elen = 0;
    ASSERT_EQ(mtc_ldp_ext_append(e.extensions, &d, exts, sizeof exts, &elen), MTC_OK);
    /* the new [3] element holds the old extensions and one more */
    ASSERT_TRUE(elen > e.extensions.len);
    ASSERT_EQ(mtc_der_validate(exts, elen), MTC_OK);
    size_t vlen;
    ASSERT_EQ(mtc_ldp_encode(&d, NULL, 0, &vlen), MTC_ERR_LIMIT);
    /* SEQUENCE { OID (10), OCTET STRING (2 + vlen) }, and at most one
     * more length octet for each of the two enclosing elements */
    ASSERT_TRUE(elen - e.extensions.len >= 2 + 10 + 2 + vlen);
    ASSERT_TRUE(elen - e.extensions.len <= 2 + 10 + 2 + vlen + 2);
    /* appending twice is refused: one extension per OID */
    uint8_t twice[1024];
    size_t tl;
    ASSERT_EQ(mtc_ldp_ext_append((mtc_slice){exts, elen}, &d, twice, sizeof twice, &tl),
              MTC_ERR_CERT);
    /* an entry with it is a valid log entry, and its certificate names it */
    mtc_tbs_entry e2 = e;
    e2.extensions = (mtc_slice){exts, elen};
    mtc_hash h;
    ASSERT_EQ(mtc_log_entry_leaf_hash((mtc_slice){NULL, 0}, &e2, &h), MTC_OK);
    mtc_proof_storage st;
    mtc_proof p;
    ASSERT_EQ(mtc_ilog_standalone_proof(F.log, 3, (mtc_slice){NULL, 0}, &st, &p), MTC_OK);
    uint8_t cert[8192];
    size_t cl = 0, cl0 = 0;
    ASSERT_EQ(mtc_cert_build(&e2, spki, sl, mtc_serial(1, 3), &p, cert, sizeof cert, &cl),
              MTC_OK);
    mtc_ldp got;
    ASSERT_EQ(mtc_ldp_from_cert(cert, cl, &got), MTC_OK);
    ASSERT_EQ(got.n, 1);
    ASSERT_EQ(got.uri[0].len, d.uri[0].len);
    ASSERT_TRUE(!memcmp(got.uri[0].p, d.uri[0].p, d.uri[0].len));
    /* the same certificate without it: absent, and that much smaller */
    uint8_t plain[8192];
    ASSERT_EQ(mtc_cert_build(&e, spki, sl, mtc_serial(1, 3), &p, plain, sizeof plain, &cl0),
              MTC_OK);
    ASSERT_EQ(mtc_ldp_from_cert(plain, cl0, &got), MTC_ERR_RANGE);
    ASSERT_EQ(cl - cl0, elen - e.extensions.len);
    /* marked critical: refused (the extension is an offer) */
    uint8_t crit[1024];
    /* an extensions element with only the extension, BOOLEAN TRUE */
    mtc_der_writer w;
    mtc_der_writer_init(&w, crit, sizeof crit);
    size_t m3 = mtc_der_open(&w, MTC_DER_CONTEXT | MTC_DER_CONSTRUCTED | 3);
    size_t ml = mtc_der_open(&w, MTC_DER_SEQUENCE);
    size_t me = mtc_der_open(&w, MTC_DER_SEQUENCE);
    mtc_der_prim(&w, MTC_DER_OID, MTC_OID_PE_LDP, MTC_OID_PE_LDP_LEN);
    const uint8_t t = 0xff;
    mtc_der_prim(&w, MTC_DER_BOOLEAN, &t, 1);
    uint8_t v[256];
    ASSERT_EQ(mtc_ldp_encode(&d, v, sizeof v, &vlen), MTC_OK);
    mtc_der_prim(&w, MTC_DER_OCTET_STRING, v, vlen);
    mtc_der_close(&w, me);
    mtc_der_close(&w, ml);
    mtc_der_close(&w, m3);
    ASSERT_EQ(w.err, MTC_OK);
    e2.extensions = (mtc_slice){crit, w.len};
    ASSERT_EQ(mtc_cert_build(&e2, spki, sl, mtc_serial(1, 3), &p, cert, sizeof cert, &cl),
              MTC_OK);
    ASSERT_EQ(mtc_ldp_from_cert(cert, cl, &got), MTC_ERR_CERT);
    /* not a certificate at all */
    ASSERT_TRUE(mtc_ldp_from_cert(cert, cl - 1, &got) != MTC_OK);
    /* a [3] element whose Extension has its OID first but then a NULL
     * with contents (found by fuzz_ldp as a mutated extnValue length):
     * the output would not be DER, so it is refused */
    const uint8_t inner[] = {0xa3, 0x0e, 0x30, 0x0c, 0x30, 0x0a, 0x06, 0x03,
                             0x55, 0x1d, 0x25, 0x05, 0x03, 0x00, 0x00, 0x00};
    ASSERT_TRUE(mtc_der_validate(inner, sizeof inner) != MTC_OK);
    ASSERT_EQ(mtc_ldp_ext_append((mtc_slice){inner, sizeof inner}, &d, twice, sizeof twice, &tl),
              MTC_ERR_CERT);
    /* a malformed [3] element to append to */
    const uint8_t junk[] = {0xa3, 0x02, 0x05, 0x00};
    ASSERT_EQ(mtc_ldp_ext_append((mtc_slice){junk, sizeof junk}, &d, twice, sizeof twice, &tl),
              MTC_ERR_CERT);
    fx_free(&F);
}

TEST(request_names_ca_log_and_landmark)
{
    mtc_taid ca;
    ASSERT_EQ(mtc_taid_from_text("32473.1", 7, &ca), MTC_OK);
    char url[128];
    size_t len = 0;
    ASSERT_EQ(mtc_ldp_request(S("http://ldp.ca.example/"), &ca, 1, 4711, url, sizeof url, &len),
              MTC_OK);
    ASSERT_TRUE(!strcmp(url, "http://ldp.ca.example/32473.1/1/4711"));
    ASSERT_EQ(len, strlen(url));
    ASSERT_EQ(mtc_ldp_request(S("https://l.example/p"), &ca, 2, 7, url, sizeof url, &len),
              MTC_OK);
    ASSERT_TRUE(!strcmp(url, "https://l.example/p/32473.1/2/7"));
    /* a short buffer: the length it needs */
    size_t need = 0;
    ASSERT_EQ(mtc_ldp_request(S("https://l.example/p"), &ca, 2, 7, url, 5, &need),
              MTC_ERR_LIMIT);
    ASSERT_EQ(need, len);
    ASSERT_EQ(mtc_ldp_request(S("ftp://x"), &ca, 2, 7, url, sizeof url, &len), MTC_ERR_ARG);
}

/* ---- the proof set of one landmark ------------------------------------------------- */

/* CA 32473.1 with witnesses .101 and .102 (policy: all); 3 batches of 7
 * entries, a landmark after each. The encoded proof set of landmark L
 * (caller frees). */
static uint8_t *proof_set(fx *f, uint64_t L, size_t *len)
{
    const mtc_landmarks *lm = f->lm;
    mtc_update *u;
    if (mtc_update_from_ilogs(&f->ca_id, &f->log, &lm, 1, &u))
        return NULL;
    mtc_staple s, one;
    mtc_staple_cosig cs[FX_MAX_COSIGNERS];
    mtc_update_subtree subs[2];
    uint8_t *b = NULL;
    if (mtc_staple_from_update(u, 0, &s, cs) == MTC_OK &&
        mtc_staple_landmark(&s, f->lm, L, &one, subs) == MTC_OK &&
        mtc_staple_encode(&one, NULL, 0, len) == MTC_ERR_LIMIT && (b = malloc(*len)) &&
        mtc_staple_encode(&one, b, *len, len) != MTC_OK) {
        free(b);
        b = NULL;
    }
    mtc_update_free(u);
    return b;
}

static int world(fx *f)
{
    uint64_t next;
    return fx_three_landmarks(f, &next);
}

static mtc_rp_ca *empty_rp(fx *f)
{
    mtc_rp_ca *rp = NULL;
    if (fx_rp(f, &rp) != MTC_OK)
        return NULL;
    mtc_rp_ca_clear_subtrees(rp);
    return rp;
}

static int verifies(mtc_rp_ca *rp, fx *f, uint64_t entry)
{
    uint8_t cert[8192];
    size_t cl;
    mtc_rp_result vr;
    if (fx_cert(f, entry, 1, cert, sizeof cert, &cl) != MTC_OK)
        return -1;
    mtc_rp_verify(rp, cert, cl, -1, &vr);
    return vr.reason == MTC_RP_OK;
}

TEST(proof_set_makes_its_landmark_acceptable_and_only_it)
{
    fx F;
    ASSERT_EQ(world(&F), 0);
    size_t len;
    uint8_t *b = proof_set(&F, 2, &len); /* entries 7..13 */
    ASSERT_TRUE(b != NULL);
    mtc_staple *s;
    ASSERT_EQ(mtc_staple_decode(b, len, &s), MTC_OK);
    ASSERT_TRUE(s->n_subtrees >= 1 && s->n_subtrees <= 2);
    /* canonical */
    uint8_t *again = malloc(len);
    size_t l2;
    ASSERT_EQ(mtc_staple_encode(s, again, len, &l2), MTC_OK);
    ASSERT_EQ(l2, len);
    ASSERT_TRUE(!memcmp(again, b, len));
    mtc_rp_ca *rp = empty_rp(&F);
    ASSERT_TRUE(rp != NULL);
    ASSERT_EQ(verifies(rp, &F, 9), 0);
    mtc_update_result res;
    /* as the proof set of another landmark: refused, nothing trusted */
    ASSERT_EQ(mtc_rp_ca_apply_proof_set(rp, s, 3, &res), MTC_ERR_PROOF);
    ASSERT_EQ(res.reason, MTC_UPDATE_SUBTREES);
    ASSERT_EQ(mtc_rp_ca_apply_proof_set(rp, s, 4, &res), MTC_ERR_LANDMARK);
    ASSERT_EQ(mtc_rp_ca_subtree_count(rp), 0);
    ASSERT_EQ(mtc_rp_ca_apply_proof_set(rp, s, 2, &res), MTC_OK);
    ASSERT_EQ(res.n_subtrees, s->n_subtrees);
    ASSERT_EQ(res.valid_cosigs, 3);
    ASSERT_EQ(verifies(rp, &F, 9), 1);
    ASSERT_EQ(verifies(rp, &F, 13), 1);
    ASSERT_EQ(verifies(rp, &F, 3), 0);  /* landmark 1 */
    ASSERT_EQ(verifies(rp, &F, 17), 0); /* landmark 3 */
    /* a second landmark's set is added beside it; the same set again
     * adds nothing */
    size_t len3;
    uint8_t *b3 = proof_set(&F, 3, &len3);
    mtc_staple *s3;
    ASSERT_EQ(mtc_staple_decode(b3, len3, &s3), MTC_OK);
    ASSERT_EQ(mtc_rp_ca_apply_proof_set(rp, s3, 3, &res), MTC_OK);
    ASSERT_EQ(verifies(rp, &F, 17), 1);
    ASSERT_EQ(verifies(rp, &F, 9), 1);
    size_t before = mtc_rp_ca_subtree_count(rp);
    ASSERT_EQ(mtc_rp_ca_apply_proof_set(rp, s3, 3, &res), MTC_OK);
    ASSERT_EQ(res.n_subtrees, 0);
    ASSERT_EQ(mtc_rp_ca_subtree_count(rp), before);
    /* another CA's relying party learns nothing */
    mtc_rp_ca *other = mtc_rp_ca_new(&F.cos[1].id);
    ASSERT_EQ(mtc_rp_ca_apply_proof_set(other, s, 2, &res), MTC_ERR_CONFIG);
    mtc_rp_ca_free(other);
    mtc_staple_free(s3);
    free(b3);
    mtc_staple_free(s);
    mtc_rp_ca_free(rp);
    free(again);
    free(b);
    fx_free(&F);
}

/* What bytes b[0..n) do as landmark 2's proof set: -1 refused with the
 * relying party unchanged; 1 accepted with exactly the subtrees of `real`
 * (the log's own hashes: a mutation of what no check depends on, such as
 * another landmark's line, changes nothing trusted); 0 anything else. */
static int outcome(fx *f, const uint8_t *b, size_t n, const mtc_staple *real)
{
    mtc_staple *s;
    if (mtc_staple_decode(b, n, &s) != MTC_OK)
        return -1;
    mtc_rp_ca *rp = empty_rp(f);
    mtc_update_result res;
    int rc = mtc_rp_ca_apply_proof_set(rp, s, 2, &res), out = 0;
    if (rc != MTC_OK) {
        out = mtc_rp_ca_subtree_count(rp) == 0 &&
                      (rc == MTC_ERR_NOMEM || res.reason != MTC_UPDATE_OK)
                  ? -1
                  : 0;
    } else if (s->n_subtrees == real->n_subtrees &&
               mtc_rp_ca_subtree_count(rp) == real->n_subtrees) {
        out = 1;
        for (size_t i = 0; i < s->n_subtrees; i++)
            out &= s->subtrees[i].start == real->subtrees[i].start &&
                   s->subtrees[i].end == real->subtrees[i].end &&
                   !memcmp(&s->subtrees[i].hash, &real->subtrees[i].hash, sizeof(mtc_hash));
    }
    mtc_rp_ca_free(rp);
    mtc_staple_free(s);
    return out;
}

TEST(every_proof_set_mutation_is_refused_or_harmless)
{
    fx F;
    ASSERT_EQ(world(&F), 0);
    size_t len;
    uint8_t *b = proof_set(&F, 2, &len);
    ASSERT_TRUE(b != NULL);
    mtc_staple *real;
    ASSERT_EQ(mtc_staple_decode(b, len, &real), MTC_OK);
    ASSERT_EQ(outcome(&F, b, len, real), 1);
    uint8_t *m = malloc(len);
    size_t step = test_scale() < 1.0 ? 3 : 1, refused = 0, tried = 0;
    for (size_t i = 0; i < len; i += step)
        for (int f = 0; f < 2; f++) {
            memcpy(m, b, len);
            m[i] ^= f ? 0x80 : 0x01;
            int o = outcome(&F, m, len, real);
            if (o == 0)
                ASSERT_EQ(i, SIZE_MAX); /* names the byte at fault */
            refused += o == -1;
            tried++;
        }
    /* only the landmark text's other lines are without effect */
    ASSERT_TRUE(refused * 10 > tried * 9);
    for (size_t n = 0; n < len; n += step)
        ASSERT_EQ(outcome(&F, b, n, real), -1);
    mtc_staple_free(real);
    free(m);
    free(b);
    fx_free(&F);
}

static const test_case tests[] = {
    {"round_trip_is_canonical", round_trip_is_canonical},
    {"encoder_refuses_what_the_decoder_would", encoder_refuses_what_the_decoder_would},
    {"decoder_refuses_other_forms", decoder_refuses_other_forms},
    {"every_mutation_and_truncation_is_refused_or_canonical",
     every_mutation_and_truncation_is_refused_or_canonical},
    {"carried_in_a_certificate_and_found_again", carried_in_a_certificate_and_found_again},
    {"request_names_ca_log_and_landmark", request_names_ca_log_and_landmark},
    {"proof_set_makes_its_landmark_acceptable_and_only_it",
     proof_set_makes_its_landmark_acceptable_and_only_it},
    {"every_proof_set_mutation_is_refused_or_harmless",
     every_proof_set_mutation_is_refused_or_harmless},
};

TEST_MAIN(tests)
