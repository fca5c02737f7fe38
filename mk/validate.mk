# The validation suite (docs/validation.md): build/validate, from
# validate/*.c and the test fixtures of tests/lib.
#   make validate   runs every case, writes results/validation/ and
#                   regenerates the tables of docs/validation.md
# `make test` runs the fast subset (tests/sh_validate.sh).
VALIDATE_SRC := $(wildcard validate/*.c)
VALIDATE     := $(BUILD)/validate

$(VALIDATE): $(call obj,$(VALIDATE_SRC)) $(call obj,$(TESTLIB_SRC)) $(LIBSIM) $(LIBMTC)
	$(say) LD $@
	$(Q)$(CC) $(LDFLAGS) -o $@ $(filter-out %.a,$^) $(filter %.a,$^) $(LDLIBS)

$(call obj,$(VALIDATE_SRC)): CPPFLAGS += -Itests

all: $(VALIDATE)

.PHONY: validate
validate: deps
	@$(MAKE) --no-print-directory -j$(NPROC) all
	@$(VALIDATE) --write-docs
