/*
 * test_rp.c - relying-party verification: standalone and landmark-relative
 * certificates for both algorithms and 0..3 witnesses; every byte of
 * sample certificates mutated (all covered: each mutation must fail);
 * every failure reason produced by a certificate that violates exactly
 * that step; unknown cosigners ignored; k-of-n policies; revoked ranges
 * from minSerial/maxSerial.
 */
#include "lib/mtc_fixture.h"
#include "mtc/error.h"
#include "test.h"

static int verify(const mtc_rp_ca *rp, const uint8_t *der, size_t n,
                  mtc_rp_reason *reason)
{
    mtc_rp_result r;
    int rc = mtc_rp_verify(rp, der, n, -1, &r);
    *reason = r.reason;
    return rc;
}

TEST(valid_certs_all_configs)
{
    static const mtc_sig_alg algs[] = {MTC_SIG_ED25519, MTC_SIG_ECDSA_P256};
    for (size_t a = 0; a < 2; a++) {
        for (size_t w = 0; w <= 3; w++) {
            fx f;
            ASSERT_EQ(fx_init(&f, algs[a], w, 40, 5, 2), 0);
            mtc_rp_ca *rp;
            ASSERT_OK(fx_rp(&f, &rp));
            size_t checked_lr = 0;
            for (uint64_t i = 0; i < 40; i++) {
                uint8_t der[4096];
                size_t n;
                mtc_rp_result r;
                ASSERT_OK(fx_cert(&f, i, 0, der, sizeof der, &n));
                ASSERT_OK(mtc_rp_verify(rp, der, n, FX_T0 + (int64_t)i + 60, &r));
                ASSERT_EQ(r.reason, MTC_RP_OK);
                /* A batch subtree may equal a landmark subtree: then the
                 * trusted subtree decides and no signature is checked. */
                if (!r.used_trusted_subtree)
                    ASSERT_EQ(r.valid_sigs, w + 1);
                ASSERT_EQ_U64(r.index, i);
                ASSERT_EQ(r.log_number, 1);
                if (fx_cert(&f, i, 1, der, sizeof der, &n) == MTC_OK) {
                    ASSERT_OK(mtc_rp_verify(rp, der, n, -1, &r));
                    ASSERT_EQ(r.used_trusted_subtree, 1);
                    checked_lr++;
                }
            }
            ASSERT_TRUE(checked_lr >= 30); /* 40 entries, landmark per 10 */
            mtc_rp_ca_free(rp);
            fx_free(&f);
        }
    }
}

/* Every byte of a standalone and a landmark-relative certificate is
 * covered (the RP knows and requires every cosigner): changing it fails. */
TEST(every_byte_mutation_fails)
{
    static const mtc_sig_alg algs[] = {MTC_SIG_ED25519, MTC_SIG_ECDSA_P256};
    for (size_t a = 0; a < 2; a++) {
        fx f;
        ASSERT_EQ(fx_init(&f, algs[a], 1, 20, 6, 1), 0);
        mtc_rp_ca *rp;
        ASSERT_OK(fx_rp(&f, &rp));
        for (int lr = 1; lr >= 0; lr--) {
            uint8_t der[4096];
            size_t n;
            ASSERT_OK(fx_cert(&f, 9, lr, der, sizeof der, &n));
            /* Standalone: no trusted subtrees, so the signatures are
             * required (otherwise a landmark subtree equal to the batch
             * subtree would make them irrelevant). */
            if (!lr)
                mtc_rp_ca_clear_subtrees(rp);
            mtc_rp_reason why;
            ASSERT_OK(verify(rp, der, n, &why));
            static const uint8_t deltas[] = {0x01, 0x80, 0xff};
            size_t step = test_scale() < 1 ? 3 : 1;
            for (size_t i = 0; i < n; i += step) {
                for (size_t d = 0; d < sizeof deltas; d++) {
                    der[i] ^= deltas[d];
                    int rc = verify(rp, der, n, &why);
                    if (rc == MTC_OK)
                        TEST_FAIL_("alg %zu lr %d: byte %zu ^ %02x still verifies",
                                   a, lr, i, deltas[d]);
                    ASSERT_TRUE(why != MTC_RP_OK);
                    der[i] ^= deltas[d];
                }
            }
            /* truncations and an extra byte */
            for (size_t l = 0; l < n; l += step)
                ASSERT_TRUE(verify(rp, der, l, &why) != MTC_OK);
            der[n] = 0;
            ASSERT_TRUE(verify(rp, der, n + 1, &why) != MTC_OK);
            ASSERT_EQ(why, MTC_RP_MALFORMED);
        }
        mtc_rp_ca_free(rp);
        fx_free(&f);
    }
}

