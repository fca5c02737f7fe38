#!/bin/sh
# Shared databases and unpacked archives are data, never configuration
# (usage: sh_harden_shared.sh BUILD). Each case is an attack or a mistake
# with something someone else made:
#  - resume: a stored command line edited to add --unsafe, a huge
#    instruction limit or -j changes nothing (the resume runs with what is
#    typed now); other --set/--seed than the experiment's are refused unless
#    --accept-changes; the scenario must be named;
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
echo "shared data ok"
