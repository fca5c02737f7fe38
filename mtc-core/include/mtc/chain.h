/*
 * mtc/chain.h - the X.509 chains public CAs serve today, as a small
 * library of profiles, each encoded and signed for real.
 *
 * A profile describes the structure of a chain a class of servers sends:
 * the subscriber (leaf) certificate with the extensions CAs put in it
 * today (subjectAltName with the profile's name count, keyUsage,
 * extKeyUsage, basicConstraints, subject and authority key identifiers,
 * certificatePolicies, CRL distribution points, authorityInfoAccess, two
 * or three embedded SCTs signed over the precertificate, RFC 6962), the
 * intermediate that issued it and, where the CA serves them, a cross-signed
 * root (and the cross-signer's own cross-signed certificate). Key types and signature algorithms are those of the CA family the
 * profile follows (ECDSA P-256 / P-384, RSA 2,048 / 4,096 with PKCS #1
 * v1.5 and SHA-256), names and URLs are of that family's length. The
 * profiles, what each follows and why: docs/model.md "Today's chains".
 * One profile is not a public CA's: "private", an organisation's own
 * hierarchy (root installed in its clients and not sent, no SCTs, no
 * OCSP), the directly-signing side of docs/model.md "Enterprise
 * standalone deployments".
 *
 * Every certificate is DER, every signature real and verifiable with the
 * issuer's key (tests check each chain with OpenSSL). Keys are fixed
 * (ECDSA and the mtc/sig.h algorithms from seeds, RSA from embedded test
 * primes) and every signature is deterministic, so a chain's bytes, and
 * therefore its compressed size, are the same in every run.
 *
 * Two overrides make the comparison chains of a simulation:
 *   leaf_alg  the subscriber key (the site's own key: a chain around it is
 *             "the classical chain, like for like");
 *   ca_alg    every CA, cross-signer and CT log key (ML-DSA-44: "the same
 *             chain, post-quantum"), with drop_cross to leave the
 *             cross-signed certificates out.
 *
 * Verification interface. What a client verifies to accept a chain is a
 * list of (role, algorithm) pairs, mtc_chain_verifications(): the leaf's
 * signature by the intermediate, the intermediate's by the root, each SCT
 * by its log, the CertificateVerify by the leaf key and, only for a client
 * whose trust store lacks the cross-signed root, the cross-sign by the
 * older root (flag MTC_CHAIN_V_IF_NO_NEW_ROOT: a client that trusts the
 * newer root stops path building there, as Chrome's store does). The
 * algorithm is the verifying key's type and size (RSA cost is set by the
 * modulus; ECDSA by the curve), so a verification-time model prices a
 * chain as the sum over the list. The list is structural: the same for
 * every chain built from the same profile and overrides, without building.
 *
 * Ownership: profiles are static; mtc_chain is caller-owned storage (large:
 * allocate it). Thread-safe (no shared state).
 */
#ifndef MTC_CHAIN_H
#define MTC_CHAIN_H

#include <stddef.h>
#include <stdint.h>

#include "mtc/sig.h"

/* Key types (and thereby signature algorithms) of chain parties. */
typedef enum mtc_chain_alg {
    MTC_CHAIN_ALG_NONE = 0,
    MTC_CHAIN_ALG_ED25519,
    MTC_CHAIN_ALG_ECDSA_P256,   /* ecdsa-with-SHA256 */
    MTC_CHAIN_ALG_ECDSA_P384,   /* ecdsa-with-SHA384 */
    MTC_CHAIN_ALG_RSA2048,      /* sha256WithRSAEncryption, 2,048-bit key */
    MTC_CHAIN_ALG_RSA4096,      /* sha256WithRSAEncryption, 4,096-bit key */
    MTC_CHAIN_ALG_MLDSA44,
    MTC_CHAIN_ALG_MLDSA65,
    MTC_CHAIN_ALG_MLDSA87,
    MTC_CHAIN_ALG_COUNT
} mtc_chain_alg;

