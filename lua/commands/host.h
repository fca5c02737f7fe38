/*
 * host.h - what the subcommands of the `mtcsim` program share.
 *
 * mtcsim.c holds the command table; each subcommand is a cmd_*.c file with
 * its own --help (the analysis commands are in analysis/, declared in
 * analysis.h with the exit codes and version). Exit codes: 0 success, 1
 * failed run, 2 bad usage (the message names the bad argument).
 */
#ifndef MTCSIM_HOST_H
#define MTCSIM_HOST_H

#include "analysis.h"

typedef int (*host_cmd_fn)(int argc, char **argv);

int cmd_bench(int argc, char **argv);
int cmd_version(int argc, char **argv);
int cmd_run(int argc, char **argv);      /* cmd_run.c */
int cmd_params(int argc, char **argv);   /* cmd_params.c */

/* Subcommands of `mtcsim bench`. */
int cmd_bench_engine(int argc, char **argv);

/* Monotonic seconds. */
double host_now(void);

#endif
