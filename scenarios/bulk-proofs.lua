-- bulk-proofs.lua - what-if study: bulk subtree consistency proofs in the
-- update channel.
--
-- Question: how many update bytes per client-day does the update service
-- save when it ships one bulk subtree consistency proof per reference
-- checkpoint (draft-reilly-plants-bulk-subtree-proofs) instead of one
-- subtree consistency proof per new landmark subtree, as the MTC draft
-- does today - and how does the saving move with the landmark cadence?
--
-- Design compared (docs/model.md, "PKI side: bulk subtree proofs in
-- updates"): the update service ships reference checkpoints, their
-- cosignatures and the proofs to clients (include_proofs = true); `proofs`
-- sweeps "per_subtree" (the draft's default) and "bulk"; everything else
-- in the update, and in the world, is the same, so the two points differ
-- only in the proofs part of each update.
--
-- Assumptions (each cited from docs/sources.md by its label):
--   - 7-day certificates and hourly landmarks ([crqp-cadence]);
--     `landmark_interval` varies the cadence (--set
--     'landmark_interval=minutes(15)'). One mirror cosigns
--     ([crqp-cosign]), ML-DSA-44.
--   - The CA signs 6 million certificates per day whatever the
--     population sample ([le-rate]); `issuance` varies it.
--   - Clients check for updates 1 minute after start, then every 5 hours
--     ([chrome-updater]); 3 sessions a day of about an hour (assumption);
--     Zipf 1.2 popularity ([zipf-sites]).
--   - The update service fetches every 10 minutes (`fetch_interval`) and
--     publishes 10 minutes later: a bulk proof covers the subtrees new
--     since the last fetch, so landmarks per fetch set its size. A steady
--     warm-up (a week of history) before `days` measured days.
--
-- No network paths (handshake latency off): its question is update bytes
-- per client-day, which no handshake carries; quickstart and latency-mobile
-- report milliseconds.
--
-- Reading the result: one line per run - update bytes per client-day
-- (every successful check's delta, summed, over clients and measured
-- days), update bytes per successful check, and the mean size of a
-- publication's one-step delta. The two lines differ by the per-subtree
-- proofs against one bulk proof per reference (the closed form in
-- tests/test_pki_bulk.c). Measured (--set scale=0.05 --replications 1,
-- seed 1, 1 measured day; about 55 CPU s for both points), update bytes
-- per client-day, per_subtree / bulk: 145,736 / 149,257 (+2.4 %) at the
-- defaults (one landmark or none per fetch); with --set
-- landmark_interval=900 --set fetch_interval=3600 (four landmarks per
-- fetch) 230,030 / 202,177 (-12.1 %). More in docs/model.md, "PKI side:
-- bulk subtree proofs in updates".
local report = require "lib.report"

sweep("proofs", { "per_subtree", "bulk" })
local proofs = param("proofs", "per_subtree", "update proofs: per_subtree or bulk")
local li = param("landmark_interval", hours(1), "time between landmarks (s)")
local fetch = param("fetch_interval", minutes(10), "the update service's fetch period (s)")
local scale = param("scale", 1.0, "population sample (1 = the sizes below); the CA is unchanged")
local span = param("days", 1, "measured days after the warm-up")
local issuance = param("issuance", 6e6, "the CA's issuance, certificates per day")

local warm = steady_warmup{ lifetime = days(7), landmark_interval = li,
                            fetch_interval = fetch, publication_delay = minutes(10),
                            retry_after = 600 }
mtcsim.world{ duration = warm + days(span), warmup = warm, grid_step = hours(1) }
local mirror = mtcsim.cosigner{ name = "mirror", role = "mirror" }
mtcsim.ca{ name = "ca", rate = per_day(issuance), lifetime = days(7), landmark_interval = li,
           cosigners = { mirror }, quorum = 1 }
mtcsim.update_service{ name = "updates", fetch_interval = fetch,
                       publication_delay = minutes(10), include_proofs = true, proofs = proofs }
mtcsim.sites{ name = "sites", count = math.max(20, math.floor(2000 * scale)) }
local n = math.max(20, math.floor(20000 * scale))
local browsers = mtcsim.browsers{
  name = "clients", count = n,
  update_first_delay = 60, update_interval = hours(5), update_on_start = "always",
  sessions_per_day = 3, session_duration = lognormal{ median = hours(1), sigma = 1 },
  zipf_exponent = 1.2,
}

sim:on_finish(function(s)
  -- client-days weighted by the session-start profile (lib/report.lua)
  local cd = report.client_days(browsers, warm, span)
  local ub = s:metric("update_bytes") or 0
  local uf = s:metric("update_fetch") or 0
  local pub = s:metric("update_publication_bytes")
  printf("proofs %-11s  landmarks every %4.2f h  fetch every %4.2f h  rep %d  update bytes/client-day %s  per check %s  publication delta mean %s\n",
    proofs, li / 3600, fetch / 3600, s.replication,
    report.fmt(ub / cd, "%.0f"),
    report.fmt(uf > 0 and ub / uf or nil, "%.0f"),
    report.fmt(pub and pub.mean or nil, "%.0f"))
  report.record(s, "update_bytes_per_client_day", ub / cd)
  report.record(s, "update_bytes_per_fetch", uf > 0 and ub / uf or nil)
end)
