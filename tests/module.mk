# tests/unit: one table-driven C test per common module (test_<module>.c),
# each linked against libmemsuite.a and printing TAP.
UNIT_SRC   := $(wildcard tests/unit/test_*.c)
UNIT_TESTS := $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/%)

$(BUILD)/tests/%: $(BUILD)/tests/unit/%.o $(LIBMB)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/tests/unit/%.o: CFLAGS_EXTRA := -Itests/unit

# keep the test objects (make would delete them as intermediates)
.SECONDARY: $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/unit/%.o)
