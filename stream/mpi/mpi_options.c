/* mpi_options: stream's option table plus stream_mpi's own entries. */
#include "mpi_options.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "exitcodes.h"
#include "options.h"
#include "opts.h"

static int cb_fault(void *cfg, const char *arg, char *msg, size_t msglen)
{
    st_mpi_options_t *o = cfg;
    const char *colon = arg ? strchr(arg, ':') : NULL;
    char *end;
    long long r;

    if (!colon)
        goto bad;
    if (strncmp(arg, "die:", 4) == 0)
        o->fault = ST_FAULT_DIE;
    else if (strncmp(arg, "hang:", 5) == 0)
        o->fault = ST_FAULT_HANG;
    else
        goto bad;
    r = strtoll(colon + 1, &end, 10);
    if (end == colon + 1 || *end || r < 0 || r > INT_MAX)
        goto bad;
    o->fault_rank = r;
    return 0;
bad:
    snprintf(msg, msglen, "invalid value '%s': use die:RANK or hang:RANK", arg ? arg : "");
    return MB_EXIT_USAGE;
}

#define OFF(f) offsetof(st_mpi_options_t, f)

/* inject-rank -1: not given (--inject-error then corrupts rank 0's). */
static const mb_opt_t st_mpi_opts[] = {
    { .long_name = "star", .type = MB_OPT_FLAG, .offset = OFF(star),
      .help = "StarSTREAM: every rank runs its own full-size STREAM at the same time (the size "
              "is per rank); reports min/avg/max over the ranks" },
    { .long_name = "inject-rank", .type = MB_OPT_INT, .offset = OFF(inject_rank), .min = 0,
      .max = INT_MAX, .metavar = "RANK", .def = "-1", .def_text = "0",
      .help = "the rank whose array --inject-error corrupts (implies --inject-error=a)" },
    { .long_name = "timeout", .type = MB_OPT_DOUBLE, .offset = OFF(timeout_s), .dmin = 0.1,
      .dmax = 1e7, .metavar = "SECONDS", .def = ST_MPI_TIMEOUT_DEFAULT_TEXT,
      .help = "give up when another rank has not answered within this time (it died or hangs)" },
    { .long_name = "fault", .type = MB_OPT_CALLBACK, .cb = cb_fault, .metavar = "KIND:RANK",
      .help = "testing: rank RANK dies (die:RANK, SIGKILL) or hangs (hang:RANK) after the "
              "initialisation" },
};
#define ST_MPI_NOPTS (sizeof st_mpi_opts / sizeof st_mpi_opts[0])

int st_mpi_options_parse(int argc, char **argv, st_mpi_options_t *o, char *msg, size_t msglen)
{
    int rc;

    memset(o, 0, sizeof *o);
    o->fault_rank = -1;        /* the table fills the rest */
    rc = st_options_parse_ext(argc, argv, &o->st, st_mpi_opts, ST_MPI_NOPTS, msg, msglen);
    if (rc != 0)
        return rc;
    if (o->inject_rank >= 0 && !o->st.inject)
        o->st.inject = "a";
    if (o->st.inject && o->inject_rank < 0)
        o->inject_rank = 0;
    return 0;
}

void st_mpi_options_help(FILE *f)
{
    st_options_help_ext(f, "mpirun -np N stream_mpi [OPTIONS]   (or srun -n N stream_mpi ...)\n\n"
                           "STREAM over MPI ranks, stream_mpi 1.8 rules: the aggregate array is "
                           "split across\nthe ranks (the first (n mod ranks) ranks hold one element "
                           "more); every kernel is\ntimed barrier, kernel, barrier; per round the "
                           "minimum time over the ranks counts;\nbytes count the aggregate.  "
                           "Every rank validates its part.\n"
                           "Exit status: 0 ok, 1 validation failed on some rank (or a rank died), "
                           "2 usage error,\n3 resource unavailable, 4 feature not built.",
                        st_mpi_opts, ST_MPI_NOPTS);
}
