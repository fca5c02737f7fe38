/*
 * run_record.c - the run record and its codec (contract in
 * sim/run_record.h). The decoder parses bytes another process sent:
 * every read is bounded by the bytes left, a list ends at its first entry
 * that is not there (a count allocates nothing by itself), and only an
 * exact, canonical encoding is accepted (fuzzed by tests/fuzz_run_record.c).
 */
#include "sim/run_record.h"

#include <stdlib.h>
#include <string.h>

#include "mtc/error.h"
#include "sim/bytes.h"

/* "SIMRREC1", little-endian */
#define REC_MAGIC 0x31434552524d4953ull

void sim_run_record_init(sim_run_record *r, uint64_t point,
                         uint64_t replication, uint64_t seed)
{
    memset(r, 0, sizeof *r);
    r->point = point;
    r->replication = replication;
    r->seed = seed;
    r->status = SIM_RUN_RUNNING;
}

void sim_run_record_free(sim_run_record *r)
{
    if (!r)
        return;
    for (size_t i = 0; i < r->nparams; i++) {
        free(r->params[i].kind);
        free(r->params[i].entity);
        free(r->params[i].name);
        free(r->params[i].value);
    }
    for (size_t i = 0; i < r->nswept; i++)
        free(r->swept[i]);
    for (size_t i = 0; i < r->nattrs; i++) {
        free(r->attrs[i].name);
        free(r->attrs[i].value);
    }
    free(r->params);
    free(r->swept);
    free(r->attrs);
    free(r->reason);
    sim_metrics_destroy(r->owned_metrics);
    sim_run_record_init(r, 0, 0, 0);
}

/* Room for one more of *n elements of size sz in *v (capacity *cap). */
static int grow(void **v, size_t *cap, size_t n, size_t sz)
{
    if (n < *cap)
        return MTC_OK;
    size_t c = *cap ? 2 * *cap : 16;
    void *p = realloc(*v, c * sz);
    if (!p)
        return MTC_ERR_NOMEM;
    *v = p;
    *cap = c;
    return MTC_OK;
}

/* Copies of the k strings of in into out; all or none. */
static int dup_all(char **out, const char *const *in, size_t k)
{
    for (size_t i = 0; i < k; i++)
        if (!(out[i] = strdup(in[i] ? in[i] : ""))) {
            while (i--)
                free(out[i]);
            return MTC_ERR_NOMEM;
        }
    return MTC_OK;
}

int sim_run_record_add_param(sim_run_record *r, const char *kind,
                             const char *entity, const char *name,
                             const char *value)
{
    const char *in[4] = {kind, entity, name, value};
    char *out[4];
    if (grow((void **)&r->params, &r->cap_params, r->nparams, sizeof *r->params) ||
        dup_all(out, in, 4))
        return MTC_ERR_NOMEM;
    r->params[r->nparams++] = (sim_run_param){out[0], out[1], out[2], out[3]};
    return MTC_OK;
}

int sim_run_record_add_swept(sim_run_record *r, const char *name)
{
    char *out[1];
    if (grow((void **)&r->swept, &r->cap_swept, r->nswept, sizeof *r->swept) ||
        dup_all(out, &name, 1))
        return MTC_ERR_NOMEM;
    r->swept[r->nswept++] = out[0];
    return MTC_OK;
}

int sim_run_record_add_attr(sim_run_record *r, const char *name,
                            const char *value)
{
    const char *in[2] = {name, value};
    char *out[2];
    if (grow((void **)&r->attrs, &r->cap_attrs, r->nattrs, sizeof *r->attrs) ||
        dup_all(out, in, 2))
        return MTC_ERR_NOMEM;
    r->attrs[r->nattrs++] = (sim_run_attr){out[0], out[1]};
    return MTC_OK;
}

int sim_run_record_set_reason(sim_run_record *r, const char *why)
{
    char *s = why ? strdup(why) : NULL;
    if (why && !s)
        return MTC_ERR_NOMEM;
    free(r->reason);
    r->reason = s;
    return MTC_OK;
}

/* ---- encoding ---- */

/* The fixed-size fields first (sim_run_record_peek reads them alone),
 * then the lists, the reason, the metrics and the output's length. */
