#!/bin/sh
# Every what-if at once under MPI (usage: sh_mpi_whatif.sh BUILD):
# tests/lua/mpi_whatif.lua turns them all on in one small world (four CAs
# each with its own log, landmarks and mirror; a timestamped multi-CA
# landmark group with a CA unreachable for six hours; bulk update proofs;
# landmark staples and a cohort that learns from them; a witness outage;
# a lossy network path; Landmark Distribution Points with a cohort that
# fetches missing landmarks and one that retries; a cohort listing what
# it trusts of the sites' HTTPS records and one listing nothing and
# retrying from the server's list), started steady (clients start from the deployed
# system's landmarks). `mpirun -np N mtcsim run` gives the same summary
# for N = 1, 2, 3 as a single process, and each what-if shows in it. With
# `proofs = "per_subtree"` instead of "bulk" the summary differs in the
# update sizes only (update_bytes, update_publication_bytes,
# update_snapshot_bytes) and among update_bytes' parts in the proofs only;
# the parts add up to update_bytes. sign_cpu_us is excluded: it is measured CPU
# time, not a simulated quantity.
set -u
M="$1/mtcsim"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; cat "$tmp/single"; exit 1; }
args="tests/lua/mpi_whatif.lua --set scale=0.02 --set days=0.5 --seed 7 --summary all"
. tests/lib/mpi_whatif.sh
mpi_single
[ "$(wc -l < "$tmp/single")" -gt 20 ] || fail "summary too short"
# many CAs: four, each advertised in the MTC-aware ClientHellos
n=$(sqlite3 "$tmp/single.db" "select count(*) from param where entity_kind='ca' and name='rate'")
[ "$n" = 4 ] || fail "expected 4 CAs, found $n"
grep -q '^clienthello_trust_anchors_bytes.mean *[1-9]' "$tmp/single" || fail "no trust-anchor bytes"
grep -q "ch_bytes [1-9]" "$tmp/single" || fail "no ClientHello bytes recorded"
# the landmark group and bulk proofs are what the update service ran
g=$(sqlite3 "$tmp/single.db" "select value from param where entity_kind='update_service' and name='group_cas'")
[ "$g" = "[ca1,ca2,ca3]" ] || fail "group_cas recorded as '$g'"
grep -q '^update_bytes *[1-9]' "$tmp/single" || fail "no update bytes"
# staples: made, learned, counted by visit
for m in staple_bytes staple_learned staple_full_by_visit staple_signatureless_by_visit; do
  grep -q "^$m" "$tmp/single" || fail "summary lacks $m"
done
grep -q '^staple_learned  *[1-9]' "$tmp/single" || fail "no staple learned"
# distribution points: fetched, failed, served, and the fallback retries
for m in ldp_fetches ldp_fetch_failed ldp_signatureless_fetched ldp_requests_ca \
         ldp_fallback_retries ldp_reveal_pairs ldp_fetch_ms.count; do
  grep -q "^$m  *[1-9]" "$tmp/single" || fail "no $m"
done
# many trust anchors: the dns cohort's lookups (some answered with a
# stale copy) and the server's lists every full handshake received
for m in dns_https_lookups dns_https_response_bytes.count \
         dns_trust_anchors_param_bytes.count dns_record_stale ee_trust_anchors_bytes.count; do
  grep -q "^$m  *[1-9]" "$tmp/single" || fail "no $m"
done
# the witness outage cost a quorum; the network path gave latencies
grep -q '^cosign_quorum_failures  *[1-9]' "$tmp/single" || fail "the witness outage failed no quorum"
# ...ca2 (quorum: all of its two cosigners) could not reach it for the
# outage's two hours exactly, and requests arriving meanwhile stalled
grep -q '^cosign_quorum_unreachable_ms  *7200000$' "$tmp/single" || fail "quorum unreachable time is not the 2-hour outage"
grep -q '^issuance_stalled  *[1-9]' "$tmp/single" || fail "no issuance stalled by the outage"
grep -q '^handshake_ms_change_p50_vs_classical ' "$tmp/single" || fail "no handshake latency"
# bulk against per-subtree proofs: the update sizes differ, nothing else
"$M" run $args --set proofs=per_subtree --out "$tmp/ps.db" 2>"$tmp/ps.err" | summary > "$tmp/ps" \
  || { echo "per_subtree run failed"; cat "$tmp/ps.err"; exit 1; }
d=$(diff "$tmp/single" "$tmp/ps" | grep '^[<>]' | grep -Ev 'update_(bytes|publication_bytes|snapshot_bytes)' | wc -l)
[ "$d" -eq 0 ] || { echo "bulk and per_subtree differ beyond update bytes:"; diff "$tmp/single" "$tmp/ps"; exit 1; }
! cmp -s "$tmp/single" "$tmp/ps" || { echo "bulk and per_subtree give the same update bytes"; exit 1; }
for f in "$tmp/single" "$tmp/ps"; do
  awk '$1 == "update_bytes" { t = $2 } $1 ~ /^update_bytes_/ { s += $2 } END { exit !(t > 0 && s == t) }' "$f" ||
    { echo "update_bytes' parts do not add up in $f"; grep '^update_bytes' "$f"; exit 1; }
done
for m in update_bytes_ref_checkpoints update_bytes_cosignatures update_bytes_proofs update_bytes_subtree_hashes \
         update_bytes_group_versions; do
  grep -q "^$m  *[1-9]" "$tmp/single" || fail "no $m"
done
diff "$tmp/single" "$tmp/ps" | grep '^[<>] update_bytes_' | grep -qv '^[<>] update_bytes_proofs ' &&
  { echo "bulk and per_subtree differ in a part other than the proofs"; exit 1; }
mpi_ranks
echo "every what-if: identical summaries ($(wc -l < "$tmp/single") lines) with a single process and 1, 2, 3 ranks; only update bytes differ from per_subtree"
