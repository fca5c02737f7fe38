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
--   - Site popularity Zipf with exponent 1.2 ([zipf-sites]) over the
--     full-size world's 2,000 sites, which the sampled sites stand in for
--     (so revisits and resumption do not depend on `scale`); 1, 3, 6 or 10
--     hosts per visit, mean 4. Resumption share and distinct sites per
--     day have no public source ([no-source]): assumed 1-day tickets, 20
--     visits per online hour; the session cache starts empty at each
--     browser start, as Chromium's lives in memory ([session-cache]).
--   - Each browser start connects at once to 3, 6 or 12 hosts (restored
--     tabs, background connections) before its start-up check
--     ([startup-burst], an assumption).
--   - Network paths ([path-model]): 70 % mobile and 30 % desktop clients,
--     RTT lognormal after Chrome's own estimates ([crux-rtt]: medians 113
--     and 74 ms), bandwidth lognormal after Speedtest medians
--     ([ookla-speed]: 55.1 and 107.5 Mbit/s), no loss; 30 % of the clients
--     on QUIC ([h3-share]), so the run reports handshake time beside bytes.
--     Client verification at the measured costs of this project's
--     verifiers ([verify-time]), a phone's core 3 times slower than the
--     development machine and a desktop's as fast ([mobile-cpu]).
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
-- the same handshakes priced with the chain each site serves today (a
-- profile drawn from today's mix) and with that chain post-quantum
-- (ML-DSA-44), both around the sites' own (Ed25519) keys (the bytes saved
-- are the certificate mechanism's), and against today's deployment
-- (the chain with its own key), which compares keys too; "handshake ms"
-- is the time to complete the handshake on each client's path, against
-- the same connections with those chains (common random numbers), each
-- arm with its own key's signing and verification time; no side uses
-- certificate compression. Measured (--set scale=0.05
-- --set days=1 --replications 3, seed 1; mean +-95 % half-width):
-- signatureless 0.99997 +-0.00008; auth bytes 1,187 +-82, ratio 0.323
-- +-0.026 against today's chain around the same key (saves 2,485 +-179
-- B), 0.0835 +-0.0042 against its ML-DSA-44 form, 0.294 +-0.022 against
-- today's deployment; QUIC extra round trips 0 against 1 with the
-- ML-DSA-44 chain; resumed share of connections 7.43 % +-0.18; handshake
-- p50 / p90 166.9 +-4.0 / 329 +-30 ms over all cohorts (desktop TCP 147,
-- desktop QUIC 71, mobile TCP 229, mobile QUIC 115 ms at p50), -1.2 %
-- +-0.3 / -1.0 % +-0.2 against today's chain around the same key, -1.7 %
-- +-0.7 / -1.3 % +-0.5 against today's deployment (the chains' own RSA or
-- ECDSA keys; 7.2 % of the RSA leaves 4,096 bits; 8.7 % of sites send
-- their root too) and -32 % +-8 / -30 % +-3 against the ML-DSA-44 chain;
-- verification 0.54 ms of a desktop handshake and 1.61 ms of a mobile one
-- (today's deployment: 1.06 and 3.19 ms);
-- issuance delay standalone p99 62.6 s,
-- landmark mean 1,803 s; relying-party state 10,848 B (169 landmarks x
-- 2 hashes x 32 B + 32 of framing, the draft's plateau); log storage
-- 175.2 MB (a lifetime of entries). MSER-5 flags the signatureless
-- fraction (truncation 10 h), a start-up of a figure that stays at
-- 0.99997. Against
-- the same build with clients choosing among the sampled sites, no
-- burst and tickets kept across browser starts (same seeds): resumed
-- share 11.7 % -> 7.4 % (-4.3 +-0.4 points), full handshakes +10.6 %
-- (+29,700 +-12,000), connections +5.5 %, the newest landmark's age at a
-- full handshake 2.08 -> 2.44 h (+0.36 +-0.21 h); signatureless share
-- and auth bytes unchanged within their intervals (-0.00003 +-0.00007,
-- +17 +-23 B). Tests use --set issuance=... (a small CA: a different
-- world, not a sample of this one).
local report = require "lib.report"
local platform = require "lib.platform"

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
-- The full-size world: 2,000 sites and 20,000 browsers; `scale` samples
-- both, and the sampled sites stand in for all 2,000 popularity ranks
-- (`represents`), so what a client revisits and resumes is the full-size
-- world's whatever the sample.
local full_sites, full_browsers = 2000, 20000
mtcsim.sites{ name = "sites", count = math.max(20, math.floor(full_sites * scale)),
              represents = full_sites, renew_fraction = 0.75, retry_after = 600 }
-- Network paths [path-model]: RTT from Chrome's own estimates [crux-rtt],
-- bandwidth from Speedtest medians [ookla-speed]; 70 % mobile clients,
-- 30 % of clients on QUIC [h3-share].
-- A phone's core verifies 3 times slower than the development machine, a
-- desktop's as fast [mobile-cpu]: the platforms of lib/platform.lua.
local n = math.max(40, math.floor(full_browsers * scale))
local cohorts = {}
for _, dev in ipairs { { "desktop", 0.3 }, { "mobile", 0.7 } } do
  for _, tr in ipairs { { "tcp", 0.7 }, { "quic", 0.3 } } do
    local name = dev[1] .. "-" .. tr[1]
    cohorts[#cohorts + 1] = name
    mtcsim.browsers(platform.merge({
      name = name, count = math.max(1, math.floor(n * dev[2] * tr[2] + 0.5)),
      sessions_per_day = 3, session_duration = lognormal{ median = hours(1), sigma = 1 },
      visits_per_hour = 20, hosts_per_visit = empirical{ values = { 1, 3, 6, 10 }, weights = { 3, 3, 3, 1 } },
      startup_hosts = empirical{ values = { 3, 6, 12 }, weights = { 2, 2, 1 } },  -- [startup-burst]
      zipf_exponent = 1.2, update_first_delay = 60, update_interval = hours(5),
      update_on_start = "always",  -- Chrome checks at every browser start
      ticket_lifetime = days(1),
      transport = tr[1],
    }, dev[1]))
  end
end

sim:on_finish(function(s)
  report.header("quickstart", s)
  report.handshakes(s)
  report.resumption(s)
  report.latency(s, cohorts)
  report.issuance(s)
  report.pki(s, span)
end)
