/* plandoc: the plan document, one model rendered as text or JSON
 * (schema memsuite/plan/1, docs/plan.schema.json).
 *
 * A tool's --plan fills an mb_plandoc_t from the checks its real run
 * makes (stream/plan.c, mbw's resource checks, mencal/config.c) and
 * renders it here; this file decides nothing, it only says what the
 * tool decided: the 4x LLC rule's verdict, the memory fit, the threads,
 * the label, and the exit code the run would have from these checks.
 * The tool's own part (kernels, methods, scenarios, sizes, reps) comes
 * through two callbacks, one per format. */
#ifndef MB_PLANDOC_H
#define MB_PLANDOC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "json.h"
#include "report.h"
#include "sizing.h"

#define MB_PLAN_SCHEMA "memsuite/plan/1"
#define MB_PLAN_MAX_LINES 16

/* The memory fit: need <= 90% of MemAvailable (mb_fits_in_memory). */
typedef enum {
    MB_FIT_NOT_CHECKED = 0,    /* an earlier refusal stopped the checks */
    MB_FIT_FITS,
    MB_FIT_REFUSED,            /* the run would refuse, before allocating */
    MB_FIT_UNKNOWN,            /* MemAvailable unreadable: the run allocates unchecked */
} mb_fit_t;

typedef struct mb_plandoc {
    const char *tool;          /* "stream", "mbw", "mencal" */
    int exit_code;             /* what the real run would exit with from these checks */
    const char *refused_by;    /* NULL: the run would proceed; else the check's name */
    const char *refusal;       /* its message (the run's stderr text) */

    /* the 4x LLC rule; rule_checked false: an earlier refusal came first */
    bool rule_checked;
    const mb_rule_t *rule;     /* mb_size_rule's verdict (when checked) */
    const mb_llc_t *llc;       /* NULL: not detected (an earlier refusal) */
    const char *rule_subject;  /* "each array", "the working set" */
    size_t rule_bytes;         /* what the rule measured */
    bool strict;

    /* memory */
    mb_fit_t fit;
    size_t need_bytes;         /* what the run allocates for its arrays */
    size_t available_bytes;    /* MemAvailable; 0 when unknown */
    const char *fit_message;   /* the refusal text, or NULL */

    /* threads: requested 0 = not given; effective 0 = not known */
    int threads_requested;
    int threads_effective;
    int allowed_cpus;          /* 0: not known */
    const char *threads_how;   /* a phrase, or NULL */

    /* the label the run would get; NULL when refused */
    const char *label;
    size_t nreasons;
    const char *reasons[MB_PLAN_MAX_LINES];
    size_t nwarnings;          /* what the run would print as warnings */
    const char *warnings[MB_PLAN_MAX_LINES];

    /* the tool's part: members of the "run" object / its text lines */
    void (*run_json)(mb_json_t *j, const void *ctx);
    void (*run_text)(FILE *f, const void *ctx);
    const void *ctx;
} mb_plandoc_t;

void mb_plandoc_init(mb_plandoc_t *d, const char *tool);
void mb_plandoc_reason(mb_plandoc_t *d, const char *line);
void mb_plandoc_warning(mb_plandoc_t *d, const char *line);
/* A refusal: the check's name ("size_rule", "memory", "numa", ...), the
 * message and the exit code.  The label goes (nothing would run). */
void mb_plandoc_refuse(mb_plandoc_t *d, const char *check, const char *msg, int exit_code);

/* The verdict words used in both formats. */
const char *mb_plandoc_rule_word(const mb_plandoc_t *d);  /* met under refused unchecked not_checked */
const char *mb_plandoc_fit_word(mb_fit_t fit);            /* fits refused unknown not_checked */

/* Renders as text (MB_FMT_TEXT) or JSON (MB_FMT_JSON); 0 or -EIO. */
int mb_plandoc_render(const mb_plandoc_t *d, mb_format_t fmt, FILE *f);

#endif
