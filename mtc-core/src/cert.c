/*
 * cert.c - MTCProof, Merkle Tree Certificates (build, strict parse, entry
 * hashes) and the CA certificate.
 *
 * Verification (rp.c) parses one certificate per simulated handshake, so
 * parsing is allocation-free and single-pass; building is rarer (once per
 * certificate) and writes straight into the caller's buffer, or only
 * counts when given none, which is how exact sizes are reported.
 */
#define OPENSSL_SUPPRESS_DEPRECATED 1
#include "mtc/cert.h"

#include <openssl/sha.h>
#include <stdlib.h>
#include <string.h>

#include "cert_internal.h"
#include "mtc/error.h"

const uint8_t MTC_ALG_MTC_PROOF_DER[] = {0x30, 0x0c, 0x06, 0x0a, 0x2b,
                                         0x06, 0x01, 0x04, 0x01, 0x82,
                                         0xda, 0x4b, 0x2f, 0x00};

/* ---- MTCProof ------------------------------------------------------------------ */

static int sig_id_cmp(mtc_slice a, mtc_slice b)
{
    if (a.len != b.len)
        return a.len < b.len ? -1 : 1;
    return memcmp(a.p, b.p, a.len);
}

static size_t sigs_len(const mtc_proof *p)
{
    if (p->sig_vec.p)
        return p->sig_vec.len;
    size_t n = 0;
    for (size_t i = 0; i < p->n_sigs; i++)
        n += 1 + p->sigs[i].cosigner_id.len + 2 + p->sigs[i].signature.len;
    return n;
}

size_t mtc_proof_len(const mtc_proof *p)
{
    return 2 + p->extensions.len + 6 + 6 + 2 + p->n_inclusion * MTC_HASH_LEN +
           2 + sigs_len(p);
}

static uint8_t *put48(uint8_t *q, uint64_t v)
{
    for (int i = 5; i >= 0; i--)
        *q++ = (uint8_t)(v >> (8 * i));
    return q;
}

static uint8_t *put16(uint8_t *q, size_t v)
{
    *q++ = (uint8_t)(v >> 8);
    *q++ = (uint8_t)v;
    return q;
}

int mtc_proof_encode(const mtc_proof *p, uint8_t *out, size_t cap,
                     size_t *out_len)
{
    const uint64_t max48 = (UINT64_C(1) << 48) - 1;
    if (p->start > max48 || p->end > max48)
        return MTC_ERR_ARG;
    if (p->n_sigs > MTC_PROOF_MAX_SIGS)
        return MTC_ERR_LIMIT;
    for (size_t i = 0; i < p->n_sigs && !p->sig_vec.p; i++) {
        if (p->sigs[i].cosigner_id.len == 0 || p->sigs[i].cosigner_id.len > 255)
            return MTC_ERR_ARG;
        if (p->sigs[i].signature.len > 0xffff)
            return MTC_ERR_LIMIT;
        if (i && sig_id_cmp(p->sigs[i - 1].cosigner_id, p->sigs[i].cosigner_id) >= 0)
            return MTC_ERR_ARG;
    }
    size_t sl = sigs_len(p);
    if (p->extensions.len > 0xffff || p->n_inclusion * MTC_HASH_LEN > 0xffff ||
        sl > 0xffff)
        return MTC_ERR_LIMIT;
    size_t n = mtc_proof_len(p);
    *out_len = n;
    if (!out || n > cap)
        return MTC_ERR_LIMIT;
    uint8_t *q = out;
    q = put16(q, p->extensions.len);
    if (p->extensions.len)
        memcpy(q, p->extensions.p, p->extensions.len);
    q += p->extensions.len;
    q = put48(q, p->start);
    q = put48(q, p->end);
    q = put16(q, p->n_inclusion * MTC_HASH_LEN);
    if (p->n_inclusion)
        memcpy(q, p->inclusion, p->n_inclusion * MTC_HASH_LEN);
    q += p->n_inclusion * MTC_HASH_LEN;
    q = put16(q, sl);
    if (p->sig_vec.p) { /* decoded: already validated, copied verbatim */
        memcpy(q, p->sig_vec.p, sl);
        return MTC_OK;
    }
    for (size_t i = 0; i < p->n_sigs; i++) {
        const mtc_subtree_sig *s = &p->sigs[i];
        *q++ = (uint8_t)s->cosigner_id.len;
        memcpy(q, s->cosigner_id.p, s->cosigner_id.len);
        q += s->cosigner_id.len;
        q = put16(q, s->signature.len);
        if (s->signature.len)
            memcpy(q, s->signature.p, s->signature.len);
        q += s->signature.len;
    }
    return MTC_OK;
}

