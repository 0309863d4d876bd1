/* nt: non-temporal store kernels with run-time ISA dispatch. */
#include "nt.h"

#include <errno.h>
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "isa.h"

#if defined(__x86_64__)
#include <immintrin.h>
#define ST_NT_X86 1
#else
#define ST_NT_X86 0
#endif
#if defined(__aarch64__) && defined(__GNUC__) && !defined(__clang__)
#include <arm_neon.h>
#include <arm_sve.h>
#define ST_NT_A64 1
#else
#define ST_NT_A64 0
#endif

/* ---- portable fallback: plain stores, left to the compiler ---------- */
#define NT_ATTR
#define NT_W 1
#define NT_ALIGN 1
#define NT_LOADU(p) (*(p))
#define NT_STREAM(p, v) (*(p) = (v))
#define NT_SET1(x) (x)
#define NT_ADD(x, y) ((x) + (y))
#define NT_MUL(x, y) ((x) * (y))

#define NT_T double
#define NT_VEC double
#define NT_SUF port_d
#include "nt_tmpl.h"
#undef NT_T
#undef NT_VEC
#undef NT_SUF

#define NT_T float
#define NT_VEC float
#define NT_SUF port_f
#include "nt_tmpl.h"
#undef NT_T
#undef NT_VEC
#undef NT_SUF

#undef NT_ATTR
#undef NT_W
#undef NT_ALIGN
#undef NT_LOADU
#undef NT_STREAM
#undef NT_SET1
#undef NT_ADD
#undef NT_MUL

#if ST_NT_X86
/* ---- AVX-512 ---------------------------------------------------------- */
#define NT_ATTR __attribute__((target("avx512f")))
#define NT_ALIGN 64
#define NT_T double
#define NT_VEC __m512d
#define NT_W 8
#define NT_SUF avx512_d
#define NT_LOADU(p) _mm512_loadu_pd(p)
#define NT_STREAM(p, v) _mm512_stream_pd((p), (v))
#define NT_SET1(x) _mm512_set1_pd(x)
#define NT_ADD(x, y) _mm512_add_pd((x), (y))
#define NT_MUL(x, y) _mm512_mul_pd((x), (y))
#include "nt_tmpl.h"
#undef NT_T
#undef NT_VEC
#undef NT_W
#undef NT_SUF
#undef NT_LOADU
#undef NT_STREAM
#undef NT_SET1
#undef NT_ADD
#undef NT_MUL
#define NT_T float
#define NT_VEC __m512
#define NT_W 16
#define NT_SUF avx512_f
#define NT_LOADU(p) _mm512_loadu_ps(p)
#define NT_STREAM(p, v) _mm512_stream_ps((p), (v))
#define NT_SET1(x) _mm512_set1_ps(x)
#define NT_ADD(x, y) _mm512_add_ps((x), (y))
#define NT_MUL(x, y) _mm512_mul_ps((x), (y))
#include "nt_tmpl.h"
#undef NT_T
#undef NT_VEC
#undef NT_W
#undef NT_SUF
#undef NT_LOADU
#undef NT_STREAM
#undef NT_SET1
#undef NT_ADD
#undef NT_MUL
#undef NT_ATTR
#undef NT_ALIGN

/* ---- AVX2 (AVX stream stores; FMA not needed) ------------------------- */
#define NT_ATTR __attribute__((target("avx2")))
#define NT_ALIGN 32
#define NT_T double
#define NT_VEC __m256d
#define NT_W 4
#define NT_SUF avx2_d
#define NT_LOADU(p) _mm256_loadu_pd(p)
#define NT_STREAM(p, v) _mm256_stream_pd((p), (v))
#define NT_SET1(x) _mm256_set1_pd(x)
#define NT_ADD(x, y) _mm256_add_pd((x), (y))
#define NT_MUL(x, y) _mm256_mul_pd((x), (y))
#include "nt_tmpl.h"
#undef NT_T
#undef NT_VEC
#undef NT_W
#undef NT_SUF
#undef NT_LOADU
#undef NT_STREAM
#undef NT_SET1
#undef NT_ADD
#undef NT_MUL
#define NT_T float
#define NT_VEC __m256
#define NT_W 8
#define NT_SUF avx2_f
#define NT_LOADU(p) _mm256_loadu_ps(p)
#define NT_STREAM(p, v) _mm256_stream_ps((p), (v))
#define NT_SET1(x) _mm256_set1_ps(x)
#define NT_ADD(x, y) _mm256_add_ps((x), (y))
#define NT_MUL(x, y) _mm256_mul_ps((x), (y))
#include "nt_tmpl.h"
#undef NT_T
#undef NT_VEC
#undef NT_W
#undef NT_SUF
#undef NT_LOADU
#undef NT_STREAM
#undef NT_SET1
#undef NT_ADD
#undef NT_MUL
#undef NT_ATTR
#undef NT_ALIGN

