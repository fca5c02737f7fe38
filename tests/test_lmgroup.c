/*
 * test_lmgroup.c - timestamped multi-CA landmark groups (mtc/lmgroup.h):
 * encode/decode round trips with the length worked out by hand, version
 * IDs, the server's matching rule at every boundary, and mutation tests:
 * every single-byte change of a valid encoding is rejected or decodes to
 * a different group that re-encodes to exactly the changed bytes, and a
 * matcher with any one check removed or loosened gives a different answer
 * on the cases below (each case pins one check).
 */
#include <string.h>

#include "mtc/error.h"
#include "mtc/lmgroup.h"
#include "test.h"

static mtc_taid id_of(const char *text)
{
    mtc_taid t;
    memset(&t, 0, sizeof t);
    mtc_taid_from_text(text, strlen(text), &t);
    return t;
}

/* Three CAs, one of them with two logs; sorted as the format requires
 * (shorter IDs first, then bytewise; then log number). */
static void sample(mtc_lmgroup *g, mtc_lmgroup_member m[4])
{
    memset(m, 0, 4 * sizeof *m);
    m[0].ca_id = id_of("32473.1");
    m[0].log_number = 1;
    m[0].first_landmark = 3;
    m[0].last_landmark = 171;
    m[1].ca_id = id_of("32473.2");
    m[1].log_number = 1;
    m[1].first_landmark = 1;
    m[1].last_landmark = 12;
    m[2].ca_id = id_of("32473.2");
    m[2].log_number = 2;
    m[2].first_landmark = 1;
    m[2].last_landmark = 2;
    m[3].ca_id = id_of("32473.300");
    m[3].log_number = 7;
    m[3].first_landmark = 40;
    m[3].last_landmark = 208;
    memset(g, 0, sizeof *g);
    g->group_id = id_of("44363.48.5");
    g->version = 500;
    g->timestamp = 1767225600;
    g->nmembers = 4;
    g->members = m;
}

TEST(round_trip_and_length)
{
    mtc_lmgroup g, d;
    mtc_lmgroup_member m[4], dm[8];
    sample(&g, m);
    /* group: 1 + 5 ("44363.48.5": 0x82 0xda 0x4b, 0x30, 0x05) + 8 + 8 + 2;
     * members: 1 + id + 2 + 8 + 8 with ids of 4, 4, 4, 5 bytes */
    size_t want = (1 + 5 + 8 + 8 + 2) + 3 * (1 + 4 + 18) + (1 + 5 + 18);
    ASSERT_EQ(g.group_id.len, 5);
    ASSERT_EQ(mtc_lmgroup_encoded_len(&g), want);
    uint8_t buf[512], buf2[512];
    size_t n = 0, n2 = 0;
    ASSERT_OK(mtc_lmgroup_encode(&g, buf, sizeof buf, &n));
    ASSERT_EQ(n, want);
    ASSERT_EQ(mtc_lmgroup_encode(&g, buf, n - 1, &n2), MTC_ERR_LIMIT);
    ASSERT_OK(mtc_lmgroup_decode(buf, n, &d, dm, 8));
    ASSERT_TRUE(mtc_taid_equal(&d.group_id, &g.group_id));
    ASSERT_EQ_U64(d.version, 500);
    ASSERT_EQ_U64(d.timestamp, 1767225600);
    ASSERT_EQ(d.nmembers, 4);
    for (size_t i = 0; i < 4; i++) {
        ASSERT_TRUE(mtc_taid_equal(&dm[i].ca_id, &m[i].ca_id));
        ASSERT_EQ_U64(dm[i].log_number, m[i].log_number);
        ASSERT_EQ_U64(dm[i].first_landmark, m[i].first_landmark);
        ASSERT_EQ_U64(dm[i].last_landmark, m[i].last_landmark);
    }
    ASSERT_OK(mtc_lmgroup_encode(&d, buf2, sizeof buf2, &n2));
    ASSERT_EQ(n2, n);
    ASSERT_MEM_EQ(buf2, buf, n);
    /* the member cap is enforced */
    ASSERT_EQ(mtc_lmgroup_decode(buf, n, &d, dm, 3), MTC_ERR_LIMIT);
    /* truncation and trailing bytes */
    for (size_t k = 0; k < n; k++)
        ASSERT_TRUE(mtc_lmgroup_decode(buf, k, &d, dm, 8) != MTC_OK);
    buf[n] = 0;
    ASSERT_EQ(mtc_lmgroup_decode(buf, n + 1, &d, dm, 8), MTC_ERR_PARSE);
}