/* Reads a <0..2^16-1> vector. */
static int get_vec16(const uint8_t **q, const uint8_t *end, mtc_slice *v)
{
    if (end - *q < 2)
        return 0;
    size_t n = (size_t)((*q)[0] << 8 | (*q)[1]);
    if ((size_t)(end - *q - 2) < n)
        return 0;
    v->p = *q + 2;
    v->len = n;
    *q += 2 + n;
    return 1;
}

/* Reads one SubtreeSignature (non-empty cosigner ID) at *s. */
static int next_sig(const uint8_t **s, const uint8_t *se, mtc_subtree_sig *sg)
{
    size_t idl = (*s)[0];
    if (idl == 0 || (size_t)(se - *s - 1) < idl)
        return 0;
    sg->cosigner_id.p = *s + 1;
    sg->cosigner_id.len = idl;
    *s += 1 + idl;
    return get_vec16(s, se, &sg->signature);
}

int mtc_proof_decode(const uint8_t *in, size_t len, mtc_proof *p)
{
    const uint8_t *q = in, *end = in + len;
    memset(p, 0, sizeof *p);
    if (!get_vec16(&q, end, &p->extensions))
        return MTC_ERR_CERT;
    if (mtc_entry_exts_check(p->extensions) != MTC_OK)
        return MTC_ERR_CERT;
    if (end - q < 12)
        return MTC_ERR_CERT;
    p->start = p->end = 0;
    for (int i = 0; i < 6; i++)
        p->start = p->start << 8 | q[i];
    for (int i = 6; i < 12; i++)
        p->end = p->end << 8 | q[i];
    q += 12;
    mtc_slice incl, sigs;
    if (!get_vec16(&q, end, &incl) || incl.len % MTC_HASH_LEN != 0)
        return MTC_ERR_CERT;
    /* No count limit: a proof longer than any 48-bit subtree needs is
     * well-formed and fails evaluation, as the draft's procedure says. */
    p->inclusion = (const mtc_hash *)(const void *)incl.p;
    p->n_inclusion = incl.len / MTC_HASH_LEN;
    if (!get_vec16(&q, end, &sigs))
        return MTC_ERR_CERT;
    if (q != end)
        return MTC_ERR_CERT; /* data after the MTCProof */
    const uint8_t *s = sigs.p, *se = sigs.p + sigs.len;
    mtc_slice prev = {NULL, 0};
    while (s < se) {
        mtc_subtree_sig sg;
        if (!next_sig(&s, se, &sg))
            return MTC_ERR_CERT;
        if (prev.p && sig_id_cmp(prev, sg.cosigner_id) >= 0)
            return MTC_ERR_CERT; /* out of order or duplicate */
        prev = sg.cosigner_id;
        if (p->n_sigs < MTC_PROOF_MAX_SIGS)
            p->sigs[p->n_sigs++] = sg;
        p->n_sigs_total++;
    }
    /* sigs.p points into `in` even when empty: the encoder and
     * mtc_proof_sig_next tell a decoded proof by it. */
    p->sig_vec = sigs;
    return MTC_OK;
}

int mtc_proof_sig_next(const mtc_proof *p, size_t *cursor, mtc_subtree_sig *out)
{
    if (!p->sig_vec.p) {
        if (*cursor >= p->n_sigs)
            return 0;
        *out = p->sigs[(*cursor)++];
        return 1;
    }
    if (*cursor >= p->sig_vec.len)
        return 0;
    const uint8_t *s = p->sig_vec.p + *cursor;
    if (!next_sig(&s, p->sig_vec.p + p->sig_vec.len, out))
        return 0; /* not reached for a decoded vector */
    *cursor = (size_t)(s - p->sig_vec.p);
    return 1;
}

