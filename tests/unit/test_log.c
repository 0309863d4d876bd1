/* test_log: message shape on stderr, program name, quiet switch. */
#include "check.h"
#include "log.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Captures what fn writes to stderr into buf. */
static void capture(void (*fn)(void), char *buf, size_t len)
{
    char path[] = "/tmp/memsuite-test-log.XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0) {
        buf[0] = '\0';
        return;
    }
    fflush(stderr);
    int saved = dup(2);
    dup2(fd, 2);
    fn();
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    ssize_t n = pread(fd, buf, len - 1, 0);
    buf[n > 0 ? n : 0] = '\0';
    close(fd);
    unlink(path);
}

static void say_error(void) { mb_error("stream: open %s: %s; check the path", "x.json", "No such file"); }
static void say_warn(void)  { mb_warn("array is %d x LLC", 2); }
static void say_note(void)  { mb_note("using %s", "sysconf"); }
static void say_nl(void)    { mb_error("already ends\n"); }
static void say_all(void)   { say_error(); say_warn(); say_note(); }
static char *huge;          /* 102400 x's, set by main */
static void say_ctl(void)   { mb_error("unexpected argument '%s'", "\x1b[2J\x7f\t\xc2\x9b"); }
static void say_huge(void)  { mb_error("unknown scenario '%s'; valid: a, b", huge); }

typedef struct {
    const char *name;
    void (*fn)(void);
    int quiet;
    const char *want;
} log_case_t;

static const log_case_t cases[] = {
    {"error", say_error, 0, "bench: error: stream: open x.json: No such file; check the path\n"},
    {"warning", say_warn, 0, "bench: warning: array is 2 x LLC\n"},
    {"note", say_note, 0, "bench: note: using sysconf\n"},
    {"no doubled newline", say_nl, 0, "bench: error: already ends\n"},
    {"quiet keeps errors only", say_all, 1,
     "bench: error: stream: open x.json: No such file; check the path\n"},
    {"quiet off again", say_all, 0,
     "bench: error: stream: open x.json: No such file; check the path\n"
     "bench: warning: array is 2 x LLC\nbench: note: using sysconf\n"},
};

/* mb_shown: the one way a value is quoted */
static void test_shown(void)
{
    char buf[160];
    CHECK_EQ_STR(mb_shown("a\x1b[31m\a\x7f", 0, buf, sizeof buf), "a^[[31m^G^?",
                 "control characters in caret notation");
    CHECK_EQ_STR(mb_shown("\xc3\xa9", 0, buf, sizeof buf), "\\xc3\\xa9", "other bytes as \\xHH");
    CHECK_EQ_STR(mb_shown(huge, 64, buf, sizeof buf),
                 "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx... (102400 bytes)",
                 "a value over keep: its first characters, the cut marked with the length");
    char small[24];
    mb_shown(huge, 0, small, sizeof small);
    CHECK(strlen(small) < sizeof small && strstr(small, "... (102400 bytes)"),
          "cut by the buffer: marked too (%s)", small);
    CHECK_EQ_STR(mb_shown("abc", 3, buf, sizeof buf), "abc", "a value of exactly keep is not cut");
}

int main(void)
{
    char buf[1024];
    huge = malloc(102401);
    memset(huge, 'x', 102400);
    huge[102400] = '\0';
    test_shown();
    CHECK_EQ_STR(mb_log_prog(), "memsuite", "default program name");
    mb_log_init(NULL);
    CHECK_EQ_STR(mb_log_prog(), "memsuite", "NULL name keeps the default");
    mb_log_init("/usr/local/bin/bench");
    CHECK_EQ_STR(mb_log_prog(), "bench", "basename of argv[0]");
    mb_log_init("dir/");
    CHECK_EQ_STR(mb_log_prog(), "bench", "empty basename ignored");

    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        mb_log_quiet(cases[i].quiet);
        capture(cases[i].fn, buf, sizeof buf);
        CHECK_EQ_STR(buf, cases[i].want, cases[i].name);
    }

    mb_log_quiet(0);
    capture(say_ctl, buf, sizeof buf);
    CHECK_EQ_STR(buf, "bench: error: unexpected argument '^[[2J^?\tM-^['\n",
                 "a value quoted raw: control characters in caret notation, tab kept");
    capture(say_huge, buf, sizeof buf);
    CHECK_EQ_STR(buf, "bench: error: unknown scenario "
                 "'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx... (102400 bytes)'; "
                 "valid: a, b\n", "a huge word quoted raw: cut, marked with its length, quotes kept");

    mb_log_init("stream");
    mb_log_quiet(0);
    capture(say_warn, buf, sizeof buf);
    CHECK(strncmp(buf, "stream: warning: ", 17) == 0, "re-init changes the prefix: %s", buf);
    return check_done();
}
