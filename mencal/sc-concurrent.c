/* concurrent: N worker processes, each with its own buffer, doing random
 * cache-line reads and writes at --read-pct, released together by a
 * process-shared barrier, for --duration seconds.  Reports the total and
 * the spread between processes (min, max, max/min, CV, Jain's index).
 *
 * Every child is reaped: a worker that dies is reported with its signal
 * or exit code, never averaged away; on SIGINT the workers are stopped
 * and reaped and the figures gathered so far are kept (incomplete);
 * children die with the parent (PR_SET_PDEATHSIG), so none is orphaned. */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "access.h"
#include "buffer.h"
#include "exitcodes.h"
#include "json.h"
#include "scenario.h"
#include "team.h"
#include "thp.h"
#include "timer.h"

#define MAX_PROCS 4096
#define PROCS_PER_CPU 64              /* --procs above 64 x CPUs is refused */

/* --procs, --duration (shared with stability), --read-pct (shared with
 * mixed) and the checked values. */
typedef struct {
    long long procs_opt;
    double duration_s;
    long long read_pct;
    int procs;                 /* --procs, else one per physical core */
    char oversub[160];         /* label reason when procs > allowed CPUs, else "" */
} concurrent_conf_t;

#define OFF(f) offsetof(concurrent_conf_t, f)
static const mb_opt_t concurrent_opts[] = {
    { .long_name = "procs", .short_name = 'p', .type = MB_OPT_INT, .offset = OFF(procs_opt),
      .min = 1, .max = MAX_PROCS, .metavar = "N", .def_text = "one per physical core",
      .help = "concurrent: worker processes, each with its own buffer of size/N" },
    MC_OPT_DURATION(concurrent_conf_t, duration_s),
    MC_OPT_READ_PCT(concurrent_conf_t, read_pct),
};
#undef OFF

static int concurrent_resolve(void *conf, mc_config_t *cfg, char *msg, size_t msglen)
{
    concurrent_conf_t *c = conf;
    c->procs = mc_opt_seen(cfg, "procs") ? (int)c->procs_opt : cfg->ncores;
    if (c->procs > PROCS_PER_CPU * cfg->ncpus_allowed) {
        snprintf(msg, msglen, "--procs %d is more than %d per allowed CPU (%d CPUs); use at most "
                 "%d", c->procs, PROCS_PER_CPU, cfg->ncpus_allowed,
                 PROCS_PER_CPU * cfg->ncpus_allowed);
        return MB_EXIT_USAGE;
    }
    /* only a run of concurrent splits --size between processes: another
     * scenario's small --size on many cores is not refused for it */
    if (mc_run_selects(cfg, "concurrent") && cfg->size_bytes / (size_t)c->procs < 4096) {
        snprintf(msg, msglen, "--procs %d: each process needs at least 4 KiB of --size", c->procs);
        return MB_EXIT_USAGE;
    }
    /* More processes than allowed CPUs time-share the cores: not a
     * standard figure (stream labels it the same way). */
    if (c->procs > cfg->ncpus_allowed)
        snprintf(c->oversub, sizeof c->oversub, "--procs %d on %d allowed CPUs: "
                 "oversubscribed, not a standard result", c->procs, cfg->ncpus_allowed);
    return 0;
}

static void concurrent_json(mb_json_t *j, const void *conf)
{
    const concurrent_conf_t *c = conf;
    mb_json_int(j, "procs", c->procs);
    mb_json_number(j, "duration_s", c->duration_s);
    mb_json_int(j, "read_pct", (int)c->read_pct);
}

static const char *concurrent_not_standard(const void *conf)
{
    const concurrent_conf_t *c = conf;
    return c->oversub[0] ? c->oversub : NULL;
}

static void concurrent_plan(FILE *f, const void *conf)
{
    const concurrent_conf_t *c = conf;
    fprintf(f, "procs: %d\nduration_s: %g\n", c->procs, c->duration_s);
}

#define CHUNK_ACCESSES 4096
#define REAP_GRACE_NS 5000000000ULL   /* after stop: wait 5 s, then SIGKILL */

