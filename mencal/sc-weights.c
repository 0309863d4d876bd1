/* weights: the bandwidth of memory spread over a near node (DRAM) and a far
 * one (CXL, HBM, another socket) at each page ratio, and the best ratio:
 * the sweep that tunes weighted interleave on tiered memory.
 *
 * Each ratio runs seqread on every thread with the buffer placed by weight
 * (common/weighted.h: the kernel's weighted interleave when its weights
 * already give that ratio, else ranges bound node by node), and reads
 * back the share of pages that landed on each node. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exitcodes.h"
#include "json.h"
#include "log.h"
#include "memnodes.h"
#include "scenario.h"
#include "subrun.h"
#include "team.h"

extern const mc_scenario_t mc_sc_seqread, mc_sc_weights;

#define MAX_RATIOS 32
#define DEFAULT_RATIOS "1:0,9:1,4:1,3:1,2:1,1:1,1:2,1:3,0:1"

typedef struct {
    const char *tiers_opt, *ratios_opt;
    /* resolved */
    int near, far;                 /* -1: none found */
    char tiers_how[160];
    int nratios;
    unsigned ratio[MAX_RATIOS][2]; /* near, far */
} weights_conf_t;

static const mb_opt_t weights_opts[] = {
    { .long_name = "tiers", .type = MB_OPT_STRING, .offset = offsetof(weights_conf_t, tiers_opt),
      .metavar = "NEAR,FAR", .def_text = "the first node with CPUs and the first CPU-less node",
      .help = "weights: the two memory nodes to spread the buffer over" },
    { .long_name = "ratios", .type = MB_OPT_STRING, .offset = offsetof(weights_conf_t, ratios_opt),
      .metavar = "LIST", .def_text = DEFAULT_RATIOS,
      .help = "weights: near:far page ratios to measure, comma-separated, each N:M with N, M from "
              "0 to 1000 and not both 0" },
};

/* "1:0,9:1" into c->ratio; 0 or MB_EXIT_USAGE with msg. */
static int parse_ratios(weights_conf_t *c, const char *text, char *msg, size_t msglen)
{
    const char *s = text;
    c->nratios = 0;
    for (;;) {
        size_t len = strcspn(s, ",");
        unsigned a, b;
        int used = 0;
        char item[64];
        snprintf(item, sizeof item, "%.*s", (int)(len < 63 ? len : 63), s);
        if (len == 0 || len > 16 || sscanf(item, "%u:%u%n", &a, &b, &used) != 2 ||
            (size_t)used != len || a > 1000 || b > 1000 || (a == 0 && b == 0) ||
            item[0] == '-' || strchr(item, '-') || strchr(item, '+') || strchr(item, ' ')) {
            char tx[96], one[96];
            snprintf(msg, msglen, "--ratios '%s': '%s' is not N:M with N and M from 0 to 1000, "
                     "not both 0 (e.g. 3:1)", mb_shown(text, 40, tx, sizeof tx),
                     mb_shown(item, 0, one, sizeof one));
            return MB_EXIT_USAGE;
        }
        if (c->nratios == MAX_RATIOS) {
            char tx[96];
            snprintf(msg, msglen, "--ratios '%s': more than %d ratios", mb_shown(text, 40, tx, sizeof tx),
                     MAX_RATIOS);
            return MB_EXIT_USAGE;
        }
        c->ratio[c->nratios][0] = a;
        c->ratio[c->nratios++][1] = b;
        s += len;
        if (!*s)
            return 0;
        s++;
    }
}

static int weights_resolve(void *conf, mc_config_t *cfg, char *msg, size_t msglen)
{
    weights_conf_t *c = conf;
    c->near = c->far = -1;
    if (!mc_run_selects(cfg, "weights"))
        return 0;
    int rc = parse_ratios(c, c->ratios_opt ? c->ratios_opt : DEFAULT_RATIOS, msg, msglen);
    if (rc)
        return rc;
    if (cfg->weights_on || cfg->numa.membind || cfg->numa.interleave) {
        snprintf(msg, msglen, "weights places the buffer itself; leave out --interleave-weights, "
                              "--membind and --interleave");
        return MB_EXIT_USAGE;
    }
    uint64_t usable = mb_memnodes_usable_mask();
    if (c->tiers_opt) {
        int a, b, used = 0;
        if (sscanf(c->tiers_opt, "%d,%d%n", &a, &b, &used) != 2 || c->tiers_opt[used] || a < 0 ||
            b < 0 || a >= 64 || b >= 64 || a == b) {
            snprintf(msg, msglen, "--tiers '%s': expected NEAR,FAR, two different node numbers "
                     "(e.g. 0,2)", c->tiers_opt);
            return MB_EXIT_USAGE;
        }
        for (int k = 0; k < 2; k++) {
            int n = k ? b : a;
            if (!(usable >> n & 1)) {
                char ok[256];
                snprintf(msg, msglen, "--tiers '%s': node %d is not a memory node this process may "
                         "use (those are %s)", c->tiers_opt, n,
                         mb_numa_format_nodes(usable, ok, sizeof ok));
                return MB_EXIT_USAGE;
            }
        }
        c->near = a, c->far = b;
        snprintf(c->tiers_how, sizeof c->tiers_how, "--tiers");
        return 0;
    }
    mb_memnode_t n[MB_MEMNODES_MAX];
    char why[256];
    int k = mb_memnodes_list(n, MB_MEMNODES_MAX, why, sizeof why);
    for (int i = 0; i < k; i++) {
        if (n[i].node >= 64 || !(usable >> n[i].node & 1))
            continue;
        if (n[i].has_cpu && c->near < 0)
            c->near = n[i].node;
        else if (!n[i].has_cpu && c->far < 0)
            c->far = n[i].node;
    }
    snprintf(c->tiers_how, sizeof c->tiers_how, "the first node with CPUs and the first CPU-less "
             "node");
    return 0;
}

