/*
 * validate/validate.c - `build/validate`: runs the validation cases,
 * prints one line per compared quantity
 *
 *     case  expected  simulated  tolerance  PASS|FAIL
 *
 * writes results/validation/ (validation.db, scenarios.db, report.md) and
 * rewrites or checks the generated tables of docs/validation.md. Exit
 * status 0 when every row passed (and, with --check-docs, every table is
 * current), 1 otherwise, 2 on bad usage. `make validate` runs everything;
 * tests/sh_validate.sh runs the fast subset (`--fast --check-docs`) and the
 * deliberately wrong model.
 */
#include <libgen.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "vcase.h"
#include "vcases.h"

static const vcase cases[] = {
    {"1a", "Closed form: signatureless fraction (web side, test PKI)", case_1a, 1, 1},
    {"1b", "Closed form: signatureless fraction with renewal and keep_old", case_1b, 0, 0},
    {"1c", "Closed forms at the plateau: relying-party state, retained log, signatures per hour", case_1c, 1, 1},
    {"1d", "Little's law on the update channel", case_1d, 0, 0},
    {"2a", "Coverage of the 95 % intervals: signatureless fraction", case_2a, 0, 0},
    {"2b", "Coverage of the 95 % intervals: delay to a standalone certificate", case_2b, 1, 1},
    {"2c", "The transient detector: planted transients and stationary series", case_2c, 1, 1},
    {"3a", "Size Estimates: issuance rates and the relying party's state", case_3a, 1, 1},
    {"3b", "Size Estimates: proofs at the draft's checkpoint and landmark cadences", case_3b, 0, 0},
    {"3c", "Size Estimates: the logarithmic bound and the signature comparison", case_3c, 1, 1},
    {"4a", "Write-up: Let's Encrypt at 6 million a day, a checkpoint every minute", case_4a, 1, 0},
    {"4b", "Write-up: a standalone certificate with ML-DSA-44 cosigners", case_4b, 1, 1},
    {"4c", "Write-up: a landmark-relative certificate, ECDSA leaf, two DNS names", case_4c, 1, 1},
    {"4d", "Measured: the chains today's web serves, against the default chain mix", case_4d, 1, 1},
    {"5", "Chrome's MTC field experiment, predicted", case_5, 0, 0},
    {"6a", "Internal consistency of every library scenario", case_6a, 1, 0},
    {"6b", "Conservation in a controlled world", case_6b, 1, 1},
    {"7", "The cost of an extra kilobyte in handshake latency", case_7, 1, 1},
};

const vcase *v_cases(size_t *n)
{
    *n = sizeof cases / sizeof cases[0];
    return cases;
}

static const char *const vname[] = {"PASS", "FAIL", "info"};

static vrow *new_row(vctx *c)
{
    if (c->nrows == c->cap) {
        size_t n = c->cap ? 2 * c->cap : 64;
        vrow *r = realloc(c->rows, n * sizeof *r);
        if (!r) {
            fprintf(stderr, "validate: out of memory\n");
            exit(1);
        }
        c->rows = r;
        c->cap = n;
    }
    vrow *r = &c->rows[c->nrows++];
    memset(r, 0, sizeof *r);
    snprintf(r->id, sizeof r->id, "%s", c->case_id);
    return r;
}

static void print_row(const vrow *r)
{
    char name[112], e[40], s[40], t[40];
    snprintf(name, sizeof name, "%s:%s", r->id, r->name);
    snprintf(e, sizeof e, isfinite(r->expected) ? "%.*f" : "-", r->prec, r->expected);
    snprintf(s, sizeof s, isfinite(r->sim) ? "%.*f" : "-", r->prec, r->sim);
    if (r->verdict == V_INFO)
        snprintf(t, sizeof t, "-");
    else
        snprintf(t, sizeof t, "%.*f", r->prec, r->tol);
    printf("%-58s %14s %14s %12s %s\n", name, e, s, t, vname[r->verdict]);
    fflush(stdout);
}

int v_row(vctx *c, const char *name, const char *unit, int prec, double expected,
          double exp_unc, double sim, double lo, double hi, int n, double tol)
{
    vrow *r = new_row(c);
    snprintf(r->name, sizeof r->name, "%s", name);
    snprintf(r->unit, sizeof r->unit, "%s", unit);
    r->prec = prec;
    r->expected = expected;
    r->exp_unc = exp_unc;
    r->sim = sim;
    r->lo = lo;
    r->hi = hi;
    r->n = n;
    /* compare at the printed precision: a tolerance of 0 means "equal to
     * the digits shown" */
    r->tol = tol;
    double slack = 0.5 * pow(10, -prec);
    r->verdict = isfinite(sim) && fabs(sim - expected) <= tol + slack ? V_PASS : V_FAIL;
    if (r->verdict == V_FAIL)
        c->failed = 1;
    print_row(r);
    return r->verdict;
}

void v_info(vctx *c, const char *name, const char *unit, int prec,
            double expected, double sim)
{
    vrow *r = new_row(c);
    snprintf(r->name, sizeof r->name, "%s", name);
    snprintf(r->unit, sizeof r->unit, "%s", unit);
    r->prec = prec;
    r->expected = expected;
    r->sim = r->lo = r->hi = sim;
    r->verdict = V_INFO;
    print_row(r);
}

