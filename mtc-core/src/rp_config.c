/*
 * rp_config.c - the relying-party configuration text format (mtc/rp.h).
 *
 * A strict line parser: configuration mistakes must surface as an error
 * naming the line, never as a silently weaker policy. Strict about what
 * a line says, not about how an editor saved it: fields are separated by
 * runs of spaces or tabs, a line may end in CRLF, and the last line may
 * lack its newline.
 */
#include <stdlib.h>
#include <string.h>

#include "mtc/error.h"
#include "mtc/rp.h"

#define MAX_FIELDS 40

static int is_blank(char c) { return c == ' ' || c == '\t'; }

/* Splits line[0..len) at runs of blanks; 0 when there are no fields or
 * more than MAX_FIELDS. */
static size_t split(const char *line, size_t len, const char **f, size_t *fl)
{
    size_t n = 0, i = 0;
    for (;;) {
        while (i < len && is_blank(line[i]))
            i++;
        if (i == len)
            return n;
        if (n == MAX_FIELDS)
            return 0;
        size_t start = i;
        while (i < len && !is_blank(line[i]))
            i++;
        f[n] = line + start;
        fl[n++] = i - start;
    }
}

static int parse_u64(const char *s, size_t len, uint64_t *v)
{
    if (len == 0 || len > 20 || (s[0] == '0' && len > 1))
        return 0;
    uint64_t x = 0;
    for (size_t i = 0; i < len; i++) {
        if (s[i] < '0' || s[i] > '9')
            return 0;
        unsigned d = (unsigned)(s[i] - '0');
        if (x > (UINT64_MAX - d) / 10)
            return 0;
        x = x * 10 + d;
    }
    *v = x;
    return 1;
}

static int parse_hex(const char *s, size_t len, uint8_t *out, size_t cap,
                     size_t *n)
{
    if (len % 2 || len / 2 > cap)
        return 0;
    for (size_t i = 0; i < len; i += 2) {
        int v = 0;
        for (int k = 0; k < 2; k++) {
            char c = s[i + (size_t)k];
            int d = c >= '0' && c <= '9'   ? c - '0'
                    : c >= 'a' && c <= 'f' ? c - 'a' + 10
                                           : -1;
            if (d < 0)
                return 0;
            v = v * 16 + d;
        }
        out[i / 2] = (uint8_t)v;
    }
    *n = len / 2;
    return 1;
}

static int is(const char *f, size_t fl, const char *word)
{
    return fl == strlen(word) && !memcmp(f, word, fl);
}

static int apply_line(mtc_rp_ca *rp, const char **f, const size_t *fl, size_t n)
{
    if (is(f[0], fl[0], "cosigner") && n == 4) {
        mtc_taid id;
        char name[32];
        uint8_t pk[MTC_SIG_PK_MAX];
        size_t pl;
        if (mtc_taid_from_text(f[1], fl[1], &id) != MTC_OK || fl[2] >= sizeof name)
            return MTC_ERR_CONFIG;
        memcpy(name, f[2], fl[2]);
        name[fl[2]] = '\0';
        const mtc_sig_info *info = mtc_sig_info_by_name(name);
        if (!info || !parse_hex(f[3], fl[3], pk, sizeof pk, &pl))
            return MTC_ERR_CONFIG;
        return mtc_rp_ca_add_cosigner(rp, &id, info->alg, pk, pl) == MTC_OK
                   ? MTC_OK
                   : MTC_ERR_CONFIG;
    }
    if (is(f[0], fl[0], "policy") && n >= 3) {
        uint64_t k;
        mtc_taid ids[MAX_FIELDS];
        if (!parse_u64(f[1], fl[1], &k) || k > MAX_FIELDS)
            return MTC_ERR_CONFIG;
        for (size_t i = 2; i < n; i++)
            if (mtc_taid_from_text(f[i], fl[i], &ids[i - 2]) != MTC_OK)
                return MTC_ERR_CONFIG;
        return mtc_rp_ca_add_policy(rp, (unsigned)k, ids, n - 2) == MTC_OK
                   ? MTC_OK
                   : MTC_ERR_CONFIG;
    }
    if (is(f[0], fl[0], "subtree") && n == 5) {
        uint64_t log, start, end;
        mtc_hash h;
        if (!parse_u64(f[1], fl[1], &log) || !parse_u64(f[2], fl[2], &start) ||
            !parse_u64(f[3], fl[3], &end) ||
            mtc_hash_from_hex(f[4], fl[4], &h) != MTC_OK || log == 0)
            return MTC_ERR_CONFIG;
        return mtc_rp_ca_add_subtree(rp, log, start, end, &h) == MTC_OK
                   ? MTC_OK
                   : MTC_ERR_CONFIG;
    }
    if (is(f[0], fl[0], "revoke") && n == 3) {
        uint64_t a, b;
        if (!parse_u64(f[1], fl[1], &a) || !parse_u64(f[2], fl[2], &b))
            return MTC_ERR_CONFIG;
        return mtc_rp_ca_revoke(rp, a, b) == MTC_OK ? MTC_OK : MTC_ERR_CONFIG;
    }
    return MTC_ERR_CONFIG;
}

int mtc_rp_ca_load(const uint8_t *ca_der, size_t ca_len, const char *conf,
                   size_t conf_len, mtc_rp_ca **out, size_t *err_line)
{
    *out = NULL;
    if (err_line)
        *err_line = 0;
    mtc_rp_ca *rp;
    int rc = mtc_rp_ca_from_cert(ca_der, ca_len, &rp);
    if (rc != MTC_OK)
        return rc;
    size_t line = 0, i = 0;
    while (i < conf_len) {
        line++;
        const char *nl = memchr(conf + i, '\n', conf_len - i);
        size_t len = nl ? (size_t)(nl - (conf + i)) : conf_len - i;
        const char *l = conf + i;
        i += len + 1;
        if (len && l[len - 1] == '\r')
            len--;
        size_t lead = 0;
        while (lead < len && is_blank(l[lead]))
            lead++;
        if (lead == len || l[lead] == '#')
            continue;
        const char *f[MAX_FIELDS];
        size_t fl[MAX_FIELDS];
        size_t n = split(l, len, f, fl);
        if (n == 0 || (rc = apply_line(rp, f, fl, n)) != MTC_OK) {
            rc = MTC_ERR_CONFIG;
            goto fail;
        }
    }
    *out = rp;
    return MTC_OK;
fail:
    if (err_line)
        *err_line = line;
    mtc_rp_ca_free(rp);
    return rc;
}
