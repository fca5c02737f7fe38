/*
 * fuzz_staple.c - libFuzzer target: the landmark staple parser and
 * verifier (mtc/staple.h).
 *
 * The world is the test fixture's CA 32473.1 with witnesses 32473.101 and
 * .102, 21 entries in 3 signed checkpoints and 3 landmarks, so the seed
 * staple is accepted and mutations reach every check. For each input: a
 * decoded staple re-encodes to the same bytes (the format is canonical);
 * applying it to a relying party trusting nothing either succeeds and then
 * trusts only subtrees whose hashes are the log's real ones, or fails with
 * a reason and leaves the relying party trusting nothing.
 *
 * Seeds (tests/fuzz/staple/): built with -DFUZZ_STAPLE_SEEDS, whose main
 * writes them into the directory given as argument.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/mtc_fixture.h"
#include "lib/seed_file.h"
#include "mtc/error.h"
#include "mtc/staple.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static fx world;
static int ready;

static void setup(void)
{
    uint64_t next;
    if (fx_three_landmarks(&world, &next))
        abort();
    ready = 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!ready)
        setup();
    mtc_staple *s;
    if (mtc_staple_decode(data, size, &s) != MTC_OK)
        return 0;
    size_t n;
    if (mtc_staple_encode(s, NULL, 0, &n) != MTC_ERR_LIMIT || n != size)
        abort();
    uint8_t *again = malloc(n ? n : 1);
    if (!again || mtc_staple_encode(s, again, n, &n) != MTC_OK ||
        memcmp(again, data, size))
        abort();
    free(again);
    mtc_rp_ca *rp;
    if (fx_rp(&world, &rp) != MTC_OK)
        abort();
    mtc_rp_ca_clear_subtrees(rp);
    mtc_update_result res;
    int rc = mtc_rp_ca_apply_staple(rp, s, &res);
    if ((rc == MTC_OK) != (res.reason == MTC_UPDATE_OK))
        abort();
    if (rc != MTC_OK) {
        if (mtc_rp_ca_subtree_count(rp) != 0)
            abort(); /* a refused staple changes nothing */
    } else {
        if (s->log_number != 1 || mtc_rp_ca_subtree_count(rp) != s->n_subtrees)
            abort();
        for (size_t k = 0; k < s->n_subtrees; k++)
            if (!fx_subtree_real(&world, &s->subtrees[k]))
                abort(); /* a forged subtree was trusted */
    }
    mtc_rp_ca_free(rp);
    mtc_staple_free(s);
    return 0;
}

#ifdef FUZZ_STAPLE_SEEDS
static void write_seed(const char *dir, const char *name, const mtc_staple *s)
{
    SEED_WRITE_ENCODED(dir, name, mtc_staple_encode, s);
}

int main(int argc, char **argv)
{
    if (argc != 2)
        return 2;
    setup();
    const mtc_landmarks *lm = world.lm;
    mtc_update *u;
    mtc_staple s;
    mtc_staple_cosig cs[FX_MAX_COSIGNERS];
    if (mtc_update_from_ilogs(&world.ca_id, &world.log, &lm, 1, &u) ||
        mtc_staple_from_update(u, 0, &s, cs))
        abort();
    write_seed(argv[1], "valid.bin", &s);
    mtc_staple t = s;
    t.n_cosigs = 1; /* the CA's signature only: policy not met */
    write_seed(argv[1], "ca-only.bin", &t);
    t = s;
    t.n_subtrees = 0;
    write_seed(argv[1], "no-subtrees.bin", &t);
    mtc_update_free(u);
    return 0;
}
#endif
