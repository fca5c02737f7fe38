/*
 * test_mldsa.c - ML-DSA (FIPS 204) against published and pinned vectors, and
 * its rejection behaviour.
 *
 * Vectors: NIST ACVP keyGen for ML-DSA-44/65/87 and sigVer for ML-DSA-44
 * (tests/data/acvp/, copied from ../shared/ref/acvp/), and known answers of
 * our own produced by @noble/post-quantum 0.7.1 (tests/data/mldsa_kat.jsonl,
 * made by tests/mldsa_gen_kat.mjs): public key, private key, deterministic
 * and hedged (fixed rnd) signatures with and without a context.
 * Properties: sign/verify round trips, every single-bit change of signature,
 * public key, message and context is rejected, malformed encodings (hint
 * rules, z out of range, wrong lengths) are rejected, private keys are
 * checked for consistency. Tests run from the repository root.
 */
#include <openssl/evp.h>
#include <openssl/rand.h>

#include "../mtc-core/src/mldsa_int.h"
#include "mtc/error.h"
#include "mtc/mldsa.h"
#include "test.h"

static const mtc_mldsa_alg all_algs[3] = {MTC_MLDSA_44, MTC_MLDSA_65,
                                          MTC_MLDSA_87};

/* ---- tiny JSON-lines helpers (the files are flat objects) ---- */

/* Copies the string value of "key" into out (NUL-terminated); length or -1. */
static long json_str(const char *line, const char *key, char *out, size_t cap)
{
    char pat[64];
    snprintf(pat, sizeof pat, "\"%s\":\"", key);
    const char *s = strstr(line, pat);
    if (!s)
        return -1;
    s += strlen(pat);
    const char *e = strchr(s, '"');
    if (!e || (size_t)(e - s) + 1 > cap)
        return -1;
    memcpy(out, s, (size_t)(e - s));
    out[e - s] = 0;
    return (long)(e - s);
}

static long json_int(const char *line, const char *key)
{
    char pat[64];
    snprintf(pat, sizeof pat, "\"%s\":", key);
    const char *s = strstr(line, pat);
    return s ? atol(s + strlen(pat)) : -1;
}

static int json_bool(const char *line, const char *key)
{
    char pat[64];
    snprintf(pat, sizeof pat, "\"%s\":true", key);
    return strstr(line, pat) != NULL;
}

static int hexval(int c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* Decodes the hex value of "key" into a malloc'd buffer; NULL on error. */
static uint8_t *json_hex(const char *line, const char *key, size_t *len)
{
    size_t cap = strlen(line) + 1;
    char *s = malloc(cap);
    long n = s ? json_str(line, key, s, cap) : -1;
    uint8_t *out = NULL;
    if (n >= 0 && n % 2 == 0) {
        out = malloc((size_t)n / 2 + 1);
        for (long i = 0; out && i < n / 2; i++) {
            int hi = hexval(s[2 * i]), lo = hexval(s[2 * i + 1]);
            if (hi < 0 || lo < 0) {
                free(out);
                out = NULL;
                break;
            }
            out[i] = (uint8_t)(hi << 4 | lo);
        }
        *len = (size_t)n / 2;
    }
    free(s);
    return out;
}

/* Reads the whole file into a NUL-terminated buffer. */
static char *read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        buf = NULL;
    }
    if (buf)
        buf[n] = 0;
    fclose(f);
    return buf;
}

/* Next line of a buffer: returns its start (NUL-terminated in place) and
 * advances *pos; NULL at the end. Skips empty lines. */
static char *next_line(char **pos)
{
    char *s = *pos;
    while (*s == '\n')
        s++;
    if (!*s)
        return NULL;
    char *e = strchr(s, '\n');
    if (e) {
        *e = 0;
        *pos = e + 1;
    } else {
        *pos = s + strlen(s);
    }
    return s;
}

static mtc_mldsa_alg alg_of_line(const char *line)
{
    char name[32];
    if (json_str(line, "alg", name, sizeof name) < 0)
        return (mtc_mldsa_alg)0;
    const mtc_mldsa_sizes *z = mtc_mldsa_sizes_by_name(name);
    return z ? z->alg : (mtc_mldsa_alg)0;
}

/* ---- published vectors ---- */

