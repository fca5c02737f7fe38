/*
 * chain.c - the encoding of mtc/chain.h's chain profiles (chain_profiles.c): leaf
 * with SCTs over its precertificate, intermediate, cross-signed roots.
 *
 * Built once per distinct chain per process by the simulator (its worlds
 * borrow one mtc/chain_cache.h), so clarity beats speed: the leaf's TBSCertificate
 * is written twice, once as the precertificate the SCTs sign (RFC 6962
 * section 3.2: the TBSCertificate without the SCT list) and once with it.
 * Extensions follow the order CAs write them in (RFC 5280 leaves it free).
 */
#include "mtc/chain.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chain_internal.h"
#include "mtc/der.h"
#include "mtc/error.h"
#include "mtc/hash.h"
#include "sct_internal.h"

static const char *const alg_names[MTC_CHAIN_ALG_COUNT] = {
    NULL, "ed25519", "ecdsa-p256", "ecdsa-p384", "rsa-2048", "rsa-4096",
    "ml-dsa-44", "ml-dsa-65", "ml-dsa-87"};

const char *mtc_chain_alg_name(mtc_chain_alg a)
{
    return (unsigned)a < MTC_CHAIN_ALG_COUNT ? alg_names[a] : NULL;
}

mtc_chain_alg mtc_chain_alg_of_sig(mtc_sig_alg a)
{
    switch (a) {
    case MTC_SIG_ED25519: return MTC_CHAIN_ALG_ED25519;
    case MTC_SIG_ECDSA_P256: return MTC_CHAIN_ALG_ECDSA_P256;
    case MTC_SIG_MLDSA44: return MTC_CHAIN_ALG_MLDSA44;
    case MTC_SIG_MLDSA65: return MTC_CHAIN_ALG_MLDSA65;
    case MTC_SIG_MLDSA87: return MTC_CHAIN_ALG_MLDSA87;
    default: return MTC_CHAIN_ALG_NONE;
    }
}

/* The effective algorithms of a build. */
struct algs {
    mtc_chain_alg leaf, issuer, root, cross, cross2, log;
    int sent; /* party slot of the top CA whose root is sent (2 the root, 3
                 its cross-signer, 4 that one's); 0: none */
};

static void effective(const mtc_chain_profile *p, const mtc_chain_opts *o, struct algs *a)
{
    mtc_chain_alg ca = o ? o->ca_alg : MTC_CHAIN_ALG_NONE;
    a->leaf = o && o->leaf_alg ? o->leaf_alg : p->leaf_key;
    a->issuer = ca ? ca : p->issuer_key;
    a->root = ca ? ca : p->root_key;
    int drop = o && o->drop_cross;
    a->cross = drop ? MTC_CHAIN_ALG_NONE : p->cross_key && ca ? ca : p->cross_key;
    a->cross2 = drop || !a->cross ? MTC_CHAIN_ALG_NONE : p->cross2_key && ca ? ca : p->cross2_key;
    /* CT logs sign with ECDSA P-256 (RFC 6962 allows it or RSA; the logs
     * Chrome trusts use it) */
    a->log = ca ? ca : MTC_CHAIN_ALG_ECDSA_P256;
    /* a new hierarchy (drop_cross) is served as leaf and intermediate */
    a->sent = drop || !p->send_root ? 0 : a->cross2 ? 4 : a->cross ? 3 : 2;
}

size_t mtc_chain_verifications(const mtc_chain_profile *p, const mtc_chain_opts *o,
                               mtc_chain_verif *out)
{
    struct algs a;
    effective(p, o, &a);
    size_t n = 0;
    out[n++] = (mtc_chain_verif){MTC_CHAIN_V_LEAF, a.issuer, 0};
    out[n++] = (mtc_chain_verif){MTC_CHAIN_V_INTERMEDIATE, a.root, 0};
    if (a.cross)
        out[n++] = (mtc_chain_verif){MTC_CHAIN_V_CROSS, a.cross, MTC_CHAIN_V_IF_NO_NEW_ROOT};
    if (a.cross2)
        out[n++] = (mtc_chain_verif){MTC_CHAIN_V_CROSS, a.cross2, MTC_CHAIN_V_IF_NO_NEW_ROOT};
    for (unsigned i = 0; i < p->scts && n + 1 < MTC_CHAIN_VERIF_MAX; i++)
        out[n++] = (mtc_chain_verif){MTC_CHAIN_V_SCT, a.log, 0};
    out[n++] = (mtc_chain_verif){MTC_CHAIN_V_HANDSHAKE, a.leaf, 0};
    return n;
}

/* ---- encoding helpers ------------------------------------------------------- */

