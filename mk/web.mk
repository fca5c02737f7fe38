# Web side (sites, browsers, TLS): the throughput benchmark.
#   make bench-web        build/bench_web, 10^6 clients for 1 simulated day, on
#                         one core [BENCH_CORE=N] [BENCH_ARGS=...]
#   make bench-web-pair   it against another build's, in the same run
BENCH_WEB := $(BUILD)/bench_web

$(BENCH_WEB): $(BUILD)/obj/tests/bench_web.o $(call obj,$(TESTLIB_SRC)) $(LIBSIM) $(LIBMTC)
	$(say) LD $@
	$(Q)$(CC) $(LDFLAGS_LTO) -o $@ $^ $(LDLIBS)

$(BUILD)/obj/tests/bench_web.o: CPPFLAGS += -Itests

all: $(BENCH_WEB)

# Pinned to one core (BENCH_CORE, the last by default, as bench-web-pair
# does) where taskset exists: a process the scheduler moves between cores
# refills their caches each time, and its rate varies the more for it
# (docs/model.md, "Link-time optimization and a pinned core").
BENCH_CORE ?= $(shell expr $(NPROC) - 1)
BENCH_PIN   = $(if $(shell command -v taskset 2>/dev/null),taskset -c $(BENCH_CORE))

.PHONY: bench-web
bench-web: $(BENCH_WEB)
	$(BENCH_PIN) $(BENCH_WEB) $(BENCH_ARGS)

# This build's bench_web against another's in the same run, alternating
# on one core (sim/bench/bench_pair.py): the ratio a change is worth,
# which the shared machine's drift cannot bias, and a check that the two
# count the same events and handshakes.
#   make bench-web-pair BASE=OTHER/bench_web [PAIR_ARGS="--rounds 5"]
#                       [BENCH_ARGS="--days 0.5"]
.PHONY: bench-web-pair
bench-web-pair: $(BENCH_WEB)
	@test -n "$(BASE)" || { echo "usage: make bench-web-pair BASE=OTHER/bench_web [PAIR_ARGS=...] [BENCH_ARGS=...]"; exit 2; }
	python3 sim/bench/bench_pair.py $(PAIR_ARGS) $(BASE) $(BENCH_WEB) -- $(BENCH_ARGS)

# The scale goal through the whole product: 10^6 browsers, 30 days, one
# core (CLIENTS=, DAYS= to change; about 20 minutes at the defaults).
.PHONY: bench-scale
bench-scale: all
	@sh sim/bench/web_scale.sh $(BUILD)
