/* stability: a long read-modify-write loop over a large buffer, its
 * bandwidth sampled every --interval seconds by a sampler thread that
 * reads the workers' byte counters (atomics).  Each sample also records
 * the reclaim, swap, THP and compaction counters of /proc/vmstat, so a
 * drop can be matched with its cause.  Reported: min/median/max, drift
 * (median of the first third vs the last third, %), slope, and every
 * sample with its timestamp. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <omp.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>

#include "buffer.h"
#include "cpufreq.h"
#include "exitcodes.h"
#include "json.h"
#include "log.h"
#include "scenario.h"
#include "team.h"
#include "timer.h"
#include "vmstat.h"

/* --iterations, --interval, --duration (shared with concurrent) and the
 * length of the run they give. */
typedef struct {
    long long iterations_opt;
    double interval_s;
    double duration_s;
    int iterations;            /* samples to take */
    bool short_profile;        /* `run all` short profile in effect */
    char how[160];
} stability_conf_t;

#define OFF(f) offsetof(stability_conf_t, f)
static const mb_opt_t stability_opts[] = {
    { .long_name = "iterations", .type = MB_OPT_INT, .offset = OFF(iterations_opt), .min = 1,
      .max = 1000000, .metavar = "N", .def = "30", .def_text = "30 (10 under 'run all')",
      .help = "stability: samples to take" },
    { .long_name = "interval", .type = MB_OPT_DOUBLE, .offset = OFF(interval_s), .dmin = 0.01,
      .dmax = 86400, .metavar = "SECONDS", .def = "10", .def_text = "10 (1 under 'run all')",
      .help = "stability: time between bandwidth samples" },
    MC_OPT_DURATION(stability_conf_t, duration_s),
};
#undef OFF

/* Samples x interval, or --duration / --interval; `run all` without any
 * of the three takes a short profile. */
static int stability_resolve(void *conf, mc_config_t *cfg, char *msg, size_t msglen)
{
    stability_conf_t *c = conf;
    const bool it = mc_opt_seen(cfg, "iterations"), iv = mc_opt_seen(cfg, "interval"),
               du = mc_opt_seen(cfg, "duration");
    const bool selected = mc_run_selects(cfg, "stability");
    /* --duration has a use beside --iterations only when concurrent runs too */
    if (selected && !mc_run_selects(cfg, "concurrent") && du && it) {
        snprintf(msg, msglen, "stability: --duration and --iterations both set the run length; "
                 "give --iterations N (with --interval) or --duration S (with --interval), not "
                 "both");
        return MB_EXIT_USAGE;
    }
    /* One long run sampled every --interval: its figures are already
     * statistics over the samples, so repetitions of the whole do not apply. */
    if (selected && mc_opt_seen(cfg, "reps") && cfg->reps > 1) {
        if (!cfg->running_all) {
            snprintf(msg, msglen, "stability: --reps %d does not apply: it is one long run whose "
                     "figures are the median, min and max over its samples; set their number "
                     "with --iterations (or --duration)", cfg->reps);
            return MB_EXIT_USAGE;
        }
        mc_config_record(cfg, "stability: --reps does not apply to it (one long run; its "
                              "figures are statistics over the samples)");
    }
    c->iterations = (int)c->iterations_opt;
    /* --duration without --interval: an interval that fits (10 samples)
     * when the default 10 s would not ('run all --duration 2') */
    if (du && !it && !iv && c->interval_s > c->duration_s)
        c->interval_s = c->duration_s / 10;
    if (cfg->running_all && !it && !iv && !du) {
        c->short_profile = true;
        c->iterations = 10;
        c->interval_s = 1;
        snprintf(c->how, sizeof c->how,
                 "short profile under 'run all': 10 samples x 1 s; pass --iterations/--interval "
                 "for the full 30 x 10 s run");
        char line[200];
        snprintf(line, sizeof line, "stability: %s", c->how);
        if (selected)
            mc_config_record(cfg, line);
    } else if (du && !it && selected) {
        if (c->interval_s > c->duration_s) {
            snprintf(msg, msglen, "--interval %g is longer than the run (--duration %g): no sample "
                     "would be taken; use an interval of at most %g s", c->interval_s,
                     c->duration_s, c->duration_s);
            return MB_EXIT_USAGE;
        }
        c->iterations = (int)floor(c->duration_s / c->interval_s);
        snprintf(c->how, sizeof c->how, "--duration %g s / --interval %g s = %d samples",
                 c->duration_s, c->interval_s, c->iterations);
    } else {
        if (selected && du && it && c->interval_s > c->duration_s) {
            snprintf(msg, msglen, "--interval %g is longer than the run (--duration %g)",
                     c->interval_s, c->duration_s);
            return MB_EXIT_USAGE;
        }
        snprintf(c->how, sizeof c->how, "%d samples x %g s", c->iterations, c->interval_s);
    }
    return 0;
}

