# The tree under Debian's other compiler (included by the Makefile).
#
#   make clang-warnings   clang -fsyntax-only with the project's warning
#                         flags (-Werror among them) over every C source
#                         the programs, libraries and benchmarks are built
#                         from; tests/sh_clang_warnings.sh runs it.
#
# Why: gcc builds the tree, but clang builds the fuzz targets from the
# same sources, and its warnings are not gcc's (a static text only used
# in sizeof, a missing field in a positional initializer, a struct
# copied on a path where nothing set it). Syntax only: no objects,
# nothing in $(BUILD) changes, and no LTO or optimization flag is
# involved.
CLANG_CHECK_SRC := $(MTC_SRC) $(SIM_SRC) $(CLI_SRC) $(HOST_SRC) \
                   $(wildcard sim/bench/*.c)
CLANG_CHECK_JOBS ?= 1

.PHONY: clang-warnings
clang-warnings:
	@command -v clang >/dev/null || { echo "clang-warnings: clang is not installed (make deps installs it)"; exit 1; }
	@printf '%s\n' $(CLANG_CHECK_SRC) | \
	  xargs -P $(CLANG_CHECK_JOBS) -n 24 clang -fsyntax-only -std=c11 $(WARN) \
	    $(CPPFLAGS) $(PKG_CFLAGS) -Itests
	@echo "clang-warnings: $(words $(CLANG_CHECK_SRC)) sources, no warning"
