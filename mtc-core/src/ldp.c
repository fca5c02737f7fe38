/*
 * ldp.c - the Landmark Distribution Points extension and its request URL
 * (mtc/ldp.h). A relying party parses the extension out of certificates
 * servers send, so the decoder is strict and bounded: it checks every
 * length against the input and every URI against the rules the encoder
 * keeps, so that decode then encode reproduces the input.
 */
#include "mtc/ldp.h"

#include <stdio.h>
#include <string.h>

#include "mtc/cert.h"
#include "mtc/error.h"

/* 1.3.6.1.5.5.7.1.99: id-pe (RFC 5280) with the draft's unassigned arc */
const uint8_t MTC_OID_PE_LDP[] = {0x2b, 0x06, 0x01, 0x05, 0x05, 0x07, 0x01, 0x63};

#define GN_URI (MTC_DER_CONTEXT | 6) /* GeneralName uniformResourceIdentifier */

/* A URI this syntax accepts: 1..255 visible ASCII octets, an http or
 * https scheme and at least one octet of authority after it. */
static int uri_ok(mtc_slice u)
{
    if (!u.p || u.len == 0 || u.len > MTC_LDP_URI_MAX)
        return 0;
    for (size_t i = 0; i < u.len; i++)
        if (u.p[i] < 0x21 || u.p[i] > 0x7e)
            return 0;
    size_t s = 0;
    if (u.len > 7 && !memcmp(u.p, "http://", 7))
        s = 7;
    else if (u.len > 8 && !memcmp(u.p, "https://", 8))
        s = 8;
    return s > 0 && u.p[s] != '/';
}

int mtc_ldp_encode(const mtc_ldp *d, uint8_t *out, size_t cap, size_t *out_len)
{
    if (!d || !out_len || d->n == 0 || d->n > MTC_LDP_MAX_URIS)
        return MTC_ERR_ARG;
    for (size_t i = 0; i < d->n; i++)
        if (!uri_ok(d->uri[i]))
            return MTC_ERR_ARG;
    mtc_der_writer w;
    mtc_der_writer_init(&w, out, out ? cap : 0);
    size_t m = mtc_der_open(&w, MTC_DER_SEQUENCE);
    for (size_t i = 0; i < d->n; i++)
        mtc_der_prim(&w, GN_URI, d->uri[i].p, d->uri[i].len);
    mtc_der_close(&w, m);
    *out_len = w.len;
    return w.err;
}

int mtc_ldp_decode(const uint8_t *in, size_t len, mtc_ldp *out)
{
    if (!in || !out)
        return MTC_ERR_ARG;
    memset(out, 0, sizeof *out);
    mtc_der_reader r, seq;
    mtc_der_reader_init(&r, in, len);
    int rc = mtc_der_enter(&r, MTC_DER_SEQUENCE, &seq, NULL);
    if (rc != MTC_OK)
        return rc;
    if ((rc = mtc_der_finish(&r)) != MTC_OK)
        return rc;
    if (mtc_der_empty(&seq))
        return MTC_ERR_CERT; /* SIZE (1..MAX) */
    while (!mtc_der_empty(&seq)) {
        if (out->n == MTC_LDP_MAX_URIS) {
            memset(out, 0, sizeof *out);
            return MTC_ERR_LIMIT;
        }
        mtc_slice u;
        if (mtc_der_peek(&seq) != GN_URI) {
            memset(out, 0, sizeof *out);
            return MTC_ERR_CERT; /* another GeneralName form */
        }
        if ((rc = mtc_der_get(&seq, GN_URI, &u, NULL)) != MTC_OK) {
            memset(out, 0, sizeof *out);
            return rc;
        }
        if (!uri_ok(u)) {
            memset(out, 0, sizeof *out);
            return MTC_ERR_CERT;
        }
        out->uri[out->n++] = u;
    }
    return MTC_OK;
}