TEST(acvp_keygen_all_params)
{
    char *buf = read_file("tests/data/acvp/mldsa-keygen.jsonl");
    ASSERT_TRUE(buf != NULL);
    char *pos = buf, *line;
    int cases = 0, per[3] = {0, 0, 0};
    static uint8_t pk[MTC_MLDSA_PK_MAX], sk[MTC_MLDSA_SK_MAX];
    while ((line = next_line(&pos)) != NULL) {
        mtc_mldsa_alg alg = alg_of_line(line);
        const mtc_mldsa_sizes *z = mtc_mldsa_sizes_get(alg);
        size_t seed_len = 0, pk_len = 0, sk_len = 0;
        uint8_t *seed = json_hex(line, "seed", &seed_len);
        uint8_t *epk = json_hex(line, "pk", &pk_len);
        uint8_t *esk = json_hex(line, "sk", &sk_len);
        int ok = z && seed && epk && esk && seed_len == 32 &&
                 pk_len == z->pk_len && sk_len == z->sk_len &&
                 mtc_mldsa_keygen(alg, seed, pk, sk) == MTC_OK &&
                 memcmp(pk, epk, pk_len) == 0 && memcmp(sk, esk, sk_len) == 0;
        /* The private key must also load back (consistency check). */
        mtc_mldsa_key *key = NULL;
        if (ok)
            ok = mtc_mldsa_key_from_sk(alg, esk, sk_len, &key) == MTC_OK &&
                 memcmp(mtc_mldsa_key_pk(key), epk, pk_len) == 0;
        mtc_mldsa_key_free(key);
        long tc = json_int(line, "tcId");
        free(seed);
        free(epk);
        free(esk);
        if (!ok) {
            free(buf);
            TEST_FAIL_("keyGen tcId %ld (%s) differs", tc, z ? z->name : "?");
        }
        cases++;
        per[alg == MTC_MLDSA_44 ? 0 : alg == MTC_MLDSA_65 ? 1 : 2]++;
    }
    free(buf);
    ASSERT_EQ(cases, 18);
    ASSERT_EQ(per[0], 10);
    ASSERT_EQ(per[1], 5);
    ASSERT_EQ(per[2], 3);
}

TEST(acvp_sigver_mldsa44)
{
    char *buf = read_file("tests/data/acvp/mldsa44-sigver.jsonl");
    ASSERT_TRUE(buf != NULL);
    char *pos = buf, *line;
    int cases = 0, passed = 0;
    while ((line = next_line(&pos)) != NULL) {
        size_t pk_len = 0, msg_len = 0, ctx_len = 0, sig_len = 0;
        uint8_t *pk = json_hex(line, "pk", &pk_len);
        uint8_t *msg = json_hex(line, "message", &msg_len);
        uint8_t *ctx = json_hex(line, "context", &ctx_len);
        uint8_t *sig = json_hex(line, "signature", &sig_len);
        int expect = json_bool(line, "testPassed");
        long tc = json_int(line, "tcId");
        int rc = pk && msg && ctx && sig
                     ? mtc_mldsa_verify(alg_of_line(line), pk, pk_len, msg,
                                        msg_len, ctx, ctx_len, sig, sig_len)
                     : -999;
        free(pk);
        free(msg);
        free(ctx);
        free(sig);
        if (rc == -999) {
            free(buf);
            TEST_FAIL_("sigVer tcId %ld: unreadable", tc);
        }
        if ((rc == MTC_OK) != expect) {
            free(buf);
            TEST_FAIL_("sigVer tcId %ld: got %d, expected %s", tc, rc,
                       expect ? "valid" : "invalid");
        }
        if (!expect && rc != MTC_ERR_SIGNATURE && rc != MTC_ERR_SIG_ENCODING) {
            free(buf);
            TEST_FAIL_("sigVer tcId %ld: rejected with unexpected %d", tc, rc);
        }
        cases++;
        passed += expect;
    }
    free(buf);
    ASSERT_EQ(cases, 7);
    ASSERT_EQ(passed, 3);
}


/* ---- pinned known answers of @noble/post-quantum ---- */