static const uint8_t OID_C[] = {0x55, 0x04, 0x06};
static const uint8_t OID_ST[] = {0x55, 0x04, 0x08};
static const uint8_t OID_L[] = {0x55, 0x04, 0x07};
static const uint8_t OID_O[] = {0x55, 0x04, 0x0a};
static const uint8_t OID_CN[] = {0x55, 0x04, 0x03};
static const uint8_t OID_BC[] = {0x55, 0x1d, 0x13};
static const uint8_t OID_KU[] = {0x55, 0x1d, 0x0f};
static const uint8_t OID_EKU[] = {0x55, 0x1d, 0x25};
static const uint8_t OID_SAN[] = {0x55, 0x1d, 0x11};
static const uint8_t OID_SKI[] = {0x55, 0x1d, 0x0e};
static const uint8_t OID_AKI[] = {0x55, 0x1d, 0x23};
static const uint8_t OID_CP[] = {0x55, 0x1d, 0x20};
static const uint8_t OID_CRLDP[] = {0x55, 0x1d, 0x1f};
static const uint8_t OID_AIA[] = {0x2b, 0x06, 0x01, 0x05, 0x05, 0x07, 0x01, 0x01};
static const uint8_t OID_AD_OCSP[] = {0x2b, 0x06, 0x01, 0x05, 0x05, 0x07, 0x30, 0x01};
static const uint8_t OID_AD_CAISSUERS[] = {0x2b, 0x06, 0x01, 0x05, 0x05, 0x07, 0x30, 0x02};
static const uint8_t OID_QT_CPS[] = {0x2b, 0x06, 0x01, 0x05, 0x05, 0x07, 0x02, 0x01};
static const uint8_t OID_SCT_LIST[] = {0x2b, 0x06, 0x01, 0x04, 0x01, 0xd6, 0x79, 0x02, 0x04, 0x02};
static const uint8_t OID_KP_SERVER[] = {0x2b, 0x06, 0x01, 0x05, 0x05, 0x07, 0x03, 0x01};
static const uint8_t OID_KP_CLIENT[] = {0x2b, 0x06, 0x01, 0x05, 0x05, 0x07, 0x03, 0x02};
static const uint8_t OID_DV[] = {0x67, 0x81, 0x0c, 0x01, 0x02, 0x01}; /* 2.23.140.1.2.1 */
static const uint8_t OID_OV[] = {0x67, 0x81, 0x0c, 0x01, 0x02, 0x02}; /* 2.23.140.1.2.2 */
static const uint8_t OID_EV[] = {0x67, 0x81, 0x0c, 0x01, 0x01};       /* 2.23.140.1.1 */
static const uint8_t OID_BUSINESS_CATEGORY[] = {0x55, 0x04, 0x0f};   /* 2.5.4.15 */
static const uint8_t OID_SERIAL_NUMBER[] = {0x55, 0x04, 0x05};       /* 2.5.4.5 */
/* 1.3.6.1.4.1.311.60.2.1.3 and .2: jurisdictionCountryName, -StateOrProvinceName */
static const uint8_t OID_JUR_C[] = {0x2b, 0x06, 0x01, 0x04, 0x01, 0x82, 0x37, 0x3c, 0x02, 0x01, 0x03};
static const uint8_t OID_JUR_ST[] = {0x2b, 0x06, 0x01, 0x04, 0x01, 0x82, 0x37, 0x3c, 0x02, 0x01, 0x02};
static const uint8_t OID_ANY_POLICY[] = {0x55, 0x1d, 0x20, 0x00};
static const uint8_t TRUE_ = 0xff;

static void rdn(mtc_der_writer *w, const uint8_t *oid, size_t oid_len, unsigned tag,
                const char *v)
{
    size_t a = mtc_der_open(w, MTC_DER_SET);
    size_t b = mtc_der_open(w, MTC_DER_SEQUENCE);
    mtc_der_prim(w, MTC_DER_OID, oid, oid_len);
    mtc_der_prim(w, tag, v, strlen(v));
    mtc_der_close(w, b);
    mtc_der_close(w, a);
}

/* The RDNs C, [ST, L], O, CN as CAs order them (omitted parts NULL). */
static void name_rdns(mtc_der_writer *w, const char *c, const char *st, const char *l,
                      const char *o, const char *cn)
{
    if (c)
        rdn(w, OID_C, sizeof OID_C, MTC_DER_PRINTABLE_STRING, c);
    if (st)
        rdn(w, OID_ST, sizeof OID_ST, MTC_DER_UTF8_STRING, st);
    if (l)
        rdn(w, OID_L, sizeof OID_L, MTC_DER_UTF8_STRING, l);
    if (o)
        rdn(w, OID_O, sizeof OID_O, MTC_DER_UTF8_STRING, o);
    if (cn)
        rdn(w, OID_CN, sizeof OID_CN, MTC_DER_UTF8_STRING, cn);
}

/* Name: those RDNs as a SEQUENCE. */
static void name(mtc_der_writer *w, const char *c, const char *st, const char *l,
                 const char *o, const char *cn)
{
    size_t m = mtc_der_open(w, MTC_DER_SEQUENCE);
    name_rdns(w, c, st, l, o, cn);
    mtc_der_close(w, m);
}

static void ext_open(mtc_der_writer *w, const uint8_t *oid, size_t oid_len, int critical,
                     size_t *m_ext, size_t *m_oct)
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

