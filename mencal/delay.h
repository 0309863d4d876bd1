/* delay: a calibrated busy wait, the pause a `loaded` traffic thread
 * takes between two batches of cache lines.
 *
 * The wait is a loop of register-only iterations (no memory access, no
 * system call, no `pause`, whose cost varies 10x between cores), timed
 * once against the monotonic clock: iterations per ns is the best of
 * several timed runs of about 2 ms each.  A delay in ns then becomes a
 * fixed iteration count, so it holds while the core's clock holds; the
 * calibration is recorded with the result (a clock that changes under
 * load changes the real pause, which is why `loaded` reports the
 * bandwidth it measured, never one inferred from the delay). */
#ifndef MC_DELAY_H
#define MC_DELAY_H

#include <stdint.h>

typedef struct {
    double iters_per_ns;   /* loop iterations per nanosecond */
    double trial_ns;       /* length of the best timed trial */
    int trials;
} mc_delay_cal_t;

/* Times the loop on the calling thread.  0, or -EIO when the clock did
 * not advance (iters_per_ns stays 0). */
int mc_delay_calibrate(mc_delay_cal_t *cal);
/* Iterations for `ns` nanoseconds (0 for ns <= 0). */
uint64_t mc_delay_iters(const mc_delay_cal_t *cal, double ns);
/* Spins `iters` iterations. */
void mc_delay_spin(uint64_t iters);

#endif