static int sig_qsort_cmp(const void *a, const void *b)
{
    return sig_id_cmp(((const mtc_subtree_sig *)a)->cosigner_id,
                      ((const mtc_subtree_sig *)b)->cosigner_id);
}

void mtc_proof_sort_sigs(mtc_proof *p)
{
    qsort(p->sigs, p->n_sigs, sizeof p->sigs[0], sig_qsort_cmp);
}

/* ---- building ---------------------------------------------------------------------- */

static void raw_slice(mtc_der_writer *w, mtc_slice s)
{
    mtc_der_raw(w, s.p, s.len);
}

int mtc_cert_build(const mtc_tbs_entry *e, const uint8_t *spki, size_t spki_len,
                   uint64_t serial, const mtc_proof *p, uint8_t *out, size_t cap,
                   size_t *out_len)
{
    mtc_slice alg;
    mtc_hash h;
    int rc = mtc_spki_split(spki, spki_len, &alg, &h);
    if (rc != MTC_OK)
        return rc;
    if (alg.len != e->spki_alg.len || memcmp(alg.p, e->spki_alg.p, alg.len) ||
        !mtc_hash_equal(&h, &e->spki_hash))
        return MTC_ERR_ARG;
    size_t plen = mtc_proof_len(p);
    mtc_der_writer w;
    mtc_der_writer_init(&w, out, cap);
    size_t mc = mtc_der_open(&w, MTC_DER_SEQUENCE);
    size_t mt = mtc_der_open(&w, MTC_DER_SEQUENCE);
    raw_slice(&w, e->version);
    mtc_der_u64(&w, serial);
    mtc_der_raw(&w, MTC_ALG_MTC_PROOF_DER, MTC_ALG_MTC_PROOF_DER_LEN);
    raw_slice(&w, e->issuer);
    raw_slice(&w, e->validity);
    raw_slice(&w, e->subject);
    mtc_der_raw(&w, spki, spki_len);
    raw_slice(&w, e->issuer_uid);
    raw_slice(&w, e->subject_uid);
    raw_slice(&w, e->extensions);
    mtc_der_close(&w, mt);
    mtc_der_raw(&w, MTC_ALG_MTC_PROOF_DER, MTC_ALG_MTC_PROOF_DER_LEN);
    mtc_der_header(&w, MTC_DER_BIT_STRING, plen + 1);
    uint8_t zero = 0;
    mtc_der_raw(&w, &zero, 1);
    uint8_t *dst = mtc_der_reserve(&w, plen);
    size_t got;
    if (dst) {
        rc = mtc_proof_encode(p, dst, plen, &got);
        if (rc != MTC_OK)
            return rc;
    } else {
        rc = mtc_proof_encode(p, NULL, 0, &got);
        if (rc != MTC_ERR_LIMIT)
            return rc;
    }
    mtc_der_close(&w, mc);
    *out_len = w.len;
    return w.err;
}

/* ---- parsing --------------------------------------------------------------------------- */

