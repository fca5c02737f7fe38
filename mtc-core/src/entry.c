/*
 * entry.c - MTCLogEntry / TBSCertificateLogEntry encoding, streaming leaf
 * hashes, strict parsing, and a builder for typical TLS server entries.
 *
 * The workload is the simulator's: millions of entries per simulated hour,
 * each needing only its leaf hash. So the hash streams the borrowed field
 * slices through one SHA-256 context on the stack; nothing is copied or
 * allocated. (OpenSSL's low-level SHA256_* interface for the same reason
 * as hash.c.)
 */
#define OPENSSL_SUPPRESS_DEPRECATED 1
#include "mtc/entry.h"

#include <openssl/sha.h>
#include <stdlib.h>
#include <string.h>

#include "cert_internal.h"
#include "mtc/error.h"

/* ---- extensions ------------------------------------------------------------- */

int mtc_entry_exts_check(mtc_slice exts)
{
    if (exts.len > 0xffff)
        return MTC_ERR_CERT;
    size_t i = 0;
    long prev = -1;
    while (i < exts.len) {
        if (exts.len - i < 4)
            return MTC_ERR_CERT;
        long type = (long)(exts.p[i] << 8 | exts.p[i + 1]);
        size_t dlen = (size_t)(exts.p[i + 2] << 8 | exts.p[i + 3]);
        if (type <= prev)
            return MTC_ERR_CERT; /* not strictly ascending: order or dup */
        if (exts.len - i - 4 < dlen)
            return MTC_ERR_CERT;
        prev = type;
        i += 4 + dlen;
    }
    return MTC_OK;
}

/* ---- encoding ---------------------------------------------------------------- */

size_t mtc_tbs_entry_contents_len(const mtc_tbs_entry *e)
{
    return e->version.len + e->issuer.len + e->validity.len + e->subject.len +
           e->spki_alg.len + 2 + MTC_HASH_LEN + e->issuer_uid.len +
           e->subject_uid.len + e->extensions.len;
}

size_t mtc_log_entry_len(mtc_slice exts, const mtc_tbs_entry *e)
{
    size_t n = 2 + exts.len + 2 + mtc_tbs_entry_contents_len(e);
    return n > MTC_ENTRY_MAX ? 0 : n;
}

static const uint8_t hash_hdr[2] = {MTC_DER_OCTET_STRING, MTC_HASH_LEN};

int mtc_log_entry_encode(mtc_slice exts, const mtc_tbs_entry *e, uint8_t *out,
                         size_t cap, size_t *out_len)
{
    if (mtc_entry_exts_check(exts) != MTC_OK)
        return MTC_ERR_CERT;
    size_t n = mtc_log_entry_len(exts, e);
    if (n == 0 || n > cap)
        return MTC_ERR_LIMIT;
    uint8_t *p = out;
#define PUT(ptr, l)                       \
    do {                                  \
        if (l)                            \
            memcpy(p, (ptr), (l));        \
        p += (l);                         \
    } while (0)
    *p++ = (uint8_t)(exts.len >> 8);
    *p++ = (uint8_t)exts.len;
    PUT(exts.p, exts.len);
    *p++ = 0;
    *p++ = MTC_ENTRY_TBS_CERT;
    PUT(e->version.p, e->version.len);
    PUT(e->issuer.p, e->issuer.len);
    PUT(e->validity.p, e->validity.len);
    PUT(e->subject.p, e->subject.len);
    PUT(e->spki_alg.p, e->spki_alg.len);
    PUT(hash_hdr, 2);
    PUT(e->spki_hash.b, MTC_HASH_LEN);
    PUT(e->issuer_uid.p, e->issuer_uid.len);
    PUT(e->subject_uid.p, e->subject_uid.len);
    PUT(e->extensions.p, e->extensions.len);
#undef PUT
    *out_len = (size_t)(p - out);
    return MTC_OK;
}

int mtc_log_entry_encode_null(mtc_slice exts, uint8_t *out, size_t cap,
                              size_t *out_len)
{
    if (mtc_entry_exts_check(exts) != MTC_OK)
        return MTC_ERR_CERT;
    size_t n = 4 + exts.len;
    if (n > cap)
        return MTC_ERR_LIMIT;
    out[0] = (uint8_t)(exts.len >> 8);
    out[1] = (uint8_t)exts.len;
    if (exts.len)
        memcpy(out + 2, exts.p, exts.len);
    out[2 + exts.len] = 0;
    out[3 + exts.len] = MTC_ENTRY_NULL;
    *out_len = n;
    return MTC_OK;
}

