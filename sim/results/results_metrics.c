/*
 * results_metrics.c - storing a run's metrics registry (scalars, series,
 * histograms and their bins) in one transaction. Kept apart because it is
 * the one large write, up to millions of rows per run.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include <sqlite3.h>

#include "mtc/error.h"
#include "sim/results.h"
#include "results_internal.h"

typedef struct store_ctx {
    sim_results *r;
    sqlite3_stmt *metric, *scalar, *vector, *vdata, *hist, *bin;
} store_ctx;

/* Cells to store for a metric: each cohort, plus the total ("all", index
 * -1) when there is a breakdown; with one cell that cell is the total. A
 * figure the scenario records per cohort (sim:record with a cohort) has
 * no total: its cells may be rates or shares, whose sum means nothing
 * (the scenario records a total under its own name). */
static size_t ncells(const sim_metric *mt)
{
    size_t c = sim_metric_cohorts(mt);
    if (c > 1 && (sim_metric_flags(mt) & SIM_METRIC_RECORD))
        return c;
    return c > 1 ? c + 1 : 1;
}

static void cell_of(const sim_metric *mt, size_t i, size_t *cohort,
                    int64_t *index, const char **label)
{
    size_t c = sim_metric_cohorts(mt);
    if (c == 1 || i == c) {
        *cohort = SIM_ALL_COHORTS;
        *index = -1;
        *label = "all";
    } else {
        *cohort = i;
        *index = (int64_t)i;
        *label = sim_metric_cohort_label(mt, i);
    }
}

static int store_series(store_ctx *s, const sim_metrics *m,
                        const sim_metric *mt, int64_t metric_id)
{
    sim_results *r = s->r;
    size_t len = sim_metric_series_len(mt);
    int rc;
    for (size_t i = 0; i < ncells(mt); i++) {
        size_t cohort;
        int64_t index;
        const char *label;
        cell_of(mt, i, &cohort, &index, &label);
        sqlite3_bind_int64(s->vector, 1, metric_id);
        sqlite3_bind_int64(s->vector, 2, index);
        bind_text(s->vector, 3, label);
        sqlite3_bind_int64(s->vector, 4, (int64_t)len);
        sqlite3_bind_int(s->vector, 5, sim_metric_series_truncated(mt));
        if ((rc = step_done(r, s->vector, "insert vector")))
            return rc;
        int64_t vid = sqlite3_last_insert_rowid(r->db);
        for (size_t k = 0; k < len; k++) {
            sqlite3_bind_int64(s->vdata, 1, vid);
            sqlite3_bind_int64(s->vdata, 2, (int64_t)k);
            sqlite3_bind_int64(s->vdata, 3, sim_metrics_grid_time(m, k));
            bind_real(s->vdata, 4, sim_metric_series_value(mt, cohort, k));
            if ((rc = step_done(r, s->vdata, "insert vector_data")))
                return rc;
        }
    }
    return MTC_OK;
}

