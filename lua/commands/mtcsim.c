/*
 * mtcsim.c - the `mtcsim` program: a thin dispatcher over subcommands.
 *
 * Add a subcommand by writing cmd_<name>.c, declaring it in host.h and
 * adding one line to `commands` below (`run` and `report` come with the
 * Lua host and the results writer).
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <gsl/gsl_errno.h>

#include "host.h"

struct command {
    const char *name;
    host_cmd_fn fn;
    const char *summary;
};

static const struct command commands[] = {
    {"bench", cmd_bench, "benchmarks (engine)"},
    {"run", cmd_run, "run a scenario (sweeps x replications) into a results database"},
    {"params", cmd_params, "list entity kinds, their parameters and the what-if actions"},
    {"ls", cmd_ls, "list experiments, runs, sweep points, parameters, metrics"},
    {"plot", cmd_plot, "draw any metric of a results database (PNG or SVG)"},
    {"compare", cmd_compare, "headline differences of two experiments, with CIs"},
    {"export", cmd_export, "write the tables of a results database as CSV"},
    {"report", cmd_report, "figures (PNG, SVG) and index.html from a results database"},
    {"version", cmd_version, "print the program version"},
};

static void usage(FILE *f)
{
    fprintf(f, "usage: mtcsim COMMAND [ARGS...]   (mtcsim COMMAND --help for details)\n\n"
               "Discrete-event simulator for Merkle Tree Certificate deployments.\n\n"
               "commands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(f, "  %-12s %s\n", commands[i].name, commands[i].summary);
}

double host_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int cmd_version(int argc, char **argv)
{
    (void)argv;
    if (argc > 1) {
        fprintf(stderr, "mtcsim version: unexpected argument '%s'\n", argv[1]);
        return HOST_USAGE;
    }
    printf("mtcsim %s\n", MTCSIM_VERSION);
    return HOST_OK;
}

struct bench_entry {
    const char *name;
    host_cmd_fn fn;
    const char *summary;
};

static const struct bench_entry benches[] = {
    {"engine", cmd_bench_engine, "event queues (hold, PHOLD) against ns-3"},
};

int cmd_bench(int argc, char **argv)
{
    if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
        FILE *f = argc < 2 ? stderr : stdout;
        fprintf(f, "usage: mtcsim bench NAME [ARGS...]\n\nbenchmarks:\n");
        for (size_t i = 0; i < sizeof benches / sizeof benches[0]; i++)
            fprintf(f, "  %-10s %s\n", benches[i].name, benches[i].summary);
        return argc < 2 ? HOST_USAGE : HOST_OK;
    }
    for (size_t i = 0; i < sizeof benches / sizeof benches[0]; i++)
        if (!strcmp(argv[1], benches[i].name))
            return benches[i].fn(argc - 1, argv + 1);
    fprintf(stderr, "mtcsim bench: unknown benchmark '%s'\n", argv[1]);
    return HOST_USAGE;
}

int main(int argc, char **argv)
{
    /* Library code checks GSL's return values; GSL must not abort. */
    gsl_set_error_handler_off();
    if (argc < 2) {
        usage(stderr);
        return HOST_USAGE;
    }
    if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") ||
        !strcmp(argv[1], "help")) {
        usage(stdout);
        return HOST_OK;
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (!strcmp(argv[1], commands[i].name))
            return commands[i].fn(argc - 1, argv + 1);
    fprintf(stderr, "mtcsim: unknown command '%s'\n", argv[1]);
    usage(stderr);
    return HOST_USAGE;
}
