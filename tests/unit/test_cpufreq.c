/* test_cpufreq: samples from fake sysfs/procfs trees (scaling_cur_freq,
 * cpuinfo's "cpu MHz" when there is no cpufreq, thermal_throttle counts,
 * nothing at all) and the verdict over a table of sample series. */
#include "check.h"
#include "cpufreq.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char root[] = "/tmp/test_cpufreq.XXXXXX";

/* Runs cmd with every '@' replaced by the temp root. */
static void sh(const char *cmd)
{
    char buf[2048];
    size_t k = 0;
    for (const char *p = cmd; *p && k + sizeof root < sizeof buf; p++) {
        if (*p == '@') {
            memcpy(buf + k, root, strlen(root));
            k += strlen(root);
        } else {
            buf[k++] = *p;
        }
    }
    buf[k] = '\0';
    CHECK(system(buf) == 0, "setup step");
}

static void test_sample(void)
{
    char sys[600], proc[600];
    snprintf(sys, sizeof sys, "%s/sys", root);
    snprintf(proc, sizeof proc, "%s/proc", root);
    setenv("MEMSUITE_SYSFS", sys, 1);
    setenv("MEMSUITE_PROCFS", proc, 1);
    mb_freq_sample_t s;

    sh("mkdir -p @/sys/devices/system/cpu/cpu0/cpufreq @/sys/devices/system/cpu/cpu1/cpufreq "
       "@/proc");
    sh("echo 2000000 >@/sys/devices/system/cpu/cpu0/cpufreq/scaling_cur_freq");
    sh("echo 1000000 >@/sys/devices/system/cpu/cpu1/cpufreq/scaling_cur_freq");
    sh("printf 'cpu MHz\\t\\t: 3000.000\\n' >@/proc/cpuinfo");
    mb_freq_sample(&s);
    CHECK(s.freq_ok && fabs(s.mhz - 1500) < 1e-9 && strcmp(s.freq_src, "scaling_cur_freq") == 0 &&
          !s.throttle_ok, "scaling_cur_freq mean 1500 MHz, first choice (%g %s)", s.mhz,
          s.freq_src);

    sh("rm -rf @/sys/devices/system/cpu/cpu0/cpufreq @/sys/devices/system/cpu/cpu1/cpufreq");
    sh("mkdir -p @/sys/devices/system/cpu/cpu0/thermal_throttle");
    sh("echo 4 >@/sys/devices/system/cpu/cpu0/thermal_throttle/core_throttle_count");
    sh("echo 1 >@/sys/devices/system/cpu/cpu0/thermal_throttle/package_throttle_count");
    mb_freq_sample(&s);
    CHECK(s.freq_ok && fabs(s.mhz - 3000) < 1e-9 && strcmp(s.freq_src, "cpuinfo") == 0 &&
          s.throttle_ok && s.throttle_count == 5, "no cpufreq: cpuinfo 3000 MHz; throttle 4+1");

    sh("rm -f @/proc/cpuinfo");
    sh("rm -rf @/sys/devices/system/cpu/cpu0/thermal_throttle");
    mb_freq_sample(&s);
    CHECK(!s.freq_ok && !s.throttle_ok, "no source at all");
}

typedef struct {
    int n;
    double mhz[5];             /* 0: no frequency in that sample */
    long long thr[5];          /* -1: no counters */
    mb_freq_status_t status;
    const char *has;
} verdict_case_t;

static const verdict_case_t vcases[] = {
    { 3, { 2000, 1990, 1995 }, { -1, -1, -1 }, MB_FREQ_OK, "3 sample(s), frequency 1990-2000 MHz" },
    { 4, { 2000, 2000, 1500, 1900 }, { -1, -1, -1, -1 }, MB_FREQ_WARN,
      "frequency fell from 2000 MHz to 1500 MHz (-25.0%, threshold 10%) at sample 3 of 4" },
    { 3, { 2000, 2000, 2000 }, { 7, 7, 9 }, MB_FREQ_WARN,
      "thermal throttle count rose by 2 by sample 3 of 3" },
    { 3, { 2000, 1850, 2000 }, { 0, 0, 0 }, MB_FREQ_OK, "thermal throttle counts unchanged" },
    { 2, { 0, 0 }, { -1, -1 }, MB_FREQ_UNAVAILABLE,
      "unavailable: no frequency source: no /tmp/test_cpufreq." },
    { 0, { 0 }, { 0 }, MB_FREQ_UNAVAILABLE, "unavailable: no sample was taken" },
    { 2, { 2000, 2000 }, { -1, -1 }, MB_FREQ_OK, "; no thermal_throttle counters (/tmp/test_cpufreq." },
    { 3, { 0, 2000, 1000 }, { -1, -1, -1 }, MB_FREQ_WARN, "at sample 3 of 3" },
};

static void test_verdict(void)
{
    for (size_t i = 0; i < sizeof vcases / sizeof vcases[0]; i++) {
        const verdict_case_t *c = &vcases[i];
        mb_freq_sample_t s[5];
        memset(s, 0, sizeof s);
        for (int k = 0; k < c->n; k++) {
            s[k].freq_ok = c->mhz[k] > 0;
            s[k].mhz = c->mhz[k];
            s[k].freq_src = "scaling_cur_freq";
            s[k].throttle_ok = c->thr[k] >= 0;
            s[k].throttle_count = c->thr[k];
        }
        mb_freq_verdict_t v;
        mb_freq_verdict(s, c->n, 10, &v);
        CHECK(v.status == c->status && strstr(v.text, c->has), "case %zu: %s", i, v.text);
    }
}

/* memsuite run's samples: "t_s<TAB>kHz<TAB>throttle count", empty
 * fields unknown; the verdict names the time of the sample. */
static void test_parse(void)
{
    mb_freq_sample_t s[3];
    CHECK(mb_freq_parse_sample("0\t2000000\t5\n", &s[0]) == 0 && s[0].t_ok && s[0].t_s == 0 &&
          s[0].freq_ok && s[0].mhz == 2000 && s[0].throttle_ok && s[0].throttle_count == 5,
          "a full sample");
    CHECK(mb_freq_parse_sample("7\t\t\n", &s[1]) == 0 && s[1].t_ok && s[1].t_s == 7 &&
          !s[1].freq_ok && !s[1].throttle_ok, "empty fields are unknown");
    CHECK(mb_freq_parse_sample("9\t1000000.5\t", &s[2]) == 0 && s[2].mhz > 1000 && !s[2].throttle_ok,
          "no newline, no count");
    static const char *const bad[] = { "", "\n", "1\t2\n", "x\t1\t1\n", "1\t-5\t1\n",
                                       "1\t2\t3\t4\n", "1\t1e99\t1\n", "1\t2 \t3\n" };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        mb_freq_sample_t x;
        CHECK(mb_freq_parse_sample(bad[i], &x) == -1, "refused: case %zu", i);
    }
    mb_freq_sample_t w[2];
    mb_freq_parse_sample("0\t2000000\t1\n", &w[0]);
    mb_freq_parse_sample("12\t1000000\t4\n", &w[1]);
    mb_freq_verdict_t v;
    mb_freq_verdict(w, 2, 10, &v);
    CHECK(v.status == MB_FREQ_WARN &&
          strstr(v.text, "at sample 2 of 2 (t+12 s); thermal throttle count rose by 3 by sample 2 of 2 (t+12 s)"),
          "times named: %s", v.text);
}

int main(void)
{
    CHECK(mkdtemp(root) != NULL, "temp root");
    test_sample();
    test_verdict();
    test_parse();
    sh("rm -rf @");
    return check_done();
}
