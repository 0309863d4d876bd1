/* kcalib: a kernel variant chosen by measurement, on the machine and at
 * the size of the run (issue 24), the one calibration seqread, sweep and
 * loaded share.
 *
 * A family is the variants of one kernel (readkern.h: the read sums;
 * storekern.h: the write and copy loops).  With --kernel-variant auto the
 * scenario times every variant the CPU can run MC_KCAL_TRIALS times,
 * alternating between variants, on fresh chunks of its memory; the
 * calibration gets min(--kernel-calibration, MC_KCAL_RUN_SHARE of the
 * run) and the fastest variant runs the measurement.  The result records
 * the choice: a table `kernel_calibration` (every variant's best trial),
 * the metric `kernel_calibration_time` (s) and one note per kernel.
 *
 * Fallbacks, each named in the note: --kernel-calibration 0, trials that
 * would be shorter than MC_KCAL_MIN_TRIAL_NS within the budget (a short
 * run), a calibration that ran past --kernel-calibration (trials
 * preempted on a busy machine: its figures are not trusted) and an
 * interrupted one leave the family's default variant.
 *
 * kcalib only plans, books and chooses; the scenario runs the trials (its
 * own team, its own memory) and calls mc_kcal_trial_done() after each. */
#ifndef MC_KCALIB_H
#define MC_KCALIB_H

#include <stdbool.h>
#include <stddef.h>

#include "result.h"

#define MC_KCAL_TRIALS 3             /* per variant, alternating */
#define MC_KCAL_RUN_SHARE 0.05       /* planned at 5% of the run */
#define MC_KCAL_MIN_TRIAL_NS 200000.0 /* a trial shorter than 0.2 ms is not timed */
#define MC_KCAL_MAX_VARIANTS 12

/* What a variant is, for the table and the notes. */
typedef struct {
    const char *name;            /* "v32x4", "v64nt": unique over every family */
    unsigned vector_bytes;       /* 16, 32 or 64 */
    unsigned accumulators;       /* independent sums (read), 0 for stores */
    unsigned prefetch_bytes;     /* software prefetch distance, 0: none */
    bool nt_stores;              /* non-temporal (streaming) stores */
    bool (*supported)(void);     /* NULL: every CPU; else whether this one can run it */
    const char *needs;           /* what supported() checks, for messages ("avx512f") */
    unsigned (*vector_len)(void);/* non-NULL: a scalable vector (SVE), vector_bytes is 0
                                  * and this gives the CPU's length in bytes at run time */
} mc_kvar_t;

/* The variant's vector bytes on this CPU (vector_len's, or vector_bytes). */
unsigned mc_kvar_vector_bytes(const mc_kvar_t *v);

/* A family: n descriptors at first, stride bytes apart (each entry of the
 * family's own table starts with its mc_kvar_t). */
typedef struct {
    const char *what;            /* "read", "write and copy" */
    const void *first;
    size_t stride, n, def;       /* def: the default variant's index */
} mc_kfamily_t;

const mc_kvar_t *mc_kfamily_at(const mc_kfamily_t *f, size_t i);
/* The index of `name` in f, or -1. */
long mc_kfamily_find(const mc_kfamily_t *f, const char *name);

/* --kernel-variant: "auto", or a comma-separated list of variant names,
 * at most one per family; a family not named calibrates.  fams are the
 * families the scenario uses; forced[i] is the index forced in fams[i],
 * or -1.  A name of another family is ignored, or refused when strict
 * (the scenario is selected on its own).  0, or MB_EXIT_USAGE with msg
 * naming the bad value and the accepted names ("--kernel-variant:
 * invalid value 'X': must be one of auto|v16x4|..."). */
int mc_kcal_parse(const char *opt, const mc_kfamily_t *const *fams, int nfam, bool strict,
                  long *forced, char *msg, size_t msglen);

/* The winner among n variants' figures (GB/s; higher wins): the largest
 * positive finite one; a tie goes to the default (position def) when it
 * is among the best, else to the first of them; no usable figure, or a
 * calibration that overran, gives def. */
size_t mc_kcal_choose(const double *figure, size_t n, size_t def, bool overran);

typedef struct {
    const char *kernel;          /* "read", "write", "copy"; NULL: seqread (one kernel) */
    const mc_kfamily_t *fam;
    size_t nvar;                 /* variants tried: the ones this CPU runs */
    size_t var[MC_KCAL_MAX_VARIANTS];   /* their family indexes */
    const char *left_out;        /* a variant this CPU cannot run, or NULL */
    long forced;                 /* family index forced by --kernel-variant, or -1 */
    size_t chosen;               /* family index in use */
    bool on;                     /* the calibration runs (planned, auto) */
    bool finished, overran;      /* every trial ran; past max_s */
    const char *why_not;         /* when !on and not forced: why (static text) */
    const char *where;           /* the size and team it ran at, for the note (static or kept) */
    double max_s, budget_s, run_s, took_s;
    double chunk_bytes;          /* per thread and trial (the first pass's) */
    double later_share;          /* the later passes' trials / chunk_bytes: 1, or less where
                                  * they were shortened to keep to budget_s (trafficcal) */
    size_t nchunks;              /* chunks of a thread's memory the trials rotate through */
    int nthreads;
    double gbps[MC_KCAL_MAX_VARIANTS][MC_KCAL_TRIALS];
} mc_kcal_t;

/* Starts the booking of one kernel: forced (-1: auto), max_s from
 * --kernel-calibration.  The variant in use is the forced one or the
 * default until mc_kcal_finish() chooses. */
void mc_kcal_init(mc_kcal_t *kc, const char *kernel, const mc_kfamily_t *fam, long forced,
                  double max_s);
/* The plan: the run lasts about run_s; a thread moves bytes_per_ns with
 * the default variant; a trial is a chunk of its mem_bytes (0: no bound,
 * the trials wrap around the memory), whole `align`-byte units.  Sets on,
 * or why_not. */
void mc_kcal_plan(mc_kcal_t *kc, double run_s, double bytes_per_ns, double mem_bytes,
                  size_t align, int nthreads);
/* Trials: 0 is an uncounted warm-up of the default, then 1..mc_kcal_trials(). */
int mc_kcal_trials(const mc_kcal_t *kc);
size_t mc_kcal_trial_variant(const mc_kcal_t *kc, int r);
/* Trial r moved `bytes` (all threads) in ns. */
void mc_kcal_trial_done(mc_kcal_t *kc, int r, double bytes, double ns);
/* After the last trial: the choice (past max_s: the default). */
void mc_kcal_finish(mc_kcal_t *kc);
/* Variant i's best trial (GB/s), i a position in var[]. */
double mc_kcal_best(const mc_kcal_t *kc, size_t i);
const mc_kvar_t *mc_kcal_in_use(const mc_kcal_t *kc);

/* The record: rows of the table `kernel_calibration` (one per variant
 * tried, for every calibration that ran), one note per kernel, and the
 * metric `kernel_calibration_time` (s, summed over the kernels) when a
 * calibration ran. */
void mc_kcal_report(mc_result_t *res, const mc_kcal_t *const *kcs, int n);

#endif
