/*
 * test_chain.c - the chain profiles (mtc/chain.h): OpenSSL parses every
 * certificate of every profile, each certificate's signature verifies with
 * the next one's key and the next one is its issuer, the leaf carries the
 * profile's SAN and SCT counts and key type; bytes are deterministic; the
 * overrides change only what they name; the verification list; the MTC
 * leaf fields; argument errors.
 */
#include <string.h>

#include <openssl/ct.h>
#include <openssl/evp.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include "lib/chain_mix_sizes.h"
#include "mtc/chain.h"
#include "mtc/error.h"
#include "test.h"

#define NB 1767225600 /* 2026-01-01 */

static X509 *cert_at(const mtc_chain *c, size_t i)
{
    const uint8_t *p = c->buf + c->off[i];
    X509 *x = d2i_X509(NULL, &p, (long)c->len[i]);
    if (x && p != c->buf + c->off[i] + c->len[i]) {
        X509_free(x);
        return NULL; /* trailing bytes */
    }
    return x;
}

static int key_matches(EVP_PKEY *k, mtc_chain_alg a)
{
    switch (a) {
    case MTC_CHAIN_ALG_ECDSA_P256: return EVP_PKEY_is_a(k, "EC") && EVP_PKEY_get_bits(k) == 256;
    case MTC_CHAIN_ALG_ECDSA_P384: return EVP_PKEY_is_a(k, "EC") && EVP_PKEY_get_bits(k) == 384;
    case MTC_CHAIN_ALG_RSA2048: return EVP_PKEY_is_a(k, "RSA") && EVP_PKEY_get_bits(k) == 2048;
    case MTC_CHAIN_ALG_RSA4096: return EVP_PKEY_is_a(k, "RSA") && EVP_PKEY_get_bits(k) == 4096;
    case MTC_CHAIN_ALG_ED25519: return EVP_PKEY_is_a(k, "ED25519");
    default: return 0;
    }
}

TEST(every_profile_checks_out_in_openssl)
{
    size_t n;
    const mtc_chain_profile *p = mtc_chain_profiles(&n);
    ASSERT_TRUE(n >= 10);
    mtc_chain *c = malloc(sizeof *c);
    ASSERT_TRUE(c != NULL);
    for (size_t i = 0; i < n; i++) {
        mtc_chain_opts o = {"www.example.org", NB, 7 * 86400, 0, 0, 0};
        ASSERT_OK(mtc_chain_build(&p[i], &o, c));
        size_t want = 2 + (p[i].cross_key != 0) + (p[i].cross2_key != 0) + (p[i].send_root != 0);
        ASSERT_EQ(c->ncerts, want);
        X509 *x[MTC_CHAIN_CERTS_MAX] = {0};
        for (size_t k = 0; k < c->ncerts; k++) {
            x[k] = cert_at(c, k);
            if (!x[k])
                TEST_FAIL_("%s: certificate %zu does not parse", p[i].name, k);
        }
        for (size_t k = 0; k + 1 < c->ncerts; k++) {
            if (X509_check_issued(x[k + 1], x[k]) != X509_V_OK)
                TEST_FAIL_("%s: certificate %zu is not issued by %zu", p[i].name, k, k + 1);
            if (X509_verify(x[k], X509_get0_pubkey(x[k + 1])) != 1)
                TEST_FAIL_("%s: signature of certificate %zu does not verify", p[i].name, k);
        }
        ASSERT_TRUE(key_matches(X509_get0_pubkey(x[0]), p[i].leaf_key));
        ASSERT_TRUE(key_matches(X509_get0_pubkey(x[1]), p[i].issuer_key));
        if (c->ncerts > 2)
            ASSERT_TRUE(key_matches(X509_get0_pubkey(x[2]), p[i].root_key));
        if (c->ncerts > 3)
            ASSERT_TRUE(key_matches(X509_get0_pubkey(x[3]), p[i].cross_key));
        /* a root sent: the last certificate is self-signed, and by the
         * key that signed the one before it */
        if (p[i].send_root) {
            X509 *r = x[c->ncerts - 1];
            ASSERT_EQ(X509_check_issued(r, r), X509_V_OK);
            ASSERT_EQ(X509_verify(r, X509_get0_pubkey(r)), 1);
        }
        GENERAL_NAMES *san = X509_get_ext_d2i(x[0], NID_subject_alt_name, NULL, NULL);
        ASSERT_TRUE(san != NULL);
        ASSERT_EQ(sk_GENERAL_NAME_num(san), p[i].sans);
        GENERAL_NAMES_free(san);
        if (p[i].scts == 0) {
            /* no SCTs: no SCT list extension (an empty list is malformed) */
            ASSERT_TRUE(X509_get_ext_by_NID(x[0], NID_ct_precert_scts, -1) < 0);
            ASSERT_EQ(c->sct_list_len, 0);
        } else {
            STACK_OF(SCT) *scts = X509_get_ext_d2i(x[0], NID_ct_precert_scts, NULL, NULL);
            ASSERT_TRUE(scts != NULL);
            ASSERT_EQ(sk_SCT_num(scts), p[i].scts);
            SCT_LIST_free(scts);
        }
        /* the leaf is an end entity, the others CAs */
        ASSERT_EQ(X509_check_ca(x[0]), 0);
        for (size_t k = 1; k < c->ncerts; k++)
            ASSERT_TRUE(X509_check_ca(x[k]) >= 1);
        ASSERT_TRUE(X509_get_ext_by_NID(x[0], NID_crl_distribution_points, -1) >= 0 ||
                    !*p[i].crl_url);
        ASSERT_TRUE(X509_get_ext_by_NID(x[0], NID_certificate_policies, -1) >= 0);
        ASSERT_TRUE(X509_get_ext_by_NID(x[0], NID_info_access, -1) >= 0);
        for (size_t k = 0; k < c->ncerts; k++)
            X509_free(x[k]);
        ASSERT_TRUE(c->handshake_sig_len > 0);
    }
    free(c);
}

