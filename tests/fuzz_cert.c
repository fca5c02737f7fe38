/*
 * fuzz_cert.c - libFuzzer target: certificate decoding and relying-party
 * verification, plus the other parsers of untrusted bytes on the same
 * input (MTCProof, CA certificate, log entry, landmark file, relying-party
 * configuration).
 *
 * The relying party is the test fixture's (tests/lib/mtc_fixture.h): CA
 * 32473.1 with one witness and trusted landmark subtrees, so the seed
 * corpus's certificates verify and mutations explore every step.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/mtc_fixture.h"
#include "mtc/error.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Built on first use and kept for the process (fuzzers have no teardown). */
static fx world;
static mtc_rp_ca *rp;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!rp) {
        if (fx_init(&world, MTC_SIG_ED25519, 1, 20, 6, 1) || fx_rp(&world, &rp))
            abort();
    }
    mtc_rp_result r;
    int rc = mtc_rp_verify(rp, data, size, -1, &r);
    if ((rc == MTC_OK) != (r.reason == MTC_RP_OK))
        abort(); /* return code and reason must agree */
    if (rc == MTC_OK) {
        /* a valid certificate re-verifies identically after a parse */
        mtc_cert c;
        if (mtc_cert_parse(data, size, &c) != MTC_OK)
            abort();
        mtc_proof p;
        if (mtc_proof_decode(c.sig_value.p, c.sig_value.len, &p) != MTC_OK)
            abort();
        mtc_tbs_entry e;
        mtc_cert_tbs_entry(&c, &e);
        static uint8_t entry[MTC_ENTRY_MAX];
        size_t n;
        mtc_hash h2;
        if (mtc_log_entry_encode(p.extensions, &e, entry, sizeof entry, &n) != MTC_OK)
            abort();
        mtc_hash_leaf(entry, n, &h2);
        if (!mtc_hash_equal(&h2, &r.entry_hash))
            abort(); /* single pass == two pass */
    }
    mtc_proof p;
    (void)mtc_proof_decode(data, size, &p);
    mtc_ca_params ca;
    (void)mtc_ca_cert_parse(data, size, &ca);
    mtc_slice exts;
    unsigned type;
    mtc_tbs_entry e;
    (void)mtc_log_entry_parse(data, size, &exts, &type, &e);
    mtc_landmarks *lm = NULL;
    if (mtc_landmarks_parse((const char *)data, size, 16, UINT64_MAX, &lm, NULL) ==
        MTC_OK) {
        char text[4096];
        size_t tl;
        if (mtc_landmarks_format(lm, text, sizeof text, &tl) == MTC_OK &&
            (tl != size || memcmp(text, data, size)))
            abort(); /* the strict format is canonical: it round-trips */
    }
    mtc_landmarks_free(lm);
    mtc_rp_ca *loaded = NULL;
    (void)mtc_rp_ca_load(world.ca_cert, world.ca_cert_len, (const char *)data, size,
                         &loaded, NULL);
    mtc_rp_ca_free(loaded);
    return 0;
}
