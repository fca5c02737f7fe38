/*
 * lcore.c - the real MTC core from Lua (mtcsim.core): hashes, Merkle
 * trees and proofs, certificate parsing, and the module's registration
 * (the small CA, its relying party and the baseline chains are in
 * lcore_ca.c).
 *
 * For scenario-side checks and teaching: everything here calls mtc-core
 * directly (no simulation), so sizes and verdicts are those of the real
 * encodings. Objects are full userdata with __gc; each is created empty
 * before what it wraps is acquired.
 *
 * Scenarios are untrusted code: every method checks that its object was
 * not released (a finalizer can resurrect one), the C memory each object
 * holds is charged to --max-memory as it grows (lhost_mem_charge), and
 * the work done in C is charged to the instruction budget (lhost_count)
 * at the rates below, measured at about 200 VM instructions per
 * microsecond, so that a loop over costly calls ends at the limit too.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>

#include "lcore.h"
#include "mtc/cert.h"
#include "mtc/error.h"
#include "mtc/hash.h"
#include "mtc/landmark.h"
#include "mtc/merkle.h"
#include "mtc/tree.h"

#define TREE_MT "mtcsim.core.tree"

int lcore__fail(lua_State *L, const char *what, int rc)
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

uint64_t lcore__check_u64(lua_State *L, int i)
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
    lhost_count(L, COST_HASH + n / 2);
    mtc_hash h;
    mtc_sha256(s, n, &h);
    push_hash(L, &h);
    return 1;
}

static int c_leaf_hash(lua_State *L)
{
    size_t n;
    const char *s = luaL_checklstring(L, 1, &n);
    lhost_count(L, COST_HASH + n / 2);
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
    lhost_count(L, n / 2);
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
    size_t charged;     /* bytes counted against --max-memory */
} ltree;

/* Counts what the tree grew by since the last call. A growth step (one
 * chunk) is allocated before it is counted, so the cap can be passed by
 * one chunk, never more: the next append is refused. */
static void tree_charge(lua_State *L, ltree *t)
{
    size_t now = mtc_tree_memory(t->t);
    if (now > t->charged) {
        lhost_mem_charge(L, now - t->charged, "core.tree");
        t->charged = now;
    }
}

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
    t->charged = 0;
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
            lhost_count(L, COST_HASH + len / 2);
            mtc_hash h;
            mtc_hash_leaf(s, len, &h);
            int rc = mtc_tree_append(t->t, &h);
            if (rc != MTC_OK)
                return lcore__fail(L, "tree", rc);
            tree_charge(L, t);
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
    lhost_mem_uncharge(L, t->charged);
    t->charged = 0;
    return 0;
}

static int t_append(lua_State *L)
{
    ltree *t = check_tree(L);
    size_t n;
    const char *s = luaL_checklstring(L, 2, &n);
    lhost_count(L, COST_HASH + n / 2);
    mtc_hash h;
    mtc_hash_leaf(s, n, &h);
    uint64_t idx = mtc_tree_size(t->t);
    int rc = mtc_tree_append(t->t, &h);
    if (rc != MTC_OK)
        return lcore__fail(L, "append", rc);
    tree_charge(L, t);
    lua_pushinteger(L, (lua_Integer)idx);
    return 1;
}

static int t_append_hash(lua_State *L)
{
    ltree *t = check_tree(L);
    mtc_hash h;
    check_hash(L, 2, &h);
    lhost_count(L, COST_HASH);
    uint64_t idx = mtc_tree_size(t->t);
    int rc = mtc_tree_append(t->t, &h);
    if (rc != MTC_OK)
        return lcore__fail(L, "append_hash", rc);
    tree_charge(L, t);
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
    lhost_count(L, COST_PROOF);
    uint64_t n = lua_isnoneornil(L, 2) ? mtc_tree_size(t->t) : lcore__check_u64(L, 2);
    mtc_hash h;
    int rc = mtc_tree_root(t->t, n, &h);
    if (rc != MTC_OK)
        return lcore__fail(L, "root", rc);
    push_hash(L, &h);
    return 1;
}

static int t_subtree_hash(lua_State *L)
{
    ltree *t = check_tree(L);
    lhost_count(L, COST_PROOF);
    mtc_hash h;
    int rc = mtc_tree_subtree_hash(t->t, lcore__check_u64(L, 2), lcore__check_u64(L, 3), &h);
    if (rc != MTC_OK)
        return lcore__fail(L, "subtree_hash", rc);
    push_hash(L, &h);
    return 1;
}

static int t_leaf_hash(lua_State *L)
{
    ltree *t = check_tree(L);
    mtc_hash h;
    int rc = mtc_tree_leaf_hash(t->t, lcore__check_u64(L, 2), &h);
    if (rc != MTC_OK)
        return lcore__fail(L, "leaf_hash", rc);
    push_hash(L, &h);
    return 1;
}

/* t:inclusion_proof(index [, start, end]): default subtree [0, size). */
static int t_inclusion_proof(lua_State *L)
{
    ltree *t = check_tree(L);
    lhost_count(L, COST_PROOF);
    uint64_t i = lcore__check_u64(L, 2);
    uint64_t s = lua_isnoneornil(L, 3) ? 0 : lcore__check_u64(L, 3);
    uint64_t e = lua_isnoneornil(L, 4) ? mtc_tree_size(t->t) : lcore__check_u64(L, 4);
    mtc_node_source src;
    mtc_tree_source(t->t, &src);
    mtc_hash p[MTC_PROOF_MAX];
    size_t n;
    int rc = mtc_inclusion_proof(&src, i, s, e, p, &n);
    if (rc != MTC_OK)
        return lcore__fail(L, "inclusion_proof", rc);
    push_proof(L, p, n);
    return 1;
}

