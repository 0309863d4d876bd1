/* traffic: the bandwidth kernels shared by `loaded` (the traffic threads
 * beside the latency thread) and `sweep` (the memory mountain).
 *
 * Kernels (one table, traffic.c):
 *   read    s += a[i]                 1 array read
 *   write   a[i] = s                  1 array written
 *   copy    b[i] = a[i]               1 read, 1 written
 *   triad   a[i] = b[i] + q * c[i]    2 read, 1 written
 *   rw:PCT  whole 64-byte lines loaded or stored in order, exactly PCT
 *           of every 100 lines loaded (mencal/access.c, as `mixed`)
 *
 * Bytes are counted as STREAM counts them: every array element read or
 * written once per pass (8 bytes), nothing for the write-allocate read
 * (RFO) a store to an uncached line costs.  That read is real memory
 * traffic, so a second figure adds it: STREAM bytes + bytes written.
 * The loops of read, write and copy come in variants chosen by measurement
 * (kcalib.h): read sums with readkern.h's (default v64x8: 64-byte vectors,
 * 8 accumulators), write and copy store with storekern.h's (default v64:
 * ordinary write-allocate stores of 64-byte vectors; the nt ones stream).
 * triad and rw:PCT have one loop each (64-byte vectors; whole lines). */
#ifndef MC_TRAFFIC_H
#define MC_TRAFFIC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "access.h"
#include "config.h"
#include "kcalib.h"
#include "readkern.h"
#include "storekern.h"

struct mc_traffic;

typedef struct {
    const char *name;
    const char *formula;   /* for notes */
    int arrays;            /* arrays the kernel walks (rw: 1, the lines) */
    int reads, writes;     /* arrays read / written per element (rw: 0, from the counts) */
    bool mix;              /* rw:PCT: lines through mc_mix_run */
    /* vectors [from, to) (64 bytes each) of every array; counts the bytes */
    void (*range)(struct mc_traffic *t, size_t from, size_t to);
} mc_traffic_kernel_t;

#define MC_TRAFFIC_KERNELS 5
extern const mc_traffic_kernel_t mc_traffic_kernels[MC_TRAFFIC_KERNELS];
/* The kernel named `name` ("read" ...; "rw" for rw:PCT), or NULL. */
const mc_traffic_kernel_t *mc_traffic_find(const char *name);

typedef struct {
    const mc_traffic_kernel_t *k;
    unsigned read_pct;     /* rw only: 0..100 */
    size_t variant;        /* 1 + the index in the kernel's family; 0: the family's default */
} mc_traffic_spec_t;

/* The variants of kernel k (read: readkern's, default v64x8; write and
 * copy: storekern's), or NULL (triad, rw: one loop). */
const mc_kfamily_t *mc_traffic_family(const mc_traffic_kernel_t *k);

/* "read", "write", "copy", "triad" or "rw:PCT" (PCT an integer 0..100).
 * 0, or -EINVAL with why naming the bad value and the accepted form. */
int mc_traffic_parse(const char *s, mc_traffic_spec_t *out, char *why, size_t whylen);
/* "triad", "rw:70" */
const char *mc_traffic_name(const mc_traffic_spec_t *s, char *buf, size_t buflen);

/* One thread's traffic over its own memory. */
typedef struct mc_traffic {
    mc_traffic_spec_t spec;
    double *arr[3];        /* the kernel's arrays, `elems` doubles each, line aligned */
    size_t elems;          /* per array, a multiple of 8 (one line) */
    size_t pos;            /* next element of the running pass */
    mc_mix_t mix;          /* rw: the line mix over all the memory */
    uint64_t stream_bytes; /* STREAM counting, since init */
    uint64_t written_bytes;/* the write-allocate reads: bytes stored, 0 for nt stores */
    uint64_t passes;       /* whole passes done (rw: lines / total lines) */
    const mc_readkern_t *rk;   /* read: the variant in use */
    const mc_storekern_t *sk;  /* write, copy: the variant in use */
    uint64_t acc[MC_READKERN_ACC_WORDS];   /* read: the running sums */
} mc_traffic_t;

/* Splits `bytes` at mem (64-byte aligned) into the kernel's arrays and
 * writes every element (first touch by the calling thread).  bytes must
 * hold at least one line per array.  0, or -EINVAL. */
int mc_traffic_init(mc_traffic_t *t, const mc_traffic_spec_t *spec, void *mem, size_t bytes,
                    uint64_t random_state, uint64_t stream);
/* Switches to variant i of the kernel's family (no-op without one). */
void mc_traffic_use(mc_traffic_t *t, size_t i);
/* The variant in use, or NULL (triad, rw). */
const mc_kvar_t *mc_traffic_variant(const mc_traffic_t *t);
/* Bytes the traffic really uses (arrays x elems x 8). */
size_t mc_traffic_span(const mc_traffic_t *t);
/* The next `lines` 64-byte lines of every array (rw: `lines` line
 * accesses), wrapping at the end: the batch of `loaded`. */
void mc_traffic_lines(mc_traffic_t *t, size_t lines);
/* `n` whole passes over the arrays: the samples of `sweep`. */
void mc_traffic_passes(mc_traffic_t *t, uint64_t n);
/* STREAM bytes of one whole pass (rw: every line once, its share of
 * loads and stores exact over the pass only when lines % 100 == 0). */
double mc_traffic_pass_bytes(const mc_traffic_t *t);

#endif