/* ---- SSE2 ---------------------------------------------------------------- */
#define NT_ATTR __attribute__((target("sse2")))
#define NT_ALIGN 16
#define NT_T double
#define NT_VEC __m128d
#define NT_W 2
#define NT_SUF sse2_d
#define NT_LOADU(p) _mm_loadu_pd(p)
#define NT_STREAM(p, v) _mm_stream_pd((p), (v))
#define NT_SET1(x) _mm_set1_pd(x)
#define NT_ADD(x, y) _mm_add_pd((x), (y))
#define NT_MUL(x, y) _mm_mul_pd((x), (y))
#include "nt_tmpl.h"
#undef NT_T
#undef NT_VEC
#undef NT_W
#undef NT_SUF
#undef NT_LOADU
#undef NT_STREAM
#undef NT_SET1
#undef NT_ADD
#undef NT_MUL
#define NT_T float
#define NT_VEC __m128
#define NT_W 4
#define NT_SUF sse2_f
#define NT_LOADU(p) _mm_loadu_ps(p)
#define NT_STREAM(p, v) _mm_stream_ps((p), (v))
#define NT_SET1(x) _mm_set1_ps(x)
#define NT_ADD(x, y) _mm_add_ps((x), (y))
#define NT_MUL(x, y) _mm_mul_ps((x), (y))
#include "nt_tmpl.h"
#undef NT_T
#undef NT_VEC
#undef NT_W
#undef NT_SUF
#undef NT_LOADU
#undef NT_STREAM
#undef NT_SET1
#undef NT_ADD
#undef NT_MUL
#undef NT_ATTR
#undef NT_ALIGN

/* __builtin_cpu_supports takes a literal, hence one function per ISA. */
static bool has_avx512(void) { __builtin_cpu_init(); return __builtin_cpu_supports("avx512f"); }
static bool has_avx2(void)   { __builtin_cpu_init(); return __builtin_cpu_supports("avx2"); }
static bool has_sse2(void)   { __builtin_cpu_init(); return __builtin_cpu_supports("sse2"); }
#endif /* ST_NT_X86 */

#if ST_NT_A64
/* ---- SVE: stnt1d / stnt1w (ACLE svstnt1), vectors of the CPU's length --
 * The lanes per vector are read at run time (svcntd, svcntw); the loops
 * step by them, so one body serves 128- to 2048-bit SVE. */
#define NT_ATTR __attribute__((target("+sve")))
#define NT_ALIGN 64
#define NT_T double
#define NT_VEC svfloat64_t
#define NT_W svcntd()
#define NT_SUF sve_d
#define NT_LOADU(p) svld1_f64(svptrue_b64(), (p))
#define NT_STREAM(p, v) svstnt1_f64(svptrue_b64(), (p), (v))
#define NT_SET1(x) svdup_f64(x)
#define NT_ADD(x, y) svadd_f64_x(svptrue_b64(), (x), (y))
#define NT_MUL(x, y) svmul_f64_x(svptrue_b64(), (x), (y))
#include "nt_tmpl.h"
#undef NT_T
#undef NT_VEC
#undef NT_W
#undef NT_SUF
#undef NT_LOADU
#undef NT_STREAM
#undef NT_SET1
#undef NT_ADD
#undef NT_MUL
#define NT_T float
#define NT_VEC svfloat32_t
#define NT_W svcntw()
#define NT_SUF sve_f
#define NT_LOADU(p) svld1_f32(svptrue_b32(), (p))
#define NT_STREAM(p, v) svstnt1_f32(svptrue_b32(), (p), (v))
#define NT_SET1(x) svdup_f32(x)
#define NT_ADD(x, y) svadd_f32_x(svptrue_b32(), (x), (y))
#define NT_MUL(x, y) svmul_f32_x(svptrue_b32(), (x), (y))
#include "nt_tmpl.h"
#undef NT_T
#undef NT_VEC
#undef NT_W
#undef NT_SUF
#undef NT_LOADU
#undef NT_STREAM
#undef NT_SET1
#undef NT_ADD
#undef NT_MUL
#undef NT_ATTR
#undef NT_ALIGN