static int store_hist(store_ctx *s, const sim_metric *mt, int64_t metric_id)
{
    sim_results *r = s->r;
    size_t nb = sim_hist_nbins(mt);
    int rc;
    for (size_t i = 0; i < ncells(mt); i++) {
        size_t cohort;
        int64_t index;
        const char *label;
        cell_of(mt, i, &cohort, &index, &label);
        sqlite3_stmt *h = s->hist;
        sqlite3_bind_int64(h, 1, metric_id);
        sqlite3_bind_int64(h, 2, index);
        bind_text(h, 3, label);
        sqlite3_bind_int64(h, 4, (int64_t)sim_hist_count(mt, cohort));
        bind_real(h, 5, sim_hist_sum(mt, cohort));
        bind_real(h, 6, sim_hist_mean(mt, cohort));
        bind_real(h, 7, sim_hist_min(mt, cohort));
        bind_real(h, 8, sim_hist_max(mt, cohort));
        bind_real(h, 9, sim_hist_quantile(mt, cohort, 0.50));
        bind_real(h, 10, sim_hist_quantile(mt, cohort, 0.90));
        bind_real(h, 11, sim_hist_quantile(mt, cohort, 0.99));
        if ((rc = step_done(r, h, "insert histogram")))
            return rc;
        int64_t hid = sqlite3_last_insert_rowid(r->db);
        /* Only non-empty bins: a histogram may have 100,000 bins per
         * cohort, mostly empty; the edges stored make each row
         * self-contained. Underflow has no lower edge, overflow no upper. */
        for (size_t b = 0; b < nb + 2; b++) {
            uint64_t c = sim_hist_bin(mt, cohort, b);
            if (c == 0)
                continue;
            sqlite3_bind_int64(s->bin, 1, hid);
            sqlite3_bind_int64(s->bin, 2, (int64_t)b);
            if (b > 0)
                sqlite3_bind_double(s->bin, 3, sim_hist_edge(mt, b - 1));
            if (b <= nb)
                sqlite3_bind_double(s->bin, 4, sim_hist_edge(mt, b));
            sqlite3_bind_int64(s->bin, 5, (int64_t)c);
            if ((rc = step_done(r, s->bin, "insert histogram_bin")))
                return rc;
        }
    }
    return MTC_OK;
}

static int store_one(store_ctx *s, const sim_metrics *m, const sim_metric *mt,
                     int64_t run_id)
{
    sim_results *r = s->r;
    int kind = sim_metric_kind(mt);
    unsigned flags = sim_metric_flags(mt);
    int rc;
    sqlite3_stmt *st = s->metric;
    sqlite3_bind_int64(st, 1, run_id);
    bind_text(st, 2, sim_metric_name(mt));
    bind_text(st, 3, sim_metric_kind_name(kind));
    bind_text(st, 4, sim_metric_unit(mt));
    sqlite3_bind_int64(st, 5, (int64_t)sim_metric_cohorts(mt));
    sqlite3_bind_int(st, 6, (flags & SIM_METRIC_SERIES) != 0);
    sqlite3_bind_int(st, 7, (flags & SIM_METRIC_REPLICATED) != 0);
    if (kind == SIM_METRIC_HISTOGRAM) {
        size_t nb = sim_hist_nbins(mt);
        sqlite3_bind_int64(st, 8, (int64_t)nb);
        sqlite3_bind_double(st, 9, sim_hist_edge(mt, 0));
        sqlite3_bind_double(st, 10, sim_hist_edge(mt, nb));
    }
    if ((rc = step_done(r, st, "insert metric")))
        return rc;
    int64_t metric_id = sqlite3_last_insert_rowid(r->db);
    if (kind == SIM_METRIC_HISTOGRAM)
        return store_hist(s, mt, metric_id);
    for (size_t i = 0; i < ncells(mt); i++) {
        size_t cohort;
        int64_t index;
        const char *label;
        cell_of(mt, i, &cohort, &index, &label);
        /* a recorded figure's cell the scenario never set is absent: no
         * row, so that every reader says so instead of reading 0 */
        if (kind == SIM_METRIC_GAUGE && (flags & SIM_METRIC_RECORD) &&
            isnan(sim_gauge_value(mt, cohort)))
            continue;
        sqlite3_bind_int64(s->scalar, 1, metric_id);
        sqlite3_bind_int64(s->scalar, 2, index);
        bind_text(s->scalar, 3, label);
        if (kind == SIM_METRIC_COUNTER)
            sqlite3_bind_int64(s->scalar, 4, sim_counter_value(mt, cohort));
        else
            bind_real(s->scalar, 4, sim_gauge_value(mt, cohort));
        if ((rc = step_done(r, s->scalar, "insert scalar")))
            return rc;
    }
    if (flags & SIM_METRIC_SERIES)
        return store_series(s, m, mt, metric_id);
    return MTC_OK;
}

