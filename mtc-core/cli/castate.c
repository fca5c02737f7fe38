/*
 * castate.c - file helpers and the directory-backed CA of the mtc CLI
 * (see castate.h for the layout).
 *
 * Loading replays the whole log: leaf hashes are recomputed from the
 * stored entries and earlier batches are closed without signatures (only
 * the latest batch is re-signed, deterministically, for certificates
 * issued now). That keeps `mtc issue` linear in the log size and fast for
 * the thousands of entries a CLI session creates.
 */
#include "castate.h"

#include <errno.h>
#include <openssl/pem.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "mtc/error.h"

static int fail(char *err, size_t cap, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int fail(char *err, size_t cap, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, cap, fmt, ap);
    va_end(ap);
    return -1;
}

int cli_read_file(const char *path, uint8_t **buf, size_t *len)
{
    return cli_read_file_max(path, CLI_READ_MAX, buf, len);
}

int cli_read_file_max(const char *path, size_t max, uint8_t **buf, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    size_t cap = 4096, n = 0;
    uint8_t *b = malloc(cap + 1);
    while (b) {
        size_t r = fread(b + n, 1, cap - n, f);
        n += r;
        if (n < cap)
            break;
        if (n > max) {      /* /dev/zero, a wrong file: stop reading */
            free(b);
            fclose(f);
            errno = EFBIG;
            return -1;
        }
        uint8_t *nb = realloc(b, 2 * cap + 1);
        if (!nb) {
            free(b);
            b = NULL;
            break;
        }
        b = nb;
        cap *= 2;
    }
    int bad = ferror(f);
    fclose(f);
    if (!b || bad) {
        free(b);
        errno = b ? EIO : ENOMEM;
        return -1;
    }
    b[n] = 0;
    *buf = b;
    *len = n;
    return 0;
}

int cli_write_file(const char *path, const void *buf, size_t len)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return -1;
    size_t w = fwrite(buf, 1, len, f);
    int bad = fclose(f) != 0 || w != len;
    return bad ? -1 : 0;
}

int cli_write_pem(const char *path, const uint8_t *der, size_t len)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    int ok = PEM_write(f, "CERTIFICATE", "", der, (long)len) > 0;
    return (fclose(f) == 0 && ok) ? 0 : -1;
}

int cli_read_certs(const char *path, uint8_t ***ders, size_t **lens, char *err,
                   size_t err_cap)
{
    uint8_t *buf;
    size_t len;
    *ders = NULL;
    *lens = NULL;
    if (cli_read_file_max(path, CLI_CERTS_MAX, &buf, &len))
        return fail(err, err_cap, "cannot read '%s': %s", path,
                    errno == EFBIG ? "larger than 64 MiB, not a certificate file"
                                   : strerror(errno));
    int n = 0, cap = 0;
    if (!strstr((const char *)buf, "-----BEGIN")) {
        *ders = malloc(sizeof **ders);
        *lens = malloc(sizeof **lens);
        if (!*ders || !*lens) {
            free(buf);
            return fail(err, err_cap, "out of memory");
        }
        (*ders)[0] = buf;
        (*lens)[0] = len;
        return 1;
    }
    BIO *bio = BIO_new_mem_buf(buf, (int)len);
    for (;;) {
        char *name = NULL, *header = NULL;
        unsigned char *data = NULL;
        long dl = 0;
        if (!PEM_read_bio(bio, &name, &header, &data, &dl))
            break;
        int is_cert = !strcmp(name, "CERTIFICATE");
        OPENSSL_free(name);
        OPENSSL_free(header);
        if (!is_cert) {
            OPENSSL_free(data);
            continue;
        }
        if (n == cap) {
            cap = cap ? 2 * cap : 8;
            *ders = realloc(*ders, (size_t)cap * sizeof **ders);
            *lens = realloc(*lens, (size_t)cap * sizeof **lens);
            if (!*ders || !*lens)
                abort(); /* CLI: out of memory while reading input */
        }
        (*ders)[n] = malloc((size_t)dl + 1);
        memcpy((*ders)[n], data, (size_t)dl);
        (*lens)[n] = (size_t)dl;
        n++;
        OPENSSL_free(data);
    }
    BIO_free(bio);
    free(buf);
    if (n == 0)
        return fail(err, err_cap, "'%s' holds no PEM CERTIFICATE", path);
    return n;
}

