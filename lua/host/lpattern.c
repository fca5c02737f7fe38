/*
 * lpattern.c - string.find, match, gmatch and gsub for the sandbox: Lua
 * 5.4's own pattern matcher (lstrlib.c, Copyright (C) 1994-2022
 * Lua.org, PUC-Rio, MIT licence) with one change: its steps are charged
 * to the instruction budget (lhost_count).
 *
 * Why a copy: the standard matcher runs in C, where the count hook never
 * fires, and backtracking makes it quadratic ("a":rep(1e6):find(".-b"))
 * or worse (".-.-.-.-b"): one line could hold the run for hours. A
 * length or complexity guard would refuse patterns that are fine in
 * practice; counting the work refuses only what exceeds the budget, with
 * the same error as a Lua loop. One step is one call of the matcher, one
 * character tried by a repetition or a balance, one candidate of a plain
 * search; a step costs about what a VM instruction does.
 */
#include "lhost.h"

#include <ctype.h>
#include <stddef.h>
#include <string.h>

#include <lauxlib.h>

#define MAXCAPTURES 32
#define MAXCCALLS 200      /* recursion depth of match (C stack) */
#define L_ESC '%'
#define SPECIALS "^$*+?.([%-"
#define CAP_UNFINISHED (-1)
#define CAP_POSITION (-2)

typedef struct match_state {
    const char *src_init;   /* init of source string */
    const char *src_end;    /* end ('\0') of source string */
    const char *p_end;      /* end ('\0') of pattern */
    lua_State *L;
    int matchdepth;         /* control for recursive depth */
    unsigned char level;    /* total number of captures */
    lhost_meter meter;      /* steps not yet charged */
    struct {
        const char *init;
        ptrdiff_t len;
    } capture[MAXCAPTURES];
} match_state;

static void charge(match_state *ms, uint64_t n)
{
    lhost_meter_add(&ms->meter, n);
}

static void flush(match_state *ms)
{
    lhost_meter_flush(&ms->meter);
}

static const char *match(match_state *ms, const char *s, const char *p);

static size_t posrelat(lua_Integer pos, size_t len)
{
    if (pos > 0)
        return (size_t)pos;
    if (pos == 0)
        return 1;
    if (pos < -(lua_Integer)len)
        return 1;
    return len + (size_t)pos + 1;
}

static int check_capture(match_state *ms, int l)
{
    l -= '1';
    if (l < 0 || l >= ms->level || ms->capture[l].len == CAP_UNFINISHED)
        return luaL_error(ms->L, "invalid capture index %%%d", l + 1);
    return l;
}

static int capture_to_close(match_state *ms)
{
    int level = ms->level;
    for (level--; level >= 0; level--)
        if (ms->capture[level].len == CAP_UNFINISHED)
            return level;
    return luaL_error(ms->L, "invalid pattern capture");
}

static const char *classend(match_state *ms, const char *p)
{
    switch (*p++) {
    case L_ESC:
        if (p == ms->p_end)
            luaL_error(ms->L, "malformed pattern (ends with '%%')");
        return p + 1;
    case '[':
        if (*p == '^')
            p++;
        do {    /* look for a ']' */
            if (p == ms->p_end)
                luaL_error(ms->L, "malformed pattern (missing ']')");
            if (*(p++) == L_ESC && p < ms->p_end)
                p++;    /* skip escapes (e.g. '%]') */
        } while (*p != ']');
        return p + 1;
    default:
        return p;
    }
}

static int match_class(int c, int cl)
{
    int res;
    switch (tolower(cl)) {
    case 'a': res = isalpha(c); break;
    case 'c': res = iscntrl(c); break;
    case 'd': res = isdigit(c); break;
    case 'g': res = isgraph(c); break;
    case 'l': res = islower(c); break;
    case 'p': res = ispunct(c); break;
    case 's': res = isspace(c); break;
    case 'u': res = isupper(c); break;
    case 'w': res = isalnum(c); break;
    case 'x': res = isxdigit(c); break;
    case 'z': res = (c == 0); break;    /* deprecated option */
    default: return cl == c;
    }
    return islower(cl) ? res : !res;
}

