/*
 * mtc/error.h - error codes of mtc-core.
 *
 * Every fallible function returns MTC_OK (0) or one of the negative codes
 * below; mtc_strerror() names them. Codes are grouped by layer; new codes are
 * appended inside their group's range so existing values never change.
 */
#ifndef MTC_ERROR_H
#define MTC_ERROR_H

enum mtc_error {
    MTC_OK = 0,
    /* general: -1 .. -19 */
    MTC_ERR_ARG = -1,           /* an argument is out of its documented domain */
    MTC_ERR_NOMEM = -2,         /* allocation failed */
    MTC_ERR_IO = -3,            /* reading or writing a file failed */
    MTC_ERR_CALLBACK = -4,      /* a caller-supplied callback reported failure */
    MTC_ERR_CRYPTO = -5,        /* the crypto library failed unexpectedly */
    MTC_ERR_LIMIT = -6,         /* a size or count limit was exceeded */
    MTC_ERR_UNSUPPORTED = -7,   /* algorithm or feature not supported */
    MTC_ERR_PARSE = -8,         /* text input is malformed */
    /* Merkle layer: -20 .. -39 */
    MTC_ERR_SUBTREE = -20,      /* [start, end) is not a valid subtree */
    MTC_ERR_RANGE = -21,        /* index or size beyond the tree */
    MTC_ERR_PRUNED = -22,       /* the answer needs entries that were pruned */
    MTC_ERR_PROOF = -23,        /* a proof did not verify */
    MTC_ERR_PROOF_LEN = -24,    /* a proof has the wrong number of hashes */
    MTC_ERR_TREE_FULL = -25,    /* the tree holds 2^48-1 entries (draft cap) */
    /* DER: -40 .. -59 */
    MTC_ERR_DER = -40,          /* malformed DER */
    MTC_ERR_DER_TRAILING = -41, /* data after the end of a DER element */
    MTC_ERR_DER_DEPTH = -42,    /* DER nesting exceeds the limit */
    MTC_ERR_DER_LENGTH = -43,   /* DER length not minimal or beyond the input */
    /* certificates and relying party: -60 .. -99 */
    MTC_ERR_CERT = -60,         /* certificate structure is wrong */
    MTC_ERR_SIGNATURE = -61,    /* a signature did not verify */
    MTC_ERR_NOT_TRUSTED = -62,  /* no trusted subtree or cosigner quorum */
    MTC_ERR_REVOKED = -63,      /* serial is in a revoked range */
    MTC_ERR_EXPIRED = -64,      /* outside the validity period */
    MTC_ERR_LANDMARK = -65,     /* landmark file or landmark rule violated */
    MTC_ERR_CONFIG = -66,       /* a configuration or parameter set is wrong */
    MTC_ERR_NOT_CURRENT = -67,  /* appending to a log that is not the current one */
    /* signature algorithms: -100 .. -119 */
    MTC_ERR_KEY = -100,         /* malformed key encoding */
    MTC_ERR_SIG_ENCODING = -101, /* malformed signature encoding */
    /* simulation engine: -120 .. -139 */
    MTC_ERR_SIM_PAST = -120,    /* an event was scheduled before the current time */
    MTC_ERR_SIM_STATE = -121,   /* event pending (or not) contrary to the call */
    MTC_ERR_SIM_METRIC = -122,  /* metric unknown, of another kind, or definitions differ */
    /* results database: -140 .. -159 */
    MTC_ERR_DB = -140,          /* the SQLite library reported an error */
    MTC_ERR_DB_NOT_FOUND = -141, /* the database file does not exist */
    MTC_ERR_DB_NOT_SQLITE = -142, /* the file is not an SQLite database (or is corrupt) */
    MTC_ERR_DB_FOREIGN = -143,  /* an SQLite database, but not an mtcsim results database */
    MTC_ERR_DB_VERSION = -144,  /* an mtcsim results database of another schema version */
    MTC_ERR_DB_NO_RUN = -145,   /* no such run, or the run is already ended */
    /* world model, web side (TLS, sites, browsers): -160 .. -179 */
    MTC_ERR_TLS = -160          /* malformed TLS encoding */
};

/* A short English description of an error code; never NULL. */
const char *mtc_strerror(int err);

/* The enumerator's name ("MTC_ERR_PROOF"); never NULL. */
const char *mtc_error_name(int err);

#endif
