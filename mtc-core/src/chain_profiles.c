/*
 * chain_profiles.c - the chain profiles of mtc/chain.h: the structure of
 * the chains public CA families serve (keys, names, URLs and extension
 * choices of their real certificates), and one private hierarchy. Data
 * only; chain.c encodes and signs them.
 */
#include "mtc/chain.h"

#include <stddef.h>
#include <string.h>

/* ---- the profiles ---------------------------------------------------------- */

#define P256 MTC_CHAIN_ALG_ECDSA_P256
#define P384 MTC_CHAIN_ALG_ECDSA_P384
#define R2K MTC_CHAIN_ALG_RSA2048
#define R4K MTC_CHAIN_ALG_RSA4096
#define NO MTC_CHAIN_ALG_NONE

/* The chains whose leaf CAs issue for RSA keys of 2,048 and of 4,096 bits
 * alike: one macro per chain, so that the two profiles of each (the
 * 2,048-bit leaf and the "-4096" one) cannot drift apart in anything but
 * the subscriber key. */
#define LE_RSA_CROSS(NAME, FOLLOWS, LEAF, ROOT) \
    {NAME, FOLLOWS, LEAF, R2K, R4K, R2K, NO, 2, 2, 0, 0, \
         "Let's Encrypt", "R10", "Internet Security Research Group", "ISRG Root X1", \
         "Digital Signature Trust Co.", "DST Root CA X3", NULL, NULL, "", "", \
         "http://r10.i.lencr.org/", "", "http://r10.c.lencr.org/42.crl", \
         "http://x1.i.lencr.org/", "http://x1.c.lencr.org/", ROOT}

#define GTS_RSA_CROSS(NAME, FOLLOWS, LEAF, ROOT) \
    {NAME, FOLLOWS, LEAF, R2K, R4K, R2K, NO, 2, 3, 0, 0, \
         "Google Trust Services", "WR2", "Google Trust Services LLC", "GTS Root R1", \
         "GlobalSign nv-sa", "GlobalSign Root CA", NULL, NULL, \
         "1.3.6.1.4.1.11129.2.5.3", "", \
         "http://i.pki.goog/wr2.crt", "http://o.pki.goog/s/wr2/Xk8", "http://c.pki.goog/wr2/oQ6nyr8F0m0.crl", \
         "http://i.pki.goog/r1.crt", "http://c.pki.goog/r/r1.crl", ROOT}

#define DIGICERT_RSA_OV(NAME, FOLLOWS, LEAF, ROOT) \
    {NAME, FOLLOWS, LEAF, R2K, R2K, NO, NO, 10, 3, 1, 1, \
         "DigiCert Inc", "DigiCert Global G2 TLS RSA SHA256 2020 CA1", "DigiCert Inc", \
         "DigiCert Global Root G2", NULL, NULL, NULL, NULL, \
         "", "http://www.digicert.com/CPS", \
         "http://cacerts.digicert.com/DigiCertGlobalG2TLSRSASHA2562020CA1-1.crt", \
         "http://ocsp.digicert.com", \
         "http://crl3.digicert.com/DigiCertGlobalG2TLSRSASHA2562020CA1-1.crl", \
         "http://cacerts.digicert.com/DigiCertGlobalRootG2.crt", \
         "http://crl3.digicert.com/DigiCertGlobalRootG2.crl", ROOT}

#define SECTIGO_RSA_CROSS(NAME, FOLLOWS, LEAF, ROOT) \
    {NAME, FOLLOWS, LEAF, R2K, R4K, R2K, NO, 4, 3, 0, 1, \
         "Sectigo Limited", "Sectigo RSA Domain Validation Secure Server CA", \
         "The USERTRUST Network", "USERTrust RSA Certification Authority", \
         "Comodo CA Limited", "AAA Certificate Services", NULL, NULL, \
         "1.3.6.1.4.1.6449.1.2.2.7", "https://sectigo.com/CPS", \
         "http://crt.sectigo.com/SectigoRSADomainValidationSecureServerCA.crt", \
         "http://ocsp.sectigo.com", "", \
         "http://crt.usertrust.com/USERTrustRSAAddTrustCA.crt", \
         "http://crl.usertrust.com/USERTrustRSACertificationAuthority.crl", ROOT}

