/*
 * sim/world.h - the world model: entities, lifecycle, what-if actions, and
 * the interface between the PKI side (CAs, issuance logs, cosigners,
 * landmarks, update service, revocation) and the web side (sites,
 * browsers, TLS negotiation).
 *
 * This header is the contract between three parts: the PKI side
 * (sim/pki/), the web side (sim/web/) and the Lua binding (lua/), which
 * drives everything through the entity-kind registry and the action table
 * below without knowing any model.
 *
 * Entities. Every configurable thing is an entity of a *kind* ("ca",
 * "cosigner", "update_service", "sites", "browsers"); its configuration is
 * a plain struct described by a sim_param_schema (sim/params.h). Every
 * schema has a STRING parameter "name"; names are unique across the whole
 * world (an action names its target by name alone). Entities refer to each
 * other by name (a CA's `cosigners` list), resolved at sim_world_start().
 * Within a kind, entities are numbered 0, 1, ... in the order added; that
 * number is the "index" used by the query functions (ca index, update
 * service index, ...).
 *
 * Time. Simulated time is sim_time (microseconds since the scenario epoch;
 * sim/engine.h). The world config's `epoch` gives the Unix time of sim time
 * 0, used for certificate validity dates.
 *
 * Sharding (MPI). With nshards > 1 every rank builds the same
 * world. The PKI side is simulated identically on every shard: every rank
 * appends the same entries, signs the same checkpoints and publishes the
 * same updates, so its metrics are SIM_METRIC_REPLICATED. The web side
 * simulates browsers with (browser id % nshards) == shard. Because the PKI
 * is replayed on every rank, ISSUANCE REQUESTS MUST BE IDENTICAL ON EVERY
 * RANK: sites that request certificates are simulated on every rank (or
 * their requests must otherwise not depend on the shard).
 *
 * Random streams (sim/rng.h): stream kinds 16..63 belong to the PKI side,
 * 64..127 to the web side (each side documents its own assignments).
 *
 * Ownership: the environment's engine, metrics registry and rng are
 * borrowed and must outlive the world. Everything the query functions
 * return is owned by the world and valid until sim_world_destroy() unless
 * stated otherwise. Not thread-safe; one world per engine.
 */
#ifndef SIM_WORLD_H
#define SIM_WORLD_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "mtc/hash.h"
#include "mtc/landmark.h"
#include "mtc/rp.h"
#include "mtc/sig.h"
#include "mtc/taid.h"
#include "sim/engine.h"
#include "sim/metrics.h"
#include "sim/params.h"
#include "sim/rng.h"
#include "sim/status.h"

typedef struct sim_world sim_world;

/* What the world runs in (all borrowed). */
typedef struct sim_world_env {
    sim_engine *engine;
    sim_metrics *metrics;
    sim_rng *rng;               /* seed and replication key every stream */
    uint32_t shard, nshards;    /* nshards >= 1, shard < nshards */
    /* Nonzero: history before the warm-up end is paid event by event as
     * in the window (every checkpoint signed when made). Zero (the
     * default): what no measured quantity can observe is deferred and
     * made only if the window uses it; the window is bit-identical
     * either way (docs/model-pki.md "The warm-up's cost"; tests compare
     * the two). */
    int eager_history;
    /* A flag (the run's SIGINT/SIGTERM flag) that ends the long loops of
     * sim_world_start (the steady start's warm-up) early: the start then
     * fails with SIM_ERR_STATE. NULL: none. */
    const volatile sig_atomic_t *stop;
} sim_world_env;

/* ---- statuses ------------------------------------------------------------ */

/* The message of any status of the simulator's space (sim/status.h):
 * mtc-core's range by mtc_strerror(), every other block by the layer that
 * owns it; never NULL ("unknown error" for a code no block defines). */
const char *sim_strerror(int rc);

/* The enumerator's name ("SIM_ERR_STATE", "MTC_ERR_PROOF"); never NULL
 * ("SIM_ERR_UNKNOWN" for a code no block defines). */
const char *sim_status_name(int rc);

/* ---- the entity-kind registry ------------------------------------------- */

/* Global configuration, kind "world". The seed and replication are not
 * here: they key env->rng. */
