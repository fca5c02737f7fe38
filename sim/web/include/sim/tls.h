/*
 * sim/tls.h - the TLS 1.3 bytes of server authentication, encoded for real.
 *
 * What a handshake puts on the wire for certificate negotiation, per
 * RFC 8446 (TLS 1.3) and draft-ietf-tls-trust-anchor-ids (-06), as the MTC
 * draft's "Use in TLS" section uses it:
 *   - the trust_anchors extension: in ClientHello a RequestedTrustAnchorList
 *     (TrustAnchorID<1..2^8-1> entries in a <0..2^16-1> vector), in
 *     EncryptedExtensions an AvailableTrustAnchorList (same syntax, not
 *     empty), in the first CertificateEntry an empty one (the path matched);
 *   - the Certificate message (certificate_request_context, then
 *     CertificateEntry { cert_data<1..2^24-1>, extensions<0..2^16-1> });
 *   - CertificateVerify { SignatureScheme, signature<0..2^16-1> };
 *   - the rest of the server's first flight (ServerHello with a key share,
 *     EncryptedExtensions, Finished) so that its size, with TLS record or
 *     QUIC packet framing, gives the extra round trips of a large flight;
 *   - the ClientHello, so that its size gives the number of client QUIC
 *     Initial datagrams, which sets the server's budget before address
 *     validation (a post-quantum key share does not fit one datagram).
 *
 * Every *_len function returns exactly the length the matching encoder
 * writes (tested equal), so the simulator can price millions of handshakes
 * from a few precomputed lengths. The handshake messages are real
 * encodings, but of a modelled content: ClientHello, ServerHello,
 * EncryptedExtensions and Finished carry only the fields listed at their
 * functions (no GREASE, ECH, ALPN in EncryptedExtensions, QUIC transport
 * parameters of the server...). Transport framing (TLS records, QUIC
 * packets and datagrams) is counted by formula, not encoded: see the
 * transport section. Parsers exist for the structures a peer
 * receives (trust_anchors lists, Certificate, CertificateVerify) and are
 * strict: any truncation, trailing byte or empty ID is SIM_ERR_TLS.
 * Nothing here allocates; parsed views borrow from the input.
 *
 * The extension code point is a parameter: the draft says TBD; BoringSSL
 * and Chrome use 0xca34 experimentally (TLS_EXT_TRUST_ANCHORS_EXPERIMENTAL).
 */
#ifndef SIM_TLS_H
#define SIM_TLS_H

#include <stddef.h>
#include <stdint.h>

#include "mtc/sig.h"
#include "mtc/taid.h"
#include "sim/status.h"

/* The web module's statuses: block SIM_STATUS_WEB_FIRST of the simulator's
 * status space (sim/status.h; messages in tls.c, named by sim_strerror()).
 * Functions here also return mtc-core's general codes (MTC_ERR_LIMIT, ...). */
enum sim_web_status {
    SIM_ERR_TLS = SIM_STATUS_WEB_FIRST  /* malformed TLS encoding */
};

#define TLS_EXT_TRUST_ANCHORS_EXPERIMENTAL 0xca34
#define TLS_EXT_SUPPORTED_VERSIONS 43
#define TLS_EXT_KEY_SHARE 51

#define TLS_HS_SERVER_HELLO 2
#define TLS_HS_ENCRYPTED_EXTENSIONS 8
#define TLS_HS_CERTIFICATE 11
#define TLS_HS_CERTIFICATE_VERIFY 15
#define TLS_HS_FINISHED 20

/* Named groups (RFC 8446, draft-ietf-tls-ecdhe-mlkem). */
#define TLS_GROUP_X25519 0x001d
#define TLS_GROUP_SECP256R1 0x0017
#define TLS_GROUP_X25519MLKEM768 0x11ec

/* Largest record plaintext (RFC 8446 section 5.1). */
#define TLS_RECORD_MAX 16384

/* ---- trust anchor ID lists ------------------------------------------------ */

/* Length of a TrustAnchorID list (2-byte vector length plus, per ID, a
 * 1-byte length and its binary form). */
