/* matrix: idle latency and bandwidth from every initiator node to every
 * memory node, CPU-less nodes included (what Intel MLC's --latency_matrix
 * and --bandwidth_matrix show, on any CPU).
 *
 * Each cell runs the existing scenarios on a copy of the configuration
 * whose measured buffer is bound to the target node (mbind MPOL_BIND,
 * before the first touch) and whose threads sit on the initiator node:
 *   latency     randread (its --stride, --tlb-locality, --chains) on one
 *               thread, the first allowed CPU of the initiator;
 *   bandwidth   seqread on every allowed CPU of the initiator;
 *   mix         mixed (its --read-pct and --pattern) on the same CPUs.
 * So a local cell is randread's and seqread's figure by construction.
 * Every cell reads back where its pages landed (move_pages) and says so;
 * where the firmware declares the pair's performance (HMAT), the cell
 * shows the declared figure beside the measured one, and the ratio. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "exitcodes.h"
#include "json.h"
#include "memnodes.h"
#include "scenario.h"
#include "subrun.h"
#include "team.h"

extern const mc_scenario_t mc_sc_randread, mc_sc_seqread, mc_sc_mixed, mc_sc_matrix;

typedef struct {
    const char *initiators_opt, *targets_opt;   /* node lists as given, or NULL */
    /* resolved */
    int ninit, ntarget;
    int init[MB_MEMNODES_MAX], target[MB_MEMNODES_MAX];
} matrix_conf_t;

static const mb_opt_t matrix_opts[] = {
    { .long_name = "initiators", .type = MB_OPT_STRING,
      .offset = offsetof(matrix_conf_t, initiators_opt), .metavar = "NODES",
      .def_text = "every node with CPUs this process may use",
      .help = "matrix: the nodes whose CPUs do the loads, as numactl lists them (0,2 or 0-3)" },
    { .long_name = "targets", .type = MB_OPT_STRING, .offset = offsetof(matrix_conf_t, targets_opt),
      .metavar = "NODES", .def_text = "every node with memory, CPU-less ones included",
      .help = "matrix: the memory nodes measured" },
};

/* The nodes of the machine, once (sysfs does not change during a run). */
static mb_memnode_t nodes[MB_MEMNODES_MAX];
static int nnodes;

static const mb_memnode_t *node_of(int id)
{
    for (int i = 0; i < nnodes; i++)
        if (nodes[i].node == id)
            return &nodes[i];
    return NULL;
}

/* "0, 1" of the nodes for which want() holds */
static const char *node_names(bool (*want)(const mb_memnode_t *), char *buf, size_t len)
{
    size_t at = 0;
    buf[0] = '\0';
    for (int i = 0; i < nnodes && at < len; i++)
        if (want(&nodes[i]))
            at += (size_t)snprintf(buf + at, len - at, "%s%d", at ? ", " : "", nodes[i].node);
    if (!buf[0])
        snprintf(buf, len, "none");
    return buf;
}

static bool has_cpu(const mb_memnode_t *n) { return n->has_cpu; }
static bool has_memory(const mb_memnode_t *n) { return n->has_memory; }
static bool any_node(const mb_memnode_t *n) { (void)n; return true; }

/* The allowed CPUs of node n, into cpus[]; returns how many. */
static int node_cpus(const mc_config_t *cfg, const mb_memnode_t *n, int *cpus, int max)
{
    int k = 0;
    for (int c = 0; c < CPU_SETSIZE && k < max; c++)
        if (CPU_ISSET(c, &n->cpus) && CPU_ISSET(c, &cfg->orig_mask))
            cpus[k++] = c;
    return k;
}

/* A node list option into ids[]: every listed node must exist and pass
 * want(); with no list, every node that passes want() and usable().
 * 0, or MB_EXIT_USAGE with msg naming the bad node and the good ones. */