static void ext_key_usage(mtc_der_writer *w, const uint8_t ku[4])
{
    size_t e, o;
    ext_open(w, OID_KU, sizeof OID_KU, 1, &e, &o);
    mtc_der_raw(w, ku, 4);
    ext_close(w, e, o);
}

static void ext_eku(mtc_der_writer *w)
{
    size_t e, o;
    ext_open(w, OID_EKU, sizeof OID_EKU, 0, &e, &o);
    size_t s = mtc_der_open(w, MTC_DER_SEQUENCE);
    mtc_der_prim(w, MTC_DER_OID, OID_KP_SERVER, sizeof OID_KP_SERVER);
    mtc_der_prim(w, MTC_DER_OID, OID_KP_CLIENT, sizeof OID_KP_CLIENT);
    mtc_der_close(w, s);
    ext_close(w, e, o);
}

/* basicConstraints: ca 0 (leaf, empty), 1 (CA, pathLen 0), 2 (CA, no limit) */
static void ext_bc(mtc_der_writer *w, int ca)
{
    static const uint8_t leaf[] = {0x30, 0x00};
    static const uint8_t ca0[] = {0x30, 0x06, 0x01, 0x01, 0xff, 0x02, 0x01, 0x00};
    static const uint8_t ca_any[] = {0x30, 0x03, 0x01, 0x01, 0xff};
    size_t e, o;
    ext_open(w, OID_BC, sizeof OID_BC, 1, &e, &o);
    if (ca == 0)
        mtc_der_raw(w, leaf, sizeof leaf);
    else if (ca == 1)
        mtc_der_raw(w, ca0, sizeof ca0);
    else
        mtc_der_raw(w, ca_any, sizeof ca_any);
    ext_close(w, e, o);
}

static void ext_ski(mtc_der_writer *w, const uint8_t kid[20])
{
    size_t e, o;
    ext_open(w, OID_SKI, sizeof OID_SKI, 0, &e, &o);
    mtc_der_prim(w, MTC_DER_OCTET_STRING, kid, 20);
    ext_close(w, e, o);
}

static void ext_aki(mtc_der_writer *w, const uint8_t kid[20])
{
    size_t e, o;
    ext_open(w, OID_AKI, sizeof OID_AKI, 0, &e, &o);
    size_t s = mtc_der_open(w, MTC_DER_SEQUENCE);
    mtc_der_prim(w, MTC_DER_CONTEXT | 0, kid, 20);
    mtc_der_close(w, s);
    ext_close(w, e, o);
}

/* authorityInfoAccess: OCSP (when ocsp is non-empty) and caIssuers. */
static void ext_aia(mtc_der_writer *w, const char *ocsp, const char *issuers)
{
    if ((!ocsp || !*ocsp) && (!issuers || !*issuers))
        return;
    size_t e, o;
    ext_open(w, OID_AIA, sizeof OID_AIA, 0, &e, &o);
    size_t s = mtc_der_open(w, MTC_DER_SEQUENCE);
    if (ocsp && *ocsp) {
        size_t a = mtc_der_open(w, MTC_DER_SEQUENCE);
        mtc_der_prim(w, MTC_DER_OID, OID_AD_OCSP, sizeof OID_AD_OCSP);
        mtc_der_prim(w, MTC_DER_CONTEXT | 6, ocsp, strlen(ocsp));
        mtc_der_close(w, a);
    }
    if (issuers && *issuers) {
        size_t a = mtc_der_open(w, MTC_DER_SEQUENCE);
        mtc_der_prim(w, MTC_DER_OID, OID_AD_CAISSUERS, sizeof OID_AD_CAISSUERS);
        mtc_der_prim(w, MTC_DER_CONTEXT | 6, issuers, strlen(issuers));
        mtc_der_close(w, a);
    }
    mtc_der_close(w, s);
    ext_close(w, e, o);
}

/* certificatePolicies: the CA/B Forum OID (or anyPolicy for a CA), then the
 * CA's own OID with its CPS qualifier where the profile has them. */
