/*
 * lcore_ca.c - mtcsim.core's small CA (ca:issue, checkpoint, landmark,
 * certificate), the relying party that verifies its certificates, and
 * core.baseline's and core.chain's real X.509 chains: all on the real
 * mtc-core, so sizes and verdicts are those of the real encodings.
 *
 * The CA's and the relying party's C memory is charged to --max-memory
 * as it grows and their signatures to the instruction budget; numbers a
 * scenario passes are range-checked before any cast.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>

#include "lcore.h"
#include "mtc/baseline.h"
#include "mtc/cert.h"
#include "mtc/chain.h"
#include "mtc/chain_cache.h"
#include "mtc/error.h"
#include "mtc/hash.h"
#include "mtc/ilog.h"
#include "mtc/landmark.h"
#include "mtc/rp.h"
#include "mtc/tree.h"
#include "sim/tls.h"

#define CA_MT "mtcsim.core.ca"
#define RP_MT "mtcsim.core.rp"
#define CORE_MAX_WITNESSES 16
/* Bounds of core.ca's numbers: the world schema's for a CA. */
#define CORE_MAX_LIFETIME 400000000
#define CORE_MAX_LANDMARKS 10000000

/* core.baseline(alg [, dns_name [, lifetime]]): sizes of a real X.509
 * chain with two SCTs. */
static int c_baseline(lua_State *L)
{
    mtc_sig_alg alg = lcore__check_alg(L, 1, "ecdsa-p256");
    const char *dns = luaL_optstring(L, 2, "example.com");
    lua_Integer life = luaL_optinteger(L, 3, 90 * 86400);
    luaL_argcheck(L, life > 0 && life <= MTC_BASELINE_TIME_MAX - CORE_EPOCH, 3,
                  "lifetime must be > 0 s and end before the year 10000");
    lhost_count(L, COST_BASELINE);
    mtc_baseline *b = malloc(sizeof *b);
    if (!b)
        return luaL_error(L, "out of memory");
    int rc = mtc_baseline_build(alg, dns, CORE_EPOCH, life, b);
    if (rc != MTC_OK) {
        free(b);
        return lcore__fail(L, "baseline", rc);
    }
    lua_createtable(L, 0, 6);
    lua_pushinteger(L, (lua_Integer)b->leaf_len);
    lua_setfield(L, -2, "leaf_bytes");
    lua_pushinteger(L, (lua_Integer)b->intermediate_len);
    lua_setfield(L, -2, "intermediate_bytes");
    lua_pushinteger(L, (lua_Integer)b->sct_list_len);
    lua_setfield(L, -2, "sct_list_bytes");
    lua_pushinteger(L, (lua_Integer)b->leaf_sig_len);
    lua_setfield(L, -2, "leaf_signature_bytes");
    lua_pushinteger(L, (lua_Integer)b->handshake_sig_len);
    lua_setfield(L, -2, "handshake_signature_bytes");
    lua_pushlstring(L, (const char *)b->leaf, b->leaf_len);
    lua_setfield(L, -2, "leaf");
    free(b);
    return 1;
}

/* A chain algorithm by name ("ml-dsa-44", "ecdsa-p256", ...), or
 * MTC_CHAIN_ALG_NONE for nil (the profile's own). */
static mtc_chain_alg chain_alg_arg(lua_State *L, int t, const char *field)
{
    lua_getfield(L, t, field);
    mtc_chain_alg a = MTC_CHAIN_ALG_NONE;
    if (!lua_isnil(L, -1)) {
        const char *name = luaL_checkstring(L, -1);
        for (int i = 1; i < MTC_CHAIN_ALG_COUNT && a == MTC_CHAIN_ALG_NONE; i++)
            if (!strcmp(name, mtc_chain_alg_name((mtc_chain_alg)i)))
                a = (mtc_chain_alg)i;
        if (a == MTC_CHAIN_ALG_NONE)
            luaL_error(L, "core.chain: %s: unknown algorithm '%s'", field, name);
    }
    lua_pop(L, 1);
    return a;
}

