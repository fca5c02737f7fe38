/*
 * test_sim_queue_slab.c - the ladder's bucket-array slab (queue_slab.c),
 * tested on its own: the ladder's tests drive it only through the queue,
 * where a block shared by two buckets or a lost free block would show
 * only as a wrong event order much later, if at all.
 *
 * Properties: the classes are exactly the capacities 8 << c; blocks
 * handed out at once never overlap and hold their class's nodes (every
 * node written and read back); a released block is the next one its
 * class hands out, and other classes do not take it; releasing and
 * allocating again in steady state maps no new chunk; the chunks grow
 * from a small first one, so a small queue maps little; freeing returns
 * the slab to its initial state, ready for reuse.
 */
#include <stdint.h>
#include <string.h>

#include "../sim/engine/queue.h"
#include "test.h"

/* Chunks mapped so far (the slab links them through their first word). */
static size_t chunk_count(const sim__slab *s)
{
    size_t n = 0;
    for (void *c = s->chunks; c; c = *(void **)c)
        n++;
    return n;
}

static size_t class_nodes(int cls)
{
    return (size_t)SIM__SLAB_MIN << cls;
}

/* Fills a block with a pattern of its own (tag) in every node. */
static void fill(sim__hnode *b, int cls, uint64_t tag)
{
    for (size_t i = 0; i < class_nodes(cls); i++)
        b[i] = (sim__hnode){(sim_time)(tag * 100000 + i), tag, NULL};
}

/* Whether a block still holds fill()'s pattern for tag. */
static int holds(const sim__hnode *b, int cls, uint64_t tag)
{
    for (size_t i = 0; i < class_nodes(cls); i++)
        if (b[i].time != (sim_time)(tag * 100000 + i) || b[i].seq != tag)
            return 0;
    return 1;
}

TEST(classes_are_the_doubling_capacities_only)
{
    for (int c = 0; c < SIM__SLAB_CLASSES; c++)
        ASSERT_EQ(sim__slab_class((uint32_t)(SIM__SLAB_MIN << c)), c);
    ASSERT_EQ(sim__slab_class(0), -1);
    ASSERT_EQ(sim__slab_class(SIM__SLAB_MIN - 1), -1);
    ASSERT_EQ(sim__slab_class(SIM__SLAB_MIN + 1), -1);
    ASSERT_EQ(sim__slab_class(3 * SIM__SLAB_MIN), -1);
    ASSERT_EQ(sim__slab_class((uint32_t)SIM__SLAB_MIN << SIM__SLAB_CLASSES), -1);
}

TEST(live_blocks_are_disjoint_and_whole)
{
    sim__slab s;
    sim__slab_init(&s);
    enum { PER = 12 };
    sim__hnode *b[SIM__SLAB_CLASSES][PER];
    uint64_t tag = 1;
    for (int round = 0; round < PER; round++)
        for (int c = 0; c < SIM__SLAB_CLASSES; c++) {
            b[c][round] = sim__slab_alloc(&s, c);
            ASSERT_TRUE(b[c][round] != NULL);
            /* node alignment: the heap copies nodes as whole structs */
            ASSERT_EQ((uintptr_t)b[c][round] % _Alignof(sim__hnode), 0);
            fill(b[c][round], c, tag++);
        }
    /* any overlap would have overwritten an earlier block's pattern */
    tag = 1;
    for (int round = 0; round < PER; round++)
        for (int c = 0; c < SIM__SLAB_CLASSES; c++)
            ASSERT_TRUE(holds(b[c][round], c, tag++));
    sim__slab_free(&s);
}

TEST(released_block_is_reused_by_its_class_alone)
{
    sim__slab s;
    sim__slab_init(&s);
    sim__hnode *a = sim__slab_alloc(&s, 3);
    sim__hnode *keep = sim__slab_alloc(&s, 3);
    ASSERT_TRUE(a && keep && a != keep);
    fill(keep, 3, 7);
    sim__slab_release(&s, a, 3);
    /* another class does not take it (it is too small or too large) */
    sim__hnode *o2 = sim__slab_alloc(&s, 2), *o4 = sim__slab_alloc(&s, 4);
    ASSERT_TRUE(o2 && o4);
    ASSERT_TRUE(o2 != a && o4 != a);
    /* its own class does, next; then a fresh block */
    ASSERT_TRUE(sim__slab_alloc(&s, 3) == a);
    sim__hnode *fresh = sim__slab_alloc(&s, 3);
    ASSERT_TRUE(fresh && fresh != a && fresh != keep);
    /* last released, first reused, and a released block's neighbour kept */
    sim__slab_release(&s, fresh, 3);
    sim__slab_release(&s, a, 3);
    ASSERT_TRUE(sim__slab_alloc(&s, 3) == a);
    ASSERT_TRUE(sim__slab_alloc(&s, 3) == fresh);
    ASSERT_TRUE(holds(keep, 3, 7));
    sim__slab_free(&s);
}

