/*
 * test_run_record.c - the run record (sim/run_record.h): the codec's
 * exact round trip (with the output inside and streamed after), the
 * canonical encoding, every truncation and every single-byte mutation of
 * an encoding refused or decoded into a record that re-encodes to the
 * mutated bytes (never a read outside them: run under ASan); the
 * byte reader's bounds (sim/bytes.h); and the recorder: the rows a
 * record becomes, a row never left 'running' when its parameters or its
 * metrics cannot be stored.
 */
#include "test.h"

#include <unistd.h>

#include <sqlite3.h>

#include "mtc/error.h"
#include "sim/bytes.h"
#include "sim/results.h"
#include "sim/run_record.h"
#include "lib/db_files.h"

/* A registry with a counter (series, two cohorts) and a histogram. */
static int small_metrics(sim_metrics **out, sim_engine **eng)
{
    sim_metric *c, *h;
    sim_metrics_config cfg = {0, 0, 10 * SIM_SEC, 0};
    const char *labels[] = {"chrome", "firefox"};
    int rc;
    if ((rc = sim_engine_create(eng, NULL)) ||
        (rc = sim_metrics_create(out, &cfg, sim_engine_clock(*eng))) ||
        (rc = sim_metrics_counter(*out, "hs", "things", 2, SIM_METRIC_SERIES, &c)) ||
        (rc = sim_metrics_histogram(*out, "lat", "s", 1, 0, 1e-3, 10, 10, &h)) ||
        (rc = sim_metric_set_cohort_labels(c, labels, 2)))
        return rc;
    for (int step = 0; step < 20; step++) {
        sim_engine_set_stop_time(*eng, step * 3 * SIM_SEC + 1);
        sim_engine_run(*eng);
        sim_counter_add(c, (size_t)(step % 2), step + 1);
        sim_hist_observe(h, 0, 0.01 * step + 0.002);
    }
    sim_metrics_finish(*out, 60 * SIM_SEC);
    return MTC_OK;
}

static const char OUTPUT[] = "hello from the scenario\nsecond line\n";

/* A record with every field set. */
static int full_record(sim_run_record *r, const sim_metrics *m)
{
    sim_run_record_init(r, 3, 2, 0xfeedfacecafebeefull);
    r->began = 1;
    r->stop = 86400 * SIM_SEC;
    int rc = sim_run_record_add_param(r, "scenario", "scenario", "scale", "0.02");
    rc = rc ? rc : sim_run_record_add_param(r, "ca", "le", "rate", "6e6/d");
    rc = rc ? rc : sim_run_record_add_param(r, "browsers", "b", "count", "");
    rc = rc ? rc : sim_run_record_add_swept(r, "scale");
    rc = rc ? rc : sim_run_record_add_attr(r, "sandbox", "on");
    rc = rc ? rc : sim_run_record_add_attr(r, "mpi_rank", "1");
    rc = rc ? rc : sim_run_record_add_attr(r, "action.0000", "t=5 outage w1");
    rc = rc ? rc : sim_run_record_set_reason(r, "stopped by SIGINT");
    r->status = SIM_RUN_INTERRUPTED;
    r->reached = 3600 * SIM_SEC + 7;
    r->events = 123456789;
    r->wall_s = 1.25;
    r->metrics = m;
    r->output = (const uint8_t *)OUTPUT;
    r->output_len = sizeof OUTPUT - 1;
    return rc;
}

/* The registry, its engine and a full record of it, for one case. */
typedef struct fixture {
    sim_engine *eng;
    sim_metrics *m;
    sim_run_record r;
} fixture;

static int fixture_make(fixture *f)
{
    memset(f, 0, sizeof *f);
    sim_run_record_init(&f->r, 0, 0, 0);
    int rc = small_metrics(&f->m, &f->eng);
    return rc ? rc : full_record(&f->r, f->m);
}

