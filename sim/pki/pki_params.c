/*
 * pki_params.c - parameter schemas of the PKI's kinds ("ca", "cosigner",
 * "update_service"), with their defaults and cross-field checks. Defaults follow docs/sources.md where a source
 * exists (7-day lifetime, hourly landmarks, ML-DSA-44 cosigners).
 */
#include <stdio.h>
#include <string.h>

#include "mtc/error.h"
#include "mtc/ldp.h"
#include "mtc/tree.h"
#include "pki_internal.h"

const char *const pki_alg_names[] = {"ed25519", "ecdsa-p256", "ml-dsa-44",
                                     "ml-dsa-65", "ml-dsa-87", NULL};

const char *const pki_history_names[] = {"synthetic", "hashed", NULL};

mtc_sig_alg pki_alg_of(int algorithm)
{
    static const mtc_sig_alg map[] = {MTC_SIG_ED25519, MTC_SIG_ECDSA_P256,
                                      MTC_SIG_MLDSA44, MTC_SIG_MLDSA65,
                                      MTC_SIG_MLDSA87};
    return algorithm >= 0 && algorithm < 5 ? map[algorithm] : MTC_SIG_NONE;
}

#define NAME_PARAM(T)                                                       \
    {"name", SIM_PARAM_STRING, offsetof(T, name), sizeof(((T *)0)->name), 0, \
     0, NULL, "", "unique name of the entity", 0, 0, 0, NULL}

/* ---- ca ---- */

