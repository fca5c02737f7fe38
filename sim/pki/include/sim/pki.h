/*
 * sim/pki.h - the PKI module's public contract: its entity kinds and their
 * schemas, its what-if actions and live parameters, and the queries and
 * requests the other modules make of it (the web side, through web_pki,
 * sim/web/web_world.c). Implemented by sim/pki/ (pki_world.c and the files
 * it names); internal structures are in sim/pki/pki_internal.h.
 *
 * Kinds: "ca", "cosigner", "update_service" (schemas below, pki_params.c).
 * Their live parameters and plausible ranges are in their descriptors
 * (SIM_PARAM_LIVE, plaus_lo/plaus_hi; sim/params.h).
 *
 * Actions (sim_world_act; the table pki_actions in pki_world.c):
 *   cosigner_down / cosigner_up          (cosigner)   scheduled outage
 *   cosigner_outage  duration_s          (cosigner)   down now, up later
 *   update_down / update_up              (update_service)
 *   update_outage    duration_s          (update_service)
 *   revoke_range     first last [log]    (ca)  revoke entry indices
 *                                        first..last of log `log`
 *                                        (default: current log)
 *   log_failure                          (ca)  roll over to a new log
 *   ca_unreachable   duration_s          (ca)  no update service fetches
 *   split_view       k                   (ca)  the next checkpoint is
 *                                        forked: k cosigners see view B
 *                                        first, the others view A
 *
 * Sharding (MPI). The PKI is simulated identically on every shard: every
 * rank appends the same entries, signs the same checkpoints and publishes
 * the same updates, so its metrics are SIM_METRIC_REPLICATED. Because the
 * PKI is replayed on every rank, ISSUANCE REQUESTS MUST BE IDENTICAL ON
 * EVERY RANK: sites that request certificates are simulated on every rank
 * (or their requests must otherwise not depend on the shard).
 *
 * Indices: `ca` and `us` number the entities of kind "ca" and
 * "update_service" in the order added (sim_world_find). Everything
 * returned is owned by the world, valid until sim_world_destroy() unless
 * stated otherwise.
 */
#ifndef SIM_PKI_H
#define SIM_PKI_H

#include <stddef.h>
#include <stdint.h>

#include "mtc/hash.h"
#include "mtc/landmark.h"
#include "mtc/rp.h"
#include "mtc/sig.h"
#include "mtc/taid.h"
#include "sim/engine.h"
#include "sim/params.h"
#include "sim/world.h"

/* The PKI's kinds (pki_params.c). */
extern const sim_param_schema sim_ca_schema;               /* "ca" */
extern const sim_param_schema sim_cosigner_schema;         /* "cosigner" */
extern const sim_param_schema sim_update_service_schema;   /* "update_service" */

/* Most issuance logs a CA may have alive at once (current + older ones
 * whose certificates have not expired). */
#define SIM_CA_MAX_LOGS 8

/* Static facts about a CA (valid after start). */
typedef struct sim_ca_info {
    const char *name;
    mtc_taid ca_id;             /* trust anchor ID of the CA */
    mtc_sig_alg alg;            /* CA cosigner algorithm */
    sim_time max_lifetime;      /* the CA's certificate lifetime */
    size_t ncosigners;          /* external cosigners it asks */
    unsigned quorum;            /* how many of them the policy needs */
    const uint8_t *ca_cert;     /* DER CA certificate (mtc_ca_cert_build) */
    size_t ca_cert_len;
    const uint8_t *ca_pk;       /* CA cosigner public key (raw) */
    size_t ca_pk_len;
    unsigned ldp;               /* distribution points its certificates name
                                   (mtc/ldp.h); 0: none */
    double ldp_fail_prob;       /* a fetch from them fails */
} sim_ca_info;

/* ca < sim_world_count(w, "ca"); NULL otherwise or before start. */
const sim_ca_info *sim_pki_ca(const sim_world *w, size_t ca);

/* External cosigner i (< ncosigners) of CA `ca`, in the order of the CA's
 * `cosigners` list: its name, ID, algorithm and public key (owned by the
 * world). The CA cosigner itself is described by the CA certificate
 * (sim_ca_info.ca_cert; its key is also `ca_pk`). MTC_OK or
 * MTC_ERR_RANGE. Any pointer argument may be NULL. */
