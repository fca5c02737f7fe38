/*
 * fuzz_ldp.c - libFuzzer target: the Landmark Distribution Points parser
 * (mtc/ldp.h), over the bytes a relying party takes from a server.
 *
 * The first input byte picks what the rest is: 0 an extnValue
 * (mtc_ldp_decode), 1 a whole certificate (mtc_ldp_from_cert), 2 a
 * certificate's [3] Extensions element (mtc_ldp_ext_append). For each: an
 * accepted extnValue re-encodes to exactly the input (the format is
 * canonical) and every URI it names makes a request URL; a refused one
 * leaves nothing decoded; an extensions element either takes the
 * extension and then holds it once (a second append is refused), or is
 * refused.
 *
 * Seeds (tests/fuzz/ldp/): written by this file's main when built with
 * -DFUZZ_LDP_SEEDS, from the test fixture's CA.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mtc/error.h"
#include "mtc/ldp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint8_t buf[1 << 17];

static void check_decoded(const mtc_ldp *d, const uint8_t *in, size_t len, int exact)
{
    size_t n = 0;
    if (d->n == 0 || d->n > MTC_LDP_MAX_URIS ||
        mtc_ldp_encode(d, buf, sizeof buf, &n) != MTC_OK)
        abort();
    if (exact && (n != len || memcmp(buf, in, len) != 0))
        abort();
    mtc_taid ca;
    if (mtc_taid_from_text("32473.1", 7, &ca) != MTC_OK)
        abort();
    for (size_t i = 0; i < d->n; i++) {
        char url[600];
        size_t ul = 0;
        if (mtc_ldp_request(d->uri[i], &ca, 1, 42, url, sizeof url, &ul) != MTC_OK ||
            ul != strlen(url) || ul <= d->uri[i].len)
            abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    const uint8_t *in = data + 1;
    size_t len = size - 1;
    mtc_ldp d;
    switch (data[0] % 3) {
    case 0:
        if (mtc_ldp_decode(in, len, &d) == MTC_OK)
            check_decoded(&d, in, len, 1);
        else if (d.n != 0)
            abort();
        break;
    case 1:
        if (mtc_ldp_from_cert(in, len, &d) == MTC_OK)
            check_decoded(&d, NULL, 0, 0);
        else if (d.n != 0)
            abort();
        break;
    default: {
        static const uint8_t uri[] = "http://ldp.fuzz.example/";
        mtc_ldp one = {1, {{uri, sizeof uri - 1}}};
        size_t n = 0, n2 = 0;
        static uint8_t out2[sizeof buf + 64];
        if (mtc_ldp_ext_append((mtc_slice){in, len}, &one, buf, sizeof buf, &n) != MTC_OK)
            break;
        if (n <= len || mtc_der_validate(buf, n) != MTC_OK)
            abort();
        if (mtc_ldp_ext_append((mtc_slice){buf, n}, &one, out2, sizeof out2, &n2) !=
            MTC_ERR_CERT)
            abort();
        break;
    }
    }
    return 0;
}

#ifdef FUZZ_LDP_SEEDS
#include "lib/mtc_fixture.h"
#include "mtc/cert.h"

static int write_seed(const char *dir, const char *name, uint8_t mode, const uint8_t *b,
                      size_t n)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(&mode, 1, 1, f) != 1 || fwrite(b, 1, n, f) != n)
        return 1;
    return fclose(f) != 0;
}

int main(int argc, char **argv)
{
    if (argc != 2)
        return 2;
    static const char u1[] = "http://ldp.ca.example/", u2[] = "https://ldp2.ca.example/mtc";
    mtc_ldp d = {2, {{(const uint8_t *)u1, sizeof u1 - 1}, {(const uint8_t *)u2, sizeof u2 - 1}}};
    uint8_t v[512], exts[2048], cert[8192];
    size_t vl, el, cl;
    fx F;
    if (mtc_ldp_encode(&d, v, sizeof v, &vl) != MTC_OK ||
        fx_init(&F, MTC_SIG_ED25519, 1, 8, 4, 1) != 0)
        return 1;
    mtc_entry_scratch s;
    mtc_tbs_entry e;
    uint8_t spki[64];
    size_t sl;
    mtc_proof_storage st;
    mtc_proof p;
    if (fx_entry(&F, 3, &s, &e, spki, &sl) != 0 ||
        mtc_ldp_ext_append(e.extensions, &d, exts, sizeof exts, &el) != MTC_OK ||
        mtc_ilog_standalone_proof(F.log, 3, (mtc_slice){NULL, 0}, &st, &p) != MTC_OK)
        return 1;
    mtc_tbs_entry e2 = e;
    e2.extensions = (mtc_slice){exts, el};
    if (mtc_cert_build(&e2, spki, sl, mtc_serial(1, 3), &p, cert, sizeof cert, &cl) != MTC_OK)
        return 1;
    int rc = write_seed(argv[1], "value_two_uris", 0, v, vl) ||
             write_seed(argv[1], "certificate", 1, cert, cl) ||
             write_seed(argv[1], "extensions", 2, e.extensions.p, e.extensions.len);
    fx_free(&F);
    return rc;
}
#endif
