-- update-lag.lua - what-if study: how fresh must clients be?
--
-- Question: how does the signatureless fraction fall as clients check for
-- updates less often - from hourly, through Chrome's 5-hour cadence, to
-- once every few days - and what does a policy delay before installing
-- add?
--
-- Assumptions (each cited from docs/sources.md by its label):
--   - The sweep is the check cadence itself: a check falls due
--     `update_interval` after the previous one (constant: 1 h, 5 h, 24 h,
--     72 h), runs at once when the client is online, else at the start-up
--     check a minute after its next session starts (update_on_start =
--     "if_due"), at a random phase per client. So a point's clients check
--     about that often: at 72 h, once every 3 days and a few hours. Chrome's
--     own component updater checks at every browser start and then every
--     5 hours [chrome-updater]; that is `update_on_start =
--     "always"`, the chrome-adoption scenario's setting.
--   - `apply_delay` (default 0): a policy delay between fetching a
--     publication and installing it, as managed installs that hold updates
--     back for days do [enterprise-lag]; `--set 'apply_delay=days(2)'`.
--   - Update checks fail with probability `fail_prob` (default 5 %,
--     assumption).
--   - 7-day certificates, hourly landmarks [crqp-cadence]; the update
--     service publishes 10 minutes after fetching.
--   - Sessions: 3 a day of about an hour (assumption); Zipf 1.2
--     popularity [zipf-sites].
--   - The deployed system: a steady warm-up (a week of history: every
--     site at a random phase of its renewal cycle, every client checking
--     as its cohort does), then `days` measured days. The CA signs 6
--     million certificates per day whatever the population sample
--     ([le-rate]).
--
-- No network paths (handshake latency off): its question is landmark
-- freshness under update cadences, which paths do not change; quickstart
-- and latency-mobile report milliseconds.
--
-- Reading the result: one line per run - signatureless fraction, update
-- checks per client-day, the share of full handshakes whose client holds a
-- landmark of the server's CA, that landmark's age (p50, hours since its
-- first publication), and the mean share of online clients lacking the
-- latest landmark (hourly samples). Measured (--set scale=0.05
-- --replications 3, seed 1, 3 measured days; 394 CPU s), at 1, 5, 24 and
-- 72 h: signatureless 0.99995 +-0.00004, 0.99991 +-0.00012, 0.9980
-- +-0.0016, 0.927 +-0.021; checks per client-day 4.97, 1.90, 0.75, 0.29
-- (only while online: sessions cover about a third of the day); landmark
-- age p50 1.0, 2.1, 9.6, 35 h; online lacking the latest 0.32, 0.73,
-- 0.91, 0.96. The fraction falls once the interval nears a site's renewal
-- period (5.25 days): a handshake is signatureless when the client's last
-- check came after the landmark covering the site's current certificate.
-- At 24 h and 72 h MSER-5 flags the fraction's series (truncation 35 h
-- into the window): at 72 h the share of failed handshakes, sampled
-- every 6 h, rises from 0.064 to 0.082 at 36 h and falls back to 0.073;
-- the window is one check interval long, so read that point's interval
-- as a lower bound on its uncertainty.
-- A policy delay (--set 'apply_delay=days(2)') lowers the fraction at the
-- same number of checks: the delay draws from a stream of its own.
local report = require "lib.report"

sweep("update_interval", { hours(1), hours(5), hours(24), hours(72) })
local ui = param("update_interval", hours(5), "time from one update check to the next (s)")
local delay = param("apply_delay", 0, "policy delay from fetching a publication to installing it (s)")
local fail = param("fail_prob", 0.05, "probability that an update check fails")
local scale = param("scale", 1.0, "population sample (1 = the sizes below); the CA is unchanged")
local span = param("days", 3, "measured days after the warm-up")
local issuance = param("issuance", 6e6, "the CA's issuance, certificates per day")

local warm = steady_warmup{ lifetime = days(7), landmark_interval = hours(1),
                            fetch_interval = minutes(10), publication_delay = minutes(10),
                            retry_after = 600 }
mtcsim.world{ duration = warm + days(span), warmup = warm, grid_step = hours(1) }
local mirror = mtcsim.cosigner{ name = "mirror", role = "mirror" }
mtcsim.ca{ name = "ca", rate = per_day(issuance), cosigners = { mirror }, quorum = 1 }
mtcsim.update_service{ name = "updates", fetch_interval = minutes(10), publication_delay = minutes(10) }
mtcsim.sites{ name = "sites", count = math.max(20, math.floor(2000 * scale)) }
local n = math.max(20, math.floor(20000 * scale))
local clients = {
  name = "clients", count = n,
  update_interval = ui, update_on_start = "if_due", update_fail_prob = fail,
  sessions_per_day = 3, session_duration = lognormal{ median = hours(1), sigma = 1 },
  zipf_exponent = 1.2,
}
if delay > 0 then clients.update_apply_delay = delay end
local browsers = mtcsim.browsers(clients)

local lacking = report.sample_lacking(sim, { "clients" }, warm + 1800)
sim:on_finish(function(s)
  -- client-days weighted by the session-start profile (lib/report.lua)
  local cd = report.client_days(browsers, warm, span)
  local age = s:metric("landmark_age_at_handshake")
  local full = s:metric("handshake_full")
  local l = lacking.clients
  printf("interval %3.0f h  delay %4.1f d  rep %d  signatureless %s  checks/client-day %s  holding a landmark %s  its age p50 %s h  online lacking the latest %s\n",
    ui / 3600, delay / 86400, s.replication, report.fmt(report.fraction(s), "%.4f"),
    report.fmt((s:metric("update_fetch") or 0) / cd, "%.3f"),
    report.fmt((age and full and full > 0) and age.count / full or nil, "%.3f"),
    report.fmt((age and age.count > 0) and age.p50 / 3600 or nil, "%.1f"),
    report.fmt((l.n > 0) and l.sum / l.n or nil, "%.3f"))
  report.record(s, "checks_per_client_day", (s:metric("update_fetch") or 0) / cd)
  report.record(s, "holding_landmark_share", (age and full and full > 0) and age.count / full or nil)
  report.record(s, "lacking_latest_landmark_share", (l.n > 0) and l.sum / l.n or nil)
end)
