/*
 * validate/vrecord.c - where the suite's results go: the runs database
 * (the standard results schema, docs/results.md, plus a table of the
 * rows), the report, and the generated tables of docs/validation.md.
 *
 * The docs hold one block per case between the markers
 *     <!-- begin validate CASE -->  ...  <!-- end validate CASE -->
 * Everything between them is generated from the rows (v_render); `make
 * validate` rewrites the blocks of the cases it ran, and the fast test
 * checks that the blocks of the cases it ran are exactly what the code
 * produces now, so the document cannot drift from the simulator. Only
 * deterministic text goes into a block (no wall times, no dates).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <sqlite3.h>

#include "mtc/error.h"
#include "vcase.h"

static const char *const verdict_name[] = {"PASS", "FAIL", "info"};

/* mkdir -p */
static void make_dirs(const char *dir)
{
    char p[512];
    snprintf(p, sizeof p, "%s", dir);
    for (char *s = p + 1; *s; s++)
        if (*s == '/') {
            *s = 0;
            mkdir(p, 0777);
            *s = '/';
        }
    mkdir(p, 0777);
}

int v_db_open(vctx *c)
{
    char path[512], err[256];
    make_dirs(c->outdir);
    snprintf(path, sizeof path, "%s/validation.db", c->outdir);
    remove(path);
    char side[540];
    snprintf(side, sizeof side, "%s-wal", path);
    remove(side);
    snprintf(side, sizeof side, "%s-shm", path);
    remove(side);
    if (sim_results_open(path, SIM_RESULTS_CREATE, &c->db, err, sizeof err) != MTC_OK) {
        fprintf(stderr, "validate: %s: %s\n", path, err);
        c->db = NULL;
        return -1;
    }
    return 0;
}

void v_db_close(vctx *c)
{
    sim_results_close(c->db);
    c->db = NULL;
}

/* "E" or "E ± u" with the row's precision. */
static void fmt_expected(const vrow *r, char *b, size_t n)
{
    if (!isfinite(r->expected))
        snprintf(b, n, "-");
    else if (r->exp_unc > 0)
        snprintf(b, n, "%.*f ± %.*f", r->prec, r->expected, r->prec, r->exp_unc);
    else
        snprintf(b, n, "%.*f", r->prec, r->expected);
}

static void fmt_sim(const vrow *r, char *b, size_t n)
{
    if (!isfinite(r->sim))
        snprintf(b, n, "-");
    else if (r->n >= 2)
        snprintf(b, n, "%.*f [%.*f, %.*f]", r->prec, r->sim, r->prec, r->lo,
                 r->prec, r->hi);
    else
        snprintf(b, n, "%.*f", r->prec, r->sim);
}

char *v_render(const vctx *c, const char *id)
{
    size_t cap = 4096, len = 0;
    char *out = malloc(cap);
    if (!out)
        return NULL;
    out[0] = 0;
#define PUT(...)                                                            \
    do {                                                                    \
        int k_ = snprintf(out + len, cap - len, __VA_ARGS__);               \
        if (k_ < 0)                                                         \
            break;                                                          \
        while (len + (size_t)k_ >= cap) {                                   \
            char *n_ = realloc(out, cap *= 2);                              \
            if (!n_) {                                                      \
                free(out);                                                  \
                return NULL;                                                \
            }                                                               \
            out = n_;                                                       \
            snprintf(out + len, cap - len, __VA_ARGS__);                    \
        }                                                                   \
        len += (size_t)k_;                                                  \
    } while (0)
    PUT("| quantity | unit | expected | simulated [95 %% interval] | tolerance | n | verdict |\n");
    PUT("|---|---|---|---|---|---|---|\n");
    for (size_t i = 0; i < c->nrows; i++) {
        const vrow *r = &c->rows[i];
        if (strcmp(r->id, id))
            continue;
        char e[96], s[128], t[48];
        fmt_expected(r, e, sizeof e);
        fmt_sim(r, s, sizeof s);
        if (r->verdict == V_INFO)
            snprintf(t, sizeof t, "-");
        else
            snprintf(t, sizeof t, "%.*f", r->prec, r->tol);
        PUT("| %s | %s | %s | %s | %s | %d | %s |\n", r->name, r->unit, e, s, t,
            r->n > 1 ? r->n : 1, verdict_name[r->verdict]);
    }
    PUT("\nReproduce: `build/validate --case %s`\n", id);
#undef PUT
    return out;
}

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *b = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (b && fread(b, 1, (size_t)n, f) != (size_t)n) {
        free(b);
        b = NULL;
    }
    fclose(f);
    if (b) {
        b[n] = 0;
        *len = (size_t)n;
    }
    return b;
}

static int ran(const vctx *c, const char *id)
{
    for (size_t i = 0; i < c->nrows; i++)
        if (!strcmp(c->rows[i].id, id))
            return 1;
    return 0;
}

