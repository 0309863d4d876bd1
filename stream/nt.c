/* nt: non-temporal store kernels with run-time ISA dispatch. */
#include "nt.h"

#include <errno.h>
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#if defined(__x86_64__)
#include <immintrin.h>
#define ST_NT_X86 1
#else
#define ST_NT_X86 0
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
        snprintf(msg, msglen, "--nt-isa %s: not supported by this CPU; "
                 "use --nt-isa auto to pick the best supported variant", want);
        return NULL;
    }
    *unknown = true;
    snprintf(msg, msglen, "--nt-isa %s: not built for this architecture; use auto or portable", want);
    return NULL;
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
#else
        (void)fence;
#endif
    }
}
