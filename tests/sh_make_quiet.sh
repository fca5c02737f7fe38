#!/bin/sh
# The build is quiet by default and verbose with V=1 (usage: sh_make_quiet.sh
# [BUILD]): one object compiled into a scratch tree prints one short line
# ("  CC      mtc-core/src/hash.c") without V and the full compiler command
# with V=1; and no recipe of the Makefile or mk/*.mk runs the compiler,
# the archiver or the linker without the $(Q) that makes it quiet.
set -u
fail() { echo "FAIL: $*"; exit 1; }
[ -f Makefile ] || fail "run from the repository root"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/make-quiet.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
src=mtc-core/src/hash.c
[ -f "$src" ] || fail "$src is gone: pick another small source"
obj="$tmp/b/obj/mtc-core/src/hash.o"
# run by `make check`/`make test`, this script's make would inherit the
# parent's jobserver and V through the environment, and print a warning
# about it: the build judged here is a user's own `make`
unset MAKEFLAGS MFLAGS MAKELEVEL V

make --no-print-directory BUILD="$tmp/b" "$obj" >"$tmp/quiet" 2>&1 ||
  { cat "$tmp/quiet"; fail "quiet build of $obj"; }
printf '  CC      %s\n' "$src" > "$tmp/want"
cmp -s "$tmp/quiet" "$tmp/want" || {
  echo "--- got:"; cat "$tmp/quiet"; echo "--- wanted:"; cat "$tmp/want"
  fail "make without V=1 prints more (or other) than one short line per step"; }

rm -f "$obj"
make --no-print-directory BUILD="$tmp/b" V=1 "$obj" >"$tmp/verbose" 2>&1 ||
  { cat "$tmp/verbose"; fail "verbose build of $obj"; }
grep -q -- "-c $src -o $obj" "$tmp/verbose" ||
  { cat "$tmp/verbose"; fail "make V=1 does not print the compiler command"; }
grep -q '^  CC ' "$tmp/verbose" &&
  fail "make V=1 prints the short line as well as the command"

# every compile, archive and link step goes through $(Q)
bad=$(grep -nE '^	(\$\((CC|FUZZ_CC)\)|cc |g\+\+ |ar |rm -f \$@ && ar)' Makefile mk/*.mk)
[ -z "$bad" ] || { echo "$bad"; fail "recipes above run without \$(Q): they print in quiet mode"; }
echo "ok: quiet build, V=1 verbose"
