#!/bin/sh
# Hostile or broken scenarios: every reproduction ends with a
# clear error and exit 1 or 2 - never a signal, never a sanitizer report,
# never later than its limit - and leaves every file outside the run's
# output folder unchanged. One case per finding; the comment names it.
set -u
b=${1:-build}
m="$b/mtcsim"
d=$(mktemp -d); trap 'rm -rf "$d"' EXIT
mkdir -p "$d/sc" "$d/out"
# KEEP_GOING=1 reports every failing case (to check a test against the
# code before its fix) instead of stopping at the first.
nfail=0
fail() { echo "FAIL: $*"; nfail=$((nfail + 1)); [ -n "${KEEP_GOING:-}" ] || exit 1; }

# run CODE PATTERN LUA [ARGS...]: the scenario exits with CODE (within 60 s)
# and its stderr matches PATTERN (grep -E; empty: anything).
run() {
  code=$1; pat=$2; printf '%s\n' "$3" > "$d/sc/s.lua"; shift 3
  t0=$(date +%s%N)
  timeout -k 5 "${TIMEOUT:-60}" "$m" run "$d/sc/s.lua" --quiet "$@" >"$d/stdout" 2>"$d/err"; rc=$?
  [ -z "${VERBOSE:-}" ] || echo "$(( ($(date +%s%N) - t0) / 1000000 )) ms: $(head -c 70 "$d/sc/s.lua" | tr '\n' ' ')"
  if grep -Eq "runtime error|AddressSanitizer|LeakSanitizer" "$d/err"; then
    fail "sanitizer report for: $(head -c 300 "$d/sc/s.lua"): $(grep -Em2 "runtime error|Sanitizer" "$d/err")"
    return
  fi
  [ $rc -lt 128 ] || { fail "signal (exit $rc) for: $(head -c 300 "$d/sc/s.lua"); $(tail -c 300 "$d/err")"; return; }
  [ $rc -eq "$code" ] || { fail "exit $rc, expected $code for: $(head -c 300 "$d/sc/s.lua"); $(tail -c 400 "$d/err")"; return; }
  [ -z "$pat" ] || grep -Eq -- "$pat" "$d/err" ||
    fail "message '$(head -c 400 "$d/err")' lacks /$pat/ for: $(head -c 200 "$d/sc/s.lua")"
}

# 1. core.hex wrote its NUL one byte past a 2n-byte buffer
run 0 "" 'for i = 1, 40 do local s = mtcsim.core.hex(("\255"):rep(5000 + i)); assert(#s == 2 * (5000 + i)) end
local t = {} for i = 1, 200 do t[i] = ("x"):rep(10003) end
collectgarbage()
assert(mtcsim.core.hex("\0\1\171\255") == "0001abff")'

# 2. __gc called through getmetatable freed live objects; a finalizer
# could also resurrect an object after its __gc ran
for obj in 'mtcsim.core.tree{"a"}' 'mtcsim.core.ca{}' 'mtcsim.core.ca{}:relying_party()' \
           'exponential{ mean = 1 }' 'mtcsim.cosigner{ name = "w" }' 'mtcsim.world{}' 'io.stdout'; do
  run 2 "attempt to index a string value|attempt to call a nil value" "local x = $obj
getmetatable(x).__gc(x)"
done
run 1 "s.lua:9: relying party already released" 'local ca = mtcsim.core.ca{ witnesses = 0 }
ca:issue("a.example"); ca:checkpoint()
local der, keep = ca:certificate(0)
do
  local rp = ca:relying_party()
  setmetatable({}, { __gc = function() keep = rp end })
end
collectgarbage(); collectgarbage()
sim:at(1, function() print(keep:verify(der)) end)
mtcsim.world{ duration = 10 }'
run 1 "s.lua:7: tree already released" 'local keep
do
  local t = mtcsim.core.tree{ "a" }
  setmetatable({}, { __gc = function() keep = t end })
end
collectgarbage(); collectgarbage()
sim:at(1, function() keep:root() end)
mtcsim.world{ duration = 10 }'

# 3. the host reads what the library declared, not what a scenario put
# in its place; the sweep grid is bounded
run 0 "" 'mtcsim._declared = function() return 5 end'
run 0 "" 'mtcsim._declared = setmetatable({}, { __call = function() error("x") end })'
run 0 "" 'mtcsim._declared = function() return { params = {}, sweeps = {}, replications = 1e15 } end'
run 2 "s.lua:3: sweep 'c': the grid would have 1000000 points \(at most 100000\)" 'local v = {} for i = 1, 100 do v[i] = i end
sweep("a", v) sweep("b", v)
sweep("c", v)
param("a", 1) param("b", 1) param("c", 1)'

