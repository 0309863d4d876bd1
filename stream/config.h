/* config: what the user asked for (st_options_t, filled by the option
 * table in options.c) and the resolved run plan (st_plan_t, built by
 * plan.c).  Everything after planning reads the plan through a const
 * pointer. */
#ifndef ST_CONFIG_H
#define ST_CONFIG_H

#include <stdbool.h>
#include <stddef.h>

#include "numa.h"
#include "plandoc.h"
#include "report.h"
#include "sizing.h"

/* Each enum below is the index of its option's choice, so the choices
 * lists (the *_CHOICES strings, used by the option table) follow its order. */
typedef enum { ST_DOUBLE = 0, ST_FLOAT = 1, ST_NTYPES } st_type_t;
#define ST_TYPE_CHOICES "double|float"

/* Huge-page treatment of the arrays.  THP (the default) leaves them to the
 * system's transparent-huge-page policy; the other two are tuning. */
typedef enum { ST_HP_THP = 0, ST_HP_NEVER, ST_HP_MADVISE } st_hugepages_t;
#define ST_HUGEPAGES_CHOICES "thp|never|madvise"

/* --nt-isa: 0 is auto, the others name a variant of nt.c (st_nt_select):
 * the variants of the architecture this binary is for, never another's. */
#if defined(__x86_64__)
#define ST_NT_ISA_CHOICES "auto|avx512|avx2|sse2|portable"
#define ST_NT_ARCH "x86-64"
#elif defined(__aarch64__)
#define ST_NT_ISA_CHOICES "auto|sve|neon|portable"
#define ST_NT_ARCH "aarch64"
#else
#define ST_NT_ISA_CHOICES "auto|portable"
#define ST_NT_ARCH "this architecture"
#endif

/* Which sizing path produced the element count. */
typedef enum { ST_SIZE_DEFAULT = 0, ST_SIZE_ELEMENTS, ST_SIZE_BYTES, ST_SIZE_AUTO } st_size_source_t;

/* --array-size as given (N|SIZE|auto), converted by the option table's
 * callback; the plan turns it into elements once the type is known. */
typedef struct {
    st_size_source_t kind;     /* DEFAULT: not given */
    size_t value;              /* ELEMENTS: elements (>= 1); BYTES: bytes; else 0 */
    const char *text;          /* as given (points into argv), for messages */
} st_size_arg_t;

#define ST_MAX_KERNELS 6
#define ST_NTIMES_MAX 1000000
#define ST_OFFSET_MAX (1LL << 30)
/* The kernels' scalar s: 3.0 in STREAM 5.10; stream_mpi 1.8 uses 0.42
 * (its comment: 3.0 overflows after relatively few iterations) and
 * prints it.  The plan carries the one in force (st_plan_t.scalar). */
#define ST_SCALAR 3.0
#define ST_MPI_SCALAR 0.42

/* Command-line values, defaults from the option table (options.c).
 * Pointers point into argv or at the table's default texts. */
typedef struct {
    st_size_arg_t array_size;  /* -s; kind DEFAULT: the build-time default */
    long long ntimes;          /* -n */
    long long offset;          /* -o */
    int type;                  /* st_type_t */
    long long threads;         /* -t; 0 when not given */
    const char *cpunodebind;
    const char *membind;
    const char *interleave;
    int format;                /* mb_format_t */
    const char *output;        /* -O; NULL: stdout */
    const char *counters;      /* NULL: off; "default" or a PAPI list */
    const char *llc;           /* --llc override text */
    const char *kernels;       /* --kernels list */
    int nt_isa;                /* index in ST_NT_ISA_CHOICES (0: auto) */
    int hugepages;             /* st_hugepages_t */
    const char *inject;        /* NULL or "a" | "b" | "c" | "dot" */
    bool allow_small;          /* accepted, no effect: an explicit size always runs */
    bool strict;               /* refuse a size under the 4x LLC rule (exit 2) */
    bool nt_stores;
    bool plan;                 /* --plan: print the plan (format text or json) and exit */
    bool quiet;
    bool help;
    bool version;
} st_options_t;

