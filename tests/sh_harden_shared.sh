#!/bin/sh
# Shared databases and unpacked archives are data, never configuration
# (usage: sh_harden_shared.sh BUILD). Each case is an attack or a mistake
# with something someone else made:
#  - resume: a stored command line edited to add --unsafe, a huge
#    instruction limit or -j changes nothing (the resume runs with what is
#    typed now); other --set/--seed than the experiment's are refused unless
#    --accept-changes; the scenario must be named;
#  - the output folder: NAME.files as a link (to a directory outside or
#    inside the results directory) or as a file is refused before anything
#    runs; links inside it (a subdirectory, a file, the manifest) are
#    neither read nor written through; a folder replaced by a link while a
#    run writes keeps receiving the run's files (it is opened once, and
#    every file relative to that handle);
#  - two resumes of one database started at once: one claims the
#    experiment, the other is refused (or finds nothing left), and every
#    (point, replication) ends with one completed run; a run left
#    'running' by another host (a copied database) is resumed;
#  - resume hashes every file the scenario loaded (a required module, a
#    data file): a changed one is refused unless --accept-changes;
#  - runs of -j 8 workers creating the same files in one output folder at
#    once: every run may write each (the manifest is read and appended
#    under the folder's lock);
#  - messages name what they refuse: a constant distribution that is not
#    finite names its parameter; a -j worker out of memory says so; '~/x'
#    is a missing file (not expanded), not a way out; a damaged database
#    is refused with nothing created beside it; quantities that overflow
#    or hide a NUL byte are refused;
#  - a run adds at most 1 MiB of parameter text to the database: a 2 MiB
#    param string fails the run with a message naming the cap;
#  - mtcsim ls prints text from a database with control characters
#    escaped (names, command line, errors, parameters, metrics);
set -u
b=${1:-build}
root=$(pwd)
m="$root/$b/mtcsim"
fail() { echo "FAIL: $*"; exit 1; }
d=$(mktemp -d "${TMPDIR:-/tmp}/sh_harden_shared.XXXXXX") || fail "mktemp"
trap 'rm -rf "$d"' EXIT
cd "$d" || fail "cd"

# ---- resume: the stored command line is not obeyed ----
cat > esc.lua <<'LUA'
local n = param("n", 2, "cosigners")
local spin = param("spin", 0, "loop iterations in on_finish")
mtcsim.world{ duration = hours(2), start = "empty" }
mtcsim.update_service{ name = "us" }
sim:on_finish(function(s)
  if os.execute then os.execute("touch pwned") end
  local x = 0
  for i = 1, spin do x = x + i end
end)
LUA
"$m" run esc.lua --set spin=300000 --out s.db --quiet >/dev/null 2>err || fail "first run: $(cat err)"
sqlite3 s.db "update run set status = 'failed';
  update experiment set command_line = 'mtcsim run esc.lua --set spin=300000 --unsafe -j 3 --max-instructions 100000000000000 --out s.db'" \
  || fail sqlite3
