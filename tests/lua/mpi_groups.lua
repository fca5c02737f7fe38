-- mpi_groups.lua - a cold-start world with a timestamped multi-CA
-- landmark group and a CA unreachable by the update service for a while:
-- tests/sh_mpi_groups.sh checks that sharding over ranks changes no figure
-- (group versions are made by the PKI, which every rank replays).

local scale = param("scale", 1.0, "population sample")
local span = param("days", 1, "simulated days after the warm-up")

local warm = hours(4)
mtcsim.world{ duration = warm + days(span), warmup = warm, grid_step = hours(1), start = "empty" }
local w = mtcsim.cosigner{ name = "w", latency = exponential{ mean = 1 } }
local cas = {}
for i, n in ipairs({ "a", "b", "c" }) do
  cas[i] = mtcsim.ca{ name = n, rate = per_day(2e4 / i), lifetime = days(1),
                      checkpoint_interval = 60, landmark_interval = hours(1),
                      cosigners = { w }, quorum = 1 }
end
mtcsim.update_service{ name = "updates", fetch_interval = minutes(10),
                       publication_delay = minutes(5), group_cas = cas }
mtcsim.sites{ name = "sites", count = math.max(20, math.floor(600 * scale)),
              issue_spread = warm, renew_fraction = 0.5 }
mtcsim.browsers{ name = "chrome", count = math.max(20, math.floor(6000 * scale)),
                 sessions_per_day = 3, session_duration = lognormal{ median = hours(1), sigma = 1 },
                 visits_per_hour = 10, update_interval = hours(1) }
sim:at(warm + hours(2), "ca_unreachable", cas[3], hours(6))

sim:on_finish(function(s)
  local ch = s:metric("clienthello_trust_anchors_bytes")
  printf("rep %d  full %s  signatureless %s  ch_bytes %s/%s\n", s.replication,
         tostring(s:metric("handshake_full")), tostring(s:metric("handshake_signatureless")),
         tostring(ch and ch.sum), tostring(ch and ch.count))
end)
