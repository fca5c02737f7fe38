#!/bin/sh
# No passage of the prose stutters (usage: sh_docs_stutter.sh [BUILD]): the
# same 8 words twice within 120 words of docs/*.md or a README.md is
# what a merge that kept both sides of a hunk leaves behind ("... the
# model does not record derived quantities. ... run's grid step; the model
# does not record derived quantities (so ..."). Code blocks, indented
# blocks and tables are left out: their repeats are data.
set -u
fail() { echo "FAIL: $*"; exit 1; }
[ -d docs ] || fail "run from the repository root"
python3 - docs/*.md README.md */README.md */*/README.md <<'EOF_PY' || fail "stuttering passages (above): a line kept twice?"
import sys
N, W = 8, 120
bad = 0
for f in sys.argv[1:]:
    out, code = [], False
    for l in open(f, encoding="utf-8").read().split("\n"):
        if l.startswith("```"):
            code = not code
            out.append("")
            continue
        out.append("" if code or l.startswith("    ") or l.startswith("|") else l)
    words = " ".join(out).split()
    seen = {}
    for i in range(len(words) - N):
        g = " ".join(words[i:i + N])
        j = seen.get(g)
        if j is not None and N <= i - j <= W:
            print(f"{f}: '{g}' again {i - j} words later")
            bad += 1
        seen[g] = i
print(f"{len(sys.argv) - 1} files checked, {bad} stutters")
sys.exit(1 if bad else 0)
EOF_PY
echo "ok: no stutter"
