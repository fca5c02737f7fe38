# Reports (included by the Makefile).
#
# analysis/*.gp are embedded into build/mtcsim as a generated C table
# (mk/embed.sh -> $(BUILD)/gen/analysis_scripts.c), so `mtcsim report`
# finds its scripts from a clean clone, any working directory, any install.
#
# $(BUILD)/tests/results_driver: a test-only program (tests/results_driver.c)
# that writes synthetic experiments through sim/results.h for the report and
# export shell tests.

ANALYSIS_GP  := $(sort $(wildcard analysis/*.gp))
ANALYSIS_GEN := $(BUILD)/gen/analysis_scripts.c

$(ANALYSIS_GEN): $(ANALYSIS_GP) mk/embed.sh
	@mkdir -p $(dir $@)
	$(say) GEN $@
	$(Q)sh mk/embed.sh $(ANALYSIS_GP) > $@.tmp && mv $@.tmp $@

$(BUILD)/mtcsim $(BUILD)/mtcsim-nolto: $(call obj,$(ANALYSIS_GEN))

$(BUILD)/tests/results_driver: $(BUILD)/obj/tests/results_driver.o \
        $(call obj,$(TESTLIB_SRC)) $(LIBSIM) $(LIBMTC)
	@mkdir -p $(dir $@)
	$(say) LD $@
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

check-progs: $(BUILD)/tests/results_driver

# tests/test_plot_fig: the figure module of `mtcsim plot` / `compare` alone.
$(BUILD)/tests/test_plot_fig: $(BUILD)/obj/analysis/plot_fig.o
