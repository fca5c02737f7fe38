/*
 * lcore.c - the real MTC core from Lua (mtcsim.core): hashes, Merkle
 * trees and proofs, a small CA that issues real certificates, a relying
 * party that verifies them, and the baseline X.509 chains.
 *
 * For scenario-side checks and teaching: everything here calls mtc-core
 * directly (no simulation), so sizes and verdicts are those of the real
 * encodings. Objects are full userdata with __gc; each is created empty
 * before what it wraps is acquired.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>

#include "lhost.h"
#include "mtc/baseline.h"
#include "mtc/cert.h"
#include "mtc/error.h"
#include "mtc/hash.h"
#include "mtc/ilog.h"
#include "mtc/landmark.h"
#include "mtc/merkle.h"
#include "mtc/rp.h"
#include "mtc/tree.h"

#define TREE_MT "mtcsim.core.tree"
#define CA_MT "mtcsim.core.ca"
#define RP_MT "mtcsim.core.rp"
#define CORE_MAX_WITNESSES 16
#define CORE_EPOCH 1767225600   /* 2026-01-01, as the world's default */

static int fail_rc(lua_State *L, const char *what, int rc)
{
    return luaL_error(L, "%s: %s", what, mtc_strerror(rc));
}

static void push_hash(lua_State *L, const mtc_hash *h)
{
    lua_pushlstring(L, (const char *)h->b, MTC_HASH_LEN);
}

static void check_hash(lua_State *L, int i, mtc_hash *h)
{
    size_t n;
    const char *s = luaL_checklstring(L, i, &n);
    if (n == 2 * MTC_HASH_LEN && mtc_hash_from_hex(s, n, h) == MTC_OK)
        return;
    luaL_argcheck(L, n == MTC_HASH_LEN, i, "expected a 32-byte hash (raw or hex)");
    memcpy(h->b, s, MTC_HASH_LEN);
}

static uint64_t check_u64(lua_State *L, int i)
{
    lua_Integer v = luaL_checkinteger(L, i);
    luaL_argcheck(L, v >= 0, i, "must be >= 0");
    return (uint64_t)v;
}

/* A proof: a Lua list of 32-byte strings. */
static size_t check_proof(lua_State *L, int i, mtc_hash *proof)
{
    luaL_checktype(L, i, LUA_TTABLE);
    size_t n = lua_rawlen(L, i);
    luaL_argcheck(L, n <= MTC_PROOF_MAX, i, "proof too long");
    for (size_t k = 0; k < n; k++) {
        lua_rawgeti(L, i, (lua_Integer)k + 1);
        check_hash(L, -1, &proof[k]);
        lua_pop(L, 1);
    }
    return n;
}

static void push_proof(lua_State *L, const mtc_hash *p, size_t n)
{
    lua_createtable(L, (int)n, 0);
    for (size_t k = 0; k < n; k++) {
        push_hash(L, &p[k]);
        lua_rawseti(L, -2, (lua_Integer)k + 1);
    }
}

/* ---- hashes --------------------------------------------------------------- */

static int c_sha256(lua_State *L)
{
    size_t n;
    const char *s = luaL_checklstring(L, 1, &n);
    mtc_hash h;
    mtc_sha256(s, n, &h);
    push_hash(L, &h);
    return 1;
}

static int c_leaf_hash(lua_State *L)
{
    size_t n;
    const char *s = luaL_checklstring(L, 1, &n);
    mtc_hash h;
    mtc_hash_leaf(s, n, &h);
    push_hash(L, &h);
    return 1;
}

static int c_hex(lua_State *L)
{
    size_t n;
    const unsigned char *s = (const unsigned char *)luaL_checklstring(L, 1, &n);
    static const char digits[] = "0123456789abcdef";
    luaL_argcheck(L, n <= (SIZE_MAX - 1) / 2, 1, "string too long");
    luaL_Buffer b;
    /* exactly 2n bytes: no terminating NUL is written (snprintf's NUL
     * overran the buffer by one byte when Lua sized it exactly) */
    char *o = luaL_buffinitsize(L, &b, 2 * n);
    for (size_t i = 0; i < n; i++) {
        o[2 * i] = digits[s[i] >> 4];
        o[2 * i + 1] = digits[s[i] & 15];
    }
    luaL_pushresultsize(&b, 2 * n);
    return 1;
}

