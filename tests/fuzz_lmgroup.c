/*
 * fuzz_lmgroup.c - libFuzzer target: the landmark group version decoder
 * and the server's matching rule (mtc/lmgroup.h).
 *
 * Input: a LandmarkGroupVersion encoding. For each input: the decoder
 * either rejects it, or the decoded group passes the encoder's checks and
 * re-encodes to exactly the input (the format is canonical); then, for
 * each member, the matcher must cover its first and last landmark with
 * the version's own ID, and refuse the landmark after the last, the one
 * before the first, the previous version's ID and a CA in no member.
 *
 * Seeds (tests/fuzz/lmgroup/): valid versions of one and of three CAs,
 * written by this file's main when built with -DFUZZ_LMGROUP_SEEDS.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/seed_file.h"
#include "mtc/error.h"
#include "mtc/lmgroup.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CAP 4096
static mtc_lmgroup_member members[CAP];
static uint8_t re[CAP * MTC_LMGROUP_MEMBER_MAX + 300];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    mtc_lmgroup g;
    if (mtc_lmgroup_decode(data, size, &g, members, CAP) != MTC_OK)
        return 0;
    size_t n = 0;
    if (mtc_lmgroup_check(&g) != MTC_OK ||
        mtc_lmgroup_encode(&g, re, sizeof re, &n) != MTC_OK || n != size ||
        memcmp(re, data, size) != 0)
        abort();
    mtc_taid adv, prev, none;
    if (mtc_lmgroup_version_id(&g.group_id, g.version, &adv) != MTC_OK)
        return 0; /* a version arc that overflows 255 bytes: nothing to match */
    int have_prev = g.version > 1 &&
                    mtc_lmgroup_version_id(&g.group_id, g.version - 1, &prev) == MTC_OK;
    /* an ID no member has: the group ID itself (members may not share it
     * by the format, but nothing forbids it: skip if one does) */
    none = g.group_id;
    int none_ok = !mtc_lmgroup_has_ca(&g, &none);
    for (size_t i = 0; i < g.nmembers; i++) {
        const mtc_lmgroup_member *m = &g.members[i];
        if (!mtc_lmgroup_match(&g, &adv, &m->ca_id, m->log_number, m->first_landmark) ||
            !mtc_lmgroup_match(&g, &adv, &m->ca_id, m->log_number, m->last_landmark) ||
            !mtc_lmgroup_match(&g, &adv, &m->ca_id, m->log_number, 0))
            abort();
        if (m->last_landmark < UINT64_MAX &&
            mtc_lmgroup_match(&g, &adv, &m->ca_id, m->log_number, m->last_landmark + 1))
            abort();
        if (m->first_landmark > 1 &&
            mtc_lmgroup_match(&g, &adv, &m->ca_id, m->log_number, m->first_landmark - 1))
            abort();
        if (have_prev &&
            mtc_lmgroup_match(&g, &prev, &m->ca_id, m->log_number, m->last_landmark))
            abort();
        if (none_ok && mtc_lmgroup_match(&g, &adv, &none, m->log_number, m->last_landmark))
            abort();
    }
    return 0;
}

#ifdef FUZZ_LMGROUP_SEEDS
static mtc_taid id_of(const char *t)
{
    mtc_taid id;
    memset(&id, 0, sizeof id);
    mtc_taid_from_text(t, strlen(t), &id);
    return id;
}

static int write_seed(const char *dir, const char *name, const mtc_lmgroup *g)
{
    uint8_t buf[4096];
    size_t n;
    if (mtc_lmgroup_encode(g, buf, sizeof buf, &n) != MTC_OK)
        return 1;
    return seed_file_write(dir, name, buf, n) != 0;
}

int main(int argc, char **argv)
{
    if (argc != 2)
        return 2;
    mtc_lmgroup_member m[3];
    memset(m, 0, sizeof m);
    m[0] = (mtc_lmgroup_member){id_of("32473.1"), 1, 1, 9};
    m[1] = (mtc_lmgroup_member){id_of("32473.2"), 1, 5, 173};
    m[2] = (mtc_lmgroup_member){id_of("32473.2"), 2, 1, 1};
    mtc_lmgroup g = {id_of("32473.100"), 1, 1767225600, 1, m};
    if (write_seed(argv[1], "one_ca", &g))
        return 1;
    g.version = 721;
    g.timestamp = 1767225600 + 720 * 3600;
    g.nmembers = 3;
    return write_seed(argv[1], "three_members", &g);
}
#endif
