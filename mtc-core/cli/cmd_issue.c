/*
 * cmd_issue.c - `mtc issue`: "what would my certificate look like as an
 * MTC?" Appends an entry with the subject, validity, extensions and
 * public key of existing X.509 certificates to a demo CA's log, closes
 * the batch, and writes the resulting MTC certificates.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "castate.h"
#include "cli.h"
#include "mtc/error.h"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: mtc issue --ca DIR --from-x509 CERT.pem --out OUT.der [--landmark]\n"
            "                 [--allow-ca]\n\n"
            "DIR is a CA directory made by `mtc demo`. Each certificate in CERT.pem\n"
            "(PEM, one or more; or a single DER certificate) becomes a log entry\n"
            "with its version, validity, subject, unique IDs, extensions and\n"
            "public key; the issuer becomes the CA's ID, and with it the\n"
            "extensions that describe the issuer: the authority key identifier\n"
            "becomes the CA ID (the CA certificate's subject key identifier) and an\n"
            "issuer alternative name is dropped. A CA certificate (basicConstraints\n"
            "cA) is refused unless --allow-ca: an MTC CA that certifies a\n"
            "subordinate CA lets its certificates bypass the issuance log (draft,\n"
            "\"Subordinate Certification Authorities\"); such lines say \"CA\".\n"
            "All are checkpointed in one batch; the CA and its witnesses sign the\n"
            "checkpoint (now) and its subtrees. Writes the standalone certificate\n"
            "to OUT.der (several inputs: OUT-<i>.der), and DIR/update.bin, which\n"
            "DIR/rp verifies and installs. --landmark also allocates a landmark at\n"
            "the new checkpoint and writes the landmark-relative certificates\n"
            "(OUT.landmark.der). An OUT ending in .pem gets PEM instead of DER.\n"
            "Prints one line per certificate.\n");
}

static const uint8_t OID_BC[] = {0x55, 0x1d, 0x13};   /* basicConstraints */
static const uint8_t OID_AKI[] = {0x55, 0x1d, 0x23};  /* authorityKeyIdentifier */
static const uint8_t OID_IAN[] = {0x55, 0x1d, 0x12};  /* issuerAltName */

/* 1 when the certificate asserts basicConstraints cA TRUE. */
static int is_ca_cert(const mtc_cert *c)
{
    int crit;
    mtc_slice v, b;
    mtc_der_reader r, s;
    if (mtc_cert_find_ext(c, OID_BC, sizeof OID_BC, &crit, &v) != MTC_OK)
        return 0;
    mtc_der_reader_init(&r, v.p, v.len);
    return mtc_der_enter(&r, MTC_DER_SEQUENCE, &s, NULL) == MTC_OK &&
           mtc_der_peek(&s) == MTC_DER_BOOLEAN &&
           mtc_der_get(&s, MTC_DER_BOOLEAN, &b, NULL) == MTC_OK && b.len == 1 &&
           b.p[0] == 0xff;
}

static void put_aki(mtc_der_writer *w, const mtc_taid *ca_id)
{
    size_t mx = mtc_der_open(w, MTC_DER_SEQUENCE);
    mtc_der_prim(w, MTC_DER_OID, OID_AKI, sizeof OID_AKI);
    size_t mo = mtc_der_open(w, MTC_DER_OCTET_STRING);
    size_t ms = mtc_der_open(w, MTC_DER_SEQUENCE);
    mtc_der_prim(w, MTC_DER_CONTEXT | 0, ca_id->b, ca_id->len);
    mtc_der_close(w, ms);
    mtc_der_close(w, mo);
    mtc_der_close(w, mx);
}

/*
 * The input's extensions with the issuer's replaced: its authority key
 * identifier becomes the MTC CA's (keyIdentifier = the CA ID, which the CA
 * certificate carries as subject key identifier), added last when absent,
 * and its issuerAltName is dropped (it named the old issuer, and the
 * draft allows only a label of its own form there). Inputs without
 * extensions keep none.
 */
