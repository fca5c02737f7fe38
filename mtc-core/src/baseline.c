/*
 * baseline.c - a real leaf + intermediate chain with two embedded SCTs.
 *
 * Built once per (chain, leaf key) algorithm pair and name length per run
 * (the simulator caches the sizes), so
 * clarity beats speed here: the leaf's TBSCertificate is written twice,
 * once as the precertificate the SCTs sign and once with the SCT list.
 */
#include "mtc/baseline.h"

#include <stdlib.h>
#include <string.h>

#include "mtc/der.h"
#include "mtc/error.h"
#include "mtc/hash.h"
#include "sct_internal.h"

static const uint8_t OID_CN[] = {0x55, 0x04, 0x03};
static const uint8_t OID_BC[] = {0x55, 0x1d, 0x13};
static const uint8_t OID_KU[] = {0x55, 0x1d, 0x0f};
static const uint8_t OID_EKU[] = {0x55, 0x1d, 0x25};
static const uint8_t OID_SAN[] = {0x55, 0x1d, 0x11};
static const uint8_t OID_SKI[] = {0x55, 0x1d, 0x0e};
static const uint8_t OID_AKI[] = {0x55, 0x1d, 0x23};
static const uint8_t OID_SCT_LIST[] = {0x2b, 0x06, 0x01, 0x04, 0x01, 0xd6,
                                       0x79, 0x02, 0x04, 0x02};
static const uint8_t OID_KP_SERVER[] = {0x2b, 0x06, 0x01, 0x05,
                                        0x05, 0x07, 0x03, 0x01};
static const uint8_t TRUE_ = 0xff;

static void name_cn(mtc_der_writer *w, const char *cn)
{
    size_t a = mtc_der_open(w, MTC_DER_SEQUENCE);
    size_t b = mtc_der_open(w, MTC_DER_SET);
    size_t c = mtc_der_open(w, MTC_DER_SEQUENCE);
    mtc_der_prim(w, MTC_DER_OID, OID_CN, sizeof OID_CN);
    mtc_der_prim(w, MTC_DER_UTF8_STRING, cn, strlen(cn));
    mtc_der_close(w, c);
    mtc_der_close(w, b);
    mtc_der_close(w, a);
}

static void ext_open(mtc_der_writer *w, const uint8_t *oid, size_t oid_len,
                     int critical, size_t *m_ext, size_t *m_oct)
{
    *m_ext = mtc_der_open(w, MTC_DER_SEQUENCE);
    mtc_der_prim(w, MTC_DER_OID, oid, oid_len);
    if (critical)
        mtc_der_prim(w, MTC_DER_BOOLEAN, &TRUE_, 1);
    *m_oct = mtc_der_open(w, MTC_DER_OCTET_STRING);
}

static void ext_close(mtc_der_writer *w, size_t m_ext, size_t m_oct)
{
    mtc_der_close(w, m_oct);
    mtc_der_close(w, m_ext);
}

/* Key identifier: SHA-1-sized (20 bytes) truncation of SHA-256 of the key,
 * as CAs commonly use 20-byte identifiers. */
static void key_id(const uint8_t *pk, size_t len, uint8_t id[20])
{
    mtc_hash h;
    mtc_sha256(pk, len, &h);
    memcpy(id, h.b, 20);
}

/* Working buffers, heap-allocated per build (ML-DSA sizes make them too
 * large for the stack, and the library keeps no static state). */
struct scratch {
    uint8_t sig[MTC_SIG_MAX];
    uint8_t msg[MTC_BASELINE_CERT_MAX + 64];
    uint8_t tbs[MTC_BASELINE_CERT_MAX];
    uint8_t scts[2][MTC_SIG_MAX + 64];
    uint8_t list[2 * (MTC_SIG_MAX + 64) + 8];
};

struct party {
    mtc_sig_key *key;
    uint8_t pk[MTC_SIG_PK_MAX];
    size_t pk_len;
    uint8_t spki[MTC_SIG_PK_MAX + 64];
    size_t spki_len;
    uint8_t kid[20];
};

static int party_init(struct party *p, mtc_sig_alg alg, uint8_t tag)
{
    uint8_t seed[MTC_SIG_SEED_LEN] = {0};
    memcpy(seed, "mtc baseline key", 16);
    seed[31] = tag;
    int rc = mtc_sig_key_from_seed(alg, seed, &p->key);
    if (rc != MTC_OK)
        return rc;
    if ((rc = mtc_sig_key_public(p->key, p->pk, &p->pk_len)) != MTC_OK ||
        (rc = mtc_sig_spki_der(alg, p->pk, p->pk_len, p->spki, sizeof p->spki,
                               &p->spki_len)) != MTC_OK)
        return rc;
    key_id(p->pk, p->pk_len, p->kid);
    return MTC_OK;
}

