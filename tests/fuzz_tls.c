/*
 * fuzz_tls.c - libFuzzer target: the TLS parsers of sim/tls.h on untrusted
 * bytes (trust_anchors lists in both forms, Certificate,
 * CertificateVerify). Whatever parses must re-encode to the same bytes
 * (the encodings are canonical), and *_len must agree with the encoder.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mtc/error.h"
#include "sim/tls.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CP TLS_EXT_TRUST_ANCHORS_EXPERIMENTAL

static void check_ta_list(const uint8_t *data, size_t size)
{
    tls_ta_list l;
    int rc = tls_ta_list_parse(data, size, 0, &l);
    int rc1 = tls_ta_list_parse(data, size, 1, &l);
    if (rc1 == MTC_OK && rc != MTC_OK)
        abort(); /* non-empty form is stricter, never looser */
    if (rc != MTC_OK)
        return;
    static mtc_taid ids[40000];
    size_t pos = 0, n = 0;
    while (n < 40000 && tls_ta_list_next(&l, &pos, &ids[n]))
        n++;
    if (n != l.count)
        abort();
    static uint8_t out[70000];
    size_t len;
    if (tls_ext_trust_anchors_encode(CP, ids, n, out, sizeof out, &len) != MTC_OK ||
        len != size + 4 || memcmp(out + 4, data, size) != 0 ||
        len != tls_ext_trust_anchors_len(ids, n))
        abort();
}

static void check_certificate(const uint8_t *data, size_t size)
{
    tls_certificate c;
    if (tls_certificate_parse(CP, data, size, &c) != MTC_OK)
        return;
    size_t lens[TLS_CERT_MAX_ENTRIES];
    for (size_t i = 0; i < c.n; i++)
        lens[i] = c.certs[i].len;
    size_t want = tls_certificate_len(lens, c.n, c.first_has_ta_ext);
    /* Other (unknown) extensions may make the input longer; with none the
     * re-encoding is identical. */
    if (want > size)
        abort();
    if (want == size) {
        static uint8_t out[70000];
        size_t len;
        if (tls_certificate_encode(CP, c.certs, c.n, c.first_has_ta_ext, out,
                                   sizeof out, &len) != MTC_OK ||
            len != size || memcmp(out, data, size) != 0)
            abort();
    }
}

static void check_cv(const uint8_t *data, size_t size)
{
    uint16_t scheme;
    const uint8_t *sig;
    size_t sl;
    if (tls_certificate_verify_parse(data, size, &scheme, &sig, &sl) != MTC_OK)
        return;
    if (tls_certificate_verify_len(sl) != size)
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    check_ta_list(data, size);
    check_certificate(data, size);
    check_cv(data, size);
    return 0;
}
