#!/bin/sh
# The researcher's two studies, done as a new user would: library
# scenarios, command-line options and mtcsim's own commands only, each
# number then checked against SQL on the same database (usage:
# sh_study.sh BUILD). Small worlds (a small CA with Ed25519 signers, a
# quarter of a measured day) keep it to a few seconds of CPU per study.
#  (a) A landmark-interval recommendation: quickstart swept over two
#      landmark intervals, 5 replications; `compare` of the experiment
#      with itself across the declared axis gives each figure's paired
#      difference (common random numbers) with its interval. The world's
#      warm-up grows with the interval (steady_warmup): those differences
#      follow from the axis and must not refuse the comparison.
#  (b) An enterprise cohort's fallback share and extra milliseconds:
#      chrome-adoption at one enterprise share, 5 replications; the run
#      summary of the cohort (--cohort) gives the fallback share with its
#      Wilson interval and the milliseconds against today's chain
#      (handshake_ms_extra_*), and --vs-cohort the difference to the
#      regular desktops (same paths) within each run; `compare` of the
#      database with itself across cohorts gives the same paired interval.
set -u
b=${1:-build}
m="$b/mtcsim"
fail() { echo "FAIL: $*"; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/sh_study.XXXXXX") || fail "mktemp"
trap 'rm -rf "$tmp"' EXIT
set -f   # $small's '*' are mtcsim's, not the shell's
small="--set days=0.25 --set issuance=5e3 --set ca.*.algorithm=ed25519 --set cosigner.*.algorithm=ed25519"

# ---- (a) two landmark intervals, 5 replications ----
# shellcheck disable=SC2086
"$m" run scenarios/quickstart.lua $small --set scale=0.002 --sweep landmark_interval=3600,14400 \
  --replications 5 --out "$tmp/li.db" >"$tmp/li.out" 2>"$tmp/err" || fail "quickstart sweep: $(tail -3 "$tmp/err")"
"$m" compare "$tmp/li.db" "$tmp/li.db" --axis landmark_interval \
  --stat issuance_delay_landmark.mean --stat update_bytes >"$tmp/li.cmp" 2>"$tmp/err" \
  || fail "compare across the declared axis: $(cat "$tmp/err")"
grep -q '^== A \[landmark_interval=3600\] vs B \[landmark_interval=14400\]$' "$tmp/li.cmp" \
  || fail "compare did not pair the two points: $(head -12 "$tmp/li.cmp")"
[ "$(grep -c '^== A ' "$tmp/li.cmp")" = 1 ] || fail "the experiment against itself: one pair expected"
grep -q 'WARNING' "$tmp/li.cmp" "$tmp/err" && fail "a warning: $(grep WARNING "$tmp/li.cmp")"
grep -q '^following from them .*world\.world\.warmup ' "$tmp/li.cmp" \
  || fail "the warm-up's difference is not said to follow from the axis"
grep -q '^intervals of B - A: paired' "$tmp/li.cmp" || fail "not paired by replication"
python3 - "$tmp/li.db" "$tmp/li.out" "$tmp/li.cmp" <<'PY' || fail "study (a): mtcsim's numbers differ from SQL"
import sys, sqlite3, math, statistics
db = sqlite3.connect(sys.argv[1])
T4 = 2.7764451051977987          # t(0.975, 4): five replications
def close(a, b, what, rel=2e-5):
    assert abs(a - b) <= rel * max(1.0, abs(b)), (what, a, b)
def per_point(sql):
    out = {}
    for point, rep, v in db.execute(sql):
        out.setdefault(point, {})[rep] = v
    return out
frac = per_point("""SELECT r.sweep_point, r.replication, CAST(s.value AS REAL) / f.value
    FROM run r JOIN scalar_v s USING (run_id) JOIN scalar_v f USING (run_id)
    WHERE r.status = 'completed' AND s.metric = 'handshake_signatureless'
    AND f.metric = 'handshake_full' AND s.cohort = 'all' AND f.cohort = 'all'""")
delay = per_point("""SELECT r.sweep_point, r.replication, h.mean FROM run r
    JOIN histogram_v h USING (run_id) WHERE r.status = 'completed'
    AND h.metric = 'issuance_delay_landmark' AND h.cohort = 'all'""")
upd = per_point("""SELECT r.sweep_point, r.replication, s.value FROM run r
    JOIN scalar_v s USING (run_id) WHERE r.status = 'completed'
    AND s.metric = 'update_bytes' AND s.cohort = 'all'""")
assert sorted(frac) == [0, 1] and all(len(frac[p]) == 5 for p in frac), frac
# the run summary: each point's mean
tables, cur = {}, None
for line in open(sys.argv[2]):
    if line.startswith('== summary ['):
        cur = line.split('[')[1].split(']')[0]
        tables[cur] = {}
    elif cur and line.split()[:1] and not line.startswith('#'):
        f = line.split(None, 2)
        if len(f) >= 2:
            try: tables[cur][f[0]] = float(f[1])
            except ValueError: pass
for p, lab in ((0, 'landmark_interval=3600'), (1, 'landmark_interval=14400')):
    close(tables[lab]['signatureless_fraction'], statistics.mean(frac[p].values()), ('fraction', lab))
    close(tables[lab]['issuance_delay_landmark.mean'], statistics.mean(delay[p].values()), ('delay', lab))
# compare: B - A, paired by replication, Student-t on the differences
rows = {}
for line in open(sys.argv[3]):
    f = line.split()
    if len(f) >= 7 and f[0] in ('issuance_delay_landmark.mean', 'update_bytes', 'signatureless_fraction'):
        lo, hi = line.split('[')[-1].split(']')[0].split(',')
        rows[f[0]] = (float(f[5]), float(lo), float(hi))
for name, x in (('issuance_delay_landmark.mean', delay), ('update_bytes', upd), ('signatureless_fraction', frac)):
    d = [x[1][r] - x[0][r] for r in sorted(x[0])]
    mean, hw = statistics.mean(d), T4 * statistics.stdev(d) / math.sqrt(len(d))
    got = rows[name]
    close(got[0], mean, (name, 'difference'), 1e-5)
    close(got[1], mean - hw, (name, 'low'), 1e-5)
    close(got[2], mean + hw, (name, 'high'), 1e-5)
# compare prints a fraction's interval with the summary's digits (six
# significant: 0.99951 and 0.99962 are told apart)
wil = {}
cur = None
for line in open(sys.argv[2]):
    if line.startswith('== summary ['):
        cur = line.split('[')[1].split(']')[0]
    elif cur and line.startswith('signatureless_fraction '):
        wil[cur] = [float(x) for x in line.split('[')[1].split(']')[0].split(',')]
for line in open(sys.argv[3]):
    if line.startswith('signatureless_fraction '):
        f = line.split()
        a_ci = [float(x) for x in f[2].strip('[]').split(',')]
        b_ci = [float(x) for x in f[4].strip('[]').split(',')]
        for got, want in ((a_ci, wil['landmark_interval=3600']), (b_ci, wil['landmark_interval=14400'])):
            for g, w in zip(got, want):
                assert abs(g - w) <= 1e-6 * max(1e-9, abs(w)), ('compare interval digits', got, want)
# the recommendation reads: the landmark-relative wait grows with the interval
assert rows['issuance_delay_landmark.mean'][1] > 0, rows
PY
# the figures of the study (real gnuplot): series from the start of each
# point's measured window, whose warm-ups differ (steady_warmup grows with
# the interval), so both points line up on 0.25 measured days; rates per
# hour from 0
"$m" report "$tmp/li.db" --out "$tmp/rep" --quiet >/dev/null 2>"$tmp/err" || fail "report: $(cat "$tmp/err")"
"$m" plot "$tmp/li.db" update_bytes --as series --print --out "$tmp/ub.png" >"$tmp/ub.txt" 2>"$tmp/err" \
  || fail "plot update_bytes: $(cat "$tmp/err")"
for f in "$tmp/rep/fraction.png" "$tmp/rep/signer_load.png" "$tmp/ub.png"; do
  [ "$(head -c 4 "$f" | od -An -c | tr -d ' ')" = "211PNG" ] || fail "$f is not a PNG"
done
python3 - "$tmp/rep" "$tmp/ub.txt" "$tmp/ub.png.gp" <<'PY' || fail "the series figures are not cropped to the measured window"
import sys, os
rep = sys.argv[1]
def blocks(path):
    out, cur = [], None
    for line in open(path):
        line = line.strip()
        if not line:
            cur = None
            continue
        if line.startswith('"') or line.startswith('#'):
            cur = []
            out.append(cur)
            continue
        if cur is not None:
            cur.append(float(line.replace('\t', ' ').split()[0]))
    return [b for b in out if b]
for name in ('fraction', 'signer_load'):
    bs = blocks(os.path.join(rep, 'data', name + '.dat'))
    assert len(bs) >= 2, (name, bs)
    firsts = {b[0] for b in bs}
    assert len(firsts) == 1, (name, 'points not aligned', firsts)
    assert all(0 < x <= 6 for b in bs for x in b), (name, 'outside the measured 6 h', bs)
    v = open(os.path.join(rep, 'gp', name + '.vars.gp')).read()
    assert "xlabel = 'time since the start of the measured window (hours)'" in v, v
    assert 'warm-up end' not in v, v
    if name == 'signer_load':
        assert 'set yrange [0:*]' in v, v
xs = [float(l.split('\t')[0]) for l in open(sys.argv[2]) if l[0].isdigit()]
assert xs and all(0 < x <= 6 for x in xs), xs
gp = open(sys.argv[3]).read()
assert "set xlabel 'time since the start of the measured window (hours)'" in gp, gp
assert 'set yrange [0:*]' in gp, gp
PY

# ---- (b) the enterprise cohort: fallback share and extra milliseconds ----
# shellcheck disable=SC2086
"$m" run scenarios/chrome-adoption.lua $small --set scale=0.003 --sweep enterprise_share=0.3 --replications 5 \
  --cohort enterprise --vs-cohort regular-desktop --out "$tmp/ent.db" >"$tmp/ent.out" 2>"$tmp/err" \
  || fail "chrome-adoption: $(tail -3 "$tmp/err")"
grep -q '^== summary \[enterprise_share=0.3\] cohort enterprise: 5 replications$' "$tmp/ent.out" \
  || fail "no enterprise table: $(grep '^==' "$tmp/ent.out")"
grep -q '^== difference \[enterprise_share=0.3\] cohort enterprise - regular-desktop: 5 replications, paired within each run$' \
  "$tmp/ent.out" || fail "no difference table: $(grep '^==' "$tmp/ent.out")"
"$m" compare "$tmp/ent.db" "$tmp/ent.db" --cohort enterprise --vs-cohort regular-desktop \
  --stat handshake_ms.mean >"$tmp/ent.cmp" 2>"$tmp/err" || fail "compare across cohorts: $(cat "$tmp/err")"
grep -q '^-- cohort enterprise (B) against cohort regular-desktop (A)$' "$tmp/ent.cmp" \
  || fail "compare's cohort header: $(head -12 "$tmp/ent.cmp")"
grep -q '^intervals of B - A: paired' "$tmp/ent.cmp" || fail "cohorts of one run not paired"
python3 - "$tmp/ent.db" "$tmp/ent.out" "$tmp/ent.cmp" <<'PY' || fail "study (b): mtcsim's numbers differ from SQL"
import sys, sqlite3, math, statistics
db = sqlite3.connect(sys.argv[1])
T4 = 2.7764451051977987
def close(a, b, what, rel=2e-5):
    assert abs(a - b) <= rel * max(1.0, abs(b)), (what, a, b)
def by_rep(sql, *args):
    return {rep: v for rep, v in db.execute(sql, args)}
def hist(metric, stat, cohort):
    return by_rep(f"""SELECT r.replication, h.{stat} FROM run r JOIN histogram_v h USING (run_id)
        WHERE r.status = 'completed' AND h.metric = ? AND h.cohort = ?""", metric, cohort)
tables, cur = {}, None
for line in open(sys.argv[2]):
    if line.startswith('== '):
        cur = 'diff' if line.startswith('== difference') else line.split('cohort ')[-1].split(':')[0] if 'cohort' in line else 'all'
        tables[cur] = {}
    elif cur and not line.startswith('#'):
        f = line.split(None, 2)
        if len(f) >= 2:
            try: tables[cur][f[0]] = (float(f[1]), f[2].strip() if len(f) > 2 else '')
            except ValueError: pass
ent = tables['enterprise']
# the fallback share: full handshakes without a landmark-relative certificate
full = by_rep("""SELECT r.replication, s.value FROM run r JOIN scalar_v s USING (run_id)
    WHERE r.status = 'completed' AND s.metric = 'handshake_full' AND s.cohort = 'enterprise'""")
sl = by_rep("""SELECT r.replication, s.value FROM run r JOIN scalar_v s USING (run_id)
    WHERE r.status = 'completed' AND s.metric = 'handshake_signatureless' AND s.cohort = 'enterprise'""")
assert len(full) == 5 and all(full[r] > 0 for r in full), full
fb = [(full[r] - sl[r]) / full[r] for r in sorted(full)]
p = statistics.mean(fb)
mean, ci = ent['fallback_share']
close(mean, p, 'fallback share')
lo, hi = (float(x) for x in ci.strip('[]').split(','))
assert 0 <= lo <= mean <= hi <= 1, (lo, mean, hi)
s2 = statistics.variance(fb)
n = min(sum(full.values()), p * (1 - p) * 5 / s2) if s2 > 0 and 0 < p < 1 else sum(full.values())
z2 = T4 * T4
d = 1 + z2 / n
c = (p + z2 / (2 * n)) / d
h = T4 * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / d
close(lo, 0 if p <= 0 else max(0, c - h), 'fallback share low', 1e-5)
close(hi, 1 if p >= 1 else min(1, c + h), 'fallback share high', 1e-5)
def t_of(d):
    return statistics.mean(d), T4 * statistics.stdev(d) / math.sqrt(len(d))
# extra milliseconds against today's chain, within each run
for q in ('p50', 'p90'):
    mtc, today = hist('handshake_ms', q, 'enterprise'), hist('handshake_ms_today', q, 'enterprise')
    m, hw = t_of([mtc[r] - today[r] for r in sorted(mtc)])
    got, ci = ent['handshake_ms_extra_%s_vs_today' % q]
    close(got, m, ('extra ms vs today', q), 1e-5)
    close(float(ci.lstrip('+-')), hw, ("extra ms vs today, half-width", q), 5e-3)
# extra milliseconds against the regular desktops (the same paths), within each run
e, rd = hist('handshake_ms', 'mean', 'enterprise'), hist('handshake_ms', 'mean', 'regular-desktop')
m, hw = t_of([e[r] - rd[r] for r in sorted(e)])
e50, rd50 = hist('handshake_ms', 'p50', 'enterprise'), hist('handshake_ms', 'p50', 'regular-desktop')
m50, hw50 = t_of([e50[r] - rd50[r] for r in sorted(e50)])
got, ci = tables['diff']['handshake_ms.p50']
close(got, m50, 'enterprise - regular-desktop p50', 1e-5)
close(float(ci.lstrip('+-')), hw50, "its half-width", 5e-3)
# compare: the same paired difference (B = enterprise, A = regular-desktop)
for line in open(sys.argv[3]):
    f = line.split()
    if f[:1] == ['handshake_ms.mean']:
        lo, hi = line.split('[')[-1].split(']')[0].split(',')
        close(float(f[5]), m, 'compare: mean difference', 1e-5)
        close(float(lo), m - hw, 'compare: low', 1e-5)
        close(float(hi), m + hw, 'compare: high', 1e-5)
        break
else:
    raise AssertionError('compare printed no handshake_ms.mean row')
PY
echo "study: (a) landmark intervals paired across the declared axis, (b) the enterprise cohort's fallback share and extra ms, each = SQL"
