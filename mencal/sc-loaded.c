/* loaded: latency under load (what Intel MLC calls loaded latency).
 *
 * Thread 0, the latency thread, chases a random cycle in its own slice
 * exactly as randread does (mencal/chase.c: --stride, --tlb-locality,
 * --hugepages, one chain), while threads 1..N-1, the traffic threads,
 * each stream --traffic through their own slice (mencal/traffic.c).  Every
 * thread is pinned to its own CPU, one per physical core, so the latency
 * thread has a core to itself; the threads table records where each ran.
 *
 * A point of the curve is one delay of the ladder: each traffic thread
 * moves a batch of 64 lines of every array, then busy-waits the delay
 * (mencal/delay.c: a loop calibrated once against the clock, so --delays
 * is in nanoseconds), so the injected bandwidth steps down as the delay
 * grows.  The traffic loop (read, write, copy) is chosen by measurement
 * first (kcalib.h, trafficcal.h: the traffic threads time every variant
 * over their own slices; --kernel-variant forces one).  A point is
 * --windows sample windows (plus one warm-up) on the
 * shared driver (measure.h): in each, the latency thread chases for 5 ms
 * (whole blocks of the chase, the clock read between blocks) and reads the
 * traffic threads' byte counters at
 * its start and end, so bandwidth and latency are measured over the same
 * interval.  Per point: the traffic bandwidth measured (bytes really
 * moved / time, STREAM counting, and with the write-allocate reads), the
 * median and p99 latency over the windows, and the CV of both.  The last
 * point is idle: the traffic threads wait.
 *
 * The working set is split as in every scenario: --size / threads per
 * thread; the latency figure compares with `randread --threads 1 --size
 * <that slice>`.  SIGINT ends the curve after the current window: the
 * finished points are kept, the result is marked incomplete. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "buffer.h"
#include "chase.h"
#include "delay.h"
#include "exitcodes.h"
#include "json.h"
#include "loadcurve.h"
#include "log.h"
#include "measure.h"
#include "pagesize.h"
#include "plot.h"
#include "scenario.h"
#include "team.h"
#include "timer.h"
#include "traffic.h"
#include "trafficcal.h"

#define MAX_DELAYS 64
#define MAX_DELAY_NS 1e7              /* 10 ms: longer is idle in all but name */
#define BATCH_LINES 64                /* lines of each array between two delays */
#define WINDOW_NS 5000000ULL           /* a window lasts 5 ms, plus at most one block */
#define BLOCK_NS 50000.0               /* a block of the chase: about 50 us at idle */
#define BLOCK_CAL_TRIALS 3             /* timings of the chase for the block's rounds */
#define BLOCK_CAL_ROUNDS 1024          /* rounds of the first timing (8 loads each) */
#define BLOCK_CAL_MIN_NS 1000000ULL    /* a timing that counts lasts 1 ms or more */
#define VERIFY_MAX_MEMBERS (1u << 20)

/* The default ladder (ns): no delay, then roughly doubling up to 100 us,
 * where one 64-line batch per 100 us is about 1% of a core's bandwidth. */
static const double default_ladder[] = { 0,    100,   200,   500,   1000, 2000,
                                         5000, 10000, 20000, 50000, 100000 };

typedef struct {
    const char *traffic_opt, *delays_opt, *plot, *variant_opt;
    long long stride_opt, tlb_opt, windows_opt;
    double cal_max_s;              /* --kernel-calibration */
    /* resolved */
    mc_traffic_spec_t traffic;
    double delay_ns[MAX_DELAYS];   /* ascending */
    int ndelays;
    size_t stride_bytes, tlb_pages;
    int windows;
    int layout;                    /* CHOICE: the mc_chain_layout_t */
    long forced;                   /* the traffic's variant forced by --kernel-variant, or -1 */
} loaded_conf_t;

