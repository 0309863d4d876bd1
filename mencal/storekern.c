/* storekern: the write and copy loops (contract in storekern.h).  The
 * non-temporal ones are the only code here that names an instruction
 * set; each is compiled for its own target and runs only where
 * supported() says the CPU has it. */
#include <stdbool.h>

#define MB_ISA_FIXED_WIDTH 1   /* NEON on aarch64, one body (isa.h) */
#include "isa.h"
#include "storekern.h"

#define MC_STORE_FN(NAME, VBYTES)                                                    \
    typedef double NAME##_vec_t __attribute__((vector_size(VBYTES)));                \
    MB_HOT_LOOP void NAME##_write(double *a, size_t n, double q)                     \
    {                                                                                \
        NAME##_vec_t *v = (NAME##_vec_t *)(void *)a;                                 \
        const NAME##_vec_t x = (NAME##_vec_t){ 0 } + q;                              \
        for (size_t i = 0; i < n / ((VBYTES) / 8); i++)                              \
            v[i] = x;                                                                \
    }                                                                                \
    MB_HOT_LOOP void NAME##_copy(const double *a, double *b, size_t n)               \
    {                                                                                \
        const NAME##_vec_t *va = (const NAME##_vec_t *)(const void *)a;              \
        NAME##_vec_t *vb = (NAME##_vec_t *)(void *)b;                                \
        for (size_t i = 0; i < n / ((VBYTES) / 8); i++) {                            \
            vb[i] = va[i];                                                           \
            __asm__("" : "+r"(i));   /* not a memcpy call */                         \
        }                                                                            \
    }

MC_STORE_FN(v16, 16)
MC_STORE_FN(v32, 32)
MC_STORE_FN(v64, 64)

#if defined(__x86_64__)
#include <immintrin.h>

#define MC_NT_FN(NAME, ATTR, LANES, VEC, SET1, LOAD, STREAM)                         \
    __attribute__((target(ATTR), noinline)) static void NAME##_write(double *a, size_t n, double q) \
    {                                                                                \
        const VEC x = SET1(q);                                                       \
        for (size_t i = 0; i < n; i += (LANES))                                      \
            STREAM(a + i, x);                                                        \
        _mm_sfence();                                                                \
    }                                                                                \
    __attribute__((target(ATTR), noinline)) static void NAME##_copy(const double *a, double *b, \
                                                                     size_t n)       \
    {                                                                                \
        for (size_t i = 0; i < n; i += (LANES))                                      \
            STREAM(b + i, LOAD(a + i));                                              \
        _mm_sfence();                                                                \
    }

MC_NT_FN(v16nt, "sse2", 2, __m128d, _mm_set1_pd, _mm_load_pd, _mm_stream_pd)
MC_NT_FN(v32nt, "avx", 4, __m256d, _mm256_set1_pd, _mm256_load_pd, _mm256_stream_pd)
MC_NT_FN(v64nt, "avx512f", 8, __m512d, _mm512_set1_pd, _mm512_load_pd, _mm512_stream_pd)

static bool has_avx(void)
{
    return __builtin_cpu_supports("avx");
}
static bool has_avx512f(void)
{
    return __builtin_cpu_supports("avx512f");
}
#endif


#if defined(__aarch64__) && defined(__GNUC__) && !defined(__clang__)
#include <arm_neon.h>
#include <arm_sve.h>
#define MC_STORE_A64 1

/* neonnt: stnp of two q registers, 32 bytes a store (ACLE has no NEON
 * non-temporal store: inline assembly); n is a multiple of 8. */
__attribute__((noinline)) static void neonnt_write(double *a, size_t n, double q)
{
    const float64x2_t x = vdupq_n_f64(q);
    for (size_t i = 0; i < n; i += 4)
        __asm__("stnp %q1, %q1, [%2]" : "=m"(*(double(*)[4])(a + i)) : "w"(x), "r"(a + i));
    __asm__ volatile("dmb ishst" ::: "memory");
}
__attribute__((noinline)) static void neonnt_copy(const double *a, double *b, size_t n)
{
    for (size_t i = 0; i < n; i += 4) {
        const float64x2_t lo = vld1q_f64(a + i), hi = vld1q_f64(a + i + 2);
        __asm__("stnp %q1, %q2, [%3]" : "=m"(*(double(*)[4])(b + i)) : "w"(lo), "w"(hi), "r"(b + i));
    }
    __asm__ volatile("dmb ishst" ::: "memory");
}

/* svent: SVE stnt1d (svstnt1_f64), the CPU's vector length; predicated,
 * so any n. */
__attribute__((target("+sve"), noinline)) static void svent_write(double *a, size_t n, double q)
{
    const svfloat64_t x = svdup_f64(q);
    for (size_t i = 0; i < n; i += svcntd())
        svstnt1_f64(svwhilelt_b64_u64(i, n), a + i, x);
    __asm__ volatile("dmb ishst" ::: "memory");
}
__attribute__((target("+sve"), noinline)) static void svent_copy(const double *a, double *b, size_t n)
{
    for (size_t i = 0; i < n; i += svcntd()) {
        const svbool_t pg = svwhilelt_b64_u64(i, n);
        svstnt1_f64(pg, b + i, svld1_f64(pg, a + i));
    }
    __asm__ volatile("dmb ishst" ::: "memory");
}
__attribute__((target("+sve"))) static unsigned sve_bytes(void)
{
    return (unsigned)svcntb();
}
static bool has_sve(void)
{
    return mb_isa_cpu_has_sve() != 0;
}
#else
#define MC_STORE_A64 0
#endif

const mc_storekern_t mc_storekerns[] = {
    { { "v16", 16, 0, 0, false, NULL, NULL, NULL }, v16_write, v16_copy },
    { { "v32", 32, 0, 0, false, NULL, NULL, NULL }, v32_write, v32_copy },
    { { "v64", 64, 0, 0, false, NULL, NULL, NULL }, v64_write, v64_copy },
#if defined(__x86_64__)
    { { "v16nt", 16, 0, 0, true, NULL, NULL, NULL }, v16nt_write, v16nt_copy },
    { { "v32nt", 32, 0, 0, true, has_avx, "avx", NULL }, v32nt_write, v32nt_copy },
    { { "v64nt", 64, 0, 0, true, has_avx512f, "avx512f", NULL }, v64nt_write, v64nt_copy },
#endif
#if MC_STORE_A64
    { { "neonnt", 16, 0, 0, true, NULL, NULL, NULL }, neonnt_write, neonnt_copy },
    { { "svent", 0, 0, 0, true, has_sve, "sve", sve_bytes }, svent_write, svent_copy },
#endif
};
const size_t mc_nstorekerns = sizeof mc_storekerns / sizeof mc_storekerns[0];

const mc_kfamily_t mc_store_family = { "write and copy", mc_storekerns, sizeof mc_storekerns[0],
                                       sizeof mc_storekerns / sizeof mc_storekerns[0],
                                       MC_STOREKERN_DEFAULT };
