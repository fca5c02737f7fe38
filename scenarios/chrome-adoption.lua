-- chrome-adoption.lua - the Chrome adoption question.
--
-- Question: once Chrome accepts MTCs, what share of its full handshakes
-- can be signatureless when the population is mixed - regularly updating
-- desktops, enterprise installs that hold updates back for days, and
-- clients that never receive landmarks - and how does the overall byte
-- saving depend on the share of lagging clients?
--
-- Assumptions (each cited from docs/sources.md by its label):
--   - Regular Chrome: component-updater check about 1 minute after start,
--     then every 5 hours while running ([chrome-updater]); landmarks reach
--     Chrome through it ([chrome-fastpush]). 1 % of checks fail
--     (assumption).
--   - Enterprise installs lag by days ([enterprise-lag]): checks every 3
--     days (assumption within "days").
--   - Frozen clients never update (MTC-unaware or stale builds): a 3 %
--     cohort (assumption; no public figure).
--   - Two CAs: one with Let's Encrypt's share of sites, about 57 %
--     ([le-share]), issuing about 6 million per day ([le-rate]); the other
--     for the rest, at a third of that rate (assumption). Both rates are
--     the CAs' whatever the population sample.
--   - 7-day certificates, hourly landmarks, ML-DSA-44 cosigners, one mirror
--     each ([crqp-cadence], [crqp-cosign]). Zipf 1.2 popularity, ~6 hosts
--     per visit ([zipf-sites]); resumption with 1-day tickets (assumption:
--     no public figure, [no-source]).
--   - The deployed system (steady warm-up).
--   - Sweep: enterprise share of clients 5 %, 15 %, 30 %.
--
-- Reading the result: one block per sweep point with the signatureless
-- fraction per cohort (the regular cohort should be near 1, the frozen one
-- 0) and overall, and the mean authentication bytes against the classical
-- and ML-DSA-44 chains. The host's summary repeats the overall figures per
-- point with confidence intervals when --replications > 1.
local report = require "lib.report"

sweep("enterprise_share", { 0.05, 0.15, 0.30 })
local ent = param("enterprise_share", 0.15, "share of clients in the lagging enterprise cohort")
local frozen = param("frozen_share", 0.03, "share of clients that never update")
local scale = param("scale", 1.0, "population sample (1 = the sizes below); the CAs are unchanged")
local span = param("days", 3, "measured days after the warm-up")
local issuance = param("issuance", 6e6, "the larger CA's issuance, certificates per day (the other issues a third)")

local warm = steady_warmup{ lifetime = days(7), landmark_interval = hours(1),
                            fetch_interval = minutes(10), publication_delay = minutes(10), retry_after = 600 }
mtcsim.world{ duration = warm + days(span), warmup = warm, grid_step = hours(1) }
local m1 = mtcsim.cosigner{ name = "mirror-a", role = "mirror", latency = lognormal{ median = 2, sigma = 0.5 } }
local m2 = mtcsim.cosigner{ name = "mirror-b", role = "mirror", latency = lognormal{ median = 3, sigma = 0.5 } }
mtcsim.ca{ name = "le", rate = per_day(issuance), lifetime = days(7),
           landmark_interval = hours(1), cosigners = { m1 }, quorum = 1 }
mtcsim.ca{ name = "other", rate = per_day(issuance / 3), lifetime = days(7),
           landmark_interval = hours(1), cosigners = { m2 }, quorum = 1 }
mtcsim.update_service{ name = "component-updater", fetch_interval = minutes(10) }
mtcsim.sites{ name = "sites", count = math.max(20, math.floor(3000 * scale)),
              ca_shares = { "le:0.57", "other:0.43" } }

local n = math.max(60, math.floor(30000 * scale))
local common = {
  sessions_per_day = 3, session_duration = lognormal{ median = hours(1), sigma = 1 },
  visits_per_hour = 20, hosts_per_visit = empirical{ values = { 1, 3, 6, 10 }, weights = { 3, 3, 3, 1 } },
  zipf_exponent = 1.2, ticket_lifetime = days(1), update_first_delay = 60,
}
local function cohort(name, share, extra)
  local t = { name = name, count = math.max(1, math.floor(n * share)) }
  for k, v in pairs(common) do t[k] = v end
  for k, v in pairs(extra) do t[k] = v end
  return mtcsim.browsers(t)
end
cohort("regular", 1 - ent - frozen, { update_interval = hours(5), update_fail_prob = 0.01 })
cohort("enterprise", ent, { update_interval = days(3), update_fail_prob = 0.01 })
cohort("frozen", frozen, { never_updates = true })

sim:on_finish(function(s)
  report.header(string.format("chrome-adoption, enterprise share %.2f", ent), s)
  report.handshakes(s, { "regular", "enterprise", "frozen" })
end)
