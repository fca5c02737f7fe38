#!/bin/sh
# `mtc mldsa`: exit codes and messages. 0 valid / printed output, 1 invalid
# signature, 2 bad usage with a message naming the argument.
# Usage: sh tests/sh_mldsa_cli.sh BUILD_DIR
set -u
mtc=${1:-build}/mtc
fail=0; n=0
S=000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f
# expect CODE PATTERN ARGS...: exit status CODE and PATTERN in stdout+stderr.
expect() {
  code=$1; pat=$2; shift 2; n=$((n+1))
  out=$("$mtc" "$@" 2>&1); rc=$?
  if [ "$rc" -ne "$code" ] || ! printf '%s' "$out" | grep -q -- "$pat"; then
    fail=$((fail+1)); echo "FAIL: mtc $* -> $rc (want $code, /$pat/): $out" | cut -c1-300
  fi
}
pk=$("$mtc" mldsa keygen --alg ml-dsa-44 --seed $S)
[ ${#pk} -eq 2624 ] || { echo "FAIL: pk has ${#pk} hex digits"; exit 1; }
sig=$("$mtc" mldsa sign --alg ml-dsa-44 --seed $S --msg 6d7463 --ctx 00 --deterministic)
sig2=$("$mtc" mldsa sign --alg ML-DSA-44 --seed $S --msg 6d7463 --ctx 00 --deterministic)
[ "$sig" = "$sig2" ] || { echo "FAIL: deterministic signatures differ"; fail=$((fail+1)); }
expect 0 valid mldsa verify --alg ml-dsa-44 --pk "$pk" --msg 6d7463 --ctx 00 --sig "$sig"
expect 1 invalid mldsa verify --alg ml-dsa-44 --pk "$pk" --msg 6d7464 --ctx 00 --sig "$sig"
expect 1 invalid mldsa verify --alg ml-dsa-44 --pk "$pk" --msg 6d7463 --sig "$sig"
expect 0 usage mldsa --help
expect 2 "unknown operation" mldsa frobnicate
expect 2 "alg is missing" mldsa keygen --seed $S
expect 2 "alg 'ml-dsa-45'" mldsa keygen --alg ml-dsa-45 --seed $S
expect 2 "seed must be 32 bytes" mldsa keygen --alg ml-dsa-44 --seed 0011
expect 2 "seed: odd number" mldsa keygen --alg ml-dsa-44 --seed 001
expect 2 "msg: 'g'" mldsa sign --alg ml-dsa-44 --seed $S --msg 0g
expect 2 "msg is missing" mldsa sign --alg ml-dsa-44 --seed $S
expect 2 "ctx must be at most 255" mldsa sign --alg ml-dsa-44 --seed $S --msg 00 \
  --ctx "$(printf '%0512d' 0)"
expect 2 "pk must be 1312 bytes" mldsa verify --alg ml-dsa-44 --pk 00 --msg 00 --sig "$sig"
expect 2 "sig must be 2420 bytes" mldsa verify --alg ml-dsa-44 --pk "$pk" --msg 00 --sig 00
expect 2 "sig is missing" mldsa verify --alg ml-dsa-44 --pk "$pk" --msg 00
expect 2 "deterministic: unknown option" mldsa verify --alg ml-dsa-44 --deterministic --pk "$pk"
expect 2 "seed given twice" mldsa keygen --alg ml-dsa-44 --seed $S --seed $S
echo "mldsa cli: $((n-fail))/$n checks passed"
[ $fail -eq 0 ]