size_t tls_ta_list_len(const mtc_taid *ids, size_t n);

/* Length of the whole trust_anchors extension (type, length, list). */
size_t tls_ext_trust_anchors_len(const mtc_taid *ids, size_t n);

/*
 * Writes the trust_anchors extension (type `codepoint`, extension_data a
 * TrustAnchorID list) into out[cap]. MTC_ERR_ARG for an unset (len 0) ID;
 * MTC_ERR_LIMIT when the list exceeds 2^16-1 bytes or cap is short.
 * *out_len gets the length written.
 */
int tls_ext_trust_anchors_encode(uint16_t codepoint, const mtc_taid *ids,
                                 size_t n, uint8_t *out, size_t cap,
                                 size_t *out_len);

/* A parsed TrustAnchorID list: the bytes after the 2-byte length. */
typedef struct tls_ta_list {
    const uint8_t *p;
    size_t len;
    size_t count;
} tls_ta_list;

/*
 * Parses extension_data as a TrustAnchorID list. `nonempty` demands at
 * least one ID (the EncryptedExtensions form). SIM_ERR_TLS on any
 * violation: truncated or trailing bytes, an empty ID, an ID that is not
 * a minimal base-128 relative OID (mtc_taid_from_binary).
 */
int tls_ta_list_parse(const uint8_t *in, size_t len, int nonempty,
                      tls_ta_list *out);

/* Iterates a parsed list: *pos starts at 0; returns 1 and the next ID in
 * *id, or 0 at the end. The list must come from tls_ta_list_parse. */
int tls_ta_list_next(const tls_ta_list *l, size_t *pos, mtc_taid *id);

/* ---- Certificate and CertificateVerify ------------------------------------ */

typedef struct tls_cert_entry {
    const uint8_t *der;
    size_t len;
} tls_cert_entry;

/*
 * Length of a Certificate message (4-byte handshake header included) with
 * certificates of the given DER lengths; `ta_ext` adds the empty
 * trust_anchors extension to the first entry (sent when the path matched
 * the peer's trust_anchors, draft-ietf-tls-trust-anchor-ids section 5.5).
 */
size_t tls_certificate_len(const size_t *der_lens, size_t n, int ta_ext);

/* Writes it. MTC_ERR_ARG when n == 0 or a certificate is empty;
 * MTC_ERR_LIMIT when a vector overflows or cap is short. */
int tls_certificate_encode(uint16_t codepoint, const tls_cert_entry *certs,
                           size_t n, int ta_ext, uint8_t *out, size_t cap,
                           size_t *out_len);

/* A parsed Certificate message (whole message, header included). */
#define TLS_CERT_MAX_ENTRIES 8
typedef struct tls_certificate {
    size_t n;
    tls_cert_entry certs[TLS_CERT_MAX_ENTRIES];
    int first_has_ta_ext;   /* 1: first entry carries an empty trust_anchors */
} tls_certificate;

/* Strict parse: handshake type 11, lengths consistent, empty request
 * context, 1..TLS_CERT_MAX_ENTRIES entries, each extension list
 * well-formed, trust_anchors (if present) empty and only in the first
 * entry. SIM_ERR_TLS otherwise (MTC_ERR_LIMIT beyond the entry cap). */
int tls_certificate_parse(uint16_t codepoint, const uint8_t *in, size_t len,
                          tls_certificate *out);

/* The TLS 1.3 SignatureScheme of an algorithm: ecdsa_secp256r1_sha256
 * 0x0403, ed25519 0x0807, and the ML-DSA code points of
 * draft-ietf-tls-mldsa (0x0904..0x0906). 0 when there is none. */
uint16_t tls_sig_scheme(mtc_sig_alg alg);

size_t tls_certificate_verify_len(size_t sig_len);
int tls_certificate_verify_encode(uint16_t scheme, const uint8_t *sig,
                                  size_t sig_len, uint8_t *out, size_t cap,
                                  size_t *out_len);
/* Strict parse; *sig borrows from in. SIM_ERR_TLS. */
int tls_certificate_verify_parse(const uint8_t *in, size_t len,
                                 uint16_t *scheme, const uint8_t **sig,
                                 size_t *sig_len);