int mtc_log_entry_leaf_hash(mtc_slice exts, const mtc_tbs_entry *e,
                            mtc_hash *out)
{
    if (mtc_entry_exts_check(exts) != MTC_OK)
        return MTC_ERR_CERT;
    if (mtc_log_entry_len(exts, e) == 0)
        return MTC_ERR_LIMIT;
    SHA256_CTX c;
    uint8_t head[3] = {0x00, (uint8_t)(exts.len >> 8), (uint8_t)exts.len};
    static const uint8_t type[2] = {0, MTC_ENTRY_TBS_CERT};
    SHA256_Init(&c);
    SHA256_Update(&c, head, 3);
    SHA256_Update(&c, exts.p, exts.len);
    SHA256_Update(&c, type, 2);
    SHA256_Update(&c, e->version.p, e->version.len);
    SHA256_Update(&c, e->issuer.p, e->issuer.len);
    SHA256_Update(&c, e->validity.p, e->validity.len);
    SHA256_Update(&c, e->subject.p, e->subject.len);
    SHA256_Update(&c, e->spki_alg.p, e->spki_alg.len);
    SHA256_Update(&c, hash_hdr, 2);
    SHA256_Update(&c, e->spki_hash.b, MTC_HASH_LEN);
    SHA256_Update(&c, e->issuer_uid.p, e->issuer_uid.len);
    SHA256_Update(&c, e->subject_uid.p, e->subject_uid.len);
    SHA256_Update(&c, e->extensions.p, e->extensions.len);
    SHA256_Final(out->b, &c);
    return MTC_OK;
}

/* ---- strict field parsers (shared with cert.c) --------------------------------- */

int mtc__parse_version(mtc_der_reader *r, mtc_slice *whole, unsigned *v)
{
    whole->p = NULL;
    whole->len = 0;
    *v = 0;
    if (mtc_der_peek(r) != (MTC_DER_CONTEXT | MTC_DER_CONSTRUCTED | 0))
        return MTC_OK;
    mtc_der_reader sub;
    mtc_slice ic;
    uint64_t val;
    int rc = mtc_der_enter(r, MTC_DER_CONTEXT | MTC_DER_CONSTRUCTED | 0, &sub,
                           whole);
    if (rc != MTC_OK)
        return rc;
    if ((rc = mtc_der_get(&sub, MTC_DER_INTEGER, &ic, NULL)) != MTC_OK)
        return rc;
    if ((rc = mtc_der_finish(&sub)) != MTC_OK)
        return rc;
    if ((rc = mtc_der_parse_u64(ic, &val)) != MTC_OK)
        return rc == MTC_ERR_RANGE ? MTC_ERR_CERT : rc;
    if (val == 0 || val > 2)
        return MTC_ERR_CERT; /* explicit v1 is not DER; v4+ unknown */
    *v = (unsigned)val;
    return MTC_OK;
}

int mtc__parse_name(mtc_der_reader *r, mtc_slice *whole)
{
    int rc = mtc_der_get(r, MTC_DER_SEQUENCE, NULL, whole);
    if (rc != MTC_OK)
        return rc;
    return mtc_der_validate(whole->p, whole->len);
}

int mtc__parse_validity(mtc_der_reader *r, mtc_slice *whole,
                        int64_t *not_before, int64_t *not_after)
{
    mtc_der_reader sub;
    int rc = mtc_der_enter(r, MTC_DER_SEQUENCE, &sub, whole);
    if (rc != MTC_OK)
        return rc;
    int64_t *t[2] = {not_before, not_after};
    for (int i = 0; i < 2; i++) {
        unsigned tag;
        mtc_slice c;
        if ((rc = mtc_der_get_any(&sub, &tag, &c, NULL)) != MTC_OK)
            return rc;
        if ((rc = mtc_der_parse_time(tag, c, t[i])) != MTC_OK)
            return rc;
    }
    return mtc_der_finish(&sub);
}

