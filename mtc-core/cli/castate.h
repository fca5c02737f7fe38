/*
 * castate.h - what the certificate subcommands (demo, issue, verify, show,
 * sizes) share: file and PEM helpers, and a CA kept in a directory.
 *
 * CA directory layout (written by `mtc demo`, extended by `mtc issue`):
 *   ca.conf        CA ID, log number, algorithm, key seeds, witnesses,
 *                  max_active_landmarks (text, "key value" lines)
 *   log.entries    the issuance log: per entry a 2-byte length and the
 *                  MTCLogEntry
 *   checkpoints    per checkpoint "<tree size> <timestamp>" (timestamp of
 *                  its signatures; older directories: the size alone)
 *   checkpoint     the last signed checkpoint and its cosignatures (text)
 *   landmarks      the draft's landmark publishing format
 *   update.bin     the relying-party update (mtc/update.h) for the last
 *                  checkpoint and the active landmarks
 *   ca.der/ca.pem  the CA certificate
 *   rp/            a relying party: ca.der, rp.conf (all witnesses; policy
 *                  CA and every witness) and update.bin, installed only
 *                  after verification (rp_install_update), which is how
 *                  it comes to trust the landmark subtrees
 * Keys are derived from seeds stored in ca.conf: this is a simulator's
 * CA, not a production one. Witnesses have IDs 32473.9999.<n> (outside
 * the CA's arc, as the simulator's cosigners) and keys from their IDs.
 */
#ifndef MTC_CLI_CASTATE_H
#define MTC_CLI_CASTATE_H

#include <stddef.h>
#include <stdint.h>

#include "mtc/ilog.h"
#include "mtc/landmark.h"
#include "mtc/rp.h"
#include "mtc/update.h"

#define CA_MAX_WITNESSES 8

/* Reads a whole file (malloc'd, NUL-terminated); 0 or -1 with errno. */
int cli_read_file(const char *path, uint8_t **buf, size_t *len);
/* As cli_read_file, reading at most max bytes: a larger input (or an
 * endless one, /dev/zero) fails with errno EFBIG. cli_read_file's bound
 * is CLI_READ_MAX; certificate files (cli_read_certs) have CLI_CERTS_MAX. */
#define CLI_READ_MAX ((size_t)1 << 30)
#define CLI_CERTS_MAX ((size_t)64 << 20)
int cli_read_file_max(const char *path, size_t max, uint8_t **buf, size_t *len);
int cli_write_file(const char *path, const void *buf, size_t len);
/* Writes DER as a PEM CERTIFICATE. */
int cli_write_pem(const char *path, const uint8_t *der, size_t len);
/*
 * Certificates from a file: DER (one) or PEM (one or more CERTIFICATE
 * blocks). *ders is an array of malloc'd buffers; free with
 * cli_free_certs. Returns the count, or -1 with a message in err.
 */
int cli_read_certs(const char *path, uint8_t ***ders, size_t **lens,
                   char *err, size_t err_cap);
void cli_free_certs(uint8_t **ders, size_t *lens, int n);

typedef struct ca_state {
    char dir[512];
    mtc_taid ca_id;
    uint64_t log_number;
    mtc_sig_alg alg;
    uint8_t seed[32];
    size_t n_witnesses;
    mtc_taid witness_id[CA_MAX_WITNESSES];
    uint8_t witness_seed[CA_MAX_WITNESSES][32];
    uint64_t max_active;
    int64_t not_before;
    /* runtime */
    mtc_sig_key *keys[CA_MAX_WITNESSES + 1];
    mtc_cosigner cos[CA_MAX_WITNESSES + 1];
    mtc_ilog *log;
    mtc_landmarks *lm;
} ca_state;

/* A fresh CA in dir (created), nothing appended; writes ca.conf, empty
 * log files, the CA certificate. Returns 0, or -1 with a message. */
int ca_create(ca_state *st, const char *dir, const char *ca_id, mtc_sig_alg alg,
              size_t witnesses, uint64_t max_active, int64_t not_before,
              char *err, size_t err_cap);
/* Loads dir and replays its log, checkpoints and landmarks. */
int ca_load(ca_state *st, const char *dir, char *err, size_t err_cap);
void ca_free(ca_state *st);

/* Appends an entry to the log (memory and file); *index gets its index. */
int ca_append(ca_state *st, mtc_slice exts, const mtc_tbs_entry *e,
              uint64_t *index, char *err, size_t err_cap);
/* Checkpoints the new batch: the CA and witnesses sign the checkpoint
 * with `timestamp` and its covering subtrees; records it. */
int ca_checkpoint(ca_state *st, uint64_t timestamp, char *err, size_t err_cap);
/* Makes the latest checkpoint a landmark and rewrites the landmarks file. */
int ca_landmark(ca_state *st, char *err, size_t err_cap);
/* The draft's allocation: a landmark at the latest checkpoint unless one
 * was allocated in this time interval (or nothing is new); *allocated
 * says which. Rewrites the landmarks file. */
int ca_allocate_landmark(ca_state *st, uint64_t interval, int *allocated,
                         char *err, size_t err_cap);
/* Writes checkpoint and update.bin, then rp/ca.der and rp/rp.conf, and
 * installs the update in rp/ as `mtc rp update` does. */
int ca_write_rp(ca_state *st, char *err, size_t err_cap);

/* Builds the standalone (lr = 0) or landmark-relative certificate for
 * entry `index` with the given fields and subject key. Returns an mtc
 * error code. */
int ca_cert(ca_state *st, uint64_t index, int lr, const mtc_tbs_entry *e,
            mtc_slice exts, const uint8_t *spki, size_t spki_len, uint8_t *out,
            size_t cap, size_t *len);

/* Loads a relying-party directory (ca.der + rp.conf, and update.bin when
 * present, verified again as it is applied). */
int rp_load_dir(const char *dir, mtc_rp_ca **rp, char *err, size_t err_cap);

/*
 * cmd_rp.c: verifies the update in[0..len) against the relying party in
 * dir (as loaded by rp_load_dir) and, when it is accepted, installs it as
 * dir/update.bin. Returns 0; 1 when refused (err names the reason); -1
 * for other failures. *res (may be NULL) gets the verification result.
 */
int rp_install_update(const char *dir, const uint8_t *in, size_t len,
                      mtc_update_result *res, char *err, size_t err_cap);
/* Decodes and applies an update file to rp; 0, 1 refused, -1 other. */
int rp_apply_file(mtc_rp_ca *rp, const char *path, mtc_update_result *res,
                  char *err, size_t err_cap);

#endif
