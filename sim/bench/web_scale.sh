#!/bin/sh
# `make bench-scale`: the web side's scale goal through `mtcsim run`
# (sim/bench/web_scale.lua): CLIENTS browsers (default 10^6) for DAYS
# simulated days (default 30) on one core, HOSTS hosts per page visit
# (default 1: every handshake its own engine event, the costly case), and
# the same scenario without browsers (the PKI replay alone) to separate
# the two, and the engine's hold model (10^6 pending events) as the
# reference measured in the same run. Rates are per CPU
# second of the process (user + system): the machine is shared. Prints
# `name value unit` lines.
set -eu
build=${1:-build}
M="$build/mtcsim"
S=sim/bench/web_scale.lua
CLIENTS=${CLIENTS:-1000000}
DAYS=${DAYS:-30}
HOSTS=${HOSTS:-1}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

# CPU seconds, wall seconds and peak RSS (KiB) of one run into $2
measure() {
  db=$1; shift
  /usr/bin/time -f "%U %S %e %M" -o "$tmp/t" "$M" run "$S" --set days="$DAYS" \
    --quiet --out "$db" "$@" > "$tmp/out" 2> "$tmp/err" || { cat "$tmp/err" >&2; exit 1; }
  read -r u s w r < "$tmp/t"
  echo "$(echo "$u + $s" | bc) $w $r"
}
sum() { # metric total over cohorts
  sqlite3 "$1" "select coalesce(sum(value), 0) from scalar_v where metric = '$2'"
}

read -r cpu_pki _ _ <<EOF2
$(measure "$tmp/pki.db" --set clients=0)
EOF2
read -r cpu wall rss <<EOF2
$(measure "$tmp/web.db" --set clients="$CLIENTS" --set hosts="$HOSTS")
EOF2
# reference in the same run: the engine's hold model at 10^6 pending events
ref=$("$M" bench engine --no-ns3 --reps 1 --max 1000000 2>/dev/null |
      sed -n 's/^hold_ladder_1e6_events_per_s \([0-9]*\) .*/\1/p')
full=$(sum "$tmp/web.db" handshake_full)
res=$(sum "$tmp/web.db" handshake_resumed)
events=$(sqlite3 "$tmp/web.db" "select events from run")
hs=$(echo "$full + $res" | bc)
echo "clients $CLIENTS clients"
echo "sim_days $DAYS days"
echo "hosts_per_visit $HOSTS hosts"
echo "events $events events"
echo "handshakes $hs handshakes"
echo "handshakes_full $full handshakes"
echo "cpu_total_s $cpu s"
echo "wall_total_s $wall s"
echo "cpu_total_minutes $(echo "scale=1; $cpu / 60" | bc) min"
echo "cpu_pki_alone_s $cpu_pki s"
echo "handshakes_per_cpu_s_overall $(echo "scale=0; $hs / $cpu" | bc) handshakes/s"
echo "handshakes_per_cpu_s_web $(echo "scale=0; $hs / ($cpu - $cpu_pki)" | bc) handshakes/s"
echo "peak_rss_mb $(echo "$rss / 1024" | bc) MB"
echo "ref_hold_events_per_s $ref events/s"
echo "web_events_per_s_vs_hold $(echo "scale=3; $events / ($cpu - $cpu_pki) / $ref" | bc) ratio"
echo "load_average $(cut -d' ' -f1 /proc/loadavg)"
