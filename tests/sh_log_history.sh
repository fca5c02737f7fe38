#!/bin/sh
# Synthetic log history (the CA parameter log_history, mtc/synth_tree.h)
# changes hash values only: a small quickstart world run with each history,
# same seeds, two replications, writes the same rows, every parameter and
# metric alike (log_history itself and the measured CPU-time metrics
# aside; tests/lib/dbdiff.py). The world's cosigners sign with ML-DSA-44,
# whose signatures have one length whatever they sign, and no certificate
# is compressed: docs/model-pki.md "Synthetic history" lists what would
# differ otherwise. Then a log of a year's age starts its run at a year's
# size, and a hashed log refuses an age.
set -u
b=${1:-build}
m="$b/mtcsim"
fail() { echo "FAIL: $*"; exit 1; }
q=scenarios/quickstart.lua
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
small="--set scale=0.01 --set days=0.25 --set issuance=3e5 --replications 2"
for h in hashed synthetic; do
  # shellcheck disable=SC2086
  "$m" run $q $small --set "ca.*.log_history=$h" --out "$t/$h.db" --quiet \
    >/dev/null 2>"$t/$h.err" || { cat "$t/$h.err"; fail "run with $h history"; }
done
python3 tests/lib/dbdiff.py "$t/hashed.db" "$t/synthetic.db" 1 1 --ignore-param log_history ||
  fail "synthetic history changed a result"
# the comparison is not vacuous: the parameter itself differs
python3 tests/lib/dbdiff.py "$t/hashed.db" "$t/synthetic.db" 1 1 >/dev/null &&
  fail "dbdiff saw no difference at all"

# a year-old log: its consistency proofs are those of a log a year long
# (updates that carry proofs), and they verify
proofs() { # update_bytes_proofs of DB, and its verification failures
  sqlite3 "$1" "SELECT m.name, s.value FROM scalar s JOIN metric m USING (metric_id)
    WHERE s.cohort = 'all' AND m.name IN ('update_bytes_proofs', 'update_verify_failures')
    ORDER BY 1" | tr '\n' ' '
}
for a in 0 365; do
  "$m" run $q --set scale=0.01 --set days=0.05 --set issuance=3e5 \
    --set "update_service.*.include_proofs=true" --set "ca.*.log_age=days($a)" \
    --out "$t/age$a.db" --quiet >/dev/null 2>"$t/age.err" ||
    { cat "$t/age.err"; fail "run with log_age days($a)"; }
done
p0=$(proofs "$t/age0.db"); p1=$(proofs "$t/age365.db")
echo "$p0" | grep -q '^update_bytes_proofs|[0-9.]* update_verify_failures|0 $' ||
  fail "unaged: $p0"
echo "$p1" | grep -q '^update_bytes_proofs|[0-9.]* update_verify_failures|0 $' ||
  fail "aged: $p1"
b0=$(echo "$p0" | sed 's/^update_bytes_proofs|\([0-9.]*\).*/\1/')
b1=$(echo "$p1" | sed 's/^update_bytes_proofs|\([0-9.]*\).*/\1/')
awk -v a="$b0" -v b="$b1" 'BEGIN { exit !(b > 1.05 * a) }' ||
  fail "a year-old log's proofs ($b1 B) are not longer than a new one's ($b0 B)"
out=$("$m" run $q --set "ca.*.log_history=hashed" --set "ca.*.log_age=days(30)" --params 2>&1)
[ $? -ne 0 ] || fail "a hashed log with an age must be refused"
echo "$out" | grep -q 'log_age' || fail "the refusal does not name log_age: $out"
echo "sh_log_history: ok"
