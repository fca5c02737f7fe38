# `make bench-study`: the cost of a study against its floor
# (sim/bench/study.sh): quickstart at full size and chrome-adoption at a
# reduced scale, each as CPU seconds and as a ratio to the floor computed
# from the same run's counts at unit costs measured in the same invocation
# (build/bench_study_rates, build/bench_web). About 10 minutes of one core.
$(BUILD)/bench_study_rates: $(BUILD)/obj/sim/bench/study_rates.o $(LIBMTC)
	$(say) LD $@
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

all: $(BUILD)/bench_study_rates

.PHONY: bench-study
bench-study: $(BUILD)/mtcsim $(BUILD)/bench_study_rates $(BENCH_WEB)
	@sh sim/bench/study.sh $(BUILD)