void cli_free_certs(uint8_t **ders, size_t *lens, int n)
{
    for (int i = 0; i < n; i++)
        free(ders[i]);
    free(ders);
    free(lens);
}

/* ---- CA directory ------------------------------------------------------------------ */

static void path_of(const ca_state *st, const char *name, char *out, size_t cap)
{
    snprintf(out, cap, "%s/%s", st->dir, name);
}

static void hex(const uint8_t *b, size_t n, char *out)
{
    for (size_t i = 0; i < n; i++)
        sprintf(out + 2 * i, "%02x", b[i]);
}

static int unhex(const char *s, uint8_t *out, size_t n)
{
    if (strlen(s) != 2 * n)
        return -1;
    for (size_t i = 0; i < n; i++) {
        unsigned v;
        if (sscanf(s + 2 * i, "%2x", &v) != 1)
            return -1;
        out[i] = (uint8_t)v;
    }
    return 0;
}

static void derive_seed(const char *ca_id, const char *role, uint8_t seed[32])
{
    char buf[MTC_TAID_TEXT_MAX + 64];
    snprintf(buf, sizeof buf, "mtc demo key|%.*s|%.16s", MTC_TAID_TEXT_MAX, ca_id,
             role);
    mtc_hash h;
    mtc_sha256(buf, strlen(buf), &h);
    memcpy(seed, h.b, 32);
}

static int make_keys(ca_state *st, char *err, size_t cap)
{
    for (size_t i = 0; i <= st->n_witnesses; i++) {
        const uint8_t *seed = i ? st->witness_seed[i - 1] : st->seed;
        if (mtc_sig_key_from_seed(st->alg, seed, &st->keys[i]) != MTC_OK)
            return fail(err, cap, "cannot derive %s key", mtc_sig_info_get(st->alg)->name);
        st->cos[i].key = st->keys[i];
        st->cos[i].id = i ? st->witness_id[i - 1] : st->ca_id;
    }
    st->log = mtc_ilog_new(&st->ca_id, st->log_number, NULL);
    if (!st->log)
        return fail(err, cap, "cannot create the log");
    return 0;
}

static int write_conf(const ca_state *st, char *err, size_t cap)
{
    char path[600], id[MTC_TAID_TEXT_MAX], hx[65];
    path_of(st, "ca.conf", path, sizeof path);
    FILE *f = fopen(path, "w");
    if (!f)
        return fail(err, cap, "cannot write '%s': %s", path, strerror(errno));
    mtc_taid_to_text(&st->ca_id, id, sizeof id);
    hex(st->seed, 32, hx);
    fprintf(f, "# mtc CA (simulation keys: seeds are stored in clear)\n");
    fprintf(f, "ca-id %s\nlog-number %llu\nsig-alg %s\nseed %s\n", id,
            (unsigned long long)st->log_number, mtc_sig_info_get(st->alg)->name, hx);
    fprintf(f, "max-active-landmarks %llu\nnot-before %lld\n",
            (unsigned long long)st->max_active, (long long)st->not_before);
    for (size_t i = 0; i < st->n_witnesses; i++) {
        mtc_taid_to_text(&st->witness_id[i], id, sizeof id);
        hex(st->witness_seed[i], 32, hx);
        fprintf(f, "witness %s %s\n", id, hx);
    }
    if (fclose(f))
        return fail(err, cap, "cannot write '%s'", path);
    return 0;
}

static int write_ca_cert(const ca_state *st, uint8_t *der, size_t cap_der,
                         size_t *len, char *err, size_t cap)
{
    uint8_t pk[MTC_SIG_PK_MAX];
    size_t pl;
    mtc_sig_key_public(st->keys[0], pk, &pl);
    mtc_ca_params ca = {st->ca_id, st->alg, pk, pl, mtc_serial(st->log_number, 0),
                        mtc_serial(st->log_number, (UINT64_C(1) << 48) - 1),
                        st->not_before, st->not_before + 10 * 365 * 86400};
    int rc = mtc_ca_cert_build(&ca, der, cap_der, len);
    if (rc != MTC_OK)
        return fail(err, cap, "CA certificate: %s", mtc_strerror(rc));
    char path[600];
    path_of(st, "ca.der", path, sizeof path);
    if (cli_write_file(path, der, *len))
        return fail(err, cap, "cannot write '%s'", path);
    path_of(st, "ca.pem", path, sizeof path);
    if (cli_write_pem(path, der, *len))
        return fail(err, cap, "cannot write '%s'", path);
    return 0;
}

