/*
 * web_pki_fixture.c - TEST FIXTURE, see web_pki_fixture.h. Real logs,
 * landmarks, certificates and relying parties; simple timing.
 */
#include "web_pki_fixture.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mtc/cert.h"
#include "mtc/error.h"
#include "mtc/ilog.h"
#include "mtc/ldp.h"
#include "mtc/staple.h"

#define WFX_MAX_CA 4
#define WFX_MAX_W 3

typedef struct wfx_req {
    size_t ca;
    uint64_t ticket, index;
    sim_time requested;
    int64_t nb, na;
    char dns[96];
    uint8_t spki[2700];
    size_t spki_len;
    uint8_t *subject, *exts;    /* the request's own, or NULL */
    size_t subject_len, exts_len;
    sim_cert_cb cb;
    void *cb_ctx;
    int lr_done;
    sim_event ev;               /* standalone delivery */
    wfx *f;
} wfx_req;

typedef struct wfx_rev {
    size_t ca;
    uint64_t first, last;       /* serials */
    sim_time at;
} wfx_rev;

typedef struct wfx_ca {
    sim_ca_info info;
    char name[32];
    mtc_sig_key *keys[1 + WFX_MAX_W];
    mtc_cosigner cos[1 + WFX_MAX_W];
    uint8_t issuer[64];
    size_t issuer_len;
    uint8_t ca_cert[8192];
    size_t ca_cert_len;
    mtc_ilog *log;
    mtc_landmarks *lm;
    uint64_t max_active;
    uint64_t bg;                /* background entries so far */
    /* length of the landmark file's text for (first kept, last): formatting
     * it on every client update was 8 % of a 10^6-client benchmark */
    uint64_t fmt_first, fmt_last;
    size_t fmt_len;
    int fmt_valid;
    sim_ca_staple staple;       /* cfg.staple: the newest (bytes owned) */
    uint8_t ldp_exts[1024];     /* cfg.ldp: an entry's extensions with them */
    sim_ca_proof_set psets[64]; /* cfg.ldp: proof set of landmark i + 1 */
} wfx_ca;

struct wfx {
    wfx_config cfg;
    sim_engine *sim;
    web_pki pki;
    wfx_ca ca[WFX_MAX_CA];
    wfx_req **reqs;
    size_t nreqs, reqs_cap;
    wfx_rev revs[256];
    size_t nrevs;
    /* publications: views[p * nca + ca] */
    sim_ca_view **views;
    sim_time *pub_time;
    uint64_t *pub_last;         /* per (p, ca): last landmark */
    size_t *pub_nrev;           /* per p: revocations included */
    uint32_t npubs, pubs_cap;
    uint32_t published;         /* latest fetchable */
    uint32_t next_version;
    sim_event lm_ev, pub_ev;
    uint64_t interval;
    uint64_t issued;
};

void wfx_defaults(wfx_config *c)
{
    memset(c, 0, sizeof *c);
    c->nca = 1;
    c->alg = MTC_SIG_ED25519;
    c->witnesses = 0;
    c->lifetime = 7 * SIM_DAY;
    c->landmark_interval = SIM_HOUR;
    c->sa_delay = 0;
    c->pub_delay = 0;
    c->background = 0;
    c->epoch = 1798761600;
}

static void seed_of(uint8_t s[32], unsigned ca, unsigned k)
{
    memset(s, 0, 32);
    s[0] = 'w';
    s[1] = (uint8_t)ca;
    s[2] = (uint8_t)k;
}

/* ---- views ----------------------------------------------------------------- */

