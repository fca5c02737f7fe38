/*
 * sim/progress.h - the progress line of a long run.
 *
 * The library never prints: sim_progress formats the line and says when
 * one is due; the host writes it to stderr. It shows simulated time,
 * percent of the planned span, events per second (over the last interval)
 * and the ETA. Nothing is shown during the first `delay` seconds of wall
 * time (short runs stay silent). On a terminal (cfg.tty, from isatty(2))
 * the line is redrawn in place ("\r...\033[K") every `tty_interval`
 * seconds; otherwise a plain line ending in "\n" every `plain_interval`
 * seconds. cfg.quiet: never a line.
 *
 * Wall time is passed in (seconds on any monotonic clock), so the facility
 * has no clock of its own and is deterministic under test. The host should
 * call sim_progress_tick() cheaply often - e.g. from the engine's stop
 * predicate every 1024 events - as each call is O(1) and formats only when
 * a line is due.
 */
#ifndef SIM_PROGRESS_H
#define SIM_PROGRESS_H

#include <stddef.h>
#include <stdint.h>

#include "sim/engine.h"

typedef struct sim_progress_config {
    sim_time sim_start;     /* clock at the start */
    sim_time sim_end;       /* planned end; <= sim_start: no percent/ETA */
    double wall_start;      /* wall seconds at the start */
    int tty;                /* redraw in place */
    int quiet;              /* no output at all */
    double delay;           /* silent before this much wall time; 0 = 1 s */
    double tty_interval;    /* 0 = 0.25 s */
    double plain_interval;  /* 0 = 10 s */
    const char *label;      /* prefix, e.g. "run 3/10"; may be NULL */
} sim_progress_config;

/* Treat as opaque; lives wherever the host likes (no allocation). */
typedef struct sim_progress {
    sim_progress_config cfg;
    double last_wall;       /* when the last line was made */
    uint64_t last_events;
    int shown;              /* a line was made */
    char label[64];
} sim_progress;

void sim_progress_init(sim_progress *p, const sim_progress_config *cfg);

/* When a line is due, writes it into buf (NUL-terminated, truncated to
 * len) and returns its length; otherwise returns 0. */
size_t sim_progress_tick(sim_progress *p, double wall, sim_time now,
                         uint64_t events, char *buf, size_t len);

/* At the end: on a terminal, if a line was shown, a final line ending in
 * "\n" (so the shell prompt starts on a fresh line); in plain mode, a last
 * line if any was shown. Returns its length or 0. */
size_t sim_progress_finish(sim_progress *p, double wall, sim_time now,
                           uint64_t events, char *buf, size_t len);

/* "3d 04:05:06" style duration of a sim_time (>= 0) or seconds. */
void sim_progress_fmt_time(sim_time t, char *buf, size_t len);

#endif
