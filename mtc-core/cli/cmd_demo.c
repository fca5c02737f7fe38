/*
 * cmd_demo.c - `mtc demo`: a complete small MTC deployment in a directory:
 * CA, issuance log, witnesses, checkpoints, landmarks, CA certificate,
 * standalone and landmark-relative certificates (DER and PEM) and a
 * relying-party configuration.
 */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "castate.h"
#include "cli.h"
#include "mtc/error.h"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: mtc demo --out DIR [--entries N] [--sig-alg ALG] [--cosigners K]\n"
            "                [--ca-id ID] [--batches B] [--checkpoint-interval S]\n"
            "                [--landmark-interval S] [--lifetime S]\n\n"
            "Creates in DIR a CA (ID 32473.1 unless --ca-id) with issuance log 1,\n"
            "K witnesses besides the CA cosigner (default 2; IDs 32473.9999.<k>), N\n"
            "entries (default 8) for hosts host<i>.example issued in B batches\n"
            "(default 2) on a simulated clock: batch k is checkpointed, and the\n"
            "checkpoint signed, at t0 + k * checkpoint interval (default 3600 s), t0\n"
            "a landmark-interval boundary in the past. Landmarks are allocated as the\n"
            "draft recommends: at most one per landmark interval (default 3600 s),\n"
            "at the latest checkpoint; max_active_landmarks is\n"
            "ceil(lifetime / landmark interval) + 1, lifetime (default 604800 s)\n"
            "being the certificates' validity. Writes the CA certificate (ca.der,\n"
            "ca.pem), the signed checkpoint (checkpoint), the relying-party update\n"
            "(update.bin), for every entry a standalone and, once a landmark covers\n"
            "it, a landmark-relative certificate\n"
            "(certs/entry-<i>.{standalone,landmark}.{der,pem}), and DIR/rp, a\n"
            "relying party that requires the CA and all witnesses and has verified\n"
            "and installed update.bin (see `mtc rp update`).\n"
            "ALG: ed25519 (default), ecdsa-p256, or any algorithm of `mtc sizes`.\n");
}

/* The simulated clock of a demo: batch k of B closes at t0 + k * ci. */
typedef struct demo_clock {
    uint64_t batches, ci, li, lifetime;
    int64_t t0;
} demo_clock;

