-- mpi_bulk.lua - a small cold-start world whose update service ships bulk
-- subtree consistency proofs (include_proofs, proofs = "bulk"):
-- tests/sh_mpi_bulk.sh checks that sharding over ranks changes no figure,
-- update bytes included.

local scale = param("scale", 1.0, "population sample")
local span = param("days", 1, "simulated days after the warm-up")
local proofs = param("proofs", "bulk", "update proofs: per_subtree or bulk")

local warm = hours(6) * math.min(1, span)
mtcsim.world{ duration = warm + days(span), warmup = warm, grid_step = hours(1), start = "empty" }
local mirror = mtcsim.cosigner{ name = "mirror", role = "mirror", algorithm = "ed25519" }
mtcsim.ca{ name = "ca", algorithm = "ed25519", lifetime = days(1), rate = per_day(2e4),
           checkpoint_interval = 60, landmark_interval = minutes(15),
           cosigners = { mirror }, quorum = 1 }
mtcsim.update_service{ name = "updates", fetch_interval = hours(1), publication_delay = minutes(10),
                       include_proofs = true, proofs = proofs }
mtcsim.sites{ name = "sites", count = math.max(20, math.floor(2000 * scale)),
              issue_spread = warm, renew_fraction = 0.75 }
mtcsim.browsers{
  name = "clients", count = math.max(20, math.floor(20000 * scale)),
  sessions_per_day = 3, session_duration = lognormal{ median = hours(1), sigma = 1 },
  zipf_exponent = 1.2, update_first_delay = 60, update_interval = hours(5),
}

sim:on_finish(function(s)
  printf("rep %d  update_bytes %s  update_fetch %s\n", s.replication,
         tostring(s:metric("update_bytes")), tostring(s:metric("update_fetch")))
end)
