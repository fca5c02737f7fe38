/*
 * pki_internal.h - internal structures of the PKI side of the world model
 * (pki_params.c, pki_ca*.c, pki_cosigner.c, pki_update*.c, pki_world.c;
 * what only a CA's or only the update service's files share is in
 * pki_ca_internal.h and pki_update_internal.h).
 *
 * One pki_state per world holds the CAs, cosigners and update services.
 * A CA owns its issuance logs (pki_log): a compact tree store whose leaf
 * callback regenerates background entries from their index, the checkpoint
 * batches still needed, the sampled sites' requests, the arrival times of
 * entries still waiting for a landmark, and its landmark sequence.
 * Cosigning is asynchronous: a checkpoint job sends one request per
 * external cosigner and completes when the quorum has signed.
 */
#ifndef SIM_PKI_INTERNAL_H
#define SIM_PKI_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "mtc/cert.h"
#include "mtc/cosig.h"
#include "mtc/entry.h"
#include "mtc/ilog.h"
#include "mtc/landmark.h"
#include "mtc/merkle.h"
#include "mtc/rp.h"
#include "mtc/sig.h"
#include "mtc/synth_tree.h"
#include "mtc/taid.h"
#include "mtc/tree.h"
#include "sim/dist.h"
#include "sim/pki.h"
#include "sim/world.h"
#include "sim/world_prof.h"

/* Random stream kinds of the PKI side (sim/rng.h; 16..63 are ours). */
enum {
    PKI_STREAM_ARRIVALS = 16,   /* id: CA index: background arrivals */
    PKI_STREAM_CA = 17,         /* id: CA index: signing latency, samples */
    PKI_STREAM_COSIGNER = 18,   /* id: cosigner index: latency */
    PKI_STREAM_COS_AVAIL = 19,  /* id: cosigner index: failures, repairs */
    PKI_STREAM_UPDATE = 20,     /* id: update service index */
    PKI_STREAM_UPD_AVAIL = 21,  /* id: update service index */
    PKI_STREAM_KEYS = 22,       /* id: see pki_key_seed() */
    PKI_STREAM_BG_KEYS = 23     /* id: CA << 16 | log: background key hashes */
};

/* ---- configuration structs (schemas in pki_params.c) ---- */

enum { PKI_ROLE_WITNESS = 0, PKI_ROLE_MIRROR = 1 };

typedef struct pki_ca_config {
    char name[SIM_PARAM_NAME_MAX];
    char id[64];                /* trust anchor ID (ASCII); "" = derived */
    int algorithm;              /* index into pki_alg_names */
    double rate;                /* background issuance, entries/s */
    double profile[SIM_PROFILE_HOURS];
    sim_time lifetime;
    sim_time checkpoint_interval;
    sim_time landmark_interval;
    int64_t max_active_landmarks;   /* 0: the draft's formula */
    sim_param_list cosigners;
    int64_t quorum;             /* -1: all listed cosigners */
    sim_time quorum_timeout;
    sim_time cosign_retry;
    sim_dist *sign_latency;     /* CA signing (HSM) latency, s */
    int64_t tile_height;
    sim_time prune_interval;
    int staple;                 /* what-if: staple landmarks (pki_staple.c) */
    int64_t ldp;                /* distribution points its certificates name
                                   (draft-gray-plants-mtc-ldp); 0: none */
    double ldp_fail_prob;       /* a fetch from them fails */
    int log_history;            /* PKI_HISTORY_*: how background entries
                                   enter the tree (pki_ca_log.c) */
    sim_time log_age;           /* each first log starts rate x log_age
                                   entries long (synthetic history only) */
} pki_ca_config;

/* How a CA's log holds the background entries (those of no sampled site):
 * as synthetic history (counted, never built or hashed; the nodes covering
 * only them are keyed pseudo-random hashes, mtc/synth_tree.h) or as real
 * entries built from a template and hashed (mtc/tree.h). */
enum { PKI_HISTORY_SYNTHETIC = 0, PKI_HISTORY_HASHED = 1 };
extern const char *const pki_history_names[];   /* NULL-terminated */

typedef struct pki_cosigner_config {
    char name[SIM_PARAM_NAME_MAX];
    char id[64];
    int role;
    int algorithm;
    sim_dist *latency;          /* request to response, s */
    sim_time mtbf;              /* mean time between random failures; 0 off */
    sim_dist *repair_time;      /* s */
    double mirror_bandwidth;    /* bytes/s a mirror copies entries at */
} pki_cosigner_config;

