/* kcalib: plan, book and choose a kernel variant by measurement (the
 * contract is in kcalib.h). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "exitcodes.h"
#include "kcalib.h"
#include "log.h"
#include "readkern.h"
#include "report.h"
#include "storekern.h"
#include "sizing.h"

const mc_kvar_t *mc_kfamily_at(const mc_kfamily_t *f, size_t i)
{
    return (const mc_kvar_t *)(const void *)((const char *)f->first + i * f->stride);
}

long mc_kfamily_find(const mc_kfamily_t *f, const char *name)
{
    for (size_t i = 0; i < f->n; i++)
        if (strcmp(mc_kfamily_at(f, i)->name, name) == 0)
            return (long)i;
    return -1;
}

/* Every family a name may come from (a traffic family shares its table
 * with one of these, under another default). */
static const mc_kfamily_t *const universe[] = { &mc_read_family, &mc_store_family };
#define NUNIVERSE (sizeof universe / sizeof universe[0])

/* "auto|v16x4|...|v64nt": every name */
static void all_names(char *buf, size_t len)
{
    size_t used = (size_t)snprintf(buf, len, "auto");
    for (size_t f = 0; f < NUNIVERSE; f++)
        for (size_t i = 0; i < universe[f]->n && used < len; i++)
            used += (size_t)snprintf(buf + used, len - used, "|%s",
                                     mc_kfamily_at(universe[f], i)->name);
}

/* "v16x4|...|v64x4pf": the names of fams */
static void names_of(const mc_kfamily_t *const *fams, int nfam, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int f = 0; f < nfam; f++)
        for (size_t i = 0; i < fams[f]->n && used < len; i++)
            used += (size_t)snprintf(buf + used, len - used, "%s%s", used ? "|" : "",
                                     mc_kfamily_at(fams[f], i)->name);
}

int mc_kcal_parse(const char *opt, const mc_kfamily_t *const *fams, int nfam, bool strict,
                  long *forced, char *msg, size_t msglen)
{
    char names[512], shown[96], item[32];
    for (int f = 0; f < nfam; f++)
        forced[f] = -1;
    if (!opt || strcmp(opt, "auto") == 0)
        return 0;
    for (const char *p = opt;;) {
        size_t len = strcspn(p, ",");
        snprintf(item, sizeof item, "%.*s", (int)(len < 31 ? len : 31), p);
        const mc_kfamily_t *home = NULL;
        long idx = -1;
        for (size_t u = 0; u < NUNIVERSE && idx < 0 && len < 31; u++)
            if ((idx = mc_kfamily_find(universe[u], item)) >= 0)
                home = universe[u];
        if (idx < 0) {
            all_names(names, sizeof names);
            snprintf(msg, msglen, "--kernel-variant: invalid value '%s': must be one of %s (or a "
                     "comma-separated list, at most one per family)",
                     mb_shown(opt, 60, shown, sizeof shown), names);
            return MB_EXIT_USAGE;
        }
        int fam = -1;
        for (int f = 0; f < nfam; f++)
            if (fams[f]->first == home->first)
                fam = f;
        const mc_kvar_t *v = mc_kfamily_at(home, (size_t)idx);
        if (fam < 0 && strict) {
            names_of(fams, nfam, names, sizeof names);
            snprintf(msg, msglen, "--kernel-variant %s: a variant of the %s kernels, which this "
                     "run does not use; its kernels take %s", v->name, home->what,
                     nfam ? names : "no variant");
            return MB_EXIT_USAGE;
        }
        if (fam >= 0 && forced[fam] >= 0) {
            snprintf(msg, msglen, "--kernel-variant '%s': two variants of the %s kernels (%s "
                     "and %s); name at most one per family", mb_shown(opt, 60, shown, sizeof shown),
                     home->what, mc_kfamily_at(home, (size_t)forced[fam])->name, v->name);
            return MB_EXIT_USAGE;
        }
        if (v->supported && !v->supported()) {
            all_names(names, sizeof names);
            snprintf(msg, msglen, "--kernel-variant %s: this CPU has no %s, which the variant "
                     "needs; choose another of %s", v->name, v->needs ? v->needs : "support",
                     names);
            return MB_EXIT_USAGE;
        }
        if (fam >= 0)
            forced[fam] = idx;
        if (p[len] == '\0')
            return 0;
        p += len + 1;
    }
}

size_t mc_kcal_choose(const double *figure, size_t n, size_t def, bool overran)
{
    if (overran || n == 0)
        return def;
    double best = 0;
    size_t win = def;
    bool any = false;
    for (size_t i = 0; i < n; i++)
        if (isfinite(figure[i]) && figure[i] > 0 && (!any || figure[i] > best))
            best = figure[i], win = i, any = true;
    if (any && def < n && figure[def] == best)
        win = def;   /* a tie: the default stays */
    return win;
}

