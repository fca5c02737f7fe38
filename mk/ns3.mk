# The ns-3 reference of `mtcsim bench engine`: the hold model on ns-3's
# simulator core (Debian libns3-dev), a separate C++ program that the
# benchmark runs as a subprocess. Built only in the optimized tree and only
# when ns-3 is installed (`make deps` installs it).
NS3_OK := $(shell pkg-config --exists ns3-core 2>/dev/null && command -v g++ >/dev/null 2>&1 && echo 1)
ifeq ($(SAN)$(NS3_OK),01)
# ns-3's .pc has a stray "-I/usr\;"; its headers are under /usr/include/ns3.
NS3_LIBS := $(shell pkg-config --libs ns3-core 2>/dev/null)

$(BUILD)/ns3-hold: sim/bench/ns3_hold.cc
	@mkdir -p $(dir $@)
	$(say) CXX $@
	$(Q)g++ -std=c++17 -O2 -o $@ $< $(NS3_LIBS)

all: $(BUILD)/ns3-hold
endif
