/*
 * cmd_bench.c - `mtc bench`: benchmarks, each reporting `name value unit`
 * lines and ratios against a reference measured in the same run (these
 * machines are shared and noisy; absolute numbers alone mislead).
 *
 * bench merkle: the reference is raw SHA-256 compression throughput. A
 * Merkle node costs exactly two compressions (65 bytes + padding), so a
 * tree of n leaves costs 2(n-1) compressions and the best possible append
 * rate is compressions_per_s / 2: tree_build_ratio is the measured append
 * rate over that bound.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "mtc/error.h"
#include "mtc/merkle.h"
#include "mtc/tree.h"

/* Synthetic entries: d[i] is the 8-byte little-endian index. A leaf callback
 * can recompute any of them, as an issuance log rebuilds an entry. */
static void synth_leaf(uint64_t i, mtc_hash *out)
{
    uint8_t d[8];
    for (int k = 0; k < 8; k++)
        d[k] = (uint8_t)(i >> (8 * k));
    mtc_hash_leaf(d, sizeof d, out);
}

static int synth_leaf_fn(void *ctx, uint64_t index, mtc_hash *out)
{
    (void)ctx;
    synth_leaf(index, out);
    return MTC_OK;
}

/* A xorshift for picking query positions; quality is irrelevant here. */
static uint64_t next_rand(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static double bench_compress(void)
{
    static uint8_t blocks[64 * 1024];
    memset(blocks, 0xa5, sizeof blocks);
    uint32_t state[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                         0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
    size_t nblk = sizeof blocks / 64;
    uint64_t total = 0;
    double t0 = cli_now(), t;
    do {
        mtc_sha256_compress_blocks(state, blocks, nblk);
        total += nblk;
        t = cli_now();
    } while (t - t0 < 0.5);
    blocks[0] ^= (uint8_t)state[0]; /* keep the work observable */
    return (double)total / (t - t0);
}

/* Appends n synthetic leaves (hashes precomputed outside the timing). */
static int bench_append(const mtc_tree_options *opt, const mtc_hash *leaves,
                        uint64_t n, double *per_s, size_t *mem)
{
    mtc_tree *t = mtc_tree_new(opt);
    if (!t)
        return MTC_ERR_NOMEM;
    double t0 = cli_now();
    for (uint64_t i = 0; i < n; i++) {
        int rc = mtc_tree_append(t, &leaves[i]);
        if (rc != MTC_OK) {
            mtc_tree_free(t);
            return rc;
        }
    }
    *per_s = (double)n / (cli_now() - t0);
    *mem = mtc_tree_memory(t);
    mtc_tree_free(t);
    return MTC_OK;
}

/* Resident set size now, in bytes (Linux /proc/self/statm); peak RSS would
 * remember the earlier, larger benchmark logs. */
static double rss_bytes(void)
{
    long pages = 0, resident = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    if (!f)
        return 0;
    if (fscanf(f, "%ld %ld", &pages, &resident) != 2)
        resident = 0;
    fclose(f);
    return (double)resident * (double)sysconf(_SC_PAGESIZE);
}

static int bench_merkle(int argc, char **argv)
{
    unsigned log2n = 24, tile = 4;
    uint64_t mem_entries = 0;
    for (int i = 1; i < argc; i++) {
        uint64_t v;
        int rc;
        if (!strcmp(argv[i], "--log2") && i + 1 < argc) {
            if ((rc = cli_parse_u64("bench merkle", "--log2", argv[++i], &v)))
                return rc;
            if (v < 10 || v > 40)
                return cli_usage_error("bench merkle",
                                       "--log2 %" PRIu64 " is outside 10..40", v);
            log2n = (unsigned)v;
        } else if (!strcmp(argv[i], "--tile") && i + 1 < argc) {
            if ((rc = cli_parse_u64("bench merkle", "--tile", argv[++i], &v)))
                return rc;
            if (v < 1 || v > 16)
                return cli_usage_error("bench merkle",
                                       "--tile %" PRIu64 " is outside 1..16", v);
            tile = (unsigned)v;
        } else if (!strcmp(argv[i], "--mem-entries") && i + 1 < argc) {
            if ((rc = cli_parse_u64("bench merkle", "--mem-entries", argv[++i],
                                    &mem_entries)))
                return rc;
            if (mem_entries > MTC_TREE_MAX_ENTRIES)
                return cli_usage_error("bench merkle", "--mem-entries too large");
        } else {
            return cli_usage_error("bench merkle", "unknown or incomplete option '%s'",
                                   argv[i]);
        }
    }

    double cps = bench_compress();
    printf("sha256_compress_per_s %.0f blocks/s\n", cps);
    printf("sha256_compress_throughput %.1f MB/s\n", cps * 64 / 1e6);
    double bound = cps / 2;
    printf("tree_build_bound_per_s %.0f entries/s\n", bound);

    /* Tree building: 2^20 leaves, full store and compact store. */
    uint64_t nb = UINT64_C(1) << 20;
    mtc_hash *leaves = malloc(nb * sizeof *leaves);
    if (!leaves)
        return CLI_FAIL;
    for (uint64_t i = 0; i < nb; i++)
        synth_leaf(i, &leaves[i]);
    mtc_tree_options full = {.tile_height = 0, .keep_leaves = 1};
    mtc_tree_options compact = {.tile_height = tile, .keep_leaves = 0,
                                .leaf_fn = synth_leaf_fn};
    double full_ps = 0, compact_ps = 0, best = 0;
    size_t full_mem = 0, compact_mem = 0;
    for (int rep = 0; rep < 3; rep++) { /* best of three: noisy machines */
        if (bench_append(&full, leaves, nb, &full_ps, &full_mem) != MTC_OK ||
            bench_append(&compact, leaves, nb, &compact_ps, &compact_mem) != MTC_OK) {
            free(leaves);
            return CLI_FAIL;
        }
        if (compact_ps > best)
            best = compact_ps;
    }
    free(leaves);
    printf("tree_append_full_per_s %.0f entries/s\n", full_ps);
    printf("tree_append_compact_per_s %.0f entries/s\n", best);
    printf("tree_build_ratio %.3f\n", best / bound);
    printf("tree_bytes_per_entry_full %.2f B\n", (double)full_mem / (double)nb);
    printf("tree_bytes_per_entry_compact %.2f B\n",
           (double)compact_mem / (double)nb);

    /* Queries on a compact log of 2^log2n entries. */
    uint64_t n = UINT64_C(1) << log2n;
    mtc_tree *t = mtc_tree_new(&compact);
    if (!t)
        return CLI_FAIL;
    double t0 = cli_now();
    for (uint64_t i = 0; i < n; i++) {
        mtc_hash h;
        synth_leaf(i, &h);
        if (mtc_tree_append(t, &h) != MTC_OK) {
            mtc_tree_free(t);
            return CLI_FAIL;
        }
    }
    double build_s = cli_now() - t0;
    printf("log_entries %" PRIu64 " entries\n", n);
    printf("log_build_time %.2f s\n", build_s);
    printf("log_bytes_per_entry %.3f B\n",
           (double)mtc_tree_memory(t) / (double)n);

    mtc_node_source src;
    mtc_tree_source(t, &src);
    mtc_hash proof[MTC_PROOF_MAX], root;
    size_t plen;
    mtc_subtree_hash(&src, 0, n, &root);
    uint64_t seed = 0x9e3779b97f4a7c15u;
    int queries = 20000, bad = 0;
    t0 = cli_now();
    for (int q = 0; q < queries; q++) {
        uint64_t idx = next_rand(&seed) % n;
        if (mtc_inclusion_proof(&src, idx, 0, n, proof, &plen) != MTC_OK)
            bad++;
    }
    double incl_s = (cli_now() - t0) / queries;
    printf("inclusion_proof_time %.2f us\n", incl_s * 1e6);
    printf("inclusion_proof_per_s %.0f proofs/s\n", 1 / incl_s);

    /* Landmark-style subtrees: valid [start, end) of ~2^16 entries. */
    t0 = cli_now();
    for (int q = 0; q < queries; q++) {
        uint64_t start = (next_rand(&seed) % (n >> 16)) << 16;
        uint64_t end = start + 1 + next_rand(&seed) % (UINT64_C(1) << 16);
        mtc_hash h;
        if (mtc_subtree_hash(&src, start, end, &h) != MTC_OK)
            bad++;
    }
    printf("subtree_hash_time %.2f us\n", (cli_now() - t0) / queries * 1e6);

    t0 = cli_now();
    for (int q = 0; q < queries; q++) {
        uint64_t start = (next_rand(&seed) % (n >> 16)) << 16;
        uint64_t end = start + 1 + next_rand(&seed) % (UINT64_C(1) << 16);
        if (mtc_subtree_consistency_proof(&src, start, end, n, proof, &plen) !=
            MTC_OK)
            bad++;
    }
    printf("subtree_consistency_proof_time %.2f us\n",
           (cli_now() - t0) / queries * 1e6);

    t0 = cli_now();
    for (int q = 0; q < queries; q++) {
        uint64_t idx = next_rand(&seed) % n;
        synth_leaf(idx, &root);
        if (mtc_inclusion_proof(&src, idx, 0, n, proof, &plen) != MTC_OK)
            bad++;
    }
    mtc_tree_free(t);
    if (bad) {
        fprintf(stderr, "mtc bench merkle: %d queries failed\n", bad);
        return CLI_FAIL;
    }

    if (mem_entries) {
        /* Peak memory of a log of mem_entries entries: the store's own
         * accounting and the growth of the resident set. */
        double rss0 = rss_bytes();
        t = mtc_tree_new(&compact);
        if (!t)
            return CLI_FAIL;
        for (uint64_t i = 0; i < mem_entries; i++) {
            mtc_hash h;
            synth_leaf(i, &h);
            if (mtc_tree_append(t, &h) != MTC_OK) {
                mtc_tree_free(t);
                return CLI_FAIL;
            }
        }
        double rss1 = rss_bytes();
        printf("mem_entries %" PRIu64 " entries\n", mem_entries);
        printf("mem_store_bytes_per_entry %.3f B\n",
               (double)mtc_tree_memory(t) / (double)mem_entries);
        printf("mem_rss_growth_per_entry %.3f B\n",
               (rss1 - rss0) / (double)mem_entries);
        mtc_tree_free(t);
    }
    return CLI_OK;
}

int cmd_bench(int argc, char **argv)
{
    if (argc < 2 || cli_wants_help(argc, argv)) {
        FILE *f = argc < 2 ? stderr : stdout;
        fprintf(f,
                "usage: mtc bench merkle [--log2 N] [--tile H] [--mem-entries N]\n"
                "       mtc bench sig [--help for its options]\n\n"
                "merkle: raw SHA-256 compression throughput, then tree building\n"
                "  (tree_build_ratio = append rate / (compressions per s / 2)),\n"
                "  and proof latencies on a compact log of 2^N entries (default\n"
                "  24, tile height H default 4). --mem-entries N also builds a\n"
                "  log of N entries and reports bytes per entry.\n"
                "sig: keygen/sign/verify per second for Ed25519, ECDSA P-256 and\n"
                "  ML-DSA-44/65/87, with ML-DSA-44 time ratios against Ed25519.\n"
                "certs: entry building, leaf hashing, log appends and relying-party\n"
                "  verification rates against Ed25519 verify (mtc bench certs).\n");
        return argc < 2 ? CLI_USAGE : CLI_OK;
    }
    if (!strcmp(argv[1], "merkle"))
        return bench_merkle(argc - 1, argv + 1);
    if (!strcmp(argv[1], "sig"))
        return bench_sig(argc - 1, argv + 1);
    if (!strcmp(argv[1], "certs"))
        return bench_certs(argc - 1, argv + 1);
    return cli_usage_error("bench", "unknown benchmark '%s'", argv[1]);
}
