/*
 * analysis_scripts.h - the gnuplot scripts of analysis/ (.gp), embedded in
 * the mtcsim program at build time (mk/analysis.mk, mk/embed.sh), so that
 * `mtcsim report` works from any directory and any install location.
 */
#ifndef MTCSIM_ANALYSIS_SCRIPTS_H
#define MTCSIM_ANALYSIS_SCRIPTS_H

#include <stddef.h>

typedef struct analysis_script {
    const char *name;   /* file name, e.g. "cdf.gp" */
    const char *text;
} analysis_script;

extern const analysis_script analysis_scripts[];
extern const size_t analysis_nscripts;

#endif
