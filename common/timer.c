/* timer: CLOCK_MONOTONIC in nanoseconds and its observed granularity. */
#include "timer.h"

#include <sys/time.h>
#include <time.h>

#define MB_NS_PER_S 1000000000ull
#define MB_GRANULARITY_DEFAULT_TRIALS 20
#define MB_CHECKTICK_SAMPLES 20       /* STREAM's M */

uint64_t mb_now_ns(void)
{
    struct timespec ts;
    /* CLOCK_MONOTONIC cannot fail on Linux with a valid pointer. */
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * MB_NS_PER_S + (uint64_t)ts.tv_nsec;
}

double mb_now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

uint64_t mb_timer_granularity_ns(int trials)
{
    if (trials <= 0)
        trials = MB_GRANULARITY_DEFAULT_TRIALS;
    uint64_t best_ns = UINT64_MAX;
    for (int t = 0; t < trials; t++) {
        uint64_t t0_ns = mb_now_ns(), t1_ns;
        /* Spin until the reading changes: the step is one tick. */
        do {
            t1_ns = mb_now_ns();
        } while (t1_ns == t0_ns);
        uint64_t delta_ns = t1_ns - t0_ns;
        if (delta_ns < best_ns)
            best_ns = delta_ns;
    }
    return best_ns;
}

/* gettimeofday in whole microseconds: STREAM's mysecond() without the
 * rounding of a double holding seconds since 1970. */
static int64_t wall_us(void)
{
    struct timeval tv;
    gettimeofday(&tv, NULL);
    return (int64_t)tv.tv_sec * 1000000 + (int64_t)tv.tv_usec;
}

int mb_timer_checktick_us(void)
{
    int64_t found[MB_CHECKTICK_SAMPLES];
    for (int i = 0; i < MB_CHECKTICK_SAMPLES; i++) {
        int64_t t1 = wall_us(), t2;
        while ((t2 = wall_us()) - t1 < 1)
            ;
        found[i] = t2;
    }
    int64_t min_delta = 1000000;  /* STREAM's starting minimum, 1 s */
    for (int i = 1; i < MB_CHECKTICK_SAMPLES; i++) {
        int64_t d = found[i] - found[i - 1];
        if (d < 0)
            d = 0;                 /* a wall clock stepped back: STREAM's MAX(Delta, 0) */
        if (d < min_delta)
            min_delta = d;
    }
    return (int)min_delta;
}
