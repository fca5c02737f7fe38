/*
 * error.c - names and messages of mtc-core error codes.
 */
#include "mtc/error.h"

#include <stddef.h>

struct err_entry {
    int code;
    const char *name;
    const char *msg;
};

#define E(c, m) {c, #c, m}
static const struct err_entry err_table[] = {
    E(MTC_OK, "success"),
    E(MTC_ERR_ARG, "invalid argument"),
    E(MTC_ERR_NOMEM, "out of memory"),
    E(MTC_ERR_IO, "input/output error"),
    E(MTC_ERR_CALLBACK, "callback failed"),
    E(MTC_ERR_CRYPTO, "cryptographic library error"),
    E(MTC_ERR_LIMIT, "size or count limit exceeded"),
    E(MTC_ERR_UNSUPPORTED, "unsupported algorithm or feature"),
    E(MTC_ERR_PARSE, "malformed input"),
    E(MTC_ERR_SUBTREE, "not a valid subtree"),
    E(MTC_ERR_RANGE, "index or size beyond the tree"),
    E(MTC_ERR_PRUNED, "needed entries were pruned"),
    E(MTC_ERR_PROOF, "proof does not verify"),
    E(MTC_ERR_PROOF_LEN, "proof has the wrong length"),
    E(MTC_ERR_TREE_FULL, "tree is full (2^48-1 entries)"),
    E(MTC_ERR_DER, "malformed DER"),
    E(MTC_ERR_DER_TRAILING, "trailing data after DER element"),
    E(MTC_ERR_DER_DEPTH, "DER nesting too deep"),
    E(MTC_ERR_DER_LENGTH, "bad DER length"),
    E(MTC_ERR_CERT, "malformed certificate"),
    E(MTC_ERR_SIGNATURE, "signature does not verify"),
    E(MTC_ERR_NOT_TRUSTED, "not trusted"),
    E(MTC_ERR_REVOKED, "revoked"),
    E(MTC_ERR_EXPIRED, "outside validity period"),
    E(MTC_ERR_LANDMARK, "landmark error"),
    E(MTC_ERR_CONFIG, "bad configuration"),
    E(MTC_ERR_NOT_CURRENT, "the log is not the CA's current log"),
    E(MTC_ERR_KEY, "malformed key"),
    E(MTC_ERR_SIG_ENCODING, "malformed signature encoding"),
};
#undef E

static const struct err_entry *err_find(int err)
{
    for (size_t i = 0; i < sizeof(err_table) / sizeof(err_table[0]); i++)
        if (err_table[i].code == err)
            return &err_table[i];
    return NULL;
}

const char *mtc_strerror(int err)
{
    const struct err_entry *e = err_find(err);
    return e ? e->msg : "unknown error";
}

const char *mtc_error_name(int err)
{
    const struct err_entry *e = err_find(err);
    return e ? e->name : "MTC_ERR_UNKNOWN";
}