# 5. the instruction limit: not catchable, not escapable through C
L='--max-instructions 1000000'
run 2 "s.lua:2: instruction limit exceeded" 'while true do
  pcall(function() while true do end end)
end' $L
run 2 "instruction limit exceeded" 'while true do
  xpcall(function() while true do end end, function(e) return e end)
end' $L
run 2 "instruction limit exceeded" 'while true do
  coroutine.resume(coroutine.create(function() while true do end end))
end' $L
run 2 "instruction limit exceeded" 'while true do
  load(function() while true do end end)
end' $L
run 2 "instruction limit exceeded" 'while true do
  pcall(string.rep, "x", 10)
  pcall(error)
end' $L
run 2 "s.lua:2: instruction limit exceeded" 'local s = ("a"):rep(300000)
local r = s:find(".-b")' $L
run 2 "s.lua:2: instruction limit exceeded" 'local s = ("a"):rep(3000)
local r = s:match(".-.-.-.-.-b")' $L
run 2 "instruction limit exceeded" 'local s = ("a"):rep(200000)
for k in s:gmatch(".-b") do end' $L
run 2 "instruction limit exceeded" 'local s = ("a"):rep(200000)
s:gsub(".-b", "")' $L
run 2 "instruction limit exceeded" 'local s = ("a"):rep(1000000)
s:find(("a"):rep(5000) .. "b", 1, true)' $L
# finalizers run under the budget (Lua runs them with hooks off)
run 2 "s.lua:1: instruction limit exceeded" 'setmetatable({}, { __gc = function() while true do end end })
collectgarbage()' $L
run 1 "instruction limit exceeded" 'sim:at(1, function() setmetatable({}, { __gc = function() while true do end end }) collectgarbage() end)
mtcsim.world{ duration = 10 }' $L
# 5. (and what must keep working) pcall, coroutines, patterns, finalizers
run 0 "" 'assert(select("#", pcall(function() return 1, 2 end)) == 3)
local ok, e = pcall(error, { code = 7 }); assert(not ok and e.code == 7)
assert(select(2, xpcall(function() error("x", 0) end, function(m) return m .. "!" end)) == "x!")
local co = coroutine.wrap(function(a) local b = coroutine.yield(a + 1); pcall(coroutine.yield, b * 2); return "end" end)
assert(co(1) == 2 and co(5) == 10 and co() == "end")
assert(("key = value"):match("^(%w+)%s*=%s*(%w+)$") == "key")
assert(select(2, ("a,b,,c"):gsub(",", ";")) == 3 and ("hello"):find("l") == 3)
local n = 0 for w in ("one two three"):gmatch("%a+") do n = n + 1 end assert(n == 3)
assert(("x"):rep(5):gsub("x", { x = "y" }) == "yyyyy")
done = false
setmetatable({}, { __gc = function() done = true end })
collectgarbage()
sim:on_finish(function() assert(done, "finalizer ran") end)
mtcsim.world{ duration = 10 }'

# 12. error objects with __tostring kept no file:line; errors in __gc vanished
run 2 "s.lua:2: custom failure" 'local E = setmetatable({}, { __tostring = function() return "custom failure" end })
error(E)'
run 2 "s.lua:2: \(error object is a table value\)" 'local t = {}
error(t)'
run 2 "s.lua:1: boom in gc" 'setmetatable({}, { __gc = function() error("boom in gc") end })
collectgarbage()'

# 6. C memory allocated for the scenario counts against --max-memory
run 2 "s.lua:2: core.tree: not enough memory" 'local t = mtcsim.core.tree()
for i = 1, 4e6 do t:append_hash(("\0"):rep(32)) end' --max-memory 16
run 2 "s.lua:3: empirical: not enough memory" 'local v = {}
for i = 1, 1e6 do v[i] = i end
local d = empirical{ values = v }' --max-memory 40
run 2 "s.lua:1: zipf: not enough memory" 'local z = zipf{ n = 2^25, s = 1 }' --max-memory 64
run 2 "core.ca: 'max_active_landmarks' must be in 0..10000000" \
  'local ca = mtcsim.core.ca{ max_active_landmarks = 1e12 }'
