#!/bin/sh
# mtcsim ls and mtcsim plot on real databases: a PKI sweep run by
# `mtcsim run` (tests/lua/pki_small.lua, 2 points x 2 replications), a
# string sweep written here, and the synthetic experiments of
# tests/results_driver (a 3x3 sweep; completed, failed, interrupted and
# abandoned runs):
#  - ls: experiments, grid and status counts (abandoned = "running" row of
#    a process that is gone), sweep points with their values, --runs,
#    --params (swept ones starred), --metrics;
#  - plot: each view (series with band, CDF, sweep with error bars in the
#    swept parameter's natural unit, bars for a string sweep, bars per
#    cohort), numbers checked with --print, images valid PNG/SVG, the
#    script beside the image redraws it; sim:at actions recorded as run
#    attributes and marked on series;
#  - errors: unknown metric (with a suggestion), cohort, point, experiment,
#    bad --out: exit 2 naming what is wrong; --help.
set -u
b=${1:-build}
root=$(pwd)
m="$root/$b/mtcsim"
drv="$root/$b/tests/results_driver"
fail() { echo "FAIL: $*"; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/sh_ls_plot.XXXXXX") || fail "mktemp"
trap 'rm -rf "$tmp"' EXIT

check_png() {
  python3 - "$1" <<'PY' || fail "$1 is not a valid PNG"
import sys, struct, zlib
d = open(sys.argv[1], 'rb').read()
assert d[:8] == b'\x89PNG\r\n\x1a\n' and d[12:16] == b'IHDR'
assert struct.unpack('>I', d[29:33])[0] == zlib.crc32(d[12:29])
assert d[-8:-4] == b'IEND'
PY
}

# ---- the databases ----
"$m" run tests/lua/pki_small.lua --out "$tmp/pki.db" --quiet >/dev/null 2>"$tmp/err" \
  || fail "run pki_small: $(cat "$tmp/err")"
cat > "$tmp/algs.lua" <<'EOF'
-- a string sweep: the CA's signature algorithm
sweep("alg", { "ed25519", "ml-dsa-44" })
local alg = param("alg", "ed25519", "CA algorithm")
mtcsim.world{ duration = hours(4), grid_step = hours(1), start = "empty" }
local w = mtcsim.cosigner{ name = "w1", algorithm = "ed25519" }
mtcsim.ca{ name = "ca1", algorithm = alg, rate = per_day(2000), cosigners = { w }, quorum = 1 }
mtcsim.update_service{ name = "us" }
EOF
"$m" run "$tmp/algs.lua" --out "$tmp/algs.db" --replications 2 --quiet >/dev/null 2>"$tmp/err" \
  || fail "run string sweep: $(cat "$tmp/err")"
"$drv" sweep "$tmp/sweep.db" 3 3 || fail "driver sweep"
"$drv" mixed "$tmp/mixed.db" || fail "driver mixed"

# ---- ls ----
out=$("$m" ls "$tmp/pki.db") || fail "ls"
echo "$out" | grep -q '^experiment 1: pki_small.lua' || fail "ls: experiment line: $out"
echo "$out" | grep -q 'grid: 2 sweep points x 2 replications = 4 runs: 4 completed, 0 failed' \
  || fail "ls: grid line: $out"
echo "$out" | grep -Eq '^ +1 +2 +2 +0 +0 +landmark_interval=10800$' || fail "ls: point 1: $out"
out=$("$m" ls "$tmp/mixed.db") || fail "ls mixed"
echo "$out" | grep -q '2 completed, 1 failed, 1 interrupted, 0 running, 1 abandoned; 3 to do' \
  || fail "ls: status counts: $out"
out=$("$m" ls "$tmp/mixed.db" --runs) || fail "ls --runs"
echo "$out" | grep -q 'abandoned' || fail "ls --runs: abandoned run"
echo "$out" | grep -q 'scenario.lua:12: <bad> & "quoted" error' || fail "ls --runs: error text"
out=$("$m" ls "$tmp/pki.db" --experiment 1) || fail "ls --experiment"
[ "$(echo "$out" | grep -Ec '^ +[0-9]+ +[01] +[01] +1 completed')" = 4 ] || fail "ls: 4 runs listed: $out"
echo "$out" | grep -Eq '^  \* scenario +scenario +landmark_interval +3600$' || fail "ls: swept param starred"
echo "$out" | grep -Eq '^    ca +ca1 +algorithm +ed25519$' || fail "ls: entity parameter"
echo "$out" | grep -Eq '^  signatures +counter +signatures +yes +ca1,w1,w2$' || fail "ls: metric cohorts"
"$m" ls "$tmp/pki.db" --experiment 9 >/dev/null 2>"$tmp/err"; [ $? -eq 2 ] || fail "ls: unknown experiment must exit 2"
grep -q 'no experiment 9' "$tmp/err" || fail "ls: unknown experiment message"
"$m" ls "$tmp/none.db" >/dev/null 2>&1; [ $? -eq 2 ] || fail "ls: missing file must exit 2"
[ ! -e "$tmp/none.db" ] || fail "ls created a database"
"$m" ls --help | grep -q '^usage: mtcsim ls' || fail "ls --help"

# ---- plot: a sweep against its parameter, in hours ----
out=$("$m" plot "$tmp/sweep.db" signatureless_fraction --print --out "$tmp/frac.png") \
  || fail "plot sweep"
echo "$out" | grep -q "$tmp/frac.png" || fail "plot prints the image path"
check_png "$tmp/frac.png"
echo "$out" | grep -q '^# x: landmark_interval (hours)' || fail "sweep x axis not in hours: $out"
echo "$out" | awk -F'\t' 'NF == 4 { n++; if (!($3 <= $2 && $2 <= $4)) bad = 1; x = x " " $1 }
  END { exit !(n == 3 && !bad && x == " 1 4 16") }' || fail "sweep rows: $out"
# the same numbers as the database's own summaries (3 replications each)
python3 - "$tmp/sweep.db" "$out" <<'PY' || fail "plot disagrees with the database"
import sys, sqlite3
db = sqlite3.connect(sys.argv[1])
rows = [l.split('\t') for l in sys.argv[2].splitlines() if l.count('\t') == 3]
for p, r in enumerate(rows):
    v = [s / f for s, f in db.execute(
        "SELECT s.value, f.value FROM scalar_v s JOIN scalar_v f USING (run_id, cohort) "
        "JOIN run USING (run_id) WHERE s.metric = 'handshake_signatureless' AND "
        "f.metric = 'handshake_full' AND cohort = 'all' AND sweep_point = ?", (p,))]
    assert len(v) == 3 and abs(sum(v) / 3 - float(r[1])) < 1e-9, (p, v, r)
PY

# ---- plot: a series with its band, warm-up marked; counters per hour ----
out=$("$m" plot "$tmp/pki.db" log_entries --point 1 --print --out "$tmp/series.svg") \
  || fail "plot series"
python3 - "$tmp/series.svg" <<'PY' || fail "series.svg is not well-formed SVG"
import sys, xml.etree.ElementTree as ET
assert ET.parse(sys.argv[1]).getroot().tag.endswith('svg')
PY
echo "$out" | grep -q '^# x: time since the start of the measured window (hours); y: log_entries per hour (entries)' \
  || fail "series axes: $out"
echo "$out" | grep -q '^# landmark_interval=10800 (n=2)' || fail "series line title: $out"
n=$(echo "$out" | awk -F'\t' 'NF == 4' | wc -l)
[ "$n" -ge 10 ] || fail "series: $n rows"
grep -q '^plot \$d0 using 1:3:4 with filledcurves' "$tmp/series.svg.gp" || fail "series without band"
# the scenario's sim:at action: recorded with each run, marked on the series
[ "$(sqlite3 "$tmp/pki.db" "select count(*) from run_attr where name = 'action.0001' and value = '7200 cosigner_outage w1 3600'")" = 4 ] \
  || fail "sim:at action not recorded: $(sqlite3 "$tmp/pki.db" 'select * from run_attr')"
grep -q "^set label 'cosigner_outage w1' at 2, graph" "$tmp/series.svg.gp" || fail "sim:at action not marked"
(cd "$tmp" && rm series.svg && gnuplot series.svg.gp) || fail "redraw from the script"
[ -s "$tmp/series.svg" ] || fail "redraw made no image"
# per cohort: one line per signer
out=$("$m" plot "$tmp/pki.db" signatures --point 0 --by-cohort --print --out "$tmp/sig.png") \
  || fail "plot --by-cohort"
for c in ca1 w1 w2; do echo "$out" | grep -q "^# landmark_interval=3600, $c (n=2)" || fail "cohort $c: $out"; done
check_png "$tmp/sig.png"

# ---- plot: histograms as CDFs, one line per sweep point ----
out=$("$m" plot "$tmp/pki.db" issuance_delay_landmark --print --out "$tmp/cdf.png") \
  || fail "plot cdf"
[ "$(echo "$out" | grep -c '^# landmark_interval=')" = 2 ] || fail "cdf: a line per point"
echo "$out" | awk -F'\t' '/^# landmark/ { prev = -1 } NF == 4 { if ($2 < prev) bad = 1; prev = $2; last = $2 }
  END { exit bad || last != 1 }' || fail "cdf not monotone up to 1: $out"
check_png "$tmp/cdf.png"

# ---- plot: a string sweep as bars; a scalar per cohort as bars ----
out=$("$m" plot "$tmp/algs.db" log_storage_bytes --print --out "$tmp/bars.png") || fail "plot bars"
echo "$out" | grep -q '^# x: sweep point' || fail "bars x axis: $out"
echo "$out" | grep -q '^alg=ml-dsa-44	1	' || fail "bars category: $out"
grep -q "set xtics ('alg=ed25519' 0, 'alg=ml-dsa-44' 1)" "$tmp/bars.png.gp" || fail "bars tics"
check_png "$tmp/bars.png"
out=$("$m" plot "$tmp/pki.db" signatures --as bars --point 0 --by-cohort --print --out "$tmp/b2.png") \
  || fail "plot bars by cohort"
echo "$out" | grep -q '^w2	2	' || fail "bars per cohort: $out"

# ---- errors ----
"$m" plot "$tmp/pki.db" log_entrie --out "$tmp/x.png" 2>"$tmp/err"; [ $? -eq 2 ] || fail "unknown metric must exit 2"
grep -q "no metric 'log_entrie' (did you mean 'log_entries'?)" "$tmp/err" || fail "suggestion: $(cat "$tmp/err")"
"$m" plot "$tmp/pki.db" signatures --cohort nope --out "$tmp/x.png" 2>"$tmp/err"; [ $? -eq 2 ] || fail "unknown cohort"
grep -q "no cohort 'nope' (cohorts: all, ca1, w1, w2)" "$tmp/err" || fail "cohort list: $(cat "$tmp/err")"
"$m" plot "$tmp/pki.db" signatures --point 5 --out "$tmp/x.png" 2>/dev/null; [ $? -eq 2 ] || fail "unknown point"
"$m" plot "$tmp/pki.db" signatures --experiment 4 --out "$tmp/x.png" 2>/dev/null; [ $? -eq 2 ] || fail "unknown experiment"
"$m" plot "$tmp/pki.db" signatures --out "$tmp/x.jpg" 2>/dev/null; [ $? -eq 2 ] || fail "bad image type"
"$m" plot "$tmp/pki.db" log_entries --as cdf --out "$tmp/x.png" 2>/dev/null; [ $? -eq 2 ] || fail "cdf of a counter"
[ ! -e "$tmp/x.png" ] || fail "an image was drawn on a usage error"
"$m" plot --help | grep -q '^usage: mtcsim plot' || fail "plot --help"
"$m" plot "$tmp/pki.db" 2>/dev/null; [ $? -eq 2 ] || fail "plot without METRIC"
echo "ls and plot ok"
