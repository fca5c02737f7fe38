/*
 * compare_match.h - which sweep point of one experiment `mtcsim compare`
 * may set beside which point of another: matched on every effective
 * parameter, not on the sweep marks alone (fixing a swept parameter with
 * --set drops its mark, and a run fixed at transport = tcp must not be
 * paired with another database's QUIC point).
 *
 * An axis of an experiment is a parameter whose value differs between its
 * sweep points. Two points match when every axis parameter of either
 * experiment that both hold has the same value at both, except the
 * parameters the user declares as the comparison's own axes (--axis
 * NAME), which may differ. Every other difference of a matched pair is
 * reported: the caller warns about it, or refuses, when it is not
 * declared.
 *
 * A name given with --axis matches a parameter by its name, entity.name
 * or kind.entity.name.
 *
 * What follows from the scenario parameters. When both points ran the
 * same scenario (the same SHA-256 of the scenario file and of every file
 * it loaded) with the same entity parameters set on the command line
 * (--set KIND.ENTITY.PARAM, read from the stored command line), every
 * world and entity parameter is a function of the scenario parameters:
 * its differences follow from theirs (a steady warm-up that grows with
 * the landmark interval, a CA's rate that follows `issuance`). Such a
 * point is matched on its scenario parameters alone, and a difference of
 * a world or entity parameter is reported as following from them, not
 * as undeclared. Without that provenance every parameter counts.
 */
#ifndef MTCSIM_COMPARE_MATCH_H
#define MTCSIM_COMPARE_MATCH_H

#include <stddef.h>
#include <stdint.h>

#include "sim/results_read.h"

/* The effective parameters of each sweep point of an experiment (its
 * first run's), by (kind, entity, name). */
typedef struct cmp_side {
    size_t npoints;
    sim_param_row **p;
    size_t *n;
    char **source;      /* per point: scenario and loaded files' SHA-256 and
                         * entity --set options; "" when unknown */
} cmp_side;

/* Reads the parameters of sweep points points[0..np) of exp; 0 or -1. */
int cmp_side_load(sim_results *db, int64_t exp, const int64_t *points, size_t np,
                  cmp_side *out);
void cmp_side_free(cmp_side *s);

/* The pairs (A point, B point) that match, at most max; their count. */
size_t cmp_match(const cmp_side *a, const cmp_side *b, const char *const *axes,
                 size_t naxes, size_t (*pairs)[2], size_t max);

/* The differences of a matched pair as text ("ca.le.rate 0.1 vs 0.05,
 * ..."): those of scenario parameters and of parameters that do not
 * follow from them into buf, the number of them in *ndiff and of those
 * not declared in *undeclared; the world and entity parameters that
 * follow from the scenario parameters (above) into fbuf, their number in
 * *nfollow. */
void cmp_differences(const cmp_side *a, size_t pa, const cmp_side *b, size_t pb,
                     const char *const *axes, size_t naxes, char *buf, size_t n,
                     size_t *ndiff, size_t *undeclared, char *fbuf, size_t fn,
                     size_t *nfollow);

/* 1 when the parameter is one of the declared axes. */
int cmp_declared(const sim_param_row *p, const char *const *axes, size_t naxes);

#endif
