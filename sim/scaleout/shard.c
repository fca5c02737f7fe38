/*
 * shard.c - MPI plumbing for sharded runs (see sim/shard.h).
 *
 * Metrics travel as their canonical encodings (sim_metrics_encode): rank 0
 * gathers the lengths, then the bytes, decodes each and merges them in rank
 * order. The merge is exact and order-independent, so the rank order only
 * fixes which replicated copy is checked against which.
 */
#include "sim/shard.h"

#include <stdlib.h>
#include <string.h>

#include "sim/status.h"

#ifdef MTCSIM_HAVE_MPI
#include <mpi.h>
#endif

/* Launched by an MPI starter? Open MPI's mpirun sets these; PMIx-based
 * launchers set PMIX_RANK. */
static int launched_by_mpirun(int *world_size)
{
    const char *n = getenv("OMPI_COMM_WORLD_SIZE");
    if (!n)
        n = getenv("PMI_SIZE");
    if (n) {
        *world_size = atoi(n);
        return 1;
    }
    if (getenv("PMIX_RANK")) {
        *world_size = 0; /* unknown until MPI_Init */
        return 1;
    }
    return 0;
}

int sim_shard_mpi_available(void)
{
#ifdef MTCSIM_HAVE_MPI
    return 1;
#else
    return 0;
#endif
}

int sim_shard_init(sim_shard *s, int *argc, char ***argv)
{
    s->rank = 0;
    s->size = 1;
    s->mpi = 0;
    int world = 1;
    if (!launched_by_mpirun(&world))
        return SIM_OK;
#ifdef MTCSIM_HAVE_MPI
    if (MPI_Init(argc, argv) != MPI_SUCCESS)
        return SIM_ERR_IO;
    s->mpi = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &s->rank);
    MPI_Comm_size(MPI_COMM_WORLD, &s->size);
    return SIM_OK;
#else
    (void)argc;
    (void)argv;
    return world > 1 ? SIM_ERR_UNSUPPORTED : SIM_OK;
#endif
}

void sim_shard_finalize(sim_shard *s)
{
#ifdef MTCSIM_HAVE_MPI
    if (s->mpi)
        MPI_Finalize();
#endif
    s->mpi = 0;
}

int sim_shard_barrier(const sim_shard *s)
{
#ifdef MTCSIM_HAVE_MPI
    if (s->mpi && MPI_Barrier(MPI_COMM_WORLD) != MPI_SUCCESS)
        return SIM_ERR_IO;
#else
    (void)s;
#endif
    return SIM_OK;
}

int sim_shard_bcast(const sim_shard *s, void *buf, size_t len)
{
#ifdef MTCSIM_HAVE_MPI
    if (!s->mpi || s->size == 1)
        return SIM_OK;
    /* MPI counts are int: send in chunks below 1 GiB. */
    uint8_t *p = buf;
    while (len) {
        int n = len > (1u << 30) ? (1 << 30) : (int)len;
        if (MPI_Bcast(p, n, MPI_BYTE, 0, MPI_COMM_WORLD) != MPI_SUCCESS)
            return SIM_ERR_IO;
        p += n;
        len -= (size_t)n;
    }
#else
    (void)s;
    (void)buf;
    (void)len;
#endif
    return SIM_OK;
}

int sim_shard_all_ok(const sim_shard *s, int ok)
{
#ifdef MTCSIM_HAVE_MPI
    if (s->mpi && s->size > 1) {
        int in = ok ? 1 : 0, out = 0;
        if (MPI_Allreduce(&in, &out, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD) !=
            MPI_SUCCESS)
            return 0;
        return out;
    }
#else
    (void)s;
#endif
    return ok != 0;
}

int sim_shard_send(const sim_shard *s, int tag, const void *buf, size_t len)
{
    return sim_shard_send_to(s, 0, tag, buf, len);
}

