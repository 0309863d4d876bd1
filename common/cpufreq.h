/* cpufreq: the CPU frequency and thermal-throttle counters, sampled while
 * a long run goes on, and the verdict on a series of samples: a drop of
 * more than a threshold below the first sample, or a throttle count that
 * rose, names the sample (the KeyarchOS mencal study lost a stability run
 * to a CPU that hit its thermal limit).  The one rule: mencal's stability
 * scenario applies it to its samples, and memsuite run to the samples it
 * takes around each cell (memsuite-facts --throttle-verdict FILE).
 *
 * Frequency: the mean of <sysfs>/devices/system/cpu/cpuN/cpufreq/
 * scaling_cur_freq, else of the "cpu MHz" lines of <procfs>/cpuinfo.
 * Throttle: the sum of <sysfs>/devices/system/cpu/cpuN/thermal_throttle/
 * *_throttle_count.  Paths honour MEMSUITE_SYSFS / MEMSUITE_PROCFS. */
#ifndef MB_CPUFREQ_H
#define MB_CPUFREQ_H

#include <stdbool.h>
#include <stddef.h>

typedef struct {
    bool freq_ok;
    double mhz;                 /* mean over the CPUs */
    const char *freq_src;       /* "scaling_cur_freq" | "cpuinfo" */
    bool throttle_ok;           /* thermal_throttle counters found */
    long long throttle_count;   /* their sum */
    bool t_ok;                  /* t_s known (memsuite's samples carry it) */
    double t_s;                 /* seconds since the watch began */
} mb_freq_sample_t;

void mb_freq_sample(mb_freq_sample_t *s);

/* One sample as memsuite run writes it: "t_s<TAB>freq_khz<TAB>throttle_count"
 * (decimal numbers; an empty field is unknown).  0, or -1 for a line of
 * another shape (s is then unspecified). */
int mb_freq_parse_sample(const char *line, mb_freq_sample_t *s);

typedef enum { MB_FREQ_OK = 0, MB_FREQ_WARN, MB_FREQ_UNAVAILABLE } mb_freq_status_t;

typedef struct {
    mb_freq_status_t status;
    double min_mhz, max_mhz, drop_pct;   /* lowest sample's drop below the first */
    int drop_sample;                     /* 1-based sample of the lowest frequency */
    long long throttle_rise;             /* count rise over the samples */
    int throttle_sample;                 /* first sample where it rose (1-based), 0: none */
    char text[400];                      /* the verdict in words */
} mb_freq_verdict_t;

/* n samples in time order (n may be 0); threshold_pct e.g. 10.  The
 * text names the sample (and its time, where known) of a drop or a rise. */
void mb_freq_verdict(const mb_freq_sample_t *s, int n, double threshold_pct,
                     mb_freq_verdict_t *v);

#endif
