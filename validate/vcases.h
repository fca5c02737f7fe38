/*
 * validate/vcases.h - the case functions (one per docs/validation.md
 * section), grouped by file: case_web.c (1a, 2a), case_closed.c (1b),
 * case_plateau.c (1c, 1d), case_pki.c (2b, 2c, 6b), case_sizes.c (3a-3c),
 * case_writeups.c (4a-4c), case_chains.c (4d), case_chrome.c (5),
 * case_scenarios.c (6a), case_latency.c (7).
 */
#ifndef VALIDATE_VCASES_H
#define VALIDATE_VCASES_H

#include "vcase.h"

int case_1a(vctx *c);
int case_1b(vctx *c);
int case_1c(vctx *c);
int case_1d(vctx *c);
int case_2a(vctx *c);
int case_2b(vctx *c);
int case_2c(vctx *c);
int case_3a(vctx *c);
int case_3b(vctx *c);
int case_3c(vctx *c);
int case_4a(vctx *c);
int case_4b(vctx *c);
int case_4c(vctx *c);
int case_4d(vctx *c);
int case_5(vctx *c);
int case_6a(vctx *c);
int case_6b(vctx *c);
int case_7(vctx *c);
/* Case 6a runs `mtcsim run` on every library scenario in a child
 * process; main starts it before the other cases. */
void case_6a_start(vctx *c);

#endif
