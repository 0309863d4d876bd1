/* kernels: the descriptor table.  One entry per kernel carries its names,
 * its STREAM row label, the words it moves per element (the only place
 * bandwidth weights live), one implementation per element type and the
 * scalar replay step that validation uses.
 *
 * Every loop, the initialisation included, is an OpenMP parallel for with
 * schedule(static), so first-touch placement matches the kernels. */
#ifndef ST_KERNELS_H
#define ST_KERNELS_H

#include <stdbool.h>
#include <stddef.h>

#include "config.h"

/* The three arrays of one run.  a, b and c point to n elements of the
 * run's type (float or double). */
typedef struct {
    void *a, *b, *c;
    size_t n;
    double scalar;             /* s: 3.0 (STREAM 5.10) or 0.42 (stream_mpi 1.8) */
} st_arrays_t;

/* Runs the kernel over all n elements with the current OpenMP team.
 * Returns the dot product for Dot, 0 for the others. */
typedef double (*st_kernel_fn)(const st_arrays_t *x);

/* Advances the scalar "gold" values g[0..2] (a, b, c of the kernel's type)
 * by one application of the kernel.  Returns the per-element product a*b
 * for Dot (the expected sum is n times it), 0 for the others. */
typedef double (*st_gold_fn)(void *g, double scalar);

typedef enum {
    ST_K_COPY = 0, ST_K_SCALE, ST_K_ADD, ST_K_TRIAD, ST_K_DOT, ST_K_NSTREAM, ST_K_COUNT
} st_kernel_id_t;

/* The one bandwidth formula (STREAM counting): bytes a kernel moves over
 * n elements of elem_bytes, counting `words` elements per index
 * (st_kernel_t.words, or words_wa), and the rate in MB/s (1e6 bytes/s)
 * for a time in seconds.  A zero time gives inf; callers decide NaN. */
static inline double st_kernel_bytes(unsigned words, size_t elem_bytes, size_t n)
{
    return (double)words * (double)elem_bytes * (double)n;
}
static inline double st_rate_mbps(double bytes, double seconds)
{
    return 1.0e-6 * bytes / seconds;
}

typedef struct {
    st_kernel_id_t id;
    const char *name;          /* "copy": the --kernels spelling */
    const char *title;         /* "Copy": record name in JSON/CSV */
    const char *label;         /* "Copy:      ": STREAM row label, 11 characters */
    const char *formula;       /* "c = a" */
    unsigned words;            /* elements read + written per index (STREAM counting) */
    unsigned words_wa;         /* plus the write-allocate read of a stored-only array */
    bool standard;             /* one of STREAM's four */
    bool dot;                  /* produces a sum instead of an array */
    st_kernel_fn fn[ST_NTYPES];
    st_gold_fn gold[ST_NTYPES];
} st_kernel_t;

/* The whole table, in STREAM's order (copy, scale, add, triad, dot, nstream). */
const st_kernel_t *st_kernel_table(size_t *count);
const st_kernel_t *st_kernel_get(st_kernel_id_t id);
/* Lookup by --kernels name (case-insensitive); NULL when unknown. */
const st_kernel_t *st_kernel_find(const char *name);
/* Parses "copy,scale,add" into ids (run order, no duplicates).
 * Returns 0, or -EINVAL with msg naming the bad entry and the known names. */
int st_kernels_parse(const char *list, int *ids, size_t *count, char *msg, size_t msglen);

/* a = av, b = bv, c = cv over all n elements (parallel, static schedule). */
void st_arrays_fill(st_type_t t, const st_arrays_t *x, double av, double bv, double cv);
/* STREAM's calibration pass: a = 2 * a. */
void st_arrays_double_a(st_type_t t, const st_arrays_t *x);
/* Element j of array 0..2 (a, b, c) as double; and a store into it. */
double st_array_get(st_type_t t, const st_arrays_t *x, int array, size_t j);
void st_array_set(st_type_t t, const st_arrays_t *x, int array, size_t j, double v);

/* The static schedule, spelled out: thread tid of nth gets [*lo, *hi).
 * Matches schedule(static) in libgomp (the first n % nth threads get one
 * extra element).  Used by the non-temporal kernels. */
void st_static_chunk(size_t n, int tid, int nth, size_t *lo, size_t *hi);

#endif
