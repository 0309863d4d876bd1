/* fuzz_lists: the list and environment parsers: --counters lists
 * (common/counters.c), OMP_NUM_THREADS / OMP_THREAD_LIMIT
 * (common/threads.c), NUMA node lists (common/numa.c) and stream's
 * --kernels (stream/kernels.c).
 * Input: the first byte picks the parser, the rest is the text.
 * Contract: each returns only its documented codes, a refusal always
 * has a message, and the messages quote hostile bytes escaped (every
 * parser: a control byte never reaches the terminal raw); an accepted node list has only nodes the caller allows; an
 * accepted kernel list has no repeat. */
#include <errno.h>
#include <omp.h>

#include "counters.h"
#include "fuzz.h"
#include "kernels.h"
#include "numa.h"
#include "threads.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void counters_list(const char *text)
{
    char msg[512] = "";
    int rc = mb_counters_check_list(text, msg, sizeof msg);
    if (rc != 0 && rc != -EINVAL)
        fuzz_fail("mb_counters_check_list returned %d", rc);
    fuzz_check_msg(msg, sizeof msg, rc != 0, true);
}

static void omp_env(const char *name, const char *text)
{
    char msg[512] = "";
    setenv(name, text, 1);
    int rc = mb_threads_env_check(msg, sizeof msg);
    unsetenv(name);
    if (rc != 0 && rc != 2)
        fuzz_fail("mb_threads_env_check returned %d", rc);
    fuzz_check_msg(msg, sizeof msg, rc != 0, true);
    if (rc == 0 && *text && strcmp(name, "OMP_NUM_THREADS") == 0) {
        /* accepted: every comma-separated item is a count in 1..1024 */
        const char *p = text;
        for (;;) {
            char *end;
            unsigned long v = strtoul(p, &end, 10);
            if (v < 1 || v > MB_MAX_THREADS)
                fuzz_fail("OMP_NUM_THREADS='%s' accepted with an item %lu", text, v);
            p = strchr(p, ',');
            if (!p)
                break;
            p++;
        }
    }
}

static void numa_nodes(const char *text)
{
    char msg[512] = "";
    uint64_t mask = 0, all = 0xffULL;
    int rc = mb_numa_parse_nodes(text, all, &mask, msg, sizeof msg);
    if (rc != 0 && rc != -EINVAL)
        fuzz_fail("mb_numa_parse_nodes returned %d", rc);
    fuzz_check_msg(msg, sizeof msg, rc != 0, true);
    if (rc == 0) {
        char back[512];
        mb_numa_format_nodes(mask, back, sizeof back);
        uint64_t again = 0;
        if (mask && (mb_numa_parse_nodes(back, all, &again, msg, sizeof msg) != 0 || again != mask))
            fuzz_fail("'%s' -> '%s' does not parse back to the same nodes", text, back);
    }
}

static void kernels(const char *text)
{
    char msg[512] = "";
    int ids[ST_MAX_KERNELS + 4];
    size_t n = 0;
    int rc = st_kernels_parse(text, ids, &n, msg, sizeof msg);
    if (rc != 0 && rc != -EINVAL)
        fuzz_fail("st_kernels_parse returned %d", rc);
    fuzz_check_msg(msg, sizeof msg, rc != 0, true);
    for (size_t i = 0; rc == 0 && i < n; i++)
        for (size_t k = i + 1; k < n; k++)
            if (ids[i] == ids[k])
                fuzz_fail("'%s' accepted with kernel %d twice", text, ids[i]);
}

static void omp_num_threads(const char *text) { omp_env("OMP_NUM_THREADS", text); }
static void omp_thread_limit(const char *text) { omp_env("OMP_THREAD_LIMIT", text); }

/* The first input byte selects one of these. */
static void (*const parsers[])(const char *) = {
    counters_list, omp_num_threads, omp_thread_limit, numa_nodes, kernels,
};
#define NPARSERS (sizeof parsers / sizeof parsers[0])

/* The OpenMP runtime reads OMP_* once, when it starts, as every tool's
 * does before main (libgomp at load time).  clang's libomp starts at the
 * first omp_ call instead, and asserts (kmp_settings.cpp) when that call
 * finds OMP_NUM_THREADS="" that omp_env() set: start it here, before any
 * input, so the target exercises our checks and not libomp's start-up. */
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    (void)omp_get_max_threads();
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || size > 4096)
        return 0;
    char *text = fuzz_cstring(data + 1, size - 1);
    parsers[data[0] % NPARSERS](text);
    free(text);
    return 0;
}
