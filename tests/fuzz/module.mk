# tests/fuzz: libFuzzer targets, one per parser family (fuzz_<name>.c),
# built with clang (-fsanitize=fuzzer,address,undefined) into build-fuzz/.
#
#   make fuzz                 build every target, run each FUZZ_SECONDS
#                             (default 60) from its corpus; a crash,
#                             a sanitizer report or a broken contract fails
#   make fuzz-build           only build them
#
# Corpus: tests/fuzz/corpus/<name>/ (committed, read only).  New inputs go
# to build-fuzz/corpus/<name>/; a failing input is saved as
# build-fuzz/crash-<name>-* (replay: build-fuzz/fuzz_<name> FILE).
# Needs clang and its libFuzzer runtime (Debian: clang libclang-rt-14-dev).

FUZZ_CC      ?= clang
FUZZ_SECONDS ?= 60
FUZZ_DIR     := build-fuzz
FUZZ_CFLAGS  := -std=gnu11 -g -O1 -fno-omit-frame-pointer -Wall -Wextra -D_GNU_SOURCE \
                -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
                -fopenmp -Icommon -Istream -Itests/fuzz -DHAVE_LIBNUMA=0 -DHAVE_PAPI=0
FUZZ_NAMES   := size count opts lists

# the sources each target links: the whole common/ layer (so a new file
# there, or a function moved between files, never breaks the link) and
# the stream parts a parser calls.  common/buildinfo.c reads the build
# summary make generates ($(BUILD)/build_config.h).
FUZZ_COMMON    := $(sort $(wildcard common/*.c))
FUZZ_SRC_size  := $(FUZZ_COMMON)
FUZZ_SRC_count := $(FUZZ_COMMON)
FUZZ_SRC_opts  := $(FUZZ_COMMON) stream/options.c stream/nt.c stream/kernels.c
FUZZ_SRC_lists := $(FUZZ_COMMON) stream/kernels.c

FUZZ_BINS := $(FUZZ_NAMES:%=$(FUZZ_DIR)/fuzz_%)

define FUZZ_RULE
$(FUZZ_DIR)/fuzz_$(1): tests/fuzz/fuzz_$(1).c tests/fuzz/fuzz.h $(FUZZ_SRC_$(1)) $(wildcard common/*.h stream/*.h) $(BUILD)/build_config.h
	@mkdir -p $(FUZZ_DIR)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -I$(BUILD) -o $$@ $$< $(FUZZ_SRC_$(1)) -lm -ldl
endef
$(foreach n,$(FUZZ_NAMES),$(eval $(call FUZZ_RULE,$(n))))

fuzz-build: $(FUZZ_BINS)

fuzz: $(FUZZ_BINS)
	@set -e; for n in $(FUZZ_NAMES); do \
	  mkdir -p $(FUZZ_DIR)/corpus/$$n; \
	  echo "fuzz: $$n for $(FUZZ_SECONDS) s"; \
	  ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	    $(FUZZ_DIR)/fuzz_$$n -max_total_time=$(FUZZ_SECONDS) -max_len=512 -timeout=10 \
	    -rss_limit_mb=1024 -print_final_stats=1 -artifact_prefix=$(FUZZ_DIR)/crash-$$n- \
	    $(FUZZ_DIR)/corpus/$$n tests/fuzz/corpus/$$n 2>$(FUZZ_DIR)/fuzz_$$n.log \
	    || { tail -40 $(FUZZ_DIR)/fuzz_$$n.log; echo "fuzz: $$n FAILED (log $(FUZZ_DIR)/fuzz_$$n.log)"; exit 1; }; \
	  grep -E '^stat::number_of_executed_units' $(FUZZ_DIR)/fuzz_$$n.log | sed "s/^/fuzz: $$n: /"; \
	done; echo "fuzz: $(words $(FUZZ_NAMES)) targets, no crash"

.PHONY: fuzz fuzz-build
