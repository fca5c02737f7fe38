#!/bin/sh
# Rates per client-day over a window that is not a whole number of days
# (scenarios/lib/report.lua, R.client_days and R.profile_days): client-days
# are weighted by the cohort's daily profile of session starts, so that a
# part day in the busy hours does not inflate the rate.
#  - closed forms of R.profile_days: a whole number of days at any phase is
#    that number; 1.5 days from midnight with 3x weight in hours 0-11 and
#    1x in 12-23 (mean 2) is 1 + 0.5 x 1.5 = 1.75 days, from noon 1.25;
#  - a run: 2,000 clients whose every session start checks for updates
#    (update_on_start = "always", no delay, no failures, 10-second sessions,
#    no periodic check in the window) at 4 session starts a day on that
#    profile, measured for 1.5 days from midnight: the recorded
#    checks_per_client_day is 4 within 4 Poisson standard deviations, and
#    the plain count over clients x 1.5 days (4.67) is not;
#  - the recorded figure equals update_fetch / (clients x 1.75) from SQL.
set -u
b=${1:-build}
m="$b/mtcsim"
fail() { echo "FAIL: $*"; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/sh_client_days.XXXXXX") || fail "mktemp"
trap 'rm -rf "$tmp"' EXIT

cat > "$tmp/cd.lua" <<'LUA'
local report = require "lib.report"
local span = param("days", 1.5, "measured days")
local warm = days(1)      -- the window starts at midnight (hour 0 at t = 0)
mtcsim.world{ duration = warm + days(span), warmup = warm, grid_step = hours(1), start = "empty" }
local mirror = mtcsim.cosigner{ name = "mirror", role = "mirror", algorithm = "ed25519" }
mtcsim.ca{ name = "ca", algorithm = "ed25519", rate = per_day(1000), lifetime = hours(8),
           landmark_interval = hours(1), cosigners = { mirror }, quorum = 1 }
mtcsim.update_service{ name = "us", fetch_interval = minutes(10) }
mtcsim.sites{ name = "sites", count = 20 }
local profile = {}
for h = 1, 24 do profile[h] = h <= 12 and 3 or 1 end
local b = mtcsim.browsers{ name = "b", count = 2000, sessions_per_day = 4, online_profile = profile,
  session_duration = 10, visits_per_hour = 0, update_on_start = "always", update_first_delay = 0,
  update_fail_prob = 0, update_interval = days(30), update_phase = "start" }
sim:on_finish(function(s)
  printf("profile days: %.9f %.9f %.9f %.9f %.9f\n",
    report.profile_days(profile, warm, span), report.profile_days(profile, warm + hours(12), span),
    report.profile_days(profile, 12345, 2), report.profile_days(profile, hours(7.5), 3),
    report.profile_days(nil, 999, 1.5))
  report.updates(s, { "b" }, { b = report.client_days(b, warm, span) })
end)
LUA
"$m" run "$tmp/cd.lua" --out "$tmp/cd.db" >"$tmp/cd.out" 2>"$tmp/err" || fail "run: $(cat "$tmp/err")"
[ "$(sed -n 's/^profile days: //p' "$tmp/cd.out")" = "1.750000000 1.250000000 2.000000000 3.000000000 1.500000000" ] \
  || fail "R.profile_days closed forms: $(grep '^profile days' "$tmp/cd.out")"
python3 - "$tmp/cd.db" <<'PY' || fail "checks per client-day over 1.5 days"
import sys, sqlite3, math
db = sqlite3.connect(sys.argv[1])
q = lambda m: db.execute("SELECT value FROM scalar_v WHERE metric = ? AND cohort = 'all'", (m,)).fetchone()[0]
checks, rec = q('update_fetch'), q('checks_per_client_day')
n, lam = 2000, 4.0
sd = math.sqrt(lam * 1.75 * n) / (1.75 * n)     # Poisson count over the weighted client-days
assert abs(rec - checks / (n * 1.75)) <= 1e-6, (rec, checks)
assert abs(rec - lam) <= 4 * sd, ('weighted', rec, lam, sd)
naive = checks / (n * 1.5)
assert abs(naive - lam) > 8 * sd, ('the plain rate is not biased: the test could not fail', naive, sd)
PY
echo "client-days: profile-weighted over part days (closed forms, a 1.5-day run)"
