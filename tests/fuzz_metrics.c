/*
 * fuzz_metrics.c - libFuzzer target: sim_metrics_decode, the parser of
 * metric encodings that MPI ranks exchange. Properties: no crash or
 * sanitizer report on any input; an accepted input re-encodes to exactly
 * the same bytes (the encoding is canonical); a decoded registry merges
 * into itself and reads back without faults.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mtc/error.h"
#include "sim/metrics.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    sim_metrics *m = NULL;
    int rc = sim_metrics_decode(&m, data, size);
    if (rc != MTC_OK) {
        if (m || (rc != MTC_ERR_PARSE && rc != MTC_ERR_NOMEM))
            abort();
        return 0;
    }
    uint8_t *buf;
    size_t len;
    if (sim_metrics_encode(m, &buf, &len) != MTC_OK)
        abort();
    if (len != size || memcmp(buf, data, size) != 0)
        abort();
    free(buf);
    /* read everything back */
    for (size_t i = 0; i < sim_metrics_count(m); i++) {
        const sim_metric *mt = sim_metrics_at(m, i);
        for (size_t c = 0; c <= sim_metric_cohorts(mt); c++) {
            size_t cell = c == sim_metric_cohorts(mt) ? SIM_ALL_COHORTS : c;
            (void)sim_metric_cohort_label(mt, cell);
            switch (sim_metric_kind(mt)) {
            case SIM_METRIC_COUNTER: (void)sim_counter_value(mt, cell); break;
            case SIM_METRIC_GAUGE: (void)sim_gauge_value(mt, cell); break;
            default:
                (void)sim_hist_quantile(mt, cell, 0.5);
                (void)sim_hist_mean(mt, cell);
            }
            for (size_t k = 0; k < sim_metric_series_len(mt); k++)
                (void)sim_metric_series_value(mt, cell, k);
        }
    }
    /* merging a registry with a copy of itself is always possible unless
     * a REPLICATED metric ... which is equal to itself: must succeed */
    sim_metrics *copy = NULL;
    if (sim_metrics_decode(&copy, data, size) != MTC_OK)
        abort();
    rc = sim_metrics_merge(m, copy);
    if (rc != MTC_OK && rc != MTC_ERR_NOMEM)
        abort();
    sim_metrics_destroy(copy);
    sim_metrics_destroy(m);
    return 0;
}
