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
    [WEB_VOP_ECDSA_P384] = "ecdsa_p384_verify",
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

web_vop web_verify_op_of_chain_alg(mtc_chain_alg alg)
{
    switch (alg) {
    case MTC_CHAIN_ALG_ED25519: return WEB_VOP_ED25519;
    case MTC_CHAIN_ALG_ECDSA_P256: return WEB_VOP_ECDSA_P256;
    case MTC_CHAIN_ALG_ECDSA_P384: return WEB_VOP_ECDSA_P384;
    case MTC_CHAIN_ALG_RSA2048: return WEB_VOP_RSA2048;
    case MTC_CHAIN_ALG_RSA4096: return WEB_VOP_RSA4096;
    case MTC_CHAIN_ALG_MLDSA44: return WEB_VOP_MLDSA44;
    case MTC_CHAIN_ALG_MLDSA65: return WEB_VOP_MLDSA65;
    case MTC_CHAIN_ALG_MLDSA87: return WEB_VOP_MLDSA87;
    default: return WEB_VOP_COUNT;
    }
}

int web_verify_from_chain(const mtc_chain_verif *v, size_t n, int has_new_root,
                          int with_handshake, web_vcount *out)
{
    if (n && (!v || !out))
        return -1;
    int k = 0;
    for (size_t i = 0; i < n; i++) {
        if (has_new_root && (v[i].flags & MTC_CHAIN_V_IF_NO_NEW_ROOT))
            continue;
        if (!with_handshake && v[i].role == MTC_CHAIN_V_HANDSHAKE)
            continue;
        web_vop op = web_verify_op_of_chain_alg(v[i].alg);
        if (op == WEB_VOP_COUNT)
            return -1;
        out[k++] = (web_vcount){op, 1};
    }
    return k;
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
