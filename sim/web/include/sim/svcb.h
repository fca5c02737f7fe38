/*
 * sim/svcb.h - a server's trust anchors in DNS: the `tls-trust-anchors`
 * SvcParamKey of draft-ietf-tls-trust-anchor-ids-04 (section "DNS Service
 * Parameter"; later editor's copies of the draft remove it) in an HTTPS
 * resource record (RFC 9460), and the DNS response that carries it.
 *
 * The SvcParamValue is the server's trust anchor IDs in its preference
 * order, each prefixed with its length as one octet; the pairs exactly
 * fill the value, and the presentation form is a non-empty list, so an
 * empty value is malformed. The response is a real RFC 1035 message of a
 * modelled content: one question (the owner name, type HTTPS), one
 * ServiceMode answer (SvcPriority 1, TargetName "." as RFC 9460 uses for
 * the owner itself) whose SvcParams are alpn, ipv4hint, ipv6hint and
 * optionally tls-trust-anchors, in increasing key order, and an EDNS(0)
 * OPT record (RFC 6891) when asked. Addresses are documentation prefixes:
 * only their lengths matter.
 *
 * Every *_len returns exactly what the matching encoder writes. Parsers
 * take untrusted bytes (libFuzzer target tests/fuzz_svcb.c) and are
 * strict: truncation, trailing bytes, an empty or non-minimal ID, keys
 * out of order are SIM_ERR_TLS (the web module's malformed-encoding
 * status). No state: nothing to own.
 */
#ifndef SIM_SVCB_H
#define SIM_SVCB_H

#include <stddef.h>
#include <stdint.h>

#include "mtc/taid.h"

#define SVCB_KEY_ALPN 1
#define SVCB_KEY_IPV4HINT 4
#define SVCB_KEY_IPV6HINT 6
/* The draft asks IANA for no number: the default is the first of RFC
 * 9460's private-use keys (65280-65534, "key65280"). Any two-byte key
 * prices the same. */
#define SVCB_KEY_TRUST_ANCHORS_DEFAULT 65280
#define DNS_TYPE_HTTPS 65
#define DNS_TYPE_OPT 41

/* ---- the tls-trust-anchors SvcParamValue ---------------------------------- */

/* Length of the value for ids[n] (sum of 1 + |ID|). */
size_t svcb_ta_value_len(const mtc_taid *ids, size_t n);

/* Writes the value into out[cap]. MTC_ERR_ARG for n == 0 or an unset ID;
 * MTC_ERR_LIMIT when cap is short or the value passes 65,535 bytes. */
int svcb_ta_value_encode(const mtc_taid *ids, size_t n, uint8_t *out, size_t cap,
                         size_t *out_len);

/* A parsed value: borrows in. */
typedef struct svcb_ta_value {
    const uint8_t *p;
    size_t len;
    size_t count;
} svcb_ta_value;

/* Strict parse (see above). SIM_ERR_TLS when malformed. */
int svcb_ta_value_parse(const uint8_t *in, size_t len, svcb_ta_value *out);

/* Iterates a parsed value: *pos starts at 0; 1 and the next ID in *id,
 * or 0 at the end. */
int svcb_ta_value_next(const svcb_ta_value *v, size_t *pos, mtc_taid *id);

/* ---- the HTTPS record's response ------------------------------------------ */

typedef struct svcb_https_response {
    const char *name;           /* owner name, no trailing dot */
    uint32_t ttl;               /* seconds */
    const char *const *alpn;    /* ALPN protocol IDs; nalpn 0: no alpn */
    size_t nalpn;
    unsigned nv4, nv6;          /* addresses in ipv4hint / ipv6hint (0: none) */
    uint16_t ta_key;            /* the tls-trust-anchors key */
    const uint8_t *ta_value;    /* its value; NULL: the parameter is absent */
    size_t ta_len;
    int edns;                   /* 1: an OPT record in the additional section */
} svcb_https_response;

size_t svcb_https_response_len(const svcb_https_response *r);

/* MTC_ERR_ARG for a bad name (empty label, label > 63, name > 253),
 * keys not in increasing order (ta_key <= SVCB_KEY_IPV6HINT with hints)
 * or an empty ta_value; MTC_ERR_LIMIT when cap is short. */
int svcb_https_response_encode(const svcb_https_response *r, uint8_t *out, size_t cap,
                               size_t *out_len);

/* Parses a response to one HTTPS question and finds, in its first
 * ServiceMode HTTPS answer, the value of SvcParamKey `key`: *found 1 and
 * *val / *vlen borrowing in, or *found 0 when that answer lacks the key
 * (or there is no such answer). SIM_ERR_TLS when malformed. Name
 * compression is accepted in answer owner names only (RFC 9460: the
 * TargetName is never compressed). */
int svcb_https_response_find(const uint8_t *in, size_t len, uint16_t key,
                             const uint8_t **val, size_t *vlen, int *found);

#endif
