# mk/install.mk: make install / make uninstall from one manifest.
#
#   make install   PREFIX=/usr/local DESTDIR=   (packages: PREFIX=/usr)
#   make uninstall PREFIX=/usr/local DESTDIR=   removes exactly those files,
#                  then the directories that only memsuite uses, if empty
#
# Layout (the same under any PREFIX).  Other packages own the names
# `stream` (ImageMagick) and `mbw` (Debian's and Fedora's mbw), so no
# memsuite file takes a path outside memsuite's own names:
#   bin/memsuite, bin/memsuite-TOOL   the command, and one link per tool
#                                 (memsuite-stream -> ../lib/memsuite/bin/stream)
#   lib/memsuite/bin/             stream mbw mencal [stream_mpi] under their
#                                 own names: put it first on PATH (module
#                                 load memsuite) for drop-in STREAM and mbw
#   lib/memsuite/man/man1/        TOOL.1, for that PATH (the module's MANPATH)
#   libexec/memsuite/             memsuite-size, memsuite-facts, memsuite-out (helpers/: the bash side's C logic)
#   share/man/man1/               memsuite.1 and memsuite-TOOL.1
#   share/memsuite/               result.schema.json, result-v1.schema.json, plan.schema.json, facts.schema.json
#   share/memsuite/lib/           the memsuite script's library
#   share/memsuite/analysis/      the analyser: memsuite-analyse and its
#                                 package memsuite_analysis/ (found as
#                                 lib/../analysis, in the tree and installed)
#   share/memsuite/profiles/      OS tuning profiles
#   share/memsuite/peers/         peers-*.sh (memsuite peers runs them)
#   share/bash-completion/completions/   memsuite, and one link per memsuite-TOOL
#   share/modulefiles/memsuite/VERSION.lua   Lmod modulefile (module use
#                                 PREFIX/share/modulefiles)
# A man page is installed only with its command (no stream_mpi.1 when
# stream_mpi is not built); the paths it cites (written for PREFIX=/usr)
# are rewritten for PREFIX.  docs/install.md says why this layout.

MS_VERSION_MK := $(shell sed -n 's/^\#define MB_VERSION "\(.*\)"/\1/p' common/buildinfo.h)

