# mbw/: the mbw-compatible copy benchmark -> bin/mbw
MBW_OBJ := $(patsubst %.c,$(BUILD)/%.o,$(wildcard mbw/*.c))

# DUMB must stay an element loop (see mbw/dumb.c): forbid the memcpy idiom
# on that file only.  gcc: loop distribution into memcpy; clang:
# LoopIdiomRecognize, which needs memcpy as a builtin.
ifneq ($(findstring clang,$(CC_VERSION)),)
  MBW_NO_MEMCPY_IDIOM := -fno-builtin
else
  MBW_NO_MEMCPY_IDIOM := -fno-tree-loop-distribute-patterns
endif
$(BUILD)/mbw/dumb.o: CFLAGS_EXTRA := $(MBW_NO_MEMCPY_IDIOM)

$(BIN)/mbw: $(MBW_OBJ) $(LIBMB)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

TOOLS += $(BIN)/mbw