/* "ed25519", "ecdsa-p256", "ecdsa-p384", "rsa-2048", "rsa-4096",
 * "ml-dsa-44", ...; NULL for NONE or out of range. */
const char *mtc_chain_alg_name(mtc_chain_alg a);
/* The chain algorithm of an mtc/sig.h algorithm (NONE when unknown). */
mtc_chain_alg mtc_chain_alg_of_sig(mtc_sig_alg a);

typedef struct mtc_chain_profile {
    const char *name;           /* "le-ecdsa", ... (unique) */
    const char *follows;        /* the real chain whose structure it follows */
    mtc_chain_alg leaf_key;     /* the subscriber key CAs see most for it */
    mtc_chain_alg issuer_key;   /* the intermediate's key: signs the leaf */
    mtc_chain_alg root_key;     /* signs the intermediate */
    mtc_chain_alg cross_key;    /* signs the cross-signed root; NONE: none sent */
    mtc_chain_alg cross2_key;   /* signs the cross-signer's own cross-signed
                                   certificate, sent too; NONE: none */
    unsigned sans;              /* dNSNames in the leaf (>= 1) */
    unsigned scts;              /* embedded SCTs (public profiles 2 or 3; 0:
                                   none, and no SCT list extension) */
    int ov;                     /* 0 domain-validated (CN); 1 organisation-
                                   validated (C, ST, L, O, CN); 2 extended
                                   validation: that, after the EV Guidelines'
                                   businessCategory, jurisdiction and
                                   registration number, and the EV policy */
    int ocsp;                   /* leaf AIA has an OCSP URL besides caIssuers */
    /* names and URLs of the CA family (lengths as served) */
    const char *org, *inter_cn, *root_org, *root_cn, *cross_org, *cross_cn;
    const char *cross2_org, *cross2_cn;
    const char *policy_oid;     /* the CA's own policy OID ("" none), dotted */
    const char *cps_url;        /* its CPS qualifier ("" none) */
    const char *aia_url, *ocsp_url, *crl_url; /* the leaf's */
    const char *inter_aia_url, *inter_crl_url; /* the intermediate's */
    int send_root;              /* 1: the server also sends the self-signed
                                   certificate of the path's top CA (the last
                                   cross-signer's when cross-signed), as
                                   servers configured with the whole bundle
                                   do; a client ignores it, so it is bytes on
                                   the wire and nothing verified */
} mtc_chain_profile;

/* The profile table; *count receives its size. */
const mtc_chain_profile *mtc_chain_profiles(size_t *count);
/* A profile by name; NULL when unknown. */
const mtc_chain_profile *mtc_chain_profile_by_name(const char *name);

#define MTC_CHAIN_CERTS_MAX 5       /* leaf, intermediate, cross-signed root,
                                       cross-signed cross-signer, a root sent */
#define MTC_CHAIN_BUF 65536         /* ML-DSA-87 leaf with three SCTs: ~22 KB */
#define MTC_CHAIN_VERIF_MAX 8

/* Roles of a verification. */
typedef enum mtc_chain_role {
    MTC_CHAIN_V_LEAF = 1,       /* the leaf's signature, by the intermediate */
    MTC_CHAIN_V_INTERMEDIATE,   /* the intermediate's, by the root (or by the
                                   cross-signed root's key) */
    MTC_CHAIN_V_CROSS,          /* the cross-signed root's, by the older root */
    MTC_CHAIN_V_SCT,            /* one SCT, by its log */
    MTC_CHAIN_V_HANDSHAKE       /* CertificateVerify, by the leaf key */
} mtc_chain_role;

#define MTC_CHAIN_V_IF_NO_NEW_ROOT 1 /* only when the store lacks the
                                         cross-signed (newer) root */

typedef struct mtc_chain_verif {
    mtc_chain_role role;
    mtc_chain_alg alg;          /* the verifying key's type */
    unsigned flags;             /* MTC_CHAIN_V_IF_NO_NEW_ROOT or 0 */
} mtc_chain_verif;

