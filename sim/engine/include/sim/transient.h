/*
 * sim/transient.h - detecting the initial transient of an output series
 * (MSER-5).
 *
 * A headline figure must describe the deployed system, not its first days.
 * MSER-5 (White 1997; the truncation rule Law & Kelton recommend) batches a
 * series into means of 5 consecutive observations Z_1..Z_b and picks the
 * number of leading batches d to delete that minimises
 *
 *     MSER(d) = sum_{j>d} (Z_j - mean_{j>d} Z)^2 / (b - d)^2,
 *
 * i.e. the squared standard error of the retained mean: deleting a
 * transient removes its bias and its spread, deleting steady-state data
 * only shrinks the sample. d is searched over 0 .. b/2 (White's rule:
 * late in a stationary series the few retained batches make MSER small by
 * chance).
 *
 * Judging the result. For a stationary series the minimiser is often a
 * small d > 0 by chance, so "d > 0" alone is no evidence of a transient.
 * This module reports one when at least 2 batches are deleted, at least
 * half of them (and at least 2) lie outside the range of the retained
 * batch means on the side of the shift, and deleting them moves the mean by
 * more than two standard errors of the retained mean (from the retained
 * batch means). The middle condition separates a transient, which
 * displaces the leading batches systematically, from a rare event of a
 * steady series (a single miss in an hour of a 0.99999 fraction), after
 * which the retained part can be exactly constant with a standard error of
 * 0. A minimiser on the boundary b/2 (White's sign that the series is too
 * short) is reported as past_middle; it is a transient only by the same
 * test, since rare events alone push a short steady series' minimiser
 * there.
 * The test in tests/test_sim_transient.c measures the false-alarm rate on
 * stationary series and the detection of decaying transients.
 */
#ifndef SIM_TRANSIENT_H
#define SIM_TRANSIENT_H

#include <stddef.h>

#define SIM_MSER_BATCH 5
#define SIM_MSER_MIN_OBS (4 * SIM_MSER_BATCH)  /* fewer: nothing to judge */

typedef struct sim_transient {
    size_t n;            /* observations given */
    size_t batches;      /* b = n / 5 (a trailing partial batch is ignored) */
    size_t truncate;     /* observations to delete: 5 * d* */
    double mser;         /* MSER(d*) */
    double mean_all;     /* mean of all b batch means */
    double mean_kept;    /* mean of the batch means after d* */
    double se_kept;      /* standard error of mean_kept (batch means) */
    double se_all;       /* standard error of mean_all (batch means) */
    size_t outside;      /* deleted observations (in whole batches) whose
                            batch mean lies outside the retained range */
    int past_middle;     /* d* = b/2: the series may be too short to judge */
    int transient;       /* the window holds a transient (rule above) */
} sim_transient;

/* Run MSER-5 over x[0..n). Returns SIM_OK, or SIM_ERR_ARG when x is NULL,
 * n < SIM_MSER_MIN_OBS or a value is not finite (out is then untouched). */
int sim_mser5(const double *x, size_t n, sim_transient *out);

#endif