TEST(noble_kat_keys_and_signatures)
{
    char *buf = read_file("tests/data/mldsa_kat.jsonl");
    ASSERT_TRUE(buf != NULL);
    char *pos = buf, *line;
    int cases = 0;
    static uint8_t sk[MTC_MLDSA_SK_MAX], sig[MTC_MLDSA_SIG_MAX];
    while ((line = next_line(&pos)) != NULL) {
        mtc_mldsa_alg alg = alg_of_line(line);
        const mtc_mldsa_sizes *z = mtc_mldsa_sizes_get(alg);
        size_t n[8] = {0};
        uint8_t *seed = json_hex(line, "seed", &n[0]);
        uint8_t *msg = json_hex(line, "msg", &n[1]);
        uint8_t *ctx = json_hex(line, "ctx", &n[2]);
        uint8_t *rnd = json_hex(line, "rnd", &n[3]);
        uint8_t *pk = json_hex(line, "pk", &n[4]);
        uint8_t *esk = json_hex(line, "sk", &n[5]);
        uint8_t *sdet = json_hex(line, "sig_det", &n[6]);
        uint8_t *srnd = json_hex(line, "sig_rnd", &n[7]);
        mtc_mldsa_key *key = NULL;
        const char *what = "fields";
        int ok = z && seed && msg && ctx && rnd && pk && esk && sdet && srnd &&
                 n[0] == 32 && n[3] == 32 && n[4] == z->pk_len &&
                 n[5] == z->sk_len && n[6] == z->sig_len && n[7] == z->sig_len;
        if (ok) {
            what = "keys";
            ok = mtc_mldsa_key_from_seed(alg, seed, &key) == MTC_OK &&
                 memcmp(mtc_mldsa_key_pk(key), pk, n[4]) == 0;
            if (ok) {
                mtc_mldsa_key_sk(key, sk);
                ok = memcmp(sk, esk, n[5]) == 0;
            }
        }
        if (ok) {
            what = "deterministic signature";
            ok = mtc_mldsa_key_sign(key, msg, n[1], ctx, n[2], NULL, sig) ==
                     MTC_OK && memcmp(sig, sdet, n[6]) == 0;
        }
        if (ok) {
            what = "deterministic signature from the encoded sk";
            memset(sig, 0, sizeof sig);
            ok = mtc_mldsa_sign(alg, esk, n[5], msg, n[1], ctx, n[2], NULL,
                                sig) == MTC_OK && memcmp(sig, sdet, n[6]) == 0;
        }
        if (ok) {
            what = "hedged signature with fixed rnd";
            ok = mtc_mldsa_key_sign(key, msg, n[1], ctx, n[2], rnd, sig) ==
                     MTC_OK && memcmp(sig, srnd, n[7]) == 0;
        }
        if (ok) {
            what = "verification of noble's signatures";
            ok = mtc_mldsa_verify(alg, pk, n[4], msg, n[1], ctx, n[2], sdet,
                                  n[6]) == MTC_OK &&
                 mtc_mldsa_verify(alg, pk, n[4], msg, n[1], ctx, n[2], srnd,
                                  n[7]) == MTC_OK;
        }
        long tc = json_int(line, "case");
        mtc_mldsa_key_free(key);
        free(seed); free(msg); free(ctx); free(rnd);
        free(pk); free(esk); free(sdet); free(srnd);
        if (!ok) {
            free(buf);
            TEST_FAIL_("%s case %ld: %s differ", z ? z->name : "?", tc, what);
        }
        cases++;
    }
    free(buf);
    ASSERT_EQ(cases, 9);
}

/* ---- round trips and API contracts ---- */

TEST(round_trip_all_params)
{
    uint8_t seed[32], msg[100], ctx[255], rnd[32];
    static uint8_t pk[MTC_MLDSA_PK_MAX], sk[MTC_MLDSA_SK_MAX];
    static uint8_t s1[MTC_MLDSA_SIG_MAX], s2[MTC_MLDSA_SIG_MAX];
    int rounds = test_scale() < 1 ? 2 : 10;
    for (int a = 0; a < 3; a++) {
        const mtc_mldsa_sizes *z = mtc_mldsa_sizes_get(all_algs[a]);
        for (int r = 0; r < rounds; r++) {
            ASSERT_EQ(RAND_bytes(seed, 32), 1);
            ASSERT_EQ(RAND_bytes(msg, sizeof msg), 1);
            ASSERT_EQ(RAND_bytes(ctx, sizeof ctx), 1);
            ASSERT_EQ(RAND_bytes(rnd, sizeof rnd), 1);
            size_t ml = (size_t)r * 10, cl = r == 1 ? 255 : (size_t)r * 3;
            ASSERT_OK(mtc_mldsa_keygen(z->alg, seed, pk, sk));
            /* Deterministic: twice the same bytes; via key object and sk. */
            ASSERT_OK(mtc_mldsa_sign(z->alg, sk, z->sk_len, msg, ml, ctx, cl,
                                     NULL, s1));
            ASSERT_OK(mtc_mldsa_sign(z->alg, sk, z->sk_len, msg, ml, ctx, cl,
                                     NULL, s2));
            ASSERT_MEM_EQ(s1, s2, z->sig_len);
            ASSERT_OK(mtc_mldsa_verify(z->alg, pk, z->pk_len, msg, ml, ctx, cl,
                                       s1, z->sig_len));
            /* Hedged: differs from the deterministic one, verifies too. */
            ASSERT_OK(mtc_mldsa_sign(z->alg, sk, z->sk_len, msg, ml, ctx, cl,
                                     rnd, s2));
            ASSERT_TRUE(memcmp(s1, s2, z->sig_len) != 0);
            ASSERT_OK(mtc_mldsa_verify(z->alg, pk, z->pk_len, msg, ml, ctx, cl,
                                       s2, z->sig_len));
            /* Wrong parameter set: lengths differ, rejected up front. */
            mtc_mldsa_alg other = all_algs[(a + 1) % 3];
            ASSERT_EQ(mtc_mldsa_verify(other, pk, z->pk_len, msg, ml, ctx, cl,
                                       s2, z->sig_len), MTC_ERR_KEY);
        }
    }
}

