/*
 * cmd_rp.c - `mtc rp update`: the relying party's provisioning path. An
 * update file (mtc/update.h) is verified against the relying party's own
 * CA certificate, cosigner keys and policy, and only then installed as
 * DIR/update.bin, from which `mtc verify` trusts landmark subtrees.
 *
 * The installed file is the whole of the relying party's landmark state:
 * rp_load_dir verifies it again at every load, so nothing in the
 * directory is trusted merely because it is there.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "castate.h"
#include "cli.h"
#include "mtc/error.h"

static int fail(char *err, size_t cap, int code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int fail(char *err, size_t cap, int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, cap, fmt, ap);
    va_end(ap);
    return code;
}

/* "cosigner-policy (log 1: 1 valid, 1 failed, 0 unknown cosignatures)" */
static int refused(const mtc_update *u, const mtc_update_result *r, char *err,
                   size_t cap)
{
    uint64_t log = r->log_index < u->n_logs ? u->logs[r->log_index].log_number : 0;
    return fail(err, cap, 1,
                "refused: %s (log %llu: %u valid, %u failed, %u unknown "
                "cosignatures)",
                mtc_update_reason_name(r->reason), (unsigned long long)log,
                r->valid_cosigs, r->invalid_cosigs, r->ignored_cosigs);
}

static int apply_bytes(mtc_rp_ca *rp, const uint8_t *in, size_t len,
                       mtc_update_result *res, char *err, size_t cap)
{
    mtc_update *u;
    int rc = mtc_update_decode(in, len, &u);
    if (rc != MTC_OK)
        return fail(err, cap, 1, "refused: not an update file (%s)",
                    mtc_strerror(rc));
    mtc_update_result r;
    rc = mtc_rp_ca_apply_update(rp, u, &r);
    if (res)
        *res = r;
    int out = rc == MTC_OK ? 0 : rc == MTC_ERR_NOMEM ? fail(err, cap, -1, "out of memory")
                                                     : refused(u, &r, err, cap);
    mtc_update_free(u);
    return out;
}

int rp_apply_file(mtc_rp_ca *rp, const char *path, mtc_update_result *res,
                  char *err, size_t cap)
{
    uint8_t *buf;
    size_t len;
    if (cli_read_file(path, &buf, &len))
        return fail(err, cap, -1, "cannot read '%s': %s", path, strerror(errno));
    char why[400];
    int rc = apply_bytes(rp, buf, len, res, why, sizeof why);
    free(buf);
    return rc ? fail(err, cap, rc, "%s: %s", path, why) : 0;
}

int rp_install_update(const char *dir, const uint8_t *in, size_t len,
                      mtc_update_result *res, char *err, size_t cap)
{
    mtc_rp_ca *rp;
    if (rp_load_dir(dir, &rp, err, cap))
        return -1;
    int rc = apply_bytes(rp, in, len, res, err, cap);
    mtc_rp_ca_free(rp);
    if (rc)
        return rc;
    /* Replace the installed file atomically: a crash leaves the old one. */
    char tmp[700], path[700];
    snprintf(tmp, sizeof tmp, "%s/update.bin.tmp", dir);
    snprintf(path, sizeof path, "%s/update.bin", dir);
    if (cli_write_file(tmp, in, len) || rename(tmp, path))
        return fail(err, cap, -1, "cannot write '%s': %s", path, strerror(errno));
    return 0;
}

static void usage(FILE *f)
{
    fprintf(f,
            "usage: mtc rp update --rp DIR UPDATE\n\n"
            "Verifies the relying-party update UPDATE (update.bin of a CA directory\n"
            "made by `mtc demo` or `mtc issue`) against the relying party in DIR\n"
            "(DIR/ca.der, DIR/rp.conf and the update installed before), as the\n"
            "draft's \"Trusted Subtrees\" section requires: the landmarks, a reference\n"
            "checkpoint containing the latest one, cosignatures on it (or on a\n"
            "larger checkpoint with a consistency proof) from enough of DIR's\n"
            "cosigners to meet its policy, and a consistency proof for every\n"
            "landmark subtree. Only then is it installed as DIR/update.bin, which\n"
            "`mtc verify --rp DIR` uses (verifying it again) for landmark-relative\n"
            "certificates. An update older than the installed one is refused.\n"
            "Exit 0 installed, 1 refused (with the reason), 2 bad usage or a\n"
            "malformed DIR.\n");
}

int cmd_rp(int argc, char **argv)
{
    if (cli_wants_help(argc, argv)) {
        usage(stdout);
        return CLI_OK;
    }
    if (argc < 2 || strcmp(argv[1], "update"))
        return cli_usage_error("rp", "the only subcommand is 'update'");
    const char *dir = NULL, *file = NULL;
    for (int i = 2; i < argc; i++) {
        if (!strcmp(argv[i], "--rp") && i + 1 < argc)
            dir = argv[++i];
        else if (argv[i][0] == '-' || file)
            return cli_usage_error("rp", "unexpected argument '%s'", argv[i]);
        else
            file = argv[i];
    }
    if (!dir)
        return cli_usage_error("rp", "--rp DIR is required");
    if (!file)
        return cli_usage_error("rp", "UPDATE is required");
    uint8_t *buf;
    size_t len;
    if (cli_read_file(file, &buf, &len)) {
        fprintf(stderr, "mtc rp: cannot read '%s': %s\n", file, strerror(errno));
        return CLI_FAIL;
    }
    char err[700];
    mtc_rp_ca *probe;
    if (rp_load_dir(dir, &probe, err, sizeof err)) {
        fprintf(stderr, "mtc rp: %s\n", err);
        free(buf);
        return CLI_USAGE;
    }
    mtc_rp_ca_free(probe);
    mtc_update_result r;
    int rc = rp_install_update(dir, buf, len, &r, err, sizeof err);
    if (rc) {
        fprintf(stderr, "mtc rp: %s: %s\n", file, err);
        free(buf);
        return CLI_FAIL;
    }
    mtc_update *u;
    mtc_update_decode(buf, len, &u); /* accepted above */
    for (size_t i = 0; u && i < u->n_logs; i++) {
        mtc_landmarks *lm = NULL;
        const mtc_update_log *lg = &u->logs[i];
        mtc_landmarks_parse((const char *)lg->landmarks.p, lg->landmarks.len, 0,
                            lg->ref_size, &lm, NULL);
        uint64_t last = lm ? mtc_landmarks_last(lm) : 0;
        uint64_t first = lm ? mtc_landmarks_first_kept(lm) + 1 : 0;
        char range[64] = "no landmarks yet";
        if (last)
            snprintf(range, sizeof range, "landmarks %llu..%llu",
                     (unsigned long long)first, (unsigned long long)last);
        printf("log %llu: %s trusted (%zu subtrees), reference checkpoint of "
               "%llu entries, %zu cosignatures\n",
               (unsigned long long)lg->log_number, range, lg->n_subtrees,
               (unsigned long long)lg->ref_size, lg->n_cosigs);
        mtc_landmarks_free(lm);
    }
    printf("installed %s/update.bin (%u valid cosignatures on the last log)\n", dir,
           r.valid_cosigs);
    mtc_update_free(u);
    free(buf);
    return CLI_OK;
}
