/*
 * pki_ca_prune.c - a CA's pruning timer: expired batches and site requests
 * leave memory, minSerial rises past them, and a failed log whose entries
 * have all expired is dropped. Its own periodic event, apart from issuance.
 */
#include <string.h>

#include "mtc/error.h"
#include "pki_internal.h"
#include "pki_ca_internal.h"

/* ---- pruning ------------------------------------------------------------ */

static int log_busy(const pki_ca *ca, const pki_log *l)
{
    if (ca->job && ca->job->log == l)
        return 1;
    for (size_t i = 0; i < ca->nzombies; i++)
        if (ca->zombies[i]->log == l)
            return 1;
    return 0;
}

static void prune_log(pki_ca *ca, pki_log *l, sim_time now)
{
    /* First batch that may hold an unexpired entry: entries of a batch
     * arrived before it closed, and live at most `lifetime`. */
    size_t k = l->batch_first;
    while (k < l->nbatch && l->batch[k].closed &&
           l->batch[k].closed + ca->cfg->lifetime <= now &&
           l->batch[k].to <= l->done_size)
        k++;
    uint64_t p = k < l->nbatch ? l->batch[k].from : l->ckpt_size;
    if (p > l->ckpt_size)
        p = l->ckpt_size;
    if (pki_log_prune(l, p) != MTC_OK)
        return;
    uint64_t pb = pki_log_pruned_below(l);
    while (l->batch_first < l->nbatch - 1 && l->batch[l->batch_first].to <= pb)
        l->batch_first++;
    while (l->site_first < l->nsite && l->site[l->site_first]->index < pb) {
        pki__site_free(l->site[l->site_first]);
        l->site[l->site_first++] = NULL;
    }
    if (l->batch_first > 0 && l->batch_first >= l->nbatch / 2) {
        memmove(l->batch, l->batch + l->batch_first,
                (l->nbatch - l->batch_first) * sizeof *l->batch);
        l->nbatch -= l->batch_first;
        l->batch_first = 0;
    }
    if (l->site_first > 0 && l->site_first >= l->nsite / 2) {
        memmove(l->site, l->site + l->site_first,
                (l->nsite - l->site_first) * sizeof *l->site);
        l->nsite -= l->site_first;
        l->site_first = 0;
    }
    if (l == ca->logs[0] && mtc_serial(l->number, p) > ca->min_serial)
        ca->min_serial = mtc_serial(l->number, p);
}

void pki__prune_fire(sim_engine *sim, sim_event *ev)
{
    pki_ca *ca = ev->arg;
    sim_time now = sim_now(sim);
    for (size_t i = 0; i < ca->nlogs; i++)
        prune_log(ca, ca->logs[i], now);
    /* A failed log whose entries have all expired is gone. */
    while (ca->nlogs > 1 && ca->logs[0]->failed && !log_busy(ca, ca->logs[0])) {
        pki_log *o = ca->logs[0];
        if (o->nbatch >= 2 &&
            o->batch[o->nbatch - 2].closed + ca->cfg->lifetime > now)
            break;
        pki__log_free(o);
        memmove(ca->logs, ca->logs + 1, (ca->nlogs - 1) * sizeof ca->logs[0]);
        ca->nlogs--;
        uint64_t ms = mtc_serial(ca->logs[0]->number, 0);
        if (ms > ca->min_serial)
            ca->min_serial = ms;
    }
    pki_ca_gauges(ca);
    sim_schedule_in(sim, &ca->prune_ev, ca->cfg->prune_interval);
}
