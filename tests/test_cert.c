/*
 * test_cert.c - MTCProof codec (every rule), certificate build/parse,
 * OpenSSL's reading of our certificates, the single-pass entry hash equal
 * to the two-pass one and to the log's leaf hash, exact size-only builds,
 * and the CA certificate.
 */
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include "lib/mtc_fixture.h"
#include "mtc/error.h"
#include "test.h"

static mtc_hash H[4];
static uint8_t id_a[] = {0x05}, id_b[] = {0x06}, id_c[] = {0x81, 0x00};
static uint8_t sig_a[] = {1, 2, 3}, sig_b[] = {4}, ext[] = {0, 1, 0, 1, 0x42};

static void sample_proof(mtc_proof *p)
{
    memset(p, 0, sizeof *p);
    for (int i = 0; i < 4; i++)
        memset(H[i].b, 0x10 + i, 32);
    p->extensions = (mtc_slice){ext, sizeof ext};
    p->start = 8;
    p->end = 12;
    p->inclusion = H;
    p->n_inclusion = 2;
    p->n_sigs = 3;
    p->sigs[0] = (mtc_subtree_sig){{id_a, 1}, {sig_a, 3}};
    p->sigs[1] = (mtc_subtree_sig){{id_b, 1}, {sig_b, 1}};
    p->sigs[2] = (mtc_subtree_sig){{id_c, 2}, {NULL, 0}};
}

TEST(proof_codec)
{
    mtc_proof p, q;
    sample_proof(&p);
    uint8_t buf[512];
    size_t n;
    ASSERT_OK(mtc_proof_encode(&p, buf, sizeof buf, &n));
    ASSERT_EQ(n, mtc_proof_len(&p));
    ASSERT_EQ(n, 2 + 5 + 12 + 2 + 64 + 2 + (1 + 1 + 2 + 3) + (1 + 1 + 2 + 1) +
                     (1 + 2 + 2));
    /* exact layout of the fixed part */
    static const uint8_t head[] = {0, 5, 0, 1, 0, 1, 0x42, 0, 0, 0, 0, 0, 8,
                                   0, 0, 0, 0, 0, 12, 0, 64};
    ASSERT_MEM_EQ(buf, head, sizeof head);
    ASSERT_OK(mtc_proof_decode(buf, n, &q));
    ASSERT_EQ(q.start, 8);
    ASSERT_EQ(q.end, 12);
    ASSERT_EQ(q.n_inclusion, 2);
    ASSERT_MEM_EQ(q.inclusion[1].b, H[1].b, 32);
    ASSERT_EQ(q.n_sigs, 3);
    ASSERT_EQ(q.sigs[2].cosigner_id.len, 2);
    ASSERT_EQ(q.sigs[0].signature.len, 3);
    ASSERT_EQ(q.extensions.len, 5);
    /* every truncation and any trailing byte fail */
    for (size_t l = 0; l < n; l++)
        ASSERT_EQ(mtc_proof_decode(buf, l, &q), MTC_ERR_CERT);
    buf[n] = 0;
    ASSERT_EQ(mtc_proof_decode(buf, n + 1, &q), MTC_ERR_CERT);
    /* order: swap a and b -> rejected by both sides */
    mtc_subtree_sig tmp = p.sigs[0];
    p.sigs[0] = p.sigs[1];
    p.sigs[1] = tmp;
    ASSERT_EQ(mtc_proof_encode(&p, buf, sizeof buf, &n), MTC_ERR_ARG);
    mtc_proof_sort_sigs(&p);
    ASSERT_TRUE(p.sigs[0].cosigner_id.p == id_a);
    ASSERT_OK(mtc_proof_encode(&p, buf, sizeof buf, &n));
    /* in the bytes: make b's ID equal a's (duplicate), then smaller */
    size_t sig_at = n - (1 + 1 + 2 + 3) - (1 + 1 + 2 + 1) - (1 + 2 + 2);
    ASSERT_EQ(buf[sig_at + 1], 0x05);
    size_t b_at = sig_at + 7;
    ASSERT_EQ(buf[b_at + 1], 0x06);
    buf[b_at + 1] = 0x05;
    ASSERT_EQ(mtc_proof_decode(buf, n, &q), MTC_ERR_CERT);
    buf[b_at + 1] = 0x04;
    ASSERT_EQ(mtc_proof_decode(buf, n, &q), MTC_ERR_CERT);
    buf[b_at + 1] = 0x06;
    ASSERT_OK(mtc_proof_decode(buf, n, &q));
    /* a longer ID after a shorter one is in order even if bytewise smaller */
    ASSERT_TRUE(id_c[0] > id_b[0]);
    /* empty cosigner ID */
    buf[b_at] = 0;
    ASSERT_EQ(mtc_proof_decode(buf, n, &q), MTC_ERR_CERT);
    buf[b_at] = 1;
    /* inclusion length not a multiple of 32 */
    ASSERT_OK(mtc_proof_encode(&p, buf, sizeof buf, &n));
    buf[20] = 63;
    ASSERT_EQ(mtc_proof_decode(buf, n, &q), MTC_ERR_CERT);
    /* unordered entry extensions */
    static const uint8_t bad_ext[] = {0, 2, 0, 0, 0, 1, 0, 0};
    p.extensions = (mtc_slice){bad_ext, sizeof bad_ext};
    ASSERT_OK(mtc_proof_encode(&p, buf, sizeof buf, &n));
    ASSERT_EQ(mtc_proof_decode(buf, n, &q), MTC_ERR_CERT);
    /* 48-bit bounds */
    sample_proof(&p);
    p.end = UINT64_C(1) << 48;
    ASSERT_EQ(mtc_proof_encode(&p, buf, sizeof buf, &n), MTC_ERR_ARG);
    ASSERT_EQ(mtc_proof_encode(&p, NULL, 0, &n), MTC_ERR_ARG);
    p.end = 12;
    ASSERT_EQ(mtc_proof_encode(&p, NULL, 0, &n), MTC_ERR_LIMIT);
    ASSERT_EQ(n, mtc_proof_len(&p));
}