TEST(random_signing_and_contexts)
{
    uint8_t seed[32] = {1, 2, 3};
    static uint8_t s1[MTC_MLDSA44_SIG_LEN], s2[MTC_MLDSA44_SIG_LEN];
    uint8_t ctx[256];
    memset(ctx, 0x5a, sizeof ctx);
    mtc_mldsa_key *key = NULL;
    ASSERT_OK(mtc_mldsa_key_from_seed(MTC_MLDSA_44, seed, &key));
    ASSERT_EQ(mtc_mldsa_key_alg(key), MTC_MLDSA_44);
    const uint8_t *pk = mtc_mldsa_key_pk(key);
    const uint8_t msg[] = "message";
    int rc1 = mtc_mldsa_key_sign_random(key, msg, 7, NULL, 0, s1);
    int rc2 = mtc_mldsa_key_sign_random(key, msg, 7, NULL, 0, s2);
    int d = memcmp(s1, s2, sizeof s1) != 0;
    int v1 = mtc_mldsa_verify(MTC_MLDSA_44, pk, MTC_MLDSA44_PK_LEN, msg, 7,
                              NULL, 0, s1, sizeof s1);
    int v2 = mtc_mldsa_verify(MTC_MLDSA_44, pk, MTC_MLDSA44_PK_LEN, msg, 7,
                              NULL, 0, s2, sizeof s2);
    /* Context of 256 bytes: signing refuses, verification says invalid. */
    int c1 = mtc_mldsa_key_sign(key, msg, 7, ctx, 256, NULL, s2);
    int c2 = mtc_mldsa_verify(MTC_MLDSA_44, pk, MTC_MLDSA44_PK_LEN, msg, 7,
                              ctx, 256, s1, sizeof s1);
    /* Empty context and a context of one zero byte are different. */
    int c3 = mtc_mldsa_verify(MTC_MLDSA_44, pk, MTC_MLDSA44_PK_LEN, msg, 7,
                              (const uint8_t *)"", 1, s1, sizeof s1);
    mtc_mldsa_key_free(key);
    mtc_mldsa_key_free(NULL);
    ASSERT_OK(rc1);
    ASSERT_OK(rc2);
    ASSERT_TRUE(d);
    ASSERT_OK(v1);
    ASSERT_OK(v2);
    ASSERT_EQ(c1, MTC_ERR_ARG);
    ASSERT_EQ(c2, MTC_ERR_SIGNATURE);
    ASSERT_EQ(c3, MTC_ERR_SIGNATURE);
    ASSERT_EQ(mtc_mldsa_keygen((mtc_mldsa_alg)45, seed, s1, NULL),
              MTC_ERR_UNSUPPORTED);
    ASSERT_TRUE(mtc_mldsa_sizes_by_name("ML-DSA-65") != NULL);
    ASSERT_TRUE(mtc_mldsa_sizes_by_name("mldsa87") != NULL);
    ASSERT_TRUE(mtc_mldsa_sizes_by_name("ml-dsa-66") == NULL);
}

/* ---- every single-bit change is rejected ---- */

typedef struct fixture {
    mtc_mldsa_alg alg;
    const mtc_mldsa_sizes *z;
    uint8_t pk[MTC_MLDSA_PK_MAX], sk[MTC_MLDSA_SK_MAX], sig[MTC_MLDSA_SIG_MAX];
    uint8_t msg[64], ctx[16];
} fixture;

