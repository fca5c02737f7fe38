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
# KEEP_GOING=1 reports every failing check instead of stopping at the
# first (to see a test fail on the code before its fix).
nfail=0
fail() { echo "FAIL: $*"; nfail=$((nfail + 1)); [ -n "${KEEP_GOING:-}" ] || exit 1; }

# refused CODE PATTERN LUA [ARGS]: exit CODE (2: before any simulation)
refused() {
  pat=$1; printf '%s\n' "$2" > "$d/sc/s.lua"; shift 2
  timeout -k 5 60 "$m" run "$d/sc/s.lua" --quiet --out "$d/out/r.db" "$@" >"$d/o" 2>"$d/err"; rc=$?
  [ $rc -eq 2 ] || { fail "not refused (exit $rc): $(cat "$d/sc/s.lua")"; return; }
  grep -Eq -- "$pat" "$d/err" || fail "message '$(head -1 "$d/err")' lacks /$pat/"
}
allowed() {
  printf '%s\n' "$1" > "$d/sc/s.lua"; shift
  timeout -k 5 60 "$m" run "$d/sc/s.lua" --quiet --out "$d/out/r.db" "$@" >"$d/o" 2>"$d/err" ||
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
refused "dofile: '/etc/passwd' refused: the sandbox allows reading only inside" 'dofile("/etc/passwd")'
refused "loadfile: '/etc/hostname' refused" 'assert(loadfile("/etc/hostname"))'
refused "reading '/etc/passwd' refused: the sandbox allows reading only inside the scenario's directory and the output folder" 'io.open("/etc/passwd")'
refused "reading only inside" 'io.open("../other/x")'
touch "$d/other/y"
refused "reading only inside" 'io.open("../other/y")'
refused "writes only inside the run's output folder" 'io.open("'"$d"'/other/x.txt", "w")'
refused "never writes dotfiles \(nor '.' or '..'\)" 'io.open("../other/x.txt", "a")'
refused "writes only inside the run's output folder" 'io.open("'"$d"'/sc/s.lua", "r+")'
printf '%s\n' 'local x = 1' > "$d/sc/s.lua"
"$m" run "$d/sc/s.lua" --quiet >/dev/null 2>&1 || fail "trivial scenario"
printf '%s\n' 'io.open("x.txt", "w")' > "$d/sc/s.lua"
"$m" run "$d/sc/s.lua" --quiet 2>"$d/err"; [ $? -eq 2 ] || fail "write without --out"
grep -q "there is none" "$d/err" || fail "write without --out message"
refused "s.lua:3: instruction limit exceeded" 'local n = 0
while true do
  pcall(function() while true do n = n + 1 end end)
end' --max-instructions 1000000
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
# The run's output folder: out/r.files beside out/r.db, never out/ itself
F="$d/out/r.files"
[ -e "$d/out/res.txt" ] && fail "a scenario wrote beside the results database"
[ "$(cat "$F/res.txt")" = ok ] || fail "write into the output folder"
allowed 'local f = assert(io.open("'"$F"'/res2.txt", "w")); f:write("ok"); f:close()'
ln -s "$d/other/target" "$F/link"
refused "never writes through a symbolic link" 'io.open("link", "w")'
[ -e "$d/other/target" ] && fail "wrote through a symlink"
ln -s "$d/other" "$F/dirlink"
refused "never writes through a symbolic link" 'io.open("dirlink/x", "w")'
printf 'return { answer = 42 }\n' > "$d/sc/helper.lua"
allowed 'local h = require "helper"; assert(h.answer == 42); assert(require("helper") == h)'
allowed 'local h = dofile("helper.lua"); assert(h.answer == 42)'
allowed 'assert(load("return 1 + 1")() == 2); assert(io.open("helper.lua")):close()'
allowed 'local t = 0; for i = 1, 2e7 do t = t + i end'   # a big setup loop is fine
allowed 'assert(math.random() ~= nil and os.time() > 0 and string.format("%d", 3) == "3")'
# the results database, its journals and every file no
# sandboxed run created stay untouched; no dotfiles, links or FIFOs.
allowed 'local x = 1'   # makes out/r.db
cp "$d/out/r.db" "$d/db.orig"
printf 'all:\n\techo hi\n' > "$d/out/Makefile"; cp "$d/out/Makefile" "$d/mk.orig"
printf 'user data\n' > "$F/notes.txt"
for name in r.db r.db-journal r.db-wal r.db-shm other.sqlite; do
  refused "never writes a database or journal file" 'io.open("'"$name"'", "w")'
done
refused "allows writes only inside the run's output folder" 'io.open("'"$d"'/out/r.db", "w")'
refused "never writes dotfiles" 'io.open("../r.db-journal", "w")'

refused "refused" 'io.open("'"$d"'/out/Makefile", "w")'
refused "never overwrites a file it did not create" 'io.open("notes.txt", "a")'
refused "never overwrites a file it did not create" 'io.open("notes.txt", "w")'
refused "never overwrites a file it did not create" 'io.open("notes.txt", "r+")'
refused "never writes dotfiles" 'io.open(".bashrc", "w")'
refused "never writes dotfiles" 'io.open(".mtcsim-files", "a")'
printf 'secret\n' > "$d/sc/.secret"
refused "never reads dotfiles" 'io.open(".secret")'
refused "never reads dotfiles" 'io.open("'"$F"'/.mtcsim-files")'
cmp -s "$d/out/r.db" "$d/db.orig" || fail "the results database changed"
cmp -s "$d/out/Makefile" "$d/mk.orig" || fail "an existing file changed"
[ "$(cat "$F/notes.txt")" = "user data" ] || fail "notes.txt changed"
[ -e "$d/out/r.db-journal" ] || [ -e "$d/out/r.db-wal.x" ] && fail "a journal was planted"
mkfifo "$d/sc/fifo" "$F/fifo2"
refused "opens only regular files" 'io.open("fifo")'
refused "refused" 'io.open("fifo2", "w")'
refused "opens only regular files" 'dofile("fifo")'
# files a sandboxed run created may be rewritten and appended to later
allowed 'local f = assert(io.open("mine.txt", "w")); f:write("a"); f:close()'
allowed 'local f = assert(io.open("mine.txt", "a")); f:write("b"); f:close()
f = assert(io.open("mine.txt", "r+")); assert(f:read("a") == "ab"); f:close()
f = assert(io.open("'"$F"'/mine.txt")); assert(f:read("a") == "ab"); f:close()'
[ "$(cat "$F/mine.txt")" = ab ] || fail "append to a file a run created"
allowed 'local f = assert(io.open("mine.txt", "w+")); f:write("c"); f:seek("set"); assert(f:read("a") == "c"); f:close()'
# a FIFO as the scenario itself: refused, not read forever
rm -f "$d/sc/s.lua"; mkfifo "$d/sc/s.lua"
timeout -k 5 20 "$m" run "$d/sc/s.lua" --quiet >/dev/null 2>"$d/err"; rc=$?
[ $rc -eq 2 ] || fail "FIFO scenario: exit $rc"
grep -q "not a regular file\|opens only regular files" "$d/err" || fail "FIFO scenario message: $(cat "$d/err")"
rm -f "$d/sc/s.lua"

# --unsafe lifts it (harmless uses only)
allowed 'assert(type(os.execute) == "function" and type(io.popen) == "function")
assert(package.loadlib and debug.getinfo and string.dump)
assert(load(string.dump(function() return 7 end))() == 7)' --unsafe
allowed 'local t = require "helper"; assert(t.answer == 42)' --unsafe
[ $nfail -eq 0 ] || exit 1
echo "lua sandbox: ok"