/* Certificate { tbs, alg, BIT STRING sig(tbs) } into out. */
static int sign_cert(struct scratch *sc, const struct party *issuer,
                     const uint8_t *tbs, size_t tbs_len, uint8_t *out, size_t cap,
                     size_t *out_len, size_t *sig_len)
{
    const mtc_sig_info *info = mtc_sig_info_get(mtc_sig_key_alg(issuer->key));
    uint8_t *sig = sc->sig;
    size_t sl;
    int rc = mtc_sig_sign(issuer->key, tbs, tbs_len, sig, &sl);
    if (rc != MTC_OK)
        return rc;
    mtc_der_writer w;
    mtc_der_writer_init(&w, out, cap);
    size_t m = mtc_der_open(&w, MTC_DER_SEQUENCE);
    mtc_der_raw(&w, tbs, tbs_len);
    mtc_der_raw(&w, info->alg_id_der, info->alg_id_der_len);
    mtc_der_bits(&w, sig, sl);
    mtc_der_close(&w, m);
    *out_len = w.len;
    if (sig_len)
        *sig_len = sl;
    return w.err;
}

static void serial16(mtc_der_writer *w, uint8_t tag)
{
    uint8_t s[16];
    mtc_hash h;
    mtc_sha256(&tag, 1, &h);
    memcpy(s, h.b, 16);
    s[0] &= 0x7f; /* positive */
    s[0] |= 0x40; /* 16 octets, no padding */
    mtc_der_prim(w, MTC_DER_INTEGER, s, 16);
}

/* The leaf TBSCertificate, with the SCT list extension when sct_list. */
static int leaf_tbs(const struct party *inter, const struct party *leaf,
                    const char *dns, int64_t nb, int64_t na, const uint8_t *sct_list,
                    size_t sct_len, uint8_t *out, size_t cap, size_t *len)
{
    const mtc_sig_info *info = mtc_sig_info_get(mtc_sig_key_alg(inter->key));
    static const uint8_t v3[] = {0xa0, 0x03, 0x02, 0x01, 0x02};
    mtc_der_writer w;
    mtc_der_writer_init(&w, out, cap);
    size_t m = mtc_der_open(&w, MTC_DER_SEQUENCE);
    mtc_der_raw(&w, v3, sizeof v3);
    serial16(&w, 'L');
    mtc_der_raw(&w, info->alg_id_der, info->alg_id_der_len);
    name_cn(&w, "MTC Baseline Intermediate CA");
    size_t mv = mtc_der_open(&w, MTC_DER_SEQUENCE);
    mtc_der_time(&w, nb);
    mtc_der_time(&w, na);
    mtc_der_close(&w, mv);
    name_cn(&w, dns);
    mtc_der_raw(&w, leaf->spki, leaf->spki_len);
    size_t m3 = mtc_der_open(&w, MTC_DER_CONTEXT | MTC_DER_CONSTRUCTED | 3);
    size_t ml = mtc_der_open(&w, MTC_DER_SEQUENCE);
    size_t e, o;
    ext_open(&w, OID_KU, sizeof OID_KU, 1, &e, &o);
    static const uint8_t ku[] = {0x03, 0x02, 0x07, 0x80};
    mtc_der_raw(&w, ku, sizeof ku);
    ext_close(&w, e, o);
    ext_open(&w, OID_EKU, sizeof OID_EKU, 0, &e, &o);
    size_t s = mtc_der_open(&w, MTC_DER_SEQUENCE);
    mtc_der_prim(&w, MTC_DER_OID, OID_KP_SERVER, sizeof OID_KP_SERVER);
    mtc_der_close(&w, s);
    ext_close(&w, e, o);
    ext_open(&w, OID_BC, sizeof OID_BC, 1, &e, &o);
    static const uint8_t empty_seq[] = {0x30, 0x00};
    mtc_der_raw(&w, empty_seq, 2);
    ext_close(&w, e, o);
    ext_open(&w, OID_SKI, sizeof OID_SKI, 0, &e, &o);
    mtc_der_prim(&w, MTC_DER_OCTET_STRING, leaf->kid, 20);
    ext_close(&w, e, o);
    ext_open(&w, OID_AKI, sizeof OID_AKI, 0, &e, &o);
    s = mtc_der_open(&w, MTC_DER_SEQUENCE);
    mtc_der_prim(&w, MTC_DER_CONTEXT | 0, inter->kid, 20);
    mtc_der_close(&w, s);
    ext_close(&w, e, o);
    ext_open(&w, OID_SAN, sizeof OID_SAN, 0, &e, &o);
    s = mtc_der_open(&w, MTC_DER_SEQUENCE);
    mtc_der_prim(&w, MTC_DER_CONTEXT | 2, dns, strlen(dns));
    mtc_der_close(&w, s);
    ext_close(&w, e, o);
    if (sct_list) {
        ext_open(&w, OID_SCT_LIST, sizeof OID_SCT_LIST, 0, &e, &o);
        mtc_der_prim(&w, MTC_DER_OCTET_STRING, sct_list, sct_len);
        ext_close(&w, e, o);
    }
    mtc_der_close(&w, ml);
    mtc_der_close(&w, m3);
    mtc_der_close(&w, m);
    *len = w.len;
    return w.err;
}

