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

/* STREAM 5.10's checktick(), the figure its "clock granularity" line
 * prints: STREAM reads a microsecond wall clock (gettimeofday); 20 times
 * it takes a reading and spins until the clock has advanced by at least
 * 1 us, keeping the reading that ended the spin; it returns the smallest
 * difference between successive kept readings, in whole microseconds.
 * Read in integer microseconds here, so the answer is >= 1 on any clock
 * that advances (1 on Linux), and never the "less than one microsecond"
 * of a nanosecond clock.  stream_mpi 1.8 does the same with MPI_Wtime. */
int mb_timer_checktick_us(void);

#endif
