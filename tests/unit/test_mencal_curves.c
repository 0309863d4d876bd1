/* test_mencal_curves: the reading of the two curves, table-driven.
 * sweep: how every sample is made long enough to trust (issue 23, defect
 * 26): the sizing and the check after each sample (mencal/mountain.c),
 * and the driver's redo of a repetition the hook found too short
 * (mencal/measure.c).  loaded: how loaded a point was and which point the
 * headline is read at (mencal/loadcurve.c; defects 25 and 28). */
#include "check.h"
#include "loadcurve.h"
#include "measure.h"
#include "mountain.h"

#include <math.h>
#include <omp.h>
#include <signal.h>
#include <stdint.h>

#define MS 1e6   /* ns */

static void test_sizing(void)
{
    static const struct {
        double pass_ns, min_ns;
        uint64_t want;
        const char *what;
    } t[] = {
        { 1000, 10 * MS, 11000, "1 us passes: 10 ms + 10% margin" },
        { 63291, 10 * MS, 174, "the issue's 64 KiB warm-up misread (63 us a pass)" },
        { 20 * MS, 10 * MS, 1, "a pass over the minimum: one pass" },
        { 0, 10 * MS, 1, "a pass that took no time: one pass, checked afterwards" },
        { NAN, 10 * MS, 1, "a NaN estimate: one pass" },
        { 1e-9, 10 * MS, MC_MOUNTAIN_MAX_PASSES, "capped" },
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        uint64_t got = mc_mountain_sample_passes(t[i].pass_ns, t[i].min_ns);
        CHECK(got == t[i].want, "sample passes: %s (got %llu)", t[i].what,
              (unsigned long long)got);
    }
}

static void test_retry(void)
{
    static const struct {
        uint64_t passes;
        double ns, min_ns;
        uint64_t want;
        const char *what;
    } t[] = {
        { 158, 0.058 * MS, 10 * MS, 29966, "the issue's 0.058 ms sample: scaled by the shortfall" },
        { 1000, 9.9 * MS, 10 * MS, 2000, "just short: at least doubled" },
        { 1000, 10 * MS, 10 * MS, 0, "exactly the minimum: accepted" },
        { 1000, 30 * MS, 10 * MS, 0, "longer: accepted" },
        { 7, 0, 10 * MS, 14, "no time measured: doubled" },
        { MC_MOUNTAIN_MAX_PASSES, 1 * MS, 10 * MS, 0, "at the cap: nothing longer to try" },
        { MC_MOUNTAIN_MAX_PASSES / 2, 1 * MS, 10 * MS, MC_MOUNTAIN_MAX_PASSES, "to the cap" },
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        uint64_t got = mc_mountain_retry_passes(t[i].passes, t[i].ns, t[i].min_ns);
        CHECK(got == t[i].want, "retry passes: %s (got %llu)", t[i].what,
              (unsigned long long)got);
    }
}

/* The driver: a hook that asks for repetition 2 again twice. */
typedef struct {
    int calls[2];        /* body calls per thread */
    int asked;           /* redos the hook asked for */
    int seen[8];         /* repetitions the hook saw, in order */
    int nseen;
} redo_t;

static void count_body(void *arg, int t, int r)
{
    (void)r;
    ((redo_t *)arg)->calls[t]++;
}

static void redo_two(mc_measure_t *m, int r, void *ctx)
{
    redo_t *x = ctx;
    if (x->nseen < 8)
        x->seen[x->nseen++] = r;
    if (r == 2 && x->asked < 2) {
        x->asked++;
        m->redo = true;
    }
}