static void ext_policies(mtc_der_writer *w, const uint8_t *cab, size_t cab_len,
                         const mtc_chain_profile *p)
{
    size_t e, o;
    ext_open(w, OID_CP, sizeof OID_CP, 0, &e, &o);
    size_t s = mtc_der_open(w, MTC_DER_SEQUENCE);
    size_t pi = mtc_der_open(w, MTC_DER_SEQUENCE);
    mtc_der_prim(w, MTC_DER_OID, cab, cab_len);
    int cps_here = !*p->policy_oid && *p->cps_url;
    if (cps_here) {
        size_t q = mtc_der_open(w, MTC_DER_SEQUENCE);
        size_t qi = mtc_der_open(w, MTC_DER_SEQUENCE);
        mtc_der_prim(w, MTC_DER_OID, OID_QT_CPS, sizeof OID_QT_CPS);
        mtc_der_prim(w, 0x16 /* IA5String */, p->cps_url, strlen(p->cps_url));
        mtc_der_close(w, qi);
        mtc_der_close(w, q);
    }
    mtc_der_close(w, pi);
    if (*p->policy_oid) {
        uint8_t oid[64];
        size_t ol = 0;
        pi = mtc_der_open(w, MTC_DER_SEQUENCE);
        if (mtc_der_oid_from_text(p->policy_oid, strlen(p->policy_oid), 0, oid,
                                  sizeof oid, &ol) == MTC_OK)
            mtc_der_prim(w, MTC_DER_OID, oid, ol);
        else
            w->err = MTC_ERR_CONFIG;
        if (*p->cps_url) {
            size_t q = mtc_der_open(w, MTC_DER_SEQUENCE);
            size_t qi = mtc_der_open(w, MTC_DER_SEQUENCE);
            mtc_der_prim(w, MTC_DER_OID, OID_QT_CPS, sizeof OID_QT_CPS);
            mtc_der_prim(w, 0x16, p->cps_url, strlen(p->cps_url));
            mtc_der_close(w, qi);
            mtc_der_close(w, q);
        }
        mtc_der_close(w, pi);
    }
    mtc_der_close(w, s);
    ext_close(w, e, o);
}

static void ext_crldp(mtc_der_writer *w, const char *url)
{
    if (!url || !*url)
        return;
    size_t e, o;
    ext_open(w, OID_CRLDP, sizeof OID_CRLDP, 0, &e, &o);
    size_t s = mtc_der_open(w, MTC_DER_SEQUENCE);
    size_t dp = mtc_der_open(w, MTC_DER_SEQUENCE);
    size_t a0 = mtc_der_open(w, MTC_DER_CONTEXT | MTC_DER_CONSTRUCTED | 0);
    size_t fn = mtc_der_open(w, MTC_DER_CONTEXT | MTC_DER_CONSTRUCTED | 0);
    mtc_der_prim(w, MTC_DER_CONTEXT | 6, url, strlen(url));
    mtc_der_close(w, fn);
    mtc_der_close(w, a0);
    mtc_der_close(w, dp);
    mtc_der_close(w, s);
    ext_close(w, e, o);
}

/* The i-th dNSName of a site: its name, then www. and h<i>. under it. */
static size_t san_name(const char *dns, unsigned i, char *buf, size_t cap)
{
    int n = i == 0 ? snprintf(buf, cap, "%s", dns)
            : i == 1 ? snprintf(buf, cap, "www.%s", dns)
                     : snprintf(buf, cap, "h%u.%s", i, dns);
    return n > 0 && (size_t)n < cap ? (size_t)n : 0;
}

static void ext_san(mtc_der_writer *w, const char *dns, unsigned count)
{
    size_t e, o;
    ext_open(w, OID_SAN, sizeof OID_SAN, 0, &e, &o);
    size_t s = mtc_der_open(w, MTC_DER_SEQUENCE);
    for (unsigned i = 0; i < count; i++) {
        char nm[256];
        size_t l = san_name(dns, i, nm, sizeof nm);
        if (!l) {
            w->err = MTC_ERR_ARG;
            break;
        }
        mtc_der_prim(w, MTC_DER_CONTEXT | 2, nm, l);
    }
    mtc_der_close(w, s);
    ext_close(w, e, o);
}

static const uint8_t *leaf_ku(mtc_chain_alg a)
{
    static const uint8_t sig_only[] = {0x03, 0x02, 0x07, 0x80};
    static const uint8_t sig_enc[] = {0x03, 0x02, 0x05, 0xa0};
    return a == MTC_CHAIN_ALG_RSA2048 || a == MTC_CHAIN_ALG_RSA4096 ? sig_enc : sig_only;
}

/* The leaf's subject: DV the CN; OV the organisation too; EV first what
 * the EV Guidelines add (businessCategory, the jurisdiction's country and
 * state, the registration number), in the order EV certificates carry
 * them, then the OV subject. */
static void leaf_subject(mtc_der_writer *w, const mtc_chain_profile *p, const char *dns)
{
    if (!p->ov) {
        name(w, NULL, NULL, NULL, NULL, dns);
        return;
    }
    size_t m = mtc_der_open(w, MTC_DER_SEQUENCE);
    if (p->ov == 2) {
        rdn(w, OID_BUSINESS_CATEGORY, sizeof OID_BUSINESS_CATEGORY, MTC_DER_UTF8_STRING,
            "Private Organization");
        rdn(w, OID_JUR_C, sizeof OID_JUR_C, MTC_DER_PRINTABLE_STRING, "US");
        rdn(w, OID_JUR_ST, sizeof OID_JUR_ST, MTC_DER_UTF8_STRING, "Delaware");
        rdn(w, OID_SERIAL_NUMBER, sizeof OID_SERIAL_NUMBER, MTC_DER_PRINTABLE_STRING,
            "4023514");
    }
    name_rdns(w, "US", "California", "San Francisco", "Example Corporation Inc.", dns);
    mtc_der_close(w, m);
}

/*
 * The leaf's extensions (the [3] element). mtc: the subset an MTC carries
 * (mtc_chain_mtc_leaf_fields). sct_list NULL: the precertificate's.
 */