void mc_kcal_init(mc_kcal_t *kc, const char *kernel, const mc_kfamily_t *fam, long forced,
                  double max_s)
{
    memset(kc, 0, sizeof *kc);
    kc->kernel = kernel;
    kc->fam = fam;
    kc->forced = forced;
    kc->max_s = max_s;
    kc->chosen = forced >= 0 ? (size_t)forced : fam->def;
    for (size_t i = 0; i < fam->n && kc->nvar < MC_KCAL_MAX_VARIANTS; i++) {
        const mc_kvar_t *v = mc_kfamily_at(fam, i);
        if (v->supported && !v->supported())
            kc->left_out = v->name;
        else
            kc->var[kc->nvar++] = i;
    }
    if (forced < 0 && max_s <= 0)
        kc->why_not = "--kernel-calibration 0: no calibration";
}

void mc_kcal_plan(mc_kcal_t *kc, double run_s, double bytes_per_ns, double mem_bytes,
                  size_t align, int nthreads)
{
    kc->run_s = run_s;
    kc->nthreads = nthreads;
    kc->budget_s = fmin(kc->max_s, MC_KCAL_RUN_SHARE * run_s);
    if (kc->forced >= 0 || kc->max_s <= 0)
        return;
    const double trial_ns = kc->budget_s * 1e9 / (double)(mc_kcal_trials(kc) + 1);
    if (!(bytes_per_ns > 0) || !(trial_ns >= MC_KCAL_MIN_TRIAL_NS)) {
        kc->why_not = "the calibration cannot finish in time: its trials would be shorter than "
                      "0.2 ms within its budget";
        return;
    }
    double b = bytes_per_ns * trial_ns;
    if (mem_bytes > 0 && b >= mem_bytes)
        b = mem_bytes;
    b = floor(b / (double)align) * (double)align;
    if (b < (double)align) {
        kc->why_not = "the calibration cannot finish in time: a trial would move under one line";
        return;
    }
    kc->chunk_bytes = b;
    kc->later_share = 1;
    kc->nchunks = mem_bytes > 0 ? (size_t)(mem_bytes / b) : 1;
    kc->on = true;
}

int mc_kcal_trials(const mc_kcal_t *kc)
{
    return (int)(kc->nvar * MC_KCAL_TRIALS);
}

size_t mc_kcal_trial_variant(const mc_kcal_t *kc, int r)
{
    return r <= 0 || kc->nvar == 0 ? kc->fam->def : kc->var[(size_t)(r - 1) % kc->nvar];
}

void mc_kcal_trial_done(mc_kcal_t *kc, int r, double bytes, double ns)
{
    kc->took_s += ns * 1e-9;
    if (r <= 0 || r > mc_kcal_trials(kc) || !(ns > 0))
        return;
    size_t v = (size_t)(r - 1) % kc->nvar, k = (size_t)(r - 1) / kc->nvar;
    kc->gbps[v][k] = bytes / ns;
}

double mc_kcal_best(const mc_kcal_t *kc, size_t i)
{
    double g = 0;
    for (int k = 0; k < MC_KCAL_TRIALS; k++)
        g = kc->gbps[i][k] > g ? kc->gbps[i][k] : g;
    return g;
}

void mc_kcal_finish(mc_kcal_t *kc)
{
    kc->finished = true;
    kc->overran = kc->took_s > kc->max_s;
    double best[MC_KCAL_MAX_VARIANTS];
    size_t def = kc->nvar;
    for (size_t i = 0; i < kc->nvar; i++) {
        best[i] = mc_kcal_best(kc, i);
        if (kc->var[i] == kc->fam->def)
            def = i;
    }
    size_t w = mc_kcal_choose(best, kc->nvar, def, kc->overran);
    kc->chosen = w < kc->nvar ? kc->var[w] : kc->fam->def;
}

const mc_kvar_t *mc_kcal_in_use(const mc_kcal_t *kc)
{
    return mc_kfamily_at(kc->fam, kc->chosen);
}

unsigned mc_kvar_vector_bytes(const mc_kvar_t *v)
{
    return v->vector_len ? v->vector_len() : v->vector_bytes;
}

/* "32-byte vectors, 4 accumulators, prefetch 0 B" or "64-byte vectors,
 * non-temporal stores"; a scalable one says so ("32-byte vectors (SVE,
 * this CPU's length), ..."). */
static const char *describe(const mc_kvar_t *v, char *buf, size_t len)
{
    const char *sc = v->vector_len ? " (SVE, this CPU's length)" : "";
    if (v->accumulators)
        snprintf(buf, len, "%u-byte vectors%s, %u accumulators, prefetch %u B",
                 mc_kvar_vector_bytes(v), sc, v->accumulators, v->prefetch_bytes);
    else
        snprintf(buf, len, "%u-byte vectors%s, %s stores", mc_kvar_vector_bytes(v), sc,
                 v->nt_stores ? "non-temporal" : "ordinary");
    return buf;
}

