-- pki_small.lua - a small PKI-only world for the host's run tests
-- (tests/sh_lua_runs.sh): one CA, two witnesses, an update service.
sweep("landmark_interval", { hours(1), hours(3) })
local li = param("landmark_interval", hours(1), "time between landmarks")
local rate = param("rate", per_day(3000).per_second, "background issuance, 1/s")
local span = param("span", hours(12), "simulated time")
replications(2)
mtcsim.world{ duration = span, grid_step = hours(1), start = "empty" }  -- a mechanism test: from the first event
local w1 = mtcsim.cosigner{ name = "w1", algorithm = "ed25519", latency = exponential{ mean = 0.5 } }
local w2 = mtcsim.cosigner{ name = "w2", algorithm = "ed25519", latency = lognormal{ median = 0.3, sigma = 0.5 } }
mtcsim.ca{ name = "ca1", algorithm = "ed25519", rate = rate, landmark_interval = li,
           cosigners = { w1, w2 }, quorum = 1 }
mtcsim.update_service{ name = "us" }
sim:at(hours(2), "cosigner_outage", w1, hours(1))
sim:on_finish(function(s)
  printf("landmark delay mean %.3f s over %d certificates\n",
         s:metric("issuance_delay_landmark").mean, s:metric("issuance_delay_landmark").count)
end)