typedef struct {
    _Alignas(64) _Atomic uint64_t reads, writes;
    _Atomic int finished;      /* 1 when the worker left its loop */
    int cpu, node;
    int setup_err;             /* errno of a failed setup, 0 ok */
    double elapsed_s;          /* the worker's own measured time */
    bool thp_ok;               /* the worker read its buffer's THP backing */
    uint64_t thp_huge, thp_rss;   /* AnonHugePages and Rss of its buffer, bytes */
    char thp_why[120];
} slot_t;

typedef struct {
    pthread_barrier_t barrier;
    _Atomic int stop;
    _Atomic int nready;
    slot_t slot[];
} shared_t;

typedef struct {
    pid_t pid;
    bool reaped;
    int status;                /* wait status */
    struct rusage ru;
} child_t;

static void sleep_ns(uint64_t ns)
{
    struct timespec ts = { (time_t)(ns / 1000000000ULL), (long)(ns % 1000000000ULL) };
    nanosleep(&ts, NULL);
}

/* The worker: never returns. */
static void __attribute__((noreturn))
worker(const mc_config_t *cfg, const concurrent_conf_t *cc, shared_t *sh, int w, size_t bytes,
       pid_t parent)
{
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent)   /* the parent died before prctl */
        _exit(1);
    prctl(PR_SET_NAME, "mencal-worker");
    signal(SIGINT, SIG_IGN);   /* the parent stops us through sh->stop */
    signal(SIGTERM, SIG_DFL);
    slot_t *s = &sh->slot[w];
    mc_pin_self(cfg->cpu[w % cfg->ncores]);
    void *buf = NULL;
    char why[256];
    int rc = mc_buffer_alloc(cfg, bytes, &buf, why, sizeof why);
    if (rc == 0) {
        memset(buf, 0, bytes);   /* first touch: local to this worker's CPU */
        mb_thp_t t;
        s->thp_ok = mb_thp_measure(buf, bytes, &t) == 0;
        s->thp_huge = t.anon_huge_bytes;
        s->thp_rss = t.rss_bytes;
        snprintf(s->thp_why, sizeof s->thp_why, "%.110s", t.why);
    }
    s->setup_err = rc ? -rc : 0;
    s->cpu = sched_getcpu();
    s->node = mc_cpu_node(-1);
    atomic_fetch_add(&sh->nready, 1);
    pthread_barrier_wait(&sh->barrier);
    if (rc != 0)
        _exit(3);
    mc_mix_t m;
    mc_mix_init(&m, buf, bytes / MC_LINE_BYTES, (unsigned)cc->read_pct, true, cfg->random_state,
                (uint64_t)w);
    uint64_t t0 = mb_now_ns();
    while (!atomic_load_explicit(&sh->stop, memory_order_relaxed)) {
        mc_mix_run(&m, CHUNK_ACCESSES);
        atomic_store_explicit(&s->reads, m.reads, memory_order_relaxed);
        atomic_store_explicit(&s->writes, m.writes, memory_order_relaxed);
    }
    s->elapsed_s = (double)(mb_now_ns() - t0) * 1e-9;
    s->cpu = sched_getcpu();
    s->node = mc_cpu_node(-1);
    volatile uint64_t consumed = m.sink;
    (void)consumed;
    atomic_store(&s->finished, 1);
    _exit(0);
}

/* Reap whatever has exited, without blocking.  Returns the count still running. */
static int reap_some(child_t *ch, int n)
{
    int running = 0;
    for (int i = 0; i < n; i++) {
        if (ch[i].reaped || ch[i].pid <= 0)
            continue;
        pid_t r = wait4(ch[i].pid, &ch[i].status, WNOHANG, &ch[i].ru);
        if (r == ch[i].pid)
            ch[i].reaped = true;
        else
            running++;
    }
    return running;
}