/* Rebuilds a certificate with another serial INTEGER (contents bytes). */
static size_t with_serial(const uint8_t *der, size_t n, const uint8_t *serial,
                          size_t slen, uint8_t *out, size_t cap)
{
    mtc_cert c;
    if (mtc_cert_parse(der, n, &c) != MTC_OK)
        return 0;
    mtc_der_writer w;
    mtc_der_writer_init(&w, out, cap);
    size_t mc = mtc_der_open(&w, MTC_DER_SEQUENCE);
    size_t mt = mtc_der_open(&w, MTC_DER_SEQUENCE);
    mtc_der_raw(&w, c.version.p, c.version.len);
    mtc_der_prim(&w, MTC_DER_INTEGER, serial, slen);
    const uint8_t *rest = c.tbs_sig_alg.p, *tend = c.tbs.p + c.tbs.len;
    mtc_der_raw(&w, rest, (size_t)(tend - rest));
    mtc_der_close(&w, mt);
    mtc_der_raw(&w, tend, (size_t)(der + n - tend));
    mtc_der_close(&w, mc);
    return w.err == MTC_OK ? w.len : 0;
}

static size_t find(const uint8_t *hay, size_t n, const uint8_t *needle, size_t k,
                   size_t from)
{
    for (size_t i = from; i + k <= n; i++)
        if (!memcmp(hay + i, needle, k))
            return i;
    return (size_t)-1;
}