static int matchbracketclass(int c, const char *p, const char *ec)
{
    int sig = 1;
    if (*(p + 1) == '^') {
        sig = 0;
        p++;
    }
    while (++p < ec) {
        if (*p == L_ESC) {
            p++;
            if (match_class(c, (unsigned char)*p))
                return sig;
        } else if (*(p + 1) == '-' && p + 2 < ec) {
            p += 2;
            if ((unsigned char)*(p - 2) <= c && c <= (unsigned char)*p)
                return sig;
        } else if ((unsigned char)*p == c) {
            return sig;
        }
    }
    return !sig;
}

static int singlematch(match_state *ms, const char *s, const char *p,
                       const char *ep)
{
    if (s >= ms->src_end)
        return 0;
    int c = (unsigned char)*s;
    switch (*p) {
    case '.': return 1;
    case L_ESC: return match_class(c, (unsigned char)*(p + 1));
    case '[': return matchbracketclass(c, p, ep - 1);
    default: return (unsigned char)*p == c;
    }
}

static const char *matchbalance(match_state *ms, const char *s, const char *p)
{
    if (p >= ms->p_end - 1)
        luaL_error(ms->L, "malformed pattern (missing arguments to '%%b')");
    if (*s != *p)
        return NULL;
    int b = *p, e = *(p + 1), cont = 1;
    while (++s < ms->src_end) {
        charge(ms, 1);
        if (*s == e) {
            if (--cont == 0)
                return s + 1;
        } else if (*s == b) {
            cont++;
        }
    }
    return NULL;
}

static const char *max_expand(match_state *ms, const char *s, const char *p,
                              const char *ep)
{
    ptrdiff_t i = 0;
    while (singlematch(ms, s + i, p, ep)) {
        charge(ms, 1);
        i++;
    }
    while (i >= 0) {    /* try with the most repetitions first */
        const char *res = match(ms, s + i, ep + 1);
        if (res)
            return res;
        i--;
    }
    return NULL;
}

static const char *min_expand(match_state *ms, const char *s, const char *p,
                              const char *ep)
{
    for (;;) {
        const char *res = match(ms, s, ep + 1);
        if (res != NULL)
            return res;
        if (!singlematch(ms, s, p, ep))
            return NULL;
        s++;    /* try with one more repetition */
    }
}

static const char *start_capture(match_state *ms, const char *s, const char *p,
                                 int what)
{
    int level = ms->level;
    if (level >= MAXCAPTURES)
        luaL_error(ms->L, "too many captures");
    ms->capture[level].init = s;
    ms->capture[level].len = what;
    ms->level = (unsigned char)(level + 1);
    const char *res = match(ms, s, p);
    if (res == NULL)
        ms->level--;
    return res;
}

static const char *end_capture(match_state *ms, const char *s, const char *p)
{
    int l = capture_to_close(ms);
    ms->capture[l].len = s - ms->capture[l].init;
    const char *res = match(ms, s, p);
    if (res == NULL)
        ms->capture[l].len = CAP_UNFINISHED;
    return res;
}

static const char *match_capture(match_state *ms, const char *s, int l)
{
    l = check_capture(ms, l);
    size_t len = (size_t)ms->capture[l].len;
    charge(ms, len / 32);
    if ((size_t)(ms->src_end - s) >= len &&
        memcmp(ms->capture[l].init, s, len) == 0)
        return s + len;
    return NULL;
}

