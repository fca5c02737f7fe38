/*
 * study_rates.c - the unit costs behind `make bench-study`'s floors, in
 * CPU seconds of this process (the machine is shared: wall time would
 * measure the other jobs): SHA-256 compressions (OpenSSL, the code that
 * hashes the logs), and checkpoint signing and verification with the
 * project's own signers (mtc_cosign_checkpoint / mtc_cosig_verify, what a
 * CA, a cosigner and an update service call) for every algorithm a CA
 * may use. Prints `name value unit` lines.
 *
 *   build/bench_study_rates [--min-cpu S]   (each rate over >= S CPU s)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mtc/cosig.h"
#include "mtc/error.h"
#include "mtc/hash.h"
#include "mtc/sig.h"
#include "mtc/taid.h"

static double cpu_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double sha_rate(double min_cpu)
{
    enum { BLOCKS = 16384 };
    uint8_t *buf = malloc(64 * BLOCKS);
    if (!buf)
        return 0;
    memset(buf, 0x5a, 64 * BLOCKS);
    uint32_t st[8] = {0};
    uint64_t n = 0;
    double t0 = cpu_s(), t;
    do {
        mtc_sha256_compress_blocks(st, buf, BLOCKS);
        n += BLOCKS;
        buf[0] = (uint8_t)st[0];    /* the next pass depends on this one */
    } while ((t = cpu_s() - t0) < min_cpu);
    free(buf);
    return (double)n / t;
}

static int sig_rates(mtc_sig_alg alg, double min_cpu, double *sign,
                     double *verify)
{
    uint8_t seed[MTC_SIG_SEED_LEN];
    for (size_t i = 0; i < sizeof seed; i++)
        seed[i] = (uint8_t)(i * 7 + alg);
    mtc_sig_key *key = NULL;
    uint8_t pk[MTC_SIG_PK_MAX];
    size_t pk_len = 0;
    int rc = mtc_sig_key_from_seed(alg, seed, &key);
    if (rc == MTC_OK)
        rc = mtc_sig_key_public(key, pk, &pk_len);
    mtc_taid id = {0}, log = {0};
    if (rc == MTC_OK)
        rc = mtc_taid_from_text("32473.1", 7, &id);
    if (rc == MTC_OK)
        rc = mtc_taid_log_id(&id, 0, &log);
    enum { NSIG = 64 };
    static uint8_t sig[NSIG][MTC_SIG_MAX];
    size_t len[NSIG];
    mtc_hash root;
    memset(root.b, 0x11, sizeof root.b);
    mtc_cosigner c = {id, key};
    uint64_t n = 0;
    double t0 = cpu_s(), t;
    /* different checkpoints (tree sizes), as a CA signs them: ML-DSA's
     * rejection loop makes the cost vary from message to message */
    do {
        for (int i = 0; i < NSIG && rc == MTC_OK; i++, n++)
            rc = mtc_cosign_checkpoint(&c, &log, 1700000000000u + n, 1000 + n,
                                       &root, sig[i], &len[i]);
    } while (rc == MTC_OK && (t = cpu_s() - t0) < min_cpu);
    *sign = rc == MTC_OK ? (double)n / t : 0;
    uint64_t base = n - NSIG, m = 0;
    t0 = cpu_s();
    do {
        for (int i = 0; i < NSIG && rc == MTC_OK; i++, m++)
            rc = mtc_cosig_verify(alg, pk, pk_len, &id, &log,
                                  1700000000000u + base + (uint64_t)i, 0,
                                  1000 + base + (uint64_t)i, &root, sig[i],
                                  len[i]);
    } while (rc == MTC_OK && (t = cpu_s() - t0) < min_cpu);
    *verify = rc == MTC_OK ? (double)m / t : 0;
    mtc_sig_key_free(key);
    return rc;
}

int main(int argc, char **argv)
{
    double min_cpu = 1.0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--min-cpu") && i + 1 < argc) {
            min_cpu = atof(argv[++i]);
        } else {
            fprintf(stderr, "usage: bench_study_rates [--min-cpu S]\n");
            return 2;
        }
    }
    if (!(min_cpu > 0))
        min_cpu = 1.0;
    printf("rate_sha256_compress %.0f blocks/cpu_s\n", sha_rate(min_cpu));
    static const struct {
        const char *name;
        mtc_sig_alg alg;
    } algs[] = {{"ed25519", MTC_SIG_ED25519},
                {"ecdsa-p256", MTC_SIG_ECDSA_P256},
                {"ml-dsa-44", MTC_SIG_MLDSA44},
                {"ml-dsa-65", MTC_SIG_MLDSA65},
                {"ml-dsa-87", MTC_SIG_MLDSA87}};
    for (size_t i = 0; i < sizeof algs / sizeof algs[0]; i++) {
        double s, v;
        int rc = sig_rates(algs[i].alg, min_cpu / 4, &s, &v);
        if (rc != MTC_OK) {
            fprintf(stderr, "bench_study_rates: %s: %s\n", algs[i].name,
                    mtc_strerror(rc));
            return 1;
        }
        printf("rate_sign_%s %.1f signatures/cpu_s\n", algs[i].name, s);
        printf("rate_verify_%s %.1f verifications/cpu_s\n", algs[i].name, v);
    }
    return 0;
}
