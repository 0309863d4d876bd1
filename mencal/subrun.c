/* subrun: a scenario run inside another (see subrun.h). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "subrun.h"

/* The value of metric `name` of a finished run, or NAN. */
static double metric_of(const mc_result_t *r, const char *name)
{
    for (size_t k = 0; k < r->rec.nmetric; k++)
        if (strcmp(r->rec.metric[k].name, name) == 0 && r->rec.metric[k].available)
            return r->rec.metric[k].value;
    return NAN;
}

double mc_result_node_share(const mc_result_t *r, int node)
{
    if (node < 0 || node >= MB_NUMA_MAX_NODES || !r->placement_done || !r->placement.valid ||
        r->placement.pages_sampled == 0)
        return NAN;
    return 100.0 * (double)r->placement.pages_on_node[node] / (double)r->placement.pages_sampled;
}

mc_subrun_t mc_subrun(const mc_scenario_t *sc, const mc_config_t *cfg1, const char *metric, int node)
{
    mc_subrun_t out = { NAN, NAN, false, "", "" };
    mc_result_t sub;
    mc_result_init(&sub, sc);
    int rc = sc->run(cfg1, mc_cli_conf(cfg1->cli, sc), &sub);
    if (rc != 0)
        snprintf(out.why, sizeof out.why, "%s: %.200s", sc->name, sub.why[0] ? sub.why : "failed");
    out.value = rc == 0 ? metric_of(&sub, metric) : NAN;
    out.interrupted = !sub.complete;
    out.on_node = mc_result_node_share(&sub, node);
    for (size_t k = 0; k < sub.nnotes && !out.kernel[0]; k++)   /* seqread's choice (kcalib.h) */
        if (sscanf(sub.notes[k], "kernel %31[^ ]", out.kernel) != 1)
            out.kernel[0] = '\0';
    mc_result_free(&sub);
    return out;
}