TEST(steady_churn_maps_no_new_chunk)
{
    sim__slab s;
    sim__slab_init(&s);
    enum { N = 200 };
    sim__hnode *b[N];
    int cls[N];
    for (int i = 0; i < N; i++) {
        cls[i] = i % SIM__SLAB_CLASSES;
        b[i] = sim__slab_alloc(&s, cls[i]);
        ASSERT_TRUE(b[i] != NULL);
    }
    size_t chunks = chunk_count(&s);
    ASSERT_TRUE(chunks >= 1);
    /* release and take back every block, many times: the free lists
     * serve them all, so the slab maps nothing more */
    for (int pass = 0; pass < 50; pass++) {
        for (int i = 0; i < N; i++)
            sim__slab_release(&s, b[i], cls[i]);
        for (int i = N - 1; i >= 0; i--) {
            b[i] = sim__slab_alloc(&s, cls[i]);
            ASSERT_TRUE(b[i] != NULL);
            fill(b[i], cls[i], (uint64_t)i + 1);
        }
        for (int i = 0; i < N; i++)
            ASSERT_TRUE(holds(b[i], cls[i], (uint64_t)i + 1));
    }
    ASSERT_EQ(chunk_count(&s), chunks);
    sim__slab_free(&s);
}

TEST(a_small_slab_maps_a_small_chunk)
{
    sim__slab s;
    sim__slab_init(&s);
    ASSERT_EQ(chunk_count(&s), 0);
    ASSERT_TRUE(sim__slab_alloc(&s, 0) != NULL);
    ASSERT_EQ(chunk_count(&s), 1);
    /* the first chunk is far below a huge page: an engine with a handful
     * of events must not fault in 2 MiB */
    size_t first = (size_t)(s.end - (char *)s.chunks);
    ASSERT_TRUE(first <= ((size_t)256 << 10));
    /* the largest class still fits a later chunk whole */
    sim__hnode *big = sim__slab_alloc(&s, SIM__SLAB_CLASSES - 1);
    ASSERT_TRUE(big != NULL);
    fill(big, SIM__SLAB_CLASSES - 1, 3);
    ASSERT_TRUE(holds(big, SIM__SLAB_CLASSES - 1, 3));
    sim__slab_free(&s);
}

TEST(free_resets_for_reuse)
{
    sim__slab s;
    sim__slab_init(&s);
    for (int i = 0; i < 64; i++)
        ASSERT_TRUE(sim__slab_alloc(&s, i % SIM__SLAB_CLASSES) != NULL);
    sim__slab_free(&s);
    sim__slab zero;
    memset(&zero, 0, sizeof zero);
    ASSERT_EQ(memcmp(&s, &zero, sizeof s), 0);
    /* usable again after a free */
    sim__hnode *b = sim__slab_alloc(&s, 5);
    ASSERT_TRUE(b != NULL);
    fill(b, 5, 9);
    ASSERT_TRUE(holds(b, 5, 9));
    sim__slab_free(&s);
    sim__slab_free(&s); /* twice is harmless */
}

static const test_case tests[] = {
    {"classes_are_the_doubling_capacities_only", classes_are_the_doubling_capacities_only},
    {"live_blocks_are_disjoint_and_whole", live_blocks_are_disjoint_and_whole},
    {"released_block_is_reused_by_its_class_alone", released_block_is_reused_by_its_class_alone},
    {"steady_churn_maps_no_new_chunk", steady_churn_maps_no_new_chunk},
    {"a_small_slab_maps_a_small_chunk", a_small_slab_maps_a_small_chunk},
    {"free_resets_for_reuse", free_resets_for_reuse},
};

TEST_MAIN(tests)
