/*
 * validate/vcase.h - the validation suite's cases and what they share:
 * result rows (expected, simulated, tolerance, verdict), statistics, the
 * runs database, and worlds built through the same schemas as scenarios.
 *
 * Why a separate program and not a test: every case states a claim with
 * its source, computes the expected value from something the simulator
 * cannot tune (a closed form, the draft's arithmetic, a published figure),
 * and compares it with what the simulator produces; `make validate` runs
 * them all and regenerates the tables of docs/validation.md, and `make
 * test` runs a fast subset that must reproduce the committed tables to the
 * character. A case's configuration never depends on --fast: the fast
 * subset only selects cases.
 *
 * Acceptance rule (docs/validation.md, "How to read a row"): a row passes
 * when |simulated - expected| <= tolerance, where tolerance combines the
 * expected value's own uncertainty with the half-width of the simulated
 * mean's 99.9 % Student-t interval (the docs also show the 95 % interval).
 */
#ifndef VALIDATE_VCASE_H
#define VALIDATE_VCASE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "sim/results.h"

enum { V_PASS = 0, V_FAIL = 1, V_INFO = 2 };

/* Deliberately wrong models (--wrong-model): the acceptance test of the
 * suite. The knob lives here, in the driver, never in the model: the case
 * simulates a changed world and compares it with the unchanged expectation. */
enum { V_WRONG_NONE = 0, V_WRONG_LATE_LANDMARKS = 1 };

typedef struct vrow {
    char id[16];        /* the case: "1a" */
    char name[80];      /* the quantity, with its parameter set */
    char unit[24];
    int prec;           /* decimals printed */
    double expected, exp_unc;   /* expected value and its uncertainty */
    double sim, lo, hi; /* simulated value and its 95 % interval */
    int n;              /* replications behind sim (0: one deterministic run) */
    double tol;         /* acceptance half-width */
    int verdict;        /* V_PASS, V_FAIL, V_INFO (shown, not judged) */
} vrow;

typedef struct vctx {
    int fast;           /* --fast: only the cases marked fast */
    int san;            /* sanitized build: only the cases marked san */
    int wrong;          /* V_WRONG_* */
    const char *build;  /* build directory (mtcsim, mtc) */
    const char *outdir; /* results directory */
    sim_results *db;    /* the runs database (NULL: runs are not stored) */
    const char *case_id;
    vrow *rows;
    size_t nrows, cap;
    int failed;
    long child;         /* case 6a's scenario runner (a pid), 0: none */
} vctx;

/* A case: id ("1a"), a title, its function, and whether the fast subset
 * (make test) and the sanitized build run it. */
typedef int (*vcase_fn)(vctx *c);
typedef struct vcase {
    const char *id;
    const char *title;
    vcase_fn run;
    int fast, san;
} vcase;

/* The case table (validate.c). */
const vcase *v_cases(size_t *n);

/* ---- rows ---- */

/* Judges and records a row, prints its line. lo/hi: the 95 % interval
 * (pass lo = hi = sim for an exact value). Returns the verdict. */
int v_row(vctx *c, const char *name, const char *unit, int prec, double expected,
          double exp_unc, double sim, double lo, double hi, int n, double tol);
/* A row shown for information (a published figure the model is not
 * expected to reproduce, with the reason in docs/validation.md). */
void v_info(vctx *c, const char *name, const char *unit, int prec,
            double expected, double sim);

/* ---- statistics (vstats.c) ---- */

typedef struct vstat {
    size_t n;
    double mean, sd, se;
    double lo95, hi95;  /* 95 % Student-t interval */
    double tol;         /* 99.9 % Student-t half-width */
} vstat;

/* A row shown for information with its replications' mean and 95 %
 * interval. */
void v_info_ci(vctx *c, const char *name, const char *unit, int prec,
               double expected, const vstat *st);

/* Mean and intervals of x[0..n) (one value per replication); n >= 2. */
void v_stat(const double *x, size_t n, vstat *out);
/* Two-sided Student-t quantile t_{p, dof} and normal quantile z_p. */
double v_tquant(double p, double dof);
double v_zquant(double p);
/* The central interval [lo, hi] of a Binomial(n, p) count holding at least
 * `level` of its probability: the acceptance band of a coverage count. */
void v_binom_band(unsigned n, double p, double level, unsigned *lo,
                  unsigned *hi);

/* ---- records (vrecord.c) ---- */

/* Creates outdir/validation.db (replacing it) and opens it for runs. */
int v_db_open(vctx *c);
void v_db_close(vctx *c);
/* The rows into the database's table validation_row, and the report
 * outdir/report.md. */
int v_write_results(vctx *c, double wall_s);
/* Rewrites (write = 1) or checks (write = 0) the generated tables of the
 * cases that ran in docs file `path`. Returns 0, or 1 when a check found a
 * table that differs (printed as a diff), -1 on I/O errors. */
int v_docs(vctx *c, const char *path, int write);
/* The generated table of case `id` (malloc'ed markdown). */
char *v_render(const vctx *c, const char *id);

#endif
