#!/bin/sh
# The results file under damage, contention and read-only access, through
# the mtcsim program (usage: sh_harden_results.sh BUILD):
#  - a database corrupt past its header is refused before
#    anything is simulated, exit 2, and left byte-for-byte unchanged; a
#    run whose metrics cannot be stored ends 'failed' with the reason,
#    never 'running';
#  - runs started together on the same new --out file all
#    succeed (one creates it, the others append);
#  - report and export read a results file in a directory the
#    reader cannot write, creating nothing beside it.
set -u
b=${1:-build}
case "$b" in /*) bb=$b ;; *) bb=$(pwd)/$b ;; esac
m="$bb/mtcsim"
d=$(mktemp -d); trap 'chmod -R u+w "$d" 2>/dev/null; rm -rf "$d"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
hash() { sha256sum "$1" | cut -d' ' -f1; }
sc="$d/s.lua"
printf '%s\n' 'mtcsim.world{ duration = hours(2) }' 'replications(2)' > "$sc"

# ---- corrupt past the header ----
"$m" run "$sc" --quiet --out "$d/c.db" >/dev/null 2>&1 || fail "first run"
python3 - "$d/c.db" <<'PY' || fail "corrupting the file"
import sqlite3, sys
p = sys.argv[1]
c = sqlite3.connect(p)
size = c.execute("pragma page_size").fetchone()[0]
# the pages of one data table: the header and the schema stay intact, so
# only a check of every page sees the damage
roots = [r[0] for r in c.execute("select rootpage from sqlite_master where name in ('scalar', 'vector_data')")]
c.close()
assert all(r > 1 for r in roots), roots
with open(p, "r+b") as f:
    for r in roots:
        f.seek((r - 1) * size); f.write(bytes((i * 131 + 7) % 256 for i in range(size)))
PY
h=$(hash "$d/c.db")
"$m" run "$sc" --out "$d/c.db" >"$d/o" 2>"$d/err"; rc=$?
[ $rc -eq 2 ] || fail "corrupt database: exit $rc, expected 2: $(cat "$d/err")"
grep -q "corrupt past its header" "$d/err" || fail "corrupt database message: $(cat "$d/err")"
grep -q "run 1/" "$d/o" && fail "simulated before refusing the corrupt database"
[ "$(hash "$d/c.db")" = "$h" ] || fail "the corrupt database was written to"

# ---- a failed store ends the run 'failed' ----
"$m" run "$sc" --quiet --out "$d/s.db" >/dev/null 2>&1 || fail "first run (store)"
sqlite3 "$d/s.db" "CREATE TRIGGER full BEFORE INSERT ON scalar
  BEGIN SELECT RAISE(ABORT, 'disk full (simulated)'); END;" || fail "trigger"
"$m" run "$sc" --quiet --out "$d/s.db" >/dev/null 2>"$d/err"; rc=$?
[ $rc -eq 1 ] || fail "failed store: exit $rc, expected 1: $(cat "$d/err")"
grep -q "disk full (simulated)" "$d/err" || fail "failed store message: $(cat "$d/err")"
st=$(sqlite3 "$d/s.db" "select status || ': ' || error from run where experiment_id = 2")
case "$st" in
  "failed: storing the run's metrics failed: "*"disk full (simulated)"*) ;;
  *) fail "a run whose store failed is '$st', not failed with the reason" ;;
esac
[ "$(sqlite3 "$d/s.db" "select count(*) from run where status = 'running'")" = 0 ] ||
  fail "a run stayed 'running'"

# ---- several runs create the same new file ----
for trial in 1 2 3 4 5; do
  rm -f "$d/race.db" "$d/race.db-wal" "$d/race.db-shm"
  pids=""
  for k in 1 2 3; do
    "$m" run "$sc" --quiet --out "$d/race.db" >/dev/null 2>"$d/race$k.err" &
    pids="$pids $!"
  done
  for p in $pids; do
    wait "$p" || fail "trial $trial: a concurrent run failed: $(cat "$d"/race*.err)"
  done
  n=$(sqlite3 "$d/race.db" "select count(*) from experiment")
  [ "$n" = 3 ] || fail "trial $trial: $n experiments, expected 3"
done

# ---- a directory the reader cannot write ----
mkdir -p "$d/ro" "$d/csv" "$d/rep"
# a synthetic sweep with every figure's metrics (as sh_report.sh uses)
"$bb/tests/results_driver" sweep "$d/ro/r.db" 2 2 >/dev/null 2>&1 || fail "results_driver"
[ -e "$d/ro/r.db-shm" ] && fail "a -shm was left by the writer"
h=$(hash "$d/ro/r.db")
chmod 755 "$d"; chmod 644 "$d/ro/r.db"; chmod 555 "$d/ro"; chmod 777 "$d/csv" "$d/rep"
# the reader: another user when run as root (root writes anywhere), with
# its own copy of the program (the build tree may be private)
cp "$m" "$d/mtcsim"; chmod 755 "$d/mtcsim"; m="$d/mtcsim"
if [ "$(id -u)" = 0 ]; then
  if command -v setpriv >/dev/null 2>&1; then
    as_reader() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
  else
    as_reader() { runuser -u nobody -- "$@"; }
  fi
else
  as_reader() { "$@"; }
fi
as_reader "$m" export "$d/ro/r.db" --csv "$d/csv" >/dev/null 2>"$d/err" ||
  fail "export from a read-only directory: $(cat "$d/err")"
[ "$(wc -l < "$d/csv/run.csv")" -eq 5 ] || fail "export: run.csv has $(wc -l < "$d/csv/run.csv") lines"
if command -v gnuplot >/dev/null 2>&1; then
  as_reader "$m" report "$d/ro/r.db" --out "$d/rep" >/dev/null 2>"$d/err" ||
    fail "report from a read-only directory: $(cat "$d/err")"
  [ -s "$d/rep/index.html" ] || fail "report: no index.html"
fi
ls "$d/ro" | grep -q -- '-shm\|-wal' && fail "files were created beside the read-only database"
[ "$(hash "$d/ro/r.db")" = "$h" ] || fail "the read-only database changed"
chmod 755 "$d/ro"
echo "harden results: ok"
