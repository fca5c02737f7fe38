/*
 * test_pki_bulk.c - update_service proofs = "bulk" on a small world whose
 * answer is known in closed form: two runs of the same world (same seed),
 * one shipping a subtree consistency proof per subtree, one a bulk proof
 * per reference checkpoint. For every update measured,
 *
 *   bulk bytes = per-subtree bytes
 *                - sum over shipped Proofs (20 + 32 x hashes)
 *                + sum over shipped references (6 + 12 + 48 x s + 32 x t)
 *
 * where s is the number of the reference's subtrees still trusted at the
 * update's target and t the tile count of their tiling (mtc_bulk_tiling)
 * against the reference's size; 6 is the Bulk framing (ref, length).
 * Counted from the per-subtree run's own versions, independently of
 * pki_update_bulk.c. Also: bulk < per_subtree, the kept proofs verify and
 * a changed hash fails, and without include_proofs the option changes
 * nothing.
 */
#include <stdio.h>
#include <string.h>

#include "../sim/pki/pki_internal.h"
#include "lib/world_fixture.h"
#include "mtc/bulk.h"
#include "mtc/error.h"
#include "test.h"

static void world(wfx *f, int include_proofs, const char *proofs)
{
    void *c = wfx_cfg("cosigner", "w0");
    wfx_str("cosigner", c, "algorithm", "ed25519");
    wfx_exp("cosigner", c, "latency", 1.0);
    wfx_add(f, "cosigner", c);
    void *ca = wfx_cfg("ca", "a");
    wfx_str("ca", ca, "algorithm", "ed25519");
    wfx_num("ca", ca, "rate", 5);
    wfx_num("ca", ca, "checkpoint_interval", 30);
    wfx_num("ca", ca, "landmark_interval", 600);
    wfx_num("ca", ca, "lifetime", 3 * 3600);
    wfx_num("ca", ca, "prune_interval", 900);
    wfx_item("ca", ca, "cosigners", "w0");
    wfx_num("ca", ca, "quorum", 1);
    wfx_add(f, "ca", ca);
    void *us = wfx_cfg("update_service", "vendor");
    /* fetches every 30 min: 3 landmarks, up to 6 subtrees, per reference */
    wfx_num("update_service", us, "fetch_interval", 1800);
    wfx_exp("update_service", us, "publication_delay", 120);
    wfx_num("update_service", us, "include_proofs", include_proofs);
    wfx_str("update_service", us, "proofs", proofs);
    wfx_add(f, "update_service", us);
}

static int run(wfx *f, int include_proofs, const char *proofs)
{
    int rc = wfx_init(f, 47, 0, 8 * 3600, 0, 600, 0, 1);
    if (rc != MTC_OK)
        return rc;
    world(f, include_proofs, proofs);
    return wfx_run(f);
}

static int trusts(const pki_version *b, uint64_t log, uint64_t start,
                  uint64_t end)
{
    for (size_t i = 0; i < b->nsub; i++)
        if (b->sub[i].log == log && b->sub[i].start == start &&
            b->sub[i].end == end)
            return 1;
    return 0;
}

/* The closed form above, from the per-subtree run's versions: the bulk
 * update's bytes given the per-subtree update's bytes `ps_bytes`. */
static size_t expected_bulk(const pki_update *u, uint32_t from, uint32_t to,
                            size_t ps_bytes)
{
    uint32_t va = u->pub[from].version[0], vb = u->pub[to].version[0];
    if (va == vb)
        return ps_bytes;
    const pki_version *b = u->ver[0][vb];
    size_t bytes = ps_bytes;
    for (uint32_t k = va + 1; k <= vb; k++) {
        const pki_version *v = u->ver[0][k];
        for (size_t r = 0; r < v->nrefs; r++) {
            mtc_subtree subs[256];
            size_t s = 0;
            for (size_t i = 0; i < v->nproofs; i++) {
                const pki_sproof *p = &v->proofs[i];
                if (p->ref != r || !trusts(b, p->log, p->start, p->end))
                    continue;
                bytes -= 20 + 32 * p->nhash;
                int dup = 0;
                for (size_t j = 0; j < s; j++)
                    dup |= subs[j].start == p->start && subs[j].end == p->end;
                if (!dup && s < 256)
                    subs[s++] = (mtc_subtree){p->start, p->end};
            }
            if (s == 0)
                continue;
            size_t tiles = 0;
            int rc = mtc_bulk_tiling(subs, s, v->refs[r].size, NULL, 0, &tiles);
            if (rc != MTC_OK && rc != MTC_ERR_LIMIT)
                return 0;
            bytes += 6 + 12 + 48 * s + 32 * tiles;
        }
    }
    return bytes;
}

