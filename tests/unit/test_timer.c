/* test_timer: the clock is monotonic, its two forms agree, it tracks a
 * real sleep, and the granularity is a plausible positive tick. */
#include "check.h"
#include "timer.h"

#include <time.h>

int main(void)
{
    uint64_t prev = mb_now_ns();
    int backwards = 0;
    for (int i = 0; i < 100000; i++) {
        uint64_t t = mb_now_ns();
        backwards += t < prev;
        prev = t;
    }
    CHECK(backwards == 0, "mb_now_ns never goes backwards over 100000 reads");

    double s0 = mb_now_s();
    uint64_t n0 = mb_now_ns();
    double s1 = mb_now_s();
    CHECK(n0 * 1e-9 >= s0 - 1e-6 && n0 * 1e-9 <= s1 + 1e-6, "mb_now_s and mb_now_ns agree");

    /* A 20 ms sleep: at least 20 ms must pass on the clock; an upper
     * bound would fail on a loaded machine, so only the sanity cap of 10 s. */
    struct timespec req = {0, 20 * 1000 * 1000};
    uint64_t a = mb_now_ns();
    nanosleep(&req, NULL);
    uint64_t b = mb_now_ns();
    CHECK(b - a >= 20000000ull && b - a < 10000000000ull, "20 ms sleep measures %llu ns",
          (unsigned long long)(b - a));

    uint64_t g1 = mb_timer_granularity_ns(1);
    uint64_t g20 = mb_timer_granularity_ns(20);
    CHECK(g1 > 0 && g20 > 0, "granularity is non-zero (%llu, %llu ns)", (unsigned long long)g1,
          (unsigned long long)g20);
    /* CLOCK_MONOTONIC resolves to at least microseconds on Linux. */
    CHECK(g20 < 1000000ull, "granularity under 1 ms (%llu ns)", (unsigned long long)g20);
    struct timespec res;
    clock_getres(CLOCK_MONOTONIC, &res);
    uint64_t res_ns = (uint64_t)res.tv_sec * 1000000000ull + (uint64_t)res.tv_nsec;
    CHECK(g20 >= res_ns, "granularity (%llu) not finer than clock_getres (%llu)",
          (unsigned long long)g20, (unsigned long long)res_ns);
    CHECK(mb_timer_granularity_ns(0) > 0 && mb_timer_granularity_ns(-5) > 0,
          "non-positive trials use a default");
    /* STREAM's checktick reads a microsecond clock and waits for it to
     * advance, so it answers whole microseconds, never less than 1. */
    int q = mb_timer_checktick_us();
    CHECK(q >= 1 && q < 1000000, "checktick answers %d us (>= 1, under 1 s)", q);
    return check_done();
}