static const sim_param_desc ca_params[] = {
    NAME_PARAM(pki_ca_config),
    {"id", SIM_PARAM_STRING, offsetof(pki_ca_config, id),
     sizeof(((pki_ca_config *)0)->id), 0, 0, NULL, "",
     "trust anchor ID, dotted decimal under 1.3.6.1.4.1 (\"\": 32473.<n>)", 0, 0, 0, NULL},
    {"algorithm", SIM_PARAM_ENUM, offsetof(pki_ca_config, algorithm), 0, 0, 0,
     pki_alg_names, "", "CA cosigner signature algorithm", 0, 0, 0, NULL},
    {"rate", SIM_PARAM_REAL, offsetof(pki_ca_config, rate), 0, 0, 1e6, NULL,
     "1/s", "background issuance rate (Poisson), on top of sampled sites; "
            "Let's Encrypt ~69/s (6e6/day, docs/sources.md [le-rate])", SIM_PARAM_LIVE, 0, 0, NULL},
    {"profile", SIM_PARAM_PROFILE, offsetof(pki_ca_config, profile), 0, 0, 0,
     NULL, "", "daily profile of the background rate (relative, per hour)", 0, 0, 0, NULL},
    {"lifetime", SIM_PARAM_DURATION, offsetof(pki_ca_config, lifetime), 0, 60,
     4e8, NULL, "s", "maximum certificate lifetime (default 7 days)", 0, SIM_PLAUS_HOUR, 400 * SIM_PLAUS_DAY,
     "a certificate lifetime"},
    {"checkpoint_interval", SIM_PARAM_DURATION,
     offsetof(pki_ca_config, checkpoint_interval), 0, 1e-3, 86400, NULL, "s",
     "period of the standalone (checkpoint) job", SIM_PARAM_LIVE, 1, SIM_PLAUS_DAY,
     "the checkpoint period"},
    {"landmark_interval", SIM_PARAM_DURATION,
     offsetof(pki_ca_config, landmark_interval), 0, 1, 4e7, NULL, "s",
     "time_between_landmarks", SIM_PARAM_LIVE, SIM_PLAUS_MIN, 30 * SIM_PLAUS_DAY,
     "the time between landmarks"},
    {"max_active_landmarks", SIM_PARAM_INT,
     offsetof(pki_ca_config, max_active_landmarks), 0, 0, 1e7, NULL, "",
     "0: ceil(lifetime / landmark_interval) + 1 (draft)", 0, 0, 0, NULL},
    {"cosigners", SIM_PARAM_LIST, offsetof(pki_ca_config, cosigners), 0, 0, 0,
     NULL, "", "names of the external cosigners the CA asks", 0, 0, 0, NULL},
    {"quorum", SIM_PARAM_INT, offsetof(pki_ca_config, quorum), 0, -1,
     PKI_MAX_SLOTS, NULL, "",
     "external cosignatures the relying-party policy needs (-1: all)", 0, 0, 0, NULL},
    {"quorum_timeout", SIM_PARAM_DURATION,
     offsetof(pki_ca_config, quorum_timeout), 0, 1e-3, 4e7, NULL, "s",
     "a checkpoint without quorum after this counts as a quorum failure", 0, 1, SIM_PLAUS_DAY,
     "a cosigning quorum timeout"},
    {"cosign_retry", SIM_PARAM_DURATION, offsetof(pki_ca_config, cosign_retry),
     0, 1e-3, 86400, NULL, "s", "retry period towards an unavailable cosigner", 0, 0, 0, NULL},
    {"sign_latency", SIM_PARAM_DIST, offsetof(pki_ca_config, sign_latency), 0,
     0, 3600, NULL, "s", "CA signing (HSM) latency before requests go out", 0, 0, 0, NULL},
    {"tile_height", SIM_PARAM_INT, offsetof(pki_ca_config, tile_height), 0, 0,
     16, NULL, "", "tree store keeps nodes at or above this height", 0, 0, 0, NULL},
    {"prune_interval", SIM_PARAM_DURATION,
     offsetof(pki_ca_config, prune_interval), 0, 1, 4e7, NULL, "s",
     "period of pruning expired entries and advancing minSerial", 0, SIM_PLAUS_MIN, 30 * SIM_PLAUS_DAY,
     "the pruning period"},
    {"staple", SIM_PARAM_BOOL, offsetof(pki_ca_config, staple), 0, 0, 1, NULL,
     "", "what-if, not in the draft: the CA's sites staple its newest cosigned "
         "checkpoint and landmark subtrees beside a standalone certificate", 0, 0, 0, NULL},
    {"ldp", SIM_PARAM_INT, offsetof(pki_ca_config, ldp), 0, 0, MTC_LDP_MAX_URIS, NULL,
     "", "Landmark Distribution Points (draft-gray-plants-mtc-ldp) its certificates "
         "name, each serving the proof set of every active landmark (0: none)", 0, 0, 0, NULL},
    {"ldp_fail_prob", SIM_PARAM_REAL, offsetof(pki_ca_config, ldp_fail_prob), 0, 0, 1,
     NULL, "", "per fetch, the distribution points answer with an error (the "
               "client then falls back to a standalone certificate)", 0, 0, 0, NULL},
    {"log_history", SIM_PARAM_ENUM, offsetof(pki_ca_config, log_history), 0, 0, 0,
     pki_history_names, "", "background entries in the tree: \"synthetic\" counts them "
     "and gives each tree node covering only them a keyed pseudo-random hash (every "
     "node over a sampled site's entry, root and proof is real SHA-256 from its "
     "children); \"hashed\" builds and hashes each one (same sizes, proofs and "
     "byte counts, other hash values, about 20x the log's CPU)", 0, 0, 0, NULL},
    {"log_age", SIM_PARAM_DURATION, offsetof(pki_ca_config, log_age), 0, 0,
     100 * 365.25 * 86400, NULL, "s", "the first log starts rate x log_age entries "
     "long, with landmarks every landmark_interval over them (a long-lived log's "
     "proof lengths and landmark numbers at no cost; synthetic history only)",
     0, 0, 0, NULL},
};

static int ca_defaults(void *p)
{
    pki_ca_config *c = p;
    c->algorithm = 2; /* ml-dsa-44 */
    c->rate = 0;
    for (int i = 0; i < SIM_PROFILE_HOURS; i++)
        c->profile[i] = 1;
    c->lifetime = 7 * SIM_DAY;
    c->checkpoint_interval = 60 * SIM_SEC;
    c->landmark_interval = SIM_HOUR;
    c->max_active_landmarks = 0;
    c->quorum = -1;
    c->quorum_timeout = 5 * SIM_MIN;
    c->cosign_retry = 10 * SIM_SEC;
    c->tile_height = 4;
    c->prune_interval = SIM_HOUR;
    c->log_history = PKI_HISTORY_SYNTHETIC;
    c->log_age = 0;
    return sim_dist_const(&c->sign_latency, 0);
}

