#!/bin/sh
# End-to-end checks of `mtc vectors` and `mtc tree` (usage: sh_mtc_tree.sh BUILD).
set -u
MTC="$1/mtc"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fails=0; checks=0
ok()   { checks=$((checks+1)); }
fail() { checks=$((checks+1)); fails=$((fails+1)); echo "FAIL: $*"; }
expect_exit() { # CODE DESCRIPTION CMD...
  want=$1; what=$2; shift 2
  "$@" >"$tmp/out" 2>"$tmp/err"; got=$?
  if [ "$got" = "$want" ]; then ok; else fail "$what: exit $got, want $want ($(cat "$tmp/err"))"; fi
}

# The four accumulated vectors of the draft.
"$MTC" vectors > "$tmp/v" || fail "mtc vectors failed"
grep -qx 'subtree-hashes b82806ad4265bb151c1119c0f4db437bb4d1a1f887b3a7fba1cd4ebf552e3e81' "$tmp/v" && ok || fail "subtree-hashes vector"
grep -qx 'inclusion-proofs ac2a8f989e44d99e399db448050ff5f19757df53cfb716aa81015d3955d8163f' "$tmp/v" && ok || fail "inclusion vector"
grep -qx 'consistency-proofs 10fa99b37bf9bf9ffa26b412fbd98bd75363256d0b75d61bc4538b9c9c5a0a74' "$tmp/v" && ok || fail "consistency vector"
grep -qx 'covering-subtrees 7fd9c8b926e9d2b5cf831560e8ce295a5ef97ad5c5ede4ea0dea28a8c8fc8bb0' "$tmp/v" && ok || fail "covering vector"

# A 14-entry tree, d[i] = byte i, as in the draft's figures.
i=0; : > "$tmp/d"; while [ $i -lt 14 ]; do printf '%02x\n' $i >> "$tmp/d"; i=$((i+1)); done
# Leaf hash of entry 0x00 computed independently with openssl.
leaf0=$(printf '\000\000' | openssl dgst -sha256 -r | cut -d' ' -f1)
[ "$("$MTC" tree hash "$tmp/d" 0 1)" = "$leaf0" ] && ok || fail "leaf hash of d[0]"
# Node [0,2) = SHA-256(0x01 || leaf0 || leaf1), with openssl.
leaf1=$(printf '\000\001' | openssl dgst -sha256 -r | cut -d' ' -f1)
node=$( (printf '\001'; printf '%s%s' "$leaf0" "$leaf1" | xxd -r -p) | openssl dgst -sha256 -r | cut -d' ' -f1)
[ "$("$MTC" tree hash "$tmp/d" 0 2)" = "$node" ] && ok || fail "node [0,2)"
# Draft example: consistency proof of [4,8) in a tree of 14 is [0,4) then [8,14).
"$MTC" tree consistency "$tmp/d" 14 4 8 > "$tmp/p"
exp=$(printf '%s\n%s\n' "$("$MTC" tree hash "$tmp/d" 0 4)" "$("$MTC" tree hash "$tmp/d" 8 14)")
[ "$(cat "$tmp/p")" = "$exp" ] && ok || fail "consistency [4,8) n=14"
# Draft example: inclusion of 10 in [8,13) is d11, [8,10), d12.
"$MTC" tree inclusion "$tmp/d" 10 8 13 > "$tmp/p"
exp=$(printf '%s\n%s\n%s\n' "$("$MTC" tree hash "$tmp/d" 11 12)" "$("$MTC" tree hash "$tmp/d" 8 10)" "$("$MTC" tree hash "$tmp/d" 12 13)")
[ "$(cat "$tmp/p")" = "$exp" ] && ok || fail "inclusion 10 in [8,13)"
[ "$("$MTC" tree cover 5 13)" = "4 8 8 13" ] && ok || fail "cover 5 13"
[ "$("$MTC" tree cover 7 9)" = "7 8 8 9" ] && ok || fail "cover 7 9"
[ "$("$MTC" tree root "$tmp/d")" = "$("$MTC" tree hash "$tmp/d" 0 14)" ] && ok || fail "root"
"$MTC" tree rfc-consistency "$tmp/d" 6 14 > "$tmp/p" && [ "$(wc -l < "$tmp/p")" -ge 2 ] && ok || fail "rfc-consistency"

