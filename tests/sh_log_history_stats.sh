#!/bin/sh
# Synthetic log history where it cannot be bit-identical (docs/model-pki.md
# "Synthetic history"): a small world whose CA and two cosigners sign with
# ECDSA P-256 (DER signatures of 70 to 72 bytes by the signed hash), whose
# update service ships cosignatures and proofs, and whose sites and two of
# three browser cohorts compress certificates (RFC 8879), one cohort
# MTC-aware and two not (standalone certificates: the CA's signature and
# both cosignatures in every one). REPS replications with each history,
# replication r on the same seed in both (common random numbers), compared
# by `mtcsim compare` (paired intervals; its headline list, and with --all
# every statistic). Stated before any run:
#  - exact: every statistic outside BYTES below is the same in both
#    histories (tree sizes, log entries and storage, signatures, landmark
#    subtree sizes, proof hashes in updates, handshake counts,
#    signatureless and fallback shares, issuance delays, verification
#    failures; CPU-time measurements aside), and the synthetic runs have
#    every statistic the hashed runs have. BYTES: the byte counts a
#    signature or a compressed length enters (certificates, proofs with
#    their signatures, updates, monitor fetches) and what bytes decide
#    (handshake times, flight shares, extra round trips, and the client's
#    verification time, which hashes a certificate in 128-byte blocks);
#  - indistinguishable: each statistic of BYTES that differs has a paired
#    interval of B - A that contains 0 at family-wise 95 % (Bonferroni
#    over those statistics);
#  - equivalent, for the headline figures linear in per-item bytes (means,
#    sums, ratios of means; a histogram quantile interpolates within a
#    bin, so one byte can move it further): the paired 95 % interval lies
#    inside the documented bound, 2 bytes per signature and 1 per
#    compressed certificate: auth_bytes.mean and auth_bytes_saved_vs_*
#    within +-(2 x 3 + 1) B, a ratio of means within that over A's
#    auth_bytes.mean (relative), update_bytes within 2/70 of A's
#    cosignature bytes (a signature is at least 70 B),
#    update_publication_bytes.mean within 2/70 of A's;
#  - not vacuous: auth_bytes.mean, update_bytes and
#    cert_message_bytes_compressed differ in some replication.
# Seen failing on purpose-broken synthetic histories: an interior node over
# an observed entry that is not the hash of its children (cosigners refuse,
# nothing is issued), a background entry dropped from each bulk append
# (tree sizes, delays, storage), and one byte more per sampled standalone
# proof (standalone_proof_bytes.mean +1.0 B, its interval excludes 0).
set -u
b=${1:-build}
m="$b/mtcsim"
REPS=12
fail() { echo "FAIL: $*"; exit 1; }
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
cat > "$t/w.lua" <<'EOF'
-- a one-day-lifetime CA at 100,000 certificates a day, hourly landmarks
local li = hours(1)
local warm = steady_warmup{ lifetime = days(1), landmark_interval = li,
                            fetch_interval = minutes(10), publication_delay = minutes(10),
                            retry_after = 600 }
mtcsim.world{ duration = warm + hours(6), warmup = warm, grid_step = hours(1) }
local witness = mtcsim.cosigner{ name = "witness", role = "witness", algorithm = "ecdsa-p256",
                                 latency = lognormal{ median = 2, sigma = 0.5 } }
local mirror = mtcsim.cosigner{ name = "mirror", role = "mirror", algorithm = "ecdsa-p256",
                                latency = lognormal{ median = 2, sigma = 0.5 } }
mtcsim.ca{ name = "ca", algorithm = "ecdsa-p256", lifetime = days(1), rate = per_day(1e5),
           checkpoint_interval = 60, landmark_interval = li,
           cosigners = { witness, mirror }, quorum = 2 }
mtcsim.update_service{ name = "updater", fetch_interval = minutes(10),
                       publication_delay = minutes(10), include_proofs = true }
mtcsim.sites{ name = "sites", count = 20, renew_fraction = 0.75, retry_after = 600,
              cert_compression = { "brotli" } }
