-- enterprise.lua - an organisation's own Merkle Tree CA, standalone
-- certificates only, against an ML-DSA X.509 private PKI.
--
-- Question: an organisation runs a private CA for its own servers and
-- clients, with its own cosigners (witnesses it operates) and no landmark
-- channel: every certificate is standalone and carries the CA's
-- cosignature plus a quorum of k of its N cosigners'. Against a
-- directly-signing post-quantum private PKI (ML-DSA-44 root, not sent;
-- ML-DSA-44 issuing CA; leaf; no SCTs, no OCSP), what does it cost per
-- connection in bytes, what does it cost the signers per day (and at
-- which issuance rate does MTC sign less), and how much issuance do
-- cosigner failures stall?
--
-- Design (docs/model.md "Enterprise standalone deployments"): one CA, N =
-- 3 witnesses, quorum swept 1 / 2 / 3. No landmark channel: clients
-- never fetch an update (never_updates), hold no landmark, and every
-- server sends its standalone certificate. Both sides share everything but the certificate
-- mechanism: the same leaf key (`leaf_key`, default ML-DSA-44, both sides'
-- CertificateVerify), the same leaf contents (the "private" chain
-- profile's names and extensions, mtc/chain.h), the same TLS 1.3
-- transport (TCP, post-quantum key share), no certificate compression.
-- The X.509 side is the private profile with every CA key at `level`
-- (intermediate + leaf; the root is a trust anchor and not sent): the
-- web side's post-quantum arm prices it per handshake at ML-DSA-44
-- (auth_bytes_baseline_mldsa44), and another level adds what its keys
-- and signatures add to the same chain, from real encodings
-- (mtcsim.core.chain). `level` also sets the MTC CA's and witnesses'
-- algorithm. Default ML-DSA-44: the cosigner algorithm of the MTC
-- draft's size estimates and of tlog-cosignature ([sizes-sig],
-- [tlog-witness]), and the level Chrome's draft quantum-resistant root
-- policy names for its cosigner ([crqp-cadence]).
--
-- Assumptions (docs/sources.md labels): ML-DSA-44 sizes [sizes-sig];
-- witnesses check consistency and sign with ML-DSA-44 [tlog-witness]; a
-- private PKI carries no SCTs [ct-private]; checkpoints every 60 s;
-- witness latency exponential, mean 1 s; each witness fails at random
-- with a mean time between failures of 2 days and a lognormal repair of
-- median 1 hour (about 97.4 % available: assumption, as cosigner-quorum,
-- deliberately below [crqp-availability] so that quorum effects show);
-- 50,000 certificates a day (assumption: about 250,000 endpoints on
-- 7-day certificates renewed at 75 % of their lifetime [draft-renewal]).
-- The X.509 CA signs once per certificate; it has no cosigners and is
-- never down in the model, so it stalls nothing.
--
-- `outage_hours` and `outage_witnesses` add a scheduled outage (the
-- cosigner_outage action) of that many witnesses together, half-way
-- through the window (none by default).
--
-- Reading the result: per quorum, auth bytes per connection on both
-- sides; signatures per day (MTC: the CA and the three witnesses, for
-- every checkpoint and covering subtree, whatever the issuance; X.509:
-- one per certificate) and the crossover issuance rate; the share of
-- time the quorum was unreachable against the k-of-N closed form, and
-- the share of issuance requests stalled with their delay. Figures with
-- intervals: docs/scenarios.md (from --replications).
-- Measured (full size, 7 days, --replications 10, seed 1; 95 % Student-t):
-- auth bytes MTC 9,260 / 11,690 / 14,137 at quorum 1 / 2 / 3 against the
-- ML-DSA-44 private PKI's 11,113 (ratio 0.833 / 1.052 / 1.272; quorum 3
-- adds a TCP round trip); signatures a day 16,911 +-153 (quorum 1) against
-- the X.509 CA's 50,068 +-47; quorum unreachable 0 / 0.0044 +-0.0050 /
-- 0.081 +-0.031 of the time (closed form 0.00002 / 0.0023 / 0.081),
-- requests stalled 0 / 0.0038 +-0.0044 / 0.076 +-0.031, by 2,465 s and
-- 5,096 s on average.
local report = require "lib.report"

