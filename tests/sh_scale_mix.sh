#!/bin/sh
# The handshake mix does not depend on the population sample: quickstart
# at scale 0.01 (20 sites, 200 browsers) and 0.05 (100 sites, 1,000
# browsers) gives resumed shares (resumed / (full + resumed)) within one
# percentage point. Three replications per scale, seeds paired by
# replication (client i draws the same numbers at both scales); the test
# asserts that the 95 % Student-t interval of the per-replication
# difference lies inside [-1, +1] percentage points, and that each scale's
# own interval is narrower than 2 points. A small CA (--set issuance=2e4)
# and a quarter of a measured day keep it to about two CPU minutes; the
# resumed share does not depend on the CA's rate.
# Before the sampled sites stood in for the full-size world's ranks, the
# shares were 19.3 % and 11.7 %.
set -u
b=${1:-build}
m="$b/mtcsim"
fail() { echo "FAIL: $*"; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/sh_scale_mix.XXXXXX") || fail "mktemp"
trap 'rm -rf "$tmp"' EXIT
reps=${SCALE_MIX_REPS:-3}

for sc in 0.01 0.05; do
  "$m" run scenarios/quickstart.lua --set scale=$sc --set issuance=2e4 --set days=0.25 \
    --replications "$reps" --quiet --out "$tmp/q$sc.db" >/dev/null 2>"$tmp/err" \
    || fail "quickstart scale=$sc: $(cat "$tmp/err")"
done

python3 - "$tmp/q0.01.db" "$tmp/q0.05.db" <<'PY' || fail "resumed shares differ by the sample"
import math, sqlite3, statistics, sys
# two-sided 95 % Student-t quantiles by degrees of freedom
T = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365,
     8: 2.306, 9: 2.262, 10: 2.228}
def shares(path):
    db = sqlite3.connect(path)
    rows = db.execute(
        "SELECT r.replication, s.metric, s.value FROM run r JOIN scalar_v s USING (run_id) "
        "WHERE s.cohort = 'all' AND s.metric IN ('handshake_full', 'handshake_resumed')").fetchall()
    by = {}
    for rep, metric, v in rows:
        by.setdefault(rep, {})[metric] = v
    return {rep: d["handshake_resumed"] / (d["handshake_full"] + d["handshake_resumed"])
            for rep, d in by.items()}
def ci(xs):
    n = len(xs)
    mean = statistics.fmean(xs)
    if n < 2:
        return mean, math.inf
    return mean, T[min(n - 1, 10)] * statistics.stdev(xs) / math.sqrt(n)
a, b = shares(sys.argv[1]), shares(sys.argv[2])
reps = sorted(set(a) & set(b))
if len(reps) < 2:
    sys.exit("fewer than two replications at both scales")
ma, ha = ci([a[r] for r in reps])
mb, hb = ci([b[r] for r in reps])
md, hd = ci([b[r] - a[r] for r in reps])
print("resumed share: scale 0.01 %.4f +-%.4f, scale 0.05 %.4f +-%.4f, "
      "difference %+.4f +-%.4f (%d paired replications)" % (ma, ha, mb, hb, md, hd, len(reps)))
if not (ha < 0.02 and hb < 0.02):
    sys.exit("an interval is wider than 2 points: too few handshakes to tell")
if not (md - hd > -0.01 and md + hd < 0.01):
    sys.exit("the difference's interval leaves [-1, +1] points")
PY
echo "ok sh_scale_mix"
