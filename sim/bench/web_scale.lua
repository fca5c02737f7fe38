-- web_scale.lua - the workload of `make bench-scale` (sim/bench/web_scale.sh):
-- the scale goal of the web side, measured through the whole product
-- (Lua scenario, the real PKI world, SQLite results).
--
-- One CA at Let's Encrypt's rate (6 million a day, docs/sources.md), a mirror, the
-- update service, 10,000 sites and `clients` browsers (default 10^6) that
-- browse, resume and update as in quickstart.lua (one host per visit: every
-- handshake is an engine event of its own, the costly case). The run is as
-- long as `days`, with no warm-up excluded, so every simulated second is
-- paid for.
local clients = param("clients", 1000000, "browsers in the population")
local span = param("days", 1, "simulated days")
local hosts = param("hosts", 1, "hosts contacted per page visit")

-- a throughput benchmark: the cold start keeps its figures comparable
mtcsim.world{ duration = days(span), warmup = 0, grid_step = hours(1), start = "empty" }
local mirror = mtcsim.cosigner{ name = "mirror", role = "mirror", algorithm = "ml-dsa-44",
                                latency = lognormal{ median = 2, sigma = 0.5 } }
mtcsim.ca{ name = "le", algorithm = "ml-dsa-44", lifetime = days(7),
           rate = per_day(6e6), profile = diurnal{ peak_hour = 15, ratio = 1.5 },
           checkpoint_interval = 60, landmark_interval = hours(1),
           cosigners = { mirror }, quorum = 1 }
mtcsim.update_service{ name = "component-updater", fetch_interval = minutes(10),
                       publication_delay = minutes(10) }
mtcsim.sites{ name = "sites", count = 10000, issue_spread = hours(6), renew_fraction = 0.75 }
mtcsim.browsers{
  name = "chrome", count = math.max(1, math.floor(clients)),
  sessions_per_day = 3, session_duration = lognormal{ median = hours(1), sigma = 1 },
  visits_per_hour = 20, hosts_per_visit = math.max(1, math.floor(hosts)),
  zipf_exponent = 1.2, update_first_delay = 60, update_interval = hours(5),
  ticket_lifetime = days(1),
}
