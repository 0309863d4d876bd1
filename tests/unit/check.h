/* check.h: the whole unit-test harness.  TAP output, one line per CHECK;
 * the exit status is the number of failures (capped at 125).
 *
 *   CHECK(cond, "what %s", arg)   one assertion, printed as ok/not ok
 *   CHECK_EQ_STR(got, want, name) string equality with both shown
 *   return check_done();          at the end of main
 */
#ifndef MB_CHECK_H
#define MB_CHECK_H

#include <stdio.h>
#include <string.h>

static int check_count_, check_failed_;

#define CHECK(cond, ...) do {                                         \
    int ok_ = !!(cond);                                               \
    check_count_++;                                                   \
    if (!ok_) check_failed_++;                                        \
    printf("%sok %d - ", ok_ ? "" : "not ", check_count_);            \
    printf(__VA_ARGS__);                                              \
    printf("\n");                                                     \
    if (!ok_) printf("#   failed at %s:%d: %s\n", __FILE__, __LINE__, #cond); \
} while (0)

#define CHECK_EQ_STR(got, want, name) do {                            \
    const char *g_ = (got), *w_ = (want);                             \
    int same_ = g_ && w_ && strcmp(g_, w_) == 0;                      \
    CHECK(same_, "%s", name);                                         \
    if (!same_) printf("#   got:  '%s'\n#   want: '%s'\n", g_ ? g_ : "(null)", w_ ? w_ : "(null)"); \
} while (0)

static inline int check_done(void)
{
    printf("1..%d\n", check_count_);
    return check_failed_ > 125 ? 125 : check_failed_;
}

#endif