TEST(deterministic_bytes)
{
    mtc_chain *a = malloc(sizeof *a), *b = malloc(sizeof *b);
    ASSERT_TRUE(a && b);
    size_t n;
    const mtc_chain_profile *p = mtc_chain_profiles(&n);
    for (size_t i = 0; i < n; i++) {
        mtc_chain_opts o = {"s1.example.com", NB, 86400, 0, 0, 0};
        ASSERT_OK(mtc_chain_build(&p[i], &o, a));
        ASSERT_OK(mtc_chain_build(&p[i], &o, b));
        ASSERT_EQ(mtc_chain_der_len(a), mtc_chain_der_len(b));
        ASSERT_MEM_EQ(a->buf, b->buf, mtc_chain_der_len(a));
        /* another name of the same length: other bytes, the same length
         * but for ECDSA signatures, whose DER varies by a byte or two */
        mtc_chain_opts o2 = {"s2.example.com", NB, 86400, 0, 0, 0};
        ASSERT_OK(mtc_chain_build(&p[i], &o2, b));
        long d = (long)mtc_chain_der_len(a) - (long)mtc_chain_der_len(b);
        ASSERT_TRUE(d >= -4 && d <= 4);
        ASSERT_TRUE(memcmp(a->buf, b->buf, a->len[0]) != 0);
    }
    free(a);
    free(b);
}

