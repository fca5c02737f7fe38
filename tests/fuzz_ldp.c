/*
 * fuzz_ldp.c - libFuzzer target: the Landmark Distribution Points parser
 * (mtc/ldp.h), over the bytes a relying party takes from a server.
 *
 * The first input byte picks what the rest is: 0 an extnValue
 * (mtc_ldp_decode), 1 a whole certificate (mtc_ldp_from_cert), 2 a
 * certificate's [3] Extensions element (mtc_ldp_ext_append), 3 the proof
 * set a distribution point answers with for landmark 2 of the test
 * fixture's CA (21 entries, 3 checkpoints, 3 landmarks: the seed is
 * accepted; mtc_rp_ca_apply_proof_set): refused and the relying party
 * trusts nothing, or accepted and it trusts only that landmark's subtrees
 * with the log's real hashes. For the others: an
 * accepted extnValue re-encodes to exactly the input (the format is
 * canonical) and every URI it names makes a request URL; a refused one
 * leaves nothing decoded; an extensions element either takes the
 * extension and then holds it once (a second append is refused), or is
 * refused.
 *
 * Seeds (tests/fuzz/ldp/): written by this file's main when built with
 * -DFUZZ_LDP_SEEDS, from the test fixture's CA.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/mtc_fixture.h"
#include "mtc/error.h"
#include "mtc/ldp.h"
#include "mtc/staple.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint8_t buf[1 << 17];
static fx world;
static int ready;

/* The test fixture's CA with 3 batches of 7 entries, a landmark after each. */
static void setup(void)
{
    uint64_t next;
    if (fx_three_landmarks(&world, &next))
        abort();
    ready = 1;
}

static void check_proof_set(const uint8_t *in, size_t len)
{
    if (!ready)
        setup();
    mtc_staple *s;
    if (mtc_staple_decode(in, len, &s) != MTC_OK)
        return;
    mtc_rp_ca *rp;
    if (fx_rp(&world, &rp) != MTC_OK)
        abort();
    mtc_rp_ca_clear_subtrees(rp);
    mtc_update_result res;
    int rc = mtc_rp_ca_apply_proof_set(rp, s, 2, &res);
    if ((rc == MTC_OK) != (res.reason == MTC_UPDATE_OK))
        abort();
    if (rc != MTC_OK) {
        if (mtc_rp_ca_subtree_count(rp) != 0)
            abort(); /* a refused proof set changes nothing */
    } else {
        mtc_subtree t[2];
        if (mtc_landmarks_subtrees(world.lm, 2, &t[0], &t[1]) != MTC_OK ||
            s->log_number != 1 || s->n_subtrees < 1 || s->n_subtrees > 2 ||
            mtc_rp_ca_subtree_count(rp) != s->n_subtrees)
            abort();
        for (size_t k = 0; k < s->n_subtrees; k++) {
            mtc_hash real;
            const mtc_update_subtree *st = &s->subtrees[k];
            if (st->start != t[k].start || st->end != t[k].end ||
                mtc_tree_subtree_hash(mtc_ilog_tree(world.log), st->start, st->end,
                                      &real) != MTC_OK ||
                !mtc_hash_equal(&real, &st->hash))
                abort(); /* a forged or foreign subtree was trusted */
        }
    }
    mtc_rp_ca_free(rp);
    mtc_staple_free(s);
}