int mtc__parse_alg_id(mtc_der_reader *r, mtc_slice *whole)
{
    mtc_der_reader sub;
    int rc = mtc_der_enter(r, MTC_DER_SEQUENCE, &sub, whole);
    if (rc != MTC_OK)
        return rc;
    if ((rc = mtc_der_get(&sub, MTC_DER_OID, NULL, NULL)) != MTC_OK)
        return rc;
    return mtc_der_validate(whole->p, whole->len);
}

/* Reads one Extension { extnID, critical DEFAULT FALSE, extnValue }. */
static int read_extension(mtc_der_reader *list, mtc_slice *oid)
{
    mtc_der_reader ext;
    mtc_slice b;
    int rc;
    if ((rc = mtc_der_enter(list, MTC_DER_SEQUENCE, &ext, NULL)) != MTC_OK)
        return rc;
    if ((rc = mtc_der_get(&ext, MTC_DER_OID, oid, NULL)) != MTC_OK)
        return rc;
    if (mtc_der_peek(&ext) == MTC_DER_BOOLEAN) {
        if ((rc = mtc_der_get(&ext, MTC_DER_BOOLEAN, &b, NULL)) != MTC_OK)
            return rc;
        if (b.len != 1 || b.p[0] != 0xff)
            return MTC_ERR_DER; /* DEFAULT FALSE must be omitted */
    }
    if ((rc = mtc_der_get(&ext, MTC_DER_OCTET_STRING, NULL, NULL)) != MTC_OK)
        return rc;
    return mtc_der_finish(&ext);
}

static int oid_cmp(const void *a, const void *b)
{
    const mtc_slice *x = a, *y = b;
    if (x->len != y->len)
        return x->len < y->len ? -1 : 1;
    return memcmp(x->p, y->p, x->len);
}

/*
 * RFC 5280 allows any number of extensions, one instance per OID. Almost
 * every certificate has fewer than 64, checked on the stack; more cost
 * one allocation, and sorting keeps the duplicate check O(n log n) for
 * the largest entries an attacker can send.
 */
#define EXT_STACK 64

static int parse_extensions(mtc_slice whole)
{
    mtc_der_reader r, outer, list;
    mtc_der_reader_init(&r, whole.p, whole.len);
    int rc = mtc_der_enter(&r, MTC_DER_CONTEXT | MTC_DER_CONSTRUCTED | 3, &outer,
                           NULL);
    if (rc != MTC_OK)
        return rc;
    if ((rc = mtc_der_enter(&outer, MTC_DER_SEQUENCE, &list, NULL)) != MTC_OK)
        return rc;
    if ((rc = mtc_der_finish(&outer)) != MTC_OK)
        return rc;
    if (mtc_der_empty(&list))
        return MTC_ERR_CERT; /* Extensions ::= SEQUENCE SIZE (1..MAX) */
    size_t n = 0;
    mtc_slice oid;
    for (mtc_der_reader scan = list; !mtc_der_empty(&scan); n++)
        if ((rc = read_extension(&scan, &oid)) != MTC_OK)
            return rc;
    mtc_slice stack[EXT_STACK];
    mtc_slice *oids = n <= EXT_STACK ? stack : malloc(n * sizeof *oids);
    if (!oids)
        return MTC_ERR_NOMEM;
    for (size_t i = 0; i < n; i++)
        read_extension(&list, &oids[i]); /* validated by the scan above */
    qsort(oids, n, sizeof *oids, oid_cmp);
    rc = MTC_OK;
    for (size_t i = 1; i < n && rc == MTC_OK; i++)
        if (oid_cmp(&oids[i - 1], &oids[i]) == 0)
            rc = MTC_ERR_CERT; /* RFC 5280: one instance per OID */
    if (oids != stack)
        free(oids);
    return rc;
}

/* 2.5.29.18 issuerAltName */
static const uint8_t OID_IAN[] = {0x55, 0x1d, 0x12};

/* The label's GeneralNames: one [4] directoryName holding an rdnSequence
 * whose every RDN (a SET) has exactly one AttributeTypeAndValue. */