static void leaf_exts(mtc_der_writer *w, const mtc_chain_profile *p, mtc_chain_alg leaf_alg,
                      const char *dns, const uint8_t *leaf_kid, const uint8_t *issuer_kid,
                      const uint8_t *sct_list, size_t sct_len, int mtc)
{
    size_t m3 = mtc_der_open(w, MTC_DER_CONTEXT | MTC_DER_CONSTRUCTED | 3);
    size_t ml = mtc_der_open(w, MTC_DER_SEQUENCE);
    ext_key_usage(w, leaf_ku(leaf_alg));
    ext_eku(w);
    ext_bc(w, 0);
    if (!mtc) {
        ext_ski(w, leaf_kid);
        ext_aki(w, issuer_kid);
        ext_aia(w, p->ocsp ? p->ocsp_url : NULL, p->aia_url);
    }
    ext_san(w, dns, p->sans);
    ext_policies(w, p->ov == 2 ? OID_EV : p->ov ? OID_OV : OID_DV,
                 p->ov == 2 ? sizeof OID_EV : sizeof OID_DV, p);
    ext_crldp(w, p->crl_url);
    if (!mtc && sct_list) {
        size_t e, o;
        ext_open(w, OID_SCT_LIST, sizeof OID_SCT_LIST, 0, &e, &o);
        mtc_der_prim(w, MTC_DER_OCTET_STRING, sct_list, sct_len);
        ext_close(w, e, o);
    }
    mtc_der_close(w, ml);
    mtc_der_close(w, m3);
}

static void serial(mtc_der_writer *w, uint8_t tag, const char *salt)
{
    uint8_t s[16];
    mtc_hash h;
    uint8_t in[64];
    size_t sl = strlen(salt) < 62 ? strlen(salt) : 62;
    in[0] = tag;
    memcpy(in + 1, salt, sl);
    mtc_sha256(in, sl + 1, &h);
    memcpy(s, h.b, 16);
    s[0] &= 0x7f; /* positive */
    s[0] |= 0x40; /* 16 octets, no padding */
    mtc_der_prim(w, MTC_DER_INTEGER, s, 16);
}

static void validity(mtc_der_writer *w, int64_t nb, int64_t na)
{
    size_t m = mtc_der_open(w, MTC_DER_SEQUENCE);
    mtc_der_time(w, nb);
    mtc_der_time(w, na);
    mtc_der_close(w, m);
}

static const uint8_t V3[] = {0xa0, 0x03, 0x02, 0x01, 0x02};

/* Working buffers (heap: ML-DSA sizes). */
struct scratch {
    uint8_t sig[MTC__CHAIN_SIG_MAX];
    uint8_t tbs[MTC_CHAIN_BUF / 2];
    uint8_t msg[MTC_CHAIN_BUF / 2 + 64];
    uint8_t scts[3][MTC__CHAIN_SIG_MAX + 64];
    uint8_t list[3 * (MTC__CHAIN_SIG_MAX + 64) + 8];
};

/* Certificate { tbs, alg, BIT STRING sig } appended to out. */
static int sign_cert(struct scratch *sc, const mtc__chain_key *issuer, const uint8_t *tbs,
                     size_t tbs_len, mtc_chain *out)
{
    size_t sl, al;
    const uint8_t *alg = mtc__chain_sigalg_der(issuer->alg, &al);
    if (!alg)
        return MTC_ERR_UNSUPPORTED;
    int rc = mtc__chain_sign(issuer, tbs, tbs_len, sc->sig, &sl);
    if (rc != MTC_OK)
        return rc;
    size_t at = out->ncerts ? out->off[out->ncerts - 1] + out->len[out->ncerts - 1] : 0;
    if (out->ncerts >= MTC_CHAIN_CERTS_MAX)
        return MTC_ERR_LIMIT;
    mtc_der_writer w;
    mtc_der_writer_init(&w, out->buf + at, sizeof out->buf - at);
    size_t m = mtc_der_open(&w, MTC_DER_SEQUENCE);
    mtc_der_raw(&w, tbs, tbs_len);
    mtc_der_raw(&w, alg, al);
    mtc_der_bits(&w, sc->sig, sl);
    mtc_der_close(&w, m);
    if (w.err != MTC_OK)
        return w.err;
    out->off[out->ncerts] = at;
    out->len[out->ncerts] = w.len;
    out->ncerts++;
    return MTC_OK;
}

