/*
 * bench_certs.c - `mtc bench certs`: the certificate layer's costs as the
 * simulator will pay them, each with a reference measured in the same run:
 *   entry_build_per_s        mtc_tbs_entry_tls_server (incl. SPKI hash)
 *   leaf_hash_stream_per_s   streaming MTH({entry}) (no buffer)
 *   leaf_hash_encode_per_s   encode + hash; leaf_hash_stream_vs_encode
 *   log_append_per_s         leaf hash + tree append
 *   verify_landmark_per_s    relying party, trusted-subtree path
 *   verify_standalone_K_per_s  K Ed25519 cosignatures (K = 1, 3)
 *   ed25519_verify_per_s     the reference; verify_standalone_1_vs_ed25519
 */
#include <stdio.h>
#include <string.h>

#include "castate.h"
#include "cli.h"
#include "mtc/error.h"

/* Runs body until at least `min_s` seconds passed; returns ops/s. */
#define RATE(min_s, ops_out, body)                                  \
    do {                                                            \
        double t0_ = cli_now(), t_;                                 \
        uint64_t n_ = 0;                                            \
        do {                                                        \
            for (int k_ = 0; k_ < 64; k_++, n_++) {                 \
                body;                                               \
            }                                                       \
            t_ = cli_now() - t0_;                                   \
        } while (t_ < (min_s));                                     \
        (ops_out) = (double)n_ / t_;                                \
    } while (0)