#define OFF(f) offsetof(loaded_conf_t, f)
static const mb_opt_t loaded_opts[] = {
    { .long_name = "traffic", .type = MB_OPT_STRING, .offset = OFF(traffic_opt),
      .metavar = "KIND", .def = "read",
      .help = "loaded: what the traffic threads do: read, write, copy, triad or rw:PCT (PCT% "
              "of the 64-byte lines loaded, the rest stored)" },
    { .long_name = "delays", .type = MB_OPT_STRING, .offset = OFF(delays_opt),
      .metavar = "LIST", .def_text = "0,100,200,500,1000,...,100000",
      .help = "loaded: delays in ns between two batches of 64 lines, comma-separated, one "
              "point each (run in ascending order); an idle point follows" },
    { .long_name = "windows", .type = MB_OPT_INT, .offset = OFF(windows_opt), .min = 2,
      .max = 100000, .metavar = "N", .def = "30",
      .help = "loaded: sample windows (5 ms each) per point; median and p99 over them" },
    MC_OPT_PLOT(loaded_conf_t, plot),
    MC_OPT_TLB_LOCALITY(loaded_conf_t, tlb_opt),
    MC_OPT_STRIDE(loaded_conf_t, stride_opt),
    MC_OPT_CHAIN_LAYOUT(loaded_conf_t, layout),
    MC_OPT_KERNEL_VARIANT(loaded_conf_t, variant_opt),
    MC_OPT_KERNEL_CALIBRATION(loaded_conf_t, cal_max_s),
};
#undef OFF

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* "0,100,1e3": ascending, duplicates dropped.  0 or MB_EXIT_USAGE. */
static int parse_delays(const char *s, loaded_conf_t *c, char *msg, size_t msglen)
{
    char shown[160], item[64];
    const char *form = "expected a comma-separated list of delays in ns (>= 0, at most 1e7), "
                       "e.g. 0,100,1000";
    int n = 0;
    const char *p = s;
    for (;;) {
        size_t len = strcspn(p, ",");
        snprintf(item, sizeof item, "%.*s", (int)(len < 63 ? len : 63), p);
        char *end;
        errno = 0;
        double v = len ? strtod(item, &end) : NAN;
        if (!len || len >= 63 || *end != '\0' || errno || !isfinite(v)) {
            snprintf(msg, msglen, "--delays '%s': %s is not a number; %s",
                     mb_shown(s, 60, shown, sizeof shown), len ? "an item" : "an empty item",
                     form);
            return MB_EXIT_USAGE;
        }
        if (v < 0 || v > MAX_DELAY_NS) {
            snprintf(msg, msglen, "--delays '%s': %s is %s; %s", mb_shown(s, 60, shown,
                     sizeof shown), item, v < 0 ? "negative" : "over 1e7 ns (10 ms)", form);
            return MB_EXIT_USAGE;
        }
        if (n == MAX_DELAYS) {
            snprintf(msg, msglen, "--delays: more than %d delays; %s", MAX_DELAYS, form);
            return MB_EXIT_USAGE;
        }
        c->delay_ns[n++] = v;
        if (p[len] == '\0')
            break;
        p += len + 1;
    }
    qsort(c->delay_ns, (size_t)n, sizeof c->delay_ns[0], cmp_double);
    int m = 0;
    for (int i = 0; i < n; i++)
        if (m == 0 || c->delay_ns[i] != c->delay_ns[m - 1])
            c->delay_ns[m++] = c->delay_ns[i];
    c->ndelays = m;
    return 0;
}

static int loaded_resolve(void *conf, mc_config_t *cfg, char *msg, size_t msglen)
{
    loaded_conf_t *c = conf;
    char why[256];
    if (mc_traffic_parse(c->traffic_opt, &c->traffic, why, sizeof why) != 0) {
        snprintf(msg, msglen, "--traffic %s", why);
        return MB_EXIT_USAGE;
    }
    if (c->delays_opt) {
        int rc = parse_delays(c->delays_opt, c, msg, msglen);
        if (rc)
            return rc;
    } else {
        c->ndelays = (int)(sizeof default_ladder / sizeof default_ladder[0]);
        memcpy(c->delay_ns, default_ladder, sizeof default_ladder);
    }
    if (!mc_chase_stride_ok(c->stride_opt, msg, msglen))
        return MB_EXIT_USAGE;
    /* the traffic's variant: its family's names (triad and rw have one loop) */
    const mc_kfamily_t *fam = mc_traffic_family(c->traffic.k);
    const bool mine = mc_run_selects(cfg, "loaded");
    int rc = mc_kcal_parse(c->variant_opt, &fam, fam ? 1 : 0, mine && !cfg->running_all,
                           &c->forced, msg, msglen);
    if (!fam || rc)
        c->forced = -1;
    if (rc && mine)
        return rc;
    c->stride_bytes = (size_t)c->stride_opt;
    c->tlb_pages = (size_t)c->tlb_opt;
    c->windows = (int)c->windows_opt;
    /* a TLB group larger than the latency thread's slice, when given */
    if (cfg->size_bytes && mine && mc_opt_seen(cfg, "tlb-locality")) {
        const size_t page = mb_page_size();
        char ps[32];
        size_t set = mc_slice_bytes(cfg->size_bytes, cfg->nthreads > 0 ? cfg->nthreads : 1, 4096);
        if (c->tlb_pages > set / page) {
            snprintf(msg, msglen, "loaded: --tlb-locality %zu: a group of %zu pages is larger than "
                     "the latency thread's slice of %zu pages (%s); expected 0 to %zu",
                     c->tlb_pages, c->tlb_pages, set / page, mb_page_text(page, ps, sizeof ps),
                     set / page);
            return MB_EXIT_USAGE;
        }
    }
    return 0;
}