/* How a run starts (world parameter `start`). */
enum sim_world_start {
    /* The deployed system: the warm-up must hold the history a steady
     * state needs (sim_world_steady_history), checked at start. */
    SIM_START_STEADY = 0,
    /* The first day of a deployment: empty logs, clients without
     * landmarks, no check on the warm-up. */
    SIM_START_EMPTY = 1
};

typedef struct sim_world_config {
    char name[SIM_PARAM_NAME_MAX];  /* "world" */
    sim_time duration;      /* simulated span; events after it do not run */
    sim_time warmup;        /* metrics ignore counters/histograms before it */
    int start;              /* enum sim_world_start */
    sim_time grid_step;     /* series spacing (0: no series) */
    int64_t epoch;          /* Unix time (s) of sim time 0 */
} sim_world_config;

/* Kinds and their schemas. PKI side: */
extern const sim_param_schema sim_world_config_schema;     /* "world" */
extern const sim_param_schema sim_ca_schema;               /* "ca" */
extern const sim_param_schema sim_cosigner_schema;         /* "cosigner" */
extern const sim_param_schema sim_update_service_schema;   /* "update_service" */
/* Web side (defined by sim/web/web_site.c and web_browser.c): */
extern const sim_param_schema sim_sites_schema;            /* "sites" */
extern const sim_param_schema sim_browsers_schema;         /* "browsers" */

/* The schema of a kind, or NULL when no module provides it. */
const sim_param_schema *sim_world_schema(const char *kind);

/* Every kind's schema ("world" first), in a fixed order; *count gets the
 * number. The array is static. */
const sim_param_schema *const *sim_world_schemas(size_t *count);

/* The metrics registry configuration a world config implies (warm-up end,
 * grid start 0, grid step): the host creates env->metrics with it. */
void sim_world_metrics_config(const sim_world_config *wc,
                              sim_metrics_config *out);

/*
 * The history a steady start needs before the measured window, from the
 * entities added so far: the longest certificate lifetime plus its CA's
 * landmark interval (every certificate valid in the window, and every
 * landmark a relying party may hold for it, was issued inside the run),
 * plus the longest update fetch interval and mean publication delay (a
 * client's newest landmark is no older than in steady state: publications
 * older than a lifetime cover no valid certificate, so a client's state is
 * equivalent to the deployed one once the run is longer than this), plus
 * the longest ACME Retry-After (a renewal's landmark-relative certificate
 * is installed). Sites spread their first requests over one renewal period
 * from time 0, so at the window each holds what it would at a uniformly
 * random phase of its renewal cycle (old and new where keep_old applies).
 * why (may be NULL) gets the terms, for error messages.
 */
sim_time sim_world_steady_history(const sim_world *w, char *why,
                                  size_t whylen);

/* ---- lifecycle ----------------------------------------------------------- */

/*
 * Creates an empty world. world_cfg (a struct made with
 * sim_param_config_new(&sim_world_config_schema, ...)) is copied; the
 * caller keeps ownership of it. env is copied (the pointers in it stay
 * borrowed). Errors: SIM_ERR_ARG (NULL env member, shard >= nshards),
 * SIM_ERR_NOMEM, the world schema's refusal; err gets a message.
 */
int sim_world_create(sim_world **out, const sim_world_env *env,
                     const sim_world_config *world_cfg, char *err,
                     size_t errlen);

/*
 * Adds an entity of `kind`. cfg is a config struct of that kind's schema
 * (sim_param_config_new); the world takes ownership of it on success AND
 * on failure. Returns the entity's index within its kind (>= 0), or a
 * negative status: SIM_ERR_CONFIG (unknown kind, empty or duplicate
 * name), SIM_ERR_STATE (already started), SIM_ERR_NOMEM, or the status of
 * the kind's validate() (its module's code). err names the problem.
 */
int sim_world_add(sim_world *w, const char *kind, void *cfg, char *err,
                  size_t errlen);

/*
 * Resolves references by name, validates the whole world (e.g. a CA's
 * quorum cannot exceed its cosigners), creates every metric, derives every
 * key and schedules the initial events. Call once, before running the
 * engine. Errors: SIM_ERR_STATE (called twice), SIM_ERR_CONFIG, and the
 * modules' start statuses (SIM_ERR_CONFIG with err naming entity and
 * parameter, MTC_ERR_NOMEM, crypto errors).
 */
int sim_world_start(sim_world *w, char *err, size_t errlen);

