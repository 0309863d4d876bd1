/* kernels_tmpl.h: the kernels for one element type.  Included by
 * kernels.c once per type with ST_T (the C type) and ST_SUF (a name
 * suffix) defined.  No include guard on purpose. */

#define ST_CAT_(x, y) x##_##y
#define ST_CAT(x, y) ST_CAT_(x, y)
#define ST_FN(name) ST_CAT(name, ST_SUF)

/* STREAM's four kernels.
 *
 * STREAM 5.10 declares a, b and c as three distinct static arrays, so its
 * compiler knows they cannot overlap and is free to turn a loop into a
 * library call: gcc and clang at -O2/-O3 compile Copy to memcpy() (glibc's,
 * with its own choice of rep movsb or streaming stores), and the other
 * three to plain vector loops with no overlap test.  Our arrays come from
 * one allocation, so each thread hands its static-schedule chunk to a part
 * function whose parameters are restrict: the compiler sees the same "no
 * overlap" fact and makes the same choice it makes for STREAM.  noinline
 * keeps that fact alive; once inlined into the OpenMP region gcc forgets
 * the restrict and versions the loop on a run-time overlap test instead
 * (our old Copy: an AVX-512 store loop, 10-15% above STREAM's memcpy here).
 * Chunks are libgomp's schedule(static) split (st_static_chunk). */
__attribute__((noinline)) static void ST_FN(copy_part)(ST_T *restrict c, const ST_T *restrict a, size_t lo, size_t hi)
{
    for (size_t j = lo; j < hi; j++)
        c[j] = a[j];
}

/* The hot parts (parts_tmpl.h), then how a call reaches them (isa.h). */
#include "parts_tmpl.h"
MB_HOT_DISPATCH(void, ST_FN(scale_part), (ST_T *restrict b, const ST_T *restrict c, ST_T s, size_t lo, size_t hi))
MB_HOT_DISPATCH(void, ST_FN(add_part), (ST_T *restrict c, const ST_T *restrict a, const ST_T *restrict b, size_t lo, size_t hi))
MB_HOT_DISPATCH(void, ST_FN(triad_part), (ST_T *restrict a, const ST_T *restrict b, const ST_T *restrict c, ST_T s, size_t lo, size_t hi))
MB_HOT_DISPATCH(void, ST_FN(nstream_part), (ST_T *restrict a, const ST_T *restrict b, const ST_T *restrict c, ST_T s, size_t lo, size_t hi))
MB_HOT_DISPATCH(double, ST_FN(dot_part), (const ST_T *restrict a, const ST_T *restrict b, size_t lo, size_t hi))

/* Runs STMT in a parallel region with lo..hi bound to this thread's chunk. */
#define ST_PARALLEL_CHUNKS(x, STMT)                                                    \
    do {                                                                               \
        _Pragma("omp parallel")                                                        \
        {                                                                              \
            size_t lo, hi;                                                             \
            st_static_chunk((x)->n, omp_get_thread_num(), omp_get_num_threads(), &lo, &hi); \
            STMT;                                                                      \
        }                                                                              \
    } while (0)

static double ST_FN(copy)(const st_arrays_t *x)
{
    ST_PARALLEL_CHUNKS(x, ST_FN(copy_part)(x->c, x->a, lo, hi));
    return 0.0;
}

static double ST_FN(scale)(const st_arrays_t *x)
{
    const ST_T s = (ST_T)x->scalar;
    ST_PARALLEL_CHUNKS(x, ST_FN(scale_part)(x->b, x->c, s, lo, hi));
    return 0.0;
}

static double ST_FN(add)(const st_arrays_t *x)
{
    ST_PARALLEL_CHUNKS(x, ST_FN(add_part)(x->c, x->a, x->b, lo, hi));
    return 0.0;
}

static double ST_FN(triad)(const st_arrays_t *x)
{
    const ST_T s = (ST_T)x->scalar;
    ST_PARALLEL_CHUNKS(x, ST_FN(triad_part)(x->a, x->b, x->c, s, lo, hi));
    return 0.0;
}

/* BabelStream's Nstream: a += b + s*c. */
static double ST_FN(nstream)(const st_arrays_t *x)
{
    const ST_T s = (ST_T)x->scalar;
    ST_PARALLEL_CHUNKS(x, ST_FN(nstream_part)(x->a, x->b, x->c, s, lo, hi));
    return 0.0;
}
#undef ST_PARALLEL_CHUNKS

static double ST_FN(dot)(const st_arrays_t *x)
{
    const ST_T *a = x->a;
    const ST_T *b = x->b;
    const size_t n = x->n;
    double sum = 0.0;
#pragma omp parallel reduction(+ : sum)
    {
        size_t lo, hi;
        st_static_chunk(n, omp_get_thread_num(), omp_get_num_threads(), &lo, &hi);
        sum += ST_FN(dot_part)(a, b, lo, hi);
    }
    return sum;
}

static void ST_FN(fill)(const st_arrays_t *x, double av, double bv, double cv)
{
    ST_T *restrict a = x->a;
    ST_T *restrict b = x->b;
    ST_T *restrict c = x->c;
    const ST_T A = (ST_T)av, B = (ST_T)bv, C = (ST_T)cv;
    const size_t n = x->n;
#pragma omp parallel for schedule(static)
    for (size_t j = 0; j < n; j++) {
        a[j] = A;
        b[j] = B;
        c[j] = C;
    }
}

static void ST_FN(double_a)(const st_arrays_t *x)
{
    ST_T *restrict a = x->a;
    const size_t n = x->n;
#pragma omp parallel for schedule(static)
    for (size_t j = 0; j < n; j++)
        a[j] = (ST_T)2.0 * a[j];
}

/* Scalar replay steps: g[0..2] are a, b, c in the kernel's own type, so
 * rounding follows the arrays exactly. */
static double ST_FN(gold_copy)(void *g_, double s)
{
    ST_T *g = g_;
    (void)s;
    g[2] = g[0];
    return 0.0;
}

static double ST_FN(gold_scale)(void *g_, double s)
{
    ST_T *g = g_;
    g[1] = (ST_T)s * g[2];
    return 0.0;
}

static double ST_FN(gold_add)(void *g_, double s)
{
    ST_T *g = g_;
    (void)s;
    g[2] = g[0] + g[1];
    return 0.0;
}

static double ST_FN(gold_triad)(void *g_, double s)
{
    ST_T *g = g_;
    g[0] = g[1] + (ST_T)s * g[2];
    return 0.0;
}

static double ST_FN(gold_dot)(void *g_, double s)
{
    const ST_T *g = g_;
    (void)s;
    return (double)g[0] * (double)g[1];
}

static double ST_FN(gold_nstream)(void *g_, double s)
{
    ST_T *g = g_;
    g[0] += g[1] + (ST_T)s * g[2];
    return 0.0;
}

#undef ST_FN
#undef ST_CAT
#undef ST_CAT_