static const char *match(match_state *ms, const char *s, const char *p)
{
    if (ms->matchdepth-- == 0)
        luaL_error(ms->L, "pattern too complex");
init:   /* using goto's to optimize tail recursion */
    charge(ms, 1);
    if (p != ms->p_end) {
        switch (*p) {
        case '(':
            if (*(p + 1) == ')')
                s = start_capture(ms, s, p + 2, CAP_POSITION);
            else
                s = start_capture(ms, s, p + 1, CAP_UNFINISHED);
            break;
        case ')':
            s = end_capture(ms, s, p + 1);
            break;
        case '$':
            if ((p + 1) != ms->p_end)
                goto dflt;
            s = (s == ms->src_end) ? s : NULL;
            break;
        case L_ESC:
            switch (*(p + 1)) {
            case 'b':
                s = matchbalance(ms, s, p + 2);
                if (s != NULL) {
                    p += 4;
                    goto init;
                }
                break;
            case 'f': {
                p += 2;
                if (*p != '[')
                    luaL_error(ms->L, "missing '[' after '%%f' in pattern");
                const char *ep = classend(ms, p);
                char previous = (s == ms->src_init) ? '\0' : *(s - 1);
                if (!matchbracketclass((unsigned char)previous, p, ep - 1) &&
                    matchbracketclass((unsigned char)*s, p, ep - 1)) {
                    p = ep;
                    goto init;
                }
                s = NULL;
                break;
            }
            case '0': case '1': case '2': case '3': case '4':
            case '5': case '6': case '7': case '8': case '9':
                s = match_capture(ms, s, (unsigned char)*(p + 1));
                if (s != NULL) {
                    p += 2;
                    goto init;
                }
                break;
            default:
                goto dflt;
            }
            break;
        default:
        dflt: {
            const char *ep = classend(ms, p);
            if (!singlematch(ms, s, p, ep)) {
                if (*ep == '*' || *ep == '?' || *ep == '-') {
                    p = ep + 1;
                    goto init;
                }
                s = NULL;
            } else {
                switch (*ep) {
                case '?': {
                    const char *res = match(ms, s + 1, ep + 1);
                    if (res != NULL) {
                        s = res;
                    } else {
                        p = ep + 1;
                        goto init;
                    }
                    break;
                }
                case '+':
                    s++;
                    /* fall through */
                case '*':
                    s = max_expand(ms, s, p, ep);
                    break;
                case '-':
                    s = min_expand(ms, s, p, ep);
                    break;
                default:
                    s++;
                    p = ep;
                    goto init;
                }
            }
            break;
        }
        }
    }
    ms->matchdepth++;
    return s;
}

static const char *lmemfind(match_state *ms, const char *s1, size_t l1,
                            const char *s2, size_t l2)
{
    if (l2 == 0)
        return s1;
    if (l2 > l1)
        return NULL;
    l2--;       /* 1st char is checked by memchr */
    l1 = l1 - l2;
    const char *init;
    while (l1 > 0 && (init = memchr(s1, *s2, l1)) != NULL) {
        charge(ms, 1 + l2 / 32);
        init++;
        if (memcmp(init, s2 + 1, l2) == 0)
            return init - 1;
        l1 -= (size_t)(init - s1);
        s1 = init;
    }
    return NULL;
}

static size_t get_onecapture(match_state *ms, int i, const char *s,
                             const char *e, const char **cap)
{
    if (i >= ms->level) {
        if (i != 0)
            luaL_error(ms->L, "invalid capture index %%%d", i + 1);
        *cap = s;
        return (size_t)(e - s);
    }
    ptrdiff_t capl = ms->capture[i].len;
    *cap = ms->capture[i].init;
    if (capl == CAP_UNFINISHED)
        luaL_error(ms->L, "unfinished capture");
    else if (capl == CAP_POSITION)
        lua_pushinteger(ms->L, (ms->capture[i].init - ms->src_init) + 1);
    return (size_t)capl;
}

static void push_onecapture(match_state *ms, int i, const char *s,
                            const char *e)
{
    const char *cap;
    ptrdiff_t l = (ptrdiff_t)get_onecapture(ms, i, s, e, &cap);
    if (l != CAP_POSITION)
        lua_pushlstring(ms->L, cap, (size_t)l);
}

static int push_captures(match_state *ms, const char *s, const char *e)
{
    int nlevels = (ms->level == 0 && s) ? 1 : ms->level;
    luaL_checkstack(ms->L, nlevels, "too many captures");
    for (int i = 0; i < nlevels; i++)
        push_onecapture(ms, i, s, e);
    return nlevels;
}

