#!/bin/sh
# The validation suite's fast subset (docs/validation.md): the cases marked
# fast (build/validate --list) must pass, and their tables in
# docs/validation.md must be exactly what the code produces now (run `make
# validate` to regenerate them). Then the acceptance test of the suite: a
# deliberately wrong model, landmarks reaching clients one interval late
# (--wrong-model late-landmarks), must make case 1a fail, every row of it.
# The sanitized build (SAN_BUILD set) runs the smaller subset marked san.
set -u
b=${1:-build}
v="$b/validate"
d=$(mktemp -d); trap 'rm -rf "$d"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
[ -x "$v" ] || fail "$v is not built"
"$v" --list | grep -q "^1a " || fail "--list does not list case 1a"

# the fast subset, checked against the committed tables
if ! "$v" --fast --check-docs --out "$d/fast" >"$d/fast.out" 2>"$d/fast.err"; then
  cat "$d/fast.out" "$d/fast.err"
  fail "the fast validation subset failed"
fi
grep -q "^validation: [0-9]* passed, 0 failed in" "$d/fast.out" || fail "no summary line"
grep -q " FAIL$" "$d/fast.out" && fail "a FAIL line with exit status 0"
[ -s "$d/fast/report.md" ] || fail "no report.md"
rows=$(sqlite3 "$d/fast/validation.db" "select count(*) from validation_row where verdict = 'PASS'")
[ "$rows" -gt 0 ] || fail "no rows in validation.db"
runs=$(sqlite3 "$d/fast/validation.db" "select count(*) from run where status = 'completed'")
[ "$runs" -gt 0 ] || fail "no runs in validation.db"

# a table that drifted is caught (case 3c: its table is exact, and it runs
# in a fraction of a second)
sed '/^| proof in a subtree of 2^32 entries | hashes |/s/| 32 | 32 |/| 32 | 33 |/' \
  docs/validation.md >"$d/drift.md"
cmp -s docs/validation.md "$d/drift.md" && fail "could not plant a drift in the docs copy"
if "$v" --case 3c --check-docs --docs "$d/drift.md" --out "$d/drift" >/dev/null 2>"$d/drift.err"; then
  fail "a drifted table of case 3c passed --check-docs"
fi
grep -q "differs from what the code produces" "$d/drift.err" || fail "drift not explained"

# the wrong model fails (exit 1, a FAIL on every row of 1a)
if "$v" --case 1a --wrong-model late-landmarks --out "$d/wrong" >"$d/wrong.out" 2>&1; then
  cat "$d/wrong.out"
  fail "landmarks one interval late passed case 1a"
fi
n=$(grep -c "^1a:.* FAIL$" "$d/wrong.out")
[ "$n" -eq 3 ] || { cat "$d/wrong.out"; fail "late landmarks: $n of 3 rows of 1a failed"; }
echo "validation: fast subset $(sed -n 's/^validation: \([0-9]*\) passed.*/\1/p' "$d/fast.out") rows ok, docs in sync, wrong model fails 1a"