TEST(every_reason)
{
    fx f;
    ASSERT_EQ(fx_init(&f, MTC_SIG_ED25519, 2, 30, 4, 2), 0);
    mtc_rp_ca *rp;
    ASSERT_OK(fx_rp(&f, &rp));
    uint8_t sa[4096], lr[4096], buf[8192];
    size_t sn, ln, n;
    mtc_rp_reason why;
    int seen[MTC_RP_REASON_COUNT] = {0};
    ASSERT_OK(fx_cert(&f, 5, 0, sa, sizeof sa, &sn));
    ASSERT_OK(fx_cert(&f, 5, 1, lr, sizeof lr, &ln));
    ASSERT_OK(verify(rp, sa, sn, &why));
    seen[why]++;

    /* malformed */
    ASSERT_TRUE(verify(rp, sa, sn - 1, &why) != MTC_OK);
    ASSERT_EQ(why, MTC_RP_MALFORMED);
    seen[why]++;
    /* unknown issuer: an RP for another CA */
    mtc_taid other;
    mtc_taid_from_text("32473.2", 7, &other);
    mtc_rp_ca *rp2 = mtc_rp_ca_new(&other);
    ASSERT_TRUE(verify(rp2, sa, sn, &why) != MTC_OK);
    ASSERT_EQ(why, MTC_RP_UNKNOWN_ISSUER);
    seen[why]++;
    mtc_rp_ca_free(rp2);
    /* signature algorithm: TBS copy changed; then only the outer one */
    size_t at1 = find(sa, sn, MTC_ALG_MTC_PROOF_DER, MTC_ALG_MTC_PROOF_DER_LEN, 0);
    size_t at2 = find(sa, sn, MTC_ALG_MTC_PROOF_DER, MTC_ALG_MTC_PROOF_DER_LEN, at1 + 1);
    ASSERT_TRUE(at1 != (size_t)-1 && at2 != (size_t)-1);
    memcpy(buf, sa, sn);
    buf[at1 + MTC_ALG_MTC_PROOF_DER_LEN - 1] = 0x01;
    ASSERT_TRUE(verify(rp, buf, sn, &why) != MTC_OK);
    ASSERT_EQ(why, MTC_RP_SIG_ALG);
    seen[why]++;
    memcpy(buf, sa, sn);
    buf[at2 + MTC_ALG_MTC_PROOF_DER_LEN - 1] = 0x01;
    ASSERT_TRUE(verify(rp, buf, sn, &why) != MTC_OK);
    ASSERT_EQ(why, MTC_RP_SIG_ALG_MISMATCH);
    seen[why]++;
    /* proof encoding: the landmark cert's empty signature vector claims 1 */
    memcpy(buf, lr, ln);
    buf[ln - 1] = 1;
    ASSERT_TRUE(verify(rp, buf, ln, &why) != MTC_OK);
    ASSERT_EQ(why, MTC_RP_PROOF_ENCODING);
    seen[why]++;
    /* serial out of range: 2^64 and a negative one */
    static const uint8_t s65[] = {0x01, 0, 0, 0, 0, 0, 0, 0, 0};
    static const uint8_t sneg[] = {0xff};
    n = with_serial(sa, sn, s65, sizeof s65, buf, sizeof buf);
    ASSERT_TRUE(n > 0);
    ASSERT_TRUE(verify(rp, buf, n, &why) != MTC_OK);
    ASSERT_EQ(why, MTC_RP_SERIAL_RANGE);
    n = with_serial(sa, sn, sneg, sizeof sneg, buf, sizeof buf);
    ASSERT_TRUE(verify(rp, buf, n, &why) != MTC_OK);
    ASSERT_EQ(why, MTC_RP_SERIAL_RANGE);
    seen[why]++;
    /* revoked: minSerial of the CA certificate ([0, 2^48)) and maxSerial
     * ([2^49, 2^64)); then an explicit range */
    static const uint8_t s_log0[] = {0x05};
    static const uint8_t s_log2[] = {0x02, 0, 0, 0, 0, 0, 0x05};
    n = with_serial(sa, sn, s_log0, 1, buf, sizeof buf);
    ASSERT_EQ(verify(rp, buf, n, &why), MTC_ERR_REVOKED);
    ASSERT_EQ(why, MTC_RP_REVOKED);
    n = with_serial(sa, sn, s_log2, sizeof s_log2, buf, sizeof buf);
    ASSERT_EQ(verify(rp, buf, n, &why), MTC_ERR_REVOKED);
    ASSERT_OK(mtc_rp_ca_revoke(rp, mtc_serial(1, 5), mtc_serial(1, 5)));
    ASSERT_EQ(verify(rp, sa, sn, &why), MTC_ERR_REVOKED);
    seen[why]++;
    mtc_rp_ca_free(rp);
    ASSERT_OK(fx_rp(&f, &rp));
    /* log number zero: an RP without the CA certificate's ranges */
    mtc_rp_ca *bare = mtc_rp_ca_new(&f.ca_id);
    n = with_serial(sa, sn, s_log0, 1, buf, sizeof buf);
    ASSERT_TRUE(verify(bare, buf, n, &why) != MTC_OK);
    ASSERT_EQ(why, MTC_RP_LOG_ZERO);
    seen[why]++;
    /* entry too large: proof extensions making the entry exceed 65535 */
    {
        mtc_entry_scratch s;
        mtc_tbs_entry e;
        uint8_t spki[64];
        size_t sl;
        ASSERT_EQ(fx_entry(&f, 5, &s, &e, spki, &sl), 0);
        static uint8_t big[65500];
        big[0] = 0; big[1] = 1;
        big[2] = (uint8_t)((sizeof big - 4) >> 8);
        big[3] = (uint8_t)(sizeof big - 4);
        mtc_proof p;
        memset(&p, 0, sizeof p);
        p.extensions = (mtc_slice){big, sizeof big};
        p.start = 4; p.end = 8;
        static uint8_t large[70000];
        ASSERT_OK(mtc_cert_build(&e, spki, sl, mtc_serial(1, 5), &p, large,
                                 sizeof large, &n));
        ASSERT_TRUE(verify(rp, large, n, &why) != MTC_OK);
        ASSERT_EQ(why, MTC_RP_ENTRY_TOO_LARGE);
        seen[why]++;
    }
    /* inclusion proof: one hash short */
    {
        mtc_entry_scratch s;
        mtc_tbs_entry e;
        uint8_t spki[64];
        size_t sl;
        mtc_proof_storage st;
        mtc_proof p;
        ASSERT_EQ(fx_entry(&f, 5, &s, &e, spki, &sl), 0);
        ASSERT_OK(mtc_ilog_standalone_proof(f.log, 5, (mtc_slice){NULL, 0}, &st, &p));
        ASSERT_TRUE(p.n_inclusion > 0);
        p.n_inclusion--;
        ASSERT_OK(mtc_cert_build(&e, spki, sl, mtc_serial(1, 5), &p, buf,
                                 sizeof buf, &n));
        ASSERT_TRUE(verify(rp, buf, n, &why) != MTC_OK);
        ASSERT_EQ(why, MTC_RP_INCLUSION_PROOF);
        seen[why]++;
        /* index outside [start, end) */
        ASSERT_OK(mtc_ilog_standalone_proof(f.log, 5, (mtc_slice){NULL, 0}, &st, &p));
        p.start = 8; p.end = 12;
        ASSERT_OK(mtc_cert_build(&e, spki, sl, mtc_serial(1, 5), &p, buf,
                                 sizeof buf, &n));
        ASSERT_TRUE(verify(rp, buf, n, &why) != MTC_OK);
        ASSERT_EQ(why, MTC_RP_INCLUSION_PROOF);
        /* not a subtree */
        p.start = 4; p.end = 9;
        ASSERT_OK(mtc_cert_build(&e, spki, sl, mtc_serial(1, 5), &p, buf,
                                 sizeof buf, &n));
        ASSERT_TRUE(verify(rp, buf, n, &why) != MTC_OK);
        ASSERT_EQ(why, MTC_RP_INCLUSION_PROOF);
    }
    /* subtree hash: a trusted subtree with another hash */
    {
        mtc_cert c;
        mtc_proof p;
        ASSERT_OK(mtc_cert_parse(lr, ln, &c));
        ASSERT_OK(mtc_proof_decode(c.sig_value.p, c.sig_value.len, &p));
        mtc_hash h;
        mtc_sha256("wrong", 5, &h);
        ASSERT_OK(mtc_rp_ca_add_subtree(rp, 1, p.start, p.end, &h));
        ASSERT_EQ(verify(rp, lr, ln, &why), MTC_ERR_PROOF);
        ASSERT_EQ(why, MTC_RP_SUBTREE_HASH);
        seen[why]++;
        /* without trusted subtrees the landmark cert has no signatures */
        mtc_rp_ca_clear_subtrees(rp);
        ASSERT_EQ(mtc_rp_ca_subtree_count(rp), 0);
        ASSERT_EQ(verify(rp, lr, ln, &why), MTC_ERR_NOT_TRUSTED);
        ASSERT_EQ(why, MTC_RP_COSIGNERS);
        seen[why]++;
    }
    /* validity */
    {
        mtc_rp_result r;
        ASSERT_EQ(mtc_rp_verify(rp, sa, sn, FX_T0 + 4, &r), MTC_ERR_EXPIRED);
        ASSERT_EQ(r.reason, MTC_RP_NOT_YET_VALID);
        seen[r.reason]++;
        ASSERT_EQ(mtc_rp_verify(rp, sa, sn, FX_T0 + 5 + 7 * 86400 + 1, &r),
                  MTC_ERR_EXPIRED);
        ASSERT_EQ(r.reason, MTC_RP_EXPIRED);
        seen[r.reason]++;
        ASSERT_OK(mtc_rp_verify(rp, sa, sn, FX_T0 + 5 + 7 * 86400, &r));
        ASSERT_OK(mtc_rp_verify(rp, sa, sn, FX_T0 + 5, &r));
    }
    for (int r = 0; r < MTC_RP_REASON_COUNT; r++) {
        if (!seen[r])
            TEST_FAIL_("reason %s never produced", mtc_rp_reason_name((mtc_rp_reason)r));
        ASSERT_TRUE(strcmp(mtc_rp_reason_name((mtc_rp_reason)r), "unknown") != 0);
    }
    mtc_rp_ca_free(bare);
    mtc_rp_ca_free(rp);
    fx_free(&f);
}

