# libFuzzer targets: every tests/fuzz_<name>.c is built with clang against
# the mtc-core sources into $(BUILD)/fuzz/fuzz_<name> and `make fuzz` runs
# each for FUZZ_SECONDS on its corpus tests/fuzz/<name>/ (new inputs found
# go to $(BUILD)/fuzz/new_<name>/; copy interesting ones into the corpus).
# `make test` replays the corpora through each target's test_<...>_fuzz.c
# without libFuzzer, so no clang is needed there.
FUZZ_SRC     := $(wildcard tests/fuzz_*.c)
FUZZ_BINS    := $(patsubst tests/%.c,$(BUILD)/fuzz/%,$(FUZZ_SRC))
FUZZ_SECONDS ?= 60
FUZZ_CC      ?= clang

$(BUILD)/fuzz/fuzz_%: tests/fuzz_%.c $(MTC_SRC) $(wildcard mtc-core/include/mtc/*.h mtc-core/src/*.h)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(CPPFLAGS) -std=c11 -g -O1 -fsanitize=fuzzer,address,undefined \
	  $(PKG_CFLAGS) -o $@ $< $(MTC_SRC) $(LDLIBS)

fuzz: $(FUZZ_BINS)
	@for b in $(FUZZ_BINS); do \
	  n=$${b##*/fuzz_}; mkdir -p $(BUILD)/fuzz/new_$$n; \
	  echo "== $$b ($(FUZZ_SECONDS)s, corpus tests/fuzz/$$n)"; \
	  $$b -max_total_time=$(FUZZ_SECONDS) -max_len=8192 $(BUILD)/fuzz/new_$$n tests/fuzz/$$n || exit 1; \
	done