static int ca_validate(const void *p, char *err, size_t errlen)
{
    const pki_ca_config *c = p;
    if (c->quorum > (int64_t)c->cosigners.count) {
        snprintf(err, errlen,
                 "quorum: %lld exceeds the %zu cosigners listed",
                 (long long)c->quorum, c->cosigners.count);
        return SIM_ERR_CONFIG;
    }
    if (c->cosigners.count > PKI_MAX_SLOTS) {
        snprintf(err, errlen, "cosigners: at most %d", PKI_MAX_SLOTS);
        return SIM_ERR_CONFIG;
    }
    if (c->log_age > 0 && c->log_history != PKI_HISTORY_SYNTHETIC) {
        snprintf(err, errlen, "log_age: needs log_history = \"synthetic\" (a hashed "
                              "log would build and hash every entry of its age)");
        return SIM_ERR_CONFIG;
    }
    if (c->rate * ((double)c->log_age / SIM_SEC) >= (double)MTC_TREE_MAX_ENTRIES) {
        snprintf(err, errlen, "log_age: rate x log_age exceeds a log's 2^48 - 1 entries");
        return SIM_ERR_CONFIG;
    }
    if (c->id[0]) {
        mtc_taid t;
        if (mtc_taid_from_text(c->id, strlen(c->id), &t) != MTC_OK) {
            snprintf(err, errlen, "id: '%s' is not a dotted-decimal OID", c->id);
            return SIM_ERR_CONFIG;
        }
    }
    return MTC_OK;
}

const sim_param_schema sim_ca_schema = {
    "ca", "a Merkle Tree CA with its issuance logs and landmark sequence",
    sizeof(pki_ca_config), ca_params, sizeof ca_params / sizeof ca_params[0],
    ca_defaults, ca_validate};

/* ---- cosigner ---- */

static const char *const role_names[] = {"witness", "mirror", NULL};

static const sim_param_desc cos_params[] = {
    NAME_PARAM(pki_cosigner_config),
    {"id", SIM_PARAM_STRING, offsetof(pki_cosigner_config, id),
     sizeof(((pki_cosigner_config *)0)->id), 0, 0, NULL, "",
     "cosigner trust anchor ID (\"\": 32473.9999.<n>)", 0, 0, 0, NULL},
    {"role", SIM_PARAM_ENUM, offsetof(pki_cosigner_config, role), 0, 0, 0,
     role_names, "", "witness (consistency proofs) or mirror (copies entries)", 0, 0, 0, NULL},
    {"algorithm", SIM_PARAM_ENUM, offsetof(pki_cosigner_config, algorithm), 0,
     0, 0, pki_alg_names, "", "signature algorithm (tlog-witness: ML-DSA-44)", 0, 0, 0, NULL},
    {"latency", SIM_PARAM_DIST, offsetof(pki_cosigner_config, latency), 0, 0,
     86400, NULL, "s", "request to response (network and processing)", 0, 0.001, 10 * SIM_PLAUS_MIN,
     "a cosigning round trip"},
    {"mtbf", SIM_PARAM_DURATION, offsetof(pki_cosigner_config, mtbf), 0, 0,
     3.2e9, NULL, "s", "mean time between random failures (0: never)", 0, SIM_PLAUS_HOUR, 36500 * SIM_PLAUS_DAY,
     "a mean time between failures"},
    {"repair_time", SIM_PARAM_DIST, offsetof(pki_cosigner_config, repair_time),
     0, 0, 3.2e8, NULL, "s", "time to repair after a random failure", 0, 10, 30 * SIM_PLAUS_DAY,
     "a repair"},
    {"mirror_bandwidth", SIM_PARAM_REAL,
     offsetof(pki_cosigner_config, mirror_bandwidth), 0, 1, 1e12, NULL,
     "bytes/s", "rate a mirror copies entries at before it cosigns", 0, 0, 0, NULL},
};

static int cos_defaults(void *p)
{
    pki_cosigner_config *c = p;
    c->role = PKI_ROLE_WITNESS;
    c->algorithm = 2;
    c->mtbf = 0;
    c->mirror_bandwidth = 1e8;
    int rc = sim_dist_const(&c->latency, 1.0);
    if (rc == MTC_OK)
        rc = sim_dist_exponential(&c->repair_time, 1800);
    return rc;
}

static int cos_validate(const void *p, char *err, size_t errlen)
{
    const pki_cosigner_config *c = p;
    if (c->id[0]) {
        mtc_taid t;
        if (mtc_taid_from_text(c->id, strlen(c->id), &t) != MTC_OK) {
            snprintf(err, errlen, "id: '%s' is not a dotted-decimal OID", c->id);
            return SIM_ERR_CONFIG;
        }
    }
    return MTC_OK;
}