sweep("quorum", { 1, 2, 3 })
local quorum = param("quorum", 2, "witness cosignatures a standalone certificate carries (k of 3)")
local scale = param("scale", 1.0, "population sample (1 = the sizes below); the CA is unchanged")
local span = param("days", 7, "measured days after the warm-up")
local issuance = param("issuance", 50000, "certificates the private CA issues per day")
local interval = param("checkpoint_interval", 60, "seconds between the CA's checkpoints")
local mtbf = param("witness_mtbf", days(2), "mean time between witness failures (s)")
local repair = param("witness_repair", hours(1), "median witness repair time (s, lognormal, sigma 0.8)")
local outage = param("outage_hours", 0, "a scheduled outage half-way through the window: its length (hours; 0: none)")
local outage_n = param("outage_witnesses", 1, "witnesses the scheduled outage takes down together")
local level = param("level", "ml-dsa-44", "ML-DSA level of the CA, its witnesses and the private PKI's CAs")
local leaf_key = param("leaf_key", "", "the servers' key, on both sides (\"\": the level)")
if level ~= "ml-dsa-44" and level ~= "ml-dsa-65" and level ~= "ml-dsa-87" then
  error("level: \"ml-dsa-44\", \"ml-dsa-65\" or \"ml-dsa-87\", got \"" .. tostring(level) .. "\"", 1)
end
if leaf_key == "" then leaf_key = level end
local N = 3
if outage_n ~= math.floor(outage_n) or outage_n < 1 or outage_n > N then
  error("outage_witnesses: a whole number from 1 to " .. N .. ", got " .. tostring(outage_n), 1)
end
if not (outage >= 0 and outage <= span * 12) then
  error("outage_hours: from 0 to half the window (" .. span * 12 .. " h), got " .. tostring(outage), 1)
end

local sigma = 0.8
local warm = steady_warmup{ lifetime = days(7), landmark_interval = hours(1),
                            fetch_interval = minutes(10), publication_delay = minutes(10), retry_after = 600 }
mtcsim.world{ duration = warm + days(span), warmup = warm, grid_step = hours(1) }
local ws = {}
for i = 1, N do
  ws[i] = mtcsim.cosigner{ name = "witness" .. i, role = "witness", algorithm = level,
                           latency = exponential{ mean = 1 }, mtbf = mtbf,
                           repair_time = lognormal{ median = repair, sigma = sigma } }
end
mtcsim.ca{ name = "corp", rate = per_day(issuance), algorithm = level, cosigners = ws,
           quorum = quorum, checkpoint_interval = interval, quorum_timeout = minutes(5) }
-- The world needs an update service for its clients to name; none of
-- them ever fetches from it (never_updates), so no landmark reaches them.
mtcsim.update_service{ name = "updates", fetch_interval = minutes(10) }
mtcsim.sites{ name = "servers", count = math.max(20, math.floor(200 * scale)),
              key_alg = leaf_key, chain_mix = { "private:1" }, dns_suffix = "corp.example" }
mtcsim.browsers{ name = "clients", count = math.max(20, math.floor(2000 * scale)),
                 never_updates = true }
if outage > 0 then
  for i = 1, outage_n do
    sim:at(warm + days(span) / 2, "cosigner_outage", ws[i], hours(outage))
  end
end

-- k of N independent witnesses, each up a = mtbf / (mtbf + mean repair):
-- the quorum is reachable sum_{j >= k} C(N, j) a^j (1 - a)^(N - j) of the
-- time.
local function choose(n, k)
  local c = 1
  for j = 1, k do c = c * (n - k + j) / j end
  return c
end
local mean_repair = repair * math.exp(sigma * sigma / 2)
local a = mtbf / (mtbf + mean_repair)
local reach = 0
for j = quorum, N do reach = reach + choose(N, j) * a ^ j * (1 - a) ^ (N - j) end

-- The X.509 side at the level: the web side prices the private profile
-- per handshake with ML-DSA-44 CA keys around the servers' own key
-- (auth_bytes_baseline_mldsa44); another level adds what its CA keys and
-- signatures add to the same chain, from real encodings of both (the
-- difference does not depend on the name).
local function x509(alg)
  return mtcsim.core.chain("private", { dns_name = "s1.corp.example", leaf = leaf_key, ca = alg }).auth_bytes
end
local x509_level_extra = x509(level) - x509("ml-dsa-44")

