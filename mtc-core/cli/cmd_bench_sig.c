/*
 * cmd_bench_sig.c - `mtc bench sig`: key generation, signing and
 * verification per second for Ed25519 and ECDSA P-256 (OpenSSL) and
 * ML-DSA-44/65/87 (mtc-core), measured in one run, with the time ratios of
 * ML-DSA-44 to Ed25519 (the goals: verify <= 1.5x, sign <= 10x).
 *
 * Each operation runs for a fixed budget of process CPU time (--seconds,
 * default 0.5 per measurement; CPU time, so that a shared machine's other
 * load does not count); keys are made from seeds / fresh randomness as a
 * simulation would; messages are 100 bytes (a checkpoint signing input is
 * of that order). ML-DSA signing is deterministic with an empty context, as
 * in the signature table, and uses a key object (expanded once), as a CA or
 * cosigner would; verification starts from the encoded public key each
 * time, as a relying party does. Output: `name value unit` lines.
 *
 * What a client's certificate verification costs beside those (the web
 * model's verification table, sim/web/web_verify_costs.c, is made from
 * this output by sim/bench/verify_costs.sh): ECDSA P-384 with SHA-384,
 * RSA-2048 and RSA-4096 verification (OpenSSL, e = 65537, PKCS#1 v1.5
 * with SHA-256: the signatures of today's chains; their key generation is
 * not timed) and signing (a server's CertificateVerify with such a leaf
 * key: the web model's signing times, docs/sources.md [sign-time]), one Merkle interior node hash (SHA-256 of 65 bytes, RFC
 * 9162 section 2.1.1), and OpenSSL's X509_verify_cert on this project's
 * classical baseline chain (leaf decoded, the ECDSA intermediate as the
 * trust anchor: one signature check plus decoding and path checks).
 */
#include <stdlib.h>
#include <string.h>

#include <time.h>

#include <openssl/evp.h>
#include <openssl/rand.h>
#include <openssl/rsa.h>
#include <openssl/x509.h>
#include <openssl/x509_vfy.h>

#include "cli.h"
#include "mtc/baseline.h"
#include "mtc/error.h"
#include "mtc/hash.h"
#include "mtc/mldsa.h"

typedef struct bench_item {
    const char *name;
    double keygen, sign, verify; /* operations per second */
} bench_item;

typedef int (*bench_op)(void *ctx);

/* Process CPU time in seconds: the machine may be shared, and an
 * operation's cost is the CPU it takes, not the wall time it waits. */
static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Runs op until `seconds` of CPU time have passed (at least 3 times); ops
 * per CPU second, or -1 when op failed. */
static double rate(bench_op op, void *ctx, double seconds)
{
    double t0 = cpu_now(), t;
    long n = 0;
    do {
        for (int i = 0; i < 4; i++, n++)
            if (op(ctx))
                return -1;
        t = cpu_now();
    } while (t - t0 < seconds || n < 3);
    return (double)n / (t - t0);
}

/* ---- OpenSSL algorithms ---- */

typedef struct ossl_ctx {
    int nid; /* EVP_PKEY_ED25519 or EVP_PKEY_EC */
    EVP_PKEY *key;
    uint8_t msg[100];
    uint8_t sig[128];
    size_t sig_len;
} ossl_ctx;

static EVP_PKEY *ossl_keygen(int nid)
{
    if (nid == EVP_PKEY_ED25519)
        return EVP_PKEY_Q_keygen(NULL, NULL, "ED25519");
    return EVP_PKEY_Q_keygen(NULL, NULL, "EC", "P-256");
}

static int ossl_op_keygen(void *c)
{
    ossl_ctx *o = c;
    EVP_PKEY *k = ossl_keygen(o->nid);
    EVP_PKEY_free(k);
    return k ? 0 : -1;
}

static int ossl_op_sign(void *c)
{
    ossl_ctx *o = c;
    EVP_MD_CTX *md = EVP_MD_CTX_new();
    int ok = md && EVP_DigestSignInit(md, NULL, o->nid == EVP_PKEY_ED25519
                                                    ? NULL : EVP_sha256(),
                                      NULL, o->key) == 1;
    o->sig_len = sizeof o->sig;
    ok = ok && EVP_DigestSign(md, o->sig, &o->sig_len, o->msg, sizeof o->msg) == 1;
    EVP_MD_CTX_free(md);
    return ok ? 0 : -1;
}