local function cohort(name, aware, comp)
  mtcsim.browsers{ name = name, count = 15, sessions_per_day = 3,
    session_duration = lognormal{ median = hours(1), sigma = 1 }, visits_per_hour = 20,
    hosts_per_visit = empirical{ values = { 1, 3, 6 }, weights = { 1, 1, 1 } },
    zipf_exponent = 1.2, update_interval = hours(5), update_on_start = "always",
    mtc_aware = aware, cert_compression = comp,
    rtt = lognormal{ median = 100, sigma = 0.4 },
    bandwidth = lognormal{ median = 50e6, sigma = 1 } }
end
cohort("aware", true, { "brotli" })
cohort("unaware", false, { "brotli" })
cohort("plain", false, {})
EOF
for h in hashed synthetic; do
  nice "$m" run "$t/w.lua" --replications $REPS --set "ca.*.log_history=$h" \
    --out "$t/$h.db" --quiet >/dev/null 2>"$t/$h.err" ||
    { cat "$t/$h.err"; fail "run with $h history"; }
done
"$m" compare "$t/hashed.db" "$t/synthetic.db" --axis log_history >"$t/head" 2>&1 ||
  { cat "$t/head"; fail "compare"; }
"$m" compare "$t/hashed.db" "$t/synthetic.db" --axis log_history --all >"$t/all" 2>&1 ||
  { cat "$t/all"; fail "compare --all"; }
# what the hashed runs have (their rows: not 0 in every run): a statistic
# the synthetic runs lack is no row of the comparison
"$m" compare "$t/hashed.db" "$t/hashed.db" --all >"$t/self" 2>&1 ||
  { cat "$t/self"; fail "compare --all of the hashed runs with themselves"; }
grep -q "^intervals of B - A: paired" "$t/head" || fail "the intervals are not paired: $(cat "$t/head")"

python3 - "$t/head" "$t/all" "$t/self" $REPS <<'EOF' || fail "the histories are distinguishable (above)"
import math, re, sys
head_f, all_f, self_f, n = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
SIGS = 3            # a standalone certificate: the CA's and 2 cosignatures
PER_SIG, COMP = 2, 1  # DER ECDSA 70..72 B; a compressed length +-1 B
DELTA = PER_SIG * SIGS + COMP
# BYTES: the byte counts a signature or a compressed length enters, and
# what bytes decide; the baselines' and today's figures, resumptions and
# every count of observations are not among them
BYTES_NAMES = {"update_bytes", "update_bytes_cosignatures", "cert_message_bytes",
               "cert_message_bytes_compressed", "monitor_fetch_bytes",
               "flight_over_tcp_iw", "flight_over_quic_amp",
               "flight_over_tcp_iw_share", "flight_over_quic_amp_share"}
BYTES_HISTS = {"auth_bytes", "standalone_proof_bytes", "update_publication_bytes",
               "update_snapshot_bytes", "handshake_ms", "handshake_ms_network",
               "extra_rtt_tcp", "extra_rtt_quic", "verify_ms"}
BYTES_DERIVED = ("auth_bytes_ratio_vs_", "auth_bytes_saved_vs_", "handshake_ms_change_",
                 "handshake_ms_extra_", "extra_rtt_tcp_saved_vs_", "extra_rtt_quic_saved_vs_")
def in_bytes(s):
    if s.endswith(".count"):
        return False
    return s in BYTES_NAMES or s.split(".")[0] in BYTES_HISTS and "." in s \
        or s.startswith(BYTES_DERIVED)

ROW = re.compile(r"^(\S+)\s+(\S+)\s+(?:\S+|\[\S+\])\s+(\S+)\s+(?:\S+|\[\S+\])\s+"
                 r"(\S+) \[(\S+), (\S+)\]\s*(\*?)")
def table(path):
    rows = {}
    for line in open(path):
        mt = ROW.match(line)
        if mt and mt.group(1) != "statistic":
            nm, a, b_, d, lo, hi, star = mt.groups()
            rows[nm] = dict(a=float(a), b=float(b_), d=float(d), lo=float(lo),
                            hi=float(hi), star=star == "*")
    return rows