int mtc_cert_parse(const uint8_t *der, size_t len, mtc_cert *c)
{
    memset(c, 0, sizeof *c);
    mtc_der_reader r, cert, tbs, spki;
    int rc;
    mtc_der_reader_init(&r, der, len);
    if ((rc = mtc_der_enter(&r, MTC_DER_SEQUENCE, &cert, NULL)) != MTC_OK)
        return rc;
    if ((rc = mtc_der_finish(&r)) != MTC_OK)
        return rc;
    if ((rc = mtc_der_enter(&cert, MTC_DER_SEQUENCE, &tbs, &c->tbs)) != MTC_OK)
        return rc;
    if ((rc = mtc__parse_version(&tbs, &c->version, &c->version_num)) != MTC_OK)
        return rc;
    if ((rc = mtc_der_get(&tbs, MTC_DER_INTEGER, &c->serial, NULL)) != MTC_OK)
        return rc;
    c->serial_status = mtc_der_parse_u64(c->serial, &c->serial_num);
    if (c->serial_status == MTC_ERR_DER)
        return MTC_ERR_DER;
    if ((rc = mtc__parse_alg_id(&tbs, &c->tbs_sig_alg)) != MTC_OK ||
        (rc = mtc__parse_name(&tbs, &c->issuer)) != MTC_OK ||
        (rc = mtc__parse_validity(&tbs, &c->validity, &c->not_before,
                                  &c->not_after)) != MTC_OK ||
        (rc = mtc__parse_name(&tbs, &c->subject)) != MTC_OK)
        return rc;
    if ((rc = mtc_der_enter(&tbs, MTC_DER_SEQUENCE, &spki, &c->spki)) != MTC_OK)
        return rc;
    if ((rc = mtc__parse_alg_id(&spki, &c->spki_alg)) != MTC_OK)
        return rc;
    mtc_slice bits;
    if ((rc = mtc_der_get(&spki, MTC_DER_BIT_STRING, &bits, NULL)) != MTC_OK)
        return rc;
    if ((rc = mtc_der_finish(&spki)) != MTC_OK)
        return rc;
    if (bits.len == 0 || bits.p[0] != 0)
        return MTC_ERR_CERT;
    c->after_spki.p = tbs.p;
    c->after_spki.len = (size_t)(tbs.end - tbs.p);
    if ((rc = mtc__parse_tail(&tbs, c->version_num, &c->issuer_uid,
                              &c->subject_uid, &c->extensions)) != MTC_OK)
        return rc;
    if ((rc = mtc_der_finish(&tbs)) != MTC_OK)
        return rc;
    if ((rc = mtc__parse_alg_id(&cert, &c->sig_alg)) != MTC_OK)
        return rc;
    if ((rc = mtc_der_get(&cert, MTC_DER_BIT_STRING, &c->sig_bits, NULL)) != MTC_OK)
        return rc;
    if ((rc = mtc_der_finish(&cert)) != MTC_OK)
        return rc;
    if (c->sig_bits.len == 0 || c->sig_bits.p[0] > 7 ||
        (c->sig_bits.len == 1 && c->sig_bits.p[0] != 0))
        return MTC_ERR_DER;
    c->sig_whole_octets = c->sig_bits.p[0] == 0;
    if (c->sig_whole_octets) {
        c->sig_value.p = c->sig_bits.p + 1;
        c->sig_value.len = c->sig_bits.len - 1;
    } else if (c->sig_bits.p[c->sig_bits.len - 1] &
               ((1u << c->sig_bits.p[0]) - 1)) {
        return MTC_ERR_DER;
    }
    return MTC_OK;
}

int mtc_cert_entry_hash(const mtc_cert *c, mtc_slice exts, mtc_hash *out)
{
    if (mtc_entry_exts_check(exts) != MTC_OK)
        return MTC_ERR_CERT;
    /* The entry's size: as mtc_log_entry_len, without building it. */
    size_t n = 2 + exts.len + 2 + c->version.len + c->issuer.len +
               c->validity.len + c->subject.len + c->spki_alg.len + 2 +
               MTC_HASH_LEN + c->after_spki.len;
    if (n > MTC_ENTRY_MAX)
        return MTC_ERR_LIMIT;
    mtc_hash spki_hash;
    mtc_sha256(c->spki.p, c->spki.len, &spki_hash);
    SHA256_CTX ctx;
    uint8_t head[3] = {0x00, (uint8_t)(exts.len >> 8), (uint8_t)exts.len};
    static const uint8_t type[2] = {0, MTC_ENTRY_TBS_CERT};
    static const uint8_t oct[2] = {MTC_DER_OCTET_STRING, MTC_HASH_LEN};
    SHA256_Init(&ctx);
    SHA256_Update(&ctx, head, 3);
    SHA256_Update(&ctx, exts.p, exts.len);
    SHA256_Update(&ctx, type, 2);
    SHA256_Update(&ctx, c->version.p, c->version.len);
    /* issuer, validity and subject are adjacent in the TBSCertificate */
    SHA256_Update(&ctx, c->issuer.p,
                  (size_t)(c->subject.p + c->subject.len - c->issuer.p));
    SHA256_Update(&ctx, c->spki_alg.p, c->spki_alg.len);
    SHA256_Update(&ctx, oct, 2);
    SHA256_Update(&ctx, spki_hash.b, MTC_HASH_LEN);
    SHA256_Update(&ctx, c->after_spki.p, c->after_spki.len);
    SHA256_Final(out->b, &ctx);
    return MTC_OK;
}

