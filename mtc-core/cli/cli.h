/*
 * cli.h - what the subcommands of `mtc` share.
 *
 * Each subcommand lives in its own cmd_*.c and is listed in mtc.c's table.
 * Exit codes: 0 success, 1 a negative answer or failed operation (e.g. an
 * invalid certificate), 2 bad usage (the message names the argument).
 */
#ifndef MTC_CLI_H
#define MTC_CLI_H

#include <stdint.h>
#include <stdio.h>

#define CLI_OK 0
#define CLI_FAIL 1
#define CLI_USAGE 2

typedef int (*cli_fn)(int argc, char **argv);

/* Prints "mtc CMD: message" to stderr and returns CLI_USAGE. */
int cli_usage_error(const char *cmd, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Parses a decimal uint64 argument; on error prints which argument and why
 * (via cli_usage_error) and returns CLI_USAGE, else 0. */
int cli_parse_u64(const char *cmd, const char *what, const char *s,
                  uint64_t *out);

/* 1 when argv contains -h or --help. */
int cli_wants_help(int argc, char **argv);

/* Monotonic seconds, for benchmarks. */
double cli_now(void);

int cmd_vectors(int argc, char **argv);
int cmd_tree(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_mldsa(int argc, char **argv);

/* `mtc bench sig` (cmd_bench_sig.c): keygen/sign/verify rates of every
 * signature algorithm, argv[0] being "sig". */
int bench_sig(int argc, char **argv);
int cmd_demo(int argc, char **argv);
int cmd_issue(int argc, char **argv);
int cmd_verify(int argc, char **argv);
int cmd_show(int argc, char **argv);
int cmd_sizes(int argc, char **argv);
int cmd_rp(int argc, char **argv);
/* `mtc bench certs` (bench_certs.c), dispatched by cmd_bench. */
int bench_certs(int argc, char **argv);

#endif
