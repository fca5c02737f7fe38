-- mtcsim.lua - the scenario library (embedded in the mtcsim binary).
--
-- Called once per Lua state by the host with the C parts as argument; it
-- returns the module table (what `require "mtcsim"` gives) and installs the
-- common helpers as globals, so a scenario reads like a description:
--   mtcsim.ca{ name = "le", rate = per_day(6e6) }
--   sim:at(days(3), "cosigner_down", "w1")
-- Everything numeric is in seconds (times) and per second (rates).
local C = ...

local M = {}

-- ---------------------------------------------------------------------------
-- units

local function unit(name, factor)
  return function(x)
    if type(x) ~= "number" then
      error(name .. ": expected a number, got " .. type(x), 2)
    end
    return x * factor
  end
end

M.seconds = unit("seconds", 1)
M.minutes = unit("minutes", 60)
M.hours = unit("hours", 3600)
M.days = unit("days", 86400)
M.weeks = unit("weeks", 7 * 86400)
M.milliseconds = unit("milliseconds", 1e-3)
-- Rates are values with a unit: per_day(6e6) given to a parameter in 1/s
-- becomes 69.4, given to one in 1/h becomes 250000 (the binding converts
-- by the parameter's unit). A plain number is taken in the parameter's
-- own unit. r.per_second is the number; rates scale with * and /.
local R = C.rate_mt
local function rate(x) return setmetatable({ per_second = x }, R) end
local function is_rate(x) return getmetatable(x) == R end
R.__index = function(r, k)
  if k == "per_minute" then return r.per_second * 60
  elseif k == "per_hour" then return r.per_second * 3600
  elseif k == "per_day" then return r.per_second * 86400 end
end
R.__mul = function(a, b)
  if is_rate(a) and type(b) == "number" then return rate(a.per_second * b) end
  if is_rate(b) and type(a) == "number" then return rate(b.per_second * a) end
  error("a rate can only be multiplied by a number", 2)
end
R.__div = function(a, b)
  if is_rate(a) and type(b) == "number" then return rate(a.per_second / b) end
  if is_rate(a) and is_rate(b) then return a.per_second / b.per_second end
  error("a rate can only be divided by a number or a rate", 2)
end
R.__add = function(a, b)
  if is_rate(a) and is_rate(b) then return rate(a.per_second + b.per_second) end
  error("a rate can only be added to a rate", 2)
end
R.__eq = function(a, b) return a.per_second == b.per_second end
R.__lt = function(a, b) return a.per_second < b.per_second end
R.__le = function(a, b) return a.per_second <= b.per_second end
R.__tostring = function(r) return string.format("%g/s", r.per_second) end
R.__name = "mtcsim.rate"

local function rate_unit(name, per)
  return function(x)
    if type(x) ~= "number" then
      error(name .. ": expected a number, got " .. type(x), 2)
    end
    if x < 0 or x ~= x then error(name .. ": a rate must be >= 0", 2) end
    return rate(x / per)
  end
end
M.per_second = rate_unit("per_second", 1)
M.per_minute = rate_unit("per_minute", 60)
M.per_hour = rate_unit("per_hour", 3600)
M.per_day = rate_unit("per_day", 86400)
M.is_rate = is_rate
-- quantity("5h") -> 18000, "duration"; quantity("6e6/d") -> 69.4.., "rate"
-- (seconds, or per second). Parameters also take such strings directly.
M.quantity = C.quantity

-- ---------------------------------------------------------------------------
-- distributions (C userdata; see ldist.c) and daily profiles

for _, k in ipairs { "constant", "exponential", "lognormal", "weibull",
                     "pareto", "gamma", "uniform", "empirical", "zipf",
                     "is_dist", "random" } do
  M[k] = C[k]
end

-- A daily profile: 24 relative weights, hour 0 = midnight UTC (plus any
-- phase the model applies). daily_profile{...24 numbers...} checks it.
function M.daily_profile(t)
  if type(t) ~= "table" or #t ~= 24 then
    error("daily_profile: expected a list of 24 hourly weights", 2)
  end
  local sum = 0
  for i = 1, 24 do
    local v = t[i]
    if type(v) ~= "number" or v < 0 or v ~= v then
      error("daily_profile: hour " .. (i - 1) .. " must be a number >= 0", 2)
    end
    sum = sum + v
  end
  if sum <= 0 then error("daily_profile: all weights are zero", 2) end
  local p = {}
  for i = 1, 24 do p[i] = t[i] end
  return p
end

-- diurnal{peak_hour = 20, ratio = 3}: a cosine over the day with its
-- maximum at peak_hour and max/min = ratio.
function M.diurnal(t)
  if type(t) ~= "table" then error("diurnal: expected {peak_hour=, ratio=}", 2) end
  for k in pairs(t) do
    if k ~= "peak_hour" and k ~= "ratio" then
      error("diurnal: unknown field '" .. tostring(k) .. "' (fields: peak_hour, ratio)", 2)
    end
  end
  local peak, ratio = t.peak_hour or 20, t.ratio or 2
  if type(peak) ~= "number" or peak < 0 or peak >= 24 then
    error("diurnal: peak_hour must be in [0, 24)", 2)
  end
  if type(ratio) ~= "number" or ratio < 1 then
    error("diurnal: ratio must be >= 1", 2)
  end
  local a = (ratio - 1) / (ratio + 1)
  local p = {}
  for h = 0, 23 do
    p[h + 1] = 1 + a * math.cos(2 * math.pi * ((h + 0.5) - peak) / 24)
  end
  return p
end

function M.flat_profile()
  local p = {}
  for i = 1, 24 do p[i] = 1 end
  return p
end

-- ---------------------------------------------------------------------------
-- world declarations: one constructor per entity kind (C, schema-driven)

M.kinds = {}
for _, kind in ipairs(C.kind_names) do
  M[kind] = C[kind]
  M.kinds[#M.kinds + 1] = kind
end
table.sort(M.kinds)
M.schemas = C.schemas
M.actions = C.actions
M.core = C.core
M.sim = C.sim

-- ---------------------------------------------------------------------------
-- scenario parameters, sweeps and replications

local declared = { params = {}, order = {}, sweeps = {}, sweep_order = {} }
local overrides, point, sweep_over = {}, {}, {}

-- Called by the host before the scenario runs: --set values (raw strings;
-- an entity's parameter, "browsers.b.rtt", is the binding's business),
-- this run's sweep point (name -> value), and --sweep lists (name -> raw
-- "V1,V2,...").
function M._configure(o, p, sw)
  overrides, point, sweep_over = {}, p or {}, sw or {}
  for k, v in pairs(o or {}) do
    if not k:find(".", 1, true) then overrides[k] = v end
  end
end

local function check_name(fn, name)
  if type(name) ~= "string" or not name:match("^[%a_][%w_]*$") then
    error(fn .. ": the name must be an identifier string, got " .. tostring(name), 3)
  end
end

local env_for_set = setmetatable({}, { __index = M })

-- "1,hours(2),{a,b}" -> { "1", "hours(2)", "{a,b}" }: split at the commas
-- outside brackets and quotes, so that an expression keeps its own.
local function split_values(name, raw)
  local out, depth, start, quote = {}, 0, 1, nil
  for i = 1, #raw + 1 do
    local c = raw:sub(i, i)
    if quote then
      if c == quote then quote = nil end
    elseif c == '"' or c == "'" then quote = c
    elseif c == "(" or c == "{" or c == "[" then depth = depth + 1
    elseif c == ")" or c == "}" or c == "]" then depth = depth - 1
    elseif (c == "," and depth == 0) or i == #raw + 1 then
      local v = raw:sub(start, i - 1):match("^%s*(.-)%s*$")
      if v == "" then
        error(string.format("--sweep %s=%s: value %d is empty", name, raw,
          #out + 1), 0)
      end
      out[#out + 1] = v
      start = i + 1
    end
  end
  return out
end

local function convert(name, raw, default, opt)
  local t = type(default)
  if t == "number" then
    local v = tonumber(raw)
    if v == nil and raw:match("^%s*[%d.]") then   -- "5h", "6e6/d"
      local ok, q = pcall(C.quantity, raw)
      if ok then v = q end
    end
    if v == nil then
      local f = load("return " .. raw, "=" .. opt .. " " .. name, "t", env_for_set)
      local ok, r = false, nil
      if f then ok, r = pcall(f) end
      if not ok or type(r) ~= "number" then
        error(string.format("%s %s=%s: expected a number, a quantity such as "
          .. "\"5h\" or \"6e6/d\", or an expression such as hours(2) (the "
          .. "default is %s)", opt, name, raw, tostring(default)), 0)
      end
      v = r
    end
    if v ~= v or v == math.huge or v == -math.huge then
      error(string.format("%s %s=%s: not a finite number", opt, name, raw), 0)
    end
    if math.type(default) == "integer" and math.type(v) == "float"
        and v == math.floor(v) and math.abs(v) < 2^53 then
      v = math.tointeger(v)
    end
    return v
  elseif t == "boolean" then
    local m = { ["true"] = true, ["1"] = true, yes = true,
                ["false"] = false, ["0"] = false, no = false }
    if m[raw] == nil then
      error(string.format("%s %s=%s: expected true or false", opt, name, raw), 0)
    end
    return m[raw]
  end
  return raw
end

-- param(name, default, doc): a scenario parameter. Its value is the
-- --set value if given, else this run's sweep value, else the default.
function M.param(name, default, doc)
  check_name("param", name)
  local t = type(default)
  if t ~= "number" and t ~= "string" and t ~= "boolean" then
    error("param '" .. name .. "': the default must be a number, string or boolean", 2)
  end
  if doc ~= nil and type(doc) ~= "string" then
    error("param '" .. name .. "': the documentation must be a string", 2)
  end
  if declared.params[name] then
    error("param '" .. name .. "' declared twice", 2)
  end
  local v, source = default, "default"
  local sw = declared.sweeps[name]
  if sweep_over[name] ~= nil then
    -- --sweep NAME=V1,V2: the axis takes these values, converted as --set
    -- converts one; a parameter the scenario does not sweep becomes an
    -- axis (after the declared ones)
    local raw = sweep_over[name]
    local values = {}
    for i, r in ipairs(split_values(name, raw)) do
      values[i] = convert(name, r, default, "--sweep")
    end
    if not sw then
      sw = { name = name }
      declared.sweeps[name] = sw
      declared.sweep_order[#declared.sweep_order + 1] = name
    end
    sw.values = values
  elseif sw and overrides[name] ~= nil then
    -- --set of a swept parameter: the axis stays, with that one value, so
    -- that the run is still marked swept in it
    sw.values = { convert(name, overrides[name], default, "--set") }
  end
  if sw then
    for _, x in ipairs(sw.values) do
      if type(x) ~= t then
        error(string.format("param '%s': sweep values must be of the default's "
          .. "type (%s)", name, t), 2)
      end
    end
    if point[name] ~= nil then v = point[name] else v = sw.values[1] end
    source = "sweep"
  end
  if overrides[name] ~= nil then
    v = convert(name, overrides[name], default, "--set")
    source = "--set"
  end
  declared.params[name] = { name = name, default = default, doc = doc or "",
                            value = v, source = source }
  declared.order[#declared.order + 1] = name
  return v
end

local MAX_POINTS = 100000

-- sweep(name, {v1, v2, ...}): run the scenario once per value of the
-- parameter `name` (declared later with param). Several sweeps form a
-- grid, the first declared varying slowest.
function M.sweep(name, values)
  check_name("sweep", name)
  if declared.params[name] then
    error("sweep '" .. name .. "' must come before param('" .. name .. "')", 2)
  end
  if declared.sweeps[name] then error("sweep '" .. name .. "' declared twice", 2) end
  if type(values) ~= "table" or #values == 0 then
    error("sweep '" .. name .. "': expected a non-empty list of values", 2)
  end
  local t = type(values[1])
  local copy = {}
  for i, v in ipairs(values) do
    if type(v) ~= t or (t ~= "number" and t ~= "string" and t ~= "boolean") then
      error(string.format("sweep '%s': value %d is a %s; all values must be "
        .. "numbers, strings or booleans of one type", name, i, type(v)), 2)
    end
    copy[i] = v
  end
  -- the grid is what the host plans and allocates for: keep it sane
  local points = #copy
  for _, n in ipairs(declared.sweep_order) do
    points = points * #declared.sweeps[n].values
  end
  if points > MAX_POINTS then
    error(string.format("sweep '%s': the grid would have %.0f points (at most "
      .. "%d)", name, points, MAX_POINTS), 2)
  end
  declared.sweeps[name] = { name = name, values = copy }
  declared.sweep_order[#declared.sweep_order + 1] = name
end

-- replications(n): default number of replications (--replications wins).
function M.replications(n)
  if math.type(n) ~= "integer" or n < 1 or n > 100000 then
    error("replications: expected an integer from 1 to 100000", 2)
  end
  declared.replications = n
end

-- What the scenario declared (read by the host after it ran).
function M._declared()
  local params, sweeps = {}, {}
  for i, n in ipairs(declared.order) do params[i] = declared.params[n] end
  for i, n in ipairs(declared.sweep_order) do sweeps[i] = declared.sweeps[n] end
  return { params = params, sweeps = sweeps, replications = declared.replications }
end

-- ---------------------------------------------------------------------------
-- steady start

-- steady_warmup{ lifetime =, landmark_interval =, fetch_interval =,
--                publication_delay =, retry_after = }: the history a
-- steady start needs before the measured window (seconds), the sum the
-- world checks at start: the longest certificate lifetime plus its CA's
-- landmark interval, the update service's fetch interval plus its mean
-- publication delay (a number or a distribution), and the sites' ACME
-- Retry-After. Omitted terms are 0 except lifetime and landmark_interval,
-- which are required. Use it as the warm-up, or as part of a longer one.
function M.steady_warmup(t)
  if type(t) ~= "table" then
    error("steady_warmup: expects a table { lifetime =, landmark_interval =, ... }", 2)
  end
  local function dur(k, required)
    local v = t[k]
    if v == nil then
      if required then error("steady_warmup: " .. k .. " is required", 3) end
      return 0
    end
    if type(v) == "userdata" and v.mean then v = v:mean() end
    if type(v) ~= "number" or v ~= v or v < 0 or v == math.huge then
      error("steady_warmup: " .. k .. " must be a finite duration >= 0", 3)
    end
    return v
  end
  for k in pairs(t) do
    if k ~= "lifetime" and k ~= "landmark_interval" and k ~= "fetch_interval"
       and k ~= "publication_delay" and k ~= "retry_after" then
      error("steady_warmup: unknown field " .. tostring(k), 2)
    end
  end
  return dur("lifetime", true) + dur("landmark_interval", true)
         + dur("fetch_interval") + dur("publication_delay")
         + dur("retry_after")
end

-- ---------------------------------------------------------------------------
-- output helpers

function M.printf(fmt, ...)
  io.write(string.format(fmt, ...))
end

-- mtcsim.ratio(a, b): a / b, or nil when b is 0 or either is nil.
function M.ratio(a, b)
  if a == nil or b == nil or b == 0 then return nil end
  return a / b
end

-- ---------------------------------------------------------------------------
-- globals

for _, k in ipairs { "seconds", "minutes", "hours", "days", "weeks",
                     "milliseconds", "per_second", "per_minute", "per_hour",
                     "per_day", "constant", "exponential", "lognormal",
                     "weibull", "pareto", "gamma", "uniform", "empirical",
                     "zipf", "daily_profile", "diurnal", "flat_profile",
                     "param", "sweep", "replications", "printf",
                     "steady_warmup" } do
  _G[k] = M[k]
end
_G.sim = M.sim
_G.mtcsim = M

return M