TEST(overrides_change_what_they_name)
{
    mtc_chain *a = malloc(sizeof *a), *b = malloc(sizeof *b);
    ASSERT_TRUE(a && b);
    const mtc_chain_profile *p = mtc_chain_profile_by_name("le-ecdsa-cross");
    ASSERT_TRUE(p != NULL);
    mtc_chain_opts o = {"example.net", NB, 86400, 0, 0, 0};
    ASSERT_OK(mtc_chain_build(p, &o, a));
    /* the site's own key in the leaf: only the leaf's SPKI (and what
     * depends on it: key usage is the same for P-256 and Ed25519) moves */
    o.leaf_alg = MTC_CHAIN_ALG_ED25519;
    ASSERT_OK(mtc_chain_build(p, &o, b));
    ASSERT_EQ(b->ncerts, a->ncerts);
    /* P-256 vs Ed25519 SPKI, give or take the P-384 signature's DER byte */
    long d = (long)a->len[0] - (long)b->len[0] - (91 - 44);
    ASSERT_TRUE(d >= -2 && d <= 2);
    for (size_t k = 1; k < a->ncerts; k++)
        ASSERT_EQ(a->len[k], b->len[k]);
    ASSERT_EQ(b->handshake_sig_len, 64);
    X509 *x = cert_at(b, 0);
    ASSERT_TRUE(x != NULL);
    ASSERT_TRUE(key_matches(X509_get0_pubkey(x), MTC_CHAIN_ALG_ED25519));
    X509_free(x);
    /* post-quantum: every CA and log key ML-DSA-44, cross-signs dropped */
    o.ca_alg = MTC_CHAIN_ALG_MLDSA44;
    o.drop_cross = 1;
    ASSERT_OK(mtc_chain_build(p, &o, b));
    ASSERT_EQ(b->ncerts, 2);
    /* the leaf: an ML-DSA-44 signature (2,420) instead of P-384 (~103) and
     * two SCT signatures of 2,420 instead of ~71 */
    ASSERT_TRUE(b->len[0] > a->len[0] + 3 * 2300);
    ASSERT_TRUE(b->len[1] > 2420 + 1312);
    mtc_chain_verif v[MTC_CHAIN_VERIF_MAX];
    size_t nv = mtc_chain_verifications(p, &o, v);
    ASSERT_EQ(nv, b->nverif);
    for (size_t i = 0; i + 1 < nv; i++)
        ASSERT_EQ(v[i].alg, MTC_CHAIN_ALG_MLDSA44);
    ASSERT_EQ(v[nv - 1].alg, MTC_CHAIN_ALG_ED25519);
    free(a);
    free(b);
}

TEST(verification_list)
{
    const mtc_chain_profile *p = mtc_chain_profile_by_name("le-ecdsa-cross");
    mtc_chain_verif v[MTC_CHAIN_VERIF_MAX];
    size_t n = mtc_chain_verifications(p, NULL, v);
    ASSERT_EQ(n, 6);
    ASSERT_EQ(v[0].role, MTC_CHAIN_V_LEAF);
    ASSERT_EQ(v[0].alg, MTC_CHAIN_ALG_ECDSA_P384);
    ASSERT_EQ(v[1].role, MTC_CHAIN_V_INTERMEDIATE);
    ASSERT_EQ(v[1].alg, MTC_CHAIN_ALG_ECDSA_P384);
    ASSERT_EQ(v[2].role, MTC_CHAIN_V_CROSS);
    ASSERT_EQ(v[2].alg, MTC_CHAIN_ALG_RSA4096);
    ASSERT_EQ(v[2].flags, MTC_CHAIN_V_IF_NO_NEW_ROOT);
    ASSERT_EQ(v[3].role, MTC_CHAIN_V_SCT);
    ASSERT_EQ(v[4].role, MTC_CHAIN_V_SCT);
    ASSERT_EQ(v[4].alg, MTC_CHAIN_ALG_ECDSA_P256);
    ASSERT_EQ(v[5].role, MTC_CHAIN_V_HANDSHAKE);
    ASSERT_EQ(v[5].alg, MTC_CHAIN_ALG_ECDSA_P256);
    p = mtc_chain_profile_by_name("amazon-rsa-cross2");
    n = mtc_chain_verifications(p, NULL, v);
    ASSERT_EQ(n, 8); /* leaf, intermediate, two cross-signs, 3 SCTs, CV */
    ASSERT_EQ(v[7].alg, MTC_CHAIN_ALG_RSA2048);
    /* every profile: one SCT verification per SCT, the rest as built */
    size_t np;
    const mtc_chain_profile *all = mtc_chain_profiles(&np);
    for (size_t i = 0; i < np; i++) {
        n = mtc_chain_verifications(&all[i], NULL, v);
        size_t scts = 0;
        for (size_t k = 0; k < n; k++)
            scts += v[k].role == MTC_CHAIN_V_SCT;
        ASSERT_EQ(scts, all[i].scts);
        ASSERT_EQ(n, 3 + all[i].scts + (all[i].cross_key != 0) + (all[i].cross2_key != 0));
    }
}

