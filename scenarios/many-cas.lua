-- many-cas.lua - what-if study: many CAs, each with its own log.
--
-- Question: when the web's certificates come from dozens to 150+ CAs,
-- each with its own log, landmarks and mirror, what does every connection
-- pay in ClientHello trust-anchor bytes, how large grow the relying
-- party's state and the update channel, and how does the signatureless
-- share of the largest CA compare with that of the long tail of small
-- CAs, whose few certificates clients rarely see?
--
-- Assumptions (each cited from docs/sources.md by its label):
--   - The sweep is the number of CAs `ncas` (10, 50, 150; "a few hundred"
--     exist [le-share]). The largest CA holds 57 % [le-share]; the others
--     split the rest by a Zipf law over their rank (exponent 1,
--     [ca-zipf], an assumption); lib/cas.lua.
--   - Real issuance, whatever the population sample: the largest CA
--     issues `issuance` certificates a day (default 6 million [le-rate]),
--     each other CA in proportion to its share (all together about 10.5
--     million a day).
--   - Each CA: 7-day certificates, hourly landmarks [crqp-cadence], one
--     mirror of its own (quorum 1). CAs below 1 % share close a
--     checkpoint every hour instead of every minute (cheaper; only
--     their standalone certificates wait longer).
--   - One update service carries every CA; clients check every 5 hours
--     [chrome-updater], 5 % of checks fail (assumption); 3 sessions a
--     day of about an hour (assumption); Zipf 1.2 popularity
--     [zipf-sites]; the sampled sites split across the CAs by share.
--   - Steady warm-up (a week of history), then `days` measured days.
--
-- Many trust anchors (--set trust_anchors=dns | retry | all; docs/model.md
-- "What-if: many trust anchors"): instead of every CA's landmark group,
-- the clients list only what they trust of the site's HTTPS record's
-- tls-trust-anchors parameter (dns; records cached up to `https_ttl`), or
-- nothing, retrying on a new connection when the server's guess is a
-- landmark they lack (retry); `all` puts one cohort of each mode (full,
-- dns, retry) on the same PKI and sites, and a second line per mode gives
-- its ClientHello and EncryptedExtensions bytes, retries, HTTPS lookups
-- and their bytes, auth bytes and extra round trips.
--
-- Measured with --set trust_anchors=all (scale 0.05, 1 day, 3
-- replications; docs/scenarios.md): ClientHello trust_anchors 96.0,
-- 456.0, 1,378.9 B (full) against 21.8 (dns) and 6.0 (retry) at 10, 50,
-- 150 CAs; dns HTTPS answers 136.9 B with a 20.0 B parameter, no retry;
-- retry's guess misses on 1.8 % of full handshakes; the signatureless
-- share is 0.9999-1.0000 in every mode.
--
-- Cadences: `update_interval` (the clients' checks, 5 h [chrome-updater])
-- and `fetch_interval` (the update service's, 10 min) are parameters.
--
-- No network paths (handshake latency off): its question is trust-anchor
-- bytes, relying-party state and update bytes, which paths do not change;
-- quickstart and latency-mobile report milliseconds.
--
-- Reading the result: one line per run - the trust_anchors extension
-- bytes each full handshake's ClientHellos carried (mean), the relying
-- party's state summed over CAs at the end, update bytes fetched per
-- client per day and the mean publication size (deltas) against the full
-- snapshot size, and the signatureless fraction of handshakes to the
-- largest CA's sites, to those of the CAs ranked 2 to 10, and to the tail
-- ranked 11 and below (n/a with 10 CAs), with the tail's handshakes.
-- Measured (--set scale=0.05 --set days=1, seed 1, one replication,
-- -j 2), at 10, 50 and 150 CAs: ClientHello trust_anchors 96, 456 and
-- 1,379 B; relying-party state 108,480, 542,400 and 1,627,200 B; update
-- bytes per client-day 25,928, 129,548 and 388,642; publication mean 942,
-- 4,662 and 13,985 B against a full snapshot of 176,182, 880,862 and
-- 2,642,585 B; signatureless largest 0.9998, 0.9999, 0.9999, ranks 2-10
-- 1.0000 each, ranks 11+ n/a, 1.0000 (7,270 handshakes), 0.9998 (13,132).
-- Every cost is linear in the number of CAs: 9 ClientHello bytes per CA
-- (its landmark numbers pass 127 during the week of history), one more
-- per CA past the 127th; 10,848 B of state and about 2,590 update bytes
-- per client-day per CA. The tail keeps its signatureless share: the
-- update service carries every CA's landmarks, so clients hold a small
-- CA's landmark without visiting its sites; the tail costs bytes, not
-- signatureless handshakes.
local report = require "lib.report"
local cas = require "lib.cas"

sweep("ncas", { 10, 50, 150 })
local ncas = param("ncas", 50, "number of CAs")
local issuance = param("issuance", 6e6, "the largest CA's issuance, certificates per day (the others in proportion to their shares)")
local scale = param("scale", 1.0, "population sample (1 = the sizes below); the CAs are unchanged")
local span = param("days", 3, "measured days after the warm-up")
local tail = param("tail_share", 0.01, "a CA below this share closes a checkpoint every hour")
local ta_mode = param("trust_anchors", "full", "what the clients' ClientHello lists: full (every CA's landmark group), dns (the intersection with the site's HTTPS record), retry (an empty list, then the server's list), or all: three cohorts \"full\", \"dns\" and \"retry\" of `scale` x 20000 clients each, on the same PKI and sites")
local https_ttl = param("https_ttl", 300, "TTL of the sites' HTTPS records, s (trust_anchors = dns)")
local upd = param("update_interval", hours(5), "the clients' update check period (s)")
local fetch = param("fetch_interval", minutes(10), "the update service's fetch period (s)")

local warm = steady_warmup{ lifetime = days(7), landmark_interval = hours(1),
                            fetch_interval = fetch, publication_delay = minutes(10),
                            retry_after = 600 }
mtcsim.world{ duration = warm + days(span), warmup = warm, grid_step = hours(1) }
local pop = cas.declare{ n = ncas, leader_rate = per_day(issuance), tail_share = tail }
mtcsim.update_service{ name = "updates", fetch_interval = fetch, publication_delay = minutes(10) }
local site_t = { name = "sites", count = math.max(20, math.floor(20000 * scale)) }
if ta_mode == "dns" or ta_mode == "all" then site_t.https_record_ttl = https_ttl end
cas.sites(pop, site_t)
local n = math.max(20, math.floor(20000 * scale))
local modes = ta_mode == "all" and { "full", "dns", "retry" } or { ta_mode }
local handles = {}
for _, m in ipairs(modes) do
  local clients = {
    name = ta_mode == "all" and m or "clients", count = n,
    update_interval = upd, update_on_start = "if_due", update_fail_prob = 0.05,
    sessions_per_day = 3, session_duration = lognormal{ median = hours(1), sigma = 1 },
    zipf_exponent = 1.2,
  }
  if m ~= "full" then clients.trust_anchors = m end
  handles[#handles + 1] = mtcsim.browsers(clients)
end

sim:on_finish(function(s)
  -- client-days weighted by the session-start profile (lib/report.lua)
  local cd = 0
  for _, b in ipairs(handles) do cd = cd + report.client_days(b, warm, span) end
  local ta = s:metric("clienthello_trust_anchors_bytes")
  local rp = s:metric("rp_state_bytes")
  local pub = s:metric("update_publication_bytes")
  local snap = s:metric("update_snapshot_bytes")
  local function frac(from, to)
    local full, sl = 0, 0
    for k = from, to do
      full = full + (s:metric("handshake_full_by_ca", pop.names[k]) or 0)
      sl = sl + (s:metric("handshake_signatureless_by_ca", pop.names[k]) or 0)
    end
    return full > 0 and sl / full or nil, full
  end
  local lead = frac(1, 1)
  local mid, midn = frac(2, math.min(10, ncas))
  local tl, tln = frac(11, ncas)
  printf("CAs %3d  rep %d  CH trust_anchors mean %s B  RP state %s B  update B/client-day %s  publication mean %s B  snapshot mean %s B  signatureless: largest %s  ranks 2-10 %s  ranks 11+ %s (%d handshakes)  all %s\n",
    ncas, s.replication,
    report.fmt(ta and ta.count > 0 and ta.mean or nil, "%.0f"),
    report.fmt(rp, "%.0f"),
    report.fmt((s:metric("update_bytes") or 0) / cd, "%.0f"),
    report.fmt(pub and pub.count > 0 and pub.mean or nil, "%.0f"),
    report.fmt(snap and snap.count > 0 and snap.mean or nil, "%.0f"),
    report.fmt(lead, "%.4f"), report.fmt(mid, "%.4f"), report.fmt(tl, "%.4f"),
    math.floor(tln), report.fmt(report.fraction(s), "%.4f"))
  report.record(s, "update_bytes_per_client_day", (s:metric("update_bytes") or 0) / cd)
  report.record(s, "signatureless_share_largest_ca", lead)
  report.record(s, "signatureless_share_ca_ranks_2_10", mid)
  report.record(s, "signatureless_share_ca_ranks_11_up", tl)
  if ta_mode ~= "full" then
    -- per mode (cohort): its ClientHello trust_anchors, retries, the
    -- server's lists, the HTTPS lookups and their parameter, auth bytes
    -- and round trips, per full handshake
    for _, m in ipairs(modes) do
      local c = ta_mode == "all" and m or "clients"
      local full = s:metric("handshake_full", c) or 0
      local function mean(name)
        local h = s:metric(name, c)
        return h and h.count > 0 and h.mean or nil
      end
      printf("CAs %3d  rep %d  mode %-5s  CH trust_anchors mean %s B  signatureless %s  retries/full %s  EE trust_anchors mean %s B  HTTPS lookups/full %s  response mean %s B  tls-trust-anchors mean %s B  stale %d  missing %d  auth_bytes mean %s  extra RTT tcp %s quic %s\n",
        ncas, s.replication, m,
        report.fmt(mean("clienthello_trust_anchors_bytes"), "%.1f"),
        report.fmt(full > 0 and (s:metric("handshake_signatureless", c) or 0) / full or nil, "%.4f"),
        report.fmt(full > 0 and (s:metric("handshake_retry", c) or 0) / full or nil, "%.4f"),
        report.fmt(mean("ee_trust_anchors_bytes"), "%.1f"),
        report.fmt(full > 0 and (s:metric("dns_https_lookups", c) or 0) / full or nil, "%.3f"),
        report.fmt(mean("dns_https_response_bytes"), "%.1f"),
        report.fmt(mean("dns_trust_anchors_param_bytes"), "%.1f"),
        math.floor(s:metric("dns_record_stale", c) or 0), math.floor(s:metric("dns_record_missing", c) or 0),
        report.fmt(mean("auth_bytes"), "%.0f"),
        report.fmt(mean("extra_rtt_tcp"), "%.4f"), report.fmt(mean("extra_rtt_quic"), "%.4f"))
    end
  end
end)