/* ---- NEON: stnp of two q registers (32 bytes per store) -----------------
 * ACLE has no non-temporal store for NEON; the pair store is the one
 * instruction, written as inline assembly. */
typedef struct { float64x2_t lo, hi; } nt_d2x2_t;
typedef struct { float32x4_t lo, hi; } nt_f4x2_t;

static inline nt_d2x2_t nt_ld_d2x2(const double *p) { return (nt_d2x2_t){ vld1q_f64(p), vld1q_f64(p + 2) }; }
static inline nt_f4x2_t nt_ld_f4x2(const float *p) { return (nt_f4x2_t){ vld1q_f32(p), vld1q_f32(p + 4) }; }
static inline void nt_stnp_d(double *p, nt_d2x2_t v)
{
    __asm__("stnp %q1, %q2, [%3]" : "=m"(*(double(*)[4])p) : "w"(v.lo), "w"(v.hi), "r"(p));
}
static inline void nt_stnp_f(float *p, nt_f4x2_t v)
{
    __asm__("stnp %q1, %q2, [%3]" : "=m"(*(float(*)[8])p) : "w"(v.lo), "w"(v.hi), "r"(p));
}
static inline nt_d2x2_t nt_add_d(nt_d2x2_t x, nt_d2x2_t y) { return (nt_d2x2_t){ vaddq_f64(x.lo, y.lo), vaddq_f64(x.hi, y.hi) }; }
static inline nt_d2x2_t nt_mul_d(nt_d2x2_t x, nt_d2x2_t y) { return (nt_d2x2_t){ vmulq_f64(x.lo, y.lo), vmulq_f64(x.hi, y.hi) }; }
static inline nt_f4x2_t nt_add_f(nt_f4x2_t x, nt_f4x2_t y) { return (nt_f4x2_t){ vaddq_f32(x.lo, y.lo), vaddq_f32(x.hi, y.hi) }; }
static inline nt_f4x2_t nt_mul_f(nt_f4x2_t x, nt_f4x2_t y) { return (nt_f4x2_t){ vmulq_f32(x.lo, y.lo), vmulq_f32(x.hi, y.hi) }; }

#define NT_ATTR
#define NT_ALIGN 32
#define NT_T double
#define NT_VEC nt_d2x2_t
#define NT_W 4
#define NT_SUF neon_d
#define NT_LOADU(p) nt_ld_d2x2(p)
#define NT_STREAM(p, v) nt_stnp_d((p), (v))
#define NT_SET1(x) ((nt_d2x2_t){ vdupq_n_f64(x), vdupq_n_f64(x) })
#define NT_ADD(x, y) nt_add_d((x), (y))
#define NT_MUL(x, y) nt_mul_d((x), (y))
#include "nt_tmpl.h"
#undef NT_T
#undef NT_VEC
#undef NT_W
#undef NT_SUF
#undef NT_LOADU
#undef NT_STREAM
#undef NT_SET1
#undef NT_ADD
#undef NT_MUL
#define NT_T float
#define NT_VEC nt_f4x2_t
#define NT_W 8
#define NT_SUF neon_f
#define NT_LOADU(p) nt_ld_f4x2(p)
#define NT_STREAM(p, v) nt_stnp_f((p), (v))
#define NT_SET1(x) ((nt_f4x2_t){ vdupq_n_f32(x), vdupq_n_f32(x) })
#define NT_ADD(x, y) nt_add_f((x), (y))
#define NT_MUL(x, y) nt_mul_f((x), (y))
#include "nt_tmpl.h"
#undef NT_T
#undef NT_VEC
#undef NT_W
#undef NT_SUF
#undef NT_LOADU
#undef NT_STREAM
#undef NT_SET1
#undef NT_ADD
#undef NT_MUL
#undef NT_ATTR
#undef NT_ALIGN

static bool has_sve(void) { return mb_isa_cpu_has_sve() != 0; }
static bool has_neon(void) { return true; }   /* every aarch64 CPU (Advanced SIMD is mandatory) */
#endif /* ST_NT_A64 */

static bool has_portable(void) { return true; }

