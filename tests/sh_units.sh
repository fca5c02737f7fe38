#!/bin/sh
# Unit safety of scenarios and --set:
#  - quantity literals ("6h", "300ms", "30min", "3000/d", sim:at("2h", ...),
#    an action's "1h") reach the model as the right numbers (checked in the
#    recorded parameters), and --set takes them too;
#  - an in-range but implausible value (update_interval = 5, an outage of
#    12) warns with file:line, the parameter and what was probably meant;
#    --strict makes it exit 2 before anything runs;
#  - malformed literals and unit mismatches: exit 2 with file:line;
#  - did-you-mean for entity references, sweep names and --set names.
set -u
b=${1:-build}
m="$b/mtcsim"
fail() { echo "FAIL: $*"; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/sh_units.XXXXXX") || fail "mktemp"
trap 'rm -rf "$tmp"' EXIT
q() { sqlite3 "$tmp/u.db" "$1"; }

cat > "$tmp/units.lua" <<'EOF'
local ui = param("update_interval", "5h", "between update checks")
mtcsim.world{ start = "empty", duration = "6h", grid_step = "1h", warmup = "30min" }
local w1 = mtcsim.cosigner{ name = "w1", algorithm = "ed25519", latency = "300ms",
                            repair_time = "30min" }
mtcsim.ca{ name = "ca1", algorithm = "ed25519", rate = "3000/d", cosigners = { w1 },
           quorum = 1, landmark_interval = "1h" }
mtcsim.update_service{ name = "us", fetch_interval = "10min" }
mtcsim.sites{ name = "s", count = 20 }
mtcsim.browsers{ name = "b", count = 20, visits_per_hour = "240/d",
                 update_interval = ui }
sim:at("2h", "cosigner_outage", w1, "1h")
EOF
"$m" run "$tmp/units.lua" --out "$tmp/u.db" --quiet >/dev/null 2>"$tmp/err" || fail "run: $(cat "$tmp/err")"
[ ! -s "$tmp/err" ] || fail "warnings for plausible values: $(cat "$tmp/err")"
[ "$(q "select sim_stop from run")" = 21600000000 ] || fail "duration \"6h\""
[ "$(q "select warmup_end from run")" = 1800000000 ] || fail "warmup \"30min\""
[ "$(q "select value from param where entity_name='w1' and name='latency'")" = "const(mean=0.29999999999999999)" ] \
  || fail "latency \"300ms\": $(q "select value from param where entity_name='w1' and name='latency'")"
[ "$(q "select value from param where entity_name='ca1' and name='rate'")" = 0.034722222222222224 ] \
  || fail "rate \"3000/d\": $(q "select value from param where entity_name='ca1' and name='rate'")"
[ "$(q "select value from param where entity_name='b' and name='visits_per_hour'")" = 10 ] || fail "\"240/d\" in 1/h"
[ "$(q "select value from param where entity_name='us' and name='fetch_interval'")" = 600 ] || fail "fetch \"10min\""
[ "$(q "select value from param where entity_name='b' and name='update_interval'")" = "const(mean=18000)" ] \
  || fail "update_interval \"5h\""
# --set with a literal (the scenario's default is a string here, so take a
# numeric parameter): hours as a literal
sed 's/param("update_interval", "5h"/param("update_interval", 18000/' "$tmp/units.lua" > "$tmp/n.lua"
"$m" run "$tmp/n.lua" --set update_interval=2h --out "$tmp/s.db" --quiet >/dev/null 2>&1 || fail "--set 2h"
[ "$(sqlite3 "$tmp/s.db" "select value from param where entity_name='b' and name='update_interval'")" = "const(mean=7200)" ] \
  || fail "--set update_interval=2h"
"$m" run "$tmp/n.lua" --set update_interval=2hh --params >/dev/null 2>"$tmp/err"; [ $? -eq 2 ] || fail "--set 2hh must exit 2"
grep -q 'a quantity such as "5h"' "$tmp/err" || fail "--set message: $(cat "$tmp/err")"

# a duration for a parameter in another time unit (rtt is in ms): "30ms"
# is 30, "0.25s" is 250, in the scenario and with --set; a rate there is
# still refused
sed 's/update_interval = ui }/update_interval = ui, rtt = "30ms" }/' "$tmp/units.lua" > "$tmp/ms.lua"
"$m" run "$tmp/ms.lua" --out "$tmp/ms.db" --quiet >/dev/null 2>"$tmp/err" || fail "rtt = \"30ms\": $(cat "$tmp/err")"
[ "$(sqlite3 "$tmp/ms.db" "select value from param where entity_name='b' and name='rtt'")" = "const(mean=30)" ] \
  || fail "rtt \"30ms\": $(sqlite3 "$tmp/ms.db" "select value from param where name='rtt'")"
"$m" run "$tmp/ms.lua" --set 'browsers.b.rtt=0.25s' --out "$tmp/ms2.db" --quiet >/dev/null 2>"$tmp/err" || fail "--set rtt=0.25s: $(cat "$tmp/err")"
[ "$(sqlite3 "$tmp/ms2.db" "select value from param where entity_name='b' and name='rtt'")" = "const(mean=250)" ] || fail "--set rtt=0.25s"
sed 's/rtt = "30ms"/rtt = "30\/s"/' "$tmp/ms.lua" > "$tmp/msr.lua"
"$m" run "$tmp/msr.lua" --params >/dev/null 2>"$tmp/err"; [ $? -eq 2 ] || fail "a rate for rtt must exit 2"
grep -q "rtt: '30/s' is a rate, but the parameter's unit is 'ms'" "$tmp/err" || fail "rate for rtt: $(cat "$tmp/err")"

# ---- implausible values: warnings, --strict ----
sed -e 's/update_interval = ui/update_interval = 5/' -e 's/w1, "1h")/w1, 12)/' "$tmp/n.lua" > "$tmp/slip.lua"
"$m" run "$tmp/slip.lua" --out "$tmp/w.db" --quiet >/dev/null 2>"$tmp/err" || fail "slip run: $(cat "$tmp/err")"
grep -q "warning: $tmp/slip.lua:9: browsers 'b': update_interval = 5 s is implausibly short for the time between update checks (plausible: 1 min .. 30 d); did you mean hours(5) = 18000 s?" "$tmp/err" \
  || fail "update_interval warning: $(cat "$tmp/err")"
grep -q "warning: $tmp/slip.lua:11: sim:at 'cosigner_outage': duration_s = 12 s is implausibly short for an outage.*did you mean hours(12)" "$tmp/err" \
  || fail "outage warning: $(cat "$tmp/err")"
[ "$(grep -c warning "$tmp/err")" = 2 ] || fail "each warning once: $(cat "$tmp/err")"
"$m" run "$tmp/slip.lua" --strict --out "$tmp/x.db" --quiet >/dev/null 2>"$tmp/err"; [ $? -eq 2 ] || fail "--strict must exit 2"
grep -q "error: $tmp/slip.lua:9: browsers 'b': update_interval" "$tmp/err" || fail "--strict message"
grep -q -- '--strict: 2 implausible values' "$tmp/err" || fail "--strict summary: $(cat "$tmp/err")"
[ ! -e "$tmp/x.db" ] || fail "--strict ran something"

# ---- malformed literals, unit mismatches ----
printf 'mtcsim.world{ start = "empty", duration = "6h" }\nmtcsim.ca{ name = "c", lifetime = "5 parsecs" }\n' > "$tmp/e1.lua"
"$m" run "$tmp/e1.lua" --params >/dev/null 2>"$tmp/err"; [ $? -eq 2 ] || fail "bad unit must exit 2"
grep -q "e1.lua:2: ca 'c': lifetime: '5 parsecs': unknown unit" "$tmp/err" || fail "bad unit: $(cat "$tmp/err")"
printf 'mtcsim.world{ start = "empty", duration = "6h" }\nmtcsim.ca{ name = "c", rate = "3h" }\n' > "$tmp/e2.lua"
"$m" run "$tmp/e2.lua" --params >/dev/null 2>"$tmp/err"; [ $? -eq 2 ] || fail "duration for a rate must exit 2"
grep -q "e2.lua:2: ca 'c': rate: '3h' is a duration, but the parameter's unit is '1/s'" "$tmp/err" \
  || fail "unit mismatch: $(cat "$tmp/err")"

# ---- did you mean ----
printf 'mtcsim.world{ start = "empty", duration = "6h" }\nlocal w = mtcsim.cosigner{ name = "witness1", algorithm = "ed25519" }\nmtcsim.ca{ name = "c", algorithm = "ed25519", cosigners = { "witnes1" }, quorum = 1 }\nmtcsim.update_service{ name = "us" }\n' > "$tmp/e3.lua"
"$m" run "$tmp/e3.lua" --quiet >/dev/null 2>"$tmp/err"; [ $? -eq 2 ] || fail "unknown cosigner must exit 2"
grep -q "no cosigner named 'witnes1' (did you mean 'witness1'?)" "$tmp/err" || fail "entity suggestion: $(cat "$tmp/err")"
printf 'sweep("landmark_intervall", { 3600, 7200 })\nlocal li = param("landmark_interval", 3600)\nmtcsim.world{ start = "empty", duration = "6h" }\n' > "$tmp/e4.lua"
"$m" run "$tmp/e4.lua" --params >/dev/null 2>"$tmp/err"; [ $? -eq 2 ] || fail "unknown sweep must exit 2"
grep -q "sweep 'landmark_intervall' has no param.*(did you mean 'landmark_interval'?)" "$tmp/err" || fail "sweep suggestion: $(cat "$tmp/err")"
"$m" run "$tmp/n.lua" --set update_intervall=3 --params >/dev/null 2>"$tmp/err"; [ $? -eq 2 ] || fail "unknown --set"
grep -q "(did you mean 'update_interval'?)" "$tmp/err" || fail "--set suggestion: $(cat "$tmp/err")"
echo "units ok"