static void stability_json(mb_json_t *j, const void *conf)
{
    const stability_conf_t *c = conf;
    mb_json_int(j, "iterations", c->iterations);
    mb_json_number(j, "interval_s", c->interval_s);
    mb_json_bool(j, "short_profile", c->short_profile);
    mb_json_string(j, "how", c->how);
}

static void stability_plan(FILE *f, const void *conf)
{
    const stability_conf_t *c = conf;
    fprintf(f, "stability: %d x %g s (%s)\n", c->iterations, c->interval_s, c->how);
}

#define CHUNK_WORDS (128u * 1024u)   /* 1 MiB between counter updates */
#define MC_THROTTLE_PCT 10.0         /* a frequency drop beyond this (%) is a warning */

typedef struct {
    _Alignas(64) _Atomic uint64_t bytes;
} counter_t;

typedef struct {
    const mc_config_t *cfg;
    const stability_conf_t *conf;
    counter_t *ctr;
    int nt;
    _Atomic int stop;
    uint64_t t0;
    int n;                              /* samples taken */
    double *t_s, *unix_s, *gbps;
    long long (*vm)[MC_VMSTAT_KEYS];    /* deltas per sample, -1 unknown */
    mb_freq_sample_t *freq;             /* [0] before the run, [k + 1] with sample k */
    bool vm_ok;
    char vm_why[256];
    bool interrupted;
} stab_t;

static uint64_t total_bytes(const stab_t *s)
{
    uint64_t b = 0;
    for (int t = 0; t < s->nt; t++)
        b += atomic_load_explicit(&s->ctr[t].bytes, memory_order_relaxed);
    return b;
}

static double unix_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void *sampler(void *arg)
{
    stab_t *s = arg;
    const mc_config_t *cfg = s->cfg;
    long long prev_vm[MC_VMSTAT_KEYS], vm[MC_VMSTAT_KEYS];
    s->vm_ok = mc_vmstat_read(prev_vm, s->vm_why, sizeof s->vm_why) == 0;
    mb_freq_sample(&s->freq[0]);
    uint64_t prev_b = total_bytes(s), prev_t = s->t0;
    const uint64_t step = (uint64_t)(s->conf->interval_s * 1e9);
    for (int i = 1; i <= s->conf->iterations; i++) {
        uint64_t deadline = s->t0 + step * (uint64_t)i, now;
        while ((now = mb_now_ns()) < deadline) {
            if (*cfg->stop) {
                s->interrupted = true;
                goto out;
            }
            uint64_t left = deadline - now, nap = left < 50000000ULL ? left : 50000000ULL;
            struct timespec ts = { 0, (long)nap };
            nanosleep(&ts, NULL);
        }
        uint64_t b = total_bytes(s);
        now = mb_now_ns();
        int k = s->n;
        s->t_s[k] = (double)(now - s->t0) * 1e-9;
        s->unix_s[k] = unix_now();
        s->gbps[k] = (double)(b - prev_b) / (double)(now - prev_t);   /* bytes/ns = GB/s */
        if (s->vm_ok && mc_vmstat_read(vm, s->vm_why, sizeof s->vm_why) == 0) {
            for (int j = 0; j < MC_VMSTAT_KEYS; j++)
                s->vm[k][j] = vm[j] >= 0 && prev_vm[j] >= 0 ? vm[j] - prev_vm[j] : -1;
            memcpy(prev_vm, vm, sizeof vm);
        } else {
            s->vm_ok = false;
            for (int j = 0; j < MC_VMSTAT_KEYS; j++)
                s->vm[k][j] = -1;
        }
        mb_freq_sample(&s->freq[k + 1]);
        prev_b = b, prev_t = now;
        s->n = k + 1;
        /* progress, silenced by --quiet: how far a long profile is */
        mb_note("stability: sample %d of %d (%.2f s): %.2f GB/s", k + 1, s->conf->iterations,
                s->t_s[k], s->gbps[k]);
    }
out:
    atomic_store(&s->stop, 1);
    return NULL;
}

