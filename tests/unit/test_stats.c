/* test_stats: known vectors with hand-computed figures. */
#include "check.h"
#include "stats.h"

#include <errno.h>
#include <math.h>

#define EPS 1e-12
#define NEAR(a, b) (fabs((a) - (b)) <= EPS * (1.0 + fabs(b)))
#define LEN(a) (sizeof(a) / sizeof((a)[0]))

typedef struct {
    const char *name;
    const double *v;
    size_t n, drop;
    mb_stats_t want;
} stats_case_t;

static const double v_simple[] = {1, 2, 3, 4, 5};
static const double v_warm[] = {100, 50, 2, 4, 4, 4, 5, 5, 7, 9};
static const double v_even[] = {4, 1, 3, 2};
static const double v_one[] = {42};
static const double v_const[] = {3, 3, 3};
static const double v_zero_mean[] = {-1, 1};
static const double v_outlier[] = {10, 10, 10, 10, 1000};

static const stats_case_t cases[] = {
    /* mean 3, var (4+1+0+1+4)/4 = 2.5, median 3, |dev| 2 1 0 1 2 -> MAD 1 */
    {"1..5", v_simple, 5, 0, {5, 1, 5, 3, 3, 1.5811388300841898, 0.5270462766947299, 1}},
    /* the first 2 dropped: 2 4 4 4 5 5 7 9: mean 5, ss 32, var 32/7; median 4.5;
     * |dev| 2.5 .5 .5 .5 .5 .5 2.5 4.5 -> MAD 0.5 */
    {"drop 2 warm-up", v_warm, 10, 2,
     {8, 2, 9, 5, 4.5, 2.1380899352993952, 0.42761798705987904, 0.5}},
    /* unsorted even count: median (2+3)/2; |dev| 1.5 .5 .5 1.5 -> MAD 1 */
    {"even, unsorted", v_even, 4, 0, {4, 1, 4, 2.5, 2.5, 1.2909944487358056, 0.5163977794943222, 1}},
    {"single", v_one, 1, 0, {1, 42, 42, 42, 42, 0, 0, 0}},
    {"constant", v_const, 3, 0, {3, 3, 3, 3, 3, 0, 0, 0}},
    {"zero mean: cv 0", v_zero_mean, 2, 0, {2, -1, 1, 0, 0, 1.4142135623730951, 0, 1}},
    /* ss 4*198^2 + 792^2 = 784080, var 196020; mean 208, MAD 0: the median and MAD ignore the outlier */
    {"outlier", v_outlier, 5, 0, {5, 10, 1000, 208, 10, 442.74145954495833, 2.1285647093507612, 0}},
};

static void check_case(const stats_case_t *c)
{
    mb_stats_t s;
    int rc = mb_stats_compute(c->v, c->n, c->drop, &s);
    CHECK(rc == 0, "%s: returns 0", c->name);
    CHECK(s.n == c->want.n, "%s: n %zu (got %zu)", c->name, c->want.n, s.n);
    CHECK(NEAR(s.min, c->want.min), "%s: min %g (got %g)", c->name, c->want.min, s.min);
    CHECK(NEAR(s.max, c->want.max), "%s: max %g (got %g)", c->name, c->want.max, s.max);
    CHECK(NEAR(s.mean, c->want.mean), "%s: mean %g (got %g)", c->name, c->want.mean, s.mean);
    CHECK(NEAR(s.median, c->want.median), "%s: median %g (got %g)", c->name, c->want.median, s.median);
    CHECK(NEAR(s.stddev, c->want.stddev), "%s: stddev %.17g (got %.17g)", c->name,
          c->want.stddev, s.stddev);
    CHECK(NEAR(s.cv, c->want.cv), "%s: cv %.17g (got %.17g)", c->name, c->want.cv, s.cv);
    CHECK(NEAR(s.mad, c->want.mad), "%s: mad %g (got %g)", c->name, c->want.mad, s.mad);
}

typedef struct {
    const char *name;
    const double *v;
    size_t n, drop;
} bad_case_t;