/* Build options; zero-initialise, then set dns_name, not_before, lifetime.
 * A chain depends on every field: a new field joins the key of
 * mtc/chain_cache.h (src/chain_cache.c refuses to compile until it does). */
typedef struct mtc_chain_opts {
    const char *dns_name;       /* the first SAN (and CN); more derived from it */
    int64_t not_before;         /* Unix seconds */
    int64_t lifetime;           /* seconds, > 0 */
    mtc_chain_alg leaf_alg;     /* NONE: the profile's leaf_key */
    mtc_chain_alg ca_alg;       /* NONE: the profile's; else every CA and log */
    int drop_cross;             /* 1: leaf and intermediate only (a new
                                   hierarchy, e.g. post-quantum, has no older
                                   root to be cross-signed by) */
} mtc_chain_opts;

/*
 * The verifications a client makes to accept a chain of profile p built
 * with opts' overrides (opts may be NULL: none), into out[MTC_CHAIN_VERIF_MAX];
 * returns how many. Order: leaf, intermediate, cross (flagged), SCTs,
 * CertificateVerify.
 */
size_t mtc_chain_verifications(const mtc_chain_profile *p, const mtc_chain_opts *opts,
                               mtc_chain_verif *out);

typedef struct mtc_chain {
    uint8_t buf[MTC_CHAIN_BUF];         /* the certificates, back to back */
    size_t off[MTC_CHAIN_CERTS_MAX];    /* cert i is buf[off[i]..off[i]+len[i]) */
    size_t len[MTC_CHAIN_CERTS_MAX];
    size_t ncerts;                      /* 2, 3 with a cross-signed root, 4 with
                                           a second cross-sign; one more with
                                           the root sent */
    size_t handshake_sig_len;           /* a CertificateVerify signature by
                                           the leaf key (real) */
    size_t sct_list_len;                /* the SCT list extension's value (0:
                                           the profile has no SCTs) */
    mtc_chain_verif verif[MTC_CHAIN_VERIF_MAX];
    size_t nverif;
} mtc_chain;

/*
 * Builds, signs and encodes the chain (leaf first, as a server sends it).
 * On error out->ncerts is 0. MTC_ERR_ARG for a missing name, a name over 200 bytes, or a validity
 * outside the X.509 time range; MTC_ERR_UNSUPPORTED for an unknown
 * algorithm; MTC_ERR_LIMIT when the chain exceeds MTC_CHAIN_BUF;
 * MTC_ERR_CRYPTO when OpenSSL fails.
 */
int mtc_chain_build(const mtc_chain_profile *p, const mtc_chain_opts *opts,
                    mtc_chain *out);

/* Sum of the certificates' DER lengths. */
size_t mtc_chain_der_len(const mtc_chain *c);

/*
 * The subscriber-specific parts of the profile's leaf for a Merkle Tree
 * Certificate of the same site, so that an MTC and a chain carry the same
 * content: the subject Name (DV: CN; OV: C, ST, L, O, CN) into subject,
 * and the [3] Extensions element into ext: subjectAltName with the same
 * names, keyUsage for the leaf key, extKeyUsage, basicConstraints,
 * certificatePolicies and the CRL distribution point. Left out, because an
 * MTC has no use for them: the SCT list (the log is the transparency), the
 * authority key identifier and authorityInfoAccess (no issuer certificate
 * or OCSP responder: the CA is named by its ID) and the subject key
 * identifier. MTC_ERR_LIMIT when a buffer is short.
 */
int mtc_chain_mtc_leaf_fields(const mtc_chain_profile *p, const char *dns_name,
                              mtc_chain_alg leaf_alg, uint8_t *subject,
                              size_t subject_cap, size_t *subject_len,
                              uint8_t *ext, size_t ext_cap, size_t *ext_len);

#endif
