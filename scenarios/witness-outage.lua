-- witness-outage.lua - what-if study: a scheduled witness outage.
--
-- Question: when one of two witnesses that a CA's policy both requires
-- goes down for some hours, how much does standalone issuance stall, do
-- checkpoints miss their quorum, and does anything change for clients
-- that already hold landmarks?
--
-- Assumptions (each cited from docs/sources.md by its label):
--   - Policy "CA + 2 of 2 witnesses"; witnesses verify consistency and use
--     ML-DSA-44 ([tlog-witness]); a standalone certificate needs at least
--     two cosignatures ([crqp-cosign]).
--   - The outage starts half-way through the measured window, at most
--     1 day 10 hours in (1 day in at the default 2 days), and lasts
--     `outage_hours` (swept: 0 for the baseline, 2 h, 8 h); "no
--     unplanned issuance outage over 24 h" in Chrome's draft policy
--     ([crqp-availability]) bounds the range.
--   - The CA signs 6 million certificates per day whatever the population
--     sample ([le-rate]); Chrome update cadence ([chrome-updater]).
--   - The deployed system (steady warm-up): sites renew throughout the
--     window, so some request certificates during the outage.
--
-- No network paths (handshake latency off): its question is issuance and
-- the signatureless share during an outage, which paths do not change;
-- quickstart and latency-mobile report milliseconds.
--
-- Reading the result: compare the points. Measured (--set scale=0.05
-- --replications 3, seed 1, 2 measured days; 312 CPU s), outage 0 / 2 /
-- 8 h: standalone issuance delay p99 62.4 / 5,525 / 27,091 s (+5,463 and
-- +27,029 s: entries queue until the witness is back); landmark-relative
-- delay mean 1,801 / 2,008 / 4,482 s (+206 and +2,680 s); one checkpoint
-- misses its quorum, stalled 7,202 / 28,802 s (cosign_quorum_stall);
-- signatureless fraction 0.99998 +-0.00007 at every point, unchanged.
local report = require "lib.report"

sweep("outage_hours", { 0, 2, 8 })
local outage = param("outage_hours", 2, "length of witness1's outage (hours; 0: none)")
local scale = param("scale", 1.0, "population sample (1 = the sizes below); the CA is unchanged")
local span = param("days", 2, "measured days after the warm-up")
local issuance = param("issuance", 6e6, "the CA's issuance, certificates per day")

local warm = steady_warmup{ lifetime = days(7), landmark_interval = hours(1),
                            fetch_interval = minutes(10), publication_delay = minutes(10), retry_after = 600 }
mtcsim.world{ duration = warm + days(span), warmup = warm, grid_step = hours(1) }
local w1 = mtcsim.cosigner{ name = "witness1", latency = exponential{ mean = 1 } }
local w2 = mtcsim.cosigner{ name = "witness2", latency = exponential{ mean = 1 } }
mtcsim.ca{ name = "ca", rate = per_day(issuance), cosigners = { w1, w2 }, quorum = 2 }
mtcsim.update_service{ name = "updates", fetch_interval = minutes(10) }
mtcsim.sites{ name = "sites", count = math.max(20, math.floor(1000 * scale)) }
mtcsim.browsers{ name = "chrome", count = math.max(20, math.floor(10000 * scale)), update_interval = hours(5), update_on_start = "always" }

if outage > 0 then
  sim:at(warm + math.min(days(1) + hours(10), days(span) / 2), "cosigner_outage", w1, hours(outage))
end

sim:on_finish(function(s)
  report.header(string.format("witness-outage, %g h", outage), s)
  report.issuance(s)
  report.line("checkpoints that missed their quorum", report.fmt(s:metric("cosign_quorum_failures"), "%.0f"))
  report.handshakes(s)
end)
