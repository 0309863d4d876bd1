/* mpi_world: layout and time-limited communication for stream_mpi. */
#include "mpi_world.h"

#include <limits.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "log.h"
#include "timer.h"

enum { ST_TAG_ARRIVE = 7101, ST_TAG_GO = 7102 };

int st_mpi_world_init(st_mpi_world_t *w, char *msg, size_t msglen)
{
    char name[MPI_MAX_PROCESSOR_NAME + 1];
    int len = 0, rc;

    memset(w, 0, sizeof *w);
    w->host_comm = MPI_COMM_NULL;
    w->timeout_s = 300.0;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &w->rank);
    MPI_Comm_size(MPI_COMM_WORLD, &w->ranks);
    if (MPI_Get_processor_name(name, &len) != MPI_SUCCESS || len <= 0) {
        if (gethostname(name, sizeof name) != 0)
            snprintf(name, sizeof name, "unknown");
        name[sizeof name - 1] = '\0';
    } else {
        name[len] = '\0';
    }
    /* Truncated on purpose: host names are at most 63 bytes (HOST_NAME_MAX). */
    len = (int)strnlen(name, sizeof w->host - 1);
    memcpy(w->host, name, (size_t)len);
    w->host[len] = '\0';

    w->hosts = calloc((size_t)w->ranks, sizeof *w->hosts);
    if (!w->hosts) {
        snprintf(msg, msglen, "cannot allocate the host table for %d ranks", w->ranks);
        return -1;
    }
    rc = MPI_Allgather(w->host, ST_MPI_HOST_MAX, MPI_CHAR, w->hosts, ST_MPI_HOST_MAX, MPI_CHAR,
                       MPI_COMM_WORLD);
    if (rc == MPI_SUCCESS)
        rc = MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, w->rank, MPI_INFO_NULL,
                                 &w->host_comm);
    if (rc == MPI_SUCCESS)
        rc = MPI_Comm_size(w->host_comm, &w->host_ranks);
    if (rc == MPI_SUCCESS) {
        w->host_rank_ids = calloc((size_t)w->host_ranks, sizeof *w->host_rank_ids);
        if (!w->host_rank_ids) {
            snprintf(msg, msglen, "cannot allocate the host rank table");
            return -1;
        }
        rc = MPI_Allgather(&w->rank, 1, MPI_INT, w->host_rank_ids, 1, MPI_INT, w->host_comm);
    }
    if (rc != MPI_SUCCESS) {
        char err[MPI_MAX_ERROR_STRING];
        int elen = 0;
        MPI_Error_string(rc, err, &elen);
        snprintf(msg, msglen, "MPI start-up (host layout) failed: %s; check the MPI installation "
                 "and the launcher", err);
        return -1;
    }
    return 0;
}

void st_mpi_world_free(st_mpi_world_t *w)
{
    if (w->host_comm != MPI_COMM_NULL)
        MPI_Comm_free(&w->host_comm);
    free(w->hosts);
    free(w->host_rank_ids);
    w->hosts = NULL;
    w->host_rank_ids = NULL;
}

static void vabort_job(const st_mpi_world_t *w, int code, bool prefix, const char *fmt, va_list ap)
{
    char buf[1024];

    vsnprintf(buf, sizeof buf, fmt, ap);
    if (prefix)
        mb_error("rank %d on %s: %s; aborting the job", w->rank, w->host, buf);
    else
        mb_error("%s; aborting the job", buf);
    fflush(NULL);
    MPI_Abort(MPI_COMM_WORLD, code);
    _exit(code);
}

void st_mpi_die(const st_mpi_world_t *w, int code, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vabort_job(w, code, true, fmt, ap);
    va_end(ap);
    _exit(code);
}

static void die_plain(const st_mpi_world_t *w, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4), noreturn));
static void die_plain(const st_mpi_world_t *w, int code, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vabort_job(w, code, false, fmt, ap);
    va_end(ap);
    _exit(code);
}

static const char *mpi_err(int rc, char *buf)
{
    int len = 0;

    if (MPI_Error_string(rc, buf, &len) != MPI_SUCCESS || len <= 0)
        snprintf(buf, MPI_MAX_ERROR_STRING, "MPI error %d", rc);
    return buf;
}

/* Polling without starving the ranks that still work: spin briefly, then
 * yield; outside the timed rounds (may_sleep), after half a second sleep
 * a millisecond at a time.  The timed barriers never sleep: a late wake
 * would add to the kernel times. */
static void backoff(unsigned long spins, double waited_s, bool may_sleep)
{
    if (spins < 20000)
        return;
    if (!may_sleep || waited_s < 0.5) {
        sched_yield();
        return;
    }
    struct timespec ts = { 0, 1000000 };
    nanosleep(&ts, NULL);
}

