#!/bin/sh
# scenarios/enterprise.lua in a reduced size (usage: sh_enterprise.sh
# BUILD): a private Merkle Tree CA with three witnesses and standalone
# certificates only, against the ML-DSA private PKI.
# - no handshake is signatureless (no landmark reaches the clients);
# - two more witness cosignatures (quorum 3 against 1) add exactly two
#   SubtreeSignatures to every certificate: 2 x (2 + 1 + 6 + 2,420)
#   bytes (signature and ID length prefixes, a 6-byte cosigner ID,
#   ML-DSA-44), give or take what the runs' different stalls change;
# - the X.509 side is the private chain's real encoding
#   (mtcsim.core.chain), the same at every quorum, and lies between the
#   quorums' MTC sizes; at ML-DSA-65 it grows by what core.chain says;
# - the CA signs 2 to 3 messages per checkpoint (the checkpoint and its
#   one or two covering subtrees) whatever the issuance, and without
#   failures each witness as many (but for the last checkpoint); the X.509
#   CA one per certificate (the issuance, within Poisson noise);
# - witnesses that never fail leave the quorum always reachable and
#   nothing stalled; a scheduled outage of two of them blocks a 2-of-3
#   quorum for exactly its length and stalls the requests meanwhile, one
#   of them blocks nothing;
# - mpirun -np 2 and 3 give the single process's summary.
set -u
b=${1:-build}
M="$b/mtcsim"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
base="scenarios/enterprise.lua --set scale=0.05 --set days=0.5 --seed 3"
"$M" run $base --sweep quorum=1,3 --out "$tmp/q.db" >"$tmp/q.out" 2>"$tmp/q.err" ||
  fail "sweep run: $(tail -3 "$tmp/q.err")"
line() { # line POINT LABEL: the value printed after LABEL in point POINT's block
  awk -v p="quorum $1 of 3" -v l="$2" 'index($0, p) { on = 1; next } /^-- / { on = 0 }
    on && index($0, l) { v = substr($0, index($0, l) + length(l)); gsub(/^ +| +$/, "", v); print v; exit }' "$tmp/q.out"
}
for q in 1 3; do
  [ "$(line $q 'signatureless fraction (standalone only)')" = 0.0000 ] || fail "quorum $q: signatureless handshakes"
done
a1=$(line 1 'auth bytes, MTC standalone (mean)'); a3=$(line 3 'auth bytes, MTC standalone (mean)')
x1=$(line 1 'auth bytes, X.509 ml-dsa-44 private PKI'); x3=$(line 3 'auth bytes, X.509 ml-dsa-44 private PKI')
[ -n "$a1" ] && [ -n "$a3" ] && [ -n "$x1" ] || fail "no byte lines: $(cat "$tmp/q.out")"
awk -v a="$a1" -v b="$a3" 'BEGIN { d = b - a; w = 2 * (2 + 1 + 6 + 2420); exit !(d > w - 20 && d < w + 20) }' ||
  fail "quorum 3 - quorum 1 = $a3 - $a1, not two ML-DSA-44 SubtreeSignatures (4,858 bytes)"
[ "$x1" = "$x3" ] || fail "the X.509 side differs between quorums: $x1, $x3"
awk -v a="$a1" -v x="$x1" -v b="$a3" 'BEGIN { exit !(a < x && x < b) }' ||
  fail "X.509 $x1 not between MTC at quorum 1 ($a1) and 3 ($a3)"
cat > "$tmp/chain.lua" <<'EOF'
local c = mtcsim.core.chain
printf("%d %d\n", c("private", { dns_name = "s1.corp.example", leaf = "ml-dsa-44", ca = "ml-dsa-44" }).auth_bytes,
                  c("private", { dns_name = "s1.corp.example", leaf = "ml-dsa-65", ca = "ml-dsa-65" }).auth_bytes)
EOF
set -- $("$M" run "$tmp/chain.lua" --quiet) || fail "core.chain"
awk -v x="$x1" -v c="$1" 'BEGIN { exit !(x > c - 8 && x < c + 8) }' ||
  fail "X.509 side measured $x1, the private chain's encoding $1 (names differ by a few bytes at most)"
# signing load per day (one CA: its per-CA counters are stored as "all")
ck=$(sqlite3 "$tmp/q.db" "select value from scalar_v where metric = 'checkpoints' and cohort = 'all' limit 1")
sg=$(sqlite3 "$tmp/q.db" "select value from scalar_v where metric = 'signatures' and cohort = 'corp' limit 1")
ent=$(sqlite3 "$tmp/q.db" "select value from scalar_v where metric = 'log_entries' and cohort = 'all' limit 1")
x5=$(sqlite3 "$tmp/q.db" "select value from scalar_v where metric = 'enterprise_x509_signatures_per_day' limit 1")
awk -v c="$ck" 'BEGIN { exit !(c >= 719 && c <= 721) }' || fail "$ck checkpoints in half a day of 60 s intervals"
awk -v c="$ck" -v s="$sg" 'BEGIN { exit !(s >= 2 * c && s <= 3 * c) }' || fail "CA signatures $sg for $ck checkpoints"
awk -v n="$ent" -v x="$x5" 'BEGIN { m = 25000; exit !(n > m - 5 * sqrt(m) && n < m + 5 * sqrt(m) && x == 2 * n) }' ||
  fail "X.509 signatures: $ent certificates in half a day ($x5 per day) at 50,000 a day"