/* One SCT (RFC 6962 section 3.2) over the precertificate entry. */
static int make_sct(struct scratch *sc, const struct party *log,
                    const struct party *inter, const uint8_t *pre, size_t pre_len,
                    uint64_t ts_ms, uint8_t *out, size_t cap, size_t *len)
{
    size_t ml, sl;
    int rc = mtc__sct_signed_input(ts_ms, inter->spki, inter->spki_len, pre,
                                   pre_len, sc->msg, sizeof sc->msg, &ml);
    if (rc == MTC_OK)
        rc = mtc_sig_sign(log->key, sc->msg, ml, sc->sig, &sl);
    if (rc != MTC_OK)
        return rc;
    /* SignatureAndHashAlgorithm: (sha256=4, ecdsa=3), else SignatureScheme */
    mtc_sig_alg a = mtc_sig_key_alg(log->key);
    uint16_t sa = a == MTC_SIG_ECDSA_P256 ? 0x0403
                  : a == MTC_SIG_ED25519  ? 0x0807
                  : a == MTC_SIG_MLDSA44  ? 0x0904
                  : a == MTC_SIG_MLDSA65  ? 0x0905
                                          : 0x0906;
    return mtc__sct_encode(log->spki, log->spki_len, ts_ms, sa, sc->sig, sl, out,
                           cap, len);
}

int mtc_baseline_build(mtc_sig_alg alg, const char *dns, int64_t nb,
                       int64_t lifetime, mtc_baseline *out)
{
    return mtc_baseline_build_leaf(alg, alg, dns, nb, lifetime, out);
}

