/*
 * sim/shard.h - running one simulation over several processes (Open MPI).
 *
 * A run is split into shards: every process replays the same PKI timeline
 * and simulates the browsers whose id is congruent to its rank modulo the
 * number of ranks (sim_world_env.shard / nshards); at the end the metrics
 * of all shards are merged on rank 0, which alone writes results. Because
 * every client's random stream depends only on (seed, replication, kind,
 * id) and metric merging is exact (sim/metrics.h), the merged results are
 * identical whatever the number of ranks.
 *
 * Built without MPI, or started without mpirun, the program is one shard
 * of one: every function works and does no communication. This is the
 * normal single-process mode, not a stand-in.
 *
 * Not thread-safe (MPI is initialised without thread support).
 */
#ifndef SIM_SHARD_H
#define SIM_SHARD_H

#include <stddef.h>
#include <stdint.h>

#include "sim/metrics.h"

typedef struct sim_shard {
    int rank;    /* 0 .. size-1 */
    int size;    /* number of processes */
    int mpi;     /* 1 when MPI was initialised by sim_shard_init */
} sim_shard;

/* 1 when this program was built with Open MPI support. */
int sim_shard_mpi_available(void);

/*
 * Joins the MPI job when the process was started by mpirun (detected from
 * the launcher's environment), else becomes shard 0 of 1. SIM_OK or
 * SIM_ERR_UNSUPPORTED (started by mpirun with more than one rank, but
 * built without MPI: each process would otherwise silently simulate
 * everything).
 */
int sim_shard_init(sim_shard *s, int *argc, char ***argv);

/* Leaves the MPI job (no-op without MPI). */
void sim_shard_finalize(sim_shard *s);

/* Waits for all ranks. */
int sim_shard_barrier(const sim_shard *s);

/* Broadcasts len bytes from rank 0 to all ranks. */
int sim_shard_bcast(const sim_shard *s, void *buf, size_t len);

/*
 * Gathers every rank's buffer on rank 0: *all receives the concatenation
 * in rank order (malloc'ed, caller frees; NULL when everything is empty)
 * and lens[r] (caller-provided, s->size entries) each rank's length. Other
 * ranks get *all = NULL. Collective. Errors: SIM_ERR_LIMIT (over 2 GiB in
 * total), SIM_ERR_NOMEM, SIM_ERR_IO.
 */
int sim_shard_gather(const sim_shard *s, const void *buf, size_t len,
                     uint8_t **all, size_t *lens);

/*
 * Point-to-point messages to rank 0, for results that must reach it as
 * soon as they exist (a rank may be killed later). sim_shard_send blocks
 * until the bytes are handed to MPI (len may be 0); tag is the caller's
 * kind of message (0 .. 32767). sim_shard_poll, on rank 0, never blocks:
 * it returns 1 with one waiting message (*buf malloc'ed, caller frees;
 * NULL when empty), 0 when none is waiting, or a negative SIM_ERR_*
 * (SIM_ERR_NOMEM, SIM_ERR_IO). Without MPI sim_shard_poll returns 0 and
 * sim_shard_send SIM_ERR_UNSUPPORTED.
 */
int sim_shard_send(const sim_shard *s, int tag, const void *buf, size_t len);
int sim_shard_poll(const sim_shard *s, int *from, int *tag, uint8_t **buf,
                   size_t *len);
/* The same between any two ranks: sim_shard_send_to sends to rank dest;
 * sim_shard_poll_from takes one waiting message of rank `from` with tag
 * `tag` only (1, 0 or a negative SIM_ERR_*, as sim_shard_poll). Messages
 * of one sender and tag arrive in the order sent. */
int sim_shard_send_to(const sim_shard *s, int dest, int tag, const void *buf,
                      size_t len);
int sim_shard_poll_from(const sim_shard *s, int from, int tag, uint8_t **buf,
                        size_t *len);

/* Logical AND of `ok` over all ranks: every rank learns whether all are
 * fine, so that a failure on one rank fails the run on all. */
int sim_shard_all_ok(const sim_shard *s, int ok);

/*
 * Merges the finished metrics of every rank into rank 0's registry `m`
 * (sim_metrics_merge semantics: exact; replicated metrics must agree).
 * On other ranks `m` is left as it was. Collective: all ranks must call.
 * Errors: SIM_ERR_METRIC (definitions or replicated values differ),
 * SIM_ERR_PARSE (corrupt transport), SIM_ERR_NOMEM, SIM_ERR_IO (MPI).
 */
int sim_shard_merge_metrics(const sim_shard *s, sim_metrics *m,
                            size_t *bytes_moved);
/* bytes_moved (may be NULL) receives, on rank 0, the total size of the
 * encodings gathered from the other ranks: the run's communication
 * volume, for capacity estimates. 0 elsewhere and without MPI. */

#endif
