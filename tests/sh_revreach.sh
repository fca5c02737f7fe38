#!/bin/sh
# Revocation reach (usage: sh_revreach.sh BUILD): scenarios/revocation-reach.lua
# at a reduced size (a 1.25-day window, the revocation 5 h 55 min in, a small CA,
# the victims drawing 5 % of connections)
# prints a block per cohort and records its figures; what it says holds
# together: every cohort's enforced + unenforced pairs are its clients x
# the revocations, the update bytes of revoked ranges match the pairs
# enforced, the frozen cohort never enforces and accepts every
# revoked certificate presented to it, the regular cohorts enforce and
# refuse most, a quantile beyond the share enforced is reported as not
# reached, and with revoked_serving = "replace" far fewer revoked
# certificates are presented. sim:quantile agrees with sim:metric's p50
# and refuses what is not a histogram. Then `mpirun -np N` gives the same
# summary for N = 2, 3 as a single process.
set -u
M="$1/mtcsim"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; [ -f "$tmp/single" ] && cat "$tmp/single"; exit 1; }
small="--set scale=0.05 --set days=1.25 --set issuance=2e4 --set victim_share=0.05 --seed 3"
"$M" run scenarios/revocation-reach.lua $small --out "$tmp/k.db" > "$tmp/k.out" 2>"$tmp/k.err" ||
  fail "keep run: $(tail -3 "$tmp/k.err")"
for c in regular-desktop regular-mobile enterprise frozen; do
  grep -q "^  $c: clients / enforced by the end" "$tmp/k.out" || fail "no block for $c"
