/* delay: the calibrated busy wait (contract in delay.h). */
#include <errno.h>

#include "delay.h"
#include "timer.h"

#define TRIAL_ITERS 4000000ULL   /* about 1-4 ms on a 1-4 GHz core */
#define TRIALS 5

__attribute__((noinline)) void mc_delay_spin(uint64_t iters)
{
    for (uint64_t i = 0; i < iters; i++)
        __asm__ volatile("" : "+r"(i));   /* one register dependency per iteration */
}

int mc_delay_calibrate(mc_delay_cal_t *cal)
{
    cal->iters_per_ns = 0;
    cal->trial_ns = 0;
    cal->trials = TRIALS;
    double best = 0;
    mc_delay_spin(TRIAL_ITERS / 4);   /* warm-up: the clock ramps, the loop is in cache */
    for (int i = 0; i < TRIALS; i++) {
        uint64_t t0 = mb_now_ns();
        mc_delay_spin(TRIAL_ITERS);
        uint64_t dt = mb_now_ns() - t0;
        if (dt == 0)
            continue;
        double rate = (double)TRIAL_ITERS / (double)dt;
        if (rate > best) {
            best = rate;
            cal->trial_ns = (double)dt;
        }
    }
    cal->iters_per_ns = best;
    return best > 0 ? 0 : -EIO;
}

uint64_t mc_delay_iters(const mc_delay_cal_t *cal, double ns)
{
    if (!(ns > 0) || !(cal->iters_per_ns > 0))
        return 0;
    double n = ns * cal->iters_per_ns + 0.5;
    return n >= 1.8e19 ? UINT64_MAX : (uint64_t)n;
}