/* The private (enterprise) profile: two certificates (the root is not
 * sent), no SCTs, no OCSP; the post-quantum version (every CA key
 * ML-DSA-44 around an ML-DSA-44 leaf) in closed form from its parts:
 * the leaf carries one ML-DSA-44 signature (by the issuing CA) and an
 * ML-DSA-44 key, the issuing CA's certificate one signature and one key;
 * a client verifies two signatures and the CertificateVerify. */
TEST(private_profile)
{
    const mtc_chain_profile *p = mtc_chain_profile_by_name("private");
    ASSERT_TRUE(p != NULL);
    ASSERT_EQ(p->scts, 0);
    ASSERT_EQ(p->ocsp, 0);
    ASSERT_EQ(p->cross_key, MTC_CHAIN_ALG_NONE);
    mtc_chain *a = malloc(sizeof *a), *b = malloc(sizeof *b);
    ASSERT_TRUE(a && b);
    mtc_chain_opts o = {"vpn.corp.example", NB, 7 * 86400, 0, 0, 0};
    ASSERT_OK(mtc_chain_build(p, &o, a));
    ASSERT_EQ(a->ncerts, 2);
    X509 *x = cert_at(a, 0);
    ASSERT_TRUE(x != NULL);
    /* AIA names the issuer certificate only: no OCSP responder */
    AUTHORITY_INFO_ACCESS *aia = X509_get_ext_d2i(x, NID_info_access, NULL, NULL);
    ASSERT_TRUE(aia != NULL);
    ASSERT_EQ(sk_ACCESS_DESCRIPTION_num(aia), 1);
    ASSERT_EQ(OBJ_obj2nid(sk_ACCESS_DESCRIPTION_value(aia, 0)->method), NID_ad_ca_issuers);
    AUTHORITY_INFO_ACCESS_free(aia);
    X509_free(x);
    o.leaf_alg = MTC_CHAIN_ALG_MLDSA44;
    o.ca_alg = MTC_CHAIN_ALG_MLDSA44;
    o.drop_cross = 1;
    ASSERT_OK(mtc_chain_build(p, &o, b));
    ASSERT_EQ(b->ncerts, 2);
    ASSERT_EQ(b->sct_list_len, 0);
    ASSERT_EQ(b->handshake_sig_len, 2420);
    /* a signature and a key each, plus the DER around them: ML-DSA-44's
     * 2,420 + 1,312 bytes (BIT STRING and SPKI overhead below 40 bytes) */
    for (size_t k = 0; k < 2; k++) {
        ASSERT_TRUE(b->len[k] > 2420 + 1312);
        ASSERT_TRUE(b->len[k] < 2420 + 1312 + 1000);
    }
    mtc_chain_verif v[MTC_CHAIN_VERIF_MAX];
    size_t nv = mtc_chain_verifications(p, &o, v);
    ASSERT_EQ(nv, 3);
    ASSERT_EQ(v[0].role, MTC_CHAIN_V_LEAF);
    ASSERT_EQ(v[1].role, MTC_CHAIN_V_INTERMEDIATE);
    ASSERT_EQ(v[2].role, MTC_CHAIN_V_HANDSHAKE);
    for (size_t k = 0; k < nv; k++)
        ASSERT_EQ(v[k].alg, MTC_CHAIN_ALG_MLDSA44);
    /* the same profile at ML-DSA-65: each certificate grows by exactly
     * the signature's and the key's difference (3,309 - 2,420 and
     * 1,952 - 1,312), give or take DER length bytes */
    mtc_chain_opts o65 = o;
    o65.leaf_alg = MTC_CHAIN_ALG_MLDSA65;
    o65.ca_alg = MTC_CHAIN_ALG_MLDSA65;
    ASSERT_OK(mtc_chain_build(p, &o65, a));
    for (size_t k = 0; k < 2; k++) {
        long d = (long)a->len[k] - (long)b->len[k] - (3309 - 2420) - (1952 - 1312);
        ASSERT_TRUE(d >= -8 && d <= 8);
    }
    ASSERT_EQ(a->handshake_sig_len, 3309);
    free(a);
    free(b);
}

static int contains(const uint8_t *h, size_t hl, const uint8_t *n, size_t nl)
{
    for (size_t i = 0; i + nl <= hl; i++)
        if (!memcmp(h + i, n, nl))
            return 1;
    return 0;
}

