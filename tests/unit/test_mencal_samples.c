/* test_mencal_samples: how sweep makes every sample long enough to trust
 * (issue 23, defect 26).  The sizing and the check after each sample
 * (mencal/mountain.c), and the driver's redo of a repetition the hook
 * found too short (mencal/measure.c). */
#include "check.h"
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

int main(void)
{
    test_sizing();
    test_retry();
    test_redo();
    return check_done();
}
