#!/bin/sh
# `make bench-study`: what a study costs against the floor of its real
# work. Runs quickstart at full size and chrome-adoption at a reduced
# scale (CHROME_SCALE, default 0.1; the CAs keep their full rates; one run:
# its middle enterprise_share, one replication) with
# --profile, and prices the same run's counts at unit costs measured in
# this invocation, in CPU seconds of this machine:
#   floor = log hash compressions / SHA-256 compression rate
#         + checkpoint signatures x (1 / sign rate + 1 / verify rate),
#           per algorithm (the CA's and its quorum's, one each per
#           checkpoint, warm-up included: the real system signs and
#           someone verifies every checkpoint)
#         + full handshakes of the measured window / bench-web's full
#           handshakes per CPU second
# (hash compressions: those the run makes: with synthetic log history, the
# default, the sampled sites' entries and the tree nodes over them and over
# the checkpoints' last entries; with log_history = "hashed" every entry's
# leaf hash and one interior node, warm-up included). The
# run's cost is the process's user + system CPU seconds. Prints `name value
# unit` lines; *_vs_floor_ratio is cost / floor (1 = nothing but the work).
set -eu
build=${1:-build}
M="$build/mtcsim"
CHROME_SCALE=${CHROME_SCALE:-0.1}
WEB_CLIENTS=${WEB_CLIENTS:-200000}
WEB_DAYS=${WEB_DAYS:-0.5}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

"$build/bench_study_rates" --min-cpu 2 > "$tmp/rates"
cat "$tmp/rates"
"$build/bench_web" --clients "$WEB_CLIENTS" --days "$WEB_DAYS" --latency 0 \
  > "$tmp/web" 2>&1 || { cat "$tmp/web" >&2; exit 1; }
hs=$(sed -n 's/^[a-z]*_full_handshakes_per_s \([0-9.]*\) .*/\1/p' "$tmp/web" | head -n 1)
[ -n "$hs" ] || { echo "bench-study: no handshake rate from bench_web" >&2; exit 1; }
echo "rate_full_handshakes $hs handshakes/cpu_s (bench_web, $WEB_CLIENTS clients, $WEB_DAYS days)"

# study NAME SCENARIO ARGS...: one profiled run, its cost and floor
study() {
  name=$1; scen=$2; shift 2
  /usr/bin/time -f "%U %S" -o "$tmp/t" "$M" run "$scen" --quiet --profile \
    --out "$tmp/$name.db" "$@" > "$tmp/$name.out" 2> "$tmp/$name.err" ||
    { cat "$tmp/$name.err" >&2; exit 1; }
  read -r u s < "$tmp/t"
  awk -v name="$name" -v u="$u" -v s="$s" -v hs="$hs" '
    FNR == NR { rate[$1] = $2; next }
    /^# profile of/ { inprof = 1 }
    /^#   work \(counts\)/ { inwork = 1; next }
    /^#   clock reads/ { inwork = 0 }
    inprof && !inwork && /^#   all parts/ { prof_total = $NF
      warm = $(NF - 4); win = $(NF - 3) }
    inwork {
      line = substr($0, 5, 26); sub(/ +$/, "", line)
      n = split(substr($0, 31), c, " ")
      tot = 0; for (i = 1; i <= n; i++) tot += c[i]
      work[line] = tot; wwin[line] = c[3]
    }
    END {
      cpu = u + s
      fh = work["log hash compressions"] / rate["rate_sha256_compress"]
      fs = 0
      split("ed25519 ecdsa-p256 ml-dsa-44 ml-dsa-65 ml-dsa-87", alg, " ")
      for (i = 1; i <= 5; i++) {
        k = "ckpt signatures " alg[i]
        if (work[k] > 0)
          fs += work[k] * (1 / rate["rate_sign_" alg[i]] + 1 / rate["rate_verify_" alg[i]])
      }
      fw = wwin["full handshakes"] / hs
      floor = fh + fs + fw
      printf "%s_cpu_s %.2f s\n", name, cpu
      printf "%s_profile_warmup_cpu_s %.2f s\n", name, warm
      printf "%s_profile_window_cpu_s %.2f s\n", name, win
      printf "%s_log_hash_compressions %d blocks\n", name, work["log hash compressions"]
      printf "%s_window_full_handshakes %d handshakes\n", name, wwin["full handshakes"]
      printf "%s_floor_hash_s %.2f s\n", name, fh
      printf "%s_floor_signatures_s %.2f s\n", name, fs
      printf "%s_floor_handshakes_s %.2f s\n", name, fw
      printf "%s_floor_s %.2f s\n", name, floor
      printf "%s_vs_floor_ratio %.2f ratio\n", name, (floor > 0 ? cpu / floor : 0)
    }' "$tmp/rates" "$tmp/$name.out"
  grep '^#   ' "$tmp/$name.out" | sed "s/^#/# $name:/"
}

study quickstart scenarios/quickstart.lua --replications 1
study chrome_adoption scenarios/chrome-adoption.lua --replications 1 \
  --set scale="$CHROME_SCALE" --set enterprise_share=0.15
