/*
 * mtc/der.h - a strict DER encoder and a bounded DER decoder.
 *
 * Only the X.509 subset mtc-core needs: single-byte identifiers (tag
 * numbers below 31), definite lengths of at most 4 octets. The decoder
 * accepts exactly DER: minimal lengths, no indefinite form, no data past
 * the end of an element, nesting at most MTC_DER_MAX_DEPTH deep; anything
 * else is an error naming the rule (MTC_ERR_DER, _LENGTH, _TRAILING,
 * _DEPTH). It never allocates: values are slices of the input.
 *
 * The encoder writes forward into a caller buffer. A constructed element
 * is opened with mtc_der_open() and closed with mtc_der_close(), which
 * fixes its length (moving the contents when the length needs more than
 * one octet). When the buffer is too small, or has no storage at all
 * (buf == NULL), the writer keeps counting: w.len is then the size the
 * encoding needs and w.err is MTC_ERR_LIMIT. This gives exact encoded
 * sizes without a second code path.
 */
#ifndef MTC_DER_H
#define MTC_DER_H

#include <stddef.h>
#include <stdint.h>

/* Identifier octets used by mtc-core. */
enum {
    MTC_DER_BOOLEAN = 0x01,
    MTC_DER_INTEGER = 0x02,
    MTC_DER_BIT_STRING = 0x03,
    MTC_DER_OCTET_STRING = 0x04,
    MTC_DER_NULL = 0x05,
    MTC_DER_OID = 0x06,
    MTC_DER_UTF8_STRING = 0x0c,
    MTC_DER_RELATIVE_OID = 0x0d,
    MTC_DER_PRINTABLE_STRING = 0x13,
    MTC_DER_UTC_TIME = 0x17,
    MTC_DER_GENERALIZED_TIME = 0x18,
    MTC_DER_SEQUENCE = 0x30,
    MTC_DER_SET = 0x31,
    MTC_DER_CONTEXT = 0x80,     /* | number: [n] IMPLICIT primitive */
    MTC_DER_CONSTRUCTED = 0x20  /* | MTC_DER_CONTEXT | n: [n] EXPLICIT */
};

#define MTC_DER_MAX_DEPTH 24
#define MTC_DER_MAX_LEN 0xffffffu /* elements beyond 16 MiB are refused */

/* A borrowed byte range. */
typedef struct mtc_slice {
    const uint8_t *p;
    size_t len;
} mtc_slice;

/* ---- decoding ------------------------------------------------------------- */

typedef struct mtc_der_reader {
    const uint8_t *p, *end;
    unsigned depth; /* nesting level of this reader's contents */
} mtc_der_reader;

/* A reader over der[0..len) at depth 0. */
void mtc_der_reader_init(mtc_der_reader *r, const uint8_t *der, size_t len);

/* 1 when no bytes remain. */
int mtc_der_empty(const mtc_der_reader *r);

/* The next identifier octet, or -1 when empty. Never fails. */
int mtc_der_peek(const mtc_der_reader *r);

/*
 * Reads the next element whose identifier is `tag`: its contents go to
 * *contents and the whole TLV to *whole (either may be NULL). Errors:
 * MTC_ERR_DER (empty, wrong identifier, multi-byte tag),
 * MTC_ERR_DER_LENGTH (indefinite, non-minimal, too long or past the end).
 * On error the reader is unchanged.
 */
int mtc_der_get(mtc_der_reader *r, unsigned tag, mtc_slice *contents,
                mtc_slice *whole);

/* Reads the next element of any identifier. */
int mtc_der_get_any(mtc_der_reader *r, unsigned *tag, mtc_slice *contents,
                    mtc_slice *whole);

/* Like mtc_der_get, and returns a reader over the contents one level
 * deeper (MTC_ERR_DER_DEPTH beyond MTC_DER_MAX_DEPTH). */
int mtc_der_enter(mtc_der_reader *r, unsigned tag, mtc_der_reader *sub,
                  mtc_slice *whole);