/* ---- the rest of the server's first flight -------------------------------- */

/* Key share length of a group on the server side (x25519 32, secp256r1 65,
 * X25519MLKEM768 1120: the ML-KEM-768 ciphertext 1088 + X25519 32,
 * draft-ietf-tls-ecdhe-mlkem); 0 when unknown. */
size_t tls_group_server_share_len(uint16_t group);
/* The same on the client side (x25519 32, secp256r1 65, X25519MLKEM768
 * 1216: the ML-KEM-768 encapsulation key 1184 + X25519 32). */
size_t tls_group_client_share_len(uint16_t group);

/* ServerHello with supported_versions and key_share for `group`
 * (legacy_session_id echoing 32 bytes, middlebox-compatibility mode).
 * MTC_ERR_ARG for an unknown group; MTC_ERR_LIMIT when cap is short.
 * Random and key bytes are zero: only structure and lengths matter. */
int tls_server_hello_encode(uint16_t group, uint8_t *out, size_t cap,
                            size_t *out_len);
size_t tls_server_hello_len(uint16_t group);
/* The same echoing a legacy_session_id of sid_len bytes (0..32): 0 over
 * QUIC, where the client sends none (RFC 9001 section 8.4). 0 / MTC_ERR_ARG
 * for an unknown group or sid_len > 32. */
int tls_server_hello_encode_sid(uint16_t group, size_t sid_len, uint8_t *out,
                                size_t cap, size_t *out_len);
size_t tls_server_hello_len_sid(uint16_t group, size_t sid_len);

/*
 * A ClientHello as the model sends it (RFC 8446 section 4.1.2): version,
 * random, legacy_session_id (32 bytes over TCP for middlebox
 * compatibility, empty over QUIC), three TLS 1.3 cipher suites, null
 * compression, and the extensions server_name, supported_groups (the key
 * share's group first, then x25519 and secp256r1), signature_algorithms
 * (12 schemes: the 8 of today's browsers, Ed25519, ML-DSA-44/65/87),
 * supported_versions (TLS 1.3), psk_key_exchange_modes, key_share (one
 * share of `group`), ALPN ("h2", "http/1.1" over TCP; "h3" over QUIC),
 * over QUIC quic_transport_parameters (RFC 9000 section 18: flow-control
 * limits, idle timeout, max_udp_payload_size, initial_source_connection_id
 * of scid_len bytes), then the caller's extensions (`ext`, e.g.
 * trust_anchors) and a padding extension (RFC 7685) of `extra` bytes in
 * all (0: none; 1..3 is MTC_ERR_ARG), standing for what is not modelled
 * (GREASE, ECH, pre-shared keys). Random and key bytes are zero.
 */
typedef struct tls_client_hello {
    uint16_t group;
    const char *server_name;    /* 1..255 bytes */
    int quic;
    size_t scid_len;            /* QUIC source connection ID (0..20) */
    size_t extra;
} tls_client_hello;

/* MTC_ERR_ARG (unknown group, bad name, extra 1..3, scid_len > 20);
 * MTC_ERR_LIMIT when cap is short or a vector overflows. */
int tls_client_hello_encode(const tls_client_hello *ch, const uint8_t *ext,
                            size_t ext_len, uint8_t *out, size_t cap,
                            size_t *out_len);
/* Its length (0 for invalid arguments). It grows by exactly one byte per
 * byte of server_name and of ext (tested), which lets the simulator price
 * every site and ClientHello extension from one base length. */
size_t tls_client_hello_len(const tls_client_hello *ch, size_t ext_len);

/* EncryptedExtensions carrying `ext_len` bytes of extensions (e.g. one
 * trust_anchors extension); Finished with a hash of hash_len bytes. */
size_t tls_encrypted_extensions_len(size_t ext_len);
size_t tls_finished_len(size_t hash_len);

/* ---- transport ----------------------------------------------------------- */