static void fixture_free(fixture *f)
{
    sim_run_record_free(&f->r);
    sim_metrics_destroy(f->m);
    sim_engine_destroy(f->eng);
}

static void same_record(test_ctx *tc_, const sim_run_record *a,
                        const sim_run_record *b)
{
    ASSERT_EQ_U64(a->point, b->point);
    ASSERT_EQ_U64(a->replication, b->replication);
    ASSERT_EQ_U64(a->seed, b->seed);
    ASSERT_EQ(a->began, b->began);
    ASSERT_EQ(a->stop, b->stop);
    ASSERT_EQ(a->nparams, b->nparams);
    for (size_t i = 0; i < a->nparams; i++) {
        ASSERT_STR_EQ(a->params[i].kind, b->params[i].kind);
        ASSERT_STR_EQ(a->params[i].entity, b->params[i].entity);
        ASSERT_STR_EQ(a->params[i].name, b->params[i].name);
        ASSERT_STR_EQ(a->params[i].value, b->params[i].value);
    }
    ASSERT_EQ(a->nswept, b->nswept);
    for (size_t i = 0; i < a->nswept; i++)
        ASSERT_STR_EQ(a->swept[i], b->swept[i]);
    ASSERT_EQ(a->nattrs, b->nattrs);
    for (size_t i = 0; i < a->nattrs; i++) {
        ASSERT_STR_EQ(a->attrs[i].name, b->attrs[i].name);
        ASSERT_STR_EQ(a->attrs[i].value, b->attrs[i].value);
    }
    ASSERT_EQ(a->status, b->status);
    ASSERT_EQ(a->reached, b->reached);
    ASSERT_EQ_U64(a->events, b->events);
    ASSERT_TRUE(a->wall_s == b->wall_s);
    ASSERT_EQ(a->reason == NULL, b->reason == NULL);
    if (a->reason)
        ASSERT_STR_EQ(a->reason, b->reason);
    ASSERT_EQ(a->metrics == NULL, b->metrics == NULL);
    if (a->metrics) {
        uint8_t *ea, *eb;
        size_t la, lb;
        ASSERT_OK(sim_metrics_encode(a->metrics, &ea, &la));
        ASSERT_OK(sim_metrics_encode(b->metrics, &eb, &lb));
        int same = la == lb && !memcmp(ea, eb, la);
        free(ea);
        free(eb);
        ASSERT_TRUE(same);
    }
    ASSERT_EQ_U64(a->output_len, b->output_len);
}

