/*
 * mtc/error.h - error codes of mtc-core.
 *
 * Every fallible function returns MTC_OK (0) or one of the negative codes
 * below; mtc_strerror() names them. Codes are grouped by layer; new codes are
 * appended inside their group's range so existing values never change.
 * mtc-core's codes stay within -1 .. -999: the simulator's status space
 * (sim/status.h) passes them through unchanged and puts its own codes
 * below that range. Only mtc-core's codes belong here.
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
};

/* A short English description of an error code; never NULL. */
const char *mtc_strerror(int err);

/* The enumerator's name ("MTC_ERR_PROOF"); never NULL. */
const char *mtc_error_name(int err);

#endif
