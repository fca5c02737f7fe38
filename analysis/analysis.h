/*
 * analysis.h - the analysis commands of `mtcsim`: what the program's main
 * (lua/commands/mtcsim.c) dispatches to, and the exit codes and version
 * both halves of the program print.
 *
 * The analysis suite reads results databases through sim/results_read.h,
 * computes every statistic with stats.h, and includes no Lua header and no
 * SQL (tests/sh_layout.sh compiles this
 * folder without Lua's flags and fails on SQL outside sim/results/). Each command is a cmd_*.c file
 * with its own --help; exit codes: 0 success, 1 failure, 2 bad usage or
 * input (the message names the bad argument).
 */
#ifndef MTCSIM_ANALYSIS_H
#define MTCSIM_ANALYSIS_H

#define MTCSIM_VERSION "0.1.0"

#define HOST_OK 0
#define HOST_FAIL 1
#define HOST_USAGE 2

/* What ls and report say of an abandoned run: a row left 'running' with
 * no writer at work (sim_results_stale_runs: its process was killed
 * outright, so it could not record how the run ended). */
#define ABANDONED_WHY "writer gone (killed before it could record the run); " \
                      "--resume reruns it"

int cmd_report(int argc, char **argv);   /* cmd_report.c */
int cmd_export(int argc, char **argv);   /* cmd_export.c */
int cmd_ls(int argc, char **argv);       /* cmd_ls.c */
int cmd_plot(int argc, char **argv);     /* cmd_plot.c */
int cmd_compare(int argc, char **argv);  /* cmd_compare.c */

#endif