/* After the run: final gauges (storage, state sizes) and the metrics
 * registry's sim_metrics_finish() at the world's end time
 * (min(now, duration)). Idempotent. */
void sim_world_finish(sim_world *w);

/* Frees everything the world owns. Accepts NULL. */
void sim_world_destroy(sim_world *w);

/* Convenience: start, run the engine to `duration`, finish. */
int sim_world_run(sim_world *w, char *err, size_t errlen);

/* ---- entities ----------------------------------------------------------- */

const sim_world_env *sim_world_get_env(const sim_world *w);
const sim_world_config *sim_world_get_config(const sim_world *w);

/* Number of entities of a kind (0 for an unknown kind). */
size_t sim_world_count(const sim_world *w, const char *kind);

/* Index of the entity `name` of `kind`, or MTC_ERR_RANGE. */
int sim_world_find(const sim_world *w, const char *kind, const char *name);

/* The config struct of entity `index` of `kind` (owned by the world), or
 * NULL. After start it reflects live changes made by sim_world_set(). */
const void *sim_world_entity_config(const sim_world *w, const char *kind,
                                    size_t index);
const char *sim_world_entity_name(const sim_world *w, const char *kind,
                                  size_t index);

/* ---- what-if actions (sim:at(...)) --------------------------------------- */

typedef struct sim_world_action {
    const char *name;       /* "cosigner_down", ... */
    const char *kind;       /* kind of the target entity */
    size_t min_args, max_args;
    const char *args_doc;   /* "duration_s", "first_index last_index [log]" */
    const char *doc;        /* one line */
    /* One letter per argument, its kind and range (sim_world_action_check):
     * 'd' a duration in seconds, in (0, SIM_WORLD_ACTION_DURATION_MAX];
     * 'i' a log entry index, an integer in [0, 2^48), two in a row
     *     ("ii") a range first <= last;
     * 'l' a log number, an integer in 1..65535;
     * 'k' a count, an integer in 0..65535. */
    const char *arg_kinds;
} sim_world_action;

/* The longest outage or unreachability an action takes (about 100 years:
 * the time axis holds it with room to spare). */
#define SIM_WORLD_ACTION_DURATION_MAX 3.2e9

/* Checks args (nargs of them) against a's arg_kinds: MTC_OK, or
 * SIM_ERR_CONFIG with a message naming the argument, its kind and the
 * range. What depends on the world (a CA's cosigner count for a count,
 * a log that is alive) is checked when the action runs. */
int sim_world_action_check(const sim_world_action *a, const double *args,
                           size_t nargs, char *err, size_t errlen);

/* Every action of every registered module (static array). */
const sim_world_action *sim_world_actions(size_t *count);

/*
 * Performs `action` on entity `entity_name` now (sim_now of the engine),
 * with numeric arguments. Errors: SIM_ERR_CONFIG (unknown action, unknown
 * entity, entity of the wrong kind, wrong number of arguments, argument
 * out of range: err says which), SIM_ERR_STATE (before start), others
 * from the module.
 *
 * PKI actions (see sim_world_actions() for the authoritative list):
 *   cosigner_down / cosigner_up          (cosigner)   scheduled outage
 *   cosigner_outage  duration_s          (cosigner)   down now, up later
 *   update_down / update_up              (update_service)
 *   update_outage    duration_s          (update_service)
 *   revoke_range     first last [log]    (ca)  revoke entry indices
 *                                        first..last of log `log`
 *                                        (default: current log)
 *   log_failure                          (ca)  roll over to a new log
 *   split_view       k                   (ca)  the next checkpoint is
 *                                        forked: k cosigners see view B
 *                                        first, the others view A
 */
int sim_world_act(sim_world *w, const char *action, const char *entity_name,
                  const double *args, size_t nargs, char *err, size_t errlen);

/*
 * Changes a live-changeable parameter of an entity now. Which parameters
 * are live: ca: checkpoint_interval, landmark_interval, rate;
 * update_service: fetch_interval; cosigner: none yet (web side documents
 * its own). Units as in the schema (durations in seconds). Errors:
 * SIM_ERR_CONFIG (unknown entity or parameter, out of range), the module's
 * refusal (SIM_ERR_CONFIG: not live).
 * The action table lists it as action "set".
 */
int sim_world_set(sim_world *w, const char *entity_name, const char *param,
                  double value, char *err, size_t errlen);