/* ---- trees --------------------------------------------------------------- */

typedef struct ltree {
    mtc_tree *t;
} ltree;

static ltree *check_tree(lua_State *L)
{
    ltree *t = luaL_checkudata(L, 1, TREE_MT);
    if (!t->t)
        luaL_error(L, "tree already released");
    return t;
}

static int c_tree(lua_State *L)
{
    ltree *t = lua_newuserdatauv(L, sizeof *t, 0);
    t->t = NULL;
    luaL_setmetatable(L, TREE_MT);
    mtc_tree_options o = {0, 1, NULL, NULL};
    t->t = mtc_tree_new(&o);
    if (!t->t)
        return luaL_error(L, "out of memory");
    if (lua_istable(L, 1)) {    /* core.tree{"a", "b", ...}: entries */
        size_t n = lua_rawlen(L, 1);
        for (size_t i = 1; i <= n; i++) {
            lua_rawgeti(L, 1, (lua_Integer)i);
            size_t len;
            const char *s = luaL_checklstring(L, -1, &len);
            mtc_hash h;
            mtc_hash_leaf(s, len, &h);
            int rc = mtc_tree_append(t->t, &h);
            if (rc != MTC_OK)
                return fail_rc(L, "tree", rc);
            lua_pop(L, 1);
        }
    }
    return 1;
}

static int t_gc(lua_State *L)
{
    ltree *t = luaL_checkudata(L, 1, TREE_MT);
    mtc_tree_free(t->t);
    t->t = NULL;
    return 0;
}

static int t_append(lua_State *L)
{
    ltree *t = check_tree(L);
    size_t n;
    const char *s = luaL_checklstring(L, 2, &n);
    mtc_hash h;
    mtc_hash_leaf(s, n, &h);
    uint64_t idx = mtc_tree_size(t->t);
    int rc = mtc_tree_append(t->t, &h);
    if (rc != MTC_OK)
        return fail_rc(L, "append", rc);
    lua_pushinteger(L, (lua_Integer)idx);
    return 1;
}

static int t_append_hash(lua_State *L)
{
    ltree *t = check_tree(L);
    mtc_hash h;
    check_hash(L, 2, &h);
    uint64_t idx = mtc_tree_size(t->t);
    int rc = mtc_tree_append(t->t, &h);
    if (rc != MTC_OK)
        return fail_rc(L, "append_hash", rc);
    lua_pushinteger(L, (lua_Integer)idx);
    return 1;
}

static int t_size(lua_State *L)
{
    lua_pushinteger(L, (lua_Integer)mtc_tree_size(check_tree(L)->t));
    return 1;
}

static int t_memory(lua_State *L)
{
    lua_pushinteger(L, (lua_Integer)mtc_tree_memory(check_tree(L)->t));
    return 1;
}

static int t_root(lua_State *L)
{
    ltree *t = check_tree(L);
    uint64_t n = lua_isnoneornil(L, 2) ? mtc_tree_size(t->t) : check_u64(L, 2);
    mtc_hash h;
    int rc = mtc_tree_root(t->t, n, &h);
    if (rc != MTC_OK)
        return fail_rc(L, "root", rc);
    push_hash(L, &h);
    return 1;
}

static int t_subtree_hash(lua_State *L)
{
    ltree *t = check_tree(L);
    mtc_hash h;
    int rc = mtc_tree_subtree_hash(t->t, check_u64(L, 2), check_u64(L, 3), &h);
    if (rc != MTC_OK)
        return fail_rc(L, "subtree_hash", rc);
    push_hash(L, &h);
    return 1;
}

static int t_leaf_hash(lua_State *L)
{
    ltree *t = check_tree(L);
    mtc_hash h;
    int rc = mtc_tree_leaf_hash(t->t, check_u64(L, 2), &h);
    if (rc != MTC_OK)
        return fail_rc(L, "leaf_hash", rc);
    push_hash(L, &h);
    return 1;
}