static int build_rp(wfx *f, size_t ca, uint64_t last, size_t nrev, mtc_rp_ca **out)
{
    wfx_ca *c = &f->ca[ca];
    mtc_rp_ca *rp;
    int rc = mtc_rp_ca_from_cert(c->ca_cert, c->ca_cert_len, &rp);
    if (rc)
        return rc;
    mtc_taid ids[WFX_MAX_W];
    for (size_t w = 0; w < f->cfg.witnesses; w++) {
        uint8_t pk[MTC_SIG_PK_MAX];
        size_t pl;
        mtc_sig_key_public(c->keys[1 + w], pk, &pl);
        if ((rc = mtc_rp_ca_add_cosigner(rp, &c->cos[1 + w].id, f->cfg.alg, pk, pl)))
            goto fail;
        ids[w] = c->cos[1 + w].id;
    }
    if (f->cfg.witnesses &&
        (rc = mtc_rp_ca_add_policy(rp, (unsigned)f->cfg.witnesses, ids, f->cfg.witnesses)))
        goto fail;
    uint64_t lo = last >= c->max_active ? last - c->max_active + 1 : 1;
    for (uint64_t l = lo; l <= last && l >= 1; l++) {
        mtc_subtree s[2];
        if ((rc = mtc_landmarks_subtrees(c->lm, l, &s[0], &s[1])))
            goto fail;
        for (int k = 0; k < 2; k++) {
            if (s[k].end <= s[k].start)
                continue;
            mtc_hash h;
            if ((rc = mtc_tree_subtree_hash(mtc_ilog_tree(c->log), s[k].start, s[k].end, &h)) ||
                (rc = mtc_rp_ca_add_subtree(rp, 1, s[k].start, s[k].end, &h)))
                goto fail;
        }
    }
    for (size_t i = 0; i < nrev; i++)
        if (f->revs[i].ca == ca &&
            (rc = mtc_rp_ca_revoke(rp, f->revs[i].first, f->revs[i].last)))
            goto fail;
    *out = rp;
    return MTC_OK;
fail:
    mtc_rp_ca_free(rp);
    return rc;
}

static int publish(wfx *f, sim_time at)
{
    if (f->npubs == f->pubs_cap) {
        uint32_t cap = f->pubs_cap ? 2 * f->pubs_cap : 64;
        sim_ca_view **v = realloc(f->views, (size_t)cap * f->cfg.nca * sizeof *v);
        if (!v)
            return MTC_ERR_NOMEM;
        f->views = v;
        uint64_t *pl = realloc(f->pub_last, (size_t)cap * f->cfg.nca * sizeof *pl);
        if (!pl)
            return MTC_ERR_NOMEM;
        f->pub_last = pl;
        sim_time *pt = realloc(f->pub_time, cap * sizeof *pt);
        if (!pt)
            return MTC_ERR_NOMEM;
        f->pub_time = pt;
        size_t *pr = realloc(f->pub_nrev, cap * sizeof *pr);
        if (!pr)
            return MTC_ERR_NOMEM;
        f->pub_nrev = pr;
        f->pubs_cap = cap;
    }
    uint32_t p = f->npubs;
    f->pub_time[p] = at;
    f->pub_nrev[p] = f->nrevs;
    for (size_t ca = 0; ca < f->cfg.nca; ca++) {
        uint64_t last = mtc_landmarks_last(f->ca[ca].lm);
        size_t slot = (size_t)p * f->cfg.nca + ca;
        f->pub_last[slot] = last;
        int same = p > 0 && f->pub_last[slot - f->cfg.nca] == last &&
                   f->pub_nrev[p - 1] == f->nrevs;
        if (same) {
            f->views[slot] = f->views[slot - f->cfg.nca];
            continue;
        }
        sim_ca_view *v = calloc(1, sizeof *v);
        if (!v)
            return MTC_ERR_NOMEM;
        v->version = f->next_version++;
        v->nlogs = 1;
        v->log[0].log_number = 1;
        v->log[0].last_landmark = last;
        v->log[0].max_active = f->ca[ca].max_active;
        mtc_rp_ca *rp;
        int rc = build_rp(f, ca, last, f->nrevs, &rp);
        if (rc) {
            free(v);
            return rc;
        }
        v->rp = rp;
        v->state_bytes = 32 * mtc_rp_ca_subtree_count(rp);
        for (size_t i = 0; i < f->nrevs; i++)
            v->nrevocations += f->revs[i].ca == ca;
        f->views[slot] = v;
    }
    f->npubs++;
    return MTC_OK;
}

