/* cpufreq: frequency and thermal-throttle samples, and their verdict. */
#include "cpufreq.h"
#include "factfile.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sizing.h"

/* Sum and count of the numbers in <cpu dir>/cpuN/<rel> over every cpuN. */
static int sum_per_cpu(const char *rel, double *sum)
{
    char dir[4096], path[4400], line[64];
    mb_sysfs_path(dir, sizeof dir, "/devices/system/cpu");
    DIR *d = opendir(dir);
    int n = 0;
    *sum = 0;
    if (!d)
        return 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        char *end;
        if (strncmp(e->d_name, "cpu", 3) != 0 || !e->d_name[3])
            continue;
        strtol(e->d_name + 3, &end, 10);
        if (*end)
            continue;
        snprintf(path, sizeof path, "%s/%s/%s", dir, e->d_name, rel);
        if (mb_read_line(path, line, sizeof line) != 0)
            continue;
        double v = strtod(line, &end);
        if (end == line)
            continue;
        *sum += v;
        n++;
    }
    closedir(d);
    return n;
}

static double cpuinfo_mhz(bool *ok)
{
    char path[4096], line[256];
    mb_procfs_path(path, sizeof path, "/cpuinfo");
    FILE *f = mb_fact_fopen(path);
    double sum = 0;
    int n = 0;
    *ok = false;
    if (!f)
        return 0;
    while (fgets(line, sizeof line, f)) {
        const char *c = strchr(line, ':');
        if (strncmp(line, "cpu MHz", 7) != 0 || !c)
            continue;
        double v = strtod(c + 1, NULL);
        if (v > 0) {
            sum += v;
            n++;
        }
    }
    fclose(f);
    *ok = n > 0;
    return n ? sum / n : 0;
}

void mb_freq_sample(mb_freq_sample_t *s)
{
    double sum;
    memset(s, 0, sizeof *s);
    int n = sum_per_cpu("cpufreq/scaling_cur_freq", &sum);   /* kHz */
    if (n > 0) {
        s->freq_ok = true;
        s->mhz = sum / n / 1000.0;
        s->freq_src = "scaling_cur_freq";
    } else {
        s->mhz = cpuinfo_mhz(&s->freq_ok);
        s->freq_src = s->freq_ok ? "cpuinfo" : NULL;
    }
    double t = 0, t2 = 0;
    int a = sum_per_cpu("thermal_throttle/core_throttle_count", &t);
    int b = sum_per_cpu("thermal_throttle/package_throttle_count", &t2);
    s->throttle_ok = a + b > 0;
    s->throttle_count = (long long)(t + t2);
}

/* A decimal number filling [p, end); false for an empty or bad field. */
static bool field_number(const char *p, const char *end, double *v)
{
    char buf[64], *stop;
    size_t len = (size_t)(end - p);
    if (len == 0 || len >= sizeof buf)
        return false;
    memcpy(buf, p, len);
    buf[len] = '\0';
    *v = strtod(buf, &stop);
    return *stop == '\0' && *v >= 0 && *v < 1e15;
}

int mb_freq_parse_sample(const char *line, mb_freq_sample_t *s)
{
    const char *f[3], *e[3], *p = line;
    memset(s, 0, sizeof *s);
    for (int i = 0; i < 3; i++) {
        f[i] = p;
        p += strcspn(p, i < 2 ? "\t" : "\n");
        e[i] = p;
        if (i < 2) {
            if (*p != '\t')
                return -1;
            p++;
        }
    }
    double v;
    if (e[0] > f[0] && !(s->t_ok = field_number(f[0], e[0], &s->t_s)))
        return -1;
    if (e[1] > f[1]) {
        if (!field_number(f[1], e[1], &v))
            return -1;
        s->freq_ok = v > 0;
        s->mhz = v / 1000.0;
    }
    if (e[2] > f[2]) {
        if (!field_number(f[2], e[2], &v))
            return -1;
        s->throttle_ok = true;
        s->throttle_count = (long long)v;
    }
    return 0;
}