static fx F;
static int fx_ready;

static int setup(void)
{
    if (!fx_ready)
        fx_ready = fx_init(&F, MTC_SIG_ED25519, 2, 100, 7, 3) == 0 ? 1 : -1;
    return fx_ready == 1;
}

TEST(certs_parse_hash_and_openssl)
{
    ASSERT_TRUE(setup());
    for (uint64_t i = 0; i < 100; i++) {
        for (int lr = 0; lr < 2; lr++) {
            uint8_t der[4096];
            size_t n, n0;
            int rc = fx_cert(&F, i, lr, der, sizeof der, &n);
            if (lr && rc == MTC_ERR_RANGE)
                continue; /* after the last landmark */
            ASSERT_OK(rc);
            /* size-only build is exact */
            ASSERT_EQ(fx_cert(&F, i, lr, NULL, 0, &n0), MTC_ERR_LIMIT);
            ASSERT_EQ(n0, n);
            ASSERT_EQ(fx_cert(&F, i, lr, der, n - 1, &n0), MTC_ERR_LIMIT);
            ASSERT_OK(fx_cert(&F, i, lr, der, n, &n0));
            mtc_cert c;
            ASSERT_OK(mtc_cert_parse(der, n, &c));
            ASSERT_OK(c.serial_status);
            ASSERT_EQ_U64(c.serial_num, mtc_serial(1, i));
            ASSERT_EQ(c.version_num, 2);
            mtc_proof p;
            ASSERT_TRUE(c.sig_whole_octets);
            ASSERT_OK(mtc_proof_decode(c.sig_value.p, c.sig_value.len, &p));
            ASSERT_EQ(p.n_sigs, lr ? 0 : 3);
            /* single pass == two pass == the log's leaf hash */
            mtc_hash h1, h2, h3;
            ASSERT_OK(mtc_cert_entry_hash(&c, p.extensions, &h1));
            mtc_tbs_entry e;
            mtc_cert_tbs_entry(&c, &e);
            uint8_t entry[2048];
            size_t el;
            ASSERT_OK(mtc_log_entry_encode(p.extensions, &e, entry, sizeof entry, &el));
            mtc_hash_leaf(entry, el, &h2);
            ASSERT_OK(mtc_tree_leaf_hash(mtc_ilog_tree(F.log), i, &h3));
            ASSERT_MEM_EQ(h1.b, h2.b, 32);
            ASSERT_MEM_EQ(h2.b, h3.b, 32);
            /* OpenSSL reads the same certificate */
            const uint8_t *q = der;
            X509 *x = d2i_X509(NULL, &q, (long)n);
            ASSERT_TRUE(x != NULL);
            ASSERT_TRUE(q == der + n);
            ASSERT_EQ_U64(ASN1_INTEGER_get(X509_get0_serialNumber(x)), c.serial_num);
            uint8_t *pub = NULL;
            int pl = i2d_PUBKEY(X509_get0_pubkey(x), &pub);
            ASSERT_EQ(pl, c.spki.len);
            ASSERT_MEM_EQ(pub, c.spki.p, c.spki.len);
            OPENSSL_free(pub);
            ASSERT_EQ(X509_get_ext_count(x), 3);
            ASSERT_EQ(OBJ_obj2nid(X509_get0_tbs_sigalg(x)->algorithm), NID_undef);
            char txt[64];
            OBJ_obj2txt(txt, sizeof txt, X509_get0_tbs_sigalg(x)->algorithm, 1);
            ASSERT_STR_EQ(txt, "1.3.6.1.4.1.44363.47.0");
            X509_free(x);
        }
    }
}