/* A list of ranges revoked in one call is the same relying party as the
 * ranges revoked one by one: every certificate gets the same answer; a
 * list with one bad range revokes nothing. */
TEST(revoke_ranges_as_one_by_one)
{
    fx f;
    ASSERT_EQ(fx_init(&f, MTC_SIG_ED25519, 1, 40, 5, 2), 0);
    mtc_rp_ca *one, *bulk, *bad;
    ASSERT_OK(fx_rp(&f, &one));
    ASSERT_OK(fx_rp(&f, &bulk));
    ASSERT_OK(fx_rp(&f, &bad));
    size_t base = mtc_rp_ca_revoked_count(one);
    const mtc_serial_range r[] = {{mtc_serial(1, 3), mtc_serial(1, 3)},
                                  {mtc_serial(1, 10), mtc_serial(1, 14)},
                                  {mtc_serial(1, 12), mtc_serial(1, 20)},
                                  {mtc_serial(1, 39), mtc_serial(1, 39)}};
    size_t nr = sizeof r / sizeof r[0];
    for (size_t i = 0; i < nr; i++)
        ASSERT_OK(mtc_rp_ca_revoke(one, r[i].first, r[i].last));
    ASSERT_OK(mtc_rp_ca_revoke_ranges(bulk, r, nr));
    ASSERT_OK(mtc_rp_ca_revoke_ranges(bulk, r, 0));
    ASSERT_EQ(mtc_rp_ca_revoked_count(bulk), base + nr);
    ASSERT_EQ(mtc_rp_ca_revoked_count(one), base + nr);
    mtc_serial_range wrong[] = {r[0], {mtc_serial(1, 9), mtc_serial(1, 8)}};
    ASSERT_EQ(mtc_rp_ca_revoke_ranges(bad, wrong, 2), MTC_ERR_ARG);
    ASSERT_EQ(mtc_rp_ca_revoked_count(bad), base);
    size_t revoked = 0;
    for (uint64_t i = 0; i < 40; i++) {
        uint8_t der[4096];
        size_t n;
        mtc_rp_reason w1, w2, w3;
        ASSERT_OK(fx_cert(&f, i, 0, der, sizeof der, &n));
        int a = verify(one, der, n, &w1), b = verify(bulk, der, n, &w2);
        ASSERT_EQ(a, b);
        ASSERT_EQ(w1, w2);
        revoked += a == MTC_ERR_REVOKED;
        ASSERT_OK(verify(bad, der, n, &w3));
    }
    ASSERT_EQ(revoked, 1 + 11 + 1);     /* 3, 10..20, 39 */
    mtc_rp_ca_free(one);
    mtc_rp_ca_free(bulk);
    mtc_rp_ca_free(bad);
    fx_free(&f);
}