TEST(encoder_refuses_invalid_groups)
{
    mtc_lmgroup g;
    mtc_lmgroup_member m[4];
    uint8_t buf[512];
    size_t n;
    sample(&g, m);
    g.version = 0;
    ASSERT_EQ(mtc_lmgroup_encode(&g, buf, sizeof buf, &n), MTC_ERR_ARG);
    sample(&g, m);
    m[1].first_landmark = 13; /* > last */
    ASSERT_EQ(mtc_lmgroup_encode(&g, buf, sizeof buf, &n), MTC_ERR_ARG);
    sample(&g, m);
    m[0].first_landmark = 0;
    ASSERT_EQ(mtc_lmgroup_encode(&g, buf, sizeof buf, &n), MTC_ERR_ARG);
    sample(&g, m);
    m[2].log_number = 1; /* repeats (32473.2, 1) */
    ASSERT_EQ(mtc_lmgroup_encode(&g, buf, sizeof buf, &n), MTC_ERR_ARG);
    sample(&g, m);
    mtc_lmgroup_member t = m[0];
    m[0] = m[3];
    m[3] = t; /* out of order */
    ASSERT_EQ(mtc_lmgroup_encode(&g, buf, sizeof buf, &n), MTC_ERR_ARG);
    sample(&g, m);
    m[3].log_number = 65536;
    ASSERT_EQ(mtc_lmgroup_encode(&g, buf, sizeof buf, &n), MTC_ERR_ARG);
    sample(&g, m);
    g.nmembers = 0;
    ASSERT_EQ(mtc_lmgroup_encoded_len(&g), 0);
}

/* Every single-byte change: rejected, or a different canonical group. */
TEST(mutation_of_every_byte)
{
    mtc_lmgroup g, d;
    mtc_lmgroup_member m[4], dm[8];
    sample(&g, m);
    uint8_t buf[512], mut[512], re[512];
    size_t n, rn;
    ASSERT_OK(mtc_lmgroup_encode(&g, buf, sizeof buf, &n));
    size_t rejected = 0, accepted = 0;
    const uint8_t deltas[] = {0x01, 0x80, 0xff};
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; k < sizeof deltas; k++) {
            memcpy(mut, buf, n);
            mut[i] ^= deltas[k];
            if (mtc_lmgroup_decode(mut, n, &d, dm, 8) != MTC_OK) {
                rejected++;
                continue;
            }
            accepted++;
            ASSERT_OK(mtc_lmgroup_encode(&d, re, sizeof re, &rn));
            ASSERT_EQ(rn, n);
            ASSERT_MEM_EQ(re, mut, n);
            ASSERT_TRUE(memcmp(mut, buf, n) != 0);
        }
    /* both happen: the decoder is neither a pass-through nor a wall */
    ASSERT_TRUE(rejected > 0 && accepted > 0);
}

