/*
 * compare_match.c - matching two experiments' sweep points on their
 * effective parameters (compare_match.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmdline.h"
#include "compare_match.h"

/* What the points of exp ran: the scenario's SHA-256 (the point's first
 * run's), the files it loaded and the entity --set options of the stored
 * command line; "" when any of it is unknown. malloc'ed. */
static char *source_of(sim_results *db, int64_t exp, int64_t first_run)
{
    sim_run_row *r = malloc(sizeof *r);
    sim_experiment_row *e = malloc(sizeof *e);
    sim_attr_row *at = NULL;
    size_t nat = 0;
    char sets[4096];
    size_t cap = 8192;
    char *out = malloc(cap);
    int ok = r && e && out && sim_results_run(db, first_run, r) == 0 && r->id >= 0 &&
             r->scenario_sha256[0] && sim_results_experiment(db, exp, e) == 0 &&
             e->id >= 0 && e->command_line[0] &&
             cmdline_entity_sets(e->command_line, sets, sizeof sets) == 0 &&
             sim_results_attrs(db, exp, "loaded:", 0, &at, &nat) == 0;
    if (out) {
        out[0] = '\0';
        size_t len = 0;
        if (ok)
            len = (size_t)snprintf(out, cap, "%s\n%s", r->scenario_sha256, sets);
        for (size_t i = 0; ok && i < nat && len < cap; i++)
            len += (size_t)snprintf(out + len, cap - len, "%s=%s\n", at[i].name,
                                    at[i].value);
        if (len >= cap)
            out[0] = '\0';
    }
    free(at);
    free(r);
    free(e);
    return out;
}

int cmp_side_load(sim_results *db, int64_t exp, const int64_t *points, size_t np,
                  cmp_side *out)
{
    memset(out, 0, sizeof *out);
    sim_point_row *pts;
    size_t n;
    if (sim_results_points(db, exp, &pts, &n) != 0)
        return -1;
    out->p = calloc(np ? np : 1, sizeof *out->p);
    out->n = calloc(np ? np : 1, sizeof *out->n);
    out->source = calloc(np ? np : 1, sizeof *out->source);
    int rc = out->p && out->n && out->source ? 0 : -1;
    out->npoints = rc ? 0 : np;
    for (size_t i = 0; !rc && i < np; i++)
        for (size_t k = 0; k < n; k++)
            if (pts[k].point == points[i] &&
                (sim_results_run_params(db, pts[k].first_run, 0, &out->p[i],
                                        &out->n[i]) ||
                 !(out->source[i] = source_of(db, exp, pts[k].first_run))))
                rc = -1;
    free(pts);
    return rc;
}

void cmp_side_free(cmp_side *s)
{
    for (size_t i = 0; s->p && i < s->npoints; i++) {
        free(s->p[i]);
        if (s->source)
            free(s->source[i]);
    }
    free(s->p);
    free(s->n);
    free(s->source);
    memset(s, 0, sizeof *s);
}

static int same_key(const sim_param_row *a, const sim_param_row *b)
{
    return !strcmp(a->kind, b->kind) && !strcmp(a->entity, b->entity) &&
           !strcmp(a->name, b->name);
}

static const sim_param_row *find(const cmp_side *s, size_t pt, const sim_param_row *k)
{
    for (size_t i = 0; i < s->n[pt]; i++)
        if (same_key(&s->p[pt][i], k))
            return &s->p[pt][i];
    return NULL;
}

int cmp_declared(const sim_param_row *p, const char *const *axes, size_t naxes)
{
    char en[300], ken[400];
    snprintf(en, sizeof en, "%s.%s", p->entity, p->name);
    snprintf(ken, sizeof ken, "%s.%s.%s", p->kind, p->entity, p->name);
    for (size_t i = 0; i < naxes; i++)
        if (!strcmp(axes[i], p->name) || !strcmp(axes[i], en) || !strcmp(axes[i], ken))
            return 1;
    return 0;
}

/* 1 when p (a world or entity parameter) follows from the scenario
 * parameters: A's point i and B's point j ran the same scenario with the
 * same entity --set options (compare_match.h). */