/* How an update ships the consistency proofs of new landmark subtrees
 * (with include_proofs): one subtree consistency proof per subtree, or one
 * bulk subtree consistency proof per reference checkpoint
 * (pki_update_bulk.c). */
enum { PKI_PROOFS_PER_SUBTREE = 0, PKI_PROOFS_BULK = 1 };

typedef struct pki_update_config {
    char name[SIM_PARAM_NAME_MAX];
    sim_param_list cas;         /* CAs it serves; empty: all */
    sim_time fetch_interval;
    sim_dist *publication_delay;    /* s */
    int verify;
    int include_proofs;
    int proofs;                 /* PKI_PROOFS_*: how proofs are shipped */
    sim_time mtbf;
    sim_dist *repair_time;
    /* timestamped multi-CA landmark group (pki_groups.c); empty: none */
    sim_param_list group_cas;
    char group_id[SIM_PARAM_NAME_MAX];
    sim_time group_interval;
} pki_update_config;

extern const char *const pki_alg_names[];   /* NULL-terminated */
mtc_sig_alg pki_alg_of(int algorithm);

/* ---- signatures and signers ---- */

/* A signing identity: CA cosigner or external cosigner. Keys derive from
 * the seed, so every shard holds the same keys. */
typedef struct pki_signer {
    mtc_cosigner cos;           /* id + key (key owned here) */
    mtc_sig_key *key;
    mtc_sig_alg alg;
    uint8_t pk[MTC_SIG_PK_MAX];
    size_t pk_len;
    size_t metric_cohort;       /* cell of `signatures`, `sign_cpu_us` */
    uint64_t cpu_ns_pending;    /* measured CPU not yet added (sub-us) */
} pki_signer;

/* What a deferred signature will sign (pki_world.c). */
typedef struct pki_sig_msg pki_sig_msg;

/* A stored signature (heap bytes), or one deferred: `by` set, `bytes`
 * NULL and `pending` holding the message, signed when first used
 * (pki_sig_ready). Signing is deterministic, so the bytes are those an
 * immediate signing would have made. A signature is present iff `by`. */
typedef struct pki_sig {
    const pki_signer *by;
    uint8_t *bytes;
    size_t len;
    pki_sig_msg *pending;
} pki_sig;

struct pki_state;

/* Makes a deferred signature now (bytes and len valid after MTC_OK). Its
 * cost goes to the profile (signing) but to no metric: the history it
 * belongs to was before the warm-up end, which metrics do not count. */
int pki_sig_ready(pki_sig *s);
/* The signature's length, made first only when the algorithm's
 * signatures vary in length (ECDSA); 0 when making it failed. */
size_t pki_sig_len(pki_sig *s);
/* dst = a copy of src (deferred stays deferred); MTC_OK or NOMEM. */
int pki_sig_copy(pki_sig *dst, const pki_sig *src);

/* Signs and records the `signatures` and `sign_cpu_us` metrics; before
 * the warm-up end (unless env->eager_history) only records what to sign
 * (pki_sig's `pending`): no metric counts there. */
int pki_sign_subtree(struct pki_state *ps, pki_signer *s, const mtc_taid *log_id,
                     uint64_t start, uint64_t end, const mtc_hash *h,
                     pki_sig *out);
int pki_sign_checkpoint(struct pki_state *ps, pki_signer *s,
                        const mtc_taid *log_id, uint64_t ts, uint64_t size,
                        const mtc_hash *root, pki_sig *out);
void pki_sig_free(pki_sig *s);

/* ---- logs ---- */

typedef struct pki_site_req pki_site_req;
typedef struct pki_log pki_log;
typedef struct pki_ca pki_ca;
typedef struct pki_job pki_job;

/* A checkpoint batch [from, to) of a log. */
typedef struct pki_batch {
    uint64_t from, to;
    sim_time opened;            /* previous checkpoint: background notBefore */
    sim_time closed;            /* checkpoint time (0 while open) */
    uint64_t cum_before;        /* fetch bytes of entries [0, from) */
    uint64_t cum_bytes;         /* fetch bytes of [0, to): entry + 2 each */
} pki_batch;