static void wait_limit(const st_mpi_world_t *w, MPI_Request *req, const char *what,
                       double limit_s, bool may_sleep)
{
    const double start = mb_now_s();
    unsigned long spins = 0;
    char err[MPI_MAX_ERROR_STRING];

    for (;;) {
        int done = 0, rc = MPI_Test(req, &done, MPI_STATUS_IGNORE);
        double waited;

        if (rc != MPI_SUCCESS)
            st_mpi_die(w, 1, "%s failed: %s (another rank died or the network failed)", what,
                       mpi_err(rc, err));
        if (done)
            return;
        waited = mb_now_s() - start;
        if (waited > limit_s)
            st_mpi_die(w, 1, "%s did not complete within %.0f s: another rank died or hangs "
                       "(--timeout sets the limit)", what, limit_s);
        backoff(++spins, waited, may_sleep);
    }
}

void st_mpi_wait(const st_mpi_world_t *w, MPI_Request *req, const char *what)
{
    wait_limit(w, req, what, w->timeout_s, true);
}

int st_mpi_barrier(void *ctx)
{
    const st_mpi_world_t *w = ctx;
    MPI_Request req;
    char err[MPI_MAX_ERROR_STRING];
    int rc;

    if (w->ranks == 1)
        return 0;
    rc = MPI_Ibarrier(MPI_COMM_WORLD, &req);
    if (rc != MPI_SUCCESS)
        st_mpi_die(w, 1, "barrier failed: %s", mpi_err(rc, err));
    wait_limit(w, &req, "a barrier of the timed rounds", w->timeout_s, false);
    return 0;
}

/* "1 on nodeA, 3 on nodeB" (at most 8 named, then "and N more"). */
static void missing_list(const st_mpi_world_t *w, const char *arrived, char *buf, size_t len,
                         int *count)
{
    size_t used = 0;
    int named = 0;

    *count = 0;
    buf[0] = '\0';
    for (int r = 1; r < w->ranks; r++) {
        if (arrived[r])
            continue;
        (*count)++;
        if (named < 8 && used < len) {
            int n = snprintf(buf + used, len - used, "%s%d on %s", named ? ", " : "", r, w->hosts[r]);
            if (n > 0)
                used += (size_t)n;
            named++;
        }
    }
    if (*count > named && used < len)
        snprintf(buf + used, len - used, " and %d more", *count - named);
}

static void checkpoint_root(const st_mpi_world_t *w, const char *phase)
{
    const int n = w->ranks - 1;
    MPI_Request *rq = calloc((size_t)n, sizeof *rq);
    int *tok = calloc((size_t)n, sizeof *tok), *idx = calloc((size_t)n, sizeof *idx);
    char *arrived = calloc((size_t)w->ranks, 1);
    char err[MPI_MAX_ERROR_STRING], what[128];
    const double start = mb_now_s();
    unsigned long spins = 0;
    int remaining = n, go = 1, rc;

    if (!rq || !tok || !idx || !arrived)
        st_mpi_die(w, 3, "out of memory at %s", phase);
    for (int r = 1; r < w->ranks; r++) {
        rc = MPI_Irecv(&tok[r - 1], 1, MPI_INT, r, ST_TAG_ARRIVE, MPI_COMM_WORLD, &rq[r - 1]);
        if (rc != MPI_SUCCESS)
            st_mpi_die(w, 1, "%s: receive from rank %d failed: %s", phase, r, mpi_err(rc, err));
    }
    while (remaining > 0) {
        int out = 0;
        double waited;

        rc = MPI_Testsome(n, rq, &out, idx, MPI_STATUSES_IGNORE);
        if (rc != MPI_SUCCESS)
            st_mpi_die(w, 1, "%s: waiting for the other ranks failed: %s (a rank died or the "
                       "network failed)", phase, mpi_err(rc, err));
        if (out == MPI_UNDEFINED)
            break;
        for (int j = 0; j < out; j++)
            arrived[idx[j] + 1] = 1;
        remaining -= out;
        waited = mb_now_s() - start;
        if (remaining > 0 && waited > w->timeout_s) {
            char list[768];
            int count;
            missing_list(w, arrived, list, sizeof list, &count);
            die_plain(w, 1, "rank%s %s did not reach %s within %.0f s: %s died or hang%s "
                      "(--timeout sets the limit)", count == 1 ? "" : "s", list, phase,
                      w->timeout_s, count == 1 ? "it" : "they", count == 1 ? "s" : "");
        }
        backoff(++spins, waited, true);
    }
    snprintf(what, sizeof what, "the go-ahead after %s", phase);
    for (int r = 1; r < w->ranks; r++) {
        rc = MPI_Isend(&go, 1, MPI_INT, r, ST_TAG_GO, MPI_COMM_WORLD, &rq[r - 1]);
        if (rc != MPI_SUCCESS)
            st_mpi_die(w, 1, "%s to rank %d failed: %s", what, r, mpi_err(rc, err));
    }
    for (int r = 1; r < w->ranks; r++)
        st_mpi_wait(w, &rq[r - 1], what);
    free(rq);
    free(tok);
    free(idx);
    free(arrived);
}

