# stream/: the STREAM 5.10 compatible benchmark.
#
# STREAM's compile-time parameters are the run-time defaults here:
#   make STREAM_ARRAY_SIZE=80000000 NTIMES=20 OFFSET=0 STREAM_TYPE=float
# Each stays overridable at run time (-s, -n, -o, --type).  They are passed
# as -D to the stream objects only; a stamp file records the values so a
# change rebuilds the object that uses them.

STREAM_ARRAY_SIZE ?= 10000000
NTIMES            ?= 10
OFFSET            ?= 0
STREAM_TYPE       ?= double

ifeq ($(filter float double,$(STREAM_TYPE)),)
  $(error STREAM_TYPE=$(STREAM_TYPE): expected float or double)
endif

STREAM_DEFS := -DSTREAM_ARRAY_SIZE=$(STREAM_ARRAY_SIZE) -DNTIMES=$(NTIMES) \
               -DOFFSET=$(OFFSET) -DSTREAM_TYPE=$(STREAM_TYPE)

STREAM_SRC := $(wildcard stream/*.c)
STREAM_OBJ := $(STREAM_SRC:%.c=$(BUILD)/%.o)
STREAM_STAMP := $(BUILD)/stream/defaults.stamp

$(STREAM_OBJ): CFLAGS_EXTRA := $(STREAM_DEFS)

# options.c is the one file that reads the macros.
$(BUILD)/stream/options.o: $(STREAM_STAMP)

$(STREAM_STAMP): FORCE | $(BUILD)/.dirs
	@mkdir -p $(dir $@)
	@echo '$(STREAM_DEFS)' > $@.tmp; cmp -s $@.tmp $@ || mv $@.tmp $@; rm -f $@.tmp

$(BIN)/stream: $(STREAM_OBJ) $(LIBMB)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

TOOLS += $(BIN)/stream