int ca_create(ca_state *st, const char *dir, const char *ca_id, mtc_sig_alg alg,
              size_t witnesses, uint64_t max_active, int64_t not_before,
              char *err, size_t cap)
{
    memset(st, 0, sizeof *st);
    if (witnesses > CA_MAX_WITNESSES)
        return fail(err, cap, "at most %d witnesses", CA_MAX_WITNESSES);
    snprintf(st->dir, sizeof st->dir, "%s", dir);
    if (mtc_taid_from_text(ca_id, strlen(ca_id), &st->ca_id) != MTC_OK)
        return fail(err, cap, "CA ID '%s' is not a trust anchor ID", ca_id);
    if (mkdir(dir, 0777) && errno != EEXIST)
        return fail(err, cap, "cannot create '%s': %s", dir, strerror(errno));
    st->log_number = 1;
    st->alg = alg;
    st->max_active = max_active;
    st->not_before = not_before;
    st->n_witnesses = witnesses;
    derive_seed(ca_id, "ca", st->seed);
    /* Witnesses are other parties: their IDs must stay out of the CA ID's
     * arc, which the draft reserves for the CA's own allocations. One
     * witness ID, one key, whichever CA it cosigns for. */
    mtc_taid base;
    mtc_taid_from_text("32473.9999", 10, &base);
    for (size_t i = 0; i < witnesses; i++) {
        uint64_t arc = i + 1;
        char wid[MTC_TAID_TEXT_MAX];
        mtc_taid_append(&base, &arc, 1, &st->witness_id[i]);
        mtc_taid_to_text(&st->witness_id[i], wid, sizeof wid);
        if (mtc_taid_in_arc(&st->ca_id, &st->witness_id[i]))
            return fail(err, cap,
                        "witness ID %s lies in the arc of CA ID %s, which the "
                        "draft reserves for the CA: choose another CA ID",
                        wid, ca_id);
        derive_seed(wid, "witness", st->witness_seed[i]);
    }
    if (make_keys(st, err, cap) || write_conf(st, err, cap))
        return -1;
    st->lm = mtc_landmarks_new(max_active);
    if (!st->lm)
        return fail(err, cap, "bad max_active_landmarks");
    char path[600];
    /* A new log: an update its relying party installed for an earlier CA
     * in this directory describes another log history. */
    path_of(st, "rp/update.bin", path, sizeof path);
    remove(path);
    path_of(st, "log.entries", path, sizeof path);
    if (cli_write_file(path, "", 0))
        return fail(err, cap, "cannot write '%s'", path);
    path_of(st, "checkpoints", path, sizeof path);
    if (cli_write_file(path, "", 0))
        return fail(err, cap, "cannot write '%s'", path);
    uint8_t der[8192];
    size_t len;
    if (write_ca_cert(st, der, sizeof der, &len, err, cap))
        return -1;
    char text[64];
    size_t tl;
    mtc_landmarks_format(st->lm, text, sizeof text, &tl);
    path_of(st, "landmarks", path, sizeof path);
    if (cli_write_file(path, text, tl))
        return fail(err, cap, "cannot write '%s'", path);
    return 0;
}

