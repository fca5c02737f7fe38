/*
 * cmd_verify.c - `mtc verify`: the relying party's verification of MTC
 * certificates against a configuration directory.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "castate.h"
#include "cli.h"
#include "mtc/error.h"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: mtc verify --rp DIR [--at UNIXTIME | --ignore-validity] CERT...\n\n"
            "Verifies each certificate in CERT (DER, or PEM with one or more) as\n"
            "a relying party configured by DIR/ca.der (CA certificate) and\n"
            "DIR/rp.conf (cosigners, policy, trusted subtrees, revoked ranges),\n"
            "following the draft's procedure; the validity period is checked at\n"
            "the current time unless --at or --ignore-validity is given.\n"
            "Exit 0 when every certificate is valid, 1 (with the reason) when one\n"
            "is not, 2 for bad usage or a malformed configuration.\n");
}

/* Verifies every certificate in one file; prints a line each. */
static int verify_file(const mtc_rp_ca *rp, const char *cert, int64_t at)
{
    char err[600];
    uint8_t **ders;
    size_t *lens;
    int n = cli_read_certs(cert, &ders, &lens, err, sizeof err);
    if (n < 0) {
        fprintf(stderr, "mtc verify: %s\n", err);
        return CLI_FAIL;
    }
    int rc = CLI_OK;
    for (int i = 0; i < n; i++) {
        mtc_rp_result r;
        int v = mtc_rp_verify(rp, ders[i], lens[i], at, &r);
        char label[700];
        if (n > 1)
            snprintf(label, sizeof label, "%s[%d]", cert, i);
        else
            snprintf(label, sizeof label, "%s", cert);
        if (v == MTC_OK) {
            if (r.used_trusted_subtree)
                printf("%s: valid (serial log %llu index %llu, trusted subtree [%llu, %llu))\n",
                       label, (unsigned long long)r.log_number,
                       (unsigned long long)r.index, (unsigned long long)r.start,
                       (unsigned long long)r.end);
            else
                printf("%s: valid (serial log %llu index %llu, subtree [%llu, %llu), "
                       "%u valid signatures, %u ignored)\n",
                       label, (unsigned long long)r.log_number,
                       (unsigned long long)r.index, (unsigned long long)r.start,
                       (unsigned long long)r.end, r.valid_sigs, r.ignored_sigs);
        } else {
            printf("%s: invalid: %s (%s)\n", label, mtc_rp_reason_name(r.reason),
                   mtc_strerror(v));
            rc = CLI_FAIL;
        }
    }
    cli_free_certs(ders, lens, n);
    return rc;
}

int cmd_verify(int argc, char **argv)
{
    if (cli_wants_help(argc, argv)) {
        usage(stdout);
        return CLI_OK;
    }
    const char *rp_dir = NULL;
    const char *certs[256];
    int ncerts = 0;
    int64_t at = (int64_t)time(NULL);
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--ignore-validity")) {
            at = -1;
        } else if (!strcmp(argv[i], "--rp") && i + 1 < argc) {
            rp_dir = argv[++i];
        } else if (!strcmp(argv[i], "--at") && i + 1 < argc) {
            uint64_t v;
            if (cli_parse_u64("verify", "--at", argv[++i], &v))
                return CLI_USAGE;
            if (v > INT64_MAX)
                return cli_usage_error("verify", "--at %s is too large", argv[i]);
            at = (int64_t)v;
        } else if (argv[i][0] == '-') {
            return cli_usage_error("verify", "unknown option '%s'", argv[i]);
        } else if (ncerts < 256) {
            certs[ncerts++] = argv[i];
        } else {
            return cli_usage_error("verify", "more than 256 CERT arguments at '%s'",
                                   argv[i]);
        }
    }
    if (!rp_dir)
        return cli_usage_error("verify", "--rp DIR is required");
    if (!ncerts)
        return cli_usage_error("verify", "CERT is required");
    char err[600];
    mtc_rp_ca *rp;
    if (rp_load_dir(rp_dir, &rp, err, sizeof err)) {
        fprintf(stderr, "mtc verify: %s\n", err);
        return CLI_USAGE;
    }
    int rc = CLI_OK;
    for (int c = 0; c < ncerts; c++)
        if (verify_file(rp, certs[c], at) != CLI_OK)
            rc = CLI_FAIL;
    mtc_rp_ca_free(rp);
    return rc;
}
