#!/bin/sh
# Acceptance for `mtc demo/verify/show/sizes`: every certificate and CA
# certificate written parses with `openssl x509` and `openssl asn1parse`;
# all verify; mutated certificates, malformed configurations and landmark
# files are rejected with a clear message and the documented exit code.
set -eu
build=${1:-build}
mtc="$build/mtc"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

for alg in ed25519 ecdsa-p256; do
  for k in 0 3; do
    d="$tmp/$alg-$k"
    "$mtc" demo --out "$d" --entries 5 --sig-alg "$alg" --cosigners "$k" >/dev/null
    for f in "$d"/ca.der "$d"/rp/ca.der "$d"/certs/*.der; do
      openssl x509 -inform DER -in "$f" -noout -text >/dev/null || fail "openssl x509 $f"
      openssl asn1parse -inform DER -in "$f" >/dev/null || fail "asn1parse $f"
    done
    for f in "$d"/certs/*.pem; do
      openssl x509 -in "$f" -noout >/dev/null || fail "openssl x509 (PEM) $f"
    done
    openssl x509 -inform DER -in "$d/ca.der" -noout -text | grep -q "1.3.6.1.4.1.44363.47.2: critical" \
      || fail "CA certificate lacks the critical MTC extension"
    "$mtc" verify --rp "$d/rp" "$d"/certs/*.standalone.der >/dev/null 2>&1 || true
    for f in "$d"/certs/*.der "$d"/certs/*.pem; do
      "$mtc" verify --rp "$d/rp" "$f" >/dev/null || fail "verify $f"
      "$mtc" show "$f" >/dev/null || fail "show $f"
    done
    # Without trusted subtrees (no installed update): standalone certificates
    # still verify through their signatures, landmark-relative ones fail
    # with the policy reason.
    rm -f "$d/rp/update.bin"
    grep -v '^subtree' "$d/rp/rp.conf" > "$tmp/conf" && cp "$tmp/conf" "$d/rp/rp.conf"
    "$mtc" verify --rp "$d/rp" "$d/certs/entry-1.standalone.der" | grep -q "valid signatures" \
      || fail "standalone without subtrees"
    set +e
    out=$("$mtc" verify --rp "$d/rp" "$d/certs/entry-1.landmark.der"); rc=$?
    set -e
    [ $rc -eq 1 ] || fail "landmark without subtrees: exit $rc"
    echo "$out" | grep -q "invalid: cosigner-policy" || fail "reason: $out"
  done
done

d="$tmp/ed25519-3"
c="$d/certs/entry-2.standalone.der"
# A changed byte in the TBSCertificate (the validity) fails verification.
size=$(wc -c < "$c")
cp "$c" "$tmp/mut.der"
printf '\001' | dd of="$tmp/mut.der" bs=1 seek=$((size - 300)) conv=notrunc 2>/dev/null
set +e
"$mtc" verify --rp "$d/rp" "$tmp/mut.der" > "$tmp/out" 2>&1; rc=$?
set -e
[ $rc -eq 1 ] || fail "mutated certificate: exit $rc"
grep -q "invalid" "$tmp/out" || fail "mutated certificate: no reason"
# Truncated certificate: malformed.
head -c 100 "$c" > "$tmp/trunc.der"
set +e
"$mtc" verify --rp "$d/rp" "$tmp/trunc.der" > "$tmp/out" 2>&1; rc=$?
set -e
[ $rc -eq 1 ] && grep -q "invalid: malformed" "$tmp/out" || fail "truncated certificate"
# Malformed configuration: exit 2, the message names the line.
cp -r "$d/rp" "$tmp/rpbad"
printf 'policy 9 32473.1\n' >> "$tmp/rpbad/rp.conf"
set +e
"$mtc" verify --rp "$tmp/rpbad" "$c" > "$tmp/out" 2>&1; rc=$?
set -e
[ $rc -eq 2 ] || fail "bad rp.conf: exit $rc"
grep -q "rp.conf line" "$tmp/out" || fail "bad rp.conf message: $(cat "$tmp/out")"
# Malformed landmarks file: issuing fails naming the landmarks line.
cp -r "$d" "$tmp/cabad"
printf '2 2\n5\n5\n0\n' > "$tmp/cabad/landmarks"
set +e
"$mtc" issue --ca "$tmp/cabad" --from-x509 "$c" --out "$tmp/x.der" > "$tmp/out" 2>&1; rc=$?
set -e
[ $rc -eq 1 ] || fail "bad landmarks: exit $rc"
grep -q "landmarks line 3" "$tmp/out" || fail "bad landmarks message: $(cat "$tmp/out")"
# Usage errors: exit 2 naming the argument.
set +e
"$mtc" demo --out "$tmp/u" --sig-alg rsa > "$tmp/out" 2>&1; rc=$?
set -e
[ $rc -eq 2 ] && grep -q "rsa" "$tmp/out" || fail "usage error for --sig-alg"
set +e
"$mtc" verify "$c" > "$tmp/out" 2>&1; rc=$?
set -e
[ $rc -eq 2 ] && grep -q -- "--rp" "$tmp/out" || fail "usage error for missing --rp"
# Sizes: every row present, proofs of 10..32 hashes.
"$mtc" sizes > "$tmp/sizes"
[ "$(grep -c '^landmark' "$tmp/sizes")" -ge 24 ] || fail "sizes: landmark rows"
grep -q '^landmark .* 4294967296 *32 ' "$tmp/sizes" || fail "sizes: 2^32 row"
[ "$(grep -c '^standalone' "$tmp/sizes")" -ge 8 ] || fail "sizes: standalone rows"
grep -q '^baseline *ecdsa-p256 *chain' "$tmp/sizes" || fail "sizes: baseline"
echo "certs demo acceptance passed"
