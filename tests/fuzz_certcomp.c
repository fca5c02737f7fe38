/*
 * fuzz_certcomp.c - libFuzzer target: certcomp_decompress (sim/certcomp.h)
 * on untrusted bytes, as a client meets a CompressedCertificate (RFC 8879):
 * the algorithm, the announced uncompressed_length and the compressed
 * data all come from the peer.
 *
 * Input: byte 0 picks the algorithm (0 brotli, 1 zstd, otherwise that
 * byte as a code point, which must be refused as unsupported unless it
 * is one of the two); bytes 1-3 the uncompressed_length (uint24, as on
 * the wire, cut to 17 bits so that one input allocates at most 128 KiB:
 * a client's 2^24 bound would make every input cost a 16 MiB buffer and
 * test nothing more); the rest the compressed data.
 *
 * Properties: nothing is written past the announced length (the buffer
 * has a guard tail), a buffer shorter than the announced length is
 * refused before any decoding, the result is deterministic, and what
 * decompresses re-compresses and decompresses back to the same bytes.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mtc/error.h"
#include "sim/certcomp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define GUARD 64

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 4)
        return 0;
    int alg = data[0] == 0 ? CERTCOMP_BROTLI : data[0] == 1 ? CERTCOMP_ZSTD : data[0];
    size_t expect = ((size_t)data[1] << 16 | (size_t)data[2] << 8 | data[3]) & 0x1ffff;
    const uint8_t *in = data + 4;
    size_t len = size - 4;
    uint8_t *out = malloc(expect + GUARD);
    uint8_t *again = malloc(expect + GUARD);
    if (!out || !again)
        abort();
    memset(out, 0xa5, expect + GUARD);
    int rc = certcomp_decompress(alg, in, len, expect, out, expect + GUARD);
    int known = alg == CERTCOMP_BROTLI || alg == CERTCOMP_ZSTD;
    if (!known && rc != MTC_ERR_UNSUPPORTED)
        abort();
    if (known && rc != MTC_OK && rc != MTC_ERR_PARSE)
        abort();
    for (size_t i = expect; i < expect + GUARD; i++)
        if (out[i] != 0xa5)
            abort(); /* written past uncompressed_length */
    /* a short buffer is refused before anything is decoded */
    if (expect > 0 && certcomp_decompress(alg, in, len, expect, again, expect - 1) !=
                          MTC_ERR_LIMIT)
        abort();
    /* deterministic */
    memset(again, 0x5a, expect + GUARD);
    if (certcomp_decompress(alg, in, len, expect, again, expect + GUARD) != rc ||
        (rc == MTC_OK && memcmp(out, again, expect) != 0))
        abort();
    if (rc == MTC_OK) {
        /* what decompresses, compresses and comes back the same */
        size_t cap = certcomp_bound(alg, expect), cl = 0;
        uint8_t *c = malloc(cap ? cap : 1);
        if (!c || certcomp_compress(alg, out, expect, c, cap, &cl) != MTC_OK)
            abort();
        if (certcomp_decompress(alg, c, cl, expect, again, expect + GUARD) != MTC_OK ||
            memcmp(out, again, expect) != 0)
            abort();
        /* and the wrong length is refused */
        if (certcomp_decompress(alg, c, cl, expect + 1, again, expect + GUARD) != MTC_ERR_PARSE)
            abort();
        free(c);
    }
    free(again);
    free(out);
    return 0;
}