int sim_shard_send_to(const sim_shard *s, int dest, int tag, const void *buf,
                      size_t len)
{
#ifdef MTCSIM_HAVE_MPI
    if (!s->mpi || s->size == 1 || dest < 0 || dest >= s->size)
        return SIM_ERR_UNSUPPORTED;
    if (len > (size_t)INT32_MAX)
        return SIM_ERR_LIMIT;
    if (MPI_Send(len ? buf : NULL, (int)len, MPI_BYTE, dest, tag,
                 MPI_COMM_WORLD) != MPI_SUCCESS)
        return SIM_ERR_IO;
    return SIM_OK;
#else
    (void)s;
    (void)dest;
    (void)tag;
    (void)buf;
    (void)len;
    return SIM_ERR_UNSUPPORTED;
#endif
}

/* One waiting message matching (source, tag), either of which may be
 * MPI_ANY_*: 1 with it, 0 when none waits, or a negative SIM_ERR_*. */
#ifdef MTCSIM_HAVE_MPI
static int poll_match(int source, int tag, int *from, int *gottag,
                      uint8_t **buf, size_t *len)
{
    int flag = 0, n = 0;
    MPI_Status st;
    if (MPI_Iprobe(source, tag, MPI_COMM_WORLD, &flag, &st) != MPI_SUCCESS)
        return SIM_ERR_IO;
    if (!flag)
        return 0;
    if (MPI_Get_count(&st, MPI_BYTE, &n) != MPI_SUCCESS || n < 0)
        return SIM_ERR_IO;
    uint8_t *b = malloc(n ? (size_t)n : 1);
    if (!b)
        return SIM_ERR_NOMEM;
    if (MPI_Recv(b, n, MPI_BYTE, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE) != MPI_SUCCESS) {
        free(b);
        return SIM_ERR_IO;
    }
    if (from)
        *from = st.MPI_SOURCE;
    if (gottag)
        *gottag = st.MPI_TAG;
    *buf = b;
    *len = (size_t)n;
    return 1;
}
#endif

int sim_shard_poll_from(const sim_shard *s, int from, int tag, uint8_t **buf,
                        size_t *len)
{
    *buf = NULL;
    *len = 0;
#ifdef MTCSIM_HAVE_MPI
    if (!s->mpi || s->size == 1 || from < 0 || from >= s->size)
        return 0;
    return poll_match(from, tag, NULL, NULL, buf, len);
#else
    (void)s;
    (void)from;
    (void)tag;
    return 0;
#endif
}

int sim_shard_poll(const sim_shard *s, int *from, int *tag, uint8_t **buf,
                   size_t *len)
{
    *buf = NULL;
    *len = 0;
#ifdef MTCSIM_HAVE_MPI
    if (!s->mpi || s->size == 1)
        return 0;
    return poll_match(MPI_ANY_SOURCE, MPI_ANY_TAG, from, tag, buf, len);
#else
    (void)s;
    (void)from;
    (void)tag;
    return 0;
#endif
}

int sim_shard_gather(const sim_shard *s, const void *buf, size_t len,
                     uint8_t **all, size_t *lens)
{
    *all = NULL;
#ifdef MTCSIM_HAVE_MPI
    if (s->mpi && s->size > 1) {
        unsigned long long mylen = len, *ll = NULL;
        int *counts = NULL, *displs = NULL, ok = 1, rc = SIM_OK;
        size_t total = 0;
        if (s->rank == 0) {
            ll = calloc((size_t)s->size, sizeof *ll);
            counts = calloc((size_t)s->size, sizeof *counts);
            displs = calloc((size_t)s->size, sizeof *displs);
            ok = ll && counts && displs;
        }
        if (MPI_Gather(&mylen, 1, MPI_UNSIGNED_LONG_LONG, ll, 1,
                       MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD) != MPI_SUCCESS)
            rc = SIM_ERR_IO;
        if (s->rank == 0 && ok && rc == SIM_OK) {
            for (int r = 0; r < s->size; r++) {
                if (total + ll[r] > (size_t)INT32_MAX) {
                    rc = SIM_ERR_LIMIT;
                    break;
                }
                lens[r] = (size_t)ll[r];
                counts[r] = (int)ll[r];
                displs[r] = (int)total;
                total += ll[r];
            }
            if (rc == SIM_OK && !(*all = malloc(total ? total : 1)))
                rc = SIM_ERR_NOMEM;
        }
        if (!ok && rc == SIM_OK)
            rc = SIM_ERR_NOMEM;
        int go = rc == SIM_OK;
        MPI_Bcast(&go, 1, MPI_INT, 0, MPI_COMM_WORLD);
        if (go && MPI_Gatherv(buf, (int)len, MPI_BYTE, *all, counts, displs,
                              MPI_BYTE, 0, MPI_COMM_WORLD) != MPI_SUCCESS)
            rc = SIM_ERR_IO;
        if (!go && rc == SIM_OK)
            rc = SIM_ERR_IO; /* rank 0 could not receive */
        free(ll);
        free(counts);
        free(displs);
        if (rc != SIM_OK) {
            free(*all);
            *all = NULL;
        }
        return rc;
    }
#else
    (void)s;
#endif
    /* One rank: "gathering" is handing back a copy of our own buffer. */
    lens[0] = len;
    if (len) {
        if (!(*all = malloc(len)))
            return SIM_ERR_NOMEM;
        memcpy(*all, buf, len);
    }
    return SIM_OK;
}