/* ---- issuance ------------------------------------------------------------------ */

/* The request's entry, with its own subject and extensions when it gave them. */
static int req_entry(wfx_ca *c, const wfx_req *q, mtc_entry_scratch *s,
                     mtc_tbs_entry *e)
{
    int rc = mtc_tbs_entry_tls_server(e, s, (mtc_slice){c->issuer, c->issuer_len}, q->nb,
                                      q->na, q->dns, q->spki, q->spki_len);
    if (rc == MTC_OK && q->subject) {
        e->subject = (mtc_slice){q->subject, q->subject_len};
        e->extensions = (mtc_slice){q->exts, q->exts_len};
    }
    if (rc == MTC_OK && c->info.ldp > 0) {
        static const char u[] = "http://ldp1.ca.example/";
        mtc_ldp d = {1, {{(const uint8_t *)u, sizeof u - 1}}};
        size_t n = 0;
        rc = mtc_ldp_ext_append(e->extensions, &d, (uint8_t *)c->ldp_exts,
                                sizeof c->ldp_exts, &n);
        if (rc == MTC_OK)
            e->extensions = (mtc_slice){c->ldp_exts, n};
    }
    return rc;
}

static int build_cert(wfx *f, wfx_req *q, int lr, uint8_t *out, size_t cap,
                      size_t *len, uint64_t *landmark)
{
    wfx_ca *c = &f->ca[q->ca];
    mtc_entry_scratch s;
    mtc_tbs_entry e;
    int rc = req_entry(c, q, &s, &e);
    if (rc)
        return rc;
    mtc_proof_storage st;
    mtc_proof p;
    rc = lr ? mtc_ilog_landmark_proof(c->log, c->lm, q->index, (mtc_slice){NULL, 0},
                                      &st, &p, landmark)
            : mtc_ilog_standalone_proof(c->log, q->index, (mtc_slice){NULL, 0}, &st, &p);
    if (rc)
        return rc;
    return mtc_cert_build(&e, q->spki, q->spki_len, mtc_serial(1, q->index), &p, out,
                          cap, len);
}

static void deliver(wfx *f, wfx_req *q, int kind, uint64_t landmark,
                    const uint8_t *der, size_t len)
{
    if (!q->cb)
        return;
    sim_cert_event ev;
    memset(&ev, 0, sizeof ev);
    ev.kind = kind;
    ev.ca = q->ca;
    ev.ticket = q->ticket;
    ev.log_number = 1;
    ev.index = q->index;
    ev.serial = mtc_serial(1, q->index);
    ev.landmark = landmark;
    ev.requested = q->requested;
    ev.ready = sim_now(f->sim);
    ev.not_before = q->nb;
    ev.not_after = q->na;
    ev.der = der;
    ev.der_len = len;
    q->cb(q->cb_ctx, &ev);
}

static void sa_event(sim_engine *sim, sim_event *e)
{
    (void)sim;
    wfx_req *q = e->arg;
    static uint8_t der[32768];
    size_t len;
    if (build_cert(q->f, q, 0, der, sizeof der, &len, NULL) == MTC_OK)
        deliver(q->f, q, SIM_CERT_STANDALONE, 0, der, len);
}

/* The batch's checkpoint: signed when staples are on (a staple carries
 * the checkpoint's signatures), else only its subtrees, as before. */
static int checkpoint(wfx *f, wfx_ca *c)
{
    if (!f->cfg.staple)
        return mtc_ilog_checkpoint(c->log, c->cos, 1 + f->cfg.witnesses);
    uint64_t ts = (uint64_t)(f->cfg.epoch + sim_now(f->sim) / SIM_SEC);
    return mtc_ilog_checkpoint_signed(c->log, c->cos, 1 + f->cfg.witnesses, ts);
}