static int nospecials(const char *p, size_t l)
{
    size_t upto = 0;
    do {
        if (strpbrk(p + upto, SPECIALS))
            return 0;
        upto += strlen(p + upto) + 1;
    } while (upto <= l);
    return 1;
}

static void prepstate(match_state *ms, lua_State *L, const char *s, size_t ls,
                      const char *p, size_t lp)
{
    ms->L = L;
    ms->matchdepth = MAXCCALLS;
    ms->src_init = s;
    ms->src_end = s + ls;
    ms->p_end = p + lp;
    ms->meter.L = L;
    ms->meter.pending = 0;
}

static void reprepstate(match_state *ms)
{
    ms->level = 0;
}

static int str_find_aux(lua_State *L, int find)
{
    size_t ls, lp;
    const char *s = luaL_checklstring(L, 1, &ls);
    const char *p = luaL_checklstring(L, 2, &lp);
    size_t init = posrelat(luaL_optinteger(L, 3, 1), ls) - 1;
    match_state ms;
    if (init > ls) {
        luaL_pushfail(L);
        return 1;
    }
    prepstate(&ms, L, s, ls, p, lp);
    if (find && (lua_toboolean(L, 4) || nospecials(p, lp))) {
        const char *s2 = lmemfind(&ms, s + init, ls - init, p, lp);
        flush(&ms);
        if (s2) {
            lua_pushinteger(L, (s2 - s) + 1);
            lua_pushinteger(L, (lua_Integer)((size_t)(s2 - s) + lp));
            return 2;
        }
    } else {
        const char *s1 = s + init;
        int anchor = (*p == '^');
        if (anchor) {
            p++;
            lp--;
        }
        prepstate(&ms, L, s, ls, p, lp);
        do {
            const char *res;
            reprepstate(&ms);
            if ((res = match(&ms, s1, p)) != NULL) {
                flush(&ms);
                if (find) {
                    lua_pushinteger(L, (s1 - s) + 1);
                    lua_pushinteger(L, res - s);
                    return push_captures(&ms, NULL, 0) + 2;
                }
                return push_captures(&ms, s1, res);
            }
        } while (s1++ < ms.src_end && !anchor);
        flush(&ms);
    }
    luaL_pushfail(L);
    return 1;
}

static int str_find(lua_State *L)
{
    return str_find_aux(L, 1);
}

static int str_match(lua_State *L)
{
    return str_find_aux(L, 0);
}

typedef struct gmatch_state {
    const char *src;        /* current position */
    const char *p;          /* pattern */
    const char *lastmatch;  /* end of last match */
    match_state ms;
} gmatch_state;

static int gmatch_aux(lua_State *L)
{
    gmatch_state *gm = lua_touserdata(L, lua_upvalueindex(3));
    gm->ms.L = L;
    for (const char *src = gm->src; src <= gm->ms.src_end; src++) {
        const char *e;
        reprepstate(&gm->ms);
        if ((e = match(&gm->ms, src, gm->p)) != NULL && e != gm->lastmatch) {
            gm->src = gm->lastmatch = e;
            flush(&gm->ms);
            return push_captures(&gm->ms, src, e);
        }
    }
    flush(&gm->ms);
    return 0;
}

static int gmatch(lua_State *L)
{
    size_t ls, lp;
    const char *s = luaL_checklstring(L, 1, &ls);
    const char *p = luaL_checklstring(L, 2, &lp);
    size_t init = posrelat(luaL_optinteger(L, 3, 1), ls) - 1;
    lua_settop(L, 2);   /* keep strings on closure to avoid being collected */
    gmatch_state *gm = lua_newuserdatauv(L, sizeof *gm, 0);
    if (init > ls)
        init = ls + 1;
    prepstate(&gm->ms, L, s, ls, p, lp);
    gm->src = s + init;
    gm->p = p;
    gm->lastmatch = NULL;
    lua_pushcclosure(L, gmatch_aux, 3);
    return 1;
}