/* Framing is counted, not encoded: TLS record headers, content-type
 * bytes and AEAD tags exactly as RFC 8446 section 5 lays them out; QUIC
 * long-header packets with 2-byte packet numbers, one CRYPTO frame each,
 * no ACK or PADDING frames but the padding of Initial datagrams to 1200
 * bytes, coalesced Initial and Handshake packets (RFC 9000 sections 12.2,
 * 14.1, 17.2). */
typedef struct tls_transport {
    size_t tcp_mss;            /* bytes of TCP payload per segment (1460) */
    unsigned tcp_iw_segments;  /* initial window in segments (10, RFC 6928) */
    int middlebox_compat;      /* 1: server sends change_cipher_spec (6 B) */
    size_t quic_client_initial; /* each client Initial datagram (>= 1200) */
    unsigned quic_amplification; /* server budget before validation (3x) */
    size_t quic_max_datagram;  /* server datagram size (1200) */
    size_t quic_cid_len;       /* connection ID length (8) */
    double tcp_rto_min_ms;     /* TCP's minimum retransmission timeout,
                                * ms (200: Linux's TCP_RTO_MIN) */
} tls_transport;

/* RFC defaults: MSS 1460, IW 10, compat on, 1200-byte Initial, 3x, 1200,
 * 8-byte connection IDs; a minimum RTO of 200 ms as Linux has it. (The simulator's browser cohorts default to
 * Chromium's 1,250-byte Initial: sim/web.h.) */
void tls_transport_defaults(tls_transport *t);

/*
 * Bytes of TCP payload carrying a first flight whose handshake messages
 * are `plain` bytes in cleartext records (ServerHello) and `enc` bytes in
 * encrypted records (everything after): 5-byte record headers, and per
 * encrypted record 1 content-type byte and a 16-byte AEAD tag, records of
 * at most TLS_RECORD_MAX plaintext bytes, plus change_cipher_spec.
 */
size_t tls_tcp_flight_bytes(const tls_transport *t, size_t plain, size_t enc);

/*
 * Extra round trips needed to deliver `bytes` of TCP payload from a fresh
 * connection in slow start: the first round carries the initial window of
 * tcp_iw_segments segments, and each round doubles the window. 0 when
 * the flight fits the initial window.
 */
unsigned tls_extra_rtt_tcp(const tls_transport *t, size_t bytes);

/*
 * UDP payload bytes of the server's QUIC first flight: the ServerHello
 * (`initial` crypto bytes) in an Initial packet, the rest (`handshake`
 * bytes) in Handshake packets, coalesced into datagrams of at most
 * quic_max_datagram bytes; each long-header packet costs its header
 * (first byte, version, both connection IDs, token length for Initial,
 * 2-byte length, 2-byte packet number), a CRYPTO frame header (type,
 * offset and length varints) and a 16-byte tag; the datagram carrying the
 * Initial is padded to 1200 bytes (RFC 9000 section 14.1). *datagrams
 * (may be NULL) gets the datagram count.
 */
size_t tls_quic_flight_bytes(const tls_transport *t, size_t initial,
                             size_t handshake, size_t *datagrams);

/*
 * Extra round trips for a QUIC server flight of `bytes`: the first round
 * may carry at most min(quic_amplification * quic_client_initial, initial
 * congestion window) bytes (RFC 9000 section 8.1, RFC 9002 section 7.2);
 * the client's reply validates its address, after which slow start grows
 * the window by the bytes acknowledged each round.
 */
unsigned tls_extra_rtt_quic(const tls_transport *t, size_t bytes);

/* The same when the server received `received` bytes from the client
 * before its flight (tls_extra_rtt_quic: one quic_client_initial). */
unsigned tls_extra_rtt_quic_rx(const tls_transport *t, size_t received,
                               size_t bytes);

/*
 * Client Initial datagrams needed to carry a ClientHello of ch_len bytes:
 * one Initial packet per datagram (header with both connection IDs, an
 * empty token, 2-byte length and packet number; a CRYPTO frame; a 16-byte
 * tag), each datagram padded to quic_client_initial bytes, which is what
 * the server receives (RFC 9000 section 14.1). At least 1.
 */
size_t tls_quic_client_datagrams(const tls_transport *t, size_t ch_len);

#endif
