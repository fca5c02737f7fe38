#!/bin/sh
# Replays every committed fuzz corpus tests/fuzz/<name>/ through its target
# built without libFuzzer (BUILD/tests/fuzz-replay/fuzz_<name>, see
# mk/fuzz.mk). Any crash or sanitizer report fails the test.
set -eu
build=${1:-build}
n=0
for src in tests/fuzz_*.c; do
  [ -f "$src" ] || continue
  name=$(basename "$src" .c); name=${name#fuzz_}
  bin="$build/tests/fuzz-replay/fuzz_$name"
  [ -x "$bin" ] || { echo "missing $bin"; exit 1; }
  set -- tests/fuzz/"$name"/*
  [ -f "$1" ] || { echo "empty corpus tests/fuzz/$name"; exit 1; }
  "$bin" "$@"
  n=$((n+1))
done
echo "replayed $n corpora"
