/*
 * cmd_vectors.c - `mtc vectors`: the draft's accumulated subtree test
 * vectors (appendix "Subtree Test Vectors"), recomputed from scratch.
 *
 * The computation is mtc_subtree_vectors() (mtc-core/src/vectors.c); the
 * expected values live only in tests/test_merkle.c.
 */
#include <stdio.h>

#include "cli.h"
#include "mtc/error.h"
#include "mtc/vectors.h"

int cmd_vectors(int argc, char **argv)
{
    (void)argv;
    if (cli_wants_help(argc, argv)) {
        printf("usage: mtc vectors\n\n"
               "Recomputes the four accumulated test vectors of the draft's\n"
               "appendix 'Subtree Test Vectors' (trees of up to 130 entries,\n"
               "d[i] = byte i) and prints one line each:\n"
               "  subtree-hashes HEX\n  inclusion-proofs HEX\n"
               "  consistency-proofs HEX\n  covering-subtrees HEX\n");
        return CLI_OK;
    }
    if (argc > 1)
        return cli_usage_error("vectors", "unexpected argument '%s'", argv[1]);
    mtc_hash v[MTC_VECTOR_COUNT];
    int rc = mtc_subtree_vectors(v);
    if (rc != MTC_OK) {
        fprintf(stderr, "mtc vectors: %s\n", mtc_strerror(rc));
        return CLI_FAIL;
    }
    for (int i = 0; i < MTC_VECTOR_COUNT; i++) {
        char hex[2 * MTC_HASH_LEN + 1];
        mtc_hash_to_hex(&v[i], hex);
        printf("%s %s\n", mtc_vector_names[i], hex);
    }
    return CLI_OK;
}
