#!/bin/sh
# The draft's rules in the `mtc` CLI: signed checkpoints; a
# relying party that trusts landmark subtrees only through a verified
# update (`mtc rp update`); landmarks allocated per time interval with the
# draft's max_active; witness IDs outside the CA's arc; `mtc issue`
# replacing the issuer's extensions and refusing CA certificates; the CA
# refusing to sign entries it does not recognize; `mtc sizes` with the
# draft's cadences; `mtc show` with MTC serials and trust anchor IDs.
set -eu
build=${1:-build}
mtc="$build/mtc"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
# run CMD...: sets $rc and $out (stdout and stderr) without stopping
run() { set +e; out=$("$@" 2>&1); rc=$?; set -e; }

A="$tmp/A"
"$mtc" demo --out "$A" --entries 8 >/dev/null

# Signed checkpoints (draft "Standalone Certificates" steps 1 and 4).
[ "$(wc -l < "$A/checkpoints")" -eq 2 ] || fail "two checkpoints"
awk 'NF != 2 || $2 == 0 { exit 1 }' "$A/checkpoints" || fail "checkpoints lack timestamps"
grep -q '^timestamp [1-9]' "$A/checkpoint" || fail "checkpoint timestamp"
[ "$(grep -c '^cosignature ' "$A/checkpoint")" -eq 3 ] || fail "3 checkpoint cosignatures"
head -1 "$A/checkpoint" | grep -qx 'oid/1.3.6.1.4.1.32473.1.0.1' || fail "checkpoint origin"

# Witness IDs stay out of the CA ID's arc.
grep '^cosigner ' "$A/rp/rp.conf" | awk '{print $2}' > "$tmp/wids"
[ "$(wc -l < "$tmp/wids")" -eq 2 ] || fail "two witnesses"
! grep -q '^32473\.1\.' "$tmp/wids" || fail "witness ID inside the CA arc: $(cat "$tmp/wids")"
run "$mtc" demo --out "$tmp/E" --ca-id 32473.9999
[ $rc -eq 1 ] && echo "$out" | grep -q "arc" || fail "CA ID over the witnesses' arc: $rc $out"

# Landmarks per time interval, max_active from the draft's formula.
grep -qx 'max-active-landmarks 169' "$A/ca.conf" || fail "max_active 169 (7 days, hourly)"
[ "$(head -1 "$A/landmarks")" = "2 2" ] || fail "hourly checkpoints: two landmarks"
"$mtc" demo --out "$tmp/F" --checkpoint-interval 600 > "$tmp/F.out"
[ "$(head -1 "$tmp/F/landmarks")" = "1 1" ] || fail "two checkpoints in one hour: one landmark"
[ ! -e "$tmp/F/certs/entry-7.landmark.der" ] || fail "entry 7 has no landmark yet"
"$mtc" verify --rp "$tmp/F/rp" "$tmp/F/certs/entry-1.landmark.der" >/dev/null ||
  fail "landmark certificate of the one-landmark demo"
"$mtc" demo --out "$tmp/G" --landmark-interval 7200 --lifetime 86400 >/dev/null
grep -qx 'max-active-landmarks 13' "$tmp/G/ca.conf" || fail "max_active ceil(24/2)+1"

# The relying party trusts landmark subtrees only through a verified update.
R="$tmp/R"
cp -r "$A/rp" "$R"
rm -f "$R/update.bin"
lr="$A/certs/entry-5.landmark.der"
run "$mtc" verify --rp "$R" "$lr"
[ $rc -eq 1 ] && echo "$out" | grep -q "cosigner-policy" || fail "no update, no trust: $out"
run "$mtc" rp update --rp "$R" "$A/update.bin"
[ $rc -eq 0 ] && echo "$out" | grep -q "installed" || fail "update refused: $out"
echo "$out" | grep -q "landmarks 1..2 trusted (4 subtrees)" || fail "update summary: $out"
"$mtc" verify --rp "$R" "$lr" | grep -q "trusted subtree \[4, 6)" || fail "after update"
# Refusals: truncated, tampered, another CA, too few cosigners.
head -c 200 "$A/update.bin" > "$tmp/trunc.bin"
run "$mtc" rp update --rp "$R" "$tmp/trunc.bin"
[ $rc -eq 1 ] && echo "$out" | grep -q "not an update file" || fail "truncated: $out"
cp "$A/update.bin" "$tmp/bad.bin"
size=$(wc -c < "$tmp/bad.bin")
printf '\377' | dd of="$tmp/bad.bin" bs=1 seek=$((size - 1)) conv=notrunc 2>/dev/null
run "$mtc" rp update --rp "$R" "$tmp/bad.bin"
[ $rc -eq 1 ] && echo "$out" | grep -q "refused: subtree-proof" || fail "tampered: $out"
"$mtc" demo --out "$tmp/B" --ca-id 32473.2 >/dev/null
run "$mtc" rp update --rp "$R" "$tmp/B/update.bin"
[ $rc -eq 1 ] && echo "$out" | grep -q "refused: wrong-ca" || fail "other CA: $out"
"$mtc" demo --out "$tmp/C" --cosigners 0 >/dev/null
run "$mtc" rp update --rp "$R" "$tmp/C/update.bin"
[ $rc -eq 1 ] && echo "$out" | grep -q "refused: cosigner-policy" || fail "CA alone: $out"
# The refused ones changed nothing.
"$mtc" verify --rp "$R" "$lr" | grep -q "trusted subtree" || fail "state kept"
# A newer update replaces the installed one; the older is then a rollback.
cp "$A/update.bin" "$tmp/old.bin"
"$mtc" issue --ca "$A" --from-x509 "$A/certs/entry-1.standalone.der" \
  --out "$tmp/n.der" --landmark >/dev/null