void mtc_cert_tbs_entry(const mtc_cert *c, mtc_tbs_entry *e)
{
    e->version = c->version;
    e->issuer = c->issuer;
    e->validity = c->validity;
    e->subject = c->subject;
    e->spki_alg = c->spki_alg;
    mtc_sha256(c->spki.p, c->spki.len, &e->spki_hash);
    e->issuer_uid = c->issuer_uid;
    e->subject_uid = c->subject_uid;
    e->extensions = c->extensions;
}

int mtc_cert_find_ext(const mtc_cert *c, const uint8_t *oid, size_t oid_len,
                      int *critical, mtc_slice *value)
{
    if (c->extensions.len == 0)
        return MTC_ERR_RANGE;
    mtc_der_reader r, outer, list;
    mtc_der_reader_init(&r, c->extensions.p, c->extensions.len);
    if (mtc_der_enter(&r, MTC_DER_CONTEXT | MTC_DER_CONSTRUCTED | 3, &outer,
                      NULL) != MTC_OK ||
        mtc_der_enter(&outer, MTC_DER_SEQUENCE, &list, NULL) != MTC_OK)
        return MTC_ERR_CERT;
    while (!mtc_der_empty(&list)) {
        mtc_der_reader ext;
        mtc_slice o, b = {NULL, 0}, v;
        if (mtc_der_enter(&list, MTC_DER_SEQUENCE, &ext, NULL) != MTC_OK ||
            mtc_der_get(&ext, MTC_DER_OID, &o, NULL) != MTC_OK)
            return MTC_ERR_CERT;
        if (mtc_der_peek(&ext) == MTC_DER_BOOLEAN &&
            mtc_der_get(&ext, MTC_DER_BOOLEAN, &b, NULL) != MTC_OK)
            return MTC_ERR_CERT;
        if (mtc_der_get(&ext, MTC_DER_OCTET_STRING, &v, NULL) != MTC_OK)
            return MTC_ERR_CERT;
        if (o.len == oid_len && !memcmp(o.p, oid, oid_len)) {
            *critical = b.len == 1 && b.p[0] == 0xff;
            *value = v;
            return MTC_OK;
        }
    }
    return MTC_ERR_RANGE;
}

/* ---- CA certificate ---------------------------------------------------------------------- */

static const uint8_t OID_ALG_UNSIGNED[] = {0x2b, 0x06, 0x01, 0x05,
                                           0x05, 0x07, 0x06, 0x24};
static const uint8_t OID_SHA256[] = {0x60, 0x86, 0x48, 0x01, 0x65,
                                     0x03, 0x04, 0x02, 0x01};
static const uint8_t OID_BC[] = {0x55, 0x1d, 0x13};
static const uint8_t OID_KU[] = {0x55, 0x1d, 0x0f};
static const uint8_t OID_SKI[] = {0x55, 0x1d, 0x0e};

static void alg_unsigned(mtc_der_writer *w)
{
    size_t m = mtc_der_open(w, MTC_DER_SEQUENCE);
    mtc_der_prim(w, MTC_DER_OID, OID_ALG_UNSIGNED, sizeof OID_ALG_UNSIGNED);
    mtc_der_close(w, m);
}

