#!/bin/sh
# The committed verification cost table (sim/web/web_verify_costs.c) has
# the shape `mtc bench sig` gives today: regenerated from a short bench
# run, it names the same operations in the same order, every cost is a
# positive number, and it says where it came from. (Its values are the
# development machine's and are not compared: the table is measured once
# so that results do not depend on the machine; sim/web/include/sim/
# web_verify.h.)
set -eu
build=${1:-build}
table=sim/web/web_verify_costs.c
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

"$build/mtc" bench sig --seconds 0.01 > "$tmp/bench"
sh sim/bench/verify_costs.sh - < "$tmp/bench" > "$tmp/fresh.c" || fail "generator"
ops() { sed -n 's/^ *\[\(WEB_VOP_[A-Z0-9_]*\)\] = \([0-9.]*\),.*/\1 \2/p' "$1"; }
ops "$table" > "$tmp/old"
ops "$tmp/fresh.c" > "$tmp/new"
[ -s "$tmp/old" ] || fail "no costs in $table"
[ "$(cut -d' ' -f1 "$tmp/old")" = "$(cut -d' ' -f1 "$tmp/new")" ] ||
  fail "$table names other operations than the bench gives: regenerate it (sim/bench/verify_costs.sh)"
# every operation of the header's enum is in the table
enum=$(sed -n 's/^ *\(WEB_VOP_[A-Z0-9_]*\)\( = 0\)\{0,1\},.*/\1/p' sim/web/include/sim/web_verify.h)
[ "$enum" = "$(cut -d' ' -f1 "$tmp/old")" ] || fail "table and enum differ"
awk '!($2 > 0) { exit 1 }' "$tmp/old" || fail "a cost is not positive"
grep -q 'web_verify_costs_origin\[\] = "mtc bench sig --seconds' "$table" || fail "origin"
# a bench that lacks an operation is refused
grep -v '^rsa4096_verify' "$tmp/bench" > "$tmp/short"
if sh sim/bench/verify_costs.sh - < "$tmp/short" > /dev/null 2>&1; then
  fail "generator accepted a bench without rsa4096_verify"
fi
echo "sh_verify_costs: ok"