static int f_issue(void *ctx, size_t ca, const sim_issue_request *req,
                   uint64_t *ticket)
{
    wfx *f = ctx;
    if (ca >= f->cfg.nca || !req || !req->spki_der || req->spki_len > 2700)
        return MTC_ERR_ARG;
    if (f->nreqs == f->reqs_cap) {
        size_t cap = f->reqs_cap ? 2 * f->reqs_cap : 256;
        wfx_req **n = realloc(f->reqs, cap * sizeof *n);
        if (!n)
            return MTC_ERR_NOMEM;
        f->reqs = n;
        f->reqs_cap = cap;
    }
    wfx_req *q = calloc(1, sizeof *q);
    if (!q)
        return MTC_ERR_NOMEM;
    q->f = f;
    q->ca = ca;
    q->ticket = f->nreqs;
    q->requested = sim_now(f->sim);
    sim_time life = req->lifetime ? req->lifetime : f->cfg.lifetime;
    q->nb = f->cfg.epoch + q->requested / SIM_SEC;
    q->na = q->nb + life / SIM_SEC;
    snprintf(q->dns, sizeof q->dns, "%s", req->dns_name);
    memcpy(q->spki, req->spki_der, req->spki_len);
    q->spki_len = req->spki_len;
    q->cb = req->cb;
    q->cb_ctx = req->cb_ctx;
    int rc = MTC_OK;
    if (req->subject_len && req->extensions_len) {
        q->subject = malloc(req->subject_len);
        q->exts = malloc(req->extensions_len);
        if (!q->subject || !q->exts)
            rc = MTC_ERR_NOMEM;
        else {
            memcpy(q->subject, req->subject_der, req->subject_len);
            memcpy(q->exts, req->extensions_der, req->extensions_len);
            q->subject_len = req->subject_len;
            q->exts_len = req->extensions_len;
        }
    }
    wfx_ca *c = &f->ca[ca];
    mtc_entry_scratch s;
    mtc_tbs_entry e;
    if (rc == MTC_OK)
        rc = req_entry(c, q, &s, &e);
    if (rc == MTC_OK)
        rc = mtc_ilog_append(c->log, (mtc_slice){NULL, 0}, &e, &q->index);
    if (rc == MTC_OK)
        rc = checkpoint(f, c);
    if (rc) {
        free(q->subject);
        free(q->exts);
        free(q);
        return rc;
    }
    f->reqs[f->nreqs++] = q;
    f->issued++;
    if (ticket)
        *ticket = q->ticket;
    sim_event_init(&q->ev, sa_event, q);
    return sim_schedule(f->sim, &q->ev, q->requested + f->cfg.sa_delay);
}

/* A staple of c's log at its last (signed) checkpoint. */
static int make_staple(wfx *f, wfx_ca *c)
{
    const mtc_landmarks *lm = c->lm;
    mtc_update *u;
    mtc_staple s;
    mtc_staple_cosig cs[1 + WFX_MAX_W];
    int rc = mtc_update_from_ilogs(&c->info.ca_id, &c->log, &lm, 1, &u);
    if (rc)
        return rc;
    size_t len = 0;
    uint8_t *b = NULL;
    rc = mtc_staple_from_update(u, 0, &s, cs);
    if (rc == MTC_OK && mtc_staple_encode(&s, NULL, 0, &len) == MTC_ERR_LIMIT &&
        (b = malloc(len)))
        rc = mtc_staple_encode(&s, b, len, &len);
    else if (rc == MTC_OK)
        rc = MTC_ERR_NOMEM;
    mtc_update_free(u);
    if (rc) {
        free(b);
        return rc;
    }
    free((uint8_t *)c->staple.bytes);
    c->staple = (sim_ca_staple){b, len, c->staple.seq + 1, 1, mtc_landmarks_last(c->lm),
                                c->max_active};
    (void)f;
    return MTC_OK;
}

