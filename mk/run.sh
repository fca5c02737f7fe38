#!/bin/sh
# `make run`: the default scenario, end to end. Runs scenarios/quickstart.lua
# into results/quickstart.db (a fresh file each time), prints its summary
# table, renders the report and prints the path of its index.
set -eu
build=${1:-build}
mkdir -p results
db=results/quickstart.db
rm -f "$db" "$db-wal" "$db-shm"
"$build/mtcsim" run scenarios/quickstart.lua --out "$db"
"$build/mtcsim" report "$db" --out results/quickstart-report