/* Stop, then reap every child: a grace period, then SIGKILL. */
static void reap_all(shared_t *sh, child_t *ch, int n)
{
    atomic_store(&sh->stop, 1);
    uint64_t deadline = mb_now_ns() + REAP_GRACE_NS;
    while (reap_some(ch, n) > 0 && mb_now_ns() < deadline)
        sleep_ns(2000000);
    for (int i = 0; i < n; i++)
        if (!ch[i].reaped && ch[i].pid > 0) {
            kill(ch[i].pid, SIGKILL);
            if (wait4(ch[i].pid, &ch[i].status, 0, &ch[i].ru) == ch[i].pid)
                ch[i].reaped = true;
        }
}

static bool child_ok(const child_t *c, const slot_t *s)
{
    return c->reaped && WIFEXITED(c->status) && WEXITSTATUS(c->status) == 0 && !s->setup_err;
}

static void child_status(const child_t *c, const slot_t *s, char *buf, size_t len)
{
    if (c->pid <= 0)
        snprintf(buf, len, "not started (fork failed)");
    else if (!c->reaped)
        snprintf(buf, len, "not reaped");
    else if (s->setup_err)
        snprintf(buf, len, "setup failed: %s", strerror(s->setup_err));
    else if (WIFSIGNALED(c->status))
        snprintf(buf, len, "killed by signal %d (%s)", WTERMSIG(c->status),
                 strsignal(WTERMSIG(c->status)));
    else if (WIFEXITED(c->status) && WEXITSTATUS(c->status) != 0)
        snprintf(buf, len, "exited with code %d", WEXITSTATUS(c->status));
    else
        snprintf(buf, len, "ok");
}

static const mc_col_t worker_cols[] = {
    { "worker", "", false },     { "pid", "", false },       { "cpu", "", false },
    { "node", "", false },       { "reads", "", false },     { "writes", "", false },
    { "seconds", "s", false },   { "bandwidth", "GB/s", false }, { "minflt", "", false },
    { "maxrss", "KiB", false }, { "status", "", true },
};

/* The figures of one round that --reps repeats. */
enum { F_TOTAL, F_PMIN, F_PMAX, F_RATIO, F_CV, F_JAIN, NFIG };

/* One round's summary. */
typedef struct {
    int nok;
    double fig[NFIG];          /* NaN when not measured */
    double *gbps;              /* per worker that completed (nok), owned by the caller */
    bool interrupted, started;
} round_t;

/* One round: fork the workers, release them, run for --duration, reap.
 * The last round (`last`) also fills the worker table, the THP share and
 * the notes.  0, or a failure through mc_result_fail. */
