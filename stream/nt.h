/* nt: non-temporal (streaming) store versions of the storing kernels,
 * chosen at run time from the CPU's features.
 *
 * Variants, best first, those of the binary's architecture only:
 *   x86-64:  avx512 (_mm512_stream_*), avx2 (_mm256_stream_*), sse2 (_mm_stream_*)
 *   aarch64: sve (svstnt1: stnt1d/stnt1w, the CPU's vector length),
 *            neon (stnp of two q registers)
 *   both:    portable (plain stores: no non-temporal hint).
 * Each ISA variant is compiled with a target attribute, so the default
 * build stays portable; __builtin_cpu_supports (x86) or AT_HWCAP
 * (aarch64: SVE) decides at run time.  Stores are aligned to the vector
 * width (scalar head and tail); every thread issues a store fence (sfence,
 * dmb ishst) before the region's closing barrier. */
#ifndef ST_NT_H
#define ST_NT_H

#include <stdbool.h>
#include <stddef.h>

#include "config.h"
#include "kernels.h"

/* Processes elements [lo, hi) of the kernel. */
typedef void (*st_nt_fn)(const st_arrays_t *x, size_t lo, size_t hi);

typedef struct st_nt_isa {
    const char *name;          /* "avx512" | "avx2" | "sse2" | "portable" */
    const char *detail;        /* "_mm512_stream_pd/ps" ... */
    bool nontemporal;          /* false for the portable fallback */
    bool (*supported)(void);   /* CPU has it and the build has the code */
    st_nt_fn fn[ST_NTYPES][ST_K_COUNT];   /* NULL: no non-temporal form (Dot) */
} st_nt_isa_t;

/* want: "auto" (the best supported) or a variant name.  Returns the
 * variant, or NULL with msg ("avx512: not supported by this CPU ...";
 * the caller exits 4) or an unknown name (caller exits 2, *unknown set). */
const st_nt_isa_t *st_nt_select(const char *want, bool *unknown, char *msg, size_t msglen);
/* True when the kernel has a non-temporal form. */
bool st_nt_has(const st_nt_isa_t *isa, st_type_t t, int kernel_id);
/* Runs the kernel with the current OpenMP team over the static schedule.
 * Returns 0 (no non-temporal kernel computes a sum). */
double st_nt_run(const st_nt_isa_t *isa, st_type_t t, int kernel_id, const st_arrays_t *x);
/* The same over elements [off, off + len) only (the calibration's trials). */
void st_nt_run_range(const st_nt_isa_t *isa, st_type_t t, int kernel_id, const st_arrays_t *x,
                     size_t off, size_t len);
/* The variants this CPU runs, auto first, joined by sep ("auto|neon|portable"
 * with "|"), into buf. */
const char *st_nt_cpu_choices(char *buf, size_t len, const char *sep);
/* Variant i of the table (best first), or NULL past its end. */
const st_nt_isa_t *st_nt_at(size_t i);

#endif
