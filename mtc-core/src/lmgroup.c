/*
 * lmgroup.c - timestamped multi-CA landmark groups: the binary
 * definition of a group version, its strict decoder, version IDs and the
 * server's matching rule (mtc/lmgroup.h). The encoding is canonical (one
 * byte string per structure): the decoder accepts exactly what the
 * encoder writes, which the fuzz target checks by re-encoding.
 */
#include <string.h>

#include "mtc/error.h"
#include "mtc/lmgroup.h"

static int member_cmp(const mtc_lmgroup_member *a, const mtc_lmgroup_member *b)
{
    int c = mtc_taid_cmp(&a->ca_id, &b->ca_id);
    if (c)
        return c;
    return (a->log_number > b->log_number) - (a->log_number < b->log_number);
}

static int taid_ok(const mtc_taid *id)
{
    mtc_taid t;
    return id->len >= 1 && mtc_taid_from_binary(id->b, id->len, &t) == MTC_OK;
}

int mtc_lmgroup_check(const mtc_lmgroup *g)
{
    if (!g || !taid_ok(&g->group_id) || g->version == 0 || g->nmembers == 0 ||
        g->nmembers > 65535 || !g->members)
        return MTC_ERR_ARG;
    for (size_t i = 0; i < g->nmembers; i++) {
        const mtc_lmgroup_member *m = &g->members[i];
        if (!taid_ok(&m->ca_id) || m->log_number < 1 || m->log_number > 65535 ||
            m->first_landmark < 1 || m->first_landmark > m->last_landmark)
            return MTC_ERR_ARG;
        if (i > 0 && member_cmp(&g->members[i - 1], m) >= 0)
            return MTC_ERR_ARG;
    }
    return MTC_OK;
}

size_t mtc_lmgroup_encoded_len(const mtc_lmgroup *g)
{
    if (mtc_lmgroup_check(g) != MTC_OK)
        return 0;
    size_t n = 1 + g->group_id.len + 8 + 8 + 2;
    for (size_t i = 0; i < g->nmembers; i++)
        n += 1 + (size_t)g->members[i].ca_id.len + 2 + 8 + 8;
    return n;
}

static uint8_t *put(uint8_t *p, uint64_t v, int bytes)
{
    for (int i = bytes - 1; i >= 0; i--)
        *p++ = (uint8_t)(v >> (8 * i));
    return p;
}

int mtc_lmgroup_encode(const mtc_lmgroup *g, uint8_t *out, size_t cap,
                       size_t *out_len)
{
    size_t n = mtc_lmgroup_encoded_len(g);
    if (n == 0)
        return MTC_ERR_ARG;
    size_t members = n - (1 + g->group_id.len + 8 + 8 + 2);
    if (members > 65535)
        return MTC_ERR_LIMIT;
    if (!out || cap < n)
        return MTC_ERR_LIMIT;
    uint8_t *p = out;
    *p++ = g->group_id.len;
    memcpy(p, g->group_id.b, g->group_id.len);
    p += g->group_id.len;
    p = put(p, g->version, 8);
    p = put(p, g->timestamp, 8);
    p = put(p, members, 2);
    for (size_t i = 0; i < g->nmembers; i++) {
        const mtc_lmgroup_member *m = &g->members[i];
        *p++ = m->ca_id.len;
        memcpy(p, m->ca_id.b, m->ca_id.len);
        p += m->ca_id.len;
        p = put(p, m->log_number, 2);
        p = put(p, m->first_landmark, 8);
        p = put(p, m->last_landmark, 8);
    }
    if (out_len)
        *out_len = (size_t)(p - out);
    return MTC_OK;
}

/* A bounded reader: every get fails once the input is short. */
typedef struct rd {
    const uint8_t *p;
    size_t left;
} rd;

static int get(rd *r, int bytes, uint64_t *v)
{
    if (r->left < (size_t)bytes)
        return 0;
    uint64_t x = 0;
    for (int i = 0; i < bytes; i++)
        x = x << 8 | r->p[i];
    r->p += bytes;
    r->left -= (size_t)bytes;
    *v = x;
    return 1;
}

static int get_taid(rd *r, mtc_taid *id)
{
    uint64_t n;
    if (!get(r, 1, &n) || n == 0 || r->left < n ||
        mtc_taid_from_binary(r->p, (size_t)n, id) != MTC_OK)
        return 0;
    r->p += n;
    r->left -= (size_t)n;
    return 1;
}

