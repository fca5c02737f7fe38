#!/bin/sh
# A wrong scenario fails before any simulation, exit 2, with file:line and
# the offending parameter (the binding's messages one by one are in
# tests/test_lua_host.c); bad command lines and --set values exit 2 naming
# the argument; a failing callback during the run exits 1 with its
# file:line; the message is printed alone, Lua's traceback only with
# --traceback or for an error inside the embedded library.
set -u
b=${1:-build}
m="$b/mtcsim"
d=$(mktemp -d); trap 'rm -rf "$d"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

# expect CODE PATTERN LUA [ARGS...]: the scenario (one line, file s.lua)
# exits with CODE and its stderr matches PATTERN (grep -E).
expect() {
  code=$1; pat=$2; printf '%s\n' "$3" > "$d/s.lua"; shift 3
  "$m" run "$d/s.lua" --quiet "$@" >"$d/out" 2>"$d/err"; rc=$?
  [ $rc -eq "$code" ] || fail "exit $rc, expected $code for: $(cat "$d/s.lua") $*; $(cat "$d/err")"
  [ -z "$pat" ] || grep -Eq -- "$pat" "$d/err" || fail "message '$(head -1 "$d/err")' lacks /$pat/"
  # the message alone: Lua's traceback only with --traceback
  case " $* " in *" --traceback "*) ;; *)
    ! grep -q "stack traceback" "$d/err" || fail "a traceback after the message: $(cat "$d/err")" ;; esac
  # nothing was simulated: no summary on stdout
  if [ "$code" -eq 2 ]; then ! grep -q "summary" "$d/out" || fail "simulated before failing"; fi
}

# The binding's own messages are checked in one process
# (tests/test_lua_host.c, scenario_errors_name_file_line); here, that a
# wrong declaration, a wrong world and a wrong action each stop the
# program before any simulation with exit 2 and the message.
expect 2 "s.lua:1: ca 'le': unknown parameter 'rat' \(did you mean 'rate'\?\)" \
  'mtcsim.ca{ name = "le", rat = 5 }'
expect 2 "s.lua:1: world: warmup: a steady start needs at least 608400 s" \
  'mtcsim.ca{ name = "le" }'
expect 2 "s.lua:1: .*actions run during the simulation" \
  'mtcsim.cosigner{ name = "w" } sim:act("cosigner_down", "w")'
# --set
expect 2 "--set x=abc: expected a number" 'local x = param("x", 1, "d")' --set x=abc
expect 2 "--set y: the scenario declares no parameter 'y' \(declared: x\)" \
  'local x = param("x", 1, "d")' --set y=3
expect 2 "--set 'x': expected NAME=VALUE" 'local x = param("x", 1, "d")' --set x
expect 2 "--set b=maybe: expected true or false" 'local b = param("b", true)' --set b=maybe
expect 2 "s.lua:1: ca 'le': rate: -1 1/s is below the minimum" \
  'mtcsim.ca{ name = "le", rate = param("r", 1) }' --set r=-1
expect 0 "" 'mtcsim.world{ start = "empty" } mtcsim.ca{ name = "le", landmark_interval = param("li", 3600) }' --set 'li=hours(2)'
# command line
expect 2 "unknown option '--frobnicate'" 'local x = 1' --frobnicate
expect 2 "--seed 'abc' is not a non-negative integer" 'local x = 1' --seed abc
expect 2 "--replications must be" 'local x = 1' --replications 0
"$m" run "$d/nope.lua" 2>"$d/err"; [ $? -eq 2 ] || fail "missing scenario must exit 2"
grep -q "cannot read scenario" "$d/err" || fail "missing scenario message"
# an error in a sweep point other than the first is found before anything runs
printf '%s\n' 'sweep("li", { 3600, 0.5 })' 'mtcsim.ca{ name = "le", landmark_interval = param("li", 3600) }' > "$d/s.lua"
"$m" run "$d/s.lua" >"$d/out" 2>"$d/err"; [ $? -eq 2 ] || fail "bad sweep point must exit 2"
grep -q "sweep point 1 \[li=0.5\]: .*s.lua:2: ca 'le': landmark_interval" "$d/err" || fail "sweep point message: $(cat "$d/err")"
grep -q "summary" "$d/out" && fail "a run happened before the bad sweep point was found"
# during the run: a failing callback is a failed run (exit 1), with its line
expect 1 "s.lua:1: boom" 'sim:at(hours(1), function() error("boom") end)'
expect 1 "s.lua:1: cosigner_outage on 'w'" \
  'mtcsim.cosigner{ name = "w" } sim:at(hours(1), function() sim:cosigner_outage("w", -5) end)'
# a user error prints its message and nothing else; --traceback adds the
# stack, whose innermost frame is the scenario's line
expect 2 "^mtcsim run: .*s.lua:1: sim:at: time -5.0 s is out of range" \
  'mtcsim.world{ duration = "1d" } sim:at(-5, "cosigner_down", "w1")'
[ "$(wc -l < "$d/err")" -eq 1 ] || fail "more than the message: $(cat "$d/err")"
expect 2 "stack traceback:" \
  'mtcsim.world{ duration = "1d" } sim:at(-5, "cosigner_down", "w1")' --traceback
grep -q "s.lua:1: in main chunk" "$d/err" || fail "--traceback lacks the scenario's frame: $(cat "$d/err")"
# the same for an error in a callback during the run, with -j 2 as well
expect 1 "s.lua:1: boom" 'sim:at(hours(1), function() error("boom") end)' -j 2
[ "$(grep -c . "$d/err")" -eq 1 ] || fail "more than the message (-j 2): $(cat "$d/err")"
# an error positioned in the embedded library is the library's fault: its
# traceback is kept, and leads to the scenario's line
printf '%s\n' 'local x = per_day(5) < 3' > "$d/s.lua"
"$m" run "$d/s.lua" >"$d/out" 2>"$d/err"; [ $? -eq 2 ] || fail "library error must exit 2"
grep -q "^mtcsim run: \[mtcsim library\]:[0-9]*: " "$d/err" && grep -q "stack traceback:" "$d/err" &&
  grep -q "s.lua:1: in main chunk" "$d/err" || fail "a library error without its traceback: $(cat "$d/err")"
echo "lua errors: ok"
