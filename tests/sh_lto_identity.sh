#!/bin/sh
# Link-time optimization keeps results bit-identical (usage:
# sh_lto_identity.sh BUILD): mtcsim, linked with -flto, and mtcsim-nolto,
# the same objects' ordinary code, run quickstart, and latency-mobile over
# TCP and QUIC (every handshake priced in ms), on small worlds; their
# result databases must hold the same rows (tests/lib/dbdiff.py: CPU
# times and wall-clock fields aside). Fails if the link's inlining ever
# changed a floating-point result or the order of events.
set -u
build=${1:?usage: sh_lto_identity.sh BUILD}
tmp=${TMPDIR:-/tmp}/lto_identity.$$
mkdir -p "$tmp"; trap 'rm -rf "$tmp"' EXIT
fail=0
[ -x "$build/mtcsim-nolto" ] || { echo "$build/mtcsim-nolto missing (make all builds it)"; exit 1; }
# Two equal programs would pass the comparison without checking anything.
cmp -s "$build/mtcsim" "$build/mtcsim-nolto" &&
  { echo "mtcsim and mtcsim-nolto are the same program: no link-time optimization to check"; exit 1; }

run() { # run NAME SCENARIO [--set ...]: both programs, then their databases
  name=$1; scen=$2; shift 2
  for p in mtcsim mtcsim-nolto; do
    "$build/$p" run "scenarios/$scen.lua" --set scale=0.003 --set days=0.1 --set issuance=2e4 \
      --replications 2 --quiet --out "$tmp/$name-$p.db" "$@" >"$tmp/$name-$p.log" 2>&1 ||
      { echo "$p $name failed:"; cat "$tmp/$name-$p.log"; fail=1; return; }
  done
  n=$(sqlite3 "$tmp/$name-mtcsim.db" "select count(*) from histogram_bin")
  [ "$n" -gt 0 ] || { echo "$name: no histogram rows to compare"; fail=1; }
  python3 tests/lib/dbdiff.py "$tmp/$name-mtcsim.db" "$tmp/$name-mtcsim-nolto.db" ||
    { echo "$name: mtcsim and mtcsim-nolto differ"; fail=1; }
}
run quickstart quickstart
run latency-tcp latency-mobile
run latency-quic latency-mobile --set transport=quic
[ $fail = 0 ] && echo "ok: 3 scenarios, databases equal with and without LTO"
exit $fail
