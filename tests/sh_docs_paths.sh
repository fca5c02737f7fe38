#!/bin/sh
# The prose agrees with the tree (usage: sh_docs_paths.sh [BUILD]): every
# repository path that docs/*.md, a README.md or a source comment names
# exists, every tour README names each file of its folder, every
# function or identifier the docs name in backticks is in the code (the
# walk-throughs of docs/architecture.md among them), and the layer table
# of docs/architecture.md is what the C files include. tests/docs_paths.py says
# how each check reads the text; it needs only python3 (and git
# when there is a checkout: then untracked build outputs are left out).
set -u
fail() { echo "FAIL: $*"; exit 1; }
[ -f tests/docs_paths.py ] || fail "run from the repository root"
python3 tests/docs_paths.py || fail "the prose names what the tree does not hold (above)"
