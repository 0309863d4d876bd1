/* mpi_world: the MPI side of stream_mpi.  Who is where (rank, host, the
 * ranks sharing this host), and communication that cannot hang: every
 * operation after start-up is non-blocking and waited for with a time
 * limit, so a rank that died or hangs ends the job with a message that
 * names it instead of leaving the others blocked forever.
 *
 * Errors: MPI_COMM_WORLD uses MPI_ERRORS_RETURN, so a failing MPI call
 * returns here.  Waits that time out or fail print
 *   stream_mpi: error: rank R on HOST: <what>: ...; aborting the job
 * and call MPI_Abort (they do not return).  Under mpirun a rank that dies
 * makes mpirun end the job and name the rank; under srun (which lets the
 * others run on) the time limit does it. */
#ifndef ST_MPI_WORLD_H
#define ST_MPI_WORLD_H

#include <mpi.h>
#include <stdbool.h>
#include <stddef.h>

#define ST_MPI_HOST_MAX 64      /* bytes kept of a host name (with the NUL) */

typedef struct {
    int rank;
    int ranks;
    char host[ST_MPI_HOST_MAX];
    char (*hosts)[ST_MPI_HOST_MAX];   /* every rank's host, by rank */
    int host_ranks;                   /* ranks on this host */
    int *host_rank_ids;               /* their world ranks, ascending */
    MPI_Comm host_comm;               /* the ranks on this host */
    double timeout_s;                 /* limit of every wait */
} st_mpi_world_t;

/* After MPI_Init: sets MPI_ERRORS_RETURN and learns the layout (blocking
 * collectives; every rank is alive at this point).  0, or -1 with msg. */
int st_mpi_world_init(st_mpi_world_t *w, char *msg, size_t msglen);
void st_mpi_world_free(st_mpi_world_t *w);

/* Ends the job: prints "rank R on HOST: <fmt>; aborting the job" and calls
 * MPI_Abort(code).  Does not return. */
void st_mpi_die(const st_mpi_world_t *w, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4), noreturn));

/* Waits for one request within w->timeout_s; `what` names the operation
 * in the message when it fails or times out (then the job is aborted). */
void st_mpi_wait(const st_mpi_world_t *w, MPI_Request *req, const char *what);

/* A barrier with the time limit.  Signature fits st_run_sync_t (ctx is
 * the world); returns 0 (a failure aborts the job). */
int st_mpi_barrier(void *ctx);

/* Every rank reports at `phase`.  Rank 0 waits for all of them; the ranks
 * that did not arrive within the limit are named ("rank 3 on node7 did
 * not reach <phase> within 30 s: it died or hangs") and the job is
 * aborted.  The others wait for rank 0's go-ahead (limited the same way). */
void st_mpi_checkpoint(const st_mpi_world_t *w, const char *phase);

/* Agreement on a step that may fail on some ranks: returns the largest rc
 * over all ranks (0: every rank succeeded).  The message is printed once:
 * by rank 0 when rank 0 failed, else by the lowest failing rank, prefixed
 * with "rank R on HOST: " when `local` (the failure depends on the host,
 * such as memory). */
int st_mpi_agree(const st_mpi_world_t *w, int rc, const char *msg, bool local);

/* Nonblocking collectives waited for with the limit. */
void st_mpi_allreduce_int(const st_mpi_world_t *w, int *v, MPI_Op op, const char *what);
void st_mpi_allreduce_u64(const st_mpi_world_t *w, unsigned long long *v, MPI_Op op,
                          const char *what);
void st_mpi_bcast_int(const st_mpi_world_t *w, int *v, const char *what);
/* Gathers `bytes` from every rank into out (rank 0: ranks x bytes). */
void st_mpi_gather_bytes(const st_mpi_world_t *w, const void *in, size_t bytes, void *out,
                         const char *what);
void st_mpi_gather_doubles(const st_mpi_world_t *w, const double *in, size_t n, double *out,
                           const char *what);

#endif
