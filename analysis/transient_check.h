/*
 * transient_check.h - the steady-state check of a run's headline series,
 * shared by the run summary (series from the metrics registry) and the
 * report (series from the database), so both judge the same series over
 * the same window by the same rule.
 *
 * The series: the signatureless fraction per grid interval of the measured
 * window (intervals without a full handshake are skipped), and the
 * relying-party state and log storage levels at the window's grid points.
 * The verdict is sim_mser5's (sim/transient.h); for the levels, which have
 * almost no noise, a transient must also move the window's mean by 0.1 %
 * (a creep of a few bytes per megabyte is statistically real and
 * practically nothing). Series under SIM_MSER_MIN_OBS points are not judged.
 */
#ifndef MTCSIM_TRANSIENT_CHECK_H
#define MTCSIM_TRANSIENT_CHECK_H

#include <stddef.h>
#include <stdint.h>

typedef struct tc_result {
    int judged;             /* 0: too short (or no data), nothing said */
    int transient;          /* the window still holds an initial transient */
    double truncation_h;    /* MSER-5's truncation point, hours into the window */
} tc_result;

/* The level series the check covers, NULL-terminated. */
extern const char *const tc_level_names[];

/* From cumulative counts of full and signatureless handshakes at grid
 * times t[0..n) (microseconds); warm is the warm-up end. */
tc_result tc_fraction(const int64_t *t, const double *full, const double *sl,
                      size_t n, int64_t warm);

/* From a level's values v at grid times t[0..n). */
tc_result tc_level(const int64_t *t, const double *v, size_t n, int64_t warm);

/* The same in two steps, so that replications can be averaged first (the
 * check of a sweep point: a transient is where every replication is at
 * the same time, a burst of a steady system is not). The window functions
 * write at most n values to out and return how many; *step_h gets the
 * grid step in hours. The judge functions take the (averaged) window. */
size_t tc_fraction_window(const int64_t *t, const double *full, const double *sl,
                          size_t n, int64_t warm, double *out, double *step_h);
size_t tc_level_window(const int64_t *t, const double *v, size_t n, int64_t warm,
                       double *out, double *step_h);
tc_result tc_judge_fraction(const double *x, size_t n, double step_h);
tc_result tc_judge_level(const double *x, size_t n, double step_h);

#endif
