#!/bin/sh
# The sources compile without a warning under clang as under gcc (usage:
# sh_clang_warnings.sh BUILD): `make clang-warnings` (mk/clang.mk) parses
# every source of the programs, libraries and benchmarks with clang and
# the project's warning flags, -Werror among them. BUILD is unused: the
# check writes nothing.
set -u
out=$(make --no-print-directory -s clang-warnings 2>&1)
rc=$?
printf '%s\n' "$out" | tail -n 40
exit $rc