static int fixture_make(fixture *f, mtc_mldsa_alg alg, uint8_t tag)
{
    uint8_t seed[32];
    memset(seed, tag, sizeof seed);
    f->alg = alg;
    f->z = mtc_mldsa_sizes_get(alg);
    for (size_t i = 0; i < sizeof f->msg; i++)
        f->msg[i] = (uint8_t)(i * 7 + tag);
    for (size_t i = 0; i < sizeof f->ctx; i++)
        f->ctx[i] = (uint8_t)(i * 13 + tag);
    if (mtc_mldsa_keygen(alg, seed, f->pk, f->sk))
        return -1;
    return mtc_mldsa_sign(alg, f->sk, f->z->sk_len, f->msg, sizeof f->msg,
                          f->ctx, sizeof f->ctx, NULL, f->sig);
}

static int fixture_verify(const fixture *f)
{
    return mtc_mldsa_verify(f->alg, f->pk, f->z->pk_len, f->msg, sizeof f->msg,
                            f->ctx, sizeof f->ctx, f->sig, f->z->sig_len);
}

/* Flips bits of buf (n bytes) one at a time and expects rejection. With
 * stride > 1 only every stride-th bit (offset varying) is walked. Returns
 * the first bit that was accepted, or -1. */
static long walk_bits(fixture *f, uint8_t *buf, size_t n, size_t stride,
                      long *walked)
{
    *walked = 0;
    for (size_t bit = (stride > 1 ? 3 : 0); bit < n * 8; bit += stride) {
        buf[bit / 8] ^= (uint8_t)(1u << (bit % 8));
        int rc = fixture_verify(f);
        buf[bit / 8] ^= (uint8_t)(1u << (bit % 8));
        (*walked)++;
        if (rc == MTC_OK)
            return (long)bit;
    }
    return -1;
}

TEST(every_bit_flip_rejected_mldsa44)
{
    static fixture f;
    ASSERT_OK(fixture_make(&f, MTC_MLDSA_44, 0x44));
    ASSERT_OK(fixture_verify(&f));
    /* All bits in the optimized build; a stride under sanitizers. */
    size_t stride = test_scale() < 1 ? 23 : 1;
    long walked, bad;
    bad = walk_bits(&f, f.sig, f.z->sig_len, stride, &walked);
    if (bad >= 0)
        TEST_FAIL_("signature bit %ld flipped still verifies", bad);
    ASSERT_TRUE(walked >= (long)(f.z->sig_len * 8 / stride));
    bad = walk_bits(&f, f.pk, f.z->pk_len, stride, &walked);
    if (bad >= 0)
        TEST_FAIL_("public key bit %ld flipped still verifies", bad);
    bad = walk_bits(&f, f.msg, sizeof f.msg, 1, &walked);
    if (bad >= 0)
        TEST_FAIL_("message bit %ld flipped still verifies", bad);
    bad = walk_bits(&f, f.ctx, sizeof f.ctx, 1, &walked);
    if (bad >= 0)
        TEST_FAIL_("context bit %ld flipped still verifies", bad);
    /* Length changes of message and context. */
    ASSERT_EQ(mtc_mldsa_verify(f.alg, f.pk, f.z->pk_len, f.msg, sizeof f.msg - 1,
                               f.ctx, sizeof f.ctx, f.sig, f.z->sig_len),
              MTC_ERR_SIGNATURE);
    ASSERT_EQ(mtc_mldsa_verify(f.alg, f.pk, f.z->pk_len, f.msg, sizeof f.msg,
                               f.ctx, sizeof f.ctx - 1, f.sig, f.z->sig_len),
              MTC_ERR_SIGNATURE);
    ASSERT_EQ(mtc_mldsa_verify(f.alg, f.pk, f.z->pk_len, f.msg, sizeof f.msg,
                               NULL, 0, f.sig, f.z->sig_len),
              MTC_ERR_SIGNATURE);
    ASSERT_OK(fixture_verify(&f)); /* the walks restored every bit */
}