/* one pass over a slice, read-modify-write, publishing bytes per chunk */
static bool rmw_pass(uint64_t *w, size_t words, counter_t *c, _Atomic int *stop)
{
    for (size_t off = 0; off < words; off += CHUNK_WORDS) {
        size_t n = words - off < CHUNK_WORDS ? words - off : CHUNK_WORDS;
        uint64_t *p = w + off;
#pragma omp simd
        for (size_t i = 0; i < n; i++)
            p[i] += 1;
        atomic_fetch_add_explicit(&c->bytes, 2 * n * sizeof(uint64_t), memory_order_relaxed);
        if (atomic_load_explicit(stop, memory_order_relaxed))
            return false;
    }
    return true;
}

static const mc_col_t sample_cols[] = {
    { "sample", "", false },
    { "t", "s", false },
    { "unix_time", "s", false },
    { "rw_bandwidth", "GB/s", false },
    { "read_bandwidth", "GB/s", false },
    { "cpu_mhz", "MHz", false },
    { "throttle_count", "", false },
    { "pgscan_kswapd", "pages", false },
    { "pgscan_direct", "pages", false },
    { "pgsteal_kswapd", "pages", false },
    { "pgsteal_direct", "pages", false },
    { "pswpin", "pages", false },
    { "pswpout", "pages", false },
    { "pgmajfault", "", false },
    { "thp_fault_alloc", "", false },
    { "thp_fault_fallback", "", false },
    { "compact_stall", "", false },
    { "numa_pages_migrated", "pages", false },
};
#define SAMPLE_FIXED_COLS 7   /* sample .. throttle_count, then the vmstat keys */
_Static_assert(sizeof sample_cols / sizeof sample_cols[0] == SAMPLE_FIXED_COLS + MC_VMSTAT_KEYS,
               "one column per vmstat key");

static double slope_per_min(const double *t, const double *v, int n)
{
    double mt = 0, mv = 0, sxy = 0, sxx = 0;
    for (int i = 0; i < n; i++)
        mt += t[i], mv += v[i];
    mt /= n, mv /= n;
    for (int i = 0; i < n; i++) {
        sxy += (t[i] - mt) * (v[i] - mv);
        sxx += (t[i] - mt) * (t[i] - mt);
    }
    return sxx > 0 ? sxy / sxx * 60.0 : NAN;
}