static int follows(const cmp_side *a, size_t i, const cmp_side *b, size_t j,
                   const sim_param_row *p)
{
    return strcmp(p->kind, "scenario") && a->source && b->source &&
           a->source[i] && b->source[j] && a->source[i][0] &&
           !strcmp(a->source[i], b->source[j]);
}

/* 1 when parameter k takes more than one value over s's points. */
static int is_axis(const cmp_side *s, const sim_param_row *k)
{
    const char *first = NULL;
    for (size_t pt = 0; pt < s->npoints; pt++) {
        const sim_param_row *q = find(s, pt, k);
        const char *v = q ? q->value : "";
        if (!first)
            first = v;
        else if (strcmp(first, v))
            return 1;
    }
    return 0;
}

/* Whether A's point i and B's point j agree on every axis of either side
 * (undeclared) that both hold. */
static int matches(const cmp_side *a, size_t i, const cmp_side *b, size_t j,
                   const char *const *axes, size_t naxes)
{
    for (size_t k = 0; k < a->n[i]; k++) {
        const sim_param_row *p = &a->p[i][k];
        const sim_param_row *q = find(b, j, p);
        if (!q || !strcmp(p->value, q->value) || cmp_declared(p, axes, naxes) ||
            follows(a, i, b, j, p))
            continue;
        if (is_axis(a, p) || is_axis(b, p))
            return 0;
    }
    return 1;
}

size_t cmp_match(const cmp_side *a, const cmp_side *b, const char *const *axes,
                 size_t naxes, size_t (*pairs)[2], size_t max)
{
    size_t n = 0;
    for (size_t i = 0; i < a->npoints; i++)
        for (size_t j = 0; j < b->npoints && n < max; j++)
            if (matches(a, i, b, j, axes, naxes)) {
                pairs[n][0] = i;
                pairs[n][1] = j;
                n++;
            }
    return n;
}

static void append(char *buf, size_t n, size_t *shown, const char *fmt,
                   const sim_param_row *p, const char *va, const char *vb)
{
    size_t l = strlen(buf);
    if (*shown == 8) {
        snprintf(buf + l, n - l, ", ...");
    } else if (*shown < 8) {
        char key[400];
        snprintf(key, sizeof key, "%s.%s.%s", p->kind, p->entity, p->name);
        snprintf(buf + l, n - l, fmt, l ? ", " : "", key, va, vb);
    }
    (*shown)++;
}

void cmp_differences(const cmp_side *a, size_t pa, const cmp_side *b, size_t pb,
                     const char *const *axes, size_t naxes, char *buf, size_t n,
                     size_t *ndiff, size_t *undeclared, char *fbuf, size_t fn,
                     size_t *nfollow)
{
    size_t shown = 0, fshown = 0;
    buf[0] = '\0';
    fbuf[0] = '\0';
    *ndiff = *undeclared = *nfollow = 0;
    for (size_t k = 0; k < a->n[pa]; k++) {
        const sim_param_row *p = &a->p[pa][k];
        const sim_param_row *q = find(b, pb, p);
        if (q && !strcmp(p->value, q->value))
            continue;
        if (follows(a, pa, b, pb, p)) {
            (*nfollow)++;
            append(fbuf, fn, &fshown, "%s%s %.40s vs %.40s", p, p->value,
                   q ? q->value : "(none)");
            continue;
        }
        (*ndiff)++;
        *undeclared += !cmp_declared(p, axes, naxes);
        append(buf, n, &shown, "%s%s %.40s vs %.40s", p, p->value, q ? q->value : "(none)");
    }
    for (size_t k = 0; k < b->n[pb]; k++) {
        const sim_param_row *q = &b->p[pb][k];
        if (find(a, pa, q))
            continue;
        if (follows(a, pa, b, pb, q)) {
            (*nfollow)++;
            append(fbuf, fn, &fshown, "%s%s %.40s vs %.40s", q, "(none)", q->value);
            continue;
        }
        (*ndiff)++;
        *undeclared += !cmp_declared(q, axes, naxes);
        append(buf, n, &shown, "%s%s %.40s vs %.40s", q, "(none)", q->value);
    }
}
