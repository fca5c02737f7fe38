#!/bin/sh
# `mtc` reads what it is given defensively: an endless or huge
# input (/dev/zero) is refused after a bounded read, not read until memory
# runs out, and an rp.conf saved by any editor (CRLF, tabs, no final
# newline) reads the same as the canonical one.
set -u
b=${1:-build}
mtc="$b/mtc"
d=$(mktemp -d); trap 'rm -rf "$d"' EXIT
# KEEP_GOING=1: report every failing check (to see the test fail on the
# code before its fix), not only the first.
nfail=0
fail() { echo "FAIL: $*"; nfail=$((nfail + 1)); [ -n "${KEEP_GOING:-}" ] || exit 1; }

# rp.conf layouts
"$mtc" demo --out "$d/ca" --entries 3 --sig-alg ed25519 --cosigners 2 >/dev/null || fail "demo"
c="$d/ca/certs/entry-1.standalone.der"

# endless input: a clear error, exit 1 or 2, within seconds
for cmd in "show /dev/zero" "verify --rp $d/ca/rp /dev/zero"; do
  timeout -k 5 "${TIMEOUT:-60}" "$mtc" $cmd >"$d/out" 2>&1; rc=$?
  [ $rc -eq 1 ] || [ $rc -eq 2 ] || fail "mtc $cmd: exit $rc"
  grep -q "larger than 64 MiB" "$d/out" || fail "mtc $cmd: $(head -c 300 "$d/out")"
done

"$mtc" verify --rp "$d/ca/rp" "$c" >/dev/null || fail "canonical rp.conf"
conf="$d/ca/rp/rp.conf"
cp "$conf" "$d/conf.orig"
variant() {   # variant NAME: rp.conf rewritten by the sed/awk/tr given, verifies
  name=$1; shift
  "$@" < "$d/conf.orig" > "$conf"
  "$mtc" verify --rp "$d/ca/rp" "$c" >"$d/out" 2>&1 || fail "rp.conf with $name: $(cat "$d/out")"
}
variant "CRLF line ends" sed 's/$/\r/'
variant "tabs between fields" tr ' ' '\t'
variant "runs of blanks" sed 's/ /  \t /g'
variant "no final newline" awk 'NR > 1 { printf "\n" } { printf "%s", $0 }'
# still strict about what a line says
printf 'revoke 5\n' | cat "$d/conf.orig" - > "$conf"
"$mtc" verify --rp "$d/ca/rp" "$c" >"$d/out" 2>&1; rc=$?
[ $rc -eq 2 ] && grep -q "rp.conf line" "$d/out" || fail "a bad line still fails: exit $rc $(cat "$d/out")"
[ $nfail -eq 0 ] || exit 1
echo "mtc inputs: ok"