static int parse_conf(ca_state *st, char *text, char *err, size_t cap)
{
    size_t line = 0;
    int have = 0;
    for (char *save = NULL, *l = strtok_r(text, "\n", &save); l;
         l = strtok_r(NULL, "\n", &save)) {
        line++;
        if (l[0] == '#')
            continue;
        char key[32], a[600], b[600];
        int n = sscanf(l, "%31s %599s %599s", key, a, b);
        unsigned long long v;
        char end;
        if (n == 2 && !strcmp(key, "ca-id")) {
            if (mtc_taid_from_text(a, strlen(a), &st->ca_id) != MTC_OK)
                goto bad;
            have |= 1;
        } else if (n == 2 && !strcmp(key, "log-number") &&
                   sscanf(a, "%llu%c", &v, &end) == 1 && v >= 1 && v <= 65535) {
            st->log_number = v;
            have |= 2;
        } else if (n == 2 && !strcmp(key, "sig-alg") && mtc_sig_info_by_name(a)) {
            st->alg = mtc_sig_info_by_name(a)->alg;
            have |= 4;
        } else if (n == 2 && !strcmp(key, "seed") && !unhex(a, st->seed, 32)) {
            have |= 8;
        } else if (n == 2 && !strcmp(key, "max-active-landmarks") &&
                   sscanf(a, "%llu%c", &v, &end) == 1 && v >= 1) {
            st->max_active = v;
            have |= 16;
        } else if (n == 2 && !strcmp(key, "not-before") &&
                   sscanf(a, "%llu%c", &v, &end) == 1) {
            st->not_before = (int64_t)v;
            have |= 32;
        } else if (n == 3 && !strcmp(key, "witness") &&
                   st->n_witnesses < CA_MAX_WITNESSES &&
                   mtc_taid_from_text(a, strlen(a),
                                      &st->witness_id[st->n_witnesses]) == MTC_OK &&
                   !unhex(b, st->witness_seed[st->n_witnesses], 32)) {
            st->n_witnesses++;
        } else {
            goto bad;
        }
    }
    if (have != 63)
        return fail(err, cap, "ca.conf: a required key is missing");
    return 0;
bad:
    return fail(err, cap, "ca.conf line %zu is malformed", line);
}

int ca_load(ca_state *st, const char *dir, char *err, size_t cap)
{
    memset(st, 0, sizeof *st);
    snprintf(st->dir, sizeof st->dir, "%s", dir);
    char path[600];
    uint8_t *buf = NULL, *ents = NULL;
    size_t len, elen;
    path_of(st, "ca.conf", path, sizeof path);
    if (cli_read_file(path, &buf, &len))
        return fail(err, cap, "cannot read '%s': %s", path, strerror(errno));
    int rc = parse_conf(st, (char *)buf, err, cap);
    free(buf);
    buf = NULL;
    if (rc || make_keys(st, err, cap))
        return -1;
    path_of(st, "log.entries", path, sizeof path);
    if (cli_read_file(path, &ents, &elen))
        return fail(err, cap, "cannot read '%s': %s", path, strerror(errno));
    path_of(st, "checkpoints", path, sizeof path);
    if (cli_read_file(path, &buf, &len)) {
        free(ents);
        return fail(err, cap, "cannot read '%s': %s", path, strerror(errno));
    }
    /* checkpoint sizes; the timestamp of the last (0 in directories
     * written before checkpoints were signed) */
    uint64_t sizes[1 << 14], last_ts = 0;
    size_t nck = 0;
    for (char *save = NULL, *l = strtok_r((char *)buf, "\n", &save); l;
         l = strtok_r(NULL, "\n", &save)) {
        unsigned long long v, ts = 0;
        char end;
        int f = sscanf(l, "%llu %llu%c", &v, &ts, &end);
        if (nck == sizeof sizes / sizeof sizes[0] || f < 1 || f > 2 ||
            (f == 2 && ts == 0) || (nck && v <= sizes[nck - 1])) {
            free(buf);
            free(ents);
            return fail(err, cap, "checkpoints line %zu is malformed", nck + 1);
        }
        sizes[nck++] = v;
        last_ts = ts;
    }
    free(buf);
    /* entries, with checkpoints replayed in between */
    size_t off = 0, ck = 0;
    uint64_t count = 0;
    rc = 0;
    while (off < elen && !rc) {
        if (elen - off < 2) {
            rc = fail(err, cap, "log.entries is truncated");
            break;
        }
        size_t n = (size_t)(ents[off] << 8 | ents[off + 1]);
        if (elen - off - 2 < n) {
            rc = fail(err, cap, "log.entries is truncated");
            break;
        }
        /* The CA's rules again: an entry of a type or with an extension
         * the CA does not recognize is never signed, even on replay. */
        int prc = mtc_ilog_append_entry(st->log, ents + off + 2, n, NULL);
        if (prc != MTC_OK) {
            rc = fail(err, cap, "log.entries: entry %llu: %s",
                      (unsigned long long)count, mtc_strerror(prc));
            break;
        }
        off += 2 + n;
        count++;
        while (ck < nck && sizes[ck] == count) {
            /* only the latest batch is signed again, as it was */
            int prc2 = ck + 1 < nck ? mtc_ilog_checkpoint(st->log, st->cos, 0)
                       : last_ts ? mtc_ilog_checkpoint_signed(
                                       st->log, st->cos, st->n_witnesses + 1, last_ts)
                                 : mtc_ilog_checkpoint(st->log, st->cos,
                                                       st->n_witnesses + 1);
            if (prc2 != MTC_OK)
                rc = fail(err, cap, "cannot replay checkpoint %zu", ck + 1);
            ck++;
        }
    }
    free(ents);
    if (rc)
        return -1;
    if (ck != nck)
        return fail(err, cap, "checkpoints exceed the log size");
    path_of(st, "landmarks", path, sizeof path);
    if (cli_read_file(path, &buf, &len))
        return fail(err, cap, "cannot read '%s': %s", path, strerror(errno));
    size_t line;
    rc = mtc_landmarks_parse((const char *)buf, len, st->max_active,
                             mtc_ilog_checkpoint_size(st->log), &st->lm, &line);
    free(buf);
    if (rc != MTC_OK)
        return fail(err, cap, "landmarks line %zu: %s", line, mtc_strerror(rc));
    return 0;
}