void v_info_ci(vctx *c, const char *name, const char *unit, int prec,
               double expected, const vstat *st)
{
    vrow *r = new_row(c);
    snprintf(r->name, sizeof r->name, "%s", name);
    snprintf(r->unit, sizeof r->unit, "%s", unit);
    r->prec = prec;
    r->expected = expected;
    r->sim = st->mean;
    r->lo = st->lo95;
    r->hi = st->hi95;
    r->n = (int)st->n;
    r->verdict = V_INFO;
    print_row(r);
}

static int usage(void)
{
    fprintf(stderr,
            "usage: validate [--fast] [--case ID]... [--out DIR] [--docs FILE]\n"
            "                [--write-docs | --check-docs] [--wrong-model late-landmarks]\n"
            "                [--build DIR] [--list]\n"
            "Runs the validation cases of docs/validation.md (all, or the fast\n"
            "subset, or the named ones) and prints `case expected simulated\n"
            "tolerance PASS|FAIL` per row. Results go to DIR (default\n"
            "results/validation): validation.db, scenarios.db, report.md.\n");
    return 2;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(int argc, char **argv)
{
    vctx c;
    memset(&c, 0, sizeof c);
    c.outdir = "results/validation";
    c.san = getenv("SAN_BUILD") != NULL;
    const char *docs = "docs/validation.md";
    const char *only[64];
    size_t nonly = 0;
    int write_docs = 0, check_docs = 0;
    static char build[512];
    snprintf(build, sizeof build, "%s", argv[0]);
    c.build = dirname(build);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--fast")) {
            c.fast = 1;
        } else if (!strcmp(a, "--case") && i + 1 < argc && nonly < 64) {
            only[nonly++] = argv[++i];
        } else if (!strcmp(a, "--out") && i + 1 < argc) {
            c.outdir = argv[++i];
        } else if (!strcmp(a, "--docs") && i + 1 < argc) {
            docs = argv[++i];
        } else if (!strcmp(a, "--build") && i + 1 < argc) {
            c.build = argv[++i];
        } else if (!strcmp(a, "--write-docs")) {
            write_docs = 1;
        } else if (!strcmp(a, "--check-docs")) {
            check_docs = 1;
        } else if (!strcmp(a, "--wrong-model") && i + 1 < argc) {
            if (strcmp(argv[++i], "late-landmarks"))
                return usage();
            c.wrong = V_WRONG_LATE_LANDMARKS;
        } else if (!strcmp(a, "--list")) {
            for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++)
                printf("%-3s %s%s%s\n", cases[k].id, cases[k].title,
                       cases[k].fast ? " [fast]" : "", cases[k].san ? " [san]" : "");
            return 0;
        } else {
            return usage();
        }
    }
    /* a case's configuration never depends on the selection, so any
     * subset may rewrite its own tables; never from the wrong model */
    if (write_docs && (check_docs || c.wrong)) {
        fprintf(stderr, "validate: --write-docs: not with --check-docs or --wrong-model\n");
        return 2;
    }
    for (size_t j = 0; j < nonly; j++) {
        size_t k = 0;
        while (k < sizeof cases / sizeof cases[0] && strcmp(cases[k].id, only[j]))
            k++;
        if (k == sizeof cases / sizeof cases[0]) {
            fprintf(stderr, "validate: no case %s (--list)\n", only[j]);
            return 2;
        }
    }
    double t0 = now_s();
    if (v_db_open(&c))
        return 1;
    printf("%-58s %14s %14s %12s %s\n", "case", "expected", "simulated", "tolerance",
           "verdict");
    /* Case 6a runs library scenarios in a child process: start it first,
     * so that it uses the second core while the others run here. */
    size_t ncases = sizeof cases / sizeof cases[0];
    int want[64] = {0};
    for (size_t k = 0; k < ncases; k++) {
        int sel = nonly == 0;
        for (size_t j = 0; j < nonly; j++)
            sel |= !strcmp(cases[k].id, only[j]);
        if (nonly == 0 && c.fast && !cases[k].fast)
            sel = 0;
        if (nonly == 0 && c.san && !cases[k].san)
            sel = 0;
        want[k] = sel;
    }
    for (size_t k = 0; k < ncases; k++)
        if (want[k] && cases[k].run == case_6a)
            case_6a_start(&c);
    for (size_t k = 0; k < ncases; k++) {
        if (!want[k])
            continue;
        c.case_id = cases[k].id;
        double s = now_s();
        if (cases[k].run(&c) != 0) {
            fprintf(stderr, "validate: case %s could not run\n", cases[k].id);
            c.failed = 1;
        }
        fprintf(stderr, "# case %s: %.1f s\n", cases[k].id, now_s() - s);
    }
    v_db_close(&c);
    double wall = now_s() - t0;
    if (v_write_results(&c, wall))
        fprintf(stderr, "validate: could not write the report in %s\n", c.outdir);
    int docs_rc = 0;
    if (write_docs || check_docs)
        docs_rc = v_docs(&c, docs, write_docs);
    size_t pass = 0, fail = 0;
    for (size_t i = 0; i < c.nrows; i++) {
        pass += c.rows[i].verdict == V_PASS;
        fail += c.rows[i].verdict == V_FAIL;
    }
    printf("validation: %zu passed, %zu failed%s in %.0f s; results in %s\n", pass, fail,
           docs_rc ? ", docs out of date" : "", wall, c.outdir);
    free(c.rows);
    return c.failed || fail || docs_rc ? 1 : 0;
}
