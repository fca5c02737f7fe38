-- mpi_scaling.lua - the workload of `make bench-mpi` (sim/bench/mpi_scaling.sh).
--
-- One CA at a tenth of Let's Encrypt's rate, a mirror, the update service,
-- 2,000 sites and a browser population whose size is the parameter
-- `clients`: the PKI part is replayed by every rank, the browsers are
-- split between ranks. Running it with clients = 0-ish and with many
-- clients separates the per-rank fixed cost (PKI replay) from the
-- per-client cost, which is what a cluster estimate needs.
local clients = param("clients", 200000, "browsers in the population")
local span = param("days", 1, "simulated days")

-- a throughput benchmark: the cold start keeps its figures comparable
mtcsim.world{ duration = days(span), warmup = 0, grid_step = hours(1), start = "empty" }
local mirror = mtcsim.cosigner{ name = "mirror", role = "mirror", algorithm = "ml-dsa-44",
                                latency = lognormal{ median = 2, sigma = 0.5 } }
mtcsim.ca{ name = "ca", algorithm = "ml-dsa-44", lifetime = days(7),
           rate = per_day(6e5), checkpoint_interval = 60, landmark_interval = hours(1),
           cosigners = { mirror }, quorum = 1 }
mtcsim.update_service{ name = "updater", fetch_interval = minutes(10),
                       publication_delay = minutes(10) }
mtcsim.sites{ name = "sites", count = 2000, issue_spread = hours(1), renew_fraction = 0.75 }
mtcsim.browsers{
  name = "browsers", count = math.max(1, math.floor(clients)),
  sessions_per_day = 3, session_duration = lognormal{ median = hours(1), sigma = 1 },
  visits_per_hour = 20, zipf_exponent = 1.2, update_first_delay = 60,
  update_interval = hours(5), ticket_lifetime = days(1),
}