int sim_pki_ca_cosigner(const sim_world *w, size_t ca, size_t i,
                          const char **name, mtc_taid *id, mtc_sig_alg *alg,
                          const uint8_t **pk, size_t *pk_len);

/* The CA's current log number and the CA's own landmark sequence of a log
 * (what the CA has allocated, not what relying parties know), or NULL for
 * a log number not alive. Valid until the next event runs. */
uint64_t sim_pki_ca_log(const sim_world *w, size_t ca);
const mtc_landmarks *sim_pki_ca_landmarks(const sim_world *w, size_t ca,
                                            uint64_t log_number);

/* ---- issuance ---- */

enum sim_cert_kind {
    SIM_CERT_STANDALONE = 1,    /* cosigned; der is the certificate */
    SIM_CERT_LANDMARK = 2,      /* landmark-relative; der is the certificate */
    SIM_CERT_LANDMARK_NEVER = 3 /* no landmark will cover it (expired before
                                   one was allocated, or its log failed);
                                   der is NULL */
};

/* Delivered to the requester's callback. Pointers are borrowed for the
 * duration of the callback only: copy what you keep. */
typedef struct sim_cert_event {
    int kind;                   /* enum sim_cert_kind */
    size_t ca;
    uint64_t ticket;            /* as returned by sim_pki_issue */
    uint64_t log_number, index, serial;
    uint64_t landmark;          /* SIM_CERT_LANDMARK: the landmark number */
    sim_time requested;         /* when sim_pki_issue was called */
    sim_time ready;             /* now */
    int64_t not_before, not_after;  /* Unix seconds, as in the cert */
    const uint8_t *der;         /* the DER certificate */
    size_t der_len;
    size_t proof_len;           /* MTCProof bytes inside it */
} sim_cert_event;

typedef void (*sim_cert_cb)(void *ctx, const sim_cert_event *ev);

typedef struct sim_issue_request {
    const char *dns_name;       /* copied; the subjectAltName */
    const uint8_t *spki_der;    /* copied; DER SubjectPublicKeyInfo */
    size_t spki_len;
    sim_time lifetime;          /* 0: the CA's max_lifetime; else <= it */
    sim_cert_cb cb;             /* called for each event (may be NULL) */
    void *cb_ctx;
    /* Optional, copied: the leaf's subject Name and its [3] Extensions
     * element as whole DER elements (mtc_chain_mtc_leaf_fields makes both
     * for a chain profile, so an MTC carries what today's leaf carries).
     * NULL / 0: an empty subject and keyUsage, extKeyUsage and a
     * subjectAltName holding dns_name alone (mtc_tbs_entry_tls_server). */
    const uint8_t *subject_der;
    size_t subject_len;
    const uint8_t *extensions_der;
    size_t extensions_len;
} sim_issue_request;

/*
 * Requests a certificate from CA `ca` now: the entry (a real
 * TBSCertificateLogEntry with validity [now, now + lifetime]) is appended
 * to the CA's current log after the background entries that arrived
 * before now. The callback then receives, in order, SIM_CERT_STANDALONE
 * (once the batch has its cosigner quorum) and SIM_CERT_LANDMARK (once a
 * landmark covers the entry) or SIM_CERT_LANDMARK_NEVER. Callbacks run
 * from engine events; they may call sim_pki_issue and sim_pki_revoke.
 * If the log fails before the entry is checkpointed, the request is
 * re-appended to the new log (the events then carry the new log number).
 * *ticket (may be NULL) identifies the request. Errors: MTC_ERR_ARG (bad
 * index, SPKI, name or lifetime; a subject that is not a DER Name or
 * extensions that are not a DER [3] element), SIM_ERR_STATE (not
 * started).
 */
int sim_pki_issue(sim_world *w, size_t ca, const sim_issue_request *req,
                    uint64_t *ticket);

/* Revokes entries first..last (inclusive) of log log_number of CA `ca`
 * now (a mis-issuance incident or key compromise); relying parties learn
 * it through the update service. Errors: MTC_ERR_ARG, MTC_ERR_RANGE. */