TEST(version_ids)
{
    mtc_taid gid = id_of("44363.48.5"), v, other;
    char text[MTC_TAID_TEXT_MAX];
    uint64_t ver = 0;
    ASSERT_OK(mtc_lmgroup_version_id(&gid, 500, &v));
    ASSERT_OK(mtc_taid_to_text(&v, text, sizeof text));
    ASSERT_STR_EQ(text, "44363.48.5.500");
    ASSERT_EQ(v.len, gid.len + 2);
    ASSERT_TRUE(mtc_lmgroup_parse_version_id(&gid, &v, &ver));
    ASSERT_EQ_U64(ver, 500);
    ASSERT_EQ(mtc_lmgroup_version_id(&gid, 0, &v), MTC_ERR_ARG);
    /* not this group, two arcs more, the group itself, version 0 */
    other = id_of("44363.48.6.500");
    ASSERT_FALSE(mtc_lmgroup_parse_version_id(&gid, &other, &ver));
    other = id_of("44363.48.5.500.1");
    ASSERT_FALSE(mtc_lmgroup_parse_version_id(&gid, &other, &ver));
    ASSERT_FALSE(mtc_lmgroup_parse_version_id(&gid, &gid, &ver));
    other = id_of("44363.48.5.0");
    ASSERT_FALSE(mtc_lmgroup_parse_version_id(&gid, &other, &ver));
    /* a prefix that only looks like the group ("44363.48.50" shares
     * bytes with "44363.48.5" up to the last arc) */
    other = id_of("44363.48.50");
    ASSERT_FALSE(mtc_lmgroup_parse_version_id(&gid, &other, &ver));
}

/* Each assertion pins one check of the matcher: the version, the group
 * ID, the CA, the log, each bound of the range, landmark 0 (standalone)
 * and the standalone certificate of a CA outside the group. */
TEST(matcher_boundaries)
{
    mtc_lmgroup g;
    mtc_lmgroup_member m[4];
    sample(&g, m);
    mtc_taid adv, stale, foreign;
    mtc_taid gid = g.group_id, other_group = id_of("44363.48.6");
    mtc_lmgroup_version_id(&gid, 500, &adv);
    mtc_lmgroup_version_id(&gid, 499, &stale);
    mtc_lmgroup_version_id(&other_group, 500, &foreign);
    mtc_taid ca1 = id_of("32473.1"), ca2 = id_of("32473.2"), ca9 = id_of("32473.9");
    ASSERT_TRUE(mtc_lmgroup_match(&g, &adv, &ca1, 1, 171));
    ASSERT_TRUE(mtc_lmgroup_match(&g, &adv, &ca1, 1, 3));
    ASSERT_FALSE(mtc_lmgroup_match(&g, &adv, &ca1, 1, 172));  /* newer */
    ASSERT_FALSE(mtc_lmgroup_match(&g, &adv, &ca1, 1, 2));    /* inactive */
    ASSERT_FALSE(mtc_lmgroup_match(&g, &stale, &ca1, 1, 100)); /* version */
    ASSERT_FALSE(mtc_lmgroup_match(&g, &foreign, &ca1, 1, 100)); /* group */
    ASSERT_FALSE(mtc_lmgroup_match(&g, &adv, &ca1, 2, 100));  /* log */
    ASSERT_TRUE(mtc_lmgroup_match(&g, &adv, &ca2, 2, 2));
    ASSERT_FALSE(mtc_lmgroup_match(&g, &adv, &ca2, 2, 3));
    ASSERT_TRUE(mtc_lmgroup_match(&g, &adv, &ca2, 1, 12));
    ASSERT_FALSE(mtc_lmgroup_match(&g, &adv, &ca9, 1, 100));  /* CA */
    ASSERT_TRUE(mtc_lmgroup_match(&g, &adv, &ca2, 1, 0));     /* standalone */
    ASSERT_FALSE(mtc_lmgroup_match(&g, &adv, &ca9, 1, 0));
    ASSERT_FALSE(mtc_lmgroup_match(&g, &stale, &ca2, 1, 0));
    ASSERT_TRUE(mtc_lmgroup_find(&g, &ca2, 2) == &m[2]);
    ASSERT_TRUE(mtc_lmgroup_find(&g, &ca9, 1) == NULL);
}

static const test_case cases[] = {
    {"round_trip_and_length", round_trip_and_length},
    {"encoder_refuses_invalid_groups", encoder_refuses_invalid_groups},
    {"mutation_of_every_byte", mutation_of_every_byte},
    {"version_ids", version_ids},
    {"matcher_boundaries", matcher_boundaries},
};

TEST_MAIN(cases)