/* MTC_OK when the reader is exhausted, MTC_ERR_DER_TRAILING otherwise. */
int mtc_der_finish(const mtc_der_reader *r);

/*
 * Checks that der[0..len) is exactly one DER element, recursively for
 * constructed ones (to MTC_DER_MAX_DEPTH), with the content rules of
 * BOOLEAN (one octet, 00 or FF), INTEGER (minimal), BIT STRING (unused
 * bits <= 7, zero when empty, padding bits zero), NULL (empty) and
 * OBJECT IDENTIFIER (minimal arcs). Used for fields mtc-core copies
 * unchanged (names, extensions) so that what it hashes is DER.
 */
int mtc_der_validate(const uint8_t *der, size_t len);

/* INTEGER contents as a non-negative value below 2^64: MTC_ERR_DER when
 * not minimal, MTC_ERR_RANGE when negative or >= 2^64. */
int mtc_der_parse_u64(mtc_slice contents, uint64_t *out);

/* BIT STRING contents with zero unused bits: the octets after the count. */
int mtc_der_parse_bits(mtc_slice contents, mtc_slice *octets);

/* UTCTime / GeneralizedTime contents (RFC 5280 section 4.1.2.5 forms:
 * YYMMDDHHMMSSZ, YYYYMMDDHHMMSSZ) to seconds since the Epoch. */
int mtc_der_parse_time(unsigned tag, mtc_slice contents, int64_t *out);

/* OID (relative = 0) or RELATIVE-OID contents to dotted decimal in
 * out[cap], NUL-terminated. Arcs must fit 63 bits. MTC_ERR_DER when
 * malformed, MTC_ERR_LIMIT when cap is short. */
int mtc_der_oid_to_text(mtc_slice contents, int relative, char *out,
                        size_t cap);

/* Dotted decimal ("1.2.840.113549", or for a relative OID "44363.47")
 * to contents octets. relative = 0 applies the first-two-arcs rule.
 * MTC_ERR_PARSE when malformed, MTC_ERR_LIMIT when cap short. */
int mtc_der_oid_from_text(const char *text, size_t text_len, int relative,
                          uint8_t *out, size_t cap, size_t *out_len);

/* ---- encoding --------------------------------------------------------------- */

typedef struct mtc_der_writer {
    uint8_t *buf;  /* may be NULL: count only */
    size_t cap;
    size_t len;    /* bytes written, or needed after overflow */
    int err;       /* MTC_OK, or MTC_ERR_LIMIT once buf was too small */
} mtc_der_writer;

void mtc_der_writer_init(mtc_der_writer *w, uint8_t *buf, size_t cap);

/* Appends raw octets (a complete, already encoded element, or contents
 * inside an open element). */
void mtc_der_raw(mtc_der_writer *w, const void *p, size_t len);

/* Appends a primitive element. */
void mtc_der_prim(mtc_der_writer *w, unsigned tag, const void *contents,
                  size_t len);

/* Reserves n bytes at the end and returns where to write them, or NULL
 * (after counting them) when the buffer is too small. */
uint8_t *mtc_der_reserve(mtc_der_writer *w, size_t n);

/* Opens a constructed element; the return value is passed to close. */
size_t mtc_der_open(mtc_der_writer *w, unsigned tag);
void mtc_der_close(mtc_der_writer *w, size_t mark);

/* INTEGER of a non-negative value. */
void mtc_der_u64(mtc_der_writer *w, uint64_t v);
/* Identifier and length octets only (the caller appends the contents). */
void mtc_der_header(mtc_der_writer *w, unsigned tag, size_t contents_len);
/* BIT STRING with zero unused bits. */
void mtc_der_bits(mtc_der_writer *w, const void *octets, size_t len);
/* UTCTime for 1950..2049, GeneralizedTime otherwise (RFC 5280). t must be
 * within years 0000..9999. */
void mtc_der_time(mtc_der_writer *w, int64_t t);

/* Size of the identifier and length octets for a contents length. */
size_t mtc_der_header_len(size_t contents_len);

#endif
