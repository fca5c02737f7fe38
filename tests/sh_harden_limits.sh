#!/bin/sh
# Limits that hold (usage: sh_harden_limits.sh BUILD):
#  - the standard library's C loops count against --max-instructions
#    (table.move/insert/remove with a __len of 2^62, string.rep of an
#    empty string 2^62 times, s:upper() of 4 MiB, string to number of a
#    huge string, load of a large chunk) and stop at the first SIGINT, in
#    a callback, leaving the run 'interrupted';
#  - the steady start's warm-up stops at the first SIGINT, and the run is
#    recorded 'interrupted'; so does the build of a CA's aged log
#    (log_age: a century of hourly landmarks);
#  - sim:at action arguments are checked for kind (a rate is not a
#    duration, a duration is not an index) and range at declaration.
# The -j workers' signals and failures are tests/sh_harden_workers.sh's.
set -u
b=${1:-build}
m="$b/mtcsim"
d=$(mktemp -d)
pids=""
cleanup() { for p in $pids; do kill -9 "$p" 2>/dev/null; done; rm -rf "$d"; }
trap cleanup EXIT
fail() { echo "FAIL: $*"; exit 1; }

# expect CODE PATTERN LUA [ARGS]: exit CODE within 120 s (never a signal),
# stderr matching PATTERN.
expect() {
  code=$1; pat=$2; printf '%s\n' "$3" > "$d/s.lua"; shift 3
  timeout -s KILL 120 "$m" run "$d/s.lua" --quiet "$@" >"$d/o" 2>"$d/err"; rc=$?
  [ $rc -lt 128 ] || fail "signal or hang (exit $rc) for: $(cat "$d/s.lua")"
  [ $rc -eq "$code" ] || fail "exit $rc, expected $code for: $(cat "$d/s.lua") $*: $(head -3 "$d/err")"
  [ -z "$pat" ] || grep -Eq -- "$pat" "$d/err" || fail "message '$(head -1 "$d/err")' lacks /$pat/ for: $(cat "$d/s.lua")"
}
W='mtcsim.world{ duration = hours(1) }'
LIM="instruction limit exceeded"

# ---- C loops of the standard library under the budget ----
expect 2 "s.lua:2: $LIM" "$W
table.move({}, 1, 1 << 62, 1, {})" --max-instructions 1000000
expect 2 "s.lua:2: $LIM" "$W
table.move({}, -(1 << 61), 1 << 61, 1)" --max-instructions 1000000
expect 2 "s.lua:3: $LIM" "$W
local t = setmetatable({}, { __len = function() return 1 << 62 end })
table.insert(t, 1, 5)" --max-instructions 1000000
expect 2 "s.lua:3: $LIM" "$W
local t = setmetatable({}, { __len = function() return 1 << 62 end })
table.remove(t, 1)" --max-instructions 1000000
# pcall cannot catch it, however often it is tried
expect 2 "$LIM" "$W
for i = 1, 1e9 do pcall(table.remove, setmetatable({}, { __len = function() return 1 << 40 end }), 1) end" \
  --max-instructions 1000000
# an empty string repeated 2^62 times is empty, at once
expect 0 "" "$W
assert(string.rep('', 1 << 62) == '' and ('x'):rep(0) == '' and ('ab'):rep(3, ',') == 'ab,ab,ab')"
# work proportional to the size, charged before it starts (each case
# builds its big string within the budget, then fails on the next line;
# the sizes are twice the budget or more, small enough to be cheap)
expect 2 "s.lua:3: $LIM" "$W
local s = ('x'):rep(1 << 12):rep(1 << 10)
local u = s:upper()" --max-instructions 2000000
expect 2 "s.lua:3: $LIM" "$W
local s = ('1'):rep(1 << 12):rep(1 << 10)
local n = tonumber(s)" --max-instructions 2000000
expect 2 "s.lua:3: $LIM" "$W
local s = ('1'):rep(1 << 12):rep(1 << 10)
local n = s + 1" --max-instructions 2000000
expect 2 "s.lua:3: $LIM" "$W
local s = ('x = 1 '):rep(1 << 12):rep(128)
load(s)" --max-instructions 2000000
expect 2 "s.lua:4: $LIM" "$W
local s = ('x'):rep(1 << 16)
local t = {} for i = 1, 64 do t[i] = s end
for i = 1, 1e9 do local c = table.concat(t) end" --max-instructions 2000000
expect 2 "s.lua:3: $LIM" "$W
local s = ('x'):rep(1 << 16)
for i = 1, 1e9 do local c = s .. i end" --max-instructions 2000000
# a reader function's pieces are charged too, and load cannot catch it
expect 2 "$LIM" "$W
local piece = ('x = 1 '):rep(1 << 12)
local n = 0
for i = 1, 1e9 do load(function() n = n + 1 if n % 2 == 1 then return piece end end) end" \
  --max-instructions 2000000