static int concurrent_round(const mc_config_t *cfg, const concurrent_conf_t *cc,
                            mc_result_t *res, bool last, round_t *out)
{
    const int n = cc->procs;
    const size_t bytes = mc_slice_bytes(cfg->size_bytes, n, 4096);
    memset(out, 0, sizeof *out);
    for (int f = 0; f < NFIG; f++)
        out->fig[f] = NAN;
    size_t shbytes = sizeof(shared_t) + (size_t)n * sizeof(slot_t);
    shared_t *sh = mmap(NULL, shbytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (sh == MAP_FAILED)
        return mc_result_fail(res, MB_EXIT_RESOURCE, "shared mmap of %zu bytes failed: %s", shbytes,
                              strerror(errno));
    memset(sh, 0, shbytes);
    pthread_barrierattr_t ba;
    pthread_barrierattr_init(&ba);
    pthread_barrierattr_setpshared(&ba, PTHREAD_PROCESS_SHARED);
    int prc = pthread_barrier_init(&sh->barrier, &ba, (unsigned)n + 1);
    pthread_barrierattr_destroy(&ba);
    if (prc != 0) {
        munmap(sh, shbytes);
        return mc_result_fail(res, MB_EXIT_RESOURCE, "pthread_barrier_init: %s", strerror(prc));
    }
    child_t *ch = calloc((size_t)n, sizeof *ch);
    if (!ch) {
        pthread_barrier_destroy(&sh->barrier);
        munmap(sh, shbytes);
        return mc_result_fail(res, MB_EXIT_RESOURCE, "out of memory");
    }
    if (last && n > cfg->ncores)
        mc_result_note(res, "--procs %d exceeds the %d physical cores: workers share cores", n,
                       cfg->ncores);

    pid_t parent = getpid();
    fflush(NULL);
    int forked = 0;
    bool fork_failed = false;
    for (int w = 0; w < n; w++) {
        pid_t pid = fork();
        if (pid == 0)
            worker(cfg, cc, sh, w, bytes, parent);
        if (pid < 0) {
            fork_failed = true;
            mc_result_note(res, "fork of worker %d failed: %s", w, strerror(errno));
            break;
        }
        ch[w].pid = pid;
        forked++;
    }

    /* wait until every worker is set up, watching for deaths and SIGINT */
    bool started = false, interrupted = false;
    while (!fork_failed) {
        if (atomic_load(&sh->nready) == n) {
            started = true;
            break;
        }
        if (*cfg->stop) {
            interrupted = true;
            break;
        }
        if (reap_some(ch, forked) < forked)
            break;   /* a worker died during setup: the barrier can never complete */
        sleep_ns(1000000);
    }
    uint64_t t0 = mb_now_ns(), t_end = t0;
    /* one event set per worker process, started as the barrier releases
     * them and stopped when they are told to stop */
    mb_counters_t *ctr = started && cfg->counters_on ? calloc(1, sizeof *ctr) : NULL;
    if (ctr) {
        char why[256];
        if (mb_counters_init(ctr, cfg->counters_list, why, sizeof why) != 0) {
            free(ctr);
            ctr = NULL;
        } else {
            for (int w = 0; w < n; w++)
                mb_counters_join_pid(ctr, w, (int)ch[w].pid, n);
            mb_counters_start(ctr);
        }
    }
    if (started) {
        pthread_barrier_wait(&sh->barrier);   /* everyone is waiting: releases all */
        t0 = mb_now_ns();
        uint64_t until = t0 + (uint64_t)(cc->duration_s * 1e9);
        while (mb_now_ns() < until) {
            if (*cfg->stop) {
                interrupted = true;
                break;
            }
            reap_some(ch, forked);   /* early deaths are recorded as they happen */
            uint64_t left = until - mb_now_ns();
            sleep_ns(left < 20000000ULL ? left : 20000000ULL);
            if (mb_now_ns() >= until)
                break;
        }
        atomic_store(&sh->stop, 1);
        t_end = mb_now_ns();
        if (ctr)
            mb_counters_stop(ctr);
    } else {
        /* workers blocked in the barrier cannot see stop: kill them */
        for (int i = 0; i < forked; i++)
            if (!ch[i].reaped)
                kill(ch[i].pid, SIGKILL);
    }
    reap_all(sh, ch, forked);
    pthread_barrier_destroy(&sh->barrier);

    if (interrupted)
        res->complete = false;
    out->interrupted = interrupted;
    out->started = started;
    double wall = (double)(t_end - t0) * 1e-9;
    /* the worker table: the last round's, or the round that failed */
    bool fill = last || interrupted;
    for (int w = 0; w < n && !fill; w++)
        fill = !child_ok(&ch[w], &sh->slot[w]);
    last = fill;
    mc_table_t *tab = last ? mc_table_new(res, "workers", worker_cols, 11) : NULL;
    double *gbps = calloc((size_t)n, sizeof *gbps);
    int nok = 0, nbad = 0;
    uint64_t reads = 0, writes = 0, huge = 0, rss = 0;
    bool thp_all = true;
    char first_bad[200] = "", thp_why[160] = "";
    for (int w = 0; w < n; w++) {
        slot_t *s = &sh->slot[w];
        char st[160];
        child_status(&ch[w], s, st, sizeof st);
        bool ok = child_ok(&ch[w], s);
        uint64_t r = atomic_load(&s->reads), wr = atomic_load(&s->writes);
        double secs = ok ? s->elapsed_s : NAN;
        double g = ok && secs > 0 ? (double)(r + wr) * MC_LINE_BYTES / secs * 1e-9 : NAN;
        if (tab) {
            long row = mc_table_row(tab);
            mc_table_num(tab, row, 0, w);
            mc_table_num(tab, row, 1, ch[w].pid > 0 ? ch[w].pid : NAN);
            mc_table_num(tab, row, 2, s->cpu);
            mc_table_num(tab, row, 3, s->node >= 0 ? s->node : NAN);
            mc_table_num(tab, row, 4, (double)r);
            mc_table_num(tab, row, 5, (double)wr);
            mc_table_num(tab, row, 6, secs);
            mc_table_num(tab, row, 7, g);
            if (!ok) {
                mc_table_str(tab, row, 6, st);
                mc_table_str(tab, row, 7, st);
            }
            mc_table_num(tab, row, 8, ch[w].reaped ? (double)ch[w].ru.ru_minflt : NAN);
            mc_table_num(tab, row, 9, ch[w].reaped ? (double)ch[w].ru.ru_maxrss : NAN);
            mc_table_str(tab, row, 10, st);
        }
        reads += r, writes += wr;
        if (s->thp_ok) {
            huge += s->thp_huge;
            rss += s->thp_rss;
        } else if (thp_all) {
            thp_all = false;
            snprintf(thp_why, sizeof thp_why, "worker %d: %s", w,
                     s->thp_why[0] ? s->thp_why : "its buffer was not set up");
        }
        if (ctr && !ok) {
            char why[96];
            snprintf(why, sizeof why, "worker %d (pid %d): %.60s", w, (int)ch[w].pid, st);
            mb_counters_mark_missing(ctr, w, why);
        }
        if (ok && gbps) {
            gbps[nok++] = g;
        } else {
            nbad++;
            if (!first_bad[0])
                snprintf(first_bad, sizeof first_bad, "worker %d (pid %d): %s", w,
                         (int)ch[w].pid, st);
        }
    }
    /* the round's summary */
    out->nok = nok;
    out->gbps = gbps;
    if (nok) {
        mb_stats_t st;
        double sum = 0;
        for (int i = 0; i < nok; i++)
            sum += gbps[i];
        out->fig[F_TOTAL] = sum;
        if (mb_stats_compute(gbps, (size_t)nok, 0, &st) == 0) {
            out->fig[F_PMIN] = st.min;
            out->fig[F_PMAX] = st.max;
            out->fig[F_RATIO] = st.min > 0 ? st.max / st.min : NAN;
            out->fig[F_CV] = st.cv;
        }
        out->fig[F_JAIN] = mb_jain_index(gbps, (size_t)nok);
    }
    if (last) {
        mc_metric(res, "read_bytes", "bytes", (double)reads * MC_LINE_BYTES);
        mc_metric(res, "write_bytes", "bytes", (double)writes * MC_LINE_BYTES);
        /* how long the round ran, --duration give or take: no direction */
        mb_metric_better(mc_metric(res, "wall_time", "s", wall), MB_BETTER_NONE);
        mc_metric(res, "workers", "", n);
        mc_metric(res, "workers_failed", "", nbad);
        /* each worker read its own buffer's backing: the share over all of them */
        res->buffer_bytes = bytes * (size_t)n;
        if (thp_all && n > 0) {
            res->thp_known = true;
            res->thp_bytes = (size_t)huge;
            res->rss_bytes = (size_t)rss;
            res->thp_share = rss ? (double)huge / (double)rss : 0.0;
        } else {
            snprintf(res->thp_why, sizeof res->thp_why, "%s", thp_why);
        }
        mc_result_note(res, "%d processes x %zu bytes, random %d%% loads, released by a "
                       "process-shared barrier; per-worker minflt/maxrss from wait4; THP share "
                       "summed over the workers' buffers", n, bytes, (int)cc->read_pct);
        mc_result_note(res, "kernel: whole 64-byte lines loaded or stored at random (access.c's "
                       "line mix, one loop: no variants, no calibration)");
    }
    if (ctr) {
        ctr->bytes_moved = (double)(reads + writes) * MC_LINE_BYTES;
        mc_counters_add(res, ctr);
        mb_counters_finish(ctr);
        free(ctr);
    }
    free(ch);
    munmap(sh, shbytes);
    if (nbad && !interrupted)
        return mc_result_fail(res, MB_EXIT_FAIL, "%d of %d workers failed; first: %s; the figures cover "
                              "the %d that completed", nbad, n, first_bad, nok);
    if (nbad)
        mc_result_note(res, "%d of %d workers did not complete (interrupted); first: %s", nbad,
                       n, first_bad);
    return 0;
}

/* A figure over the rounds: the value with median/min/max/CV across them
 * when --reps > 1, else the one round's value. */
static mb_metric_t *round_metric(mc_result_t *res, const char *name, const char *unit,
                                 const round_t *r, int nr, int fig, const char *why)
{
    double v[1000];
    size_t k = 0;
    for (int i = 0; i < nr && k < sizeof v / sizeof v[0]; i++) {
        double x = r[i].fig[fig];
        if (isfinite(x))
            v[k++] = x;
    }
    if (k == 0)
        return mc_metric_na(res, name, unit, why);
    if (nr == 1)
        return mc_metric(res, name, unit, v[0]);
    return mc_metric_samples(res, name, unit, v, k, why);
}

static int concurrent_run(const mc_config_t *cfg, const void *conf, mc_result_t *res)
{
    const concurrent_conf_t *cc = conf;
    const int reps = cfg->reps;
    round_t *r = calloc((size_t)reps, sizeof *r);
    if (!r)
        return mc_result_fail(res, MB_EXIT_RESOURCE, "out of memory");
    int nr = 0, rc = 0;
    for (int i = 0; i < reps; i++) {
        bool last = i == reps - 1;
        rc = concurrent_round(cfg, cc, res, last, &r[nr]);
        nr++;
        if (rc != 0 || r[nr - 1].interrupted)
            break;
    }
    const round_t *lr = &r[nr - 1];
    const char *none = mc_result_keep(res, lr->interrupted && !lr->started
                                              ? "interrupted before the workers started"
                                              : "no worker completed");
    {
        res->rec.headline = "total_bandwidth";   /* all workers together */
        round_metric(res, "total_bandwidth", "GB/s", r, nr, F_TOTAL, none);
        mc_metric_samples(res, "per_process_bandwidth", "GB/s", lr->gbps, (size_t)lr->nok, none);
        round_metric(res, "per_process_min", "GB/s", r, nr, F_PMIN, none);
        round_metric(res, "per_process_max", "GB/s", r, nr, F_PMAX, none);
        /* fairness: 1 is every worker alike */
        mb_metric_better(round_metric(res, "max_min_ratio", "", r, nr, F_RATIO,
                                      "a worker moved no data"), MB_BETTER_LOWER);
        mb_metric_better(round_metric(res, "cv", "", r, nr, F_CV, none), MB_BETTER_LOWER);
        mb_metric_better(round_metric(res, "fairness_jain", "", r, nr, F_JAIN,
                                      "no worker moved data"), MB_BETTER_HIGHER);
        mc_metric(res, "rounds", "", nr);
        if (reps > 1)
            mc_result_note(res, "%d rounds of --duration %g s (--reps): each figure is the median "
                           "over the rounds with min/max/CV; the worker table and "
                           "per_process_bandwidth are the last round's", nr, cc->duration_s);
    }
    for (int i = 0; i < nr; i++)
        free(r[i].gbps);
    free(r);
    return rc;
}

const mc_scenario_t mc_sc_concurrent = {
    .name = "concurrent",
    .summary = "N processes doing random reads/writes together (total, spread, fairness)",
    MC_SCENARIO_OPTIONS(concurrent_opts, concurrent_conf_t),
    .resolve = concurrent_resolve,
    .config_json = concurrent_json,
    .plan = concurrent_plan,
    .not_standard = concurrent_not_standard,
    .run = concurrent_run,
};
