-- lib/cohorts.lua - a population of browser cohorts for the scenario
-- library (`local cohorts = require "lib.cohorts"`): one definition of an
-- everyday browser's habits and of how a population of n clients splits
-- into cohorts, for the scenarios that compare cohorts which differ in a
-- few fields (an update delay, never updating, how they learn revocations).
--
-- cohorts.habits(): a fresh table of an everyday browser install's habits:
--   3 sessions a day of a lognormal length (median 1 h, sigma 1); away
--   (offline) with probability 0.02 a session, for a Pareto time (shape
--   1.5, scale 1 day); 20 visits an hour, each to 1, 3, 6 or 10 hosts
--   (weights 3, 3, 3, 1), and 3, 6 or 12 hosts at the start of a session
--   (weights 2, 2, 1; docs/sources.md [startup-burst]); site popularity
--   Zipf with exponent 1.2; session tickets kept a day; an update check
--   60 s after the first start, then every 5 h and at every start (the
--   component updater's schedule), 1 % of checks failing. Apart from
--   [startup-burst], assumptions of the scenarios that use it.
-- cohorts.population(n): cohorts drawn from n clients, sharing one habits
--   table. pop.add(name, share, device, extra) declares the cohort `name`
--   of max(1, floor(n * share)) browsers: the habits, then the platform
--   `device` of lib/platform.lua ("desktop", "mobile"; nil: none, the
--   browser model's defaults), then the fields of `extra` (nil: none),
--   each replacing what came before; returns the cohort's handle.
--   pop.count[name] and pop.handle[name]: its size and handle.
local platform = require "lib.platform"

local M = {}

function M.habits()
  return {
    sessions_per_day = 3, session_duration = lognormal{ median = hours(1), sigma = 1 },
    away_prob = 0.02, away_duration = pareto{ shape = 1.5, scale = days(1) },
    visits_per_hour = 20, hosts_per_visit = empirical{ values = { 1, 3, 6, 10 }, weights = { 3, 3, 3, 1 } },
    startup_hosts = empirical{ values = { 3, 6, 12 }, weights = { 2, 2, 1 } },  -- [startup-burst]
    zipf_exponent = 1.2, ticket_lifetime = days(1),
    update_first_delay = 60, update_interval = hours(5), update_on_start = "always",
    update_fail_prob = 0.01,
  }
end

function M.population(n)
  local habits = M.habits()
  local pop = { count = {}, handle = {} }
  function pop.add(name, share, device, extra)
    local t = { name = name, count = math.max(1, math.floor(n * share)) }
    for k, v in pairs(habits) do t[k] = v end
    if device then platform.merge(t, device) end
    for k, v in pairs(extra or {}) do t[k] = v end
    pop.count[name] = t.count
    pop.handle[name] = mtcsim.browsers(t)
    return pop.handle[name]
  end
  return pop
end

return M
