#!/bin/sh
# Cross-checks ML-DSA (build/mtc mldsa ...) against the independent
# implementation @noble/post-quantum on fresh random inputs
# (tests/mldsa_xcheck.mjs). The npm package is installed, at a pinned
# version, into a project-local folder (build/node, ignored by git).
# Skips, saying so, only when node is not installed.
# Usage: sh tests/sh_mldsa_xcheck.sh BUILD_DIR
set -eu
build=${1:-build}
version=0.7.1
prefix=${MTC_NODE_PREFIX:-build/node}
if ! command -v node >/dev/null 2>&1; then
  echo "SKIP: node is not installed; the pinned vectors in tests/data/mldsa_kat.jsonl still check ML-DSA"
  exit 0
fi
pkg="$prefix/node_modules/@noble/post-quantum/package.json"
if [ ! -f "$pkg" ] || ! grep -q "\"version\": \"$version\"" "$pkg"; then
  command -v npm >/dev/null 2>&1 || { echo "FAIL: node present but npm missing"; exit 1; }
  mkdir -p "$prefix"
  # Concurrent runs (build and build/san) must not install at once.
  ( flock 9 2>/dev/null || true
    [ -f "$pkg" ] && grep -q "\"version\": \"$version\"" "$pkg" ||
      npm install --prefix "$prefix" --no-audit --no-fund --silent \
        "@noble/post-quantum@$version" ) 9>"$prefix/.lock"
fi
[ -x "$build/mtc" ] || { echo "FAIL: $build/mtc not built"; exit 1; }
rounds=3
case "$build" in */san) rounds=1 ;; esac
node tests/mldsa_xcheck.mjs "$build/mtc" "$prefix" "$rounds"
