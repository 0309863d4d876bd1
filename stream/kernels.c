/* kernels: the descriptor table and the per-type implementations
 * (generated from kernels_tmpl.h once for double, once for float). */
#include "kernels.h"
#include "isa.h"
#include "log.h"

#include <errno.h>
#include <omp.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

/* Eight double lanes: Dot's partial sums. */
typedef double st_v8d_t __attribute__((vector_size(64)));

#define ST_T double
#define ST_SUF d
#include "kernels_tmpl.h"
#undef ST_T
#undef ST_SUF

#define ST_T float
#define ST_SUF f
#include "kernels_tmpl.h"
#undef ST_T
#undef ST_SUF

/* words: STREAM counting (reads + writes).  words_wa adds the cache line
 * read that a normal store to a not-yet-cached line costs (write-allocate):
 * one more word for the kernels whose destination is not also read. */
static const st_kernel_t st_kernels[ST_K_COUNT] = {
    { ST_K_COPY,    "copy",    "Copy",    "Copy:      ", "c = a",          2, 3, true,  false,
      { copy_d, copy_f },       { gold_copy_d, gold_copy_f } },
    { ST_K_SCALE,   "scale",   "Scale",   "Scale:     ", "b = s*c",        2, 3, true,  false,
      { scale_d, scale_f },     { gold_scale_d, gold_scale_f } },
    { ST_K_ADD,     "add",     "Add",     "Add:       ", "c = a + b",      3, 4, true,  false,
      { add_d, add_f },         { gold_add_d, gold_add_f } },
    { ST_K_TRIAD,   "triad",   "Triad",   "Triad:     ", "a = b + s*c",    3, 4, true,  false,
      { triad_d, triad_f },     { gold_triad_d, gold_triad_f } },
    { ST_K_DOT,     "dot",     "Dot",     "Dot:       ", "sum += a*b",     2, 2, false, true,
      { dot_d, dot_f },         { gold_dot_d, gold_dot_f } },
    { ST_K_NSTREAM, "nstream", "Nstream", "Nstream:   ", "a += b + s*c",   4, 4, false, false,
      { nstream_d, nstream_f }, { gold_nstream_d, gold_nstream_f } },
};

const st_kernel_t *st_kernel_table(size_t *count)
{
    if (count)
        *count = ST_K_COUNT;
    return st_kernels;
}

const st_kernel_t *st_kernel_get(st_kernel_id_t id)
{
    return (unsigned)id < ST_K_COUNT ? &st_kernels[id] : NULL;
}

const st_kernel_t *st_kernel_find(const char *name)
{
    for (size_t i = 0; i < ST_K_COUNT; i++)
        if (strcasecmp(st_kernels[i].name, name) == 0)
            return &st_kernels[i];
    return NULL;
}

static void known_names(char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < ST_K_COUNT && used < len; i++) {
        int w = snprintf(buf + used, len - used, "%s%s", i ? "," : "", st_kernels[i].name);
        if (w < 0)
            break;
        used += (size_t)w;
    }
}

int st_kernels_parse(const char *list, int *ids, size_t *count, char *msg, size_t msglen)
{
    char names[128];
    size_t n = 0;
    const char *p = list;

    known_names(names, sizeof names);
    *count = 0;
    if (!list || !*list) {
        snprintf(msg, msglen, "--kernels: empty list; name one or more of %s", names);
        return -EINVAL;
    }
    while (*p) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        char word[32];
        const st_kernel_t *k;

        if (len == 0 || len >= sizeof word) {
            char shown[96];
            snprintf(msg, msglen, "--kernels: invalid list '%s': empty or overlong entry; "
                     "use a comma-separated subset of %s", mb_shown(list, 40, shown, sizeof shown), names);
            return -EINVAL;
        }
        memcpy(word, p, len);
        word[len] = '\0';
        k = st_kernel_find(word);
        if (!k) {
            char shown[160];
            snprintf(msg, msglen, "--kernels: unknown kernel '%s'; known kernels: %s",
                     mb_shown(word, 0, shown, sizeof shown), names);
            return -EINVAL;
        }
        for (size_t i = 0; i < n; i++) {
            if (ids[i] == (int)k->id) {
                snprintf(msg, msglen, "--kernels: '%s' is listed twice", word);
                return -EINVAL;
            }
        }
        if (n >= ST_MAX_KERNELS) {
            snprintf(msg, msglen, "--kernels: at most %d kernels", ST_MAX_KERNELS);
            return -EINVAL;
        }
        ids[n++] = (int)k->id;
        if (!end)
            break;
        p = end + 1;
        if (!*p) {
            snprintf(msg, msglen, "--kernels: invalid list '%s': trailing comma", list);
            return -EINVAL;
        }
    }
    *count = n;
    return 0;
}

void st_arrays_fill(st_type_t t, const st_arrays_t *x, double av, double bv, double cv)
{
    if (t == ST_FLOAT)
        fill_f(x, av, bv, cv);
    else
        fill_d(x, av, bv, cv);
}

void st_arrays_double_a(st_type_t t, const st_arrays_t *x)
{
    if (t == ST_FLOAT)
        double_a_f(x);
    else
        double_a_d(x);
}

static void *array_ptr(const st_arrays_t *x, int array)
{
    return array == 0 ? x->a : array == 1 ? x->b : x->c;
}

double st_array_get(st_type_t t, const st_arrays_t *x, int array, size_t j)
{
    const void *p = array_ptr(x, array);
    return t == ST_FLOAT ? (double)((const float *)p)[j] : ((const double *)p)[j];
}

void st_array_set(st_type_t t, const st_arrays_t *x, int array, size_t j, double v)
{
    void *p = array_ptr(x, array);
    if (t == ST_FLOAT)
        ((float *)p)[j] = (float)v;
    else
        ((double *)p)[j] = v;
}

void st_static_chunk(size_t n, int tid, int nth, size_t *lo, size_t *hi)
{
    size_t q, r, t;

    if (nth < 1)
        nth = 1;
    q = n / (size_t)nth;
    r = n % (size_t)nth;
    t = (size_t)tid;
    if (t < r) {
        *lo = t * (q + 1);
        *hi = *lo + q + 1;
    } else {
        *lo = r * (q + 1) + (t - r) * q;
        *hi = *lo + q;
    }
}
