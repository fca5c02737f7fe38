/*
 * tls.c - TLS 1.3 encodings of server authentication and first-flight
 * sizes (see sim/tls.h).
 *
 * Encoders and *_len functions share one layout description each, kept
 * next to each other so that a change to one is a visible change to the
 * other; the tests check them equal byte for byte. The simulator calls the
 * *_len functions once per distinct certificate or client state and sums
 * lengths per handshake.
 */
#include "sim/tls.h"

#include <string.h>

#include "mtc/error.h"
#include "wire.h"

/* ---- a bounded writer ---------------------------------------------------- */

typedef struct wr {
    uint8_t *p;
    size_t cap, len;
    int err;
    int measure;            /* 1: count only (p unused, cap unlimited) */
} wr;

static void put(wr *w, const void *b, size_t n)
{
    if (w->err)
        return;
    if (w->measure) {
        w->len += n;
        return;
    }
    if (n > w->cap - w->len) {
        w->err = MTC_ERR_LIMIT;
        return;
    }
    if (b)
        memcpy(w->p + w->len, b, n);
    else
        memset(w->p + w->len, 0, n);
    w->len += n;
}

static void put_u(wr *w, uint64_t v, unsigned bytes)
{
    uint8_t b[8];
    for (unsigned i = 0; i < bytes; i++)
        b[i] = (uint8_t)(v >> (8 * (bytes - 1 - i)));
    put(w, b, bytes);
}

/* Patches a length field of `bytes` bytes at `at` with the bytes written
 * since at + bytes; MTC_ERR_LIMIT when it does not fit. */
static void patch_len(wr *w, size_t at, unsigned bytes)
{
    if (w->err)
        return;
    size_t v = w->len - at - bytes;
    if (bytes < 8 && v >> (8 * bytes)) {
        w->err = MTC_ERR_LIMIT;
        return;
    }
    if (w->measure)
        return;
    for (unsigned i = 0; i < bytes; i++)
        w->p[at + i] = (uint8_t)(v >> (8 * (bytes - 1 - i)));
}

/* ---- trust anchor lists -------------------------------------------------- */

size_t tls_ta_list_len(const mtc_taid *ids, size_t n)
{
    size_t len = 2;
    for (size_t i = 0; i < n; i++)
        len += 1 + (size_t)ids[i].len;
    return len;
}

size_t tls_ext_trust_anchors_len(const mtc_taid *ids, size_t n)
{
    return 4 + tls_ta_list_len(ids, n);
}

int tls_ext_trust_anchors_encode(uint16_t codepoint, const mtc_taid *ids,
                                 size_t n, uint8_t *out, size_t cap,
                                 size_t *out_len)
{
    if (!out_len || (n && !ids))
        return MTC_ERR_ARG;
    for (size_t i = 0; i < n; i++)
        if (ids[i].len == 0)
            return MTC_ERR_ARG;
    wr w = {out, out ? cap : 0, 0, 0, 0};
    put_u(&w, codepoint, 2);
    size_t ext_at = w.len;
    put_u(&w, 0, 2);
    size_t list_at = w.len;
    put_u(&w, 0, 2);
    for (size_t i = 0; i < n; i++) {
        put_u(&w, ids[i].len, 1);
        put(&w, ids[i].b, ids[i].len);
    }
    patch_len(&w, list_at, 2);
    patch_len(&w, ext_at, 2);
    if (w.err)
        return w.err;
    *out_len = w.len;
    return MTC_OK;
}

int tls_ta_list_parse(const uint8_t *in, size_t len, int nonempty,
                      tls_ta_list *out)
{
    if (!out || (!in && len))
        return MTC_ERR_ARG;
    wire_rd r = {in, len, 0, 0};
    wire_rd body = wire_get_vec(&r, 2);
    if (!wire_done(&r))
        return SIM_ERR_TLS;
    size_t count = 0;
    while (body.pos < body.len) {
        wire_rd id = wire_get_vec(&body, 1);
        mtc_taid t;
        if (body.bad || id.len == 0 ||
            mtc_taid_from_binary(id.p, id.len, &t) != MTC_OK)
            return SIM_ERR_TLS;
        count++;
    }
    if (nonempty && count == 0)
        return SIM_ERR_TLS;
    out->p = body.p;
    out->len = body.len;
    out->count = count;
    return MTC_OK;
}

