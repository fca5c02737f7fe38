-- lib/report.lua - the scenario library's shared result printing
-- (`local report = require "lib.report"`). Reads metrics by the names of
-- docs/metrics.md; a figure whose metrics are absent prints "n/a". A
-- figure computed here from more than one metric and the scenario's own
-- numbers (client counts, measured days) is also stored with sim:record
-- (R.record), so that it gets the summary's interval, `compare`, `plot`
-- and `export`; figures the statistics module already derives from the
-- stored metrics (fractions, ratios, latency changes) are not stored twice.
local R = {}

-- Records a computed figure (nil or NaN: nothing), per browser cohort
-- when cohort is given. docs/metrics.md lists the names the library uses.
function R.record(s, name, value, cohort)
  if value == nil or value ~= value or value == math.huge or value == -math.huge then return end
  s:record(name, value, cohort)
end

local function fmt(x, f)
  if x == nil or x ~= x then return "n/a" end
  return string.format(f or "%.4g", x)
end
R.fmt = fmt

-- Days of the window [from, from + span_days days) weighted by a daily
-- profile of 24 hourly weights (hour 0 starts at t = 0, as the model's
-- session starts): the integral of the profile, rescaled to mean 1 over a
-- day, over the window. A whole number of days gives that number exactly;
-- a part of a day counts by its share of the day's weight. nil: flat.
function R.profile_days(profile, from, span_days)
  local to = from + span_days * 86400
  if not profile then return span_days end
  local mean = 0
  for h = 1, 24 do mean = mean + profile[h] / 24 end
  local acc, t = 0, from
  while t < to do
    local k = math.floor(t / 3600)
    local next = math.min(to, (k + 1) * 3600)
    acc = acc + profile[k % 24 + 1] * (next - t)
    t = next
  end
  return acc / mean / 86400
end