TEST(entry_extensions_and_size)
{
    ASSERT_TRUE(setup());
    mtc_entry_scratch s;
    mtc_tbs_entry e;
    uint8_t spki[64];
    size_t sl;
    ASSERT_EQ(fx_entry(&F, 3, &s, &e, spki, &sl), 0);
    mtc_proof p;
    sample_proof(&p);
    uint8_t der[4096];
    size_t n;
    ASSERT_OK(mtc_cert_build(&e, spki, sl, mtc_serial(1, 3), &p, der, sizeof der, &n));
    mtc_cert c;
    ASSERT_OK(mtc_cert_parse(der, n, &c));
    mtc_proof q;
    ASSERT_OK(mtc_proof_decode(c.sig_value.p, c.sig_value.len, &q));
    mtc_hash h1, h2;
    ASSERT_OK(mtc_cert_entry_hash(&c, q.extensions, &h1));
    ASSERT_OK(mtc_log_entry_leaf_hash((mtc_slice){ext, sizeof ext}, &e, &h2));
    ASSERT_MEM_EQ(h1.b, h2.b, 32);
    /* wrong key for the entry */
    spki[sl - 1] ^= 1;
    ASSERT_EQ(mtc_cert_build(&e, spki, sl, 1, &p, der, sizeof der, &n), MTC_ERR_ARG);
    /* an entry too large for a log is refused by the single-pass hash */
    static uint8_t big[65500];
    big[0] = 0; big[1] = 9; big[2] = (uint8_t)((sizeof big - 4) >> 8);
    big[3] = (uint8_t)(sizeof big - 4);
    ASSERT_EQ(mtc_cert_entry_hash(&c, (mtc_slice){big, sizeof big}, &h1), MTC_ERR_LIMIT);
}

/* DER length of an element with n content bytes (tag, length, content). */
static size_t der_len(size_t n)
{
    return 1 + (n < 0x80 ? 1 : n < 0x100 ? 2 : n < 0x10000 ? 3 : 4) + n;
}

/* A standalone certificate with k cosignatures in closed form, from the
 * draft's "Certificate Format": MTCProof = extensions<0..2^16-1> (2 +
 * body) + start and end (uint48 each) + inclusion_proof<0..2^16-1> (2 +
 * 32 per hash) + signatures<0..2^16-1> (2 + per SubtreeSignature: 1 + ID
 * + 2 + signature); the certificate = SEQUENCE { TBSCertificate,
 * AlgorithmIdentifier, BIT STRING (an unused-bits byte + the MTCProof) }.
 * With the simulator's IDs (CA 32473.1, witnesses 32473.9999.N: 4 and 6
 * bytes) and ML-DSA-44 signatures (2,420 bytes), for k = 0..4 and 0..20
 * inclusion hashes. Round trip: the certificate parses, its proof decodes
 * to the same signatures in the same order. Mutations: two cosignatures
 * swapped, or one duplicated, are refused by the decoder (the draft's
 * ordering rule); a byte cut from the signature vector, too. */
