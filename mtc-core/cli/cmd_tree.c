/*
 * cmd_tree.c - `mtc tree`: subtree hashes and proofs over a file of entries.
 *
 * FILE holds one entry per line, in hex (an empty line is an empty entry;
 * a final newline does not start another entry). Each entry d[i] becomes
 * the leaf hash MTH({d[i]}) = SHA-256(0x00 || d[i]).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "mtc/error.h"
#include "mtc/bulk.h"
#include "mtc/merkle.h"
#include "mtc/tree.h"

static const char tree_usage[] =
    "usage:\n"
    "  mtc tree hash FILE START END          subtree hash MTH(D[START:END])\n"
    "  mtc tree root FILE [N]                root of the first N entries (default all)\n"
    "  mtc tree inclusion FILE INDEX START END\n"
    "                                        subtree inclusion proof of entry INDEX\n"
    "  mtc tree consistency FILE N START END subtree consistency proof of\n"
    "                                        [START, END) with the tree of size N\n"
    "  mtc tree rfc-consistency FILE M N     RFC 9162 consistency proof M -> N\n"
    "  mtc tree cover START END              the two subtrees covering [START, END):\n"
    "                                        prints LSTART LEND RSTART REND\n"
    "  mtc tree bulk FILE N START END [START END ...]\n"
    "                                        bulk subtree consistency proof of the\n"
    "                                        subtrees (in the draft's order) with the\n"
    "                                        tree of size N: one line of hex\n"
    "  mtc tree bulk-verify N ROOT PROOF     verifies a hex bulk proof against the\n"
    "                                        hex ROOT of a tree of size N\n\n"
    "FILE: one entry per line in hex. Proofs print one hash per line in hex.\n"
    "Exit status: 0 success, 1 failure, 2 invalid arguments.\n";

static int hexval(int c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* Reads FILE into a tree. Returns 0, or a CLI exit code after a message. */
static int load_entries(const char *path, mtc_tree **out)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return cli_usage_error("tree", "cannot open FILE '%s': %s", path,
                               strerror(errno));
    mtc_tree *t = mtc_tree_new(NULL);
    char *line = NULL;
    size_t cap = 0;
    uint8_t *buf = NULL;
    size_t bufcap = 0;
    ssize_t len;
    unsigned long lineno = 0;
    int rc = CLI_OK;
    if (!t) {
        fprintf(stderr, "mtc tree: out of memory\n");
        rc = CLI_FAIL;
        goto done;
    }
    while ((len = getline(&line, &cap, f)) >= 0) {
        lineno++;
        if (len > 0 && line[len - 1] == '\n')
            line[--len] = '\0';
        if (len > 0 && line[len - 1] == '\r')
            line[--len] = '\0';
        if (len % 2) {
            rc = cli_usage_error("tree", "%s:%lu: odd number of hex digits",
                                 path, lineno);
            goto done;
        }
        if ((size_t)len / 2 > bufcap) {
            bufcap = (size_t)len / 2;
            uint8_t *nb = realloc(buf, bufcap);
            if (!nb) {
                rc = CLI_FAIL;
                goto done;
            }
            buf = nb;
        }
        for (ssize_t i = 0; i < len; i += 2) {
            int hi = hexval((unsigned char)line[i]);
            int lo = hexval((unsigned char)line[i + 1]);
            if (hi < 0 || lo < 0) {
                rc = cli_usage_error("tree",
                                     "%s:%lu: '%c' at column %ld is not a hex digit",
                                     path, lineno,
                                     hi < 0 ? line[i] : line[i + 1],
                                     (long)(hi < 0 ? i + 1 : i + 2));
                goto done;
            }
            buf[i / 2] = (uint8_t)(hi << 4 | lo);
        }
        mtc_hash h;
        mtc_hash_leaf(buf, (size_t)len / 2, &h);
        int e = mtc_tree_append(t, &h);
        if (e != MTC_OK) {
            fprintf(stderr, "mtc tree: %s:%lu: %s\n", path, lineno,
                    mtc_strerror(e));
            rc = CLI_FAIL;
            goto done;
        }
    }
    if (ferror(f)) {
        rc = cli_usage_error("tree", "error reading FILE '%s'", path);
        goto done;
    }
done:
    free(line);
    free(buf);
    fclose(f);
    if (rc != CLI_OK) {
        mtc_tree_free(t);
        return rc;
    }
    *out = t;
    return CLI_OK;
}

static void print_hash(const mtc_hash *h)
{
    char hex[2 * MTC_HASH_LEN + 1];
    mtc_hash_to_hex(h, hex);
    puts(hex);
}

/* Explains why [start, end) cannot be used with a tree of `size` entries. */
static int check_subtree(uint64_t start, uint64_t end, uint64_t size)
{
    if (start > end)
        return cli_usage_error("tree", "START %llu is greater than END %llu",
                               (unsigned long long)start,
                               (unsigned long long)end);
    if (!mtc_subtree_valid(start, end))
        return cli_usage_error(
            "tree",
            "[%llu, %llu) is not a valid subtree: START must be a multiple "
            "of the smallest power of two >= END-START",
            (unsigned long long)start, (unsigned long long)end);
    if (end > size)
        return cli_usage_error("tree", "END %llu is beyond the %llu entries of FILE",
                               (unsigned long long)end,
                               (unsigned long long)size);
    return 0;
}