int sim_pki_revoke(sim_world *w, size_t ca, uint64_t log_number,
                     uint64_t first, uint64_t last);

/* 1 when serial of CA `ca` is revoked (explicitly, not by minSerial), and
 * *since (may be NULL) the time the CA revoked it; 0 otherwise. */
int sim_pki_is_revoked(const sim_world *w, size_t ca, uint64_t serial,
                         sim_time *since);

/* The explicit revocations of CA `ca` made so far, in the order they were
 * made (the order every update service carries them in: a view's
 * nrevocations are the first that many), and *at (may be NULL) the time
 * revocation i (< the count) was made. Revocation reach measures from it
 * (docs/model.md "Revocation reach"). 0 for a bad index. */
size_t sim_pki_revocations(const sim_world *w, size_t ca);
sim_time sim_pki_revocation_at(const sim_world *w, size_t ca, size_t i);

/* ---- update service publications ---- */

/*
 * An update service publishes numbered publications 1, 2, ...;
 * publication 0 is the initial state every relying party ships with (CA
 * certificates and cosigner keys, minSerial at start, no trusted
 * subtrees). A relying party's whole PKI state is therefore one integer:
 * the publication number it holds. Publications are immutable once made.
 */

/* Latest publication of update service `us` that clients can fetch now
 * (0 when none yet). */
uint32_t sim_pki_pub_latest(const sim_world *w, size_t us);

/* 1 when the update service answers fetches now, 0 during an outage. */
int sim_pki_pub_available(const sim_world *w, size_t us);

/* Time publication `pub` became fetchable (0 for publication 0). */
sim_time sim_pki_pub_time(const sim_world *w, size_t us, uint32_t pub);

/* A trusted subtree (an active landmark subtree) and a revoked range. */
typedef struct sim_trusted_subtree {
    uint64_t log, landmark, start, end;
    mtc_hash hash;
} sim_trusted_subtree;

/* Serials first..last, inclusive: the relying party's own type, so that a
 * version's list is handed to it as it is (mtc_rp_ca_revoke_ranges). */
typedef mtc_serial_range sim_revoked_range;

/* What a relying party holding publication `pub` knows about CA `ca`. */
typedef struct sim_ca_view {
    uint32_t version;           /* changes iff the content below changes */
    uint32_t rev_version;       /* changes iff the revoked ranges change
                                   (minSerial advancing included) */
    uint32_t nrevocations;      /* explicit revocations (key compromise)
                                   this view carries, counted from the start
                                   of the run: never decreases, one more per
                                   revocation published */
    size_t nlogs;               /* logs with trusted subtrees, newest first */
    struct {
        uint64_t log_number;
        uint64_t last_landmark;     /* 0: none */
        uint64_t max_active;        /* landmark group width */
    } log[SIM_CA_MAX_LOGS];
    /* The real relying-party configuration for this state: CA cosigner and
     * external cosigners with their keys, the policy (CA + quorum of its
     * cosigners), the active landmark subtrees as trusted subtrees, and
     * the revoked ranges (minSerial and explicit revocations). Immutable
     * and shared: use it to verify with mtc_rp_verify, memoize on
     * (certificate, version). */
    const mtc_rp_ca *rp;
    /* The same content, for building a relying-party config with another
     * cosigner policy (see sim_pki_ca_cosigner): trusted subtrees
     * sorted by (log, start, end), and revoked ranges ([0, minSerial) first). */
    const sim_trusted_subtree *subtrees;
    size_t nsubtrees;
    const sim_revoked_range *revoked;
    size_t nrevoked;
    size_t state_bytes;         /* relying-party state: 32 per trusted
                                   subtree hash + 16 per revoked range +
                                   16 per landmark log header */
} sim_ca_view;

/* A what-if, not in the draft (mtc/staple.h): the landmark staple a CA
 * with `staple = true` hands its sites, the newest one (made when a
 * landmark is allocated). seq counts the CA's staples from 1. */
typedef struct sim_ca_staple {
    const uint8_t *bytes;       /* the encoded staple */
    size_t len;
    uint32_t seq;
    uint64_t log_number, last_landmark, max_active;
} sim_ca_staple;