/* One SCT (RFC 6962 section 3.2) over the precertificate entry. */
static int make_sct(struct scratch *sc, const mtc__chain_key *log,
                    const mtc__chain_key *issuer, const uint8_t *pre, size_t pre_len,
                    uint64_t ts_ms, uint8_t *out, size_t cap, size_t *len)
{
    size_t ml, sl;
    int rc = mtc__sct_signed_input(ts_ms, issuer->spki, issuer->spki_len, pre,
                                   pre_len, sc->msg, sizeof sc->msg, &ml);
    if (rc == MTC_OK)
        rc = mtc__chain_sign(log, sc->msg, ml, sc->sig, &sl);
    if (rc != MTC_OK)
        return rc;
    /* SignatureAndHashAlgorithm (sha256, ecdsa); RFC 6962 has no code
     * point for ML-DSA: its TLS 1.3 SignatureScheme value (2 bytes) */
    uint16_t sa = log->alg == MTC_CHAIN_ALG_ECDSA_P256 ? 0x0403
                  : log->alg == MTC_CHAIN_ALG_MLDSA44 ? 0x0904
                  : log->alg == MTC_CHAIN_ALG_MLDSA65 ? 0x0905
                  : log->alg == MTC_CHAIN_ALG_MLDSA87 ? 0x0906
                  : log->alg == MTC_CHAIN_ALG_ED25519 ? 0x0807
                                                       : 0x0401;
    return mtc__sct_encode(log->spki, log->spki_len, ts_ms, sa, sc->sig, sl, out,
                           cap, len);
}

/* A CA certificate: subject (org, cn) with key `subj`, issued by (iorg, icn)
 * with key `iss`. root: a root's extensions (no EKU, pathLen unlimited). */
static int ca_cert(struct scratch *sc, const mtc_chain_profile *p, const mtc__chain_key *subj,
                   const char *org, const char *cn, const mtc__chain_key *iss,
                   const char *iorg, const char *icn, int root, const char *aia,
                   const char *crl, int64_t nb, uint8_t tag, mtc_chain *out)
{
    size_t al;
    const uint8_t *alg = mtc__chain_sigalg_der(iss->alg, &al);
    if (!alg)
        return MTC_ERR_UNSUPPORTED;
    mtc_der_writer w;
    mtc_der_writer_init(&w, sc->tbs, sizeof sc->tbs);
    size_t m = mtc_der_open(&w, MTC_DER_SEQUENCE);
    mtc_der_raw(&w, V3, sizeof V3);
    serial(&w, tag, cn);
    mtc_der_raw(&w, alg, al);
    name(&w, "US", NULL, NULL, iorg, icn);
    validity(&w, nb - 86400 * 365, nb + 86400 * 365 * (root ? 5 : 3));
    name(&w, "US", NULL, NULL, org, cn);
    mtc_der_raw(&w, subj->spki, subj->spki_len);
    size_t m3 = mtc_der_open(&w, MTC_DER_CONTEXT | MTC_DER_CONSTRUCTED | 3);
    size_t ml = mtc_der_open(&w, MTC_DER_SEQUENCE);
    static const uint8_t ku_int[] = {0x03, 0x02, 0x01, 0x86};
    static const uint8_t ku_root[] = {0x03, 0x02, 0x01, 0x06};
    ext_key_usage(&w, root ? ku_root : ku_int);
    if (!root)
        ext_eku(&w);
    ext_bc(&w, root ? 2 : 1);
    ext_ski(&w, subj->kid);
    ext_aki(&w, iss->kid);
    ext_aia(&w, NULL, aia);
    ext_policies(&w, root ? OID_ANY_POLICY : OID_DV, root ? 4 : 6, p);
    ext_crldp(&w, crl);
    mtc_der_close(&w, ml);
    mtc_der_close(&w, m3);
    mtc_der_close(&w, m);
    if (w.err != MTC_OK)
        return w.err == MTC_ERR_LIMIT ? MTC_ERR_LIMIT : w.err;
    return sign_cert(sc, iss, sc->tbs, w.len, out);
}

/* The self-signed certificate of the path's top CA (party a->sent: k[2]
 * the root, k[3] its cross-signer, k[4] that one's), which a server
 * configured with the whole bundle sends last. A root's own certificate
 * names no issuer certificate or CRL to fetch. */
static int sent_root(struct scratch *sc, const mtc_chain_profile *p, const struct algs *a,
                     mtc__chain_key *const k[5], int64_t nb, mtc_chain *out)
{
    int t = a->sent;
    const char *org = t == 4 ? p->cross2_org : t == 3 ? p->cross_org : p->root_org;
    const char *cn = t == 4 ? p->cross2_cn : t == 3 ? p->cross_cn : p->root_cn;
    return ca_cert(sc, p, k[t], org, cn, k[t], org, cn, 1, NULL, NULL, nb, 'S', out);
}

static int leaf_tbs(const mtc_chain_profile *p, const struct algs *a,
                    const mtc__chain_key *issuer, const mtc__chain_key *leaf, const char *dns,
                    int64_t nb, int64_t na, const uint8_t *sct_list, size_t sct_len,
                    uint8_t *out, size_t cap, size_t *len)
{
    size_t al;
    const uint8_t *alg = mtc__chain_sigalg_der(issuer->alg, &al);
    if (!alg)
        return MTC_ERR_UNSUPPORTED;
    mtc_der_writer w;
    mtc_der_writer_init(&w, out, cap);
    size_t m = mtc_der_open(&w, MTC_DER_SEQUENCE);
    mtc_der_raw(&w, V3, sizeof V3);
    serial(&w, 'L', dns);
    mtc_der_raw(&w, alg, al);
    name(&w, "US", NULL, NULL, p->org, p->inter_cn);
    validity(&w, nb, na);
    leaf_subject(&w, p, dns);
    mtc_der_raw(&w, leaf->spki, leaf->spki_len);
    leaf_exts(&w, p, a->leaf, dns, leaf->kid, issuer->kid, sct_list, sct_len, 0);
    mtc_der_close(&w, m);
    *len = w.len;
    return w.err;
}

