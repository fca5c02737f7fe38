-- cert-lifetime.lua - what-if study: certificate lifetime.
--
-- Question: how do the CA/Browser Forum's shrinking maximum lifetimes
-- (200, 100, 47 days) compare with 7-day MTCs for the relying party's
-- landmark state, the update channel, the issuance volume and the
-- signatureless fraction?
--
-- Assumptions (each cited from docs/sources.md by its label):
--   - Ballot SC-081: 200 days from 2026-03-15, 100 days from 2027-03-15,
--     47 days from 2029-03-15 (sources.md [sc-081]); 7-day certificates
--     with hourly landmarks, 47-day ones with landmarks about every 4 hours
--     ([crqp-cadence]). 100- and 200-day schedules use 8-hour and 16-hour
--     landmarks (an assumption: about the same number of active landmarks).
--   - max_active_landmarks by the draft's formula
--     ceil(lifetime / interval) + 1.
--   - Renewal at 75 % of lifetime ([draft-renewal]). The CA serves the same
--     sites whatever the lifetime, so its issuance scales with 1/lifetime:
--     6 million per day at 7 days ([le-rate]), 6e6 x 7 / L per day at L days.
--   - Chrome update cadence ([chrome-updater]).
--   - The deployed system: each schedule's warm-up is its own steady
--     history (a whole lifetime plus one landmark interval and the update
--     cycle), so the relying-party state is each schedule's plateau. The
--     browser sample is small (2,000) because the 200-day schedule
--     simulates 200 days of history.
--
-- No network paths (handshake latency off): its question is issuance, log
-- and relying-party sizes under lifetimes, not handshake time; quickstart
-- and latency-mobile report milliseconds.
--
-- Reading the result: per schedule, rp_state_bytes (landmark subtree
-- hashes a client holds), update publication size and update bytes per
-- fetch, issuance per day, and the signatureless fraction. Measured
-- (--set scale=0.05 --replications 2, seed 1, 3 measured days, one
-- schedule per run with --set schedule=...): 7 d: RP state 10,848 B,
-- publication 105 B, signatureless 1.000 (65 CPU s); 47 d: RP state
-- 18,144 B, publication 74 B, signatureless 1.000 (158 CPU s). Both are
-- the draft's plateau, (ceil(L / I) + 1) x 2 x 32 + 32 B. The 100 d and
-- 200 d points were not run for the figures (a longer history); by the
-- same formula both hold 301 landmarks, 19,296 B.
local report = require "lib.report"

local schedules = {
  ["7d"] = { life = days(7), li = hours(1) },
  ["47d"] = { life = days(47), li = hours(4) },
  ["100d"] = { life = days(100), li = hours(8) },
  ["200d"] = { life = days(200), li = hours(16) },
}
sweep("schedule", { "7d", "47d", "100d", "200d" })
local sched = param("schedule", "7d", "lifetime schedule: 7d, 47d, 100d or 200d")
local scale = param("scale", 1.0, "population sample (1 = the sizes below); the CA is unchanged")
local span = param("days", 3, "measured days after the warm-up")
local issuance = param("issuance", 6e6, "the CA's issuance per day at 7-day lifetimes")
local sc = schedules[sched]
if not sc then error("schedule must be one of 7d, 47d, 100d, 200d (got " .. sched .. ")") end

local warm = steady_warmup{ lifetime = sc.life, landmark_interval = sc.li,
                            fetch_interval = minutes(10), publication_delay = minutes(10), retry_after = 600 }
mtcsim.world{ duration = warm + days(span), warmup = warm, grid_step = hours(1) }
local mirror = mtcsim.cosigner{ name = "mirror", role = "mirror" }
mtcsim.ca{ name = "ca", lifetime = sc.life, landmark_interval = sc.li,
           rate = per_day(issuance * days(7) / sc.life),
           cosigners = { mirror }, quorum = 1 }
mtcsim.update_service{ name = "updates", fetch_interval = minutes(10) }
mtcsim.sites{ name = "sites", count = math.max(20, math.floor(1000 * scale)) }
mtcsim.browsers{ name = "chrome", count = math.max(20, math.floor(2000 * scale)), update_interval = hours(5), update_on_start = "always" }

sim:on_finish(function(s)
  report.header("cert-lifetime, schedule " .. sched, s)
  report.line("max_active_landmarks (draft formula)",
    tostring(mtcsim.core.max_active_landmarks(sc.life, sc.li)))
  report.record(s, "max_active_landmarks", mtcsim.core.max_active_landmarks(sc.life, sc.li))
  report.pki(s, span)
  report.handshakes(s)
end)