done
q() { sqlite3 "$tmp/$1.db" "$2"; }
# enforced (histogram count) + unenforced (gauge) = clients x revocations
per=$(sed -n 's/^  revocations (entries) per client  *//p' "$tmp/k.out")
[ -n "$per" ] && [ "$per" -ge 10 ] || fail "revocations per client '$per': the 10 victims' entries were not revoked"
bad=$(q k "select p.entity_name || ': ' || (h.count + u.value) || ' pairs, ' || p.value || ' clients'
  from param p join histogram_v h on h.run_id = p.run_id and h.cohort = p.entity_name
  join scalar_v u on u.run_id = p.run_id and u.cohort = p.entity_name
  where p.entity_kind = 'browsers' and p.name = 'count' and h.metric = 'revocation_enforce_time'
  and u.metric = 'revocations_unenforced' and abs(h.count + u.value - $per * p.value) > 1e-9" 2>"$tmp/sql.err")
[ -s "$tmp/sql.err" ] && fail "sql: $(cat "$tmp/sql.err")"
n=$(q k "select count(*) from histogram_v where metric = 'revocation_enforce_time' and cohort != 'all'")
[ "$n" = 4 ] || fail "revocation_enforce_time has $n cohorts"
[ -z "$bad" ] || fail "enforced + unenforced is not clients x $per revocations in: $bad"
# what the updates carried is what the clients enforced: the ranges
# priced in update_bytes_revocations (16 bytes each, the real encoding)
# are, for cohorts installing at once, exactly the enforced pairs; the
# enterprise cohort fetched at least what it installed; frozen nothing
bad=$(q k "select s.cohort || ': ' || s.value || ' bytes, ' || h.count || ' enforced'
  from scalar_v s join histogram_v h on h.run_id = s.run_id and h.cohort = s.cohort
  where s.metric = 'update_bytes_revocations' and h.metric = 'revocation_enforce_time'
  and ((s.cohort in ('regular-desktop', 'regular-mobile', 'frozen') and s.value != 16 * h.count)
       or s.value < 16 * h.count)")
[ -z "$bad" ] || fail "revocation bytes against enforced pairs: $bad"
[ "$(q k "select count(*) from scalar_v where metric = 'update_bytes_revocations' and cohort = 'regular-mobile' and value > 0")" = 1 ] ||
  fail "no revocation bytes fetched by regular-mobile"
# frozen: never enforced, accepts everything presented
fz=$(sed -n '/^  frozen: clients/,/accepted per 1,000/p' "$tmp/k.out")
echo "$fz" | grep -q "enforced by the end *[0-9]* / 0.0000" || fail "frozen clients enforced: $fz"
echo "$fz" | grep -q "hours to enforce for 50 / 90 / 99 % *> 24 / > 24 / > 24" || fail "frozen quantiles reached: $fz"
echo "$fz" | grep -Eq "accepted *[1-9][0-9]* / [1-9][0-9]* \(1.0000\)" || fail "frozen did not accept every presentation: $fz"
# regular clients: most enforce within the window and refuse most presentations
for c in regular-desktop regular-mobile; do
  share=$(sed -n "s/^  $c: clients \/ enforced by the end  *[0-9]* \/ //p" "$tmp/k.out")
  awk -v s="$share" 'BEGIN { exit !(s > 0.7 && s <= 1) }' || fail "$c enforced share $share"
  acc=$(sed -n "/^  $c: clients/,/accepted per 1,000/p" "$tmp/k.out" | sed -n 's/.*accepted .*(\([0-9.]*\))$/\1/p')
  awk -v a="$acc" 'BEGIN { exit !(a >= 0 && a < 0.5) }' || fail "$c accepted share $acc"
done
# the recorded figures are the printed ones
rec=$(q k "select printf('%.4f', value) from scalar_v where metric = 'revocation_enterprise_enforced_share'")
pr=$(sed -n 's/^  enterprise: clients \/ enforced by the end  *[0-9]* \/ //p' "$tmp/k.out")
[ -n "$rec" ] && [ "$rec" = "$pr" ] || fail "enterprise enforced share printed '$pr', recorded '$rec'"
# replace: the sites replace their certificates at once
"$M" run scenarios/revocation-reach.lua $small --set revoked_serving=replace --out "$tmp/r.db" > "$tmp/r.out" 2>"$tmp/r.err" ||
  fail "replace run: $(tail -3 "$tmp/r.err")"
pk=$(q k "select value from scalar_v where metric = 'revoked_presented_by_cohort' and cohort = 'all'")
pr=$(q r "select value from scalar_v where metric = 'revoked_presented_by_cohort' and cohort = 'all'")
awk -v k="$pk" -v r="$pr" 'BEGIN { exit !(k > 0 && r < k / 5) }' || fail "presented revoked: keep $pk, replace $pr"
# sim:quantile
cat > "$tmp/api.lua" <<'EOF'
mtcsim.world{ start = "empty", duration = hours(3) }
local m = mtcsim.cosigner{ name = "m", role = "mirror" }
mtcsim.ca{ name = "ca", rate = per_day(2e4), cosigners = { m }, quorum = 1 }
mtcsim.update_service{ name = "u", fetch_interval = minutes(10) }
mtcsim.sites{ name = "s", count = 20 }
mtcsim.browsers{ name = "b", count = 50, update_interval = hours(1) }
sim:on_finish(function(s)
  local h = s:metric("auth_bytes")
  assert(h.count > 0, "no handshakes")
  assert(s:quantile("auth_bytes", 0.5) == h.p50, "quantile 0.5 is not p50")
  assert(s:quantile("auth_bytes", 0.99, "b") == s:metric("auth_bytes", "b").p99, "cohort p99")
  assert(s:quantile("no_such_metric", 0.5) == nil, "absent metric")
  assert(s:quantile("revocation_enforce_time", 0.5) == nil, "empty histogram")
  local ok, err = pcall(s.quantile, s, "handshake_full", 0.5)
  assert(not ok and err:find("not a histogram"), "counter accepted: " .. tostring(err))
  ok, err = pcall(s.quantile, s, "auth_bytes", 1.5)
  assert(not ok and err:find("not in %[0, 1%]"), "q 1.5 accepted: " .. tostring(err))
  print("quantile api ok")
end)
EOF
"$M" run "$tmp/api.lua" --quiet --out "$tmp/api.db" > "$tmp/api.out" 2>&1 || fail "api: $(tail -3 "$tmp/api.out")"
grep -q "quantile api ok" "$tmp/api.out" || fail "api: $(cat "$tmp/api.out")"
# MPI: the same summary whatever the number of ranks
args="scenarios/revocation-reach.lua --set scale=0.02 --set days=0.5 --set issuance=2e4 --seed 5 --summary all"
nps="2 3"  # the ranks that shard this scenario's entities; one rank: sh_mpi_run
. tests/lib/mpi_whatif.sh
mpi_single
grep -q '^revoked_accepted_by_cohort  *[1-9]' "$tmp/single" || fail "no revoked certificate accepted in the MPI run"
grep -q '^revocations_unenforced  *[1-9]' "$tmp/single" || fail "no unenforced pair in the MPI run"
mpi_ranks
echo "revocation reach: scenario blocks consistent, replace presents $pr against $pk, sim:quantile ok; identical summaries with 2 and 3 ranks"