/* ---- building ---------------------------------------------------------------- */

#define MTC__TIME_MAX INT64_C(253402300799) /* 9999-12-31T23:59:59Z */

size_t mtc_chain_der_len(const mtc_chain *c)
{
    size_t n = 0;
    for (size_t i = 0; i < c->ncerts; i++)
        n += c->len[i];
    return n;
}

int mtc__chain_same_cas(const mtc_chain_profile *p, const mtc_chain_opts *a,
                        const mtc_chain_opts *b)
{
    struct algs x, y;
    effective(p, a, &x);
    effective(p, b, &y);
    return a->not_before == b->not_before && x.issuer == y.issuer && x.root == y.root &&
           x.cross == y.cross && x.cross2 == y.cross2 && x.sent == y.sent;
}

/* Appends the CA certificates of cas to out (after the leaf). */
static int copy_cas(const mtc__chain_cas *cas, size_t want, mtc_chain *out)
{
    if (cas->n != want)
        return MTC_ERR_ARG;
    for (size_t i = 0; i < cas->n; i++) {
        size_t at = out->off[out->ncerts - 1] + out->len[out->ncerts - 1];
        if (out->ncerts >= MTC_CHAIN_CERTS_MAX || cas->len[i] > sizeof out->buf - at)
            return MTC_ERR_LIMIT;
        memcpy(out->buf + at, cas->der[i], cas->len[i]);
        out->off[out->ncerts] = at;
        out->len[out->ncerts] = cas->len[i];
        out->ncerts++;
    }
    return MTC_OK;
}

int mtc_chain_build(const mtc_chain_profile *p, const mtc_chain_opts *o, mtc_chain *out)
{
    return mtc__chain_build_cas(p, o, NULL, out);
}

int mtc__chain_build_cas(const mtc_chain_profile *p, const mtc_chain_opts *o,
                         const mtc__chain_cas *cas, mtc_chain *out)
{
    return mtc__chain_build_ring(p, o, cas, NULL, out);
}

/* Party slot's key: ring's, or made into own. */
static int party(mtc__chain_ring *ring, mtc__chain_key *own, mtc__chain_key **k,
                 mtc_chain_alg alg, unsigned slot, uint8_t tag)
{
    if (ring)
        return mtc__chain_ring_get(ring, alg, slot, tag, k);
    *k = own;
    return mtc__chain_key_init(own, alg, slot, tag);
}