static int report(int rc)
{
    if (rc == MTC_OK)
        return CLI_OK;
    fprintf(stderr, "mtc tree: %s\n", mtc_strerror(rc));
    return CLI_FAIL;
}

static int print_proof(const mtc_hash *proof, size_t len)
{
    for (size_t i = 0; i < len; i++)
        print_hash(&proof[i]);
    return CLI_OK;
}

static int need_args(int argc, int want, const char *sub)
{
    if (argc == want)
        return 0;
    return cli_usage_error("tree", "'%s' takes %d argument%s, got %d "
                                   "(see mtc tree --help)",
                           sub, want - 2, want - 2 == 1 ? "" : "s", argc - 2);
}

static int put_hex(const uint8_t *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        printf("%02x", b[i]);
    putchar('\n');
    return CLI_OK;
}

/* mtc tree bulk FILE N START END [START END ...] */
static int tree_bulk(int argc, char **argv)
{
    if (argc < 6 || (argc - 4) % 2)
        return cli_usage_error("tree", "'bulk' takes FILE N and pairs of START "
                                       "END (see mtc tree --help)");
    uint64_t n;
    int rc;
    if ((rc = cli_parse_u64("tree", "N", argv[3], &n)))
        return rc;
    size_t k = (size_t)(argc - 4) / 2;
    mtc_subtree *subs = calloc(k, sizeof *subs);
    if (!subs)
        return report(MTC_ERR_NOMEM);
    for (size_t i = 0; i < k && !rc; i++)
        if (!(rc = cli_parse_u64("tree", "START", argv[4 + 2 * i], &subs[i].start)))
            rc = cli_parse_u64("tree", "END", argv[5 + 2 * i], &subs[i].end);
    mtc_tree *t = NULL;
    if (!rc)
        rc = load_entries(argv[2], &t);
    if (!rc && n > mtc_tree_size(t))
        rc = cli_usage_error("tree", "N %llu is beyond the %llu entries of FILE",
                             (unsigned long long)n,
                             (unsigned long long)mtc_tree_size(t));
    mtc_bulk_proof *p = NULL;
    uint8_t *enc = NULL;
    size_t len = 0;
    if (!rc) {
        mtc_node_source src;
        mtc_tree_source(t, &src);
        rc = report(mtc_bulk_build(&src, n, subs, k, &p));
    }
    if (!rc) {
        mtc_bulk_encode(p, NULL, 0, &len);
        rc = (enc = malloc(len)) ? report(mtc_bulk_encode(p, enc, len, &len))
                                 : report(MTC_ERR_NOMEM);
    }
    if (!rc)
        rc = put_hex(enc, len);
    free(enc);
    mtc_bulk_free(p);
    mtc_tree_free(t);
    free(subs);
    return rc;
}

/* mtc tree bulk-verify N ROOT PROOF */
static int tree_bulk_verify(int argc, char **argv)
{
    int rc;
    uint64_t n;
    if ((rc = need_args(argc, 5, "bulk-verify")) ||
        (rc = cli_parse_u64("tree", "N", argv[2], &n)))
        return rc;
    mtc_hash root;
    if (mtc_hash_from_hex(argv[3], strlen(argv[3]), &root) != MTC_OK)
        return cli_usage_error("tree", "ROOT is not 64 hex digits");
    size_t hl = strlen(argv[4]);
    if (hl % 2)
        return cli_usage_error("tree", "PROOF has an odd number of hex digits");
    uint8_t *b = malloc(hl / 2 + 1);
    if (!b)
        return report(MTC_ERR_NOMEM);
    for (size_t i = 0; i < hl / 2; i++) {
        int hi = hexval(argv[4][2 * i]), lo = hexval(argv[4][2 * i + 1]);
        if (hi < 0 || lo < 0) {
            free(b);
            return cli_usage_error("tree", "PROOF is not hex");
        }
        b[i] = (uint8_t)(hi << 4 | lo);
    }
    mtc_bulk_proof *p = NULL;
    rc = report(mtc_bulk_decode(b, hl / 2, &p));
    if (!rc)
        rc = report(mtc_bulk_verify(p, n, &root));
    if (!rc)
        printf("ok: %zu subtrees, %zu tiles\n", p->n_subtrees, p->n_tiles);
    mtc_bulk_free(p);
    free(b);
    return rc;
}