/* A sampled site's request. */
struct pki_site_req {
    uint64_t ticket;
    pki_ca *ca;
    uint64_t log_number, index;
    sim_time requested;
    int64_t not_before, not_after;
    char *dns_name;
    uint8_t *spki;
    size_t spki_len;
    uint8_t *subject, *exts;    /* optional DER (sim_issue_request); NULL: default */
    size_t subject_len, exts_len;
    mtc_hash leaf;
    sim_cert_cb cb;
    void *cb_ctx;
    int standalone_done, landmark_done;
};

/* A witness's or mirror's view of one log: the largest checkpoint it has
 * verified (tiny state: size and root). */
typedef struct pki_wstate {
    uint64_t size;
    mtc_hash root;
    int detected;               /* was shown a view inconsistent with it */
} pki_wstate;

/* The template background entries of one batch are patched from. */
typedef struct pki_template {
    uint64_t batch_from;        /* UINT64_MAX: empty */
    uint8_t buf[1024];
    size_t len;
    size_t name_off;            /* 12 hex digits of the index */
    size_t hash_off;            /* 32-byte SPKI hash */
    mtc_hash_mid mid;           /* leaf-hash state over the bytes before
                                   both patches: shared by every entry */
} pki_template;

struct pki_log {
    pki_ca *ca;
    uint64_t number;
    mtc_taid log_id;
    /* the tree, by the CA's log_history (pki_log_synthetic()); read it
     * through pki_log_size() and pki_log_source(). A union: the log's
     * record, whose size log_storage_bytes counts, is the same either way */
    union {
        mtc_tree *tree;         /* hashed history */
        mtc_synth_tree *stree;  /* synthetic history */
    };
    mtc_landmarks *lm;
    int failed;                 /* no more appends, checkpoints, landmarks */
    /* batches [batch_first, nbatch) are live; the last may be open */
    pki_batch *batch;
    size_t batch_first, nbatch, batch_cap;
    /* site requests by index, [site_first, nsite) live */
    pki_site_req **site;
    size_t site_first, nsite, site_cap;
    /* arrival times of entries [arr_base, size) */
    sim_time *arr;
    uint64_t arr_base;
    size_t arr_first, narr, arr_cap;
    uint64_t ckpt_size;         /* latest checkpoint made */
    uint64_t done_size;         /* latest checkpoint with quorum */
    uint64_t lm_delivered;      /* entries below have landmark certs */
    /* reference checkpoint: the latest with quorum, and its cosignatures */
    mtc_hash ref_root;
    uint64_t ref_size;
    uint64_t ref_ts;
    pki_sig *ref_sigs;
    size_t nref_sigs;
    pki_wstate *wstate;         /* per CA cosigner slot */
    sim_time *lm_time;          /* allocation time of landmark L at
                                   L % (max_active + 1) */
    pki_template tpl_append, tpl_lookup;
};

/* ---- cosigners ---- */

typedef struct pki_cosigner {
    size_t index;
    pki_cosigner_config *cfg;
    pki_signer signer;
    int manual_down;
    int random_down;
    sim_event fail_ev;
    sim_stream lat_stream, avail_stream;
    struct pki_state *ps;
} pki_cosigner;

static inline int pki_cosigner_up(const pki_cosigner *c)
{
    return !c->manual_down && !c->random_down;
}

/* Quorum reachability of a CA: whether fewer than its quorum of listed
 * cosigners are up now. pki_quorum_track() is called whenever a cosigner
 * goes down or up (and once at the CA's start); it adds the time the CA
 * spent unable to reach its quorum, within the measured window, to
 * cosign_quorum_unreachable_ms when such a period ends.
 * pki_quorum_close() adds the period still open at `now` (the run's end)
 * and restarts it there. */
void pki_quorum_track(pki_ca *ca);
void pki_quorum_close(pki_ca *ca, sim_time now);

/* One request of a checkpoint job to one cosigner, for one view. */
typedef struct pki_creq {
    sim_event ev;
    pki_job *job;
    size_t slot;                /* index into the CA's cosigner slots */
    int view;                   /* 0: the honest view A, 1: fork B */
    struct pki_creq *next;      /* job's list, for freeing */
} pki_creq;

/* 1 when log l's background history is synthetic (l->stree), 0 when
 * hashed (l->tree). */
int pki_log_synthetic(const pki_log *l);
/* The tree of log l, whichever store holds it (pki_ca_log.c). */
uint64_t pki_log_size(const pki_log *l);
uint64_t pki_log_pruned_below(const pki_log *l);
/* A node source over l's tree at its current size (valid until the next
 * append or prune). */
