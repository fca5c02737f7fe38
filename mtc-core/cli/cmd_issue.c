/*
 * cmd_issue.c - `mtc issue`: "what would my certificate look like as an
 * MTC?" Appends an entry with the subject, validity, extensions and
 * public key of existing X.509 certificates to a demo CA's log, closes
 * the batch, and writes the resulting MTC certificates.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "castate.h"
#include "cli.h"
#include "mtc/error.h"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: mtc issue --ca DIR --from-x509 CERT.pem --out OUT.der [--landmark]\n\n"
            "DIR is a CA directory made by `mtc demo`. Each certificate in CERT.pem\n"
            "(PEM, one or more; or a single DER certificate) becomes a log entry\n"
            "with its version, validity, subject, unique IDs, extensions and\n"
            "public key; the issuer becomes the CA's ID. All are checkpointed in\n"
            "one batch and cosigned by the CA and its witnesses. Writes the\n"
            "standalone certificate to OUT.der (several inputs: OUT-<i>.der).\n"
            "--landmark also allocates a landmark at the new checkpoint, writes\n"
            "the landmark-relative certificates (OUT.landmark.der) and updates\n"
            "DIR/rp. An OUT ending in .pem gets PEM instead of DER.\n"
            "Prints one line per certificate.\n");
}

/* "dir/x.der" + (i, tag) -> "dir/x-<i>.<tag>.der" */
static void out_name(const char *out, int multi, int i, const char *tag,
                     char *buf, size_t cap)
{
    const char *slash = strrchr(out, '/');
    const char *dot = strrchr(out, '.');
    size_t base = dot && (!slash || dot > slash) ? (size_t)(dot - out) : strlen(out);
    const char *ext = dot && (!slash || dot > slash) ? dot : "";
    char idx[32] = "";
    if (multi)
        snprintf(idx, sizeof idx, "-%d", i);
    snprintf(buf, cap, "%.*s%s%s%s%s", (int)base, out, idx, tag[0] ? "." : "", tag, ext);
}

int cmd_issue(int argc, char **argv)
{
    if (cli_wants_help(argc, argv)) {
        usage(stdout);
        return CLI_OK;
    }
    const char *ca_dir = NULL, *from = NULL, *out = NULL;
    int landmark = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--landmark")) {
            landmark = 1;
            continue;
        }
        if (i + 1 >= argc)
            return cli_usage_error("issue", "option '%s' needs a value (or is unknown)",
                                   argv[i]);
        if (!strcmp(argv[i], "--ca"))
            ca_dir = argv[++i];
        else if (!strcmp(argv[i], "--from-x509"))
            from = argv[++i];
        else if (!strcmp(argv[i], "--out"))
            out = argv[++i];
        else
            return cli_usage_error("issue", "unknown option '%s'", argv[i]);
    }
    if (!ca_dir)
        return cli_usage_error("issue", "--ca DIR is required");
    if (!from)
        return cli_usage_error("issue", "--from-x509 CERT is required");
    if (!out)
        return cli_usage_error("issue", "--out FILE is required");

    char err[512];
    uint8_t **ders;
    size_t *lens;
    int n = cli_read_certs(from, &ders, &lens, err, sizeof err);
    if (n < 0) {
        fprintf(stderr, "mtc issue: %s\n", err);
        return CLI_FAIL;
    }
    ca_state st;
    if (ca_load(&st, ca_dir, err, sizeof err)) {
        fprintf(stderr, "mtc issue: %s: %s\n", ca_dir, err);
        ca_free(&st);
        cli_free_certs(ders, lens, n);
        return CLI_FAIL;
    }
    size_t ol = strlen(out);
    int pem = ol >= 4 && !strcmp(out + ol - 4, ".pem");
    uint8_t issuer[128];
    mtc_der_writer w;
    mtc_der_writer_init(&w, issuer, sizeof issuer);
    mtc_taid_name_der(&w, &st.ca_id);
    mtc_cert *in = calloc((size_t)n, sizeof *in);
    mtc_tbs_entry *e = calloc((size_t)n, sizeof *e);
    uint64_t *idx = calloc((size_t)n, sizeof *idx);
    int rc = in && e && idx ? CLI_OK : CLI_FAIL;
    for (int i = 0; i < n && rc == CLI_OK; i++) {
        int prc = mtc_cert_parse(ders[i], lens[i], &in[i]);
        if (prc != MTC_OK) {
            fprintf(stderr, "mtc issue: certificate %d of '%s' is not DER X.509: %s\n",
                    i, from, mtc_strerror(prc));
            rc = CLI_FAIL;
            break;
        }
        mtc_cert_tbs_entry(&in[i], &e[i]);
        e[i].issuer = (mtc_slice){issuer, w.len};
        if (ca_append(&st, (mtc_slice){NULL, 0}, &e[i], &idx[i], err, sizeof err)) {
            fprintf(stderr, "mtc issue: certificate %d: %s\n", i, err);
            rc = CLI_FAIL;
        }
    }
    if (rc == CLI_OK && (ca_checkpoint(&st, err, sizeof err) ||
                         (landmark && ca_landmark(&st, err, sizeof err)) ||
                         ca_write_rp(&st, err, sizeof err))) {
        fprintf(stderr, "mtc issue: %s\n", err);
        rc = CLI_FAIL;
    }
    for (int i = 0; i < n && rc == CLI_OK; i++) {
        for (int lr = 0; lr <= landmark && rc == CLI_OK; lr++) {
            static uint8_t der[65536 + 65536];
            size_t len;
            int r = ca_cert(&st, idx[i], lr, &e[i], (mtc_slice){NULL, 0},
                            in[i].spki.p, in[i].spki.len, der, sizeof der, &len);
            char name[1024];
            out_name(out, n > 1, i, lr ? "landmark" : "", name, sizeof name);
            if (r != MTC_OK) {
                fprintf(stderr, "mtc issue: certificate %d: %s\n", i, mtc_strerror(r));
                rc = CLI_FAIL;
            } else if (pem ? cli_write_pem(name, der, len) : cli_write_file(name, der, len)) {
                fprintf(stderr, "mtc issue: cannot write '%s'\n", name);
                rc = CLI_FAIL;
            } else {
                printf("%s index %llu serial 0x%016llx %s %zu bytes (X.509 input %zu bytes)\n",
                       name, (unsigned long long)idx[i],
                       (unsigned long long)mtc_serial(st.log_number, idx[i]),
                       lr ? "landmark-relative" : "standalone", len, lens[i]);
            }
        }
    }
    free(in);
    free(e);
    free(idx);
    ca_free(&st);
    cli_free_certs(ders, lens, n);
    return rc;
}
