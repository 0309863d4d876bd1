/* readkern_sve: the SVE bodies of the sequential-read loops
 * (readkern_body.h) for aarch64's run-time dispatch (common/isa.h),
 * reached through readkern.c's ifuncs only where AT_HWCAP has SVE.
 * Elsewhere (x86-64, a native build) this file compiles to nothing. */
#define MB_ISA_SVE_BODY 1
#include "isa.h"

#ifdef MB_ISA_AARCH64_IFUNC
#pragma GCC target("+sve")
#include "readkern_body.h"
#else
typedef int mc_readkern_sve_empty;   /* ISO C wants a declaration */
#endif
