/*
 * web_verify.c - a client's verification time from the measured cost
 * table (sim/web_verify.h). Called when a price is precomputed, not per
 * handshake.
 */
#include "sim/web_verify.h"

#include <math.h>

const char *const web_verify_op_names[WEB_VOP_COUNT] = {
    [WEB_VOP_ED25519] = "ed25519_verify",
    [WEB_VOP_ECDSA_P256] = "ecdsa_p256_verify",
    [WEB_VOP_RSA2048] = "rsa2048_verify",
    [WEB_VOP_RSA4096] = "rsa4096_verify",
    [WEB_VOP_MLDSA44] = "mldsa44_verify",
    [WEB_VOP_MLDSA65] = "mldsa65_verify",
    [WEB_VOP_MLDSA87] = "mldsa87_verify",
    [WEB_VOP_SHA256_NODE] = "sha256_node",
    /* X509_verify_cert less the ECDSA check inside it */
    [WEB_VOP_X509_PATH] = "x509_verify_cert_ecdsa",
};

web_vop web_verify_op_of_sig(mtc_sig_alg alg)
{
    switch (alg) {
    case MTC_SIG_ED25519: return WEB_VOP_ED25519;
    case MTC_SIG_ECDSA_P256: return WEB_VOP_ECDSA_P256;
    case MTC_SIG_MLDSA44: return WEB_VOP_MLDSA44;
    case MTC_SIG_MLDSA65: return WEB_VOP_MLDSA65;
    case MTC_SIG_MLDSA87: return WEB_VOP_MLDSA87;
    default: return WEB_VOP_COUNT;
    }
}

int web_verify_ms(const web_vcount *list, size_t n, double slowdown, double *ms)
{
    if (!ms || (n && !list) || !(slowdown > 0.0) || !isfinite(slowdown))
        return -1;
    double us = 0.0;
    for (size_t i = 0; i < n; i++) {
        if ((unsigned)list[i].op >= WEB_VOP_COUNT)
            return -1;
        us += (double)list[i].n * web_verify_cost_us[list[i].op];
    }
    *ms = slowdown * us / 1000.0;
    return 0;
}