static int stability_run(const mc_config_t *cfg, const void *conf, mc_result_t *res)
{
    const stability_conf_t *sc = conf;
    const int nt = cfg->nthreads, ns = sc->iterations;
    const size_t slice = mc_slice_bytes(cfg->size_bytes, nt, 4096);
    const size_t words = slice / sizeof(uint64_t), total = slice * (size_t)nt;
    char why[256];
    void *buf;
    if (mc_buffer_alloc(cfg, total, &buf, why, sizeof why) != 0)
        return mc_result_fail(res, MB_EXIT_RESOURCE, "%s", why);
    stab_t s = { .cfg = cfg, .conf = sc, .nt = nt };
    s.ctr = aligned_alloc(64, sizeof(counter_t) * (size_t)nt);
    s.t_s = calloc((size_t)ns, sizeof *s.t_s);
    s.unix_s = calloc((size_t)ns, sizeof *s.unix_s);
    s.gbps = calloc((size_t)ns, sizeof *s.gbps);
    s.vm = calloc((size_t)ns, sizeof *s.vm);
    s.freq = calloc((size_t)ns + 1, sizeof *s.freq);
    if (!s.ctr || !s.t_s || !s.unix_s || !s.gbps || !s.vm || !s.freq) {
        free(s.ctr), free(s.t_s), free(s.unix_s), free(s.gbps), free(s.vm), free(s.freq);
        mc_buffer_free(cfg, buf, total);
        return mc_result_fail(res, MB_EXIT_RESOURCE, "out of memory for %d samples", ns);
    }
    for (int t = 0; t < nt; t++)
        atomic_init(&s.ctr[t].bytes, 0);
    atomic_init(&s.stop, 0);
    pthread_t th;
    int thread_rc = 0;
    uint64_t passes_total = 0;

#pragma omp parallel num_threads(nt) reduction(+ : passes_total)
    {
        int t = omp_get_thread_num();
        mc_pin_self(cfg->cpu[t]);
        uint64_t *w = (uint64_t *)((char *)buf + (size_t)t * slice);
        memset(w, 0, slice);   /* first touch by the owner, outside the sampled time */
        mc_counters_join(cfg, t);
#pragma omp barrier
#pragma omp master
        {
            mc_counters_begin(res, cfg);
            s.t0 = mb_now_ns();
            thread_rc = pthread_create(&th, NULL, sampler, &s);
            if (thread_rc)
                atomic_store(&s.stop, 1);
        }
#pragma omp barrier
        while (rmw_pass(w, words, &s.ctr[t], &s.stop))
            passes_total++;
#pragma omp barrier
#pragma omp master
        {
            if (!thread_rc)
                pthread_join(th, NULL);
            mc_counters_end(res, cfg);
        }
    }
    mc_buffer_finish(res, cfg, buf, total);
    if (thread_rc) {
        free(s.ctr), free(s.t_s), free(s.unix_s), free(s.gbps), free(s.vm), free(s.freq);
        return mc_result_fail(res, MB_EXIT_RESOURCE, "cannot start the sampler thread: %s", strerror(thread_rc));
    }
    if (s.interrupted)
        res->complete = false;

    const int n = s.n;
    const char *none = s.interrupted ? "interrupted before the first sample" : "no sample taken";
    /* The loop reads and writes every word: rw_bandwidth counts both (16
     * bytes per 8-byte element); read_bandwidth the read bytes only, the
     * convention of seqread (each byte read counted once). */
    res->rec.headline = "rw_bandwidth";
    mc_metric_samples(res, "rw_bandwidth", "GB/s", s.gbps, (size_t)n, none);
    double *rd = calloc((size_t)(n ? n : 1), sizeof *rd);
    for (int i = 0; rd && i < n; i++)
        rd[i] = s.gbps[i] / 2;
    mc_metric_samples(res, "read_bandwidth", "GB/s", rd, rd ? (size_t)n : 0, none);
    free(rd);
    if (n >= 3) {
        int third = n / 3;
        double a = mb_median(s.gbps, (size_t)third), b = mb_median(s.gbps + n - third, (size_t)third);
        mc_metric(res, "drift", "%", a > 0 ? (b - a) / a * 100.0 : NAN);
    } else {
        mc_metric_na(res, "drift", "%", "needs at least 3 samples (median of first vs last third)");
    }
    if (n >= 2)
        mc_metric(res, "slope", "GB/s per min", slope_per_min(s.t_s, s.gbps, n));
    else
        mc_metric_na(res, "slope", "GB/s per min", "needs at least 2 samples");
    mc_metric(res, "samples", "", n);
    mb_metric_better(mc_metric(res, "interval", "s", sc->interval_s), MB_BETTER_NONE);   /* a setting */
    mc_metric(res, "passes", "", (double)passes_total / nt);
    if (s.vm_ok) {
        long long scan = 0, swp = 0;
        for (int i = 0; i < n; i++) {
            scan += (s.vm[i][0] > 0 ? s.vm[i][0] : 0) + (s.vm[i][1] > 0 ? s.vm[i][1] : 0);
            swp += s.vm[i][5] > 0 ? s.vm[i][5] : 0;
        }
        mc_metric(res, "pages_scanned", "pages", (double)scan);
        mc_metric(res, "pages_swapped_out", "pages", (double)swp);
    } else {
        const char *w = mc_result_keep(res, s.vm_why[0] ? s.vm_why : "vmstat unreadable");
        mc_metric_na(res, "pages_scanned", "pages", w);
        mc_metric_na(res, "pages_swapped_out", "pages", w);
    }
    /* Throttling watch: the frequency before the run and at each sample. */
    mb_freq_verdict_t fv;
    mb_freq_verdict(s.freq, n + 1, MC_THROTTLE_PCT, &fv);
    if (fv.status == MB_FREQ_UNAVAILABLE)
        mc_metric_na(res, "frequency_drop", "%", mc_result_keep(res, fv.text));
    else
        mb_metric_better(mc_metric(res, "frequency_drop", "%", fv.drop_pct), MB_BETTER_LOWER);
    mc_result_note(res, "%sthrottling watch (sample 1 is before the run, sample k+1 with "
                   "bandwidth sample k): %s", fv.status == MB_FREQ_WARN ? "WARNING: " : "",
                   fv.text);
    mc_table_t *tab = mc_table_new(res, "samples", sample_cols, SAMPLE_FIXED_COLS + MC_VMSTAT_KEYS);
    for (int i = 0; i < n; i++) {
        const mb_freq_sample_t *fq = &s.freq[i + 1];
        long row = mc_table_row(tab);
        mc_table_num(tab, row, 0, i + 1);
        mc_table_num(tab, row, 1, s.t_s[i]);
        mc_table_num(tab, row, 2, s.unix_s[i]);
        mc_table_num(tab, row, 3, s.gbps[i]);
        mc_table_num(tab, row, 4, s.gbps[i] / 2);
        if (fq->freq_ok)
            mc_table_num(tab, row, 5, fq->mhz);
        else
            mc_table_str(tab, row, 5, "no cpufreq scaling_cur_freq and no cpu MHz in cpuinfo");
        if (fq->throttle_ok)
            mc_table_num(tab, row, 6, (double)fq->throttle_count);
        else
            mc_table_str(tab, row, 6, "no thermal_throttle counters");
        for (int j = 0; j < MC_VMSTAT_KEYS; j++) {
            if (s.vm[i][j] >= 0) {
                mc_table_num(tab, row, SAMPLE_FIXED_COLS + j, (double)s.vm[i][j]);
            } else {
                mc_table_str(tab, row, SAMPLE_FIXED_COLS + j,
                             s.vm_ok ? "not in this kernel's vmstat" : s.vm_why);
            }
        }
    }
    mc_result_note(res, "%s; read-modify-write passes over %s per thread; rw_bandwidth counts "
                   "read + write bytes (16 per 8-byte word), read_bandwidth the read bytes only "
                   "(seqread's convention); vmstat columns are deltas per interval",
                   sc->how, mb_format_bytes(slice, why, sizeof why));
    free(s.ctr), free(s.t_s), free(s.unix_s), free(s.gbps), free(s.vm), free(s.freq);
    return 0;
}

const mc_scenario_t mc_sc_stability = {
    .name = "stability",
    .summary = "long loop over a large buffer, bandwidth sampled every --interval (drift, slope)",
    MC_SCENARIO_OPTIONS(stability_opts, stability_conf_t),
    .resolve = stability_resolve,
    .config_json = stability_json,
    .plan = stability_plan,
    .run = stability_run,
};
