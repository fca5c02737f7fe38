/*
 * fuzz_svcb.c - libFuzzer target: the parsers of sim/svcb.h on untrusted
 * bytes (a tls-trust-anchors SvcParamValue, an HTTPS record's DNS
 * response). A value that parses re-encodes to the same bytes (the
 * encoding is canonical); a parameter found in a response lies inside it
 * and is parsed in turn.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mtc/error.h"
#include "sim/svcb.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_value(const uint8_t *data, size_t size)
{
    svcb_ta_value v;
    if (svcb_ta_value_parse(data, size, &v) != MTC_OK)
        return;
    static mtc_taid ids[40000];
    size_t pos = 0, n = 0;
    while (n < 40000 && svcb_ta_value_next(&v, &pos, &ids[n]))
        n++;
    if (n != v.count)
        abort();
    static uint8_t out[70000];
    size_t len = 0;
    if (svcb_ta_value_encode(ids, n, out, sizeof out, &len) != MTC_OK || len != size ||
        memcmp(out, data, size) != 0 || svcb_ta_value_len(ids, n) != len)
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    check_value(data, size);
    const uint8_t *v = NULL;
    size_t vl = 0;
    int found = 0;
    if (svcb_https_response_find(data, size, SVCB_KEY_TRUST_ANCHORS_DEFAULT, &v, &vl,
                                 &found) == MTC_OK &&
        found) {
        if (v < data || v + vl > data + size)
            abort();
        check_value(v, vl);
    }
    return 0;
}
