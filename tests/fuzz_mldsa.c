/*
 * fuzz_mldsa.c - libFuzzer target for the ML-DSA decoders: signatures
 * (sigDecode with HintBitUnpack, then Verify), public keys (Verify of a
 * fixed signature under a fuzzed key) and private keys (skDecode with its
 * consistency checks).
 *
 * Input: byte 0 picks the parameter set, byte 1 the mode, the rest is the
 * encoding under test (any length: wrong lengths must be refused cleanly).
 * Besides "no crash, no sanitizer report" it asserts the unique-encoding
 * property: a signature that decodes re-encodes to the same bytes.
 * Replayed over tests/fuzz/mldsa/ by tests/test_mldsa_fuzz.c in `make test`.
 */
#include <stdlib.h>
#include <string.h>

#include "../mtc-core/src/mldsa_int.h"
#include "mtc/error.h"
#include "mtc/mldsa.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const mtc_mldsa_alg algs[3] = {MTC_MLDSA_44, MTC_MLDSA_65,
                                          MTC_MLDSA_87};
    static const uint8_t msg[] = "fuzz";
    if (size < 2)
        return 0;
    const mldsa_params *p = mtc__mldsa_params(algs[data[0] % 3]);
    const mtc_mldsa_sizes *z = &p->sizes;
    unsigned mode = data[1] % 3;
    data += 2;
    size -= 2;
    uint8_t *buf = calloc(1, MTC_MLDSA_SK_MAX + MTC_MLDSA_SIG_MAX);
    mldsa_poly *polys = calloc(MLDSA_L_MAX + MLDSA_K_MAX, sizeof *polys);
    if (!buf || !polys)
        abort();
    if (mode == 0) {
        /* A fuzzed signature under a fixed public key. */
        uint8_t pk[MTC_MLDSA_PK_MAX];
        memset(pk, 0x5a, sizeof pk);
        int rc = mtc_mldsa_verify(z->alg, pk, z->pk_len, msg, 4, NULL, 0,
                                  data, size);
        if (rc != MTC_ERR_SIGNATURE && rc != MTC_ERR_SIG_ENCODING && rc != MTC_OK)
            abort();
        if (size == z->sig_len) {
            uint8_t ct[MLDSA_CTILDE_MAX];
            int drc = mtc__mldsa_sig_decode(p, data, ct, polys,
                                            polys + MLDSA_L_MAX);
            if (drc == MTC_OK) {
                mtc__mldsa_sig_encode(p, buf, ct, polys, polys + MLDSA_L_MAX);
                if (memcmp(buf, data, size) != 0)
                    abort(); /* two encodings of one signature */
            } else if (rc != MTC_ERR_SIG_ENCODING) {
                abort(); /* verify accepted what decode refused */
            }
        }
    } else if (mode == 1) {
        /* A fuzzed public key with a fixed (well-formed) signature. */
        memset(buf, 0, z->sig_len);
        int rc = mtc_mldsa_verify(z->alg, data, size, msg, 4, NULL, 0, buf,
                                  z->sig_len);
        if (rc != MTC_ERR_SIGNATURE && rc != MTC_ERR_KEY && rc != MTC_OK)
            abort();
        if (size != z->pk_len && rc != MTC_ERR_KEY)
            abort();
    } else {
        /* A fuzzed private key: refused cleanly or loaded consistently. */
        mtc_mldsa_key *key = NULL;
        int rc = mtc_mldsa_key_from_sk(z->alg, data, size, &key);
        if (rc == MTC_OK) {
            mtc_mldsa_key_sk(key, buf);
            if (memcmp(buf, data, size) != 0)
                abort();
        } else if (rc != MTC_ERR_KEY || key) {
            abort();
        }
        mtc_mldsa_key_free(key);
    }
    free(polys);
    free(buf);
    return 0;
}
