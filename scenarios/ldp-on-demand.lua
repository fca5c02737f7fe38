-- ldp-on-demand.lua - what do Landmark Distribution Points buy the
-- clients that lag behind the landmarks?
--
-- Question: a new draft [draft-ldp] lets a certificate name distribution
-- points from which a relying party missing its landmark fetches the
-- proof set on demand, instead of waiting for its update channel. For
-- the lagging cohorts of chrome-adoption (enterprise installs that hold
-- updates back by days, and clients that never update), what do
-- on-demand fetches buy in signatureless share, and what do they cost in
-- handshake milliseconds and in load on the distribution points, against
-- the two alternatives: pushed updates alone (the draft: a lagging client
-- never signals, its servers send standalone certificates) and a client
-- that signals but answers a landmark it lacks with the retry for a
-- standalone certificate?
--
-- Design (docs/model.md "Landmark fetching on demand"): both CAs name one
-- distribution point in every certificate (ldp = 1; the extension is in
-- every arm's certificates, so the arms differ in the clients only) and
-- serve each landmark's proof set. Sweep `arm`: "push" (the lagging
-- cohorts ldp = "off"), "retry" (ldp = "retry") and "fetch" (ldp =
-- "fetch"); the regular cohorts never signal. The sweep points share
-- seeds per replication (common random numbers: the same clients, sites,
-- visits and paths in every arm), so arms are compared by paired
-- differences.
--
-- Assumptions: the world of chrome-adoption (its header cites each):
-- two CAs (57 % / 43 % of sites, 6 million and 2 million a day, 7-day
-- certificates, hourly landmarks, one mirror each), Chrome's update
-- cadence [chrome-updater], enterprise installs delaying each install by
-- a lognormal of median 2 days (assumption within [enterprise-lag]), 3 %
-- frozen clients, the platforms of lib/platform.lua (RTT and bandwidth
-- after [crux-rtt] and [ookla-speed], a phone verifying 3 times slower
-- than a desktop [mobile-cpu]), TCP, 1-day tickets. A fetch fails (an error answer) with probability
-- ldp_fail_prob = 1 % (assumption, as the 1 % of failed update checks),
-- and is plain HTTP/1.1 over a new TCP connection on the client's path.
--
-- Reading the result: per run, signatureless share and handshake_ms
-- p50 / p90 per lagging cohort; fetches, failures, cache hits and the
-- fetch time; per CA the distribution point's requests and bytes per
-- client-day, and at population scale per million clients of this mix
-- (requests per second, GB per day); what the fetches reveal (client-days
-- with a request, and distinct (CA, landmark) pairs per such day). The
-- intervals of docs/model.md come from replications through
-- analysis of the database (paired by replication across arms).
-- Measured (--set scale=0.2 --set days=1 --replications 5 -j 2, 95 %
-- intervals; docs/model.md has the table): signatureless share of the
-- enterprise cohort 0.775 +-0.028 with updates alone, the same with the
-- retry, 0.9996 +-0.0001 with fetches; of the frozen cohort 0, 0, 0.9988.
-- Fetching costs the enterprise cohort +2.4 +-0.6 ms at p50 and +13.5
-- +-3.9 at p90 (frozen: +14 +-7, +67 +-34) against updates alone, while
-- the retry costs +20 / +86 ms (frozen +224 / +372) and buys nothing. The
-- distribution points serve 16.9 and 13.4 requests/s and 10.0 and 7.8
-- GB/day per million clients of this mix. (Measured with the frozen
-- clients at a desktop's verification speed; at a phone's, their p50
-- rises by 2-4 ms in every arm and the arms' differences move by less
-- than their intervals: docs/model.md.)
local report = require "lib.report"
local cohorts = require "lib.cohorts"
local cas = require "lib.cas"

