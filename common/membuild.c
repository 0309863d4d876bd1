/* membuild: slots, channels, node memory and EDAC counts as one block. */
#include "membuild.h"

#include <string.h>

#include "json.h"

void mb_membuild_collect(mb_membuild_t *b)
{
    memset(b, 0, sizeof *b);
    b->slots_ok = mb_dimms_read_table(&b->slots, &b->summary);
    if (b->slots_ok)
        b->nsockets = mb_dimms_channels(&b->slots, b->sockets, b->channels, 64);
    b->nnodes = mb_memnodes_list(b->nodes, MB_MEMNODES_MAX, b->node_why, sizeof b->node_why);
    mb_edac_read(&b->edac);
}

static void count(mb_json_t *j, const char *key, const mb_edac_count_t *c)
{
    if (c->ok)
        mb_json_uint(j, key, c->value);
    else
        mb_json_unavailable(j, key, c->why);
}

static void text_or_null(mb_json_t *j, const char *key, const char *s)
{
    mb_json_string(j, key, s && *s ? s : NULL);
}

static void slot(mb_json_t *j, const mb_dimm_t *d)
{
    mb_json_object_begin(j, NULL);
    mb_json_string(j, "locator", d->locator);
    text_or_null(j, "bank", d->bank);
    if (d->socket >= 0)
        mb_json_int(j, "socket", d->socket);
    else
        mb_json_string(j, "socket", NULL);
    text_or_null(j, "channel", d->channel);
    mb_json_bool(j, "populated", d->size_mb > 0);
    if (d->size_mb > 0) {
        mb_json_uint(j, "size_mb", d->size_mb);
        text_or_null(j, "type", d->type);
        if (d->rated_mts) mb_json_int(j, "rated_mts", d->rated_mts); else mb_json_string(j, "rated_mts", NULL);
        if (d->configured_mts) mb_json_int(j, "configured_mts", d->configured_mts);
        else mb_json_string(j, "configured_mts", NULL);
        if (d->rank) mb_json_int(j, "rank", d->rank); else mb_json_string(j, "rank", NULL);
        text_or_null(j, "manufacturer", d->manufacturer);
        text_or_null(j, "part", d->part);
    }
    mb_json_object_end(j);
}

void mb_membuild_json(const mb_membuild_t *b, mb_json_t *j, const char *key)
{
    mb_json_object_begin(j, key);
    if (b->slots_ok) {
        mb_json_array_begin(j, "slots");
        for (int i = 0; i < b->slots.n; i++)
            slot(j, &b->slots.d[i]);
        mb_json_array_end(j);
        mb_json_array_begin(j, "channels_per_socket");
        for (int k = 0; k < b->nsockets; k++) {
            mb_json_object_begin(j, NULL);
            if (b->sockets[k] >= 0) mb_json_int(j, "socket", b->sockets[k]);
            else mb_json_string(j, "socket", NULL);
            mb_json_int(j, "channels", b->channels[k]);
            mb_json_object_end(j);
        }
        mb_json_array_end(j);
    } else {
        mb_json_unavailable(j, "slots", b->summary.why);
        mb_json_unavailable(j, "channels_per_socket", b->summary.why);
    }
    if (b->summary.peak_mbps > 0)
        mb_json_int(j, "peak_mbps", b->summary.peak_mbps);
    else
        mb_json_string(j, "peak_mbps", NULL);
    mb_json_string(j, "peak_note", b->summary.peak_text);
    if (b->nnodes > 0) {
        mb_json_array_begin(j, "nodes");
        for (int i = 0; i < b->nnodes; i++) {
            mb_json_object_begin(j, NULL);
            mb_json_int(j, "node", b->nodes[i].node);
            if (b->nodes[i].mem_total_bytes > 0)
                mb_json_uint(j, "mem_total_bytes", b->nodes[i].mem_total_bytes);
            else
                mb_json_unavailable(j, "mem_total_bytes", "no MemTotal in its meminfo");
            mb_json_object_end(j);
        }
        mb_json_array_end(j);
    } else {
        mb_json_unavailable(j, "nodes", b->node_why[0] ? b->node_why : "no NUMA node in sysfs");
    }
    if (b->edac.available) {
        mb_json_array_begin(j, "edac");
        for (int i = 0; i < b->edac.nmc; i++) {
            const mb_edac_mc_t *mc = &b->edac.mc[i];
            mb_json_object_begin(j, NULL);
            mb_json_string(j, "controller", mc->name);
            count(j, "ce_count", &mc->ce);
            count(j, "ue_count", &mc->ue);
            mb_json_array_begin(j, "dimms");
            for (int k = 0; k < mc->ndimms; k++) {
                const mb_edac_dimm_t *d = &mc->dimm[k];
                mb_json_object_begin(j, NULL);
                mb_json_string(j, "dimm", d->name);
                text_or_null(j, "label", d->label);
                count(j, "ce_count", &d->ce);
                count(j, "ue_count", &d->ue);
                mb_json_object_end(j);
            }
            mb_json_array_end(j);
            mb_json_object_end(j);
        }
        mb_json_array_end(j);
    } else {
        mb_json_unavailable(j, "edac", b->edac.why);
    }
    mb_json_object_end(j);
}
