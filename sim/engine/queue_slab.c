/*
 * queue_slab.c - the ladder's bucket arrays, carved from huge-page chunks.
 *
 * Why: at 10^6 pending events the ladder's bucket arrays hold ~24 MB in
 * thousands of separately malloc'd arrays, and every insert appends to the
 * tail of one of ~15,000 of them, picked at random by time: on 4 KiB pages
 * nearly every insert missed the TLB (the VM's nested page walk costing
 * more than the cache miss itself). Blocks carved from 2 MiB chunks that
 * the kernel backs with huge pages (THP "madvise" mode) put all tails
 * under a dozen TLB entries.
 *
 * Blocks come in size classes of 8 << c nodes, as the ladder's capacities
 * do (they double from 8). A freed block goes to its class's free list and
 * is reused by the next block of that class; chunks return to the system
 * only when the slab is freed. The ladder keeps its bucket arrays from cut
 * to cut, so blocks change class rarely and the free lists stay short.
 * The first chunks are small, doubling up to the huge-page size, so that a
 * small queue (most engines in the tests) does not fault a 2 MiB page.
 */
#include "queue.h"

#include <stdint.h>
#include <string.h>

#include <sys/mman.h>

#include "sim/status.h"

#define SLAB_HUGE ((size_t)2 << 20)   /* x86-64 transparent huge page */
#define SLAB_FIRST ((size_t)64 << 10) /* the first chunk */

/* At the start of every chunk; the blocks follow. */
typedef struct slab_chunk {
    struct slab_chunk *next;
    size_t bytes;        /* the whole mapping */
} slab_chunk;

#define SLAB_HDR ((sizeof(slab_chunk) + 63) & ~(size_t)63)

int sim__slab_class(uint32_t cap)
{
    for (int c = 0; c < SIM__SLAB_CLASSES; c++)
        if (cap == (uint32_t)SIM__SLAB_MIN << c)
            return c;
    return -1;
}

void sim__slab_init(sim__slab *s)
{
    memset(s, 0, sizeof *s);
}

void sim__slab_free(sim__slab *s)
{
    for (slab_chunk *c = s->chunks, *n; c; c = n) {
        n = c->next;
        munmap(c, c->bytes);
    }
    memset(s, 0, sizeof *s);
}

/* Maps `bytes` (a multiple of the page size) aligned to the huge-page size
 * when it is at least that large, so that the kernel can back it with huge
 * pages; NULL when the system has no memory for it. */
static void *map_chunk(size_t bytes)
{
    size_t align = bytes >= SLAB_HUGE ? SLAB_HUGE : 0;
    size_t len = bytes + align;
    char *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return NULL;
    if (!align)
        return p;
    char *a = (char *)(((uintptr_t)p + align - 1) & ~(uintptr_t)(align - 1));
    if (a > p)
        munmap(p, (size_t)(a - p));
    if (a + bytes < p + len)
        munmap(a + bytes, (size_t)(p + len - (a + bytes)));
#ifdef MADV_HUGEPAGE
    (void)madvise(a, bytes, MADV_HUGEPAGE); /* a hint: fine if refused */
#endif
    return a;
}

/* A new chunk large enough for a block of `need` bytes. */
static int add_chunk(sim__slab *s, size_t need)
{
    size_t bytes = s->next_bytes ? s->next_bytes : SLAB_FIRST;
    while (bytes < need + SLAB_HDR)
        bytes *= 2;
    slab_chunk *c = map_chunk(bytes);
    if (!c)
        return SIM_ERR_NOMEM;
    c->next = s->chunks;
    c->bytes = bytes;
    s->chunks = c;
    s->cur = (char *)c + SLAB_HDR;
    s->end = (char *)c + bytes;
    s->next_bytes = bytes < SLAB_HUGE ? bytes * 2 : bytes;
    return SIM_OK;
}

sim__hnode *sim__slab_alloc(sim__slab *s, int cls)
{
    sim__hnode *b = s->free[cls];
    if (b) {
        s->free[cls] = *(sim__hnode **)b;
        return b;
    }
    size_t bytes = ((size_t)SIM__SLAB_MIN << cls) * sizeof(sim__hnode);
    if ((size_t)(s->end - s->cur) < bytes && add_chunk(s, bytes) != SIM_OK)
        return NULL;
    b = (sim__hnode *)(void *)s->cur;
    s->cur += bytes;
    return b;
}

void sim__slab_release(sim__slab *s, sim__hnode *b, int cls)
{
    *(sim__hnode **)b = s->free[cls];
    s->free[cls] = b;
}
