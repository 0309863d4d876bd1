/* storekern_sve: the SVE bodies of the ordinary write and copy loops
 * (storekern_body.h) for aarch64's run-time dispatch (common/isa.h),
 * reached through storekern.c's ifuncs only where AT_HWCAP has SVE.
 * Elsewhere (x86-64, a native build) this file compiles to nothing. */
#define MB_ISA_SVE_BODY 1
#include "isa.h"

#ifdef MB_ISA_AARCH64_IFUNC
#pragma GCC target("+sve")
#include "storekern_body.h"
#else
typedef int mc_storekern_sve_empty;   /* ISO C wants a declaration */
#endif
