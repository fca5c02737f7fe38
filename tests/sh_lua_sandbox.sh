#!/bin/sh
# The sandbox refuses every escape (process execution, native code, binary
# chunks, files outside the scenario and output directories, runaway
# loops); --unsafe lifts it. Each refused action would otherwise succeed:
# the same code is run with --unsafe where that is harmless.
set -u
b=${1:-build}
m="$b/mtcsim"
d=$(mktemp -d); trap 'rm -rf "$d"' EXIT
mkdir -p "$d/sc" "$d/out" "$d/other"
fail() { echo "FAIL: $*"; exit 1; }

# refused CODE PATTERN LUA [ARGS]: exit CODE (2: before any simulation)
refused() {
  pat=$1; printf '%s\n' "$2" > "$d/sc/s.lua"; shift 2
  "$m" run "$d/sc/s.lua" --quiet --out "$d/out/r.db" "$@" >"$d/o" 2>"$d/err"; rc=$?
  [ $rc -eq 2 ] || fail "not refused (exit $rc): $(cat "$d/sc/s.lua")"
  grep -Eq -- "$pat" "$d/err" || fail "message '$(head -1 "$d/err")' lacks /$pat/"
}
allowed() {
  printf '%s\n' "$1" > "$d/sc/s.lua"; shift
  "$m" run "$d/sc/s.lua" --quiet --out "$d/out/r.db" "$@" >"$d/o" 2>"$d/err" ||
    fail "refused: $(cat "$d/sc/s.lua"): $(head -3 "$d/err")"
}

refused "attempt to call a nil value \(field 'execute'\)" 'os.execute("touch '"$d"'/pwned")'
refused "attempt to call a nil value \(field 'popen'\)" 'io.popen("touch '"$d"'/pwned")'
refused "attempt to index a nil value \(global 'package'\)" 'package.loadlib("libc.so.6", "system")'
refused "attempt to index a nil value \(global 'debug'\)" 'debug.getregistry()'
refused "attempt to call a nil value \(field 'remove'\)" 'os.remove("'"$d"'/out/r.db")'
refused "attempt to call a nil value \(field 'getenv'\)" 'os.getenv("HOME")'
refused "attempt to call a nil value \(field 'dump'\)" 'local f = string.dump(print)'
refused "attempt to load a binary chunk" 'assert(load("\27Lua\84\0"))()'
refused "attempt to load a binary chunk" 'assert(load("\27Lua\84\0", "x", "b"))()'
refused "the sandbox loads only Lua modules" 'require "socket.core"'
refused "module 'os' not found" 'require "os"'
refused "refused: the sandbox loads files only from the scenario's directory" 'dofile("/etc/passwd")'
refused "loadfile: '/etc/hostname' refused" 'assert(loadfile("/etc/hostname"))'
refused "reading only inside the scenario's and the output directory" 'io.open("/etc/passwd")'
refused "reading only inside" 'io.open("../other/x")'
touch "$d/other/y"
refused "reading only inside" 'io.open("../other/y")'
refused "writes only inside the output directory" 'io.open("'"$d"'/other/x.txt", "w")'
refused "writes only inside the output directory" 'io.open("../other/x.txt", "a")'
refused "writes only inside the output directory" 'io.open("'"$d"'/sc/s.lua", "r+")'
ln -s "$d/other/target" "$d/out/link"
refused "writes only inside the output directory" 'io.open("link", "w")'
[ -e "$d/other/target" ] && fail "wrote through a symlink"
ln -s "$d/other" "$d/out/dirlink"
refused "writes only inside the output directory" 'io.open("dirlink/x", "w")'
printf '%s\n' 'local x = 1' > "$d/sc/s.lua"
"$m" run "$d/sc/s.lua" --quiet >/dev/null 2>&1 || fail "trivial scenario"
printf '%s\n' 'io.open("x.txt", "w")' > "$d/sc/s.lua"
"$m" run "$d/sc/s.lua" --quiet 2>"$d/err"; [ $? -eq 2 ] || fail "write without --out"
grep -q "there is none" "$d/err" || fail "write without --out message"
refused "s.lua:2: instruction limit exceeded" 'local i = 0
while true do i = i + 1 end' --max-instructions 1000000
# in a callback during the run: a failed run (exit 1), stopped
printf '%s\n' 'sim:at(1, function()' '  while true do end end)' > "$d/sc/s.lua"
"$m" run "$d/sc/s.lua" --quiet --max-instructions 1000000 2>"$d/err"; [ $? -eq 1 ] || fail "runaway callback"
grep -q "s.lua:2: instruction limit exceeded" "$d/err" || fail "runaway callback message"
refused "not enough memory" 'local t = {} for i = 1, 1e9 do t[i] = ("x"):rep(1000) .. i end' --max-memory 64
[ -e "$d/pwned" ] && fail "a command ran"
[ -e "$d/out/r.db" ] || true

# what the sandbox allows
allowed 'local f = assert(io.open("res.txt", "w")); f:write("ok"); f:close()'
[ "$(cat "$d/out/res.txt")" = ok ] || fail "write beside --out"
allowed 'local f = assert(io.open("'"$d"'/out/res2.txt", "w")); f:write("ok"); f:close()'
printf 'return { answer = 42 }\n' > "$d/sc/helper.lua"
allowed 'local h = require "helper"; assert(h.answer == 42); assert(require("helper") == h)'
allowed 'local h = dofile("helper.lua"); assert(h.answer == 42)'
allowed 'assert(load("return 1 + 1")() == 2); assert(io.open("helper.lua")):close()'
allowed 'local t = 0; for i = 1, 2e7 do t = t + i end'   # a big setup loop is fine
allowed 'assert(math.random() ~= nil and os.time() > 0 and string.format("%d", 3) == "3")'
# --unsafe lifts it (harmless uses only)
allowed 'assert(type(os.execute) == "function" and type(io.popen) == "function")
assert(package.loadlib and debug.getinfo and string.dump)
assert(load(string.dump(function() return 7 end))() == 7)' --unsafe
allowed 'local t = require "helper"; assert(t.answer == 42)' --unsafe
echo "lua sandbox: ok"