int tls_ta_list_next(const tls_ta_list *l, size_t *pos, mtc_taid *id)
{
    if (*pos >= l->len)
        return 0;
    size_t n = l->p[*pos];
    /* Validated by tls_ta_list_parse. */
    memcpy(id->b, l->p + *pos + 1, n);
    id->len = (uint8_t)n;
    *pos += 1 + n;
    return 1;
}

/* ---- Certificate ---------------------------------------------------------- */

size_t tls_certificate_len(const size_t *der_lens, size_t n, int ta_ext)
{
    /* header 4, request context <0..255> 1, certificate_list length 3;
     * per entry cert_data length 3 + DER + extensions length 2 (+ 4 for an
     * empty trust_anchors extension in the first entry). */
    size_t len = 4 + 1 + 3;
    for (size_t i = 0; i < n; i++)
        len += 3 + der_lens[i] + 2;
    if (ta_ext && n)
        len += 4;
    return len;
}

int tls_certificate_encode(uint16_t codepoint, const tls_cert_entry *certs,
                           size_t n, int ta_ext, uint8_t *out, size_t cap,
                           size_t *out_len)
{
    if (!certs || n == 0 || !out_len)
        return MTC_ERR_ARG;
    for (size_t i = 0; i < n; i++)
        if (!certs[i].der || certs[i].len == 0)
            return MTC_ERR_ARG;
    wr w = {out, out ? cap : 0, 0, 0, 0};
    put_u(&w, TLS_HS_CERTIFICATE, 1);
    size_t msg_at = w.len;
    put_u(&w, 0, 3);
    put_u(&w, 0, 1); /* empty certificate_request_context */
    size_t list_at = w.len;
    put_u(&w, 0, 3);
    for (size_t i = 0; i < n; i++) {
        size_t at = w.len;
        put_u(&w, 0, 3);
        put(&w, certs[i].der, certs[i].len);
        patch_len(&w, at, 3);
        if (i == 0 && ta_ext) {
            put_u(&w, 4, 2);
            put_u(&w, codepoint, 2);
            put_u(&w, 0, 2);
        } else {
            put_u(&w, 0, 2);
        }
    }
    patch_len(&w, list_at, 3);
    patch_len(&w, msg_at, 3);
    if (w.err)
        return w.err;
    *out_len = w.len;
    return MTC_OK;
}

int tls_certificate_parse(uint16_t codepoint, const uint8_t *in, size_t len,
                          tls_certificate *out)
{
    if (!out || (!in && len))
        return MTC_ERR_ARG;
    memset(out, 0, sizeof *out);
    wire_rd r = {in, len, 0, 0};
    if (wire_get_u(&r, 1) != TLS_HS_CERTIFICATE)
        return SIM_ERR_TLS;
    wire_rd msg = wire_get_vec(&r, 3);
    if (!wire_done(&r))
        return SIM_ERR_TLS;
    wire_rd ctx = wire_get_vec(&msg, 1);
    if (msg.bad || ctx.len != 0)
        return SIM_ERR_TLS;
    wire_rd list = wire_get_vec(&msg, 3);
    if (!wire_done(&msg))
        return SIM_ERR_TLS;
    while (list.pos < list.len) {
        wire_rd der = wire_get_vec(&list, 3);
        wire_rd exts = wire_get_vec(&list, 2);
        if (list.bad || der.len == 0)
            return SIM_ERR_TLS;
        if (out->n == TLS_CERT_MAX_ENTRIES)
            return MTC_ERR_LIMIT;
        while (exts.pos < exts.len) {
            uint64_t type = wire_get_u(&exts, 2);
            wire_rd data = wire_get_vec(&exts, 2);
            if (exts.bad)
                return SIM_ERR_TLS;
            if (type == codepoint) {
                /* Empty, first entry only, at most once. */
                if (data.len != 0 || out->n != 0 || out->first_has_ta_ext)
                    return SIM_ERR_TLS;
                out->first_has_ta_ext = 1;
            }
        }
        out->certs[out->n].der = der.p;
        out->certs[out->n].len = der.len;
        out->n++;
    }
    if (list.bad || out->n == 0)
        return SIM_ERR_TLS;
    return MTC_OK;
}