int mtc_ca_cert_build(const mtc_ca_params *ca, uint8_t *out, size_t cap,
                      size_t *out_len)
{
    const mtc_sig_info *info = mtc_sig_info_get(ca->alg);
    if (!info)
        return MTC_ERR_UNSUPPORTED;
    if (ca->ca_id.len == 0 || ca->min_serial > ca->max_serial)
        return MTC_ERR_ARG;
    uint8_t spki[MTC_SIG_PK_MAX + 64];
    size_t spki_len;
    int rc = mtc_sig_spki_der(ca->alg, ca->pk, ca->pk_len, spki, sizeof spki,
                              &spki_len);
    if (rc != MTC_OK)
        return rc;
    static const uint8_t v3[] = {0xa0, 0x03, 0x02, 0x01, 0x02};
    static const uint8_t t = 0xff;
    mtc_der_writer w;
    mtc_der_writer_init(&w, out, cap);
    size_t mc = mtc_der_open(&w, MTC_DER_SEQUENCE);
    size_t mt = mtc_der_open(&w, MTC_DER_SEQUENCE);
    mtc_der_raw(&w, v3, sizeof v3);
    mtc_der_u64(&w, 1);
    alg_unsigned(&w);
    mtc_taid_name_der(&w, &ca->ca_id);
    size_t mv = mtc_der_open(&w, MTC_DER_SEQUENCE);
    mtc_der_time(&w, ca->not_before);
    mtc_der_time(&w, ca->not_after);
    mtc_der_close(&w, mv);
    mtc_taid_name_der(&w, &ca->ca_id);
    mtc_der_raw(&w, spki, spki_len);
    size_t m3 = mtc_der_open(&w, MTC_DER_CONTEXT | MTC_DER_CONSTRUCTED | 3);
    size_t ml = mtc_der_open(&w, MTC_DER_SEQUENCE);
    /* basicConstraints { cA TRUE }, critical */
    size_t mx = mtc_der_open(&w, MTC_DER_SEQUENCE);
    mtc_der_prim(&w, MTC_DER_OID, OID_BC, sizeof OID_BC);
    mtc_der_prim(&w, MTC_DER_BOOLEAN, &t, 1);
    static const uint8_t bc[] = {0x30, 0x03, 0x01, 0x01, 0xff};
    mtc_der_prim(&w, MTC_DER_OCTET_STRING, bc, sizeof bc);
    mtc_der_close(&w, mx);
    /* keyUsage keyCertSign | cRLSign, critical */
    mx = mtc_der_open(&w, MTC_DER_SEQUENCE);
    mtc_der_prim(&w, MTC_DER_OID, OID_KU, sizeof OID_KU);
    mtc_der_prim(&w, MTC_DER_BOOLEAN, &t, 1);
    static const uint8_t ku[] = {0x03, 0x02, 0x01, 0x06};
    mtc_der_prim(&w, MTC_DER_OCTET_STRING, ku, sizeof ku);
    mtc_der_close(&w, mx);
    /* subjectKeyIdentifier: the CA ID, binary form */
    mx = mtc_der_open(&w, MTC_DER_SEQUENCE);
    mtc_der_prim(&w, MTC_DER_OID, OID_SKI, sizeof OID_SKI);
    size_t mo = mtc_der_open(&w, MTC_DER_OCTET_STRING);
    mtc_der_prim(&w, MTC_DER_OCTET_STRING, ca->ca_id.b, ca->ca_id.len);
    mtc_der_close(&w, mo);
    mtc_der_close(&w, mx);
    /* id-pe-mtcCertificationAuthority, critical */
    mx = mtc_der_open(&w, MTC_DER_SEQUENCE);
    mtc_der_prim(&w, MTC_DER_OID, MTC_OID_PE_MTC_CA, MTC_OID_EXPERIMENTAL_LEN);
    mtc_der_prim(&w, MTC_DER_BOOLEAN, &t, 1);
    mo = mtc_der_open(&w, MTC_DER_OCTET_STRING);
    size_t ms = mtc_der_open(&w, MTC_DER_SEQUENCE);
    size_t ma = mtc_der_open(&w, MTC_DER_SEQUENCE);
    mtc_der_prim(&w, MTC_DER_OID, OID_SHA256, sizeof OID_SHA256);
    mtc_der_close(&w, ma);
    mtc_der_raw(&w, info->alg_id_der, info->alg_id_der_len);
    mtc_der_u64(&w, ca->min_serial);
    mtc_der_u64(&w, ca->max_serial);
    mtc_der_close(&w, ms);
    mtc_der_close(&w, mo);
    mtc_der_close(&w, mx);
    mtc_der_close(&w, ml);
    mtc_der_close(&w, m3);
    mtc_der_close(&w, mt);
    alg_unsigned(&w);
    static const uint8_t empty_bits = 0;
    mtc_der_prim(&w, MTC_DER_BIT_STRING, &empty_bits, 1);
    mtc_der_close(&w, mc);
    *out_len = w.len;
    return w.err;
}