int mtc_baseline_build_leaf(mtc_sig_alg alg, mtc_sig_alg leaf_alg, const char *dns,
                            int64_t nb, int64_t lifetime, mtc_baseline *out)
{
    if (!mtc_sig_info_get(alg) || !mtc_sig_info_get(leaf_alg))
        return MTC_ERR_UNSUPPORTED;
    /* X.509 times end with year 9999; nb + lifetime must not overflow */
    if (nb < 0 || nb > MTC_BASELINE_TIME_MAX || lifetime <= 0 ||
        lifetime > MTC_BASELINE_TIME_MAX - nb)
        return MTC_ERR_ARG;
    memset(out, 0, sizeof *out);
    out->alg = alg;
    out->leaf_alg = leaf_alg;
    struct party root, inter, leaf, logs[2];
    memset(&root, 0, sizeof root);
    memset(&inter, 0, sizeof inter);
    memset(&leaf, 0, sizeof leaf);
    memset(logs, 0, sizeof logs);
    int rc;
    struct scratch *sc = malloc(sizeof *sc);
    if (!sc)
        return MTC_ERR_NOMEM;
    uint8_t *tbs = sc->tbs, *list = sc->list;
    size_t tl, sl[2];
    if ((rc = party_init(&root, alg, 'R')) || (rc = party_init(&inter, alg, 'I')) ||
        (rc = party_init(&leaf, leaf_alg, 'L')) || (rc = party_init(&logs[0], alg, 'A')) ||
        (rc = party_init(&logs[1], alg, 'B')))
        goto done;

    /* Intermediate, signed by the root. */
    {
        const mtc_sig_info *info = mtc_sig_info_get(alg);
        static const uint8_t v3[] = {0xa0, 0x03, 0x02, 0x01, 0x02};
        mtc_der_writer w;
        mtc_der_writer_init(&w, tbs, sizeof sc->tbs);
        size_t m = mtc_der_open(&w, MTC_DER_SEQUENCE);
        mtc_der_raw(&w, v3, sizeof v3);
        serial16(&w, 'I');
        mtc_der_raw(&w, info->alg_id_der, info->alg_id_der_len);
        name_cn(&w, "MTC Baseline Root CA");
        size_t mv = mtc_der_open(&w, MTC_DER_SEQUENCE);
        mtc_der_time(&w, nb - 86400 * 365);
        mtc_der_time(&w, nb + 86400 * 365 * 3);
        mtc_der_close(&w, mv);
        name_cn(&w, "MTC Baseline Intermediate CA");
        mtc_der_raw(&w, inter.spki, inter.spki_len);
        size_t m3 = mtc_der_open(&w, MTC_DER_CONTEXT | MTC_DER_CONSTRUCTED | 3);
        size_t ml = mtc_der_open(&w, MTC_DER_SEQUENCE);
        size_t e, o;
        ext_open(&w, OID_BC, sizeof OID_BC, 1, &e, &o);
        static const uint8_t bc[] = {0x30, 0x06, 0x01, 0x01, 0xff, 0x02, 0x01, 0x00};
        mtc_der_raw(&w, bc, sizeof bc);
        ext_close(&w, e, o);
        ext_open(&w, OID_KU, sizeof OID_KU, 1, &e, &o);
        static const uint8_t ku[] = {0x03, 0x02, 0x01, 0x86};
        mtc_der_raw(&w, ku, sizeof ku);
        ext_close(&w, e, o);
        ext_open(&w, OID_SKI, sizeof OID_SKI, 0, &e, &o);
        mtc_der_prim(&w, MTC_DER_OCTET_STRING, inter.kid, 20);
        ext_close(&w, e, o);
        ext_open(&w, OID_AKI, sizeof OID_AKI, 0, &e, &o);
        size_t s = mtc_der_open(&w, MTC_DER_SEQUENCE);
        mtc_der_prim(&w, MTC_DER_CONTEXT | 0, root.kid, 20);
        mtc_der_close(&w, s);
        ext_close(&w, e, o);
        mtc_der_close(&w, ml);
        mtc_der_close(&w, m3);
        mtc_der_close(&w, m);
        if ((rc = w.err) != MTC_OK)
            goto done;
        if ((rc = sign_cert(sc, &root, tbs, w.len, out->intermediate,
                            sizeof out->intermediate, &out->intermediate_len,
                            NULL)) != MTC_OK)
            goto done;
    }
    /* Precertificate TBS (without SCTs), two SCTs, then the final leaf. */
    if ((rc = leaf_tbs(&inter, &leaf, dns, nb, nb + lifetime, NULL, 0, tbs,
                       sizeof sc->tbs, &tl)) != MTC_OK)
        goto done;
    for (int i = 0; i < 2; i++)
        if ((rc = make_sct(sc, &logs[i], &inter, tbs, tl,
                           (uint64_t)nb * 1000 + (uint64_t)i, sc->scts[i],
                           sizeof sc->scts[i], &sl[i])) != MTC_OK)
            goto done;
    {
        const uint8_t *scts[2] = {sc->scts[0], sc->scts[1]};
        if ((rc = mtc__sct_list(scts, sl, 2, list, sizeof sc->list,
                                &out->sct_list_len)) != MTC_OK)
            goto done;
    }
    if ((rc = leaf_tbs(&inter, &leaf, dns, nb, nb + lifetime, list,
                       out->sct_list_len, tbs, sizeof sc->tbs, &tl)) != MTC_OK)
        goto done;
    if ((rc = sign_cert(sc, &inter, tbs, tl, out->leaf, sizeof out->leaf,
                        &out->leaf_len, &out->leaf_sig_len)) != MTC_OK)
        goto done;
    {
        static const uint8_t transcript[] = "TLS 1.3, server CertificateVerify";
        rc = mtc_sig_sign(leaf.key, transcript, sizeof transcript, sc->sig,
                          &out->handshake_sig_len);
    }
done:
    free(sc);
    mtc_sig_key_free(root.key);
    mtc_sig_key_free(inter.key);
    mtc_sig_key_free(leaf.key);
    mtc_sig_key_free(logs[0].key);
    mtc_sig_key_free(logs[1].key);
    return rc;
}