/* core.chain(profile [, {dns_name =, leaf =, ca =}]): a chain profile of
 * mtc/chain.h built for real (leaf: the subscriber key; ca: every CA and
 * log key, cross-signs then left out, as the web side's post-quantum
 * arm), with the TLS 1.3 Certificate and CertificateVerify message
 * lengths the web side prices it at. The chain comes from the process's
 * cache when the host has one (lhost_set_chain_cache: the same bytes,
 * signed once per process; its memory is the cache's, capped there, not
 * the sandbox's); the call is charged its full cost either way, so a
 * scenario's limits do not depend on what ran before it. */
static int c_chain(lua_State *L)
{
    const char *name = luaL_checkstring(L, 1);
    const mtc_chain_profile *p = mtc_chain_profile_by_name(name);
    if (!p)
        return luaL_error(L, "core.chain: no chain profile '%s'", name);
    mtc_chain_opts o = {"example.com", CORE_EPOCH, 7 * 86400, MTC_CHAIN_ALG_NONE,
                        MTC_CHAIN_ALG_NONE, 0};
    if (!lua_isnoneornil(L, 2)) {
        luaL_checktype(L, 2, LUA_TTABLE);
        lua_getfield(L, 2, "dns_name");
        if (!lua_isnil(L, -1))
            o.dns_name = luaL_checkstring(L, -1);
        lua_pop(L, 1); /* the string stays referenced by the table */
        o.leaf_alg = chain_alg_arg(L, 2, "leaf");
        o.ca_alg = chain_alg_arg(L, 2, "ca");
        o.drop_cross = o.ca_alg != MTC_CHAIN_ALG_NONE;
    }
    lhost_count(L, COST_BASELINE);
    mtc_chain *c = malloc(sizeof *c);
    if (!c)
        return luaL_error(L, "out of memory");
    int rc = mtc_chain_cache_build(lhost_chain_cache(lhost_of(L)), p, &o, c);
    if (rc != MTC_OK) {
        free(c);
        return lcore__fail(L, "chain", rc);
    }
    size_t msg = tls_certificate_len(c->len, c->ncerts, 0);
    size_t cv = tls_certificate_verify_len(c->handshake_sig_len);
    lua_createtable(L, 0, 7);
    lua_pushinteger(L, (lua_Integer)c->ncerts);
    lua_setfield(L, -2, "certificates");
    lua_createtable(L, (int)c->ncerts, 0);
    for (size_t i = 0; i < c->ncerts; i++) {
        lua_pushinteger(L, (lua_Integer)c->len[i]);
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    lua_setfield(L, -2, "der_bytes");
    lua_pushinteger(L, (lua_Integer)c->sct_list_len);
    lua_setfield(L, -2, "sct_list_bytes");
    lua_pushinteger(L, (lua_Integer)c->handshake_sig_len);
    lua_setfield(L, -2, "handshake_signature_bytes");
    lua_pushinteger(L, (lua_Integer)msg);
    lua_setfield(L, -2, "certificate_message_bytes");
    lua_pushinteger(L, (lua_Integer)cv);
    lua_setfield(L, -2, "certificate_verify_bytes");
    lua_pushinteger(L, (lua_Integer)(msg + cv));
    lua_setfield(L, -2, "auth_bytes");
    free(c);
    return 1;
}

/* ---- a small CA ------------------------------------------------------------ */

typedef struct lca_entry {
    char dns[128];
    mtc_sig_alg key_alg;
} lca_entry;

typedef struct lca {
    mtc_taid ca_id;
    mtc_sig_alg alg;
    size_t nw;
    mtc_sig_key *keys[CORE_MAX_WITNESSES + 1];
    mtc_cosigner cos[CORE_MAX_WITNESSES + 1];
    mtc_ilog *log;
    mtc_landmarks *lm;
    int64_t not_before, lifetime;
    uint8_t issuer[300];
    size_t issuer_len;
    lca_entry *ents;
    size_t n, cap;
    size_t checkpoints;
    size_t charged;     /* bytes counted against --max-memory */
} lca;

/* The C memory a CA holds: its entries, its log's tree, the signatures of
 * its checkpoints and its landmark ring. */
static size_t ca_footprint(const lca *c)
{
    const mtc_sig_info *info = mtc_sig_info_get(c->alg);
    size_t sig = info ? info->sig_max : 8192;
    return sizeof *c + c->cap * sizeof *c->ents +
           (c->log ? mtc_tree_memory(mtc_ilog_tree(c->log)) : 0) +
           c->checkpoints * ((c->nw + 1) * 2 * (sig + 64) + 256);
}

/* Counts the CA's growth since the last call (extra: what is about to be
 * allocated, counted first). */
static void ca_charge(lua_State *L, lca *c, size_t extra)
{
    size_t now = ca_footprint(c) + extra;
    if (now > c->charged) {
        lhost_mem_charge(L, now - c->charged, "core.ca");
        c->charged = now;
    }
}

static void release_ca(lca *c)
{
    for (size_t i = 0; i <= CORE_MAX_WITNESSES; i++) {
        mtc_sig_key_free(c->keys[i]);
        c->keys[i] = NULL;
    }
    mtc_ilog_free(c->log);
    mtc_landmarks_free(c->lm);
    free(c->ents);
    c->log = NULL;
    c->lm = NULL;
    c->ents = NULL;
}

static int ca_gc(lua_State *L)
{
    lca *c = luaL_checkudata(L, 1, CA_MT);
    release_ca(c);
    lhost_mem_uncharge(L, c->charged);
    c->charged = 0;
    return 0;
}

static lca *check_ca(lua_State *L)
{
    lca *c = luaL_checkudata(L, 1, CA_MT);
    if (!c->log)
        luaL_error(L, "CA already released");
    return c;
}

static void derive_seed(const char *tag, const char *a, const char *b,
                        uint8_t seed[MTC_SIG_SEED_LEN])
{
    char buf[512];
    snprintf(buf, sizeof buf, "mtcsim core|%s|%s|%s", tag, a, b);
    mtc_hash h;
    mtc_sha256(buf, strlen(buf), &h);
    memcpy(seed, h.b, MTC_SIG_SEED_LEN);
}

/* Field k of table t, a number in [lo, hi] (def when absent). The range
 * is checked on the number itself: a cast first would wrap
 * (lifetime = -4294967196 became 100 s). */
static lua_Integer opt_int_field(lua_State *L, int t, const char *fn,
                                 const char *k, lua_Integer def, lua_Integer lo,
                                 lua_Integer hi)
{
    lua_getfield(L, t, k);
    lua_Integer v = def;
    if (!lua_isnil(L, -1)) {
        if (lua_type(L, -1) != LUA_TNUMBER)
            luaL_error(L, "%s: '%s' must be a number", fn, k);
        double d = lua_tonumber(L, -1);
        if (!(d >= (double)lo && d <= (double)hi))
            luaL_error(L, "%s: '%s' must be in %I..%I, got %s", fn, k, lo, hi,
                       lua_tostring(L, -1));
        v = lua_isinteger(L, -1) ? lua_tointeger(L, -1) : (lua_Integer)d;
    }
    lua_pop(L, 1);
    return v;
}

/* core.ca{id="32473.1", algorithm="ed25519", witnesses=2, lifetime=days(7),
 * max_active_landmarks=N}: log 1, keys derived from the ID. */
static int c_ca(lua_State *L)
{
    static const char *const keys[] = {"id", "algorithm", "witnesses",
                                       "lifetime", "max_active_landmarks", NULL};
    if (lua_isnoneornil(L, 1))
        lua_newtable(L);
    luaL_checktype(L, 1, LUA_TTABLE);
    lua_pushnil(L);
    while (lua_next(L, 1)) {
        lua_pop(L, 1);
        const char *k = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : "";
        int ok = 0;
        for (int i = 0; keys[i]; i++)
            ok |= !strcmp(k, keys[i]);
        if (!ok)
            return luaL_error(L, "core.ca: unknown field '%s' (fields: id, "
                                 "algorithm, witnesses, lifetime, "
                                 "max_active_landmarks)", k);
    }
    lua_getfield(L, 1, "id");
    const char *id = luaL_optstring(L, -1, "32473.1");
    lua_getfield(L, 1, "algorithm");
    mtc_sig_alg alg = lcore__check_alg(L, -1, "ed25519");
    lua_Integer nw = opt_int_field(L, 1, "core.ca", "witnesses", 2, 0,
                                   CORE_MAX_WITNESSES);
    lua_Integer life = opt_int_field(L, 1, "core.ca", "lifetime", 7 * 86400, 60,
                                     CORE_MAX_LIFETIME);
    lua_Integer mal = opt_int_field(L, 1, "core.ca", "max_active_landmarks", 0, 0,
                                    CORE_MAX_LANDMARKS);
    uint64_t nlm = mal ? (uint64_t)mal
                       : mtc_max_active_landmarks((uint64_t)life, 3600);
    lhost_count(L, (uint64_t)(nw + 1) * COST_KEY);

    lca *c = lua_newuserdatauv(L, sizeof *c, 0);
    memset(c, 0, sizeof *c);
    luaL_setmetatable(L, CA_MT);
    if (mtc_taid_from_text(id, strlen(id), &c->ca_id) != MTC_OK)
        return luaL_error(L, "core.ca: id '%s' is not a dotted-decimal trust "
                             "anchor ID", id);
    c->alg = alg;
    c->nw = (size_t)nw;
    c->not_before = CORE_EPOCH;
    c->lifetime = life;
    for (size_t i = 0; i <= c->nw; i++) {
        uint8_t seed[MTC_SIG_SEED_LEN];
        char role[32];
        snprintf(role, sizeof role, i ? "witness-%zu" : "ca", i);
        derive_seed("key", id, role, seed);
        int rc = mtc_sig_key_from_seed(alg, seed, &c->keys[i]);
        if (rc != MTC_OK)
            return lcore__fail(L, "core.ca: key", rc);
        c->cos[i].key = c->keys[i];
        if (i == 0) {
            c->cos[i].id = c->ca_id;
        } else {
            uint64_t arcs[2] = {9, i};
            if (mtc_taid_append(&c->ca_id, arcs, 2, &c->cos[i].id) != MTC_OK)
                return luaL_error(L, "core.ca: id too long");
        }
    }
    ca_charge(L, c, (size_t)(nlm + 1) * sizeof(uint64_t));     /* the ring */
    c->log = mtc_ilog_new(&c->ca_id, 1, NULL);
    c->lm = mtc_landmarks_new(nlm);
    if (!c->log || !c->lm)
        return luaL_error(L, "out of memory");
    mtc_der_writer w;
    mtc_der_writer_init(&w, c->issuer, sizeof c->issuer);
    mtc_taid_name_der(&w, &c->ca_id);
    c->issuer_len = w.len;
    return 1;
}

/* Rebuilds entry i's fields and subject key (deterministic). */
static int entry_of(lca *c, size_t i, mtc_tbs_entry *e, mtc_entry_scratch *sc,
                    uint8_t *spki, size_t spki_cap, size_t *spki_len)
{
    uint8_t seed[MTC_SIG_SEED_LEN], pk[MTC_SIG_PK_MAX];
    size_t pl;
    derive_seed("subject", c->ents[i].dns, "", seed);
    mtc_sig_key *k;
    int rc = mtc_sig_key_from_seed(c->ents[i].key_alg, seed, &k);
    if (rc != MTC_OK)
        return rc;
    rc = mtc_sig_key_public(k, pk, &pl);
    mtc_sig_key_free(k);
    if (rc == MTC_OK)
        rc = mtc_sig_spki_der(c->ents[i].key_alg, pk, pl, spki, spki_cap, spki_len);
    if (rc == MTC_OK)
        rc = mtc_tbs_entry_tls_server(e, sc, (mtc_slice){c->issuer, c->issuer_len},
                                      c->not_before, c->not_before + c->lifetime,
                                      c->ents[i].dns, spki, *spki_len);
    return rc;
}

/* ca:issue(dns_name [, key_algorithm]) -> index */
static int ca_issue(lua_State *L)
{
    lca *c = check_ca(L);
    size_t dl;
    const char *dns = luaL_checklstring(L, 2, &dl);
    luaL_argcheck(L, dl > 0 && dl < sizeof c->ents[0].dns, 2,
                  "DNS name must be 1..127 characters");
    mtc_sig_alg ka = lcore__check_alg(L, 3, "ecdsa-p256");
    lhost_count(L, COST_CERT);
    if (c->n == c->cap) {
        size_t nc = c->cap ? 2 * c->cap : 16;
        ca_charge(L, c, (nc - c->cap) * sizeof *c->ents);
        lca_entry *ne = realloc(c->ents, nc * sizeof *ne);
        if (!ne)
            return luaL_error(L, "out of memory");
        c->ents = ne;
        c->cap = nc;
    }
    lca_entry *en = &c->ents[c->n];
    memcpy(en->dns, dns, dl + 1);
    en->key_alg = ka;
    mtc_tbs_entry e;
    mtc_entry_scratch sc;
    uint8_t spki[MTC_SIG_PK_MAX + 64];
    size_t sl;
    uint64_t idx;
    int rc = entry_of(c, c->n, &e, &sc, spki, sizeof spki, &sl);
    if (rc == MTC_OK)
        rc = mtc_ilog_append(c->log, (mtc_slice){NULL, 0}, &e, &idx);
    if (rc != MTC_OK)
        return lcore__fail(L, "issue", rc);
    c->n++;
    ca_charge(L, c, 0);
    lua_pushinteger(L, (lua_Integer)idx);
    return 1;
}

static int ca_checkpoint(lua_State *L)
{
    lca *c = check_ca(L);
    lhost_count(L, (uint64_t)(c->nw + 1) * COST_SIGN);
    c->checkpoints++;
    ca_charge(L, c, 0);
    int rc = mtc_ilog_checkpoint(c->log, c->cos, c->nw + 1);
    if (rc != MTC_OK)
        return lcore__fail(L, "checkpoint", rc);
    lua_pushinteger(L, (lua_Integer)mtc_ilog_checkpoint_size(c->log));
    return 1;
}

static int ca_landmark(lua_State *L)
{
    lca *c = check_ca(L);
    int rc = mtc_landmarks_append(c->lm, mtc_ilog_checkpoint_size(c->log));
    if (rc != MTC_OK)
        return lcore__fail(L, "landmark (checkpoint something new first)", rc);
    lua_pushinteger(L, (lua_Integer)mtc_landmarks_last(c->lm));
    return 1;
}

static int ca_size(lua_State *L)
{
    lua_pushinteger(L, (lua_Integer)mtc_ilog_size(check_ca(L)->log));
    return 1;
}

/* ca:certificate(index, "standalone" | "landmark") -> DER string */
static int ca_certificate(lua_State *L)
{
    lca *c = check_ca(L);
    uint64_t i = lcore__check_u64(L, 2);
    static const char *const kinds[] = {"standalone", "landmark", NULL};
    int lr = luaL_checkoption(L, 3, "standalone", kinds);
    luaL_argcheck(L, i < c->n, 2, "no such entry");
    lhost_count(L, COST_CERT);
    mtc_tbs_entry e;
    mtc_entry_scratch sc;
    uint8_t spki[MTC_SIG_PK_MAX + 64];
    size_t sl, len;
    int rc = entry_of(c, (size_t)i, &e, &sc, spki, sizeof spki, &sl);
    if (rc != MTC_OK)
        return lcore__fail(L, "certificate", rc);
    mtc_proof_storage ps;
    mtc_proof p;
    uint64_t lmk;
    rc = lr ? mtc_ilog_landmark_proof(c->log, c->lm, i, (mtc_slice){NULL, 0},
                                      &ps, &p, &lmk)
            : mtc_ilog_standalone_proof(c->log, i, (mtc_slice){NULL, 0}, &ps, &p);
    if (rc != MTC_OK)
        return luaL_error(L, "certificate %d (%s): %s%s", (int)i, kinds[lr],
                          mtc_strerror(rc),
                          lr ? " (no landmark covers it yet?)"
                             : " (not checkpointed yet?)");
    uint64_t serial = mtc_serial(1, i);
    mtc_cert_build(&e, spki, sl, serial, &p, NULL, 0, &len);
    luaL_Buffer b;
    uint8_t *out = (uint8_t *)luaL_buffinitsize(L, &b, len);
    rc = mtc_cert_build(&e, spki, sl, serial, &p, out, len, &len);
    if (rc != MTC_OK)
        return lcore__fail(L, "certificate", rc);
    luaL_pushresultsize(&b, len);
    return 1;
}

static int ca_cert_der(lca *c, uint8_t *der, size_t cap, size_t *len)
{
    uint8_t pk[MTC_SIG_PK_MAX];
    size_t pl;
    int rc = mtc_sig_key_public(c->keys[0], pk, &pl);
    if (rc != MTC_OK)
        return rc;
    mtc_ca_params ca = {c->ca_id, c->alg, pk, pl, mtc_serial(1, 0),
                        mtc_serial(1, (UINT64_C(1) << 48) - 1), c->not_before,
                        c->not_before + 10 * 365 * 86400LL};
    return mtc_ca_cert_build(&ca, der, cap, len);
}

static int ca_ca_certificate(lua_State *L)
{
    lca *c = check_ca(L);
    lhost_count(L, COST_VERIFY);
    uint8_t der[8192];
    size_t len;
    int rc = ca_cert_der(c, der, sizeof der, &len);
    if (rc != MTC_OK)
        return lcore__fail(L, "CA certificate", rc);
    lua_pushlstring(L, (const char *)der, len);
    return 1;
}

/* ---- relying party --------------------------------------------------------- */

typedef struct lrp {
    mtc_rp_ca *rp;
    size_t charged;     /* bytes counted against --max-memory */
} lrp;

static int rp_gc(lua_State *L)
{
    lrp *r = luaL_checkudata(L, 1, RP_MT);
    mtc_rp_ca_free(r->rp);
    r->rp = NULL;
    lhost_mem_uncharge(L, r->charged);
    r->charged = 0;
    return 0;
}

/* A finalized object can still be reached (a finalizer may resurrect it),
 * so every method checks that it has not been released. */
static lrp *check_rp(lua_State *L)
{
    lrp *r = luaL_checkudata(L, 1, RP_MT);
    if (!r->rp)
        luaL_error(L, "relying party already released");
    return r;
}

/* ca:relying_party{witnesses=k, landmarks=true}: trusts the CA cosigner
 * and k of the witnesses (default all), and the active landmarks. */
static int ca_relying_party(lua_State *L)
{
    lca *c = check_ca(L);
    lua_Integer k = (lua_Integer)c->nw;
    int lmk = 1;
    if (lua_istable(L, 2)) {
        k = opt_int_field(L, 2, "relying_party", "witnesses", k, 0,
                          (lua_Integer)c->nw);
        lua_getfield(L, 2, "landmarks");
        if (!lua_isnil(L, -1))
            lmk = lua_toboolean(L, -1);
        lua_pop(L, 1);
    }
    lhost_count(L, COST_VERIFY);
    lrp *r = lua_newuserdatauv(L, sizeof *r, 0);
    r->rp = NULL;
    r->charged = 0;
    luaL_setmetatable(L, RP_MT);
    /* its cosigners and, per active landmark, up to two subtrees */
    r->charged = 4096 + (c->nw + 1) * 4096 +
                 (size_t)(mtc_landmarks_last(c->lm) -
                          mtc_landmarks_first_kept(c->lm) + 1) * 256;
    lhost_mem_charge(L, r->charged, "relying_party");
    uint8_t der[8192];
    size_t len;
    int rc = ca_cert_der(c, der, sizeof der, &len);
    if (rc == MTC_OK)
        rc = mtc_rp_ca_from_cert(der, len, &r->rp);
    mtc_taid ids[CORE_MAX_WITNESSES];
    for (size_t i = 1; i <= c->nw && rc == MTC_OK; i++) {
        uint8_t pk[MTC_SIG_PK_MAX];
        size_t pl;
        rc = mtc_sig_key_public(c->keys[i], pk, &pl);
        if (rc == MTC_OK)
            rc = mtc_rp_ca_add_cosigner(r->rp, &c->cos[i].id, c->alg, pk, pl);
        ids[i - 1] = c->cos[i].id;
    }
    if (rc == MTC_OK && k > 0)
        rc = mtc_rp_ca_add_policy(r->rp, (unsigned)k, ids, c->nw);
    uint64_t last = mtc_landmarks_last(c->lm);
    for (uint64_t l = mtc_landmarks_first_kept(c->lm) + 1;
         lmk && l <= last && l > 0 && rc == MTC_OK; l++) {
        lhost_count(L, 2 * COST_PROOF);
        mtc_subtree s[2];
        rc = mtc_landmarks_subtrees(c->lm, l, &s[0], &s[1]);
        for (int j = 0; j < 2 && rc == MTC_OK; j++) {
            if (s[j].start == s[j].end)
                continue;
            mtc_hash h;
            rc = mtc_tree_subtree_hash(mtc_ilog_tree(c->log), s[j].start,
                                       s[j].end, &h);
            if (rc == MTC_OK)
                rc = mtc_rp_ca_add_subtree(r->rp, 1, s[j].start, s[j].end, &h);
        }
    }
    if (rc != MTC_OK)
        return lcore__fail(L, "relying_party", rc);
    return 1;
}

/* rp:verify(der [, unix_time]) -> ok, reason, info */
static int rp_verify(lua_State *L)
{
    lrp *r = check_rp(L);
    size_t n;
    const char *der = luaL_checklstring(L, 2, &n);
    lhost_count(L, COST_VERIFY + n / 2);
    lua_Integer now = luaL_optinteger(L, 3, -1);
    mtc_rp_result res;
    mtc_rp_verify(r->rp, (const uint8_t *)der, n, now, &res);
    lua_pushboolean(L, res.reason == MTC_RP_OK);
    lua_pushstring(L, mtc_rp_reason_name(res.reason));
    lua_createtable(L, 0, 8);
    lua_pushinteger(L, (lua_Integer)res.serial);
    lua_setfield(L, -2, "serial");
    lua_pushinteger(L, (lua_Integer)res.log_number);
    lua_setfield(L, -2, "log_number");
    lua_pushinteger(L, (lua_Integer)res.index);
    lua_setfield(L, -2, "index");
    lua_pushinteger(L, (lua_Integer)res.start);
    lua_setfield(L, -2, "start");
    lua_pushinteger(L, (lua_Integer)res.end);
    lua_setfield(L, -2, "end");
    lua_pushboolean(L, res.used_trusted_subtree);
    lua_setfield(L, -2, "landmark");
    lua_pushinteger(L, res.valid_sigs);
    lua_setfield(L, -2, "valid_signatures");
    return 3;
}

void lcore__register_ca(lua_State *L)
{
    static const luaL_Reg ca[] = {
        {"issue", ca_issue}, {"checkpoint", ca_checkpoint},
        {"landmark", ca_landmark}, {"size", ca_size},
        {"certificate", ca_certificate}, {"ca_certificate", ca_ca_certificate},
        {"relying_party", ca_relying_party}, {NULL, NULL}};
    static const luaL_Reg rp[] = {{"verify", rp_verify}, {NULL, NULL}};
    lcore__new_mt(L, CA_MT, ca, ca_gc);
    lcore__new_mt(L, RP_MT, rp, rp_gc);
    lua_pushcfunction(L, c_ca);
    lua_setfield(L, -2, "ca");
    lua_pushcfunction(L, c_baseline);
    lua_setfield(L, -2, "baseline");
    lua_pushcfunction(L, c_chain);
    lua_setfield(L, -2, "chain");
}
