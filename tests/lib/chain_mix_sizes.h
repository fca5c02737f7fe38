/*
 * tests/lib/chain_mix_sizes.h - the sizes of the chains a chain_mix
 * serves, measured the way the web's chain sizes were (docs/sources.md
 * [web-chains]): each profile's chain built from real encodings, its
 * certificates' DER concatenated, and that concatenation compressed with
 * zstd at the parameters the source names. One place for the method, so
 * that the test of the default mix (tests/test_chain_mix.c) and the
 * validation case that prints it against the source (validate case 4d)
 * compute the same figures.
 *
 * Nothing here keeps state; the caller owns every buffer.
 */
#ifndef MTC_TESTS_CHAIN_MIX_SIZES_H
#define MTC_TESTS_CHAIN_MIX_SIZES_H

#include <stddef.h>
#include <stdint.h>

#include "sim/params.h"

/* The source's "TLS Cert Compression": zstd at level 22 with chain,
 * search and hash logs of 30, a target length of 6,000 and the maximum
 * window forced. Compresses in[0..len) into out (cap bytes); returns the
 * compressed length, or 0 when zstd fails (out too small). */
size_t mix_zstd_as_measured(const uint8_t *in, size_t len, uint8_t *out, size_t cap);

/* One item of a mix: its profile's chain for a site name. */
typedef struct mix_size {
    char profile[48];
    double weight;
    double der;     /* the certificates' DER, concatenated */
    double zstd;    /* that, compressed as measured */
    double leaf;    /* the leaf certificate's DER alone */
} mix_size;

/* The sizes of every "profile:weight" item of `mix` (chains built for
 * `name`, not_before 2026-01-01, 90 days), into out[0..cap); *n is the
 * item count. Each compression is decompressed and compared with the
 * chain before it is counted. 0 on success, else an MTC_ERR_* code: an
 * unknown profile, a malformed item or more items than cap MTC_ERR_ARG,
 * a compression that fails MTC_ERR_LIMIT, one that does not give the
 * chain back MTC_ERR_PARSE, a chain that cannot be built
 * mtc_chain_build's code. */
int mix_sizes(const sim_param_list *mix, const char *name, mix_size *out, size_t cap,
              size_t *n);

/* The naming convention of profile variants (docs/model.md "Web side:
 * today's chains"): "X<suffix>" is profile X with one thing changed.
 * When `profile` is X followed by `suffix` (X not empty), writes X into
 * base (cap bytes) and returns 1; else returns 0 and leaves base alone. */
int mix_profile_base(const char *profile, const char *suffix, char *base, size_t cap);

/* The split RSA families' variant: "X-4096" is X with a 4,096-bit
 * subscriber key (mix_profile_base with that suffix). */
int mix_rsa4096_base(const char *profile, char *base, size_t cap);

/* `mix` with each "-4096" profile replaced by its 2,048-bit base, weights
 * kept, into *out (the mix as if every RSA leaf had 2,048 bits). */
void mix_rsa2048_only(const sim_param_list *mix, sim_param_list *out);

/* Which size mix_quantile reads. */
enum { MIX_DER, MIX_ZSTD, MIX_LEAF };

/* The q-quantile of one size over the items, each weighing its weight:
 * the smallest size whose cumulative weight reaches q of the total (how
 * the mix's draw is distributed). Reorders s. */
double mix_quantile(mix_size *s, size_t n, int which, double q);

#endif