static void put_body(sim_bytebuf *b, const sim_run_record *r,
                     const uint8_t *menc, size_t mlen)
{
    sim_bytebuf_put_u64(b, r->point);
    sim_bytebuf_put_u64(b, r->replication);
    sim_bytebuf_put_u64(b, r->seed);
    sim_bytebuf_put_u8(b, (uint8_t)r->began);
    sim_bytebuf_put_u64(b, (uint64_t)r->stop);
    sim_bytebuf_put_u8(b, (uint8_t)r->status);
    sim_bytebuf_put_u64(b, (uint64_t)r->reached);
    sim_bytebuf_put_u64(b, r->events);
    sim_bytebuf_put_f64(b, r->wall_s);
    sim_bytebuf_put_u64(b, r->nparams);
    for (size_t i = 0; i < r->nparams; i++) {
        sim_bytebuf_put_str(b, r->params[i].kind);
        sim_bytebuf_put_str(b, r->params[i].entity);
        sim_bytebuf_put_str(b, r->params[i].name);
        sim_bytebuf_put_str(b, r->params[i].value);
    }
    sim_bytebuf_put_u64(b, r->nswept);
    for (size_t i = 0; i < r->nswept; i++)
        sim_bytebuf_put_str(b, r->swept[i]);
    sim_bytebuf_put_u64(b, r->nattrs);
    for (size_t i = 0; i < r->nattrs; i++) {
        sim_bytebuf_put_str(b, r->attrs[i].name);
        sim_bytebuf_put_str(b, r->attrs[i].value);
    }
    sim_bytebuf_put_u8(b, r->reason != NULL);
    if (r->reason)
        sim_bytebuf_put_str(b, r->reason);
    sim_bytebuf_put_bytes(b, menc, mlen);
    sim_bytebuf_put_u64(b, r->output_len);
}

int sim_run_record_encode(const sim_run_record *r, int with_output,
                          uint8_t **buf, size_t *len)
{
    *buf = NULL;
    *len = 0;
    if (r->began != 0 && r->began != 1)
        return MTC_ERR_ARG;
    if (r->status < SIM_RUN_RUNNING || r->status > SIM_RUN_FAILED)
        return MTC_ERR_ARG;
    if (with_output && r->output_len && !r->output)
        return MTC_ERR_ARG;
    uint8_t *menc = NULL;
    size_t mlen = 0;
    if (r->metrics) {
        int rc = sim_metrics_encode(r->metrics, &menc, &mlen);
        if (rc != SIM_OK)
            return rc;
    }
    sim_bytebuf b = {NULL, 0, 0, 0};
    sim_bytebuf_put_u64(&b, REC_MAGIC);
    sim_bytebuf_put_u64(&b, 0);     /* the body's length, filled below */
    put_body(&b, r, menc, mlen);
    free(menc);
    if (with_output)
        sim_bytebuf_put(&b, r->output, (size_t)r->output_len);
    if (b.failed) {
        free(b.b);
        return MTC_ERR_NOMEM;
    }
    uint64_t body = (with_output ? b.n - r->output_len : b.n) - SIM_RUN_RECORD_HEAD;
    for (int i = 0; i < 8; i++)
        b.b[8 + i] = (uint8_t)(body >> (8 * i));
    *buf = b.b;
    *len = b.n;
    return MTC_OK;
}

/* ---- decoding ---- */

int sim_run_record_body_len(const uint8_t *head, uint64_t *body_len)
{
    sim_bytereader rd = {head, SIM_RUN_RECORD_HEAD, 0, 0};
    uint64_t magic = sim_bytereader_u64(&rd);
    *body_len = sim_bytereader_u64(&rd);
    return magic == REC_MAGIC ? MTC_OK : MTC_ERR_PARSE;
}

/* The fixed-size fields of the body. */
static void get_fixed(sim_bytereader *rd, sim_run_record *r)
{
    r->point = sim_bytereader_u64(rd);
    r->replication = sim_bytereader_u64(rd);
    r->seed = sim_bytereader_u64(rd);
    r->began = sim_bytereader_u8(rd);
    r->stop = (sim_time)sim_bytereader_u64(rd);
    r->status = sim_bytereader_u8(rd);
    r->reached = (sim_time)sim_bytereader_u64(rd);
    r->events = sim_bytereader_u64(rd);
    r->wall_s = sim_bytereader_f64(rd);
}