TEST(round_trip_with_and_without_output)
{
    fixture f;
    sim_run_record d;
    ASSERT_OK(fixture_make(&f));
    uint8_t *buf, *head;
    size_t len, hlen;
    ASSERT_OK(sim_run_record_encode(&f.r, 1, &buf, &len));
    ASSERT_OK(sim_run_record_encode(&f.r, 0, &head, &hlen));
    /* the streamed form is the whole one without the output's bytes */
    ASSERT_EQ(hlen + f.r.output_len, len);
    ASSERT_MEM_EQ(head, buf, hlen);
    uint64_t body;
    ASSERT_OK(sim_run_record_body_len(buf, &body));
    ASSERT_EQ_U64(body, hlen - SIM_RUN_RECORD_HEAD);
    ASSERT_OK(sim_run_record_decode(&d, buf, len, 1));
    same_record(tc_, &f.r, &d);
    if (tc_->failed)
        return;
    ASSERT_TRUE(d.output == buf + hlen);
    /* the fixed fields alone, from the first bytes */
    sim_run_record pk;
    ASSERT_OK(sim_run_record_peek(buf, SIM_RUN_RECORD_PEEK, &pk));
    ASSERT_EQ_U64(pk.point, 3);
    ASSERT_EQ_U64(pk.replication, 2);
    ASSERT_EQ(pk.status, SIM_RUN_INTERRUPTED);
    ASSERT_EQ_U64(pk.events, 123456789);
    ASSERT_TRUE(pk.wall_s == 1.25 && pk.nparams == 0 && pk.reason == NULL);
    ASSERT_EQ(sim_run_record_peek(buf, SIM_RUN_RECORD_PEEK - 1, &pk), MTC_ERR_PARSE);
    ASSERT_MEM_EQ(d.output, OUTPUT, sizeof OUTPUT - 1);
    sim_run_record_free(&d);
    ASSERT_OK(sim_run_record_decode(&d, head, hlen, 0));
    same_record(tc_, &f.r, &d);
    ASSERT_TRUE(d.output == NULL);
    sim_run_record_free(&d);
    /* each form refuses the other's bytes */
    ASSERT_EQ(sim_run_record_decode(&d, head, hlen, 1), MTC_ERR_PARSE);
    ASSERT_EQ(sim_run_record_decode(&d, buf, len, 0), MTC_ERR_PARSE);
    /* a record without reason, metrics or output, not begun */
    sim_run_record e;
    sim_run_record_init(&e, 0, 0, 7);
    e.status = SIM_RUN_FAILED;
    uint8_t *eb;
    size_t el;
    ASSERT_OK(sim_run_record_encode(&e, 1, &eb, &el));
    ASSERT_OK(sim_run_record_decode(&d, eb, el, 1));
    same_record(tc_, &e, &d);
    ASSERT_TRUE(d.reason == NULL && d.metrics == NULL && d.output == NULL);
    sim_run_record_free(&d);
    /* an empty reason is not no reason (the database tells them apart) */
    ASSERT_OK(sim_run_record_set_reason(&e, ""));
    free(eb);
    ASSERT_OK(sim_run_record_encode(&e, 1, &eb, &el));
    ASSERT_OK(sim_run_record_decode(&d, eb, el, 1));
    ASSERT_TRUE(d.reason && d.reason[0] == '\0');
    sim_run_record_free(&d);
    sim_run_record_free(&e);
    free(eb);
    free(buf);
    free(head);
    fixture_free(&f);
}

TEST(encode_refuses_what_no_decoder_would_take)
{
    sim_run_record r;
    uint8_t *buf;
    size_t len;
    sim_run_record_init(&r, 0, 0, 0);
    r.status = 9;
    ASSERT_EQ(sim_run_record_encode(&r, 1, &buf, &len), MTC_ERR_ARG);
    r.status = SIM_RUN_COMPLETED;
    r.began = 2;
    ASSERT_EQ(sim_run_record_encode(&r, 1, &buf, &len), MTC_ERR_ARG);
    r.began = 1;
    r.output_len = 5;   /* output declared, none given */
    ASSERT_EQ(sim_run_record_encode(&r, 1, &buf, &len), MTC_ERR_ARG);
    ASSERT_OK(sim_run_record_encode(&r, 0, &buf, &len));
    free(buf);
}

/* Decodes p[0..n); when accepted, the record must re-encode to p. */
static int decode_check(const uint8_t *p, size_t n)
{
    sim_run_record d;
    int rc = sim_run_record_decode(&d, p, n, 1);
    if (rc != MTC_OK)
        return rc == MTC_ERR_PARSE ? 0 : -1;
    uint8_t *re;
    size_t rl;
    int bad = sim_run_record_encode(&d, 1, &re, &rl) != MTC_OK || rl != n ||
              memcmp(re, p, n) != 0;
    free(re);
    sim_run_record_free(&d);
    return bad ? -1 : 1;
}