sim:on_finish(function(s)
  report.header(string.format("enterprise, quorum %d of %d", quorum, N), s)
  local window_days = span
  -- bytes per connection, both sides (same key, leaf contents, transport)
  local ab = s:metric("auth_bytes")
  local x44 = s:metric("auth_bytes_baseline_mldsa44")
  local x = x44 and x44.mean + x509_level_extra
  local today = s:metric("auth_bytes_today_classical")
  report.line("signatureless fraction (standalone only)", report.fmt(report.fraction(s), "%.4f"))
  report.line("auth bytes, MTC standalone (mean)", report.fmt(ab and ab.mean, "%.0f"))
  report.line("auth bytes, X.509 " .. level .. " private PKI", report.fmt(x, "%.0f"))
  report.record(s, "enterprise_x509_auth_bytes", x)
  if ab and x and x > 0 then
    report.line("  MTC / X.509 (leaf key " .. leaf_key .. " on both)", report.fmt(ab.mean / x, "%.4f"))
    report.record(s, "enterprise_bytes_ratio", ab.mean / x)
  end
  report.line("auth bytes, classical private PKI as served", report.fmt(today and today.mean, "%.0f"))
  -- round trips: the web side frames the X.509 flight at ML-DSA-44 only
  local rt, rb = s:metric("extra_rtt_tcp"), s:metric("extra_rtt_tcp_baseline_mldsa44")
  report.line("extra TCP round trips, MTC / X.509 (mean)", report.fmt(rt and rt.mean, "%.4f") .. " / "
    .. (level == "ml-dsa-44" and report.fmt(rb and rb.mean, "%.4f") or "n/a (framed at ML-DSA-44 only)"))
  -- signing load per day
  local sig_ca = s:metric("signatures", "corp") or 0
  local sig_all = s:metric("signatures") or 0
  local issued = s:metric("log_entries", "corp") or 0
  local mtc_day, x509_day = sig_all / window_days, issued / window_days
  report.record(s, "enterprise_mtc_signatures_per_day", mtc_day)
  report.record(s, "enterprise_x509_signatures_per_day", x509_day)
  local ck = s:metric("checkpoints", "corp") or 0
  report.line("checkpoints per day (86400 / interval)",
    report.fmt(ck / window_days, "%.1f") .. string.format(" (%.1f)", 86400 / interval))
  report.line("MTC signatures per day: CA / all signers",
    report.fmt(sig_ca / window_days, "%.0f") .. " / " .. report.fmt(mtc_day, "%.0f"))
  report.line("X.509 signatures per day (one per certificate)", report.fmt(x509_day, "%.0f"))
  report.line("crossover: MTC signs less above (certs/day)", report.fmt(mtc_day, "%.0f"))
  -- availability under witness failures
  local un = s:metric("cosign_quorum_unreachable_ms", "corp") or 0
  local frac = un / (window_days * 86400e3)
  report.record(s, "enterprise_quorum_unreachable_share", frac)
  -- the scheduled outage blocks the quorum for its whole length when it
  -- leaves fewer than k witnesses, on top of the random failures
  local sched = (outage > 0 and N - outage_n < quorum) and outage * 3600 / (span * 86400) or 0
  report.line("quorum unreachable, share of time",
    report.fmt(frac, "%.5f") .. string.format(" (closed form %.5f%s)", 1 - reach,
      sched > 0 and string.format(", plus %.5f for the scheduled outage", sched) or ""))
  local st = s:metric("issuance_stalled", "corp") or 0
  local share = issued > 0 and st / issued or nil
  report.record(s, "enterprise_stalled_share", share)
  report.line("issuance requests stalled (share)", report.fmt(share, "%.5f"))
  local sd = s:metric("issuance_stall_delay", "corp")
  if sd and sd.count > 0 then
    report.line("  their delay mean / p99 (s)", report.fmt(sd.mean, "%.0f") .. " / " .. report.fmt(sd.p99, "%.0f"))
  end
  local d = s:metric("issuance_delay_standalone", "corp")
  report.line("standalone issuance delay p50 / p99 (s)",
    report.fmt(d and d.p50, "%.1f") .. " / " .. report.fmt(d and d.p99, "%.1f"))
  report.line("checkpoints that missed their quorum", report.fmt(s:metric("cosign_quorum_failures"), "%.0f"))
end)