/* ---- CertificateVerify ----------------------------------------------------- */

uint16_t tls_sig_scheme(mtc_sig_alg alg)
{
    switch (alg) {
    case MTC_SIG_ECDSA_P256: return 0x0403;
    case MTC_SIG_ED25519: return 0x0807;
    case MTC_SIG_MLDSA44: return 0x0904;
    case MTC_SIG_MLDSA65: return 0x0905;
    case MTC_SIG_MLDSA87: return 0x0906;
    default: return 0;
    }
}

size_t tls_certificate_verify_len(size_t sig_len) { return 4 + 2 + 2 + sig_len; }

int tls_certificate_verify_encode(uint16_t scheme, const uint8_t *sig,
                                  size_t sig_len, uint8_t *out, size_t cap,
                                  size_t *out_len)
{
    if (!out_len || (!sig && sig_len) || sig_len > 0xffff)
        return MTC_ERR_ARG;
    wr w = {out, out ? cap : 0, 0, 0, 0};
    put_u(&w, TLS_HS_CERTIFICATE_VERIFY, 1);
    put_u(&w, 2 + 2 + sig_len, 3);
    put_u(&w, scheme, 2);
    put_u(&w, sig_len, 2);
    put(&w, sig, sig_len);
    if (w.err)
        return w.err;
    *out_len = w.len;
    return MTC_OK;
}

int tls_certificate_verify_parse(const uint8_t *in, size_t len,
                                 uint16_t *scheme, const uint8_t **sig,
                                 size_t *sig_len)
{
    if (!scheme || !sig || !sig_len || (!in && len))
        return MTC_ERR_ARG;
    wire_rd r = {in, len, 0, 0};
    if (wire_get_u(&r, 1) != TLS_HS_CERTIFICATE_VERIFY)
        return SIM_ERR_TLS;
    wire_rd msg = wire_get_vec(&r, 3);
    if (!wire_done(&r))
        return SIM_ERR_TLS;
    uint64_t s = wire_get_u(&msg, 2);
    wire_rd sv = wire_get_vec(&msg, 2);
    if (!wire_done(&msg) || sv.len == 0)
        return SIM_ERR_TLS;
    *scheme = (uint16_t)s;
    *sig = sv.p;
    *sig_len = sv.len;
    return MTC_OK;
}

/* ---- ServerHello, EncryptedExtensions, Finished --------------------------- */

size_t tls_group_server_share_len(uint16_t group)
{
    switch (group) {
    case TLS_GROUP_X25519: return 32;
    case TLS_GROUP_SECP256R1: return 65;
    case TLS_GROUP_X25519MLKEM768: return 1088 + 32; /* ML-KEM ct + X25519 */
    default: return 0;
    }
}

size_t tls_group_client_share_len(uint16_t group)
{
    switch (group) {
    case TLS_GROUP_X25519: return 32;
    case TLS_GROUP_SECP256R1: return 65;
    case TLS_GROUP_X25519MLKEM768: return 1184 + 32; /* ML-KEM ek + X25519 */
    default: return 0;
    }
}