void pki_log_source(pki_log *l, mtc_node_source *src);
int pki_log_subtree_hash(pki_log *l, uint64_t start, uint64_t end, mtc_hash *out);
/* Prunes l's tree below index (mtc_tree_prune's contract). */
int pki_log_prune(pki_log *l, uint64_t index);

/* A view of the log the CA presents: A is the tree; B replaces one leaf. */
typedef struct pki_view_src {
    pki_log *log;
    int forked;
    uint64_t fork_index;
    mtc_hash fork_leaf;
} pki_view_src;

#define PKI_MAX_SLOTS 32

/* What a job holds for one view: hashes and the signatures collected. */
typedef struct pki_jview {
    pki_view_src src;
    mtc_hash root, sub_hash[2];
    pki_sig ckpt[PKI_MAX_SLOTS + 1];        /* [0] CA, [1 + slot] */
    pki_sig subsig[2][PKI_MAX_SLOTS + 1];
    unsigned nsigned;                       /* external signatures */
    int quorum;                             /* reached */
} pki_jview;

struct pki_job {
    sim_event ev;               /* CA signing done -> requests go out */
    pki_log *log;
    uint64_t from, to;
    sim_time started;
    mtc_subtree sub[2];
    int nviews;                 /* 1, or 2 with a split view */
    pki_jview v[2];
    uint64_t ts;                /* checkpoint timestamp (Unix ms) */
    int quorum_failed_counted;  /* missed the quorum timeout (a stall) */
    int done;                   /* view A reached quorum */
    int fork_first_k;           /* split view: slots < k see B first */
    unsigned pending;           /* requests in flight or waiting to retry */
    pki_creq *reqs;
    sim_event timeout_ev;
};

/* ---- CAs ---- */

typedef struct pki_slot {
    pki_cosigner *cos;
    sim_time last_done;         /* FIFO per (cosigner, CA) */
} pki_slot;

typedef struct pki_revocation {
    uint64_t first, last;       /* serials, inclusive */
    sim_time at;
} pki_revocation;

struct pki_ca {
    size_t index;
    pki_ca_config *cfg;
    struct pki_state *ps;
    sim_ca_info info;
    pki_signer signer;
    uint8_t issuer_name[300];
    size_t issuer_len;
    uint8_t *ca_cert;
    size_t ca_cert_len;
    uint8_t bg_spki[128];       /* template SPKI of background entries */
    size_t bg_spki_len;
    pki_slot slot[PKI_MAX_SLOTS];
    size_t nslots;
    unsigned quorum;
    uint64_t max_active;
    /* logs, oldest first; the last is current */
    pki_log *logs[SIM_CA_MAX_LOGS];
    size_t nlogs;
    uint64_t next_log_number;
    /* background arrivals */
    sim_nhpp *nhpp;
    sim_stream arr_stream, ca_stream;
    sim_time next_arrival;
    /* checkpoint job */
    sim_event tick_ev, prune_ev;
    sim_time next_tick;
    pki_job *job;               /* in flight (view A not yet at quorum) */
    pki_job **zombies;          /* jobs whose view B is still in flight */
    size_t nzombies, zombie_cap;
    int tick_missed;
    int split_pending;          /* k + 1 for the next checkpoint; 0 none */
    /* landmark interval numbering that survives live changes */
    uint64_t lm_base_number;
    sim_time lm_base_time;
    /* revocations */
    pki_revocation *rev;
    size_t nrev, rev_cap;
    uint64_t min_serial;
    uint64_t next_ticket;
    uint64_t nsites_total;
    struct pki_staple *staple;  /* newest landmark staple (cfg->staple) */
    struct pki_ldp *ldp;        /* proof sets of its active landmarks */
    uint8_t *ldp_exts;          /* scratch: a site's extensions with the
                                   distribution points (cfg->ldp > 0) */
    size_t ldp_exts_cap;
    int unreachable;            /* ca_unreachable periods in force: update
                                   services cannot fetch from it */
    /* fewer than `quorum` of its cosigners up since quorum_down_since
     * (cosign_quorum_unreachable_ms; pki_cosigner.c) */
    int quorum_down;
    sim_time quorum_down_since;
};

/* ---- update services ---- */

typedef sim_trusted_subtree pki_tsub;

/* A proof the update service obtained for a new subtree (kept for the
 * optional proof part of updates). */
