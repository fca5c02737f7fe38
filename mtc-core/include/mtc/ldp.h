/*
 * mtc/ldp.h - Landmark Distribution Points: the certificate extension that
 * names where a relying party missing a landmark can fetch the proofs it
 * needs, and the request it sends there (draft-gray-plants-mtc-ldp-00).
 *
 * What the draft's abstract fixes: "An X.509 certificate extension
 * identifies one or more Landmark Distribution Points (LDPs). A relying
 * party requests a proof set from an LDP and validates the proof chain
 * against a trusted, signed target checkpoint." The body of the draft was
 * not reachable, so the syntax below is modelled on the PKIX access
 * extensions it resembles (authorityInfoAccess, cRLDistributionPoints,
 * RFC 5280 sections 4.2.2.1 and 4.2.1.13):
 *
 *   id-pe-landmarkDistributionPoints  OBJECT IDENTIFIER ::= { id-pe 99 }
 *   LandmarkDistributionPoints ::= SEQUENCE SIZE (1..MAX) OF GeneralName
 *       -- each uniformResourceIdentifier [6] IA5String, http or https
 *
 * non-critical (a relying party that cannot fetch still verifies the
 * certificate as the MTC draft says). The OID's last arc stands for the
 * draft's unassigned one: an id-pe OID has 8 content octets, the size any
 * assignment under id-pe would have. The proof set an LDP answers with is
 * encoded as a LandmarkStaple (mtc/staple.h) holding only the requested
 * landmark's subtrees: the cosigned target checkpoint, the log's
 * landmarks, and the landmark's (at most two) subtrees each with its
 * subtree consistency proof to that checkpoint (mtc_staple_landmark,
 * verified by mtc_rp_ca_apply_proof_set).
 *
 * The request names what the relying party needs, and so what the LDP
 * learns: the CA, the log and the landmark of the certificate, as an HTTP
 * GET of  <uri>/<ca-id dotted>/<log number>/<landmark number>.
 *
 * Encodings are canonical DER: decode then encode gives the input.
 * Nothing here allocates; decoded URIs borrow from the input.
 */
#ifndef MTC_LDP_H
#define MTC_LDP_H

#include <stddef.h>
#include <stdint.h>

#include "mtc/der.h"
#include "mtc/taid.h"

#define MTC_LDP_MAX_URIS 8      /* distribution points one certificate names */
#define MTC_LDP_URI_MAX 255     /* octets of one URI */

/* id-pe-landmarkDistributionPoints, OID contents (1.3.6.1.5.5.7.1.99). */
extern const uint8_t MTC_OID_PE_LDP[];
#define MTC_OID_PE_LDP_LEN 8

typedef struct mtc_ldp {
    size_t n;                        /* 1..MTC_LDP_MAX_URIS */
    mtc_slice uri[MTC_LDP_MAX_URIS]; /* borrowed */
} mtc_ldp;

/*
 * The extnValue contents (the DER LandmarkDistributionPoints) of d into
 * out[cap]; *out_len gets the length, also when out is NULL or cap short
 * (then MTC_ERR_LIMIT). MTC_ERR_ARG when d breaks a rule the decoder
 * checks (count, URI length, characters, scheme).
 */
int mtc_ldp_encode(const mtc_ldp *d, uint8_t *out, size_t cap, size_t *out_len);

/*
 * Decodes extnValue contents strictly: one SEQUENCE and nothing after it,
 * 1..MTC_LDP_MAX_URIS elements, each a [6] primitive of 1..MTC_LDP_URI_MAX
 * visible ASCII characters (0x21..0x7e) starting "http://" or "https://"
 * with a host after it. MTC_ERR_DER* for malformed DER, MTC_ERR_CERT for a
 * rule of this syntax, MTC_ERR_LIMIT for more URIs than fit.
 */
int mtc_ldp_decode(const uint8_t *in, size_t len, mtc_ldp *out);

/*
 * Appends the extension (non-critical) for d to a certificate's
 * extensions: exts is the whole [3] EXPLICIT Extensions element, or empty
 * for none; out gets the whole new [3] element. MTC_ERR_CERT when exts is
 * not such an element, not DER throughout (mtc_der_validate), or already
 * has the extension; MTC_ERR_LIMIT when
 * cap is short (*out_len then has the length needed); MTC_ERR_ARG as for
 * mtc_ldp_encode.
 */
int mtc_ldp_ext_append(mtc_slice exts, const mtc_ldp *d, uint8_t *out,
                       size_t cap, size_t *out_len);

/*
 * The distribution points a DER certificate names (a relying party's
 * side, over untrusted bytes): MTC_OK, MTC_ERR_RANGE when the certificate
 * names none, the certificate parser's errors when it is not one, and
 * mtc_ldp_decode's when the extension is malformed or marked critical
 * (MTC_ERR_CERT). *out borrows from der.
 */
int mtc_ldp_from_cert(const uint8_t *der, size_t len, mtc_ldp *out);

/*
 * The request URL for the proof set of landmark `landmark` of log
 * `log_number` of CA ca_id at distribution point uri, into out[cap]
 * NUL-terminated; *out_len (without the NUL) also when cap is short
 * (MTC_ERR_LIMIT). A '/' is added after uri unless it ends with one.
 */
int mtc_ldp_request(mtc_slice uri, const mtc_taid *ca_id, uint64_t log_number,
                    uint64_t landmark, char *out, size_t cap, size_t *out_len);

#endif