int sim_run_record_peek(const uint8_t *p, size_t n, sim_run_record *r)
{
    sim_run_record_init(r, 0, 0, 0);
    uint64_t body;
    if (n < SIM_RUN_RECORD_PEEK || sim_run_record_body_len(p, &body) != MTC_OK ||
        body < SIM_RUN_RECORD_PEEK - SIM_RUN_RECORD_HEAD)
        return MTC_ERR_PARSE;
    sim_bytereader rd = {p + SIM_RUN_RECORD_HEAD, n - SIM_RUN_RECORD_HEAD, 0, 0};
    get_fixed(&rd, r);
    if (rd.bad || r->began > 1 || r->status > SIM_RUN_FAILED) {
        sim_run_record_init(r, 0, 0, 0);
        return MTC_ERR_PARSE;
    }
    return MTC_OK;
}

/* The body's fields into r; the metrics' encoding into *menc, *mlen. */
static int get_body(sim_bytereader *rd, sim_run_record *r,
                    const uint8_t **menc, size_t *mlen)
{
    int rc = MTC_OK;
    get_fixed(rd, r);
    uint64_t n = sim_bytereader_u64(rd);
    for (uint64_t i = 0; i < n && rc == MTC_OK && !rd->bad; i++) {
        const char *k = sim_bytereader_str(rd), *e = sim_bytereader_str(rd);
        const char *nm = sim_bytereader_str(rd), *v = sim_bytereader_str(rd);
        if (!rd->bad)
            rc = sim_run_record_add_param(r, k, e, nm, v);
    }
    n = sim_bytereader_u64(rd);
    for (uint64_t i = 0; i < n && rc == MTC_OK && !rd->bad; i++) {
        const char *s = sim_bytereader_str(rd);
        if (!rd->bad)
            rc = sim_run_record_add_swept(r, s);
    }
    n = sim_bytereader_u64(rd);
    for (uint64_t i = 0; i < n && rc == MTC_OK && !rd->bad; i++) {
        const char *k = sim_bytereader_str(rd), *v = sim_bytereader_str(rd);
        if (!rd->bad)
            rc = sim_run_record_add_attr(r, k, v);
    }
    uint8_t has_reason = sim_bytereader_u8(rd);
    if (has_reason == 1) {
        const char *why = sim_bytereader_str(rd);
        if (!rd->bad && rc == MTC_OK)
            rc = sim_run_record_set_reason(r, why);
    } else if (has_reason != 0) {
        rd->bad = 1;
    }
    *menc = sim_bytereader_bytes(rd, mlen);
    r->output_len = sim_bytereader_u64(rd);
    if (rc != MTC_OK)
        return rc;
    if (rd->bad || r->began > 1 || r->status > SIM_RUN_FAILED)
        return MTC_ERR_PARSE;
    return MTC_OK;
}

int sim_run_record_decode(sim_run_record *r, const uint8_t *p, size_t n,
                          int with_output)
{
    sim_run_record_init(r, 0, 0, 0);
    uint64_t body;
    if (n < SIM_RUN_RECORD_HEAD || sim_run_record_body_len(p, &body) != MTC_OK ||
        body > n - SIM_RUN_RECORD_HEAD)
        return MTC_ERR_PARSE;
    sim_bytereader rd = {p + SIM_RUN_RECORD_HEAD, (size_t)body, 0, 0};
    const uint8_t *menc = NULL;
    size_t mlen = 0;
    int rc = get_body(&rd, r, &menc, &mlen);
    size_t rest = n - SIM_RUN_RECORD_HEAD - (size_t)body;
    if (rc == MTC_OK && (sim_bytereader_left(&rd) != 0 ||
                         (with_output ? rest != r->output_len : rest != 0)))
        rc = MTC_ERR_PARSE;
    if (rc == MTC_OK && mlen) {
        rc = sim_metrics_decode(&r->owned_metrics, menc, mlen);
        if (rc != MTC_OK && rc != MTC_ERR_NOMEM)
            rc = MTC_ERR_PARSE;
        r->metrics = r->owned_metrics;
    }
    if (rc != MTC_OK) {
        sim_run_record_free(r);
        return rc;
    }
    if (with_output && r->output_len)
        r->output = p + SIM_RUN_RECORD_HEAD + body;
    return MTC_OK;
}
