# stream/: the STREAM 5.10 compatible benchmark, and stream_mpi.
#
# STREAM's compile-time parameters are the run-time defaults here:
#   make STREAM_ARRAY_SIZE=80000000 NTIMES=20 OFFSET=0 STREAM_TYPE=float
# Each stays overridable at run time (-s, -n, -o, --type).  They are passed
# as -D to the stream objects only; a stamp file records the values so a
# change rebuilds the object that uses them.
#
# MPI=auto|0|1 (default auto): bin/stream_mpi, built with Open MPI's mpicc
# (MPICC=mpicc) from stream/mpi/*.c plus every stream object but main.o.
# auto builds it when mpicc works; 1 requires it; 0 never builds it.
# mpicc drives $(CC) (OMPI_CC / MPICH_CC), so the flags are stream's.

STREAM_ARRAY_SIZE ?= 10000000
NTIMES            ?= 10
OFFSET            ?= 0
STREAM_TYPE       ?= double
MPI               ?= auto
MPICC             ?= mpicc

ifeq ($(filter float double,$(STREAM_TYPE)),)
  $(error STREAM_TYPE=$(STREAM_TYPE): expected float or double)
endif

STREAM_DEFS := -DSTREAM_ARRAY_SIZE=$(STREAM_ARRAY_SIZE) -DNTIMES=$(NTIMES) \
               -DOFFSET=$(OFFSET) -DSTREAM_TYPE=$(STREAM_TYPE)

STREAM_MPI_SRC := $(wildcard stream/mpi/*.c)
STREAM_SRC := $(wildcard stream/*.c)
STREAM_OBJ := $(STREAM_SRC:%.c=$(BUILD)/%.o)
STREAM_MPI_OBJ := $(STREAM_MPI_SRC:%.c=$(BUILD)/%.o)
STREAM_STAMP := $(BUILD)/stream/defaults.stamp

$(STREAM_OBJ): CFLAGS_EXTRA := $(STREAM_DEFS)
$(STREAM_MPI_OBJ): CFLAGS_EXTRA := $(STREAM_DEFS) -Istream

# options.c is the one stream file that reads the macros (defaults.h).
$(BUILD)/stream/options.o: $(STREAM_STAMP)

$(STREAM_STAMP): FORCE | $(BUILD)/.dirs
	@mkdir -p $(dir $@)
	@echo '$(STREAM_DEFS)' > $@.tmp; cmp -s $@.tmp $@ || mv $@.tmp $@; rm -f $@.tmp

$(BIN)/stream: $(STREAM_OBJ) $(LIBMB)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

TOOLS += $(BIN)/stream

# ---- stream_mpi ------------------------------------------------------------
ifneq ($(filter-out auto 0 1,$(MPI)),)
  $(error MPI=$(MPI): expected auto, 0 or 1)
endif
MPICC_RUN := OMPI_CC='$(CC)' MPICH_CC='$(CC)' $(MPICC)
ifeq ($(MPI),0)
  HAVE_MPI := 0
else
  HAVE_MPI := $(shell command -v $(MPICC) >/dev/null 2>&1 && \
                printf '\043include <mpi.h>\nint main(int c,char**v){MPI_Init(&c,&v);return MPI_Finalize();}\n' | \
                $(MPICC_RUN) -x c - -o /dev/null >/dev/null 2>&1 && echo 1 || echo 0)
  ifeq ($(MPI)$(HAVE_MPI),10)
    $(error MPI=1 but $(MPICC) is missing or cannot build an MPI program: install openmpi-bin and libopenmpi-dev (Debian/Ubuntu) or openmpi-devel (RHEL), set MPICC=/path/to/mpicc, or build with MPI=0)
  endif
endif

ifeq ($(HAVE_MPI),1)
$(STREAM_MPI_OBJ): $(BUILD)/%.o: %.c $(BUILD)/build_config.h | $(BUILD)/.dirs
	@mkdir -p $(dir $@)
	$(MPICC_RUN) $(ALL_CFLAGS) -MMD -MP -c $< -o $@

$(BIN)/stream_mpi: $(STREAM_MPI_OBJ) $(filter-out $(BUILD)/stream/main.o,$(STREAM_OBJ)) $(LIBMB)
	$(MPICC_RUN) $(LDFLAGS) -o $@ $^ $(LDLIBS)

TOOLS += $(BIN)/stream_mpi
else
$(BIN)/stream_mpi:
	@echo "stream_mpi is not built: $(if $(filter 0,$(MPI)),MPI=0,$(MPICC) was not found or cannot build an MPI program; install openmpi-bin and libopenmpi-dev)" >&2; exit 4
endif
