/*
 * sct.c - RFC 6962 signed certificate timestamps: the signed input, the
 * SCT and the SCT list (contract in sct_internal.h).
 */
#include "sct_internal.h"

#include <string.h>

#include "mtc/error.h"
#include "mtc/hash.h"

static uint8_t *put(uint8_t *p, uint64_t v, int bytes)
{
    for (int i = bytes - 1; i >= 0; i--)
        *p++ = (uint8_t)(v >> (8 * i));
    return p;
}

int mtc__sct_signed_input(uint64_t ts_ms, const uint8_t *issuer_spki,
                          size_t issuer_spki_len, const uint8_t *pre,
                          size_t pre_len, uint8_t *msg, size_t cap,
                          size_t *len)
{
    /* 1 + 1 + 8 + 2 + 32 + 3 + pre_len + 2; the length field has 3 bytes */
    if (pre_len >= (size_t)1 << 24 || cap < pre_len + 49)
        return MTC_ERR_LIMIT;
    mtc_hash ikh;
    mtc_sha256(issuer_spki, issuer_spki_len, &ikh);
    uint8_t *p = msg;
    *p++ = 0; /* v1 */
    *p++ = 0; /* certificate_timestamp */
    p = put(p, ts_ms, 8);
    p = put(p, 1, 2); /* precert_entry */
    memcpy(p, ikh.b, 32);
    p += 32;
    p = put(p, pre_len, 3);
    memcpy(p, pre, pre_len);
    p += pre_len;
    p = put(p, 0, 2); /* no extensions */
    *len = (size_t)(p - msg);
    return MTC_OK;
}

int mtc__sct_encode(const uint8_t *log_spki, size_t log_spki_len,
                    uint64_t ts_ms, uint16_t sig_alg, const uint8_t *sig,
                    size_t sig_len, uint8_t *out, size_t cap, size_t *len)
{
    size_t n = 1 + 32 + 8 + 2 + 2 + 2 + sig_len;
    if (sig_len > 0xffff || n > cap)
        return MTC_ERR_LIMIT;
    mtc_hash log_id;
    mtc_sha256(log_spki, log_spki_len, &log_id);
    uint8_t *p = out;
    *p++ = 0; /* v1 */
    memcpy(p, log_id.b, 32);
    p += 32;
    p = put(p, ts_ms, 8);
    p = put(p, 0, 2); /* no extensions */
    p = put(p, sig_alg, 2);
    p = put(p, sig_len, 2);
    memcpy(p, sig, sig_len);
    *len = n;
    return MTC_OK;
}

int mtc__sct_list(const uint8_t *const *scts, const size_t *sct_len, size_t n,
                  uint8_t *out, size_t cap, size_t *len)
{
    size_t total = 0;
    for (size_t i = 0; i < n; i++) {
        if (sct_len[i] > 0xffff)
            return MTC_ERR_LIMIT;
        total += 2 + sct_len[i];
    }
    if (total > 0xffff || 2 + total > cap)
        return MTC_ERR_LIMIT;
    uint8_t *p = put(out, total, 2);
    for (size_t i = 0; i < n; i++) {
        p = put(p, sct_len[i], 2);
        memcpy(p, scts[i], sct_len[i]);
        p += sct_len[i];
    }
    *len = 2 + total;
    return MTC_OK;
}