int tls_server_hello_encode_sid(uint16_t group, size_t sid_len, uint8_t *out,
                                size_t cap, size_t *out_len)
{
    size_t share = tls_group_server_share_len(group);
    if (!share || !out_len || sid_len > 32)
        return MTC_ERR_ARG;
    wr w = {out, out ? cap : 0, 0, 0, 0};
    put_u(&w, TLS_HS_SERVER_HELLO, 1);
    size_t msg_at = w.len;
    put_u(&w, 0, 3);
    put_u(&w, 0x0303, 2);       /* legacy_version */
    put(&w, NULL, 32);          /* random */
    put_u(&w, sid_len, 1);      /* legacy_session_id_echo */
    put(&w, NULL, sid_len);
    put_u(&w, 0x1301, 2);       /* TLS_AES_128_GCM_SHA256 */
    put_u(&w, 0, 1);            /* legacy_compression_method */
    size_t exts_at = w.len;
    put_u(&w, 0, 2);
    put_u(&w, TLS_EXT_SUPPORTED_VERSIONS, 2);
    put_u(&w, 2, 2);
    put_u(&w, 0x0304, 2);
    put_u(&w, TLS_EXT_KEY_SHARE, 2);
    put_u(&w, 4 + share, 2);
    put_u(&w, group, 2);
    put_u(&w, share, 2);
    put(&w, NULL, share);
    patch_len(&w, exts_at, 2);
    patch_len(&w, msg_at, 3);
    if (w.err)
        return w.err;
    *out_len = w.len;
    return MTC_OK;
}

size_t tls_server_hello_len_sid(uint16_t group, size_t sid_len)
{
    size_t share = tls_group_server_share_len(group);
    if (!share || sid_len > 32)
        return 0;
    return 4 + 2 + 32 + 1 + sid_len + 2 + 1 + 2 + (2 + 2 + 2) + (2 + 2 + 2 + 2 + share);
}

int tls_server_hello_encode(uint16_t group, uint8_t *out, size_t cap,
                            size_t *out_len)
{
    return tls_server_hello_encode_sid(group, 32, out, cap, out_len);
}

size_t tls_server_hello_len(uint16_t group)
{
    return tls_server_hello_len_sid(group, 32);
}

/* ---- ClientHello ------------------------------------------------------------- */

#define TLS_EXT_SERVER_NAME 0
#define TLS_EXT_SUPPORTED_GROUPS 10
#define TLS_EXT_SIGNATURE_ALGORITHMS 13
#define TLS_EXT_ALPN 16
#define TLS_EXT_PADDING 21
#define TLS_EXT_PSK_MODES 45
#define TLS_EXT_QUIC_TRANSPORT_PARAMETERS 57

/* ecdsa_secp256r1_sha256, rsa_pss_rsae_sha256, rsa_pkcs1_sha256,
 * ecdsa_secp384r1_sha384, rsa_pss_rsae_sha384, rsa_pkcs1_sha384,
 * rsa_pss_rsae_sha512, rsa_pkcs1_sha512, ed25519, ML-DSA-44/65/87. */
static const uint16_t ch_schemes[] = {0x0403, 0x0804, 0x0401, 0x0503, 0x0805, 0x0501,
                                      0x0806, 0x0601, 0x0807, 0x0904, 0x0905, 0x0906};

static void put_varint(wr *w, uint64_t v)
{
    if (v < 64)
        put_u(w, v, 1);
    else if (v < 16384)
        put_u(w, v | 0x4000, 2);
    else if (v < 1073741824)
        put_u(w, v | UINT64_C(0x80000000), 4);
    else
        put_u(w, v | UINT64_C(0xc000000000000000), 8);
}

/* One transport parameter with an integer value (RFC 9000 section 18). */
static void put_tp_int(wr *w, uint64_t id, uint64_t v)
{
    size_t n = v < 64 ? 1 : v < 16384 ? 2 : v < 1073741824 ? 4 : 8;
    put_varint(w, id);
    put_varint(w, n);
    put_varint(w, v);
}

/* Writes the ClientHello into w (ext NULL: ext_len zero bytes). The one
 * layout behind both the encoder and the length. */
