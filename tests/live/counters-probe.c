/* counters-probe: a known workload under the counters layer, for the
 * live-event tests (tests/bats/counters-live.bats).  It uses the layer
 * the way the tools do: init, join the OpenMP team, start, the parallel
 * work, stop, join again (the check that no slot changed OS thread).
 *
 *   counters-probe touch MIB THREADS EVENTS   first touch of MIB MiB of
 *       fresh anonymous memory with THP off (MADV_NOHUGEPAGE), each thread
 *       touching its own contiguous share, one write per page
 *   counters-probe touch-huge MIB THREADS EVENTS   the same with THP asked
 *       for (MADV_HUGEPAGE on a 2 MiB aligned mapping): one fault per huge
 *       page where THP backs it; "thp_bytes" says how much it did
 *       (AnonHugePages of the mapping, /proc/self/smaps)
 *   counters-probe spin MS THREADS EVENTS     every thread busy for MS ms
 *   counters-probe yield MS THREADS EVENTS    every thread calls
 *       sched_yield for MS ms (run it pinned to one CPU to oversubscribe)
 *
 * Prints one JSON object: the workload's own figures, measured apart
 * from the counters (wall_ns; cpu_ns, the process's user + system time
 * from getrusage over the counted region; minflt from getrusage;
 * page_size; bytes touched), then "counters" as the tools write it.
 * Exit 0, or 2 on bad arguments, 3 when memory cannot be mapped. */
#include <errno.h>
#include <omp.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <stdint.h>
#include <unistd.h>

#include "counters.h"
#include "json.h"
#include "report.h"
#include "timer.h"

static long long cpu_ns(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000LL +
           (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000LL;
}

static long minflt(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_minflt;
}

/* AnonHugePages (KiB) of the mapping that starts at `at`, from
 * /proc/self/smaps; -1 when it cannot be read. */
static long long anon_huge_kib(const void *at)
{
    FILE *f = fopen("/proc/self/smaps", "r");
    if (!f)
        return -1;
    char line[256];
    bool in = false;
    long long kib = -1;
    while (fgets(line, sizeof line, f)) {
        unsigned long lo, hi;
        if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2 && strchr(line, '-') < strchr(line, ' ')) {
            in = (uintptr_t)at >= lo && (uintptr_t)at < hi;
            continue;
        }
        if (in && sscanf(line, "AnonHugePages: %lld kB", &kib) == 1)
            break;
    }
    fclose(f);
    return kib;
}

/* One write per page of [lo, hi) pages.  Not instrumented by ASan: its
 * shadow reads would add faults of their own to the count (1 per 8 pages
 * touched) in a sanitizer build. */
__attribute__((no_sanitize_address)) static void touch_pages(char *buf, size_t page, size_t lo,
                                                            size_t hi)
{
    for (size_t p = lo; p < hi; p++)
        ((volatile char *)buf)[p * page] = 1;
}

static long arg_long(const char *s, long lo, long hi, const char *what)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || *end || v < lo || v > hi) {
        fprintf(stderr, "counters-probe: %s '%s': give a whole number from %ld to %ld\n", what,
                s, lo, hi);
        exit(2);
    }
    return v;
}

int main(int argc, char **argv)
{
    if (argc != 5 || (strcmp(argv[1], "touch") && strcmp(argv[1], "touch-huge") &&
                      strcmp(argv[1], "spin") && strcmp(argv[1], "yield"))) {
        fprintf(stderr, "usage: counters-probe touch|touch-huge|spin|yield MIB|MS THREADS EVENTS\n");
        return 2;
    }
    const char *mode = argv[1];
    long amount = arg_long(argv[2], 1, 65536, "MIB|MS");
    int threads = (int)arg_long(argv[3], 1, 256, "THREADS");
    size_t page = (size_t)sysconf(_SC_PAGESIZE), bytes = (size_t)amount << 20;
    char msg[512];
    static mb_counters_t c;
    if (mb_counters_init(&c, argv[4], msg, sizeof msg) != 0) {
        fprintf(stderr, "counters-probe: %s\n", msg);
        return 2;
    }
    char *buf = NULL, *map = NULL;
    bool huge = strcmp(mode, "touch-huge") == 0;
    size_t align = huge ? (size_t)2 << 20 : 0, mapped = bytes + align;
    if (strncmp(mode, "touch", 5) == 0) {
        map = mmap(NULL, mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (map == MAP_FAILED) {
            fprintf(stderr, "counters-probe: mmap %zu bytes: %s\n", mapped, strerror(errno));
            return 3;
        }
        buf = huge ? (char *)(((uintptr_t)map + align - 1) & ~(uintptr_t)(align - 1)) : map;
        /* NOHUGEPAGE: one fault per small page; HUGEPAGE: per huge page */
        madvise(buf, bytes, huge ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
    }
    mb_counters_join_team(&c, threads);
    long f0 = minflt();
    long long c0 = cpu_ns();
    uint64_t t0 = mb_now_ns();
    mb_counters_start(&c);
#pragma omp parallel num_threads(threads)
    {
        int t = omp_get_thread_num(), n = omp_get_num_threads();
        if (buf) {
            size_t pages = bytes / page, lo = pages * (size_t)t / (size_t)n,
                   hi = pages * (size_t)(t + 1) / (size_t)n;
            touch_pages(buf, page, lo, hi);
        } else {
            uint64_t until = mb_now_ns() + (uint64_t)amount * 1000000ULL;
            bool yield = mode[0] == 'y';
            volatile unsigned long spin = 0;
            while (mb_now_ns() < until) {
                if (yield)
                    sched_yield();
                else
                    for (int k = 0; k < 1000; k++)
                        spin++;
            }
        }
    }
    mb_counters_stop(&c);
    uint64_t wall = mb_now_ns() - t0;
    long long cpu = cpu_ns() - c0;
    long flt = minflt() - f0;
    mb_counters_join_team(&c, threads);
    long long thp_kib = huge ? anon_huge_kib(buf) : 0;

    mb_json_t j;
    mb_json_init(&j, stdout, true);
    mb_json_object_begin(&j, NULL);
    mb_json_string(&j, "mode", mode);
    mb_json_int(&j, "threads", threads);
    mb_json_uint(&j, "wall_ns", wall);
    mb_json_int(&j, "cpu_ns", cpu);
    mb_json_int(&j, "minflt", flt);
    mb_json_uint(&j, "page_size", page);
    mb_json_uint(&j, "bytes", buf ? bytes : 0);
    if (huge)
        mb_json_int(&j, "thp_bytes", thp_kib * 1024);
    mb_counters_json(&c, &j, "counters");
    mb_json_object_end(&j);
    mb_json_finish(&j);
    mb_counters_finish(&c);
    if (map)
        munmap(map, mapped);
    return 0;
}