-- Client-days of a browser cohort (its handle) over the measured window
-- [from, from + span_days days): its clients times the window's days
-- weighted by its daily profile of session starts (online_profile;
-- R.profile_days). Why: a client checks for updates (and fetches their
-- bytes) when a session starts, so over a window that is not a whole
-- number of days a plain count of days would make a rate per client-day
-- read high when the part day falls in the busy hours and low in the
-- quiet ones; over whole days the two are equal. A cohort always online
-- (sessions_per_day = 0) counts plain days. Call it in sim:on_finish
-- (command-line --set options are applied by then).
function R.client_days(b, from, span_days)
  local profile
  if b:get("sessions_per_day") > 0 then
    profile = {}
    for w in tostring(b:get("online_profile")):gmatch("[-+%d.eE]+") do
      profile[#profile + 1] = tonumber(w)
    end
    assert(#profile == 24, "online_profile: 24 hourly weights expected")
  end
  return b:get("count") * R.profile_days(profile, from, span_days)
end

-- Signatureless fraction of full handshakes (cohort: nil for all, or a
-- browser cohort name).
function R.fraction(s, cohort)
  local full = s:metric("handshake_full", cohort)
  local sl = s:metric("handshake_signatureless", cohort)
  if not full or full == 0 then return nil end
  return sl / full
end

local function hist(s, name, cohort)
  local h = s:metric(name, cohort)
  if not h or h.count == 0 then return nil end
  return h
end

function R.line(label, value)
  printf("  %-46s %s\n", label, value)
end

function R.header(title, s)
  printf("\n-- %s (replication %d) --\n", title, s.replication)
end

-- The servers' (leaf) keys behind the handshakes: "ed25519" or, when
-- several, each with its share of full handshakes.
local KEYS = { "ed25519", "ecdsa-p256", "ml-dsa-44", "ml-dsa-65", "ml-dsa-87" }
function R.leaf_keys(s)
  local total = s:metric("handshake_full_by_key")
  if not total or total == 0 then return nil end
  local parts = {}
  for _, k in ipairs(KEYS) do
    local n = s:metric("handshake_full_by_key", k)
    if n and n > 0 then parts[#parts + 1] = { k, n / total } end
  end
  if #parts == 1 then return parts[1][1] end
  local out = {}
  for _, p in ipairs(parts) do out[#out + 1] = string.format("%s %.0f %%", p[1], 100 * p[2]) end
  return table.concat(out, ", ")
end

-- Handshakes per cohort: signatureless fraction, bytes and round trips
-- against the baselines. The baselines carry the sites' own keys, so the
-- bytes saved are the certificate mechanism's; a ratio also depends on
-- the key (it is on both sides), hence the key beside it. Today's
-- deployment (each site's chain with its own leaf key) compares keys as
-- well.
function R.handshakes(s, cohorts)
  R.line("signatureless fraction, all cohorts", fmt(R.fraction(s), "%.4f"))
  for _, c in ipairs(cohorts or {}) do
    R.line("signatureless fraction, " .. c, fmt(R.fraction(s, c), "%.4f"))
  end
  local ab = hist(s, "auth_bytes")
  local key = R.leaf_keys(s)
  if ab then
    R.line("auth bytes per full handshake mean/p50/p99",
      string.format("%s / %s / %s", fmt(ab.mean, "%.0f"), fmt(ab.p50, "%.0f"), fmt(ab.p99, "%.0f")))
    if key then R.line("  server (leaf) keys", key) end
  end
  local function vs(label, name)
    local b = hist(s, name)
    if ab and b then
      R.line(label, string.format("%s bytes: saves %s, ratio %s", fmt(b.mean, "%.0f"),
        fmt(b.mean - ab.mean, "%.0f"), fmt(ab.mean / b.mean, "%.4f")))
    end
  end
  vs("  vs today's chain + SCTs, same key", "auth_bytes_baseline_classical")
  vs("  vs its ML-DSA-44 form, same key", "auth_bytes_baseline_mldsa44")
  vs("  vs today as served (own leaf key)", "auth_bytes_today_classical")
  local rt = hist(s, "extra_rtt_tcp")
  local rq = hist(s, "extra_rtt_quic")
  if rt then R.line("extra round trips, TCP / QUIC (mean)", fmt(rt.mean, "%.4f") .. " / " .. fmt(rq and rq.mean, "%.4f")) end
  for _, b in ipairs { { "classical", "classical chain" }, { "mldsa44", "ML-DSA-44 chain" } } do
    local bt = hist(s, "extra_rtt_tcp_baseline_" .. b[1])
    local bq = hist(s, "extra_rtt_quic_baseline_" .. b[1])
    if bt then
      R.line("  with the " .. b[2] .. ", same key", fmt(bt.mean, "%.4f") .. " / " .. fmt(bq and bq.mean, "%.4f"))
    end
  end
end

-- Resumed share of connections (resumed / (full + resumed)), all cohorts.
function R.resumption(s)
  local full, res = s:metric("handshake_full"), s:metric("handshake_resumed")
  if full and res and full + res > 0 then
    R.line("resumed share of handshakes", fmt(res / (full + res), "%.4f"))
  end
end

-- Handshake time (cohorts with a network path): p50 / p90 of full
-- handshakes, all cohorts and per cohort, against the same handshakes with
-- each baseline chain (same connection, same key), and resumed ones.
function R.latency(s, cohorts)
  local function one(label, c)
    local h = hist(s, "handshake_ms", c)
    if not h then return end
    R.line("handshake ms p50 / p90, " .. label,
      string.format("%s / %s", fmt(h.p50, "%.1f"), fmt(h.p90, "%.1f")))
    for _, b in ipairs { { "classical", "classical chain" }, { "mldsa44", "ML-DSA-44 chain" },
                         { "today", "today's chain" } } do
      local name = b[1] == "today" and "handshake_ms_today" or "handshake_ms_baseline_" .. b[1]
      local x = hist(s, name, c)
      if x then
        R.line("  with the " .. b[2],
          string.format("%s / %s ms, change %s / %s", fmt(x.p50, "%.1f"), fmt(x.p90, "%.1f"),
            fmt(100 * (h.p50 / x.p50 - 1), "%+.1f %%"), fmt(100 * (h.p90 / x.p90 - 1), "%+.1f %%")))
      end
    end
  end
  one("all cohorts", nil)
  for _, c in ipairs(cohorts or {}) do one(c, c) end
  local r = hist(s, "handshake_ms_resumed")
  if r then
    R.line("resumed handshake ms p50 / p90", string.format("%s / %s", fmt(r.p50, "%.1f"), fmt(r.p90, "%.1f")))
  end
end

-- The client update model, per cohort (docs/model.md, "the client update
-- model"): successful checks per client-day (client_days: {cohort =
-- R.client_days(handle, window start, measured days)}),
-- the age of the newest landmark held at each full handshake, the time
-- from a landmark's first publication to each client holding it, and the
-- mean share of online clients lacking the latest landmark (lacking: what
-- R.sample_lacking returned).
function R.updates(s, cohorts, client_days, lacking)
  for _, c in ipairs(cohorts) do
    local f = s:metric("update_fetch", c)
    if f and client_days[c] and client_days[c] > 0 then
      R.line(c .. ": checks per client-day", fmt(f / client_days[c], "%.3f"))
      R.record(s, "checks_per_client_day", f / client_days[c], c)
    end
    local a = hist(s, "landmark_age_at_handshake", c)
    if a then
      R.line(c .. ": landmark age at handshake p50/p90 h",
        fmt(a.p50 / 3600, "%.1f") .. " / " .. fmt(a.p90 / 3600, "%.1f"))
    end
    local h = hist(s, "landmark_time_to_holding", c)
    if h then
      R.line(c .. ": publication to holding p50/p90 h",
        fmt(h.p50 / 3600, "%.1f") .. " / " .. fmt(h.p90 / 3600, "%.1f"))
    end
    local l = lacking and lacking[c]
    if l and l.n > 0 then
      R.line(c .. ": online, lacking latest landmark", fmt(l.sum / l.n, "%.3f"))
      R.record(s, "lacking_latest_landmark_share", l.sum / l.n, c)
    end
  end
end

-- Samples every hour from `from` (half an hour off the metric grid, whose
-- points set the gauges) the share of each cohort's online clients lacking
-- the latest landmark; returns the accumulator R.updates reads.
function R.sample_lacking(sim, cohorts, from)
  local acc = {}
  for _, c in ipairs(cohorts) do acc[c] = { sum = 0, n = 0 } end
  sim:every(3600, function(s)
    for _, c in ipairs(cohorts) do
      local on = s:metric("clients_online", c)
      local lack = s:metric("clients_lacking_latest_landmark", c)
      if on and lack and on > 0 then
        acc[c].sum = acc[c].sum + lack / on
        acc[c].n = acc[c].n + 1
      end
    end
  end, from)
  return acc
end

-- Issuance delays per CA: standalone and landmark-relative.
function R.issuance(s, ca)
  for _, k in ipairs { "standalone", "landmark" } do
    local h = hist(s, "issuance_delay_" .. k, ca)
    if h then
      R.line(string.format("issuance delay %s%s, mean/p50/p99 s", k, ca and (" (" .. ca .. ")") or ""),
        string.format("%s / %s / %s", fmt(h.mean, "%.1f"), fmt(h.p50, "%.1f"), fmt(h.p99, "%.1f")))
    end
  end
end

-- PKI load: entries, signatures, storage, update sizes.
function R.pki(s, span_days)
  local e = s:metric("log_entries")
  if e then R.line("log entries appended", fmt(e, "%.0f")) end
  local sig = s:metric("signatures")
  if sig and span_days then
    R.line("checkpoint/subtree signatures per hour", fmt(sig / (span_days * 24), "%.0f"))
    R.record(s, "signatures_per_hour", sig / (span_days * 24))
  end
  local st = s:metric("log_storage_bytes")
  if st then R.line("log storage at the end (bytes)", fmt(st, "%.0f")) end
  local rp = s:metric("rp_state_bytes")
  if rp then R.line("relying-party state at the end (bytes)", fmt(rp, "%.0f")) end
  local up = hist(s, "update_publication_bytes")
  if up then R.line("update publication size mean/p99 (bytes)", fmt(up.mean, "%.0f") .. " / " .. fmt(up.p99, "%.0f")) end
  local ub = s:metric("update_bytes")
  local uf = s:metric("update_fetch")
  if ub and uf and uf > 0 then
    R.line("update bytes per successful fetch", fmt(ub / uf, "%.0f"))
    R.record(s, "update_bytes_per_fetch", ub / uf)
  end
end

return R
