/* test_threads: common/threads.c's checks of the OpenMP environment,
 * table-driven.  OMP_THREAD_LIMIT against the range libgomp accepts
 * (issue 23, defect 23), and the verdict on OMP_PROC_BIND / OMP_PLACES
 * from what the runtime made of them (defect 29). */
#include "check.h"
#include "threads.h"

#include <stdlib.h>
#include <string.h>

static void test_thread_limit(void)
{
    static const struct {
        const char *v;
        int want;
        const char *says;
    } t[] = {
        { "", 0, "" },
        { "4", 0, "" },
        { " 7 ", 0, "" },
        { "100000", 0, "" },                    /* above the tools' cap: harmless */
        { "9223372036854775807", 0, "" },       /* LONG_MAX: libgomp's largest */
        { "9223372036854775808", 2, "over 9223372036854775807, which libgomp rejects" },
        { "99999999999999999999", 2, "over 9223372036854775807, which libgomp rejects" },
        { "340282366920938463463374607431768211457", 2, "over 9223372036854775807" },
        { "0", 2, "not a thread count" },
        { "-3", 2, "not a thread count" },
        { "none", 2, "not a thread count" },
    };
    char msg[512];
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        setenv("OMP_THREAD_LIMIT", t[i].v, 1);
        msg[0] = '\0';
        int rc = mb_threads_env_check(msg, sizeof msg);
        CHECK(rc == t[i].want && strstr(msg, t[i].says) &&
              (rc == 0 || strstr(msg, "OMP_THREAD_LIMIT='")),
              "23: OMP_THREAD_LIMIT='%s' -> %d (got %d: %s)", t[i].v, t[i].want, rc, msg);
    }
    unsetenv("OMP_THREAD_LIMIT");
    /* the same overflow in OMP_NUM_THREADS was already refused */
    setenv("OMP_NUM_THREADS", "99999999999999999999", 1);
    CHECK(mb_threads_env_check(msg, sizeof msg) == 2 && strstr(msg, "more than 1024"),
          "OMP_NUM_THREADS='99999999999999999999' is refused: %s", msg);
    unsetenv("OMP_NUM_THREADS");
}

static void test_verdict(void)
{
    enum { UNBOUND = 0, TRUE_ = 1, CLOSE = 3 };
    static const struct {
        const char *bind, *places;
        int runtime_bind, runtime_places, want;
        const char *says;
    } t[] = {
        { NULL, NULL, UNBOUND, 0, 0, "" },
        { "close", "cores", CLOSE, 2, 0, "" },
        { "spread,close", NULL, 4, 2, 0, "" },
        { NULL, "cores", TRUE_, 2, 0, "" },            /* places alone bind */
        { "", "  ", UNBOUND, 0, 0, "" },               /* blank: as unset (memsuite passes '') */
        { "false", NULL, UNBOUND, 0, 0, "" },
        { " FALSE ", "cores", UNBOUND, 0, 0, "" },     /* false drops the places */
        { "bogus", NULL, UNBOUND, 0, 2, "OMP_PROC_BIND='bogus': libgomp ignored it" },
        { "bogus", "cores", TRUE_, 2, 0, "" },         /* places bound anyway: as recorded */
        { NULL, "bogus", UNBOUND, 0, 2, "OMP_PLACES='bogus': libgomp made no places" },
        { "close", "{100}", CLOSE, 0, 2, "OMP_PLACES='{100}'" },
        { "close", "\x1b[31m", CLOSE, 0, 2, "OMP_PLACES='^[[31m'" },   /* caret notation */
    };
    char msg[512];
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        msg[0] = '\0';
        int rc = mb_threads_omp_verdict(t[i].bind, t[i].places, t[i].runtime_bind,
                                        t[i].runtime_places, msg, sizeof msg);
        CHECK(rc == t[i].want && strstr(msg, t[i].says),
              "29: OMP_PROC_BIND=%s OMP_PLACES=%s, runtime bind %d places %d -> %d (got %d: %s)",
              t[i].bind ? t[i].bind : "(unset)", t[i].places ? t[i].places : "(unset)",
              t[i].runtime_bind, t[i].runtime_places, t[i].want, rc, msg);
    }
}

int main(void)
{
    test_thread_limit();
    test_verdict();
    return check_done();
}