static void test_redo(void)
{
    static const volatile sig_atomic_t no_stop = 0;
    mc_config_t cfg = { .nthreads = 2, .stop = &no_stop };
    mc_result_t res;
    mc_result_init(&res, NULL);
    mc_measure_t m;
    redo_t x = { { 0, 0 }, 0, { 0 }, 0 };
    CHECK(mc_measure_init(&m, &cfg, &res, 3) == 0, "driver: init");
    m.on_rep = redo_two;
    m.on_rep_ctx = &x;
#pragma omp parallel num_threads(2)
    mc_measure_run(&m, omp_get_thread_num(), count_body, &x);
    CHECK(m.done == 3, "redo: the counted repetitions stay 3 (done %d)", m.done);
    CHECK(m.redos == 2, "redo: two repetitions run again (%d)", m.redos);
    CHECK(x.calls[0] == 6 && x.calls[1] == 6, "redo: each thread ran warm-up + 3 + 2 bodies "
          "(%d, %d)", x.calls[0], x.calls[1]);
    CHECK(x.nseen == 6 && x.seen[0] == 0 && x.seen[1] == 1 && x.seen[2] == 2 &&
          x.seen[3] == 2 && x.seen[4] == 2 && x.seen[5] == 3,
          "redo: the hook saw 0 1 2 2 2 3");
    mc_measure_free(&m);
    mc_result_free(&res);
}

static void test_load(void)
{
    static const struct {
        double bw[5];
        int n;
        mc_load_t want;
        int none;
        const char *text;
    } t[] = {
        { { 10, 20, 30, 40, 50 }, 5, MC_LOAD_TRAFFIC, 0, "traffic" },
        { { 10, 0, 30, 40, 50 }, 5, MC_LOAD_PARTIAL, 1, "traffic; none in 1 of 5 windows" },
        { { 0, 0, 0, 40, 50 }, 5, MC_LOAD_NONE, 3, "none: no traffic in 3 of 5 windows" },
        { { 0, 0, 0, 0, 0 }, 5, MC_LOAD_NONE, 5, "none: no traffic in 5 of 5 windows" },
        { { NAN, 0, 0, 0, 0 }, 5, MC_LOAD_NONE, 5, "none: no traffic in 5 of 5 windows" },
    };
    char buf[64];
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        int none = -1;
        mc_load_t got = mc_load_of(t[i].bw, t[i].n, &none);
        CHECK(got == t[i].want && none == t[i].none, "28: load of %s", t[i].text);
        CHECK_EQ_STR(mc_load_text(got, none, t[i].n, buf, sizeof buf), t[i].text, t[i].text);
    }
    /* rows: delay, bandwidth; the idle point last (delay NaN) */
    enum { D, BW, W };
    static const struct {
        double rows[4][W];
        size_t n;
        long want;
        int unloaded;
        const char *what;
    } b[] = {
        { { { 0, 5352 }, { 100, 8530 }, { 1000, 3000 }, { NAN, 0 } }, 4, 1, 0,
          "25: the maximum, not the first point (5352 while 8530 was measured)" },
        { { { 0, 9000 }, { 100, 8530 }, { 1000, 3000 }, { NAN, 0 } }, 4, 0, 0,
          "the first point when it is the busiest" },
        { { { 0, 0 }, { 100, 7000 }, { 1000, 0 }, { NAN, 0 } }, 4, 1, 2,
          "28: unloaded points are counted and skipped" },
        { { { 0, 0 }, { 100, 0 }, { NAN, 0 } }, 3, -1, 2, "28: no loaded point: none" },
        { { { NAN, 0 } }, 1, -1, 0, "only the idle point: none, nothing unloaded" },
        { { { 0, 0 } }, 0, -1, 0, "no row" },
    };
    for (size_t i = 0; i < sizeof b / sizeof b[0]; i++) {
        int unloaded = -1;
        long got = mc_load_busiest(&b[i].rows[0][0], b[i].n, W, D, BW, &unloaded);
        CHECK(got == b[i].want && unloaded == b[i].unloaded, "busiest: %s (got %ld, %d)",
              b[i].what, got, unloaded);
    }
}

int main(void)
{
    test_sizing();
    test_retry();
    test_redo();
    test_load();
    return check_done();
}
