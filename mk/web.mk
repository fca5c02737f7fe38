# Web side (sites, browsers, TLS): the throughput benchmark.
#   make bench-web        build/bench_web, 10^6 clients for 1 simulated day
BENCH_WEB := $(BUILD)/bench_web

$(BENCH_WEB): $(BUILD)/obj/tests/bench_web.o $(call obj,$(TESTLIB_SRC)) $(LIBSIM) $(LIBMTC)
	$(say) LD $@
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/obj/tests/bench_web.o: CPPFLAGS += -Itests

all: $(BENCH_WEB)

.PHONY: bench-web
bench-web: $(BENCH_WEB)
	$(BENCH_WEB)

# The scale goal through the whole product: 10^6 browsers, 30 days, one
# core (CLIENTS=, DAYS= to change; about 20 minutes at the defaults).
.PHONY: bench-scale
bench-scale: all
	@sh sim/bench/web_scale.sh $(BUILD)