typedef struct pki_sproof {
    uint64_t log, start, end;
    size_t nhash;
    mtc_hash *hash;
    size_t ref;                 /* index into the version's refs */
} pki_sproof;

typedef struct pki_refckpt {
    uint64_t log, size, ts;
    mtc_hash root;
    size_t nsig;
    size_t sig_bytes;           /* sum of (id + signature) lengths */
    uint8_t *sigs;              /* id_len(1) id sig_len(2) sig ... */
    size_t sigs_len;
    /* proofs = "bulk": bulk proofs of this reference's new subtrees (one,
     * or several when the wire format's limits require), owned
     * (pki_update_bulk.c); none otherwise */
    struct mtc_bulk_proof **bulk;
    size_t nbulk;
} pki_refckpt;

/* One version of what the update service says about one CA. */
typedef struct pki_version {
    sim_ca_view view;           /* public part */
    mtc_rp_ca *rp;
    pki_tsub *sub;              /* sorted by (log, start, end) */
    size_t nsub;
    pki_revocation *rev;        /* explicit revocations */
    size_t nrev;
    sim_time *lm_new;           /* allocation times of landmarks new here */
    size_t nlm_new;
    uint64_t min_serial;
    sim_revoked_range *ranges;  /* [0, min_serial) then rev, for the view */
    pki_sproof *proofs;         /* proofs for subtrees new in this version */
    size_t nproofs;
    pki_refckpt *refs;
    size_t nrefs;
} pki_version;

typedef struct pki_publication {
    sim_time time;
    uint32_t *version;          /* per CA (index into the CA's versions) */
} pki_publication;

typedef struct pki_ucache {
    uint64_t key;               /* from << 32 | to, 0 = empty */
    size_t bytes;
    sim_update_parts parts;
} pki_ucache;

typedef struct pki_pending_pub {
    sim_event ev;
    struct pki_update *us;
    uint32_t *version;
    sim_time fetched;
    struct pki_pending_pub *next;
} pki_pending_pub;

typedef struct pki_update {
    size_t index;
    pki_update_config *cfg;
    struct pki_state *ps;
    int *serves;                /* per CA */
    pki_version ***ver;         /* per CA: array of versions */
    size_t *nver, *ver_cap;
    /* verified landmark state per CA per log */
    uint64_t (*seen_last)[SIM_CA_MAX_LOGS];     /* last landmark verified */
    uint64_t (*seen_log)[SIM_CA_MAX_LOGS];      /* log numbers */
    size_t *seen_rev;           /* revocations taken per CA */
    pki_publication *pub;
    size_t npub, pub_cap;       /* pub[0] is the initial state */
    pki_pending_pub *pending;   /* FIFO of publications awaiting delay/up */
    sim_time last_pub_time;
    int manual_down, random_down;
    sim_event fetch_ev, fail_ev;
    sim_stream stream, avail_stream;
    pki_ucache *cache;          /* open addressing, load <= 1/2 */
    size_t cache_cap, cache_n;
    struct pki_group *group;    /* NULL: no landmark group (pki_groups.c) */
} pki_update;

/* ---- the module state ---- */

typedef struct pki_metrics {
    sim_metric *delay_standalone, *delay_landmark, *log_entries, *signatures,
        *sign_cpu, *proof_bytes, *lm_subtree_size, *storage, *rp_state,
        *pub_bytes, *snapshot_bytes, *mirror_bytes, *monitor_bytes,
        *quorum_failures, *refusals, *unavailable, *landmarks, *checkpoints,
        *verify_failures, *lm_pub_delay, *rev_pub_delay, *rollovers,
        *split_quorum, *lm_never, *quorum_stall, *quorum_unreach,
        *stalled, *stall_delay;
} pki_metrics;

typedef struct pki_state {
    sim_world *w;
    const sim_world_env *env;
    const sim_world_config *wc;
    pki_ca *ca;
    size_t nca;
    pki_cosigner *cos;
    size_t ncos;
    pki_update *us;
    size_t nus;
    pki_metrics m;
    int record_cpu;             /* shard 0 records sign_cpu_us */
    mtc_entry_scratch scratch;
    uint8_t certbuf[65536];
} pki_state;

/* pki_ca.c */
int pki_ca_setup(pki_state *ps, pki_ca *ca, char *err, size_t errlen);
int pki_ca_start(pki_state *ps, pki_ca *ca);
void pki_ca_free(pki_ca *ca);
int pki_ca_revoke(pki_ca *ca, uint64_t log_number, uint64_t first,
                  uint64_t last);