/* t:inclusion_proof(index [, start, end]): default subtree [0, size). */
static int t_inclusion_proof(lua_State *L)
{
    ltree *t = check_tree(L);
    uint64_t i = check_u64(L, 2);
    uint64_t s = lua_isnoneornil(L, 3) ? 0 : check_u64(L, 3);
    uint64_t e = lua_isnoneornil(L, 4) ? mtc_tree_size(t->t) : check_u64(L, 4);
    mtc_node_source src;
    mtc_tree_source(t->t, &src);
    mtc_hash p[MTC_PROOF_MAX];
    size_t n;
    int rc = mtc_inclusion_proof(&src, i, s, e, p, &n);
    if (rc != MTC_OK)
        return fail_rc(L, "inclusion_proof", rc);
    push_proof(L, p, n);
    return 1;
}

static int t_consistency_proof(lua_State *L)
{
    ltree *t = check_tree(L);
    uint64_t m = check_u64(L, 2);
    uint64_t n = lua_isnoneornil(L, 3) ? mtc_tree_size(t->t) : check_u64(L, 3);
    mtc_node_source src;
    mtc_tree_source(t->t, &src);
    mtc_hash p[MTC_PROOF_MAX];
    size_t len;
    int rc = mtc_consistency_proof(&src, m, n, p, &len);
    if (rc != MTC_OK)
        return fail_rc(L, "consistency_proof", rc);
    push_proof(L, p, len);
    return 1;
}

static int t_subtree_consistency_proof(lua_State *L)
{
    ltree *t = check_tree(L);
    uint64_t s = check_u64(L, 2), e = check_u64(L, 3);
    uint64_t n = lua_isnoneornil(L, 4) ? mtc_tree_size(t->t) : check_u64(L, 4);
    mtc_node_source src;
    mtc_tree_source(t->t, &src);
    mtc_hash p[MTC_PROOF_MAX];
    size_t len;
    int rc = mtc_subtree_consistency_proof(&src, s, e, n, p, &len);
    if (rc != MTC_OK)
        return fail_rc(L, "subtree_consistency_proof", rc);
    push_proof(L, p, len);
    return 1;
}

static int verdict(lua_State *L, int rc)
{
    lua_pushboolean(L, rc == MTC_OK);
    if (rc == MTC_OK)
        return 1;
    lua_pushstring(L, mtc_strerror(rc));
    return 2;
}

/* core.verify_inclusion(index, start, end, entry_hash, proof, subtree_hash) */
static int c_verify_inclusion(lua_State *L)
{
    mtc_hash eh, sh, p[MTC_PROOF_MAX];
    uint64_t i = check_u64(L, 1), s = check_u64(L, 2), e = check_u64(L, 3);
    check_hash(L, 4, &eh);
    size_t n = check_proof(L, 5, p);
    check_hash(L, 6, &sh);
    return verdict(L, mtc_inclusion_verify(i, s, e, &eh, p, n, &sh));
}

/* core.verify_consistency(m, n, old_root, new_root, proof) */
static int c_verify_consistency(lua_State *L)
{
    mtc_hash a, b, p[MTC_PROOF_MAX];
    uint64_t m = check_u64(L, 1), n = check_u64(L, 2);
    check_hash(L, 3, &a);
    check_hash(L, 4, &b);
    size_t len = check_proof(L, 5, p);
    return verdict(L, mtc_consistency_verify(m, n, &a, &b, p, len));
}

/* core.verify_subtree_consistency(start, end, n, node_hash, root, proof) */
static int c_verify_subtree_consistency(lua_State *L)
{
    mtc_hash a, b, p[MTC_PROOF_MAX];
    uint64_t s = check_u64(L, 1), e = check_u64(L, 2), n = check_u64(L, 3);
    check_hash(L, 4, &a);
    check_hash(L, 5, &b);
    size_t len = check_proof(L, 6, p);
    return verdict(L, mtc_subtree_consistency_verify(s, e, n, &a, &b, p, len));
}