/* The points the series of m would store: metrics x cells x grid points. */
static uint64_t series_points(const sim_metrics *m)
{
    uint64_t n = 0;
    for (size_t i = 0; i < sim_metrics_count(m); i++) {
        const sim_metric *mt = sim_metrics_at(m, i);
        if (sim_metric_flags(mt) & SIM_METRIC_SERIES)
            n += (uint64_t)ncells(mt) * sim_metric_series_len(mt);
    }
    return n;
}

int sim_results_store_metrics(sim_results *db, int64_t run_id,
                              const sim_metrics *m)
{
    store_ctx s = {db, NULL, NULL, NULL, NULL, NULL, NULL};
    sqlite3_stmt *del = NULL, *upd = NULL;
    int rc;
    if (!db)
        return MTC_ERR_ARG;
    if (!m)
        return fail(db, MTC_ERR_ARG, "store_metrics: no registry");
    if ((rc = need_run(db, run_id)) || (rc = sim_results_flush(db)))
        return rc;
    uint64_t points = series_points(m);
    if (points > db->max_points)
        return fail(db, MTC_ERR_LIMIT, "run %lld: its time series hold %llu points "
                    "(series x cohorts x grid points), more than the %llu a run "
                    "may store: choose a larger grid_step or a shorter duration",
                    (long long)run_id, (unsigned long long)points,
                    (unsigned long long)db->max_points);
    if ((rc = exec(db, "BEGIN IMMEDIATE")))
        return rc;
    if ((rc = prep(db, "DELETE FROM metric WHERE run_id = ?", &del)) ||
        (rc = prep(db, "UPDATE run SET warmup_end = ?, grid_start = ?, "
                       "grid_step = ? WHERE run_id = ?", &upd)) ||
        (rc = prep(db, "INSERT INTO metric (run_id, name, kind, unit, "
                       "cohorts, series, replicated, hist_bins, hist_lo, "
                       "hist_hi) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                   &s.metric)) ||
        (rc = prep(db, "INSERT INTO scalar (metric_id, cohort_index, "
                       "cohort, value) VALUES (?, ?, ?, ?)", &s.scalar)) ||
        (rc = prep(db, "INSERT INTO vector (metric_id, cohort_index, "
                       "cohort, points, truncated) VALUES (?, ?, ?, ?, ?)",
                   &s.vector)) ||
        (rc = prep(db, "INSERT INTO vector_data (vector_id, k, t, value) "
                       "VALUES (?, ?, ?, ?)", &s.vdata)) ||
        (rc = prep(db, "INSERT INTO histogram (metric_id, cohort_index, "
                       "cohort, count, sum, mean, min, max, p50, p90, p99) "
                       "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", &s.hist)) ||
        (rc = prep(db, "INSERT INTO histogram_bin (histogram_id, bin, lo, "
                       "hi, count) VALUES (?, ?, ?, ?, ?)", &s.bin)))
        goto done;
    sqlite3_bind_int64(del, 1, run_id);
    if ((rc = step_done(db, del, "delete previous metrics")))
        goto done;
    const sim_metrics_config *cfg = sim_metrics_get_config(m);
    sqlite3_bind_int64(upd, 1, cfg->warmup_end);
    sqlite3_bind_int64(upd, 2, cfg->grid_start);
    sqlite3_bind_int64(upd, 3, cfg->grid_step);
    sqlite3_bind_int64(upd, 4, run_id);
    if ((rc = step_done(db, upd, "update run grid")))
        goto done;
    for (size_t i = 0; i < sim_metrics_count(m) && rc == MTC_OK; i++)
        rc = store_one(&s, m, sim_metrics_at(m, i), run_id);
done:
    sqlite3_finalize(del);
    sqlite3_finalize(upd);
    sqlite3_finalize(s.metric);
    sqlite3_finalize(s.scalar);
    sqlite3_finalize(s.vector);
    sqlite3_finalize(s.vdata);
    sqlite3_finalize(s.hist);
    sqlite3_finalize(s.bin);
    return end_transaction(db, rc);
}
