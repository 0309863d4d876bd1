/* parts_tmpl.h: STREAM's vectorised loops for one element type, the
 * MB_HOT_LOOP bodies (common/isa.h).  Included with ST_T, ST_SUF and ST_FN
 * defined: by kernels_tmpl.h (the build's target: x86's clones, aarch64's
 * NEON body) and, on aarch64, by kernels_sve.c (the SVE body).  The
 * dispatch declarations (MB_HOT_DISPATCH) follow in kernels_tmpl.h.  No
 * include guard on purpose. */

/* The vectorised parts are compiled for AVX-512, AVX2+FMA and the build's
 * target on x86-64, for SVE and the build's target (NEON) on aarch64, the
 * best chosen at start-up, so a portable (packaged) build runs the loops a
 * native build runs.  Copy needs none: it is memcpy, which glibc
 * dispatches itself. */
#define ST_PART(name) MB_HOT_LOOP void MB_HOT_NAME(ST_FN(name))

ST_PART(scale_part)(ST_T *restrict b, const ST_T *restrict c, ST_T s, size_t lo, size_t hi)
{
    for (size_t j = lo; j < hi; j++)
        b[j] = s * c[j];
}

ST_PART(add_part)(ST_T *restrict c, const ST_T *restrict a, const ST_T *restrict b,
                        size_t lo, size_t hi)
{
    for (size_t j = lo; j < hi; j++)
        c[j] = a[j] + b[j];
}

ST_PART(triad_part)(ST_T *restrict a, const ST_T *restrict b, const ST_T *restrict c,
                          ST_T s, size_t lo, size_t hi)
{
    for (size_t j = lo; j < hi; j++)
        a[j] = b[j] + s * c[j];
}
ST_PART(nstream_part)(ST_T *restrict a, const ST_T *restrict b, const ST_T *restrict c,
                            ST_T s, size_t lo, size_t hi)
{
    for (size_t j = lo; j < hi; j++)
        a[j] += b[j] + s * c[j];
}
#undef ST_PART

/* BabelStream's Dot.  The sum is kept in double for both types, so a float
 * run is not limited by float accumulation error.  Each thread sums its
 * static-schedule chunk into an 8-lane vector of partial sums (GNU vector
 * extensions, split by the compiler to the widest vectors the target has),
 * so no reassociation flag or "omp simd reduction" is needed. */
typedef ST_T ST_FN(vec8) __attribute__((vector_size(8 * sizeof(ST_T))));

MB_HOT_LOOP double MB_HOT_NAME(ST_FN(dot_part))(const ST_T *restrict a, const ST_T *restrict b, size_t lo, size_t hi)
{
    st_v8d_t acc = { 0 };
    double s = 0.0;
    size_t j = lo;

    for (; j + 8 <= hi; j += 8) {
        ST_FN(vec8) va, vb;
        memcpy(&va, a + j, sizeof va);
        memcpy(&vb, b + j, sizeof vb);
        acc += __builtin_convertvector(va, st_v8d_t) * __builtin_convertvector(vb, st_v8d_t);
    }
    for (; j < hi; j++)
        s += (double)a[j] * (double)b[j];
    for (int l = 0; l < 8; l++)
        s += acc[l];
    return s;
}