TEST(mtc_leaf_fields)
{
    const mtc_chain_profile *p = mtc_chain_profile_by_name("digicert-rsa-ov");
    uint8_t subj[512], ext[4096];
    size_t sl, el;
    ASSERT_OK(mtc_chain_mtc_leaf_fields(p, "example.com", MTC_CHAIN_ALG_ED25519, subj,
                                        sizeof subj, &sl, ext, sizeof ext, &el));
    /* OV subject: C, ST, L, O, CN */
    static const uint8_t oid_o[] = {0x06, 0x03, 0x55, 0x04, 0x0a};
    ASSERT_TRUE(contains(subj, sl, oid_o, sizeof oid_o));
    static const uint8_t oid_san[] = {0x06, 0x03, 0x55, 0x1d, 0x11};
    static const uint8_t oid_sct[] = {0x06, 0x0a, 0x2b, 0x06, 0x01, 0x04, 0x01, 0xd6, 0x79};
    static const uint8_t oid_aki[] = {0x06, 0x03, 0x55, 0x1d, 0x23};
    static const uint8_t oid_cp[] = {0x06, 0x03, 0x55, 0x1d, 0x20};
    ASSERT_TRUE(contains(ext, el, oid_san, sizeof oid_san));
    ASSERT_TRUE(contains(ext, el, oid_cp, sizeof oid_cp));
    ASSERT_FALSE(contains(ext, el, oid_sct, sizeof oid_sct));
    ASSERT_FALSE(contains(ext, el, oid_aki, sizeof oid_aki));
    /* all ten names are there */
    ASSERT_TRUE(contains(ext, el, (const uint8_t *)"h9.example.com", 14));
    ASSERT_EQ(ext[0], 0xa3);
    /* short buffers are an error, not a truncation */
    ASSERT_EQ(mtc_chain_mtc_leaf_fields(p, "example.com", 0, subj, sizeof subj, &sl, ext,
                                        16, &el),
              MTC_ERR_LIMIT);
}

TEST(argument_errors)
{
    mtc_chain *c = malloc(sizeof *c);
    ASSERT_TRUE(c != NULL);
    const mtc_chain_profile *p = mtc_chain_profile_by_name("le-rsa");
    mtc_chain_opts o = {NULL, NB, 86400, 0, 0, 0};
    ASSERT_EQ(mtc_chain_build(p, &o, c), MTC_ERR_ARG);
    o.dns_name = "";
    ASSERT_EQ(mtc_chain_build(p, &o, c), MTC_ERR_ARG);
    o.dns_name = "a.example";
    o.lifetime = 0;
    ASSERT_EQ(mtc_chain_build(p, &o, c), MTC_ERR_ARG);
    o.lifetime = 86400;
    o.not_before = 0; /* the CA certificates would start before 1970 */
    ASSERT_EQ(mtc_chain_build(p, &o, c), MTC_ERR_ARG);
    o.not_before = NB;
    o.leaf_alg = MTC_CHAIN_ALG_COUNT;
    ASSERT_EQ(mtc_chain_build(p, &o, c), MTC_ERR_UNSUPPORTED);
    ASSERT_EQ(c->ncerts, 0);
    ASSERT_TRUE(mtc_chain_profile_by_name("no-such") == NULL);
    ASSERT_TRUE(mtc_chain_alg_name(MTC_CHAIN_ALG_NONE) == NULL);
    ASSERT_TRUE(!strcmp(mtc_chain_alg_name(MTC_CHAIN_ALG_RSA4096), "rsa-4096"));
    ASSERT_EQ(mtc_chain_alg_of_sig(MTC_SIG_MLDSA44), MTC_CHAIN_ALG_MLDSA44);
    free(c);
}

/* A "-root" profile is its sibling (the name without the suffix) served
 * with the whole bundle: the same certificates, byte for byte, then the
 * top CA's self-signed root; the same verifications (a client verifies
 * nothing more); a new hierarchy (drop_cross) sends no root. Its
 * "-root-4096" twin is the sibling's "-4096" profile plus that root. */