static void loaded_json(mb_json_t *j, const void *conf)
{
    const loaded_conf_t *c = conf;
    char name[32];
    mb_json_string(j, "traffic", c->traffic.k ? mc_traffic_name(&c->traffic, name, sizeof name)
                                              : "read");
    mb_json_array_begin(j, "delays_ns");
    for (int i = 0; i < c->ndelays; i++)
        mb_json_number(j, NULL, c->delay_ns[i]);
    mb_json_array_end(j);
    mb_json_int(j, "windows", c->windows);
    mb_json_int(j, "batch_lines", BATCH_LINES);
    mb_json_uint(j, "stride_bytes", c->stride_bytes);
    mb_json_string(j, "chain_layout", mc_chain_layout_name((mc_chain_layout_t)c->layout));
    mb_json_string(j, "kernel_variant", c->variant_opt ? c->variant_opt : "auto");
    mb_json_number(j, "kernel_calibration_max_s", c->cal_max_s);
    if (c->tlb_pages)
        mb_json_uint(j, "tlb_locality_pages", c->tlb_pages);
    else
        mb_json_unavailable(j, "tlb_locality_pages", "--tlb-locality 0: hops span the whole slice");
}

static const char *loaded_not_standard(const void *conf)
{
    return mc_chain_layout_not_standard((mc_chain_layout_t)((const loaded_conf_t *)conf)->layout);
}

static void loaded_plan(FILE *f, const void *conf)
{
    const loaded_conf_t *c = conf;
    char name[32];
    fprintf(f, "loaded: traffic %s, %d delays (ns):", mc_traffic_name(&c->traffic, name,
            sizeof name), c->ndelays);
    for (int i = 0; i < c->ndelays; i++)
        fprintf(f, " %g", c->delay_ns[i]);
    fprintf(f, ", then idle; %d windows per point\n", c->windows);
}

/* ---- the measurement ---------------------------------------------------- */

/* A traffic thread's running byte counts, published after every batch
 * for the latency thread to read (one line each: no false sharing). */
typedef struct {
    uint64_t stream_bytes, written_bytes;
    char pad[MC_LINE_BYTES - 2 * sizeof(uint64_t)];
} __attribute__((aligned(MC_LINE_BYTES))) published_t;

typedef struct {
    const mc_config_t *cfg;
    const loaded_conf_t *conf;
    mc_traffic_spec_t traffic;     /* --traffic, with the variant chosen */
    int nt, npoints, windows;
    /* latency thread */
    void *start;
    size_t block;                  /* chase rounds between two clock reads */
    /* traffic threads */
    mc_traffic_t *tr;              /* [nt]; entry 0 unused */
    published_t *pub;              /* [nt] */
    uint64_t delay_iters;          /* of the running point */
    bool traffic_on;               /* false at the idle point, and at a held point */
    mc_delay_cal_t cal;
    int cal_cpu;
    /* the window sequence: the latency thread publishes the number of the
     * window it finished; traffic threads run until it reaches theirs */
    uint64_t seq_done;
    /* idle points: the traffic threads sleep on this futex word, which
     * the latency thread bumps (and wakes them) after each window */
    int idle_word;
    uint64_t seq_base;             /* windows before the running point */
    /* samples of the running point, [windows + 1] (0: warm-up) */
    double *lat_ns, *bw_mbps, *wa_mbps;
    int *cpu, *node;
    int failed;                    /* 1 memory, 2 chain not one cycle, 3 traffic init */
} loaded_t;

static void sum_published(const loaded_t *L, uint64_t *stream, uint64_t *written)
{
    uint64_t s = 0, w = 0;
    for (int t = 1; t < L->nt; t++) {
        s += __atomic_load_n(&L->pub[t].stream_bytes, __ATOMIC_RELAXED);
        w += __atomic_load_n(&L->pub[t].written_bytes, __ATOMIC_RELAXED);
    }
    *stream = s;
    *written = w;
}

/* mc_body_fn: thread 0 times one window of the chase; the others move
 * batches until that window is over. */