static int t_consistency_proof(lua_State *L)
{
    ltree *t = check_tree(L);
    lhost_count(L, COST_PROOF);
    uint64_t m = lcore__check_u64(L, 2);
    uint64_t n = lua_isnoneornil(L, 3) ? mtc_tree_size(t->t) : lcore__check_u64(L, 3);
    mtc_node_source src;
    mtc_tree_source(t->t, &src);
    mtc_hash p[MTC_PROOF_MAX];
    size_t len;
    int rc = mtc_consistency_proof(&src, m, n, p, &len);
    if (rc != MTC_OK)
        return lcore__fail(L, "consistency_proof", rc);
    push_proof(L, p, len);
    return 1;
}

static int t_subtree_consistency_proof(lua_State *L)
{
    ltree *t = check_tree(L);
    lhost_count(L, COST_PROOF);
    uint64_t s = lcore__check_u64(L, 2), e = lcore__check_u64(L, 3);
    uint64_t n = lua_isnoneornil(L, 4) ? mtc_tree_size(t->t) : lcore__check_u64(L, 4);
    mtc_node_source src;
    mtc_tree_source(t->t, &src);
    mtc_hash p[MTC_PROOF_MAX];
    size_t len;
    int rc = mtc_subtree_consistency_proof(&src, s, e, n, p, &len);
    if (rc != MTC_OK)
        return lcore__fail(L, "subtree_consistency_proof", rc);
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
    uint64_t i = lcore__check_u64(L, 1), s = lcore__check_u64(L, 2), e = lcore__check_u64(L, 3);
    check_hash(L, 4, &eh);
    size_t n = check_proof(L, 5, p);
    check_hash(L, 6, &sh);
    lhost_count(L, COST_PROOF);
    return verdict(L, mtc_inclusion_verify(i, s, e, &eh, p, n, &sh));
}

/* core.verify_consistency(m, n, old_root, new_root, proof) */
static int c_verify_consistency(lua_State *L)
{
    mtc_hash a, b, p[MTC_PROOF_MAX];
    uint64_t m = lcore__check_u64(L, 1), n = lcore__check_u64(L, 2);
    check_hash(L, 3, &a);
    check_hash(L, 4, &b);
    size_t len = check_proof(L, 5, p);
    lhost_count(L, COST_PROOF);
    return verdict(L, mtc_consistency_verify(m, n, &a, &b, p, len));
}

/* core.verify_subtree_consistency(start, end, n, node_hash, root, proof) */
static int c_verify_subtree_consistency(lua_State *L)
{
    mtc_hash a, b, p[MTC_PROOF_MAX];
    uint64_t s = lcore__check_u64(L, 1), e = lcore__check_u64(L, 2), n = lcore__check_u64(L, 3);
    check_hash(L, 4, &a);
    check_hash(L, 5, &b);
    size_t len = check_proof(L, 6, p);
    lhost_count(L, COST_PROOF);
    return verdict(L, mtc_subtree_consistency_verify(s, e, n, &a, &b, p, len));
}

/* core.covering_subtrees(start, end) -> {start, end}, {start, end} */
static int c_covering(lua_State *L)
{
    mtc_subtree a, b;
    int rc = mtc_covering_subtrees(lcore__check_u64(L, 1), lcore__check_u64(L, 2), &a, &b);
    if (rc != MTC_OK)
        return lcore__fail(L, "covering_subtrees", rc);
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
    /* the casts below are defined only for values that fit */
    luaL_argcheck(L, life > 0 && life <= 9007199254740992.0, 1,
                  "lifetime must be in (0, 2^53] seconds");
    luaL_argcheck(L, iv >= 1 && iv <= 9007199254740992.0, 2,
                  "interval must be in [1, 2^53] seconds");
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

mtc_sig_alg lcore__check_alg(lua_State *L, int i, const char *def)
{
    const char *name = luaL_optstring(L, i, def);
    const mtc_sig_info *info = mtc_sig_info_by_name(name);
    if (!info)
        luaL_error(L, "unknown signature algorithm '%s' (see core.algorithms())",
                   name);
    return info->alg;
}

/* core.parse_certificate(der) -> {serial, not_before, not_after,
 * proof_bytes, signatures, start, end, inclusion_hashes, bytes} */
static int c_parse_certificate(lua_State *L)
{
    size_t n;
    const uint8_t *der = (const uint8_t *)luaL_checklstring(L, 1, &n);
    lhost_count(L, COST_VERIFY + n / 2);
    mtc_cert c;
    int rc = mtc_cert_parse(der, n, &c);
    if (rc != MTC_OK)
        return lcore__fail(L, "parse_certificate", rc);
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

void lcore__new_mt(lua_State *L, const char *name, const luaL_Reg *meth,
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
    lcore__new_mt(L, TREE_MT, tree, t_gc);
    static const luaL_Reg core[] = {
        {"sha256", c_sha256}, {"leaf_hash", c_leaf_hash}, {"hex", c_hex},
        {"tree", c_tree}, {"verify_inclusion", c_verify_inclusion},
        {"verify_consistency", c_verify_consistency},
        {"verify_subtree_consistency", c_verify_subtree_consistency},
        {"covering_subtrees", c_covering},
        {"max_active_landmarks", c_max_active_landmarks},
        {"algorithms", c_algorithms},
        {"parse_certificate", c_parse_certificate}, {NULL, NULL}};
    luaL_newlib(L, core);
    lcore__register_ca(L);
    lua_setfield(L, -2, "core");
}
