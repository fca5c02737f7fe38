-- cosigner-quorum.lua - what-if study: how many cosignatures to require.
--
-- Question: with three independent, occasionally failing witnesses, what
-- does requiring 1, 2 or 3 of their cosignatures cost in standalone
-- issuance delay, in checkpoints that miss their quorum, and in bytes
-- per handshake for clients that need standalone certificates?
--
-- Assumptions (facts.md = ../shared/ref/facts.md, cited by line):
--   - A standalone certificate carries the CA's cosignature plus the
--     quorum's (facts.md:49); every cosignature is ML-DSA-44, 2,420 bytes
--     (facts.md:10); witnesses check consistency and use ML-DSA-44
--     (facts.md:84-86).
--   - Availability target 99.9 % over 72 h (facts.md:51): each witness
--     fails at random with a mean time between failures of 2 days and a
--     lognormal repair time with a 1-hour median, about 98 % available -
--     deliberately worse than the target, to make quorum effects visible.
--   - Witness latency exponential, mean 1 s; checkpoints every 60 s.
--   - A frozen browser cohort (never updates) measures the standalone
--     path; a fresh cohort the landmark path. 6 million issuances per day
--     (facts.md:62-63).
--
-- Reading the result: per quorum, the standalone issuance delay p99 and
-- cosign_quorum_failures rise with the quorum; auth bytes of the frozen
-- cohort grow by one signature per extra required cosigner.
local report = require "lib.report"

sweep("quorum", { 1, 2, 3 })
local quorum = param("quorum", 2, "witness cosignatures the policy requires")
local scale = param("scale", 1.0, "population and issuance scale")
local span = param("days", 3, "simulated days")
local mtbf = param("witness_mtbf", days(2), "mean time between witness failures (s)")

mtcsim.world{ duration = days(span), warmup = hours(6) * math.min(1, span / 2) }
local ws = {}
for i = 1, 3 do
  ws[i] = mtcsim.cosigner{ name = "witness" .. i, role = "witness", algorithm = "ml-dsa-44",
                           latency = exponential{ mean = 1 }, mtbf = mtbf,
                           repair_time = lognormal{ median = hours(1), sigma = 0.8 } }
end
mtcsim.ca{ name = "ca", rate = per_day(6e6) * scale, cosigners = ws, quorum = quorum,
           quorum_timeout = minutes(5) }
mtcsim.update_service{ name = "updates" }
mtcsim.sites{ name = "sites", count = math.max(20, math.floor(1000 * scale)), issue_spread = hours(6) * math.min(1, span) }
mtcsim.browsers{ name = "fresh", count = math.max(10, math.floor(5000 * scale)), update_interval = hours(5) }
mtcsim.browsers{ name = "frozen", count = math.max(10, math.floor(5000 * scale)), never_updates = true }

sim:on_finish(function(s)
  report.header("cosigner-quorum, quorum " .. quorum, s)
  report.issuance(s)
  report.line("checkpoints that missed their quorum", report.fmt(s:metric("cosign_quorum_failures"), "%.0f"))
  local fz = s:metric("auth_bytes", "frozen")
  report.line("auth bytes, frozen cohort (standalone path)", report.fmt(fz and fz.mean, "%.0f"))
  report.handshakes(s, { "fresh", "frozen" })
end)