int cmd_demo(int argc, char **argv)
{
    if (cli_wants_help(argc, argv)) {
        usage(stdout);
        return CLI_OK;
    }
    const char *out = NULL, *ca_id = "32473.1", *alg_name = "ed25519";
    uint64_t n = 8, k = 2;
    demo_clock ck = {2, 3600, 3600, 7 * 86400, 0};
    struct {
        const char *name;
        uint64_t *v;
    } nums[] = {{"--entries", &n},         {"--cosigners", &k},
                {"--batches", &ck.batches}, {"--checkpoint-interval", &ck.ci},
                {"--landmark-interval", &ck.li}, {"--lifetime", &ck.lifetime}};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (i + 1 >= argc)
            return cli_usage_error("demo", "option '%s' needs a value (or is unknown)", a);
        const char *v = argv[++i];
        size_t j = 0;
        while (j < sizeof nums / sizeof nums[0] && strcmp(a, nums[j].name))
            j++;
        if (j < sizeof nums / sizeof nums[0]) {
            if (cli_parse_u64("demo", a, v, nums[j].v))
                return CLI_USAGE;
        } else if (!strcmp(a, "--out"))
            out = v;
        else if (!strcmp(a, "--ca-id"))
            ca_id = v;
        else if (!strcmp(a, "--sig-alg"))
            alg_name = v;
        else
            return cli_usage_error("demo", "unknown option '%s'", a);
    }
    if (!out)
        return cli_usage_error("demo", "--out DIR is required");
    if (n < 1 || n > 100000)
        return cli_usage_error("demo", "--entries %llu is outside 1..100000",
                               (unsigned long long)n);
    if (k > CA_MAX_WITNESSES)
        return cli_usage_error("demo", "--cosigners %llu exceeds %d",
                               (unsigned long long)k, CA_MAX_WITNESSES);
    if (ck.batches < 1 || ck.batches > n)
        return cli_usage_error("demo", "--batches %llu is outside 1..%llu",
                               (unsigned long long)ck.batches, (unsigned long long)n);
    const uint64_t year = 366 * 86400;
    if (ck.ci < 1 || ck.li < 1 || ck.lifetime < 1 || ck.ci > year ||
        ck.li > year || ck.lifetime > 10 * year || ck.batches * ck.ci > 10 * year)
        return cli_usage_error("demo", "intervals and lifetime must be positive "
                                       "and at most a year (lifetime ten)");
    if (mtc_max_active_landmarks(ck.lifetime, ck.li) > 100000)
        return cli_usage_error("demo", "--lifetime / --landmark-interval exceeds "
                                       "100000 active landmarks");
    const mtc_sig_info *info = mtc_sig_info_by_name(alg_name);
    if (!info)
        return cli_usage_error("demo", "--sig-alg '%s' is not a known algorithm", alg_name);
    mtc_taid probe;
    if (mtc_taid_from_text(ca_id, strlen(ca_id), &probe) != MTC_OK)
        return cli_usage_error("demo", "--ca-id '%s' is not a trust anchor ID", ca_id);

    char err[1024];
    ca_state st;
    int64_t now = (int64_t)time(NULL);
    int64_t span = (int64_t)(ck.batches * ck.ci);
    ck.t0 = (now - span) / (int64_t)ck.li * (int64_t)ck.li;
    int64_t nb = ck.t0, na = ck.t0 + (int64_t)ck.lifetime;
    uint64_t max_active = mtc_max_active_landmarks(ck.lifetime, ck.li);
    if (ca_create(&st, out, ca_id, info->alg, (size_t)k, max_active, nb - 86400, err,
                  sizeof err)) {
        fprintf(stderr, "mtc demo: %s\n", err);
        ca_free(&st);
        return CLI_FAIL;
    }
    char path[700];
    snprintf(path, sizeof path, "%s/certs", out);
    mkdir(path, 0777);
    uint8_t issuer[128];
    mtc_der_writer w;
    mtc_der_writer_init(&w, issuer, sizeof issuer);
    mtc_taid_name_der(&w, &st.ca_id);
    int rc = CLI_OK;
    uint64_t batch = 1;
    for (uint64_t i = 0; i < n && rc == CLI_OK; i++) {
        uint8_t seed[32] = {0}, pk[MTC_SIG_PK_MAX], spki[MTC_SIG_PK_MAX + 64];
        size_t pl, sl;
        mtc_sig_key *key;
        memcpy(seed, "demo subject", 12);
        for (int b = 0; b < 8; b++)
            seed[24 + b] = (uint8_t)(i >> (8 * b));
        if (mtc_sig_key_from_seed(info->alg, seed, &key) != MTC_OK) {
            rc = CLI_FAIL;
            break;
        }
        mtc_sig_key_public(key, pk, &pl);
        mtc_sig_key_free(key);
        mtc_sig_spki_der(info->alg, pk, pl, spki, sizeof spki, &sl);
        char host[64];
        snprintf(host, sizeof host, "host%llu.example", (unsigned long long)i);
        mtc_entry_scratch scratch;
        mtc_tbs_entry e;
        uint64_t idx;
        if (mtc_tbs_entry_tls_server(&e, &scratch, (mtc_slice){issuer, w.len}, nb,
                                     na, host, spki, sl) != MTC_OK ||
            ca_append(&st, (mtc_slice){NULL, 0}, &e, &idx, err, sizeof err)) {
            rc = CLI_FAIL;
            break;
        }
        if (i + 1 == batch * n / ck.batches) {
            int64_t t = ck.t0 + (int64_t)(batch * ck.ci);
            int allocated;
            if (ca_checkpoint(&st, (uint64_t)t, err, sizeof err) ||
                ca_allocate_landmark(&st, (uint64_t)t / ck.li, &allocated, err,
                                     sizeof err)) {
                rc = CLI_FAIL;
                break;
            }
            batch++;
        }
    }
    /* Certificates need the subject keys again: rebuild the entries. */
    uint64_t lr_written = 0;
    for (uint64_t i = 0; i < n && rc == CLI_OK; i++) {
        uint8_t seed[32] = {0}, pk[MTC_SIG_PK_MAX], spki[MTC_SIG_PK_MAX + 64];
        size_t pl, sl;
        mtc_sig_key *key;
        memcpy(seed, "demo subject", 12);
        for (int b = 0; b < 8; b++)
            seed[24 + b] = (uint8_t)(i >> (8 * b));
        mtc_sig_key_from_seed(info->alg, seed, &key);
        mtc_sig_key_public(key, pk, &pl);
        mtc_sig_key_free(key);
        mtc_sig_spki_der(info->alg, pk, pl, spki, sizeof spki, &sl);
        char host[64];
        snprintf(host, sizeof host, "host%llu.example", (unsigned long long)i);
        mtc_entry_scratch scratch;
        mtc_tbs_entry e;
        mtc_tbs_entry_tls_server(&e, &scratch, (mtc_slice){issuer, w.len}, nb, na,
                                 host, spki, sl);
        for (int lr = 0; lr < 2; lr++) {
            static uint8_t der[65536 + 8192];
            size_t len;
            int r = ca_cert(&st, i, lr, &e, (mtc_slice){NULL, 0}, spki, sl, der,
                            sizeof der, &len);
            if (lr && r == MTC_ERR_RANGE)
                continue; /* no landmark covers it yet: wait for one */
            lr_written += lr;
            if (r != MTC_OK) {
                snprintf(err, sizeof err, "certificate %llu: %s",
                         (unsigned long long)i, mtc_strerror(r));
                rc = CLI_FAIL;
                break;
            }
            const char *kind = lr ? "landmark" : "standalone";
            snprintf(path, sizeof path, "%s/certs/entry-%llu.%s.der", out,
                     (unsigned long long)i, kind);
            if (cli_write_file(path, der, len)) {
                snprintf(err, sizeof err, "cannot write '%s'", path);
                rc = CLI_FAIL;
                break;
            }
            snprintf(path, sizeof path, "%s/certs/entry-%llu.%s.pem", out,
                     (unsigned long long)i, kind);
            cli_write_pem(path, der, len);
        }
    }
    if (rc == CLI_OK && ca_write_rp(&st, err, sizeof err))
        rc = CLI_FAIL;
    if (rc == CLI_OK) {
        char id[MTC_TAID_TEXT_MAX];
        mtc_taid_to_text(&st.ca_id, id, sizeof id);
        printf("demo CA %s (%s, %zu witnesses): %llu entries in %llu checkpoints, "
               "%llu landmarks (one per %llu s, %llu active at most), %llu "
               "landmark-relative certificates, certificates in %s/certs, relying "
               "party in %s/rp\n",
               id, info->name, st.n_witnesses, (unsigned long long)n,
               (unsigned long long)ck.batches,
               (unsigned long long)mtc_landmarks_last(st.lm),
               (unsigned long long)ck.li, (unsigned long long)max_active,
               (unsigned long long)lr_written, out, out);
    } else {
        fprintf(stderr, "mtc demo: %s\n", err);
    }
    ca_free(&st);
    return rc;
}