# the library still does what Lua's does
expect 0 "" "$W
local t = {1, 2, 3}
table.insert(t, 1, 0) table.insert(t, 9)
assert(table.concat(t, ',') == '0,1,2,3,9')
assert(table.remove(t, 1) == 0 and table.remove(t) == 9 and #t == 3)
local u = table.move(t, 1, 3, 2, {})
assert(u[1] == nil and u[2] == 1 and u[4] == 3)
assert(select('#', table.unpack(t)) == 3 and table.concat(t, '', 2, 3) == '23')
assert(('Ab'):upper() == 'AB' and ('x'):byte() == 120 and tonumber('0x10') == 16)
assert('10' + 1 == 11 and -'2' == -2 and utf8.len('\u{e9}') == 1)
assert(string.unpack('z', 'ab\0') == 'ab' and load('return 1 + 1')() == 2)
local ok, e = pcall(table.insert, {}, 5, 1)
assert(not ok and e:find('position out of bounds'), e)
ok, e = pcall(string.upper)
assert(not ok and e:find(\"bad argument #1 to '[%w.]*upper'\"), e)"

# ---- action arguments: kind and range at declaration ----
# (exit 2: refused before anything is simulated)
A='mtcsim.world{ duration = hours(3), start = "empty" }
mtcsim.ca{ name = "le" } mtcsim.update_service{ name = "u" } mtcsim.cosigner{ name = "w" }'
expect 2 "s.lua:3: sim:at: argument 1 of 'update_outage' \\(duration_s\\) is a rate \"6/h\"" "$A
sim:at(1, 'update_outage', 'u', '6/h')"
expect 2 "s.lua:3: sim:at: argument 1 of 'revoke_range' .* is a duration \"5h\"; it takes a log entry index" "$A
sim:at(1, 'revoke_range', 'le', '5h', 20000)"
expect 2 "s.lua:3: sim:at: revoke_range: argument 2 \\(a log entry index\\) must be an integer" "$A
sim:at(1, 'revoke_range', 'le', 0, 2.5)"
expect 2 "s.lua:3: sim:at: revoke_range: the range 10..5 is empty" "$A
sim:at(1, 'revoke_range', 'le', 10, 5)"
expect 2 "s.lua:3: sim:at: revoke_range: argument 3 \\(a log number\\) must be an integer in 1..65535" "$A
sim:at(1, 'revoke_range', 'le', 0, 5, 70000)"
expect 2 "s.lua:3: sim:at: update_outage: argument 1 \\(a duration\\) must be in \\(0, 3.2e\\+09\\] s, got -5" "$A
sim:at(1, 'update_outage', 'u', -5)"
expect 2 "s.lua:3: sim:at: cosigner_outage: argument 1 \\(a duration\\) must be in" "$A
sim:at(1, 'cosigner_outage', 'w', 1e300)"
expect 2 "s.lua:3: sim:at: split_view: argument 1 \\(a count\\) must be an integer in 0..65535" "$A
sim:at(1, 'split_view', 'le', -1)"
expect 0 "" "$A
sim:at(1, 'update_outage', 'u', '2h') sim:at(2, 'revoke_range', 'le', 0, 5) sim:at(3, 'cosigner_outage', 'w', 60)"

# ---- SIGINT in a C loop of a callback ----
. tests/lib/run_bg.sh

# stopped_by_sigint NAME SECONDS WHAT [PATTERN]: SIGINT to the run started
# as NAME; it must end within SECONDS, exit 1, print PATTERN (if given) and
# leave its run 'interrupted'
stopped_by_sigint() {
  kill -INT $pid
  wait_gone $pid "$2" "one SIGINT did not stop $3"
  wait $pid; rc=$?
  [ $rc -eq 1 ] || fail "$3, interrupted: exit $rc ($(head -2 "$d/$1.err"))"
  [ -z "${4:-}" ] || grep -q "$4" "$d/$1.err" || fail "$3: $(head -2 "$d/$1.err")"
  [ "$(sqlite3 "$d/$1.db" "select status from run")" = interrupted ] || fail "$3: run not 'interrupted'"
}

run_bg cloop "mtcsim.world{ duration = days(1) }
sim:at(1, function() table.move({}, 1, 1 << 62, 1, {}) end)" --max-instructions 1000000000000000
wait_status "$d/cloop.db" running 60
sleep 0.5
stopped_by_sigint cloop 10 "table.move in a callback"

# ---- SIGINT during the steady start's warm-up ----
# 300000 clients each simulate a week of sessions before the first event:
# tens of seconds; one SIGINT ends it within a few and records the run.
WARM='mtcsim.world{ duration = days(8) + hours(1), warmup = days(8) }
mtcsim.ca{ name = "le" }
mtcsim.update_service{ name = "u" }
mtcsim.browsers{ name = "b", count = 300000, sessions_per_day = 500, session_duration = 60, update_interval = hours(1) }'
run_bg warm "$WARM"
sleep 2
kill -0 $pid 2>/dev/null || fail "warm-up: the run ended early ($(head -2 "$d/warm.err"))"
[ "$(sqlite3 "$d/warm.db" "select count(*) from run" 2>/dev/null || echo 0)" = 0 ] ||
  fail "warm-up: a run row exists before the warm-up ended (machine too fast for this case)"
stopped_by_sigint warm 8 "the steady warm-up" "interrupted during the steady start's warm-up"

# ---- SIGINT while an aged log is built ----
# a century of hourly landmarks (876,600 cuts, then the root over them):
# tens of seconds and gigabytes if nothing looks at the flag
run_bg aged 'mtcsim.world{ duration = hours(1), start = "empty" }
mtcsim.ca{ name = "old", rate = 1, log_history = "synthetic", log_age = days(36525) }'
sleep 2
kill -0 $pid 2>/dev/null || fail "aged log: the run ended early ($(head -2 "$d/aged.err"))"
stopped_by_sigint aged 8 "the aged log's build" "interrupted while building CA old's log of log_age"

echo "harden limits: ok"
