# mencal/: memory compute efficiency; one sc-<name>.c per scenario, the
# allocator comparison in mencal/alloc/ (registered like a scenario).
MENCAL_SRC := $(wildcard mencal/*.c mencal/alloc/*.c)
MENCAL_OBJ := $(patsubst %.c,$(BUILD)/%.o,$(MENCAL_SRC))

$(BIN)/mencal: $(MENCAL_OBJ) $(LIBMB)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS) -lpthread

TOOLS += $(BIN)/mencal
