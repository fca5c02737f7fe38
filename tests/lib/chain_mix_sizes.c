/*
 * chain_mix_sizes.c - the sizes of a chain_mix's chains, measured as the
 * web's were (chain_mix_sizes.h).
 */
#include "chain_mix_sizes.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ZSTD_c_forceMaxWindow is an experimental parameter */
#define ZSTD_STATIC_LINKING_ONLY
#include <zstd.h>

#include "mtc/chain.h"
#include "mtc/error.h"

size_t mix_zstd_as_measured(const uint8_t *in, size_t len, uint8_t *out, size_t cap)
{
    /* The level alone would not do: zstd's own settings at level 22 have
     * other logs and another target length than the source's. */
    static const struct {
        ZSTD_cParameter p;
        int v;
    } set[] = {
        {ZSTD_c_compressionLevel, 22}, {ZSTD_c_chainLog, 30},
        {ZSTD_c_searchLog, 30},        {ZSTD_c_hashLog, 30},
        {ZSTD_c_targetLength, 6000},   {ZSTD_c_forceMaxWindow, 1},
    };
    ZSTD_CCtx *cx = ZSTD_createCCtx();
    if (!cx)
        return 0;
    size_t r = 0;
    for (size_t i = 0; i < sizeof set / sizeof set[0] && !ZSTD_isError(r); i++)
        r = ZSTD_CCtx_setParameter(cx, set[i].p, set[i].v);
    if (!ZSTD_isError(r))
        r = ZSTD_compress2(cx, out, cap, in, len);
    ZSTD_freeCCtx(cx);
    return ZSTD_isError(r) ? 0 : r;
}

/* One item's chain: built, measured, its compression checked. */
static int size_one(const mtc_chain_profile *p, const char *name, mtc_chain *ch, uint8_t *z,
                    uint8_t *back, mix_size *out)
{
    mtc_chain_opts o = {name, 1767225600, 90 * 86400, 0, 0, 0};
    int rc = mtc_chain_build(p, &o, ch);
    if (rc != MTC_OK)
        return rc;
    size_t len = mtc_chain_der_len(ch); /* the certificates are back to back */
    size_t zl = mix_zstd_as_measured(ch->buf, len, z, 2 * MTC_CHAIN_BUF);
    if (zl == 0)
        return MTC_ERR_LIMIT;
    if (ZSTD_decompress(back, MTC_CHAIN_BUF, z, zl) != len || memcmp(back, ch->buf, len) != 0)
        return MTC_ERR_PARSE;
    out->der = (double)len;
    out->zstd = (double)zl;
    out->leaf = (double)ch->len[0];
    return MTC_OK;
}

int mix_sizes(const sim_param_list *mix, const char *name, mix_size *out, size_t cap,
              size_t *n)
{
    *n = 0;
    if (!mix)
        return MTC_ERR_ARG;
    mtc_chain *ch = malloc(sizeof *ch);
    uint8_t *z = malloc(2 * MTC_CHAIN_BUF), *back = malloc(MTC_CHAIN_BUF);
    int rc = ch && z && back ? MTC_OK : MTC_ERR_NOMEM;
    size_t k = 0;
    for (size_t i = 0; rc == MTC_OK && i < mix->count; i++) {
        const char *item = mix->item[i], *colon = strrchr(item, ':');
        char profile[sizeof out->profile];
        char *end = NULL;
        if (!colon || (size_t)(colon - item) >= sizeof profile) {
            rc = MTC_ERR_ARG;
            break;
        }
        snprintf(profile, sizeof profile, "%.*s", (int)(colon - item), item);
        double weight = strtod(colon + 1, &end);
        const mtc_chain_profile *p = mtc_chain_profile_by_name(profile);
        if (!p || end == colon + 1 || *end || !(weight > 0)) {
            rc = MTC_ERR_ARG;
            break;
        }
        if (k + 1 > cap) {
            rc = MTC_ERR_ARG;
            break;
        }
        mix_size *s = &out[k++];
        snprintf(s->profile, sizeof s->profile, "%s", profile);
        s->weight = weight;
        rc = size_one(p, name, ch, z, back, s);
    }
    if (rc == MTC_OK)
        *n = k;
    free(ch);
    free(z);
    free(back);
    return rc;
}

int mix_profile_base(const char *profile, const char *suffix, char *base, size_t cap)
{
    size_t len = strlen(profile), sl = strlen(suffix);
    if (len <= sl || strcmp(profile + len - sl, suffix) != 0)
        return 0;
    snprintf(base, cap, "%.*s", (int)(len - sl), profile);
    return 1;
}

int mix_rsa4096_base(const char *profile, char *base, size_t cap)
{
    return mix_profile_base(profile, "-4096", base, cap);
}

void mix_rsa2048_only(const sim_param_list *mix, sim_param_list *out)
{
    *out = *mix;
    for (size_t i = 0; i < out->count; i++) {
        char *item = out->item[i], *colon = strrchr(item, ':');
        char profile[sizeof out->item[i]], base[sizeof out->item[i]];
        if (!colon)
            continue;
        snprintf(profile, sizeof profile, "%.*s", (int)(colon - item), item);
        /* the base is the name without its suffix: drop the suffix in place */
        if (mix_rsa4096_base(profile, base, sizeof base))
            memmove(item + strlen(base), colon, strlen(colon) + 1);
    }
}

static double size_of(const mix_size *s, int which)
{
    return which == MIX_DER ? s->der : which == MIX_ZSTD ? s->zstd : s->leaf;
}

double mix_quantile(mix_size *s, size_t n, int which, double q)
{
    if (n == 0)
        return 0;
    /* an insertion sort, stable: a mix has a dozen items, and qsort's
     * comparator could not be told which size to read */
    for (size_t i = 1; i < n; i++)
        for (size_t j = i; j > 0 && size_of(&s[j - 1], which) > size_of(&s[j], which); j--) {
            mix_size t = s[j];
            s[j] = s[j - 1];
            s[j - 1] = t;
        }
    double tot = 0, c = 0;
    for (size_t i = 0; i < n; i++)
        tot += s[i].weight;
    for (size_t i = 0; i < n; i++) {
        c += s[i].weight;
        if (c >= q * tot - 1e-9)
            return size_of(&s[i], which);
    }
    return size_of(&s[n - 1], which);
}
