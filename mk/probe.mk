# Feature probes: libnuma and PAPI.  NUMA/PAPI = auto | 0 | 1.
# "1" with the library missing is an error that names the package.

probe = $(shell printf '$(2)' | $(CC) -x c - -o /dev/null $(1) >/dev/null 2>&1 && echo 1 || echo 0)

ifeq ($(NUMA),0)
  HAVE_LIBNUMA := 0
else
  HAVE_LIBNUMA := $(call probe,-lnuma,\043include <numa.h>\nint main(void){return numa_available();}\n)
  ifeq ($(NUMA)$(HAVE_LIBNUMA),10)
    $(error NUMA=1 but libnuma is not usable: install libnuma-dev (Debian/Ubuntu) or numactl-devel (RHEL), or build with NUMA=0)
  endif
endif
ifneq ($(filter-out auto 0 1,$(NUMA)),)
  $(error NUMA=$(NUMA): expected auto, 0 or 1)
endif

ifeq ($(PAPI),0)
  HAVE_PAPI := 0
else
  HAVE_PAPI := $(call probe,-lpapi,\043include <papi.h>\nint main(void){return PAPI_library_init(PAPI_VER_CURRENT) < 0;}\n)
  ifeq ($(PAPI)$(HAVE_PAPI),10)
    $(error PAPI=1 but PAPI is not usable: install libpapi-dev (Debian/Ubuntu) or papi-devel (RHEL), or build with PAPI=0)
  endif
endif
ifneq ($(filter-out auto 0 1,$(PAPI)),)
  $(error PAPI=$(PAPI): expected auto, 0 or 1)
endif

FEATURE_CPPFLAGS := -DHAVE_LIBNUMA=$(HAVE_LIBNUMA) -DHAVE_PAPI=$(HAVE_PAPI)
FEATURE_LDLIBS   := $(if $(filter 1,$(HAVE_LIBNUMA)),-lnuma) $(if $(filter 1,$(HAVE_PAPI)),-lpapi)

CC_NAME    := $(shell $(CC) -dM -E -x c /dev/null 2>/dev/null | grep -q __clang__ && echo clang || echo gcc)
CC_VERSION := $(CC_NAME) $(shell $(CC) -dumpfullversion -dumpversion 2>/dev/null)
OPENMP_VERSION := $(shell echo _OPENMP | $(CC) -fopenmp -E -P -x c - 2>/dev/null | tr -d " ")
onoff = $(if $(filter 1,$(1)),on,off)
# The flags a binary names (--version, JSON): CFLAGS less the path maps a
# package build adds (-ffile-prefix-map=/build/dir=.), which name where it
# was built, not how, and differ on every build.
CFLAGS_SHOWN = $(filter-out -ffile-prefix-map=% -fdebug-prefix-map=% -fmacro-prefix-map=%,$(CFLAGS))
BUILD_SUMMARY = $(CC_VERSION) | $(CFLAGS_SHOWN) | OpenMP | NUMA $(call onoff,$(HAVE_LIBNUMA)) | PAPI $(call onoff,$(HAVE_PAPI))