/* The proof set of c's newest landmark (its subtrees only) at the last
 * signed checkpoint. */
static int make_proof_set(wfx_ca *c)
{
    uint64_t last = mtc_landmarks_last(c->lm);
    if (last == 0 || last > 64)
        return MTC_ERR_RANGE;
    const mtc_landmarks *lm = c->lm;
    mtc_update *u;
    mtc_staple s, one;
    mtc_staple_cosig cs[1 + WFX_MAX_W];
    mtc_update_subtree subs[2];
    int rc = mtc_update_from_ilogs(&c->info.ca_id, &c->log, &lm, 1, &u);
    if (rc)
        return rc;
    size_t len = 0;
    uint8_t *b = NULL;
    rc = mtc_staple_from_update(u, 0, &s, cs);
    if (rc == MTC_OK)
        rc = mtc_staple_landmark(&s, c->lm, last, &one, subs);
    if (rc == MTC_OK && mtc_staple_encode(&one, NULL, 0, &len) == MTC_ERR_LIMIT &&
        (b = malloc(len)))
        rc = mtc_staple_encode(&one, b, len, &len);
    else if (rc == MTC_OK)
        rc = MTC_ERR_NOMEM;
    mtc_update_free(u);
    if (rc) {
        free(b);
        return rc;
    }
    c->psets[last - 1] = (sim_ca_proof_set){b, len, 1, last};
    return MTC_OK;
}

static const sim_ca_proof_set *f_proof_set(void *ctx, size_t ca, uint64_t log,
                                           uint64_t landmark)
{
    wfx *f = ctx;
    if (ca >= f->cfg.nca || log != 1 || landmark == 0 || landmark > 64 ||
        !f->ca[ca].psets[landmark - 1].bytes)
        return NULL;
    return &f->ca[ca].psets[landmark - 1];
}

static const sim_ca_staple *f_staple(void *ctx, size_t ca)
{
    wfx *f = ctx;
    return ca < f->cfg.nca && f->ca[ca].staple.bytes ? &f->ca[ca].staple : NULL;
}

static void pub_event(sim_engine *sim, sim_event *e)
{
    wfx *f = e->arg;
    if (publish(f, sim_now(sim)) == MTC_OK)
        f->published = f->npubs - 1;
}

static void lm_event(sim_engine *sim, sim_event *e)
{
    wfx *f = e->arg;
    sim_time now = sim_now(sim);
    f->interval++;
    int any = 0;
    for (size_t ca = 0; ca < f->cfg.nca; ca++) {
        wfx_ca *c = &f->ca[ca];
        /* Background issuance: synthetic leaves, then a checkpoint. */
        for (uint64_t i = 0; i < f->cfg.background; i++) {
            mtc_hash h;
            uint64_t v = c->bg++, idx;
            uint8_t b[9] = {'b'};
            memcpy(b + 1, &v, 8);
            mtc_sha256(b, sizeof b, &h);
            mtc_ilog_append_hash(c->log, &h, &idx);
        }
        if (f->cfg.background)
            checkpoint(f, c);
        int alloc = 0;
        mtc_landmarks_allocate(c->lm, f->interval, mtc_ilog_checkpoint_size(c->log), &alloc);
        any |= alloc;
        if (!alloc)
            continue;
        if (f->cfg.staple)
            make_staple(f, c);
        if (f->cfg.staple && f->cfg.ldp)
            make_proof_set(c);
        for (size_t i = 0; i < f->nreqs; i++) {
            wfx_req *q = f->reqs[i];
            if (q->ca != ca || q->lr_done)
                continue;
            static uint8_t der[32768];
            size_t len;
            uint64_t lmn = 0;
            int rc = build_cert(f, q, 1, der, sizeof der, &len, &lmn);
            if (rc == MTC_ERR_RANGE)
                continue; /* not covered yet */
            q->lr_done = 1;
            if (rc == MTC_OK)
                deliver(f, q, SIM_CERT_LANDMARK, lmn, der, len);
            else
                deliver(f, q, SIM_CERT_LANDMARK_NEVER, 0, NULL, 0);
        }
    }
    if (any) {
        if (sim_event_pending(&f->pub_ev))
            pub_event(sim, &f->pub_ev); /* an older one first */
        sim_schedule(sim, &f->pub_ev, now + f->cfg.pub_delay);
    }
    sim_schedule(sim, &f->lm_ev, now + f->cfg.landmark_interval);
}