static void body(void *arg, int t, int r)
{
    loaded_t *L = arg;
    const uint64_t seq = L->seq_base + (uint64_t)r + 1;
    if (t == 0) {
        uint64_t s0, w0, s1, w1;
        sum_published(L, &s0, &w0);
        uint64_t a = mb_now_ns(), b;
        void *start[1] = { L->start };
        size_t rounds = 0;
        do {   /* the window: whole blocks of the chase until WINDOW_NS have passed */
            mc_chase(start, 1, L->block);
            rounds += L->block;
            b = mb_now_ns();
        } while (b - a < WINDOW_NS);
        sum_published(L, &s1, &w1);
        L->start = start[0];
        double dt = (double)(b - a);
        L->lat_ns[r] = dt / ((double)rounds * MC_CHASE_UNROLL);
        L->bw_mbps[r] = (double)(s1 - s0) / dt * 1e3;          /* bytes/ns = GB/s */
        L->wa_mbps[r] = (double)(s1 - s0 + w1 - w0) / dt * 1e3;
        __atomic_store_n(&L->seq_done, seq, __ATOMIC_RELEASE);
        if (!L->traffic_on) {   /* after the timed chase: wake the sleepers */
            __atomic_add_fetch(&L->idle_word, 1, __ATOMIC_RELEASE);
            syscall(SYS_futex, &L->idle_word, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
        }
        return;
    }
    if (!L->traffic_on) {
        /* idle: blocked in the kernel until the window ends, so these
         * cores sleep as they do beside randread (threads that polled
         * kept them awake: on a 16-core Xeon the idle point read 5% over
         * randread, the turbo of one busy core being higher) */
        int w = __atomic_load_n(&L->idle_word, __ATOMIC_ACQUIRE);
        while (__atomic_load_n(&L->seq_done, __ATOMIC_ACQUIRE) < seq) {
            syscall(SYS_futex, &L->idle_word, FUTEX_WAIT_PRIVATE, w, NULL, NULL, 0);
            w = __atomic_load_n(&L->idle_word, __ATOMIC_ACQUIRE);
        }
        return;
    }
    mc_traffic_t *tr = &L->tr[t];
    const uint64_t iters = L->delay_iters;
    while (__atomic_load_n(&L->seq_done, __ATOMIC_ACQUIRE) < seq) {
        mc_traffic_lines(tr, BATCH_LINES);
        __atomic_store_n(&L->pub[t].stream_bytes, tr->stream_bytes, __ATOMIC_RELAXED);
        __atomic_store_n(&L->pub[t].written_bytes, tr->written_bytes, __ATOMIC_RELAXED);
        mc_delay_spin(iters);
    }
}

/* Per-thread setup inside the team: pin, build the chase or the traffic
 * arrays (first touch by the owner), calibrate the delay loop (thread 1). */
static void setup(loaded_t *L, void *buf, size_t slice, int t)
{
    const mc_config_t *cfg = L->cfg;
    const loaded_conf_t *c = L->conf;
    mc_pin_self(cfg->cpu[t]);
    L->cpu[t] = sched_getcpu();
    L->node[t] = mc_cpu_node(-1);
    void *base = (char *)buf + (size_t)t * slice;
    if (t == 0) {
        size_t nodes = slice / c->stride_bytes;
        size_t group = c->tlb_pages ? c->tlb_pages * mb_page_size() / c->stride_bytes : 0;
        mc_chain_spec_t spec = { .nodes = nodes, .stride = c->stride_bytes, .chains = 1,
                                 .group_nodes = group && group < nodes ? group : 0,
                                 .layout = (mc_chain_layout_t)c->layout,
                                 .mixer_start = cfg->random_state };
        mc_rng_t rng;
        mc_rng_init(&rng, cfg->random_state, 0);
        void *start[1];
        if (mc_chain_build(base, &spec, &rng, start, NULL) != 0) {
            L->failed = 1;
            return;
        }
        if (nodes <= VERIFY_MAX_MEMBERS && !mc_chain_verify(start[0], nodes)) {
            L->failed = 2;
            return;
        }
        size_t warm = nodes / MC_CHASE_UNROLL + 1;
        mc_chase(start, 1, warm < (1u << 20) ? warm : (1u << 20));
        L->start = start[0];
        return;
    }
    if (mc_traffic_init(&L->tr[t], &L->traffic, base, slice, cfg->random_state, (uint64_t)t) != 0) {
        L->failed = 3;
        return;
    }
    if (t == 1) {
        mc_delay_calibrate(&L->cal);
        L->cal_cpu = L->cpu[t];
    }
}

/* The block: the chase rounds between two clock reads of a window, about
 * BLOCK_NS at idle, timed by thread 0 once every thread is set up.  The
 * window itself is timed (WINDOW_NS), so a block that came out long or short
 * only changes how far a window overshoots 5 ms, and how often it reads the
 * clock (a read costs about 20 ns, 0.04% of a block).  Before, the window
 * was a fixed count of rounds from one timing, and at 8 MiB that timing
 * read from 13 to 140 ns a load as the shared L3 held the chain or not:
 * windows of 0.6 to 6 ms, and a 65-point curve over in a second.  The chase
 * is timed over more and more rounds until one timing lasts
 * BLOCK_CAL_MIN_NS, then BLOCK_CAL_TRIALS times at that count, the fastest
 * kept. */
static void calibrate_block(loaded_t *L)
{
    void *start[1] = { L->start };
    double per_round = INFINITY;
    size_t cal_rounds = BLOCK_CAL_ROUNDS;
    for (int i = 0; i < BLOCK_CAL_TRIALS;) {
        uint64_t a = mb_now_ns();
        mc_chase(start, 1, cal_rounds);
        uint64_t dt = mb_now_ns() - a;
        if (dt < BLOCK_CAL_MIN_NS && cal_rounds < ((size_t)1 << 26)) {
            cal_rounds *= 2;   /* too short to time: not a trial */
            continue;
        }
        double r = (double)dt / (double)cal_rounds;
        if (r > 0 && r < per_round)
            per_round = r;
        i++;
    }
    L->start = start[0];
    double rounds = isfinite(per_round) ? BLOCK_NS / per_round : 64;
    L->block = rounds < 16 ? 16 : rounds > 1e6 ? (size_t)1e6 : (size_t)rounds;
}

/* ---- results ------------------------------------------------------------ */

static const mc_col_t curve_cols[] = {
    { "delay", "ns", false },           { "bandwidth", "MB/s", false },
    { "bandwidth_with_write_allocate", "MB/s", false },
    { "bandwidth_cv", "", false },      { "latency", "ns", false },
    { "latency_p99", "ns", false },     { "latency_cv", "", false },
    { "windows", "", false },           { "load", "", true },
};
enum { C_DELAY, C_BW, C_WA, C_BWCV, C_LAT, C_P99, C_LATCV, C_WIN, C_LOAD, C_NCOLS };

static const mc_col_t thread_cols[] = {
    { "thread", "", false }, { "role", "", true }, { "cpu", "", false }, { "node", "", false },
};

/* One finished point into the curve table; its samples are v[1..n].
 * False when no row was added (no statistics, or out of memory). */
static bool add_row(mc_table_t *tab, const loaded_t *L, double delay, bool idle, int n)
{
    mb_stats_t lat, bw, wa;
    const double *lv = L->lat_ns + 1, *bv = L->bw_mbps + 1, *wv = L->wa_mbps + 1;
    if (mb_stats_compute(lv, (size_t)n, 0, &lat) || mb_stats_compute(bv, (size_t)n, 0, &bw) ||
        mb_stats_compute(wv, (size_t)n, 0, &wa))
        return false;
    long row = mc_table_row(tab);
    if (row < 0)
        return false;
    mc_table_num(tab, row, C_DELAY, idle ? NAN : delay);
    if (idle)
        mc_table_str(tab, row, C_DELAY, "idle: the traffic threads wait");
    mc_table_num(tab, row, C_BW, bw.median);
    mc_table_num(tab, row, C_WA, wa.median);
    mc_table_num(tab, row, C_BWCV, bw.median > 0 ? bw.cv : NAN);
    if (!(bw.median > 0))
        mc_table_str(tab, row, C_BWCV, "no traffic: no spread");
    mc_table_num(tab, row, C_LAT, lat.median);
    mc_table_num(tab, row, C_P99, mb_percentile(lv, (size_t)n, 99));
    mc_table_num(tab, row, C_LATCV, lat.cv);
    mc_table_num(tab, row, C_WIN, n);
    /* how loaded the point was (loadcurve.h) */
    char load[64];
    int none;
    mc_load_t how = mc_load_of(bv, n, &none);
    mc_table_str(tab, row, C_LOAD, idle ? "idle" : mc_load_text(how, none, n, load, sizeof load));
    return true;
}

static bool alloc_state(loaded_t *L, int nt, int windows)
{
    L->tr = calloc((size_t)nt, sizeof *L->tr);
    L->pub = aligned_alloc(MC_LINE_BYTES, (size_t)nt * sizeof *L->pub);
    L->lat_ns = calloc((size_t)windows + 1, sizeof *L->lat_ns);
    L->bw_mbps = calloc((size_t)windows + 1, sizeof *L->bw_mbps);
    L->wa_mbps = calloc((size_t)windows + 1, sizeof *L->wa_mbps);
    L->cpu = calloc((size_t)nt, sizeof *L->cpu);
    L->node = calloc((size_t)nt, sizeof *L->node);
    if (L->pub)
        memset(L->pub, 0, (size_t)nt * sizeof *L->pub);
    return L->tr && L->pub && L->lat_ns && L->bw_mbps && L->wa_mbps && L->cpu && L->node;
}

static void free_state(loaded_t *L)
{
    free(L->tr), free(L->pub), free(L->lat_ns), free(L->bw_mbps), free(L->wa_mbps);
    free(L->cpu), free(L->node);
}

/* The progress note of a point just added (its row is the table's last),
 * on stderr and silenced by --quiet: "loaded: point P of N (delay D ns):
 * latency L ns, bandwidth B MB/s", or "(idle): latency L ns".  A curve takes
 * seconds to minutes; this says how far it is. */
static void note_point(const mc_table_t *tab, int p, int npoints)
{
    if (!tab || tab->nrows == 0)
        return;
    const double *row = &tab->num[(tab->nrows - 1) * C_NCOLS];
    if (isfinite(row[C_DELAY]))
        mb_note("loaded: point %d of %d (delay %.0f ns): latency %.1f ns, bandwidth %.0f MB/s",
                p + 1, npoints, row[C_DELAY], row[C_LAT], row[C_BW]);
    else
        mb_note("loaded: point %d of %d (idle): latency %.1f ns", p + 1, npoints, row[C_LAT]);
}

/* The test hook MEMSUITE_TEST_LOADED_HELD=N: at the last N traffic points
 * the traffic threads wait as at the idle point, which is what a scheduler
 * that never ran them during a window does (--threads beyond the allowed
 * CPUs), made certain so a test can check how such points are read.  The
 * result says so in a note.  Anything but an integer 1..ndel is 0. */
static int held_points(int ndel)
{
    const char *v = getenv("MEMSUITE_TEST_LOADED_HELD");
    char *end;
    if (!v || !*v)
        return 0;
    errno = 0;
    long n = strtol(v, &end, 10);
    return errno || *end || n < 1 || n > ndel ? 0 : (int)n;
}

static int loaded_run(const mc_config_t *cfg, const void *conf, mc_result_t *res)
{
    const loaded_conf_t *c = conf;
    const int nt = cfg->nthreads, W = c->windows;
    const size_t slice = mc_slice_bytes(cfg->size_bytes, nt, 4096);
    const int na = c->traffic.k->arrays;
    if (slice / c->stride_bytes < 2 || slice < (size_t)na * MC_LINE_BYTES)
        return mc_result_fail(res, MB_EXIT_USAGE, "--size leaves %zu bytes per thread: too "
                              "small for a chase at --stride %zu", slice, c->stride_bytes);
    /* points: the ladder, then idle; one thread has no traffic: idle only */
    const int ndel = nt > 1 ? c->ndelays : 0, npoints = ndel + 1;
    const int held = held_points(ndel);
    char why[256], sz[32], kind[32];
    mb_out_t png = { 0 };   /* --plot: opened before measuring, so a bad path (a FIFO
                             * nobody reads) costs nothing */
    if (c->plot && mb_out_open_as(&png, c->plot, "--plot file", why, sizeof why) != 0)
        return mc_result_fail(res, MB_EXIT_RESOURCE, "%s", why);
    void *buf;
    if (mc_buffer_alloc(cfg, slice * (size_t)nt, &buf, why, sizeof why) != 0) {
        mb_out_abort(&png);
        return mc_result_fail(res, MB_EXIT_RESOURCE, "%s", why);
    }
    loaded_t L = { .cfg = cfg, .conf = c, .nt = nt, .npoints = npoints, .windows = W,
                   .cal_cpu = -1 };
    mc_measure_t *m = calloc((size_t)npoints, sizeof *m);
    int pinit = 0;
    bool ok = alloc_state(&L, nt, W) && m;
    for (; ok && pinit < npoints; pinit++)
        ok = mc_measure_init(&m[pinit], cfg, res, W) == 0;
    if (!ok) {
        for (int p = 0; p < pinit; p++)
            mc_measure_free(&m[p]);
        free(m);
        free_state(&L);
        mc_buffer_free(cfg, buf, slice * (size_t)nt);
        mb_out_abort(&png);
        return mc_result_fail(res, MB_EXIT_RESOURCE, "out of memory for the timing arrays");
    }
    /* the traffic kernel's variant, timed by the traffic threads on their
     * own slices before the curve (trafficcal.h) */
    mc_kcal_t kc;
    const mc_kfamily_t *fam = mc_traffic_family(c->traffic.k);
    L.traffic = c->traffic;
    if (fam && nt > 1) {
        mc_kcal_init(&kc, mc_traffic_name(&c->traffic, kind, sizeof kind), fam, c->forced,
                     c->cal_max_s);
        kc.kernel = mc_result_keep(res, kind);
        snprintf(why, sizeof why, "by the traffic threads over their slices, %s each (%s)",
                 mb_format_bytes(slice, sz, sizeof sz), mc_cache_level(&cfg->caches, slice,
                 slice * (size_t)(nt - 1)));
        kc.where = mc_result_keep(res, why);
        mc_config_t *tcfg = malloc(sizeof *tcfg);
        if (tcfg) {   /* the team of the traffic threads: thread t + 1's CPU */
            *tcfg = *cfg;
            tcfg->nthreads = nt - 1;
            memmove(tcfg->cpu, cfg->cpu + 1, (size_t)(nt - 1) * sizeof cfg->cpu[0]);
        }
        const double run_s = (double)npoints * (W + 1) * WINDOW_NS * 1e-9;
        if (!tcfg || mc_traffic_calibrate(tcfg, &c->traffic, (char *)buf + slice,
                                          slice * (size_t)(nt - 1), run_s, &kc) != 0)
            kc.why_not = "out of memory for the calibration";
        free(tcfg);
        L.traffic.variant = kc.chosen + 1;
    }
    mc_table_t *tab = mc_table_new(res, "curve", curve_cols, C_NCOLS);
    volatile int points_done = 0;
    bool stopped = false;

#pragma omp parallel num_threads(nt)
    {
        const int t = omp_get_thread_num();
        setup(&L, buf, slice, t);
#pragma omp barrier
        if (t == 0 && !L.failed)
            calibrate_block(&L);
#pragma omp barrier
        for (int p = 0; p < npoints && !L.failed; p++) {
#pragma omp master
            {
                L.traffic_on = p < ndel - held;
                L.delay_iters = L.traffic_on ? mc_delay_iters(&L.cal, c->delay_ns[p]) : 0;
                L.seq_base = (uint64_t)p * (uint64_t)(W + 1);
            }
#pragma omp barrier
            mc_measure_run(&m[p], t, body, &L);
#pragma omp barrier
#pragma omp master
            {
                if (m[p].done == W) {
                    if (add_row(tab, &L, p < ndel ? c->delay_ns[p] : NAN, p >= ndel, W))
                        note_point(tab, p, npoints);
                    points_done = p + 1;
                }
                if (m[p].aborted)
                    stopped = true;
            }
#pragma omp barrier
            if (stopped)
                break;
        }
    }
    for (int p = 0; p < npoints; p++) {
        if (m[p].done > 0)
            mc_measure_finish(&m[p]);
        mc_measure_free(&m[p]);
    }
    free(m);
    mc_buffer_finish(res, cfg, buf, slice * (size_t)nt);

    int rc = 0;
    if (L.failed == 1)
        rc = mc_result_fail(res, MB_EXIT_RESOURCE, "building the chain failed: out of memory");
    else if (L.failed == 2)
        rc = mc_result_fail(res, MB_EXIT_FAIL, "validation failed: the chain is not a single "
                            "cycle through its nodes");
    else if (L.failed == 3)
        rc = mc_result_fail(res, MB_EXIT_USAGE, "--size leaves too little per traffic thread");
    if (stopped || points_done < npoints) {
        res->complete = false;
        if (!rc)
            mc_result_note(res, "interrupted: %d of %d points measured (the point under way "
                           "is left out)", points_done, npoints);
    }

    /* headline metrics: the idle point, the point that moved the most
     * traffic (normally the shortest delay) */
    const size_t nrows = tab ? tab->nrows : 0;
    const double *rows = nrows ? tab->num : NULL;   /* C_NCOLS doubles per row */
    int unloaded = 0;
    const long busiest = rows ? mc_load_busiest(rows, nrows, C_NCOLS, C_DELAY, C_BW, &unloaded)
                              : -1;
    const double *top = rows && busiest >= 0 ? &rows[(size_t)busiest * C_NCOLS] : NULL;
    const double *last = rows ? &rows[(nrows - 1) * C_NCOLS] : NULL;
    bool have_idle = last && !isfinite(last[C_DELAY]);
    res->rec.headline = "latency_max_load";   /* the latency under the heaviest traffic */
    if (have_idle)
        mc_metric(res, "latency_idle", "ns", last[C_LAT]);
    else
        mc_metric_na(res, "latency_idle", "ns", "interrupted before the idle point");
    if (nt < 2) {
        mc_metric_na(res, "latency_max_load", "ns", "one thread: no traffic thread");
        mc_metric_na(res, "bandwidth_max", "MB/s", "one thread: no traffic thread");
    } else if (top) {
        mc_metric(res, "latency_max_load", "ns", top[C_LAT]);
        mc_metric(res, "latency_max_load_p99", "ns", top[C_P99]);
        mc_metric(res, "bandwidth_max", "MB/s", top[C_BW]);
        mc_metric(res, "bandwidth_max_with_write_allocate", "MB/s", top[C_WA]);
        /* the traffic threads' delay at that point: a setting, not a figure */
        mb_metric_better(mc_metric(res, "bandwidth_max_delay", "ns", top[C_DELAY]), MB_BETTER_NONE);
    } else {
        const char *why = unloaded ? "no point moved any traffic (the traffic threads did not "
                                     "run: CPU contention?)"
                                   : "interrupted before the first point";
        mc_metric_na(res, "latency_max_load", "ns", why);
        mc_metric_na(res, "bandwidth_max", "MB/s", why);
    }
    if (unloaded) {
        mc_result_note(res, "WARNING: %d of %d traffic points moved no traffic (median "
                       "bandwidth 0; column load): the traffic threads did not run during "
                       "their windows (%d threads on %d allowed CPUs) or the delay outlasts "
                       "the window; their latency is not a loaded latency and the headline "
                       "leaves them out", unloaded, ndel, nt, cfg->ncpus_allowed);
        mb_warn("loaded: %d of %d traffic points moved no traffic (see the note)", unloaded,
                ndel);
    }
    if (fam && nt > 1) {
        const mc_kcal_t *kcs[1] = { &kc };
        mc_kcal_report(res, kcs, 1);
    } else if (nt > 1)
        mc_result_note(res, "%s traffic: one loop (64-byte vectors), no variants to choose",
                       mc_traffic_name(&c->traffic, kind, sizeof kind));
    mc_metric(res, "points", "", (double)nrows);
    mc_metric(res, "traffic_threads", "", nt - 1);
    mc_metric(res, "latency_cpu", "", L.cpu[0]);
    if (L.cal.iters_per_ns > 0)
        mc_metric(res, "delay_loop", "iterations/ns", L.cal.iters_per_ns);
    else
        mc_metric_na(res, "delay_loop", "iterations/ns", nt < 2 ? "one thread: no delay"
                     : "not calibrated (interrupted or the clock did not advance)");

    mc_table_t *thr = mc_table_new(res, "threads", thread_cols, 4);
    for (int t = 0; t < nt; t++) {
        long row = mc_table_row(thr);
        mc_table_num(thr, row, 0, t);
        mc_table_str(thr, row, 1, t == 0 ? "latency" : "traffic");
        mc_table_num(thr, row, 2, L.cpu[t]);
        mc_table_num(thr, row, 3, L.node[t] >= 0 ? L.node[t] : NAN);
    }
    if (held)
        mc_result_note(res, "WARNING: test hook MEMSUITE_TEST_LOADED_HELD=%d: the traffic "
                       "threads were held at the last %d traffic points", held, held);
    if (nt < 2)
        mc_result_note(res, "one thread: no traffic thread, only the idle point is measured; "
                       "run with --threads 2 or more for the curve");
    mc_result_note(res, "latency thread on CPU %d, alone on its core; %d traffic thread%s (%s: "
                   "%s), %d lines of each array per batch, then the delay", L.cpu[0], nt - 1,
                   nt == 2 ? "" : "s", mc_traffic_name(&c->traffic, kind, sizeof kind),
                   c->traffic.k->formula, BATCH_LINES);
    if (L.cal.iters_per_ns > 0)
        mc_result_note(res, "delay loop calibrated once on CPU %d: %.4g iterations per ns "
                       "(best of %d trials of %.3g ms); a delay of D ns spins D x that",
                       L.cal_cpu, L.cal.iters_per_ns, L.cal.trials, L.cal.trial_ns / 1e6);
    mc_result_note(res, "chase: one chain, stride %zu B, TLB locality %s, %s per thread, %s; "
                   "compare with randread --threads 1 --size %zu", c->stride_bytes,
                   c->tlb_pages ? "on" : "off", mb_format_bytes(slice, sz, sizeof sz),
                   mc_cache_level(&cfg->caches, slice, slice * (size_t)nt), slice);
    mc_result_note(res, "%s", mc_chain_layout_note((mc_chain_layout_t)c->layout));
    mc_result_note(res, "per point: %d windows of %.0f ms or more (whole blocks of %zu chase "
                   "rounds, about %.0f us at the first timing, until the window's time is "
                   "up) after one warm-up; bandwidth = bytes the traffic threads moved during "
                   "each window / its time (STREAM counting; with_write_allocate adds a read "
                   "per line stored); latency median, p99 (nearest rank) and CV over the "
                   "windows", W, WINDOW_NS / 1e6, L.block, BLOCK_NS / 1e3);
    if (c->plot && nrows)
        mc_plot_scenario(cfg, res, c->plot, "loaded", &png);
    else if (c->plot) {
        mb_out_abort(&png);
        mc_result_note(res, "--plot %s: chart not drawn: no point measured", c->plot);
    }
    free_state(&L);
    return rc ? rc : res->status;   /* res->status: a chart drawn and not written */
}

const mc_scenario_t mc_sc_loaded = {
    .name = "loaded",
    .summary = "latency under load: the chase of randread while the other threads stream "
               "traffic, one point per delay (latency vs bandwidth)",
    MC_SCENARIO_OPTIONS(loaded_opts, loaded_conf_t),
    .resolve = loaded_resolve,
    .config_json = loaded_json,
    .plan = loaded_plan,
    .not_standard = loaded_not_standard,
    .run = loaded_run,
};