# garbage holding C memory is collected rather than refused
run 0 "" 'local v = {}
for i = 1, 2e5 do v[i] = i end
for i = 1, 40 do local d = empirical{ values = v } end
for i = 1, 20 do local t = mtcsim.core.tree() for k = 1, 2e4 do t:append_hash(("\0"):rep(32)) end end' --max-memory 48

# 8. the documented maximum counts: a message stating the memory needed
# (an allocation bound keeps the test from depending on the machine)
bigworld() { printf 'mtcsim.world{ duration = 60, start = "empty" } mtcsim.ca{ name = "le" } mtcsim.update_service{ name = "u" }\n%s\n' "$1"; }
if [ -n "${SAN_BUILD:-}" ]; then export ASAN_OPTIONS=allocator_may_return_null=1; lim=unlimited; else lim=16000000; fi
( ulimit -v $lim
  run 2 "browsers: out of memory: 1000 sites and 4000000000 browsers need about [0-9.]+ GiB" \
    "$(bigworld 'mtcsim.sites{ name = "s", count = 1000 } mtcsim.browsers{ name = "b", count = 4e9 }')"
  run 2 "sites: out of memory: 100000000 sites and 10 browsers need about [0-9.]+ GiB" \
    "$(bigworld 'mtcsim.sites{ name = "s", count = 1e8 } mtcsim.browsers{ name = "b", count = 10 }')"
  [ $nfail -eq 0 ] ) || nfail=$((nfail + 1))
unset ASAN_OPTIONS

# 11. out-of-range values: refused at the call, no undefined behaviour
run 2 "s.lua:1: bad argument #1 to 'max_active_landmarks' \(lifetime must be in" \
  'local n = mtcsim.core.max_active_landmarks(math.huge, 1)'
run 2 "lifetime must be in" 'local n = mtcsim.core.max_active_landmarks(0/0, 1)'
assert_ok='assert(mtcsim.core.max_active_landmarks(days(7), hours(1)) == 169)'
run 0 "" "$assert_ok"
run 2 "s.lua:1: core.ca: 'lifetime' must be in 60..400000000, got -4294967196" \
  'local ca = mtcsim.core.ca{ lifetime = -4294967196 }'
run 2 "core.ca: 'witnesses' must be in 0..16" 'local ca = mtcsim.core.ca{ witnesses = 4294967298 }'
run 2 "lifetime must be > 0 s and end before the year 10000" \
  'local b = mtcsim.core.baseline("ed25519", "a.example", math.maxinteger)'
run 2 "latency: values from -1e\+308 to 1e\+308 are outside \[0, 86400\]" \
  'mtcsim.cosigner{ name = "w", latency = uniform{ lo = -1e308, hi = 1e308 } }'
run 2 "hosts_per_visit: values from 1 to 1e\+12 are outside \[0, 1000\]" \
  'mtcsim.browsers{ name = "b", hosts_per_visit = empirical{ values = { 1, 1e12 }, weights = { 1, 1e-10 } } }'
world='mtcsim.world{ duration = 100, start = "empty" } mtcsim.ca{ name = "le" } local w = mtcsim.cosigner{ name = "w" } mtcsim.update_service{ name = "u" }'
run 1 "cosigner_outage: argument 1 \(a duration\) must be in \(0, 3.2e\+09\] s" "$world
sim:at(1, function() w:cosigner_outage(math.huge) end)"
# actions named by a string are checked when declared (exit 2, before
# simulating), those called from a callback when they fire (exit 1)
run 2 "s.lua:2: sim:at: update_outage: argument 1 \(a duration\) must be in \(0, 3.2e\+09\] s, got inf" "$world
sim:at(1, \"update_outage\", \"u\", 1/0)"
run 2 "s.lua:2: sim:at: revoke_range: argument 1 \(a log entry index\) must be an integer in \[0, 2\^48\)" "$world
sim:at(1, \"revoke_range\", \"le\", 0/0, 5)"
run 2 "s.lua:2: sim:at: revoke_range: argument 3 \(a log number\) must be an integer in 1..65535" "$world
sim:at(1, \"revoke_range\", \"le\", 0, 5, 0/0)"
run 1 "split_view: argument 1 \(a count\) must be an integer in 0..65535" "$world
sim:at(1, function() sim:split_view(\"le\", 0/0) end)"

[ $nfail -eq 0 ] || exit 1
echo "lua hardening: ok"
