-- lib/platform.lua - the client platforms of the scenario library: what a
-- desktop and a phone bring to a handshake, their network path and how fast
-- they verify certificates (`local platform = require "lib.platform"`).
--
-- One definition for every scenario, so a cohort described as mobile cannot
-- take the phones' network path without the phones' verification speed
-- (or the reverse).
--
-- platform.cohort(name [, overrides]): a fresh table of browser-cohort
--   parameters for the platform `name` ("desktop" or "mobile"), to merge
--   into a cohort's table. `overrides` replaces fields (a scenario that
--   studies other paths gives its own rtt, bandwidth, loss; the device's
--   cpu_slowdown stays the platform's unless it is overridden too). An
--   unknown name raises an error naming the known ones.
-- platform.names: { "desktop", "mobile" }.
-- platform.merge(t, name [, overrides]): merges platform.cohort(name,
--   overrides) into t and returns t.
--
-- The platforms (each cited from docs/sources.md by its label):
--   - desktop: RTT lognormal, median 74 ms, sigma 0.38; bandwidth
--     lognormal, median 107.5 Mbit/s, sigma 1.0 [path-model] after
--     Chrome's own RTT estimates [crux-rtt] and Speedtest's fixed-broadband
--     median [ookla-speed]; verifies at the development machine's measured
--     speed (cpu_slowdown 1) [verify-time].
--   - mobile: RTT lognormal, median 113 ms, sigma 0.43; bandwidth
--     lognormal, median 55.1 Mbit/s, sigma 1.0 [path-model] [crux-rtt]
--     [ookla-speed] (Speedtest's mobile median); verifies 3 times slower
--     (cpu_slowdown 3), an assumption inside the bracket of [mobile-cpu].
-- No loss and no jitter on either path (the sourced figures give neither).
local M = {}

M.names = { "desktop", "mobile" }

-- Built anew on each call: a caller may change the table it receives.
local function base(name)
  if name == "desktop" then
    return { rtt = lognormal{ median = 74, sigma = 0.38 },
             bandwidth = lognormal{ median = 107.5e6, sigma = 1.0 },
             cpu_slowdown = 1 }
  elseif name == "mobile" then
    return { rtt = lognormal{ median = 113, sigma = 0.43 },
             bandwidth = lognormal{ median = 55.1e6, sigma = 1.0 },
             cpu_slowdown = 3 }
  end
  return nil
end

-- The table of platform `name` with `overrides`, or nil and the error.
local function build(name, overrides)
  local t = base(name)
  if t == nil then
    return nil, string.format("platform: unknown platform '%s' (known: %s)",
                              tostring(name), table.concat(M.names, ", "))
  end
  if overrides ~= nil then
    if type(overrides) ~= "table" then return nil, "platform: overrides must be a table" end
    for k, v in pairs(overrides) do t[k] = v end
  end
  return t
end

function M.cohort(name, overrides)
  local t, err = build(name, overrides)
  if t == nil then error(err, 2) end
  return t
end

function M.merge(t, name, overrides)
  if type(t) ~= "table" then error("platform.merge: the cohort must be a table", 2) end
  local p, err = build(name, overrides)
  if p == nil then error(err, 2) end
  for k, v in pairs(p) do t[k] = v end
  return t
end

return M