/* How the arrays are shared among cooperating processes (stream_mpi).
 * stream plans without one (NULL): the run is one process.
 *   aggregate mode: the element count is the aggregate; rank r holds the
 *     block st_static_chunk(n_total, r, ranks) (the first n_total % ranks
 *     ranks hold one element more);
 *   star mode: every rank holds the full element count (StarSTREAM).
 * The 4x LLC rule and the memory fit are checked against this host's
 * share: the elements of all ranks that run on it. */
typedef struct {
    int ranks;                 /* processes in the run (>= 1) */
    int rank;                  /* this process, 0..ranks-1 */
    int host_ranks;            /* processes on this host, itself included */
    const int *host_rank_ids;  /* their ranks (host_ranks entries) */
    bool star;                 /* every rank runs the full size */
} st_split_t;

struct st_nt_isa;

/* The resolved plan.  Sizes in bytes are overflow-checked. */
typedef struct {
    st_type_t type;
    size_t elem_bytes;          /* 4 or 8 */
    size_t n;                   /* elements per array (this process's part under a split) */
    size_t n_total;             /* aggregate elements over all ranks (== n without a split) */
    size_t host_n;              /* elements per array of all ranks on this host (== n without a split) */
    int ranks;                  /* 1 without a split */
    int rank;                   /* 0 without a split */
    bool star;                  /* split: every rank runs the full size */
    size_t offset;              /* elements between arrays */
    int ntimes;
    double scalar;              /* ST_SCALAR, or ST_MPI_SCALAR under a split */
    st_size_source_t size_source;
    bool size_raised;           /* the default was under the rule and raised to it */
    size_t array_bytes;         /* n * elem_bytes (STREAM's "Memory per array") */
    size_t stride_bytes;        /* (n + offset) * elem_bytes: distance between arrays */
    size_t total_bytes;         /* 3 * stride_bytes: what is allocated */
    size_t min_array_bytes;     /* 4 x LLC; 0 when the LLC is unknown */
    size_t mem_available_bytes; /* 0 when unknown */
    mb_llc_t llc;

    size_t nkernels;
    int kernel[ST_MAX_KERNELS]; /* st_kernel_id_t, in run order */
    bool standard_kernels;      /* exactly copy,scale,add,triad */

    int threads;                /* threads OpenMP will use */
    bool threads_given;         /* -t was given */
    bool threads_set;           /* main must call omp_set_num_threads(threads) */
    int allowed_cpus;

    bool nt;                    /* non-temporal store kernels */
    const struct st_nt_isa *nt_isa;
    bool nt_auto;               /* --nt-isa auto: chosen by measurement (ntpick.c) */
    st_hugepages_t hugepages;
    char hugepages_name[16];    /* its choice name, for the result */

    mb_numa_request_t numa;
    bool numa_requested;

    mb_format_t format;
    const char *output;
    const char *counters;       /* NULL: no per-kernel hardware counters */
    int inject;                 /* -1: none; 0..2 array a/b/c; 3: dot */

    /* "standard" | "tuned" | "not-standard" and why */
    const char *label;
    bool tuned;
    size_t nreasons;
    char reasons[8][512];       /* 512: a size-rule message (mb_rule_t.message) fits */
    size_t nnotes;
    char notes[2][512];         /* warnings that leave the label alone (a default size
                                 * raised to the rule, clamped to memory) */
    unsigned reason_tuning;     /* bit i: reasons[i] is a deliberate tuning */
    char tuned_line[256];       /* the text line printed in tuned mode */

    /* what the checks found, for --plan (docs/plan.schema.json) */
    const char *refused_by;     /* NULL, or the check that refused ("size_rule", "memory", ...) */
    bool rule_checked;          /* the 4x LLC rule ran (no earlier refusal) */
    mb_rule_t rule;             /* its verdict */
    char rule_subject[96];      /* what it measured ("each array") */
    size_t rule_bytes;          /* those bytes */
    mb_fit_t fit;               /* the memory fit */
    size_t need_bytes;          /* bytes this host's arrays need */
    char fit_msg[512];          /* mb_fits_in_memory's refusal text */
} st_plan_t;

#endif
