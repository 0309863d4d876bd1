/* report: one result model, rendered as JSON, CSV or a generic text
 * table (result files are written through outfile.h).
 *
 * Tools fill an mb_result_t (borrowing their data; nothing is copied) and
 * call mb_report_render().  STREAM/mbw compatible text is the tools' own
 * business; the generic text table is for the extended tools.
 * JSON document: schema "memsuite/result/2", described by
 * docs/result.schema.json (version 1, docs/result-v1.schema.json, is what
 * earlier versions wrote: the same document without a record's headline
 * and a metric's base_unit, scale and better). */
#ifndef MB_REPORT_H
#define MB_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "affinity.h"
#include "counters.h"
#include "json.h"
#include "numa.h"
#include "sizing.h"
#include "stats.h"
#include "sysinfo.h"
#include "units.h"

#define MB_RESULT_SCHEMA "memsuite/result/2"
#define MB_REC_MAX_METRICS 24
#define MB_MAX_WARNINGS 16

typedef enum { MB_FMT_TEXT = 0, MB_FMT_JSON, MB_FMT_CSV } mb_format_t;
/* The names in mb_format_t order: an option table's CHOICE list, whose
 * index is then the mb_format_t. */
#define MB_FORMAT_CHOICES "text|json|csv"
/* "text" | "json" | "csv" -> 0, else -EINVAL. */
int mb_format_parse(const char *s, mb_format_t *out);

typedef struct {
    const char *name;          /* "best_rate_mbps", "median_time_s" ...; the schema
                                  accepts [A-Za-z0-9][A-Za-z0-9_.:-]* */
    const char *unit;          /* "MB/s", "s", "ns", "bytes", "GB/s": JSON states its
                                  base_unit and scale from units.h's table */
    double value;
    mb_better_t better;        /* DEFAULT: the unit's base quantity decides
                                  (mb_unit_better); set it with mb_metric_better */
    bool available;            /* false: value is null, why explains */
    const char *why;
    const mb_stats_t *stats;   /* optional: rendered as "stats" */
    const double *samples;     /* optional raw samples (borrowed) */
    size_t nsamples;
} mb_metric_t;

struct mb_result;
typedef void (*mb_json_extra_fn)(mb_json_t *j, const void *ctx);

typedef struct {
    const char *name;                       /* "Copy", "MEMCPY", "seqread" */
    /* The name of the record's headline metric, the one figure that stands
     * for it ("best_rate_mbps"), or NULL for a record without one.  The
     * tool names it where it builds the record; JSON writes it only when
     * the record has a metric of that name (an interrupted run may not). */
    const char *headline;
    size_t nmetric;
    mb_metric_t metric[MB_REC_MAX_METRICS];
    const mb_counters_t *counters;          /* optional per-record counters */
    mb_json_extra_fn extra;                 /* optional extra members */
    const void *extra_ctx;
} mb_record_t;

typedef struct mb_result {
    const char *tool;                       /* "stream" */
    const char *label;                      /* "standard" | "tuned" | "not-standard" */
    const char *label_reasons[8];           /* why not standard */
    size_t nlabel_reasons;
    int argc;
    char **argv;
    bool complete;                          /* false: interrupted, partial */
    int hot_loops;                          /* mb_hot_kind_t (common/isa.h): the tool's
                                             * MB_HOT_LOOP code; not NONE: "hot_loops"
                                             * records which body ran */
    bool has_validation;
    bool validated;                         /* only when has_validation */
    mb_json_extra_fn validation_extra;      /* details inside "validation" */
    const void *validation_ctx;
    mb_json_extra_fn config;                /* members of "config" */
    const void *config_ctx;
    mb_record_t *records;
    size_t nrecords;
    const mb_affinity_t *affinity;          /* "threads" */
    const char *numa_policy;                /* "numa": {"policy": ...} */
    const mb_numa_placement_t *placement;   /* "numa": {"placement": ...} */
    const mb_counters_t *counters;          /* whole-run counters/rusage */
    const mb_llc_t *llc;
    const mb_sysinfo_t *sysinfo;
    size_t nwarnings;
    char warnings[MB_MAX_WARNINGS][512];   /* 512: a size-rule message fits */
} mb_result_t;

/* printf-style; silently drops past MB_MAX_WARNINGS. */
void mb_result_warn(mb_result_t *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void mb_result_add_label_reason(mb_result_t *r, const char *reason);
/* Append a metric to a record; returns it (NULL when full). */
mb_metric_t *mb_record_add(mb_record_t *rec, const char *name, const char *unit, double value);
mb_metric_t *mb_record_add_unavailable(mb_record_t *rec, const char *name, const char *unit,
                                       const char *why);
/* Overrides the direction a metric's unit gives it (a CV or an error
 * fraction is LOWER, a calibration time NONE); m may be NULL (a full
 * record), then nothing happens.  Returns m. */
mb_metric_t *mb_metric_better(mb_metric_t *m, mb_better_t b);
/* The metric of rec named name, or NULL. */
const mb_metric_t *mb_record_metric(const mb_record_t *rec, const char *name);

/* JSON: pretty-printed document (layout in docs/result.schema.json);
 * absent optional parts (NULL pointers, has_validation false) are omitted.
 * A NULL label renders as "not-standard" with the reason "the tool set
 * no label".  Metric names must be unique
 * within a record.  Returns 0, -EIO (stream error) or the writer's error. */
int mb_report_json(const mb_result_t *r, FILE *f);
/* CSV header: tool,label,record,metric,unit,value,n,min,median,mean,max,stddev,cv,note,validation
 * One row per metric; n..cv empty without stats; a value that is
 * unavailable or not finite is empty and `note` says why; validation is
 * passed, failed or none (the tool has no validation step).  A failed
 * validation makes the label not-standard in every format, with the
 * reason first in label_reasons.  Fields are
 * quoted per RFC 4180 when needed; lines end in LF. */
int mb_report_csv(const mb_result_t *r, FILE *f);
/* Aligned table: Record Metric Value Unit (+ Median Min Max CV when any
 * metric has stats), then unavailable reasons, validation, completeness,
 * warnings and the label. */
int mb_report_text(const mb_result_t *r, FILE *f);
int mb_report_render(const mb_result_t *r, mb_format_t fmt, FILE *f);
/* Counters as one JSON object under `key`:
 *   "hardware": {"available", "reason" (when not), "events": {NAME: n|null,
 *                NAME_unavailable: why}}  or null + "hardware_unavailable"
 *                when not requested;
 *   "software": {page_faults, context_switches, cpu_migrations,
 *                task_clock_ns} or null + "software_unavailable";
 *   "rusage":   {minflt, majflt, maxrss_kib}. */
void mb_counters_json(const mb_counters_t *c, mb_json_t *j, const char *key);

#endif
