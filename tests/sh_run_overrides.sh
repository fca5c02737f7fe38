#!/bin/sh
# Sweeps and entity parameters from the command line (usage:
# sh_run_overrides.sh BUILD):
#  - --sweep NAME=V1,V2 subsets, extends or replaces a declared sweep, and
#    makes a parameter the scenario does not sweep an axis; its values are
#    converted and checked as --set's; refused (exit 2, nothing run) for an
#    undeclared name (with did-you-mean), an empty or wrong value, a name
#    also given --set;
#  - --set of a swept parameter keeps it an axis of that one value (the
#    runs stay marked swept in it);
#  - --set KIND.ENTITY.PARAM, KIND.*.PARAM, *.PARAM and world.PARAM set an
#    entity's parameter that the scenario does not wrap in param(), the
#    most specific match winning, recorded as the run's effective
#    parameters; refused with the option named and no file:line for an
#    unknown kind, parameter or entity (with did-you-mean) or a bad value,
#    an implausible value warned (an error under --strict);
#  - --resume compares --sweep and entity --set like the other options;
#    -j 2's workers record the same parameters and results as -j 1;
#  - giving what the scenario already says changes no result: the metrics
#    are bit-identical.
set -u
b=${1:-build}
case "$b" in /*) bb=$b ;; *) bb=$(pwd)/$b ;; esac
m="$bb/mtcsim"
d=$(mktemp -d); trap 'rm -rf "$d"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
cd "$d" || exit 1
cat > s.lua <<'LUA'
sweep("li", { 3600, 7200 })
mtcsim.world{ start = "empty", duration = hours(2), warmup = 0 }
local m = mtcsim.cosigner{ name = "m", role = "mirror", algorithm = "ed25519" }
mtcsim.ca{ name = "le", rate = "1e4/d", cosigners = { m }, quorum = 1,
           landmark_interval = param("li", 3600), algorithm = "ed25519" }
mtcsim.update_service{ name = "u" }
mtcsim.sites{ name = "s", count = 20 }
mtcsim.browsers{ name = "b", count = param("n", 40), transport = param("tr", "tcp"),
                 rtt = lognormal{ median = 50, sigma = 0.5 } }
mtcsim.browsers{ name = "enterprise", count = 30, rtt = 80 }
LUA
# q SQL DB: the rows of a query, '|'-separated
q() { python3 -c 'import sqlite3,sys
for r in sqlite3.connect(sys.argv[2]).execute(sys.argv[1]): print("|".join(map(str, r)))' "$1" "$2"; }
# refused CODE PATTERN ARGS...: exit 2, stderr matches, nothing simulated
refused() {
  pat=$1; shift
  "$m" run s.lua --quiet --out r.db "$@" >out 2>err; rc=$?
  [ $rc -eq 2 ] || fail "exit $rc, expected 2 for $*: $(cat err)"
  grep -Eq -- "$pat" err || fail "for $*: '$(cat err)' lacks /$pat/"
  [ ! -e r.db ] || fail "a refused command ($*) created the database"
}
plan() { "$m" run s.lua --params "$@" 2>&1 | grep -E '^(sweep|points)'; }

# ---- --sweep ----
[ "$(plan --sweep li=7200)" = "sweep li: 7200
points 1, replications 1, runs 1" ] || fail "subset: $(plan --sweep li=7200)"
[ "$(plan --sweep 'li=1800,1h,hours(2)')" = "sweep li: 1800 3600 7200
points 3, replications 1, runs 3" ] || fail "extend: $(plan --sweep 'li=1800,1h,hours(2)')"
[ "$(plan --sweep n=10,20)" = "sweep li: 3600 7200
sweep n: 10 20
points 4, replications 1, runs 4" ] || fail "a new axis: $(plan --sweep n=10,20)"
[ "$(plan --sweep tr=tcp,quic --sweep li=3600)" = "sweep li: 3600
sweep tr: tcp quic
points 2, replications 1, runs 2" ] || fail "text values: $(plan --sweep tr=tcp,quic --sweep li=3600)"
refused "--sweep lj: the scenario declares no parameter 'lj' \(declared: li n tr\) \(did you mean 'li'\?\)" --sweep lj=1,2
refused "--sweep li=1,,2: value 2 is empty" --sweep li=1,,2
refused "--sweep li=abc: expected a number" --sweep li=3600,abc
refused "li is given both --set and --sweep" --sweep li=3600 --set li=7200
refused "--sweep li given twice" --sweep li=3600 --sweep li=7200
refused "--sweep browsers.b.rtt: a sweep is of a scenario parameter" --sweep browsers.b.rtt=1,2
# a swept value out of the model's range is found before anything runs
refused "sweep point 1 \[li=0.5\]: .*landmark_interval" --sweep li=3600,0.5

"$m" run s.lua --quiet --out sw.db --sweep li=7200,1800 || fail "run with --sweep"
[ "$(q "select r.sweep_point, p.value, p.swept from run r join param p using (run_id)
       where p.name = 'li' order by r.sweep_point" sw.db)" = "0|7200|1
1|1800|1" ] || fail "--sweep's points as recorded: $(q "select * from param where name='li'" sw.db)"

# ---- --set of a swept parameter: an axis of one value ----
"$m" run s.lua --quiet --out fx.db --set li=7200 || fail "run with --set li"
[ "$(q "select p.value, p.swept from param p where p.name = 'li'" fx.db)" = "7200|1" ] ||
  fail "--set of a swept parameter lost its swept mark: $(q "select * from param where name='li'" fx.db)"

# ---- entity parameters ----
"$m" run s.lua --quiet --out e.db --sweep li=3600 \
  --set 'browsers.enterprise.rtt=lognormal{median=30,sigma=0.5}' --set '*.rtt=20' \
  --set world.duration=3h --set 'browsers.*.transport=quic' || fail "run with entity --set"
[ "$(q "select entity_kind, entity_name, name, value from param
        where name in ('rtt', 'duration', 'transport') order by 1, 2, 3" e.db)" = "browsers|b|rtt|const(mean=20)
browsers|b|transport|quic
browsers|enterprise|rtt|lognormal(mu=3.4011973816621555,sigma=0.5)
browsers|enterprise|transport|quic
world|world|duration|10800" ] || fail "entity overrides as recorded: $(q "select * from param where name in ('rtt','duration','transport')" e.db)"
# the value wins over param() too: what the entity has is the command line's
refused "--set browser.b.rtt: no entity kind 'browser' \(did you mean 'browsers'\?\)" --set browser.b.rtt=5
refused "--set browsers.b.rt: browsers has no parameter 'rt' \(did you mean 'rtt'\?\)" --set browsers.b.rt=5
refused "--set browsers.enterprse.rtt: the scenario declares no browsers named 'enterprse' \(did you mean 'enterprise'\?\)" --set browsers.enterprse.rtt=5
refused "--set \*.foo: no entity kind has a parameter 'foo'" --set '*.foo=1'
refused "--set browsers.rtt: give the entity: browsers.ENTITY.rtt, or browsers.\*.rtt" --set browsers.rtt=5
refused "^mtcsim run: --set browsers.\*.rtt=-5: browsers 'b': rtt: mean -5 is outside" --set 'browsers.*.rtt=-5'
refused "^mtcsim run: --set browsers.b.transport=udp: browsers 'b': transport: 'udp' is not one of" --set browsers.b.transport=udp
refused "^mtcsim run: --set browsers.b.rtt:1: lognormal: median must be > 0" --set 'browsers.b.rtt=lognormal{median=-1,sigma=1}'
refused "--set browsers.b.rtt given twice" --set browsers.b.rtt=5 --set browsers.b.rtt=6
refused "--set \*.\*.rtt: the same parameters as --set \*.rtt" --set '*.rtt=5' --set '*.*.rtt=6'
"$m" run s.lua --params --set 'browsers.*.update_interval=5' >out 2>err || fail "--params with a slip"
grep -q "warning: --set browsers.\*.update_interval: browsers 'b': update_interval = 5 s is implausibly short" err ||
  fail "no plausibility warning naming the option: $(cat err)"
refused "error: --set browsers.\*.update_interval: browsers 'enterprise'" --set 'browsers.*.update_interval=5' --strict

# ---- --resume sees them ----
"$m" run s.lua --quiet --out rs.db --set 'browsers.b.rtt=30' --sweep li=1800 || fail "run to resume"
"$m" run s.lua --quiet --resume rs.db --set 'browsers.b.rtt=31' --sweep li=1800 >out 2>err
[ $? -eq 2 ] && grep -q -- "--set browsers.b.rtt=30 then, 31 now" err || fail "resume with another entity --set: $(cat err)"
"$m" run s.lua --quiet --resume rs.db --set 'browsers.b.rtt=30' --sweep li=3600 >out 2>err
[ $? -eq 2 ] && grep -q -- "--sweep li=1800 then, 3600 now" err || fail "resume with another --sweep: $(cat err)"
"$m" run s.lua --quiet --resume rs.db --set 'browsers.b.rtt=30' --sweep li=1800 >out 2>err ||
  fail "resume with the same options: $(cat err)"

# The sanitized build stops here: the runs below compare whole runs'
# results, which the optimized build checks; the C paths of the overrides
# (parsing, matching, applying, recording, refusing) ran above.
[ -z "${SAN_BUILD:-}" ] || { echo "run overrides: ok (sanitized build: no result comparisons)"; exit 0; }

# ---- what the scenario says, given again, changes nothing ----
# every metric's scalars and histogram bins, but the measured CPU time
metrics() { q "select r.sweep_point, m.name, s.cohort, s.value from scalar s
               join metric m using (metric_id) join run r using (run_id)
               where m.name not like '%cpu%' order by 1, 2, 3" "$1"
            q "select r.sweep_point, m.name, h.cohort, h.count, h.sum, h.p50, h.p99
               from histogram h join metric m using (metric_id) join run r using (run_id)
               where m.name not like '%cpu%' order by 1, 2, 3" "$1"; }
"$m" run s.lua --quiet --out base.db || fail "plain run"
"$m" run s.lua --quiet --out same.db --sweep li=3600,7200 --set 'browsers.enterprise.rtt=80' \
  --set 'browsers.b.rtt=lognormal{median=50,sigma=0.5}' || fail "run restating the scenario"
[ -n "$(metrics base.db)" ] || fail "no metrics read back"
[ "$(metrics base.db)" = "$(metrics same.db)" ] || fail "restating the scenario changed a result"
# -j 2's workers apply them as this process does: the same rows
"$m" run s.lua --quiet --out j1.db --set 'browsers.b.rtt=30' --sweep li=1800,3600 || fail "-j 1"
"$m" run s.lua --quiet --out j2.db --set 'browsers.b.rtt=30' --sweep li=1800,3600 -j 2 || fail "-j 2"
for t in "select run_id, entity_kind, entity_name, name, value, swept from param order by 1, 2, 3, 4"; do
  [ "$(q "$t" j1.db)" = "$(q "$t" j2.db)" ] || fail "-j 2 recorded other parameters"
done
[ "$(metrics j1.db)" = "$(metrics j2.db)" ] || fail "-j 2 changed a result"
# export: one column per swept parameter (a name that a view's column has,
# here 'count', is spelt out as KIND.ENTITY.NAME)
sed 's/count = param("n", 40)/count = param("count", 40)/' s.lua > c.lua
"$m" run c.lua --quiet --out x.db --sweep li=3600,7200 --sweep count=20,40 || fail "two-axis sweep"
"$m" export x.db --csv xcsv --metric handshake_full >/dev/null || fail "export of a two-axis sweep"
python3 - x.db xcsv/scalar_v.csv xcsv/histogram_v.csv <<'PY' || fail "export's swept columns"
import sys, csv, sqlite3
db = sqlite3.connect(sys.argv[1])
rows = list(csv.DictReader(open(sys.argv[2], newline='')))
assert len(rows) == 4 * 3, len(rows)          # 4 points x (2 cohorts + all)
for r in rows:
    li, n = db.execute("SELECT (SELECT value FROM param WHERE run_id = ?1 AND name = 'li'), "
                       "(SELECT value FROM param WHERE run_id = ?1 AND name = 'count' "
                       "AND entity_kind = 'scenario')", (r['run_id'],)).fetchone()
    assert r['li'] == str(li) and r['scenario.scenario.count'] == str(n), (r, li, n)
assert 'count' not in rows[0] or rows[0]['count'] == '', rows[0]
h = next(csv.reader(open(sys.argv[3], newline='')))
assert h.count('count') == 1 and 'scenario.scenario.count' in h and 'li' in h, h
PY
# the --resume hint after a failed run is the command typed, --out made
# --resume: every --set and --sweep, quoted for the shell, so that it is
# accepted as it stands (here with a larger instruction limit, which is
# not an option a resume compares)
cat > f.lua <<'LUA'
sweep("li", { 3600, 7200 })
local li = param("li", 3600)
mtcsim.world{ start = "empty", duration = hours(1), warmup = 0 }
local m = mtcsim.cosigner{ name = "m", role = "mirror" }
mtcsim.ca{ name = "le", rate = "1e4/d", cosigners = { m }, quorum = 1, landmark_interval = li }
mtcsim.update_service{ name = "u" }
mtcsim.sites{ name = "s", count = 20 }
mtcsim.browsers{ name = "b", count = 20, rtt = 80 }
if li == 7200 then sim:at(600, function() local x = 0 for i = 1, 3e6 do x = x + i end end) end
LUA
"$m" run f.lua --quiet --out f.db --max-instructions 1000000 --replications 2 --sweep li=3600,7200 \
  --set "browsers.b.rtt=lognormal{median = 30, sigma = 0.5}" --set 'world.duration=1h' \
  >/dev/null 2>f.err; [ $? -eq 1 ] || fail "the instruction limit did not fail point 2: $(cat f.err)"
hint=$(sed -n 's/.*runs were not made; `\([^`]*\)` makes them.*/\1/p' f.err)
[ "$hint" = "mtcsim run f.lua --quiet --resume f.db --max-instructions 1000000 --replications 2 --sweep li=3600,7200 --set 'browsers.b.rtt=lognormal{median = 30, sigma = 0.5}' --set world.duration=1h" ] ||
  fail "the --resume hint: '$hint' ($(cat f.err))"
PATH="$bb:$PATH" sh -c "$(printf '%s' "$hint" | sed 's/--max-instructions 1000000 /--max-instructions 1000000000 /')" \
  >/dev/null 2>f2.err || fail "the hinted command did not resume: $(cat f2.err)"
[ "$(q "select count(*) from run where status = 'completed'" f.db)" = 4 ] || fail "the resume did not complete the sweep"
echo "run overrides: ok"