int bench_certs(int argc, char **argv)
{
    if (argc > 1)
        return cli_usage_error("bench certs", "unexpected argument '%s'", argv[1]);
    const double T = 0.5;
    mtc_taid ca;
    mtc_taid_from_text("32473.1", 7, &ca);
    uint8_t issuer[64];
    mtc_der_writer w;
    mtc_der_writer_init(&w, issuer, sizeof issuer);
    mtc_taid_name_der(&w, &ca);
    uint8_t seed[32] = {1}, pk[65], spki[128];
    size_t pl, sl;
    mtc_sig_key *k;
    mtc_sig_key_from_seed(MTC_SIG_ECDSA_P256, seed, &k);
    mtc_sig_key_public(k, pk, &pl);
    mtc_sig_key_free(k);
    mtc_sig_spki_der(MTC_SIG_ECDSA_P256, pk, pl, spki, sizeof spki, &sl);
    static mtc_entry_scratch s;
    mtc_tbs_entry e;
    double r_build, r_stream, r_encode, r_append, r_lr, r_sa1, r_sa3, r_ed;
    volatile uint8_t sink = 0;
    int64_t t = 1767225600;
    RATE(T, r_build, {
        mtc_tbs_entry_tls_server(&e, &s, (mtc_slice){issuer, w.len}, t, t + 604800,
                                 "www.example.com", spki, sl);
        t++;
    });
    mtc_hash h;
    RATE(T, r_stream, {
        mtc_log_entry_leaf_hash((mtc_slice){NULL, 0}, &e, &h);
        sink ^= h.b[0];
    });
    static uint8_t buf[MTC_ENTRY_MAX];
    RATE(T, r_encode, {
        size_t n;
        mtc_log_entry_encode((mtc_slice){NULL, 0}, &e, buf, sizeof buf, &n);
        mtc_hash_leaf(buf, n, &h);
        sink ^= h.b[0];
    });
    mtc_ilog *log = mtc_ilog_new(&ca, 1, NULL);
    RATE(T, r_append, { mtc_ilog_append(log, (mtc_slice){NULL, 0}, &e, NULL); });
    mtc_ilog_free(log);

    /* verification: a log with CA + 2 witnesses (Ed25519) */
    log = mtc_ilog_new(&ca, 1, NULL);
    mtc_sig_key *keys[3];
    mtc_cosigner cos[3];
    for (int i = 0; i < 3; i++) {
        seed[0] = (uint8_t)(10 + i);
        mtc_sig_key_from_seed(MTC_SIG_ED25519, seed, &keys[i]);
        cos[i].key = keys[i];
        cos[i].id = ca;
        if (i) { /* witnesses outside the CA's arc (draft "CA IDs") */
            char wid[32];
            snprintf(wid, sizeof wid, "32473.9999.%d", i);
            mtc_taid_from_text(wid, strlen(wid), &cos[i].id);
        }
    }
    for (int i = 0; i < 4096; i++)
        mtc_ilog_append(log, (mtc_slice){NULL, 0}, &e, NULL);
    mtc_ilog_checkpoint(log, cos, 3);
    mtc_landmarks *lm = mtc_landmarks_new(4);
    mtc_landmarks_append(lm, 4096);
    mtc_proof_storage st;
    mtc_proof p;
    uint64_t L;
    static uint8_t lr[4096], sa[4096];
    size_t lrn, san;
    mtc_ilog_landmark_proof(log, lm, 1000, (mtc_slice){NULL, 0}, &st, &p, &L);
    mtc_cert_build(&e, spki, sl, mtc_serial(1, 1000), &p, lr, sizeof lr, &lrn);
    mtc_ilog_standalone_proof(log, 1000, (mtc_slice){NULL, 0}, &st, &p);
    mtc_cert_build(&e, spki, sl, mtc_serial(1, 1000), &p, sa, sizeof sa, &san);
    mtc_rp_ca *rp1 = mtc_rp_ca_new(&ca), *rp3 = mtc_rp_ca_new(&ca);
    mtc_taid wids[2] = {cos[1].id, cos[2].id};
    for (int i = 0; i < 3; i++) {
        uint8_t wpk[32];
        size_t wl;
        mtc_sig_key_public(keys[i], wpk, &wl);
        if (i == 0)
            mtc_rp_ca_add_cosigner(rp1, &cos[i].id, MTC_SIG_ED25519, wpk, wl);
        mtc_rp_ca_add_cosigner(rp3, &cos[i].id, MTC_SIG_ED25519, wpk, wl);
    }
    mtc_rp_ca_add_policy(rp1, 1, &ca, 1);
    mtc_rp_ca_add_policy(rp3, 1, &ca, 1);
    mtc_rp_ca_add_policy(rp3, 2, wids, 2);
    /* the landmark path on its own RP, so standalone certificates (whose
     * batch subtrees equal the landmark's here) take the signature path */
    mtc_rp_ca *rpl = mtc_rp_ca_new(&ca);
    mtc_subtree ls[2];
    mtc_landmarks_subtrees(lm, 1, &ls[0], &ls[1]);
    for (int i = 0; i < 2; i++) {
        mtc_hash sub;
        mtc_tree_subtree_hash(mtc_ilog_tree(log), ls[i].start, ls[i].end, &sub);
        mtc_rp_ca_add_subtree(rpl, 1, ls[i].start, ls[i].end, &sub);
    }
    mtc_rp_result r;
    int bad = 0;
    RATE(T, r_lr, { bad |= mtc_rp_verify(rpl, lr, lrn, -1, &r); });
    RATE(T, r_sa1, { bad |= mtc_rp_verify(rp1, sa, san, -1, &r); });
    RATE(T, r_sa3, { bad |= mtc_rp_verify(rp3, sa, san, -1, &r); });
    uint8_t msg[100] = {0}, sig[64], epk[32];
    size_t sgl, epl;
    mtc_sig_sign(keys[0], msg, sizeof msg, sig, &sgl);
    mtc_sig_key_public(keys[0], epk, &epl);
    RATE(T, r_ed, { bad |= mtc_sig_verify(MTC_SIG_ED25519, epk, 32, msg, sizeof msg,
                                          sig, 64); });
    for (int i = 0; i < 3; i++)
        mtc_sig_key_free(keys[i]);
    mtc_rp_ca_free(rp1);
    mtc_rp_ca_free(rpl);
    mtc_rp_ca_free(rp3);
    mtc_landmarks_free(lm);
    mtc_ilog_free(log);
    if (bad) {
        fprintf(stderr, "mtc bench certs: a verification failed\n");
        return CLI_FAIL;
    }
    printf("entry_build_per_s %.0f 1/s\n", r_build);
    printf("leaf_hash_stream_per_s %.0f 1/s\n", r_stream);
    printf("leaf_hash_encode_per_s %.0f 1/s\n", r_encode);
    printf("leaf_hash_stream_vs_encode %.3f ratio\n", r_stream / r_encode);
    printf("log_append_per_s %.0f 1/s\n", r_append);
    printf("entry_bytes %zu B\n", mtc_log_entry_len((mtc_slice){NULL, 0}, &e));
    printf("verify_landmark_per_s %.0f 1/s\n", r_lr);
    printf("verify_standalone_1_per_s %.0f 1/s\n", r_sa1);
    printf("verify_standalone_3_per_s %.0f 1/s\n", r_sa3);
    printf("ed25519_verify_per_s %.0f 1/s\n", r_ed);
    printf("verify_standalone_1_vs_ed25519 %.3f ratio\n", r_ed / r_sa1);
    printf("verify_landmark_vs_ed25519 %.3f ratio\n", r_ed / r_lr);
    (void)sink;
    return CLI_OK;
}