static int ossl_op_verify(void *c)
{
    ossl_ctx *o = c;
    EVP_MD_CTX *md = EVP_MD_CTX_new();
    int ok = md && EVP_DigestVerifyInit(md, NULL, o->nid == EVP_PKEY_ED25519
                                                      ? NULL : EVP_sha256(),
                                        NULL, o->key) == 1;
    ok = ok && EVP_DigestVerify(md, o->sig, o->sig_len, o->msg, sizeof o->msg) == 1;
    EVP_MD_CTX_free(md);
    return ok ? 0 : -1;
}

static int bench_ossl(bench_item *it, int nid, double secs)
{
    ossl_ctx o = {.nid = nid};
    memset(o.msg, 0xab, sizeof o.msg);
    o.key = ossl_keygen(nid);
    if (!o.key)
        return -1;
    it->keygen = rate(ossl_op_keygen, &o, secs);
    it->sign = rate(ossl_op_sign, &o, secs);
    it->verify = rate(ossl_op_verify, &o, secs);
    EVP_PKEY_free(o.key);
    return it->keygen < 0 || it->sign < 0 || it->verify < 0 ? -1 : 0;
}

/* ---- ML-DSA ---- */

typedef struct mldsa_ctx {
    const mtc_mldsa_sizes *z;
    mtc_mldsa_key *key;
    uint8_t seed[32], msg[100];
    uint8_t pk[MTC_MLDSA_PK_MAX], sig[MTC_MLDSA_SIG_MAX];
} mldsa_ctx;

static int mldsa_op_keygen(void *c)
{
    mldsa_ctx *m = c;
    m->seed[0]++; /* a fresh key each time */
    return mtc_mldsa_keygen(m->z->alg, m->seed, m->pk, NULL);
}

static int mldsa_op_sign(void *c)
{
    mldsa_ctx *m = c;
    m->msg[0]++; /* a fresh message: rejection counts vary per message */
    return mtc_mldsa_key_sign(m->key, m->msg, sizeof m->msg, NULL, 0, NULL,
                              m->sig);
}

static int mldsa_op_verify(void *c)
{
    mldsa_ctx *m = c;
    return mtc_mldsa_verify(m->z->alg, m->pk, m->z->pk_len, m->msg,
                            sizeof m->msg, NULL, 0, m->sig, m->z->sig_len);
}

static int bench_mldsa(bench_item *it, mtc_mldsa_alg alg, double secs)
{
    static mldsa_ctx m;
    memset(&m, 0, sizeof m);
    m.z = mtc_mldsa_sizes_get(alg);
    memset(m.msg, 0xab, sizeof m.msg);
    if (RAND_bytes(m.seed, sizeof m.seed) != 1)
        return -1;
    it->keygen = rate(mldsa_op_keygen, &m, secs);
    if (mtc_mldsa_key_from_seed(alg, m.seed, &m.key))
        return -1;
    memcpy(m.pk, mtc_mldsa_key_pk(m.key), m.z->pk_len);
    it->sign = rate(mldsa_op_sign, &m, secs);
    /* Verify the last signed message (msg and sig are left consistent). */
    it->verify = rate(mldsa_op_verify, &m, secs);
    mtc_mldsa_key_free(m.key);
    return it->keygen < 0 || it->sign < 0 || it->verify < 0 ? -1 : 0;
}

/* ---- what a client's verification needs beside those ---- */

typedef struct rsa_ctx {
    EVP_PKEY *key;
    uint8_t msg[100];
    uint8_t sig[512];
    size_t sig_len;
} rsa_ctx;

static int rsa_op_verify(void *c)
{
    rsa_ctx *o = c;
    EVP_MD_CTX *md = EVP_MD_CTX_new();
    int ok = md && EVP_DigestVerifyInit(md, NULL, EVP_sha256(), NULL, o->key) == 1;
    ok = ok && EVP_DigestVerify(md, o->sig, o->sig_len, o->msg, sizeof o->msg) == 1;
    EVP_MD_CTX_free(md);
    return ok ? 0 : -1;
}

static int p384_op_verify(void *c)
{
    rsa_ctx *o = c;
    EVP_MD_CTX *md = EVP_MD_CTX_new();
    int ok = md && EVP_DigestVerifyInit(md, NULL, EVP_sha384(), NULL, o->key) == 1;
    ok = ok && EVP_DigestVerify(md, o->sig, o->sig_len, o->msg, sizeof o->msg) == 1;
    EVP_MD_CTX_free(md);
    return ok ? 0 : -1;
}

/* A TLS 1.3 CertificateVerify with an RSA key is RSASSA-PSS
 * (rsa_pss_rsae_sha256, RFC 8446 section 4.2.3); the private-key
 * operation is the cost, as in PKCS#1 v1.5. */