/* What a Landmark Distribution Point of a CA with `ldp` answers for one
 * landmark (draft-gray-plants-mtc-ldp; mtc/ldp.h): the encoded proof set
 * (mtc_staple format, that landmark's subtrees only). */
typedef struct sim_ca_proof_set {
    const uint8_t *bytes;
    size_t len;
    uint64_t log_number, landmark;
} sim_ca_proof_set;

/* NULL when the CA serves no proof set for that landmark (no `ldp`, no
 * cosigned checkpoint at it, or no longer active). Valid until the next
 * event runs. */
const sim_ca_proof_set *sim_pki_ca_proof_set(const sim_world *w, size_t ca,
                                             uint64_t log_number, uint64_t landmark);

/* NULL when the CA does not staple or has not stapled yet. Valid until
 * the next event runs. */
const sim_ca_staple *sim_pki_ca_staple(const sim_world *w, size_t ca);

/* NULL when us, pub or ca is out of range. */
const sim_ca_view *sim_pki_pub_view(const sim_world *w, size_t us,
                                      uint32_t pub, size_t ca);

/*
 * Bytes a client holding publication `from` downloads to reach `to` (from
 * < to): the length of the real update encoding (see docs/model-pki.md:
 * per changed CA the new landmark subtree hashes, the new oldest active
 * landmark, new revoked ranges; plus, with include_proofs, the reference
 * checkpoint, its cosignatures and the subtree consistency proofs).
 * Memoized. Returns 0 when from >= to or out of range.
 */
/* The parts of that update's encoding, bytes (pki_update_encode.c):
 * together the update's length. */
typedef struct sim_update_parts {
    uint32_t framing;         /* from/to, CA IDs, minSerial, log records'
                                 numbers, every length prefix */
    uint32_t subtree_hashes;  /* new landmark subtrees: landmark, range, hash */
    uint32_t revocations;     /* new revoked ranges */
    uint32_t ref_checkpoints; /* reference checkpoints (log, size, timestamp,
                                 root, their signatures' length) */
    uint32_t cosignatures;    /* the signatures on them */
    uint32_t proofs;          /* subtree consistency proofs: per subtree, or
                                 the bulk proofs with their indices */
    uint32_t group_versions;  /* timestamped landmark-group versions defined
                                 between the two publications (services with
                                 group_cas only), their encodings with a
                                 length prefix each */
} sim_update_parts;

/* sim_pki_update_bytes with the parts in *out (zero when it is 0). */
size_t sim_pki_update_parts(sim_world *w, size_t us, uint32_t from, uint32_t to,
                            sim_update_parts *out);

size_t sim_pki_update_bytes(sim_world *w, size_t us, uint32_t from,
                              uint32_t to);

/*
 * Timestamped multi-CA landmark group of an update service (its
 * group_cas parameter; docs/model.md "Timestamped multi-CA landmark
 * groups"): versions k = 1, 2, ... at sim times k * group_interval, each
 * holding, per member CA and live log, the CA's active landmarks as of
 * that time (entries sorted as mtc/lmgroup.h orders members) and its real
 * encoding (mtc_lmgroup_encode). NULL when the service has no group.
 * Arrays grow as versions are made: read them at once, keep no pointers.
 */
typedef struct sim_lmgroup_entry {
    uint32_t ca;
    uint64_t log_number, first, last;
} sim_lmgroup_entry;

typedef struct sim_lmgroup_version {
    uint64_t number;            /* k >= 1 */
    sim_time time;              /* k * group_interval */
    size_t first, n;            /* its entries: e[first .. first + n) */
    uint8_t *enc;               /* LandmarkGroupVersion (owned by the world) */
    size_t enc_len;
} sim_lmgroup_version;

typedef struct sim_lmgroup {
    mtc_taid id;                /* the group's trust anchor ID */
    const uint8_t *member;      /* per CA: 1 in the group */
    size_t nversions;
    const sim_lmgroup_version *v;
    const sim_lmgroup_entry *e;
} sim_lmgroup;

const sim_lmgroup *sim_pki_us_group(const sim_world *w, size_t us);

#endif