cp s.db s2.db
# the experiment's options not given: refused (before, they came from the
# database, --unsafe included)
"$m" run esc.lua --resume s.db --quiet >/dev/null 2>err; [ $? -eq 2 ] || fail "resume without the experiment's --set must exit 2"
[ ! -e pwned ] || fail "resume inherited --unsafe from the database"
# same options as the experiment: the stored --unsafe and limits are not taken
"$m" run esc.lua --set spin=300000 --resume s.db --quiet >/dev/null 2>err || fail "resume: $(cat err)"
[ ! -e pwned ] || fail "resume inherited --unsafe from the database"
"$m" run esc.lua --set spin=300000 --resume s2.db --quiet --max-instructions 100000 >/dev/null 2>err
[ $? -eq 1 ] || fail "the resume's own --max-instructions must hold"
grep -q 'instruction limit exceeded' err || fail "limit message: $(cat err)"
[ ! -e pwned ] || fail "resume ran unsafe"
# without the scenario, or with other options: refused, database unchanged
h=$(sha256sum s2.db)
"$m" run --resume s2.db >/dev/null 2>err; [ $? -eq 2 ] || fail "resume without a scenario must exit 2"
grep -q 'give the scenario' err || fail "no scenario: $(cat err)"
"$m" run esc.lua --resume s2.db --quiet >/dev/null 2>err; [ $? -eq 2 ] || fail "resume with other --set must exit 2"
grep -q -- '--set spin=300000 then, not given now' err || fail "other options: $(cat err)"
"$m" run esc.lua --resume s2.db --set spin=300000 --set n=4 --quiet >/dev/null 2>err; [ $? -eq 2 ] || fail "an added --set must be refused"
grep -q -- '--set n=4 now, not then' err || fail "added --set: $(cat err)"
[ "$(sha256sum s2.db)" = "$h" ] || fail "a refused resume changed the database"
# a command line with escape sequences is shown escaped
sqlite3 s2.db "update experiment set command_line = 'mtcsim run esc.lua --seed 7 ' || char(27) || '[2J'" || fail sqlite3
"$m" run esc.lua --resume s2.db --set spin=300000 --quiet >/dev/null 2>err; [ $? -eq 2 ] || fail "edited line must be refused"
grep -q "$(printf '\033')" err && fail "escape sequence printed raw"
grep -q 'x1b\[2J' err || fail "escaped command line: $(cat err)"
# told: --accept-changes resumes with this command line's options
"$m" run esc.lua --resume s2.db --set spin=300000 --accept-changes --quiet >/dev/null 2>err || fail "--accept-changes: $(cat err)"
grep -q 'warning:' err || fail "--accept-changes must still say what differs: $(cat err)"
[ "$(sqlite3 s2.db "select count(*) from run where status = 'completed'")" = 1 ] || fail "accepted resume did not run"
[ ! -e pwned ] || fail "resume ran unsafe"

# ---- the output folder: links at every level ----
mkdir -p arc home/.ssh
printf 'PRIVATE\n' > home/.ssh/id_rsa
ls -la home/.ssh > ssh.before
cat > arc/leak.lua <<'LUA'
local F = param("folder", "", "the output folder, absolute")
local sub = param("sub", "", "a path below it to read and write")
mtcsim.world{ duration = hours(2), start = "empty" }
mtcsim.update_service{ name = "us" }
local function try(what, f)
  local ok, r = pcall(f)
  print(what .. " " .. (ok and r and "OK" or "REFUSED") .. " " .. tostring(r))
end
sim:at(hours(1), function()
  try("read", function() local f = io.open(F .. "/" .. sub .. "id_rsa"); local t = f and f:read("a"); if f then f:close() end; return t end)
  try("write", function() local f = io.open(sub .. "authorized_keys", "w"); if f then f:write("evil"); f:close() end; return f end)
  try("first", function() local f = io.open("a.txt", "w"); f:write("a"); f:close(); return true end)
  local g = io.open("gate")
  while g do g:close(); g = io.open("gate") end
  try("second", function() local f = io.open("b.txt", "w"); f:write("b"); f:close(); return true end)
  try("reread", function() local f = io.open(F .. "/a.txt"); local t = f and f:read("a"); if f then f:close() end; return t end)
end)
LUA
F="$d/arc/results.files"
run_leak() {  # expected exit code, then extra arguments
  code=$1; shift
  "$m" run arc/leak.lua --out arc/results.db --quiet --set folder="$F" "$@" >out 2>err; rc=$?
  [ $rc -eq "$code" ] || fail "exit $rc (expected $code): $(cat err)"
  grep -q PRIVATE out && fail "the scenario read a private key through a link: $(cat out)"
  ls -la home/.ssh > ssh.after
  cmp -s ssh.before ssh.after || fail "the scenario changed the linked directory: $(cat ssh.after)"
  [ ! -e arc/results.db ] || [ "$code" -ne 2 ] || fail "a refused run created the database"
}
# the folder itself: a link outside, a link inside the results directory, a file
ln -s ../home/.ssh "$F"
run_leak 2; grep -q 'results.files is a symbolic link: refused' err || fail "folder link: $(cat err)"
rm "$F"; mkdir arc/real; ln -s real "$F"
run_leak 2; grep -q 'is a symbolic link' err || fail "folder link inside: $(cat err)"
rm "$F"; echo x > "$F"
run_leak 2; grep -q 'is not a directory' err || fail "folder file: $(cat err)"
rm "$F"; mkdir "$F"
# a subdirectory, a file and the manifest as links
ln -s ../../home/.ssh "$F/sub"
run_leak 0 --set sub=sub/
grep -q '^read REFUSED' out && grep -q '^write REFUSED' out || fail "link subdirectory: $(cat out)"
rm "$F/sub"; ln -s ../../home/.ssh/id_rsa "$F/id_rsa"
run_leak 0
grep -q '^read REFUSED' out || fail "link file: $(cat out)"
rm -rf "$F"; mkdir "$F"; touch home/.ssh/authorized_keys; ls -la home/.ssh > ssh.before
ln -s ../../home/.ssh/authorized_keys "$F/.mtcsim-files"
run_leak 0
grep -q '^write REFUSED' out && grep -q '^first REFUSED' out || fail "manifest link: $(cat out)"
[ -s home/.ssh/authorized_keys ] && fail "appended to the manifest's link target"
# replaced by a link while the run writes: the run keeps its folder
rm -rf "$F"; touch arc/gate
"$m" run arc/leak.lua --out arc/results.db --quiet --set folder="$F" >out 2>err & pid=$!
n=0; while [ ! -e "$F/a.txt" ] && [ $n -lt 300 ]; do sleep 0.1; n=$((n+1)); done
[ -e "$F/a.txt" ] || { kill $pid; fail "the run never wrote a.txt: $(cat err)"; }
mv "$F" arc/moved.files; ln -s ../home/.ssh "$F"; rm arc/gate
wait $pid || fail "swapped folder run: $(cat err)"
[ -e arc/moved.files/b.txt ] || fail "the file written after the swap did not reach the run's folder: $(cat out)"
grep -q '^reread REFUSED' out || fail "read through the swapped link: $(cat out)"
ls -la home/.ssh > ssh.after
cmp -s ssh.before ssh.after || fail "the swap let the scenario write into the link's target"

