-- mpi_sweep.lua - a landmark-interval sweep with a cold start: tests/sh_mpi_run.sh
-- checks that --spread-runs records the same runs as a single process.

sweep("landmark_interval", { minutes(15), hours(1), hours(4) })
local li = param("landmark_interval", hours(1), "time between landmarks (s)")
local scale = param("scale", 1.0, "population sample")
local span = param("days", 2, "simulated days after the warm-up")
replications(3)

local warm = hours(12) * math.min(1, span)   -- shorter for runs under a day
mtcsim.world{ duration = warm + days(span), warmup = warm, start = "empty" }
local mirror = mtcsim.cosigner{ name = "mirror", role = "mirror", latency = lognormal{ median = 2, sigma = 0.5 } }
mtcsim.ca{ name = "ca", rate = per_day(3e4), lifetime = days(7),  -- a small CA, whatever the sample
           landmark_interval = li, cosigners = { mirror }, quorum = 1 }
mtcsim.update_service{ name = "updates", fetch_interval = minutes(10) }
mtcsim.sites{ name = "sites", count = math.max(20, math.floor(2000 * scale)), issue_spread = warm }
mtcsim.browsers{ name = "chrome", count = math.max(20, math.floor(20000 * scale)),
                 update_interval = hours(5), zipf_exponent = 1.2, ticket_lifetime = days(1) }

sim:on_finish(function(s)
  local full, sl = s:metric("handshake_full"), s:metric("handshake_signatureless")
  printf("rep %d  full %s  signatureless %s\n", s.replication, tostring(full), tostring(sl))
end)