int sim_shard_merge_metrics(const sim_shard *s, sim_metrics *m,
                            size_t *bytes_moved)
{
    if (bytes_moved)
        *bytes_moved = 0;
#ifdef MTCSIM_HAVE_MPI
    if (!s->mpi || s->size == 1)
        return SIM_OK;
    uint8_t *mine = NULL, *all = NULL;
    size_t len = 0;
    int rc = sim_metrics_encode(m, &mine, &len);
    /* Every rank must reach the collectives even after a local failure;
     * a failed encoding is sent as length 0 and fails the merge. */
    unsigned long long mylen = rc == SIM_OK ? len : 0, *lens = NULL;
    int *counts = NULL, *displs = NULL;
    if (s->rank == 0) {
        lens = calloc((size_t)s->size, sizeof *lens);
        counts = calloc((size_t)s->size, sizeof *counts);
        displs = calloc((size_t)s->size, sizeof *displs);
    }
    if (MPI_Gather(&mylen, 1, MPI_UNSIGNED_LONG_LONG, lens, 1,
                   MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD) != MPI_SUCCESS)
        rc = SIM_ERR_IO;
    size_t total = 0;
    int fits = 1;
    if (s->rank == 0) {
        if (!lens || !counts || !displs)
            fits = 0;
        for (int r = 0; fits && r < s->size; r++) {
            if (lens[r] == 0 || total + lens[r] > (size_t)INT32_MAX)
                fits = 0;
            else {
                counts[r] = (int)lens[r];
                displs[r] = (int)total;
                total += lens[r];
            }
        }
        if (fits && !(all = malloc(total)))
            fits = 0;
    }
    /* Rank 0 tells everyone whether the gather can proceed. */
    if (MPI_Bcast(&fits, 1, MPI_INT, 0, MPI_COMM_WORLD) != MPI_SUCCESS)
        rc = SIM_ERR_IO;
    if (fits) {
        if (MPI_Gatherv(mine, (int)mylen, MPI_BYTE, all, counts, displs,
                        MPI_BYTE, 0, MPI_COMM_WORLD) != MPI_SUCCESS)
            rc = SIM_ERR_IO;
        if (s->rank == 0 && bytes_moved)
            *bytes_moved = total - (size_t)lens[0];
        if (s->rank == 0 && rc == SIM_OK)
            for (int r = 1; r < s->size && rc == SIM_OK; r++) {
                sim_metrics *other = NULL;
                rc = sim_metrics_decode(&other, all + displs[r], lens[r]);
                if (rc == SIM_OK)
                    rc = sim_metrics_merge(m, other);
                sim_metrics_destroy(other);
            }
    } else if (rc == SIM_OK) {
        rc = s->rank == 0 ? SIM_ERR_NOMEM : SIM_ERR_IO;
    }
    free(mine);
    free(all);
    free(lens);
    free(counts);
    free(displs);
    /* All ranks agree on the outcome. */
    return sim_shard_all_ok(s, rc == SIM_OK) ? SIM_OK
                                              : (rc != SIM_OK ? rc : SIM_ERR_IO);
#else
    (void)s;
    (void)m;
    return SIM_OK;
#endif
}