TEST(root_sent_is_the_chain_plus_its_root)
{
    size_t n, found = 0;
    const mtc_chain_profile *p = mtc_chain_profiles(&n);
    mtc_chain *a = malloc(sizeof *a), *b = malloc(sizeof *b);
    ASSERT_TRUE(a && b);
    for (size_t i = 0; i < n; i++) {
        if (!p[i].send_root)
            continue;
        char base[64], plain[64];
        int rsa4096 = mix_profile_base(p[i].name, "-4096", plain, sizeof plain);
        if (!rsa4096)
            snprintf(plain, sizeof plain, "%s", p[i].name);
        ASSERT_TRUE(mix_profile_base(plain, "-root", base, sizeof base));
        if (rsa4096)
            snprintf(base + strlen(base), sizeof base - strlen(base), "-4096");
        const mtc_chain_profile *sib = mtc_chain_profile_by_name(base);
        ASSERT_TRUE(sib != NULL && !sib->send_root);
        mtc_chain_opts o = {"s1.example.com", NB, 86400, 0, 0, 0};
        ASSERT_OK(mtc_chain_build(&p[i], &o, a));
        ASSERT_OK(mtc_chain_build(sib, &o, b));
        ASSERT_EQ(a->ncerts, b->ncerts + 1);
        ASSERT_MEM_EQ(a->buf, b->buf, mtc_chain_der_len(b));
        ASSERT_EQ(a->nverif, b->nverif);
        for (size_t k = 0; k < a->nverif; k++)
            ASSERT_TRUE(a->verif[k].role == b->verif[k].role &&
                        a->verif[k].alg == b->verif[k].alg);
        /* a root certificate: 0.9-1.2 kB for the RSA 2,048 roots sent */
        size_t root = a->len[a->ncerts - 1];
        ASSERT_TRUE(root >= 900 && root <= 1200);
        mtc_chain_opts pq = {"s1.example.com", NB, 86400, 0, MTC_CHAIN_ALG_MLDSA44, 1};
        ASSERT_OK(mtc_chain_build(&p[i], &pq, a));
        ASSERT_EQ(a->ncerts, 2);
        found++;
    }
    ASSERT_TRUE(found >= 6);
    free(a);
    free(b);
}

/* The extended-validation profile: OpenSSL reads the EV Guidelines'
 * subject attributes and the EV policy OID in its leaf, the MTC's leaf
 * fields carry the same subject, and it differs from its OV sibling in
 * nothing a client verifies. */
TEST(ev_profile_carries_ev_subject_and_policy)
{
    const mtc_chain_profile *ev = mtc_chain_profile_by_name("digicert-rsa-ev");
    const mtc_chain_profile *ov = mtc_chain_profile_by_name("digicert-rsa-ov");
    ASSERT_TRUE(ev && ov && ev->ov == 2 && ov->ov == 1);
    mtc_chain *a = malloc(sizeof *a);
    ASSERT_TRUE(a != NULL);
    mtc_chain_opts o = {"www.example.com", NB, 86400, 0, 0, 0};
    ASSERT_OK(mtc_chain_build(ev, &o, a));
    X509 *x = cert_at(a, 0);
    ASSERT_TRUE(x != NULL);
    X509_NAME *subj = X509_get_subject_name(x);
    ASSERT_TRUE(X509_NAME_get_index_by_NID(subj, NID_businessCategory, -1) >= 0);
    ASSERT_TRUE(X509_NAME_get_index_by_NID(subj, NID_jurisdictionCountryName, -1) >= 0);
    ASSERT_TRUE(X509_NAME_get_index_by_NID(subj, NID_jurisdictionStateOrProvinceName, -1) >= 0);
    ASSERT_TRUE(X509_NAME_get_index_by_NID(subj, NID_serialNumber, -1) >= 0);
    ASSERT_TRUE(X509_NAME_get_index_by_NID(subj, NID_organizationName, -1) >= 0);
    CERTIFICATEPOLICIES *pol = X509_get_ext_d2i(x, NID_certificate_policies, NULL, NULL);
    ASSERT_TRUE(pol != NULL);
    char oid[64];
    OBJ_obj2txt(oid, sizeof oid, sk_POLICYINFO_value(pol, 0)->policyid, 1);
    ASSERT_STR_EQ(oid, "2.23.140.1.1");
    CERTIFICATEPOLICIES_free(pol);
    /* the MTC's subject is the chain leaf's, byte for byte */
    uint8_t sub[512], ext[4096];
    size_t sl = 0, el = 0;
    ASSERT_OK(mtc_chain_mtc_leaf_fields(ev, "www.example.com", MTC_CHAIN_ALG_NONE, sub,
                                        sizeof sub, &sl, ext, sizeof ext, &el));
    unsigned char *der = NULL;
    int dl = i2d_X509_NAME(subj, &der);
    ASSERT_TRUE(dl > 0 && (size_t)dl == sl && !memcmp(der, sub, sl));
    OPENSSL_free(der);
    X509_free(x);
    mtc_chain_verif ve[MTC_CHAIN_VERIF_MAX], vo[MTC_CHAIN_VERIF_MAX];
    size_t ne = mtc_chain_verifications(ev, NULL, ve), no = mtc_chain_verifications(ov, NULL, vo);
    ASSERT_EQ(ne, no);
    for (size_t i = 0; i < ne; i++)
        ASSERT_TRUE(ve[i].role == vo[i].role && ve[i].alg == vo[i].alg);
    free(a);
}