TEST(policies_and_unknown_cosigners)
{
    fx f;
    ASSERT_EQ(fx_init(&f, MTC_SIG_ED25519, 3, 12, 4, 0), 0);
    uint8_t der[4096];
    size_t n;
    ASSERT_OK(fx_cert(&f, 6, 0, der, sizeof der, &n));
    mtc_rp_reason why;
    mtc_rp_result r;
    /* CA only: the three witness signatures are ignored */
    mtc_rp_ca *rp;
    ASSERT_OK(mtc_rp_ca_from_cert(f.ca_cert, f.ca_cert_len, &rp));
    ASSERT_OK(mtc_rp_verify(rp, der, n, -1, &r));
    ASSERT_EQ(r.ignored_sigs, 3);
    ASSERT_EQ(r.valid_sigs, 1);
    /* CA plus 2 of the 3 witnesses */
    mtc_taid w[3];
    for (int i = 0; i < 3; i++) {
        uint8_t pk[32];
        size_t pl;
        mtc_sig_key_public(f.keys[i + 1], pk, &pl);
        ASSERT_OK(mtc_rp_ca_add_cosigner(rp, &f.cos[i + 1].id, MTC_SIG_ED25519, pk, pl));
        w[i] = f.cos[i + 1].id;
    }
    ASSERT_EQ(mtc_rp_ca_add_cosigner(rp, &w[0], MTC_SIG_ED25519, der, 32),
              MTC_ERR_CONFIG);
    ASSERT_EQ(mtc_rp_ca_add_policy(rp, 3, w, 2), MTC_ERR_CONFIG);
    mtc_taid dup[2] = {w[0], w[0]};
    ASSERT_EQ(mtc_rp_ca_add_policy(rp, 2, dup, 2), MTC_ERR_CONFIG);
    ASSERT_OK(mtc_rp_ca_add_policy(rp, 2, w, 3));
    ASSERT_OK(verify(rp, der, n, &why));
    /* break the first witness signature (ordered after the CA's): still
     * 2 of 3; break the second too: policy fails */
    mtc_cert c;
    mtc_proof p;
    ASSERT_OK(mtc_cert_parse(der, n, &c));
    ASSERT_OK(mtc_proof_decode(c.sig_value.p, c.sig_value.len, &p));
    ASSERT_EQ(p.n_sigs, 4);
    size_t broken = 0;
    for (size_t s = 0; s < p.n_sigs && broken < 2; s++) {
        if (p.sigs[s].cosigner_id.len == f.ca_id.len &&
            !memcmp(p.sigs[s].cosigner_id.p, f.ca_id.b, f.ca_id.len))
            continue;
        size_t off = (size_t)(p.sigs[s].signature.p - der);
        der[off + 10] ^= 0x20;
        broken++;
        int rc = verify(rp, der, n, &why);
        if (broken == 1) {
            ASSERT_OK(rc);
        } else {
            ASSERT_EQ(rc, MTC_ERR_NOT_TRUSTED);
            ASSERT_EQ(why, MTC_RP_COSIGNERS);
        }
    }
    ASSERT_EQ(broken, 2);
    mtc_rp_ca_free(rp);
    /* no policy at all: nothing is trusted */
    rp = mtc_rp_ca_new(&f.ca_id);
    ASSERT_OK(fx_cert(&f, 6, 0, der, sizeof der, &n));
    ASSERT_EQ(verify(rp, der, n, &why), MTC_ERR_NOT_TRUSTED);
    mtc_rp_ca_free(rp);
    fx_free(&f);
}

