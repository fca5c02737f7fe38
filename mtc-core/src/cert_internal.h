/*
 * cert_internal.h - parsing helpers shared by entry.c and cert.c (whose CA
 * certificate uses them too); not part of the public API.
 *
 * TBSCertificate and TBSCertificateLogEntry share most of their fields, so
 * the strict field parsers live in one place (entry.c).
 */
#ifndef MTC_CERT_INTERNAL_H
#define MTC_CERT_INTERNAL_H

#include "mtc/der.h"
#include "mtc/entry.h"

/* Optional [0] EXPLICIT Version: absent means v1 (*v = 0); DER forbids an
 * explicit v1. Accepts v2 and v3. */
int mtc__parse_version(mtc_der_reader *r, mtc_slice *whole, unsigned *v);

/* A Name (SEQUENCE, validated as DER). */
int mtc__parse_name(mtc_der_reader *r, mtc_slice *whole);

/* Validity { Time, Time } with the times decoded. */
int mtc__parse_validity(mtc_der_reader *r, mtc_slice *whole,
                        int64_t *not_before, int64_t *not_after);

/* An AlgorithmIdentifier (SEQUENCE { OID, params? }, validated). */
int mtc__parse_alg_id(mtc_der_reader *r, mtc_slice *whole);

/* The optional tail issuerUniqueID, subjectUniqueID, extensions, with the
 * version rules of RFC 5280 (UIDs need v2+, extensions v3). Each
 * Extension is checked (OID, critical only when TRUE, OCTET STRING) and
 * no extension OID may repeat. */
int mtc__parse_tail(mtc_der_reader *r, unsigned version, mtc_slice *issuer_uid,
                    mtc_slice *subject_uid, mtc_slice *extensions);

#endif