/* ---- the table ------------------------------------------------------------------- */

static size_t f_ca_count(void *ctx) { return ((wfx *)ctx)->cfg.nca; }
static const sim_ca_info *f_ca(void *ctx, size_t ca)
{
    wfx *f = ctx;
    return ca < f->cfg.nca ? &f->ca[ca].info : NULL;
}
static const mtc_landmarks *f_landmarks(void *ctx, size_t ca, uint64_t log)
{
    wfx *f = ctx;
    return ca < f->cfg.nca && log == 1 ? f->ca[ca].lm : NULL;
}
static int f_revoke(void *ctx, size_t ca, uint64_t log, uint64_t first, uint64_t last)
{
    wfx *f = ctx;
    if (ca >= f->cfg.nca || log != 1 || first > last || f->nrevs == 256)
        return MTC_ERR_ARG;
    f->revs[f->nrevs++] = (wfx_rev){ca, mtc_serial(1, first), mtc_serial(1, last),
                                    sim_now(f->sim)};
    /* Relying parties learn it with the next publication. */
    if (!sim_event_pending(&f->pub_ev))
        sim_schedule(f->sim, &f->pub_ev, sim_now(f->sim) + f->cfg.pub_delay);
    return MTC_OK;
}
static int f_is_revoked(void *ctx, size_t ca, uint64_t serial, sim_time *since)
{
    wfx *f = ctx;
    for (size_t i = 0; i < f->nrevs; i++)
        if (f->revs[i].ca == ca && serial >= f->revs[i].first && serial <= f->revs[i].last) {
            if (since)
                *since = f->revs[i].at;
            return 1;
        }
    return 0;
}
static size_t f_revocations(void *ctx, size_t ca)
{
    wfx *f = ctx;
    size_t n = 0;
    for (size_t i = 0; i < f->nrevs; i++)
        n += f->revs[i].ca == ca;
    return n;
}
/* The i-th revocation of CA ca (a view's nrevocations count them in
 * this order). */
static sim_time f_revocation_at(void *ctx, size_t ca, size_t i)
{
    wfx *f = ctx;
    for (size_t j = 0; j < f->nrevs; j++)
        if (f->revs[j].ca == ca && i-- == 0)
            return f->revs[j].at;
    return 0;
}
static size_t f_us_count(void *ctx) { (void)ctx; return 1; }
static uint32_t f_pub_latest(void *ctx, size_t us)
{
    (void)us;
    return ((wfx *)ctx)->published;
}
static int f_pub_available(void *ctx, size_t us) { (void)ctx; (void)us; return 1; }
static const sim_ca_view *f_pub_view(void *ctx, size_t us, uint32_t pub, size_t ca)
{
    wfx *f = ctx;
    if (us != 0 || pub >= f->npubs || ca >= f->cfg.nca)
        return NULL;
    return f->views[(size_t)pub * f->cfg.nca + ca];
}
static sim_time f_pub_time(void *ctx, size_t us, uint32_t pub)
{
    wfx *f = ctx;
    return us == 0 && pub < f->npubs ? f->pub_time[pub] : 0;
}
static size_t f_update_bytes(void *ctx, size_t us, uint32_t from, uint32_t to)
{
    wfx *f = ctx;
    if (us != 0 || from >= to || to >= f->npubs)
        return 0;
    /* Per changed CA: its landmark file (real text format) and the hashes
     * of the landmark subtrees it did not have; 16 bytes per new
     * revoked range. A fixture's encoding, not the update service's. */
    size_t bytes = 0;
    for (size_t ca = 0; ca < f->cfg.nca; ca++) {
        uint64_t a = f->pub_last[(size_t)from * f->cfg.nca + ca];
        uint64_t b = f->pub_last[(size_t)to * f->cfg.nca + ca];
        if (a == b)
            continue;
        wfx_ca *c = &f->ca[ca];
        uint64_t first = mtc_landmarks_first_kept(c->lm), last = mtc_landmarks_last(c->lm);
        if (!c->fmt_valid || c->fmt_first != first || c->fmt_last != last) {
            char txt[16384];
            size_t tl = 0;
            mtc_landmarks_format(c->lm, txt, sizeof txt, &tl);
            c->fmt_first = first;
            c->fmt_last = last;
            c->fmt_len = tl;
            c->fmt_valid = 1;
        }
        bytes += c->fmt_len;
        uint64_t lo = a + 1 > (b >= f->ca[ca].max_active ? b - f->ca[ca].max_active + 1 : 1)
                          ? a + 1 : b - f->ca[ca].max_active + 1;
        for (uint64_t l = lo; l <= b; l++) {
            mtc_subtree s[2];
            if (mtc_landmarks_subtrees(f->ca[ca].lm, l, &s[0], &s[1]) == MTC_OK)
                bytes += 32 * (1 + (s[1].end > s[1].start));
        }
    }
    bytes += 16 * (f->pub_nrev[to] - f->pub_nrev[from]);
    return bytes;
}

