/*
 * names.c - edit distance and the closest name (sim/names.h).
 */
#include <string.h>

#include "sim/names.h"

size_t sim_name_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 63 || lb > 63)
        return 99;
    size_t prev[64], cur[64];
    for (size_t j = 0; j <= lb; j++)
        prev[j] = j;
    for (size_t i = 1; i <= la; i++) {
        cur[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t c = prev[j - 1] + (a[i - 1] != b[j - 1]);
            c = prev[j] + 1 < c ? prev[j] + 1 : c;
            c = cur[j - 1] + 1 < c ? cur[j - 1] + 1 : c;
            cur[j] = c;
        }
        memcpy(prev, cur, (lb + 1) * sizeof *prev);
    }
    return prev[lb];
}

const char *sim_name_closest(const char *word, const char *const *cands,
                             size_t n)
{
    size_t limit = strlen(word) / 3;
    limit = limit < 2 ? 2 : limit;
    const char *best = NULL;
    size_t bd = limit + 1;
    for (size_t i = 0; i < n; i++) {
        size_t d = sim_name_distance(word, cands[i]);
        if (d < bd && d > 0) {
            bd = d;
            best = cands[i];
        }
    }
    return best;
}
