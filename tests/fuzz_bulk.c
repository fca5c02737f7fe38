/*
 * fuzz_bulk.c - libFuzzer target: the bulk subtree consistency proof
 * parser and verifier (mtc/bulk.h).
 *
 * The world is a fixed log of 1000 entries (the test helpers' leaf hashes,
 * seed 1). For each input: a decoded proof re-encodes to the same bytes
 * (the format is canonical); verified against the real root of the log at
 * its tree_size (when that is at most 1000), a proof either fails or every
 * subtree hash it carries is the log's real one (no forged subtree is ever
 * accepted), and the node source over its tiles gives the real hash of
 * each of its subtrees.
 *
 * Seeds (tests/fuzz/bulk/): built with -DFUZZ_BULK_SEEDS, whose main
 * writes them into the directory given as argument.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/merkle_ref.h"
#include "lib/seed_file.h"
#include "mtc/bulk.h"
#include "mtc/error.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define WORLD_N 1000

/* Built on first use and kept for the process (fuzzers have no teardown). */
static mtc_hash leaves[WORLD_N];
static int ready;

static void setup(void)
{
    for (uint64_t i = 0; i < WORLD_N; i++)
        ref_leaf(1, i, &leaves[i]);
    ready = 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!ready)
        setup();
    mtc_bulk_proof *p = NULL;
    if (mtc_bulk_decode(data, size, &p) != MTC_OK)
        return 0;
    size_t len = 0;
    uint8_t *again = malloc(size);
    if (!again || mtc_bulk_encode(p, again, size, &len) != MTC_OK ||
        len != size || memcmp(again, data, size) != 0)
        abort();
    free(again);
    uint64_t n = p->tree_size;
    if (n >= 1 && n <= WORLD_N) {
        mtc_hash root, h;
        ref_mth(leaves, 0, n, &root);
        if (mtc_bulk_verify(p, n, &root) == MTC_OK) {
            mtc_bulk_source_state st;
            mtc_node_source src;
            if (mtc_bulk_source(p, &st, &src) != MTC_OK)
                abort();
            for (size_t i = 0; i < p->n_subtrees; i++) {
                const mtc_bulk_subtree *s = &p->subtrees[i];
                ref_mth(leaves, s->start, s->end, &h);
                if (memcmp(&h, &s->hash, sizeof h) != 0)
                    abort(); /* a forged subtree was accepted */
                mtc_hash g;
                if (src.range_hash(src.ctx, s->start, s->end, &g) != MTC_OK ||
                    memcmp(&g, &h, sizeof h) != 0)
                    abort();
            }
            mtc_bulk_source_free(&st);
        }
    } else {
        mtc_hash any = {{0}};
        (void)mtc_bulk_verify(p, n, &any); /* must not crash */
    }
    mtc_bulk_free(p);
    return 0;
}

#ifdef FUZZ_BULK_SEEDS
static void write_seed(const char *dir, const char *name, uint64_t n,
                       const mtc_subtree *s, size_t k)
{
    mtc_node_source src;
    mtc_array_source(&src, leaves, WORLD_N);
    mtc_bulk_proof *p;
    if (mtc_bulk_build(&src, n, s, k, &p) != MTC_OK)
        abort();
    SEED_WRITE_ENCODED(dir, name, mtc_bulk_encode, p);
    mtc_bulk_free(p);
}

int main(int argc, char **argv)
{
    if (argc != 2)
        return 2;
    setup();
    /* landmark subtrees of consecutive intervals, partial ones included */
    mtc_subtree lm[] = {{0, 256}, {256, 384}, {384, 400}, {400, 401},
                        {401, 402}, {402, 404}, {404, 408}, {408, 416},
                        {416, 420}, {420, 421}};
    write_seed(argv[1], "landmarks.bin", 977, lm, 10);
    mtc_subtree draft[] = {{0, 4}, {4, 8}, {8, 13}};
    write_seed(argv[1], "draft-13.bin", 13, draft, 3);
    mtc_subtree nested[] = {{0, 1000}, {0, 512}, {512, 1000}, {512, 520},
                            {768, 1000}};
    write_seed(argv[1], "nested.bin", 1000, nested, 5);
    mtc_subtree one[] = {{5, 6}};
    write_seed(argv[1], "one-leaf.bin", 7, one, 1);
    return 0;
}
#endif