# ---- two resumes at once; a database from another host ----
cat > reps.lua <<'LUA'
replications(6)
mtcsim.world{ duration = hours(12), grid_step = hours(1), start = "empty" }
local w1 = mtcsim.cosigner{ name = "w1", algorithm = "ed25519" }
mtcsim.ca{ name = "ca1", algorithm = "ed25519", rate = per_day(5000), cosigners = { w1 }, quorum = 1 }
mtcsim.update_service{ name = "us" }
LUA
"$m" run reps.lua --out two.db --quiet >/dev/null 2>err || fail "reps: $(cat err)"
sqlite3 two.db "update run set status = 'failed'" || fail sqlite3
for i in 1 2 3; do
  cp two.db t$i.db
  "$m" run reps.lua --resume t$i.db --quiet >a.out 2>a.err & pa=$!
  "$m" run reps.lua --resume t$i.db --quiet >b.out 2>b.err & pb=$!
  wait $pa; ra=$?; wait $pb; rb=$?
  [ $ra -eq 0 ] || [ $rb -eq 0 ] || fail "neither resume finished: $(cat a.err b.err)"
  for r in $ra $rb; do [ $r -eq 0 ] || [ $r -eq 2 ] || fail "resume exit $r: $(cat a.err b.err)"; done
  [ $ra -eq 0 ] || grep -q 'is being run or resumed by another process' a.err || fail "refusal: $(cat a.err)"
  [ $rb -eq 0 ] || grep -q 'is being run or resumed by another process' b.err || fail "refusal: $(cat b.err)"
  [ "$(sqlite3 t$i.db "select count(*) from run where status = 'completed'")" = 6 ] \
    || fail "two resumes at once: $(sqlite3 t$i.db "select sweep_point, replication, status from run")"
  [ "$(sqlite3 t$i.db "select count(*) from (select 1 from run where status = 'completed' group by sweep_point, replication having count(*) > 1)")" = 0 ] \
    || fail "a (point, replication) completed twice"
done
cp two.db host.db
sqlite3 host.db "update run set status = 'running', hostname = 'elsewhere.example', pid = 1 where run_id = 1" || fail sqlite3
"$m" ls host.db | grep -q 'abandoned' || fail "ls: a run of another host is abandoned: $("$m" ls host.db)"
"$m" run reps.lua --resume host.db --quiet >/dev/null 2>err || fail "resume of a database from another host: $(cat err)"
[ "$(sqlite3 host.db "select count(*) from run where status = 'completed'")" = 6 ] || fail "copied database not resumed"