static int check_ian_value(mtc_slice v)
{
    mtc_der_reader r, names, dn, rdns;
    mtc_der_reader_init(&r, v.p, v.len);
    if (mtc_der_enter(&r, MTC_DER_SEQUENCE, &names, NULL) != MTC_OK ||
        mtc_der_finish(&r) != MTC_OK ||
        mtc_der_enter(&names, MTC_DER_CONTEXT | MTC_DER_CONSTRUCTED | 4, &dn,
                      NULL) != MTC_OK ||
        !mtc_der_empty(&names) || /* a single GeneralName */
        mtc_der_enter(&dn, MTC_DER_SEQUENCE, &rdns, NULL) != MTC_OK ||
        !mtc_der_empty(&dn))
        return MTC_ERR_CERT;
    while (!mtc_der_empty(&rdns)) {
        mtc_der_reader rdn, atv;
        if (mtc_der_enter(&rdns, MTC_DER_SET, &rdn, NULL) != MTC_OK ||
            mtc_der_enter(&rdn, MTC_DER_SEQUENCE, &atv, NULL) != MTC_OK ||
            !mtc_der_empty(&rdn))
            return MTC_ERR_CERT;
    }
    return MTC_OK;
}

int mtc_entry_check_issuer_alt_name(mtc_slice extensions)
{
    if (extensions.len == 0)
        return MTC_OK;
    mtc_der_reader r, outer, list;
    mtc_der_reader_init(&r, extensions.p, extensions.len);
    if (mtc_der_enter(&r, MTC_DER_CONTEXT | MTC_DER_CONSTRUCTED | 3, &outer,
                      NULL) != MTC_OK ||
        mtc_der_enter(&outer, MTC_DER_SEQUENCE, &list, NULL) != MTC_OK)
        return MTC_ERR_CERT;
    while (!mtc_der_empty(&list)) {
        mtc_der_reader ext;
        mtc_slice oid, v;
        if (mtc_der_enter(&list, MTC_DER_SEQUENCE, &ext, NULL) != MTC_OK ||
            mtc_der_get(&ext, MTC_DER_OID, &oid, NULL) != MTC_OK)
            return MTC_ERR_CERT;
        if (oid.len != sizeof OID_IAN || memcmp(oid.p, OID_IAN, oid.len))
            continue;
        if (mtc_der_peek(&ext) == MTC_DER_BOOLEAN)
            return MTC_ERR_CERT; /* critical (DER omits FALSE) */
        if (mtc_der_get(&ext, MTC_DER_OCTET_STRING, &v, NULL) != MTC_OK)
            return MTC_ERR_CERT;
        return check_ian_value(v); /* extensions are unique by OID */
    }
    return MTC_OK;
}

int mtc__parse_tail(mtc_der_reader *r, unsigned version, mtc_slice *issuer_uid,
                    mtc_slice *subject_uid, mtc_slice *extensions)
{
    static const unsigned tags[3] = {
        MTC_DER_CONTEXT | 1, MTC_DER_CONTEXT | 2,
        MTC_DER_CONTEXT | MTC_DER_CONSTRUCTED | 3};
    mtc_slice *out[3] = {issuer_uid, subject_uid, extensions};
    for (int i = 0; i < 3; i++) {
        out[i]->p = NULL;
        out[i]->len = 0;
        if (mtc_der_peek(r) != (int)tags[i])
            continue;
        mtc_slice c;
        int rc = mtc_der_get(r, tags[i], &c, out[i]);
        if (rc != MTC_OK)
            return rc;
        if (i < 2) {
            if (version < 1)
                return MTC_ERR_CERT; /* unique IDs need v2 or v3 */
            if (c.len == 0 || c.p[0] > 7 ||
                (c.p[0] && (c.len == 1 ||
                            (c.p[c.len - 1] & ((1u << c.p[0]) - 1)))))
                return MTC_ERR_DER;
        } else {
            if (version < 2)
                return MTC_ERR_CERT; /* extensions need v3 */
            if ((rc = parse_extensions(*out[i])) != MTC_OK)
                return rc;
        }
    }
    return MTC_OK;
}

