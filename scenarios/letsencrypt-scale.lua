-- letsencrypt-scale.lua - capacity planning for one CA at Let's Encrypt scale.
--
-- Question: what does running MTC issuance at Let's Encrypt's volume cost
-- the CA, its mirror and the update channel: log entries and storage,
-- checkpoint and subtree signatures per hour, landmark subtree sizes,
-- relying-party state, update sizes, and the bytes a mirror and a monitor
-- must fetch per day?
--
-- Assumptions (each cited from docs/sources.md by its label):
--   - Let's Encrypt issues about 10 million certificates per day
--     (sources.md [le-rate], secondary; an earlier figure is about 6
--     million): parameter `issuance`, default 10 million per day, with a
--     mild daily profile.
--   - 7-day certificates from an ML-DSA-44 cosigner, hourly landmarks
--     ([crqp-cadence]); checkpoints every 60 s; one mirror whose
--     cosignature the policy needs ([crqp-cosign]); mirrors copy 256-entry
--     packages ([tlog-mirror]) - the mirror's bandwidth is 100 MB/s.
--   - Retention: expired entries pruned hourly (the model's default); the
--     draft's max_active_landmarks formula (169 for 7 days / 1 hour).
--   - No browsers: this is the PKI side only.
--   - The deployed system (steady warm-up: a week of history), so storage,
--     relying-party state and update sizes are at their plateau.
--
-- No network paths (handshake latency off): it simulates the PKI only (no
-- browsers); quickstart and latency-mobile report milliseconds.
--
-- Reading the result: measured (--replications 2, seed 1, 2 measured days;
-- 83 CPU s): 360 checkpoint/subtree signatures an hour, signing CPU 0.05 s
-- an hour; log storage 287.2 MB at its plateau (a lifetime of entries);
-- relying-party state 10,848 B; update publication 106 B mean, 157 B p99;
-- landmark subtrees 248,900 entries mean, 524,288 max; mirror and monitor
-- fetch about 2,050 MB a day each; issuance delay standalone p99 62.6 s,
-- landmark-relative mean 1,802 s.
local report = require "lib.report"

local scale = param("scale", 1.0, "population sample; this scenario has no population, so it changes nothing")
local issuance = param("issuance", 1e7, "the CA's issuance, certificates per day")
local span = param("days", 2, "measured days after the warm-up")

local warm = steady_warmup{ lifetime = days(7), landmark_interval = hours(1),
                            fetch_interval = minutes(10), publication_delay = minutes(10) }
mtcsim.world{ duration = warm + days(span), warmup = warm, grid_step = hours(1) }
local mirror = mtcsim.cosigner{ name = "mirror", role = "mirror", algorithm = "ml-dsa-44",
                                latency = lognormal{ median = 2, sigma = 0.5 },
                                mirror_bandwidth = 1e8 }
local ca = mtcsim.ca{ name = "le", algorithm = "ml-dsa-44", lifetime = days(7),
                      rate = per_day(issuance),
                      profile = diurnal{ peak_hour = 14, ratio = 1.4 },
                      checkpoint_interval = 60, landmark_interval = hours(1),
                      cosigners = { mirror }, quorum = 1 }
mtcsim.update_service{ name = "updates", fetch_interval = minutes(10) }

sim:on_finish(function(s)
  report.header("letsencrypt-scale", s)
  report.pki(s, span)
  report.issuance(s)
  local h = s:metric("landmark_subtree_size")
  if h and h.count > 0 then
    report.line("landmark subtree size mean/max (entries)", report.fmt(h.mean, "%.0f") .. " / " .. report.fmt(h.max, "%.0f"))
  end
  -- measured CPU time, not a result of the model (it differs between
  -- processes): printed, not recorded (sign_cpu_us is stored)
  local cpu = s:metric("sign_cpu_us")
  if cpu then report.line("signing CPU per hour (s, measured)", report.fmt(cpu / 1e6 / (span * 24), "%.2f")) end
  local mf, mo = s:metric("mirror_fetch_bytes"), s:metric("monitor_fetch_bytes")
  if mf then report.line("mirror fetch per day (MB)", report.fmt(mf / 1e6 / span, "%.1f")) end
  if mo then report.line("monitor fetch per day (MB)", report.fmt(mo / 1e6 / span, "%.1f")) end
  report.record(s, "mirror_fetch_mb_per_day", mf and mf / 1e6 / span)
  report.record(s, "monitor_fetch_mb_per_day", mo and mo / 1e6 / span)
  local mal = ca:get("max_active_landmarks") == 0
    and mtcsim.core.max_active_landmarks(days(7), hours(1)) or ca:get("max_active_landmarks")
  report.line("CA max_active_landmarks (draft formula)", tostring(mal))
  report.record(s, "max_active_landmarks", mal)
end)
