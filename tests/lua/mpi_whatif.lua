-- mpi_whatif.lua - every what-if at once in one small cold-start world:
-- tests/sh_mpi_whatif.sh checks that sharding over ranks changes no figure
-- with all of them on together. Each what-if is made by the PKI (which
-- every rank replays) or by the clients (which each rank simulates for
-- its own share), so each is a way for ranks to disagree:
--   - many CAs: four, each with its own log, landmarks and mirror;
--   - a timestamped multi-CA landmark group (the first three CAs; the
--     fourth keeps single-log landmarks), one of its CAs unreachable by
--     the update service for six hours;
--   - bulk update proofs (include_proofs, proofs = "bulk"; --set
--     proofs=per_subtree for the comparison);
--   - landmark staples: two CAs staple, one cohort learns from them;
--   - Landmark Distribution Points: the second CA's certificates name two,
--     which fail 5 % of fetches; a lagging cohort on a lossy path fetches
--     missing landmarks on demand (ldp = "fetch"), another retries;
--   - a witness outage, a network path with loss (handshake latency), a
--     cohort that never updates;
--   - many trust anchors: a cohort that lists only what it trusts of the
--     sites' HTTPS records (trust_anchors = "dns", records cached up to
--     30 minutes) and one that lists nothing and retries from the
--     server's list (trust_anchors = "retry").
-- The world starts steady by default: the clients' installed landmarks at
-- the start are set up on the rank that simulates them. (tests/sh_mpi_run.sh
-- covers a cold start.)

local scale = param("scale", 1.0, "population sample")
local span = param("days", 1, "simulated days after the warm-up")
local proofs = param("proofs", "bulk", "update proofs: per_subtree or bulk")

local start = param("start", "steady", "steady (the deployed system) or empty (a cold start)")

-- steady: the history an 8-hour certificate lifetime needs, which the
-- clients start from (their installed landmarks, learned on their rank)
local warm = start == "steady"
  and steady_warmup{ lifetime = hours(8), landmark_interval = hours(1), fetch_interval = minutes(10),
                     publication_delay = minutes(5), retry_after = 600 }
  or hours(4)
mtcsim.world{ duration = warm + days(span), warmup = warm, grid_step = hours(1), start = start }
local witness = mtcsim.cosigner{ name = "witness", latency = exponential{ mean = 1 } }
local cas = {}
for i = 1, 4 do
  local mirror = mtcsim.cosigner{ name = "m" .. i, role = "mirror", algorithm = "ed25519" }
  local cos = { mirror }
  if i == 2 then cos[2] = witness end
  cas[i] = mtcsim.ca{ name = "ca" .. i, algorithm = "ed25519", rate = per_day(2e4 / i),
                      lifetime = hours(8), checkpoint_interval = 60,
                      landmark_interval = hours(1), cosigners = cos, quorum = #cos,
                      staple = (i == 1 or i == 4),
                      ldp = i == 2 and 2 or 0, ldp_fail_prob = i == 2 and 0.05 or 0 }
end
mtcsim.update_service{ name = "updates", fetch_interval = minutes(10),
                       publication_delay = minutes(5), include_proofs = true, proofs = proofs,
                       group_cas = { cas[1], cas[2], cas[3] } }
mtcsim.sites{ name = "sites", count = math.max(20, math.floor(2000 * scale)),
              ca_shares = { "ca1:0.55", "ca2:0.25", "ca3:0.12", "ca4:0.08" },
              issue_spread = start == "empty" and warm or 0, renew_fraction = 0.5,
              https_record_ttl = minutes(30) }
local n = math.max(20, math.floor(10000 * scale))
mtcsim.browsers{ name = "learners", count = n, learn_staples = true,
                 sessions_per_day = 3, session_duration = lognormal{ median = hours(1), sigma = 1 },
                 visits_per_hour = 10, zipf_exponent = 1.2, update_interval = hours(2),
                 rtt = lognormal{ median = 60, sigma = 0.7 }, rtt_jitter = exponential{ mean = 5 },
                 bandwidth = 10e6, loss_prob = 0.01 }
mtcsim.browsers{ name = "updaters", count = n,
                 sessions_per_day = 3, session_duration = lognormal{ median = hours(1), sigma = 1 },
                 visits_per_hour = 10, zipf_exponent = 1.2, update_interval = hours(1) }
mtcsim.browsers{ name = "frozen", count = math.max(20, math.floor(n / 4)), never_updates = true,
                 learn_staples = true, visits_per_hour = 10, zipf_exponent = 1.2 }
mtcsim.browsers{ name = "fetchers", count = math.max(20, math.floor(n / 4)), ldp = "fetch",
                 update_interval = hours(12), update_apply_delay = lognormal{ median = hours(6), sigma = 0.5 },
                 visits_per_hour = 10, zipf_exponent = 1.2,
                 rtt = lognormal{ median = 80, sigma = 0.5 }, loss_prob = 0.02 }
mtcsim.browsers{ name = "retriers", count = math.max(20, math.floor(n / 8)), ldp = "retry",
                 never_updates = true, visits_per_hour = 10, zipf_exponent = 1.2 }
mtcsim.browsers{ name = "dns", count = math.max(20, math.floor(n / 8)), trust_anchors = "dns",
                 update_interval = hours(3), visits_per_hour = 10, zipf_exponent = 1.2 }
mtcsim.browsers{ name = "empty", count = math.max(20, math.floor(n / 8)), trust_anchors = "retry",
                 update_interval = hours(3), visits_per_hour = 10, zipf_exponent = 1.2 }
sim:at(warm + hours(2), "ca_unreachable", cas[3], hours(6))
sim:at(warm + hours(1), "cosigner_outage", witness, hours(2))

sim:on_finish(function(s)
  local ch = s:metric("clienthello_trust_anchors_bytes")
  printf("rep %d  full %s  signatureless %s  ch_bytes %s/%s  update_bytes %s\n", s.replication,
         tostring(s:metric("handshake_full")), tostring(s:metric("handshake_signatureless")),
         tostring(ch and ch.sum), tostring(ch and ch.count), tostring(s:metric("update_bytes")))
end)
