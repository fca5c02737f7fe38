/*
 * cmd_sizes.c - `mtc sizes`: encoded sizes of MTC certificates and of the
 * classical baselines, every figure the length of a real encoding that
 * was also verified.
 *
 * Large subtrees (up to 2^32 entries) cannot be built entry by entry, so
 * the logs here hold one real entry at a chosen index and null entries
 * everywhere else. Identical leaves make every subtree hash computable in
 * O(log n) (a perfect subtree of 2^h null leaves has the same hash
 * wherever it sits), so proofs are real inclusion proofs in a real Merkle
 * tree of that size, checked by the relying-party code like any other.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "castate.h"
#include "cli.h"
#include "mtc/baseline.h"
#include "mtc/error.h"

/* A virtual log: entry `index` has leaf hash `leaf`, all others `null`. */
typedef struct vlog {
    uint64_t index, size;
    mtc_hash leaf, null;
    mtc_hash perfect[65]; /* MTH of 2^h null leaves */
} vlog;

static void vlog_hash(const vlog *v, uint64_t start, uint64_t end, mtc_hash *out)
{
    uint64_t n = end - start;
    if (v->index < start || v->index >= end) {
        if ((n & (n - 1)) == 0) {
            *out = v->perfect[__builtin_ctzll(n)];
            return;
        }
    } else if (n == 1) {
        *out = v->leaf;
        return;
    }
    uint64_t k = UINT64_C(1) << (63 - __builtin_clzll(n - 1)); /* < n */
    mtc_hash l, r;
    vlog_hash(v, start, start + k, &l);
    vlog_hash(v, start + k, end, &r);
    mtc_hash_node(&l, &r, out);
}

static int vlog_range(void *ctx, uint64_t start, uint64_t end, mtc_hash *out)
{
    vlog_hash(ctx, start, end, out);
    return MTC_OK;
}

static void vlog_init(vlog *v, uint64_t size, uint64_t index, const mtc_hash *leaf)
{
    uint8_t null_entry[4] = {0, 0, 0, 0};
    v->size = size;
    v->index = index;
    v->leaf = *leaf;
    mtc_hash_leaf(null_entry, 4, &v->null);
    v->perfect[0] = v->null;
    for (int h = 1; h <= 64; h++)
        mtc_hash_node(&v->perfect[h - 1], &v->perfect[h - 1], &v->perfect[h]);
}

struct world {
    mtc_sig_alg alg;
    mtc_taid ca_id, log_id;
    mtc_sig_key *keys[4];
    mtc_cosigner cos[4];
    uint8_t ca_der[8192];
    size_t ca_len;
    uint8_t issuer[128];
    size_t issuer_len;
    uint8_t spki[MTC_SIG_PK_MAX + 64];
    size_t spki_len;
    mtc_entry_scratch scratch;
    mtc_tbs_entry e;
};

static int world_init(struct world *w, mtc_sig_alg alg)
{
    memset(w, 0, sizeof *w);
    w->alg = alg;
    mtc_taid_from_text("32473.1", 7, &w->ca_id);
    mtc_taid_log_id(&w->ca_id, 1, &w->log_id);
    for (int i = 0; i < 4; i++) {
        uint8_t seed[32] = {'s', 'z', (uint8_t)i};
        if (mtc_sig_key_from_seed(alg, seed, &w->keys[i]) != MTC_OK)
            return -1;
        w->cos[i].key = w->keys[i];
        if (i == 0) {
            w->cos[i].id = w->ca_id;
        } else { /* witnesses outside the CA's arc (draft "CA IDs") */
            char wid[32];
            snprintf(wid, sizeof wid, "32473.9999.%d", i);
            mtc_taid_from_text(wid, strlen(wid), &w->cos[i].id);
        }
    }
    uint8_t pk[MTC_SIG_PK_MAX];
    size_t pl;
    mtc_sig_key_public(w->keys[0], pk, &pl);
    mtc_ca_params ca = {w->ca_id, alg, pk, pl, 0, UINT64_MAX, 1767225600,
                        1767225600 + 3650 * 86400};
    if (mtc_ca_cert_build(&ca, w->ca_der, sizeof w->ca_der, &w->ca_len) != MTC_OK)
        return -1;
    mtc_der_writer dw;
    mtc_der_writer_init(&dw, w->issuer, sizeof w->issuer);
    mtc_taid_name_der(&dw, &w->ca_id);
    w->issuer_len = dw.len;
    /* the subject key: same algorithm as the cosigners */
    uint8_t seed[32] = {'s', 'u', 'b'};
    mtc_sig_key *sk;
    if (mtc_sig_key_from_seed(alg, seed, &sk) != MTC_OK)
        return -1;
    mtc_sig_key_public(sk, pk, &pl);
    mtc_sig_key_free(sk);
    mtc_sig_spki_der(alg, pk, pl, w->spki, sizeof w->spki, &w->spki_len);
    return mtc_tbs_entry_tls_server(&w->e, &w->scratch,
                                    (mtc_slice){w->issuer, w->issuer_len}, 1767225600,
                                    1767225600 + 7 * 86400, "www.example.com", w->spki,
                                    w->spki_len) == MTC_OK ? 0 : -1;
}

