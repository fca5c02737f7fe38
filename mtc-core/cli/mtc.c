/*
 * mtc.c - the `mtc` program: the MTC core from the command line.
 *
 * A thin dispatcher; every subcommand is a cmd_*.c file with its own --help.
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"

struct command {
    const char *name;
    cli_fn fn;
    const char *summary;
};

static const struct command commands[] = {
    {"vectors", cmd_vectors, "recompute the draft's accumulated subtree test vectors"},
    {"tree", cmd_tree, "subtree hashes, inclusion/consistency proofs, covering subtrees"},
    {"bench", cmd_bench, "benchmarks (merkle, ...)"},
    {"mldsa", cmd_mldsa, "ML-DSA (FIPS 204) keygen, sign and verify in hex"},
    {"demo", cmd_demo, "create a demo CA, log, landmarks, certificates and relying party"},
    {"issue", cmd_issue, "re-issue existing X.509 certificates as MTCs"},
    {"verify", cmd_verify, "verify MTC certificates as a relying party"},
    {"rp", cmd_rp, "verify and install a relying-party update (landmark subtrees)"},
    {"show", cmd_show, "print a certificate and its MTCProof"},
    {"sizes", cmd_sizes, "encoded sizes of MTC certificates and baselines"},
};

static void usage(FILE *f)
{
    fprintf(f, "usage: mtc COMMAND [ARGS...]   (mtc COMMAND --help for details)\n\n"
               "Merkle Tree Certificates core (draft-ietf-plants-merkle-tree-certs).\n\n"
               "commands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(f, "  %-12s %s\n", commands[i].name, commands[i].summary);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return CLI_USAGE;
    }
    if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") ||
        !strcmp(argv[1], "help")) {
        usage(stdout);
        return CLI_OK;
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (!strcmp(argv[1], commands[i].name))
            return commands[i].fn(argc - 1, argv + 1);
    fprintf(stderr, "mtc: unknown command '%s'\n", argv[1]);
    usage(stderr);
    return CLI_USAGE;
}
