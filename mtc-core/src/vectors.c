/*
 * vectors.c - the draft's accumulated subtree test vectors, recomputed.
 *
 * Appendix "Subtree Test Vectors": each vector is a SHA-256 over text lines
 * describing every output of one algorithm for all trees of up to 130
 * entries with d[i] = the byte i. The expected values are not here: they
 * live in tests/test_merkle.c, and `mtc vectors` prints what this computes.
 * The rolling hash uses EVP (not the Merkle fast path) on purpose.
 */
#include "mtc/vectors.h"

#include <openssl/evp.h>
#include <stdio.h>
#include <string.h>

#include "mtc/error.h"
#include "mtc/merkle.h"
#include "mtc/tree.h"

#define VEC_MAX_N 130

const char *const mtc_vector_names[MTC_VECTOR_COUNT] = {
    "subtree-hashes", "inclusion-proofs", "consistency-proofs",
    "covering-subtrees"};

/* A rolling SHA-256 over formatted lines. */
typedef struct rolling {
    EVP_MD_CTX *md;
} rolling;

static void roll_add(rolling *r, const char *s)
{
    EVP_DigestUpdate(r->md, s, strlen(s));
}

static void roll_hash(rolling *r, const mtc_hash *h)
{
    char hex[2 * MTC_HASH_LEN + 1];
    mtc_hash_to_hex(h, hex);
    roll_add(r, hex);
}

/* One line: the label, then " HASH" per proof element, then a newline. */
static void roll_proof_line(rolling *r, const char *label,
                            const mtc_hash *proof, size_t len)
{
    roll_add(r, label);
    for (size_t i = 0; i < len; i++) {
        roll_add(r, " ");
        roll_hash(r, &proof[i]);
    }
    roll_add(r, "\n");
}

static int roll_start(rolling *r)
{
    return EVP_DigestInit_ex(r->md, EVP_sha256(), NULL) == 1 ? MTC_OK
                                                             : MTC_ERR_CRYPTO;
}

static int roll_finish(rolling *r, mtc_hash *out)
{
    unsigned int len = 0;
    if (EVP_DigestFinal_ex(r->md, out->b, &len) != 1 || len != MTC_HASH_LEN)
        return MTC_ERR_CRYPTO;
    return MTC_OK;
}


int mtc_subtree_vectors(mtc_hash out[MTC_VECTOR_COUNT])
{
    int rc = MTC_ERR_NOMEM;
    char line[256];
    mtc_hash proof[MTC_PROOF_MAX];
    size_t plen;
    rolling r = {EVP_MD_CTX_new()};
    mtc_tree *tree = mtc_tree_new(NULL);
    if (!r.md || !tree)
        goto done;
    for (unsigned i = 0; i < VEC_MAX_N; i++) {
        uint8_t d = (uint8_t)i;
        mtc_hash h;
        mtc_hash_leaf(&d, 1, &h);
        if ((rc = mtc_tree_append(tree, &h)) != MTC_OK)
            goto done;
    }
    mtc_node_source src;
    mtc_tree_source(tree, &src);

    if ((rc = roll_start(&r)) != MTC_OK)
        goto done;
    for (uint64_t end = 0; end <= VEC_MAX_N; end++)
        for (uint64_t start = 0; start <= end; start++) {
            if (!mtc_subtree_valid(start, end))
                continue;
            mtc_hash h;
            if ((rc = mtc_subtree_hash(&src, start, end, &h)) != MTC_OK)
                goto done;
            snprintf(line, sizeof line, "[%llu, %llu) ",
                     (unsigned long long)start, (unsigned long long)end);
            roll_add(&r, line);
            roll_hash(&r, &h);
            roll_add(&r, "\n");
        }
    if ((rc = roll_finish(&r, &out[0])) != MTC_OK)
        goto done;

    if ((rc = roll_start(&r)) != MTC_OK)
        goto done;
    for (uint64_t end = 0; end <= VEC_MAX_N; end++)
        for (uint64_t start = 0; start <= end; start++) {
            if (!mtc_subtree_valid(start, end))
                continue;
            for (uint64_t index = start; index < end; index++) {
                rc = mtc_inclusion_proof(&src, index, start, end, proof, &plen);
                if (rc != MTC_OK)
                    goto done;
                snprintf(line, sizeof line, "%llu [%llu, %llu)",
                         (unsigned long long)index, (unsigned long long)start,
                         (unsigned long long)end);
                roll_proof_line(&r, line, proof, plen);
            }
        }
    if ((rc = roll_finish(&r, &out[1])) != MTC_OK)
        goto done;

    if ((rc = roll_start(&r)) != MTC_OK)
        goto done;
    for (uint64_t n = 0; n <= VEC_MAX_N; n++)
        for (uint64_t end = 0; end <= n; end++)
            for (uint64_t start = 0; start <= end; start++) {
                if (!mtc_subtree_valid(start, end))
                    continue;
                rc = mtc_subtree_consistency_proof(&src, start, end, n, proof,
                                                   &plen);
                if (rc != MTC_OK)
                    goto done;
                snprintf(line, sizeof line, "[%llu, %llu) %llu",
                         (unsigned long long)start, (unsigned long long)end,
                         (unsigned long long)n);
                roll_proof_line(&r, line, proof, plen);
            }
    if ((rc = roll_finish(&r, &out[2])) != MTC_OK)
        goto done;

    if ((rc = roll_start(&r)) != MTC_OK)
        goto done;
    for (uint64_t end = 0; end <= VEC_MAX_N; end++)
        for (uint64_t start = 0; start <= end; start++) {
            mtc_subtree left, right;
            if ((rc = mtc_covering_subtrees(start, end, &left, &right)) != MTC_OK)
                goto done;
            snprintf(line, sizeof line, "[%llu, %llu) [%llu, %llu)\n",
                     (unsigned long long)left.start,
                     (unsigned long long)left.end,
                     (unsigned long long)right.start,
                     (unsigned long long)right.end);
            roll_add(&r, line);
        }
    rc = roll_finish(&r, &out[3]);
done:
    mtc_tree_free(tree);
    EVP_MD_CTX_free(r.md);
    return rc;
}