const sim_param_schema sim_cosigner_schema = {
    "cosigner", "an external cosigner (witness or mirror), shareable by CAs",
    sizeof(pki_cosigner_config), cos_params,
    sizeof cos_params / sizeof cos_params[0], cos_defaults, cos_validate};

/* ---- update service ---- */

static const char *const proofs_names[] = {"per_subtree", "bulk", NULL};

static const sim_param_desc us_params[] = {
    NAME_PARAM(pki_update_config),
    {"cas", SIM_PARAM_LIST, offsetof(pki_update_config, cas), 0, 0, 0, NULL,
     "", "CAs it distributes (empty: all)", 0, 0, 0, NULL},
    {"fetch_interval", SIM_PARAM_DURATION,
     offsetof(pki_update_config, fetch_interval), 0, 1, 4e7, NULL, "s",
     "how often it fetches and verifies CA landmarks", SIM_PARAM_LIVE, 10, 7 * SIM_PLAUS_DAY,
     "the update service's fetch period"},
    {"publication_delay", SIM_PARAM_DIST,
     offsetof(pki_update_config, publication_delay), 0, 0, 4e7, NULL, "s",
     "fetch to publication (processing, release)", 0, 1, 7 * SIM_PLAUS_DAY,
     "an update publication delay"},
    {"verify", SIM_PARAM_BOOL, offsetof(pki_update_config, verify), 0, 0, 1,
     NULL, "", "check cosignatures and subtree consistency proofs", 0, 0, 0, NULL},
    {"include_proofs", SIM_PARAM_BOOL,
     offsetof(pki_update_config, include_proofs), 0, 0, 1, NULL, "",
     "ship reference checkpoints, cosignatures and proofs to clients", 0, 0, 0, NULL},
    {"proofs", SIM_PARAM_ENUM, offsetof(pki_update_config, proofs), 0, 0, 0,
     proofs_names, "",
     "with include_proofs: one consistency proof per subtree, or one bulk "
     "subtree consistency proof per reference checkpoint", 0, 0, 0, NULL},
    {"mtbf", SIM_PARAM_DURATION, offsetof(pki_update_config, mtbf), 0, 0,
     3.2e9, NULL, "s", "mean time between random outages (0: never)", 0, SIM_PLAUS_HOUR, 36500 * SIM_PLAUS_DAY,
     "a mean time between outages"},
    {"repair_time", SIM_PARAM_DIST, offsetof(pki_update_config, repair_time), 0,
     0, 3.2e8, NULL, "s", "outage duration", 0, 10, 30 * SIM_PLAUS_DAY,
     "an outage"},
    {"group_cas", SIM_PARAM_LIST, offsetof(pki_update_config, group_cas), 0, 0,
     0, NULL, "", "CAs of its timestamped multi-CA landmark group: clients "
     "advertise one group version for them (empty: single-log groups)", 0, 0, 0, NULL},
    {"group_id", SIM_PARAM_STRING, offsetof(pki_update_config, group_id),
     sizeof(((pki_update_config *)0)->group_id), 0, 0, NULL, "",
     "the group's trust anchor ID, dotted decimal (version k is ID.k)", 0, 0, 0, NULL},
    {"group_interval", SIM_PARAM_DURATION,
     offsetof(pki_update_config, group_interval), 0, 60, 4e7, NULL, "s",
     "a new group version every group_interval (version k at k times it)", 0, 0, 0, NULL},
};

static int us_defaults(void *p)
{
    pki_update_config *c = p;
    c->fetch_interval = 10 * SIM_MIN;
    c->verify = 1;
    c->include_proofs = 0;
    c->proofs = PKI_PROOFS_PER_SUBTREE;
    c->mtbf = 0;
    snprintf(c->group_id, sizeof c->group_id, "44363.48.1");
    c->group_interval = SIM_HOUR;
    int rc = sim_dist_const(&c->publication_delay, 600);
    if (rc == MTC_OK)
        rc = sim_dist_exponential(&c->repair_time, 3600);
    return rc;
}

const sim_param_schema sim_update_service_schema = {
    "update_service",
    "fetches CA landmarks, verifies them, publishes updates to clients",
    sizeof(pki_update_config), us_params,
    sizeof us_params / sizeof us_params[0], us_defaults, NULL};
