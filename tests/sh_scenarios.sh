#!/bin/sh
# Every scenario of scenarios/ in a reduced size (--set scale=0.01, a
# quarter of a measured day after its steady warm-up, one replication, and
# a small CA: --set issuance=2e4, a different world that keeps the test
# fast): it completes, records one completed run per sweep point, prints its
# own result lines, and opens with the required header (question,
# docs/sources.md citations, how to read it). Scenarios cite the project's
# own sources file, never files outside the repository.
set -u
b=${1:-build}
m="$b/mtcsim"
d=$(mktemp -d); trap 'rm -rf "$d"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
days=0.25; scale=0.01
# Every run builds a week (or a lifetime) of steady history first, with a
# real signature per checkpoint: the sanitized build, several times slower,
# checks the headers only (its other tests cover the same code on smaller
# worlds), and the optimized build runs each scenario at its first sweep
# point.
runs=1; [ -n "${SAN_BUILD:-}" ] && runs=0
n=0
for s in scenarios/*.lua; do
  name=$(basename "$s" .lua)
  head -40 "$s" | grep -q "^-- Question:" || fail "$name: no 'Question:' in the header"
  head -60 "$s" | grep "^--" | grep -q "\[[a-z0-9-]*\]" || fail "$name: no docs/sources.md citation ([label])"
  for lab in $(head -60 "$s" | grep "^--" | grep -o "\[[a-z0-9-]*\]" | tr -d '[]' | sort -u); do
    grep -q "^- \*\*\[$lab\]\*\*" docs/sources.md || fail "$name: cites [$lab], which docs/sources.md lacks"
  done
  ! grep -q "facts.md\|shared/ref" "$s" || fail "$name: cites a file outside the repository"
  # one definition of the client platforms: a scenario takes a device's
  # verification speed from lib/platform.lua, never sets its own
  ! grep -n "cpu_slowdown *=" "$s" | grep -v "^[0-9]*: *--" | grep -q . ||
    fail "$name: sets cpu_slowdown itself (use scenarios/lib/platform.lua)"
  head -60 "$s" | grep -q "^-- Reading the result:" || fail "$name: no 'Reading the result:'"
  "$m" run "$s" --params > "$d/$name.params" || fail "$name: --params"
  grep -q '^points [0-9]*,' "$d/$name.params" || fail "$name: --params"
  n=$((n+1))
  [ $runs -eq 1 ] || continue
  # each sweep collapsed to its first value: one point
  first=$(sed -n 's/^sweep \([a-z_0-9]*\): \([^ ]*\).*/--set \1=\2/p' "$d/$name.params")
  points=1
  "$m" run "$s" --set scale=$scale --set days=$days --set issuance=2e4 $first --replications 1 \
      --out "$d/$name.db" >"$d/$name.out" 2>"$d/$name.err" ||
    fail "$name: $(head -5 "$d/$name.err")"
  got=$(sqlite3 "$d/$name.db" "select count(*) from run where status='completed'")
  [ "$got" = "$points" ] || fail "$name: $got completed runs, expected $points"
  [ -s "$d/$name.out" ] || fail "$name: printed no result"
  sqlite3 "$d/$name.db" "select count(*) from param where entity_kind='scenario' and name='scale' and abs(value - $scale) < 1e-12" |
    grep -q "^$points\$" || fail "$name: scale not recorded"
  # the population is a sample: the largest CA issues at `issuance` (2e4
  # a day here) whatever `scale` is, so proofs and logs keep their size
  r=$(sqlite3 "$d/$name.db" "select max(cast(value as real)) from param where entity_kind='ca' and name='rate'")
  awk -v r="$r" 'BEGIN { exit !(r > 0.2314814 && r < 0.2314815) }' ||
    fail "$name: the CA's rate is $r/s at scale $scale, not the 2e4/day it was given"
  # what the scenario computes and prints is stored too (docs/metrics.md,
  # "Figures the library scenarios record"), with the value printed
  case $name in
    quickstart) want="update_bytes_per_fetch signatures_per_hour" ;;
    cert-lifetime) want="max_active_landmarks update_bytes_per_fetch signatures_per_hour" ;;
    letsencrypt-scale) want="max_active_landmarks mirror_fetch_mb_per_day monitor_fetch_mb_per_day signatures_per_hour" ;;
    chrome-adoption) want="checks_per_client_day lacking_latest_landmark_share" ;;
    update-lag) want="checks_per_client_day holding_landmark_share lacking_latest_landmark_share" ;;
    bulk-proofs) want="update_bytes_per_client_day update_bytes_per_fetch" ;;
    landmark-interval-sweep) want="update_bytes_per_client_day" ;;
    many-cas) want="update_bytes_per_client_day signatureless_share_largest_ca signatureless_share_ca_ranks_2_10" ;;
    landmark-groups) want="signatureless_share_ca_big signatureless_share_ca_small1 signatureless_share_ca_small2" ;;
    staple-learning) want="staple_signatureless_share_visit_1" ;;
    revocation-reach) want="revocation_regular_mobile_enforced_share revocation_enterprise_enforce_p50_hours revocation_frozen_accepted_per_1000_clients" ;;
    ldp-on-demand) want="ldp_reveal_client_day_share ldp_requests_per_s_per_1e6_clients_le ldp_gb_per_day_per_1e6_clients_other" ;;
    enterprise) want="enterprise_x509_auth_bytes enterprise_bytes_ratio enterprise_mtc_signatures_per_day enterprise_x509_signatures_per_day enterprise_quorum_unreachable_share enterprise_stalled_share" ;;
    *) want="" ;;
  esac
  for w in $want; do
    [ "$(sqlite3 "$d/$name.db" "select count(*) from metric where name = '$w'")" = "$points" ] ||
      fail "$name: prints $w but does not record it"
  done
  # the client platforms (scenarios/lib/platform.lua): a cohort with a
  # network path (verification is priced only there) that is named mobile
  # or desktop, or is on the path of such a cohort of its run
  # (chrome-adoption's frozen clients take the phones' path), verifies at
  # that platform's speed; the phones' slower verification cannot be left
  # out of a cohort that has their path
  for dev in mobile desktop; do
    want_slow=$(sed -n "/name == \"$dev\"/,/cpu_slowdown/s/.*cpu_slowdown = \([0-9.]*\).*/\1/p" scenarios/lib/platform.lua)
    [ -n "$want_slow" ] || fail "scenarios/lib/platform.lua: no cpu_slowdown for $dev"
    bad=$(sqlite3 "$d/$name.db" "select s.entity_name || '=' || s.value from param s
        join param r on r.run_id = s.run_id and r.entity_kind = 'browsers' and r.entity_name = s.entity_name and r.name = 'rtt'
        where s.entity_kind = 'browsers' and s.name = 'cpu_slowdown' and r.value <> 'none' and abs(cast(s.value as real) - $want_slow) > 1e-12
          and (s.entity_name like '%$dev%' or r.value in (select r2.value from param r2 where r2.run_id = s.run_id
               and r2.entity_kind = 'browsers' and r2.name = 'rtt' and r2.entity_name like '%$dev%'))")
    [ -z "$bad" ] || fail "$name: $dev cohorts without the $dev platform's cpu_slowdown $want_slow: $(echo $bad)"
  done
  # the shared update lines: the recorded figure is the one printed and
  # the one SQL gives (update_fetch over the cohort's client-days: its
  # clients times the measured days weighted by its session-start profile,
  # the window here being a quarter day from the end of the warm-up)
  if [ "$name" = chrome-adoption ]; then
    python3 - "$d/$name.db" "$days" <<'PY' || fail "$name: checks_per_client_day differs from SQL"
import sys, sqlite3, json
db = sqlite3.connect(sys.argv[1])
span = float(sys.argv[2])
p = lambda kind, ent, name: db.execute("SELECT value FROM param WHERE entity_kind = ? AND entity_name = ? "
                                       "AND name = ?", (kind, ent, name)).fetchone()[0]
c = 'regular-mobile'
prof = json.loads(p('browsers', c, 'online_profile'))
t, to, acc = float(p('world', 'world', 'warmup')), float(p('world', 'world', 'warmup')) + span * 86400, 0.0
while t < to:
    nxt = min(to, (t // 3600 + 1) * 3600)
    acc += prof[int(t // 3600) % 24] * (nxt - t)
    t = nxt
cd = float(p('browsers', c, 'count')) * acc / (sum(prof) / 24) / 86400
q = lambda m: db.execute("SELECT value FROM scalar_v WHERE metric = ? AND cohort = ?", (m, c)).fetchone()[0]
assert abs(q('checks_per_client_day') - q('update_fetch') / cd) <= 1e-6, (q('checks_per_client_day'), q('update_fetch'), cd)
PY
    printed=$(sed -n 's/^  regular-mobile: checks per client-day  *//p' "$d/$name.out")
    rec=$(sqlite3 "$d/$name.db" "select printf('%.3f', value) from scalar_v where metric = 'checks_per_client_day' and cohort = 'regular-mobile'")
    [ -n "$printed" ] && [ "$printed" = "$rec" ] || fail "$name: printed '$printed', recorded '$rec'"
    [ "$(sqlite3 "$d/$name.db" "select count(*) from scalar_v where metric = 'checks_per_client_day' and cohort = 'all'")" = 0 ] ||
      fail "$name: a per-cohort figure has a total (a sum of rates)"
  fi
  # the landmark-interval question's bytes: the figure printed is the one recorded
  if [ "$name" = landmark-interval-sweep ]; then
    printed=$(sed -n 's/.*update B\/client-day \([0-9][0-9]*\)$/\1/p' "$d/$name.out")
    rec=$(sqlite3 "$d/$name.db" "select printf('%.0f', value) from scalar_v where metric = 'update_bytes_per_client_day'")
    [ -n "$printed" ] && [ "$printed" = "$rec" ] || fail "$name: printed '$printed' update bytes per client-day, recorded '$rec'"
  fi
  # the deployed system: the window holds no start-up transient
  ! grep -q "^warning: .*MSER-5" "$d/$name.out" || fail "$name: $(grep '^warning' "$d/$name.out")"
done
[ $n -ge 8 ] || fail "expected at least 8 scenarios, found $n"
# the validation cases, in C, restate the client platforms of
# scenarios/lib/platform.lua: their numbers must be the same (RTT median
# and sigma, bandwidth median; case 5 also the verification speed)
for dev in desktop mobile; do
  blk=$(sed -n "/name == \"$dev\"/,/cpu_slowdown/p" scenarios/lib/platform.lua)
  rtt=$(echo "$blk" | sed -n 's/.*rtt = lognormal{ median = \([0-9.e]*\), sigma = \([0-9.e]*\).*/\1 \2/p')
  bw=$(echo "$blk" | sed -n 's/.*bandwidth = lognormal{ median = \([0-9.e]*\),.*/\1/p')
  slow=$(echo "$blk" | sed -n 's/.*cpu_slowdown = \([0-9.]*\).*/\1/p')
  [ -n "$rtt" ] && [ -n "$bw" ] && [ -n "$slow" ] || fail "scenarios/lib/platform.lua: cannot read the $dev platform"
  # case 5: {"dev", count, rtt, sigma, bandwidth, cpu_slowdown}
  row=$(sed -n "s/.*{\"$dev\", [0-9]*, \([^}]*\)}.*/\1/p" validate/case_chrome.c | tr -d ,)
  echo "$row" | awk -v w="$rtt $bw $slow" '{ split(w, e, " "); if (NF != 4) exit 1
      for (i = 1; i <= 4; i++) if ($i + 0 != e[i] + 0) exit 1 }' ||
    fail "validate/case_chrome.c: the $dev platform '$row' is not lib/platform.lua's ($rtt $bw $slow)"
  # case 7: {share, rtt, sigma, bandwidth, bandwidth sigma}, /* dev */
  row=$(sed -n "s/.*{[0-9.]*, \([^}]*\)}, \/\* $dev \*\/.*/\1/p" validate/case_latency.c | tr -d ,)
  echo "$row" | awk -v w="$rtt $bw" '{ split(w, e, " "); if (NF != 4) exit 1
      for (i = 1; i <= 3; i++) if ($i + 0 != e[i] + 0) exit 1 }' ||
    fail "validate/case_latency.c: the $dev path '$row' is not lib/platform.lua's ($rtt $bw)"
done
[ $runs -eq 1 ] || { echo "scenarios: $n headers ok (sanitized build: no runs)"; exit 0; }
# the default scenario prints the headline table
cp "$d/quickstart.out" "$d/q.out"
grep -q "^signatureless_fraction " "$d/q.out" || fail "quickstart summary lacks the signatureless fraction"
grep -q "^auth_bytes_ratio_vs_mldsa44 " "$d/q.out" || fail "quickstart summary lacks the byte ratio"
echo "scenarios: $n ok"
