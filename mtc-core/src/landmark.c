/*
 * landmark.c - landmark sequences: allocation, active window, subtrees,
 * the publishing text format and its strict parser.
 *
 * The sizes are kept in a ring of max_active + 1 slots: a landmark is
 * appended every landmark interval (hourly in the draft's example) for the
 * life of a simulation, while only the active window is ever consulted.
 */
#include "mtc/landmark.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mtc/error.h"

struct mtc_landmarks {
    uint64_t max_active;
    uint64_t last;           /* number of the last landmark */
    uint64_t num_active;     /* <= min(max_active, last); sizes kept: +1 */
    uint64_t last_interval;  /* allocation: interval of the last append */
    int have_interval;
    uint64_t *ring;          /* size of landmark L at ring[L % (max_active+1)] */
};

uint64_t mtc_max_active_landmarks(uint64_t lifetime, uint64_t between)
{
    if (lifetime == 0 || between == 0)
        return 0;
    return lifetime / between + (lifetime % between != 0) + 1;
}

mtc_landmarks *mtc_landmarks_new(uint64_t max_active)
{
    if (max_active == 0 || max_active > (UINT64_C(1) << 32))
        return NULL;
    mtc_landmarks *lm = calloc(1, sizeof *lm);
    if (!lm)
        return NULL;
    lm->ring = calloc((size_t)max_active + 1, sizeof *lm->ring);
    if (!lm->ring) {
        free(lm);
        return NULL;
    }
    lm->max_active = max_active;
    return lm;
}

void mtc_landmarks_free(mtc_landmarks *lm)
{
    if (!lm)
        return;
    free(lm->ring);
    free(lm);
}

uint64_t mtc_landmarks_max_active(const mtc_landmarks *lm)
{
    return lm->max_active;
}

uint64_t mtc_landmarks_last(const mtc_landmarks *lm)
{
    return lm->last;
}

uint64_t mtc_landmarks_num_active(const mtc_landmarks *lm)
{
    return lm->num_active;
}

uint64_t mtc_landmarks_first_kept(const mtc_landmarks *lm)
{
    return lm->last - mtc_landmarks_num_active(lm);
}

static uint64_t *slot(const mtc_landmarks *lm, uint64_t l)
{
    return &lm->ring[l % (lm->max_active + 1)];
}

int mtc_landmarks_size(const mtc_landmarks *lm, uint64_t l, uint64_t *size)
{
    if (l > lm->last || l < mtc_landmarks_first_kept(lm))
        return MTC_ERR_RANGE;
    *size = *slot(lm, l);
    return MTC_OK;
}

int mtc_landmarks_append(mtc_landmarks *lm, uint64_t tree_size)
{
    if (tree_size <= *slot(lm, lm->last) || lm->last == UINT64_MAX)
        return MTC_ERR_LANDMARK;
    lm->last++;
    *slot(lm, lm->last) = tree_size;
    if (lm->num_active < lm->max_active)
        lm->num_active++;
    return MTC_OK;
}

int mtc_landmarks_allocate(mtc_landmarks *lm, uint64_t interval,
                           uint64_t checkpoint_size, int *allocated)
{
    if (allocated)
        *allocated = 0;
    if (lm->have_interval && interval < lm->last_interval)
        return MTC_ERR_ARG;
    if (lm->have_interval && interval == lm->last_interval)
        return MTC_OK; /* at most once per interval */
    if (checkpoint_size <= *slot(lm, lm->last))
        return MTC_OK; /* nothing new: try again next interval */
    int rc = mtc_landmarks_append(lm, checkpoint_size);
    if (rc != MTC_OK)
        return rc;
    lm->have_interval = 1;
    lm->last_interval = interval;
    if (allocated)
        *allocated = 1;
    return MTC_OK;
}

int mtc_landmarks_subtrees(const mtc_landmarks *lm, uint64_t l,
                           mtc_subtree *left, mtc_subtree *right)
{
    uint64_t prev, size;
    if (l == 0)
        return MTC_ERR_RANGE; /* landmark 0 has no subtrees */
    if (mtc_landmarks_size(lm, l, &size) != MTC_OK ||
        mtc_landmarks_size(lm, l - 1, &prev) != MTC_OK)
        return MTC_ERR_RANGE;
    return mtc_covering_subtrees(prev, size, left, right);
}

int mtc_landmarks_for_index(const mtc_landmarks *lm, uint64_t index,
                            uint64_t *landmark, mtc_subtree *subtree)
{
    uint64_t first = mtc_landmarks_first_kept(lm);
    if (index >= *slot(lm, lm->last))
        return MTC_ERR_RANGE; /* not yet covered: wait */
    if (*slot(lm, first) > index)
        return MTC_ERR_LANDMARK; /* only inactive landmarks covered it */
    /* Binary search over active landmarks first+1..last for the smallest
     * whose size exceeds index. */
    uint64_t lo = first + 1, hi = lm->last;
    while (lo < hi) {
        uint64_t mid = lo + (hi - lo) / 2;
        if (*slot(lm, mid) > index)
            hi = mid;
        else
            lo = mid + 1;
    }
    mtc_subtree l, r;
    int rc = mtc_landmarks_subtrees(lm, lo, &l, &r);
    if (rc != MTC_OK)
        return rc;
    *landmark = lo;
    *subtree = (index >= l.start && index < l.end) ? l : r;
    return MTC_OK;
}