TEST(bulk_update_bytes_in_closed_form)
{
    wfx g, h;
    ASSERT_OK(run(&g, 1, "per_subtree"));
    ASSERT_OK(run(&h, 1, "bulk"));
    uint32_t p = sim_pki_pub_latest(g.w, 0);
    ASSERT_TRUE(p > 8);
    ASSERT_EQ(sim_pki_pub_latest(h.w, 0), p);
    const pki_update *ug = &pki_state_of(g.w)->us[0];
    /* the same world: the same subtrees at every publication */
    for (uint32_t k = 0; k <= p; k++)
        ASSERT_EQ(sim_pki_pub_view(h.w, 0, k, 0)->nsubtrees,
                  sim_pki_pub_view(g.w, 0, k, 0)->nsubtrees);
    /* every one-step delta, every delta from the start (which drops
     * expired subtrees: proofs of subsets), and a few in between */
    size_t checked = 0, saved = 0;
    for (uint32_t to = 1; to <= p; to++) {
        uint32_t froms[3] = {to - 1, 0, to / 2};
        for (int i = 0; i < 3; i++) {
            uint32_t from = froms[i];
            if (i > 0 && from == froms[0])
                continue;
            size_t a = sim_pki_update_bytes(g.w, 0, from, to);
            size_t b = sim_pki_update_bytes(h.w, 0, from, to);
            ASSERT_TRUE(a > 0 && b > 0);
            ASSERT_EQ(b, expected_bulk(ug, from, to, a));
            ASSERT_TRUE(b <= a);
            if (b < a)
                saved++;
            checked++;
        }
    }
    size_t snap_g = sim_pki_update_bytes(g.w, 0, 0, p);
    size_t snap_h = sim_pki_update_bytes(h.w, 0, 0, p);
    fprintf(stderr, "%zu updates checked, %zu smaller; snapshot %zu B per "
            "subtree, %zu B bulk\n", checked, saved, snap_g, snap_h);
    ASSERT_TRUE(snap_h < snap_g);
    ASSERT_TRUE(saved > p / 2);
    wfx_free(&g);
    wfx_free(&h);
}

TEST(kept_bulk_proofs_verify_and_a_changed_hash_fails)
{
    wfx h;
    ASSERT_OK(run(&h, 1, "bulk"));
    const pki_update *u = &pki_state_of(h.w)->us[0];
    size_t n = 0;
    for (size_t k = 1; k < u->nver[0]; k++) {
        const pki_version *v = u->ver[0][k];
        for (size_t r = 0; r < v->nrefs; r++) {
            const pki_refckpt *ref = &v->refs[r];
            for (size_t j = 0; j < ref->nbulk; j++) {
                mtc_bulk_proof *bp = ref->bulk[j];
                ASSERT_OK(mtc_bulk_verify(bp, ref->size, &ref->root));
                ASSERT_EQ(bp->tree_size, ref->size);
                bp->tiles[0].b[3] ^= 1;
                ASSERT_EQ(mtc_bulk_verify(bp, ref->size, &ref->root),
                          MTC_ERR_PROOF);
                bp->tiles[0].b[3] ^= 1;
                bp->subtrees[0].hash.b[0] ^= 0x80;
                ASSERT_EQ(mtc_bulk_verify(bp, ref->size, &ref->root),
                          MTC_ERR_PROOF);
                bp->subtrees[0].hash.b[0] ^= 0x80;
                n++;
            }
        }
    }
    ASSERT_TRUE(n > 8);
    wfx_free(&h);
}

TEST(without_include_proofs_the_option_changes_nothing)
{
    wfx f, h;
    ASSERT_OK(run(&f, 0, "per_subtree"));
    ASSERT_OK(run(&h, 0, "bulk"));
    uint32_t p = sim_pki_pub_latest(f.w, 0);
    ASSERT_EQ(sim_pki_pub_latest(h.w, 0), p);
    for (uint32_t to = 1; to <= p; to++) {
        ASSERT_EQ(sim_pki_update_bytes(h.w, 0, to - 1, to),
                  sim_pki_update_bytes(f.w, 0, to - 1, to));
        ASSERT_EQ(sim_pki_update_bytes(h.w, 0, 0, to),
                  sim_pki_update_bytes(f.w, 0, 0, to));
    }
    wfx_free(&f);
    wfx_free(&h);
}

static const test_case cases[] = {
    {"bulk_update_bytes_in_closed_form", bulk_update_bytes_in_closed_form},
    {"kept_bulk_proofs_verify_and_a_changed_hash_fails",
     kept_bulk_proofs_verify_and_a_changed_hash_fails},
    {"without_include_proofs_the_option_changes_nothing",
     without_include_proofs_the_option_changes_nothing},
};

TEST_MAIN(cases)
