/*
 * web_flight.c - what a handshake costs besides its own bytes: the round
 * trips of the server's first flight under a cohort's key share and
 * transport, and the baseline X.509 chains every site is compared with.
 *
 * Round trips. A flight's extra round trips are a non-decreasing step
 * function of its encrypted part (EncryptedExtensions to Finished: `enc`)
 * once the cohort fixes the key share (the ServerHello), the transport
 * settings and, over QUIC, how many Initial datagrams the client sent
 * (3x what the server received is its budget before the client's address
 * is validated, RFC 9000 section 8.1; a post-quantum key share makes the
 * ClientHello span two datagrams). So each cohort keeps the first `enc`
 * at which each step begins, found once by bisection over the real
 * framing functions of sim/tls.h, and a handshake compares integers (it
 * runs millions of times a second; framing a flight costs more than the
 * rest of the handshake). Beyond the table the functions are called
 * directly. With check_invariants every handshake is compared with the
 * direct computation (web_handshake.c).
 *
 * Baselines. The same handshake priced with the X.509 chain the site
 * drew from its group's chain_mix (mtc/chain.h, every byte encoded and
 * signed for real): around the site's own key with the site's own
 * CertificateVerify ("classical": the difference is the certificate
 * mechanism alone), the same chain post-quantum (every CA and log key
 * ML-DSA-44, cross-signs left out, the site's own key), and the chain as
 * served today (its own leaf key and CertificateVerify) as a separate
 * figure. The chains' lengths depend on the profile, the algorithms and
 * the length of the site's name (in the leaf's subject and SANs), so each
 * distinct (profile, leaf key, CA keys, name length) is priced once per
 * world, with the first site's name of that length: a few dozen chains,
 * some milliseconds each to sign (RSA 4,096, ML-DSA). The signing is paid
 * once per process: the chains come from the environment's chain cache
 * (mtc/chain_cache.h, keyed by the whole name and every option), which
 * returns the very chain a build would, so a world prices the same bytes
 * with or without it; only the lengths below are derived per world (they
 * depend on the world's code point and compression).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mtc/chain.h"
#include "mtc/chain_cache.h"
#include "mtc/error.h"
#include "sim/certcomp.h"
#include "web_internal.h"

const char *const web_group_names[] = {"x25519mlkem768", "x25519", "secp256r1", NULL};
const uint16_t web_group_ids[] = {TLS_GROUP_X25519MLKEM768, TLS_GROUP_X25519,
                                  TLS_GROUP_SECP256R1};

/* ---- round trips --------------------------------------------------------- */

unsigned web__flight_dgrams_slow(const web_flight *f, uint32_t ch_len)
{
    size_t n = tls_quic_client_datagrams(&f->t, ch_len);
    return n > UINT32_MAX ? UINT32_MAX : (unsigned)n;
}

unsigned web__flight_rtt_tcp_slow(const web_flight *f, uint32_t enc)
{
    return tls_extra_rtt_tcp(&f->t, tls_tcp_flight_bytes(&f->t, f->sh_tcp, enc));
}

unsigned web__flight_rtt_quic_slow(const web_flight *f, unsigned dgrams, uint32_t enc)
{
    size_t bytes = tls_quic_flight_bytes(&f->t, f->sh_quic, enc, NULL);
    return tls_extra_rtt_quic_rx(&f->t, (size_t)dgrams * f->t.quic_client_initial, bytes);
}

typedef unsigned (*step_fn)(const web_flight *f, unsigned arg, uint32_t x);

static unsigned fn_dgrams(const web_flight *f, unsigned arg, uint32_t x)
{
    (void)arg;
    return web__flight_dgrams_slow(f, x);
}

static unsigned fn_tcp(const web_flight *f, unsigned arg, uint32_t x)
{
    (void)arg;
    return web__flight_rtt_tcp_slow(f, x);
}

static unsigned fn_quic(const web_flight *f, unsigned arg, uint32_t x)
{
    return web__flight_rtt_quic_slow(f, arg, x);
}

