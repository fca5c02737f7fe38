/*
 * fuzz_run_record.c - libFuzzer target: sim_run_record_decode, the parser
 * of the run records that -j workers and MPI ranks send the process that
 * records them. Properties: no crash or sanitizer report on any input;
 * a refusal is MTC_ERR_PARSE or MTC_ERR_NOMEM and leaves nothing
 * allocated; an accepted input re-encodes to exactly the same bytes (the
 * encoding is canonical), whole and in the streamed form (the body, the
 * output after it) alike; its fixed fields read alone (the peek)
 * agree with the whole decode.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mtc/error.h"
#include "sim/run_record.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    sim_run_record r;
    int rc = sim_run_record_decode(&r, data, size, 1);
    if (rc != MTC_OK) {
        if (r.params || r.attrs || r.swept || r.reason || r.owned_metrics ||
            (rc != MTC_ERR_PARSE && rc != MTC_ERR_NOMEM))
            abort();
        return 0;
    }
    uint8_t *buf, *head;
    size_t len, hlen;
    if (sim_run_record_encode(&r, 1, &buf, &len) != MTC_OK ||
        len != size || memcmp(buf, data, size) != 0)
        abort();
    if (sim_run_record_encode(&r, 0, &head, &hlen) != MTC_OK ||
        hlen + r.output_len != size || memcmp(head, data, hlen) != 0)
        abort();
    /* the streamed form decodes alone to the same record */
    sim_run_record s;
    if (sim_run_record_decode(&s, head, hlen, 0) != MTC_OK ||
        s.output_len != r.output_len || s.nparams != r.nparams ||
        s.nattrs != r.nattrs || s.status != r.status)
        abort();
    for (size_t i = 0; i < r.nparams; i++)
        if (strcmp(r.params[i].value, s.params[i].value))
            abort();
    sim_run_record_free(&s);
    /* the fixed fields read alone agree */
    sim_run_record pk;
    if (sim_run_record_peek(data, size, &pk) != MTC_OK || pk.point != r.point ||
        pk.replication != r.replication || pk.status != r.status ||
        pk.events != r.events || pk.began != r.began)
        abort();
    free(head);
    free(buf);
    sim_run_record_free(&r);
    return 0;
}