TEST(config_text)
{
    fx f;
    ASSERT_EQ(fx_init(&f, MTC_SIG_ED25519, 1, 8, 4, 1), 0);
    uint8_t pk[32];
    size_t pl;
    mtc_sig_key_public(f.keys[1], pk, &pl);
    char hexpk[65];
    for (size_t i = 0; i < 32; i++)
        sprintf(hexpk + 2 * i, "%02x", pk[i]);
    mtc_hash h;
    ASSERT_OK(mtc_tree_subtree_hash(mtc_ilog_tree(f.log), 4, 6, &h));
    char hh[65];
    mtc_hash_to_hex(&h, hh);
    char good[1024];
    snprintf(good, sizeof good,
             "# comment\n\ncosigner 32473.101 ed25519 %s\npolicy 1 32473.101\n"
             "subtree 1 4 6 %s\nrevoke 0 0\n", hexpk, hh);
    mtc_rp_ca *rp;
    size_t line;
    ASSERT_OK(mtc_rp_ca_load(f.ca_cert, f.ca_cert_len, good, strlen(good), &rp, &line));
    uint8_t der[4096];
    size_t n;
    mtc_rp_reason why;
    ASSERT_OK(fx_cert(&f, 5, 0, der, sizeof der, &n));
    if (verify(rp, der, n, &why) != MTC_OK)
        TEST_FAIL_("standalone: %s", mtc_rp_reason_name(why));
    ASSERT_OK(fx_cert(&f, 5, 1, der, sizeof der, &n));
    ASSERT_OK(verify(rp, der, n, &why));
    mtc_rp_ca_free(rp);
    /* each bad line is reported with its number */
    static const struct {
        const char *text;
        size_t line;
    } bad[] = {
        {"cosigner 32473.101 ed25519 00\n", 1},           /* key length */
        {"cosigner 32473.101 rsa 00\n", 1},               /* algorithm */
        {"\npolicy 1 32473.999\n", 2},                    /* unknown cosigner */
        {"policy 0 32473.1\n", 1},                        /* k = 0 */
        {"policy 2 32473.1\n", 1},                        /* k > n */
        {"subtree 1 4 9 00\n", 1},                        /* hash */
        {"subtree 0 4 8 " "0000000000000000000000000000000000000000000000000000000000000000\n", 1},
        {"subtree 1 4 9 " "0000000000000000000000000000000000000000000000000000000000000000\n", 1},
        {"revoke 5 4\n", 1},
        {"revoke 05 6\n", 1},
        {"revoke 5 6 7\n", 1},
        {"revoke 5 6\r\rx\n", 1},                          /* a lone CR */
        {"frobnicate\n", 1},
        {"# ok\nrevoke 1\n", 2},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        line = 0;
        int rc = mtc_rp_ca_load(f.ca_cert, f.ca_cert_len, bad[i].text,
                                strlen(bad[i].text), &rp, &line);
        if (rc != MTC_ERR_CONFIG || line != bad[i].line || rp != NULL)
            TEST_FAIL_("case %zu: rc %d line %zu", i, rc, line);
    }
    /* how an editor saved it does not matter: no final newline, CRLF,
     * tabs and runs of blanks */
    static const char *const layouts[] = {
        "revoke 5 6", "revoke 5 6\r\n", "revoke\t5\t6\n", "  revoke  5 \t 6  \n",
        "# c\r\n\r\nrevoke 5 6\r\n", "\t# indented comment\nrevoke 5 6"};
    for (size_t i = 0; i < sizeof layouts / sizeof layouts[0]; i++) {
        line = 99;
        int rc = mtc_rp_ca_load(f.ca_cert, f.ca_cert_len, layouts[i],
                                strlen(layouts[i]), &rp, &line);
        if (rc != MTC_OK || !rp)
            TEST_FAIL_("layout %zu: rc %d line %zu", i, rc, line);
        mtc_rp_ca_free(rp);
    }
    /* a broken CA certificate is not a line error */
    ASSERT_TRUE(mtc_rp_ca_load(f.ca_cert, f.ca_cert_len - 1, "", 0, &rp, &line) != MTC_OK);
    ASSERT_EQ(line, 0);
    fx_free(&f);
}

static const test_case tests[] = {
    {"revoke_ranges_as_one_by_one", revoke_ranges_as_one_by_one},
    {"config_text", config_text},
    {"valid_certs_all_configs", valid_certs_all_configs},
    {"every_byte_mutation_fails", every_byte_mutation_fails},
    {"every_reason", every_reason},
    {"policies_and_unknown_cosigners", policies_and_unknown_cosigners},
};

TEST_MAIN(tests)
