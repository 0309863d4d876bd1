# The target CPU flag, per architecture, from the compiler's own target
# ($(CC) -dumpmachine), so a cross compiler needs nothing but CC:
#
#   native build  x86-64: -march=native     aarch64: -mcpu=native (ARM's convention)
#   cross build   x86-64: -march=x86-64     aarch64: -march=armv8-a (portable baselines;
#                 the hot loops choose their vector body at run time, common/isa.h)
#
# Knobs, the first one given wins: ARCH_FLAGS="-mcpu=neoverse-v1" (any flags),
# MARCH=x86-64-v3 (-march=), MCPU=a64fx (-mcpu=); CFLAGS replaces the whole
# optimisation line (-O3 $(ARCH_FLAGS) by default).
#
# A cross build derives AR from the compiler's target (aarch64-linux-gnu-ar)
# unless AR is given.  The one command line for the aarch64 tree:
#   make CC=aarch64-linux-gnu-gcc BUILD=build-arm64 BIN=build-arm64/bin MPI=0 all tests-build
# ($(AARCH64_MAKEFLAGS) below, for the targets that drive it).

CC_TARGET := $(shell $(CC) -dumpmachine 2>/dev/null)
CC_ARCH   := $(firstword $(subst -, ,$(CC_TARGET)))
HOST_ARCH := $(shell uname -m)
CROSS     := $(if $(CC_ARCH),$(if $(filter $(HOST_ARCH),$(CC_ARCH)),0,1),0)

ifeq ($(CC_ARCH),aarch64)
  ARCH_DEFAULT := $(if $(filter 1,$(CROSS)),-march=armv8-a,-mcpu=native)
else
  ARCH_DEFAULT := $(if $(filter 1,$(CROSS)),-march=x86-64,-march=native)
endif
MARCH ?=
MCPU  ?=
ARCH_FLAGS ?= $(if $(MARCH),-march=$(MARCH),$(if $(MCPU),-mcpu=$(MCPU),$(ARCH_DEFAULT)))

ifeq ($(CROSS)$(origin AR),1default)
  AR := $(if $(shell command -v $(CC_TARGET)-ar 2>/dev/null),$(CC_TARGET)-ar,$(shell $(CC) -print-prog-name=ar))
endif

# The aarch64 cross build, as one set of make arguments (check-aarch64 and
# the lab reuse it): NUMA and PAPI from the arm64 multiarch libraries
# (make deps-aarch64), no MPI (libopenmpi-dev:arm64 conflicts with amd64's).
AARCH64_CC ?= aarch64-linux-gnu-gcc
AARCH64_BUILD ?= build-arm64
AARCH64_MAKEFLAGS = CC=$(AARCH64_CC) BUILD=$(AARCH64_BUILD) BIN=$(AARCH64_BUILD)/bin MPI=0

# CFLAGS is the user's optimisation knob (STREAM practice: -O3 -march=native).
CFLAGS ?= -O3 $(ARCH_FLAGS)

# The CPU flags the build uses must be ones the compiler knows: checked
# once per make (a preprocessor run, some 10 ms), with the flag to use.
arch_words := $(filter -march=% -mcpu=% -mtune=%,$(CFLAGS))
ifneq ($(arch_words),)
  arch_probe := $(shell $(CC) $(arch_words) -E -x c /dev/null -o /dev/null 2>&1 | grep -m1 -i 'error' | sed 's/^[^:]*: *error: *//')
  ifneq ($(arch_probe),)
    arch_hint := use $(ARCH_DEFAULT) (the default for this compiler)
    ifneq ($(filter -mcpu=neoverse-v2 -mcpu=grace -mtune=neoverse-v2,$(arch_words)),)
      arch_hint := this compiler has no Neoverse V2 (Grace; GCC 13 added it): use ARCH_FLAGS="-mcpu=neoverse-v1" or ARCH_FLAGS="-march=armv9-a -mtune=neoverse-n2"
    else ifneq ($(and $(filter 1,$(CROSS)),$(filter -march=native -mcpu=native,$(arch_words))),)
      arch_hint := a cross compiler ($(CC_TARGET)) cannot tune for this machine: leave ARCH_FLAGS/CFLAGS unset for $(ARCH_DEFAULT) or name the target CPU (ARCH_FLAGS=-mcpu=neoverse-n1)
    else ifeq ($(CC_ARCH),aarch64)
      arch_hint := aarch64 takes -mcpu=CPU or -march=armv8-a/armv8.2-a+sve/armv9-a; use $(ARCH_DEFAULT) for a portable build
    endif
    $(error $(CC) does not accept $(arch_words): $(arch_probe); $(arch_hint))
  endif
endif
