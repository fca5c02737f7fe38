/*
 * results_schema.h - the SQL of the results database, schema version 1
 * (internal; docs/results.md describes it table by table).
 *
 * Times are integers in the run's time_unit ("us"). `value` columns of
 * table scalar have no declared type so that counters stay exact int64
 * and gauges doubles. Data rows hang off metric rows with ON DELETE
 * CASCADE, so replacing a run's metrics is one DELETE.
 */
#ifndef SIM_RESULTS_SCHEMA_H
#define SIM_RESULTS_SCHEMA_H

#define RESULTS_SCHEMA_SQL                                                   \
"CREATE TABLE experiment (\n"                                               \
"  experiment_id INTEGER PRIMARY KEY,\n"                                    \
"  name TEXT NOT NULL,\n"                                                   \
"  command_line TEXT,\n"                                                    \
"  created_at TEXT NOT NULL,\n"                                             \
"  sweep_points INTEGER NOT NULL,\n"                                        \
"  replications INTEGER NOT NULL\n"                                         \
");\n"                                                                      \
"CREATE TABLE run (\n"                                                      \
"  run_id INTEGER PRIMARY KEY,\n"                                           \
"  experiment_id INTEGER NOT NULL REFERENCES experiment ON DELETE CASCADE,\n" \
"  sweep_point INTEGER NOT NULL,\n"                                         \
"  replication INTEGER NOT NULL,\n"                                         \
"  seed INTEGER NOT NULL,\n"                                                \
"  scenario_path TEXT,\n"                                                   \
"  scenario_sha256 TEXT,\n"                                                 \
"  program_version TEXT NOT NULL,\n"                                        \
"  time_unit TEXT NOT NULL,\n"                                              \
"  sim_start INTEGER NOT NULL,\n"                                           \
"  sim_stop INTEGER,\n"                                                     \
"  sim_reached INTEGER,\n"                                                  \
"  warmup_end INTEGER,\n"                                                   \
"  grid_start INTEGER,\n"                                                   \
"  grid_step INTEGER,\n"                                                    \
"  events INTEGER,\n"                                                       \
"  started_at TEXT NOT NULL,\n"                                             \
"  ended_at TEXT,\n"                                                        \
"  wall_time_s REAL,\n"                                                     \
"  status TEXT NOT NULL CHECK (status IN\n"                                 \
"    ('running', 'completed', 'interrupted', 'failed')),\n"                 \
"  error TEXT,\n"                                                           \
"  hostname TEXT,\n"                                                        \
"  pid INTEGER\n"                                                           \
");\n"                                                                      \
"CREATE INDEX run_by_point ON run (experiment_id, sweep_point);\n"          \
"CREATE TABLE run_attr (\n"                                                 \
"  run_id INTEGER NOT NULL REFERENCES run ON DELETE CASCADE,\n"             \
"  name TEXT NOT NULL,\n"                                                   \
"  value TEXT,\n"                                                           \
"  PRIMARY KEY (run_id, name)\n"                                            \
") WITHOUT ROWID;\n"                                                        \
"CREATE TABLE param (\n"                                                    \
"  run_id INTEGER NOT NULL REFERENCES run ON DELETE CASCADE,\n"             \
"  entity_kind TEXT NOT NULL,\n"                                            \
"  entity_name TEXT NOT NULL,\n"                                            \
"  name TEXT NOT NULL,\n"                                                   \
"  value TEXT NOT NULL,\n"                                                  \
"  swept INTEGER NOT NULL DEFAULT 0,\n"                                     \
"  PRIMARY KEY (run_id, entity_kind, entity_name, name)\n"                  \
") WITHOUT ROWID;\n"                                                        \
"CREATE TABLE metric (\n"                                                   \
"  metric_id INTEGER PRIMARY KEY,\n"                                        \
"  run_id INTEGER NOT NULL REFERENCES run ON DELETE CASCADE,\n"             \
"  name TEXT NOT NULL,\n"                                                   \
"  kind TEXT NOT NULL CHECK (kind IN ('counter', 'gauge', 'histogram')),\n" \
"  unit TEXT NOT NULL,\n"                                                   \
"  cohorts INTEGER NOT NULL,\n"                                             \
"  series INTEGER NOT NULL,\n"                                              \
"  replicated INTEGER NOT NULL,\n"                                          \
"  hist_bins INTEGER,\n"                                                    \
"  hist_lo REAL,\n"                                                         \
"  hist_hi REAL,\n"                                                         \
"  UNIQUE (run_id, name)\n"                                                 \
");\n"                                                                      \
"CREATE TABLE scalar (\n"                                                   \
"  metric_id INTEGER NOT NULL REFERENCES metric ON DELETE CASCADE,\n"       \
"  cohort_index INTEGER NOT NULL,\n"                                        \
"  cohort TEXT NOT NULL,\n"                                                 \
"  value,\n"                                                                \
"  PRIMARY KEY (metric_id, cohort_index)\n"                                 \
") WITHOUT ROWID;\n"                                                        \
"CREATE TABLE vector (\n"                                                   \
"  vector_id INTEGER PRIMARY KEY,\n"                                        \
"  metric_id INTEGER NOT NULL REFERENCES metric ON DELETE CASCADE,\n"       \
"  cohort_index INTEGER NOT NULL,\n"                                        \
"  cohort TEXT NOT NULL,\n"                                                 \
"  points INTEGER NOT NULL,\n"                                              \
"  truncated INTEGER NOT NULL,\n"                                           \
"  UNIQUE (metric_id, cohort_index)\n"                                      \
");\n"                                                                      \
"CREATE TABLE vector_data (\n"                                              \
"  vector_id INTEGER NOT NULL REFERENCES vector ON DELETE CASCADE,\n"       \
"  k INTEGER NOT NULL,\n"                                                   \
"  t INTEGER NOT NULL,\n"                                                   \
"  value REAL,\n"                                                           \
"  PRIMARY KEY (vector_id, k)\n"                                            \
") WITHOUT ROWID;\n"                                                        \
"CREATE TABLE histogram (\n"                                                \
"  histogram_id INTEGER PRIMARY KEY,\n"                                     \
"  metric_id INTEGER NOT NULL REFERENCES metric ON DELETE CASCADE,\n"       \
"  cohort_index INTEGER NOT NULL,\n"                                        \
"  cohort TEXT NOT NULL,\n"                                                 \
"  count INTEGER NOT NULL,\n"                                               \
"  sum REAL, mean REAL, min REAL, max REAL,\n"                              \
"  p50 REAL, p90 REAL, p99 REAL,\n"                                         \
"  UNIQUE (metric_id, cohort_index)\n"                                      \
");\n"                                                                      \
"CREATE TABLE histogram_bin (\n"                                            \
"  histogram_id INTEGER NOT NULL REFERENCES histogram ON DELETE CASCADE,\n" \
"  bin INTEGER NOT NULL,\n"                                                 \
"  lo REAL,\n"                                                              \
"  hi REAL,\n"                                                              \
"  count INTEGER NOT NULL,\n"                                               \
"  PRIMARY KEY (histogram_id, bin)\n"                                       \
") WITHOUT ROWID;\n"                                                        \
"CREATE TABLE summary (\n"                                                  \
"  experiment_id INTEGER NOT NULL REFERENCES experiment ON DELETE CASCADE,\n" \
"  sweep_point INTEGER NOT NULL,\n"                                         \
"  metric TEXT NOT NULL,\n"                                                 \
"  cohort TEXT NOT NULL,\n"                                                 \
"  statistic TEXT NOT NULL,\n"                                              \
"  unit TEXT NOT NULL,\n"                                                   \
"  n INTEGER NOT NULL,\n"                                                   \
"  mean REAL,\n"                                                            \
"  stddev REAL,\n"                                                          \
"  ci_level REAL,\n"                                                        \
"  ci_half_width REAL,\n"                                                   \
"  ci_lo REAL,\n"                                                           \
"  ci_hi REAL,\n"                                                           \
"  PRIMARY KEY (experiment_id, sweep_point, metric, cohort, statistic)\n"   \
") WITHOUT ROWID;\n"                                                        \
"CREATE VIEW scalar_v AS\n"                                                 \
"  SELECT m.run_id, m.name AS metric, m.kind, m.unit, s.cohort_index,\n"    \
"         s.cohort, s.value\n"                                              \
"  FROM scalar s JOIN metric m USING (metric_id);\n"                        \
"CREATE VIEW vector_v AS\n"                                                 \
"  SELECT m.run_id, m.name AS metric, m.kind, m.unit, v.cohort_index,\n"    \
"         v.cohort, d.k, d.t, d.value\n"                                    \
"  FROM vector_data d JOIN vector v USING (vector_id)\n"                    \
"       JOIN metric m USING (metric_id);\n"                                 \
"CREATE VIEW histogram_v AS\n"                                              \
"  SELECT m.run_id, m.name AS metric, m.unit, h.*\n"                        \
"  FROM histogram h JOIN metric m USING (metric_id);\n"                     \
"CREATE VIEW histogram_bin_v AS\n"                                          \
"  SELECT m.run_id, m.name AS metric, m.unit, h.cohort_index, h.cohort,\n"  \
"         b.bin, b.lo, b.hi, b.count\n"                                     \
"  FROM histogram_bin b JOIN histogram h USING (histogram_id)\n"            \
"       JOIN metric m USING (metric_id);\n"

/* Tables every version-1 database has (checked at open). */
#define RESULTS_TABLES                                                       \
    "experiment", "run", "run_attr", "param", "metric", "scalar", "vector", \
        "vector_data", "histogram", "histogram_bin", "summary"

#endif
