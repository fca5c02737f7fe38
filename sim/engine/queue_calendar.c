/*
 * queue_calendar.c - Brown's calendar queue on (time, seq).
 *
 * Why: O(1) expected enqueue and dequeue when the bucket width matches the
 * spacing of the earliest events, which is the steady state of large
 * simulations (hold-like workloads with smooth increments). Buckets are
 * sorted doubly linked lists through the events themselves, so cancel is
 * O(1) and nothing is allocated per event. The width is re-estimated at
 * every resize (n outside [nb/2, 2nb]) from the gaps between the earliest
 * pending times, following Brown's rule: 3x the mean gap after dropping
 * gaps larger than twice the mean.
 *
 * Times are >= 0 (the engine enforces start >= 0).
 */
#include "queue.h"

#include <stdlib.h>
#include <string.h>

#include "sim/status.h"

#define CALQ_MIN_BUCKETS 16
#define CALQ_SAMPLE 25

static inline size_t bucket_of(const sim__calq *q, sim_time t)
{
    return (size_t)((uint64_t)t / (uint64_t)q->width) & q->mask;
}

static inline sim_time window_end(const sim__calq *q, sim_time t)
{
    sim_time k = t / q->width;
    if (k >= SIM_TIME_MAX / q->width - 1)
        return SIM_TIME_MAX;
    return (k + 1) * q->width;
}

static void insert_sorted(sim__calq *q, sim_event *ev)
{
    size_t i = bucket_of(q, ev->time);
    sim_event *p = q->b[i], *prev = NULL;
    while (p && sim__before(p, ev)) {
        prev = p;
        p = p->next;
    }
    ev->prev = prev;
    ev->next = p;
    if (p)
        p->prev = ev;
    if (prev)
        prev->next = ev;
    else
        q->b[i] = ev;
    ev->slot = (uint32_t)i;
}

int sim__calq_init(sim__calq *q)
{
    memset(q, 0, sizeof *q);
    q->b = calloc(CALQ_MIN_BUCKETS, sizeof *q->b);
    if (!q->b)
        return SIM_ERR_NOMEM;
    q->nb = CALQ_MIN_BUCKETS;
    q->mask = q->nb - 1;
    q->width = SIM_SEC;
    q->cur = 0;
    q->top = q->width;
    return SIM_OK;
}

void sim__calq_free(sim__calq *q)
{
    free(q->b);
    memset(q, 0, sizeof *q);
}

/* Width from the spacing of the earliest pending events: collect the
 * earliest CALQ_SAMPLE+1 times (bucket heads in window order are not
 * enough after a bad width, so take the smallest times of all events). */
static sim_time estimate_width(sim_event **all, size_t n, sim_time old)
{
    enum { K = CALQ_SAMPLE + 1 };
    sim_time best[K];
    size_t m = 0;
    if (n < 2)
        return old;
    /* keep the K smallest times, sorted, by insertion */
    for (size_t i = 0; i < n; i++) {
        sim_time t = all[i]->time;
        if (m == K && t >= best[K - 1])
            continue;
        size_t j = m < K ? m++ : K - 1;
        while (j > 0 && best[j - 1] > t) {
            best[j] = best[j - 1];
            j--;
        }
        best[j] = t;
    }
    double sum = 0;
    for (size_t i = 1; i < m; i++)
        sum += (double)(best[i] - best[i - 1]);
    double avg = sum / (double)(m - 1), sum2 = 0;
    size_t c = 0;
    for (size_t i = 1; i < m; i++) {
        double g = (double)(best[i] - best[i - 1]);
        if (g <= 2 * avg) {
            sum2 += g;
            c++;
        }
    }
    double w = c ? 3.0 * sum2 / (double)c : 3.0 * avg;
    if (!(w >= 1.0))
        w = 1.0;
    if (w > 1e15)
        w = 1e15;
    return (sim_time)w;
}

static int resize(sim__calq *q, size_t nb)
{
    sim_event **all = malloc((q->n ? q->n : 1) * sizeof *all);
    sim_event **nbk = calloc(nb, sizeof *nbk);
    if (!all || !nbk) {
        free(all);
        free(nbk);
        return SIM_ERR_NOMEM;
    }
    size_t k = 0;
    for (size_t i = 0; i < q->nb; i++)
        for (sim_event *e = q->b[i]; e; e = e->next)
            all[k++] = e;
    free(q->b);
    q->b = nbk;
    q->nb = nb;
    q->mask = nb - 1;
    q->width = estimate_width(all, k, q->width);
    sim_time tmin = SIM_TIME_MAX;
    /* Reinsert in reverse bucket order of the old table: lists were sorted,
     * so walking each old list backwards makes most inserts O(1) at the
     * head. Order within a bucket is restored by insert_sorted anyway. */
    for (size_t i = k; i-- > 0;) {
        insert_sorted(q, all[i]);
        if (all[i]->time < tmin)
            tmin = all[i]->time;
    }
    free(all);
    if (k) {
        q->cur = bucket_of(q, tmin);
        q->top = window_end(q, tmin);
    } else {
        q->cur = 0;
        q->top = q->width;
    }
    return SIM_OK;
}

int sim__calq_push(sim__calq *q, sim_event *ev)
{
    if (q->n + 1 > 2 * q->nb && !q->resizing) {
        q->resizing = 1;
        int rc = resize(q, 2 * q->nb);
        q->resizing = 0;
        if (rc)
            return rc;
    }
    insert_sorted(q, ev);
    q->n++;
    if (ev->time < q->top - q->width) {
        q->cur = bucket_of(q, ev->time);
        q->top = window_end(q, ev->time);
    }
    return SIM_OK;
}

/* Positions cur/top on the bucket whose head is the minimum; returns it. */
static sim_event *find_min(sim__calq *q)
{
    if (q->n == 0)
        return NULL;
    size_t i = q->cur;
    sim_time top = q->top;
    for (size_t k = 0; k < q->nb; k++) {
        sim_event *e = q->b[i];
        if (e && e->time < top) {
            q->cur = i;
            q->top = top;
            return e;
        }
        i = (i + 1) & q->mask;
        top = top > SIM_TIME_MAX - q->width ? SIM_TIME_MAX : top + q->width;
    }
    /* A whole year without an event in its window: direct search. */
    sim_event *best = NULL;
    for (size_t j = 0; j < q->nb; j++)
        if (q->b[j] && (!best || sim__before(q->b[j], best)))
            best = q->b[j];
    q->cur = best->slot;
    q->top = window_end(q, best->time);
    return best;
}

static void unlink_ev(sim__calq *q, sim_event *ev)
{
    if (ev->prev)
        ev->prev->next = ev->next;
    else
        q->b[ev->slot] = ev->next;
    if (ev->next)
        ev->next->prev = ev->prev;
    ev->next = ev->prev = NULL;
    q->n--;
}

static void maybe_shrink(sim__calq *q)
{
    if (q->nb > CALQ_MIN_BUCKETS && q->n < q->nb / 2 && !q->resizing) {
        q->resizing = 1;
        (void)resize(q, q->nb / 2); /* on NOMEM keep the larger table */
        q->resizing = 0;
    }
}

sim_event *sim__calq_pop_upto(sim__calq *q, sim_time limit)
{
    sim_event *e = find_min(q);
    if (!e || e->time > limit)
        return NULL;
    unlink_ev(q, e);
    maybe_shrink(q);
    return e;
}

void sim__calq_remove(sim__calq *q, sim_event *ev)
{
    unlink_ev(q, ev);
    maybe_shrink(q);
}
