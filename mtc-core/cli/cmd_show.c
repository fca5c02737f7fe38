/*
 * cmd_show.c - `mtc show`: prints a certificate and its MTCProof (or, for
 * a CA certificate, its MTC CA parameters).
 */
#include <openssl/x509.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "castate.h"
#include "cli.h"
#include "mtc/error.h"

static void print_name(const char *label, mtc_slice name)
{
    const uint8_t *p = name.p;
    X509_NAME *n = d2i_X509_NAME(NULL, &p, (long)name.len);
    printf("  %s: ", label);
    if (n) {
        X509_NAME_print_ex_fp(stdout, n, 0, XN_FLAG_RFC2253);
        X509_NAME_free(n);
    } else {
        printf("(unprintable)");
    }
    mtc_taid id;
    char text[MTC_TAID_TEXT_MAX];
    if (mtc_taid_from_name(name, &id) == MTC_OK &&
        mtc_taid_to_text(&id, text, sizeof text) == MTC_OK)
        printf("  [CA ID %s]", text);
    printf("\n");
}

static void print_time(int64_t t, char *out, size_t cap)
{
    time_t tt = (time_t)t;
    struct tm tm;
    gmtime_r(&tt, &tm);
    strftime(out, cap, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

static void print_alg(const char *label, mtc_slice alg)
{
    mtc_der_reader r, s;
    mtc_slice oid;
    char text[256] = "?";
    mtc_der_reader_init(&r, alg.p, alg.len);
    if (mtc_der_enter(&r, MTC_DER_SEQUENCE, &s, NULL) == MTC_OK &&
        mtc_der_get(&s, MTC_DER_OID, &oid, NULL) == MTC_OK)
        mtc_der_oid_to_text(oid, 0, text, sizeof text);
    const char *known = !strcmp(text, "1.3.6.1.4.1.44363.47.0") ? " (id-alg-mtcProof)"
                        : !strcmp(text, "1.3.6.1.5.5.7.6.36")  ? " (id-alg-unsigned)"
                                                                : "";
    printf("  %s: %s%s%s\n", label, text, known, mtc_der_empty(&s) ? "" : " with parameters");
}

/* The trust anchor ID a TLS client would need for this certificate (draft
 * "Use in TLS"): the CA ID for a standalone one, CA.1.log.L for one
 * relative to landmark L, which only the landmark sequence names. */
static void print_ta_id(const mtc_cert *c, const mtc_proof *p,
                        const mtc_landmarks *lm)
{
    mtc_taid ca, id;
    char text[MTC_TAID_TEXT_MAX];
    uint64_t log = c->serial_num >> 48, l;
    if (c->serial_status != MTC_OK || mtc_taid_from_name(c->issuer, &ca) != MTC_OK ||
        mtc_taid_to_text(&ca, text, sizeof text) != MTC_OK)
        return;
    if (p->n_sigs_total)
        printf("    trust anchor ID: %s (standalone: the CA ID)\n", text);
    else if (!lm)
        printf("    trust anchor ID: %s.1.%llu.<L>, L the landmark with subtree "
               "[%llu, %llu) (--landmarks FILE names it)\n",
               text, (unsigned long long)log, (unsigned long long)p->start,
               (unsigned long long)p->end);
    else if (mtc_landmarks_find_subtree(lm, p->start, p->end, &l) == MTC_OK &&
             mtc_taid_landmark_id(&ca, log, l, &id) == MTC_OK &&
             mtc_taid_to_text(&id, text, sizeof text) == MTC_OK)
        printf("    trust anchor ID: %s (landmark %llu)\n", text, (unsigned long long)l);
    else
        printf("    trust anchor ID: none: no active landmark has subtree [%llu, %llu)\n",
               (unsigned long long)p->start, (unsigned long long)p->end);
}

static int show_one(const char *label, const uint8_t *der, size_t len,
                    const mtc_landmarks *lm)
{
    mtc_cert c;
    int rc = mtc_cert_parse(der, len, &c);
    if (rc != MTC_OK) {
        printf("%s: not a DER X.509 certificate: %s\n", label, mtc_strerror(rc));
        return CLI_FAIL;
    }
    printf("%s: certificate, %zu bytes\n", label, len);
    printf("  version: v%u\n", c.version_num + 1);
    int is_mtc = c.tbs_sig_alg.len == MTC_ALG_MTC_PROOF_DER_LEN &&
                 !memcmp(c.tbs_sig_alg.p, MTC_ALG_MTC_PROOF_DER, c.tbs_sig_alg.len);
    if (c.serial_status == MTC_OK && is_mtc) /* only MTC serials have parts */
        printf("  serial: 0x%016llx (log %llu, index %llu)\n",
               (unsigned long long)c.serial_num,
               (unsigned long long)(c.serial_num >> 48),
               (unsigned long long)(c.serial_num & ((UINT64_C(1) << 48) - 1)));
    else if (c.serial_status == MTC_OK)
        printf("  serial: 0x%016llx\n", (unsigned long long)c.serial_num);
    else
        printf("  serial: outside [0, 2^64)\n");
    print_alg("signature", c.tbs_sig_alg);
    print_name("issuer", c.issuer);
    char a[32], b[32];
    print_time(c.not_before, a, sizeof a);
    print_time(c.not_after, b, sizeof b);
    printf("  validity: %s .. %s\n", a, b);
    print_name("subject", c.subject);
    print_alg("public key", c.spki_alg);
    mtc_hash h;
    char hx[65];
    mtc_sha256(c.spki.p, c.spki.len, &h);
    mtc_hash_to_hex(&h, hx);
    printf("  public key info: %zu bytes, SHA-256 %s\n", c.spki.len, hx);
    printf("  extensions: %zu bytes\n", c.extensions.len);
    mtc_ca_params ca;
    if (mtc_ca_cert_parse(der, len, &ca) == MTC_OK) {
        char id[MTC_TAID_TEXT_MAX];
        mtc_taid_to_text(&ca.ca_id, id, sizeof id);
        printf("  MTC CA: ID %s, log hash SHA-256, cosigner %s, serials "
               "[0x%016llx, 0x%016llx]\n",
               id, mtc_sig_info_get(ca.alg)->name, (unsigned long long)ca.min_serial,
               (unsigned long long)ca.max_serial);
        return CLI_OK;
    }
    if (c.tbs_sig_alg.len != MTC_ALG_MTC_PROOF_DER_LEN ||
        memcmp(c.tbs_sig_alg.p, MTC_ALG_MTC_PROOF_DER, c.tbs_sig_alg.len))
        return CLI_OK;
    mtc_proof p;
    if (!c.sig_whole_octets ||
        (rc = mtc_proof_decode(c.sig_value.p, c.sig_value.len, &p)) != MTC_OK) {
        printf("  MTCProof: malformed (%s)\n", mtc_strerror(rc ? rc : MTC_ERR_CERT));
        return CLI_FAIL;
    }
    printf("  MTCProof: %zu bytes\n", c.sig_value.len);
    printf("    entry extensions: %zu bytes\n", p.extensions.len);
    printf("    subtree: [%llu, %llu) (%llu entries)\n", (unsigned long long)p.start,
           (unsigned long long)p.end, (unsigned long long)(p.end - p.start));
    printf("    inclusion proof: %zu hashes\n", p.n_inclusion);
    for (size_t i = 0; i < p.n_inclusion; i++) {
        mtc_hash_to_hex(&p.inclusion[i], hx);
        printf("      %s\n", hx);
    }
    printf("    signatures: %zu%s\n", p.n_sigs_total,
           p.n_sigs_total ? "" : " (landmark-relative certificate)");
    size_t cur = 0;
    mtc_subtree_sig sg;
    while (mtc_proof_sig_next(&p, &cur, &sg)) {
        mtc_taid id;
        char text[MTC_TAID_TEXT_MAX] = "(malformed ID)";
        if (mtc_taid_from_binary(sg.cosigner_id.p, sg.cosigner_id.len, &id) == MTC_OK)
            mtc_taid_to_text(&id, text, sizeof text);
        printf("      cosigner %s: %zu-byte signature\n", text, sg.signature.len);
    }
    print_ta_id(&c, &p, lm);
    mtc_hash eh;
    if (mtc_cert_entry_hash(&c, p.extensions, &eh) == MTC_OK) {
        mtc_hash_to_hex(&eh, hx);
        printf("    entry hash: %s\n", hx);
    }
    return CLI_OK;
}

int cmd_show(int argc, char **argv)
{
    if (cli_wants_help(argc, argv)) {
        printf("usage: mtc show [--landmarks FILE] CERT\n\n"
               "Prints each certificate in CERT (DER, or PEM with one or more):\n"
               "its fields, and the decoded MTCProof (subtree, inclusion proof,\n"
               "cosigner signatures, trust anchor ID) or, for a CA certificate,\n"
               "its MTC CA parameters. A landmark-relative certificate's trust\n"
               "anchor ID names its landmark, which FILE (the CA's published\n"
               "landmarks) resolves. Exit 1 when a certificate cannot be decoded.\n");
        return CLI_OK;
    }
    mtc_landmarks *lm = NULL;
    if (argc == 4 && !strcmp(argv[1], "--landmarks")) {
        uint8_t *text;
        size_t tl, line = 0;
        if (cli_read_file(argv[2], &text, &tl))
            return cli_usage_error("show", "cannot read --landmarks '%s'", argv[2]);
        int lrc = mtc_landmarks_parse((const char *)text, tl, 0, UINT64_MAX, &lm, &line);
        free(text);
        if (lrc != MTC_OK)
            return cli_usage_error("show", "--landmarks '%s' line %zu: %s", argv[2],
                                   line, mtc_strerror(lrc));
        argv += 2;
        argc -= 2;
    }
    if (argc != 2) {
        mtc_landmarks_free(lm);
        return cli_usage_error("show", argc < 2 ? "CERT is required"
                                                : "exactly one CERT argument expected");
    }
    char err[600];
    uint8_t **ders;
    size_t *lens;
    int n = cli_read_certs(argv[1], &ders, &lens, err, sizeof err);
    if (n < 0) {
        fprintf(stderr, "mtc show: %s\n", err);
        mtc_landmarks_free(lm);
        return CLI_FAIL;
    }
    int rc = CLI_OK;
    for (int i = 0; i < n; i++) {
        char label[700];
        if (n > 1)
            snprintf(label, sizeof label, "%s[%d]", argv[1], i);
        else
            snprintf(label, sizeof label, "%s", argv[1]);
        if (show_one(label, ders[i], lens[i], lm) != CLI_OK)
            rc = CLI_FAIL;
    }
    cli_free_certs(ders, lens, n);
    mtc_landmarks_free(lm);
    return rc;
}