static const mc_col_t kcal_cols[] = {
    { "kernel", "", true },          { "variant", "", true },
    { "vector_bytes", "bytes", false }, { "accumulators", "", false },
    { "prefetch_bytes", "bytes", false }, { "nt_stores", "", true },
    { "bandwidth", "GB/s", false },  { "chosen", "", true },
};
enum { K_KERNEL, K_VARIANT, K_VBYTES, K_ACC, K_PF, K_NT, K_BW, K_CHOSEN, K_NCOLS };

static void report_one(mc_result_t *res, const mc_kcal_t *kc, mc_table_t **tab, double *took)
{
    const mc_kvar_t *def = mc_kfamily_at(kc->fam, kc->fam->def), *use = mc_kcal_in_use(kc);
    char who[48], d[96], lo[96] = "";
    snprintf(who, sizeof who, "%s%skernel", kc->kernel ? kc->kernel : "", kc->kernel ? " " : "");
    if (kc->left_out)
        snprintf(lo, sizeof lo, "; %s left out: this CPU has no %s", kc->left_out,
                 mc_kfamily_at(kc->fam, (size_t)mc_kfamily_find(kc->fam, kc->left_out))->needs);
    if (kc->forced >= 0) {
        mc_result_note(res, "%s %s forced by --kernel-variant (%s); no calibration", who,
                       use->name, describe(use, d, sizeof d));
        return;
    }
    if (kc->on && !kc->finished) {
        mc_result_note(res, "%s %s (the default): the calibration was interrupted", who, def->name);
        return;
    }
    if (!kc->on) {
        mc_result_note(res, "%s %s (the default): %s (budget %.3g ms = min(--kernel-calibration, "
                       "5%% of a %.3g s run)); force one with --kernel-variant", who, def->name,
                       kc->why_not ? kc->why_not : "no calibration", kc->budget_s * 1e3, kc->run_s);
        return;
    }
    if (!*tab)
        *tab = mc_table_new(res, "kernel_calibration", kcal_cols, K_NCOLS);
    char list[512];
    size_t used = 0;
    list[0] = '\0';
    for (size_t i = 0; i < kc->nvar; i++) {
        const mc_kvar_t *k = mc_kfamily_at(kc->fam, kc->var[i]);
        double g = mc_kcal_best(kc, i);
        long row = mc_table_row(*tab);
        mc_table_str(*tab, row, K_KERNEL, kc->kernel ? kc->kernel : "read");
        mc_table_str(*tab, row, K_VARIANT, k->name);
        mc_table_num(*tab, row, K_VBYTES, mc_kvar_vector_bytes(k));
        mc_table_num(*tab, row, K_ACC, k->accumulators);
        mc_table_num(*tab, row, K_PF, k->prefetch_bytes);
        mc_table_str(*tab, row, K_NT, k->nt_stores ? "yes" : "no");
        mc_table_num(*tab, row, K_BW, g);
        mc_table_str(*tab, row, K_CHOSEN, k == use ? "yes" : "no");
        if (used < sizeof list)
            used += (size_t)snprintf(list + used, sizeof list - used, "%s%s %.3g", i ? ", " : "",
                                     k->name, g);
    }
    char sz[32], at[256] = "", later[96] = "";
    if (kc->where)
        snprintf(at, sizeof at, " (%s)", kc->where);
    if (kc->later_share > 0 && kc->later_share < 1)
        snprintf(later, sizeof later, " (the later passes at %.0f%% of it, to keep to the budget)",
                 kc->later_share * 100);
    if (kc->overran)
        mc_result_note(res, "%s %s (the default): the calibration could not finish in time "
                       "(%.3g ms, over its cap of %.3g s from --kernel-calibration; planned %.3g ms); its figures "
                       "(GB/s, best of %d): %s%s; force one with --kernel-variant", who, def->name,
                       kc->took_s * 1e3, kc->max_s, kc->budget_s * 1e3, MC_KCAL_TRIALS, list, lo);
    else
        mc_result_note(res, "%s %s chosen by calibration, GB/s best of %d alternating trials "
                       "of %s%s per thread x %d threads%s: %s%s; it took %.3g ms (budget %.3g ms = "
                       "min(--kernel-calibration, 5%% of a %.3g s run))", who, use->name,
                       MC_KCAL_TRIALS, mb_format_bytes((size_t)kc->chunk_bytes, sz, sizeof sz),
                       later, kc->nthreads, at, list, lo, kc->took_s * 1e3, kc->budget_s * 1e3,
                       kc->run_s);
    *took += kc->took_s;
}

void mc_kcal_report(mc_result_t *res, const mc_kcal_t *const *kcs, int n)
{
    mc_table_t *tab = NULL;
    double took = 0;
    for (int i = 0; i < n; i++)
        report_one(res, kcs[i], &tab, &took);
    /* how long the calibration took: a cost, not a figure of the memory */
    if (tab)
        mb_metric_better(mc_metric(res, "kernel_calibration_time", "s", took), MB_BETTER_NONE);
}
