/* membuild: the memory as built, for memsuite check's reference and its
 * diagnosis: the DIMM slots dmidecode lists (common/dimms), the channels
 * populated per socket, the memory of each NUMA node (common/memnodes)
 * and the EDAC error counters (common/edac).  Each part is either there
 * or unavailable with the reason (not root, no EDAC driver, a VM).
 * memsuite-facts --only build writes it as the "memory_build" object
 * (docs/facts.schema.json); the analyser compares two of them. */
#ifndef MB_MEMBUILD_H
#define MB_MEMBUILD_H

#include "dimms.h"
#include "edac.h"
#include "memnodes.h"

struct mb_json;

typedef struct {
    bool slots_ok;
    mb_dimms_t slots;
    mb_dimms_summary_t summary;     /* its why when !slots_ok; peak_mbps */
    int nsockets;
    int sockets[64], channels[64];  /* populated channels per socket */
    int nnodes;                     /* < 0: unavailable, node_why */
    mb_memnode_t nodes[MB_MEMNODES_MAX];
    char node_why[300];
    mb_edac_t edac;
} mb_membuild_t;

/* Collect every part (large: allocate it, do not put it on the stack). */
void mb_membuild_collect(mb_membuild_t *b);
/* Writes "<key>": { slots, slots_unavailable, channels_per_socket,
 * peak_mbps, peak_note, nodes, nodes_unavailable, edac, edac_unavailable }. */
void mb_membuild_json(const mb_membuild_t *b, struct mb_json *j, const char *key);

#endif