TEST(standalone_bytes_closed_form)
{
    ASSERT_TRUE(setup());
    mtc_entry_scratch s;
    mtc_tbs_entry e;
    uint8_t spki[64];
    size_t sl;
    ASSERT_EQ(fx_entry(&F, 3, &s, &e, spki, &sl), 0);
    static uint8_t sig[5][2420];
    mtc_taid id[5];
    ASSERT_OK(mtc_taid_from_text("32473.1", 7, &id[0]));
    for (int w = 1; w < 5; w++) {
        char t[32];
        int n = snprintf(t, sizeof t, "32473.9999.%d", w);
        ASSERT_OK(mtc_taid_from_text(t, (size_t)n, &id[w]));
        ASSERT_EQ(id[w].len, 6);
        memset(sig[w], w, sizeof sig[w]);
    }
    ASSERT_EQ(id[0].len, 4);
    memset(sig[0], 0xca, sizeof sig[0]);
    static mtc_hash hs[20];
    for (int i = 0; i < 20; i++)
        memset(hs[i].b, i, 32);
    static uint8_t der[32768], enc[16384];
    for (size_t nh = 0; nh <= 20; nh += 10)
        for (size_t k = 0; k <= 4; k++) {
            mtc_proof p;
            memset(&p, 0, sizeof p);
            p.extensions = (mtc_slice){ext, sizeof ext};
            p.start = 1024;
            p.end = 1024 + ((uint64_t)1 << nh);
            p.inclusion = hs;
            p.n_inclusion = nh;
            p.n_sigs = k + 1; /* the CA's and k witnesses' */
            size_t sigs_body = 0;
            for (size_t j = 0; j <= k; j++) {
                p.sigs[j] = (mtc_subtree_sig){{id[j].b, id[j].len}, {sig[j], 2420}};
                sigs_body += 1 + id[j].len + 2 + 2420;
            }
            mtc_proof_sort_sigs(&p);
            size_t want_proof = 2 + sizeof ext + 6 + 6 + 2 + 32 * nh + 2 + sigs_body;
            ASSERT_EQ(mtc_proof_len(&p), want_proof);
            size_t n;
            ASSERT_OK(mtc_cert_build(&e, spki, sl, mtc_serial(1, 3), &p, der, sizeof der, &n));
            mtc_cert c;
            ASSERT_OK(mtc_cert_parse(der, n, &c));
            size_t want = der_len(c.tbs.len + c.sig_alg.len + der_len(1 + want_proof));
            ASSERT_EQ(n, want);
            mtc_proof q;
            ASSERT_OK(mtc_proof_decode(c.sig_value.p, c.sig_value.len, &q));
            ASSERT_EQ(q.n_sigs_total, k + 1);
            size_t cur = 0, j = 0;
            mtc_subtree_sig o;
            while (mtc_proof_sig_next(&q, &cur, &o)) {
                ASSERT_EQ(o.cosigner_id.len, p.sigs[j].cosigner_id.len);
                ASSERT_MEM_EQ(o.cosigner_id.p, p.sigs[j].cosigner_id.p, o.cosigner_id.len);
                ASSERT_EQ(o.signature.len, 2420);
                ASSERT_MEM_EQ(o.signature.p, p.sigs[j].signature.p, 2420);
                j++;
            }
            ASSERT_EQ(j, k + 1);
            if (k >= 2) {
                /* the last two (same-length witness IDs) swapped, then the
                 * last duplicated: both refused by the ordering rule */
                size_t el;
                ASSERT_OK(mtc_proof_encode(&p, enc, sizeof enc, &el));
                size_t one = 1 + 6 + 2 + 2420, tail = el - 2 * one;
                static uint8_t tmp[1 + 6 + 2 + 2420];
                memcpy(tmp, enc + tail, one);
                memcpy(enc + tail, enc + tail + one, one);
                memcpy(enc + tail + one, tmp, one);
                ASSERT_EQ(mtc_proof_decode(enc, el, &q), MTC_ERR_CERT);
                memcpy(enc + tail, enc + tail + one, one);
                ASSERT_EQ(mtc_proof_decode(enc, el, &q), MTC_ERR_CERT);
                ASSERT_OK(mtc_proof_encode(&p, enc, sizeof enc, &el));
                ASSERT_EQ(mtc_proof_decode(enc, el - 1, &q), MTC_ERR_CERT);
            }
        }
}

