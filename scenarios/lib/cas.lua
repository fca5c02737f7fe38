-- lib/cas.lua - a population of CAs with a long-tailed market share
-- (`local cas = require "lib.cas"`).
--
-- cas.shares(n, leader, exponent): the market shares of n CAs, largest
-- first, summing to 1. The largest CA holds `leader` (default 0.57,
-- docs/sources.md [le-share]); the other n - 1 split the rest in
-- proportion to 1 / rank^exponent (rank 2..n; default exponent 1, a
-- Zipf law: an assumption, docs/sources.md [ca-zipf]). n = 1 gives {1}.
--
-- cas.declare{ n =, total_rate = | leader_rate =, leader =, exponent =,
--              tail_share =, tail_checkpoint_interval =,
--              cosigners_per_ca =, lifetime =, landmark_interval = }:
-- declares n CAs named "ca1" (largest) .. "caN", each with its own log,
-- its own landmark sequence and `cosigners_per_ca` (default 1) mirrors of
-- its own ("caK-m1", ...; quorum = all of them). Issuance is real,
-- independent of the population sample: every CA issues total_rate (all
-- CAs together; a rate such as per_day(1e7), or a number per second)
-- times its share; or give leader_rate, the largest CA's rate (then
-- total_rate = leader_rate / its share). A CA whose share is below
-- tail_share (default 0.01) closes checkpoints every
-- tail_checkpoint_interval (default 1 hour) instead of the default
-- minute: it keeps a 150-CA world cheap (each checkpoint costs real
-- signatures), and only delays such a CA's standalone certificates
-- (landmarks keep `landmark_interval`).
-- Returns { names = {...}, shares = {...}, ca_shares = {"ca1:0.57", ...} }:
-- give it to cas.sites below (mtcsim.sites{ ca_shares = } takes at most
-- 32 CAs).
--
-- cas.two{ issuance =, ca = }: the two-CA world of the cohort scenarios
-- (chrome-adoption, ldp-on-demand, revocation-reach): "le", issuing
-- `issuance` certificates a day, and "other", a third of that, each with
-- 7-day certificates, hourly landmarks and a mirror of its own
-- ("mirror-a", "mirror-b"; lognormal latency, medians 2 s and 3 s, sigma
-- 0.5; quorum 1), then the update service "component-updater", fetching
-- every 10 minutes. `ca`: more fields for both CAs (ldp = 1, ...).
-- Declare the world first; the sites (ca_shares "le:..", "other:..")
-- after.
local M = {}

function M.two(t)
  local function ca(name, rate, mirror)
    local c = { name = name, rate = per_day(rate), lifetime = days(7),
                landmark_interval = hours(1), cosigners = { mirror }, quorum = 1 }
    for k, v in pairs(t.ca or {}) do c[k] = v end
    mtcsim.ca(c)
  end
  local m1 = mtcsim.cosigner{ name = "mirror-a", role = "mirror", latency = lognormal{ median = 2, sigma = 0.5 } }
  local m2 = mtcsim.cosigner{ name = "mirror-b", role = "mirror", latency = lognormal{ median = 3, sigma = 0.5 } }
  ca("le", t.issuance, m1)
  ca("other", t.issuance / 3, m2)
  mtcsim.update_service{ name = "component-updater", fetch_interval = minutes(10) }
end

function M.shares(n, leader, exponent)
  n = math.floor(n or 0)
  if n < 1 then error("cas.shares: n must be >= 1", 2) end
  leader = leader or 0.57
  exponent = exponent or 1.0
  if not (leader > 0 and leader <= 1) then error("cas.shares: leader must be in (0, 1]", 2) end
  if n == 1 then return { 1.0 } end
  local w, sum = {}, 0
  for r = 2, n do
    w[r] = r ^ -exponent
    sum = sum + w[r]
  end
  local out = { leader }
  for r = 2, n do out[r] = (1 - leader) * w[r] / sum end
  return out
end

function M.declare(t)
  t = t or {}
  local n = math.floor(t.n or 10)
  local shares = M.shares(n, t.leader, t.exponent)
  local total = t.total_rate
  if total == nil and t.leader_rate ~= nil then
    local lr = t.leader_rate
    if mtcsim.is_rate(lr) then lr = lr.per_second end
    if type(lr) == "number" then total = lr / shares[1] end
  end
  if mtcsim.is_rate(total) then total = total.per_second end
  if type(total) ~= "number" or total < 0 then
    error("cas.declare: total_rate or leader_rate (a rate, e.g. per_day(6e6), or a number per second) is required", 2)
  end
  local tail = t.tail_share or 0.01
  local tail_cp = t.tail_checkpoint_interval or hours(1)
  local ncos = t.cosigners_per_ca or 1
  local names, items = {}, {}
  for k = 1, n do
    local name = "ca" .. k
    local cos = {}
    for j = 1, ncos do
      cos[j] = mtcsim.cosigner{ name = name .. "-m" .. j, role = "mirror" }
    end
    local ca = { name = name, rate = total * shares[k], cosigners = cos, quorum = ncos }
    if t.lifetime then ca.lifetime = t.lifetime end
    if t.landmark_interval then ca.landmark_interval = t.landmark_interval end
    if shares[k] < tail then ca.checkpoint_interval = tail_cp end
    mtcsim.ca(ca)
    names[k] = name
    items[k] = string.format("%s:%.17g", name, shares[k])
  end
  return { names = names, shares = shares, ca_shares = items }
end

-- cas.sites(pop, t): declares the sampled sites of the CA population
-- pop (from cas.declare), t.count sites in all, split across the CAs by
-- share. A site group lists at most 32 CAs, so the CAs go into groups of
-- 32 by rank ("<t.name>-1", ...), each with its part of the sites and,
-- as traffic_share, its CAs' share of the market; popularity is Zipf
-- within each group (a departure from one Zipf over all sites: a small
-- CA's sites get their group's traffic, not a random rank's). Other
-- fields of t are passed to every group. Returns the group names.
function M.sites(pop, t)
  local per = 32
  local n = #pop.names
  local groups = {}
  local count = t.count
  local made = 0
  for g = 1, math.ceil(n / per) do
    local from, to = (g - 1) * per + 1, math.min(g * per, n)
    local share = 0
    local items = {}
    for k = from, to do
      share = share + pop.shares[k]
      items[#items + 1] = pop.ca_shares[k]
    end
    local c
    if to == n then c = count - made else c = math.floor(count * share + 0.5) end
    c = math.max(1, c)
    made = made + c
    local grp = {}
    for k, v in pairs(t) do grp[k] = v end
    grp.name = n > per and (t.name .. "-" .. g) or t.name
    grp.count = c
    grp.ca_shares = items
    if n > per then grp.traffic_share = share end
    mtcsim.sites(grp)
    groups[g] = grp.name
  end
  return groups
end

return M
