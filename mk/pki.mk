# The PKI-side scale benchmark: one CA at Let's Encrypt rates for
# 30 simulated days. `make bench-pki` (optimized tree only; takes minutes).
$(BUILD)/bench_pki: $(BUILD)/obj/sim/bench/pki_scale.o $(LIBSIM) $(LIBMTC)
	$(say) LD $@
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

.PHONY: bench-pki
bench-pki: $(BUILD)/bench_pki
	$(BUILD)/bench_pki
