/* timer: CLOCK_MONOTONIC in nanoseconds and its observed granularity. */
#include "timer.h"

#include <time.h>

#define MB_NS_PER_S 1000000000ull
#define MB_GRANULARITY_DEFAULT_TRIALS 20

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