static int rsa_op_sign(void *c)
{
    rsa_ctx *o = c;
    EVP_MD_CTX *md = EVP_MD_CTX_new();
    EVP_PKEY_CTX *pk = NULL;
    size_t len = sizeof o->sig;
    uint8_t sig[512];
    int ok = md && EVP_DigestSignInit(md, &pk, EVP_sha256(), NULL, o->key) == 1 &&
             EVP_PKEY_CTX_set_rsa_padding(pk, RSA_PKCS1_PSS_PADDING) == 1 &&
             EVP_PKEY_CTX_set_rsa_pss_saltlen(pk, RSA_PSS_SALTLEN_DIGEST) == 1;
    ok = ok && EVP_DigestSign(md, sig, &len, o->msg, sizeof o->msg) == 1;
    EVP_MD_CTX_free(md);
    return ok ? 0 : -1;
}

static int p384_op_sign(void *c)
{
    rsa_ctx *o = c;
    EVP_MD_CTX *md = EVP_MD_CTX_new();
    size_t len = sizeof o->sig;
    uint8_t sig[512];
    int ok = md && EVP_DigestSignInit(md, NULL, EVP_sha384(), NULL, o->key) == 1;
    ok = ok && EVP_DigestSign(md, sig, &len, o->msg, sizeof o->msg) == 1;
    EVP_MD_CTX_free(md);
    return ok ? 0 : -1;
}

/* Verifications per second of an RSA signature with a `bits` key (0: an
 * ECDSA P-384 one with SHA-384) into *verify, and signatures per second
 * (a server's CertificateVerify with such a key) into *sign; -1 when an
 * operation failed. */
static void bench_rsa(unsigned bits, double secs, double *verify, double *sign)
{
    rsa_ctx o;
    memset(&o, 0, sizeof o);
    memset(o.msg, 0xab, sizeof o.msg);
    o.key = bits ? EVP_PKEY_Q_keygen(NULL, NULL, "RSA", (size_t)bits)
                 : EVP_PKEY_Q_keygen(NULL, NULL, "EC", "P-384");
    EVP_MD_CTX *md = EVP_MD_CTX_new();
    o.sig_len = sizeof o.sig;
    int ok = o.key && md &&
             EVP_DigestSignInit(md, NULL, bits ? EVP_sha256() : EVP_sha384(),
                                NULL, o.key) == 1 &&
             EVP_DigestSign(md, o.sig, &o.sig_len, o.msg, sizeof o.msg) == 1;
    EVP_MD_CTX_free(md);
    *verify = ok ? rate(bits ? rsa_op_verify : p384_op_verify, &o, secs) : -1;
    *sign = ok ? rate(bits ? rsa_op_sign : p384_op_sign, &o, secs) : -1;
    EVP_PKEY_free(o.key);
}

static int node_op(void *c)
{
    mtc_hash *h = c;
    mtc_hash_node(&h[0], &h[1], &h[0]);
    return 0;
}

typedef struct x509_ctx {
    const mtc_baseline *b;
    X509 *inter;
    X509_STORE *store;
} x509_ctx;

/* Decodes the leaf and verifies it up to the intermediate (a trust anchor
 * with X509_V_FLAG_PARTIAL_CHAIN), as a client's path building would. */
static int x509_op(void *c)
{
    x509_ctx *x = c;
    const unsigned char *p = x->b->leaf;
    X509 *leaf = d2i_X509(NULL, &p, (long)x->b->leaf_len);
    X509_STORE_CTX *ctx = X509_STORE_CTX_new();
    int ok = leaf && ctx && X509_STORE_CTX_init(ctx, x->store, leaf, NULL) == 1 &&
             X509_verify_cert(ctx) == 1;
    X509_STORE_CTX_free(ctx);
    X509_free(leaf);
    return ok ? 0 : -1;
}

/* X509_verify_cert per second on the classical baseline chain. */
static double bench_x509(double secs)
{
    static mtc_baseline b;
    x509_ctx x = {&b, NULL, NULL};
    double r = -1;
    int64_t now = (int64_t)time(NULL);
    if (mtc_baseline_build(MTC_SIG_ECDSA_P256, "bench.example", now - 3600,
                           7 * 86400, &b) != MTC_OK)
        return -1;
    const unsigned char *p = b.intermediate;
    x.inter = d2i_X509(NULL, &p, (long)b.intermediate_len);
    x.store = X509_STORE_new();
    if (x.inter && x.store && X509_STORE_add_cert(x.store, x.inter) == 1 &&
        X509_STORE_set_flags(x.store, X509_V_FLAG_PARTIAL_CHAIN) == 1)
        r = rate(x509_op, &x, secs);
    X509_STORE_free(x.store);
    X509_free(x.inter);
    return r;
}

