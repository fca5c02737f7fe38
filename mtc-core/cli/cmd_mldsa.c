/*
 * cmd_mldsa.c - `mtc mldsa keygen|sign|verify`: ML-DSA (FIPS 204) from the
 * command line, with every input and output in hex. Used by the
 * cross-check against @noble/post-quantum (tests/sh_mldsa_xcheck.sh).
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "mtc/error.h"
#include "mtc/mldsa.h"

static const char usage_text[] =
    "usage: mtc mldsa keygen --alg ALG --seed HEX\n"
    "       mtc mldsa sign   --alg ALG --seed HEX --msg HEX [--ctx HEX] [--deterministic]\n"
    "       mtc mldsa verify --alg ALG --pk HEX --msg HEX --sig HEX [--ctx HEX]\n"
    "\n"
    "ML-DSA (FIPS 204), pure, with a context string (at most 255 bytes).\n"
    "ALG is ml-dsa-44, ml-dsa-65 or ml-dsa-87. Keys come from a 32-byte seed\n"
    "(KeyGen's xi). keygen prints the public key, sign the signature (hedged\n"
    "with OpenSSL randomness unless --deterministic), in lower-case hex.\n"
    "verify exits 0 for a valid signature and 1 for an invalid one.\n"
    "Bad arguments exit 2.\n";

typedef struct hexarg {
    const char *text; /* NULL when absent */
    uint8_t *bytes;
    size_t len;
} hexarg;

/* Decodes a.text into a.bytes. Returns 0 or CLI_USAGE (message printed). */
static int parse_hex(const char *what, hexarg *a)
{
    size_t n = strlen(a->text);
    if (n % 2)
        return cli_usage_error("mldsa", "%s: odd number of hex digits (%zu)",
                               what, n);
    a->len = n / 2;
    a->bytes = malloc(a->len + 1);
    if (!a->bytes)
        return cli_usage_error("mldsa", "%s: out of memory", what);
    for (size_t i = 0; i < n; i++) {
        char c = a->text[i];
        int v = c >= '0' && c <= '9'   ? c - '0'
                : c >= 'a' && c <= 'f' ? c - 'a' + 10
                : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                       : -1;
        if (v < 0)
            return cli_usage_error("mldsa", "%s: '%c' at position %zu is not "
                                   "a hex digit", what, c, i);
        if (i % 2 == 0)
            a->bytes[i / 2] = (uint8_t)(v << 4);
        else
            a->bytes[i / 2] |= (uint8_t)v;
    }
    return 0;
}

static void print_hex(const uint8_t *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        printf("%02x", b[i]);
    putchar('\n');
}

