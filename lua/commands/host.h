/*
 * host.h - what the subcommands of the `mtcsim` program share.
 *
 * mtcsim.c holds the command table; each subcommand is a cmd_*.c file with
 * its own --help. Exit codes: 0 success, 1 failed run, 2 bad usage (the
 * message names the bad argument).
 */
#ifndef MTCSIM_HOST_H
#define MTCSIM_HOST_H

#define MTCSIM_VERSION "0.1.0"

#define HOST_OK 0
#define HOST_FAIL 1
#define HOST_USAGE 2

typedef int (*host_cmd_fn)(int argc, char **argv);

int cmd_bench(int argc, char **argv);
int cmd_version(int argc, char **argv);
int cmd_run(int argc, char **argv);      /* cmd_run.c */
int cmd_params(int argc, char **argv);   /* cmd_params.c */
int cmd_report(int argc, char **argv);   /* cmd_report.c */
int cmd_export(int argc, char **argv);   /* cmd_export.c */
int cmd_ls(int argc, char **argv);       /* cmd_ls.c */
int cmd_plot(int argc, char **argv);     /* cmd_plot.c */
int cmd_compare(int argc, char **argv);  /* cmd_compare.c */

/* Subcommands of `mtcsim bench`. */
int cmd_bench_engine(int argc, char **argv);

/* Monotonic seconds. */
double host_now(void);

#endif