/* One row per (type) of one ISA, in st_kernel_id_t order. */
#define NT_ROW(s) { nt_copy_##s, nt_scale_##s, nt_add_##s, nt_triad_##s, NULL, nt_nstream_##s }

static const st_nt_isa_t st_nt_isas[] = {
#if ST_NT_X86
    { "avx512", "_mm512_stream_pd/_mm512_stream_ps", true, has_avx512,
      { NT_ROW(avx512_d), NT_ROW(avx512_f) } },
    { "avx2", "_mm256_stream_pd/_mm256_stream_ps", true, has_avx2,
      { NT_ROW(avx2_d), NT_ROW(avx2_f) } },
    { "sse2", "_mm_stream_pd/_mm_stream_ps", true, has_sse2,
      { NT_ROW(sse2_d), NT_ROW(sse2_f) } },
#endif
#if ST_NT_A64
    { "sve", "svstnt1_f64/svstnt1_f32 (stnt1d/stnt1w)", true, has_sve,
      { NT_ROW(sve_d), NT_ROW(sve_f) } },
    { "neon", "stnp of q register pairs", true, has_neon,
      { NT_ROW(neon_d), NT_ROW(neon_f) } },
#endif
    { "portable", "plain stores (no non-temporal instruction for this CPU/build)", false,
      has_portable, { NT_ROW(port_d), NT_ROW(port_f) } },
};
#define ST_NT_NISA (sizeof st_nt_isas / sizeof st_nt_isas[0])

const st_nt_isa_t *st_nt_select(const char *want, bool *unknown, char *msg, size_t msglen)
{
    *unknown = false;
    if (!want || strcmp(want, "auto") == 0) {
        for (size_t i = 0; i < ST_NT_NISA; i++)
            if (st_nt_isas[i].supported())
                return &st_nt_isas[i];
        snprintf(msg, msglen, "no non-temporal store variant is usable");
        return NULL;
    }
    for (size_t i = 0; i < ST_NT_NISA; i++) {
        if (strcmp(st_nt_isas[i].name, want) != 0)
            continue;
        if (st_nt_isas[i].supported())
            return &st_nt_isas[i];
        char have[128];
        snprintf(msg, msglen, "--nt-isa %s: not supported by this CPU, which has %s; "
                 "use --nt-isa auto to pick the best supported variant", want,
                 st_nt_cpu_choices(have, sizeof have, "|"));
        return NULL;
    }
    *unknown = true;
    char have[128];
    snprintf(msg, msglen, "--nt-isa %s: not built for this binary (%s); this CPU has %s", want,
             ST_NT_ARCH, st_nt_cpu_choices(have, sizeof have, "|"));
    return NULL;
}

const char *st_nt_cpu_choices(char *buf, size_t len, const char *sep)
{
    size_t used = (size_t)snprintf(buf, len, "auto");
    for (size_t i = 0; i < ST_NT_NISA && used < len; i++)
        if (st_nt_isas[i].supported())
            used += (size_t)snprintf(buf + used, len - used, "%s%s", sep, st_nt_isas[i].name);
    return buf;
}

bool st_nt_has(const st_nt_isa_t *isa, st_type_t t, int kernel_id)
{
    return isa && kernel_id >= 0 && kernel_id < ST_K_COUNT && isa->fn[t][kernel_id] != NULL;
}

const st_nt_isa_t *st_nt_at(size_t i)
{
    return i < ST_NT_NISA ? &st_nt_isas[i] : NULL;
}

double st_nt_run(const st_nt_isa_t *isa, st_type_t t, int kernel_id, const st_arrays_t *x)
{
    st_nt_run_range(isa, t, kernel_id, x, 0, x->n);
    return 0.0;
}

void st_nt_run_range(const st_nt_isa_t *isa, st_type_t t, int kernel_id, const st_arrays_t *x,
                     size_t off, size_t len)
{
    const st_nt_fn fn = isa->fn[t][kernel_id];
    const bool fence = isa->nontemporal;

#pragma omp parallel
    {
        size_t lo, hi;
        st_static_chunk(len, omp_get_thread_num(), omp_get_num_threads(), &lo, &hi);
        fn(x, off + lo, off + hi);
#if ST_NT_X86
        if (fence)
            _mm_sfence();
#elif ST_NT_A64
        if (fence)   /* the non-temporal stores ordered before the barrier's */
            __asm__ volatile("dmb ishst" ::: "memory");
#else
        (void)fence;
#endif
    }
}
