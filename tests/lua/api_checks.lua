-- api_checks.lua - the scenario API checked from Lua (run by
-- tests/sh_lua_api.sh with `mtcsim run`): units, rates, distributions,
-- profiles, params, and the real core (trees, proofs, certificates,
-- relying party). Every check can fail; the run exits 2 when one does.
local core = mtcsim.core
local n = 0
local function check(cond, what)
  n = n + 1
  if not cond then error("check failed: " .. what, 2) end
end
local function near(a, b, tol) return math.abs(a - b) <= tol * math.max(1, math.abs(b)) end

-- units and rates
check(minutes(2) == 120 and hours(1) == 3600 and days(1) == 86400, "units")
check(weeks(1) == 7 * 86400 and milliseconds(5) == 0.005, "units 2")
local r = per_day(8.64e6)
check(near(r.per_second, 100, 1e-12), "per_day")
check(near(r.per_hour, 360000, 1e-12), "rate per_hour view")
check(near((r * 2).per_second, 200, 1e-12), "rate scaling")
check(near(per_hour(7200) / per_minute(60), 2, 1e-12), "rate ratio")
check(not pcall(per_hour, "x"), "per_hour rejects strings")
check(not pcall(per_hour, -1), "negative rate rejected")

-- distributions: GSL-backed samplers, means and CDFs
local e = exponential{ mean = 10 }
check(e:mean() == 10 and e:name() == "exponential", "exponential mean")
check(near(e:cdf(10), 1 - math.exp(-1), 1e-12), "exponential cdf")
local xs = e:sample(100000)
local s = 0
for _, x in ipairs(xs) do s = s + x end
check(near(s / #xs, 10, 0.02), "exponential sample mean " .. s / #xs)
check(near(exponential{ rate = 0.5 }:mean(), 2, 1e-12), "exponential rate")
local ln = lognormal{ median = 100, sigma = 0.5 }
check(near(ln:mean(), 100 * math.exp(0.125), 1e-12), "lognormal mean")
check(near(ln:cdf(100), 0.5, 1e-9), "lognormal median")
check(near(weibull{ scale = 2, shape = 1 }:mean(), 2, 1e-12), "weibull")
check(near(pareto{ shape = 3, scale = 2 }:mean(), 3, 1e-12), "pareto")
check(near(gamma{ shape = 2, scale = 3 }:mean(), 6, 1e-12), "gamma")
check(near(uniform{ lo = 1, hi = 3 }:mean(), 2, 1e-12), "uniform")
check(near(empirical{ values = { 1, 2, 3 }, weights = { 1, 1, 2 } }:mean(), 2.25, 1e-12), "empirical")
check(near(constant(4):mean(), 4, 0), "constant")
local z = zipf{ n = 1000, s = 1.2 }
check(z:cdf(1) > 0.2 and z:cdf(1000) > 0.999999, "zipf cdf")
check(tostring(e):match("^exponential"), "tostring of a distribution")
for _, bad in ipairs {
  function() return exponential{ mean = -1 } end,
  function() return exponential{ mena = 1 } end,
  function() return lognormal{ mu = 1 } end,
  function() return uniform{ lo = 3, hi = 1 } end,
  function() return zipf{ n = 0, s = 1 } end,
  function() return empirical{ values = {} } end,
} do
  check(not pcall(bad), "bad distribution refused")
end
local ok, msg = pcall(exponential, { mena = 1 })
check(not ok and msg:match("unknown field 'mena'"), "unknown field named: " .. tostring(msg))

-- profiles
local p = diurnal{ peak_hour = 20, ratio = 3 }
check(#p == 24, "diurnal has 24 hours")
local mx, mn = 0, math.huge
for _, v in ipairs(p) do mx = math.max(mx, v); mn = math.min(mn, v) end
check(near(mx / mn, 3, 0.05), "diurnal ratio")
check(not pcall(daily_profile, { 1, 2 }), "short profile refused")

-- params
local x = param("x", 5, "a test parameter")
check(x == 5 or x == 7, "param default or --set")
check(not pcall(param, "x", 1), "param declared twice refused")

-- the schemas give every default whole: the sites' chain mix is a long
-- list (a fixed buffer once cut it mid-item)
local mix
for _, p in ipairs(mtcsim.schemas().sites.params) do
  if p.name == "chain_mix" then mix = p.default end
end
check(mix and mix:match("^%[le%-ecdsa%-cross:6,") and mix:match(",amazon%-rsa%-cross2%-root%-4096:0%.139232%]$"),
      "chain_mix default whole")

-- deterministic scenario randomness
check(mtcsim.random() >= 0 and mtcsim.random(6) <= 6, "random")

-- the real core: hashes
check(core.hex(core.sha256("abc")) ==
  "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad", "SHA-256('abc')")
check(core.leaf_hash("") == core.sha256("\0"), "leaf hash = SHA-256(0x00 || d)")

-- Merkle tree: every inclusion proof verifies, every mutation fails
local entries = {}
for i = 1, 13 do entries[i] = "entry " .. i end
local t = core.tree(entries)
check(t:size() == 13, "tree size")
local root = t:root()
for i = 0, 12 do
  local proof = t:inclusion_proof(i)
  local lh = core.leaf_hash(entries[i + 1])
  check(core.verify_inclusion(i, 0, 13, lh, proof, root), "inclusion " .. i)
  for k = 1, #proof do
    local bad = {}
    for j, h in ipairs(proof) do bad[j] = h end
    bad[k] = core.sha256(bad[k])
    check(not core.verify_inclusion(i, 0, 13, lh, bad, root), "mutated proof refused")
  end
end
for m = 1, 12 do
  check(core.verify_consistency(m, 13, t:root(m), root, t:consistency_proof(m)), "consistency " .. m)
end
local a, b = core.covering_subtrees(5, 13)
check(a[1] <= 5 and b[2] == 13, "covering subtrees")
check(core.max_active_landmarks(days(7), hours(1)) == 169, "max_active_landmarks (draft formula)")

-- certificates: a CA, a checkpoint, a landmark, and the relying party
local ca = core.ca{ id = "32473.1", algorithm = "ml-dsa-44", witnesses = 2 }
for i = 1, 6 do ca:issue("host" .. i .. ".example") end
ca:checkpoint()
check(ca:landmark() == 1, "first landmark")
for i = 7, 9 do ca:issue("host" .. i .. ".example") end
ca:checkpoint()     -- a second batch, not (yet) covered by a landmark
local sa = ca:certificate(7, "standalone")
local lr = ca:certificate(2, "landmark")
local rp = ca:relying_party()
local okv, reason, info = rp:verify(sa)
check(okv and reason == "ok" and not info.landmark and info.valid_signatures == 3,
  "standalone verifies with 3 ML-DSA-44 cosignatures: " .. reason .. " " .. info.valid_signatures)
check(not pcall(ca.certificate, ca, 7, "landmark"), "no landmark covers entry 7 yet")
okv, reason, info = rp:verify(lr)
check(okv and info.landmark, "landmark-relative verifies: " .. reason)
check(#sa - #lr > 3 * 2400, "landmark-relative is smaller by about the three signatures")
local pc = core.parse_certificate(sa)
check(pc.signatures == 3 and pc.bytes == #sa, "parse_certificate")
local flipped = sa:sub(1, 200) .. string.char((sa:byte(201) ~ 1)) .. sa:sub(202)
check(not rp:verify(flipped), "a flipped byte is refused")
local rp_no_lm = ca:relying_party{ landmarks = false }
check(not rp_no_lm:verify(lr), "landmark-relative needs the landmark")
local base = core.baseline("ml-dsa-44")
check(base.leaf_bytes > 2 * 2420, "ML-DSA-44 baseline leaf carries two signatures")
check(#core.algorithms() >= 5, "algorithm table")
-- core.chain: the private profile, post-quantum: two certificates (the
-- root is not sent), no SCTs; one level up adds, per certificate, the
-- signature's and the key's growth (889 + 640 bytes at ML-DSA-65) and
-- the CertificateVerify's signature growth (889), nothing else
local c44 = core.chain("private", { dns_name = "s1.corp.example", leaf = "ml-dsa-44", ca = "ml-dsa-44" })
local c65 = core.chain("private", { dns_name = "s1.corp.example", leaf = "ml-dsa-65", ca = "ml-dsa-65" })
check(c44.certificates == 2 and c44.sct_list_bytes == 0, "private chain: two certificates, no SCTs")
check(c44.handshake_signature_bytes == 2420 and c65.handshake_signature_bytes == 3309, "CertificateVerify signature")
check(c44.auth_bytes == c44.certificate_message_bytes + c44.certificate_verify_bytes, "auth bytes = Certificate + CertificateVerify")
check(c44.certificate_message_bytes == 4 + 1 + 3 + (3 + c44.der_bytes[1] + 2) + (3 + c44.der_bytes[2] + 2),
  "Certificate message framing (RFC 8446 section 4.4.2)")
check(c65.auth_bytes - c44.auth_bytes == 2 * (889 + 640) + 889, "ML-DSA-65 over 44: " .. (c65.auth_bytes - c44.auth_bytes))
check(core.chain("le-ecdsa").sct_list_bytes > 0, "a public profile carries SCTs")
check(not pcall(core.chain, "no-such-profile"), "unknown profile refused")
check(not pcall(core.chain, "private", { ca = "ml-dsa-99" }), "unknown algorithm refused")

printf("api checks: %d passed\n", n)
