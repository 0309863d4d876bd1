/* mpi_options: stream_mpi's command line: every stream option (same
 * table, same meaning, the size being the aggregate) plus the MPI ones:
 *   --star            every rank runs a full-size STREAM at once (StarSTREAM)
 *   --inject-rank R   the rank whose array --inject-error corrupts (implies
 *                     --inject-error=a when that is not given)
 *   --timeout S       limit of every wait for the other ranks
 *   --fault KIND:R    testing: rank R dies (SIGKILL) or hangs after the
 *                     initialisation */
#ifndef ST_MPI_OPTIONS_H
#define ST_MPI_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "config.h"

typedef enum { ST_FAULT_NONE = 0, ST_FAULT_DIE, ST_FAULT_HANG } st_fault_t;

typedef struct {
    st_options_t st;           /* first: stream's table writes through it */
    bool star;
    long long inject_rank;     /* -1: not given */
    double timeout_s;
    st_fault_t fault;
    long long fault_rank;
} st_mpi_options_t;

#define ST_MPI_TIMEOUT_DEFAULT_TEXT "300"   /* seconds, the --timeout default */

/* 0, or 2 (usage; msg filled) / 3 (no memory). */
int st_mpi_options_parse(int argc, char **argv, st_mpi_options_t *o, char *msg, size_t msglen);
void st_mpi_options_help(FILE *f);

#endif
