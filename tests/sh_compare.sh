#!/bin/sh
# mtcsim compare on real databases (tests/lua/pki_small.lua: 2 points x 2
# replications, a few seconds):
#  - before/after a change, same seeds: points matched by swept value,
#    paired intervals; the difference and its interval recomputed here from
#    the database (paired t, 1 degree of freedom); a real effect starred;
#  - another seed: Welch intervals; an experiment against itself: no
#    difference, nothing starred;
#  - pairing on every effective parameter: a point fixed with --set pairs
#    with the sweep point of its value only, unless declared with --axis;
#    each pair says what it paired and in what B differs; a difference
#    nobody declared is a WARNING, one outside --axis is refused (exit 2);
#  - --out DIR: compare.txt (the table printed) and overlaid figures,
#    no legend entry twice (a point paired with several is one line);
#  - errors: one argument, a missing file, an unknown experiment: exit 2.
set -u
b=${1:-build}
m="$b/mtcsim"
fail() { echo "FAIL: $*"; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/sh_compare.XXXXXX") || fail "mktemp"
trap 'rm -rf "$tmp"' EXIT
sc=tests/lua/pki_small.lua

"$m" run $sc --out "$tmp/r.db" --quiet >/dev/null 2>"$tmp/err" || fail "run 1: $(cat "$tmp/err")"
"$m" run $sc --out "$tmp/r.db" --quiet --set rate=0.05 >/dev/null 2>"$tmp/err" || fail "run 2: $(cat "$tmp/err")"
"$m" run $sc --out "$tmp/s.db" --quiet --seed 2 >/dev/null 2>"$tmp/err" || fail "run 3: $(cat "$tmp/err")"
"$m" run $sc --out "$tmp/one.db" --quiet --set landmark_interval=10800 >/dev/null 2>"$tmp/err" \
  || fail "run 4: $(cat "$tmp/err")"

# ---- paired: same seeds and replications ----
"$m" compare "$tmp/r.db:1" "$tmp/r.db:2" >"$tmp/p.txt" 2>"$tmp/err" || fail "compare: $(cat "$tmp/err")"
grep -q '^== A \[landmark_interval=3600\] vs B \[landmark_interval=3600\]$' "$tmp/p.txt" || fail "point match"
grep -q '^== A \[landmark_interval=10800\] vs B \[landmark_interval=10800\]$' "$tmp/p.txt" || fail "point 2 match"
[ "$(grep -c '^intervals of B - A: paired' "$tmp/p.txt")" = 2 ] || fail "not paired: $(cat "$tmp/p.txt")"
grep -Eq '^log_entries .* \* +[+-]' "$tmp/p.txt" || fail "a 40 % rate change not starred"
python3 - "$tmp/r.db" "$tmp/p.txt" <<'PY' || fail "paired interval differs from the database"
import sys, sqlite3, statistics, math
db = sqlite3.connect(sys.argv[1])
def vals(exp, point):
    return dict(db.execute(
        "SELECT r.replication, s.value FROM run r JOIN scalar_v s USING (run_id) "
        "WHERE r.experiment_id = ? AND r.sweep_point = ? AND s.metric = 'log_entries' "
        "AND s.cohort = 'all'", (exp, point)).fetchall())
a, b = vals(1, 0), vals(2, 0)
d = [b[r] - a[r] for r in sorted(a)]
m = statistics.mean(d)
h = 12.706204736174707 * statistics.stdev(d) / math.sqrt(len(d))  # t(0.975, 1)
row = [l for l in open(sys.argv[2]) if l.startswith('log_entries ')][0]
lo, hi = row.split('[')[1].split(']')[0].split(', ')
assert abs(float(row.split()[5]) - m) <= 1e-5 * max(1, abs(m)), (row, m)
assert abs(float(lo) - (m - h)) <= 1e-5 * abs(m - h) and abs(float(hi) - (m + h)) <= 1e-5 * abs(m + h), (row, m, h)
PY

# ---- Welch: another seed; no difference against itself ----
"$m" compare "$tmp/r.db:1" "$tmp/s.db" >"$tmp/w.txt" || fail "compare welch"
grep -q '^intervals of B - A: Welch' "$tmp/w.txt" || fail "not Welch: $(cat "$tmp/w.txt")"
"$m" compare "$tmp/r.db:1" "$tmp/r.db:1" >"$tmp/same.txt" || fail "compare with itself"
grep -Eq ' \* ' "$tmp/same.txt" && fail "a difference of an experiment with itself"
grep -Eq '^log_entries +[0-9.]+ +[0-9.e+]+ +[0-9.]+ +[0-9.e+]+ +\+0 \[\+0, \+0\]' "$tmp/same.txt" \
  || fail "self difference: $(grep log_entries "$tmp/same.txt")"

# ---- safe pairing: on every effective parameter, not on the swept marks ----
# one.db fixed landmark_interval=10800 with --set (an axis of that one value):
# it pairs with the sweep's 10800 point only, and says the 3600 point has
# no partner; declared as the axis, it pairs with every point
"$m" compare "$tmp/one.db" "$tmp/r.db:1" >"$tmp/o.txt" 2>"$tmp/oerr" || fail "compare one vs sweep"
[ "$(grep -c '^== A \[landmark_interval=10800\] vs B \[landmark_interval=' "$tmp/o.txt")" = 1 ] || fail "one vs sweep paired more than the matching point: $(cat "$tmp/o.txt")"
grep -q '^== A \[landmark_interval=10800\] vs B \[landmark_interval=10800\]$' "$tmp/o.txt" || fail "not paired with its own value: $(cat "$tmp/o.txt")"
grep -q '^not compared: B \[landmark_interval=3600\]' "$tmp/o.txt" || fail "the unpaired point is not named"
grep -q '^paired: A sweep point 0 (2 completed runs) with B sweep point 1 (2 completed runs)' "$tmp/o.txt" || fail "what was paired"
"$m" compare "$tmp/one.db" "$tmp/r.db:1" --axis landmark_interval >"$tmp/o2.txt" || fail "compare --axis"
[ "$(grep -c '^== A \[landmark_interval=10800\] vs B \[landmark_interval=' "$tmp/o2.txt")" = 2 ] || fail "one vs each point with --axis: $(cat "$tmp/o2.txt")"
grep -q '^parameters: B differs from A in the declared axis: .*landmark_interval 10800 vs 3600' "$tmp/o2.txt" || fail "the axis difference is not named"
# a difference nobody declared: a loud warning; declared: none; another
# axis declared: refused, exit 2, nothing printed
grep -q '^WARNING: B differs from A in 1 parameter: scenario.scenario.rate' "$tmp/p.txt" || fail "undeclared rate difference not warned: $(grep -i differ "$tmp/p.txt")"
# the same scenario and files: the CA's rate follows from the scenario's
grep -q '^following from them (the same scenario and files, the same entity --set options): ca.ca1.rate ' "$tmp/p.txt" \
  || fail "the CA's rate is not said to follow from the scenario's: $(grep -i follow "$tmp/p.txt")"
# an entity parameter set on the command line does not follow from anything:
# it is a difference of its own, warned, and refused beside a declared axis
"$m" run $sc --out "$tmp/ov.db" --quiet --set ca.ca1.rate=0.05 >/dev/null 2>"$tmp/err" || fail "run 5: $(cat "$tmp/err")"
"$m" compare "$tmp/r.db:1" "$tmp/ov.db" >"$tmp/ov.txt" 2>/dev/null || fail "compare with an entity override"
grep -q '^WARNING: B differs from A in 1 parameter: ca.ca1.rate ' "$tmp/ov.txt" || fail "an entity --set taken to follow: $(grep -i 'differ\|follow' "$tmp/ov.txt")"
"$m" compare "$tmp/r.db:1" "$tmp/ov.db" --axis landmark_interval >/dev/null 2>&1; [ $? -eq 2 ] || fail "an entity --set beside a declared axis must be refused"
"$m" compare "$tmp/r.db:1" "$tmp/r.db:2" >/dev/null 2>"$tmp/werr"
grep -q 'warning: the paired points differ in parameters nobody declared' "$tmp/werr" || fail "no warning on stderr"
"$m" compare "$tmp/r.db:1" "$tmp/r.db:2" --axis rate >"$tmp/ax.txt" 2>"$tmp/err" || fail "--axis rate: $(cat "$tmp/err")"
grep -q WARNING "$tmp/ax.txt" && fail "a declared axis still warned"
"$m" compare "$tmp/r.db:1" "$tmp/r.db:2" --axis landmark_interval >"$tmp/ref.txt" 2>"$tmp/err"
[ $? -eq 2 ] || fail "a difference outside the declared axis must be refused (exit 2)"
grep -q 'refused: .*differ in parameters that are not the declared axis (scenario.scenario.rate' "$tmp/err" || fail "refusal message: $(cat "$tmp/err")"
[ -s "$tmp/ref.txt" ] && fail "a refused comparison printed a table"

# ---- figures ----
"$m" compare "$tmp/r.db:1" "$tmp/r.db:2" --out "$tmp/cmp" --metric signatures >"$tmp/f.txt" 2>"$tmp/err" \
  || fail "compare --out: $(cat "$tmp/err")"
for f in issuance_delay_landmark issuance_delay_standalone signatures; do
  [ -s "$tmp/cmp/$f.png" ] || fail "figure $f missing"
  grep -q "title 'B: " "$tmp/cmp/$f.png.gp" || fail "figure $f does not overlay B"
done
[ ! -e "$tmp/cmp/signatureless_fraction.png" ] || fail "a figure without data (no handshakes in a PKI world)"
cmp -s "$tmp/p.txt" "$tmp/cmp/compare.txt" || fail "compare.txt differs from the table printed"
# no legend entry twice: with --axis the one point of A pairs with both
# points of B, and is still one line of each figure
"$m" compare "$tmp/one.db" "$tmp/r.db:1" --axis landmark_interval --out "$tmp/cax" --metric signatures \
  >/dev/null 2>"$tmp/err" || fail "compare --axis --out: $(cat "$tmp/err")"
python3 - "$tmp/cax" <<'PY' || fail "a compare figure repeats a legend entry"
import sys, os, re
n = 0
for f in sorted(os.listdir(sys.argv[1])):
    if not f.endswith('.gp'):
        continue
    text = open(os.path.join(sys.argv[1], f)).read()
    plot = text[text.index('\nplot ') + 1:]
    titles = re.findall(r" title '((?:[^']|'')*)'", plot)
    assert len(titles) == 3, (f, titles)     # A's point, B's two points
    assert len(set(titles)) == len(titles), (f, titles)
    assert sum(t.startswith('A: ') for t in titles) == 1, (f, titles)
    n += 1
assert n == 3, n
PY

# ---- every statistic 0 on both sides is named, in full ----
# (--all's list outgrew a fixed 1,024-byte line and was cut in the middle
# of a name): each name on the line is a statistic compare knows
"$m" compare "$tmp/r.db:1" "$tmp/r.db:2" --all > "$tmp/all.txt" 2>"$tmp/err" ||
  fail "compare --all: $(cat "$tmp/err")"
zl=$(sed -n 's/^0 on both sides: //p' "$tmp/all.txt" | head -1)
[ -n "$zl" ] || fail "compare --all names no statistic 0 on both sides"
nz=0
for s in $(echo "$zl" | tr -d ','); do
  "$m" compare "$tmp/r.db:1" "$tmp/r.db:2" --stat "$s" >/dev/null 2>"$tmp/err" ||
    fail "'$s' on the zero line is no statistic: $(cat "$tmp/err")"
  nz=$((nz + 1))
done
[ ${#zl} -gt 1100 ] || fail "the zero line (${#zl} bytes, $nz names) is too short to test the cut"

# ---- errors ----
"$m" compare "$tmp/r.db" >/dev/null 2>&1; [ $? -eq 2 ] || fail "one argument must exit 2"
"$m" compare "$tmp/r.db" "$tmp/nope.db" >/dev/null 2>"$tmp/err"; [ $? -eq 2 ] || fail "missing file must exit 2"
grep -q 'nope.db' "$tmp/err" || fail "missing file not named"
"$m" compare "$tmp/r.db:1" "$tmp/r.db:9" >/dev/null 2>&1; [ $? -eq 2 ] || fail "unknown experiment must exit 2"
"$m" compare --help | grep -q '^usage: mtcsim compare' || fail "compare --help"
echo "compare ok"
