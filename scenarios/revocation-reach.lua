-- revocation-reach.lua - how long is a mis-issued certificate usable, and
-- by whom?
--
-- Question: a CA (or a browser vendor) learns that certificates it issued
-- are mis-issued and revokes their entries by index range, which relying
-- parties learn through their update channel (the MTC draft's revoked
-- ranges [draft-revoked-ranges]). Until a client installs an update
-- carrying the range it still accepts those certificates. For the cohorts of
-- chrome-adoption - regular installs, enterprise installs that hold
-- updates back for days, clients away for days, clients that never update
-- - how long after the revocation does each cohort enforce it (time for
-- 50 / 90 / 99 % of its clients), how many never do within the
-- certificate's lifetime, and how many handshakes accept a revoked
-- certificate meanwhile?
--
-- Design (docs/model.md "Revocation reach"): `victims` sites of the larger
-- CA, drawing together `victim_share` of every cohort's connections, have
-- their certificates revoked `revoke_after` (5 h 55 min) into the measured
-- window (the deployed system in steady state: a week of history before
-- it). The holder of a mis-issued certificate goes on presenting it on
-- every connection to those names until it expires (revoked_serving =
-- "keep": an attacker answering all of them, the upper bound on its
-- reach; the clients' enforcement times do not depend on it). The window
-- runs a whole certificate lifetime (7 days) past the revocation, so that
-- no client that enforces before the certificate can expire is censored;
-- a client that has not enforced by then accepted it for its whole
-- remaining life.
--
-- Assumptions: the world of chrome-adoption (its header cites each): two
-- CAs (57 % / 43 % of sites [le-share], 6 million [le-rate] and 2 million
-- certificates a day, 7-day certificates and hourly landmarks
-- [crqp-cadence], one mirror each), Chrome's updater checking a minute
-- after each browser start and every 5 hours [chrome-updater], 1 % of
-- checks failing, enterprise installs applying each update after a
-- lognormal delay of median 2 days (assumption within [enterprise-lag]),
-- 3 sessions a day, 2 % of session ends starting a Pareto absence of 1
-- day or more (shape 1.5), 3 % frozen clients (assumptions), Zipf 1.2
-- site popularity [zipf-sites]; no network paths (the question is time
-- and counts, not milliseconds). The update service publishes 10 minutes
-- after a fetch every 10 minutes, so a revocation waits 10-20 minutes for
-- its publication. A client enforces from the install, not the fetch.
--
-- Reading the result: per run and cohort, the share of clients enforcing
-- within the window; the time by which 50 / 90 / 99 % of the cohort's
-- clients enforce, in hours from the revocation, over all its clients (a
-- quantile beyond the share enforced is "not by the window's end" and is
-- recorded as the window's length, a lower bound); the share enforcing
-- within 1 day (a regular client checks at every browser start, so one
-- not enforcing within a day had no start for a day: away, or a long
-- gap between sessions); full handshakes that presented a revoked
-- certificate, the share the clients accepted, and accepted ones per 1,000
-- clients of the cohort (linear in victim_share). The summary table gives
-- each recorded figure's mean and 95 % interval over the replications.
-- Measured (defaults: 6,000 clients, the CAs at full rate; --replications
-- 5, seed 1; 107 s of CPU, 5.5 min of wall time on the shared machine;
-- mean +-95 % half-width, shares with their Wilson interval): hours until
-- 50 % / 90 % of a cohort's clients enforce: regular desktop 5.20 +-0.13
-- / 26.5 +-1.9, regular mobile 5.02 +-0.13 / 26.3 +-0.9, enterprise 58.1
-- +-1.5 / 114 +-7; 99 % of no cohort within the window. Not enforced
-- within the certificate's 7-day life: regular 1.5 % [1.2, 1.8] and 1.3
-- % [1.2, 1.5], enterprise 3.1 % [2.3, 4.2], frozen all. Within 1 day:
-- regular 0.876 / 0.881, enterprise 0.032. Accepted handshakes per 1,000
-- clients over the week (victim_share 1 %): regular 265 +-14 / 268 +-12,
-- enterprise 8,804 +-415, frozen 16,396 +-1,590; of all 12,188 +-564
-- accepted, 65 % +-1 were enterprise clients', 24 % +-1.5 frozen ones',
-- 11 % +-1 regular ones'. The regular tail is the absent: a regular
-- client checks at every browser start, and 12 % are away or between
-- sessions for over a day. Its share not enforcing within the week is a
-- lower bound: a run gives each client about 11 days of absence history,
-- and the absence law's tail is heavy (docs/model.md "Revocation reach":
-- 1.3-1.5 % here, 1.6-2.3 % with --set extra_history=30, 3.3 % in the
-- stationary closed form).
local report = require "lib.report"
local cohorts = require "lib.cohorts"
local cas = require "lib.cas"

local ent = param("enterprise_share", 0.15, "share of clients in the lagging enterprise cohort")
local frozen = param("frozen_share", 0.03, "share of clients that never update")
local scale = param("scale", 1.0, "population sample (1 = 6,000 clients, 600 sites); the CAs are unchanged")
local span = param("days", 7.25, "measured days after the warm-up (the revocation, then a certificate lifetime)")
-- 5 h 55 min: the update service fetches every 10 minutes from the start,
-- so the revocation waits 5 minutes for its fetch, the mean over phases;
-- the window then runs 7 days and 5 minutes past it
local revoke_after = param("revoke_after", math.min(hours(6) - minutes(5), days(span) / 4),
  "time from the start of the measured window to the revocation (s; default 5 h 55 min, or a quarter of a shorter window)")
local issuance = param("issuance", 6e6, "the larger CA's issuance, certificates per day (the other issues a third)")
local victims = param("victims", 10, "sites whose certificates are revoked together (the larger CA's)")
local victim_share = param("victim_share", 0.01, "share of every cohort's connections that reach those names")
local serving = param("revoked_serving", "keep", "keep: the revoked certificates stay in use until they expire; replace: replaced at once")

local extra = param("extra_history", 0,
  "days of history added before the window: clients' absences reach further back (the absence law's heavy tail, docs/model.md \"Revocation reach\")")
local warm = days(extra) + steady_warmup{ lifetime = days(7), landmark_interval = hours(1),
                                          fetch_interval = minutes(10), publication_delay = minutes(10),
                                          retry_after = 600 }
local revoke_at = warm + revoke_after
local window = warm + days(span) - revoke_at -- from the revocation to the end
if window <= 0 then error("revocation-reach: revoke_after must fall inside the measured days", 0) end
mtcsim.world{ duration = warm + days(span), warmup = warm, grid_step = hours(1) }
cas.two{ issuance = issuance }
-- The full-size world: 600 sampled sites standing in for 3,000 popularity
-- ranks, and the victims' names, which draw victim_share of all
-- connections whatever the sample.
local nsites = math.max(20, math.floor(600 * scale))
mtcsim.sites{ name = "sites", count = nsites, represents = math.max(nsites, 3000),
              ca_shares = { "le:0.57", "other:0.43" }, traffic_share = 1 - victim_share }
mtcsim.sites{ name = "victims", count = victims, ca_shares = { "le:1" }, traffic_share = victim_share,
              dns_suffix = "victim.example", revoke_at = revoke_at, revoke_fraction = 1,
              revoked_serving = serving }

local n = math.max(60, math.floor(6000 * scale))
-- Everyday habits (lib/cohorts.lua); no platform: every cohort on the
-- browser model's default path.
local pop = cohorts.population(n)
local count = pop.count
pop.add("regular-desktop", 0.3 * (1 - ent - frozen))
pop.add("regular-mobile", 0.7 * (1 - ent - frozen))
pop.add("enterprise", ent, nil, { update_apply_delay = lognormal{ median = days(2), sigma = 0.5 } })
pop.add("frozen", frozen, nil, { never_updates = true })
local names = { "regular-desktop", "regular-mobile", "enterprise", "frozen" }

-- The q-quantile of the time to enforce over all (client, revocation)
-- pairs of cohort c: the histogram holds the enforced ones, the gauge the
-- rest (beyond the window), so it is the histogram's quantile at q * all /
-- enforced when that is <= 1; nil (not reached) otherwise.
local function enforce_quantile(s, c, q)
  local h = s:metric("revocation_enforce_time", c)
  local un = s:metric("revocations_unenforced", c) or 0
  local all = (h and h.count or 0) + un
  if all == 0 or not h or h.count == 0 then return nil end
  local r = q * all / h.count
  if r > 1 then return nil end
  return s:quantile("revocation_enforce_time", r, c)
end

-- The share of all pairs enforced within x seconds: the inverse of the
-- quantile above, by bisection (to the histogram's bin resolution).
local function enforced_within(s, c, x)
  local h = s:metric("revocation_enforce_time", c)
  local un = s:metric("revocations_unenforced", c) or 0
  if not h or h.count == 0 then return 0 end
  local all = h.count + un
  if h.max <= x then return h.count / all end
  if h.min > x then return 0 end
  local lo, hi = 0, 1
  for _ = 1, 40 do
    local mid = (lo + hi) / 2
    if s:quantile("revocation_enforce_time", mid, c) <= x then lo = mid else hi = mid end
  end
  return lo * h.count / all
end

sim:on_finish(function(s)
  report.header(string.format("revocation-reach, %d names revoked %.2f h into the window, %.2f days observed after",
    victims, revoke_after / 3600, window / 86400), s)
  local pairs_per_client = nil
  for _, c in ipairs(names) do
    local h = s:metric("revocation_enforce_time", c)
    local un = s:metric("revocations_unenforced", c) or 0
    local all = (h and h.count or 0) + un
    if all > 0 then pairs_per_client = all / count[c] end
    local enforced = all > 0 and (h and h.count or 0) / all or nil
    report.line(c .. ": clients / enforced by the end", string.format("%d / %s", count[c], report.fmt(enforced, "%.4f")))
    local slug = c:gsub("-", "_")
    report.record(s, "revocation_" .. slug .. "_enforced_share", enforced)
    local qs = {}
    for _, q in ipairs { 0.5, 0.9, 0.99 } do
      local v = enforce_quantile(s, c, q)
      local tag = string.format("p%02d", math.floor(q * 100 + 0.5))
      qs[#qs + 1] = v and string.format("%.2f", v / 3600) or string.format("> %.0f", window / 3600)
      -- a quantile not reached is recorded as the window's length: a lower bound
      report.record(s, "revocation_" .. slug .. "_enforce_" .. tag .. "_hours", (v or window) / 3600)
    end
    report.line("  hours to enforce for 50 / 90 / 99 %", table.concat(qs, " / "))
    local day = all > 0 and enforced_within(s, c, 86400) or nil
    report.line("  enforced within 1 day", report.fmt(day, "%.4f"))
    report.record(s, "revocation_" .. slug .. "_enforced_1d_share", day)
    local pr = s:metric("revoked_presented_by_cohort", c) or 0
    local ac = s:metric("revoked_accepted_by_cohort", c) or 0
    report.line("  handshakes presenting a revoked certificate / accepted",
      string.format("%d / %d (%s)", pr, ac, report.fmt(pr > 0 and ac / pr or nil, "%.4f")))
    report.line("  accepted per 1,000 clients", report.fmt(1000 * ac / count[c], "%.1f"))
    report.record(s, "revocation_" .. slug .. "_accepted_share", pr > 0 and ac / pr or nil)
    report.record(s, "revocation_" .. slug .. "_accepted_per_1000_clients", 1000 * ac / count[c])
  end
  report.line("revocations (entries) per client", report.fmt(pairs_per_client, "%.0f"))
  local pub = s:metric("revocation_publication_delay", "le")
  if pub and pub.count > 0 then
    report.line("revocation to first publication, s (mean)", report.fmt(pub.mean, "%.0f"))
  end
end)
