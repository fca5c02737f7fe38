#!/bin/sh
# Every metric a run stores is documented (usage: sh_docs_metrics.sh
# BUILD): runs the scenario that turns every what-if on at once
# (tests/lua/mpi_whatif.lua, small) and quickstart (small), and checks
# that each metric name in their databases stands, in backquotes, in
# docs/metrics.md. A metric added without its line there fails here.
set -u
b=${1:-build}
fail() { echo "FAIL: $*"; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/sh_docs_metrics.XXXXXX") || fail "mktemp"
trap 'rm -rf "$tmp"' EXIT
"$b/mtcsim" run tests/lua/mpi_whatif.lua --set scale=0.02 --set days=0.5 --seed 7 \
  --quiet --out "$tmp/w.db" >/dev/null 2>"$tmp/err" || fail "what-if run: $(tail -3 "$tmp/err")"
"$b/mtcsim" run scenarios/quickstart.lua --set scale=0.01 --set days=0.1 --set issuance=2e4 \
  --quiet --out "$tmp/q.db" >/dev/null 2>"$tmp/err" || fail "quickstart run: $(tail -3 "$tmp/err")"
for db in "$tmp/w.db" "$tmp/q.db"; do
  sqlite3 "$db" "select distinct name from metric" >> "$tmp/names" || fail "reading $db"
done
n=$(sort -u "$tmp/names" | wc -l)
[ "$n" -ge 50 ] || fail "only $n metric names stored: the runs did not do what this test expects"
missing=""
for name in $(sort -u "$tmp/names"); do
  grep -qF "\`$name\`" docs/metrics.md || missing="$missing $name"
done
[ -z "$missing" ] || fail "metrics stored but not in docs/metrics.md:$missing"
echo "ok: the $n metrics the runs stored are all in docs/metrics.md"
