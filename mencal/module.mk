# mencal/: memory compute efficiency; one sc-<name>.c per scenario, the
# allocator comparison in mencal/alloc/ (registered like a scenario).
MENCAL_SRC := $(wildcard mencal/*.c mencal/alloc/*.c)
MENCAL_OBJ := $(patsubst %.c,$(BUILD)/%.o,$(MENCAL_SRC))

$(BIN)/mencal: $(MENCAL_OBJ) $(LIBMB)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS) -lpthread

TOOLS += $(BIN)/mencal

# The worked example of docs/architecture.md, built the documented way:
# docs/examples/sc-fill.c as a scenario file and one X(fill) line added
# to a copy of scenarios.h; registry.c is compiled again beside that copy,
# every other object is the normal build's.  tests/bats/mencal-example.bats
# runs the result.
EXAMPLE_DIR := $(BUILD)/example

$(EXAMPLE_DIR)/scenarios.h: mencal/scenarios.h | $(BUILD)/.dirs
	@mkdir -p $(dir $@)
	sed '/end of the list/i\    X(fill)             \\' $< > $@

$(EXAMPLE_DIR)/registry.o: mencal/registry.c $(EXAMPLE_DIR)/scenarios.h $(BUILD)/build_config.h
	cp mencal/registry.c $(EXAMPLE_DIR)/registry.c
	$(CC) $(ALL_CFLAGS) -Imencal -MMD -MP -c $(EXAMPLE_DIR)/registry.c -o $@

$(EXAMPLE_DIR)/sc-fill.o: docs/examples/sc-fill.c $(BUILD)/build_config.h | $(EXAMPLE_DIR)/scenarios.h
	$(CC) $(ALL_CFLAGS) -Imencal -MMD -MP -c $< -o $@

$(EXAMPLE_DIR)/mencal: $(filter-out $(BUILD)/mencal/registry.o,$(MENCAL_OBJ)) \
                       $(EXAMPLE_DIR)/registry.o $(EXAMPLE_DIR)/sc-fill.o $(LIBMB)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS) -lpthread

# The unit tests of mencal's pure logic (test_mencal, test_kcalib for the kernel choice, and test_mencal_curves
# for the curves: sweep's samples, loaded's load) link every mencal object but main.
MENCAL_UNITS := $(BUILD)/tests/test_mencal $(BUILD)/tests/test_mencal_curves $(BUILD)/tests/test_kcalib
$(MENCAL_UNITS:$(BUILD)/tests/%=$(BUILD)/tests/unit/%.o): CFLAGS_EXTRA := -Itests/unit -Imencal
$(MENCAL_UNITS): $(BUILD)/tests/%: $(BUILD)/tests/unit/%.o \
                 $(filter-out $(BUILD)/mencal/main.o,$(MENCAL_OBJ)) $(LIBMB)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS) -lpthread

tests-build: $(EXAMPLE_DIR)/mencal

# The mixer table against multichase's own draw.
$(BUILD)/tests/unit/test_mixer.o: CFLAGS_EXTRA := -Itests/unit -Imencal
$(BUILD)/tests/test_mixer: $(BUILD)/tests/unit/test_mixer.o $(BUILD)/mencal/mixer.o \
                           $(BUILD)/mencal/chase.o $(BUILD)/mencal/rng.o $(LIBMB)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# The pair enumeration (c2c, matrices) on its own.
$(BUILD)/tests/unit/test_pairs.o: CFLAGS_EXTRA := -Itests/unit -Imencal
$(BUILD)/tests/test_pairs: $(BUILD)/tests/unit/test_pairs.o $(BUILD)/mencal/pairs.o \
                           $(BUILD)/mencal/rng.o $(LIBMB)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# The chain layout's unit test (tests/unit/test_chase.c) links the chase
# with its random numbers and the mixer table.
$(BUILD)/tests/unit/test_chase.o: CFLAGS_EXTRA := -Itests/unit -Imencal
$(BUILD)/tests/test_chase: $(BUILD)/mencal/chase.o $(BUILD)/mencal/mixer.o $(BUILD)/mencal/rng.o
