# make check-aarch64: memsuite for aarch64, proved on an x86-64 machine
# without ARM hardware.  The cross build with NUMA and PAPI (the arm64
# multiarch libraries, make deps-aarch64) in its own tree, then every unit
# test and the Bats files below run with the aarch64 binaries under
# qemu-user, through a private binfmt_misc of a user namespace
# (tests/aarch64/run-user.sh; the host's binfmt is never touched).  Ends
# on tests/run-tests.sh's line "N passed, N failed".
#
# What qemu-user cannot show is skipped where a test meets it, with the
# reason (the NUMA calls and perf_event_open answer ENOSYS, madvise is
# ignored, /proc/cpuinfo and /sys are the x86 host's); the NUMA placement
# itself is proved in a real aarch64 kernel: the topology lab's aarch64
# shape (tests/topology/shapes.tsv, arm-gh: Grace Hopper's CPU-less memory
# node) boots Debian's arm64 kernel and userland under qemu-system-aarch64
# with these binaries first (about 3.5 minutes, 25 checks).
#
# The Bats files: the tools' own behaviour (text, JSON, validation, exit
# codes, facts), which is where an architecture can differ.  The
# orchestrator (scripts/memsuite, its cluster, report, profile, check) is
# bash and Python with no architecture in it, so those files stay with
# make test.  Emulation is some 5 to 20 times slower than the host, so the
# set is chosen for the step to take at most 10 minutes on the 2-vCPU VM:
#   stream.bats mbw.bats   the drop-in tools: text parity, validation, exit
#                          codes, NT stores, signals
#   memsuite-facts.bats    the facts helper (memsuite-facts) on fixture trees
#   plan.bats              --plan of each tool (sizes, threads, placement)
#   schema.bats            every tool's JSON against the result schema
#   memsuite-size.bats     the size helper (memsuite-size)
# Left out for time: mencal.bats (its scenarios run for real: 490 s under
# emulation alone on the loaded VM, as long as stream.bats, which would
# put the step past 10 minutes; mencal's aarch64 build is still covered by
# its unit tests, plan.bats and schema.bats), mencal-curves.bats
# (sweep/loaded curves, 12 min under emulation alone), mencal-alloc.bats,
# hardening*.bats.  isa.bats runs in make test (it cross-compiles and
# starts qemu-aarch64 itself).
#
# The cross build's make arguments are mk/arch.mk's AARCH64_MAKEFLAGS (one
# definition: CC, BUILD, BIN, MPI=0; AR and -march=armv8-a follow from the
# compiler's target).  NUMA and PAPI are required here, not detected: the
# arm64 libraries are make deps-aarch64's, and a tree without them must
# fail the build rather than test less.
# The cross build uses every CPU unless make was given -j itself (CI runs
# a plain "make check-aarch64"; serial, the build alone took 4.5 minutes).
AARCH64_JOBS = $(if $(filter -j%,$(MAKEFLAGS)),,-j$(shell nproc 2>/dev/null || echo 1))
AARCH64_BATS := stream.bats mbw.bats memsuite-facts.bats plan.bats schema.bats memsuite-size.bats

check-aarch64: deps-aarch64
	@$(MAKE) --no-print-directory $(AARCH64_JOBS) $(AARCH64_MAKEFLAGS) NUMA=1 PAPI=1 SANITIZE=0 all tests-build
	@tests/topology/run-lab.sh $(AARCH64_BUILD)/bin $(AARCH64_BUILD)/lab
	@tests/aarch64/run-user.sh $(AARCH64_BUILD) $(AARCH64_BUILD)/bin $(AARCH64_BATS)

.PHONY: check-aarch64
