# tests/unit: one table-driven C test per common module (test_<module>.c)
# and per tool (test_<tool>.c), each linked against libmemsuite.a and
# printing TAP.
UNIT_SRC   := $(wildcard tests/unit/test_*.c)
UNIT_TESTS := $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/%)

$(BUILD)/tests/%: $(BUILD)/tests/unit/%.o $(LIBMB)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $(filter %.o,$^) $(filter %.a,$^) $(LDLIBS)

$(BUILD)/tests/unit/%.o: CFLAGS_EXTRA := -Itests/unit

# A tool's own tests (test_stream, test_mbw) link its objects but main.o
# and see its headers.
$(BUILD)/tests/test_stream: $(filter-out $(BUILD)/stream/main.o,$(STREAM_OBJ))
$(BUILD)/tests/unit/test_stream.o: CFLAGS_EXTRA := -Itests/unit -Istream $(STREAM_DEFS)
$(BUILD)/tests/unit/test_stream.o: $(STREAM_STAMP)
$(BUILD)/tests/test_mbw: $(filter-out $(BUILD)/mbw/main.o,$(MBW_OBJ))
$(BUILD)/tests/unit/test_mbw.o: CFLAGS_EXTRA := -Itests/unit -Imbw

# keep the test objects (make would delete them as intermediates)
.SECONDARY: $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/unit/%.o)

# tests/live: counters-probe, a known workload under the counters layer
# for tests/bats/counters-live.bats (not a TAP test: run-tests.sh skips it).
COUNTERS_PROBE := $(BUILD)/tests/counters-probe
$(COUNTERS_PROBE): $(BUILD)/tests/live/counters-probe.o $(LIBMB)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $(filter %.o,$^) $(filter %.a,$^) $(LDLIBS)
tests-build: $(COUNTERS_PROBE)
