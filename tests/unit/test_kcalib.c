/* test_kcalib: the choice of a kernel variant by measurement
 * (mencal/kcalib.c), table-driven: the winner from given figures (ties,
 * unusable figures, an overrun), the plan's fallbacks, the booking of
 * alternating trials, the later passes kept to the budget, and
 * --kernel-variant's names. */
#include "check.h"
#include "exitcodes.h"
#include "kcalib.h"
#include "readkern.h"
#include "storekern.h"
#include "trafficcal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

extern const struct mc_scenario mc_sc_sweep;

static void test_choose(void)
{
    static const struct {
        double fig[4];
        size_t n, def;
        bool overran;
        size_t want;
        const char *what;
    } t[] = {
        { { 1, 3, 2, 0 }, 3, 0, false, 1, "the largest figure wins" },
        { { 5, 3, 2, 0 }, 3, 1, false, 0, "the largest wins over the default" },
        { { 3, 3, 2, 0 }, 3, 1, false, 1, "a tie with the default: the default stays" },
        { { 2, 3, 3, 0 }, 3, 0, false, 1, "a tie without the default: the first of the best" },
        { { 1, 3, 2, 0 }, 3, 0, true, 0, "over budget: the default, whatever the figures" },
        { { 0, 0, 0, 0 }, 3, 2, false, 2, "no positive figure: the default" },
        { { NAN, INFINITY, -1, 0.5 }, 4, 0, false, 3, "NaN, Inf and negatives are never chosen" },
        { { 0 }, 0, 0, false, 0, "no variant: the default" },
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
        CHECK(mc_kcal_choose(t[i].fig, t[i].n, t[i].def, t[i].overran) == t[i].want,
              "choose: %s", t[i].what);
}

static void test_plan_and_trials(void)
{
    mc_kcal_t kc;
    /* 10 s run, 1 s cap: budget min(1, 0.5) = 0.5 s; 22 trials of ~22 ms */
    mc_kcal_init(&kc, NULL, &mc_read_family, -1, 1);
    CHECK(kc.chosen == MC_READKERN_DEFAULT && kc.nvar == mc_nreadkerns, "init: the default in use, every variant");
    mc_kcal_plan(&kc, 10, 10, 1e9, 64, 2);
    CHECK(kc.on && fabs(kc.budget_s - 0.5) < 1e-12, "plan: on, budget 5%% of the run");
    CHECK(fmod(kc.chunk_bytes, 64) == 0 && kc.chunk_bytes > 0 && kc.chunk_bytes <= 1e9,
          "plan: whole lines of the memory");
    CHECK(mc_kcal_trials(&kc) == 3 * (int)mc_nreadkerns, "three trials per variant");
    CHECK(mc_kcal_trial_variant(&kc, 0) == MC_READKERN_DEFAULT, "trial 0: the default warms up");
    CHECK(mc_kcal_trial_variant(&kc, 1) == 0 && mc_kcal_trial_variant(&kc, 2) == 1 &&
          mc_kcal_trial_variant(&kc, (int)mc_nreadkerns + 1) == 0, "trials alternate variants");
    /* variant 3 (v64x4) fastest in its second trial */
    for (int r = 0; r <= mc_kcal_trials(&kc); r++) {
        size_t v = mc_kcal_trial_variant(&kc, r);
        double gbps = v == 3 && r > (int)mc_nreadkerns ? 40 : 20 + (double)v;
        mc_kcal_trial_done(&kc, r, gbps * 1e6, 1e6);
    }
    mc_kcal_finish(&kc);
    CHECK(kc.chosen == 3 && !kc.overran, "finish: the best trial's variant (%zu)", kc.chosen);
    CHECK(fabs(mc_kcal_best(&kc, 3) - 40) < 1e-9, "best: the fastest trial of the variant");
    CHECK(fabs(kc.took_s - (double)(mc_kcal_trials(&kc) + 1) * 1e-3) < 1e-12, "took: every trial");

    /* the same figures past the cap: the default */
    mc_kcal_init(&kc, NULL, &mc_read_family, -1, 0.001);
    mc_kcal_plan(&kc, 1000, 10, 1e9, 64, 1);
    for (int r = 0; r <= mc_kcal_trials(&kc); r++)
        mc_kcal_trial_done(&kc, r, (r == 4 ? 99 : 1) * 1e6, 1e6);
    mc_kcal_finish(&kc);
    CHECK(kc.overran && kc.chosen == MC_READKERN_DEFAULT, "over --kernel-calibration: the default");

    mc_kcal_init(&kc, NULL, &mc_read_family, -1, 0.000001);
    mc_kcal_plan(&kc, 10, 10, 1e9, 64, 1);
    CHECK(!kc.on && kc.why_not && strstr(kc.why_not, "cannot finish in time"),
          "a 1 us budget: no calibration, says why");
    mc_kcal_init(&kc, NULL, &mc_read_family, -1, 0);
    mc_kcal_plan(&kc, 10, 10, 1e9, 64, 1);
    CHECK(!kc.on && strstr(kc.why_not, "--kernel-calibration 0"), "0: no calibration");
    mc_kcal_init(&kc, NULL, &mc_read_family, 5, 1);
    mc_kcal_plan(&kc, 10, 10, 1e9, 64, 1);
    CHECK(!kc.on && kc.chosen == 5, "forced: no calibration, the forced variant");
    mc_kcal_init(&kc, "write", &mc_store_family, -1, 1);
    CHECK(kc.chosen == MC_STOREKERN_DEFAULT &&
          strcmp(mc_kcal_in_use(&kc)->name, "v64") == 0, "stores: the default is v64");
}

static void test_parse(void)
{
    const mc_kfamily_t *rd[1] = { &mc_read_family };
    const mc_kfamily_t *rs[2] = { &mc_read_traffic_family, &mc_store_family };
    long f[2];
    char msg[1024];
    CHECK(mc_kcal_parse("auto", rd, 1, true, f, msg, sizeof msg) == 0 && f[0] == -1, "auto");
    CHECK(mc_kcal_parse("v64x4", rd, 1, true, f, msg, sizeof msg) == 0 && f[0] == 3, "a read name");
    CHECK(mc_kcal_parse("v64x4,v32", rs, 2, true, f, msg, sizeof msg) == 0 && f[0] == 3 && f[1] == 1,
          "one name per family");
    CHECK(mc_kcal_parse("v128x2", rd, 1, true, f, msg, sizeof msg) == MB_EXIT_USAGE &&
          strstr(msg, "invalid value 'v128x2': must be one of auto|v16x4|v32x4|v32x8|v64x4|v64x8|"
                 "v32x4pf|v64x4pf|v16|v32|v64") != NULL, "a bad name lists the names: %s", msg);
    CHECK(mc_kcal_parse("v64x4,v32x4", rd, 1, true, f, msg, sizeof msg) == MB_EXIT_USAGE &&
          strstr(msg, "two variants") != NULL, "two of one family: refused");
    CHECK(mc_kcal_parse("v64", rd, 1, true, f, msg, sizeof msg) == MB_EXIT_USAGE &&
          strstr(msg, "does not use") != NULL, "a store name for a read-only run: refused");
    CHECK(mc_kcal_parse("v64", rd, 1, false, f, msg, sizeof msg) == 0 && f[0] == -1,
          "not strict: another family's name is left to the other scenarios");
    CHECK(mc_kcal_parse("", rd, 1, true, f, msg, sizeof msg) == MB_EXIT_USAGE, "empty: refused");
}

/* The record: a note per kernel, one table for every calibration that ran,
 * one metric summed over them. */
static void test_report(void)
{
    mc_result_t *res = calloc(1, sizeof *res);
    mc_kcal_t rd, wr, cp;
    mc_result_init(res, &mc_sc_sweep);
    mc_kcal_init(&rd, "read", &mc_read_traffic_family, -1, 0.5);
    mc_kcal_plan(&rd, 100, 10, 0, 64, 2);
    for (int r = 0; r <= mc_kcal_trials(&rd); r++)
        mc_kcal_trial_done(&rd, r, (mc_kcal_trial_variant(&rd, r) == 2 ? 30 : 20) * 1e6, 1e6);
    mc_kcal_finish(&rd);
    mc_kcal_init(&wr, "write", &mc_store_family, 1, 0.5);     /* forced v32 */
    mc_kcal_init(&cp, "copy", &mc_store_family, -1, 0.000001);
    mc_kcal_plan(&cp, 100, 10, 0, 64, 2);
    const mc_kcal_t *kcs[3] = { &rd, &wr, &cp };
    mc_kcal_report(res, kcs, 3);
    CHECK(res->nnotes == 3, "one note per kernel (%zu)", res->nnotes);
    CHECK(res->nnotes > 0 && strncmp(res->notes[0], "read kernel v32x8 chosen by calibration, GB/s "
                                     "best of 3 alternating trials of ", 64) == 0,
          "read: chosen, named: %s", res->notes[0]);
    CHECK(res->nnotes > 1 && strcmp(res->notes[1], "write kernel v32 forced by --kernel-variant "
                                    "(32-byte vectors, ordinary stores); no calibration") == 0,
          "write: forced, described: %s", res->notes[1]);
    CHECK(res->nnotes > 2 && strncmp(res->notes[2], "copy kernel v64 (the default): the calibration "
                                     "cannot finish in time", 60) == 0,
          "copy: the default, why: %s", res->notes[2]);
    const mc_table_t *t = res->ntables == 1 ? &res->tables[0] : NULL;
    CHECK(t && strcmp(t->name, "kernel_calibration") == 0 && t->nrows == mc_nreadkerns,
          "one table, a row per variant of the calibration that ran");
    size_t chosen = 0;
    for (size_t r = 0; t && r < t->nrows; r++)
        chosen += strcmp(t->str[r * (size_t)t->ncols + 7], "yes") == 0;
    CHECK(chosen == 1, "one row chosen");
    bool metric = false;
    for (size_t k = 0; k < res->rec.nmetric; k++)
        metric |= strcmp(res->rec.metric[k].name, "kernel_calibration_time") == 0 &&
                  fabs(res->rec.metric[k].value - rd.took_s) < 1e-12;
    CHECK(metric, "kernel_calibration_time: the time of the calibration that ran");
    mc_result_free(res);
    free(res);
}

/* The later passes shortened to what the budget leaves (trafficcal). */
static void test_fit_later(void)
{
    mc_kcal_t kc = { .budget_s = 0.244, .took_s = 0.100, .later_share = 1 };
    /* 100 ms spent, the first pass 80 ms: two more need 160 ms, 144 ms left */
    size_t n = mc_kcal_fit_later(&kc, 1000, 80e6, 5e6);
    CHECK(n == 900 && fabs(kc.later_share - 0.9) < 1e-9, "shortened to 144/160 of the lines: %zu", n);
    /* they fit: unchanged */
    kc = (mc_kcal_t){ .budget_s = 0.244, .took_s = 0.100, .later_share = 1 };
    n = mc_kcal_fit_later(&kc, 1000, 50e6, 5e6);
    CHECK(n == 1000 && kc.later_share == 1, "fitting passes unchanged: %zu", n);
    /* nothing left: the floor, 0.2 ms at the fastest trial (5 ms -> 4%) */
    kc = (mc_kcal_t){ .budget_s = 0.244, .took_s = 0.300, .later_share = 1 };
    n = mc_kcal_fit_later(&kc, 1000, 80e6, 5e6);
    CHECK(n == 40, "over budget already: trials of 0.2 ms at the fastest rate (%zu lines)", n);
    /* the floor above the fit: at most the lines as planned */
    kc = (mc_kcal_t){ .budget_s = 0.244, .took_s = 0.240, .later_share = 1 };
    n = mc_kcal_fit_later(&kc, 1000, 80e6, 0.1e6);
    CHECK(n == 1000 && kc.later_share == 1, "a floor above the plan keeps the plan: %zu", n);
}

int main(void)
{
    test_fit_later();
    test_choose();
    test_report();
    test_plan_and_trials();
    test_parse();
    return check_done();
}