TEST(truncations_and_mutations_refused_or_canonical)
{
    fixture f;
    ASSERT_OK(fixture_make(&f));
    uint8_t *buf;
    size_t len;
    ASSERT_OK(sim_run_record_encode(&f.r, 1, &buf, &len));
    ASSERT_EQ(decode_check(buf, len), 1);
    /* every proper prefix, in a buffer of exactly its size (ASan sees a
     * read past it), and one byte more than the record */
    for (size_t k = 0; k < len; k++) {
        uint8_t *p = malloc(k ? k : 1);
        memcpy(p, buf, k);
        int got = decode_check(p, k);
        free(p);
        ASSERT_EQ(got, 0);
    }
    uint8_t *longer = malloc(len + 1);
    memcpy(longer, buf, len);
    longer[len] = 0;
    ASSERT_EQ(decode_check(longer, len + 1), 0);
    free(longer);
    /* a byte more inside the body, its length saying so: refused (the
     * body must end where its fields do) */
    uint8_t *hb;
    size_t hl;
    ASSERT_OK(sim_run_record_encode(&f.r, 0, &hb, &hl));
    uint8_t *ins = malloc(len + 1);
    memcpy(ins, buf, hl);
    ins[hl] = 0;
    memcpy(ins + hl + 1, buf + hl, len - hl);
    uint64_t body;
    ASSERT_OK(sim_run_record_body_len(buf, &body));
    body++;
    for (int i = 0; i < 8; i++)
        ins[8 + i] = (uint8_t)(body >> (8 * i));
    ASSERT_EQ(decode_check(ins, len + 1), 0);
    free(ins);
    free(hb);
    /* every byte, three mutations each: accepted only if canonical */
    size_t accepted = 0;
    uint8_t *p = malloc(len);
    for (size_t i = 0; i < len; i++)
        for (int v = 0; v < 3; v++) {
            memcpy(p, buf, len);
            p[i] = v == 0 ? (uint8_t)(buf[i] ^ 0x01)
                   : v == 1 ? (uint8_t)(buf[i] ^ 0x80) : 0xff;
            if (p[i] == buf[i])
                continue;
            int got = decode_check(p, len);
            ASSERT_TRUE(got >= 0);
            accepted += got == 1;
        }
    free(p);
    /* some mutations keep a valid record (a string's byte, a counter's
     * value), most structural ones do not: both must have happened */
    ASSERT_TRUE(accepted > 0);
    ASSERT_TRUE(accepted < 3 * len);
    free(buf);
    fixture_free(&f);
}

TEST(byte_reader_stays_inside)
{
    sim_bytebuf b = {NULL, 0, 0, 0};
    sim_bytebuf_put_u64(&b, 0x0102030405060708ull);
    sim_bytebuf_put_str(&b, "ab");
    sim_bytebuf_put_bytes(&b, "xyz", 3);
    sim_bytebuf_put_f64(&b, -2.5);
    ASSERT_FALSE(b.failed);
    ASSERT_EQ(b.b[0], 0x08);     /* little-endian on any machine */
    sim_bytereader rd = {b.b, b.n, 0, 0};
    ASSERT_EQ_U64(sim_bytereader_u64(&rd), 0x0102030405060708ull);
    ASSERT_STR_EQ(sim_bytereader_str(&rd), "ab");
    size_t n;
    const uint8_t *x = sim_bytereader_bytes(&rd, &n);
    ASSERT_EQ(n, 3);
    ASSERT_MEM_EQ(x, "xyz", 3);
    ASSERT_TRUE(sim_bytereader_f64(&rd) == -2.5);
    ASSERT_FALSE(rd.bad);
    ASSERT_EQ(sim_bytereader_left(&rd), 0);
    /* past the end: zeros and "", and bad stays set */
    ASSERT_EQ(sim_bytereader_u8(&rd), 0);
    ASSERT_TRUE(rd.bad);
    ASSERT_STR_EQ(sim_bytereader_str(&rd), "");
    /* a string with a NUL inside, or none at its end */
    sim_bytebuf c = {NULL, 0, 0, 0};
    sim_bytebuf_put_bytes(&c, "a\0b\0", 4);
    sim_bytebuf_put_bytes(&c, "ab", 2);
    sim_bytereader r2 = {c.b, c.n, 0, 0};
    ASSERT_STR_EQ(sim_bytereader_str(&r2), "");
    ASSERT_TRUE(r2.bad);
    sim_bytereader r3 = {c.b + 12, c.n - 12, 0, 0};
    ASSERT_STR_EQ(sim_bytereader_str(&r3), "");
    ASSERT_TRUE(r3.bad);
    /* a length beyond the bytes */
    sim_bytereader r4 = {c.b, 10, 0, 0};
    (void)sim_bytereader_bytes(&r4, &n);
    ASSERT_TRUE(r4.bad && n == 0);
    free(b.b);
    free(c.b);
}