TEST(bit_flips_rejected_mldsa65_87)
{
    static fixture f;
    size_t stride = test_scale() < 1 ? 301 : 37;
    for (int a = 1; a < 3; a++) {
        ASSERT_OK(fixture_make(&f, all_algs[a], (uint8_t)(0x60 + a)));
        ASSERT_OK(fixture_verify(&f));
        long walked, bad;
        bad = walk_bits(&f, f.sig, f.z->sig_len, stride, &walked);
        if (bad >= 0)
            TEST_FAIL_("%s: signature bit %ld flipped still verifies",
                       f.z->name, bad);
        bad = walk_bits(&f, f.pk, f.z->pk_len, stride, &walked);
        if (bad >= 0)
            TEST_FAIL_("%s: public key bit %ld flipped still verifies",
                       f.z->name, bad);
        bad = walk_bits(&f, f.msg, sizeof f.msg, 5, &walked);
        if (bad >= 0)
            TEST_FAIL_("%s: message bit %ld flipped still verifies",
                       f.z->name, bad);
        bad = walk_bits(&f, f.ctx, sizeof f.ctx, 3, &walked);
        if (bad >= 0)
            TEST_FAIL_("%s: context bit %ld flipped still verifies",
                       f.z->name, bad);
    }
}

/* ---- malformed encodings ---- */

/* Offsets of the hint section of a signature. */
static size_t hint_off(const mldsa_params *p)
{
    return p->ctilde_len + (size_t)p->l * 32 * p->z_bits;
}

TEST(malformed_signatures_rejected)
{
    static fixture f;
    static uint8_t bad[MTC_MLDSA_SIG_MAX + 1];
    for (int a = 0; a < 3; a++) {
        const mldsa_params *p = mtc__mldsa_params(all_algs[a]);
        /* Find a signature whose hint has two indices in one polynomial
         * and spare padding, by varying the message tag. */
        uint8_t *hb = NULL;
        unsigned poly = 0, tag;
        for (tag = 1; tag < 200; tag++) {
            ASSERT_OK(fixture_make(&f, all_algs[a], (uint8_t)tag));
            hb = f.sig + hint_off(p);
            unsigned prev = 0, total = hb[p->omega + p->k - 1];
            for (poly = 0; poly < p->k; poly++) {
                if (hb[p->omega + poly] - prev >= 2)
                    break;
                prev = hb[p->omega + poly];
            }
            if (poly < p->k && total < p->omega)
                break;
        }
        ASSERT_TRUE(tag < 200);
        ASSERT_OK(fixture_verify(&f));
        size_t n = f.z->sig_len;
        unsigned first = poly ? hb[p->omega + poly - 1] : 0;
        unsigned total = hb[p->omega + p->k - 1];
        uint8_t *hbad = bad + hint_off(p);
        int rc;

#define EXPECT_BAD(what, code)                                              \
    do {                                                                    \
        rc = mtc_mldsa_verify(f.alg, f.pk, f.z->pk_len, f.msg,              \
                              sizeof f.msg, f.ctx, sizeof f.ctx, bad, n);   \
        if (rc != (code))                                                   \
            TEST_FAIL_("%s: %s gave %d, expected %d", f.z->name, what, rc,  \
                       code);                                               \
    } while (0)

        /* Indices not strictly increasing: swapped, then repeated. */
        memcpy(bad, f.sig, n);
        hbad[first] = hb[first + 1];
        hbad[first + 1] = hb[first];
        EXPECT_BAD("swapped hint indices", MTC_ERR_SIG_ENCODING);
        memcpy(bad, f.sig, n);
        hbad[first + 1] = hb[first];
        EXPECT_BAD("repeated hint index", MTC_ERR_SIG_ENCODING);
        /* Hint count above omega (last count) and decreasing counts. */
        memcpy(bad, f.sig, n);
        hbad[p->omega + p->k - 1] = (uint8_t)(p->omega + 1);
        EXPECT_BAD("hint count omega + 1", MTC_ERR_SIG_ENCODING);
        memcpy(bad, f.sig, n);
        hbad[p->omega + p->k - 1] = 255;
        EXPECT_BAD("hint count 255", MTC_ERR_SIG_ENCODING);
        if (poly + 1 < p->k) {
            memcpy(bad, f.sig, n);
            hbad[p->omega + poly + 1] = (uint8_t)(first);
            hbad[p->omega + poly] = (uint8_t)(first + 2);
            if (hb[p->omega + poly + 1] > first) /* counts now decrease */
                EXPECT_BAD("decreasing hint counts", MTC_ERR_SIG_ENCODING);
        }
        /* Nonzero padding after the last index, at each padding byte. */
        for (unsigned i = total; i < p->omega; i++) {
            memcpy(bad, f.sig, n);
            hbad[i] = 1;
            EXPECT_BAD("nonzero hint padding", MTC_ERR_SIG_ENCODING);
        }
        /* One index more, counted: well formed but a different h. */
        if (total < p->omega) {
            memcpy(bad, f.sig, n);
            hbad[p->omega + p->k - 1] = (uint8_t)(total + 1);
            unsigned lastpos = total ? hb[total - 1] : 0;
            hbad[total] = (uint8_t)(lastpos < 255 ? lastpos + 1 : 0);
            int last_poly_has = total > hb[p->omega + p->k - 2];
            if (!last_poly_has || lastpos < 255)
                EXPECT_BAD("one extra hint", MTC_ERR_SIGNATURE);
        }

        /* z out of range: at exactly +-(gamma1 - beta) and at the
         * encodable extremes gamma1 and -(gamma1 - 1), re-encoded with
         * everything else kept. */
        uint8_t ct[MLDSA_CTILDE_MAX];
        static mldsa_poly z[MLDSA_L_MAX], h[MLDSA_K_MAX];
        ASSERT_OK(mtc__mldsa_sig_decode(p, f.sig, ct, z, h));
        /* Decoding then encoding a valid signature gives it back. */
        mtc__mldsa_sig_encode(p, bad, ct, z, h);
        ASSERT_MEM_EQ(bad, f.sig, n);
        const int32_t vals[4] = {p->gamma1 - p->beta, -(p->gamma1 - p->beta),
                                 p->gamma1, -(p->gamma1 - 1)};
        for (int v = 0; v < 4; v++) {
            unsigned j = (unsigned)v % p->l, c = 17 + 50 * (unsigned)v;
            int32_t keep = z[j].c[c];
            z[j].c[c] = vals[v];
            mtc__mldsa_sig_encode(p, bad, ct, z, h);
            z[j].c[c] = keep;
            EXPECT_BAD("z coefficient out of range", MTC_ERR_SIGNATURE);
        }
        /* Just inside the bound the encoding is accepted by the range
         * check; the signature then fails on the challenge instead. */
        ASSERT_OK(mtc__mldsa_sig_decode(p, f.sig, ct, z, h));
        ASSERT_FALSE(mtc__mldsa_poly_exceeds(&z[0], p->gamma1 - p->beta));

        /* Wrong lengths. */
        memcpy(bad, f.sig, n);
        bad[n] = 0;
        ASSERT_EQ(mtc_mldsa_verify(f.alg, f.pk, f.z->pk_len, f.msg,
                                   sizeof f.msg, f.ctx, sizeof f.ctx, bad,
                                   n + 1), MTC_ERR_SIG_ENCODING);
        ASSERT_EQ(mtc_mldsa_verify(f.alg, f.pk, f.z->pk_len, f.msg,
                                   sizeof f.msg, f.ctx, sizeof f.ctx, bad,
                                   n - 1), MTC_ERR_SIG_ENCODING);
        ASSERT_EQ(mtc_mldsa_verify(f.alg, f.pk, f.z->pk_len, f.msg,
                                   sizeof f.msg, f.ctx, sizeof f.ctx, bad, 0),
                  MTC_ERR_SIG_ENCODING);
        ASSERT_EQ(mtc_mldsa_verify(f.alg, f.pk, f.z->pk_len - 1, f.msg,
                                   sizeof f.msg, f.ctx, sizeof f.ctx, f.sig,
                                   n), MTC_ERR_KEY);
        ASSERT_EQ(mtc_mldsa_verify(f.alg, f.pk, f.z->pk_len + 1, f.msg,
                                   sizeof f.msg, f.ctx, sizeof f.ctx, f.sig,
                                   n), MTC_ERR_KEY);
#undef EXPECT_BAD
    }
}

