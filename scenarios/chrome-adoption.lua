-- chrome-adoption.lua - the Chrome adoption question.
--
-- Question: once Chrome accepts MTCs, what share of its full handshakes
-- can be signatureless when the population is mixed - regularly updating
-- desktops, enterprise installs that hold updates back for days, clients
-- that never receive landmarks - and how does the byte saving depend on
-- the share of lagging clients?
--
-- Assumptions (each cited from docs/sources.md by its label):
--   - Every Chrome checks as its component updater does: a minute after
--     each browser start, then every 5 hours while it runs (update_on_start
--     = "always") [chrome-updater], which carries the landmarks
--     [chrome-fastpush]; 1 % of checks fail (assumption).
--   - Enterprise installs check the same way but install each fetched
--     publication only after a policy delay, one per client, lognormal with
--     median 2 days, most within 1-4 (assumption within "lag by days"
--     [enterprise-lag]): the only difference from the regular cohort.
--   - All cohorts: 3 sessions a day of about an hour; 2 % of session ends
--     start an absence, Pareto from 1 day with shape 1.5 (mean 3 days, 1 in
--     30 over 10 days); 3 % frozen clients that never update (assumptions;
--     no public figures). Each browser start connects at once to 3, 6 or 12
--     hosts (restored tabs, background connections) before its start-up
--     check [startup-burst], with an empty session cache [session-cache].
--   - Platforms (scenarios/lib/platform.lua): regular installs 30 %
--     desktop, 70 % mobile [crux-rtt]; enterprise installs desktops, frozen
--     clients mobile (assumptions). A platform is a network path
--     [path-model] (RTT after Chrome's own estimates [crux-rtt], bandwidth
--     after Speedtest medians [ookla-speed]) and a verification speed: a
--     phone's core 3 times slower than the development machine, a
--     desktop's as fast [mobile-cpu]. Every cohort on TCP (the question is
--     freshness; both transports' bytes and round trips are recorded
--     anyway).
--   - CAs: "le" with 57 % of sites [le-share] at 6 million a day
--     [le-rate], "other" with the rest at a third of that (assumption);
--     7-day certificates, hourly landmarks, ML-DSA-44, one mirror each
--     [crqp-cadence]. Zipf 1.2 [zipf-sites] over the full-size world's
--     3,000 sites, which the sampled sites stand in for; 1-10 hosts per
--     visit (mean 4); 1-day tickets (assumption [no-source]).
--   - The deployed system: a steady warm-up (a week of history), then
--     `days` measured days; the CAs' rates do not follow the population
--     sample.
--   - Sweep: enterprise share 5 %, 15 %, 30 %.
--
-- Reading the result: per point, the signatureless fraction per cohort and
-- overall, bytes against the classical and ML-DSA-44 chains, and per cohort
-- checks per client-day, landmark age at handshake, publication-to-holding
-- time and the share of online clients lacking the latest landmark.
-- Measured (--set scale=0.1 --replications 3, seeds 1-3, 3 measured
-- days; 78 s of wall time with -j 2; mean +-95 %
-- half-width), enterprise share 5 / 15 / 30 %: overall 0.959 +-0.006 /
-- 0.939 +-0.012 / 0.907 +-0.011; regular 0.9997-0.9998 and enterprise
-- 0.76-0.79 at every point, frozen 0 (within their intervals of the
-- figures before the network paths, the start-up burst, the emptied
-- session cache, the rank-based site choice and today's chain profiles).
-- Both cohorts check about 2.3 times a day; the enterprise one installs
-- what it fetched days later (median publication-to-holding 59-61 h by
-- point, against 6.8 h), so a site's renewed certificate stays unusable
-- for it until then. Handshake time over all cohorts, TCP, no loss, the
-- phones verifying 3 times slower than desktops: p50 181-196 ms; against
-- today's deployment (each site's chain with its own RSA or ECDSA leaf
-- key, 7.2 % of the RSA keys 4,096 bits, 8.7 % of sites sending their
-- root too; the MTC side with the sites' Ed25519 keys; no compression on
-- either side) -1.1 to -1.2 % at p50 and -0.7 to -0.8 % at p90 (each
-- +-0.10 to 0.45), against the ML-DSA-44 chain -26 to -27 %
-- at p50 (before the phones' speed: -0.7 % and -0.3 to -0.5 %). MSER-5
-- flags the signatureless fraction at every point (truncation 35 h,
-- MSER's boundary): the enterprise share
-- wanders by 2-5 points a day with the renewals of the most visited
-- sites (the top rank alone carries 22 % of visits), with no common trend
-- over the replications (day 3 less day 1 +0.007 +-0.013 overall; see
-- docs/scenarios.md), and log_storage_bytes
-- (truncation 30 h): the level is the tree store's allocated memory,
-- which moves in whole 128 KiB chunks (up to 8 an hour): step noise, not
-- a start-up (docs/scenarios.md).
local report = require "lib.report"
local cohorts = require "lib.cohorts"
local cas = require "lib.cas"

sweep("enterprise_share", { 0.05, 0.15, 0.30 })
local ent = param("enterprise_share", 0.15, "share of clients in the lagging enterprise cohort")
local frozen = param("frozen_share", 0.03, "share of clients that never update")
local scale = param("scale", 1.0, "population sample (1 = the sizes below); the CAs are unchanged")
local span = param("days", 3, "measured days after the warm-up")
local issuance = param("issuance", 6e6, "the larger CA's issuance, certificates per day (the other issues a third)")

local warm = steady_warmup{ lifetime = days(7), landmark_interval = hours(1),
                            fetch_interval = minutes(10), publication_delay = minutes(10),
                            retry_after = 600 }
mtcsim.world{ duration = warm + days(span), warmup = warm, grid_step = hours(1) }
cas.two{ issuance = issuance }
-- The full-size world: 3,000 sites, 30,000 browsers; `scale` samples both
-- and the sampled sites stand in for all 3,000 popularity ranks.
local full_sites = 3000
mtcsim.sites{ name = "sites", count = math.max(20, math.floor(full_sites * scale)),
              represents = full_sites, ca_shares = { "le:0.57", "other:0.43" } }

-- Platforms (lib/platform.lua: network path and verification speed).
-- Regular installs are 70 % mobile [crux-rtt]; enterprise installs are
-- managed desktops and frozen clients are taken as mobile (assumptions).
-- Every cohort on TCP: the question is landmark freshness, and bytes and
-- round trips are recorded for both transports anyway.

local n = math.max(60, math.floor(30000 * scale))
-- Everyday habits (lib/cohorts.lua), the cohorts differing in their
-- platform and how they take updates.
local pop = cohorts.population(n)
local cohort, handle = pop.add, pop.handle
cohort("regular-desktop", 0.3 * (1 - ent - frozen), "desktop", {})
cohort("regular-mobile", 0.7 * (1 - ent - frozen), "mobile", {})
cohort("enterprise", ent, "desktop", { update_apply_delay = lognormal{ median = days(2), sigma = 0.5 } })
cohort("frozen", frozen, "mobile", { never_updates = true })

local names = { "regular-desktop", "regular-mobile", "enterprise", "frozen" }
local lacking = report.sample_lacking(sim, names, warm + 1800)
sim:on_finish(function(s)
  report.header(string.format("chrome-adoption, enterprise share %.2f", ent), s)
  report.handshakes(s, names)
  report.resumption(s)
  report.latency(s, names)
  local cd = {}
  for _, c in ipairs(names) do cd[c] = report.client_days(handle[c], warm, span) end
  report.updates(s, names, cd, lacking)
end)
