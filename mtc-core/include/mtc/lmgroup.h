/*
 * mtc/lmgroup.h - timestamped multi-CA landmark groups (draft "Use in
 * TLS", "Timestamped Landmark Groups"): one trust anchor group spanning
 * several CAs, versioned predictably by time, each version holding the
 * active landmarks of every member CA as of the version's timestamp.
 *
 * IDs. A group has its own trust anchor ID G (an arc its operator owns,
 * never inside a member CA's arc); version v is advertised as the ID
 * G.v, one arc appended (the versioning construction of
 * draft-ietf-tls-trust-anchor-ids section 5.1, as the MTC draft varies it:
 * versions follow time). Versions start at 1.
 *
 * Definition. What a version contains is published to relying parties
 * (through their update service) and to authenticating parties in this
 * binary form, TLS presentation language, all integers big-endian:
 *
 *   struct {
 *       opaque ca_id<1..255>;        TrustAnchorID of the CA (binary form)
 *       uint16 log_number;           1..65535
 *       uint64 first_landmark;       oldest active landmark, >= 1
 *       uint64 last_landmark;        >= first_landmark
 *   } LandmarkRange;
 *
 *   struct {
 *       opaque group_id<1..255>;     TrustAnchorID G
 *       uint64 version;              >= 1
 *       uint64 timestamp;            Unix seconds the contents are as of
 *       LandmarkRange members<1..2^16-1>;  sorted by (ca_id as MTCProof
 *                                    orders IDs, log_number), no repeats
 *   } LandmarkGroupVersion;
 *
 * Neither draft defines this format: it is this project's, the least a
 * server needs to decide which of its certificates a version covers.
 *
 * Matching. A version covers a landmark-relative certificate of (CA,
 * log, landmark L) iff a member range of that CA and log has first <= L
 * <= last; it covers a standalone certificate of any member CA (like a
 * single-log landmark group, the group contains the CA IDs). A relying
 * party may advertise G.v only when it holds, for every member range,
 * landmark `last` of that log (its trusted subtrees are up to date for
 * all contained CAs as of the timestamp).
 *
 * Nothing here allocates: decoded members go to a caller array, and
 * decoded IDs are copies (mtc_taid).
 */
#ifndef MTC_LMGROUP_H
#define MTC_LMGROUP_H

#include <stddef.h>
#include <stdint.h>

#include "mtc/taid.h"

typedef struct mtc_lmgroup_member {
    mtc_taid ca_id;
    uint64_t log_number;        /* 1..65535 */
    uint64_t first_landmark;    /* 1 <= first <= last */
    uint64_t last_landmark;
} mtc_lmgroup_member;

typedef struct mtc_lmgroup {
    mtc_taid group_id;
    uint64_t version;           /* >= 1 */
    uint64_t timestamp;         /* Unix seconds */
    size_t nmembers;            /* 1..65535 */
    const mtc_lmgroup_member *members; /* borrowed */
} mtc_lmgroup;

/* Largest encoding of one member: 1 + 255 + 2 + 8 + 8. */
#define MTC_LMGROUP_MEMBER_MAX 274

/* The encoding's length, 0 when g is invalid (see mtc_lmgroup_check). */
size_t mtc_lmgroup_encoded_len(const mtc_lmgroup *g);

/* Checks every rule of the format on a structure about to be encoded:
 * MTC_OK or MTC_ERR_ARG. */
int mtc_lmgroup_check(const mtc_lmgroup *g);

/* Writes the encoding into out[cap]. MTC_ERR_ARG (invalid group),
 * MTC_ERR_LIMIT (cap short). *out_len gets the length written. */
int mtc_lmgroup_encode(const mtc_lmgroup *g, uint8_t *out, size_t cap,
                       size_t *out_len);

/*
 * Strict decoder: MTC_ERR_PARSE on truncation, trailing bytes, an
 * invalid trust anchor ID, version 0, log number 0, a range with first 0
 * or first > last, members out of order or repeated, or none;
 * MTC_ERR_LIMIT when there are more than cap members. On success out's
 * members point at members[0..nmembers).
 */
int mtc_lmgroup_decode(const uint8_t *in, size_t len, mtc_lmgroup *out,
                       mtc_lmgroup_member *members, size_t cap);

/* The ID a relying party advertises for version v of group G: G.v.
 * MTC_ERR_ARG for v == 0, MTC_ERR_LIMIT beyond 255 bytes. */
int mtc_lmgroup_version_id(const mtc_taid *group_id, uint64_t version,
                           mtc_taid *out);

/* 1 and *version when id is group_id.v with v >= 1 (exactly one arc
 * more); 0 otherwise. */
int mtc_lmgroup_parse_version_id(const mtc_taid *group_id, const mtc_taid *id,
                                 uint64_t *version);

/* The member range of (ca, log) in g, or NULL. */
const mtc_lmgroup_member *mtc_lmgroup_find(const mtc_lmgroup *g,
                                           const mtc_taid *ca,
                                           uint64_t log_number);

/* 1 when g covers landmark `landmark` of (ca, log): a member range holds
 * it. Landmark 0 is never covered. */
int mtc_lmgroup_covers(const mtc_lmgroup *g, const mtc_taid *ca,
                       uint64_t log_number, uint64_t landmark);

/* 1 when ca is a member CA of g (a standalone certificate of it matches). */
int mtc_lmgroup_has_ca(const mtc_lmgroup *g, const mtc_taid *ca);

/*
 * The server's rule for one advertised ID: 1 when `advertised` is the ID
 * of g's version (G.v with v == g->version) and g covers the
 * certificate: a landmark-relative one (landmark >= 1) of (ca, log,
 * landmark), or, with landmark 0, a standalone one of a member CA.
 */
int mtc_lmgroup_match(const mtc_lmgroup *g, const mtc_taid *advertised,
                      const mtc_taid *ca, uint64_t log_number,
                      uint64_t landmark);

#endif
