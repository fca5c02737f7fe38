-- update-lag.lua - what-if study: how fresh must clients be?
--
-- Question: how does the signatureless fraction fall as clients check for
-- updates less often - from hourly, through Chrome's 5-hour cadence, to
-- once every few days - and what does a policy delay before installing
-- add?
--
-- Assumptions (sources: docs/sources.md, by tag):
--   - The sweep is the check cadence itself: a check falls due
--     `update_interval` after the previous one (constant: 1 h, 5 h, 24 h,
--     72 h), runs at once when the client is online, else at the start-up
--     check a minute after its next session starts (update_on_start =
--     "if_due"), at a random phase per client. So a point's clients check
--     about that often: at 72 h, once every 3 days and a few hours. Chrome's
--     own component updater checks at every browser start and then every
--     5 hours [chrome-component-updater]; that is `update_on_start =
--     "always"`, the chrome-adoption scenario's setting.
--   - `apply_delay` (default 0): a policy delay between fetching a
--     publication and installing it, as managed installs that hold updates
--     back for days do [enterprise-lag]; `--set 'apply_delay=days(2)'`.
--   - Update checks fail with probability `fail_prob` (default 5 %,
--     assumption).
--   - 7-day certificates, hourly landmarks [cqrp-policy]; the update
--     service publishes 10 minutes after fetching.
--   - Sessions: 3 a day of about an hour (assumption); Zipf 1.2
--     popularity [browsing-popularity].
--   - Every site requests its first certificate during the 12-hour warm-up
--     (a cold start: no site renews within the run), so a client must
--     install a publication from after the warm-up's landmarks before its
--     handshakes can be signatureless.
--
-- Reading the result: one line per run - signatureless fraction, update
-- checks per client-day, the share of full handshakes whose client holds a
-- landmark of the server's CA, that landmark's age (p50, hours since its
-- first publication), and the mean share of online clients lacking the
-- latest landmark (hourly samples). With --set scale=0.1 --replications 3
-- (2,000 clients, 200 sites, 3 days; mean of the replications):
--     interval  signatureless  checks/day  holding  age p50  lacking
--        1 h     0.996          4.89       0.998     1.0 h   0.31
--        5 h     0.985          1.92       0.995     2.1 h   0.73
--       24 h     0.895          0.75       0.926     8.4 h   0.90
--       72 h     0.584          0.29       0.623    20.7 h   0.96
-- (95 % intervals of the fraction: +-0.002, 0.005, 0.013, 0.006). Checks
-- follow the interval; at 72 h a client holds the warm-up's landmarks only
-- after its first check in the run, uniformly up to 3 days in, so the
-- fraction falls to about the share of the run after that check. With
-- --set update_interval=18000 --set 'apply_delay=days(2)': 0.281 (0.272,
-- 0.280, 0.292), the same 1.92 checks a day (the delay draws from a stream
-- of its own), age p50 53.6 h. Before the update model every session start
-- checked - 6.0, 3.0, 2.5, 2.4 checks a day across the sweep - and the
-- fraction stayed at 0.994 to 0.983 (same scale, one replication).
local report = require "lib.report"

sweep("update_interval", { hours(1), hours(5), hours(24), hours(72) })
local ui = param("update_interval", hours(5), "time from one update check to the next (s)")
local delay = param("apply_delay", 0, "policy delay from fetching a publication to installing it (s)")
local fail = param("fail_prob", 0.05, "probability that an update check fails")
local scale = param("scale", 1.0, "population and issuance scale")
local span = param("days", 3, "simulated days after the warm-up")

local warm = hours(12) * math.min(1, span)   -- shorter for runs under a day
mtcsim.world{ duration = warm + days(span), warmup = warm }
local mirror = mtcsim.cosigner{ name = "mirror", role = "mirror" }
mtcsim.ca{ name = "ca", rate = per_day(6e6) * scale, cosigners = { mirror }, quorum = 1 }
mtcsim.update_service{ name = "updates", publication_delay = minutes(10) }
mtcsim.sites{ name = "sites", count = math.max(20, math.floor(2000 * scale)), issue_spread = warm }
local n = math.max(20, math.floor(20000 * scale))
local clients = {
  name = "clients", count = n,
  update_interval = ui, update_on_start = "if_due", update_fail_prob = fail,
  sessions_per_day = 3, session_duration = lognormal{ median = hours(1), sigma = 1 },
  zipf_exponent = 1.2,
}
if delay > 0 then clients.update_apply_delay = delay end
mtcsim.browsers(clients)

local lacking = report.sample_lacking(sim, { "clients" }, warm + 1800)
sim:on_finish(function(s)
  local age = s:metric("landmark_age_at_handshake")
  local full = s:metric("handshake_full")
  local l = lacking.clients
  printf("interval %3.0f h  delay %4.1f d  rep %d  signatureless %s  checks/client-day %s  holding a landmark %s  its age p50 %s h  online lacking the latest %s\n",
    ui / 3600, delay / 86400, s.replication, report.fmt(report.fraction(s), "%.4f"),
    report.fmt((s:metric("update_fetch") or 0) / (n * span), "%.3f"),
    report.fmt((age and full and full > 0) and age.count / full or nil, "%.3f"),
    report.fmt((age and age.count > 0) and age.p50 / 3600 or nil, "%.1f"),
    report.fmt((l.n > 0) and l.sum / l.n or nil, "%.3f"))
end)