/* core.covering_subtrees(start, end) -> {start, end}, {start, end} */
static int c_covering(lua_State *L)
{
    mtc_subtree a, b;
    int rc = mtc_covering_subtrees(check_u64(L, 1), check_u64(L, 2), &a, &b);
    if (rc != MTC_OK)
        return fail_rc(L, "covering_subtrees", rc);
    for (int k = 0; k < 2; k++) {
        const mtc_subtree *s = k ? &b : &a;
        lua_createtable(L, 2, 0);
        lua_pushinteger(L, (lua_Integer)s->start);
        lua_rawseti(L, -2, 1);
        lua_pushinteger(L, (lua_Integer)s->end);
        lua_rawseti(L, -2, 2);
    }
    return 2;
}

static int c_max_active_landmarks(lua_State *L)
{
    double life = luaL_checknumber(L, 1), iv = luaL_checknumber(L, 2);
    luaL_argcheck(L, life > 0, 1, "lifetime must be > 0");
    luaL_argcheck(L, iv >= 1, 2, "interval must be >= 1 s");
    lua_pushinteger(L, (lua_Integer)mtc_max_active_landmarks((uint64_t)life,
                                                             (uint64_t)iv));
    return 1;
}

static int c_algorithms(lua_State *L)
{
    size_t n;
    const mtc_sig_info *a = mtc_sig_all(&n);
    lua_createtable(L, (int)n, 0);
    for (size_t i = 0; i < n; i++) {
        lua_createtable(L, 0, 3);
        lua_pushstring(L, a[i].name);
        lua_setfield(L, -2, "name");
        lua_pushinteger(L, (lua_Integer)a[i].pk_len);
        lua_setfield(L, -2, "public_key_bytes");
        lua_pushinteger(L, (lua_Integer)a[i].sig_max);
        lua_setfield(L, -2, "signature_max_bytes");
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    return 1;
}

static mtc_sig_alg check_alg(lua_State *L, int i, const char *def)
{
    const char *name = luaL_optstring(L, i, def);
    const mtc_sig_info *info = mtc_sig_info_by_name(name);
    if (!info)
        luaL_error(L, "unknown signature algorithm '%s' (see core.algorithms())",
                   name);
    return info->alg;
}

/* core.baseline(alg [, dns_name [, lifetime]]): sizes of a real X.509
 * chain with two SCTs. */
static int c_baseline(lua_State *L)
{
    mtc_sig_alg alg = check_alg(L, 1, "ecdsa-p256");
    const char *dns = luaL_optstring(L, 2, "example.com");
    lua_Integer life = luaL_optinteger(L, 3, 90 * 86400);
    mtc_baseline *b = malloc(sizeof *b);
    if (!b)
        return luaL_error(L, "out of memory");
    int rc = mtc_baseline_build(alg, dns, CORE_EPOCH, life, b);
    if (rc != MTC_OK) {
        free(b);
        return fail_rc(L, "baseline", rc);
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
} lca;

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
    release_ca(luaL_checkudata(L, 1, CA_MT));
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

static int opt_int_field(lua_State *L, int t, const char *k, lua_Integer def)
{
    lua_getfield(L, t, k);
    lua_Integer v = def;
    if (!lua_isnil(L, -1)) {
        if (!lua_isinteger(L, -1) && lua_type(L, -1) == LUA_TNUMBER)
            v = (lua_Integer)lua_tonumber(L, -1);
        else if (!lua_isinteger(L, -1))
            luaL_error(L, "core.ca: '%s' must be a number", k);
        else
            v = lua_tointeger(L, -1);
    }
    lua_pop(L, 1);
    return (int)(v > 2000000000 ? 2000000000 : v);
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
    mtc_sig_alg alg = check_alg(L, -1, "ed25519");
    int nw = opt_int_field(L, 1, "witnesses", 2);
    int life = opt_int_field(L, 1, "lifetime", 7 * 86400);
    int mal = opt_int_field(L, 1, "max_active_landmarks", 0);
    if (nw < 0 || nw > CORE_MAX_WITNESSES)
        return luaL_error(L, "core.ca: witnesses must be 0..%d", CORE_MAX_WITNESSES);
    if (life < 60)
        return luaL_error(L, "core.ca: lifetime must be >= 60 s");
    if (mal < 0)
        return luaL_error(L, "core.ca: max_active_landmarks must be >= 0");

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
            return fail_rc(L, "core.ca: key", rc);
        c->cos[i].key = c->keys[i];
        if (i == 0) {
            c->cos[i].id = c->ca_id;
        } else {
            uint64_t arcs[2] = {9, i};
            if (mtc_taid_append(&c->ca_id, arcs, 2, &c->cos[i].id) != MTC_OK)
                return luaL_error(L, "core.ca: id too long");
        }
    }
    c->log = mtc_ilog_new(&c->ca_id, 1, NULL);
    c->lm = mtc_landmarks_new(mal ? (uint64_t)mal
                                  : mtc_max_active_landmarks((uint64_t)life, 3600));
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
    mtc_sig_alg ka = check_alg(L, 3, "ecdsa-p256");
    if (c->n == c->cap) {
        size_t nc = c->cap ? 2 * c->cap : 16;
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
        return fail_rc(L, "issue", rc);
    c->n++;
    lua_pushinteger(L, (lua_Integer)idx);
    return 1;
}

static int ca_checkpoint(lua_State *L)
{
    lca *c = check_ca(L);
    int rc = mtc_ilog_checkpoint(c->log, c->cos, c->nw + 1);
    if (rc != MTC_OK)
        return fail_rc(L, "checkpoint", rc);
    lua_pushinteger(L, (lua_Integer)mtc_ilog_checkpoint_size(c->log));
    return 1;
}

static int ca_landmark(lua_State *L)
{
    lca *c = check_ca(L);
    int rc = mtc_landmarks_append(c->lm, mtc_ilog_checkpoint_size(c->log));
    if (rc != MTC_OK)
        return fail_rc(L, "landmark (checkpoint something new first)", rc);
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
    uint64_t i = check_u64(L, 2);
    static const char *const kinds[] = {"standalone", "landmark", NULL};
    int lr = luaL_checkoption(L, 3, "standalone", kinds);
    luaL_argcheck(L, i < c->n, 2, "no such entry");
    mtc_tbs_entry e;
    mtc_entry_scratch sc;
    uint8_t spki[MTC_SIG_PK_MAX + 64];
    size_t sl, len;
    int rc = entry_of(c, (size_t)i, &e, &sc, spki, sizeof spki, &sl);
    if (rc != MTC_OK)
        return fail_rc(L, "certificate", rc);
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
        return fail_rc(L, "certificate", rc);
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
    uint8_t der[8192];
    size_t len;
    int rc = ca_cert_der(c, der, sizeof der, &len);
    if (rc != MTC_OK)
        return fail_rc(L, "CA certificate", rc);
    lua_pushlstring(L, (const char *)der, len);
    return 1;
}

/* ---- relying party --------------------------------------------------------- */

typedef struct lrp {
    mtc_rp_ca *rp;
} lrp;

static int rp_gc(lua_State *L)
{
    lrp *r = luaL_checkudata(L, 1, RP_MT);
    mtc_rp_ca_free(r->rp);
    r->rp = NULL;
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
    int k = (int)c->nw, lmk = 1;
    if (lua_istable(L, 2)) {
        k = opt_int_field(L, 2, "witnesses", (lua_Integer)c->nw);
        lua_getfield(L, 2, "landmarks");
        if (!lua_isnil(L, -1))
            lmk = lua_toboolean(L, -1);
        lua_pop(L, 1);
    }
    if (k < 0 || (size_t)k > c->nw)
        return luaL_error(L, "relying_party: witnesses must be 0..%d", (int)c->nw);
    lrp *r = lua_newuserdatauv(L, sizeof *r, 0);
    r->rp = NULL;
    luaL_setmetatable(L, RP_MT);
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
        return fail_rc(L, "relying_party", rc);
    return 1;
}

/* rp:verify(der [, unix_time]) -> ok, reason, info */
static int rp_verify(lua_State *L)
{
    lrp *r = check_rp(L);
    size_t n;
    const char *der = luaL_checklstring(L, 2, &n);
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

/* core.parse_certificate(der) -> {serial, not_before, not_after,
 * proof_bytes, signatures, start, end, inclusion_hashes, bytes} */
static int c_parse_certificate(lua_State *L)
{
    size_t n;
    const uint8_t *der = (const uint8_t *)luaL_checklstring(L, 1, &n);
    mtc_cert c;
    int rc = mtc_cert_parse(der, n, &c);
    if (rc != MTC_OK)
        return fail_rc(L, "parse_certificate", rc);
    lua_createtable(L, 0, 10);
    lua_pushinteger(L, (lua_Integer)n);
    lua_setfield(L, -2, "bytes");
    if (c.serial_status == MTC_OK) {
        lua_pushinteger(L, (lua_Integer)c.serial_num);
        lua_setfield(L, -2, "serial");
    }
    lua_pushinteger(L, c.not_before);
    lua_setfield(L, -2, "not_before");
    lua_pushinteger(L, c.not_after);
    lua_setfield(L, -2, "not_after");
    mtc_proof p;
    if (c.sig_whole_octets &&
        mtc_proof_decode(c.sig_value.p, c.sig_value.len, &p) == MTC_OK) {
        lua_pushinteger(L, (lua_Integer)c.sig_value.len);
        lua_setfield(L, -2, "proof_bytes");
        lua_pushinteger(L, (lua_Integer)p.n_sigs);
        lua_setfield(L, -2, "signatures");
        lua_pushinteger(L, (lua_Integer)p.start);
        lua_setfield(L, -2, "start");
        lua_pushinteger(L, (lua_Integer)p.end);
        lua_setfield(L, -2, "end");
        lua_pushinteger(L, (lua_Integer)p.n_inclusion);
        lua_setfield(L, -2, "inclusion_hashes");
    }
    return 1;
}

/* The metatable is protected (__metatable): a scenario that could read
 * it could call __gc on a live object and free what it wraps. */
static void new_mt(lua_State *L, const char *name, const luaL_Reg *meth,
                   lua_CFunction gc)
{
    if (luaL_newmetatable(L, name)) {
        lua_newtable(L);
        luaL_setfuncs(L, meth, 0);
        lua_setfield(L, -2, "__index");
        lua_pushcfunction(L, gc);
        lua_setfield(L, -2, "__gc");
        lua_pushstring(L, name);
        lua_setfield(L, -2, "__metatable");
    }
    lua_pop(L, 1);
}

void lcore_register(lua_State *L)
{
    static const luaL_Reg tree[] = {
        {"append", t_append}, {"append_hash", t_append_hash}, {"size", t_size},
        {"memory", t_memory}, {"root", t_root}, {"subtree_hash", t_subtree_hash},
        {"leaf_hash", t_leaf_hash}, {"inclusion_proof", t_inclusion_proof},
        {"consistency_proof", t_consistency_proof},
        {"subtree_consistency_proof", t_subtree_consistency_proof},
        {NULL, NULL}};
    static const luaL_Reg ca[] = {
        {"issue", ca_issue}, {"checkpoint", ca_checkpoint},
        {"landmark", ca_landmark}, {"size", ca_size},
        {"certificate", ca_certificate}, {"ca_certificate", ca_ca_certificate},
        {"relying_party", ca_relying_party}, {NULL, NULL}};
    static const luaL_Reg rp[] = {{"verify", rp_verify}, {NULL, NULL}};
    new_mt(L, TREE_MT, tree, t_gc);
    new_mt(L, CA_MT, ca, ca_gc);
    new_mt(L, RP_MT, rp, rp_gc);
    static const luaL_Reg core[] = {
        {"sha256", c_sha256}, {"leaf_hash", c_leaf_hash}, {"hex", c_hex},
        {"tree", c_tree}, {"verify_inclusion", c_verify_inclusion},
        {"verify_consistency", c_verify_consistency},
        {"verify_subtree_consistency", c_verify_subtree_consistency},
        {"covering_subtrees", c_covering},
        {"max_active_landmarks", c_max_active_landmarks},
        {"algorithms", c_algorithms}, {"baseline", c_baseline},
        {"ca", c_ca}, {"parse_certificate", c_parse_certificate},
        {NULL, NULL}};
    luaL_newlib(L, core);
    lua_setfield(L, -2, "core");
}