int v_docs(vctx *c, const char *path, int write)
{
    size_t len;
    char *doc = slurp(path, &len);
    if (!doc) {
        fprintf(stderr, "validate: %s: %s\n", path, strerror(errno));
        return -1;
    }
    size_t ncases;
    const vcase *cs = v_cases(&ncases);
    int differ = 0;
    for (size_t k = 0; k < ncases; k++) {
        if (!ran(c, cs[k].id))
            continue;
        char begin[64], end[64];
        snprintf(begin, sizeof begin, "<!-- begin validate %s -->\n", cs[k].id);
        snprintf(end, sizeof end, "<!-- end validate %s -->", cs[k].id);
        char *b = strstr(doc, begin), *e = b ? strstr(b, end) : NULL;
        if (!b || !e) {
            fprintf(stderr, "validate: %s: no block for case %s (%s...%s)\n", path,
                    cs[k].id, begin, end);
            differ = 1;
            continue;
        }
        char *body = v_render(c, cs[k].id);
        if (!body) {
            free(doc);
            return -1;
        }
        char *from = b + strlen(begin);
        size_t old = (size_t)(e - from), neu = strlen(body);
        if (old != neu || memcmp(from, body, neu)) {
            if (!write) {
                fprintf(stderr,
                        "validate: %s: the table of case %s differs from what the "
                        "code produces (run `make validate`).\n--- in %s:\n%.*s--- now:\n%s",
                        path, cs[k].id, path, (int)old, from, body);
                differ = 1;
            } else {
                size_t off = (size_t)(from - doc);
                char *nd = malloc(len - old + neu + 1);
                if (!nd) {
                    free(body);
                    free(doc);
                    return -1;
                }
                memcpy(nd, doc, off);
                memcpy(nd + off, body, neu);
                memcpy(nd + off + neu, from + old, len - off - old + 1);
                free(doc);
                doc = nd;
                len = len - old + neu;
            }
        }
        free(body);
    }
    int rc = differ;
    if (write) {
        FILE *f = fopen(path, "wb");
        if (!f || fwrite(doc, 1, len, f) != len) {
            fprintf(stderr, "validate: cannot write %s\n", path);
            rc = -1;
        }
        if (f)
            fclose(f);
    }
    free(doc);
    return rc;
}

/* The rows as a table of the runs database. */
static int rows_to_db(const vctx *c)
{
    char path[512];
    snprintf(path, sizeof path, "%s/validation.db", c->outdir);
    sqlite3 *db;
    if (sqlite3_open(path, &db) != SQLITE_OK)
        return -1;
    int rc = sqlite3_exec(db,
                          "BEGIN; DROP TABLE IF EXISTS validation_row;"
                          "CREATE TABLE validation_row (row_id INTEGER PRIMARY KEY,"
                          " case_id TEXT, quantity TEXT, unit TEXT, expected REAL,"
                          " expected_unc REAL, simulated REAL, ci95_lo REAL, ci95_hi REAL,"
                          " n INTEGER, tolerance REAL, verdict TEXT);",
                          NULL, NULL, NULL);
    sqlite3_stmt *st = NULL;
    if (rc == SQLITE_OK)
        rc = sqlite3_prepare_v2(db,
                                "INSERT INTO validation_row (case_id, quantity, unit,"
                                " expected, expected_unc, simulated, ci95_lo, ci95_hi, n,"
                                " tolerance, verdict) VALUES (?,?,?,?,?,?,?,?,?,?,?)",
                                -1, &st, NULL);
    for (size_t i = 0; rc == SQLITE_OK && i < c->nrows; i++) {
        const vrow *r = &c->rows[i];
        sqlite3_reset(st);
        sqlite3_bind_text(st, 1, r->id, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 2, r->name, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 3, r->unit, -1, SQLITE_STATIC);
        sqlite3_bind_double(st, 4, r->expected);
        sqlite3_bind_double(st, 5, r->exp_unc);
        sqlite3_bind_double(st, 6, r->sim);
        sqlite3_bind_double(st, 7, r->lo);
        sqlite3_bind_double(st, 8, r->hi);
        sqlite3_bind_int(st, 9, r->n);
        sqlite3_bind_double(st, 10, r->tol);
        sqlite3_bind_text(st, 11, verdict_name[r->verdict], -1, SQLITE_STATIC);
        rc = sqlite3_step(st) == SQLITE_DONE ? SQLITE_OK : SQLITE_ERROR;
    }
    sqlite3_finalize(st);
    sqlite3_exec(db, rc == SQLITE_OK ? "COMMIT" : "ROLLBACK", NULL, NULL, NULL);
    sqlite3_close(db);
    return rc == SQLITE_OK ? 0 : -1;
}

int v_write_results(vctx *c, double wall_s)
{
    int rc = rows_to_db(c);
    char path[512];
    snprintf(path, sizeof path, "%s/report.md", c->outdir);
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    size_t ncases, pass = 0, fail = 0;
    for (size_t i = 0; i < c->nrows; i++) {
        pass += c->rows[i].verdict == V_PASS;
        fail += c->rows[i].verdict == V_FAIL;
    }
    fprintf(f, "# mtcsim validation report\n\n");
    fprintf(f, "%zu rows passed, %zu failed; %.0f s of wall time.%s\n\n", pass, fail,
            wall_s, c->wrong ? " **A deliberately wrong model was simulated "
                               "(--wrong-model): failures are expected.**" : "");
    fprintf(f, "Runs: `validation.db` (results schema of docs/results.md; table "
               "`validation_row` holds these rows) and, for case 6, "
               "`scenarios.db`. The claims, sources and derivations are in "
               "docs/validation.md.\n\n");
    const vcase *cs = v_cases(&ncases);
    for (size_t k = 0; k < ncases; k++) {
        if (!ran(c, cs[k].id))
            continue;
        char *t = v_render(c, cs[k].id);
        fprintf(f, "## %s. %s\n\n%s\n", cs[k].id, cs[k].title, t ? t : "");
        free(t);
    }
    fclose(f);
    return rc;
}
