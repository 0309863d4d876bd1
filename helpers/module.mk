# helpers/: small binaries that scripts/memsuite calls, built on common/
# so the bash side shares the tools' logic.  Installed under
# PREFIX/libexec/memsuite (mk/install.mk), not on PATH.
#   memsuite-size: the size grammar and the LLC detector (common/sizing)
#   memsuite-facts: the environment facts (common/facts, sysinfo, dimms, virt)
#   memsuite-out: the output-file rules (common/outfile) for memsuite's own files
HELPERS :=

$(BIN)/memsuite-size: $(BUILD)/helpers/memsuite-size.o $(LIBMB)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

HELPERS += $(BIN)/memsuite-size

$(BIN)/memsuite-facts: $(BUILD)/helpers/memsuite-facts.o $(LIBMB)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

HELPERS += $(BIN)/memsuite-facts

$(BIN)/memsuite-out: $(BUILD)/helpers/memsuite-out.o $(LIBMB)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

HELPERS += $(BIN)/memsuite-out
