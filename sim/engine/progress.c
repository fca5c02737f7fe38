/*
 * progress.c - formatting of the progress line (sim/progress.h).
 *
 * Events per second are measured over the interval since the previous
 * line, so a run that slows down (a growing population) shows it; the ETA
 * extrapolates the average rate of simulated time per wall second over
 * the whole run, which is steadier than the last interval's.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "sim/progress.h"

void sim_progress_init(sim_progress *p, const sim_progress_config *cfg)
{
    memset(p, 0, sizeof *p);
    p->cfg = *cfg;
    if (!(p->cfg.delay > 0))
        p->cfg.delay = 1.0;
    if (!(p->cfg.tty_interval > 0))
        p->cfg.tty_interval = 0.25;
    if (!(p->cfg.plain_interval > 0))
        p->cfg.plain_interval = 10.0;
    if (cfg->label)
        snprintf(p->label, sizeof p->label, "%s ", cfg->label);
    p->cfg.label = NULL;
    p->last_wall = cfg->wall_start;
}

void sim_progress_fmt_time(sim_time t, char *buf, size_t len)
{
    if (t < 0)
        t = 0;
    int64_t s = t / SIM_SEC;
    int64_t d = s / 86400;
    s %= 86400;
    if (d > 0)
        snprintf(buf, len, "%lldd %02lld:%02lld:%02lld", (long long)d,
                 (long long)(s / 3600), (long long)(s / 60 % 60),
                 (long long)(s % 60));
    else
        snprintf(buf, len, "%02lld:%02lld:%02lld", (long long)(s / 3600),
                 (long long)(s / 60 % 60), (long long)(s % 60));
}

static void fmt_rate(double r, char *buf, size_t len)
{
    if (r >= 1e9)
        snprintf(buf, len, "%.2fG", r / 1e9);
    else if (r >= 1e6)
        snprintf(buf, len, "%.2fM", r / 1e6);
    else if (r >= 1e3)
        snprintf(buf, len, "%.1fk", r / 1e3);
    else
        snprintf(buf, len, "%.0f", r);
}

static size_t make_line(sim_progress *p, double wall, sim_time now,
                        uint64_t events, int final, char *buf, size_t len)
{
    char simt[32], endt[32], rate[32], eta[64] = "";
    double dt = wall - p->last_wall;
    double de = (double)(events - p->last_events);
    double elapsed = wall - p->cfg.wall_start;
    /* The final line reports the whole run's average rate. */
    if (final)
        de = (double)events, dt = elapsed;
    fmt_rate(dt > 0 ? de / dt : 0, rate, sizeof rate);
    sim_progress_fmt_time(now - p->cfg.sim_start, simt, sizeof simt);
    char pct[24] = "";
    sim_time span = p->cfg.sim_end - p->cfg.sim_start;
    if (span > 0) {
        double f = (double)(now - p->cfg.sim_start) / (double)span;
        if (f < 0)
            f = 0;
        if (f > 1)
            f = 1;
        snprintf(pct, sizeof pct, " %5.1f%%", 100 * f);
        sim_progress_fmt_time(span, endt, sizeof endt);
        if (!final && f > 0 && elapsed > 0) {
            double left = elapsed * (1 - f) / f;
            char e[32];
            sim_progress_fmt_time(sim_time_from_sec(left), e, sizeof e);
            snprintf(eta, sizeof eta, "  ETA %s", e);
        } else if (final) {
            char e[32];
            sim_progress_fmt_time(sim_time_from_sec(elapsed), e, sizeof e);
            snprintf(eta, sizeof eta, "  wall %s", e);
        }
    } else {
        snprintf(endt, sizeof endt, "?");
    }
    const char *pre = p->cfg.tty && !final ? "\r" : "";
    const char *post = p->cfg.tty ? (final ? "\033[K\n" : "\033[K") : "\n";
    if (p->cfg.tty && final)
        pre = "\r";
    int n = snprintf(buf, len, "%s%ssim %s / %s%s  %s ev/s%s%s", pre,
                     p->label, simt, endt, pct, rate, eta, post);
    p->last_wall = wall;
    p->last_events = events;
    p->shown = 1;
    if (n < 0)
        return 0;
    return (size_t)n < len ? (size_t)n : (len ? len - 1 : 0);
}

size_t sim_progress_tick(sim_progress *p, double wall, sim_time now,
                         uint64_t events, char *buf, size_t len)
{
    if (p->cfg.quiet || len == 0)
        return 0;
    if (wall - p->cfg.wall_start < p->cfg.delay)
        return 0;
    double every = p->cfg.tty ? p->cfg.tty_interval : p->cfg.plain_interval;
    /* The first line comes as soon as the delay has passed. */
    if (p->shown && wall - p->last_wall < every)
        return 0;
    return make_line(p, wall, now, events, 0, buf, len);
}

size_t sim_progress_finish(sim_progress *p, double wall, sim_time now,
                           uint64_t events, char *buf, size_t len)
{
    if (p->cfg.quiet || !p->shown || len == 0)
        return 0;
    return make_line(p, wall, now, events, 1, buf, len);
}