#define AMAZON_RSA_CROSS2(NAME, FOLLOWS, LEAF, ROOT) \
    {NAME, FOLLOWS, LEAF, R2K, R2K, R2K, R2K, 4, 3, 0, 1, \
         "Amazon", "Amazon RSA 2048 M02", "Amazon", "Amazon Root CA 1", \
         "Starfield Technologies, Inc.", "Starfield Services Root Certificate Authority - G2", \
         "Starfield Technologies, Inc.", "Starfield Class 2 Certification Authority", \
         "", "", \
         "http://crt.r2m02.amazontrust.com/r2m02.cer", "http://ocsp.r2m02.amazontrust.com", \
         "http://crl.r2m02.amazontrust.com/r2m02.crl", \
         "http://crt.rootca1.amazontrust.com/rootca1.cer", \
         "http://crl.rootca1.amazontrust.com/rootca1.crl", ROOT}

static const mtc_chain_profile profiles[] = {
    {"le-ecdsa",
     "Let's Encrypt, ECDSA: P-256 leaf from E5 (P-384) under ISRG Root X2",
     P256, P384, P384, NO, NO, 2, 2, 0, 0,
     "Let's Encrypt", "E5", "Internet Security Research Group", "ISRG Root X2",
     NULL, NULL, NULL, NULL, "", "",
     "http://e5.i.lencr.org/", "", "http://e5.c.lencr.org/42.crl",
     "http://x2.i.lencr.org/", "http://x2.c.lencr.org/", 0},
    {"le-ecdsa-cross",
     "Let's Encrypt, ECDSA, with ISRG Root X2 cross-signed by ISRG Root X1 (RSA 4,096)",
     P256, P384, P384, R4K, NO, 2, 2, 0, 0,
     "Let's Encrypt", "E5", "Internet Security Research Group", "ISRG Root X2",
     "Internet Security Research Group", "ISRG Root X1", NULL, NULL, "", "",
     "http://e5.i.lencr.org/", "", "http://e5.c.lencr.org/42.crl",
     "http://x1.i.lencr.org/", "http://x1.c.lencr.org/", 0},
    {"le-rsa",
     "Let's Encrypt, RSA: RSA 2,048 leaf from R10 (RSA 2,048) under ISRG Root X1 (RSA 4,096)",
     R2K, R2K, R4K, NO, NO, 2, 2, 0, 0,
     "Let's Encrypt", "R10", "Internet Security Research Group", "ISRG Root X1",
     NULL, NULL, NULL, NULL, "", "",
     "http://r10.i.lencr.org/", "", "http://r10.c.lencr.org/42.crl",
     "http://x1.i.lencr.org/", "http://x1.c.lencr.org/", 0},
    LE_RSA_CROSS("le-rsa-cross",
     "Let's Encrypt, RSA, with ISRG Root X1 cross-signed by DST Root CA X3 (RSA 2,048): "
     "its default RSA chain until 2024",
        R2K, 0),
    LE_RSA_CROSS("le-rsa-cross-4096",
     "Let's Encrypt, RSA, cross-signed by DST Root CA X3 as le-rsa-cross, "
     "with a 4,096-bit subscriber key",
        R4K, 0),
    {"le-rsa4096",
     "Let's Encrypt, RSA with a 4,096-bit subscriber key",
     R4K, R2K, R4K, NO, NO, 2, 2, 0, 0,
     "Let's Encrypt", "R11", "Internet Security Research Group", "ISRG Root X1",
     NULL, NULL, NULL, NULL, "", "",
     "http://r11.i.lencr.org/", "", "http://r11.c.lencr.org/42.crl",
     "http://x1.i.lencr.org/", "http://x1.c.lencr.org/", 0},
    {"gts-ecdsa-cross",
     "Google Trust Services, ECDSA: P-256 leaf from WE1 (P-256) under GTS Root R4 (P-384), "
     "R4 cross-signed by GlobalSign Root CA (RSA 2,048)",
     P256, P256, P384, R2K, NO, 2, 3, 0, 0,
     "Google Trust Services", "WE1", "Google Trust Services LLC", "GTS Root R4",
     "GlobalSign nv-sa", "GlobalSign Root CA", NULL, NULL,
     "1.3.6.1.4.1.11129.2.5.3", "",
     "http://i.pki.goog/we1.crt", "http://o.pki.goog/s/we1/ab3", "http://c.pki.goog/we1/yK5nPhtHKQs.crl",
     "http://i.pki.goog/r4.crt", "http://c.pki.goog/r/r4.crl", 0},
    GTS_RSA_CROSS("gts-rsa-cross",
     "Google Trust Services, RSA: RSA 2,048 leaf from WR2 (RSA 2,048) under GTS Root R1 "
     "(RSA 4,096), R1 cross-signed by GlobalSign Root CA (RSA 2,048)",
        R2K, 0),
    GTS_RSA_CROSS("gts-rsa-cross-4096",
     "Google Trust Services, RSA, as gts-rsa-cross, with a 4,096-bit subscriber key",
        R4K, 0),
    {"google-multi",
     "Google's own multi-domain certificates, one leaf for many of its domains: P-256 leaf "
     "with 100 names from GTS CA 1C3 (RSA 2,048) under GTS Root R1 (RSA 4,096), R1 "
     "cross-signed by GlobalSign Root CA (RSA 2,048)",
     P256, R2K, R4K, R2K, NO, 100, 3, 0, 1,
     "Google Trust Services LLC", "GTS CA 1C3", "Google Trust Services LLC", "GTS Root R1",
     "GlobalSign nv-sa", "GlobalSign Root CA", NULL, NULL,
     "1.3.6.1.4.1.11129.2.5.3", "",
     "http://pki.goog/repo/certs/gts1c3.der", "http://ocsp.pki.goog/gts1c3",
     "http://crls.pki.goog/gts1c3/zdATt0Ex_Fk.crl",
     "http://pki.goog/repo/certs/gtsr1.der", "http://crl.pki.goog/gtsr1/gtsr1.crl", 0},
    DIGICERT_RSA_OV("digicert-rsa-ov",
     "DigiCert, organisation-validated: RSA 2,048 leaf from DigiCert Global G2 TLS RSA SHA256 "
     "2020 CA1 (RSA 2,048) under DigiCert Global Root G2 (RSA 2,048)",
        R2K, 0),
    DIGICERT_RSA_OV("digicert-rsa-ov-4096",
     "DigiCert, organisation-validated, as digicert-rsa-ov, with a 4,096-bit "
     "subscriber key",
        R4K, 0),
    DIGICERT_RSA_OV("digicert-rsa-ov-root",
     "DigiCert, as digicert-rsa-ov, served with the whole bundle: DigiCert Global Root "
     "G2's self-signed certificate sent last",
        R2K, 1),
    DIGICERT_RSA_OV("digicert-rsa-ov-root-4096",
     "DigiCert, as digicert-rsa-ov-root, with a 4,096-bit subscriber key",
        R4K, 1),
    {"digicert-rsa-ev",
     "DigiCert, extended validation: RSA 2,048 leaf, the digicert-rsa-ov leaf's names and "
     "extensions with an EV subject and policy, from DigiCert EV RSA CA G2 (RSA 2,048) "
     "under DigiCert Global Root G2 (RSA 2,048) (not in the default mix)",
     R2K, R2K, R2K, NO, NO, 10, 3, 2, 1,
     "DigiCert Inc", "DigiCert EV RSA CA G2", "DigiCert Inc", "DigiCert Global Root G2",
     NULL, NULL, NULL, NULL, "", "http://www.digicert.com/CPS",
     "http://cacerts.digicert.com/DigiCertEVRSACAG2.crt", "http://ocsp.digicert.com",
     "http://crl3.digicert.com/DigiCertEVRSACAG2.crl",
     "http://cacerts.digicert.com/DigiCertGlobalRootG2.crt",
     "http://crl3.digicert.com/DigiCertGlobalRootG2.crl", 0},
    {"digicert-ecdsa-ov",
     "DigiCert, organisation-validated, ECDSA: P-256 leaf from DigiCert Global G3 TLS ECC "
     "SHA384 2020 CA1 (P-384) under DigiCert Global Root G3 (P-384)",
     P256, P384, P384, NO, NO, 10, 3, 1, 1,
     "DigiCert Inc", "DigiCert Global G3 TLS ECC SHA384 2020 CA1", "DigiCert Inc",
     "DigiCert Global Root G3", NULL, NULL, NULL, NULL,
     "", "http://www.digicert.com/CPS",
     "http://cacerts.digicert.com/DigiCertGlobalG3TLSECCSHA3842020CA1-2.crt",
     "http://ocsp.digicert.com",
     "http://crl3.digicert.com/DigiCertGlobalG3TLSECCSHA3842020CA1-2.crl",
     "http://cacerts.digicert.com/DigiCertGlobalRootG3.crt",
     "http://crl3.digicert.com/DigiCertGlobalRootG3.crl", 0},
    {"ecdsa-int-rsa-root",
     "An ECDSA intermediate under an RSA root, as Cloudflare Inc ECC CA-3 (P-256) under "
     "Baltimore CyberTrust Root (RSA 2,048): organisation-validated P-256 leaf",
     P256, P256, R2K, NO, NO, 10, 2, 1, 1,
     "Cloudflare, Inc.", "Cloudflare Inc ECC CA-3", "Baltimore", "Baltimore CyberTrust Root",
     NULL, NULL, NULL, NULL, "", "http://www.digicert.com/CPS",
     "http://cacerts.digicert.com/CloudflareIncECCCA-3.crt", "http://ocsp.digicert.com",
     "http://crl3.digicert.com/CloudflareIncECCCA-3.crl",
     "http://cacerts.digicert.com/Omniroot2025.crt",
     "http://crl3.digicert.com/Omniroot2025.crl", 0},
    SECTIGO_RSA_CROSS("sectigo-rsa-cross",
     "Sectigo, domain-validated: RSA 2,048 leaf from Sectigo RSA Domain Validation Secure "
     "Server CA (RSA 2,048) under USERTrust RSA (RSA 4,096), cross-signed by AAA Certificate "
     "Services (RSA 2,048)",
        R2K, 0),
    SECTIGO_RSA_CROSS("sectigo-rsa-cross-4096",
     "Sectigo, domain-validated, as sectigo-rsa-cross, with a 4,096-bit subscriber key",
        R4K, 0),
    SECTIGO_RSA_CROSS("sectigo-rsa-cross-root",
     "Sectigo, as sectigo-rsa-cross, served with the whole bundle: AAA Certificate "
     "Services' self-signed root sent last",
        R2K, 1),
    SECTIGO_RSA_CROSS("sectigo-rsa-cross-root-4096",
     "Sectigo, as sectigo-rsa-cross-root, with a 4,096-bit subscriber key",
        R4K, 1),
    AMAZON_RSA_CROSS2("amazon-rsa-cross2",
     "Amazon: RSA 2,048 leaf from Amazon RSA 2048 M02 under Amazon Root CA 1 (RSA 2,048), "
     "cross-signed by Starfield Services Root G2, itself cross-signed by Starfield Class 2 CA",
        R2K, 0),
    AMAZON_RSA_CROSS2("amazon-rsa-cross2-4096",
     "Amazon, as amazon-rsa-cross2, with a 4,096-bit subscriber key",
        R4K, 0),
    AMAZON_RSA_CROSS2("amazon-rsa-cross2-root",
     "Amazon, as amazon-rsa-cross2, served with the whole bundle: Starfield Class 2's "
     "self-signed root sent last",
        R2K, 1),
    AMAZON_RSA_CROSS2("amazon-rsa-cross2-root-4096",
     "Amazon, as amazon-rsa-cross2-root, with a 4,096-bit subscriber key",
        R4K, 1),
    /* Not a public CA: an organisation's own hierarchy (docs/model.md
     * "Enterprise standalone deployments"). Its root is installed in the
     * organisation's clients and never sent; no SCTs (CT is a public-PKI
     * requirement) and no OCSP (the leaf's AIA names only the issuer
     * certificate); the CRL point and URLs are internal, of typical
     * length. Its ca_alg override (ML-DSA) is the post-quantum private PKI. */
    {"private",
     "a private (enterprise) CA: P-256 leaf from an issuing CA (P-384) under the "
     "organisation's own root (P-384, installed in its clients, not sent); no SCTs, no OCSP",
     P256, P384, P384, NO, NO, 2, 0, 1, 0,
     "Example Corporation", "Example Corporation Issuing CA 1", "Example Corporation",
     "Example Corporation Root CA", NULL, NULL, NULL, NULL, "", "",
     "http://pki.corp.example/ica1.crt", "", "http://pki.corp.example/ica1.crl",
     "http://pki.corp.example/root.crt", "http://pki.corp.example/root.crl", 0},
};

#undef LE_RSA_CROSS
#undef GTS_RSA_CROSS
#undef DIGICERT_RSA_OV
#undef SECTIGO_RSA_CROSS
#undef AMAZON_RSA_CROSS2
#undef P256
#undef P384
#undef R2K
#undef R4K
#undef NO

const mtc_chain_profile *mtc_chain_profiles(size_t *count)
{
    *count = sizeof profiles / sizeof profiles[0];
    return profiles;
}

const mtc_chain_profile *mtc_chain_profile_by_name(const char *name)
{
    for (size_t i = 0; name && i < sizeof profiles / sizeof profiles[0]; i++)
        if (!strcmp(profiles[i].name, name))
            return &profiles[i];
    return NULL;
}
