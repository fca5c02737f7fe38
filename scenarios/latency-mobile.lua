-- latency-mobile.lua - handshake time in milliseconds, mobile against desktop.
--
-- Question: how much faster is a signatureless (landmark-relative)
-- handshake than the same handshake with an ML-DSA-44 or a classical
-- X.509 chain, for a mobile cohort on a slow, lossy link and for a desktop
-- cohort on a fast one?
--
-- Assumptions (each cited from docs/sources.md by its label):
--   - The PKI of quickstart: one CA at 6 million certificates a day
--     ([le-rate]), 7-day certificates, hourly landmarks ([crqp-cadence]),
--     Chrome-like updates ([chrome-updater]), Zipf 1.2 popularity and
--     about 6 hosts per visit ([zipf-sites]), 1-day tickets ([no-source]).
--   - Network paths are assumptions, not measurements ([no-source]):
--     desktop: rtt lognormal with median 30 ms (sigma 0.5), 50 Mbit/s,
--     0.1 % packet loss; mobile: median 120 ms (sigma 0.6), 2 Mbit/s, 2 %
--     loss; both with exponential per-connection jitter (mean 5 / 20 ms),
--     TCP + TLS 1.3 with the X25519MLKEM768 key share, an initial window of
--     10 segments ([tcp-iw]); each packet lost independently and repaired
--     selectively (RACK-TLP: [tcp-rack]; Linux's 200 ms minimum RTO:
--     [tcp-rto]). `--set transport=quic` prices QUIC instead ([quic-amp],
--     [quic-loss], [quic-pto]).
--   - Server signing time per key: constants measured with this project's
--     signers ([sign-time]); the sites' keys are Ed25519.
--   - Client verification: measured costs of this project's verifiers
--     ([verify-time]) with a 30-minute cache of verified certificates
--     ([verify-cache]); a phone's core taken as 3 times slower than the
--     development machine, a desktop's as equal ([mobile-cpu]): the
--     platforms of lib/platform.lua, on this scenario's own paths.
--   - The deployed system: a steady warm-up, then `days` measured days.
--
-- Reading the result: per cohort, the p50 and p90 of handshake_ms (full
-- handshakes as negotiated: mostly signatureless, plus the retries of
-- clients lacking a landmark) and of the same handshakes priced with the
-- ML-DSA-44 and the classical chains around the same key and with today's
-- chain as served, with the relative change (negative: MTC is faster).
-- The baselines are priced on the same connections (rtt, jitter,
-- bandwidth, the same loss draw), each with its own signing and client
-- verification time. What each side assumes: MTC: the sites' Ed25519 keys
-- and certificates carrying the names and extensions of their chain
-- profile's leaf, no SCTs; classical: the chain each site drew from the
-- default mix of today's chains (2 to 4 certificates, 2 or 3 SCTs,
-- cross-signs as served) around the same Ed25519 key; ML-DSA-44: that
-- chain with every CA and log key ML-DSA-44 and no cross-sign, the same
-- key; today's: the chain with its own leaf key (RSA, 2,048 or 4,096
-- bits 93 to 7, for most of the mix, ECDSA P-256 for the rest) and that
-- key's signing and verification. Every side: no certificate compression, the X25519MLKEM768
-- key share, the transport named. Measured with `build/mtcsim run
-- scenarios/latency-mobile.lua --set scale=0.05 --set days=0.25 --set
-- issuance=2e4 --replications 10` (a small CA; seeds 1-10; mean +-95 %
-- half-width over the replications, a change being each replication's
-- ratio of the same connections' percentiles), TCP: desktop p50 71.7
-- +-4.8 ms, -28.3 % +-2.6 against the ML-DSA-44 chain (p90 -30.2 %
-- +-1.8), -1.4 % +-0.1 against the classical one (p90 -1.0 % +-0.1) and
-- -2.2 % +-0.3 against today's (p90 -1.5 % +-0.2); mobile p50 313.9
-- +-10.5 ms, -37.8 % +-1.9 against ML-DSA-44 (p90 -34.6 % +-2.2: its
-- larger flights lose more packets, each repaired after one
-- loss-detection delay), -5.2 % +-0.2 against the classical chain (p90
-- -3.9 % +-0.9) and -5.9 % +-0.2 against today's (p90 -4.5 % +-1.0).
-- QUIC (`--set transport=quic`): desktop p50 36.6 +-2.4 ms, -51.1 % +-0.1
-- / -3.4 % +-0.4 / -5.7 % +-0.8 against ML-DSA-44 / classical / today's
-- (p90 -50.9 % +-0.1 / -3.6 % +-1.3 / -6.4 % +-1.4); mobile p50 169.4
-- +-5.2 ms, -57.6 % +-0.3 / -9.6 % +-0.6 / -11.3 % +-0.7 (p90 -54.9 %
-- +-0.9 / -9.7 % +-2.6 / -11.9 % +-3.0). Verification is 0.53 ms of a
-- desktop handshake and 1.58 ms of a mobile one (today's chains: 0.96 and
-- 2.9 ms). So the gain is mostly the post-quantum chain avoided, and it
-- is the slow link's. With the earlier, smaller baseline chains,
-- per-packet loss moved the TCP mobile p90 gap to the ML-DSA-44 chain
-- from -61.0 % (a flight lost whole, resent after max(1 s, 3 RTT)) to
-- -22.8 %. With `--set compression=brotli` (the what-if that every site
-- answers Chrome's brotli offer; MTC and every chain compressed alike;
-- same seeds): auth bytes MTC 932 -> 801, today's 4,103 -> 3,109; mobile
-- p50 against today's -4.5 % +-0.2 (TCP) and -7.9 % +-0.3 (QUIC), against
-- ML-DSA-44 unchanged (docs/scenarios.md).
local report = require "lib.report"
local platform = require "lib.platform"

local scale = param("scale", 0.05, "population sample (the CA is unchanged)")
local span = param("days", 1, "measured days after the warm-up")
local issuance = param("issuance", 6e6, "the CA's issuance, certificates per day")
local transport = param("transport", "tcp", "tcp or quic")
-- What-if: certificate compression (RFC 8879, [cert-compression]). Chrome
-- offers brotli by default since version 69 [chrome-certcomp]; which
-- share of servers answers is in no source found, so "brotli" is the
-- what-if that every site does, for the MTC certificate and every
-- baseline chain alike.
local compression = param("compression", "none",
  "what-if: \"brotli\": every client offers and every site supports brotli certificate compression; \"none\": no compression")
assert(compression == "none" or compression == "brotli",
       "compression: \"none\" or \"brotli\", not " .. tostring(compression))
local comp = compression == "brotli" and { "brotli" } or {}

local li = hours(1)
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
  rate = per_day(issuance), checkpoint_interval = 60, landmark_interval = li,
  cosigners = { mirror }, quorum = 1,
}
mtcsim.update_service{ name = "component-updater", fetch_interval = fetch,
                       publication_delay = delay }
