/* trafficcal: the kernel calibration (kcalib.h) of one traffic kernel
 * (traffic.h) on a thread team: sweep's read, write and copy at the top
 * of the mountain, loaded's traffic threads over their own slices.
 *
 * Each thread takes its slice of the buffer (first touch by that thread,
 * as the run does), a probe times the default variant to size the trials,
 * then every variant the CPU runs moves MC_KCAL_TRIALS chunks, alternating
 * between variants, each chunk the next lines of the slice (wrapping), so
 * a trial at a DRAM size reads lines no earlier trial left in the caches.
 * Bytes are STREAM counting; a trial is timed from one barrier to the
 * next by the master. */
#ifndef MC_TRAFFICCAL_H
#define MC_TRAFFICCAL_H

#include "config.h"
#include "kcalib.h"
#include "traffic.h"

/* kc: initialised for spec's family (mc_kcal_init).  The run it is planned
 * against lasts about run_s.  Forced, --kernel-calibration 0 or a slice
 * too small to time: only the plan (the note's budget), nothing runs.
 * 0, or -ENOMEM (nothing ran, the default stays). */
int mc_traffic_calibrate(const mc_config_t *cfg1, const mc_traffic_spec_t *spec, void *buf,
                         size_t bytes, double run_s, mc_kcal_t *kc);

/* The lines of each trial of the later passes, so that the calibration
 * keeps to kc->budget_s: after the first pass (every variant once, in
 * first_pass_ns, its fastest trial fastest_ns, kc->took_s spent so far)
 * the MC_KCAL_TRIALS - 1 later passes get what is left, never a trial
 * under MC_KCAL_MIN_TRIAL_NS at the fastest trial's rate.  Returns lines
 * unchanged when they fit; sets kc->later_share when it shortens them. */
size_t mc_kcal_fit_later(mc_kcal_t *kc, size_t lines, double first_pass_ns, double fastest_ns);

#endif
