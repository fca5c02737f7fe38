#!/bin/sh
# The statistics module (analysis/stats.h) as the commands print it
# (usage: sh_stats.sh BUILD):
#  - no fraction interval of the run summary leaves [0, 1], on a database
#    where a Student-t interval of the same runs does (checked here from
#    the database with SQL), and each is the Wilson interval recomputed
#    here;
#  - 0/1 flags are counted ("flagged in k of n"), not given an interval;
#  - the run summary and the report give identical steady-state verdicts
#    on the same database, line for line;
#  - `compare --stat auth_bytes_ratio_vs_today` prints the statistic the
#    run summary prints, with the same mean;
#  - --cohort NAME: the run summary's and compare's figures of one cohort
#    equal SQL's on the same database; --by-cohort prints each cohort;
#  - compare A.db B.db --cohort NAME --vs-cohort REF: the difference of
#    differences (NAME - REF within each run, then B - A paired by
#    replication) and each side's within-run difference, against SQL;
#  - sim:record: a figure a scenario computes in on_finish is stored,
#    summarized over replications (in the short summary), compared,
#    plotted and exported like any metric; a model metric's name and an
#    unknown cohort are refused with the reason; a figure recorded for
#    some cohorts only is absent for the others (nil in sim:metric, no row
#    in the summary, the database, export, report or compare), never 0.
set -u
b=${1:-build}
m="$b/mtcsim"
fail() { echo "FAIL: $*"; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/sh_stats.XXXXXX") || fail "mktemp"
trap 'rm -rf "$tmp"' EXIT

# ---- fractions: Wilson intervals inside [0, 1] ----
"$m" run tests/lua/mpi_web.lua --set scale=0.01 --set days=0.5 --replications 3 \
  --out "$tmp/web.db" >"$tmp/web.out" 2>"$tmp/err" || fail "web run: $(cat "$tmp/err")"
python3 - "$tmp/web.db" "$tmp/web.out" <<'PY' || fail "fraction intervals"
import sys, sqlite3, math, statistics
db = sqlite3.connect(sys.argv[1])
rows = {}
for line in open(sys.argv[2]):
    f = line.split(None, 2)
    if len(f) == 3 and '[' in f[2] and not line.startswith('#'):
        rows[f[0]] = (float(f[1]), f[2].strip())
fractions = [n for n in rows if n == 'signatureless_fraction' or n.endswith('_share')]
assert 'signatureless_fraction' in fractions, rows.keys()
T2 = 4.302652729911275   # t(0.975, 2): three replications
escaped = 0
for name in fractions:
    mean, ci = rows[name]
    lo, hi = (float(x) for x in ci.strip('[]').split(','))
    assert 0 <= lo <= mean <= hi <= 1, (name, mean, lo, hi)
    num = ('handshake_signatureless' if name in ('signatureless_fraction', 'fallback_share')
           else 'handshake_resumed' if name == 'resumed_share' else name[:-len('_share')])
    runs = db.execute(
        "SELECT CAST(a.value AS REAL), b.value FROM scalar_v a JOIN scalar_v b USING (run_id) "
        "WHERE a.metric = ? AND b.metric = 'handshake_full' AND a.cohort = 'all' "
        "AND b.cohort = 'all' ORDER BY run_id", (num,)).fetchall()
    if name == 'resumed_share':       # of all connections, full and resumed
        runs = [(a, a + b) for a, b in runs]
    x = [(b - a if name == 'fallback_share' else a) / b for a, b in runs]
    p, trials = statistics.mean(x), sum(b for _, b in runs)
    assert abs(p - mean) <= 1e-5 * max(1e-9, abs(p)), (name, p, mean)
    s2 = statistics.variance(x)
    t_hw = T2 * math.sqrt(s2 / len(x))
    escaped += p - t_hw < 0 or p + t_hw > 1
    # the Wilson interval with the replications' effective trials
    n = min(trials, p * (1 - p) * len(x) / s2) if s2 > 0 and 0 < p < 1 else trials
    z2 = T2 * T2
    d = 1 + z2 / n
    c = (p + z2 / (2 * n)) / d
    h = T2 * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / d
    wlo, whi = (0 if p <= 0 else max(0, c - h)), (1 if p >= 1 else min(1, c + h))
    assert abs(wlo - lo) <= 1e-5 and abs(whi - hi) <= 1e-5, (name, lo, hi, wlo, whi)
assert escaped, "no fraction here has a Student-t interval outside [0, 1]: the test needs one (another seed)"
PY

# ---- flags counted; verdicts identical in the summary and the report ----
"$m" run tests/lua/transient_world.lua --set start=empty --replications 2 \
  --out "$tmp/cold.db" >"$tmp/cold.out" 2>"$tmp/err" || fail "cold run: $(cat "$tmp/err")"
grep -Eq '^signatureless_fraction\.transient +- +flagged in [0-2] of 2$' "$tmp/cold.out" \
  || fail "a flag with an interval: $(grep transient "$tmp/cold.out")"
grep -Eq '^[a-z_.]+transient .*[+][-]' "$tmp/cold.out" && fail "a t-interval on a flag"
"$m" report "$tmp/cold.db" --out "$tmp/rep" --quiet >/dev/null 2>"$tmp/err" || fail "report: $(cat "$tmp/err")"
grep -E '^(warning: [a-z_]+: MSER-5|steady state: )' "$tmp/cold.out" > "$tmp/v.run"
python3 - "$tmp/rep/index.html" > "$tmp/v.rep" <<'PY' || fail "verdicts in the report"
import sys, re, html
for m in re.finditer(r'<p class="verdict[^"]*">(.*?)</p>', open(sys.argv[1]).read()):
    print(html.unescape(m.group(1)))
PY
[ -s "$tmp/v.run" ] || fail "the summary gives no verdict"
grep -q '^warning: signatureless_fraction: MSER-5 finds an initial transient' "$tmp/v.run" \
  || fail "the cold start is not flagged: $(cat "$tmp/v.run")"
cmp -s "$tmp/v.run" "$tmp/v.rep" || { diff "$tmp/v.run" "$tmp/v.rep"; fail "summary and report verdicts differ"; }
grep -q 'use world{ start = "steady" }' "$tmp/v.run" || fail "no advice for an empty start"
# a steady start is not told to start steady
"$m" run tests/lua/transient_world.lua --set start=steady --out "$tmp/st.db" >"$tmp/st.out" 2>"$tmp/err" \
  || fail "steady run: $(cat "$tmp/err")"
grep -q 'start = "steady"' "$tmp/st.out" && fail "a steady start advised to start steady"

# ---- compare prints what the run summary prints ----
"$m" compare "$tmp/web.db" "$tmp/web.db" --stat auth_bytes_ratio_vs_today >"$tmp/c.txt" 2>"$tmp/err" \
  || fail "compare: $(cat "$tmp/err")"
run=$(awk '$1 == "auth_bytes_ratio_vs_today" {print $2}' "$tmp/web.out")
cmp=$(awk '$1 == "auth_bytes_ratio_vs_today" {print $2}' "$tmp/c.txt")
[ -n "$run" ] && [ "$run" = "$cmp" ] || fail "compare's auth_bytes_ratio_vs_today '$cmp', the summary's '$run'"
# ---- derived figures by name in plot and compare: drawn, and typos said ----
"$m" plot "$tmp/web.db" auth_bytes_ratio_vs_today --print --out "$tmp/ratio.png" >"$tmp/ratio.txt" 2>"$tmp/err" \
  || fail "plot of a derived figure: $(cat "$tmp/err")"
pl=$(awk -F'\t' 'NF == 5 {print $3}' "$tmp/ratio.txt")
awk -v a="$pl" -v b="$run" 'BEGIN { exit !(a != "" && (a - b) ^ 2 <= (1e-5 * b) ^ 2) }' \
  || fail "plot's auth_bytes_ratio_vs_today '$pl', the summary's '$run'"
grep -q "^set ylabel 'auth_bytes_ratio_vs_today'$" "$tmp/ratio.png.gp" || fail "ratio's y label: $(grep ylabel "$tmp/ratio.png.gp")"
"$m" plot "$tmp/web.db" auth_bytes_ratio_vs_tody --print >/dev/null 2>"$tmp/err"; [ $? -eq 2 ] || fail "plot of a misspelt figure must exit 2"
grep -q "did you mean 'auth_bytes_ratio_vs_today'" "$tmp/err" || fail "plot: no did-you-mean for a derived name: $(cat "$tmp/err")"
"$m" compare "$tmp/web.db" "$tmp/web.db" --stat fallback_shar >"$tmp/c2.txt" 2>"$tmp/err"; [ $? -eq 2 ] || fail "compare --stat of a misspelt figure must exit 2"
grep -q "did you mean 'fallback_share'" "$tmp/err" || fail "compare: no did-you-mean: $(cat "$tmp/err")"
[ -s "$tmp/c2.txt" ] && fail "a refused compare printed a table"
"$m" compare "$tmp/web.db" "$tmp/web.db" --stat auth_bytes.p9 >/dev/null 2>"$tmp/err"; [ $? -eq 2 ] || fail "--stat auth_bytes.p9 must exit 2"
grep -q "did you mean 'auth_bytes.p90'" "$tmp/err" || fail "compare: no did-you-mean for a histogram statistic: $(cat "$tmp/err")"
# ---- one cohort: the summary, compare and SQL agree ----
"$m" run tests/lua/mpi_whatif.lua --set scale=0.01 --set days=0.25 --replications 2 \
  --out "$tmp/wi.db" --cohort frozen >"$tmp/wi.out" 2>"$tmp/err" || fail "cohort run: $(cat "$tmp/err")"
grep -q '^== summary cohort frozen: 2 replications$' "$tmp/wi.out" || fail "no cohort table: $(grep '==' "$tmp/wi.out")"
"$m" compare "$tmp/wi.db" "$tmp/wi.db" --cohort frozen >"$tmp/wc.txt" 2>"$tmp/err" || fail "compare --cohort: $(cat "$tmp/err")"
python3 - "$tmp/wi.db" "$tmp/wi.out" "$tmp/wc.txt" <<'PY' || fail "cohort figures differ from SQL"
import sys, sqlite3, statistics
db = sqlite3.connect(sys.argv[1])
x = [s / f for s, f in db.execute(
    "SELECT CAST(s.value AS REAL), f.value FROM scalar_v s JOIN scalar_v f USING (run_id) "
    "WHERE s.metric = 'handshake_signatureless' AND f.metric = 'handshake_full' "
    "AND s.cohort = 'frozen' AND f.cohort = 'frozen' ORDER BY run_id")]
assert len(x) == 2, x
want = statistics.mean(x)
def first(path, name):
    for line in open(path):
        if line.split()[:1] == [name]:
            return float(line.split()[1])
for path in sys.argv[2:]:
    got = first(path, 'signatureless_fraction')
    assert abs(got - want) <= 1e-5 * want, (path, got, want)
PY
"$m" run tests/lua/mpi_whatif.lua --set scale=0.01 --set days=0.25 --out "$tmp/wb.db" --by-cohort \
  >"$tmp/wb.out" 2>"$tmp/err" || fail "--by-cohort: $(cat "$tmp/err")"
[ "$(grep -c '^== summary cohort ' "$tmp/wb.out")" -ge 2 ] || fail "--by-cohort printed no cohort tables"
"$m" run tests/lua/mpi_whatif.lua --cohort a --by-cohort >/dev/null 2>&1; [ $? -eq 2 ] || fail "--cohort with --by-cohort must exit 2"
"$m" compare "$tmp/wi.db" "$tmp/wi.db" --cohort nosuch >/dev/null 2>"$tmp/err"; [ $? -eq 2 ] || fail "compare --cohort nosuch must exit 2"
grep -q 'its cohorts: .*frozen' "$tmp/err" || fail "the cohorts are not listed: $(cat "$tmp/err")"
# ---- across two experiments, --vs-cohort: a difference of differences ----
# (cohort fetchers minus cohort updaters within each run, then B - A, paired
# by replication and seed), each column recomputed here from SQL
"$m" run tests/lua/mpi_whatif.lua --set scale=0.01 --set days=0.25 --replications 2 \
  --set ca.ca2.ldp_fail_prob=0.5 --out "$tmp/wi2.db" --quiet >/dev/null 2>"$tmp/err" || fail "second cohort run: $(cat "$tmp/err")"
"$m" compare "$tmp/wi.db" "$tmp/wi2.db" --cohort fetchers --vs-cohort updaters >"$tmp/did.txt" 2>"$tmp/err" \
  || fail "compare --vs-cohort across experiments: $(cat "$tmp/err")"
grep -q '^-- cohort fetchers minus cohort updaters within each run .*the difference of differences$' "$tmp/did.txt" \
  || fail "no difference-of-differences table: $(cat "$tmp/did.txt")"
python3 - "$tmp/wi.db" "$tmp/wi2.db" "$tmp/did.txt" <<'PY' || fail "difference of differences differs from SQL"
import sys, sqlite3, statistics, math
T1 = 12.706204736174707            # t(0.975, 1): two replications
def runs(path):
    db = sqlite3.connect(path)
    out = {}
    for rep, seed, coh, met, v in db.execute(
            "SELECT r.replication, r.seed, s.cohort, s.metric, CAST(s.value AS REAL) FROM run r "
            "JOIN scalar_v s USING (run_id) WHERE r.status = 'completed' AND s.cohort IN "
            "('fetchers', 'updaters') AND s.metric IN ('handshake_full', "
            "'handshake_signatureless', 'handshake_retry')"):
        out.setdefault((rep, seed), {})[(coh, met)] = v
    return out
def stat(cells, coh, name):
    if name == 'signatureless_fraction':
        return cells[(coh, 'handshake_signatureless')] / cells[(coh, 'handshake_full')]
    return cells[(coh, name)]
A, B = runs(sys.argv[1]), runs(sys.argv[2])
assert sorted(A) == sorted(B) and len(A) == 2, (A.keys(), B.keys())
rows = {l.split()[0]: l.split() for l in open(sys.argv[3]) if l[:1].isalpha()}
close = lambda x, y: abs(x - y) <= 1e-5 * max(1.0, abs(y))
for name in ('signatureless_fraction', 'handshake_retry'):
    dA = [stat(A[k], 'fetchers', name) - stat(A[k], 'updaters', name) for k in sorted(A)]
    dB = [stat(B[k], 'fetchers', name) - stat(B[k], 'updaters', name) for k in sorted(A)]
    dd = [b - a for a, b in zip(dA, dB)]
    m, h = statistics.mean(dd), T1 * statistics.stdev(dd) / math.sqrt(2)
    r = rows[name]
    assert close(float(r[1]), statistics.mean(dA)) and close(float(r[3]), statistics.mean(dB)), (name, r, dA, dB)
    # the half-widths are printed to 3 significant digits
    for col, d in ((2, dA), (4, dB)):
        want = T1 * statistics.stdev(d) / math.sqrt(2)
        assert abs(float(r[col]) - want) <= 5e-3 * want + 1e-12, (name, r, col, want)
    lo, hi = ' '.join(r[6:8]).strip('[]').split(', ')
    assert close(float(r[5]), m) and close(float(lo), m - h) and close(float(hi), m + h), (name, r, m, h)
PY
# ---- sim:record: a figure the scenario computes is a metric like any ----
cat > "$tmp/rec.lua" <<'LUA'
sweep("landmark_interval", { hours(1), hours(3) })
local li = param("landmark_interval", hours(1), "time between landmarks (s)")
replications(2)
mtcsim.world{ duration = hours(12), grid_step = hours(1), start = "empty" }
local w = mtcsim.cosigner{ name = "w1", algorithm = "ed25519" }
mtcsim.ca{ name = "ca1", algorithm = "ed25519", rate = per_day(3000), cosigners = { w },
           quorum = 1, landmark_interval = li }
mtcsim.update_service{ name = "us" }
sim:on_finish(function(s)
  s:record("entries_per_hour", s:metric("log_entries") / 12)
  -- a recorded share near 0: Student-t would leave [0, 1] (t(1) = 12.7)
  s:record("tiny_share", s.replication == 1 and 0.001 or 0)
end)
LUA
"$m" run "$tmp/rec.lua" --out "$tmp/rec.db" >"$tmp/rec.out" 2>"$tmp/err" || fail "record run: $(cat "$tmp/err")"
[ "$(grep -c '^entries_per_hour  *[0-9.]*  +-' "$tmp/rec.out")" = 2 ] || fail "recorded figure not in the short summary: $(cat "$tmp/rec.out")"
[ "$(grep -Ec '^tiny_share +0\.0005 +\[[0-9][0-9.e-]*, 0\.[0-9]+\]$' "$tmp/rec.out")" = 2 ] \
  || fail "a recorded share without its Wilson interval inside [0, 1]: $(grep tiny_share "$tmp/rec.out")"
python3 - "$tmp/rec.db" <<'PY' || fail "recorded values differ from log_entries / 12"
import sys, sqlite3
db = sqlite3.connect(sys.argv[1])
rows = db.execute("SELECT e.value, r.value FROM scalar_v e JOIN scalar_v r USING (run_id) "
                  "WHERE e.metric = 'log_entries' AND r.metric = 'entries_per_hour' "
                  "AND e.cohort = 'all' AND r.cohort = 'all'").fetchall()
assert len(rows) == 4, rows
for e, r in rows:
    assert abs(r - e / 12) <= 2 ** -31, (e, r)     # the gauge's fixed point
assert db.execute("SELECT count(*) FROM summary WHERE metric = 'entries_per_hour'").fetchone()[0] == 2
PY
"$m" compare "$tmp/rec.db" "$tmp/rec.db" --stat entries_per_hour 2>/dev/null | grep -q '^entries_per_hour ' \
  || fail "compare --stat of a recorded figure"
"$m" plot "$tmp/rec.db" entries_per_hour --print --out "$tmp/rec.png" >"$tmp/rp.txt" 2>"$tmp/err" \
  || fail "plot of a recorded figure: $(cat "$tmp/err")"
[ "$(grep -c '^[13]	' "$tmp/rp.txt")" = 2 ] || fail "plot rows: $(cat "$tmp/rp.txt")"
"$m" export "$tmp/rec.db" --csv "$tmp/csv" --metric entries_per_hour >/dev/null || fail "export"
[ "$(grep -c entries_per_hour "$tmp/csv/scalar_v.csv")" = 4 ] || fail "export of a recorded figure"
# a model metric's name, an unknown cohort: clear errors, exit 1
sed 's/s:record("entries_per_hour"/s:record("log_entries"/' "$tmp/rec.lua" > "$tmp/bad.lua"
"$m" run "$tmp/bad.lua" --out "$tmp/bad.db" >/dev/null 2>"$tmp/err"; [ $? -eq 1 ] || fail "recording a model metric's name must fail"
grep -q "sim:record: 'log_entries' is a metric of the model" "$tmp/err" || fail "message: $(cat "$tmp/err")"
sed 's/s:metric("log_entries") \/ 12)/1, "nosuch")/' "$tmp/rec.lua" > "$tmp/bad2.lua"
"$m" run "$tmp/bad2.lua" --out "$tmp/bad2.db" >/dev/null 2>"$tmp/err"; [ $? -eq 1 ] || fail "an unknown cohort must fail"
grep -q "sim:record" "$tmp/err" || fail "cohort message: $(cat "$tmp/err")"
# ---- a figure recorded for some cohorts only: the others are absent, never 0 ----
cat > "$tmp/coh.lua" <<'LUA'
replications(2)
mtcsim.world{ duration = hours(6), warmup = hours(2), grid_step = hours(1), start = "empty" }
local mirror = mtcsim.cosigner{ name = "mirror", role = "mirror", algorithm = "ed25519" }
mtcsim.ca{ name = "ca", algorithm = "ed25519", rate = per_day(2e4), lifetime = hours(8),
           landmark_interval = hours(1), cosigners = { mirror }, quorum = 1 }
mtcsim.update_service{ name = "us", fetch_interval = minutes(10) }
mtcsim.sites{ name = "sites", count = 20 }
mtcsim.browsers{ name = "a", count = 20, update_interval = hours(5) }
mtcsim.browsers{ name = "b", count = 20, update_interval = hours(5) }
sim:on_finish(function(s)
  s:record("probe_rate", 2 + s.replication, "a")
  s:record("probe_share", 0.25 * (1 + s.replication), "a")
  printf("cell of b: %s\n", tostring(s:metric("probe_rate", "b")))
end)
LUA
"$m" run "$tmp/coh.lua" --out "$tmp/coh.db" --by-cohort >"$tmp/coh.out" 2>"$tmp/err" || fail "cohort record run: $(cat "$tmp/err")"
[ "$(grep -c '^cell of b: nil$' "$tmp/coh.out")" = 2 ] || fail "sim:metric of a cell never recorded is not nil: $(grep 'cell of b' "$tmp/coh.out")"
awk '/^== summary cohort a:/ {c = "a"} /^== summary cohort b:/ {c = "b"} /^== summary cohort all|^== summary:/ {c = ""}
     $1 ~ /^probe_/ {print c, $1, $2}' "$tmp/coh.out" >"$tmp/coh.rows"
[ "$(cat "$tmp/coh.rows")" = "a probe_rate 2.5
a probe_share 0.375" ] || fail "summary rows of a figure recorded for cohort a only: $(cat "$tmp/coh.rows")"
[ "$(sqlite3 "$tmp/coh.db" "SELECT count(*) FROM scalar_v WHERE metric LIKE 'probe_%' AND cohort = 'b'")" = 0 ] \
  || fail "the database holds a value of a cell never recorded"
"$m" export "$tmp/coh.db" --csv "$tmp/ccsv" >/dev/null || fail "export of a per-cohort figure"
python3 - "$tmp/ccsv" <<'PY' || fail "export of a figure recorded for cohort a only"
import sys, csv, os
for t in ('scalar_v', 'summary'):
    rows = list(csv.DictReader(open(os.path.join(sys.argv[1], t + '.csv'))))
    probe = [r for r in rows if r['metric'].startswith('probe_')]
    assert probe and all(r['cohort'] == 'a' for r in probe), (t, probe)
PY
"$m" report "$tmp/coh.db" --out "$tmp/crep" >/dev/null 2>"$tmp/err" || fail "report: $(cat "$tmp/err")"
grep -q '<td>probe_rate, cohort a</td><td>value</td><td></td><td>2</td><td>2.5</td>' "$tmp/crep/index.html" \
  || fail "the report does not show the cell recorded: $(grep probe "$tmp/crep/index.html")"
grep -q 'cohort b' "$tmp/crep/index.html" && fail "the report shows a cell never recorded: $(grep 'cohort b' "$tmp/crep/index.html")"
# the report's intervals are the run summary's: the recorded share's Wilson
# interval (inside [0, 1]), not a Student-t half-width of 1.6
for f in probe_rate probe_share; do
  run=$(awk -v f="$f" '/^== summary cohort a:/ {c = 1} /^== summary cohort b:/ {c = 0}
        c && $1 == f {$1 = ""; sub(/^ +/, ""); print}' "$tmp/coh.out")
  rep=$(sed -n "s|.*<td>$f, cohort a</td><td>value</td><td></td><td>2</td><td>\\([^<]*\\)</td><td>\\([^<]*\\)</td>.*|\\1 \\2|p" "$tmp/crep/index.html")
  [ -n "$run" ] && [ "$(echo "$run" | tr -s ' ')" = "$(echo "$rep" | tr -s ' ')" ] \
    || fail "$f: the run summary gives '$run', the report '$rep'"
done
"$m" compare "$tmp/coh.db" "$tmp/coh.db" --cohort b --stat probe_rate >"$tmp/cc.txt" 2>"$tmp/err" || fail "compare --cohort b: $(cat "$tmp/err")"
grep -q probe_rate "$tmp/cc.txt" && fail "compare shows a cell never recorded: $(grep probe_rate "$tmp/cc.txt")"
echo "stats: fraction intervals Wilson inside [0, 1], flags counted, verdicts identical in summary and report, compare = run, cohorts = SQL, sim:record figures are metrics, cells never recorded absent"
