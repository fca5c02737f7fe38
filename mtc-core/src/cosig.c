/*
 * cosig.c - CosignedMessage encoding, cosigning and cosignature checks.
 */
#include "mtc/cosig.h"

#include <string.h>

#include "mtc/error.h"
#include "mtc/merkle.h"

static uint8_t *put_u64(uint8_t *p, uint64_t v)
{
    for (int i = 7; i >= 0; i--)
        *p++ = (uint8_t)(v >> (8 * i));
    return p;
}

int mtc_cosigned_message(const mtc_taid *cosigner_id, const mtc_taid *log_id,
                         uint64_t timestamp, uint64_t start, uint64_t end,
                         const mtc_hash *subtree_hash, uint8_t *out, size_t cap,
                         size_t *out_len)
{
    static const uint8_t label[12] = "subtree/v1\n";  /* + the NUL */
    if (!mtc_subtree_valid(start, end))
        return MTC_ERR_SUBTREE;
    if (timestamp != 0 && start != 0)
        return MTC_ERR_ARG;
    char name[256], origin[256];
    size_t nl, ol;
    int rc;
    if ((rc = mtc_taid_origin(cosigner_id, name, sizeof name, &nl)) != MTC_OK ||
        (rc = mtc_taid_origin(log_id, origin, sizeof origin, &ol)) != MTC_OK)
        return rc;
    size_t n = 12 + 1 + nl + 8 + 1 + ol + 8 + 8 + MTC_HASH_LEN;
    if (n > cap)
        return MTC_ERR_LIMIT;
    uint8_t *p = out;
    memcpy(p, label, 12);
    p += 12;
    *p++ = (uint8_t)nl;
    memcpy(p, name, nl);
    p += nl;
    p = put_u64(p, timestamp);
    *p++ = (uint8_t)ol;
    memcpy(p, origin, ol);
    p += ol;
    p = put_u64(p, start);
    p = put_u64(p, end);
    memcpy(p, subtree_hash->b, MTC_HASH_LEN);
    *out_len = n;
    return MTC_OK;
}

static int cosign(const mtc_cosigner *c, const mtc_taid *log_id, uint64_t ts,
                  uint64_t start, uint64_t end, const mtc_hash *hash,
                  uint8_t *sig, size_t *sig_len)
{
    uint8_t msg[MTC_COSIGNED_MESSAGE_MAX];
    size_t n;
    int rc = mtc_cosigned_message(&c->id, log_id, ts, start, end, hash, msg,
                                  sizeof msg, &n);
    if (rc != MTC_OK)
        return rc;
    return mtc_sig_sign(c->key, msg, n, sig, sig_len);
}

int mtc_cosign_subtree(const mtc_cosigner *c, const mtc_taid *log_id,
                       uint64_t start, uint64_t end, const mtc_hash *hash,
                       uint8_t *sig, size_t *sig_len)
{
    return cosign(c, log_id, 0, start, end, hash, sig, sig_len);
}

int mtc_cosign_checkpoint(const mtc_cosigner *c, const mtc_taid *log_id,
                          uint64_t timestamp, uint64_t tree_size,
                          const mtc_hash *root, uint8_t *sig, size_t *sig_len)
{
    if (timestamp == 0)
        return MTC_ERR_ARG;
    return cosign(c, log_id, timestamp, 0, tree_size, root, sig, sig_len);
}

int mtc_cosig_verify(mtc_sig_alg alg, const uint8_t *pk, size_t pk_len,
                     const mtc_taid *cosigner_id, const mtc_taid *log_id,
                     uint64_t timestamp, uint64_t start, uint64_t end,
                     const mtc_hash *hash, const uint8_t *sig, size_t sig_len)
{
    uint8_t msg[MTC_COSIGNED_MESSAGE_MAX];
    size_t n;
    int rc = mtc_cosigned_message(cosigner_id, log_id, timestamp, start, end,
                                  hash, msg, sizeof msg, &n);
    if (rc != MTC_OK)
        return rc;
    return mtc_sig_verify(alg, pk, pk_len, msg, n, sig, sig_len);
}