static int pick_nodes(const char *opt, const char *list, bool (*want)(const mb_memnode_t *),
                      const char *what, const mc_config_t *cfg, int *ids, int *n, char *msg,
                      size_t msglen)
{
    char good[256], all[256];
    *n = 0;
    if (!list) {
        for (int i = 0; i < nnodes; i++) {
            int c[1];
            if (want(&nodes[i]) && (want != has_cpu || node_cpus(cfg, &nodes[i], c, 1) > 0))
                ids[(*n)++] = nodes[i].node;
        }
        if (*n)
            return 0;
        snprintf(msg, msglen, "matrix: no node %s (nodes: %s)", what,
                 node_names(any_node, all, sizeof all));
        return MB_EXIT_RESOURCE;
    }
    uint64_t mask;
    char why[256];
    if (mb_numa_parse_nodes(list, ~0ULL, &mask, why, sizeof why) != 0) {
        snprintf(msg, msglen, "%s '%s': %s", opt, list, why);
        return MB_EXIT_USAGE;
    }
    for (int id = 0; id < 64; id++) {
        if (!(mask >> id & 1))
            continue;
        const mb_memnode_t *nd = node_of(id);
        if (!nd) {
            snprintf(msg, msglen, "%s '%s': node %d does not exist; the nodes are %s", opt, list,
                     id, node_names(any_node, all, sizeof all));
            return MB_EXIT_USAGE;
        }
        if (!want(nd)) {
            snprintf(msg, msglen, "%s '%s': node %d is %s; the nodes %s are %s", opt, list, id,
                     mb_memnode_kind(nd), what, node_names(want, good, sizeof good));
            return MB_EXIT_USAGE;
        }
        int c[1];
        if (want == has_cpu && node_cpus(cfg, nd, c, 1) == 0) {
            snprintf(msg, msglen, "%s '%s': this process may use none of node %d's CPUs "
                                  "(taskset or a cgroup cpuset excludes them)", opt, list, id);
            return MB_EXIT_USAGE;
        }
        ids[(*n)++] = id;
    }
    return 0;
}

static int matrix_resolve(void *conf, mc_config_t *cfg, char *msg, size_t msglen)
{
    matrix_conf_t *c = conf;
    if (!mc_run_selects(cfg, "matrix"))
        return 0;
    if (mc_opt_seen(cfg, "sweep")) {
        snprintf(msg, msglen, "--sweep is randread's latency curve; matrix measures one size per "
                              "cell (run randread --sweep on its own, with --membind)");
        return MB_EXIT_USAGE;
    }
    char why[256];
    nnodes = mb_memnodes_list(nodes, MB_MEMNODES_MAX, why, sizeof why);
    if (nnodes <= 0) {
        /* no NUMA in the kernel: one node 0 with every CPU and the memory */
        nnodes = 1;
        memset(&nodes[0], 0, sizeof nodes[0]);
        nodes[0].has_cpu = nodes[0].has_memory = true;
        nodes[0].cpus = cfg->orig_mask;
        nodes[0].memory_tier = -1;
    }
    int rc = pick_nodes("--initiators", c->initiators_opt, has_cpu, "with CPUs", cfg, c->init,
                        &c->ninit, msg, msglen);
    if (rc == 0)
        rc = pick_nodes("--targets", c->targets_opt, has_memory, "with memory", cfg, c->target,
                        &c->ntarget, msg, msglen);
    /* no node to measure by default is not a usage error: supported() says it */
    return rc == MB_EXIT_RESOURCE ? 0 : rc;
}

/* Runs here when there is a cell to measure and every cell's buffer fits
 * in half of its target node's memory (checked before anything is
 * allocated: a buffer bound to a full node would be killed, not slowed). */
static int matrix_supported(const mc_config_t *cfg, char *why, size_t whylen)
{
    const matrix_conf_t *c = mc_cli_conf(cfg->cli, &mc_sc_matrix);
    if (!c->ninit || !c->ntarget) {
        char all[256];
        snprintf(why, whylen, "no %s to measure (nodes: %s)", !c->ninit ? "node with CPUs this "
                 "process may use" : "node with memory", node_names(any_node, all, sizeof all));
        return MB_EXIT_RESOURCE;
    }
    for (int t = 0; t < c->ntarget; t++) {
        const mb_memnode_t *nd = node_of(c->target[t]);
        if (nd && nd->mem_total_bytes && cfg->size_bytes > nd->mem_total_bytes / 2) {
            char a[32], b[32];
            snprintf(why, whylen, "--size %s does not fit in half of node %d's memory (%s); pass "
                                  "a smaller --size", mb_format_bytes(cfg->size_bytes, a, sizeof a),
                     nd->node, mb_format_bytes(nd->mem_total_bytes, b, sizeof b));
            return MB_EXIT_RESOURCE;
        }
    }
    return 0;
}

static void matrix_json(mb_json_t *j, const void *conf)
{
    const matrix_conf_t *c = conf;
    mc_json_ints(j, "initiators", c->init, c->ninit);
    mc_json_ints(j, "targets", c->target, c->ntarget);
}

static void matrix_plan(FILE *f, const void *conf)
{
    const matrix_conf_t *c = conf;
    fprintf(f, "  matrix: %d initiator node(s) x %d memory node(s); each cell runs randread (1 "
               "thread), seqread and mixed with the buffer bound to the target\n",
            c->ninit, c->ntarget);
}

enum { C_INIT, C_TARGET, C_KIND, C_LAT, C_BW, C_MIX, C_PAGES, C_HMAT_LAT, C_LAT_RATIO, C_HMAT_BW,
       C_BW_RATIO, C_BW_KERNEL, C_NCOLS };