static int reissue_exts(mtc_slice exts, const mtc_taid *ca_id, uint8_t *out,
                        size_t cap, mtc_slice *res)
{
    if (exts.len == 0) {
        *res = exts;
        return MTC_OK;
    }
    mtc_der_reader r, outer, list;
    mtc_der_reader_init(&r, exts.p, exts.len);
    if (mtc_der_enter(&r, MTC_DER_CONTEXT | MTC_DER_CONSTRUCTED | 3, &outer, NULL) ||
        mtc_der_enter(&outer, MTC_DER_SEQUENCE, &list, NULL))
        return MTC_ERR_CERT;
    mtc_der_writer w;
    mtc_der_writer_init(&w, out, cap);
    size_t m3 = mtc_der_open(&w, MTC_DER_CONTEXT | MTC_DER_CONSTRUCTED | 3);
    size_t ml = mtc_der_open(&w, MTC_DER_SEQUENCE);
    int had_aki = 0;
    while (!mtc_der_empty(&list)) {
        mtc_der_reader ext;
        mtc_slice whole, oid;
        if (mtc_der_enter(&list, MTC_DER_SEQUENCE, &ext, &whole) ||
            mtc_der_get(&ext, MTC_DER_OID, &oid, NULL))
            return MTC_ERR_CERT;
        if (oid.len == 3 && !memcmp(oid.p, OID_AKI, 3)) {
            put_aki(&w, ca_id);
            had_aki = 1;
        } else if (!(oid.len == 3 && !memcmp(oid.p, OID_IAN, 3))) {
            mtc_der_raw(&w, whole.p, whole.len);
        }
    }
    if (!had_aki)
        put_aki(&w, ca_id);
    mtc_der_close(&w, ml);
    mtc_der_close(&w, m3);
    *res = (mtc_slice){out, w.len};
    return w.err;
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
    int landmark = 0, allow_ca = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--landmark") || !strcmp(argv[i], "--allow-ca")) {
            *(argv[i][2] == 'l' ? &landmark : &allow_ca) = 1;
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
    uint8_t **exts = calloc((size_t)n, sizeof *exts);
    int rc = in && e && idx && exts ? CLI_OK : CLI_FAIL;
    for (int i = 0; i < n && rc == CLI_OK; i++) {
        int prc = mtc_cert_parse(ders[i], lens[i], &in[i]);
        if (prc != MTC_OK) {
            fprintf(stderr, "mtc issue: certificate %d of '%s' is not DER X.509: %s\n",
                    i, from, mtc_strerror(prc));
            rc = CLI_FAIL;
            break;
        }
        if (is_ca_cert(&in[i]) && !allow_ca) {
            fprintf(stderr, "mtc issue: certificate %d of '%s' is a CA certificate "
                            "(basicConstraints cA): refused without --allow-ca\n",
                    i, from);
            rc = CLI_FAIL;
            break;
        }
        mtc_cert_tbs_entry(&in[i], &e[i]);
        e[i].issuer = (mtc_slice){issuer, w.len};
        size_t cap = in[i].extensions.len + 64 + st.ca_id.len;
        exts[i] = malloc(cap);
        int xrc = exts[i] ? reissue_exts(in[i].extensions, &st.ca_id, exts[i], cap,
                                         &e[i].extensions)
                          : MTC_ERR_NOMEM;
        if (xrc != MTC_OK) {
            fprintf(stderr, "mtc issue: certificate %d: extensions: %s\n", i,
                    mtc_strerror(xrc));
            rc = CLI_FAIL;
            break;
        }
        if (ca_append(&st, (mtc_slice){NULL, 0}, &e[i], &idx[i], err, sizeof err)) {
            fprintf(stderr, "mtc issue: certificate %d: %s\n", i, err);
            rc = CLI_FAIL;
        }
    }
    if (rc == CLI_OK && (ca_checkpoint(&st, (uint64_t)time(NULL), err, sizeof err) ||
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
                printf("%s index %llu serial 0x%016llx %s %zu bytes (X.509 input %zu "
                       "bytes)%s\n",
                       name, (unsigned long long)idx[i],
                       (unsigned long long)mtc_serial(st.log_number, idx[i]),
                       lr ? "landmark-relative" : "standalone", len, lens[i],
                       is_ca_cert(&in[i]) ? " CA" : "");
            }
        }
    }
    for (int i = 0; exts && i < n; i++)
        free(exts[i]);
    free(exts);
    free(in);
    free(e);
    free(idx);
    ca_free(&st);
    cli_free_certs(ders, lens, n);
    return rc;
}
