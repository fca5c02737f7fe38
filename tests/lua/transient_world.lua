-- transient_world.lua - a small world measured over two days, for
-- tests/sh_transient.sh: with start = "empty" its window opens 6 hours
-- after the logs and clients were empty (a transient the summary and the
-- report must flag); with start = "steady" it opens after a week of
-- history (none to flag). An 8-hour landmark interval makes the cold
-- start's transient last most of a day.
local start = param("start", "empty", "world start: empty or steady")
local li = hours(8)
local warm = start == "empty" and hours(6)
  or steady_warmup{ lifetime = days(7), landmark_interval = li, fetch_interval = minutes(10),
                    publication_delay = minutes(10), retry_after = 600 }
mtcsim.world{ duration = warm + days(2), warmup = warm, grid_step = hours(1), start = start }
local mirror = mtcsim.cosigner{ name = "mirror", role = "mirror", algorithm = "ed25519",
                                latency = lognormal{ median = 2, sigma = 0.5 } }
mtcsim.ca{ name = "ca", algorithm = "ed25519", lifetime = days(7), rate = per_day(2e4),
           checkpoint_interval = 300, landmark_interval = li, cosigners = { mirror }, quorum = 1 }
mtcsim.update_service{ name = "u", fetch_interval = minutes(10), publication_delay = minutes(10) }
if start == "empty" then
  mtcsim.sites{ name = "sites", count = 100, issue_spread = warm }
else
  mtcsim.sites{ name = "sites", count = 100 }
end
mtcsim.browsers{ name = "chrome", count = 500, update_interval = hours(5) }