static const mc_col_t cell_cols[C_NCOLS] = {
    [C_INIT] = { "initiator", "", false },      [C_TARGET] = { "target", "", false },
    [C_KIND] = { "target_kind", "", true },     [C_LAT] = { "latency", "ns", false },
    [C_BW] = { "bandwidth", "GB/s", false },    [C_MIX] = { "mix_bandwidth", "GB/s", false },
    [C_PAGES] = { "pages_on_target", "%", false },
    [C_HMAT_LAT] = { "hmat_read_latency", "ns", false },
    [C_LAT_RATIO] = { "latency_vs_hmat", "", false },
    [C_HMAT_BW] = { "hmat_read_bandwidth", "GB/s", false },
    [C_BW_RATIO] = { "bandwidth_vs_hmat", "", false },
    [C_BW_KERNEL] = { "bandwidth_kernel", "", true },
};

/* A square view of one cell column: a row per initiator, a column per
 * target ("node1" ...). */
static void square(mc_result_t *res, const char *name, const char *unit, const matrix_conf_t *c,
                   const double *v)
{
    mc_col_t *cols = mc_result_alloc(res, sizeof *cols * (size_t)(c->ntarget + 1));
    char (*names)[16] = mc_result_alloc(res, sizeof *names * (size_t)c->ntarget);
    if (!cols || !names)
        return;
    cols[0] = (mc_col_t){ "initiator", "", false };
    for (int t = 0; t < c->ntarget; t++) {
        snprintf(names[t], sizeof names[t], "node%d", c->target[t]);
        cols[t + 1] = (mc_col_t){ names[t], unit, false };
    }
    mc_table_t *tab = mc_table_new(res, name, cols, c->ntarget + 1);
    for (int i = 0; tab && i < c->ninit; i++) {
        long row = mc_table_row(tab);
        mc_table_num(tab, row, 0, c->init[i]);
        for (int t = 0; t < c->ntarget; t++)
            mc_table_num(tab, row, t + 1, v[(size_t)i * (size_t)c->ntarget + (size_t)t]);
    }
}

static double ratio(double measured, double declared)
{
    return isfinite(measured) && isfinite(declared) && declared > 0 ? measured / declared : NAN;
}

/* A latency (ns) and a bandwidth (GB/s) metric, or both unavailable with why. */
static void headline_pair(mc_result_t *res, const char *lat_name, double lat, const char *bw_name,
                          double bw, bool measured, const char *why)
{
    if (measured) {
        mc_metric(res, lat_name, "ns", lat);
        mc_metric(res, bw_name, "GB/s", bw);
    } else {
        mc_metric_na(res, lat_name, "ns", why);
        mc_metric_na(res, bw_name, "GB/s", why);
    }
}

