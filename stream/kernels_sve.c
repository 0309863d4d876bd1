/* kernels_sve: the SVE bodies of STREAM's hot parts (parts_tmpl.h) for
 * aarch64's run-time dispatch (common/isa.h): the same source compiled
 * with SVE on, reached through kernels.c's ifuncs only where AT_HWCAP has
 * SVE.  Elsewhere (x86-64, a native build) this file compiles to nothing. */
#define MB_ISA_SVE_BODY 1
#include "isa.h"

#ifdef MB_ISA_AARCH64_IFUNC
#pragma GCC target("+sve")

#include <stddef.h>
#include <string.h>

typedef double st_v8d_t __attribute__((vector_size(64)));

#define ST_CAT_(x, y) x##_##y
#define ST_CAT(x, y) ST_CAT_(x, y)
#define ST_FN(name) ST_CAT(name, ST_SUF)

#define ST_T double
#define ST_SUF d
#include "parts_tmpl.h"
#undef ST_T
#undef ST_SUF

#define ST_T float
#define ST_SUF f
#include "parts_tmpl.h"
#undef ST_T
#undef ST_SUF
#else
typedef int st_kernels_sve_empty;   /* ISO C wants a declaration */
#endif