static const double v_nan[] = {1, NAN, 3};
static const double v_inf[] = {1, 2, INFINITY};
static const double v_nan_dropped[] = {NAN, 2, 4};

static const bad_case_t bad[] = {
    {"empty", v_simple, 0, 0},
    {"all dropped", v_simple, 5, 5},
    {"more dropped than present", v_simple, 5, 9},
    {"NaN sample", v_nan, 3, 0},
    {"Inf sample", v_inf, 3, 0},
    {"NULL samples", NULL, 3, 0},
};

int main(void)
{
    for (size_t i = 0; i < LEN(cases); i++)
        check_case(&cases[i]);

    for (size_t i = 0; i < LEN(bad); i++) {
        mb_stats_t s = {.n = 99, .mean = 7};
        int rc = mb_stats_compute(bad[i].v, bad[i].n, bad[i].drop, &s);
        CHECK(rc == -EINVAL && s.n == 0 && s.mean == 0.0, "%s: -EINVAL and zeroed", bad[i].name);
    }
    mb_stats_t s;
    CHECK(mb_stats_compute(v_nan_dropped, 3, 1, &s) == 0 && s.mean == 3.0,
          "a NaN in the dropped warm-up does not matter");

    double keep[] = {5, 1, 4};
    CHECK(mb_median(keep, 3) == 4.0, "median of 5 1 4 is 4");
    CHECK(keep[0] == 5 && keep[1] == 1 && keep[2] == 4, "mb_median leaves its input in order");
    CHECK(mb_median(v_even, 4) == 2.5, "median of an even count averages the middle two");
    CHECK(isnan(mb_median(v_simple, 0)), "median of nothing is NaN");

    /* nearest rank: 1..100 -> p99 99, p50 50, p100 100 */
    static double hundred[100];
    for (int i = 0; i < 100; i++)
        hundred[i] = 100 - i;   /* descending: the copy is sorted, not the input */
    CHECK(mb_percentile(hundred, 100, 99) == 99.0, "p99 of 1..100 is 99");
    CHECK(mb_percentile(hundred, 100, 50) == 50.0, "p50 of 1..100 is 50");
    CHECK(mb_percentile(hundred, 100, 100) == 100.0, "p100 is the maximum");
    CHECK(hundred[0] == 100, "mb_percentile leaves its input in order");
    CHECK(mb_percentile(keep, 3, 99) == 5.0, "p99 of 3 samples is the largest");
    CHECK(isnan(mb_percentile(keep, 0, 99)) && isnan(mb_percentile(keep, 3, 0)) &&
          isnan(mb_percentile(keep, 3, 101)), "no samples, or p outside (0, 100]: NaN");
    /* issue 23, defect 27: loaded's p99 read only the first 4096 windows;
     * here the windows after the 4096th are the slow ones */
    static double windows[10000];
    for (int i = 0; i < 10000; i++)
        windows[i] = i < 4096 ? 80.0 : 500.0;
    CHECK(mb_percentile(windows, 10000, 99) == 500.0, "27: p99 of 10000 windows sees them all");
    windows[9999] = 1e9;
    CHECK(mb_percentile(windows, 10000, 100) == 1e9, "27: the last of 10000 windows is seen");

    static const struct { const char *name; double v[4]; size_t n; double want; } jain[] = {
        {"equal shares", {3, 3, 3, 3}, 4, 1.0},
        {"one of four works", {0, 0, 8, 0}, 4, 0.25},
        {"1 2 3 4: 100/120", {1, 2, 3, 4}, 4, 100.0 / 120.0},
        {"single", {7}, 1, 1.0},
    };
    for (size_t i = 0; i < LEN(jain); i++) {
        double j = mb_jain_index(jain[i].v, jain[i].n);
        CHECK(NEAR(j, jain[i].want), "jain %s = %.17g (got %.17g)", jain[i].name, jain[i].want, j);
    }
    double zeros[] = {0, 0};
    CHECK(isnan(mb_jain_index(zeros, 2)), "jain of all zeros is NaN");
    CHECK(isnan(mb_jain_index(zeros, 0)), "jain of nothing is NaN");
    return check_done();
}
