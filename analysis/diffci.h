/*
 * diffci.h - the confidence interval of a difference of means between two
 * sets of runs: paired (common random numbers: the same seed and
 * replication drive both sides, so most of the noise cancels in each
 * pair's difference) or Welch's unequal-variance interval (independent
 * runs). Used by `mtcsim compare` and the report's sweep differences.
 */
#ifndef MTCSIM_DIFFCI_H
#define MTCSIM_DIFFCI_H

#include <stddef.h>
#include <stdint.h>

enum diffci_method { DIFF_NONE = 0, DIFF_PAIRED, DIFF_WELCH };

typedef struct diffci {
    int method;         /* DIFF_PAIRED, DIFF_WELCH, or DIFF_NONE (n < 2: no interval) */
    double diff;        /* mean(b) - mean(a) */
    double lo, hi;      /* the interval at `level`; lo = hi = diff without one */
    double df;          /* degrees of freedom of the t quantile */
    size_t n;           /* pairs (paired) or min(na, nb) */
} diffci;

/* Paired: b[i] - a[i] for i < n, Student-t interval of their mean. */
void diffci_paired(const double *a, const double *b, size_t n, double level,
                   diffci *out);

/* Welch: independent samples a[0..na) and b[0..nb). */
void diffci_welch(const double *a, size_t na, const double *b, size_t nb,
                  double level, diffci *out);

/* b - a over two sets of runs, each value with its run's (replication,
 * seed): paired when both sets ran the same (replication, seed) pairs
 * (every run of a has its partner in b and na == nb), Welch otherwise.
 * Returns 1 when paired. */
int diffci_matched(const double *a, const int64_t *ra, const int64_t *sa,
                   size_t na, const double *b, const int64_t *rb,
                   const int64_t *sb, size_t nb, double level, diffci *out);

/* 1 when the interval excludes 0 (an effect at that level). */
int diffci_significant(const diffci *d);

#endif
