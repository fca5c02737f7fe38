"""dbdiff.py A.db B.db [EXP_A EXP_B] - exits 1 (and says where) unless two
mtcsim results databases hold the same rows, ids included, apart from what
is measured rather than simulated: wall-clock fields (created_at,
command_line, started_at, ended_at, wall_time_s, pid, hostname) and CPU-time
metrics (names containing "_cpu_"). Used by tests/sh_run_jobs.sh.

With EXP_A and EXP_B, compares those experiments' completed runs by
(sweep point, replication) instead: their parameters and every metric row,
ids aside (for a resumed experiment against an uninterrupted one).
--ignore-param NAME (repeatable) leaves the parameter NAME out of that
comparison (two modes of one model that must give the same results;
tests/sh_log_history.sh). --ignore-attr NAME (repeatable) leaves the run
attribute NAME out of the whole-database comparison (an attribute one
way of running adds, such as --share-warmup's warmup_shared;
tests/sh_share_warmup.sh).
Python's standard library only."""
import sqlite3, sys

MEASURED = {'created_at', 'command_line', 'started_at', 'ended_at',
            'wall_time_s', 'pid', 'hostname'}
CPU = "(SELECT metric_id FROM metric WHERE name LIKE '%\\_cpu\\_%' ESCAPE '\\')"
FILTER = {
    'scalar': 'metric_id NOT IN ' + CPU,
    'vector': 'metric_id NOT IN ' + CPU,
    'histogram': 'metric_id NOT IN ' + CPU,
    'vector_data': 'vector_id NOT IN (SELECT vector_id FROM vector WHERE metric_id IN %s)' % CPU,
    'histogram_bin': 'histogram_id NOT IN (SELECT histogram_id FROM histogram WHERE metric_id IN %s)' % CPU,
    'summary': "metric NOT LIKE '%\\_cpu\\_%' ESCAPE '\\'",
}

IGNORED_ATTRS = []

def rows(db, table):
    cols = [c[1] for c in db.execute('PRAGMA table_info("%s")' % table) if c[1] not in MEASURED]
    where = ' WHERE ' + FILTER[table] if table in FILTER else ''
    if table == 'run_attr' and IGNORED_ATTRS:
        where = ' WHERE name NOT IN (%s)' % ', '.join("'%s'" % n.replace("'", "''")
                                                      for n in IGNORED_ATTRS)
    q = 'SELECT %s FROM "%s"%s ORDER BY %s' % (', '.join(cols), table, where,
                                              ', '.join(str(i + 1) for i in range(len(cols))))
    return cols, db.execute(q).fetchall()

def same_db(a, b):
    tables = [r[0] for r in a.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY 1")]
    bad = 0
    for t in tables:
        cols, ra = rows(a, t)
        _, rb = rows(b, t)
        if ra != rb:
            diff = [(x, y) for x, y in zip(ra, rb) if x != y][:3]
            print('table %s differs: %d vs %d rows; first differences %s (columns %s)'
                  % (t, len(ra), len(rb), diff, cols))
            bad = 1
    return bad

def runs(db, exp):
    return {(p, r): i for i, p, r in db.execute(
        "SELECT run_id, sweep_point, replication FROM run WHERE experiment_id = ? "
        "AND status = 'completed'", (exp,))}

while '--ignore-attr' in sys.argv:
    k = sys.argv.index('--ignore-attr')
    IGNORED_ATTRS.append(sys.argv[k + 1])
    del sys.argv[k:k + 2]

IGNORED = set()
while '--ignore-param' in sys.argv:
    k = sys.argv.index('--ignore-param')
    IGNORED.add(sys.argv[k + 1])
    del sys.argv[k:k + 2]

def content(db, run):
    out = []
    out += [r for r in db.execute("SELECT entity_kind, entity_name, name, value, swept FROM param "
                                  "WHERE run_id = ? ORDER BY 1, 2, 3", (run,)).fetchall()
            if r[2] not in IGNORED]
    out += db.execute("SELECT name, kind, unit, cohorts, series FROM metric WHERE run_id = ? "
                      "ORDER BY 1", (run,)).fetchall()
    ok = "AND m.name NOT LIKE '%\\_cpu\\_%' ESCAPE '\\'"
    out += db.execute("SELECT m.name, s.cohort, s.value FROM scalar s JOIN metric m USING "
                      "(metric_id) WHERE m.run_id = ? %s ORDER BY 1, 2" % ok, (run,)).fetchall()
    out += db.execute("SELECT m.name, v.cohort, d.k, d.t, d.value FROM vector_data d JOIN "
                      "vector v USING (vector_id) JOIN metric m USING (metric_id) WHERE "
                      "m.run_id = ? %s ORDER BY 1, 2, 3" % ok, (run,)).fetchall()
    out += db.execute("SELECT m.name, h.cohort, h.count, h.sum, b.bin, b.count FROM "
                      "histogram_bin b JOIN histogram h USING (histogram_id) JOIN metric m "
                      "USING (metric_id) WHERE m.run_id = ? %s ORDER BY 1, 2, 5" % ok,
                      (run,)).fetchall()
    out += db.execute("SELECT events, sim_reached, seed, scenario_sha256 FROM run WHERE "
                      "run_id = ?", (run,)).fetchall()
    return out

def same_exp(a, b, ea, eb):
    ra, rb = runs(a, ea), runs(b, eb)
    if sorted(ra) != sorted(rb):
        print('completed (point, replication) differ: %s vs %s' % (sorted(ra), sorted(rb)))
        return 1
    bad = 0
    for k in sorted(ra):
        if content(a, ra[k]) != content(b, rb[k]):
            print('run %s differs' % (k,))
            bad = 1
    sa = a.execute("SELECT sweep_point, metric, cohort, statistic, n, mean, stddev FROM summary "
                   "WHERE experiment_id = ? AND metric NOT LIKE '%\\_cpu\\_%' ESCAPE '\\' "
                   "ORDER BY 1, 2, 3, 4", (ea,)).fetchall()
    sb = b.execute("SELECT sweep_point, metric, cohort, statistic, n, mean, stddev FROM summary "
                   "WHERE experiment_id = ? AND metric NOT LIKE '%\\_cpu\\_%' ESCAPE '\\' "
                   "ORDER BY 1, 2, 3, 4", (eb,)).fetchall()
    if sa != sb:
        print('summaries differ')
        bad = 1
    return bad

a = sqlite3.connect('file:%s?mode=ro' % sys.argv[1], uri=True)
b = sqlite3.connect('file:%s?mode=ro' % sys.argv[2], uri=True)
sys.exit(same_exp(a, b, int(sys.argv[3]), int(sys.argv[4])) if len(sys.argv) > 4 else same_db(a, b))