int mtc_ca_cert_parse(const uint8_t *der, size_t len, mtc_ca_params *ca)
{
    mtc_cert c;
    int rc = mtc_cert_parse(der, len, &c);
    if (rc != MTC_OK)
        return rc;
    memset(ca, 0, sizeof *ca);
    if ((rc = mtc_taid_from_name(c.subject, &ca->ca_id)) != MTC_OK)
        return rc;
    ca->not_before = c.not_before;
    ca->not_after = c.not_after;
    /* The key: a table algorithm; pk points into der. */
    mtc_sig_alg alg;
    size_t pk_len;
    uint8_t pk[MTC_SIG_PK_MAX];
    if ((rc = mtc_sig_spki_parse(c.spki.p, c.spki.len, &alg, pk, sizeof pk,
                                 &pk_len)) != MTC_OK)
        return rc;
    ca->alg = alg;
    ca->pk = c.spki.p + c.spki.len - pk_len; /* raw key ends the SPKI */
    ca->pk_len = pk_len;

    int crit;
    mtc_slice v;
    if (mtc_cert_find_ext(&c, MTC_OID_PE_MTC_CA, MTC_OID_EXPERIMENTAL_LEN, &crit,
                          &v) != MTC_OK || !crit)
        return MTC_ERR_CERT;
    mtc_der_reader r, s, a;
    mtc_slice oid, alg_id, mn, mx;
    mtc_der_reader_init(&r, v.p, v.len);
    if ((rc = mtc_der_enter(&r, MTC_DER_SEQUENCE, &s, NULL)) != MTC_OK ||
        (rc = mtc_der_finish(&r)) != MTC_OK ||
        (rc = mtc_der_enter(&s, MTC_DER_SEQUENCE, &a, NULL)) != MTC_OK ||
        (rc = mtc_der_get(&a, MTC_DER_OID, &oid, NULL)) != MTC_OK)
        return rc;
    /* mda-sha256: parameters preferably absent; NULL tolerated */
    if (mtc_der_peek(&a) == MTC_DER_NULL &&
        (rc = mtc_der_get(&a, MTC_DER_NULL, NULL, NULL)) != MTC_OK)
        return rc;
    if ((rc = mtc_der_finish(&a)) != MTC_OK)
        return rc;
    if (oid.len != sizeof OID_SHA256 || memcmp(oid.p, OID_SHA256, oid.len))
        return MTC_ERR_UNSUPPORTED;
    if ((rc = mtc__parse_alg_id(&s, &alg_id)) != MTC_OK ||
        (rc = mtc_der_get(&s, MTC_DER_INTEGER, &mn, NULL)) != MTC_OK ||
        (rc = mtc_der_get(&s, MTC_DER_INTEGER, &mx, NULL)) != MTC_OK ||
        (rc = mtc_der_finish(&s)) != MTC_OK)
        return rc;
    const mtc_sig_info *info = mtc_sig_info_get(alg);
    if (alg_id.len != info->alg_id_der_len ||
        memcmp(alg_id.p, info->alg_id_der, alg_id.len))
        return MTC_ERR_CERT; /* sigAlg must be the key's algorithm */
    if (mtc_der_parse_u64(mn, &ca->min_serial) != MTC_OK ||
        mtc_der_parse_u64(mx, &ca->max_serial) != MTC_OK)
        return MTC_ERR_CERT;
    /* basicConstraints cA TRUE and keyUsage keyCertSign are required. */
    if (mtc_cert_find_ext(&c, OID_BC, sizeof OID_BC, &crit, &v) != MTC_OK)
        return MTC_ERR_CERT;
    mtc_der_reader_init(&r, v.p, v.len);
    mtc_slice b;
    if (mtc_der_enter(&r, MTC_DER_SEQUENCE, &s, NULL) != MTC_OK ||
        mtc_der_get(&s, MTC_DER_BOOLEAN, &b, NULL) != MTC_OK || b.len != 1 ||
        b.p[0] != 0xff)
        return MTC_ERR_CERT;
    if (mtc_cert_find_ext(&c, OID_KU, sizeof OID_KU, &crit, &v) != MTC_OK)
        return MTC_ERR_CERT;
    mtc_der_reader_init(&r, v.p, v.len);
    if (mtc_der_get(&r, MTC_DER_BIT_STRING, &b, NULL) != MTC_OK || b.len < 2 ||
        !(b.p[1] & 0x04))
        return MTC_ERR_CERT;
    return MTC_OK;
}
