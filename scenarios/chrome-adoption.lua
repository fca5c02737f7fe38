-- chrome-adoption.lua - the Chrome adoption question.
--
-- Question: once Chrome accepts MTCs, what share of its full handshakes
-- can be signatureless when the population is mixed - regularly updating
-- desktops, enterprise installs that hold updates back for days, and
-- clients that never receive landmarks - and how does the overall byte
-- saving depend on the share of lagging clients?
--
-- Assumptions (sources: docs/sources.md, by tag):
--   - Every Chrome checks as its component updater does: about a minute
--     after the browser starts, then every 5 hours while it runs
--     [chrome-component-updater] (update_on_start = "always"); landmarks
--     reach Chrome through it [chrome-mtc-delivery]. 1 % of checks fail
--     (assumption).
--   - Enterprise installs check the same way but hold updates back: each
--     fetched publication is installed only after a policy delay, drawn
--     once per client, lognormal with median 2 days (most between 1 and 4
--     days; an assumption within "lag by days" [enterprise-lag]). This
--     delay is the only difference from the regular cohort.
--   - Every cohort: 3 sessions a day of about an hour (assumption); 2 % of
--     session ends start an absence - a device left off for a weekend, a
--     holiday, weeks - Pareto distributed from 1 day with shape 1.5 (mean
--     3 days, one in 30 absences longer than 10 days; assumption, no
--     public figure).
--   - Frozen clients never update (MTC-unaware or stale builds): a 3 %
--     cohort (assumption; no public figure).
--   - Two CAs: one with Let's Encrypt's share of sites, about 57 %
--     [le-share], issuing about 6 million a day [le-issuance]; the other
--     for the rest, at a third of that rate (assumption).
--   - 7-day certificates, hourly landmarks, ML-DSA-44 cosigners, one
--     mirror each [cqrp-policy]. Zipf 1.2 popularity, ~6 hosts per visit
--     [browsing-popularity]; resumption with 1-day tickets (assumption:
--     no public figure for resumption [resumption-unknown]).
--   - Every site requests its first certificate during the 12-hour warm-up
--     (a cold start: no site renews within the run).
--   - Sweep: enterprise share of clients 5 %, 15 %, 30 %.
--
-- Reading the result: one block per sweep point with the signatureless
-- fraction per cohort and overall, the bytes against the classical and
-- ML-DSA-44 chains, and per cohort the update checks per client-day, the
-- age of the newest landmark at each full handshake, the time from a
-- landmark's publication to each client holding it and the share of
-- online clients lacking the latest landmark. The host's summary repeats
-- the overall figures per point with confidence intervals when
-- --replications > 1. FIGURES
local report = require "lib.report"

sweep("enterprise_share", { 0.05, 0.15, 0.30 })
local ent = param("enterprise_share", 0.15, "share of clients in the lagging enterprise cohort")
local frozen = param("frozen_share", 0.03, "share of clients that never update")
local scale = param("scale", 1.0, "population and issuance scale")
local span = param("days", 3, "simulated days after the warm-up")

local warm = hours(12) * math.min(1, span)   -- shorter for runs under a day
mtcsim.world{ duration = warm + days(span), warmup = warm }
local m1 = mtcsim.cosigner{ name = "mirror-a", role = "mirror", latency = lognormal{ median = 2, sigma = 0.5 } }
local m2 = mtcsim.cosigner{ name = "mirror-b", role = "mirror", latency = lognormal{ median = 3, sigma = 0.5 } }
mtcsim.ca{ name = "le", rate = per_day(6e6) * scale, lifetime = days(7),
           landmark_interval = hours(1), cosigners = { m1 }, quorum = 1 }
mtcsim.ca{ name = "other", rate = per_day(2e6) * scale, lifetime = days(7),
           landmark_interval = hours(1), cosigners = { m2 }, quorum = 1 }
mtcsim.update_service{ name = "component-updater", fetch_interval = minutes(10) }
mtcsim.sites{ name = "sites", count = math.max(20, math.floor(3000 * scale)),
              ca_shares = { "le:0.57", "other:0.43" }, issue_spread = warm }

local n = math.max(60, math.floor(30000 * scale))
local common = {
  sessions_per_day = 3, session_duration = lognormal{ median = hours(1), sigma = 1 },
  away_prob = 0.02, away_duration = pareto{ shape = 1.5, scale = days(1) },
  visits_per_hour = 20, hosts_per_visit = empirical{ values = { 1, 3, 6, 10 }, weights = { 3, 3, 3, 1 } },
  zipf_exponent = 1.2, ticket_lifetime = days(1),
  update_first_delay = 60, update_interval = hours(5), update_on_start = "always",
  update_fail_prob = 0.01,
}
local count = {}
local function cohort(name, share, extra)
  local t = { name = name, count = math.max(1, math.floor(n * share)) }
  for k, v in pairs(common) do t[k] = v end
  for k, v in pairs(extra) do t[k] = v end
  count[name] = t.count
  return mtcsim.browsers(t)
end
cohort("regular", 1 - ent - frozen, {})
cohort("enterprise", ent, { update_apply_delay = lognormal{ median = days(2), sigma = 0.5 } })
cohort("frozen", frozen, { never_updates = true })

local names = { "regular", "enterprise", "frozen" }
local lacking = report.sample_lacking(sim, names, warm + 1800)
sim:on_finish(function(s)
  report.header(string.format("chrome-adoption, enterprise share %.2f", ent), s)
  report.handshakes(s, names)
  report.updates(s, names, count, span, lacking)
end)