mtcsim.sites{ name = "sites", count = math.max(20, math.floor(2000 * scale)),
              renew_fraction = 0.75, retry_after = 600, cert_compression = comp }

local function cohort(name, path)
  local c = {
    name = name, count = math.max(20, math.floor(10000 * scale)),
    sessions_per_day = 3, session_duration = lognormal{ median = hours(1), sigma = 1 },
    visits_per_hour = 20, hosts_per_visit = empirical{ values = { 1, 3, 6, 10 }, weights = { 3, 3, 3, 1 } },
    zipf_exponent = 1.2, update_first_delay = 60, update_interval = hours(5),
    update_on_start = "always", ticket_lifetime = days(1), transport = transport,
    cert_compression = comp,
  }
  -- the device of lib/platform.lua (its verification speed) on this
  -- scenario's own, assumed paths
  platform.merge(c, name, path)
  mtcsim.browsers(c)
end
cohort("desktop", { rtt = lognormal{ median = 30, sigma = 0.5 },
                    rtt_jitter = exponential{ mean = 5 }, bandwidth = 50e6, loss_prob = 0.001 })
cohort("mobile", { rtt = lognormal{ median = 120, sigma = 0.6 },
                   rtt_jitter = exponential{ mean = 20 }, bandwidth = 2e6, loss_prob = 0.02 })

sim:on_finish(function(s)
  report.header("latency-mobile", s)
  local fmt = report.fmt
  for _, c in ipairs { "desktop", "mobile" } do
    local h = s:metric("handshake_ms", c)
    report.line(c .. ": signatureless fraction", fmt(report.fraction(s, c), "%.4f"))
    if h and h.count > 0 then
      report.line(c .. ": handshake_ms p50 / p90",
        string.format("%s / %s", fmt(h.p50, "%.1f"), fmt(h.p90, "%.1f")))
      local v = s:metric("verify_ms", c)
      if v and v.count > 0 then
        report.line(c .. ": of which verification, mean", fmt(v.mean, "%.3f ms"))
      end
      for _, b in ipairs { { "mldsa44", "the ML-DSA-44 chain" }, { "classical", "the classical chain" },
                           { "today", "today's chain (its own leaf key)" } } do
        local x = s:metric(b[1] == "today" and "handshake_ms_today" or "handshake_ms_baseline_" .. b[1], c)
        if x and x.count > 0 then
          report.line(string.format("  with %s: p50 / p90", b[2]),
            string.format("%s / %s ms, change %s / %s", fmt(x.p50, "%.1f"), fmt(x.p90, "%.1f"),
              fmt(100 * (h.p50 / x.p50 - 1), "%+.1f %%"), fmt(100 * (h.p90 / x.p90 - 1), "%+.1f %%")))
        end
      end
    end
  end
end)