/* ---- the recorder ---- */

static char dbpath[256];

static sim_results *fresh_db(void)
{
    const char *base = getenv("TMPDIR");
    snprintf(dbpath, sizeof dbpath, "%s/mtc_runrec_XXXXXX",
             base && *base ? base : "/tmp");
    int fd = mkstemp(dbpath);
    if (fd < 0)
        return NULL;
    close(fd);
    sim_results *db = NULL;
    char err[256];
    return sim_results_open(dbpath, SIM_RESULTS_CREATE, &db, err, sizeof err)
               ? NULL : db;
}

static void drop_db(sim_results *db)
{
    sim_results_close(db);
    test_db_remove(dbpath);
}

static long long q_int(sqlite3 *s, const char *sql)
{
    sqlite3_stmt *st = NULL;
    long long v = -1;
    if (sqlite3_prepare_v2(s, sql, -1, &st, NULL) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW)
        v = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return v;
}

static int q_text(sqlite3 *s, const char *sql, char *out, size_t n)
{
    sqlite3_stmt *st = NULL;
    int ok = sqlite3_prepare_v2(s, sql, -1, &st, NULL) == SQLITE_OK &&
             sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0);
    if (ok)
        snprintf(out, n, "%s", (const char *)sqlite3_column_text(st, 0));
    sqlite3_finalize(st);
    return ok;
}

TEST(recorder_writes_the_record)
{
    fixture f;
    ASSERT_OK(fixture_make(&f));
    sim_results *db = fresh_db();
    ASSERT_TRUE(db != NULL);
    sim_experiment_info ei = {"t", "mtcsim run t.lua", 4, 3};
    int64_t exp, run;
    char why[600];
    ASSERT_OK(sim_results_experiment_begin(db, &ei, &exp));
    sim_run_origin o = {exp, NULL, NULL, "test"};
    ASSERT_OK(sim_run_record_begin(db, &o, &f.r, &run, why, sizeof why));
    sqlite3 *s = sim_results_sqlite(db);
    char txt[256];
    ASSERT_TRUE(q_text(s, "SELECT status FROM run", txt, sizeof txt));
    ASSERT_STR_EQ(txt, "running");
    ASSERT_OK(sim_run_record_end(db, run, &f.r, why, sizeof why));
    ASSERT_EQ(q_int(s, "SELECT sweep_point * 10 + replication FROM run"), 32);
    ASSERT_EQ(q_int(s, "SELECT seed FROM run"), (long long)0xfeedfacecafebeefull);
    ASSERT_EQ(q_int(s, "SELECT sim_stop FROM run"), 86400 * SIM_SEC);
    ASSERT_EQ(q_int(s, "SELECT sim_reached FROM run"), 3600 * SIM_SEC + 7);
    ASSERT_EQ(q_int(s, "SELECT events FROM run"), 123456789);
    ASSERT_TRUE(q_text(s, "SELECT status || ':' || error FROM run", txt, sizeof txt));
    ASSERT_STR_EQ(txt, "interrupted:stopped by SIGINT");
    ASSERT_EQ(q_int(s, "SELECT count(*) FROM param"), 3);
    ASSERT_TRUE(q_text(s, "SELECT name FROM param WHERE swept = 1", txt, sizeof txt));
    ASSERT_STR_EQ(txt, "scale");
    ASSERT_TRUE(q_text(s, "SELECT value FROM run_attr WHERE name = 'mpi_rank'", txt, sizeof txt));
    ASSERT_STR_EQ(txt, "1");
    ASSERT_EQ(q_int(s, "SELECT count(*) FROM run_attr"), 3);
    ASSERT_EQ(q_int(s, "SELECT count(*) FROM metric"), (long long)sim_metrics_count(f.m));
    /* a completed run stores no reason, even if the record has one */
    sim_run_record c;
    sim_run_record_init(&c, 0, 1, 5);
    c.began = 1;
    ASSERT_OK(sim_run_record_set_reason(&c, "ignored"));
    int64_t run2;
    ASSERT_OK(sim_run_record_begin(db, &o, &c, &run2, why, sizeof why));
    c.status = SIM_RUN_COMPLETED;
    ASSERT_OK(sim_run_record_end(db, run2, &c, why, sizeof why));
    ASSERT_EQ(q_int(s, "SELECT count(*) FROM run WHERE status = 'completed' "
                       "AND error IS NULL"), 1);
    /* a record that never began has no row to write */
    sim_run_record n;
    sim_run_record_init(&n, 0, 0, 0);
    ASSERT_EQ(sim_run_record_begin(db, &o, &n, &run2, why, sizeof why), MTC_ERR_ARG);
    ASSERT_EQ(run2, 0);
    sim_run_record_free(&c);
    drop_db(db);
    fixture_free(&f);
}

