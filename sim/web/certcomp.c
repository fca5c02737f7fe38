/*
 * certcomp.c - RFC 8879 certificate compression through libbrotli and
 * libzstd (sim/certcomp.h). Called once per distinct certificate, so it
 * allocates freely.
 */
#include "sim/certcomp.h"

#include <brotli/decode.h>
#include <brotli/encode.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "mtc/error.h"

#define BROTLI_Q 5
#define BROTLI_WIN 17
#define ZSTD_LEVEL 3

int certcomp_alg_by_name(const char *name)
{
    if (!name)
        return 0;
    if (!strcmp(name, "brotli"))
        return CERTCOMP_BROTLI;
    if (!strcmp(name, "zstd"))
        return CERTCOMP_ZSTD;
    return 0;
}

const char *certcomp_alg_name(int alg)
{
    return alg == CERTCOMP_BROTLI ? "brotli" : alg == CERTCOMP_ZSTD ? "zstd" : NULL;
}

size_t certcomp_bound(int alg, size_t len)
{
    if (alg == CERTCOMP_BROTLI)
        return BrotliEncoderMaxCompressedSize(len);
    if (alg == CERTCOMP_ZSTD)
        return ZSTD_compressBound(len);
    return 0;
}

int certcomp_compress(int alg, const uint8_t *in, size_t len, uint8_t *out, size_t cap,
                      size_t *out_len)
{
    if (alg == CERTCOMP_BROTLI) {
        size_t ol = cap;
        if (!BrotliEncoderCompress(BROTLI_Q, BROTLI_WIN, BROTLI_MODE_GENERIC, len, in, &ol,
                                   out))
            return MTC_ERR_LIMIT;
        *out_len = ol;
        return MTC_OK;
    }
    if (alg == CERTCOMP_ZSTD) {
        size_t r = ZSTD_compress(out, cap, in, len, ZSTD_LEVEL);
        if (ZSTD_isError(r))
            return MTC_ERR_LIMIT; /* the only error with a valid level: cap short */
        *out_len = r;
        return MTC_OK;
    }
    return MTC_ERR_UNSUPPORTED;
}

int certcomp_decompress(int alg, const uint8_t *in, size_t len, size_t expect,
                        uint8_t *out, size_t cap)
{
    if (cap < expect)
        return MTC_ERR_LIMIT;
    if (alg == CERTCOMP_BROTLI) {
        size_t ol = expect;
        if (BrotliDecoderDecompress(len, in, &ol, out) != BROTLI_DECODER_RESULT_SUCCESS ||
            ol != expect)
            return MTC_ERR_PARSE;
        return MTC_OK;
    }
    if (alg == CERTCOMP_ZSTD) {
        size_t r = ZSTD_decompress(out, expect, in, len);
        return ZSTD_isError(r) || r != expect ? MTC_ERR_PARSE : MTC_OK;
    }
    return MTC_ERR_UNSUPPORTED;
}

size_t certcomp_message_len(size_t compressed_len)
{
    /* handshake header, algorithm, uncompressed_length, the opaque's length */
    return 4 + 2 + 3 + 3 + compressed_len;
}

size_t certcomp_wire_len(int alg, const uint8_t *msg, size_t msg_len)
{
    if (alg == CERTCOMP_NONE)
        return msg_len;
    if (msg_len <= 4 || !certcomp_alg_name(alg))
        return 0;
    size_t cap = certcomp_bound(alg, msg_len - 4);
    uint8_t *buf = malloc(cap ? cap : 1);
    size_t cl = 0;
    int rc = buf ? certcomp_compress(alg, msg + 4, msg_len - 4, buf, cap, &cl) : MTC_ERR_NOMEM;
    free(buf);
    if (rc != MTC_OK)
        return 0;
    size_t w = certcomp_message_len(cl);
    return w < msg_len ? w : msg_len;
}
