/* storekern_body.h: the ordinary write and copy loops (storekern.h), the
 * MB_HOT_LOOP bodies (common/isa.h).  Included by storekern.c (the
 * build's target: x86's clones, aarch64's NEON body) and, on aarch64, by
 * storekern_sve.c (the SVE body). */
#ifndef MC_STOREKERN_BODY_H
#define MC_STOREKERN_BODY_H

#include <stddef.h>

#include "isa.h"

#define MC_STORE_BODY(NAME, VBYTES)                                                  \
    typedef double NAME##_vec_t __attribute__((vector_size(VBYTES)));                \
    MB_HOT_LOOP void MB_HOT_NAME(NAME##_write)(double *a, size_t n, double q)        \
    {                                                                                \
        NAME##_vec_t *v = (NAME##_vec_t *)(void *)a;                                 \
        const NAME##_vec_t x = (NAME##_vec_t){ 0 } + q;                              \
        for (size_t i = 0; i < n / ((VBYTES) / 8); i++)                              \
            v[i] = x;                                                                \
    }                                                                                \
    MB_HOT_LOOP void MB_HOT_NAME(NAME##_copy)(const double *a, double *b, size_t n)  \
    {                                                                                \
        const NAME##_vec_t *va = (const NAME##_vec_t *)(const void *)a;              \
        NAME##_vec_t *vb = (NAME##_vec_t *)(void *)b;                                \
        for (size_t i = 0; i < n / ((VBYTES) / 8); i++) {                            \
            vb[i] = va[i];                                                           \
            __asm__("" : "+r"(i));   /* not a memcpy call */                         \
        }                                                                            \
    }

MC_STORE_BODY(v16, 16)
MC_STORE_BODY(v32, 32)
MC_STORE_BODY(v64, 64)

#endif