static int matrix_run(const mc_config_t *cfg, const void *conf, mc_result_t *res)
{
    const matrix_conf_t *c = conf;
    const size_t ncell = (size_t)c->ninit * (size_t)c->ntarget;
    double *lat = mc_result_alloc(res, sizeof *lat * ncell);
    double *bw = mc_result_alloc(res, sizeof *bw * ncell);
    double *mix = mc_result_alloc(res, sizeof *mix * ncell);
    mc_config_t *cfg1 = mc_result_alloc(res, sizeof *cfg1);
    if (!lat || !bw || !mix || !cfg1)
        return mc_result_fail(res, MB_EXIT_RESOURCE, "out of memory for the matrix");
    for (size_t k = 0; k < ncell; k++)
        lat[k] = bw[k] = mix[k] = NAN;
    mc_table_t *cells = mc_table_new(res, "cells", cell_cols, C_NCOLS);
    size_t measured = 0, misplaced = 0, declared = 0;
    bool stopped = false;

    for (int i = 0; i < c->ninit && !stopped; i++) {
        *cfg1 = *cfg;
        cfg1->nthreads = node_cpus(cfg, node_of(c->init[i]), cfg1->cpu, MB_MAX_THREADS);
        for (int t = 0; t < c->ntarget && !stopped; t++) {
            const size_t k = (size_t)i * (size_t)c->ntarget + (size_t)t;
            const int tn = c->target[t];
            cfg1->bind_node_on = true;
            cfg1->bind_node = tn;
            mc_config_t one = *cfg1;       /* latency: one thread, the node's first CPU */
            one.nthreads = 1;
            mc_subrun_t L = mc_subrun(&mc_sc_randread, &one, "latency", tn);
            mc_subrun_t B = mc_subrun(&mc_sc_seqread, cfg1, "bandwidth", tn);
            mc_subrun_t M = mc_subrun(&mc_sc_mixed, cfg1, "total_bandwidth", tn);
            stopped = L.interrupted || B.interrupted || M.interrupted || (cfg->stop && *cfg->stop);
            lat[k] = L.value, bw[k] = B.value, mix[k] = M.value;

            mb_hmat_t h;
            mb_hmat_lookup(tn, c->init[i], &h);
            long row = mc_table_row(cells);
            mc_table_num(cells, row, C_INIT, c->init[i]);
            mc_table_num(cells, row, C_TARGET, tn);
            mc_table_str(cells, row, C_KIND, mb_memnode_kind(node_of(tn)));
            mc_table_num(cells, row, C_LAT, L.value);
            mc_table_num(cells, row, C_BW, B.value);
            mc_table_num(cells, row, C_MIX, M.value);
            /* the pages check: the lowest share of any of the three buffers */
            double on = fmin(fmin(L.on_node, B.on_node), M.on_node);
            mc_table_num(cells, row, C_PAGES, on);
            if (isnan(on))
                mc_table_str(cells, row, C_PAGES, "placement unreadable (move_pages)");
            else if (on < 99.5) {
                misplaced++;
                mc_result_note(res, "matrix: cell %d -> %d: only %.1f%% of the sampled pages are on "
                               "node %d (the node is short of free memory?)", c->init[i], tn, on, tn);
            }
            const double hbw = h.read_bandwidth_mbps / 1000.0;
            mc_table_num(cells, row, C_HMAT_LAT, h.read_latency_ns);
            mc_table_num(cells, row, C_LAT_RATIO, ratio(L.value, h.read_latency_ns));
            mc_table_num(cells, row, C_HMAT_BW, hbw);
            mc_table_num(cells, row, C_BW_RATIO, ratio(B.value, hbw));
            if (!h.declared)
                for (int col = C_HMAT_LAT; col <= C_BW_RATIO; col++)
                    mc_table_str(cells, row, col, "the firmware declares no figure (no HMAT entry)");
            declared += h.declared;
            mc_table_str(cells, row, C_BW_KERNEL, B.kernel[0] ? B.kernel : "unknown");
            const mc_subrun_t *runs[] = { &L, &B, &M };
            for (int r = 0; r < 3; r++)
                if (runs[r]->why[0])
                    mc_result_note(res, "matrix: cell %d -> %d: %s", c->init[i], tn, runs[r]->why);
            measured++;
        }
    }
    mc_restore_mask(cfg);
    if (stopped) {
        res->complete = false;
        mc_result_note(res, "matrix: interrupted after %zu of %zu cells; the cells measured are kept",
                       measured, ncell);
    }
    square(res, "latency", "ns", c, lat);
    square(res, "bandwidth", "GB/s", c, bw);
    square(res, "mix_bandwidth", "GB/s", c, mix);

    /* headline: the local cells (initiator == target), then the others */
    double local_lat = INFINITY, local_bw = 0, remote_lat = 0, remote_bw = INFINITY;
    bool any_local = false, any_remote = false;
    for (int i = 0; i < c->ninit; i++)
        for (int t = 0; t < c->ntarget; t++) {
            const size_t k = (size_t)i * (size_t)c->ntarget + (size_t)t;
            if (!isfinite(lat[k]) || !isfinite(bw[k]))
                continue;
            if (c->init[i] == c->target[t]) {
                any_local = true;
                local_lat = fmin(local_lat, lat[k]);
                local_bw = fmax(local_bw, bw[k]);
            } else {
                any_remote = true;
                remote_lat = fmax(remote_lat, lat[k]);
                remote_bw = fmin(remote_bw, bw[k]);
            }
        }
    res->rec.headline = "bandwidth_local";   /* a node's own memory */
    headline_pair(res, "latency_local", local_lat, "bandwidth_local", local_bw, any_local,
                  "no local cell measured (no initiator is also a target)");
    headline_pair(res, "latency_remote_max", remote_lat, "bandwidth_remote_min", remote_bw,
                  any_remote, "no remote cell measured (one node, or initiators equal targets)");
    mc_metric(res, "cells_measured", "", (double)measured);
    mc_metric(res, "cells_misplaced", "", (double)misplaced);
    mc_metric(res, "cells_with_hmat", "", (double)declared);
    mc_result_note(res, "matrix: latency is randread on one thread (the initiator's first CPU), "
                   "bandwidth seqread and mix mixed on all the initiator's allowed CPUs; each "
                   "cell's buffer bound to its target node with mbind(MPOL_BIND); seqread's read "
                   "kernel per --kernel-variant (auto: each cell calibrates its own; column "
                   "bandwidth_kernel)");
    return 0;
}

const mc_scenario_t mc_sc_matrix = {
    .name = "matrix",
    .summary = "latency and bandwidth from every initiator node to every memory node (ns, GB/s), "
               "with HMAT's declared figures",
    MC_SCENARIO_OPTIONS(matrix_opts, matrix_conf_t),
    .resolve = matrix_resolve,
    .supported = matrix_supported,
    .config_json = matrix_json,
    .plan = matrix_plan,
    .run = matrix_run,
};