D_BIN   = $(DESTDIR)$(PREFIX)/bin
D_TOOLS = $(DESTDIR)$(PREFIX)/lib/memsuite/bin
D_TMAN1 = $(DESTDIR)$(PREFIX)/lib/memsuite/man/man1
D_LIBEXEC = $(DESTDIR)$(PREFIX)/libexec/memsuite
D_MAN1  = $(DESTDIR)$(PREFIX)/share/man/man1
D_SHARE = $(DESTDIR)$(PREFIX)/share/memsuite
D_COMP  = $(DESTDIR)$(PREFIX)/share/bash-completion/completions
D_MOD   = $(DESTDIR)$(PREFIX)/share/modulefiles/memsuite
D_SBIN  = $(DESTDIR)$(PREFIX)/sbin
D_DOC   = $(DESTDIR)$(PREFIX)/share/doc/memsuite
# The guides (with the pictures they show), the example requirements file
# and the licence, for a site that installs without the source tree.
INST_DOCS    = README.md LICENSE $(wildcard docs/*.md docs/*.png)

INST_TOOL_NAMES = $(notdir $(TOOLS))
INST_ALL_TOOLS  = $(sort $(INST_TOOL_NAMES) stream_mpi)
INST_LIB     = $(notdir $(wildcard scripts/lib/*.sh))
INST_PY      = $(notdir $(wildcard scripts/analysis/memsuite_analysis/*.py))
D_ANALYSIS   = $(D_SHARE)/analysis
INST_PROF    = $(notdir $(wildcard scripts/profiles/*.profile))
INST_PEERS   = $(notdir $(wildcard scripts/peers-*.sh))
INST_COMP_LINKS = $(addprefix memsuite-,$(INST_TOOL_NAMES))

# ms_man_install SRC DEST: a page with the paths it cites moved to PREFIX
ms_man_install = sed 's\#/usr/\(share/memsuite\|share/bash-completion\|share/modulefiles\|lib/memsuite\|bin/memsuite\)\#$(PREFIX)/\1\#g' $(1) >$(2) && chmod 0644 $(2)
# ms_man_install_as SRC DEST TOOL: the same, for the page installed as
# memsuite-TOOL(1): its title and the synopsis's command lines carry that
# name (the page under TOOL(1), in lib/memsuite/man, keeps the classic one).
ms_man_install_as = sed -e 's\#/usr/\(share/memsuite\|share/bash-completion\|share/modulefiles\|lib/memsuite\|bin/memsuite\)\#$(PREFIX)/\1\#g' \
	-e '/^\.TH /s/^\.TH [A-Z_]* /.TH MEMSUITE\\-'"$$(echo $(3) | tr a-z_ A-Z_)"' /' \
	-e '/^\.SH NAME/{n;s/^'"$(3)"' /memsuite-'"$(3)"' /;}' \
	-e '/^\.SH SYNOPSIS/,/^\.SH /s/^\.B '"$(3)"'\( \|$$\)/.B memsuite\\-'"$(3)"'\1/' $(1) >$(2) && chmod 0644 $(2)

install: all
	install -d $(D_BIN) $(D_TOOLS) $(D_TMAN1) $(D_LIBEXEC) $(D_MAN1) $(D_SHARE)/lib $(D_SHARE)/profiles $(D_SHARE)/peers $(D_COMP) $(D_MOD)
	install -d $(D_ANALYSIS)/memsuite_analysis
	install -m 0755 $(TOOLS) $(D_TOOLS)/
	for t in $(INST_TOOL_NAMES); do ln -sfn ../lib/memsuite/bin/$$t $(D_BIN)/memsuite-$$t; done
	install -m 0755 scripts/memsuite $(D_BIN)/memsuite
	install -m 0755 $(HELPERS) $(D_LIBEXEC)/
	$(call ms_man_install,docs/memsuite.1,$(D_MAN1)/memsuite.1)
	for t in $(INST_TOOL_NAMES); do \
	  $(call ms_man_install_as,docs/$$t.1,$(D_MAN1)/memsuite-$$t.1,$$t) && \
	  $(call ms_man_install,docs/$$t.1,$(D_TMAN1)/$$t.1) || exit 1; done
	install -m 0644 docs/result.schema.json docs/result-v1.schema.json docs/plan.schema.json docs/facts.schema.json $(D_SHARE)/
	install -m 0644 $(addprefix scripts/lib/,$(INST_LIB)) $(D_SHARE)/lib/
	install -m 0755 scripts/analysis/memsuite-analyse $(D_ANALYSIS)/
	install -m 0644 $(addprefix scripts/analysis/memsuite_analysis/,$(INST_PY)) $(D_ANALYSIS)/memsuite_analysis/
	install -m 0644 common/units.def $(D_ANALYSIS)/memsuite_analysis/units.def
	install -m 0644 $(addprefix scripts/profiles/,$(INST_PROF)) $(D_SHARE)/profiles/
	install -m 0755 $(addprefix scripts/,$(INST_PEERS)) $(D_SHARE)/peers/
	install -m 0644 contrib/completion/memsuite.bash $(D_COMP)/memsuite
	for t in $(INST_COMP_LINKS); do ln -sfn memsuite $(D_COMP)/$$t; done
	install -m 0644 contrib/modulefiles/memsuite.lua $(D_MOD)/$(MS_VERSION_MK).lua
	install -d $(D_SBIN) $(D_SHARE)/nhc $(D_DOC)/examples
	install -m 0755 contrib/slurm/memsuite-slurm-check $(D_SBIN)/memsuite-slurm-check
	install -m 0644 contrib/nhc/memsuite.nhc $(D_SHARE)/nhc/memsuite.nhc
	install -m 0644 $(INST_DOCS) $(D_DOC)/
	install -m 0644 docs/examples/requirements.json $(D_DOC)/examples/

# Files first (only ours, by name), then our own directories when empty;
# shared directories (bin, man1, completions) are never removed.
uninstall:
	rm -f $(D_BIN)/memsuite $(addprefix $(D_BIN)/memsuite-,$(INST_ALL_TOOLS))
	rm -f $(addprefix $(D_TOOLS)/,$(INST_ALL_TOOLS)) $(addprefix $(D_TMAN1)/,$(addsuffix .1,$(INST_ALL_TOOLS)))
	rm -f $(addprefix $(D_LIBEXEC)/,$(notdir $(HELPERS)))
	rm -f $(D_MAN1)/memsuite.1 $(addprefix $(D_MAN1)/memsuite-,$(addsuffix .1,$(INST_ALL_TOOLS)))
	rm -f $(D_SHARE)/result.schema.json $(D_SHARE)/result-v1.schema.json $(D_SHARE)/plan.schema.json $(D_SHARE)/facts.schema.json
	rm -f $(addprefix $(D_SHARE)/lib/,$(INST_LIB))
	rm -f $(D_ANALYSIS)/memsuite-analyse $(addprefix $(D_ANALYSIS)/memsuite_analysis/,$(INST_PY))
	rm -f $(D_ANALYSIS)/memsuite_analysis/units.def
	rm -f $(addprefix $(D_SHARE)/profiles/,$(INST_PROF))
	rm -f $(addprefix $(D_SHARE)/peers/,$(INST_PEERS))
	rm -f $(D_COMP)/memsuite $(addprefix $(D_COMP)/memsuite-,$(INST_ALL_TOOLS))
	rm -f $(D_MOD)/$(MS_VERSION_MK).lua
	rm -f $(D_SBIN)/memsuite-slurm-check $(D_SHARE)/nhc/memsuite.nhc
	rm -f $(addprefix $(D_DOC)/,$(notdir $(INST_DOCS))) $(D_DOC)/examples/requirements.json
	rmdir $(D_DOC)/examples $(D_DOC) $(D_SHARE)/nhc 2>/dev/null || true
	rmdir $(D_ANALYSIS)/memsuite_analysis $(D_ANALYSIS) 2>/dev/null || true
	rmdir $(D_SHARE)/lib $(D_SHARE)/profiles $(D_SHARE)/peers $(D_SHARE) $(D_MOD) $(D_LIBEXEC) 2>/dev/null || true
	rmdir $(D_TOOLS) $(D_TMAN1) $(dir $(D_TMAN1)) $(dir $(D_TOOLS)) 2>/dev/null || true
	rmdir $(dir $(D_MOD)) $(D_COMP) $(dir $(D_COMP)) 2>/dev/null || true

.PHONY: install uninstall
