#!/bin/sh
# `make run`: the default demonstration. Until the simulator host exists this
# recomputes the draft's test vectors and runs the Merkle benchmark.
set -eu
build=${1:-build}
echo "== mtc vectors (draft-ietf-plants-merkle-tree-certs, appendix 'Subtree Test Vectors')"
"$build/mtc" vectors
echo "== mtc bench merkle"
"$build/mtc" bench merkle