static int ch_write(wr *wp, const tls_client_hello *ch, const uint8_t *ext,
                    size_t ext_len)
{
    if (!ch || !ch->server_name)
        return MTC_ERR_ARG;
    size_t share = tls_group_client_share_len(ch->group);
    size_t nlen = strlen(ch->server_name);
    if (!share || nlen == 0 || nlen > 255 || (ch->extra > 0 && ch->extra < 4) ||
        ch->scid_len > 20)
        return MTC_ERR_ARG;
    wr w = *wp;
    put_u(&w, 1, 1); /* client_hello */
    size_t msg_at = w.len;
    put_u(&w, 0, 3);
    put_u(&w, 0x0303, 2);
    put(&w, NULL, 32);
    size_t sid = ch->quic ? 0 : 32;
    put_u(&w, sid, 1);
    put(&w, NULL, sid);
    put_u(&w, 6, 2); /* TLS_AES_128_GCM_SHA256, _256_GCM_SHA384, CHACHA20 */
    put_u(&w, 0x1301, 2);
    put_u(&w, 0x1302, 2);
    put_u(&w, 0x1303, 2);
    put_u(&w, 1, 1);
    put_u(&w, 0, 1);
    size_t exts_at = w.len;
    put_u(&w, 0, 2);
    /* server_name: one host_name */
    put_u(&w, TLS_EXT_SERVER_NAME, 2);
    put_u(&w, 2 + 1 + 2 + nlen, 2);
    put_u(&w, 1 + 2 + nlen, 2);
    put_u(&w, 0, 1);
    put_u(&w, nlen, 2);
    put(&w, ch->server_name, nlen);
    /* supported_groups: the share's group first, then the classical two */
    uint16_t groups[3] = {ch->group, TLS_GROUP_X25519, TLS_GROUP_SECP256R1};
    size_t ng = 0;
    uint16_t g[3];
    for (size_t i = 0; i < 3; i++) {
        int dup = 0;
        for (size_t k = 0; k < ng; k++)
            dup |= g[k] == groups[i];
        if (!dup)
            g[ng++] = groups[i];
    }
    put_u(&w, TLS_EXT_SUPPORTED_GROUPS, 2);
    put_u(&w, 2 + 2 * ng, 2);
    put_u(&w, 2 * ng, 2);
    for (size_t i = 0; i < ng; i++)
        put_u(&w, g[i], 2);
    size_t ns = sizeof ch_schemes / sizeof ch_schemes[0];
    put_u(&w, TLS_EXT_SIGNATURE_ALGORITHMS, 2);
    put_u(&w, 2 + 2 * ns, 2);
    put_u(&w, 2 * ns, 2);
    for (size_t i = 0; i < ns; i++)
        put_u(&w, ch_schemes[i], 2);
    put_u(&w, TLS_EXT_SUPPORTED_VERSIONS, 2);
    put_u(&w, 3, 2);
    put_u(&w, 2, 1);
    put_u(&w, 0x0304, 2);
    put_u(&w, TLS_EXT_PSK_MODES, 2);
    put_u(&w, 2, 2);
    put_u(&w, 1, 1);
    put_u(&w, 1, 1); /* psk_dhe_ke */
    put_u(&w, TLS_EXT_KEY_SHARE, 2);
    put_u(&w, 2 + 4 + share, 2);
    put_u(&w, 4 + share, 2);
    put_u(&w, ch->group, 2);
    put_u(&w, share, 2);
    put(&w, NULL, share);
    /* ALPN */
    put_u(&w, TLS_EXT_ALPN, 2);
    size_t alpn_at = w.len;
    put_u(&w, 0, 2);
    size_t list_at = w.len;
    put_u(&w, 0, 2);
    if (ch->quic) {
        put_u(&w, 2, 1);
        put(&w, "h3", 2);
    } else {
        put_u(&w, 2, 1);
        put(&w, "h2", 2);
        put_u(&w, 8, 1);
        put(&w, "http/1.1", 8);
    }
    patch_len(&w, list_at, 2);
    patch_len(&w, alpn_at, 2);
    if (ch->quic) {
        put_u(&w, TLS_EXT_QUIC_TRANSPORT_PARAMETERS, 2);
        size_t tp_at = w.len;
        put_u(&w, 0, 2);
        put_tp_int(&w, 0x01, 30000);    /* max_idle_timeout (ms) */
        put_tp_int(&w, 0x03, 1472);     /* max_udp_payload_size */
        put_tp_int(&w, 0x04, 15728640); /* initial_max_data */
        put_tp_int(&w, 0x05, 6291456);  /* initial_max_stream_data_bidi_local */
        put_tp_int(&w, 0x06, 6291456);  /* initial_max_stream_data_bidi_remote */
        put_tp_int(&w, 0x07, 6291456);  /* initial_max_stream_data_uni */
        put_tp_int(&w, 0x08, 100);      /* initial_max_streams_bidi */
        put_tp_int(&w, 0x09, 103);      /* initial_max_streams_uni */
        put_varint(&w, 0x0f);           /* initial_source_connection_id */
        put_varint(&w, ch->scid_len);
        put(&w, NULL, ch->scid_len);
        patch_len(&w, tp_at, 2);
    }
    put(&w, ext, ext_len);
    if (ch->extra) {
        put_u(&w, TLS_EXT_PADDING, 2);
        put_u(&w, ch->extra - 4, 2);
        put(&w, NULL, ch->extra - 4);
    }
    patch_len(&w, exts_at, 2);
    patch_len(&w, msg_at, 3);
    *wp = w;
    return w.err;
}

