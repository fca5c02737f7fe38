/*
 * mtc/taid.h - trust anchor IDs: CA IDs, log IDs, cosigner IDs, landmark
 * and landmark-group IDs, and the CA-ID distinguished name.
 *
 * A trust anchor ID (draft-ietf-tls-trust-anchor-ids section 3) is a
 * relative OID under 1.3.6.1.4.1. Its binary form is the contents octets
 * of the DER RELATIVE-OID (1..255 bytes, what TLS and MTCProof carry); its
 * ASCII form is the dotted decimal ("32473.1"). mtc_taid holds the binary
 * form inline so that IDs can be built, compared and copied without heap.
 *
 * Derived IDs (draft section "Certification Authority Identifiers" and
 * "Use in TLS"): log N of CA c is c.0.N; landmark L of log N is c.1.N.L;
 * landmark group L of log N is c.2.N.L.
 */
#ifndef MTC_TAID_H
#define MTC_TAID_H

#include <stddef.h>
#include <stdint.h>

#include "mtc/der.h"

#define MTC_TAID_MAX 255
/* Longest ASCII form: every byte one digit plus a dot, at most. */
#define MTC_TAID_TEXT_MAX (2 * MTC_TAID_MAX + 32)

typedef struct mtc_taid {
    uint8_t len; /* 1..255; 0 only in a zero-initialised, unset ID */
    uint8_t b[MTC_TAID_MAX];
} mtc_taid;

/* Parses the ASCII form. MTC_ERR_PARSE (not dotted decimal, leading zeros,
 * empty arcs, arcs beyond 63 bits) or MTC_ERR_LIMIT (binary > 255 bytes). */
int mtc_taid_from_text(const char *text, size_t len, mtc_taid *out);

/* The ASCII form, NUL-terminated, in out[cap]. MTC_ERR_LIMIT when short. */
int mtc_taid_to_text(const mtc_taid *id, char *out, size_t cap);

/* Checks and copies a binary form (minimal base-128 arcs, 1..255 bytes).
 * MTC_ERR_PARSE when malformed. */
int mtc_taid_from_binary(const uint8_t *b, size_t len, mtc_taid *out);

/* out = base.arcs[0].arcs[1]...; out may alias base. MTC_ERR_LIMIT when
 * the result exceeds 255 bytes. */
int mtc_taid_append(const mtc_taid *base, const uint64_t *arcs, size_t n,
                    mtc_taid *out);

/* The IDs the draft derives from a CA ID. log_number and landmark are
 * arcs of the OID; the draft requires log_number >= 1. */
int mtc_taid_log_id(const mtc_taid *ca, uint64_t log_number, mtc_taid *out);
int mtc_taid_landmark_id(const mtc_taid *ca, uint64_t log_number,
                         uint64_t landmark, mtc_taid *out);
int mtc_taid_landmark_group_id(const mtc_taid *ca, uint64_t log_number,
                               uint64_t landmark, mtc_taid *out);

/*
 * 1 when id is `arc` itself or lies below it (arc's arcs are a prefix of
 * id's). A CA ID reserves its whole arc for the draft's allocations (logs,
 * landmarks, landmark groups, and future ones), so no other party's ID,
 * such as a witness's cosigner ID, may lie in it.
 */
int mtc_taid_in_arc(const mtc_taid *arc, const mtc_taid *id);

/* Orders IDs as MTCProof requires: shorter first, then bytewise. */
int mtc_taid_cmp(const mtc_taid *a, const mtc_taid *b);
int mtc_taid_equal(const mtc_taid *a, const mtc_taid *b);

/* "oid/1.3.6.1.4.1." + ASCII form: cosigner_name and log_origin of the
 * CosignedMessage. MTC_ERR_LIMIT when it exceeds 255 bytes or cap. */
int mtc_taid_origin(const mtc_taid *id, char *out, size_t cap,
                    size_t *out_len);

/*
 * The CA-ID distinguished name, in the draft's early-experimentation form:
 * Name { RDN { 1.3.6.1.4.1.44363.47.1 = UTF8String "<ASCII form>" } }.
 * Writes it through the DER writer.
 */
void mtc_taid_name_der(mtc_der_writer *w, const mtc_taid *id);

/* Recognises a whole DER Name of exactly that form and extracts the ID.
 * MTC_ERR_CERT when the name is of another form. */
int mtc_taid_from_name(mtc_slice name, mtc_taid *out);

/* The early-experimentation OIDs of the draft (contents octets). */
extern const uint8_t MTC_OID_ALG_MTC_PROOF[];     /* 1.3.6.1.4.1.44363.47.0 */
extern const uint8_t MTC_OID_RDNA_TAID[];         /* 1.3.6.1.4.1.44363.47.1 */
extern const uint8_t MTC_OID_PE_MTC_CA[];         /* 1.3.6.1.4.1.44363.47.2 */
#define MTC_OID_EXPERIMENTAL_LEN 10

#endif
