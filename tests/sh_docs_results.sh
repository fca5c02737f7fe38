#!/bin/sh
# The Python examples of docs/results.md run as written, with the standard
# library alone, on a real database (tests/lua/mpi_web.lua, small: 2
# replications): each ```python block is extracted and run in
# a directory holding results.db, with this build's mtcsim on PATH.
set -u
b=${1:-build}
root=$(pwd)
fail() { echo "FAIL: $*"; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/sh_docs_results.XXXXXX") || fail "mktemp"
trap 'rm -rf "$tmp"' EXIT
"$b/mtcsim" run tests/lua/mpi_web.lua --set scale=0.01 --set days=0.25 --replications 2 --out "$tmp/results.db" --quiet >/dev/null 2>"$tmp/err" \
  || fail "run: $(cat "$tmp/err")"
python3 - docs/results.md "$tmp" <<'PY' || fail "extracting the examples"
import sys, re
text = open(sys.argv[1]).read()
blocks = re.findall(r"```python\n(.*?)```", text, re.S)
assert len(blocks) >= 3, len(blocks)
for i, b in enumerate(blocks):
    assert 'import pandas' not in b, 'an example needs pandas'
    open('%s/example%d.py' % (sys.argv[2], i), 'w').write(b)
PY
n=0
for f in "$tmp"/example*.py; do
  (cd "$tmp" && PATH="$root/$b:$PATH" python3 "$f") >"$tmp/out" 2>&1 || fail "$(basename "$f"): $(cat "$tmp/out")"
  [ -s "$tmp/out" ] || fail "$(basename "$f") printed nothing"
  n=$((n+1))
done
grep -q '^1 ' "$tmp/out" || fail "the CSV example lists no run: $(cat "$tmp/out")"
echo "docs/results.md: $n Python examples ran"