void st_mpi_checkpoint(const st_mpi_world_t *w, const char *phase)
{
    MPI_Request req;
    char err[MPI_MAX_ERROR_STRING], what[160];
    int tok = w->rank, rc;

    if (w->ranks == 1)
        return;
    if (w->rank == 0) {
        checkpoint_root(w, phase);
        return;
    }
    snprintf(what, sizeof what, "reporting %s to rank 0 on %s", phase, w->hosts[0]);
    rc = MPI_Isend(&tok, 1, MPI_INT, 0, ST_TAG_ARRIVE, MPI_COMM_WORLD, &req);
    if (rc != MPI_SUCCESS)
        st_mpi_die(w, 1, "%s failed: %s", what, mpi_err(rc, err));
    st_mpi_wait(w, &req, what);
    snprintf(what, sizeof what, "waiting for rank 0 on %s after %s", w->hosts[0], phase);
    rc = MPI_Irecv(&tok, 1, MPI_INT, 0, ST_TAG_GO, MPI_COMM_WORLD, &req);
    if (rc != MPI_SUCCESS)
        st_mpi_die(w, 1, "%s failed: %s", what, mpi_err(rc, err));
    /* Longer than rank 0 waits for the others: when a rank is missing,
     * rank 0's message (which names it) comes first. */
    wait_limit(w, &req, what, 2.0 * w->timeout_s + 1.0, true);
}

void st_mpi_allreduce_int(const st_mpi_world_t *w, int *v, MPI_Op op, const char *what)
{
    MPI_Request req;
    char err[MPI_MAX_ERROR_STRING];
    int rc = MPI_Iallreduce(MPI_IN_PLACE, v, 1, MPI_INT, op, MPI_COMM_WORLD, &req);

    if (rc != MPI_SUCCESS)
        st_mpi_die(w, 1, "%s failed: %s", what, mpi_err(rc, err));
    st_mpi_wait(w, &req, what);
}

void st_mpi_allreduce_u64(const st_mpi_world_t *w, unsigned long long *v, MPI_Op op,
                          const char *what)
{
    MPI_Request req;
    char err[MPI_MAX_ERROR_STRING];
    int rc = MPI_Iallreduce(MPI_IN_PLACE, v, 1, MPI_UNSIGNED_LONG_LONG, op, MPI_COMM_WORLD, &req);

    if (rc != MPI_SUCCESS)
        st_mpi_die(w, 1, "%s failed: %s", what, mpi_err(rc, err));
    st_mpi_wait(w, &req, what);
}

void st_mpi_bcast_int(const st_mpi_world_t *w, int *v, const char *what)
{
    MPI_Request req;
    char err[MPI_MAX_ERROR_STRING];
    int rc = MPI_Ibcast(v, 1, MPI_INT, 0, MPI_COMM_WORLD, &req);

    if (rc != MPI_SUCCESS)
        st_mpi_die(w, 1, "%s failed: %s", what, mpi_err(rc, err));
    st_mpi_wait(w, &req, what);
}

void st_mpi_gather_bytes(const st_mpi_world_t *w, const void *in, size_t bytes, void *out,
                         const char *what)
{
    MPI_Request req;
    char err[MPI_MAX_ERROR_STRING];
    int rc;

    if (bytes > INT_MAX)
        st_mpi_die(w, 3, "%s: %zu bytes per rank is more than one MPI message holds", what, bytes);
    rc = MPI_Igather(in, (int)bytes, MPI_BYTE, out, (int)bytes, MPI_BYTE, 0, MPI_COMM_WORLD, &req);
    if (rc != MPI_SUCCESS)
        st_mpi_die(w, 1, "%s failed: %s", what, mpi_err(rc, err));
    st_mpi_wait(w, &req, what);
}

void st_mpi_gather_doubles(const st_mpi_world_t *w, const double *in, size_t n, double *out,
                           const char *what)
{
    MPI_Request req;
    char err[MPI_MAX_ERROR_STRING];
    int rc;

    if (n > INT_MAX)
        st_mpi_die(w, 3, "%s: %zu values per rank is more than one MPI message holds", what, n);
    rc = MPI_Igather(in, (int)n, MPI_DOUBLE, out, (int)n, MPI_DOUBLE, 0, MPI_COMM_WORLD, &req);
    if (rc != MPI_SUCCESS)
        st_mpi_die(w, 1, "%s failed: %s", what, mpi_err(rc, err));
    st_mpi_wait(w, &req, what);
}

int st_mpi_agree(const st_mpi_world_t *w, int rc, const char *msg, bool local)
{
    int worst = rc, first = rc ? w->rank : INT_MAX;

    if (w->ranks > 1) {
        st_mpi_allreduce_int(w, &worst, MPI_MAX, "agreeing on a step's outcome");
        if (worst == 0)
            return 0;
        st_mpi_allreduce_int(w, &first, MPI_MIN, "agreeing on a step's outcome");
    }
    if (worst != 0 && first == w->rank) {
        if (local && w->ranks > 1)
            mb_error("rank %d on %s: %s", w->rank, w->host, msg);
        else
            mb_error("%s", msg);
    }
    return worst;
}
