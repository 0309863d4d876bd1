/* dimms: the memory modules `dmidecode -t memory` lists, and the
 * theoretical peak bandwidth they allow: channels x MT/s x 8 bytes.
 *
 * Socket and channel come from the Locator / Bank Locator text, which
 * vendors spell differently: "CPU1_DIMM_A1", "P0_Node0_Channel0_Dimm0",
 * "PROC 1 DIMM 3", "NODE 1 CHANNEL B".  When a channel cannot be read,
 * each populated DIMM counts as its own channel and the summary says so.
 * The one parser of dmidecode output in memsuite (sysinfo's "dimms" fact
 * and memsuite-facts use it). */
#ifndef MB_DIMMS_H
#define MB_DIMMS_H

#include <stdbool.h>
#include <stdio.h>

#define MB_DIMMS_MAX 512

typedef struct {
    int socket;                 /* -1: not named in the locators */
    char channel[16];           /* "" when not named */
    unsigned long long size_mb; /* 0: empty slot */
    char type[32];              /* "DDR4"; "" unknown */
    unsigned speed_mts;         /* configured speed, else rated; 0 unknown */
    unsigned rated_mts;         /* "Speed": what the module is rated for; 0 unknown */
    unsigned configured_mts;    /* "Configured Memory Speed": what it runs at; 0 unknown */
    int rank;                   /* 0 unknown */
    char locator[64];
    char bank[64];              /* Bank Locator; "" when not given */
    char manufacturer[64];      /* "" when not given */
    char part[64];              /* Part Number; "" when not given */
} mb_dimm_t;

typedef struct {
    int n;
    mb_dimm_t d[MB_DIMMS_MAX];
} mb_dimms_t;

typedef enum { MB_DIMMS_OK, MB_DIMMS_WARN, MB_DIMMS_UNAVAILABLE } mb_dimms_verdict_t;

typedef struct {
    mb_dimms_verdict_t verdict;
    char text[400];        /* "8/16 slots populated, DDR4, 16 GB each, 3200 MT/s (socket 0 4/8, ...)" */
    char why[300];         /* warn: "unbalanced: ..."; unavailable: the reason */
    long long peak_mbps;   /* MB/s (10^6 bytes/s); -1 unknown */
    char peak_text[200];   /* how the peak was computed, or why it is unknown */
} mb_dimms_summary_t;

/* Parse `dmidecode -t memory` text: one entry per Memory Device (slot). */
void mb_dimms_parse(FILE *in, mb_dimms_t *t);
/* Describe the slots, flag unbalanced population, compute the peak. */
void mb_dimms_summarise(const mb_dimms_t *t, mb_dimms_summary_t *s);
/* Run dmidecode (PATH, then the sbin directories; it needs root:
 * MEMSUITE_ASSUME_ROOT=0|1 overrides the check for tests) and summarise.
 * Without a DMI table (<sysfs>/firmware/dmi/tables/DMI), dmidecode,
 * root or memory devices the summary is unavailable with the reason. */
void mb_dimms_read(mb_dimms_summary_t *s);
/* The slots themselves (for the memory-as-built block of memsuite-facts):
 * true with t filled, or false with s unavailable and its reason (the
 * same checks as mb_dimms_read).  s is the summary either way. */
bool mb_dimms_read_table(mb_dimms_t *t, mb_dimms_summary_t *s);
/* Populated channels per socket: sockets[i] (ascending, -1 unnamed) has
 * channels[i] distinct populated channels (each populated DIMM counts as
 * one when the locators name no channel).  The number of sockets. */
int mb_dimms_channels(const mb_dimms_t *t, int *sockets, int *channels, int max);

#endif
