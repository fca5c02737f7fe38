/*
 * run_share.c - `mtcsim run --share-warmup`: which runs of the plan share
 * one warm-up, and what the user is told about it.
 *
 * Runs share when they are of one replication (the same seed and random
 * streams: points of a sweep use common random numbers) and their sweep
 * points have equal warm-up keys (lworld_share_key: everything the model
 * sees before the warm-up end). The grouping is a plan made from each
 * point's state of replication 0; the worker checks every run's own key
 * again before it continues the warm-up (run_workers.c), so a scenario
 * whose declarations depend on the replication still runs right, only
 * unshared.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run_internal.h"
#include "mtc/error.h"

/* cls[p]: the first point whose key equals p's; p itself when none
 * before it does or p shares nothing. */
static void classes(const plan *pl, char *const *keys, size_t *cls)
{
    for (size_t p = 0; p < pl->npoints; p++) {
        cls[p] = p;
        for (size_t q = 0; keys[p] && q < p; q++)
            if (cls[q] == q && keys[q] && !strcmp(keys[p], keys[q])) {
                cls[p] = q;
                break;
            }
    }
}

int run_share_groups(const plan *pl, char *const *keys, const size_t *todo,
                     size_t ntodo, size_t **at, size_t **pos, size_t *ngroups)
{
    size_t reps = (size_t)pl->reps;
    size_t *cls = malloc((pl->npoints ? pl->npoints : 1) * sizeof *cls);
    unsigned char *taken = calloc(ntodo ? ntodo : 1, 1);
    *at = malloc((ntodo + 1) * sizeof **at);
    *pos = malloc((ntodo ? ntodo : 1) * sizeof **pos);
    if (!cls || !taken || !*at || !*pos) {
        free(cls);
        free(taken);
        free(*at);
        free(*pos);
        *at = *pos = NULL;
        return MTC_ERR_NOMEM;
    }
    classes(pl, keys, cls);
    size_t g = 0, n = 0;
    for (size_t k = 0; k < ntodo; k++) {
        if (taken[k])
            continue;
        size_t p = todo[k] / reps, r = todo[k] % reps, size = 1;
        (*at)[g++] = n;
        (*pos)[n++] = k;
        taken[k] = 1;
        for (size_t k2 = k + 1; keys[p] && k2 < ntodo && size < RUN_GROUP_MAX; k2++) {
            size_t p2 = todo[k2] / reps, r2 = todo[k2] % reps;
            if (!taken[k2] && r2 == r && cls[p2] == cls[p]) {
                (*pos)[n++] = k2;
                taken[k2] = 1;
                size++;
            }
        }
    }
    (*at)[g] = n;
    *ngroups = g;
    free(cls);
    free(taken);
    return MTC_OK;
}

/* The names (before '=') of the first lines in which keys a and b
 * differ, line by line: up to three, then how many more; into out. */
static void differences(const char *a, const char *b, char *out, size_t n)
{
    size_t used = 0, found = 0;
    out[0] = '\0';
    while (*a || *b) {
        size_t la = strcspn(a, "\n"), lb = strcspn(b, "\n");
        if (la != lb || memcmp(a, b, la)) {
            const char *s = la ? a : b;
            size_t len = strcspn(s, "=\n");
            if (found < 3 && used < n) {
                int w = !strncmp(s, "at.", 3)
                            ? snprintf(out + used, n - used, "%sa timed world "
                                       "action", found ? ", " : "")
                            : snprintf(out + used, n - used, "%s%.*s",
                                       found ? ", " : "",
                                       (int)(len < 120 ? len : 120), s);
                used += w > 0 ? (size_t)w : 0;
            }
            found++;
        }
        a += la + (a[la] == '\n');
        b += lb + (b[lb] == '\n');
    }
    if (found > 3 && used < n)
        snprintf(out + used, n - used, " and %zu more", found - 3);
}

void run_share_print(FILE *f, const plan *pl, char *const *keys,
                     char *const *whys, size_t ngroups, size_t ntodo)
{
    size_t *cls = malloc((pl->npoints ? pl->npoints : 1) * sizeof *cls);
    if (!cls)
        return;
    classes(pl, keys, cls);
    fprintf(f, "# --share-warmup: %zu warm-up%s for %zu run%s\n", ngroups,
            ngroups == 1 ? "" : "s", ntodo, ntodo == 1 ? "" : "s");
    for (size_t p = 0; p < pl->npoints; p++) {
        char lab[512];
        run_point_label(pl, p, lab, sizeof lab);
        if (!keys[p]) {
            fprintf(f, "#   point %zu [%s]: its own warm-ups: %s\n", p, lab,
                    whys[p] ? whys[p] : "");
            continue;
        }
        if (cls[p] != p) {
            fprintf(f, "#   point %zu [%s]: shares the warm-ups of point %zu\n",
                    p, lab, cls[p]);
            continue;
        }
        size_t others = 0, q0 = p;
        for (size_t q = p + 1; q < pl->npoints; q++)
            others += cls[q] == p;
        for (size_t q = 0; q < p && q0 == p; q++)
            if (keys[q] && cls[q] == q)
                q0 = q;
        if (!others && q0 != p) {
            char what[512];
            differences(keys[p], keys[q0], what, sizeof what);
            fprintf(f, "#   point %zu [%s]: its own warm-ups: before the "
                       "warm-up end it differs from point %zu in %s\n", p, lab,
                    q0, what);
        }
    }
    free(cls);
}

double run_share_saved(const plan *pl, const size_t *todo, const size_t *at,
                       const size_t *pos, size_t ngroups, const double *warm_s)
{
    double saved = 0;
    for (size_t g = 0; g < ngroups; g++) {
        size_t point = todo[pos[at[g]]] / (size_t)pl->reps;
        saved += (double)(at[g + 1] - at[g] - 1) * warm_s[point];
    }
    return saved;
}