int tls_client_hello_encode(const tls_client_hello *ch, const uint8_t *ext,
                            size_t ext_len, uint8_t *out, size_t cap,
                            size_t *out_len)
{
    if (!out_len || (ext_len && !ext))
        return MTC_ERR_ARG;
    wr w = {out, out ? cap : 0, 0, 0, 0};
    int rc = ch_write(&w, ch, ext, ext_len);
    if (rc != MTC_OK)
        return rc;
    *out_len = w.len;
    return MTC_OK;
}

size_t tls_client_hello_len(const tls_client_hello *ch, size_t ext_len)
{
    wr w = {NULL, 0, 0, 0, 1};
    return ch_write(&w, ch, NULL, ext_len) == MTC_OK ? w.len : 0;
}

size_t tls_encrypted_extensions_len(size_t ext_len) { return 4 + 2 + ext_len; }
size_t tls_finished_len(size_t hash_len) { return 4 + hash_len; }

/* ---- transport ------------------------------------------------------------ */

void tls_transport_defaults(tls_transport *t)
{
    t->tcp_mss = 1460;
    t->tcp_iw_segments = 10;
    t->middlebox_compat = 1;
    t->quic_client_initial = 1200;
    t->quic_amplification = 3;
    t->quic_max_datagram = 1200;
    t->quic_cid_len = 8;
    t->tcp_rto_min_ms = 200.0;
}

size_t tls_tcp_flight_bytes(const tls_transport *t, size_t plain, size_t enc)
{
    size_t bytes = 0;
    /* Cleartext records: 5-byte header per record. */
    bytes += plain + 5 * ((plain + TLS_RECORD_MAX - 1) / TLS_RECORD_MAX);
    if (t->middlebox_compat)
        bytes += 6; /* change_cipher_spec record */
    /* Encrypted records: inner plaintext = data + 1 content type byte,
     * at most 2^14 + 1 bytes; header 5 and tag 16 outside it. */
    size_t recs = (enc + TLS_RECORD_MAX - 1) / TLS_RECORD_MAX;
    bytes += enc + recs * (5 + 1 + 16);
    return bytes;
}

unsigned tls_extra_rtt_tcp(const tls_transport *t, size_t bytes)
{
    size_t mss = t->tcp_mss ? t->tcp_mss : 1;
    uint64_t segs = (bytes + mss - 1) / mss;
    uint64_t win = t->tcp_iw_segments ? t->tcp_iw_segments : 1;
    uint64_t sent = 0;
    unsigned rounds = 0;
    while (sent < segs) {
        sent += win;
        win *= 2; /* slow start: every acknowledged segment adds one */
        rounds++;
    }
    return rounds ? rounds - 1 : 0;
}

static size_t varint_len(uint64_t v)
{
    return v < 64 ? 1 : v < 16384 ? 2 : v < 1073741824 ? 4 : 8;
}

/* Bytes of a long-header packet carrying a CRYPTO frame of n bytes at
 * offset off: first byte, version, DCID and SCID with lengths, token
 * length (Initial), 2-byte length, 2-byte packet number, frame type,
 * offset and length varints, 16-byte tag. */