/* " (t+N s)" for a sample whose time is known, else "". */
static const char *at_time(const mb_freq_sample_t *s, char *buf, size_t len)
{
    if (!s->t_ok)
        return "";
    snprintf(buf, len, " (t+%.0f s)", s->t_s);
    return buf;
}

void mb_freq_verdict(const mb_freq_sample_t *s, int n, double threshold_pct,
                     mb_freq_verdict_t *v)
{
    memset(v, 0, sizeof *v);
    int first = -1, tfirst = -1;
    for (int i = 0; i < n; i++) {
        if (s[i].freq_ok) {
            if (first < 0) {
                first = i;
                v->min_mhz = v->max_mhz = s[i].mhz;
                v->drop_sample = i + 1;
            }
            if (s[i].mhz < v->min_mhz) {
                v->min_mhz = s[i].mhz;
                v->drop_sample = i + 1;
            }
            if (s[i].mhz > v->max_mhz)
                v->max_mhz = s[i].mhz;
        }
        if (s[i].throttle_ok) {
            if (tfirst < 0)
                tfirst = i;
            long long rise = s[i].throttle_count - s[tfirst].throttle_count;
            if (rise > 0 && !v->throttle_sample)
                v->throttle_sample = i + 1;
            if (rise > v->throttle_rise)
                v->throttle_rise = rise;
        }
    }
    char cpu[4096], cpuinfo[4096], t1[32], t2[32];
    mb_sysfs_path(cpu, sizeof cpu, "/devices/system/cpu");
    mb_procfs_path(cpuinfo, sizeof cpuinfo, "/cpuinfo");
    if (n <= 0) {
        v->status = MB_FREQ_UNAVAILABLE;
        snprintf(v->text, sizeof v->text, "unavailable: no sample was taken");
        return;
    }
    if (first < 0) {
        v->status = MB_FREQ_UNAVAILABLE;
        snprintf(v->text, sizeof v->text, "unavailable: no frequency source: no %.150s/cpu*/cpufreq/"
                 "scaling_cur_freq and no \"cpu MHz\" in %.150s", cpu, cpuinfo);
        return;
    }
    const double base = s[first].mhz;
    v->drop_pct = base > 0 ? (base - v->min_mhz) / base * 100.0 : 0;
    int len = 0;
    if (v->drop_pct > threshold_pct) {
        v->status = MB_FREQ_WARN;
        len = snprintf(v->text, sizeof v->text, "frequency fell from %.0f MHz to %.0f MHz "
                       "(-%.1f%%, threshold %g%%) at sample %d of %d%s", base, v->min_mhz,
                       v->drop_pct, threshold_pct, v->drop_sample, n,
                       at_time(&s[v->drop_sample - 1], t1, sizeof t1));
    }
    if (v->throttle_rise > 0) {
        v->status = MB_FREQ_WARN;
        snprintf(v->text + len, sizeof v->text - (size_t)len,
                 "%sthermal throttle count rose by %lld by sample %d of %d%s", len ? "; " : "",
                 v->throttle_rise, v->throttle_sample, n,
                 at_time(&s[v->throttle_sample - 1], t2, sizeof t2));
    }
    if (v->status == MB_FREQ_WARN)
        return;
    snprintf(v->text, sizeof v->text, "%d sample(s), frequency %.0f-%.0f MHz (%s%slowest -%.1f%% "
             "of the first, threshold %g%%); %s%.150s%s", n, v->min_mhz, v->max_mhz,
             s[first].freq_src ? s[first].freq_src : "", s[first].freq_src ? "; " : "",
             v->drop_pct, threshold_pct,
             tfirst >= 0 ? "thermal throttle counts unchanged" : "no thermal_throttle counters (",
             tfirst >= 0 ? "" : cpu, tfirst >= 0 ? "" : "/cpu*/thermal_throttle)");
}