# ---- resume compares every file the scenario loaded ----
mkdir -p mods
printf 'return 50\n' > mods/size.lua
printf '3\n' > data.txt
cat > mod.lua <<'LUA'
local size = require "mods.size"
local f = assert(io.open("data.txt")); local k = tonumber(f:read("l")); f:close()
replications(2)
mtcsim.world{ duration = hours(2), start = "empty" }
mtcsim.update_service{ name = "us" }
mtcsim.browsers{ name = "b", count = size * k }
LUA
"$m" run mod.lua --out mod.db --quiet >/dev/null 2>err || fail "mod run: $(cat err)"
[ "$(sqlite3 mod.db "select count(distinct value) from run_attr where name = 'loaded:mods/size.lua'")" = 1 ] \
  || fail "module hash not recorded: $(sqlite3 mod.db 'select * from run_attr')"
[ "$(sqlite3 mod.db "select count(*) from run_attr where name = 'loaded:data.txt'")" = 2 ] || fail "data file hash not recorded"
sqlite3 mod.db "update run set status = 'failed' where run_id = 2" || fail sqlite3
cp mod.db mod2.db
printf 'return 5000\n' > mods/size.lua
"$m" run mod.lua --resume mod.db --quiet >/dev/null 2>err; [ $? -eq 2 ] || fail "a changed module must be refused"
grep -q "the file 'mods/size.lua' that experiment 1's scenario loaded has changed" err || fail "module message: $(cat err)"
printf 'return 50\n' > mods/size.lua; printf '4\n' > data.txt
"$m" run mod.lua --resume mod.db --quiet >/dev/null 2>err; [ $? -eq 2 ] || fail "a changed data file must be refused"
grep -q "'data.txt'.*has changed" err || fail "data file message: $(cat err)"
rm data.txt
"$m" run mod.lua --resume mod2.db --quiet >/dev/null 2>err; [ $? -eq 2 ] || fail "a missing file must be refused"
printf '3\n' > data.txt
sqlite3 mod2.db "update run_attr set name = 'loaded:../../etc/passwd' where name = 'loaded:data.txt'" || fail sqlite3
"$m" run mod.lua --resume mod2.db --quiet >/dev/null 2>err; [ $? -eq 2 ] || fail "a recorded name outside the directory must be refused"
grep -q 'is not a name the sandbox records' err || fail "outside name: $(cat err)"
"$m" run mod.lua --resume mod.db --quiet >/dev/null 2>err || fail "unchanged files: $(cat err)"
[ "$(sqlite3 mod.db "select count(*) from run where status = 'completed'")" = 2 ] || fail "module resume"

# ---- many processes creating the same output files at once ----
cat > same.lua <<'LUA'
replications(32)
mtcsim.world{ duration = hours(1), start = "empty" }
mtcsim.update_service{ name = "us" }
sim:on_finish(function(s)
  for i = 1, 150 do
    local f = assert(io.open("f" .. i .. ".txt", "w"))
    f:write(s.replication, "\n")
    f:close()
  end
end)
LUA
"$m" run same.lua --out same.db -j 8 --quiet >/dev/null 2>err || fail "concurrent creation: $(grep -m3 refused err)"
[ "$(sqlite3 same.db "select count(*) from run where status = 'completed'")" = 32 ] || fail "concurrent runs"
[ "$(grep -c . same.files/.mtcsim-files)" = 150 ] || fail "manifest: $(sort same.files/.mtcsim-files | uniq -d | head)"

# ---- messages ----
printf 'mtcsim.world{ duration = hours(1), start = "empty" }\nmtcsim.cosigner{ name = "w", latency = 1/0 }\n' > inf.lua
"$m" run inf.lua --quiet >/dev/null 2>err; [ $? -eq 2 ] || fail "infinite constant"
grep -q "cosigner 'w': latency: a constant distribution must be finite" err || fail "constant: $(cat err)"
for q in '"1e308w"' '"1e308/s" == nil' '"5h\0x"'; do
  printf 'assert(mtcsim.quantity(%s))\n' "$q" > q.lua
  "$m" run q.lua --quiet >/dev/null 2>err; [ $? -eq 2 ] || fail "quantity($q) accepted"