int bench_sig(int argc, char **argv)
{
    double secs = 0.5;
    if (cli_wants_help(argc, argv)) {
        printf("usage: mtc bench sig [--seconds S]\n\n"
               "Key generation, signing and verification per second for\n"
               "ed25519, ecdsa-p256 (OpenSSL) and ml-dsa-44/65/87 (mtc-core),\n"
               "each measured for S seconds (default 0.5); P-384, RSA-2048/4096\n"
               "verification and signing, a Merkle node hash and X509_verify_cert on the\n"
               "classical baseline chain; and the time ratios\n"
               "mldsa44_verify_vs_ed25519 and mldsa44_sign_vs_ed25519.\n");
        return CLI_OK;
    }
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--seconds") && i + 1 < argc) {
            char *end;
            secs = strtod(argv[++i], &end);
            if (*end || !(secs > 0 && secs <= 60))
                return cli_usage_error("bench sig", "--seconds '%s' is not a "
                                       "number in (0, 60]", argv[i]);
        } else {
            return cli_usage_error("bench sig", "unknown argument '%s'",
                                   argv[i]);
        }
    }
    bench_item items[5] = {{"ed25519", 0, 0, 0}, {"ecdsa_p256", 0, 0, 0},
                           {"mldsa44", 0, 0, 0}, {"mldsa65", 0, 0, 0},
                           {"mldsa87", 0, 0, 0}};
    static const mtc_mldsa_alg algs[3] = {MTC_MLDSA_44, MTC_MLDSA_65,
                                          MTC_MLDSA_87};
    if (bench_ossl(&items[0], EVP_PKEY_ED25519, secs) ||
        bench_ossl(&items[1], EVP_PKEY_EC, secs)) {
        fprintf(stderr, "mtc bench sig: OpenSSL operation failed\n");
        return CLI_FAIL;
    }
    for (int a = 0; a < 3; a++)
        if (bench_mldsa(&items[2 + a], algs[a], secs)) {
            fprintf(stderr, "mtc bench sig: %s operation failed\n",
                    items[2 + a].name);
            return CLI_FAIL;
        }
    for (int i = 0; i < 5; i++) {
        printf("%s_keygen %.0f ops/s\n", items[i].name, items[i].keygen);
        printf("%s_sign %.0f ops/s\n", items[i].name, items[i].sign);
        printf("%s_verify %.0f ops/s\n", items[i].name, items[i].verify);
    }
    double rsa2048, rsa4096, p384, rsa2048_s, rsa4096_s, p384_s;
    bench_rsa(2048, secs, &rsa2048, &rsa2048_s);
    bench_rsa(4096, secs, &rsa4096, &rsa4096_s);
    bench_rsa(0, secs, &p384, &p384_s);
    mtc_hash nodes[2];
    memset(nodes, 0x5a, sizeof nodes);
    double node = rate(node_op, nodes, secs);
    double x509 = bench_x509(secs);
    if (rsa2048 < 0 || rsa4096 < 0 || p384 < 0 || rsa2048_s < 0 || rsa4096_s < 0 ||
        p384_s < 0 || x509 < 0) {
        fprintf(stderr, "mtc bench sig: %s operation failed\n",
                x509 < 0 ? "X509_verify_cert" : "RSA or P-384");
        return CLI_FAIL;
    }
    printf("ecdsa_p384_verify %.0f ops/s\n", p384);
    printf("rsa2048_verify %.0f ops/s\n", rsa2048);
    printf("rsa4096_verify %.0f ops/s\n", rsa4096);
    printf("ecdsa_p384_sign %.0f ops/s\n", p384_s);
    printf("rsa2048_sign %.0f ops/s\n", rsa2048_s);
    printf("rsa4096_sign %.0f ops/s\n", rsa4096_s);
    printf("sha256_node %.0f ops/s\n", node);
    printf("x509_verify_cert_ecdsa %.0f ops/s\n", x509);
    /* Time ratios: (1 / rate_mldsa) / (1 / rate_ed25519). */
    printf("mldsa44_verify_vs_ed25519 %.3f ratio\n",
           items[0].verify / items[2].verify);
    printf("mldsa44_sign_vs_ed25519 %.3f ratio\n",
           items[0].sign / items[2].sign);
    return CLI_OK;
}
