-- cosigner-quorum.lua - what-if study: how many cosignatures to require.
--
-- Question: with three independent, occasionally failing witnesses, what
-- does requiring 1, 2 or 3 of their cosignatures cost in standalone
-- issuance delay, in checkpoints that miss their quorum, and in bytes
-- per handshake for clients that need standalone certificates?
--
-- Assumptions (each cited from docs/sources.md by its label):
--   - A standalone certificate carries the CA's cosignature plus the
--     quorum's ([crqp-cosign]); every cosignature is ML-DSA-44, 2,420 bytes
--     ([sizes-sig]); witnesses check consistency and use ML-DSA-44
--     ([tlog-witness]).
--   - Availability target 99.9 % over 72 h ([crqp-availability]): each
--     witness fails at random with a mean time between failures of 2 days
--     and a lognormal repair time with a 1-hour median, about 98 %
--     available - deliberately worse than the target, to make quorum
--     effects visible.
--   - Witness latency exponential, mean 1 s; checkpoints every 60 s.
--   - A frozen browser cohort (never updates) measures the standalone
--     path; a fresh cohort the landmark path. The CA signs 6 million
--     certificates per day whatever the population sample ([le-rate]).
--   - The deployed system (steady warm-up: a lifetime of history), so
--     sites renew throughout the window and meet the witnesses' failures.
--
-- No network paths (handshake latency off): its question is issuance delay
-- and standalone bytes when witnesses fail, not handshake time; quickstart
-- and latency-mobile report milliseconds.
--
-- Reading the result: per quorum. Measured (--set scale=0.05
-- --replications 3, seed 1, 3 measured days; 409 CPU s), quorum 1 / 2 /
-- 3: standalone issuance delay p99 62 / 1,905 / 10,114 s (wide intervals:
-- +-7,900 and +-39,000 s, the witnesses' failures are few per run);
-- checkpoints that missed their quorum 0 / 1 / 3.7; auth bytes of the
-- frozen cohort 5,601 / 8,030 / 10,467 B (one 2,420-byte ML-DSA-44
-- signature per extra cosigner). The overall signatureless fraction,
-- 0.498 +-0.031, is the cohorts' mix, not a quorum effect: half the
-- clients are the frozen cohort (never signatureless, by design), the
-- fresh half is signatureless in 1.000. At quorum 2 MSER-5 flags
-- log_storage_bytes (truncation 35 h; not investigated).
local report = require "lib.report"

sweep("quorum", { 1, 2, 3 })
local quorum = param("quorum", 2, "witness cosignatures the policy requires")
local scale = param("scale", 1.0, "population sample (1 = the sizes below); the CA is unchanged")
local span = param("days", 3, "measured days after the warm-up")
local issuance = param("issuance", 6e6, "the CA's issuance, certificates per day")
local mtbf = param("witness_mtbf", days(2), "mean time between witness failures (s)")

local warm = steady_warmup{ lifetime = days(7), landmark_interval = hours(1),
                            fetch_interval = minutes(10), publication_delay = minutes(10), retry_after = 600 }
mtcsim.world{ duration = warm + days(span), warmup = warm, grid_step = hours(1) }
local ws = {}
for i = 1, 3 do
  ws[i] = mtcsim.cosigner{ name = "witness" .. i, role = "witness", algorithm = "ml-dsa-44",
                           latency = exponential{ mean = 1 }, mtbf = mtbf,
                           repair_time = lognormal{ median = hours(1), sigma = 0.8 } }
end
mtcsim.ca{ name = "ca", rate = per_day(issuance), cosigners = ws, quorum = quorum,
           quorum_timeout = minutes(5) }
mtcsim.update_service{ name = "updates", fetch_interval = minutes(10) }
mtcsim.sites{ name = "sites", count = math.max(20, math.floor(1000 * scale)) }
mtcsim.browsers{ name = "fresh", count = math.max(10, math.floor(5000 * scale)), update_interval = hours(5),
                 update_on_start = "always" }
mtcsim.browsers{ name = "frozen", count = math.max(10, math.floor(5000 * scale)), never_updates = true }

sim:on_finish(function(s)
  report.header("cosigner-quorum, quorum " .. quorum, s)
  report.issuance(s)
  report.line("checkpoints that missed their quorum", report.fmt(s:metric("cosign_quorum_failures"), "%.0f"))
  local fz = s:metric("auth_bytes", "frozen")
  report.line("auth bytes, frozen cohort (standalone path)", report.fmt(fz and fz.mean, "%.0f"))
  report.handshakes(s, { "fresh", "frozen" })
end)