done
printf 'mtcsim.quantity("1e308w")\n' > q.lua; "$m" run q.lua >/dev/null 2>err
grep -q "'1e308w' is too large a quantity" err || fail "overflow message: $(cat err)"
printf 'mtcsim.world{ duration = "5h\\0x" }\n' > q.lua; "$m" run q.lua >/dev/null 2>err
grep -q "duration: '5h...' is not a quantity: it contains a NUL byte" err || fail "NUL message: $(cat err)"
printf 'local f, e = io.open("~/x"); assert(not f); print(e)\n' > tilde.lua
"$m" run tilde.lua >out 2>err || fail "'~/x' refused: $(cat err)"
grep -q "'~' is not expanded" out || fail "tilde message: $(cat out)"
printf 'mtcsim.world{ duration = hours(1), start = "empty" }\nmtcsim.update_service{ name = "us" }\n' > ok.lua
"$m" run ok.lua --out good.db --quiet >/dev/null 2>&1 || fail "good.db"
head -c 5000 good.db > cut.db
cp good.db dmg.db; printf 'XXXXXXXXXXXXXXXX' | dd of=dmg.db bs=1 seek=4096 conv=notrunc 2>/dev/null
for f in cut.db dmg.db; do
  h=$(sha256sum $f)
  "$m" run ok.lua --out $f --quiet >/dev/null 2>err; [ $? -eq 2 ] || fail "damaged $f accepted"
  "$m" run ok.lua --resume $f --quiet >/dev/null 2>&1; [ $? -eq 2 ] || fail "damaged $f resumed"
  "$m" ls $f >/dev/null 2>&1
  [ ! -e $f-wal ] && [ ! -e $f-shm ] || fail "refusing damaged $f created $(ls $f-*)"
  [ "$(sha256sum $f)" = "$h" ] || fail "refusing damaged $f changed it"
done
if [ -z "${SAN_BUILD:-}" ]; then    # no address-space limit under ASan
  # a worker whose memory the scenario filled (Lua's cap is above the
  # address-space limit) cannot assemble its results: it says so. (Its
  # printed output no longer counts: a worker streams it to the parent.)
  cat > big.lua <<'LUA'
replications(2)
mtcsim.world{ duration = hours(1), start = "empty" }
mtcsim.update_service{ name = "us" }
keep = {}
sim:on_finish(function()
  for _, n in ipairs({ 1 << 20, 1 << 12, 64 }) do
    pcall(function() while true do keep[#keep + 1] = ("x"):rep(n) .. #keep end end)
  end
end)
LUA
  (ulimit -v 600000; "$m" run big.lua --out big.db -j 2 --quiet >/dev/null 2>err); [ $? -eq 1 ] || fail "worker out of memory: exit"
  grep -q 'ran out of memory during the run' err || fail "worker out of memory: $(cat err)"
fi

# ---- per-run caps of the database ----
cat > blob.lua <<'LUA'
local blob = param("blob", ("x"):rep(2 * 1024 * 1024), "two MiB of text")
mtcsim.world{ duration = hours(1), start = "empty" }
mtcsim.update_service{ name = "us" }
LUA
"$m" run blob.lua --out blob.db --quiet >/dev/null 2>err; [ $? -eq 1 ] || fail "a 2 MiB parameter must fail the run"
grep -q "would take more than 1048576 bytes in the results database (the cap per run), at parameter 'blob'" err || fail "cap message: $(cat err)"
[ "$(sqlite3 blob.db "select status from run")" = failed ] || fail "capped run: $(sqlite3 blob.db 'select status, error from run')"
[ "$(stat -c %s blob.db)" -lt 1500000 ] || fail "the database grew past the cap: $(stat -c %s blob.db)"

# ---- text from a database is printed escaped ----
cp two.db esc.db
E="char(27) || '[31m'"
sqlite3 esc.db "update experiment set name = 'x' || $E, command_line = 'mtcsim ' || $E || char(7);
  update run set error = 'boom' || $E || char(13) || 'ok' where run_id = 2;
  update param set value = $E || '0' where run_id = 1;
  update metric set name = name || $E where run_id = 1" || fail sqlite3
"$m" ls esc.db --runs --params --metrics >ls.out 2>&1 || fail "ls: $(cat ls.out)"
if LC_ALL=C grep -q "$(printf '[\033\007\015]')" ls.out; then fail "ls printed control characters raw"; fi
[ "$(grep -c 'x1b\[31m' ls.out)" -ge 5 ] || fail "ls escapes: $(cat ls.out)"
grep -q 'boom\\x1b\[31m\\x0dok' ls.out || fail "ls error escape: $(grep boom ls.out)"
echo "shared data ok"