static void add_s(match_state *ms, luaL_Buffer *b, const char *s, const char *e)
{
    size_t l;
    lua_State *L = ms->L;
    const char *news = lua_tolstring(L, 3, &l);
    const char *p;
    while ((p = memchr(news, L_ESC, l)) != NULL) {
        luaL_addlstring(b, news, (size_t)(p - news));
        p++;
        if (*p == L_ESC) {
            luaL_addchar(b, *p);
        } else if (*p == '0') {
            luaL_addlstring(b, s, (size_t)(e - s));
        } else if (isdigit((unsigned char)*p)) {
            const char *cap;
            ptrdiff_t resl = (ptrdiff_t)get_onecapture(ms, *p - '1', s, e, &cap);
            if (resl == CAP_POSITION)
                luaL_addvalue(b);
            else
                luaL_addlstring(b, cap, (size_t)resl);
        } else {
            luaL_error(L, "invalid use of '%c' in replacement string", L_ESC);
        }
        l -= (size_t)(p + 1 - news);
        news = p + 1;
    }
    luaL_addlstring(b, news, l);
}

static int add_value(match_state *ms, luaL_Buffer *b, const char *s,
                     const char *e, int tr)
{
    lua_State *L = ms->L;
    switch (tr) {
    case LUA_TFUNCTION: {
        lua_pushvalue(L, 3);
        int n = push_captures(ms, s, e);
        lua_call(L, n, 1);
        break;
    }
    case LUA_TTABLE:
        push_onecapture(ms, 0, s, e);
        lua_gettable(L, 3);
        break;
    default:
        add_s(ms, b, s, e);
        return 1;
    }
    if (!lua_toboolean(L, -1)) {
        lua_pop(L, 1);
        luaL_addlstring(b, s, (size_t)(e - s));
        return 0;
    }
    if (!lua_isstring(L, -1))
        return luaL_error(L, "invalid replacement value (a %s)",
                          luaL_typename(L, -1));
    luaL_addvalue(b);
    return 1;
}

static int str_gsub(lua_State *L)
{
    size_t srcl, lp;
    const char *src = luaL_checklstring(L, 1, &srcl);
    const char *p = luaL_checklstring(L, 2, &lp);
    const char *lastmatch = NULL;
    int tr = lua_type(L, 3);
    lua_Integer max_s = luaL_optinteger(L, 4, (lua_Integer)srcl + 1);
    int anchor = (*p == '^');
    lua_Integer n = 0;
    int changed = 0;
    match_state ms;
    luaL_Buffer b;
    luaL_argexpected(L, tr == LUA_TNUMBER || tr == LUA_TSTRING ||
                            tr == LUA_TFUNCTION || tr == LUA_TTABLE,
                     3, "string/function/table");
    luaL_buffinit(L, &b);
    if (anchor) {
        p++;
        lp--;
    }
    prepstate(&ms, L, src, srcl, p, lp);
    while (n < max_s) {
        const char *e;
        reprepstate(&ms);
        if ((e = match(&ms, src, p)) != NULL && e != lastmatch) {
            n++;
            flush(&ms);     /* a replacement function runs Lua: settle first */
            changed = add_value(&ms, &b, src, e, tr) | changed;
            src = lastmatch = e;
        } else if (src < ms.src_end) {
            luaL_addchar(&b, *src++);
        } else {
            break;
        }
        if (anchor)
            break;
    }
    flush(&ms);
    if (!changed) {
        lua_pushvalue(L, 1);
    } else {
        luaL_addlstring(&b, src, (size_t)(ms.src_end - src));
        luaL_pushresult(&b);
    }
    lua_pushinteger(L, n);
    return 2;
}

void lpattern_register(lua_State *L)
{
    static const luaL_Reg fns[] = {{"find", str_find}, {"match", str_match},
                                   {"gmatch", gmatch}, {"gsub", str_gsub},
                                   {NULL, NULL}};
    luaL_setfuncs(L, fns, 0);
}