int wfx_create(wfx **out, const wfx_config *cfg, sim_engine *sim)
{
    if (cfg->nca == 0 || cfg->nca > WFX_MAX_CA || cfg->witnesses > WFX_MAX_W)
        return MTC_ERR_ARG;
    wfx *f = calloc(1, sizeof *f);
    if (!f)
        return MTC_ERR_NOMEM;
    f->cfg = *cfg;
    f->sim = sim;
    int rc = MTC_OK;
    for (size_t ca = 0; ca < cfg->nca && rc == MTC_OK; ca++) {
        wfx_ca *c = &f->ca[ca];
        char idt[64];
        snprintf(idt, sizeof idt, "32473.%zu", ca + 1);
        mtc_taid_from_text(idt, strlen(idt), &c->info.ca_id);
        snprintf(c->name, sizeof c->name, "ca%zu", ca);
        c->info.name = c->name;
        c->info.ldp = cfg->ldp;
        c->info.ldp_fail_prob = cfg->ldp_fail_prob;
        c->info.alg = cfg->alg;
        c->info.max_lifetime = cfg->lifetime;
        c->info.ncosigners = cfg->witnesses;
        c->info.quorum = (unsigned)cfg->witnesses;
        mtc_der_writer w;
        mtc_der_writer_init(&w, c->issuer, sizeof c->issuer);
        mtc_taid_name_der(&w, &c->info.ca_id);
        c->issuer_len = w.len;
        for (size_t k = 0; k <= cfg->witnesses && rc == MTC_OK; k++) {
            uint8_t seed[32];
            seed_of(seed, (unsigned)ca, (unsigned)k);
            rc = mtc_sig_key_from_seed(cfg->alg, seed, &c->keys[k]);
            c->cos[k].key = c->keys[k];
            if (k == 0) {
                c->cos[k].id = c->info.ca_id;
            } else {
                snprintf(idt, sizeof idt, "32473.%zu.9.%zu", ca + 1, k);
                mtc_taid_from_text(idt, strlen(idt), &c->cos[k].id);
            }
        }
        if (rc)
            break;
        uint8_t pk[MTC_SIG_PK_MAX];
        size_t pl;
        mtc_sig_key_public(c->keys[0], pk, &pl);
        mtc_ca_params p = {c->info.ca_id, cfg->alg, pk, pl, UINT64_C(1) << 48,
                           (UINT64_C(2) << 48) - 1, cfg->epoch, cfg->epoch + 10 * 365 * 86400};
        rc = mtc_ca_cert_build(&p, c->ca_cert, sizeof c->ca_cert, &c->ca_cert_len);
        c->info.ca_cert = c->ca_cert;
        c->info.ca_cert_len = c->ca_cert_len;
        c->log = mtc_ilog_new(&c->info.ca_id, 1, NULL);
        c->max_active = cfg->landmark_interval
                            ? mtc_max_active_landmarks((uint64_t)cfg->lifetime,
                                                       (uint64_t)cfg->landmark_interval)
                            : 1;
        c->lm = mtc_landmarks_new(c->max_active);
        if (!c->log || !c->lm)
            rc = MTC_ERR_NOMEM;
    }
    if (rc == MTC_OK)
        rc = publish(f, 0); /* publication 0: the shipped state */
    if (rc) {
        wfx_destroy(f);
        return rc;
    }
    sim_event_init(&f->lm_ev, lm_event, f);
    sim_event_init(&f->pub_ev, pub_event, f);
    if (cfg->landmark_interval)
        sim_schedule(sim, &f->lm_ev, sim_now(sim) + cfg->landmark_interval);
    f->pki = (web_pki){f,
                       f_ca_count,
                       f_ca,
                       f_landmarks,
                       f_issue,
                       f_revoke,
                       f_is_revoked,
                       f_us_count,
                       f_pub_latest,
                       f_pub_available,
                       f_pub_view,
                       f_update_bytes,
                       NULL,
                       f_pub_time,
                       cfg->staple ? f_staple : NULL,
                       NULL,
                       NULL, /* cosigners priced with the CA's algorithm */
                       cfg->ldp ? f_proof_set : NULL,
                       NULL, /* update parts: not said */
                       f_revocations,
                       f_revocation_at};
    *out = f;
    return MTC_OK;
}