TEST(recorder_never_leaves_a_row_running)
{
    fixture f;
    ASSERT_OK(fixture_make(&f));
    f.r.status = SIM_RUN_COMPLETED;
    sim_results *db = fresh_db();
    ASSERT_TRUE(db != NULL);
    sqlite3 *s = sim_results_sqlite(db);
    sim_experiment_info ei = {"t", NULL, 4, 3};
    int64_t exp, run;
    char why[600];
    ASSERT_OK(sim_results_experiment_begin(db, &ei, &exp));
    sim_run_origin o = {exp, NULL, NULL, "test"};
    /* parameters past the text cap: the row ends failed with the reason */
    sim_results_set_caps(db, 20, 0);
    ASSERT_TRUE(sim_run_record_begin(db, &o, &f.r, &run, why, sizeof why) != MTC_OK);
    ASSERT_TRUE(run != 0);
    ASSERT_TRUE(why[0] != '\0');
    ASSERT_EQ(q_int(s, "SELECT count(*) FROM run WHERE status = 'failed' AND "
                       "error IS NOT NULL"), 1);
    /* metrics past the series cap: the row ends failed, saying so */
    sim_results_set_caps(db, 0, 3);
    ASSERT_OK(sim_run_record_begin(db, &o, &f.r, &run, why, sizeof why));
    ASSERT_TRUE(sim_run_record_end(db, run, &f.r, why, sizeof why) != MTC_OK);
    ASSERT_TRUE(strstr(why, "storing the run's metrics failed: ") == why);
    char txt[600];
    ASSERT_TRUE(q_text(s, "SELECT status || ':' || error FROM run ORDER BY run_id DESC",
                       txt, sizeof txt));
    ASSERT_TRUE(strstr(txt, "failed:storing the run's metrics failed: ") == txt);
    ASSERT_EQ(q_int(s, "SELECT count(*) FROM run WHERE status = 'running'"), 0);
    drop_db(db);
    fixture_free(&f);
}

static const test_case tests[] = {
    {"round_trip_with_and_without_output", round_trip_with_and_without_output},
    {"encode_refuses_what_no_decoder_would_take", encode_refuses_what_no_decoder_would_take},
    {"truncations_and_mutations_refused_or_canonical", truncations_and_mutations_refused_or_canonical},
    {"byte_reader_stays_inside", byte_reader_stays_inside},
    {"recorder_writes_the_record", recorder_writes_the_record},
    {"recorder_never_leaves_a_row_running", recorder_never_leaves_a_row_running},
};

TEST_MAIN(tests)