/* ======================================================================== */
/* PKI side: queries and requests for the web side                          */
/* ======================================================================== */

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
const sim_ca_info *sim_world_ca(const sim_world *w, size_t ca);

/* External cosigner i (< ncosigners) of CA `ca`, in the order of the CA's
 * `cosigners` list: its name, ID, algorithm and public key (owned by the
 * world). The CA cosigner itself is described by the CA certificate
 * (sim_ca_info.ca_cert; its key is also `ca_pk`). MTC_OK or
 * MTC_ERR_RANGE. Any pointer argument may be NULL. */
int sim_world_ca_cosigner(const sim_world *w, size_t ca, size_t i,
                          const char **name, mtc_taid *id, mtc_sig_alg *alg,
                          const uint8_t **pk, size_t *pk_len);

/* The CA's current log number and the CA's own landmark sequence of a log
 * (what the CA has allocated, not what relying parties know), or NULL for
 * a log number not alive. Valid until the next event runs. */
uint64_t sim_world_ca_log(const sim_world *w, size_t ca);
const mtc_landmarks *sim_world_ca_landmarks(const sim_world *w, size_t ca,
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
    uint64_t ticket;            /* as returned by sim_world_issue */
    uint64_t log_number, index, serial;
    uint64_t landmark;          /* SIM_CERT_LANDMARK: the landmark number */
    sim_time requested;         /* when sim_world_issue was called */
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
 * from engine events; they may call sim_world_issue and sim_world_revoke.
 * If the log fails before the entry is checkpointed, the request is
 * re-appended to the new log (the events then carry the new log number).
 * *ticket (may be NULL) identifies the request. Errors: MTC_ERR_ARG (bad
 * index, SPKI, name or lifetime; a subject that is not a DER Name or
 * extensions that are not a DER [3] element), SIM_ERR_STATE (not
 * started).
 */
int sim_world_issue(sim_world *w, size_t ca, const sim_issue_request *req,
                    uint64_t *ticket);

/* Revokes entries first..last (inclusive) of log log_number of CA `ca`
 * now (a mis-issuance incident or key compromise); relying parties learn
 * it through the update service. Errors: MTC_ERR_ARG, MTC_ERR_RANGE. */
int sim_world_revoke(sim_world *w, size_t ca, uint64_t log_number,
                     uint64_t first, uint64_t last);

/* 1 when serial of CA `ca` is revoked (explicitly, not by minSerial), and
 * *since (may be NULL) the time the CA revoked it; 0 otherwise. */
int sim_world_is_revoked(const sim_world *w, size_t ca, uint64_t serial,
                         sim_time *since);

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
uint32_t sim_world_pub_latest(const sim_world *w, size_t us);

/* 1 when the update service answers fetches now, 0 during an outage. */
int sim_world_pub_available(const sim_world *w, size_t us);

/* Time publication `pub` became fetchable (0 for publication 0). */
sim_time sim_world_pub_time(const sim_world *w, size_t us, uint32_t pub);

/* A trusted subtree (an active landmark subtree) and a revoked range. */
typedef struct sim_trusted_subtree {
    uint64_t log, landmark, start, end;
    mtc_hash hash;
} sim_trusted_subtree;

typedef struct sim_revoked_range {
    uint64_t first, last;       /* serials, inclusive */
} sim_revoked_range;

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
     * cosigner policy (see sim_world_ca_cosigner): trusted subtrees
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
const sim_ca_proof_set *sim_world_ca_proof_set(const sim_world *w, size_t ca,
                                               uint64_t log_number, uint64_t landmark);

/* NULL when the CA does not staple or has not stapled yet. Valid until
 * the next event runs. */
const sim_ca_staple *sim_world_ca_staple(const sim_world *w, size_t ca);

/* NULL when us, pub or ca is out of range. */
const sim_ca_view *sim_world_pub_view(const sim_world *w, size_t us,
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
} sim_update_parts;

/* sim_world_update_bytes with the parts in *out (zero when it is 0). */
size_t sim_world_update_parts(sim_world *w, size_t us, uint32_t from, uint32_t to,
                              sim_update_parts *out);

size_t sim_world_update_bytes(sim_world *w, size_t us, uint32_t from,
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

const sim_lmgroup *sim_world_us_group(const sim_world *w, size_t us);

#endif
