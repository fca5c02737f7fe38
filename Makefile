# mtcsim build.
#
# Two commands matter: `make run` and `make test` (with `make check`, its
# quick tier for daily work). Each first runs `make deps` (installs missing
# Debian packages), then re-enters make so that pkg-config is evaluated
# after the install.
#
# Layout of outputs:
#   build/          optimized programs, libraries and test binaries
#   build/san/      the same tests built with AddressSanitizer + UBSan
#
# Sources are discovered by wildcard so that adding a module needs no edit
# here: mtc-core/src/*.c -> libmtc.a, sim/<layer>/*.c -> libsim.a,
# mtc-core/cli/*.c -> mtc, lua/<part>/*.c and analysis/*.c -> mtcsim,
# tests/test_*.c -> one
# test binary each. Extra rules live in mk/*.mk (mk/sim.mk: the sim layers,
# and the engine's build without mtc-core).

BUILD   ?= build
SAN     ?= 0

# Quiet by default, as Linux's and Lua's builds are: one short line per
# step ("  CC      lua/host/lhost.c"); `make V=1` prints every command.
# Q prefixes a recipe's command, $(say) prints its short line (and does
# nothing with V=1, where the command itself is printed).
V ?= 0
ifeq ($(V),1)
Q   :=
say := @true
else
Q   := @
say := @printf '  %-7s %s\n'
endif
CC      ?= cc
PKGS    := libcrypto gsl sqlite3 lua5.4 libbrotlienc libbrotlidec libzstd

# Open MPI is optional: with it, mtcsim can shard a run over ranks
# (sim/shard.h); without it, everything builds and runs single-process.
MPI_PKG := $(shell pkg-config --exists ompi-c 2>/dev/null && echo ompi-c)
PKGS    += $(MPI_PKG)
MPI_DEF := $(if $(MPI_PKG),-DMTCSIM_HAVE_MPI)

PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   := $(shell pkg-config --libs $(PKGS) 2>/dev/null)

# -ffp-contract=off: no fused multiply-add, so floating-point results are the
# same on every x86-64 machine (runs must reproduce to the bit).
WARN    := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wvla
# The sanitized build keeps line tables only (-g1): its reports name
# file:line; full debug information cost about 6 % of its build's CPU
# time (147 against 157 s, measured on this tree).
ifeq ($(SAN),1)
OPT     := -O1 -g1 -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
LDSAN   := -fsanitize=address,undefined
else
OPT     := -O3 -g
LDSAN   :=
endif
# Link-time optimization for the programs whose speed is measured: mtcsim
# and build/bench_web inline across the engine's and the web side's
# modules (the queue into the run loop, the histograms into the web
# side's buffers), whose objects carry LTO_CFLAGS (mk/sim.mk). Those
# objects are fat: they carry ordinary code too, which every other link
# uses (-fno-lto), so the tests link as fast as before. LTO changes no
# floating-point rule (-ffp-contract=off holds at the link): results stay
# bit-identical (docs/model.md, "Link-time optimization and a pinned
# core"). The sanitized build has none.
ifeq ($(SAN),1)
LTO_CFLAGS  :=
LTO_LDFLAGS :=
NO_LTO      :=
else
LTO_CFLAGS  := -flto=auto -ffat-lto-objects
LTO_LDFLAGS := -flto=auto $(OPT) -ffp-contract=off
NO_LTO      := -fno-lto
endif
# The sim layers (engine, world, pki, web, results, scaleout) each keep
# their public headers in sim/<layer>/include/sim/.
SIM_LAYERS := engine world pki web results scaleout
LUA_PARTS  := commands host bindings
BASE_CPPFLAGS := -D_DEFAULT_SOURCE -D_POSIX_C_SOURCE=200809L
CPPFLAGS := $(BASE_CPPFLAGS) -Imtc-core/include \
            $(foreach l,$(SIM_LAYERS),-Isim/$(l)/include) \
            $(foreach p,$(LUA_PARTS),-Ilua/$(p)) -Ianalysis $(MPI_DEF)
BASE_CFLAGS := -std=c11 $(WARN) $(OPT) -ffp-contract=off
CFLAGS  := $(BASE_CFLAGS) $(PKG_CFLAGS) $(EXTRA_CFLAGS)
LDLIBS  := $(PKG_LIBS) -lm -lpthread
LDFLAGS := $(LDSAN) $(NO_LTO)
LDFLAGS_LTO := $(LDSAN) $(LTO_LDFLAGS)

