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

# tests/analysis: the analyser's Python unit tests (unittest, one
# test_<module>.py per module of scripts/analysis/memsuite_analysis),
# run by tests/run-tests.sh like a unit test binary: tap.py prints TAP.
# The system's python3 first, as scripts/lib/analysis.sh chooses it.
PY_UNIT := $(BUILD)/tests/test_analysis
PYTHON3 := $(if $(wildcard /usr/bin/python3),/usr/bin/python3,python3)
$(PY_UNIT): tests/analysis/tap.py
	@mkdir -p $(dir $@)
	printf '#!/bin/sh\nexec %s %s "$$@"\n' '$(PYTHON3)' '$(abspath tests/analysis/tap.py)' >$@
	chmod +x $@
UNIT_TESTS += $(PY_UNIT)
