/*
 * taid.c - trust anchor IDs in binary and ASCII form, the IDs derived from
 * a CA ID, and the CA-ID distinguished name.
 *
 * IDs are built once per CA/log/landmark and compared often (cosigner
 * lookup during verification), so they are fixed-size values, not heap
 * strings.
 */
#include "mtc/taid.h"

#include <string.h>

#include "mtc/error.h"

const uint8_t MTC_OID_ALG_MTC_PROOF[] = {0x2b, 0x06, 0x01, 0x04, 0x01,
                                         0x82, 0xda, 0x4b, 0x2f, 0x00};
const uint8_t MTC_OID_RDNA_TAID[] = {0x2b, 0x06, 0x01, 0x04, 0x01,
                                     0x82, 0xda, 0x4b, 0x2f, 0x01};
const uint8_t MTC_OID_PE_MTC_CA[] = {0x2b, 0x06, 0x01, 0x04, 0x01,
                                     0x82, 0xda, 0x4b, 0x2f, 0x02};

int mtc_taid_from_text(const char *text, size_t len, mtc_taid *out)
{
    size_t n;
    uint8_t tmp[MTC_TAID_MAX];
    int rc = mtc_der_oid_from_text(text, len, 1, tmp, sizeof tmp, &n);
    if (rc != MTC_OK)
        return rc;
    out->len = (uint8_t)n;
    memcpy(out->b, tmp, n);
    return MTC_OK;
}

int mtc_taid_to_text(const mtc_taid *id, char *out, size_t cap)
{
    if (id->len == 0)
        return MTC_ERR_ARG;
    mtc_slice s = {id->b, id->len};
    int rc = mtc_der_oid_to_text(s, 1, out, cap);
    return rc == MTC_ERR_DER ? MTC_ERR_ARG : rc;
}

int mtc_taid_from_binary(const uint8_t *b, size_t len, mtc_taid *out)
{
    if (len == 0 || len > MTC_TAID_MAX)
        return MTC_ERR_PARSE;
    char text[MTC_TAID_TEXT_MAX];
    mtc_slice s = {b, len};
    if (mtc_der_oid_to_text(s, 1, text, sizeof text) != MTC_OK)
        return MTC_ERR_PARSE;
    out->len = (uint8_t)len;
    memcpy(out->b, b, len);
    return MTC_OK;
}

int mtc_taid_append(const mtc_taid *base, const uint64_t *arcs, size_t n,
                    mtc_taid *out)
{
    uint8_t tmp[MTC_TAID_MAX];
    size_t len = base->len;
    memcpy(tmp, base->b, len);
    for (size_t a = 0; a < n; a++) {
        uint8_t g[10];
        size_t t = 0;
        uint64_t v = arcs[a];
        do {
            g[t++] = (uint8_t)(v & 0x7f);
            v >>= 7;
        } while (v);
        if (t > 9 || len + t > MTC_TAID_MAX)
            return MTC_ERR_LIMIT;
        while (t--)
            tmp[len++] = (uint8_t)(g[t] | (t ? 0x80 : 0));
    }
    out->len = (uint8_t)len;
    memcpy(out->b, tmp, len);
    return MTC_OK;
}

int mtc_taid_log_id(const mtc_taid *ca, uint64_t log_number, mtc_taid *out)
{
    uint64_t arcs[2] = {0, log_number};
    return mtc_taid_append(ca, arcs, 2, out);
}

int mtc_taid_landmark_id(const mtc_taid *ca, uint64_t log_number,
                         uint64_t landmark, mtc_taid *out)
{
    uint64_t arcs[3] = {1, log_number, landmark};
    return mtc_taid_append(ca, arcs, 3, out);
}

int mtc_taid_landmark_group_id(const mtc_taid *ca, uint64_t log_number,
                               uint64_t landmark, mtc_taid *out)
{
    uint64_t arcs[3] = {2, log_number, landmark};
    return mtc_taid_append(ca, arcs, 3, out);
}

int mtc_taid_cmp(const mtc_taid *a, const mtc_taid *b)
{
    if (a->len != b->len)
        return a->len < b->len ? -1 : 1;
    return memcmp(a->b, b->b, a->len);
}

int mtc_taid_equal(const mtc_taid *a, const mtc_taid *b)
{
    return a->len == b->len && !memcmp(a->b, b->b, a->len);
}

int mtc_taid_in_arc(const mtc_taid *arc, const mtc_taid *id)
{
    /* Each arc's last octet has its high bit clear, so a byte prefix that
     * ends at arc->len is an arc prefix. */
    return arc->len && id->len >= arc->len && !memcmp(arc->b, id->b, arc->len);
}

int mtc_taid_origin(const mtc_taid *id, char *out, size_t cap, size_t *out_len)
{
    static const char prefix[] = "oid/1.3.6.1.4.1.";
    char text[MTC_TAID_TEXT_MAX];
    int rc = mtc_taid_to_text(id, text, sizeof text);
    if (rc != MTC_OK)
        return rc;
    size_t n = sizeof prefix - 1 + strlen(text);
    if (n > 255 || n > cap)
        return MTC_ERR_LIMIT;
    memcpy(out, prefix, sizeof prefix - 1);
    memcpy(out + sizeof prefix - 1, text, n - (sizeof prefix - 1));
    *out_len = n;
    return MTC_OK;
}

void mtc_taid_name_der(mtc_der_writer *w, const mtc_taid *id)
{
    char text[MTC_TAID_TEXT_MAX];
    if (mtc_taid_to_text(id, text, sizeof text) != MTC_OK)
        text[0] = '\0';
    size_t name = mtc_der_open(w, MTC_DER_SEQUENCE);
    size_t rdn = mtc_der_open(w, MTC_DER_SET);
    size_t atv = mtc_der_open(w, MTC_DER_SEQUENCE);
    mtc_der_prim(w, MTC_DER_OID, MTC_OID_RDNA_TAID, MTC_OID_EXPERIMENTAL_LEN);
    mtc_der_prim(w, MTC_DER_UTF8_STRING, text, strlen(text));
    mtc_der_close(w, atv);
    mtc_der_close(w, rdn);
    mtc_der_close(w, name);
}

int mtc_taid_from_name(mtc_slice name, mtc_taid *out)
{
    mtc_der_reader r, n, rdn, atv;
    mtc_slice oid, val;
    mtc_der_reader_init(&r, name.p, name.len);
    if (mtc_der_enter(&r, MTC_DER_SEQUENCE, &n, NULL) != MTC_OK ||
        mtc_der_finish(&r) != MTC_OK ||
        mtc_der_enter(&n, MTC_DER_SET, &rdn, NULL) != MTC_OK ||
        mtc_der_finish(&n) != MTC_OK ||
        mtc_der_enter(&rdn, MTC_DER_SEQUENCE, &atv, NULL) != MTC_OK ||
        mtc_der_finish(&rdn) != MTC_OK ||
        mtc_der_get(&atv, MTC_DER_OID, &oid, NULL) != MTC_OK ||
        mtc_der_get(&atv, MTC_DER_UTF8_STRING, &val, NULL) != MTC_OK ||
        mtc_der_finish(&atv) != MTC_OK)
        return MTC_ERR_CERT;
    if (oid.len != MTC_OID_EXPERIMENTAL_LEN ||
        memcmp(oid.p, MTC_OID_RDNA_TAID, oid.len) != 0)
        return MTC_ERR_CERT;
    if (mtc_taid_from_text((const char *)val.p, val.len, out) != MTC_OK)
        return MTC_ERR_CERT;
    return MTC_OK;
}
