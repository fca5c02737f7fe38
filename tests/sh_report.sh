#!/bin/sh
# mtcsim report and export over databases written by the results writer
# (tests/results_driver: synthetic sweeps through sim/results.h):
#  - a 3-point x 3-replication sweep: every figure rendered as a valid PNG
#    (signature, IHDR with its CRC) and a well-formed SVG (python3 XML
#    parser); index.html shows each figure, caption and the summary table;
#    the report works from another working directory (scripts embedded);
#  - the CDF figures' scripts: x range the data's (against the database),
#    x label with the unit and "log scale" exactly on a log axis, y range
#    [0, 1], and no tick label twice on either axis of the rendered SVG;
#  - an experiment with interrupted / failed / abandoned runs: listed, and
#    excluded from figures; a run without metrics: figures omitted with a
#    note naming the missing metric;
#  - export: one CSV per table, record counts (parsed with python's csv
#    module, quoting included) equal the table row counts;
#  - missing, corrupt (random bytes) and foreign (valid SQLite) files: exit
#    2, a clear message naming the file, and the file's bytes unchanged.
set -u
b=${1:-build}
root=$(pwd)
m="$root/$b/mtcsim"
drv="$root/$b/tests/results_driver"
fail() { echo "FAIL: $*"; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/sh_report.XXXXXX") || fail "mktemp"
trap 'rm -rf "$tmp"' EXIT

check_png() {  # file
  python3 - "$1" <<'PY' || fail "$1 is not a valid PNG"
import sys, struct, zlib
d = open(sys.argv[1], 'rb').read()
assert d[:8] == b'\x89PNG\r\n\x1a\n', 'signature'
n, t = struct.unpack('>I4s', d[8:16])
assert t == b'IHDR' and n == 13, 'IHDR'
w, h = struct.unpack('>II', d[16:24])
assert w > 100 and h > 100, 'size'
assert struct.unpack('>I', d[29:33])[0] == zlib.crc32(d[12:29]), 'IHDR crc'
assert d[-8:-4] == b'IEND', 'IEND'
PY
}
check_svg() {  # file
  python3 - "$1" <<'PY' || fail "$1 is not a well-formed SVG"
import sys, xml.etree.ElementTree as ET
r = ET.parse(sys.argv[1]).getroot()
assert r.tag.endswith('svg'), r.tag
assert len(list(r.iter())) > 20
PY
}

# ---- a sweep ----
"$drv" sweep "$tmp/sweep.db" 3 3 || fail "driver sweep"
cd /  # the report must not need the source tree
out=$("$m" report "$tmp/sweep.db" --out "$tmp/rep" --quiet) || fail "report on the sweep"
cd "$root"
[ "$out" = "$tmp/rep/index.html" ] || fail "report printed '$out', not the index path"
for f in fraction auth_bytes_cdf auth_bytes_today_cdf sweep_fraction sweep_auth_bytes issuance_delay_cdf signer_load \
         fraction_by_cohort diff_fraction diff_auth_bytes; do
  check_png "$tmp/rep/$f.png"
  check_svg "$tmp/rep/$f.svg"
  grep -q "src=\"$f.png\"" "$tmp/rep/index.html" || fail "index.html lacks figure $f"
done
python3 - "$tmp/rep/index.html" <<'PY' || fail "index.html content"
import sys, html.parser
t = open(sys.argv[1]).read()
class P(html.parser.HTMLParser):
    def __init__(s): super().__init__(); s.caps = 0; s.imgs = 0; s.rows = 0
    def handle_starttag(s, tag, a):
        s.caps += tag == 'figcaption'; s.imgs += tag == 'img'; s.rows += tag == 'tr'
p = P(); p.feed(t)
assert p.imgs == 10 and p.caps == 10, (p.imgs, p.caps)
assert 'signatureless fraction' in t and 'landmark_interval=57600' in t
assert '<h2>Summary</h2>' in t and p.rows > 20
assert 'Not drawn' not in t
assert '<h2>Per cohort</h2>' in t and '<td>early</td>' in t and '<td>late</td>' in t
PY
# the CDF figures as rendered: the x range is the data's (the pooled
# histograms' smallest and largest observation in the database, not
# gnuplot's extension to the next decade), the x label names the unit (and
# says "log scale" exactly on a log axis), the y range holds [0, 1], and
# neither axis of the rendered SVG repeats a tick label
python3 - "$tmp/sweep.db" "$tmp/rep" <<'PY' || fail "CDF figures: ranges, labels, ticks"
import sys, sqlite3, re, os
db = sqlite3.connect(sys.argv[1])
rep = sys.argv[2]
figs = {'auth_bytes_cdf': ('bytes', ['auth_bytes', 'auth_bytes_baseline_classical', 'auth_bytes_baseline_mldsa44']),
        'auth_bytes_today_cdf': ('bytes', ['auth_bytes', 'auth_bytes_today_classical']),
        'issuance_delay_cdf': ('s', ['issuance_delay_standalone', 'issuance_delay_landmark'])}
assert re.search(r'^set yrange \[0:1\.02\]$', open(os.path.join(rep, 'gp', 'cdf.gp')).read(), re.M)
for name, (unit, metrics) in figs.items():
    v = open(os.path.join(rep, 'gp', name + '.vars.gp')).read()
    lo, hi = map(float, re.search(r'^set xrange \[([^:]+):([^\]]+)\]$', v, re.M).groups())
    q = ("SELECT min(h.min), max(h.max) FROM histogram_v h JOIN run r USING (run_id) "
         "WHERE r.status = 'completed' AND h.cohort = 'all' AND h.count > 0 AND h.metric IN (%s)"
         % ','.join('?' * len(metrics)))
    dmin, dmax = db.execute(q, metrics).fetchone()
    assert abs(lo - dmin) <= 1e-6 * abs(dmin) and abs(hi - dmax) <= 1e-6 * abs(dmax), (name, lo, hi, dmin, dmax)
    logx = int(re.search(r'^logx = (\d)$', v, re.M).group(1))
    xl = re.search(r"^xlabel = '(.*)'$", v, re.M).group(1)
    assert xl.endswith('(%s%s)' % (unit, ', log scale' if logx else '')), (name, xl, logx)
    assert not logx or dmin > 0, (name, dmin)
    # every data row inside the range and y inside [0, 1]
    for line in open(os.path.join(rep, 'data', name + '.dat')):
        f = line.split()
        if len(f) == 2 and not f[0].startswith('"'):
            x, y = float(f[0]), float(f[1])
            assert lo - 1e-9 * abs(lo) <= x <= hi + 1e-9 * abs(hi) and 0 <= y <= 1, (name, line)
    # tick labels of the rendered SVG: the x axis's share the row just above
    # the x label, the y axis's the leftmost column
    svg = open(os.path.join(rep, name + '.svg')).read()
    texts = [(float(a), float(b), t.strip()) for a, b, t in
             re.findall(r'<g transform="translate\(([\d.]+),([\d.]+)\)"[^>]*>\s*<text>([^<]*)</text>', svg)]
    xlab_y = [y for x, y, t in texts if t == xl.replace('<', '&lt;')][0]
    xrow = max(y for x, y, t in texts if y < xlab_y)
    xt = [t for x, y, t in texts if y == xrow]
    ycol = min(x for x, y, t in texts)
    yt = [t for x, y, t in texts if x == ycol]
    for axis, ticks in (('x', xt), ('y', yt)):
        assert len(ticks) >= 2 and len(set(ticks)) == len(ticks), (name, axis, ticks)
PY
# the sweep axis in hours (the swept landmark interval is a duration)
awk 'NR > 1 && NF == 4 { x = x " " $1 } END { exit x != " 1 4 16" }' "$tmp/rep/data/sweep_fraction.dat" \
  || fail "sweep axis not in hours: $(cat "$tmp/rep/data/sweep_fraction.dat")"
grep -q "xlabel = 'landmark_interval (hours)'" "$tmp/rep/gp/sweep_fraction.vars.gp" || fail "sweep axis label"
# paired differences to the reference point: 0 at the reference, the same
# difference as recomputed here from the database
python3 - "$tmp/sweep.db" "$tmp/rep/data/diff_fraction.dat" <<'PY' || fail "paired differences"
import sys, sqlite3
db = sqlite3.connect(sys.argv[1])
rows = [l.split('\t') for l in open(sys.argv[2]) if l.count('\t') == 3]
assert [float(r[0]) for r in rows] == [1, 4, 16], rows
assert float(rows[0][1]) == 0 and float(rows[0][2]) == 0 and float(rows[0][3]) == 0, rows[0]
def frac(p):
    return dict(db.execute(
        "SELECT r.replication, CAST(s.value AS REAL) / f.value FROM run r JOIN scalar_v s "
        "USING (run_id) JOIN scalar_v f USING (run_id, cohort) WHERE s.metric = "
        "'handshake_signatureless' AND f.metric = 'handshake_full' AND cohort = 'all' "
        "AND r.sweep_point = ?", (p,)).fetchall())
a, b = frac(0), frac(2)
d = sum(b[k] - a[k] for k in a) / len(a)
assert abs(d - float(rows[2][1])) < 1e-9 and float(rows[2][2]) < d < float(rows[2][3]), (d, rows[2])
PY
grep -q '(paired)' "$tmp/rep/data/diff_fraction.dat" || fail "differences not paired"
"$m" report "$tmp/sweep.db" --reference 2 --out "$tmp/ref2" --quiet >/dev/null || fail "--reference 2"
grep -q 'minus landmark_interval=57600' "$tmp/ref2/data/diff_fraction.dat" || fail "--reference not used"
"$m" report "$tmp/sweep.db" --reference 9 --out "$tmp/ref9" >/dev/null 2>&1; [ $? -eq 2 ] || fail "--reference 9 must exit 2"
# the data behind the sweep curve: 3 points, CI band ordered
awk 'NR > 1 && NF == 4 { n++; if (!($3 <= $2 && $2 <= $4)) bad = 1 } END { exit !(n == 3 && !bad) }' \
  "$tmp/rep/data/sweep_fraction.dat" || fail "sweep_fraction.dat"
# reproducible by hand from the report directory
(cd "$tmp/rep" && rm fraction.png && gnuplot gp/fraction.vars.gp gp/fraction.gp) || fail "re-render by hand"
check_png "$tmp/rep/fraction.png"
# default output directory: FILE without .db, plus -report
"$m" report "$tmp/sweep.db" >/dev/null 2>&1 || fail "report with the default --out"
[ -f "$tmp/sweep-report/index.html" ] || fail "default output directory"

# ---- incomplete runs, and a run without metrics ----
"$drv" mixed "$tmp/mixed.db" || fail "driver mixed"
"$m" report "$tmp/mixed.db" --out "$tmp/mixed" --quiet >/dev/null || fail "report mixed"
# the driver's 'running' row has no writer left: shown abandoned, as ls does
for s in interrupted failed abandoned; do
  grep -q "<td>$s</td>" "$tmp/mixed/index.html" || fail "run status $s not listed"
done
grep -q '&lt;bad&gt; &amp; &quot;quoted&quot;' "$tmp/mixed/index.html" || fail "error text not escaped"
grep -q '(n=2)' "$tmp/mixed/data/fraction.dat" || fail "incomplete runs not excluded"
"$drv" bare "$tmp/bare.db" || fail "driver bare"
"$m" report "$tmp/bare.db" --out "$tmp/bare" 2>"$tmp/bare.err" >/dev/null || fail "report bare"
grep -q 'metric handshake_full is missing' "$tmp/bare/index.html" || fail "missing metric not named"
grep -q 'metric signatures is missing' "$tmp/bare/index.html" || fail "missing signatures not named"
grep -q 'handshake_full' "$tmp/bare.err" || fail "missing metric not reported on stderr"
[ ! -e "$tmp/bare/fraction.png" ] || fail "a figure drawn without its metrics"
"$m" report "$tmp/sweep.db" --experiment 7 --out "$tmp/x" >/dev/null 2>&1; [ $? -eq 2 ] \
  || fail "unknown experiment must exit 2"

# ---- a text-valued sweep: its points are categories, drawn as bars ----
cat > "$tmp/text.lua" <<'LUA'
mtcsim.world{ start = "empty", duration = hours(2), warmup = 0 }
local m = mtcsim.cosigner{ name = "m", role = "mirror" }
mtcsim.ca{ name = "le", rate = "1e4/d", cosigners = { m }, quorum = 1, landmark_interval = 600 }
mtcsim.update_service{ name = "u" }
mtcsim.sites{ name = "s", count = 20 }
mtcsim.browsers{ name = "b", count = 40, transport = param("tr", "tcp"), rtt = 80 }
LUA
"$m" run "$tmp/text.lua" --quiet --out "$tmp/text.db" --sweep tr=tcp,quic --replications 2 2>"$tmp/err" \
  || fail "text sweep run: $(cat "$tmp/err")"
"$m" report "$tmp/text.db" --out "$tmp/trep" --quiet >/dev/null 2>"$tmp/err" || fail "text sweep report: $(cat "$tmp/err")"
for fig in sweep_fraction sweep_auth_bytes; do
  check_png "$tmp/trep/$fig.png"
  grep -q "^# drawn by: gnuplot gp/$fig.vars.gp gp/bars.gp$" "$tmp/trep/gp/$fig.vars.gp" \
    || fail "$fig: a text sweep not drawn as bars: $(cat "$tmp/trep/gp/$fig.vars.gp")"
  grep -q "^xlabel = 'tr'$" "$tmp/trep/gp/$fig.vars.gp" || fail "$fig: x label"
  awk 'NR > 1 { print $1, $NF }' "$tmp/trep/data/$fig.dat" | tr '\n' ' ' | grep -q '^0 "tr=tcp" 1 "tr=quic" $' \
    || fail "$fig: categories: $(cat "$tmp/trep/data/$fig.dat")"
done
grep -q '^set yrange \[0:\*\]$' "$tmp/trep/gp/bars.gp" || fail "bars do not start at 0"
# a numeric sweep stays a curve
grep -q "^# drawn by: gnuplot gp/sweep_fraction.vars.gp gp/sweep.gp$" "$tmp/rep/gp/sweep_fraction.vars.gp" \
  || fail "a numeric sweep not drawn as a curve: $(cat "$tmp/rep/gp/sweep_fraction.vars.gp")"

# ---- export ----
"$m" export "$tmp/mixed.db" --csv "$tmp/csv" >/dev/null || fail "export"
python3 - "$tmp/mixed.db" "$tmp/csv" <<'PY' || fail "CSV row counts"
import sys, csv, sqlite3, os
db = sqlite3.connect('file:%s?mode=ro' % sys.argv[1], uri=True)
tables = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")]
assert len(tables) == 11, tables
views = ['scalar_v', 'vector_v', 'histogram_v', 'histogram_bin_v']
assert sorted(os.listdir(sys.argv[2])) == sorted(t + '.csv' for t in tables + views)
for t in tables:
    rows = list(csv.reader(open(os.path.join(sys.argv[2], t + '.csv'), newline='')))
    n = db.execute('SELECT count(*) FROM "%s"' % t).fetchone()[0]
    assert len(rows) == n + 1, (t, len(rows) - 1, n)
    cols = [d[1] for d in db.execute('PRAGMA table_info("%s")' % t)]
    assert rows[0] == cols, (t, rows[0])
    assert all(len(r) == len(cols) for r in rows), t
# quoting round trip: the failed run's error text
err = [r for r in csv.DictReader(open(os.path.join(sys.argv[2], 'run.csv'), newline='')) if r['status'] == 'failed'][0]['error']
assert err == 'scenario.lua:12: <bad> & "quoted" error', err
# the views, with the run's place joined in
sv = list(csv.DictReader(open(os.path.join(sys.argv[2], 'scalar_v.csv'), newline='')))
assert len(sv) == db.execute('SELECT count(*) FROM scalar_v').fetchone()[0]
assert {'experiment_id', 'sweep_point', 'replication', 'swept', 'metric', 'cohort', 'value'} <= set(sv[0])
PY
# filters: one experiment, two metrics, one cohort; ten significant digits
"$m" export "$tmp/sweep.db" --csv "$tmp/csv2" --experiment 1 --metric handshake_full \
  --metric auth_bytes --cohort all >/dev/null || fail "export with filters"
python3 - "$tmp/sweep.db" "$tmp/csv2" <<'PY' || fail "export filters"
import sys, csv, os, sqlite3
d = sys.argv[2]
def rows(t): return list(csv.DictReader(open(os.path.join(d, t + '.csv'), newline='')))
assert sorted({r['name'] for r in rows('metric')}) == ['auth_bytes', 'handshake_full'], rows('metric')[:3]
sv = rows('scalar_v')
assert {r['metric'] for r in sv} == {'handshake_full'} and {r['cohort'] for r in sv} == {'all'}, sv[:3]
assert {r['swept'] for r in sv} == {'landmark_interval=3600', 'landmark_interval=14400', 'landmark_interval=57600'}, {r['swept'] for r in sv}
# one column per swept parameter, holding its value
assert all(r['swept'] == 'landmark_interval=' + r['landmark_interval'] for r in sv), sv[:3]
assert len(sv) == 9, len(sv)
hv = rows('histogram_v')
assert {r['metric'] for r in hv} == {'auth_bytes'} and len(hv) == 9
for r in hv:
    for k in ('mean', 'p50', 'p99'):
        digits = r[k].lower().split('e')[0].replace('-', '').replace('.', '').lstrip('0')
        assert len(digits) <= 10, (k, r[k])
assert {r['metric'] for r in rows('summary')} <= {'auth_bytes', 'handshake_full'}
assert all(r['cohort'] == 'all' for r in rows('histogram'))
PY
"$m" export "$tmp/sweep.db" --csv "$tmp/csv3" --metric nosuch >/dev/null 2>&1; [ $? -eq 2 ] || fail "unknown metric must exit 2"
"$m" export "$tmp/sweep.db" --csv "$tmp/csv3" --experiment 5 >/dev/null 2>&1; [ $? -eq 2 ] || fail "unknown experiment must exit 2"

# ---- bad input: clear error, exit 2, file untouched ----
head -c 8192 /dev/urandom > "$tmp/junk.db"
sqlite3 "$tmp/foreign.db" "CREATE TABLE t (a); INSERT INTO t VALUES (1);" || fail "sqlite3"
for cmd in report export; do
  for f in missing junk foreign; do
    p="$tmp/$f.db"
    before=$(sha256sum "$p" 2>/dev/null | cut -d' ' -f1)
    if [ $cmd = report ]; then "$m" report "$p" --out "$tmp/o" 2>"$tmp/err" >/dev/null
    else "$m" export "$p" --csv "$tmp/o" 2>"$tmp/err" >/dev/null; fi
    [ $? -eq 2 ] || fail "$cmd $f.db must exit 2"
    grep -q "$p" "$tmp/err" || fail "$cmd $f.db: message does not name the file"
    case $f in
      missing) grep -q 'No such file' "$tmp/err" || fail "missing: $(cat "$tmp/err")"
               [ ! -e "$p" ] || fail "$cmd created $p" ;;
      junk)    grep -q 'not an SQLite database or is corrupt' "$tmp/err" || fail "junk: $(cat "$tmp/err")" ;;
      foreign) grep -q 'not an mtcsim results database' "$tmp/err" || fail "foreign: $(cat "$tmp/err")" ;;
    esac
    after=$(sha256sum "$p" 2>/dev/null | cut -d' ' -f1)
    [ "$before" = "$after" ] || fail "$cmd modified $f.db"
  done
done
[ ! -e "$tmp/o" ] || fail "an output directory was created for a bad database"

# ---- usage ----
"$m" report >/dev/null 2>&1; [ $? -eq 2 ] || fail "report without FILE must exit 2"
"$m" report "$tmp/sweep.db" --bogus 2>&1 | grep -q -- '--bogus' || fail "bad option not named"
"$m" export "$tmp/sweep.db" 2>&1 | grep -q -- '--csv' || fail "export without --csv"
"$m" report --help | grep -q usage || fail "report --help"
"$m" export --help | grep -q usage || fail "export --help"
echo "report and export ok"
