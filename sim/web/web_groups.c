/*
 * web_groups.c - the web side of timestamped multi-CA landmark groups
 * (an update service's group_cas; docs/model.md): which group version a
 * client advertises, the ClientHello trust anchor IDs that follow, and
 * the slow re-check of the server's choice from real bytes.
 *
 * A client holding publication p advertises the newest version k made
 * before p was published (so its update service could have shipped
 * the definition) for which p's views hold, for every member range, the
 * range's last landmark of that log: its trusted subtrees are up to date
 * for all contained CAs as of the version's timestamp (draft "Timestamped
 * Landmark Groups"). A member CA its service could not reach holds the
 * version back for every member: the draft's first mitigation (send the
 * older timestamp). The fast path reuses the single-log machinery: a
 * member CA's advertised landmark becomes the version's range, which is
 * exactly the set the server may pick from (mtc_lmgroup_covers).
 */
#include <stdlib.h>
#include <string.h>

#include "mtc/error.h"
#include "mtc/lmgroup.h"
#include "web_internal.h"

static const sim_lmgroup *group_of(const web *wb, size_t us)
{
    return wb->pki->us_group ? wb->pki->us_group(wb->pki->ctx, us) : NULL;
}

int web__groups_on(const web *wb, size_t us)
{
    return group_of(wb, us) != NULL;
}

/* The view's last landmark of a log (0: none). */
static uint64_t held(const sim_ca_view *v, uint64_t log)
{
    for (size_t k = 0; v && k < v->nlogs && k < SIM_CA_MAX_LOGS; k++)
        if (v->log[k].log_number == log)
            return v->log[k].last_landmark;
    return 0;
}

/* Index of the version client publication pub advertises, or -1. */
static long pick_version(web *wb, size_t us, uint32_t pub, const sim_lmgroup *g)
{
    sim_time t = wb->pki->pub_time(wb->pki->ctx, us, pub);
    long i = (long)g->nversions - 1;
    /* strictly before: a version made at the very time of the
     * publication may run after a handshake at that time, and the answer
     * (cached per publication) must not depend on event order */
    while (i >= 0 && g->v[i].time >= t)
        i--;
    for (; i >= 0; i--) {
        const sim_lmgroup_version *v = &g->v[i];
        int ok = 1;
        for (size_t j = 0; j < v->n && ok; j++) {
            const sim_lmgroup_entry *e = &g->e[v->first + j];
            const sim_ca_view *cv = wb->pki->pub_view(wb->pki->ctx, us, pub, e->ca);
            ok = held(cv, e->log_number) >= e->last;
        }
        if (ok)
            return i;
    }
    return -1;
}

size_t web__groups_ids(web *wb, size_t us, uint32_t pub, web_pubinfo *pi,
                       mtc_taid *ids)
{
    const sim_lmgroup *g = group_of(wb, us);
    long vi = pick_version(wb, us, pub, g);
    size_t nids = 0;
    /* member CAs: the version's ranges replace what the client holds */
    for (size_t ca = 0; ca < wb->nca; ca++) {
        if (!g->member[ca])
            continue;
        for (size_t k = 0; k < SIM_CA_MAX_LOGS; k++) {
            size_t slot = ca * SIM_CA_MAX_LOGS + k;
            pi->adv_log[slot] = 0;
            pi->adv_lm[slot] = 0;
            pi->adv_max_active[slot] = 0;
        }
    }
    if (vi >= 0) {
        const sim_lmgroup_version *v = &g->v[vi];
        for (size_t j = 0; j < v->n; j++) {
            const sim_lmgroup_entry *e = &g->e[v->first + j];
            size_t base = (size_t)e->ca * SIM_CA_MAX_LOGS;
            for (size_t k = 0; k < SIM_CA_MAX_LOGS; k++)
                if (pi->adv_log[base + k] == 0) {
                    pi->adv_log[base + k] = e->log_number;
                    pi->adv_lm[base + k] = e->last;
                    pi->adv_max_active[base + k] = e->last - e->first + 1;
                    break;
                }
        }
        pi->group_version = v->number;
    }
    /* in CA order, as the single-log list: outside CAs as before */
    int group_listed = 0;
    for (size_t ca = 0; ca < wb->nca; ca++) {
        const sim_ca_info *ci = wb->pki->ca(wb->pki->ctx, ca);
        if (g->member[ca]) {
            if (vi < 0)
                ids[nids++] = ci->ca_id;
            else if (!group_listed &&
                     mtc_lmgroup_version_id(&g->id, g->v[vi].number, &ids[nids]) == MTC_OK) {
                nids++;
                group_listed = 1;
            }
            continue;
        }
        int any = 0;
        for (size_t k = 0; k < SIM_CA_MAX_LOGS; k++) {
            size_t slot = ca * SIM_CA_MAX_LOGS + k;
            if (pi->adv_lm[slot] > 0 &&
                mtc_taid_landmark_group_id(&ci->ca_id, pi->adv_log[slot],
                                           pi->adv_lm[slot], &ids[nids]) == MTC_OK) {
                nids++;
                any = 1;
            }
        }
        if (!any)
            ids[nids++] = ci->ca_id;
    }
    return nids;
}