int mtc_log_entry_parse(const uint8_t *entry, size_t len, mtc_slice *exts,
                        unsigned *type, mtc_tbs_entry *e)
{
    if (len > MTC_ENTRY_MAX || len < 4)
        return MTC_ERR_CERT;
    size_t elen = (size_t)(entry[0] << 8 | entry[1]);
    if (len < 4 + elen)
        return MTC_ERR_CERT;
    exts->p = entry + 2;
    exts->len = elen;
    if (mtc_entry_exts_check(*exts) != MTC_OK)
        return MTC_ERR_CERT;
    *type = (unsigned)(entry[2 + elen] << 8 | entry[3 + elen]);
    const uint8_t *data = entry + 4 + elen;
    size_t dlen = len - 4 - elen;
    memset(e, 0, sizeof *e);
    if (*type == MTC_ENTRY_NULL)
        return dlen == 0 ? MTC_OK : MTC_ERR_DER_TRAILING;
    if (*type != MTC_ENTRY_TBS_CERT)
        return MTC_ERR_UNSUPPORTED;
    mtc_der_reader r;
    mtc_der_reader_init(&r, data, dlen);
    r.depth = 1; /* these are the contents of a SEQUENCE */
    unsigned version;
    int64_t nb, na;
    mtc_slice hash;
    int rc;
    if ((rc = mtc__parse_version(&r, &e->version, &version)) != MTC_OK ||
        (rc = mtc__parse_name(&r, &e->issuer)) != MTC_OK ||
        (rc = mtc__parse_validity(&r, &e->validity, &nb, &na)) != MTC_OK ||
        (rc = mtc__parse_name(&r, &e->subject)) != MTC_OK ||
        (rc = mtc__parse_alg_id(&r, &e->spki_alg)) != MTC_OK ||
        (rc = mtc_der_get(&r, MTC_DER_OCTET_STRING, &hash, NULL)) != MTC_OK)
        return rc;
    if (hash.len != MTC_HASH_LEN)
        return MTC_ERR_CERT;
    memcpy(e->spki_hash.b, hash.p, MTC_HASH_LEN);
    if ((rc = mtc__parse_tail(&r, version, &e->issuer_uid, &e->subject_uid,
                              &e->extensions)) != MTC_OK)
        return rc;
    return mtc_der_finish(&r);
}

/* ---- building ------------------------------------------------------------------ */

int mtc_validity_der(int64_t not_before, int64_t not_after, uint8_t *out,
                     size_t cap, size_t *out_len)
{
    mtc_der_writer w;
    mtc_der_writer_init(&w, out, cap);
    size_t m = mtc_der_open(&w, MTC_DER_SEQUENCE);
    mtc_der_time(&w, not_before);
    mtc_der_time(&w, not_after);
    mtc_der_close(&w, m);
    *out_len = w.len;
    return w.err;
}

int mtc_spki_split(const uint8_t *spki, size_t len, mtc_slice *alg,
                   mtc_hash *hash)
{
    mtc_der_reader r, s;
    mtc_der_reader_init(&r, spki, len);
    int rc = mtc_der_enter(&r, MTC_DER_SEQUENCE, &s, NULL);
    if (rc != MTC_OK)
        return rc;
    if ((rc = mtc_der_finish(&r)) != MTC_OK)
        return rc;
    if ((rc = mtc__parse_alg_id(&s, alg)) != MTC_OK)
        return rc;
    mtc_slice bits;
    if ((rc = mtc_der_get(&s, MTC_DER_BIT_STRING, &bits, NULL)) != MTC_OK)
        return rc;
    if (bits.len == 0 || bits.p[0] != 0)
        return MTC_ERR_CERT; /* keys are whole octets */
    if ((rc = mtc_der_finish(&s)) != MTC_OK)
        return rc;
    mtc_sha256(spki, len, hash);
    return MTC_OK;
}

/* 2.5.29.15 keyUsage, 2.5.29.37 extKeyUsage, 2.5.29.17 subjectAltName,
 * 1.3.6.1.5.5.7.3.1 id-kp-serverAuth. */
static const uint8_t OID_KU[] = {0x55, 0x1d, 0x0f};
static const uint8_t OID_EKU[] = {0x55, 0x1d, 0x25};
static const uint8_t OID_SAN[] = {0x55, 0x1d, 0x11};
static const uint8_t OID_KP_SERVER[] = {0x2b, 0x06, 0x01, 0x05,
                                        0x05, 0x07, 0x03, 0x01};