static void world_free(struct world *w)
{
    for (int i = 0; i < 4; i++)
        mtc_sig_key_free(w->keys[i]);
}

/* Builds and verifies a certificate for an entry at `index` of a subtree
 * [0, size) with `ncos` cosignatures (-1: landmark-relative). */
static int measure(struct world *w, uint64_t size, uint64_t index, int ncos,
                   size_t *cert_len, size_t *hashes)
{
    static vlog v;
    mtc_hash leaf, root;
    if (mtc_log_entry_leaf_hash((mtc_slice){NULL, 0}, &w->e, &leaf) != MTC_OK)
        return -1;
    vlog_init(&v, size, index, &leaf);
    mtc_node_source src = {vlog_range, &v, size};
    static mtc_hash incl[MTC_PROOF_MAX];
    size_t n;
    if (mtc_inclusion_proof(&src, index, 0, size, incl, &n) != MTC_OK ||
        mtc_subtree_hash(&src, 0, size, &root) != MTC_OK)
        return -1;
    mtc_proof p;
    memset(&p, 0, sizeof p);
    p.start = 0;
    p.end = size;
    p.inclusion = incl;
    p.n_inclusion = n;
    static uint8_t sigs[4][MTC_SIG_MAX];
    for (int i = 0; i < ncos; i++) {
        size_t sl;
        if (mtc_cosign_subtree(&w->cos[i], &w->log_id, 0, size, &root, sigs[i], &sl))
            return -1;
        p.sigs[p.n_sigs++] = (mtc_subtree_sig){{w->cos[i].id.b, w->cos[i].id.len},
                                               {sigs[i], sl}};
    }
    mtc_proof_sort_sigs(&p);
    static uint8_t der[65536];
    size_t len;
    if (mtc_cert_build(&w->e, w->spki, w->spki_len, mtc_serial(1, index), &p, der,
                       sizeof der, &len) != MTC_OK)
        return -1;
    /* verify it like a relying party would */
    mtc_rp_ca *rp;
    if (mtc_rp_ca_from_cert(w->ca_der, w->ca_len, &rp) != MTC_OK)
        return -1;
    int ok = 1;
    if (ncos < 0) {
        ok = mtc_rp_ca_add_subtree(rp, 1, 0, size, &root) == MTC_OK;
    } else if (ncos > 1) {
        mtc_taid ids[3];
        for (int i = 1; i < ncos; i++) {
            uint8_t pk[MTC_SIG_PK_MAX];
            size_t pl;
            mtc_sig_key_public(w->keys[i], pk, &pl);
            ok &= mtc_rp_ca_add_cosigner(rp, &w->cos[i].id, w->alg, pk, pl) == MTC_OK;
            ids[i - 1] = w->cos[i].id;
        }
        ok &= mtc_rp_ca_add_policy(rp, (unsigned)ncos - 1, ids, (size_t)ncos - 1) == MTC_OK;
    }
    mtc_rp_result r;
    int vrc = mtc_rp_verify(rp, der, len, -1, &r);
    mtc_rp_ca_free(rp);
    /* with 0 cosignatures nothing can make it valid: expect the policy
     * failure, which still proves the proof evaluated */
    if (!ok || (ncos == 0 ? r.reason != MTC_RP_COSIGNERS : vrc != MTC_OK))
        return -1;
    *cert_len = len;
    *hashes = n;
    return 0;
}