head, every, hashed = table(head_f), table(all_f), table(self_f)
# a row is a statistic both sides have, not 0 on both
lost = sorted(set(hashed) - set(every))
if lost:
    sys.exit("the synthetic runs lack %d statistics of the hashed runs: %s"
             % (len(lost), ", ".join(lost[:20])))
if len(head) < 30:
    sys.exit("the headline table has %d rows" % len(head))

# Student t quantile (Simpson's rule on the density, then bisection): the
# interval compare prints is at 95 %; its half-width over t(0.975) is the
# paired standard error
def tcdf(x, df):
    c = math.exp(math.lgamma((df + 1) / 2) - math.lgamma(df / 2)) / math.sqrt(df * math.pi)
    f = lambda u: c * (1 + u * u / df) ** (-(df + 1) / 2)
    k = 4000; h = x / k
    s = f(0) + f(x) + sum((4 if i % 2 else 2) * f(i * h) for i in range(1, k))
    return 0.5 + s * h / 3
def tq(p, df):
    lo, hi = 0.0, 100.0
    for _ in range(60):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if tcdf(mid, df) < p else (lo, mid)
    return (lo + hi) / 2

bad = 0
def complain(msg):
    global bad
    print(msg); bad = 1

# exact: everything outside BYTES, every statistic the runs have
for nm, r in sorted(every.items()):
    if "_cpu_" in nm or in_bytes(nm):
        continue
    if r["d"] != 0 or r["lo"] != 0 or r["hi"] != 0:
        complain("not exact: %s A %g B %g (B - A %g [%g, %g])"
                 % (nm, r["a"], r["b"], r["d"], r["lo"], r["hi"]))

# statistically indistinguishable: every statistic of BYTES that differs,
# the headline figures first
moved = [nm for nm, r in every.items()
         if "_cpu_" not in nm and in_bytes(nm) and (r["lo"] != 0 or r["hi"] != 0)]
moved.sort(key=lambda nm: (nm not in head, nm))
t95 = tq(0.975, n - 1)
tbon = tq(1 - 0.025 / max(1, len(moved)), n - 1)
print("paired B - A (synthetic - hashed) over %d replications; family-wise 95 %%: "
      "Bonferroni over %d statistics" % (n, len(moved)))
for nm in moved:
    r = every[nm]
    half = (r["hi"] - r["lo"]) / 2 * tbon / t95
    ok = r["d"] - half <= 0 <= r["d"] + half
    print("%-8s %-36s %+.4g, 95 %% [%+.4g, %+.4g], family-wise [%+.4g, %+.4g]%s"
          % ("headline" if nm in head else "", nm, r["d"], r["lo"], r["hi"],
             r["d"] - half, r["d"] + half, "" if ok else "  <- excludes 0"))
    if not ok:
        bad = 1

# equivalence: the 95 % interval inside the documented bound
auth = head["auth_bytes.mean"]["a"]
bounds = {"auth_bytes.mean": DELTA,
          "update_bytes": PER_SIG / 70 * every["update_bytes_cosignatures"]["a"],
          "update_publication_bytes.mean":
              PER_SIG / 70 * head["update_publication_bytes.mean"]["a"]}
for nm, r in head.items():
    if nm.startswith("auth_bytes_saved_vs_"):
        bounds[nm] = DELTA
    elif nm.startswith("auth_bytes_ratio_vs_"):
        bounds[nm] = abs(r["a"]) * DELTA / auth
for nm, bd in sorted(bounds.items()):
    r = head.get(nm)
    if r is None:
        complain("no headline figure %s" % nm); continue
    ok = -bd <= r["lo"] and r["hi"] <= bd
    print("%-36s 95 %% [%+.4g, %+.4g] within +-%.4g: %s"
          % (nm, r["lo"], r["hi"], bd, "yes" if ok else "NO"))
    if not ok:
        bad = 1

# not vacuous: the figures the two cases enter do differ
for nm in ("auth_bytes.mean", "update_bytes", "cert_message_bytes_compressed"):
    r = every.get(nm)
    if r is None or (r["lo"] == 0 and r["hi"] == 0):
        complain("%s does not differ: the world exercises no signature or compression" % nm)
sys.exit(bad)
EOF
echo "sh_log_history_stats: ok"