TEST(ca_certificate)
{
    ASSERT_TRUE(setup());
    mtc_ca_params ca;
    ASSERT_OK(mtc_ca_cert_parse(F.ca_cert, F.ca_cert_len, &ca));
    ASSERT_TRUE(mtc_taid_equal(&ca.ca_id, &F.ca_id));
    ASSERT_EQ(ca.alg, MTC_SIG_ED25519);
    ASSERT_EQ_U64(ca.min_serial, UINT64_C(1) << 48);
    ASSERT_EQ_U64(ca.max_serial, (UINT64_C(2) << 48) - 1);
    uint8_t pk[32];
    size_t pl;
    mtc_sig_key_public(F.keys[0], pk, &pl);
    ASSERT_EQ(ca.pk_len, 32);
    ASSERT_MEM_EQ(ca.pk, pk, 32);
    const uint8_t *q = F.ca_cert;
    X509 *x = d2i_X509(NULL, &q, (long)F.ca_cert_len);
    ASSERT_TRUE(x != NULL);
    ASSERT_EQ(X509_check_ca(x), 1);
    int idx = X509_get_ext_by_NID(x, NID_key_usage, -1);
    ASSERT_TRUE(idx >= 0);
    ASSERT_TRUE(X509_get_key_usage(x) & KU_KEY_CERT_SIGN);
    const ASN1_OCTET_STRING *ski = X509_get0_subject_key_id(x);
    ASSERT_TRUE(ski != NULL);
    ASSERT_EQ(ASN1_STRING_length(ski), F.ca_id.len);
    ASSERT_MEM_EQ(ASN1_STRING_get0_data(ski), F.ca_id.b, F.ca_id.len);
    /* the MTC extension is critical */
    int found = 0;
    for (int i = 0; i < X509_get_ext_count(x); i++) {
        X509_EXTENSION *ex = X509_get_ext(x, i);
        char txt[64];
        OBJ_obj2txt(txt, sizeof txt, X509_EXTENSION_get_object(ex), 1);
        if (!strcmp(txt, "1.3.6.1.4.1.44363.47.2")) {
            found = 1;
            ASSERT_EQ(X509_EXTENSION_get_critical(ex), 1);
        }
    }
    ASSERT_TRUE(found);
    X509_free(x);
    /* Targeted violations are rejected. */
    uint8_t buf[4096];
    static const uint8_t sha256_oid[] = {0x06, 0x09, 0x60, 0x86, 0x48, 0x01,
                                         0x65, 0x03, 0x04, 0x02, 0x01};
    static const uint8_t mtc_ext[] = {0x06, 0x0a, 0x2b, 0x06, 0x01, 0x04, 0x01,
                                      0x82, 0xda, 0x4b, 0x2f, 0x02, 0x01, 0x01, 0xff};
    size_t at_hash = 0, at_crit = 0;
    for (size_t i = 0; i + sizeof mtc_ext <= F.ca_cert_len; i++) {
        if (!memcmp(F.ca_cert + i, sha256_oid, sizeof sha256_oid))
            at_hash = i + sizeof sha256_oid - 1;
        if (!memcmp(F.ca_cert + i, mtc_ext, sizeof mtc_ext))
            at_crit = i + sizeof mtc_ext - 1;
    }
    ASSERT_TRUE(at_hash && at_crit);
    mtc_ca_params b;
    memcpy(buf, F.ca_cert, F.ca_cert_len);
    buf[at_hash] = 0x02; /* sha384 */
    ASSERT_EQ(mtc_ca_cert_parse(buf, F.ca_cert_len, &b), MTC_ERR_UNSUPPORTED);
    memcpy(buf, F.ca_cert, F.ca_cert_len);
    buf[at_crit] = 0x00; /* critical FALSE: not DER, and not critical */
    ASSERT_TRUE(mtc_ca_cert_parse(buf, F.ca_cert_len, &b) != MTC_OK);
    memcpy(buf, F.ca_cert, F.ca_cert_len);
    buf[at_crit - 3] ^= 1; /* another extension OID: the MTC one is missing */
    ASSERT_EQ(mtc_ca_cert_parse(buf, F.ca_cert_len, &b), MTC_ERR_CERT);
    for (size_t l = 0; l < F.ca_cert_len; l++)
        ASSERT_TRUE(mtc_ca_cert_parse(F.ca_cert, l, &b) != MTC_OK);
    /* min > max refused */
    mtc_ca_params bad = ca;
    bad.min_serial = 5;
    bad.max_serial = 4;
    size_t n;
    ASSERT_EQ(mtc_ca_cert_build(&bad, buf, sizeof buf, &n), MTC_ERR_ARG);
}

static const test_case tests[] = {
    {"proof_codec", proof_codec},
    {"certs_parse_hash_and_openssl", certs_parse_hash_and_openssl},
    {"entry_extensions_and_size", entry_extensions_and_size},
    {"standalone_bytes_closed_form", standalone_bytes_closed_form},
    {"ca_certificate", ca_certificate},
};

TEST_MAIN(tests)