int cmd_tree(int argc, char **argv)
{
    if (cli_wants_help(argc, argv)) {
        fputs(tree_usage, stdout);
        return CLI_OK;
    }
    if (argc < 2) {
        fputs(tree_usage, stderr);
        return CLI_USAGE;
    }
    const char *sub = argv[1];
    uint64_t a, b, c;
    int rc;
    if (!strcmp(sub, "cover")) {
        if ((rc = need_args(argc, 4, sub)) ||
            (rc = cli_parse_u64("tree cover", "START", argv[2], &a)) ||
            (rc = cli_parse_u64("tree cover", "END", argv[3], &b)))
            return rc;
        if (a > b)
            return cli_usage_error("tree", "START %s is greater than END %s",
                                   argv[2], argv[3]);
        mtc_subtree l, r;
        mtc_covering_subtrees(a, b, &l, &r);
        printf("%llu %llu %llu %llu\n", (unsigned long long)l.start,
               (unsigned long long)l.end, (unsigned long long)r.start,
               (unsigned long long)r.end);
        return CLI_OK;
    }

    if (!strcmp(sub, "bulk"))
        return tree_bulk(argc, argv);
    if (!strcmp(sub, "bulk-verify"))
        return tree_bulk_verify(argc, argv);
    int want;
    if (!strcmp(sub, "hash")) want = 5;
    else if (!strcmp(sub, "root")) want = argc == 4 ? 4 : 3;
    else if (!strcmp(sub, "inclusion")) want = 6;
    else if (!strcmp(sub, "consistency")) want = 6;
    else if (!strcmp(sub, "rfc-consistency")) want = 5;
    else
        return cli_usage_error("tree", "unknown query '%s' (see mtc tree --help)",
                               sub);
    if ((rc = need_args(argc, want, sub)))
        return rc;
    /* Parse numbers before reading the file: usage errors come first. */
    uint64_t nums[3] = {0, 0, 0};
    static const char *names_hash[] = {"START", "END"};
    static const char *names_root[] = {"N"};
    static const char *names_incl[] = {"INDEX", "START", "END"};
    static const char *names_cons[] = {"N", "START", "END"};
    static const char *names_rfc[] = {"M", "N"};
    const char **names = !strcmp(sub, "hash")        ? names_hash
                         : !strcmp(sub, "root")      ? names_root
                         : !strcmp(sub, "inclusion") ? names_incl
                         : !strcmp(sub, "consistency") ? names_cons
                                                       : names_rfc;
    for (int i = 3; i < argc; i++)
        if ((rc = cli_parse_u64("tree", names[i - 3], argv[i], &nums[i - 3])))
            return rc;
    mtc_tree *t = NULL;
    if ((rc = load_entries(argv[2], &t)))
        return rc;
    uint64_t size = mtc_tree_size(t);
    mtc_node_source src;
    mtc_tree_source(t, &src);
    mtc_hash h, proof[MTC_PROOF_MAX];
    size_t plen = 0;
    a = nums[0], b = nums[1], c = nums[2];

    if (!strcmp(sub, "hash")) {
        if (!(rc = check_subtree(a, b, size)) &&
            (rc = report(mtc_subtree_hash(&src, a, b, &h))) == CLI_OK)
            print_hash(&h);
    } else if (!strcmp(sub, "root")) {
        uint64_t n = argc == 4 ? a : size;
        if (n > size)
            rc = cli_usage_error("tree", "N %llu is beyond the %llu entries of FILE",
                                 (unsigned long long)n, (unsigned long long)size);
        else if ((rc = report(mtc_subtree_hash(&src, 0, n, &h))) == CLI_OK)
            print_hash(&h);
    } else if (!strcmp(sub, "inclusion")) {
        if (!(rc = check_subtree(b, c, size))) {
            if (a < b || a >= c)
                rc = cli_usage_error("tree", "INDEX %llu is outside [%llu, %llu)",
                                     (unsigned long long)a,
                                     (unsigned long long)b,
                                     (unsigned long long)c);
            else if ((rc = report(mtc_inclusion_proof(&src, a, b, c, proof,
                                                      &plen))) == CLI_OK)
                print_proof(proof, plen);
        }
    } else if (!strcmp(sub, "consistency")) {
        if (a > size)
            rc = cli_usage_error("tree", "N %llu is beyond the %llu entries of FILE",
                                 (unsigned long long)a, (unsigned long long)size);
        else if (!(rc = check_subtree(b, c, a)) &&
                 (rc = report(mtc_subtree_consistency_proof(&src, b, c, a, proof,
                                                            &plen))) == CLI_OK)
            print_proof(proof, plen);
    } else {
        if (a == 0)
            rc = cli_usage_error("tree", "M must be at least 1 (RFC 9162)");
        else if (a > b)
            rc = cli_usage_error("tree", "M %llu is greater than N %llu",
                                 (unsigned long long)a, (unsigned long long)b);
        else if (b > size)
            rc = cli_usage_error("tree", "N %llu is beyond the %llu entries of FILE",
                                 (unsigned long long)b, (unsigned long long)size);
        else if ((rc = report(mtc_consistency_proof(&src, a, b, proof, &plen))) ==
                 CLI_OK)
            print_proof(proof, plen);
    }
    mtc_tree_free(t);
    return rc;
}
