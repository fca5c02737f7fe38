-- quickstart.lua - the default scenario (`make run`).
--
-- Question: with one large CA issuing at Let's Encrypt's rate, an hourly
-- landmark schedule and Chrome-like update behaviour, what share of full
-- TLS handshakes can use a signatureless (landmark-relative) certificate,
-- and how many authentication bytes does a handshake carry compared with
-- today's classical chain and with its ML-DSA-44 equivalent?
--
-- Assumptions (facts.md = ../shared/ref/facts.md, cited by line):
--   - CA issuance about 6 million certificates per day (facts.md:62-63,
--     "the seed article says about 6 million"); all of it is appended to
--     the real log, the sampled sites' requests on top.
--   - 7-day certificates, ML-DSA-44 cosigner, landmarks about every hour
--     (facts.md:46); renewal at 75 % of lifetime (facts.md:71).
--   - A standalone certificate needs the CA's and one independent mirror's
--     cosignature; mirrors cosign within 5 minutes (facts.md:49-50): one
--     mirror with a 2 s median latency.
--   - Browsers: Chrome component updater, first check about 1 minute after
--     start, then every 5 hours while running (facts.md:33-34); landmarks
--     reach Chrome that way (facts.md:38-39).
--   - Site popularity Zipf with exponent 1.2, about 6 hosts per visit
--     (facts.md:74-75). Resumption share and distinct sites per day are not
--     in public sources (facts.md:80-81): assumed 1-day tickets, 20 visits
--     per online hour.
--   - 2 simulated days after a 6-hour warm-up, so that landmarks exist.
--
-- Reading the result: "signatureless fraction" is the share of full
-- handshakes that used a landmark-relative certificate (1.0 = every
-- client was fresh enough). "auth bytes" is the trust-anchor extension +
-- Certificate + CertificateVerify as negotiated, against the same
-- handshakes priced with a classical ECDSA chain with two SCTs and with an
-- ML-DSA-44 chain, both around the sites' own (Ed25519) keys, so the bytes
-- saved are the certificate mechanism's; and against today's deployment
-- (ECDSA key and chain), which compares keys too. Issuance delays say how long a site waits for each
-- certificate form. --set scale=0.01 runs a reduced size (tests).
local report = require "lib.report"

local scale = param("scale", 1.0, "population and issuance scale (1 = the sizes above)")
local span = param("days", 2, "simulated days after the warm-up")
local li = param("landmark_interval", hours(1), "time between landmarks (s)")

local warm = hours(6) * math.min(1, span)   -- shorter for runs under a day
mtcsim.world{ duration = warm + days(span), warmup = warm, grid_step = hours(1) }

local mirror = mtcsim.cosigner{
  name = "mirror", role = "mirror", algorithm = "ml-dsa-44",
  latency = lognormal{ median = 2, sigma = 0.5 },
}
mtcsim.ca{
  name = "le", algorithm = "ml-dsa-44", lifetime = days(7),
  rate = per_day(6e6) * scale, profile = diurnal{ peak_hour = 15, ratio = 1.5 },
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
}

sim:on_finish(function(s)
  report.header("quickstart", s)
  report.handshakes(s)
  report.issuance(s)
  report.pki(s, span)
end)