TEST(z_bound_is_checked_by_verify)
{
    /* A signer without the z bound produces signatures that are correct in
     * every other respect (the challenge matches); Verify must reject them
     * for the bound alone. */
    static uint8_t sig[MTC_MLDSA_SIG_MAX];
    for (int a = 0; a < 3; a++) {
        const mtc_mldsa_sizes *z = mtc_mldsa_sizes_get(all_algs[a]);
        uint8_t seed[32] = {(uint8_t)a, 9};
        mtc_mldsa_key *key = NULL;
        ASSERT_OK(mtc_mldsa_key_from_seed(z->alg, seed, &key));
        const uint8_t *pk = mtc_mldsa_key_pk(key);
        int found = 0;
        for (uint8_t m = 0; m < 100 && !found; m++) {
            int zx = 0;
            if (mtc__mldsa_key_sign_flags(key, &m, 1, NULL, 0, NULL, sig,
                                          MLDSA_TEST_NO_Z_BOUND, &zx) != MTC_OK)
                break;
            if (!zx)
                continue;
            found = 1;
            int strict = mtc_mldsa_verify(z->alg, pk, z->pk_len, &m, 1, NULL,
                                          0, sig, z->sig_len);
            int lax = mtc__mldsa_verify_flags(z->alg, pk, z->pk_len, &m, 1,
                                              NULL, 0, sig, z->sig_len,
                                              MLDSA_TEST_NO_Z_BOUND);
            if (strict != MTC_ERR_SIGNATURE || lax != MTC_OK) {
                mtc_mldsa_key_free(key);
                TEST_FAIL_("%s: z out of range: verify %d, without bound %d",
                           z->name, strict, lax);
            }
        }
        mtc_mldsa_key_free(key);
        ASSERT_TRUE(found);
    }
}

