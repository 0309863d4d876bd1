/* timer: monotonic clock in nanoseconds and its observed granularity. */
#ifndef MB_TIMER_H
#define MB_TIMER_H

#include <stdint.h>

/* CLOCK_MONOTONIC in ns since an arbitrary epoch. */
uint64_t mb_now_ns(void);
/* The same clock in seconds (double). */
double mb_now_s(void);
/* Smallest non-zero difference between successive readings, in ns,
 * the minimum over `trials` attempts (STREAM's checktick, in ns). */
uint64_t mb_timer_granularity_ns(int trials);

#endif
