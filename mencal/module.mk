# mencal/: memory compute efficiency; one sc-<name>.c per scenario.
MENCAL_OBJ := $(patsubst %.c,$(BUILD)/%.o,$(wildcard mencal/*.c))

$(BIN)/mencal: $(MENCAL_OBJ) $(LIBMB)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS) -lpthread

TOOLS += $(BIN)/mencal
