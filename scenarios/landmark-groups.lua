-- landmark-groups.lua - what-if study: timestamped multi-CA landmark groups.
--
-- Question: if clients advertised one timestamped group version covering
-- several CAs instead of one single-log landmark group per CA, how many
-- ClientHello bytes would that save, and what does it cost the
-- signatureless share when the update service cannot reach one member CA
-- for some hours (the partially up-to-date client)?
--
-- Design compared (swept by `grouped`): 0, the draft's default, single-log
-- landmark groups (one ID CA.2.N.L per CA); 1, the draft's alternative,
-- one group of all three CAs, version k made every hour, each version the
-- CAs' active landmarks then ([draft-tsgroups]). A client sends the newest
-- version it holds entirely (the draft's "older timestamp" choice).
-- Departures from the draft: the group's definition format and the way
-- clients learn versions (through their update service) are this
-- project's; see docs/model.md "Timestamped multi-CA landmark groups".
--
-- Assumptions: the large CA issues at `issuance` per day ([le-rate]), two
-- smaller ones at a tenth of it; hourly landmarks and 7-day certificates
-- ([draft-landmarks]); Chrome's update cadence ([chrome-updater]). CA
-- "small2" is unreachable by the update service for `outage_hours`,
-- starting 6 hours into the measured window.
--
-- No network paths (handshake latency off): its question is ClientHello
-- bytes and the signatureless share, which paths do not change; quickstart
-- and latency-mobile report milliseconds.
--
-- Reading the result: clienthello_trust_anchors_bytes is the trust_anchors
-- extension each full handshake's ClientHello carries: 6 + 9 per CA with
-- single-log groups, 6 + 1 + the version ID with the group. The
-- signatureless share per CA shows the price: with single-log groups only
-- small2's handshakes lose landmarks during its outage; with the group,
-- clients cannot advance past the last version they hold entirely, so
-- new certificates of every member CA fall back to standalone.
-- Measured (`mtcsim run scenarios/landmark-groups.lua --set scale=0.2
-- --set issuance=2e5 --seed 3 --replications 1`): 33.00 bytes (6 + 3 x 9)
-- against 14.00 (6 + 1 + a 7-byte version ID), 19 bytes less per full
-- handshake; the signatureless share was 0.9998 in both designs: sites
-- keep their previous certificate until it expires, and the stalled
-- version still covers it, so a group only costs signatureless handshakes
-- when the outage outlasts what is left of the older certificates' lives.
local report = require "lib.report"

sweep("grouped", { 0, 1 })
local grouped = param("grouped", 1, "1: one timestamped group of all CAs; 0: single-log groups")
local outage = param("outage_hours", 12, "hours small2 is unreachable by the update service (0: none)")
local scale = param("scale", 1.0, "population sample (1 = the sizes below); the CAs are unchanged")
local span = param("days", 1, "measured days after the warm-up")
local issuance = param("issuance", 6e6, "the large CA's issuance, certificates per day")

local warm = steady_warmup{ lifetime = days(7), landmark_interval = hours(1),
                            fetch_interval = minutes(10), publication_delay = minutes(10), retry_after = 600 }
mtcsim.world{ duration = warm + days(span), warmup = warm, grid_step = hours(1) }
local w1 = mtcsim.cosigner{ name = "witness1", latency = exponential{ mean = 1 } }
local big = mtcsim.ca{ name = "big", rate = per_day(issuance), cosigners = { w1 }, quorum = 1 }
local s1 = mtcsim.ca{ name = "small1", rate = per_day(issuance / 10), cosigners = { w1 }, quorum = 1 }
local s2 = mtcsim.ca{ name = "small2", rate = per_day(issuance / 10), cosigners = { w1 }, quorum = 1 }
if grouped == 1 then
  mtcsim.update_service{ name = "updates", fetch_interval = minutes(10), group_cas = { big, s1, s2 } }
else
  mtcsim.update_service{ name = "updates", fetch_interval = minutes(10) }
end
mtcsim.sites{ name = "sites", count = math.max(30, math.floor(1000 * scale)),
              ca_shares = { "big:0.6", "small1:0.2", "small2:0.2" } }
mtcsim.browsers{ name = "chrome", count = math.max(20, math.floor(5000 * scale)),
                 update_interval = hours(5), update_on_start = "always" }

if outage > 0 then
  sim:at(warm + math.min(hours(6), days(span) / 4), "ca_unreachable", s2, hours(outage))
end

sim:on_finish(function(s)
  report.header(string.format("landmark-groups, %s", grouped == 1 and "one group" or "single-log"), s)
  local ch = s:metric("clienthello_trust_anchors_bytes")
  report.line("ClientHello trust_anchors bytes (mean)",
              report.fmt(ch and ch.count > 0 and ch.sum / ch.count or nil, "%.2f"))
  for _, ca in ipairs({ "big", "small1", "small2" }) do
    local full = s:metric("handshake_full_by_ca", ca)
    local sl = s:metric("handshake_signatureless_by_ca", ca)
    report.line("signatureless share, " .. ca,
                report.fmt(full and full > 0 and sl / full or nil, "%.4f"))
    report.record(s, "signatureless_share_ca_" .. ca, full and full > 0 and sl / full or nil)
  end
  report.handshakes(s)
end)