void pki_ca_split_view(pki_ca *ca, unsigned k);
int pki_ca_set(pki_ca *ca, const char *param, double value);

/* pki_ca_log.c */
int pki_ca_issue(pki_ca *ca, const sim_issue_request *req, uint64_t *ticket);
int pki_ca_log_failure(pki_ca *ca);
void pki_ca_gauges(pki_ca *ca);
pki_log *pki_ca_find_log(const pki_ca *ca, uint64_t number);
pki_log *pki_ca_current(const pki_ca *ca);
/* Drains background arrivals up to now (so the log is current). */
int pki_ca_drain(pki_ca *ca);
/* Bytes of entries [a, b) of a log as a mirror/monitor fetches them. */
uint64_t pki_log_bytes(const pki_log *l, uint64_t a, uint64_t b);
/* Job's own size of storage (for gauges). */
size_t pki_log_memory(const pki_log *l);

/* pki_ca_checkpoint.c */
/* Registers the checkpoint job's event handlers with the engine's profile
 * (none: nothing). */
void pki__checkpoint_prof(sim_prof *pf);
/* Node source over a view of a log (pki_view_src as ctx). */
void pki_view_source(pki_view_src *v, mtc_node_source *src);
/* A cosigner answered (pki_cosigner.c calls back). */
void pki_job_response(pki_job *job, size_t slot, int view, int ok,
                      int retry);

/* pki_staple.c: a new staple of log l after a landmark was allocated
 * (what-if; MTC_OK when there is nothing to staple yet). */
int pki_staple_refresh(pki_ca *ca, pki_log *l);
/* pki_staple.c: the proof set of log l's newest landmark, served by the
 * CA's Landmark Distribution Points (cfg->ldp > 0). */
int pki_ldp_refresh(pki_ca *ca, pki_log *l);
void pki_staple_free(pki_ca *ca);

/* pki_cosigner.c */
int pki_cosigner_setup(pki_state *ps, pki_cosigner *c, char *err,
                       size_t errlen);
int pki_cosigner_start(pki_state *ps, pki_cosigner *c);
void pki_cosigner_free(pki_cosigner *c);
void pki_cosigner_set_manual(pki_cosigner *c, int down);
/* Sends request r now; the cosigner answers through pki_job_response. */
int pki_cosigner_send(pki_state *ps, pki_creq *r);

/* pki_update.c */
int pki_update_setup(pki_state *ps, pki_update *u, char *err, size_t errlen);
int pki_update_start(pki_state *ps, pki_update *u);
void pki_update_free(pki_update *u);
void pki_update_set_manual(pki_update *u, int down);

/* pki_groups.c: the landmark group publisher of an update service */
int pki_group_setup(pki_state *ps, pki_update *u, char *err, size_t errlen);
int pki_group_start(pki_state *ps, pki_update *u);
void pki_group_free(pki_update *u);
/* The group versions of u defined in [t0, t1) (a publication at time t
 * holds those made strictly before t, as the web side reads them):
 * *n of them and their encodings' total length in *bytes. */
void pki_group_versions_between(const pki_update *u, sim_time t0, sim_time t1, size_t *n,
                                size_t *bytes);
/* The ca_unreachable action: no update service fetches from ca for
 * duration_s seconds (overlapping periods nest). */
int pki_ca_unreachable(pki_state *ps, size_t ca, double duration_s);
int pki_update_set_fetch_interval(pki_update *u, sim_time v);

/* pki_update_encode.c */
size_t pki_update_bytes(pki_update *u, uint32_t from, uint32_t to);
/* The same with the encoding's parts (zero when it is 0). */
size_t pki_update_parts(pki_update *u, uint32_t from, uint32_t to, sim_update_parts *out);

/* pki_world.c */
pki_state *pki_state_of(const sim_world *w);
/* Seed of a key: identical on every shard. */
void pki_key_seed(const pki_state *ps, uint64_t id, uint8_t seed[32]);
int pki_signer_init(pki_state *ps, pki_signer *s, mtc_sig_alg alg,
                    const mtc_taid *id, uint64_t key_id, size_t cohort);
void pki_signer_free(pki_signer *s);
int64_t pki_unix(const pki_state *ps, sim_time t);

#endif
