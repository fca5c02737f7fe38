-- chrome-adoption.lua - the Chrome adoption question.
--
-- Question: once Chrome accepts MTCs, what share of its full handshakes
-- can be signatureless when the population is mixed - regularly updating
-- desktops, enterprise installs that hold updates back for days, clients
-- that never receive landmarks - and how does the byte saving depend on
-- the share of lagging clients?
--
-- Assumptions (sources: docs/sources.md, by tag):
--   - Every Chrome checks as its component updater does: a minute after
--     each browser start, then every 5 hours while it runs (update_on_start
--     = "always") [chrome-component-updater], which carries the landmarks
--     [chrome-mtc-delivery]; 1 % of checks fail (assumption).
--   - Enterprise installs check the same way but install each fetched
--     publication only after a policy delay, one per client, lognormal with
--     median 2 days, most within 1-4 (assumption within "lag by days"
--     [enterprise-lag]): the only difference from the regular cohort.
--   - All cohorts: 3 sessions a day of about an hour; 2 % of session ends
--     start an absence, Pareto from 1 day with shape 1.5 (mean 3 days, 1 in
--     30 over 10 days); 3 % frozen clients that never update (assumptions;
--     no public figures).
--   - CAs: "le" with 57 % of sites [le-share] at 6 million a day
--     [le-issuance], "other" with the rest at a third of that (assumption);
--     7-day certificates, hourly landmarks, ML-DSA-44, one mirror each
--     [cqrp-policy]. Zipf 1.2, ~6 hosts per visit [browsing-popularity];
--     1-day tickets (assumption [resumption-unknown]). Cold start: every
--     site gets its first certificate in the 12 h warm-up, none renews.
--   - Sweep: enterprise share 5 %, 15 %, 30 %.
--
-- Reading the result: per point, the signatureless fraction per cohort and
-- overall, bytes against the classical and ML-DSA-44 chains, and per cohort
-- checks per client-day, landmark age at handshake, publication-to-holding
-- time and the share of online clients lacking the latest landmark. With
-- --set scale=0.1 --replications 3 (3,000 clients, 300 sites, 3 days),
-- mean and 95 % interval over the replications:
--     share   regular         enterprise      all             bytes
--     0.05    0.993 +-0.004   0.253 +-0.072   0.925 +-0.004   1,161
--     0.15    0.993 +-0.004   0.267 +-0.040   0.854 +-0.006   1,495
--     0.30    0.993 +-0.004   0.273 +-0.023   0.745 +-0.009   2,001
-- (bytes: mean authentication bytes per full handshake; the classical
-- chain costs 1,260, the ML-DSA-44 chain 15,504.)
-- Both cohorts check 2.3 times per client-day; enterprise clients hold a
-- landmark 43 h after its publication at the median (p90 64 h) against 6 h
-- (20 h) for regular ones - the policy delay. In this cold start every
-- site's landmark certificate dates from the warm-up, so an enterprise
-- client's handshakes turn signatureless only once its delay has passed,
-- about two days in: the size of the gap is that of a cold start. Before the
-- update model the enterprise cohort (checks every 3 days) still fetched
-- 2.4 times a day and was as fresh as the regular one: 0.989 +-0.009
-- against 0.994 +-0.005 (share 0.15, same scale and replications).
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