void wfx_destroy(wfx *f)
{
    if (!f)
        return;
    if (f->views)
        for (uint32_t p = 0; p < f->npubs; p++)
            for (size_t ca = 0; ca < f->cfg.nca; ca++) {
                size_t slot = (size_t)p * f->cfg.nca + ca;
                if (p > 0 && f->views[slot] == f->views[slot - f->cfg.nca])
                    continue;
                mtc_rp_ca_free((mtc_rp_ca *)f->views[slot]->rp);
                free(f->views[slot]);
            }
    free(f->views);
    free(f->pub_last);
    free(f->pub_time);
    free(f->pub_nrev);
    for (size_t i = 0; i < f->nreqs; i++) {
        free(f->reqs[i]->subject);
        free(f->reqs[i]->exts);
        free(f->reqs[i]);
    }
    free(f->reqs);
    for (size_t ca = 0; ca < WFX_MAX_CA; ca++) {
        for (size_t k = 0; k <= WFX_MAX_W; k++)
            mtc_sig_key_free(f->ca[ca].keys[k]);
        mtc_ilog_free(f->ca[ca].log);
        mtc_landmarks_free(f->ca[ca].lm);
        free((uint8_t *)f->ca[ca].staple.bytes);
        for (size_t i = 0; i < 64; i++)
            free((uint8_t *)f->ca[ca].psets[i].bytes);
    }
    free(f);
}

const web_pki *wfx_pki(wfx *f) { return &f->pki; }
uint64_t wfx_landmarks(const wfx *f, size_t ca) { return mtc_landmarks_last(f->ca[ca].lm); }
uint32_t wfx_pubs(const wfx *f) { return f->npubs; }
uint64_t wfx_issued(const wfx *f) { return f->issued; }

int wfx_rp_fresh(wfx *f, uint32_t pub, size_t ca, mtc_rp_ca **out)
{
    if (pub >= f->npubs || ca >= f->cfg.nca)
        return MTC_ERR_ARG;
    return build_rp(f, ca, f->pub_last[(size_t)pub * f->cfg.nca + ca],
                    f->pub_nrev[pub], out);
}
