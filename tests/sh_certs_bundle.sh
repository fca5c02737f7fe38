#!/bin/sh
# Acceptance for `mtc issue --from-x509`: every certificate of Debian's
# ca-certificates bundle is re-issued as an MTC (standalone and
# landmark-relative); OpenSSL parses each and shows the same subject,
# validity, extensions and public key as the original; all verify.
set -eu
build=${1:-build}
mtc="$build/mtc"
bundle=/etc/ssl/certs/ca-certificates.crt
[ -f "$bundle" ] || { echo "no $bundle: skipped"; exit 0; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

"$mtc" demo --out "$tmp/ca" --entries 2 --cosigners 1 >/dev/null
mkdir "$tmp/out"
"$mtc" issue --ca "$tmp/ca" --from-x509 "$bundle" --out "$tmp/out/c.pem" --landmark \
  --allow-ca > "$tmp/issued"
n=$(grep -c 'BEGIN CERTIFICATE' "$bundle")
[ "$(grep -c ' standalone ' "$tmp/issued")" -eq "$n" ] || fail "not all $n issued"
[ "$(grep -c ' landmark-relative ' "$tmp/issued")" -eq "$n" ] || fail "landmark certs"

# All written certificates, in input order; each through asn1parse.
: > "$tmp/sa.pem"; : > "$tmp/lr.pem"
i=0
while [ $i -lt "$n" ]; do
  for kind in "" ".landmark"; do
    openssl asn1parse -in "$tmp/out/c-$i$kind.pem" >/dev/null || fail "asn1parse c-$i$kind"
  done
  cat "$tmp/out/c-$i.pem" >> "$tmp/sa.pem"
  cat "$tmp/out/c-$i.landmark.pem" >> "$tmp/lr.pem"
  i=$((i + 1))
done

# OpenSSL's text of every certificate, minus what MTC replaces: serial,
# signature algorithm, issuer, signature value, and the extensions that
# describe the issuer (authority key identifier, issuer alternative
# name). What remains is version, validity, subject, public key and the
# other extensions, which must be identical.
view() {
  openssl storeutl -noout -text -certs "$1" | awk '
    /^        Serial Number/ { skip = 1 }
    skip == 1 && /^        Issuer:/ { skip = 0; next }
    /^    Signature Algorithm/ { skip = 2 }
    /^[0-9]+: Certificate/ { skip = 0 }
    /^            X509v3 (Authority Key Identifier|Issuer Alternative Name)/ { ext = 1; next }
    ext && /^                / { next }
    { ext = 0 }
    !skip { print }'
}
view "$bundle" > "$tmp/orig.txt" || fail "openssl on the bundle"
[ "$(grep -c '^Certificate:' "$tmp/orig.txt")" -eq "$n" ] || fail "openssl read $n originals"
for kind in sa lr; do
  view "$tmp/$kind.pem" > "$tmp/$kind.txt" || fail "openssl on $kind certificates"
  cmp -s "$tmp/orig.txt" "$tmp/$kind.txt" ||
    { diff "$tmp/orig.txt" "$tmp/$kind.txt" | head -20; fail "$kind certificates differ"; }
done
grep -q "X509v3 extensions" "$tmp/sa.txt" || fail "no extensions compared"

# Every re-issued certificate verifies (validity is the original's, so the
# proof and signatures are checked, not the dates).
"$mtc" verify --rp "$tmp/ca/rp" --ignore-validity "$tmp/sa.pem" "$tmp/lr.pem" \
  > "$tmp/verified" || { grep -v ': valid' "$tmp/verified" | head; fail "verification"; }
[ "$(grep -c ': valid' "$tmp/verified")" -eq $((2 * n)) ] || fail "verified count"
# Without trusted subtrees the standalone ones verify by their signatures.
rm -f "$tmp/ca/rp/update.bin"
grep -v '^subtree' "$tmp/ca/rp/rp.conf" > "$tmp/conf" && cp "$tmp/conf" "$tmp/ca/rp/rp.conf"
"$mtc" verify --rp "$tmp/ca/rp" --ignore-validity "$tmp/sa.pem" > "$tmp/verified" ||
  fail "standalone verification by signatures"
[ "$(grep -c 'valid signatures' "$tmp/verified")" -eq "$n" ] || fail "signature path"
echo "re-issued and verified $n bundle certificates (standalone and landmark-relative)"