/* ---- the slow way ---- */

/* Does advertised ID `id` cover certificate c (server's view)? The group
 * version is decoded from its real encoding and matched by mtc/lmgroup.h;
 * single-log groups by the draft's rule. */
static int id_covers(web *wb, size_t us, const sim_lmgroup *g, const mtc_taid *id,
                     const web_cert *c, mtc_lmgroup_member *mem, size_t cap)
{
    const sim_ca_info *ci = wb->pki->ca(wb->pki->ctx, c->ca);
    uint64_t ver;
    if (mtc_lmgroup_parse_version_id(&g->id, id, &ver)) {
        for (size_t i = 0; i < g->nversions; i++) {
            if (g->v[i].number != ver)
                continue;
            mtc_lmgroup lg;
            if (mtc_lmgroup_decode(g->v[i].enc, g->v[i].enc_len, &lg, mem, cap) != MTC_OK)
                return 0;
            return mtc_lmgroup_match(&lg, id, &ci->ca_id, c->log_number,
                                     c->kind == WEB_LR ? c->landmark : 0);
        }
        return 0;
    }
    if (c->kind == WEB_SA && mtc_taid_equal(id, &ci->ca_id))
        return 1;
    mtc_taid prefix;
    uint64_t arcs[2] = {2, c->log_number}, lm;
    if (mtc_taid_append(&ci->ca_id, arcs, 2, &prefix) != MTC_OK ||
        !web__taid_suffix_arc(id, &prefix, &lm))
        return 0;
    if (c->kind == WEB_SA)
        return 1;
    (void)us;
    const mtc_landmarks *seq = wb->pki->ca_landmarks(wb->pki->ctx, c->ca, c->log_number);
    uint64_t ma = seq ? mtc_landmarks_max_active(seq) : 0;
    return ma > 0 && mtc_landmark_group_contains(lm, ma, c->landmark);
}

void web__groups_slow_check(web *wb, size_t us, uint32_t apub, const web_site *s,
                            uint32_t fast_id, int fast_matched,
                            const web_pubinfo *adv)
{
    const sim_lmgroup *g = group_of(wb, us);
    size_t cap = wb->nca * SIM_CA_MAX_LOGS + 1;
    mtc_taid *ids = calloc(wb->nca * (SIM_CA_MAX_LOGS + 1) + 1, sizeof *ids);
    mtc_lmgroup_member *mem = calloc(cap, sizeof *mem);
    web_pubinfo tmp;
    memset(&tmp, 0, sizeof tmp);
    size_t slots = wb->nca * SIM_CA_MAX_LOGS;
    tmp.adv_log = calloc(slots + 1, sizeof(uint64_t));
    tmp.adv_lm = calloc(slots + 1, sizeof(uint64_t));
    tmp.adv_max_active = calloc(slots + 1, sizeof(uint64_t));
    /* its own buffer: the list parsed from it is read below */
    uint8_t *buf = malloc(WEB_WIRE_SCRATCH);
    if (!ids || !mem || !tmp.adv_log || !tmp.adv_lm || !tmp.adv_max_active || !buf)
        goto done;
    /* the client's list again, from the views */
    for (size_t ca = 0; ca < wb->nca; ca++) {
        const sim_ca_view *v = wb->pki->pub_view(wb->pki->ctx, us, apub, ca);
        for (size_t k = 0; v && k < v->nlogs && k < SIM_CA_MAX_LOGS; k++) {
            tmp.adv_log[ca * SIM_CA_MAX_LOGS + k] = v->log[k].log_number;
            tmp.adv_lm[ca * SIM_CA_MAX_LOGS + k] = v->log[k].last_landmark;
        }
    }
    size_t nids = web__groups_ids(wb, us, apub, &tmp, ids), len = 0;
    int bad = tls_ext_trust_anchors_encode(wb->env.tls.codepoint, ids, nids, buf,
                                           WEB_WIRE_SCRATCH, &len) != MTC_OK ||
              len < 4 || len != adv->ch_ext_len ||
              tmp.group_version != adv->group_version;
    tls_ta_list l;
    bad = bad || tls_ta_list_parse(buf + 4, len - 4, 0, &l) != MTC_OK;
    /* the server: landmark-relative first, then standalone; newest first */
    uint32_t pick = WEB_NO_CERT;
    for (int pass = 0; pass < 2 && pick == WEB_NO_CERT && !bad; pass++)
        for (size_t i = 0; i < s->ncert && pick == WEB_NO_CERT; i++) {
            const web_cert *c = &wb->certs[s->cert[i]];
            if ((pass == 0) != (c->kind == WEB_LR))
                continue;
            size_t pos = 0;
            mtc_taid id;
            while (pick == WEB_NO_CERT && tls_ta_list_next(&l, &pos, &id))
                if (id_covers(wb, us, g, &id, c, mem, cap))
                    pick = c->id;
        }
    bad |= pick != fast_id || (pick != WEB_NO_CERT) != fast_matched;
    if (bad)
        wb->st.invariant_violations++;
done:
    free(buf);
    free(ids);
    free(mem);
    free(tmp.adv_log);
    free(tmp.adv_lm);
    free(tmp.adv_max_active);
}