int mtc__chain_build_ring(const mtc_chain_profile *p, const mtc_chain_opts *o,
                          const mtc__chain_cas *cas, mtc__chain_ring *ring, mtc_chain *out)
{
    if (out)
        out->ncerts = 0; /* nothing usable on any error */
    if (!out || !p || !o || !o->dns_name || !*o->dns_name || strlen(o->dns_name) > 200)
        return MTC_ERR_ARG;
    /* the CA certificates span 6 years around not_before */
    int64_t nb = o->not_before;
    if (nb < 86400 * 366 || o->lifetime <= 0 || nb > MTC__TIME_MAX - 86400 * 366 * 6 ||
        o->lifetime > MTC__TIME_MAX - nb)
        return MTC_ERR_ARG;
    struct algs a;
    effective(p, o, &a);
    if (!mtc_chain_alg_name(a.leaf) || !mtc_chain_alg_name(a.issuer) ||
        !mtc_chain_alg_name(a.root) || (a.cross && !mtc_chain_alg_name(a.cross)) ||
        (a.cross2 && !mtc_chain_alg_name(a.cross2)) || p->scts > 3 || p->sans < 1)
        return MTC_ERR_UNSUPPORTED;
    struct scratch *sc = malloc(sizeof *sc);
    /* parties: slot 0 leaf, 1 intermediate, 2 root (the intermediate's
     * issuer), 3 cross-signer of the root, 4 cross-signer of the cross */
    mtc__chain_key own[5], own_logs[3];
    mtc__chain_key *k[5] = {0}, *logs[3] = {0};
    memset(own, 0, sizeof own);
    memset(own_logs, 0, sizeof own_logs);
    if (!sc)
        return MTC_ERR_NOMEM;
    int rc;
    /* the CA certificates' signers only when they are signed here */
    if ((rc = party(ring, &own[0], &k[0], a.leaf, 0, 'L')) != MTC_OK ||
        (rc = party(ring, &own[1], &k[1], a.issuer, 1, 'I')) != MTC_OK ||
        (!cas && (rc = party(ring, &own[2], &k[2], a.root, 2, 'R')) != MTC_OK) ||
        (!cas && a.cross && (rc = party(ring, &own[3], &k[3], a.cross, 3, 'X')) != MTC_OK) ||
        (!cas && a.cross2 && (rc = party(ring, &own[4], &k[4], a.cross2, 4, 'Y')) != MTC_OK))
        goto done;
    for (unsigned i = 0; i < p->scts; i++)
        if ((rc = party(ring, &own_logs[i], &logs[i], a.log, i, (uint8_t)('A' + i))) != MTC_OK)
            goto done;
    int64_t na = nb + o->lifetime;
    size_t tl, sl[3];
    /* the precertificate, the SCTs over it, then the leaf with them */
    if ((rc = leaf_tbs(p, &a, k[1], k[0], o->dns_name, nb, na, NULL, 0, sc->tbs,
                       sizeof sc->tbs, &tl)) != MTC_OK)
        goto done;
    for (unsigned i = 0; i < p->scts; i++)
        if ((rc = make_sct(sc, logs[i], k[1], sc->tbs, tl, (uint64_t)nb * 1000 + i,
                           sc->scts[i], sizeof sc->scts[i], &sl[i])) != MTC_OK)
            goto done;
    out->sct_list_len = 0;
    if (p->scts > 0) {
        const uint8_t *scts[3] = {sc->scts[0], sc->scts[1], sc->scts[2]};
        if ((rc = mtc__sct_list(scts, sl, p->scts, sc->list, sizeof sc->list,
                                &out->sct_list_len)) != MTC_OK)
            goto done;
    }
    uint8_t *tbs2 = malloc(sizeof sc->tbs);
    if (!tbs2) {
        rc = MTC_ERR_NOMEM;
        goto done;
    }
    /* no SCTs: no SCT list extension at all (an empty one is malformed,
     * RFC 6962 section 3.3 requires at least one SCT) */
    rc = leaf_tbs(p, &a, k[1], k[0], o->dns_name, nb, na,
                  p->scts ? sc->list : NULL, out->sct_list_len, tbs2, sizeof sc->tbs, &tl);
    if (rc == MTC_OK)
        rc = sign_cert(sc, k[1], tbs2, tl, out);
    free(tbs2);
    if (rc != MTC_OK)
        goto done;
    /* the CA certificates: copied when given, else the intermediate by the
     * root, the root cross-signed by an older root, that one cross-signed */
    if (cas)
        rc = copy_cas(cas, 1 + (a.cross != 0) + (a.cross2 != 0) + (a.sent != 0), out);
    else
        rc = ca_cert(sc, p, k[1], p->org, p->inter_cn, k[2], p->root_org, p->root_cn, 0,
                     p->inter_aia_url, p->inter_crl_url, nb, 'I', out);
    if (rc == MTC_OK && !cas && a.cross)
        rc = ca_cert(sc, p, k[2], p->root_org, p->root_cn, k[3], p->cross_org, p->cross_cn,
                     1, p->inter_aia_url, p->inter_crl_url, nb, 'X', out);
    if (rc == MTC_OK && !cas && a.cross2)
        rc = ca_cert(sc, p, k[3], p->cross_org, p->cross_cn, k[4], p->cross2_org,
                     p->cross2_cn, 1, p->inter_aia_url, p->inter_crl_url, nb, 'Y', out);
    if (rc == MTC_OK && !cas && a.sent)
        rc = sent_root(sc, p, &a, k, nb, out);
    if (rc != MTC_OK)
        goto done;
    /* the same for every build with this key: measured once per key */
    if (!k[0]->cv_len && (rc = mtc__chain_cv_sig_len(k[0], &k[0]->cv_len)) != MTC_OK)
        goto done;
    out->handshake_sig_len = k[0]->cv_len;
    out->nverif = mtc_chain_verifications(p, o, out->verif);
done:
    for (int i = 0; i < 5; i++)
        mtc__chain_key_free(&own[i]);
    for (int i = 0; i < 3; i++)
        mtc__chain_key_free(&own_logs[i]);
    free(sc);
    if (rc != MTC_OK)
        out->ncerts = 0;
    return rc;
}

int mtc_chain_mtc_leaf_fields(const mtc_chain_profile *p, const char *dns,
                              mtc_chain_alg leaf_alg, uint8_t *subject, size_t subject_cap,
                              size_t *subject_len, uint8_t *ext, size_t ext_cap,
                              size_t *ext_len)
{
    if (!p || !dns || !*dns || strlen(dns) > 200)
        return MTC_ERR_ARG;
    mtc_der_writer w;
    mtc_der_writer_init(&w, subject, subject_cap);
    leaf_subject(&w, p, dns);
    if (w.err != MTC_OK)
        return w.err;
    *subject_len = w.len;
    mtc_der_writer_init(&w, ext, ext_cap);
    leaf_exts(&w, p, leaf_alg ? leaf_alg : p->leaf_key, dns, NULL, NULL, NULL, 0, 1);
    if (w.err != MTC_OK)
        return w.err;
    *ext_len = w.len;
    return MTC_OK;
}
