#!/bin/sh
# No -wal or -shm is left beside a results database once the programs that
# wrote or read it have finished (usage: sh_results_wal.sh BUILD): after a
# run (-j 1 and -j 2), a failed run, an interrupted run and its --resume,
# the readers (ls, plot, export, compare, report), and a reader that read
# the file while a run was writing it. A leftover log would have to travel
# with the file, and a read-only copy of it could not be read without it.
set -u
b=${1:-build}
case "$b" in /*) bb=$b ;; *) bb=$(pwd)/$b ;; esac
m="$bb/mtcsim"
d=$(mktemp -d); trap 'rm -rf "$d"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
clean() {   # clean DB WHAT: nothing beside DB
  for x in -wal -shm -journal; do
    [ ! -e "$1$x" ] || fail "$2 left $(basename "$1$x") beside the database"
  done
}
cd "$d" || exit 1
cat > s.lua <<'LUA'
mtcsim.world{ start = "empty", duration = hours(param("h", 2)), warmup = 0 }
local m = mtcsim.cosigner{ name = "m", role = "mirror" }
mtcsim.ca{ name = "le", rate = "1e4/d", cosigners = { m }, quorum = 1 }
mtcsim.update_service{ name = "u" }
mtcsim.sites{ name = "s", count = 20 }
mtcsim.browsers{ name = "b", count = param("n", 50) }
if param("fail", false) then sim:at(hours(1), function() error("boom") end) end
LUA

"$m" run s.lua --out a.db --quiet || fail "run"
clean a.db "a run"
"$m" run s.lua --out a.db --quiet -j 2 --replications 3 || fail "run -j 2"
clean a.db "a run with -j 2"
"$m" run s.lua --out f.db --quiet --set fail=true 2>/dev/null
[ $? -eq 1 ] || fail "the failing run should exit 1"
clean f.db "a failed run"

"$m" ls a.db >/dev/null || fail "ls"
clean a.db "ls"
"$m" plot a.db handshake_full --out p.png >/dev/null 2>&1 || fail "plot"
clean a.db "plot"
"$m" export a.db --csv csv >/dev/null || fail "export"
clean a.db "export"
"$m" run s.lua --out c.db --quiet --set n=60 || fail "run for compare"
"$m" compare a.db c.db >/dev/null 2>&1
clean a.db "compare"; clean c.db "compare"
if command -v gnuplot >/dev/null 2>&1; then
  "$m" report a.db --out rep >/dev/null 2>&1 || fail "report"
  clean a.db "report"
fi

# interrupted (SIGINT), then resumed
"$m" run s.lua --out i.db --quiet --set h=12 --set n=1000 --replications 2 2>/dev/null &
pid=$!
k=0
while [ ! -e i.db-wal ] && [ $k -lt 100 ]; do sleep 0.1; k=$((k + 1)); done
# a reader while the run writes: it reads through the log
sleep 0.5
"$m" ls i.db >/dev/null || fail "ls during the run"
kill -INT $pid; wait $pid
clean i.db "an interrupted run (and a reader during it)"
"$m" run s.lua --resume i.db --quiet --set h=12 --set n=1000 --replications 2 ||
  fail "resume"
clean i.db "a resume"
echo "results wal: ok"