int mtc_landmarks_find_subtree(const mtc_landmarks *lm, uint64_t start,
                               uint64_t end, uint64_t *landmark)
{
    mtc_subtree sub;
    uint64_t l;
    if (start >= end || mtc_landmarks_for_index(lm, start, &l, &sub) != MTC_OK ||
        sub.start != start || sub.end != end)
        return MTC_ERR_RANGE;
    *landmark = l;
    return MTC_OK;
}

int mtc_landmark_group_contains(uint64_t group, uint64_t max_active,
                                uint64_t landmark)
{
    if (landmark == 0 || landmark > group || max_active == 0)
        return 0;
    return group - landmark < max_active;
}

int mtc_landmarks_format(const mtc_landmarks *lm, char *out, size_t cap,
                         size_t *out_len)
{
    uint64_t na = mtc_landmarks_num_active(lm);
    size_t n = 0;
    char line[48];
    int w = snprintf(line, sizeof line, "%llu %llu\n",
                     (unsigned long long)lm->last, (unsigned long long)na);
    if (n + (size_t)w <= cap)
        memcpy(out + n, line, (size_t)w);
    n += (size_t)w;
    for (uint64_t i = 0; i <= na; i++) {
        w = snprintf(line, sizeof line, "%llu\n",
                     (unsigned long long)*slot(lm, lm->last - i));
        if (n + (size_t)w <= cap)
            memcpy(out + n, line, (size_t)w);
        n += (size_t)w;
    }
    *out_len = n;
    return n <= cap ? MTC_OK : MTC_ERR_LIMIT;
}

/* Reads one plain decimal number at text[*i..], stopping at `stop`. */
static int read_u64(const char *t, size_t len, size_t *i, char stop,
                    uint64_t *v)
{
    size_t s = *i;
    uint64_t x = 0;
    while (*i < len && t[*i] >= '0' && t[*i] <= '9') {
        unsigned d = (unsigned)(t[*i] - '0');
        if (x > (UINT64_MAX - d) / 10)
            return MTC_ERR_PARSE;
        x = x * 10 + d;
        (*i)++;
    }
    if (*i == s || (t[s] == '0' && *i - s > 1))
        return MTC_ERR_PARSE; /* empty or leading zero */
    if (*i >= len || t[*i] != stop)
        return MTC_ERR_PARSE;
    (*i)++;
    *v = x;
    return MTC_OK;
}

int mtc_landmarks_parse(const char *text, size_t len, uint64_t max_active,
                        uint64_t latest, mtc_landmarks **out,
                        size_t *err_line)
{
    size_t line = 1, i = 0;
    uint64_t last, na;
    int rc;
    *out = NULL;
#define FAIL(code)              \
    do {                        \
        if (err_line)           \
            *err_line = line;   \
        rc = (code);            \
        goto fail;              \
    } while (0)
    mtc_landmarks *lm = NULL;
    if (read_u64(text, len, &i, ' ', &last) != MTC_OK ||
        read_u64(text, len, &i, '\n', &na) != MTC_OK)
        FAIL(MTC_ERR_PARSE);
    if (max_active == 0) {
        /* As published: a reader that does not know the CA's parameter
         * (a relying party). Each size line takes at least two bytes,
         * which bounds the allocation by the text's length. */
        if (na > len / 2) {
            line++;
            FAIL(MTC_ERR_PARSE);
        }
        max_active = na ? na : 1;
    }
    if (na > max_active || na > last)
        FAIL(MTC_ERR_LANDMARK);
    lm = mtc_landmarks_new(max_active);
    if (!lm) {
        rc = max_active > (UINT64_C(1) << 32) ? MTC_ERR_ARG : MTC_ERR_NOMEM;
        goto fail;
    }
    lm->last = last;
    lm->num_active = na;
    uint64_t prev = 0;
    for (uint64_t k = 0; k <= na; k++) {
        uint64_t size;
        line++;
        if (read_u64(text, len, &i, '\n', &size) != MTC_OK)
            FAIL(MTC_ERR_PARSE);
        if (size > latest)
            FAIL(MTC_ERR_LANDMARK); /* beyond the log's latest tree size */
        if (k > 0 && size >= prev)
            FAIL(MTC_ERR_LANDMARK); /* not strictly decreasing */
        if (last - k == 0 && size != 0)
            FAIL(MTC_ERR_LANDMARK); /* landmark 0 has size 0 */
        *slot(lm, last - k) = size;
        prev = size;
    }
    if (i != len) {
        line++;
        FAIL(MTC_ERR_PARSE); /* extra lines */
    }
    *out = lm;
    return MTC_OK;
fail:
#undef FAIL
    mtc_landmarks_free(lm);
    return rc;
}
