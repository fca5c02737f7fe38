-- mpi_web.lua - a quickstart-shaped world with a cold start (start = "empty"):
-- tests/sh_mpi_run.sh checks that sharding over ranks changes no figure;
-- a cold start keeps the test fast (no week of history), and the
-- mechanism under test does not depend on how the run starts.

local scale = param("scale", 1.0, "population sample")
local span = param("days", 2, "simulated days after the warm-up")
local li = param("landmark_interval", hours(1), "time between landmarks (s)")

local warm = hours(6) * math.min(1, span)   -- shorter for runs under a day
mtcsim.world{ duration = warm + days(span), warmup = warm, grid_step = hours(1), start = "empty" }

local mirror = mtcsim.cosigner{
  name = "mirror", role = "mirror", algorithm = "ml-dsa-44",
  latency = lognormal{ median = 2, sigma = 0.5 },
}
mtcsim.ca{
  name = "le", algorithm = "ml-dsa-44", lifetime = days(7),
  rate = per_day(1.2e5), profile = diurnal{ peak_hour = 15, ratio = 1.5 },  -- a small CA
  checkpoint_interval = 60, landmark_interval = li,
  cosigners = { mirror }, quorum = 1,
}
mtcsim.update_service{ name = "component-updater", fetch_interval = minutes(10),
                       publication_delay = minutes(10) }
mtcsim.sites{ name = "sites", count = math.max(20, math.floor(2000 * scale)),
              issue_spread = warm, renew_fraction = 0.75 }
mtcsim.browsers{
  name = "chrome", count = math.max(20, math.floor(20000 * scale)),
  sessions_per_day = 3, session_duration = lognormal{ median = hours(1), sigma = 1 },
  visits_per_hour = 20, hosts_per_visit = empirical{ values = { 1, 3, 6, 10 }, weights = { 3, 3, 3, 1 } },
  zipf_exponent = 1.2, update_first_delay = 60, update_interval = hours(5),
  ticket_lifetime = days(1),
  -- a network path: handshake_ms must not depend on the rank count either
  rtt = lognormal{ median = 60, sigma = 0.7 }, rtt_jitter = exponential{ mean = 5 },
  bandwidth = 10e6, loss_prob = 0.01,
}

sim:on_finish(function(s)
  local full, sl = s:metric("handshake_full"), s:metric("handshake_signatureless")
  printf("rep %d  full %s  signatureless %s\n", s.replication, tostring(full), tostring(sl))
end)