void ca_free(ca_state *st)
{
    for (size_t i = 0; i <= CA_MAX_WITNESSES; i++)
        mtc_sig_key_free(st->keys[i]);
    mtc_ilog_free(st->log);
    mtc_landmarks_free(st->lm);
    memset(st, 0, sizeof *st);
}

int ca_append(ca_state *st, mtc_slice exts, const mtc_tbs_entry *e,
              uint64_t *index, char *err, size_t cap)
{
    uint8_t buf[2 + MTC_ENTRY_MAX];
    size_t n;
    int rc = mtc_log_entry_encode(exts, e, buf + 2, sizeof buf - 2, &n);
    if (rc != MTC_OK)
        return fail(err, cap, "log entry: %s", mtc_strerror(rc));
    buf[0] = (uint8_t)(n >> 8);
    buf[1] = (uint8_t)n;
    if ((rc = mtc_ilog_append(st->log, exts, e, index)) != MTC_OK)
        return fail(err, cap, "append: %s", mtc_strerror(rc));
    char path[600];
    path_of(st, "log.entries", path, sizeof path);
    FILE *f = fopen(path, "ab");
    if (!f || fwrite(buf, 1, n + 2, f) != n + 2 || fclose(f))
        return fail(err, cap, "cannot append to '%s'", path);
    return 0;
}

int ca_checkpoint(ca_state *st, uint64_t timestamp, char *err, size_t cap)
{
    uint64_t before = mtc_ilog_checkpoint_size(st->log);
    int rc = mtc_ilog_checkpoint_signed(st->log, st->cos, st->n_witnesses + 1,
                                        timestamp);
    if (rc != MTC_OK)
        return fail(err, cap, "checkpoint: %s", mtc_strerror(rc));
    if (mtc_ilog_checkpoint_size(st->log) == before)
        return 0;
    char path[600];
    path_of(st, "checkpoints", path, sizeof path);
    FILE *f = fopen(path, "a");
    if (!f || fprintf(f, "%llu %llu\n",
                      (unsigned long long)mtc_ilog_checkpoint_size(st->log),
                      (unsigned long long)timestamp) < 0 ||
        fclose(f))
        return fail(err, cap, "cannot append to '%s'", path);
    return 0;
}

static int write_landmarks(ca_state *st, char *err, size_t cap);

int ca_landmark(ca_state *st, char *err, size_t cap)
{
    int rc = mtc_landmarks_append(st->lm, mtc_ilog_checkpoint_size(st->log));
    if (rc != MTC_OK)
        return fail(err, cap, "no new entries since the last landmark");
    return write_landmarks(st, err, cap);
}