#define WEB_FLIGHT_LIMIT (UINT32_C(1) << 22) /* 4 MiB: beyond any flight (larger
                                                ones are framed directly) */

/* The least x with fn(x) > k (fn non-decreasing), or UINT32_MAX when even
 * WEB_FLIGHT_LIMIT does not get there. */
static uint32_t first_above(step_fn fn, const web_flight *f, unsigned arg, unsigned k)
{
    uint32_t lo = 0, hi = WEB_FLIGHT_LIMIT;
    if (fn(f, arg, hi) <= k)
        return UINT32_MAX;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (fn(f, arg, mid) > k)
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

int web__flight_init(web *wb, web_cohort *co, char *err, size_t errlen)
{
    (void)wb;
    const web_browsers_config *c = &co->cfg;
    web_flight *f = &co->fl;
    memset(f, 0, sizeof *f);
    tls_transport_defaults(&f->t);
    f->t.tcp_mss = (size_t)c->tcp_mss;
    f->t.tcp_iw_segments = (unsigned)c->tcp_initial_window;
    f->t.tcp_rto_min_ms = c->tcp_rto_min;
    f->t.quic_client_initial = (size_t)c->quic_initial;
    f->t.quic_max_datagram = (size_t)c->quic_datagram;
    f->group = web_group_ids[c->key_share];
    f->sh_tcp = (uint32_t)tls_server_hello_len_sid(f->group, 32);
    f->sh_quic = (uint32_t)tls_server_hello_len_sid(f->group, 0);
    /* The ClientHello grows by one byte per byte of name and extension
     * (sim/tls.h): its length for a one-byte name, less that byte. */
    tls_client_hello ch = {f->group, "x", 1, f->t.quic_cid_len, (size_t)c->client_hello_extra};
    size_t one = tls_client_hello_len(&ch, 0);
    if (!one || !f->sh_tcp) {
        snprintf(err, errlen, "%s: client_hello_extra: 0 or at least 4 bytes (a padding extension)",
                 c->name);
        return SIM_ERR_CONFIG;
    }
    f->ch_quic_base = (uint32_t)one - 1;
    /* Over TCP: a 32-byte legacy session ID, no QUIC parameters, one
     * record header (web_path.c). */
    tls_client_hello cht = {f->group, "x", 0, 0, (size_t)c->client_hello_extra};
    size_t onet = tls_client_hello_len(&cht, 0);
    f->ch_tcp_base = onet ? (uint32_t)onet - 1 + 5 : f->ch_quic_base;
    /* The client's Finished: one encrypted record (header, content type,
     * tag), or one Handshake packet (tls.h's framing). */
    uint32_t fin = (uint32_t)tls_finished_len(32);
    f->fin_tcp = fin + 5 + 1 + 16;
    f->fin_quic = fin + 1 + 4 + 1 + 2 * (uint32_t)f->t.quic_cid_len + 1 + 2 + 2 + 1 + 1 + 2 + 16;
    for (unsigned k = 0; k + 1 < WEB_QUIC_DGRAMS; k++)
        f->dgram_thr[k] = first_above(fn_dgrams, f, 0, k + 1);
    for (unsigned k = 0; k < WEB_RTT_STEPS; k++) {
        f->thr_tcp[k] = first_above(fn_tcp, f, 0, k);
        for (unsigned d = 0; d < WEB_QUIC_DGRAMS; d++)
            f->thr_quic[d][k] = first_above(fn_quic, f, d + 1, k);
    }
    return MTC_OK;
}

/* ---- baselines ----------------------------------------------------------- */

struct web_base_chain {
    uint16_t profile;
    mtc_chain_alg leaf, ca;
    uint32_t name_len;
    uint32_t msg_len;       /* Certificate message: the chain's certificates */
    uint32_t cv_len;        /* CertificateVerify by the chain's own leaf key */
    uint32_t comp_msg[2];   /* msg compressed [brotli, zstd] (wire length);
                               0 when no pair negotiates compression */
};

/* The chain of `profile` with leaf key `leaf` and CA keys `ca` (NONE: the
 * profile's; else cross-signs dropped) for a name of strlen(dns), built on
 * first use; *out is a copy (the table moves when it grows). */
static int base_chain(web *wb, uint16_t profile, mtc_chain_alg leaf, mtc_chain_alg ca,
                      const char *dns, struct web_base_chain *out)
{
    uint32_t nl = (uint32_t)strlen(dns);
    for (size_t i = 0; i < wb->nbase; i++)
        if (wb->base[i].profile == profile && wb->base[i].leaf == leaf &&
            wb->base[i].ca == ca && wb->base[i].name_len == nl) {
            *out = wb->base[i];
            return MTC_OK;
        }
    struct web_base_chain *n = realloc(wb->base, (wb->nbase + 1) * sizeof *n);
    if (!n)
        return MTC_ERR_NOMEM;
    wb->base = n;
    mtc_chain *c = malloc(sizeof *c);
    if (!c)
        return MTC_ERR_NOMEM;
    size_t np;
    const mtc_chain_profile *p = &mtc_chain_profiles(&np)[profile];
    mtc_chain_opts o = {dns, wb->epoch, 7 * 86400, leaf, ca, ca != MTC_CHAIN_ALG_NONE};
    int rc = mtc_chain_cache_build(wb->env.chains, p, &o, c);
    if (rc == MTC_OK) {
        struct web_base_chain *e = &wb->base[wb->nbase++];
        e->profile = profile;
        e->leaf = leaf;
        e->ca = ca;
        e->name_len = nl;
        e->msg_len = (uint32_t)tls_certificate_len(c->len, c->ncerts, 0);
        e->cv_len = (uint32_t)tls_certificate_verify_len(c->handshake_sig_len);
        e->comp_msg[0] = e->comp_msg[1] = 0;
        if (wb->any_comp) {
            /* the chain's Certificate message, compressed once */
            tls_cert_entry ents[MTC_CHAIN_CERTS_MAX];
            for (size_t i = 0; i < c->ncerts; i++)
                ents[i] = (tls_cert_entry){c->buf + c->off[i], c->len[i]};
            size_t cap = e->msg_len, ml = 0;
            uint8_t *msg = malloc(cap);
            rc = msg ? tls_certificate_encode(wb->env.tls.codepoint, ents, c->ncerts, 0, msg,
                                              cap, &ml)
                     : MTC_ERR_NOMEM;
            for (int a = 0; a < 2 && rc == MTC_OK; a++) {
                size_t w = certcomp_wire_len(CERTCOMP_BROTLI + a, msg, ml);
                if (!w)
                    rc = MTC_ERR_NOMEM;
                e->comp_msg[a] = (uint32_t)w;
            }
            free(msg);
            if (rc != MTC_OK) {
                wb->nbase--;
                free(c);
                return rc;
            }
        }
        *out = *e;
    }
    free(c);
    return rc;
}

void web__site_baselines_sync(web *wb, web_site *s)
{
    /* handshakes counted under the bytes about to change keep them */
    web__base_flush_site(wb, s->id);
    web_site_hot *h = &wb->siteh[s->id];
    h->key = (uint8_t)wb->site_cfg[s->group].key_alg;
    h->name_len = s->name_len;
    h->alg = (uint8_t)s->alg;
    h->base_auth[WEB_BASE_CLASSICAL] = s->base_msg[0] + s->cv_len;
    h->base_auth[WEB_BASE_MLDSA44] = s->base_msg[1] + s->cv_len;
    h->base_auth[WEB_BASE_TODAY] = s->base_today;
}

int web__site_baselines(web *wb, web_site *s)
{
    char dns[WEB_NAME_MAX + 32];
    size_t nl = web__site_dns(wb, s, dns, sizeof dns);
    if (nl == 0 || nl > UINT8_MAX)
        return SIM_ERR_CONFIG;
    s->name_len = (uint8_t)nl;
    mtc_chain_alg own = mtc_chain_alg_of_sig((mtc_sig_alg)s->alg);
    struct web_base_chain cl, pq, today;
    int rc;
    if ((rc = base_chain(wb, s->chain, own, MTC_CHAIN_ALG_NONE, dns, &cl)) != MTC_OK ||
        (rc = base_chain(wb, s->chain, own, MTC_CHAIN_ALG_MLDSA44, dns, &pq)) != MTC_OK ||
        (rc = base_chain(wb, s->chain, MTC_CHAIN_ALG_NONE, MTC_CHAIN_ALG_NONE, dns,
                         &today)) != MTC_OK)
        return rc;
    s->base_msg[0] = cl.msg_len;
    s->base_msg[1] = pq.msg_len;
    s->base_today = today.msg_len + today.cv_len;
    s->today_cv = today.cv_len;
    for (int a = 0; a < 2; a++) {
        s->base_comp[a][WEB_BASE_CLASSICAL] = cl.comp_msg[a];
        s->base_comp[a][WEB_BASE_MLDSA44] = pq.comp_msg[a];
        s->base_comp[a][WEB_BASE_TODAY] = today.comp_msg[a];
    }
    web__site_baselines_sync(wb, s);
    return MTC_OK;
}

uint32_t web__base_auth(const web *wb, uint32_t site, size_t k, int i)
{
    const web_site_hot *h = &wb->siteh[site];
    if (!wb->any_comp)
        return h->base_auth[i];
    const web_site *s = &wb->sites[site];
    int alg = web__comp_alg(wb, s->group, k);
    if (!alg)
        return h->base_auth[i];
    uint32_t cv = i == WEB_BASE_TODAY ? s->today_cv : s->cv_len;
    return s->base_comp[alg - CERTCOMP_BROTLI][i] + cv;
}

int web__comp_negotiate(web *wb)
{
    size_t cells = wb->nsite_groups * wb->ncohorts;
    wb->comp = calloc(cells ? cells : 1, 1);
    if (!wb->comp)
        return MTC_ERR_NOMEM;
    for (size_t g = 0; g < wb->nsite_groups; g++)
        for (size_t k = 0; k < wb->ncohorts; k++) {
            const sim_param_list *srv = &wb->site_cfg[g].cert_compression;
            const sim_param_list *cli = &wb->cohorts[k].cfg.cert_compression;
            int pick = 0;
            /* RFC 8879 section 3: the server picks one the client offered */
            for (size_t i = 0; i < srv->count && !pick; i++)
                for (size_t j = 0; j < cli->count && !pick; j++)
                    if (!strcmp(srv->item[i], cli->item[j]))
                        pick = certcomp_alg_by_name(srv->item[i]);
            wb->comp[g * wb->ncohorts + k] = (uint8_t)pick;
            wb->any_comp |= pick != 0;
        }
    return MTC_OK;
}

void web__baselines_destroy(web *wb)
{
    free(wb->comp);
    wb->comp = NULL;
    free(wb->base);
    wb->base = NULL;
    wb->nbase = 0;
}

/* The round trips of a flight with `enc` bytes after the ServerHello, to
 * a client whose ClientHello carried ch_ext bytes of trust_anchors. */
void web__flight_rtt(web *wb, const web_flight *f, uint32_t name_len,
                     uint32_t ch_ext, uint32_t enc, uint32_t *tcp, uint32_t *quic)
{
    unsigned dg = web__flight_dgrams(f, name_len, ch_ext);
    *tcp = web__flight_rtt_tcp(f, enc);
    *quic = web__flight_rtt_quic(f, dg, enc);
    if (wb->env.check_invariants &&
        (dg != web__flight_dgrams_slow(f, f->ch_quic_base + name_len + ch_ext) ||
         *tcp != web__flight_rtt_tcp_slow(f, enc) ||
         *quic != web__flight_rtt_quic_slow(f, dg, enc)))
        wb->st.invariant_violations++;
}
