/* nt_tmpl.h: the non-temporal kernels for one (ISA, type) pair.
 * Included by nt.c with these defined (no include guard on purpose):
 *   NT_T       element type          NT_SUF     name suffix
 *   NT_ATTR    target attribute      NT_VEC     vector type
 *   NT_W       lanes per vector      NT_ALIGN   store alignment (bytes)
 *   NT_LOADU(p) NT_STREAM(p, v) NT_SET1(x) NT_ADD(x, y) NT_MUL(x, y)
 * Each kernel walks [lo, hi): scalar stores until the destination is
 * aligned, streaming vector stores, then a scalar tail. */

#define NT_CAT_(x, y) x##_##y
#define NT_CAT(x, y) NT_CAT_(x, y)
#define NT_FN(name) NT_CAT(name, NT_SUF)

#define NT_HEAD(dst, j, hi) \
    for (; (j) < (hi) && ((uintptr_t)((dst) + (j)) % NT_ALIGN) != 0; (j)++)

NT_ATTR static void NT_FN(nt_copy)(const st_arrays_t *x, size_t lo, size_t hi)
{
    const NT_T *restrict a = x->a;
    NT_T *restrict c = x->c;
    size_t j = lo;

    NT_HEAD(c, j, hi)
        c[j] = a[j];
    for (; j + NT_W <= hi; j += NT_W)
        NT_STREAM(c + j, NT_LOADU(a + j));
    for (; j < hi; j++)
        c[j] = a[j];
}

NT_ATTR static void NT_FN(nt_scale)(const st_arrays_t *x, size_t lo, size_t hi)
{
    NT_T *restrict b = x->b;
    const NT_T *restrict c = x->c;
    const NT_T s = (NT_T)x->scalar;
    const NT_VEC vs = NT_SET1(s);
    size_t j = lo;

    NT_HEAD(b, j, hi)
        b[j] = s * c[j];
    for (; j + NT_W <= hi; j += NT_W)
        NT_STREAM(b + j, NT_MUL(vs, NT_LOADU(c + j)));
    for (; j < hi; j++)
        b[j] = s * c[j];
}

NT_ATTR static void NT_FN(nt_add)(const st_arrays_t *x, size_t lo, size_t hi)
{
    const NT_T *restrict a = x->a;
    const NT_T *restrict b = x->b;
    NT_T *restrict c = x->c;
    size_t j = lo;

    NT_HEAD(c, j, hi)
        c[j] = a[j] + b[j];
    for (; j + NT_W <= hi; j += NT_W)
        NT_STREAM(c + j, NT_ADD(NT_LOADU(a + j), NT_LOADU(b + j)));
    for (; j < hi; j++)
        c[j] = a[j] + b[j];
}

NT_ATTR static void NT_FN(nt_triad)(const st_arrays_t *x, size_t lo, size_t hi)
{
    NT_T *restrict a = x->a;
    const NT_T *restrict b = x->b;
    const NT_T *restrict c = x->c;
    const NT_T s = (NT_T)x->scalar;
    const NT_VEC vs = NT_SET1(s);
    size_t j = lo;

    NT_HEAD(a, j, hi)
        a[j] = b[j] + s * c[j];
    for (; j + NT_W <= hi; j += NT_W)
        NT_STREAM(a + j, NT_ADD(NT_LOADU(b + j), NT_MUL(vs, NT_LOADU(c + j))));
    for (; j < hi; j++)
        a[j] = b[j] + s * c[j];
}

NT_ATTR static void NT_FN(nt_nstream)(const st_arrays_t *x, size_t lo, size_t hi)
{
    NT_T *restrict a = x->a;
    const NT_T *restrict b = x->b;
    const NT_T *restrict c = x->c;
    const NT_T s = (NT_T)x->scalar;
    const NT_VEC vs = NT_SET1(s);
    size_t j = lo;

    NT_HEAD(a, j, hi)
        a[j] += b[j] + s * c[j];
    for (; j + NT_W <= hi; j += NT_W) {
        NT_VEC v = NT_ADD(NT_LOADU(b + j), NT_MUL(vs, NT_LOADU(c + j)));
        NT_STREAM(a + j, NT_ADD(NT_LOADU(a + j), v));
    }
    for (; j < hi; j++)
        a[j] += b[j] + s * c[j];
}

#undef NT_HEAD
#undef NT_FN
#undef NT_CAT
#undef NT_CAT_