int mtc_lmgroup_decode(const uint8_t *in, size_t len, mtc_lmgroup *out,
                       mtc_lmgroup_member *members, size_t cap)
{
    if (!in || !out)
        return MTC_ERR_ARG;
    rd r = {in, len};
    mtc_lmgroup g;
    memset(&g, 0, sizeof g);
    uint64_t mlen;
    if (!get_taid(&r, &g.group_id) || !get(&r, 8, &g.version) ||
        g.version == 0 || !get(&r, 8, &g.timestamp) || !get(&r, 2, &mlen) ||
        mlen != r.left || mlen == 0)
        return MTC_ERR_PARSE;
    size_t n = 0;
    while (r.left > 0) {
        mtc_lmgroup_member m;
        uint64_t log;
        if (!get_taid(&r, &m.ca_id) || !get(&r, 2, &log) ||
            !get(&r, 8, &m.first_landmark) || !get(&r, 8, &m.last_landmark))
            return MTC_ERR_PARSE;
        m.log_number = log;
        if (log == 0 || m.first_landmark == 0 || m.first_landmark > m.last_landmark)
            return MTC_ERR_PARSE;
        if (n > 0 && member_cmp(&members[n - 1], &m) >= 0)
            return MTC_ERR_PARSE;
        if (n >= cap || !members)
            return MTC_ERR_LIMIT;
        members[n++] = m;
    }
    g.nmembers = n;
    g.members = members;
    *out = g;
    return MTC_OK;
}

int mtc_lmgroup_version_id(const mtc_taid *group_id, uint64_t version,
                           mtc_taid *out)
{
    if (!group_id || !out || version == 0 || !taid_ok(group_id))
        return MTC_ERR_ARG;
    return mtc_taid_append(group_id, &version, 1, out);
}

int mtc_lmgroup_parse_version_id(const mtc_taid *group_id, const mtc_taid *id,
                                 uint64_t *version)
{
    if (!group_id || !id || group_id->len == 0 || id->len <= group_id->len ||
        memcmp(id->b, group_id->b, group_id->len) != 0)
        return 0;
    /* exactly one minimal base-128 arc after the prefix */
    const uint8_t *p = id->b + group_id->len;
    size_t n = id->len - group_id->len;
    if (p[0] == 0x80 || n > 9)
        return 0;
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++) {
        int last = i + 1 == n;
        if (((p[i] & 0x80) == 0) != last)
            return 0;
        v = v << 7 | (p[i] & 0x7f);
    }
    if (v == 0)
        return 0;
    if (version)
        *version = v;
    return 1;
}

const mtc_lmgroup_member *mtc_lmgroup_find(const mtc_lmgroup *g,
                                           const mtc_taid *ca,
                                           uint64_t log_number)
{
    if (!g || !ca)
        return NULL;
    /* members are sorted: binary search on (ca_id, log) */
    mtc_lmgroup_member key;
    key.ca_id = *ca;
    key.log_number = log_number;
    size_t lo = 0, hi = g->nmembers;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = member_cmp(&g->members[mid], &key);
        if (c == 0)
            return &g->members[mid];
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

int mtc_lmgroup_covers(const mtc_lmgroup *g, const mtc_taid *ca,
                       uint64_t log_number, uint64_t landmark)
{
    const mtc_lmgroup_member *m = mtc_lmgroup_find(g, ca, log_number);
    return m && landmark >= 1 && m->first_landmark <= landmark &&
           landmark <= m->last_landmark;
}

int mtc_lmgroup_has_ca(const mtc_lmgroup *g, const mtc_taid *ca)
{
    if (!g || !ca)
        return 0;
    for (size_t i = 0; i < g->nmembers; i++)
        if (mtc_taid_equal(&g->members[i].ca_id, ca))
            return 1;
    return 0;
}

int mtc_lmgroup_match(const mtc_lmgroup *g, const mtc_taid *advertised,
                      const mtc_taid *ca, uint64_t log_number,
                      uint64_t landmark)
{
    uint64_t v;
    if (!g || !mtc_lmgroup_parse_version_id(&g->group_id, advertised, &v) ||
        v != g->version)
        return 0;
    if (landmark == 0)
        return mtc_lmgroup_has_ca(g, ca);
    return mtc_lmgroup_covers(g, ca, log_number, landmark);
}