"$mtc" rp update --rp "$R" "$A/update.bin" | grep -q "landmarks 1..3" || fail "newer update"
"$mtc" verify --rp "$R" "$tmp/n.landmark.der" | grep -q "trusted subtree" ||
  fail "certificate of the new landmark"
run "$mtc" rp update --rp "$R" "$tmp/old.bin"
[ $rc -eq 1 ] && echo "$out" | grep -q "refused: rollback" || fail "rollback: $out"
# An installed update is verified again at every load.
cp "$tmp/bad.bin" "$R/update.bin"
run "$mtc" verify --rp "$R" "$lr"
[ $rc -eq 2 ] && echo "$out" | grep -q "update.bin" || fail "tampered installed update: $out"
run "$mtc" rp update
[ $rc -eq 2 ] || fail "rp usage"

# The CA never signs an entry of a type or with an extension it does not
# recognize: a null_entry with extension 7 in the log stops issuance.
cp -r "$A" "$tmp/U"
printf '\000\011\000\005\000\007\000\001\102\000\000' >> "$tmp/U/log.entries"
run "$mtc" issue --ca "$tmp/U" --from-x509 "$A/certs/entry-2.standalone.der" --out "$tmp/u.der"
[ $rc -eq 1 ] && echo "$out" | grep -q "unsupported" || fail "unrecognized extension: $rc $out"

# mtc issue: the issuer's extensions are replaced; CA certificates refused.
cd "$tmp"
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout ca.key \
  -out root.pem -subj "/CN=Old Root" -days 30 >/dev/null 2>&1
openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout leaf.key \
  -out leaf.csr -subj "/CN=leaf.example" >/dev/null 2>&1
printf 'basicConstraints=CA:FALSE\nauthorityKeyIdentifier=keyid\nsubjectAltName=DNS:leaf.example\nissuerAltName=DNS:old-ca.example\n' > ext.cnf
openssl x509 -req -in leaf.csr -CA root.pem -CAkey ca.key -set_serial 42 -days 30 \
  -extfile ext.cnf -out leaf.pem >/dev/null 2>&1
cd - >/dev/null
run "$mtc" issue --ca "$A" --from-x509 "$tmp/root.pem" --out "$tmp/root-mtc.der"
[ $rc -eq 1 ] && echo "$out" | grep -q "CA certificate" || fail "CA certificate issued: $out"
"$mtc" issue --ca "$A" --from-x509 "$tmp/root.pem" --out "$tmp/root-mtc.der" --allow-ca |
  grep -q " CA$" || fail "--allow-ca flags the CA certificate"
"$mtc" issue --ca "$A" --from-x509 "$tmp/leaf.pem" --out "$tmp/leaf-mtc.der" >/dev/null
openssl x509 -inform DER -in "$tmp/leaf-mtc.der" -noout -text > "$tmp/leaf.txt"
grep -A1 'Authority Key Identifier' "$tmp/leaf.txt" | grep -q '81:FD:59:01$' ||
  fail "AKI is not the CA ID: $(grep -A1 'Authority Key' "$tmp/leaf.txt")"
! grep -q 'Issuer Alternative Name' "$tmp/leaf.txt" || fail "old issuerAltName kept"
grep -q 'DNS:leaf.example' "$tmp/leaf.txt" || fail "subjectAltName kept"
"$mtc" verify --rp "$A/rp" "$tmp/leaf-mtc.der" >/dev/null || fail "re-issued leaf verifies"

# mtc sizes: the draft's own cadences.
"$mtc" sizes > "$tmp/sizes"
grep -q '^standalone  *ed25519  *0  *2500  *12 ' "$tmp/sizes" || fail "2-second standalone row"
grep -q '^landmark  *ed25519  *-  *4400000  *23 ' "$tmp/sizes" || fail "hourly 23-hash row"

# mtc show: (log, index) only for MTC serials; trust anchor IDs.
"$mtc" show "$A/ca.der" | grep '^  serial:' > "$tmp/serial"
! grep -q 'log' "$tmp/serial" || fail "CA certificate serial as (log, index): $(cat "$tmp/serial")"
"$mtc" show "$A/certs/entry-5.standalone.der" | grep -q 'serial: .*(log 1, index 5)' ||
  fail "MTC serial"
"$mtc" show "$A/certs/entry-5.standalone.der" | grep -q 'trust anchor ID: 32473.1 ' ||
  fail "standalone trust anchor ID"
"$mtc" show --landmarks "$A/landmarks" "$lr" | grep -q 'trust anchor ID: 32473.1.1.1.2 (landmark 2)' ||
  fail "landmark-relative trust anchor ID"
echo "mtc conformance checks passed"