int mtc_tbs_entry_tls_server(mtc_tbs_entry *e, mtc_entry_scratch *scratch,
                             mtc_slice issuer_name, int64_t not_before,
                             int64_t not_after, const char *dns_name,
                             const uint8_t *spki, size_t spki_len)
{
    static const uint8_t v3[] = {0xa0, 0x03, 0x02, 0x01, 0x02};
    static const uint8_t empty_name[] = {0x30, 0x00};
    static const uint8_t t = 0xff;
    memset(e, 0, sizeof *e);
    mtc_slice alg;
    int rc = mtc_spki_split(spki, spki_len, &alg, &e->spki_hash);
    if (rc != MTC_OK)
        return rc;

    mtc_der_writer w;
    mtc_der_writer_init(&w, scratch->buf, sizeof scratch->buf);
    size_t at;
    at = w.len;
    mtc_der_raw(&w, alg.p, alg.len);
    size_t alg_at = at, alg_len = w.len - at;
    size_t val_at = w.len;
    size_t m = mtc_der_open(&w, MTC_DER_SEQUENCE);
    mtc_der_time(&w, not_before);
    mtc_der_time(&w, not_after);
    mtc_der_close(&w, m);
    size_t val_len = w.len - val_at;

    size_t ext_at = w.len;
    size_t m3 = mtc_der_open(&w, MTC_DER_CONTEXT | MTC_DER_CONSTRUCTED | 3);
    size_t ml = mtc_der_open(&w, MTC_DER_SEQUENCE);
    /* keyUsage: digitalSignature, critical */
    size_t mx = mtc_der_open(&w, MTC_DER_SEQUENCE);
    mtc_der_prim(&w, MTC_DER_OID, OID_KU, sizeof OID_KU);
    mtc_der_prim(&w, MTC_DER_BOOLEAN, &t, 1);
    static const uint8_t ku[] = {0x03, 0x02, 0x07, 0x80};
    mtc_der_prim(&w, MTC_DER_OCTET_STRING, ku, sizeof ku);
    mtc_der_close(&w, mx);
    /* extKeyUsage: serverAuth */
    mx = mtc_der_open(&w, MTC_DER_SEQUENCE);
    mtc_der_prim(&w, MTC_DER_OID, OID_EKU, sizeof OID_EKU);
    size_t mo = mtc_der_open(&w, MTC_DER_OCTET_STRING);
    size_t ms = mtc_der_open(&w, MTC_DER_SEQUENCE);
    mtc_der_prim(&w, MTC_DER_OID, OID_KP_SERVER, sizeof OID_KP_SERVER);
    mtc_der_close(&w, ms);
    mtc_der_close(&w, mo);
    mtc_der_close(&w, mx);
    /* subjectAltName: one dNSName; critical because the subject is empty */
    mx = mtc_der_open(&w, MTC_DER_SEQUENCE);
    mtc_der_prim(&w, MTC_DER_OID, OID_SAN, sizeof OID_SAN);
    mtc_der_prim(&w, MTC_DER_BOOLEAN, &t, 1);
    mo = mtc_der_open(&w, MTC_DER_OCTET_STRING);
    ms = mtc_der_open(&w, MTC_DER_SEQUENCE);
    mtc_der_prim(&w, MTC_DER_CONTEXT | 2, dns_name, strlen(dns_name));
    mtc_der_close(&w, ms);
    mtc_der_close(&w, mo);
    mtc_der_close(&w, mx);
    mtc_der_close(&w, ml);
    mtc_der_close(&w, m3);
    if (w.err != MTC_OK)
        return MTC_ERR_LIMIT;

    e->version.p = v3;
    e->version.len = sizeof v3;
    e->issuer = issuer_name;
    e->validity.p = scratch->buf + val_at;
    e->validity.len = val_len;
    e->subject.p = empty_name;
    e->subject.len = sizeof empty_name;
    e->spki_alg.p = scratch->buf + alg_at;
    e->spki_alg.len = alg_len;
    e->extensions.p = scratch->buf + ext_at;
    e->extensions.len = w.len - ext_at;
    return mtc_log_entry_len((mtc_slice){NULL, 0}, e) ? MTC_OK : MTC_ERR_LIMIT;
}