# witnesses that never fail
"$M" run $base --set quorum=3 --set witness_mtbf=1e9 --out "$tmp/nf.db" >"$tmp/nf.out" 2>"$tmp/nf.err" ||
  fail "no-failure run: $(tail -3 "$tmp/nf.err")"
for m in enterprise_quorum_unreachable_share enterprise_stalled_share; do
  v=$(sqlite3 "$tmp/nf.db" "select value from scalar_v where metric = '$m'")
  [ "$v" = 0 ] || [ "$v" = 0.0 ] || fail "$m = $v without failures"
done
# ...and every witness signs what the CA signs, but for the window's last
# checkpoint (the CA has signed it, the witnesses answer after the end):
# at most 3 signatures fewer each
ca=$(sqlite3 "$tmp/nf.db" "select value from scalar_v where metric = 'signatures' and cohort = 'corp'")
for w in witness1 witness2 witness3; do
  v=$(sqlite3 "$tmp/nf.db" "select value from scalar_v where metric = 'signatures' and cohort = '$w'")
  awk -v c="$ca" -v v="$v" 'BEGIN { exit !(c - v >= 0 && c - v <= 3) }' ||
    fail "$w signed $v, the CA $ca, without failures"
done
# a scheduled outage (cosigner_outage) of two witnesses for 2 h at quorum
# 2, no random failures: the quorum is unreachable exactly 2 h of the 12,
# and the requests stalled are those arriving from one interval before it
# to its end less the threshold (60 + 300 s), within 5 Poisson standard
# deviations; one witness down leaves 2 of 3 and stalls nothing
"$M" run $base --set quorum=2 --set witness_mtbf=1e9 --set outage_hours=2 --set outage_witnesses=2 \
  --out "$tmp/o2.db" >"$tmp/o2.out" 2>"$tmp/o2.err" || fail "outage run: $(tail -3 "$tmp/o2.err")"
un=$(sqlite3 "$tmp/o2.db" "select value from scalar_v where metric = 'enterprise_quorum_unreachable_share'")
st=$(sqlite3 "$tmp/o2.db" "select value from scalar_v where metric = 'enterprise_stalled_share'")
n=$(sqlite3 "$tmp/o2.db" "select value from scalar_v where metric = 'log_entries' and cohort = 'all'")
awk -v u="$un" 'BEGIN { exit !(u > 7200 / 43200 - 1e-9 && u < 7200 / 43200 + 1e-9) }' ||
  fail "two witnesses down 2 h of 12 at quorum 2: unreachable share $un, expected 1/6"
awk -v s="$st" -v n="$n" 'BEGIN { lo = n * (7200 - 300 - 6) / 43200; hi = n * (60 + 7200 + 6) / 43200;
    x = s * n; exit !(x > lo - 5 * sqrt(lo) && x < hi + 5 * sqrt(hi)) }' ||
  fail "stalled share $st of $n requests, not the outage's window"
"$M" run $base --set quorum=2 --set witness_mtbf=1e9 --set outage_hours=2 --set outage_witnesses=1 \
  --out "$tmp/o1.db" >/dev/null 2>"$tmp/o1.err" || fail "one-witness outage run: $(tail -3 "$tmp/o1.err")"
for m in enterprise_quorum_unreachable_share enterprise_stalled_share; do
  v=$(sqlite3 "$tmp/o1.db" "select value from scalar_v where metric = '$m'")
  [ "$v" = 0 ] || [ "$v" = 0.0 ] || fail "$m = $v with one witness of three down at quorum 2"
done
! "$M" run $base --set outage_hours=1 --set outage_witnesses=4 --out "$tmp/bad4.db" >/dev/null 2>"$tmp/bad4.err" ||
  fail "outage_witnesses 4 of 3 accepted"
grep -q 'enterprise.lua:[0-9]*: outage_witnesses' "$tmp/bad4.err" || fail "bad outage_witnesses: $(cat "$tmp/bad4.err")"
# ML-DSA-65 on both sides: the X.509 side grows by what its encoding says
"$M" run $base --set quorum=1 --set level=ml-dsa-65 --out "$tmp/l65.db" >"$tmp/l65.out" 2>"$tmp/l65.err" ||
  fail "ml-dsa-65 run: $(tail -3 "$tmp/l65.err")"
x65=$(sed -n 's/^  auth bytes, X.509 ml-dsa-65 private PKI *//p' "$tmp/l65.out")
awk -v x="$x65" -v x44="$x1" -v d="$(($2 - $1))" 'BEGIN { exit !(x == x44 + d) }' ||
  fail "X.509 at ML-DSA-65: $x65, expected $x1 + $(($2 - $1))"
# a level the scenario does not know is refused with its name
! "$M" run $base --set level=ml-dsa-99 --out "$tmp/bad.db" >/dev/null 2>"$tmp/bad.err" || fail "level ml-dsa-99 accepted"
grep -q 'enterprise.lua:[0-9]*: level' "$tmp/bad.err" || fail "bad level: $(cat "$tmp/bad.err")"
# rank-count identity
args="$base --set quorum=2 --summary all"
nps="2 3"  # the ranks that shard this scenario's entities; one rank: sh_mpi_run
. tests/lib/mpi_whatif.sh
mpi_single
grep -q '^cosign_quorum_unreachable_ms ' "$tmp/single" || fail "summary lacks cosign_quorum_unreachable_ms"
mpi_ranks
echo "enterprise: bytes, signing load and availability as their encodings and closed forms say; identical summaries with 2 and 3 ranks"
