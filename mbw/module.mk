# mbw/: the mbw-compatible copy benchmark -> bin/mbw
MBW_OBJ := $(patsubst %.c,$(BUILD)/%.o,$(wildcard mbw/*.c))

# DUMB must stay a scalar element loop, as the original compiles it (see
# mbw/dumb.c): forbid the memcpy idiom and vectorisation on that file only.
# gcc: loop distribution into memcpy, the vectoriser; clang:
# LoopIdiomRecognize (it needs memcpy as a builtin), the loop and SLP
# vectorisers.  CFLAGS_AFTER: after CFLAGS, so -O3 cannot switch them on.
ifneq ($(findstring clang,$(CC_VERSION)),)
  MBW_DUMB_AS_WRITTEN := -fno-builtin -fno-vectorize -fno-slp-vectorize
else
  MBW_DUMB_AS_WRITTEN := -fno-tree-loop-distribute-patterns -fno-tree-vectorize
endif
$(BUILD)/mbw/dumb.o: CFLAGS_AFTER := $(MBW_DUMB_AS_WRITTEN)

$(BIN)/mbw: $(MBW_OBJ) $(LIBMB)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

TOOLS += $(BIN)/mbw
