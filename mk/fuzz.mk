# Fuzzing (included by the Makefile).
#
# Every tests/fuzz_<name>.c is a libFuzzer target (LLVMFuzzerTestOneInput)
# with its seed corpus in tests/fuzz/<name>/. Two builds of each:
#
#   make fuzz        clang -fsanitize=fuzzer,address,undefined binaries in
#                    $(BUILD)/fuzz/, each run for FUZZ_TIME seconds (default
#                    60) on a scratch copy of its corpus; new crashes are
#                    left in $(BUILD)/fuzz/<name>-crashes/.
#   (make all)       $(BUILD)/tests/fuzz-replay/fuzz_<name>: the target
#                    linked with tests/fuzz/replay_main.c by the normal
#                    compiler (sanitized in build/san), which
#                    tests/sh_fuzz_replay.sh runs over the committed corpus
#                    during `make test`.
#
# Targets may use the test helpers in tests/lib/ and both libraries.

FUZZ_SRC     := $(wildcard tests/fuzz_*.c)
FUZZ_NAMES   := $(patsubst tests/fuzz_%.c,%,$(FUZZ_SRC))
FUZZ_REPLAY  := $(patsubst %,$(BUILD)/tests/fuzz-replay/fuzz_%,$(FUZZ_NAMES))
FUZZ_CC      ?= clang
FUZZ_TIME    ?= 60
FUZZ_DIR     := $(BUILD)/fuzz
FUZZ_CFLAGS  := -std=c11 -g -O1 -fsanitize=fuzzer,address,undefined \
                -fno-sanitize-recover=undefined -fno-omit-frame-pointer \
                $(CPPFLAGS) -Itests $(PKG_CFLAGS)
FUZZ_LIBSRC  := $(MTC_SRC) $(SIM_SRC) $(TESTLIB_SRC)
FUZZ_BINS    := $(patsubst %,$(FUZZ_DIR)/fuzz_%,$(FUZZ_NAMES))

san-progs: $(FUZZ_REPLAY)

# Objects first, archives last (fuzz_host adds the host's objects below).
$(BUILD)/tests/fuzz-replay/fuzz_%: $(BUILD)/obj/tests/fuzz_%.o \
        $(BUILD)/obj/tests/fuzz/replay_main.o $(call obj,$(TESTLIB_SRC)) \
        $(LIBSIM) $(LIBMTC)
	@mkdir -p $(dir $@)
	$(say) LD $@
	$(Q)$(CC) $(LDFLAGS) -o $@ $(filter-out %.a,$^) $(filter %.a,$^) $(LDLIBS)

# The fuzz objects see tests/ on the include path like the test files do.
$(BUILD)/obj/tests/fuzz_%.o: CPPFLAGS += -Itests

$(FUZZ_DIR)/fuzz_%: tests/fuzz_%.c $(FUZZ_LIBSRC)
	@mkdir -p $(dir $@)
	$(say) FUZZ $@
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) -o $@ $< $(FUZZ_LIBSRC) $(LDLIBS)

# fuzz_host runs scenarios: it also links the scenario host (lua/host,
# lua/bindings) and the embedded library, whose rules are in mk/lua.mk
# (read after this file, hence the paths spelled out here). It is slow by
# the others' standards (tens of inputs per second on a core: every input
# is a fresh Lua state, and a world is built and run), so give it hours,
# e.g. nice build/fuzz/fuzz_host -timeout=60 CORPUS. Its libFuzzer build
# (FUZZ_HOST_LIBFUZZER) lends its hosts one cache of built chains
# (mtc/chain_cache.h): the baseline chains, the same few in every world,
# are signed once per process (tests/fuzz_host.c says why that loses
# nothing).
FUZZ_HOST_SRC  := $(wildcard lua/host/*.c lua/bindings/*.c)
FUZZ_HOST_OBJS := $(call obj,$(FUZZ_HOST_SRC)) $(BUILD)/obj/gen/lua_embed.o

$(BUILD)/tests/fuzz-replay/fuzz_host: $(FUZZ_HOST_OBJS)

$(FUZZ_DIR)/fuzz_host: tests/fuzz_host.c $(FUZZ_LIBSRC) $(FUZZ_HOST_SRC) \
        $(BUILD)/gen/lua_embed.c mk/fuzz_host.ignorelist
	@mkdir -p $(dir $@)
	$(say) FUZZ $@
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) \
	  -DFUZZ_HOST_LIBFUZZER \
	  -fsanitize-coverage-ignorelist=mk/fuzz_host.ignorelist -o $@ $< \
	  $(FUZZ_LIBSRC) $(FUZZ_HOST_SRC) $(BUILD)/gen/lua_embed.c $(LDLIBS)

fuzz: deps
	@$(MAKE) --no-print-directory $(FUZZ_BINS)
	@set -e; for n in $(FUZZ_NAMES); do \
	  rm -rf $(FUZZ_DIR)/$$n-corpus; mkdir -p $(FUZZ_DIR)/$$n-corpus $(FUZZ_DIR)/$$n-crashes; \
	  cp tests/fuzz/$$n/* $(FUZZ_DIR)/$$n-corpus/; \
	  echo "fuzz $$n for $(FUZZ_TIME)s"; \
	  $(FUZZ_DIR)/fuzz_$$n -max_total_time=$(FUZZ_TIME) -max_len=70000 \
	    -artifact_prefix=$(FUZZ_DIR)/$$n-crashes/ $(FUZZ_DIR)/$$n-corpus; \
	done
