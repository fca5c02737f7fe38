# The sim layers (included by the Makefile).
#
# The engine (sim/engine/: clock, queues, random streams, distributions,
# metrics, parameter schemas, progress) and the scale-out layer
# (sim/scaleout/: merging metrics across MPI ranks) know nothing of MTC, and
# the build enforces it: their objects are compiled with only the engine's
# and their own headers and GSL's (plus MPI's for scale-out) on the include
# path, so an #include of an mtc/ header, a world-model header or the
# SQLite, OpenSSL or Lua headers fails to compile there.
ENGINE_OBJS   := $(call obj,$(wildcard sim/engine/*.c))
SCALEOUT_OBJS := $(call obj,$(wildcard sim/scaleout/*.c))
GSL_CFLAGS    := $(shell pkg-config --cflags gsl 2>/dev/null)
MPI_CFLAGS    := $(if $(MPI_PKG),$(shell pkg-config --cflags $(MPI_PKG) 2>/dev/null))

$(ENGINE_OBJS): CPPFLAGS := $(BASE_CPPFLAGS) -Isim/engine/include
$(ENGINE_OBJS): CFLAGS := $(BASE_CFLAGS) $(GSL_CFLAGS) $(EXTRA_CFLAGS)
$(SCALEOUT_OBJS): CPPFLAGS := $(BASE_CPPFLAGS) -Isim/engine/include -Isim/scaleout/include $(MPI_DEF)
$(SCALEOUT_OBJS): CFLAGS := $(BASE_CFLAGS) $(GSL_CFLAGS) $(MPI_CFLAGS) $(EXTRA_CFLAGS)

# Link-time optimization (Makefile): the engine's and the web side's
# objects carry their intermediate code too, so that mtcsim's and
# bench_web's links can inline across them (the queue into the run loop,
# the histograms into the web side's buffers); the other modules are not
# on the hot path, and leaving them out keeps those links short.
$(ENGINE_OBJS) $(call obj,$(wildcard sim/web/*.c)): CFLAGS += $(LTO_CFLAGS)
