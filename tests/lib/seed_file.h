/*
 * tests/lib/seed_file.h - writing a fuzz target's seed corpus (the mains
 * built with -DFUZZ_<NAME>_SEEDS): one file per seed, its bytes alone.
 */
#ifndef MTC_TESTS_SEED_FILE_H
#define MTC_TESTS_SEED_FILE_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

/* Writes b[0..n) as the file dir/name; 0, or -1 when it cannot be
 * written whole. */
int seed_file_write(const char *dir, const char *name, const uint8_t *b,
                    size_t n);

/* Writes the encoding of obj by encode (an mtc_*_encode: encode(obj,
 * NULL, 0, &n) gives the size, encode(obj, buf, n, &n) the bytes) as
 * dir/name; aborts on any failure (a seed writer wants every seed or
 * none). */
#define SEED_WRITE_ENCODED(dir, name, encode, obj)                          \
    do {                                                                    \
        size_t n_;                                                          \
        encode((obj), NULL, 0, &n_);                                        \
        uint8_t *b_ = malloc(n_ ? n_ : 1);                                  \
        if (!b_ || encode((obj), b_, n_, &n_) != MTC_OK ||                  \
            seed_file_write((dir), (name), b_, n_) != 0)                    \
            abort();                                                        \
        free(b_);                                                           \
    } while (0)

#endif
