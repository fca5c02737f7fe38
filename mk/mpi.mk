# MPI test driver: a sharded engine run whose merged metrics must not depend
# on the number of ranks (tests/sh_mpi_shard.sh).
check-progs: $(BUILD)/tests/mpi/shard_driver

$(BUILD)/tests/mpi/shard_driver: $(BUILD)/obj/tests/mpi/shard_driver.o $(LIBSIM) $(LIBMTC)
	@mkdir -p $(dir $@)
	$(say) LD $@
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

.PHONY: bench-mpi
bench-mpi: all
	@sh sim/bench/mpi_scaling.sh $(BUILD)
