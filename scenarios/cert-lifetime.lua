-- cert-lifetime.lua - what-if study: certificate lifetime.
--
-- Question: how do the CA/Browser Forum's shrinking maximum lifetimes
-- (200, 100, 47 days) compare with 7-day MTCs for the relying party's
-- landmark state, the update channel, the issuance volume and the
-- signatureless fraction?
--
-- Assumptions (facts.md = ../shared/ref/facts.md, cited by line):
--   - Ballot SC-081: 200 days from 2026-03-15, 100 days from 2027-03-15,
--     47 days from 2029-03-15 (facts.md:69-70); 7-day certificates with
--     hourly landmarks, 47-day ones with landmarks about every 4 hours
--     (facts.md:46-48). 100- and 200-day schedules use 8-hour and 16-hour
--     landmarks (assumption: about the same number of active landmarks).
--   - max_active_landmarks by the draft's formula
--     ceil(lifetime / interval) + 1.
--   - Renewal at 75 % of lifetime (facts.md:71); shorter lifetimes mean
--     more renewals for the same sites: the background rate scales with
--     1/lifetime from 6 million per day at 7 days (facts.md:62-63, 57-61).
--   - Chrome update cadence (facts.md:33-34).
--
-- Reading the result: per schedule, rp_state_bytes (landmark subtree
-- hashes a client holds), update publication size and update bytes per
-- fetch, issuance per day, and the signatureless fraction.
local report = require "lib.report"

local schedules = {
  ["7d"] = { life = days(7), li = hours(1) },
  ["47d"] = { life = days(47), li = hours(4) },
  ["100d"] = { life = days(100), li = hours(8) },
  ["200d"] = { life = days(200), li = hours(16) },
}
sweep("schedule", { "7d", "47d", "100d", "200d" })
local sched = param("schedule", "7d", "lifetime schedule: 7d, 47d, 100d or 200d")
local scale = param("scale", 1.0, "population and issuance scale")
local span = param("days", 3, "simulated days")
local sc = schedules[sched]
if not sc then error("schedule must be one of 7d, 47d, 100d, 200d (got " .. sched .. ")") end

local warm = hours(12) * math.min(1, span / 2)   -- shorter for short runs
mtcsim.world{ duration = days(span), warmup = warm }
local mirror = mtcsim.cosigner{ name = "mirror", role = "mirror" }
mtcsim.ca{ name = "ca", lifetime = sc.life, landmark_interval = sc.li,
           rate = per_day(6e6 * days(7) / sc.life) * scale,
           cosigners = { mirror }, quorum = 1 }
mtcsim.update_service{ name = "updates" }
mtcsim.sites{ name = "sites", count = math.max(20, math.floor(1000 * scale)), issue_spread = warm }
mtcsim.browsers{ name = "chrome", count = math.max(20, math.floor(10000 * scale)), update_interval = hours(5) }

sim:on_finish(function(s)
  report.header("cert-lifetime, schedule " .. sched, s)
  report.line("max_active_landmarks (draft formula)",
    tostring(mtcsim.core.max_active_landmarks(sc.life, sc.li)))
  report.pki(s, span)
  report.handshakes(s)
end)
