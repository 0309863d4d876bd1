/* result: what a scenario produces (metrics, notes, labels, tables,
 * counter deltas, the measured buffer's THP share and placement), and
 * the calls that build it. */
#ifndef MC_RESULT_H
#define MC_RESULT_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

#include "config.h"
#include "counters.h"
#include "numa.h"
#include "report.h"
#include "stats.h"

#define MC_MAX_TABLES 4
#define MC_MAX_NOTES 12

struct mc_scenario;
struct mb_json;

/* A small table of extra results (per thread, per worker, samples, sweep).
 * Cells are numbers (NaN = unavailable, with the column's why) or text. */
typedef struct {
    const char *name;     /* "per_thread" */
    const char *unit;     /* column unit, "" for none */
    bool text;            /* cells are text */
} mc_col_t;

typedef struct {
    const char *name;
    int ncols;
    const mc_col_t *cols;
    bool text_hidden;     /* too many rows for text: JSON and CSV only, text names it */
    size_t nrows, cap;
    double *num;          /* nrows x ncols */
    char (*str)[64];      /* nrows x ncols, text cells */
} mc_table_t;

/* What a scenario produces. */
typedef struct mc_result {
    const struct mc_scenario *sc;
    mb_record_t rec;                          /* name + metrics (+ counters, extra) */
    mb_stats_t stats[MB_REC_MAX_METRICS];     /* storage for metric stats */
    mb_counters_t counters;          /* deltas over the measured regions */
    mb_counters_t counters_base;     /* snapshot at mc_counters_begin */
    bool counters_used;
    int status;                               /* 0 ok, else exit code (1, 3, 4) */
    bool complete;                            /* false: interrupted */
    bool skipped;
    char why[256];                            /* failure/skip reason */
    size_t nnotes;
    char notes[MC_MAX_NOTES][1024];           /* warnings found while running (as long as alloc's) */
    size_t nlabels;
    char labels[4][160];                      /* reasons the figure is not standard */
    size_t ntables;
    mc_table_t tables[MC_MAX_TABLES];
    /* the measured buffer */
    size_t buffer_bytes;
    bool thp_known;
    double thp_share;                         /* AnonHugePages / Rss of the mapping */
    size_t thp_bytes, rss_bytes;
    char thp_why[160];
    mb_numa_placement_t placement;
    bool placement_done;
    /* owned allocations (freed by mc_result_free) */
    size_t nowned;
    void *owned[32];
} mc_result_t;

/* Appends a formatted line to lines[cap][width] (counted by *n) unless
 * full: the notes, labels and warnings of results and configurations. */
void mc_lines_add(char *lines, size_t width, size_t cap, size_t *n, const char *fmt, va_list ap)
    __attribute__((format(printf, 5, 0)));
void mc_result_init(mc_result_t *res, const struct mc_scenario *sc);
void mc_result_free(mc_result_t *res);
void mc_result_note(mc_result_t *res, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void mc_result_label(mc_result_t *res, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int mc_result_fail(mc_result_t *res, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Metric whose value is the median of samples, with stats and a copy of
 * the samples.  n == 0 makes it unavailable with `why_empty`. */
mb_metric_t *mc_metric_samples(mc_result_t *res, const char *name, const char *unit,
                               const double *samples, size_t n, const char *why_empty);
mb_metric_t *mc_metric(mc_result_t *res, const char *name, const char *unit, double v);
mb_metric_t *mc_metric_na(mc_result_t *res, const char *name, const char *unit, const char *why);
/* A copy of s kept until mc_result_free (for metric reasons). */
const char *mc_result_keep(mc_result_t *res, const char *s);
void *mc_result_alloc(mc_result_t *res, size_t bytes);   /* zeroed, owned */
/* Tables. */
mc_table_t *mc_table_new(mc_result_t *res, const char *name, const mc_col_t *cols, int ncols);
/* Appends a row; returns its index or -1 (ENOMEM). */
long mc_table_row(mc_table_t *t);
void mc_table_num(mc_table_t *t, long row, int col, double v);
void mc_table_str(mc_table_t *t, long row, int col, const char *s);
/* Counters around a measured region: deltas of the process-wide set are
 * added to res->counters (and res->rec.counters points at them). */
void mc_counters_begin(mc_result_t *res, const mc_config_t *cfg);
/* Thread t of the current team joins the process-wide set (its own event
 * set); every thread calls it before the barrier that precedes begin. */
void mc_counters_join(const mc_config_t *cfg, int t);
/* Adds a set counted apart (concurrent's workers, one set per round). */
void mc_counters_add(mc_result_t *res, const mb_counters_t *round);
void mc_counters_end(mc_result_t *res, const mc_config_t *cfg);
/* The bytes the scenario moved in its counted regions (64 per line loaded
 * or stored), for the counters' per-byte rates (LLC misses per kB, bytes
 * per cycle).  Call before rendering; nothing without counters. */
void mc_result_counter_bytes(mc_result_t *res, double bytes);
/* IPC, per-load ratios from the counters (or unavailable with the reason). */
void mc_result_counter_metrics(mc_result_t *res, double loads, const char *load_what);
/* JSON members written inside the record (rec.extra). */
void mc_result_json_extra(struct mb_json *j, const void *ctx);
/* JSON helpers: a count, or null with why when it is 0 (unknown); an
 * array of ints. */
void mc_json_uint_or(struct mb_json *j, const char *key, size_t v, const char *why);
void mc_json_ints(struct mb_json *j, const char *key, const int *v, int n);

#endif
