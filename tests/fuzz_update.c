/*
 * fuzz_update.c - libFuzzer target: the relying-party update parser and
 * verifier (mtc/update.h).
 *
 * The world is the test fixture's CA 32473.1 with witnesses 32473.101 and
 * .102, 26 entries in 4 signed checkpoints and 3 landmarks, so the seed
 * corpus's updates are accepted and mutations reach every check. For each
 * input: a decoded update re-encodes to the same bytes (the format is
 * canonical); applying it to a fresh relying party either succeeds and
 * then trusts only subtrees whose hashes are the log's real ones (no
 * forged subtree is ever accepted) with the log state it claims, or fails
 * with a reason and leaves the relying party untouched.
 *
 * Seeds (tests/fuzz/update/): built with -DFUZZ_UPDATE_SEEDS, whose main
 * writes them into the directory given as argument.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/mtc_fixture.h"
#include "lib/seed_file.h"
#include "mtc/error.h"
#include "mtc/update.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Built on first use and kept for the process (fuzzers have no teardown). */
static fx world;
static int ready;

static void setup(void)
{
    uint64_t next = 0;
    if (fx_init(&world, MTC_SIG_ED25519, 2, 0, 1, 0))
        abort();
    for (int b = 0; b < 3; b++)
        if (fx_batch(&world, &next, 6 + (uint64_t)b, FX_T0 + 60 * (uint64_t)(b + 1), 1))
            abort();
    /* the reference is past the last landmark */
    if (fx_batch(&world, &next, 5, FX_T0 + 400, 0))
        abort();
    ready = 1;
}

static mtc_rp_ca *fresh_rp(void)
{
    mtc_rp_ca *rp;
    if (fx_rp(&world, &rp) != MTC_OK)
        abort();
    mtc_rp_ca_clear_subtrees(rp);
    return rp;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!ready)
        setup();
    mtc_update *u;
    if (mtc_update_decode(data, size, &u) != MTC_OK)
        return 0;
    /* canonical: decode then encode gives the input back */
    size_t n;
    if (mtc_update_encode(u, NULL, 0, &n) != MTC_ERR_LIMIT || n != size)
        abort();
    uint8_t *again = malloc(n ? n : 1);
    if (!again || mtc_update_encode(u, again, n, &n) != MTC_OK ||
        memcmp(again, data, size))
        abort();
    free(again);
    mtc_rp_ca *rp = fresh_rp();
    mtc_update_result res;
    int rc = mtc_rp_ca_apply_update(rp, u, &res);
    if ((rc == MTC_OK) != (res.reason == MTC_UPDATE_OK))
        abort(); /* return code and reason agree */
    if (rc != MTC_OK) {
        if (mtc_rp_ca_subtree_count(rp) != 0 ||
            mtc_rp_ca_log_state(rp, 1, NULL, NULL) != MTC_ERR_RANGE)
            abort(); /* a refused update changes nothing */
    } else {
        /* Only log 1 has signed checkpoints: nothing else can pass, and
         * every subtree it trusts is the real one. */
        size_t total = 0;
        for (size_t i = 0; i < u->n_logs; i++) {
            const mtc_update_log *lg = &u->logs[i];
            if (lg->log_number != 1)
                abort(); /* no cosigner ever signed another log */
            for (size_t k = 0; k < lg->n_subtrees; k++)
                if (!fx_subtree_real(&world, &lg->subtrees[k]))
                    abort(); /* a forged subtree was trusted */
            total += lg->n_subtrees;
            uint64_t last, ref;
            if (mtc_rp_ca_log_state(rp, lg->log_number, &last, &ref) != MTC_OK ||
                ref != lg->ref_size)
                abort();
        }
        if (mtc_rp_ca_subtree_count(rp) != total || res.n_subtrees != total)
            abort();
        /* and applying it again is no rollback */
        if (mtc_rp_ca_apply_update(rp, u, &res) != MTC_OK)
            abort();
    }
    mtc_rp_ca_free(rp);
    mtc_update_free(u);
    return 0;
}

#ifdef FUZZ_UPDATE_SEEDS
static void write_seed(const char *dir, const char *name, const mtc_update *u)
{
    SEED_WRITE_ENCODED(dir, name, mtc_update_encode, u);
}

int main(int argc, char **argv)
{
    if (argc != 2)
        return 2;
    setup();
    const mtc_landmarks *lm = world.lm;
    mtc_update *u;
    if (mtc_update_from_ilogs(&world.ca_id, &world.log, &lm, 1, &u))
        abort();
    write_seed(argv[1], "valid.bin", u);
    /* the witnesses' evidence as a larger checkpoint: a consistency proof
     * from an earlier reference (the checkpoint at the last landmark) */
    mtc_update_log lg = u->logs[0];
    mtc_update_cosig cs[3];
    memcpy(cs, lg.cosigs, sizeof cs);
    mtc_node_source src;
    mtc_tree_source(mtc_ilog_tree(world.log), &src);
    static mtc_hash proof[MTC_PROOF_MAX];
    size_t np;
    uint64_t ref = 21;
    mtc_hash root;
    if (mtc_consistency_proof(&src, ref, lg.ref_size, proof, &np) ||
        mtc_subtree_hash(&src, 0, ref, &root))
        abort();
    /* re-prove the subtrees against the smaller reference */
    mtc_update_subtree st[8];
    static mtc_hash sp[8][MTC_PROOF_MAX];
    for (size_t k = 0; k < lg.n_subtrees; k++) {
        st[k] = lg.subtrees[k];
        if (mtc_subtree_consistency_proof(&src, st[k].start, st[k].end, ref, sp[k],
                                          &st[k].n_consistency))
            abort();
        st[k].consistency = sp[k];
    }
    for (int k = 1; k < 3; k++) {
        cs[k].consistency = proof;
        cs[k].n_consistency = np;
    }
    /* the CA's own signature must be on the reference: sign one */
    uint8_t sig[MTC_SIG_MAX];
    size_t sl;
    if (mtc_cosign_checkpoint(&world.cos[0], mtc_ilog_log_id(world.log), FX_T0 + 200,
                              ref, &root, sig, &sl))
        abort();
    cs[0].timestamp = FX_T0 + 200;
    cs[0].tree_size = ref;
    cs[0].root = root;
    cs[0].signature = (mtc_slice){sig, sl};
    lg.ref_size = ref;
    lg.ref_root = root;
    lg.cosigs = cs;
    lg.subtrees = st;
    mtc_update v = {u->ca_id, &lg, 1};
    write_seed(argv[1], "larger-checkpoint.bin", &v);
    /* two logs (the second without evidence), and none */
    mtc_update_log two[2] = {u->logs[0], u->logs[0]};
    two[1].log_number = 2;
    two[1].n_subtrees = 0;
    mtc_update w2 = {u->ca_id, two, 2};
    write_seed(argv[1], "two-logs.bin", &w2);
    mtc_update empty = {u->ca_id, NULL, 0};
    write_seed(argv[1], "empty.bin", &empty);
    mtc_update_free(u);
    return 0;
}
#endif