int cmd_mldsa(int argc, char **argv)
{
    if (cli_wants_help(argc, argv)) {
        fputs(usage_text, stdout);
        return CLI_OK;
    }
    if (argc < 2) {
        fputs(usage_text, stderr);
        return CLI_USAGE;
    }
    const char *op = argv[1];
    int is_keygen = !strcmp(op, "keygen"), is_sign = !strcmp(op, "sign"),
        is_verify = !strcmp(op, "verify");
    if (!is_keygen && !is_sign && !is_verify)
        return cli_usage_error("mldsa", "unknown operation '%s' (keygen, sign "
                               "or verify)", op);

    const char *alg_name = NULL;
    int deterministic = 0;
    hexarg seed = {0}, msg = {0}, ctx = {0}, pk = {0}, sig = {0};
    int rc = CLI_USAGE;
    mtc_mldsa_key *key = NULL;
    uint8_t *out = NULL;

    for (int i = 2; i < argc; i++) {
        const char *a = argv[i];
        hexarg *h = NULL;
        if (!strcmp(a, "--deterministic") && is_sign) {
            deterministic = 1;
            continue;
        }
        if (i + 1 >= argc) {
            cli_usage_error("mldsa", "%s: unknown option or missing value", a);
            goto done;
        }
        if (!strcmp(a, "--alg")) {
            alg_name = argv[++i];
            continue;
        }
        if (!strcmp(a, "--seed") && !is_verify)
            h = &seed;
        else if (!strcmp(a, "--msg") && !is_keygen)
            h = &msg;
        else if (!strcmp(a, "--ctx") && !is_keygen)
            h = &ctx;
        else if (!strcmp(a, "--pk") && is_verify)
            h = &pk;
        else if (!strcmp(a, "--sig") && is_verify)
            h = &sig;
        if (!h) {
            cli_usage_error("mldsa", "%s: unknown option for '%s'", a, op);
            goto done;
        }
        if (h->text) {
            cli_usage_error("mldsa", "%s given twice", a);
            goto done;
        }
        h->text = argv[++i];
        if (parse_hex(a, h))
            goto done;
    }

    if (!alg_name) {
        cli_usage_error("mldsa", "--alg is missing");
        goto done;
    }
    const mtc_mldsa_sizes *z = mtc_mldsa_sizes_by_name(alg_name);
    if (!z) {
        cli_usage_error("mldsa", "--alg '%s' is not ml-dsa-44, ml-dsa-65 or "
                        "ml-dsa-87", alg_name);
        goto done;
    }
    if (!is_verify && !seed.text) {
        cli_usage_error("mldsa", "--seed is missing");
        goto done;
    }
    if (seed.text && seed.len != MTC_MLDSA_SEED_LEN) {
        cli_usage_error("mldsa", "--seed must be %d bytes (64 hex digits), "
                        "got %zu bytes", MTC_MLDSA_SEED_LEN, seed.len);
        goto done;
    }
    if (!is_keygen && !msg.text) {
        cli_usage_error("mldsa", "--msg is missing (use --msg '' for an "
                        "empty message)");
        goto done;
    }
    if (ctx.len > MTC_MLDSA_CTX_MAX) {
        cli_usage_error("mldsa", "--ctx must be at most %d bytes, got %zu",
                        MTC_MLDSA_CTX_MAX, ctx.len);
        goto done;
    }
    if (is_verify) {
        if (!pk.text || !sig.text) {
            cli_usage_error("mldsa", "%s is missing", !pk.text ? "--pk" : "--sig");
            goto done;
        }
        if (pk.len != z->pk_len) {
            cli_usage_error("mldsa", "--pk must be %zu bytes for %s, got %zu",
                            z->pk_len, z->name, pk.len);
            goto done;
        }
        if (sig.len != z->sig_len) {
            cli_usage_error("mldsa", "--sig must be %zu bytes for %s, got %zu",
                            z->sig_len, z->name, sig.len);
            goto done;
        }
        int v = mtc_mldsa_verify(z->alg, pk.bytes, pk.len, msg.bytes, msg.len,
                                 ctx.bytes, ctx.len, sig.bytes, sig.len);
        if (v == MTC_OK) {
            puts("valid");
            rc = CLI_OK;
        } else if (v == MTC_ERR_SIGNATURE || v == MTC_ERR_SIG_ENCODING) {
            printf("invalid (%s)\n", mtc_strerror(v));
            rc = CLI_FAIL;
        } else {
            fprintf(stderr, "mtc mldsa: verify failed: %s\n", mtc_strerror(v));
            rc = CLI_FAIL;
        }
        goto done;
    }

    int e = mtc_mldsa_key_from_seed(z->alg, seed.bytes, &key);
    if (e) {
        fprintf(stderr, "mtc mldsa: key generation failed: %s\n",
                mtc_strerror(e));
        rc = CLI_FAIL;
        goto done;
    }
    if (is_keygen) {
        print_hex(mtc_mldsa_key_pk(key), z->pk_len);
        rc = CLI_OK;
        goto done;
    }
    out = malloc(z->sig_len);
    if (!out) {
        rc = CLI_FAIL;
        goto done;
    }
    e = deterministic ? mtc_mldsa_key_sign(key, msg.bytes, msg.len, ctx.bytes,
                                           ctx.len, NULL, out)
                      : mtc_mldsa_key_sign_random(key, msg.bytes, msg.len,
                                                  ctx.bytes, ctx.len, out);
    if (e) {
        fprintf(stderr, "mtc mldsa: signing failed: %s\n", mtc_strerror(e));
        rc = CLI_FAIL;
        goto done;
    }
    print_hex(out, z->sig_len);
    rc = CLI_OK;
done:
    mtc_mldsa_key_free(key);
    free(out);
    free(seed.bytes);
    free(msg.bytes);
    free(ctx.bytes);
    free(pk.bytes);
    free(sig.bytes);
    return rc;
}
