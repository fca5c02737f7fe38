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
            "                [--ca-id ID]\n\n"
            "Creates in DIR a CA (ID 32473.1 unless --ca-id) with issuance log 1,\n"
            "K witnesses besides the CA cosigner (default 2), N entries (default 8)\n"
            "for hosts host<i>.example issued in two checkpointed batches with a\n"
            "landmark after each, the CA certificate (ca.der, ca.pem), for every\n"
            "entry a standalone and a landmark-relative certificate\n"
            "(certs/entry-<i>.{standalone,landmark}.{der,pem}), and DIR/rp, a\n"
            "relying party that requires the CA and all witnesses.\n"
            "ALG: ed25519 (default), ecdsa-p256, or any algorithm of `mtc sizes`.\n");
}

int cmd_demo(int argc, char **argv)
{
    if (cli_wants_help(argc, argv)) {
        usage(stdout);
        return CLI_OK;
    }
    const char *out = NULL, *ca_id = "32473.1", *alg_name = "ed25519";
    uint64_t n = 8, k = 2;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (i + 1 >= argc)
            return cli_usage_error("demo", "option '%s' needs a value (or is unknown)", a);
        const char *v = argv[++i];
        if (!strcmp(a, "--out"))
            out = v;
        else if (!strcmp(a, "--ca-id"))
            ca_id = v;
        else if (!strcmp(a, "--sig-alg"))
            alg_name = v;
        else if (!strcmp(a, "--entries")) {
            if (cli_parse_u64("demo", "--entries", v, &n))
                return CLI_USAGE;
        } else if (!strcmp(a, "--cosigners")) {
            if (cli_parse_u64("demo", "--cosigners", v, &k))
                return CLI_USAGE;
        } else
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
    const mtc_sig_info *info = mtc_sig_info_by_name(alg_name);
    if (!info)
        return cli_usage_error("demo", "--sig-alg '%s' is not a known algorithm", alg_name);
    mtc_taid probe;
    if (mtc_taid_from_text(ca_id, strlen(ca_id), &probe) != MTC_OK)
        return cli_usage_error("demo", "--ca-id '%s' is not a trust anchor ID", ca_id);

    char err[1024];
    ca_state st;
    int64_t now = (int64_t)time(NULL);
    int64_t nb = now - 3600;
    if (ca_create(&st, out, ca_id, info->alg, (size_t)k, 8, nb - 86400, err, sizeof err)) {
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
    uint64_t half = (n + 1) / 2;
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
                                     nb + 7 * 86400, host, spki, sl) != MTC_OK ||
            ca_append(&st, (mtc_slice){NULL, 0}, &e, &idx, err, sizeof err)) {
            rc = CLI_FAIL;
            break;
        }
        if (i + 1 == half || i + 1 == n) {
            if (ca_checkpoint(&st, err, sizeof err) || ca_landmark(&st, err, sizeof err)) {
                rc = CLI_FAIL;
                break;
            }
        }
    }
    /* Certificates need the subject keys again: rebuild the entries. */
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
        mtc_tbs_entry_tls_server(&e, &scratch, (mtc_slice){issuer, w.len}, nb,
                                 nb + 7 * 86400, host, spki, sl);
        for (int lr = 0; lr < 2; lr++) {
            static uint8_t der[65536 + 8192];
            size_t len;
            int r = ca_cert(&st, i, lr, &e, (mtc_slice){NULL, 0}, spki, sl, der,
                            sizeof der, &len);
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
        printf("demo CA %s (%s, %zu witnesses): %llu entries, %llu landmarks, "
               "certificates in %s/certs, relying party in %s/rp\n",
               id, info->name, st.n_witnesses, (unsigned long long)n,
               (unsigned long long)mtc_landmarks_last(st.lm), out, out);
    } else {
        fprintf(stderr, "mtc demo: %s\n", err);
    }
    ca_free(&st);
    return rc;
}