sweep("arm", { "push", "retry", "fetch" })
local arm = param("arm", "fetch", "lagging cohorts: push (never signal), retry, fetch")
local ent = param("enterprise_share", 0.15, "share of clients in the lagging enterprise cohort")
local frozen = param("frozen_share", 0.03, "share of clients that never update")
local scale = param("scale", 1.0, "population sample (1 = the sizes below); the CAs are unchanged")
local span = param("days", 2, "measured days after the warm-up")
local issuance = param("issuance", 6e6, "the larger CA's issuance, certificates per day (the other issues a third)")
local fail = param("ldp_fail_prob", 0.01, "a fetch from a distribution point fails (assumption)")

local warm = steady_warmup{ lifetime = days(7), landmark_interval = hours(1),
                            fetch_interval = minutes(10), publication_delay = minutes(10),
                            retry_after = 600 }
mtcsim.world{ duration = warm + days(span), warmup = warm, grid_step = hours(1) }
cas.two{ issuance = issuance, ca = { ldp = 1, ldp_fail_prob = fail } }
local full_sites = 3000
mtcsim.sites{ name = "sites", count = math.max(20, math.floor(full_sites * scale)),
              represents = full_sites, ca_shares = { "le:0.57", "other:0.43" } }

local n = math.max(60, math.floor(30000 * scale))
-- Everyday habits (lib/cohorts.lua) on the platforms of lib/platform.lua.
local pop = cohorts.population(n)
local cohort, count = pop.add, pop.count
local lag = arm == "push" and "off" or arm
cohort("regular-desktop", 0.3 * (1 - ent - frozen), "desktop", {})
cohort("regular-mobile", 0.7 * (1 - ent - frozen), "mobile", {})
cohort("enterprise", ent, "desktop", { ldp = lag,
       update_apply_delay = lognormal{ median = days(2), sigma = 0.5 } })
cohort("frozen", frozen, "mobile", { never_updates = true, ldp = lag })

local names = { "regular-desktop", "regular-mobile", "enterprise", "frozen" }
local lagging = { "enterprise", "frozen" }
sim:on_finish(function(s)
  report.header(string.format("ldp-on-demand, arm %s", arm), s)
  report.handshakes(s, names)
  report.latency(s, lagging)
  local secs = span * 86400
  local total = 0
  for _, c in ipairs(names) do total = total + count[c] end
  for _, c in ipairs(lagging) do
    local f = s:metric("ldp_fetches", c) or 0
    local bad = s:metric("ldp_fetch_failed", c) or 0
    local hit = s:metric("ldp_cache_hits", c) or 0
    local back = s:metric("ldp_fallback_retries", c) or 0
    report.line("ldp, " .. c .. ": fetches / failed / cache hits / retries",
      string.format("%d / %d / %d / %d", f, bad, hit, back))
    local ms = s:metric("ldp_fetch_ms", c)
    if ms and ms.count > 0 then
      report.line("  fetch ms p50 / p90", string.format("%.1f / %.1f", ms.p50, ms.p90))
    end
    local days_rev = s:metric("ldp_reveal_client_days", c) or 0
    local pairs_rev = s:metric("ldp_reveal_pairs", c) or 0
    report.line("  share of client-days revealing a need",
      report.fmt(days_rev / (count[c] * span), "%.4f"))
    report.record(s, "ldp_reveal_client_day_share", days_rev / (count[c] * span), c)
    if days_rev > 0 then
      report.line("  (CA, landmark) pairs per revealing client-day",
        report.fmt(pairs_rev / days_rev, "%.2f"))
      report.record(s, "ldp_reveal_pairs_per_client_day", pairs_rev / days_rev, c)
    end
  end
  for _, ca in ipairs { "le", "other" } do
    local req = s:metric("ldp_requests_ca", ca) or 0
    local by = s:metric("ldp_bytes_ca", ca) or 0
    -- per million clients of this mix: requests per second, GB per day
    report.line("distribution point " .. ca .. ": per 10^6 clients",
      string.format("%.2f requests/s, %.3f GB/day", req / total / secs * 1e6,
        by / total / span * 1e6 / 1e9))
    report.record(s, "ldp_requests_per_s_per_1e6_clients_" .. ca, req / total / secs * 1e6)
    report.record(s, "ldp_gb_per_day_per_1e6_clients_" .. ca, by / total / span * 1e6 / 1e9)
  end
end)