/* Every party of a chain has a key of its own: no two certificates sent
 * carry the same public key, and a certificate's authority key
 * identifier names its issuer alone (the next certificate's subject key
 * identifier, or its own when self-signed), never another certificate of
 * the chain. A key shared between two parties would put the same bytes
 * in the chain twice, which compression finds and real chains do not
 * offer: the five 2,048-bit parties of amazon-rsa-cross2 once shared a
 * key, and its root-sent chain compressed 270 bytes better than a real
 * one would. */
TEST(every_party_has_its_own_key)
{
    size_t n;
    const mtc_chain_profile *p = mtc_chain_profiles(&n);
    mtc_chain *c = malloc(sizeof *c);
    ASSERT_TRUE(c != NULL);
    for (size_t i = 0; i < n; i++) {
        mtc_chain_opts o = {"www.example.org", NB, 7 * 86400, 0, 0, 0};
        ASSERT_OK(mtc_chain_build(&p[i], &o, c));
        X509 *x[MTC_CHAIN_CERTS_MAX] = {0};
        for (size_t k = 0; k < c->ncerts; k++)
            ASSERT_TRUE((x[k] = cert_at(c, k)) != NULL);
        for (size_t a = 0; a < c->ncerts; a++) {
            const ASN1_OCTET_STRING *aki = X509_get0_authority_key_id(x[a]);
            ASSERT_TRUE(aki != NULL);
            for (size_t b = 0; b < c->ncerts; b++) {
                const ASN1_OCTET_STRING *ski = X509_get0_subject_key_id(x[b]);
                ASSERT_TRUE(ski != NULL);
                int issuer = b == a + 1 || (b == a && X509_check_issued(x[a], x[a]) == X509_V_OK);
                if (!issuer && !ASN1_OCTET_STRING_cmp(aki, ski))
                    TEST_FAIL_("%s: certificate %zu's issuer key is certificate %zu's", p[i].name,
                               a, b);
                /* 1: equal; 0 differ; below 0: of different types */
                if (b > a && EVP_PKEY_eq(X509_get0_pubkey(x[a]), X509_get0_pubkey(x[b])) == 1)
                    TEST_FAIL_("%s: certificates %zu and %zu carry one key", p[i].name, a, b);
            }
        }
        for (size_t k = 0; k < c->ncerts; k++)
            X509_free(x[k]);
    }
    free(c);
}

static const test_case tests[] = {
    {"every_party_has_its_own_key", every_party_has_its_own_key},
    {"ev_profile_carries_ev_subject_and_policy", ev_profile_carries_ev_subject_and_policy},
    {"root_sent_is_the_chain_plus_its_root", root_sent_is_the_chain_plus_its_root},
    {"every_profile_checks_out_in_openssl", every_profile_checks_out_in_openssl},
    {"deterministic_bytes", deterministic_bytes},
    {"overrides_change_what_they_name", overrides_change_what_they_name},
    {"verification_list", verification_list},
    {"mtc_leaf_fields", mtc_leaf_fields},
    {"private_profile", private_profile},
    {"argument_errors", argument_errors},
};

TEST_MAIN(tests)