static int weights_supported(const mc_config_t *cfg, char *why, size_t whylen)
{
    const weights_conf_t *c = mc_cli_conf(cfg->cli, &mc_sc_weights);
    if (c->near >= 0 && c->far >= 0)
        return 0;
    char ok[256];
    snprintf(why, whylen, "no %s memory node to spread the buffer over (usable memory nodes: %s); "
             "name two with --tiers NEAR,FAR", c->near < 0 ? "near (with CPUs)" : "CPU-less far",
             mb_numa_format_nodes(mb_memnodes_usable_mask(), ok, sizeof ok));
    return MB_EXIT_RESOURCE;
}

static void weights_json(mb_json_t *j, const void *conf)
{
    const weights_conf_t *c = conf;
    if (c->near >= 0 && c->far >= 0) {
        mb_json_int(j, "near", c->near);
        mb_json_int(j, "far", c->far);
    } else {
        mb_json_unavailable(j, "near", "no pair of memory nodes found");
        mb_json_unavailable(j, "far", "no pair of memory nodes found");
    }
    mb_json_string(j, "tiers_how", c->tiers_how);
    mb_json_array_begin(j, "ratios");
    for (int r = 0; r < c->nratios; r++) {
        char s[32];
        snprintf(s, sizeof s, "%u:%u", c->ratio[r][0], c->ratio[r][1]);
        mb_json_string(j, NULL, s);
    }
    mb_json_array_end(j);
}

static void weights_plan(FILE *f, const void *conf)
{
    const weights_conf_t *c = conf;
    fprintf(f, "  weights: seqread with the buffer on node %d and node %d at %d ratio(s)\n", c->near,
            c->far, c->nratios);
}

enum { W_RATIO, W_NEAR_PCT, W_BW, W_GOT_NEAR, W_GOT_FAR, W_NCOLS };
static const mc_col_t cols[W_NCOLS] = {
    [W_RATIO] = { "ratio", "", true },             [W_NEAR_PCT] = { "near_share_asked", "%", false },
    [W_BW] = { "bandwidth", "GB/s", false },       [W_GOT_NEAR] = { "pages_on_near", "%", false },
    [W_GOT_FAR] = { "pages_on_far", "%", false },
};

static int weights_run(const mc_config_t *cfg, const void *conf, mc_result_t *res)
{
    const weights_conf_t *c = conf;
    mc_config_t *cfg1 = mc_result_alloc(res, sizeof *cfg1);
    if (!cfg1)
        return mc_result_fail(res, MB_EXIT_RESOURCE, "out of memory");
    mc_table_t *tab = mc_table_new(res, "weights", cols, W_NCOLS);
    double best = -1;
    int best_r = -1, done = 0;
    for (int r = 0; r < c->nratios; r++) {
        *cfg1 = *cfg;
        cfg1->weights_on = true;
        cfg1->weights = (mb_weights_t){ .n = 2, .node = { c->near, c->far },
                                        .weight = { c->ratio[r][0], c->ratio[r][1] } };
        mc_subrun_t s = mc_subrun(&mc_sc_seqread, cfg1, "bandwidth", c->near);
        /* the far share comes from the same buffer: 100 - near when only the two hold pages */
        double far = isfinite(s.on_node) ? 100.0 - s.on_node : NAN;
        char name[32];
        snprintf(name, sizeof name, "%u:%u", c->ratio[r][0], c->ratio[r][1]);
        long row = mc_table_row(tab);
        mc_table_str(tab, row, W_RATIO, name);
        mc_table_num(tab, row, W_NEAR_PCT,
                     100.0 * c->ratio[r][0] / (double)(c->ratio[r][0] + c->ratio[r][1]));
        mc_table_num(tab, row, W_BW, s.value);
        mc_table_num(tab, row, W_GOT_NEAR, s.on_node);
        mc_table_num(tab, row, W_GOT_FAR, far);
        if (s.why[0])
            mc_result_note(res, "weights %s: %s", name, s.why);
        if (isfinite(s.value) && s.value > best)
            best = s.value, best_r = r;
        done++;
        if (s.interrupted || (cfg->stop && *cfg->stop)) {
            res->complete = false;
            mc_result_note(res, "weights: interrupted after %d of %d ratios; those are kept", done,
                           c->nratios);
            break;
        }
    }
    mc_restore_mask(cfg);
    res->rec.headline = "bandwidth_best";   /* at the best ratio */
    if (best_r >= 0) {
        mc_metric(res, "bandwidth_best", "GB/s", best);
        mc_metric(res, "best_near_share", "%",
                  100.0 * c->ratio[best_r][0] / (double)(c->ratio[best_r][0] + c->ratio[best_r][1]));
        mc_result_note(res, "weights: the best ratio near:far is %u:%u (node %d : node %d), %.3g GB/s",
                       c->ratio[best_r][0], c->ratio[best_r][1], c->near, c->far, best);
    } else {
        mc_metric_na(res, "bandwidth_best", "GB/s", "no ratio was measured");
        mc_metric_na(res, "best_near_share", "%", "no ratio was measured");
    }
    return 0;
}

const mc_scenario_t mc_sc_weights = {
    .name = "weights",
    .summary = "seqread bandwidth at each near:far page ratio over two memory nodes, and the best "
               "ratio (GB/s)",
    MC_SCENARIO_OPTIONS(weights_opts, weights_conf_t),
    .resolve = weights_resolve,
    .supported = weights_supported,
    .config_json = weights_json,
    .plan = weights_plan,
    .run = weights_run,
};