int mtc_ldp_ext_append(mtc_slice exts, const mtc_ldp *d, uint8_t *out,
                       size_t cap, size_t *out_len)
{
    if (!d || !out_len)
        return MTC_ERR_ARG;
    /* the existing Extension elements (contents of the inner SEQUENCE) */
    mtc_slice list = {NULL, 0};
    if (exts.len > 0) {
        /* copied unchanged into a certificate: it must be DER throughout */
        if (mtc_der_validate(exts.p, exts.len) != MTC_OK)
            return MTC_ERR_CERT;
        mtc_der_reader r, outer, l;
        mtc_der_reader_init(&r, exts.p, exts.len);
        if (mtc_der_enter(&r, MTC_DER_CONTEXT | MTC_DER_CONSTRUCTED | 3, &outer, NULL) !=
                MTC_OK ||
            mtc_der_finish(&r) != MTC_OK ||
            mtc_der_enter(&outer, MTC_DER_SEQUENCE, &l, NULL) != MTC_OK ||
            mtc_der_finish(&outer) != MTC_OK)
            return MTC_ERR_CERT;
        list = (mtc_slice){l.p, (size_t)(l.end - l.p)};
        while (!mtc_der_empty(&l)) {
            mtc_der_reader e;
            mtc_slice oid;
            if (mtc_der_enter(&l, MTC_DER_SEQUENCE, &e, NULL) != MTC_OK ||
                mtc_der_get(&e, MTC_DER_OID, &oid, NULL) != MTC_OK)
                return MTC_ERR_CERT;
            if (oid.len == MTC_OID_PE_LDP_LEN && !memcmp(oid.p, MTC_OID_PE_LDP, oid.len))
                return MTC_ERR_CERT; /* one extension per OID (RFC 5280) */
        }
    }
    size_t vlen = 0;
    int rc = mtc_ldp_encode(d, NULL, 0, &vlen);
    if (rc != MTC_ERR_LIMIT && rc != MTC_OK)
        return rc;
    mtc_der_writer w;
    mtc_der_writer_init(&w, out, out ? cap : 0);
    size_t m3 = mtc_der_open(&w, MTC_DER_CONTEXT | MTC_DER_CONSTRUCTED | 3);
    size_t ml = mtc_der_open(&w, MTC_DER_SEQUENCE);
    mtc_der_raw(&w, list.p, list.len);
    size_t me = mtc_der_open(&w, MTC_DER_SEQUENCE);
    mtc_der_prim(&w, MTC_DER_OID, MTC_OID_PE_LDP, MTC_OID_PE_LDP_LEN);
    /* critical DEFAULT FALSE: absent in DER */
    mtc_der_header(&w, MTC_DER_OCTET_STRING, vlen);
    uint8_t *v = mtc_der_reserve(&w, vlen);
    if (v) {
        size_t got = 0;
        rc = mtc_ldp_encode(d, v, vlen, &got);
        if (rc != MTC_OK)
            return rc;
    }
    mtc_der_close(&w, me);
    mtc_der_close(&w, ml);
    mtc_der_close(&w, m3);
    *out_len = w.len;
    return w.err;
}

int mtc_ldp_from_cert(const uint8_t *der, size_t len, mtc_ldp *out)
{
    if (!der || !out)
        return MTC_ERR_ARG;
    memset(out, 0, sizeof *out);
    mtc_cert c;
    int rc = mtc_cert_parse(der, len, &c);
    if (rc != MTC_OK)
        return rc;
    int critical = 0;
    mtc_slice v;
    if ((rc = mtc_cert_find_ext(&c, MTC_OID_PE_LDP, MTC_OID_PE_LDP_LEN, &critical, &v)) !=
        MTC_OK)
        return rc;
    /* critical would make every relying party that cannot fetch refuse
     * the certificate: the extension is an offer, never a condition */
    if (critical)
        return MTC_ERR_CERT;
    return mtc_ldp_decode(v.p, v.len, out);
}

int mtc_ldp_request(mtc_slice uri, const mtc_taid *ca_id, uint64_t log_number,
                    uint64_t landmark, char *out, size_t cap, size_t *out_len)
{
    if (!ca_id || !out_len || !uri_ok(uri) || ca_id->len == 0)
        return MTC_ERR_ARG;
    char id[MTC_TAID_TEXT_MAX];
    int rc = mtc_taid_to_text(ca_id, id, sizeof id);
    if (rc != MTC_OK)
        return rc;
    const char *sep = uri.p[uri.len - 1] == '/' ? "" : "/";
    int n = snprintf(out, out ? cap : 0, "%.*s%s%s/%llu/%llu", (int)uri.len,
                     (const char *)uri.p, sep, id, (unsigned long long)log_number,
                     (unsigned long long)landmark);
    if (n < 0)
        return MTC_ERR_ARG;
    *out_len = (size_t)n;
    return out && (size_t)n < cap ? MTC_OK : MTC_ERR_LIMIT;
}