static void check_decoded(const mtc_ldp *d, const uint8_t *in, size_t len, int exact)
{
    size_t n = 0;
    if (d->n == 0 || d->n > MTC_LDP_MAX_URIS ||
        mtc_ldp_encode(d, buf, sizeof buf, &n) != MTC_OK)
        abort();
    if (exact && (n != len || memcmp(buf, in, len) != 0))
        abort();
    mtc_taid ca;
    if (mtc_taid_from_text("32473.1", 7, &ca) != MTC_OK)
        abort();
    for (size_t i = 0; i < d->n; i++) {
        char url[600];
        size_t ul = 0;
        if (mtc_ldp_request(d->uri[i], &ca, 1, 42, url, sizeof url, &ul) != MTC_OK ||
            ul != strlen(url) || ul <= d->uri[i].len)
            abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    const uint8_t *in = data + 1;
    size_t len = size - 1;
    mtc_ldp d;
    switch (data[0] % 4) {
    case 3:
        check_proof_set(in, len);
        break;
    case 0:
        if (mtc_ldp_decode(in, len, &d) == MTC_OK)
            check_decoded(&d, in, len, 1);
        else if (d.n != 0)
            abort();
        break;
    case 1:
        if (mtc_ldp_from_cert(in, len, &d) == MTC_OK)
            check_decoded(&d, NULL, 0, 0);
        else if (d.n != 0)
            abort();
        break;
    default: {
        static const uint8_t uri[] = "http://ldp.fuzz.example/";
        mtc_ldp one = {1, {{uri, sizeof uri - 1}}};
        size_t n = 0, n2 = 0;
        static uint8_t out2[sizeof buf + 64];
        if (mtc_ldp_ext_append((mtc_slice){in, len}, &one, buf, sizeof buf, &n) != MTC_OK)
            break;
        if (n <= len || mtc_der_validate(buf, n) != MTC_OK)
            abort();
        if (mtc_ldp_ext_append((mtc_slice){buf, n}, &one, out2, sizeof out2, &n2) !=
            MTC_ERR_CERT)
            abort();
        break;
    }
    }
    return 0;
}

#ifdef FUZZ_LDP_SEEDS
#include "mtc/cert.h"

static int write_seed(const char *dir, const char *name, uint8_t mode, const uint8_t *b,
                      size_t n)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(&mode, 1, 1, f) != 1 || fwrite(b, 1, n, f) != n)
        return 1;
    return fclose(f) != 0;
}

int main(int argc, char **argv)
{
    if (argc != 2)
        return 2;
    static const char u1[] = "http://ldp.ca.example/", u2[] = "https://ldp2.ca.example/mtc";
    mtc_ldp d = {2, {{(const uint8_t *)u1, sizeof u1 - 1}, {(const uint8_t *)u2, sizeof u2 - 1}}};
    uint8_t v[512], exts[2048], cert[8192];
    size_t vl, el, cl;
    fx F;
    if (mtc_ldp_encode(&d, v, sizeof v, &vl) != MTC_OK ||
        fx_init(&F, MTC_SIG_ED25519, 1, 8, 4, 1) != 0)
        return 1;
    mtc_entry_scratch s;
    mtc_tbs_entry e;
    uint8_t spki[64];
    size_t sl;
    mtc_proof_storage st;
    mtc_proof p;
    if (fx_entry(&F, 3, &s, &e, spki, &sl) != 0 ||
        mtc_ldp_ext_append(e.extensions, &d, exts, sizeof exts, &el) != MTC_OK ||
        mtc_ilog_standalone_proof(F.log, 3, (mtc_slice){NULL, 0}, &st, &p) != MTC_OK)
        return 1;
    mtc_tbs_entry e2 = e;
    e2.extensions = (mtc_slice){exts, el};
    if (mtc_cert_build(&e2, spki, sl, mtc_serial(1, 3), &p, cert, sizeof cert, &cl) != MTC_OK)
        return 1;
    setup();
    const mtc_landmarks *lm = world.lm;
    mtc_update *u;
    mtc_staple sp, one;
    mtc_staple_cosig cs[FX_MAX_COSIGNERS];
    mtc_update_subtree subs[2];
    size_t pl = 0;
    static uint8_t pset[65536];
    if (mtc_update_from_ilogs(&world.ca_id, &world.log, &lm, 1, &u) ||
        mtc_staple_from_update(u, 0, &sp, cs) ||
        mtc_staple_landmark(&sp, world.lm, 2, &one, subs) ||
        mtc_staple_encode(&one, pset, sizeof pset, &pl))
        return 1;
    int rc = write_seed(argv[1], "proof_set_landmark_2", 3, pset, pl) ||
             write_seed(argv[1], "value_two_uris", 0, v, vl) ||
             write_seed(argv[1], "certificate", 1, cert, cl) ||
             write_seed(argv[1], "extensions", 2, e.extensions.p, e.extensions.len);
    fx_free(&F);
    mtc_update_free(u);
    return rc;
}
#endif
