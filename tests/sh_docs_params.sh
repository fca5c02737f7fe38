#!/bin/sh
# The parameter reference of docs/scenarios.md is what the model's schemas
# print (usage: sh_docs_params.sh BUILD): `mtcsim params --markdown`
# between the reference's two marker lines, byte for byte
# (mk/params_doc.sh; `make params-doc` rewrites it), and that listing names
# no parameter twice within a kind (a repeated schema entry would be set
# and recorded twice under one name) and has as many cells in each row as
# in its table's header, and every list default is printed whole.
set -u
build=${1:-build}
fail() { echo "FAIL: $*"; exit 1; }
[ -x "$build/mtcsim" ] || fail "$build/mtcsim is not built"
sh mk/params_doc.sh "$build" check || fail "docs/scenarios.md's parameter reference has drifted from the code"
dups=$("$build/mtcsim" params --markdown | awk '
  /^### / { kind = $0 }
  /^\| `/ { split($0, f, "`"); k = kind " " f[2]; if (seen[k]++) print k }')
[ -z "$dups" ] || fail "parameters listed twice: $dups"
# every row of a table has its header's cells (an unescaped "|" in a cell,
# as in an enum's choices, splits it)
bad=$("$build/mtcsim" params --markdown | awk '
  /^\|/ { s = $0; gsub(/\\\|/, "", s); n = gsub(/\|/, "", s)
          if (/^\| (parameter|action) \|/) cells = n; else if (n != cells) print }')
[ -z "$bad" ] || fail "rows with other cells than their header: $bad"
# every list default is printed whole, "[...]" (a fixed buffer once cut the
# chain mix's long default mid-item)
cut=$("$build/mtcsim" params --markdown | awk -F' \\| ' '
  $2 == "list" && ($5 !~ /^`\[/ || $5 !~ /\]`$/) { print }')
[ -z "$cut" ] || fail "list defaults not printed whole: $cut"
"$build/mtcsim" params --markdown | grep -q 'amazon-rsa-cross2-root-4096:0.139232\]`' ||
    fail "the sites' chain_mix default does not end with its last item"
echo "ok: parameter reference generated, no parameter twice, list defaults whole"