MTC_SRC  := $(wildcard mtc-core/src/*.c)
SIM_SRC  := $(foreach l,$(SIM_LAYERS),$(wildcard sim/$(l)/*.c))
CLI_SRC  := $(wildcard mtc-core/cli/*.c)
HOST_SRC := $(foreach p,$(LUA_PARTS),$(wildcard lua/$(p)/*.c)) $(wildcard analysis/*.c)
TEST_SRC := $(wildcard tests/test_*.c)
TESTLIB_SRC := $(wildcard tests/lib/*.c)

obj = $(patsubst %.c,$(BUILD)/obj/%.o,$(1))

LIBMTC := $(BUILD)/libmtc.a
LIBSIM := $(BUILD)/libsim.a
PROGS  := $(BUILD)/mtc $(if $(HOST_SRC),$(BUILD)/mtcsim)
TESTS  := $(patsubst tests/%.c,$(BUILD)/tests/%,$(TEST_SRC))

.PHONY: all deps run test test-built check check-built bench clean fuzz check-progs san-progs
.DEFAULT_GOAL := all
# Keep objects make considers intermediate (test objects): no rebuilds.
.SECONDARY:

# What each test tier runs, so that a tier builds nothing it does not run:
# check-progs for the quick tier (the programs, the C tests and the drivers
# its shell tests use), san-progs for the sanitized pass (those and the
# fuzz replays; not the benchmarks or the validation suite). mk/*.mk add
# their drivers to the tiers that run them; `all` is everything.
check-progs: $(PROGS) $(TESTS)
san-progs: check-progs
all: check-progs san-progs $(BUILD)/mtcsim-nolto

deps:
	@sh mk/deps.sh

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(say) CC $<
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) -MMD -MP -c $< -o $@

$(LIBMTC): $(call obj,$(MTC_SRC))
	@mkdir -p $(dir $@)
	$(say) AR $@
	$(Q)rm -f $@ && ar rcs $@ $^

$(LIBSIM): $(call obj,$(SIM_SRC))
	@mkdir -p $(dir $@)
	$(say) AR $@
	$(Q)rm -f $@ && ar rcs $@ $^

$(BUILD)/mtc: $(call obj,$(CLI_SRC)) $(LIBMTC)
	$(say) LD $@
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# mtcsim-nolto: the same objects' ordinary code, linked without
# link-time optimization, for the test that the two give the same results
# (tests/sh_lto_identity.sh; the full tier builds it).
$(BUILD)/mtcsim $(BUILD)/mtcsim-nolto: $(call obj,$(HOST_SRC)) $(LIBSIM) $(LIBMTC) $(HOST_EXTRA_OBJS)
	$(say) LD $@
	$(Q)$(CC) $(if $(filter %-nolto,$@),$(LDFLAGS),$(LDFLAGS_LTO)) -o $@ $(filter-out %.a,$^) $(filter %.a,$^) $(LDLIBS) $(HOST_EXTRA_LIBS)

# Objects first, archives last: extra prerequisites that mk/*.mk fragments
# add (host modules for tests/test_lua_*) may need symbols from libsim.
$(BUILD)/tests/%: $(BUILD)/obj/tests/%.o $(call obj,$(TESTLIB_SRC)) $(LIBSIM) $(LIBMTC)
	@mkdir -p $(dir $@)
	$(say) LD $@
	$(Q)$(CC) $(LDFLAGS) -o $@ $(filter-out %.a,$^) $(filter %.a,$^) $(LDLIBS)

# The user-facing targets: install what is missing, then build in a fresh make
# so that the pkg-config flags above see the installed packages.
# Builds and tests use every core (tests/run.sh runs tests in parallel).
NPROC := $(shell nproc 2>/dev/null || echo 2)

run: deps
	@$(MAKE) --no-print-directory -j$(NPROC) all
	@sh mk/run.sh $(BUILD)

test: deps
	@$(MAKE) --no-print-directory -j$(NPROC) test-built

check: deps
	@$(MAKE) --no-print-directory -j$(NPROC) check-built

# Everything: the optimized build and the sanitizer build (separate tree,
# same sources, what its pass runs), then every test of the first and the C
# tests and a named subset of shell tests of the second (tests/run.sh lists
# it and says why).
test-built: all
	@$(MAKE) --no-print-directory BUILD=$(BUILD)/san SAN=1 san-progs
	@sh tests/run.sh -j $(NPROC) full $(BUILD) $(BUILD)/san

# The quick tier: the optimized build, its C tests and the fast shell tests.
check-built: check-progs
	@sh tests/run.sh -j $(NPROC) check $(BUILD)

clean:
	rm -rf $(BUILD)

-include mk/*.mk
-include $(shell find $(BUILD)/obj -name '*.d' 2>/dev/null)