# Invalid arguments: exit 2 and a message naming the argument.
expect_exit 2 "invalid subtree" "$MTC" tree hash "$tmp/d" 1 5
grep -q 'not a valid subtree' "$tmp/err" && ok || fail "message for invalid subtree"
expect_exit 2 "END beyond file" "$MTC" tree hash "$tmp/d" 0 15
grep -q 'END 15' "$tmp/err" && ok || fail "message names END"
expect_exit 2 "non-numeric START" "$MTC" tree hash "$tmp/d" x 4
grep -q "START 'x'" "$tmp/err" && ok || fail "message names START"
expect_exit 2 "negative" "$MTC" tree cover -1 4
expect_exit 2 "start > end" "$MTC" tree cover 5 4
expect_exit 2 "index outside" "$MTC" tree inclusion "$tmp/d" 3 4 8
grep -q 'INDEX 3' "$tmp/err" && ok || fail "message names INDEX"
expect_exit 2 "overflow" "$MTC" tree cover 0 99999999999999999999
expect_exit 2 "missing file" "$MTC" tree hash "$tmp/nope" 0 1
expect_exit 2 "wrong arg count" "$MTC" tree hash "$tmp/d" 0
expect_exit 2 "unknown query" "$MTC" tree frobnicate "$tmp/d"
printf '00\nzz\n' > "$tmp/bad"
expect_exit 2 "bad hex" "$MTC" tree hash "$tmp/bad" 0 1
grep -q 'bad:2' "$tmp/err" && ok || fail "bad hex names file:line"
printf '00\n0\n' > "$tmp/odd"
expect_exit 2 "odd hex" "$MTC" tree hash "$tmp/odd" 0 1
expect_exit 2 "M zero" "$MTC" tree rfc-consistency "$tmp/d" 0 4
expect_exit 0 "help" "$MTC" tree --help
expect_exit 0 "top help" "$MTC" --help
expect_exit 2 "unknown command" "$MTC" nonsense

# Bulk subtree consistency proofs: the draft's 13-entry example, verified
# against the root, and refused against another root or size or when a
# byte changes.
for i in $(seq 0 12); do printf '%02x\n' "$i"; done > "$tmp/e13"
root=$("$MTC" tree root "$tmp/e13" 13)
"$MTC" tree bulk "$tmp/e13" 13 0 4 4 8 8 13 > "$tmp/bulk" && ok || fail "tree bulk"
proof=$(cat "$tmp/bulk")
[ ${#proof} -eq $(( 2 * (12 + 48 * 3 + 32 * 4) )) ] && ok || fail "bulk proof length ${#proof}"
expect_exit 0 "bulk-verify" "$MTC" tree bulk-verify 13 "$root" "$proof"
grep -qx 'ok: 3 subtrees, 4 tiles' "$tmp/out" && ok || fail "bulk-verify output"
other=$("$MTC" tree root "$tmp/e13" 12)
expect_exit 1 "bulk-verify, another root" "$MTC" tree bulk-verify 13 "$other" "$proof"
expect_exit 1 "bulk-verify, another size" "$MTC" tree bulk-verify 12 "$root" "$proof"
bad=$(printf '%s' "$proof" | sed 's/^\(.\{40\}\)./\1f/')
[ "$bad" != "$proof" ] || bad=$(printf '%s' "$proof" | sed 's/^\(.\{40\}\)./\1e/')
expect_exit 1 "bulk-verify, a changed byte" "$MTC" tree bulk-verify 13 "$root" "$bad"
expect_exit 1 "bulk, unordered" "$MTC" tree bulk "$tmp/e13" 13 4 8 0 4
expect_exit 2 "bulk, odd arguments" "$MTC" tree bulk "$tmp/e13" 13 0

echo "$((checks-fails))/$checks checks passed"
[ $fails -eq 0 ]
