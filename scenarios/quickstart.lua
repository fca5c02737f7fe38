-- quickstart.lua - the default scenario (`make run`).
--
-- Question: with one large CA issuing at Let's Encrypt's rate, an hourly
-- landmark schedule and Chrome-like update behaviour, what share of full
-- TLS handshakes can use a signatureless (landmark-relative) certificate,
-- and how many authentication bytes does a handshake carry compared with
-- today's classical chain and with its ML-DSA-44 equivalent?
--
-- Assumptions (each cited from docs/sources.md by its label):
--   - One CA issuing about 6 million certificates per day (sources.md
--     [le-rate], the lower of its two figures); every entry is appended to
--     the real log, the sampled sites' requests on top. The rate is the
--     CA's whatever `scale` is: the simulated sites and browsers are a
--     sample of its customers and their clients, so log sizes and proof
--     lengths are those of the full-size CA.
--   - 7-day certificates, ML-DSA-44 cosigner, landmarks every hour
--     (sources.md [crqp-cadence]); renewal at 75 % of the lifetime with the
--     old certificate kept until it expires ([draft-renewal]).
--   - A standalone certificate needs the CA's and one independent mirror's
--     cosignature; mirrors cosign within 5 minutes ([crqp-cosign]): one
--     mirror with a 2 s median latency.
--   - Browsers: Chrome's component updater, a check about 1 minute after
--     start-up, then every 5 hours while running ([chrome-updater]);
--     landmarks reach Chrome that way ([chrome-fastpush]).
--   - Site popularity Zipf with exponent 1.2 ([zipf-sites]); 1, 3, 6 or
--     10 hosts per visit, mean 4. Resumption share and distinct sites per day have no
--     public source ([no-source]): assumed 1-day tickets, 20 visits per
--     online hour.
--   - The deployed system (world start "steady"): the run first builds a
--     week of history (logs, landmarks, cosignatures, every site at a
--     random phase of its renewal cycle, clients updating as they would),
--     then measures `days` days. The warm-up is steady_warmup{...}: the
--     certificate lifetime plus one landmark interval, the update cycle and
--     the ACME Retry-After.
--
-- Reading the result: "signatureless fraction" is the share of full
-- handshakes that used a landmark-relative certificate; "auth bytes" is
-- the trust-anchor extension + Certificate + CertificateVerify, against
-- the same handshakes priced with a classical ECDSA chain with two SCTs
-- and with an ML-DSA-44 chain, both around the sites' own (Ed25519) keys
-- (the bytes saved are the certificate mechanism's), and against today's
-- deployment (ECDSA key and chain), which compares keys too. Measured
-- (--set scale=0.05 --replications 3, seed 1, 2 measured days; mean +-95 %
-- half-width; 91 CPU s): signatureless 0.999998 +-0.000007; auth bytes
-- 934 +-12, ratio 0.0788 +-0.0010 vs ML-DSA-44 (saves 10,923 +-12 B),
-- 0.775 +-0.010 vs classical, 0.742 +-0.010 vs today; QUIC extra round
-- trips 0 against 1 for the ML-DSA-44 chain; issuance delay standalone
-- p99 62.6 s, landmark mean 1,802 s (half the interval); relying-party
-- state 10,848 B (169 landmarks x 2 hashes x 32 B + 32 of framing, the
-- draft's plateau); log storage 174.8 MB (a lifetime of entries). MSER-5
-- finds no transient in the window. Tests use --set issuance=... (a
-- small CA: a different world, not a sample of this one).
local report = require "lib.report"

local scale = param("scale", 1.0, "population sample (1 = the sizes above); the CA is unchanged")
local span = param("days", 2, "measured days after the warm-up")
local li = param("landmark_interval", hours(1), "time between landmarks (s)")
local issuance = param("issuance", 6e6, "the CA's issuance, certificates per day")

local fetch, delay = minutes(10), minutes(10)
local warm = steady_warmup{ lifetime = days(7), landmark_interval = li,
                            fetch_interval = fetch, publication_delay = delay,
                            retry_after = 600 }
mtcsim.world{ duration = warm + days(span), warmup = warm, grid_step = hours(1) }

local mirror = mtcsim.cosigner{
  name = "mirror", role = "mirror", algorithm = "ml-dsa-44",
  latency = lognormal{ median = 2, sigma = 0.5 },
}
mtcsim.ca{
  name = "le", algorithm = "ml-dsa-44", lifetime = days(7),
  rate = per_day(issuance), profile = diurnal{ peak_hour = 15, ratio = 1.5 },
  checkpoint_interval = 60, landmark_interval = li,
  cosigners = { mirror }, quorum = 1,
}
mtcsim.update_service{ name = "component-updater", fetch_interval = fetch,
                       publication_delay = delay }
mtcsim.sites{ name = "sites", count = math.max(20, math.floor(2000 * scale)),
              renew_fraction = 0.75, retry_after = 600 }
mtcsim.browsers{
  name = "chrome", count = math.max(20, math.floor(20000 * scale)),
  sessions_per_day = 3, session_duration = lognormal{ median = hours(1), sigma = 1 },
  visits_per_hour = 20, hosts_per_visit = empirical{ values = { 1, 3, 6, 10 }, weights = { 3, 3, 3, 1 } },
  zipf_exponent = 1.2, update_first_delay = 60, update_interval = hours(5),
  update_on_start = "always",  -- Chrome checks at every browser start
  ticket_lifetime = days(1),
}

sim:on_finish(function(s)
  report.header("quickstart", s)
  report.handshakes(s)
  report.issuance(s)
  report.pki(s, span)
end)