int ca_allocate_landmark(ca_state *st, uint64_t interval, int *allocated,
                         char *err, size_t cap)
{
    int rc = mtc_landmarks_allocate(st->lm, interval,
                                    mtc_ilog_checkpoint_size(st->log), allocated);
    if (rc != MTC_OK)
        return fail(err, cap, "landmark allocation: %s", mtc_strerror(rc));
    return *allocated ? write_landmarks(st, err, cap) : 0;
}

static int write_landmarks(ca_state *st, char *err, size_t cap)
{
    int rc;
    size_t n;
    mtc_landmarks_format(st->lm, NULL, 0, &n);
    char *text = malloc(n + 1);
    if (!text)
        return fail(err, cap, "out of memory");
    mtc_landmarks_format(st->lm, text, n, &n);
    char path[600];
    path_of(st, "landmarks", path, sizeof path);
    rc = cli_write_file(path, text, n);
    free(text);
    return rc ? fail(err, cap, "cannot write '%s'", path) : 0;
}

/* Writes `checkpoint` (text) and `update.bin` for the last checkpoint;
 * *upd (malloc'd) gets the update's bytes. */
static int write_update(ca_state *st, uint8_t **upd, size_t *ul, char *err,
                        size_t cap)
{
    mtc_checkpoint ck;
    char path[600], id[MTC_TAID_TEXT_MAX], hx[65];
    if (mtc_ilog_last_checkpoint(st->log, &ck) != MTC_OK || !ck.timestamp)
        return fail(err, cap, "the last checkpoint is not signed (a directory "
                              "from an older mtc): issue an entry to sign one");
    path_of(st, "checkpoint", path, sizeof path);
    FILE *f = fopen(path, "w");
    if (!f)
        return fail(err, cap, "cannot write '%s'", path);
    size_t ol;
    mtc_taid_origin(mtc_ilog_log_id(st->log), id, sizeof id, &ol);
    mtc_hash_to_hex(&ck.root, hx);
    fprintf(f, "%.*s\n%llu\n%s\ntimestamp %llu\n", (int)ol, id,
            (unsigned long long)ck.size, hx, (unsigned long long)ck.timestamp);
    for (size_t i = 0; i < ck.n_sigs; i++) {
        mtc_taid cid;
        char *sx = malloc(2 * ck.sigs[i].signature.len + 1);
        if (!sx || mtc_taid_from_binary(ck.sigs[i].cosigner_id.p,
                                        ck.sigs[i].cosigner_id.len, &cid) != MTC_OK) {
            free(sx);
            fclose(f);
            return fail(err, cap, "out of memory");
        }
        hex(ck.sigs[i].signature.p, ck.sigs[i].signature.len, sx);
        mtc_taid_to_text(&cid, id, sizeof id);
        fprintf(f, "cosignature %s %s\n", id, sx);
        free(sx);
    }
    if (fclose(f))
        return fail(err, cap, "cannot write '%s'", path);
    mtc_update *u;
    const mtc_landmarks *lm = st->lm;
    int rc = mtc_update_from_ilogs(&st->ca_id, &st->log, &lm, 1, &u);
    if (rc != MTC_OK)
        return fail(err, cap, "update: %s", mtc_strerror(rc));
    mtc_update_encode(u, NULL, 0, ul);
    *upd = malloc(*ul ? *ul : 1);
    rc = *upd ? mtc_update_encode(u, *upd, *ul, ul) : MTC_ERR_NOMEM;
    mtc_update_free(u);
    path_of(st, "update.bin", path, sizeof path);
    if (rc != MTC_OK || cli_write_file(path, *upd, *ul)) {
        free(*upd);
        return fail(err, cap, "cannot write '%s'", path);
    }
    return 0;
}

