/*
 * test_mldsa_fuzz.c - replays the corpus of the ML-DSA fuzz target
 * (every file in tests/fuzz/mldsa/) through LLVMFuzzerTestOneInput, so every `make test`
 * (optimized and sanitized) runs the decoders over the saved inputs, and
 * checks a few generated inputs: valid signatures of each parameter set
 * with every hint-count byte set to every value.
 */
#include <dirent.h>

#include "fuzz_mldsa.c"
#include "test.h"

TEST(corpus_replays_cleanly)
{
    const char *dir = "tests/fuzz/mldsa";
    DIR *d = opendir(dir);
    ASSERT_TRUE(d != NULL);
    struct dirent *e;
    int files = 0;
    static uint8_t buf[1 << 16];
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        char path[512];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        FILE *f = fopen(path, "rb");
        if (!f)
            continue;
        size_t n = fread(buf, 1, sizeof buf, f);
        fclose(f);
        LLVMFuzzerTestOneInput(buf, n); /* aborts on a violated property */
        files++;
    }
    closedir(d);
    ASSERT_TRUE(files >= 6);
}

TEST(hint_counts_all_values)
{
    /* Valid signature, then each hint-count byte through 0..255: decoding
     * must refuse or re-encode identically, never read out of bounds. */
    static uint8_t in[2 + MTC_MLDSA_SIG_MAX];
    for (int a = 0; a < 3; a++) {
        static const mtc_mldsa_alg algs[3] = {MTC_MLDSA_44, MTC_MLDSA_65,
                                              MTC_MLDSA_87};
        const mldsa_params *p = mtc__mldsa_params(algs[a]);
        uint8_t seed[32] = {7};
        mtc_mldsa_key *key = NULL;
        ASSERT_OK(mtc_mldsa_key_from_seed(algs[a], seed, &key));
        ASSERT_OK(mtc_mldsa_key_sign(key, (const uint8_t *)"x", 1, NULL, 0,
                                     NULL, in + 2));
        mtc_mldsa_key_free(key);
        in[0] = (uint8_t)a;
        in[1] = 0;
        size_t h = 2 + p->sizes.sig_len - p->k;
        int step = test_scale() < 1 ? 17 : 1;
        for (unsigned i = 0; i < p->k; i++) {
            uint8_t keep = in[h + i];
            for (int v = 0; v < 256; v += step) {
                in[h + i] = (uint8_t)v;
                LLVMFuzzerTestOneInput(in, 2 + p->sizes.sig_len);
            }
            in[h + i] = keep;
        }
    }
}

static const test_case cases[] = {
    {"corpus_replays_cleanly", corpus_replays_cleanly},
    {"hint_counts_all_values", hint_counts_all_values},
};

TEST_MAIN(cases)