TEST(private_key_consistency_checked)
{
    static fixture f;
    static uint8_t sk[MTC_MLDSA_SK_MAX], sig[MTC_MLDSA_SIG_MAX];
    for (int a = 0; a < 3; a++) {
        ASSERT_OK(fixture_make(&f, all_algs[a], (uint8_t)(0x70 + a)));
        const mldsa_params *p = mtc__mldsa_params(f.alg);
        size_t n = f.z->sk_len, s1_off = 128;
        size_t t0_off = 128 + (size_t)(p->l + p->k) * 32 * p->eta_bits;
        mtc_mldsa_key *key = NULL;
        /* Wrong length. */
        ASSERT_EQ(mtc_mldsa_key_from_sk(f.alg, f.sk, n - 1, &key), MTC_ERR_KEY);
        ASSERT_TRUE(key == NULL);
        /* rho, tr, s1, s2 and t0 are all bound together. */
        size_t offs[5] = {0, 64 + 5, s1_off + 1, t0_off - 1, t0_off + 100};
        const char *names[5] = {"rho", "tr", "s1", "s2", "t0"};
        for (int i = 0; i < 5; i++) {
            memcpy(sk, f.sk, n);
            sk[offs[i]] ^= 0x01;
            int rc = mtc_mldsa_sign(f.alg, sk, n, f.msg, 1, NULL, 0, NULL, sig);
            if (rc != MTC_ERR_KEY)
                TEST_FAIL_("%s: sk with a flipped %s bit gave %d", f.z->name,
                           names[i], rc);
        }
        /* An s1 coefficient outside [-eta, eta] (all-ones field). */
        memcpy(sk, f.sk, n);
        sk[s1_off] |= (uint8_t)((1u << p->eta_bits) - 1);
        ASSERT_EQ(mtc_mldsa_key_from_sk(f.alg, sk, n, &key), MTC_ERR_KEY);
        /* K is not bound (it only seeds the mask): a different K loads,
         * gives a different deterministic signature, which verifies. */
        memcpy(sk, f.sk, n);
        sk[40] ^= 0x80;
        ASSERT_OK(mtc_mldsa_key_from_sk(f.alg, sk, n, &key));
        uint8_t out[MTC_MLDSA_SK_MAX];
        mtc_mldsa_key_sk(key, out);
        ASSERT_MEM_EQ(out, sk, n);
        ASSERT_OK(mtc_mldsa_key_sign(key, f.msg, sizeof f.msg, f.ctx,
                                     sizeof f.ctx, NULL, sig));
        mtc_mldsa_key_free(key);
        ASSERT_TRUE(memcmp(sig, f.sig, f.z->sig_len) != 0);
        ASSERT_OK(mtc_mldsa_verify(f.alg, f.pk, f.z->pk_len, f.msg,
                                   sizeof f.msg, f.ctx, sizeof f.ctx, sig,
                                   f.z->sig_len));
    }
}

static const test_case cases[] = {
    {"acvp_keygen_all_params", acvp_keygen_all_params},
    {"acvp_sigver_mldsa44", acvp_sigver_mldsa44},
    {"noble_kat_keys_and_signatures", noble_kat_keys_and_signatures},
    {"round_trip_all_params", round_trip_all_params},
    {"random_signing_and_contexts", random_signing_and_contexts},
    {"every_bit_flip_rejected_mldsa44", every_bit_flip_rejected_mldsa44},
    {"bit_flips_rejected_mldsa65_87", bit_flips_rejected_mldsa65_87},
    {"malformed_signatures_rejected", malformed_signatures_rejected},
    {"z_bound_is_checked_by_verify", z_bound_is_checked_by_verify},
    {"private_key_consistency_checked", private_key_consistency_checked},
};

TEST_MAIN(cases)
