-- update-lag.lua - what-if study: how fresh must clients be?
--
-- Question: how does the signatureless fraction fall as clients check for
-- updates less often or fail more often, from Chrome's 5-hour cadence to
-- enterprise installs that lag by days?
--
-- Assumptions (each cited from docs/sources.md by its label):
--   - Chrome's component updater checks about 1 minute after start, then
--     every 5 hours while running; older versions every 6 hours
--     ([chrome-updater]); enterprise installs lag by days
--     ([enterprise-lag]).
--     Sweep of the mean check interval (exponentially distributed):
--     1 h, 5 h, 24 h, 72 h.
--   - Update checks fail with probability `fail_prob` (default 5 %,
--     assumption).
--   - 7-day certificates, hourly landmarks ([crqp-cadence]); the update
--     service publishes 10 minutes after fetching.
--   - Sessions: 3 per day of about an hour (assumption); Zipf 1.2
--     popularity ([zipf-sites]). The CA issues 6 million certificates per
--     day whatever the population sample ([le-rate]); the deployed system
--     (steady warm-up).
--
-- Reading the result: the signatureless fraction per point; it stays
-- near 1 while the check interval is well below the landmark window
-- (max_active_landmarks x interval, about 7 days here), and falls for
-- clients whose state is older than the certificates they meet.
local report = require "lib.report"

sweep("update_interval", { hours(1), hours(5), hours(24), hours(72) })
local ui = param("update_interval", hours(5), "mean time between update checks (s)")
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
mtcsim.browsers{ name = "clients", count = math.max(20, math.floor(20000 * scale)),
                 update_interval = exponential{ mean = ui }, update_fail_prob = fail,
                 sessions_per_day = 3, session_duration = lognormal{ median = hours(1), sigma = 1 },
                 zipf_exponent = 1.2 }

sim:on_finish(function(s)
  printf("update interval %6.0f s  rep %d  signatureless %s  update bytes/fetch %s\n",
    ui, s.replication, report.fmt(report.fraction(s), "%.4f"),
    report.fmt((s:metric("update_bytes") or 0) / math.max(1, s:metric("update_fetch") or 0), "%.0f"))
end)