int ca_write_rp(ca_state *st, char *err, size_t cap)
{
    char path[600];
    path_of(st, "rp", path, sizeof path);
    if (mkdir(path, 0777) && errno != EEXIST)
        return fail(err, cap, "cannot create '%s': %s", path, strerror(errno));
    uint8_t der[8192];
    size_t len;
    int rc;
    ca_state view = *st;
    if ((size_t)snprintf(view.dir, sizeof view.dir, "%.500s/rp", st->dir) >=
        sizeof view.dir)
        return fail(err, cap, "directory name too long");
    if (write_ca_cert(&view, der, sizeof der, &len, err, cap))
        return -1;
    snprintf(path, sizeof path, "%s/rp/ca.pem", st->dir);
    remove(path); /* the RP needs only ca.der */
    snprintf(path, sizeof path, "%s/rp/rp.conf", st->dir);
    FILE *f = fopen(path, "w");
    if (!f)
        return fail(err, cap, "cannot write '%s'", path);
    char id[MTC_TAID_TEXT_MAX];
    mtc_taid_to_text(&st->ca_id, id, sizeof id);
    fprintf(f, "# relying party for MTC CA %s (written by mtc)\n", id);
    fprintf(f, "# the CA cosigner and revoked ranges come from ca.der\n");
    for (size_t i = 0; i < st->n_witnesses; i++) {
        uint8_t pk[MTC_SIG_PK_MAX];
        size_t pl;
        mtc_sig_key_public(st->keys[i + 1], pk, &pl);
        char *hx = malloc(2 * pl + 1);
        hex(pk, pl, hx);
        mtc_taid_to_text(&st->witness_id[i], id, sizeof id);
        fprintf(f, "cosigner %s %s %s\n", id, mtc_sig_info_get(st->alg)->name, hx);
        free(hx);
    }
    if (st->n_witnesses) {
        fprintf(f, "policy %zu", st->n_witnesses);
        for (size_t i = 0; i < st->n_witnesses; i++) {
            mtc_taid_to_text(&st->witness_id[i], id, sizeof id);
            fprintf(f, " %s", id);
        }
        fprintf(f, "\n");
    }
    if (fclose(f))
        return fail(err, cap, "cannot write '%s'", path);
    /* The landmark subtrees reach the relying party only through the
     * update, verified like any other (rp_install_update). */
    uint8_t *upd = NULL;
    size_t ul = 0;
    if (write_update(st, &upd, &ul, err, cap))
        return -1;
    snprintf(path, sizeof path, "%s/rp", st->dir);
    mtc_update_result res;
    rc = rp_install_update(path, upd, ul, &res, err, cap);
    free(upd);
    return rc ? -1 : 0;
}

int ca_cert(ca_state *st, uint64_t index, int lr, const mtc_tbs_entry *e,
            mtc_slice exts, const uint8_t *spki, size_t spki_len, uint8_t *out,
            size_t cap, size_t *len)
{
    mtc_proof_storage ps;
    mtc_proof p;
    uint64_t landmark;
    int rc = lr ? mtc_ilog_landmark_proof(st->log, st->lm, index, exts, &ps, &p,
                                          &landmark)
                : mtc_ilog_standalone_proof(st->log, index, exts, &ps, &p);
    if (rc != MTC_OK)
        return rc;
    return mtc_cert_build(e, spki, spki_len, mtc_serial(st->log_number, index), &p,
                          out, cap, len);
}

int rp_load_dir(const char *dir, mtc_rp_ca **rp, char *err, size_t cap)
{
    char path[600];
    uint8_t *ca, *conf;
    size_t cl, fl, line;
    snprintf(path, sizeof path, "%s/ca.der", dir);
    if (cli_read_file(path, &ca, &cl))
        return fail(err, cap, "cannot read '%s': %s", path, strerror(errno));
    snprintf(path, sizeof path, "%s/rp.conf", dir);
    if (cli_read_file(path, &conf, &fl)) {
        free(ca);
        return fail(err, cap, "cannot read '%s': %s", path, strerror(errno));
    }
    int rc = mtc_rp_ca_load(ca, cl, (const char *)conf, fl, rp, &line);
    free(ca);
    free(conf);
    if (rc != MTC_OK) {
        if (line)
            return fail(err, cap, "%s/rp.conf line %zu is malformed", dir, line);
        return fail(err, cap, "%s/ca.der: %s", dir, mtc_strerror(rc));
    }
    /* The installed update is verified again on every load. */
    snprintf(path, sizeof path, "%s/update.bin", dir);
    FILE *u = fopen(path, "rb");
    if (!u)
        return 0;
    fclose(u);
    if (rp_apply_file(*rp, path, NULL, err, cap)) {
        mtc_rp_ca_free(*rp);
        *rp = NULL;
        return -1;
    }
    return 0;
}