static size_t quic_packet_overhead(const tls_transport *t, int initial,
                                   uint64_t off, size_t n)
{
    return 1 + 4 + 1 + t->quic_cid_len + 1 + t->quic_cid_len +
           (initial ? 1 : 0) + 2 + 2 + 1 + varint_len(off) + varint_len(n) +
           16;
}

size_t tls_quic_flight_bytes(const tls_transport *t, size_t initial,
                             size_t handshake, size_t *datagrams)
{
    size_t maxd = t->quic_max_datagram < 1200 ? 1200 : t->quic_max_datagram;
    size_t total = 0, dgrams = 0, room = 0, cur = 0;
    int has_initial = 0;
    /* Two crypto streams, Initial then Handshake; packets fill the current
     * datagram, then open a new one. */
    for (int level = 0; level < 2; level++) {
        size_t left = level == 0 ? initial : handshake;
        uint64_t off = 0;
        while (left > 0) {
            /* Overhead estimated with the largest length varint first. */
            size_t ovh = quic_packet_overhead(t, level == 0, off, left);
            if (room < ovh + 1) {
                if (dgrams) {
                    if (has_initial && cur < 1200)
                        cur = 1200;
                    total += cur;
                }
                dgrams++;
                room = maxd;
                cur = 0;
                has_initial = 0;
            }
            size_t n = room - ovh < left ? room - ovh : left;
            ovh = quic_packet_overhead(t, level == 0, off, n);
            if (n + ovh > room)
                n = room - ovh;
            room -= n + ovh;
            cur += n + ovh;
            if (level == 0)
                has_initial = 1;
            left -= n;
            off += n;
        }
    }
    if (dgrams) {
        if (has_initial && cur < 1200)
            cur = 1200;
        total += cur;
    }
    if (datagrams)
        *datagrams = dgrams;
    return total;
}

unsigned tls_extra_rtt_quic(const tls_transport *t, size_t bytes)
{
    return tls_extra_rtt_quic_rx(t, t->quic_client_initial, bytes);
}

size_t tls_quic_client_datagrams(const tls_transport *t, size_t ch_len)
{
    size_t size = t->quic_client_initial < 1200 ? 1200 : t->quic_client_initial;
    size_t n = 0;
    uint64_t off = 0;
    size_t left = ch_len;
    do {
        size_t ovh = quic_packet_overhead(t, 1, off, left);
        if (ovh >= size)
            return SIZE_MAX; /* nothing fits: cannot happen from 1200 bytes */
        size_t k = size - ovh < left ? size - ovh : left;
        /* a shorter length varint can only make room */
        left -= k;
        off += k;
        n++;
    } while (left > 0);
    return n;
}

unsigned tls_extra_rtt_quic_rx(const tls_transport *t, size_t received,
                               size_t bytes)
{
    uint64_t maxd = t->quic_max_datagram < 1200 ? 1200 : t->quic_max_datagram;
    /* RFC 9002 section 7.2: min(10 * max_datagram, max(14720, 2 * max_datagram)). */
    uint64_t cw = 10 * maxd;
    uint64_t alt = 14720 > 2 * maxd ? 14720 : 2 * maxd;
    if (alt < cw)
        cw = alt;
    uint64_t amp = (uint64_t)t->quic_amplification * received;
    uint64_t budget = amp < cw ? amp : cw;
    uint64_t sent = 0;
    unsigned rounds = 0;
    while (sent < bytes) {
        if (budget == 0)
            return UINT32_MAX; /* nothing can ever be sent */
        uint64_t now = budget;
        sent += now;
        rounds++;
        /* Validated from the second round on; slow start adds what was
         * acknowledged. */
        cw += now;
        budget = cw;
    }
    return rounds ? rounds - 1 : 0;
}

#define E(c, m) {c, #c, m}
static const sim_status_entry web_codes[] = {
    E(SIM_ERR_TLS, "malformed TLS encoding"),
};
#undef E

/* The web module's block of the status space (sim/status.h). */
const sim_status_block sim_web_status = {
    "web", SIM_STATUS_WEB_FIRST, web_codes,
    sizeof web_codes / sizeof web_codes[0],
};
