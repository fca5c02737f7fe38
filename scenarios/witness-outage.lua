-- witness-outage.lua - what-if study: a scheduled witness outage.
--
-- Question: when one of two witnesses that a CA's policy both requires
-- goes down for some hours, how much does standalone issuance stall, do
-- checkpoints miss their quorum, and does anything change for clients
-- that already hold landmarks?
--
-- Assumptions (facts.md = ../shared/ref/facts.md, cited by line):
--   - Policy "CA + 2 of 2 witnesses"; witnesses verify consistency and use
--     ML-DSA-44 (facts.md:84-86); a standalone certificate needs at least
--     two cosignatures (facts.md:49).
--   - The outage starts at day 1, 10:00, and lasts `outage_hours`
--     (swept: 0 for the baseline, 2 h, 8 h); "no unplanned issuance outage
--     over 24 h" in Chrome's draft policy (facts.md:52) bounds the range.
--   - 6 million issuances per day (facts.md:62-63); Chrome update cadence
--     (facts.md:33-34).
--
-- Reading the result: compare the points. The standalone delay p99 should
-- grow by about the outage length (entries queue until the witness is
-- back), and cosign_quorum_failures counts checkpoints that waited longer
-- than the quorum timeout. Landmark-relative delay and the signatureless
-- fraction should barely move: landmarks are allocated from checkpoints
-- once they have their quorum.
local report = require "lib.report"

sweep("outage_hours", { 0, 2, 8 })
local outage = param("outage_hours", 2, "length of witness1's outage (hours; 0: none)")
local scale = param("scale", 1.0, "population and issuance scale")
local span = param("days", 2, "simulated days")

mtcsim.world{ duration = days(span), warmup = hours(6) * math.min(1, span / 2) }
local w1 = mtcsim.cosigner{ name = "witness1", latency = exponential{ mean = 1 } }
local w2 = mtcsim.cosigner{ name = "witness2", latency = exponential{ mean = 1 } }
mtcsim.ca{ name = "ca", rate = per_day(6e6) * scale, cosigners = { w1, w2 }, quorum = 2 }
mtcsim.update_service{ name = "updates" }
mtcsim.sites{ name = "sites", count = math.max(20, math.floor(1000 * scale)), issue_spread = hours(6) * math.min(1, span) }
mtcsim.browsers{ name = "chrome", count = math.max(20, math.floor(10000 * scale)), update_interval = hours(5) }

if outage > 0 then
  sim:at(math.min(days(1) + hours(10), days(span) / 2), "cosigner_outage", w1, hours(outage))
end

sim:on_finish(function(s)
  report.header(string.format("witness-outage, %g h", outage), s)
  report.issuance(s)
  report.line("checkpoints that missed their quorum", report.fmt(s:metric("cosign_quorum_failures"), "%.0f"))
  report.handshakes(s)
end)
