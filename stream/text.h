/* text: STREAM 5.10's output, line for line (same lines, order, printf
 * widths, labels and validation texts).  A tuned run adds exactly one
 * line, "*** tuned run: ... ***", after the version block, rows for the
 * extra kernels, and a Dot validation line when Dot ran; a standard run
 * adds nothing. */
#ifndef ST_TEXT_H
#define ST_TEXT_H

#include <stdio.h>

#include "outcome.h"

/* The clock figures STREAM prints: quantum from STREAM's checktick() in
 * whole microseconds (run->quantum_us; 0 means "less than one
 * microsecond", which checktick's microsecond clock never answers on
 * Linux) and the calibration pass in microseconds and in ticks. */
typedef struct {
    int quantum_us;            /* 0 means "less than one microsecond" */
    int test_us;
    int ticks;
} st_ticks_t;

void st_text_ticks(const st_run_t *run, st_ticks_t *t);
/* STREAM's clock block, from "Your <word> granularity..." to the HLINE
 * after the WARNING: word is "clock" (STREAM 5.10) or "timer"
 * (stream_mpi 1.8). */
void st_text_clock_block(const st_run_t *run, const char *word, FILE *f);
int st_text_render(const st_outcome_t *o, FILE *f);
/* What the text format leaves out of STREAM's stdout, on `f` (stderr),
 * only when asked for: the counters block per kernel under --counters, and
 * the THP share obtained under an explicit --hugepages never|madvise.
 * A default run prints nothing here. */
void st_text_extras(const st_outcome_t *o, FILE *f);
/* STREAM's validation lines and the closing HLINE (also stream_mpi's). */
void st_text_validation(const st_validation_t *v, FILE *f);

#endif