int cmd_sizes(int argc, char **argv)
{
    if (cli_wants_help(argc, argv)) {
        printf("usage: mtc sizes [--standalone-subtree N]\n\n"
               "Prints encoded sizes, each from a real, verified encoding:\n"
               "  standalone  ALG COSIGNERS SUBTREE HASHES BYTES  (0-3 cosignatures;\n"
               "              a subtree of N entries, default 2500: the draft's\n"
               "              checkpoint every 2 seconds at 4.4 million\n"
               "              certificates per hour, 12 hashes)\n"
               "  landmark    ALG - SUBTREE HASHES BYTES  (subtrees 2^10..2^32, and\n"
               "              4400000: the draft's hourly landmarks at that rate,\n"
               "              23 hashes)\n"
               "  ca-cert     ALG - - - BYTES\n"
               "  baseline    ALG leaf/intermediate/chain/handshake-sig - - BYTES\n"
               "Subject keys use the same algorithm as the cosigners.\n");
        return CLI_OK;
    }
    /* The draft's "Size Estimates": 4.4 million certificates per hour for
     * one CA, checkpoints every 2 seconds (about 2,500 per subtree) and
     * landmarks every hour (4,400,000). A subtree [0, n) is valid for any n. */
    uint64_t standalone = 2500;
    const uint64_t hourly = 4400000;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--standalone-subtree") && i + 1 < argc) {
            if (cli_parse_u64("sizes", "--standalone-subtree", argv[++i], &standalone))
                return CLI_USAGE;
            if (standalone < 1 || standalone > (UINT64_C(1) << 40))
                return cli_usage_error("sizes",
                                       "--standalone-subtree %s is outside 1..2^40",
                                       argv[i]);
        } else {
            return cli_usage_error("sizes", "unknown argument '%s'", argv[i]);
        }
    }
    size_t na;
    const mtc_sig_info *all = mtc_sig_all(&na);
    printf("%-11s %-11s %-9s %12s %6s %7s\n", "kind", "alg", "cosigners", "subtree",
           "hashes", "bytes");
    for (size_t a = 0; a < na; a++) {
        static struct world w;
        if (world_init(&w, all[a].alg)) {
            fprintf(stderr, "mtc sizes: cannot set up %s\n", all[a].name);
            world_free(&w);
            return CLI_FAIL;
        }
        for (int k = 0; k <= 3; k++) {
            size_t len, h;
            if (measure(&w, standalone, standalone / 3, k, &len, &h)) {
                fprintf(stderr, "mtc sizes: %s standalone failed\n", all[a].name);
                world_free(&w);
                return CLI_FAIL;
            }
            printf("%-11s %-11s %-9d %12llu %6zu %7zu\n", "standalone", all[a].name, k,
                   (unsigned long long)standalone, h, len);
        }
        uint64_t sizes[16];
        size_t ns = 0;
        for (int e = 10; e <= 32; e += 2) {
            if (UINT64_C(1) << e > hourly && (UINT64_C(1) << e) / 4 < hourly)
                sizes[ns++] = hourly; /* in order */
            sizes[ns++] = UINT64_C(1) << e;
        }
        for (size_t z = 0; z < ns; z++) {
            size_t len, h;
            uint64_t size = sizes[z];
            if (measure(&w, size, size - size / 3, -1, &len, &h)) {
                fprintf(stderr, "mtc sizes: %s landmark %llu failed\n", all[a].name,
                        (unsigned long long)size);
                world_free(&w);
                return CLI_FAIL;
            }
            printf("%-11s %-11s %-9s %12llu %6zu %7zu\n", "landmark", all[a].name, "-",
                   (unsigned long long)size, h, len);
        }
        printf("%-11s %-11s %-9s %12s %6s %7zu\n", "ca-cert", all[a].name, "-", "-", "-",
               w.ca_len);
        world_free(&w);
        static mtc_baseline b;
        if (mtc_baseline_build(all[a].alg, "www.example.com", 1767225600, 7 * 86400,
                               &b) != MTC_OK) {
            fprintf(stderr, "mtc sizes: %s baseline failed\n", all[a].name);
            return CLI_FAIL;
        }
        printf("%-11s %-11s %-9s %12s %6s %7zu\n", "baseline", all[a].name, "leaf", "-",
               "-", b.leaf_len);
        printf("%-11s %-11s %-9s %12s %6s %7zu\n", "baseline", all[a].name,
               "intermed", "-", "-", b.intermediate_len);
        printf("%-11s %-11s %-9s %12s %6s %7zu\n", "baseline", all[a].name, "chain", "-",
               "-", b.leaf_len + b.intermediate_len);
        printf("%-11s %-11s %-9s %12s %6s %7zu\n", "baseline", all[a].name, "hs-sig",
               "-", "-", b.handshake_sig_len);
    }
    return CLI_OK;
}
