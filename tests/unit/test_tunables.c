/* test_tunables: unknown GLIBC_TUNABLES names against a hand-made list
 * (a table of values), and the real loader's list where it has one. */
#include "check.h"
#include "tunables.h"

#include <string.h>

typedef struct {
    const char *value;
    int n;
    const char *unknown;
} tun_case_t;

static const tun_case_t cases[] = {
    { "glibc.malloc.tcache_count=1024", 0, "" },
    { "glibc.malloc.max_total_thread_cache=0", 1, "glibc.malloc.max_total_thread_cache" },
    { "glibc.malloc.tcache_count=1:glibc.nosuch.knob=2:glibc.malloc.arena_max=2", 1,
      "glibc.nosuch.knob" },
    { "a=1:b", 2, "a b" },
    { "", 0, "" },
    { "::glibc.malloc.arena_max=4::", 0, "" },
    /* issue 23, defect 17: a name of 64 characters or more was "known" */
    { "glibc.malloc.tcache_count_and_a_very_long_tail_that_no_glibc_has_x=1", 1,
      "glibc.malloc.tcache_count_and_a_very_long_tail_that_no_glibc..." },
    { "glibc.malloc.arena_max=2:"
      "glibc.malloc.0123456789012345678901234567890123456789012345678901234567890123456789=1", 1,
      "glibc.malloc.01234567890123456789012345678901234567890123456..." },
    { "glibc.malloc.tcache_count_and_a_tail_of_63_characters_in_all_xx=1", 1,
      "glibc.malloc.tcache_count_and_a_tail_of_63_characters_in_all_xx" },
};

int main(void)
{
    static mb_tunables_list_t l;
    memset(&l, 0, sizeof l);
    l.ok = true;
    snprintf(l.names[l.n++], sizeof l.names[0], "glibc.malloc.tcache_count");
    snprintf(l.names[l.n++], sizeof l.names[0], "glibc.malloc.arena_max");
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char out[128];
        int n = mb_tunables_unknown(&l, cases[i].value, out, sizeof out);
        CHECK(n == cases[i].n && strcmp(out, cases[i].unknown) == 0, "'%s': %d unknown '%s'",
              cases[i].value, n, out);
    }
    mb_tunables_list(&l);
    CHECK(strlen(l.version) > 0, "glibc version %s", l.version);
    if (l.ok)
        CHECK(l.n > 5 && mb_tunables_known(&l, "glibc.malloc.arena_max") &&
              !mb_tunables_known(&l, "glibc.malloc.max_total_thread_cache_x"),
              "this loader lists %zu tunables, arena_max among them", l.n);
    else
        CHECK(strstr(l.why, "--list-tunables") != NULL, "no list, with why: %s", l.why);

    /* parsing a value into items (mencal env's glibc_tunables_parsed) */
    mb_tunable_t t[3];
    int n = mb_tunables_parse("glibc.malloc.tcache_count=0::glibc.malloc.arena_max=2:novalue", t, 3);
    CHECK(n == 3 && strcmp(t[0].key, "glibc.malloc.tcache_count") == 0 && strcmp(t[0].value, "0") == 0 &&
              strcmp(t[1].key, "glibc.malloc.arena_max") == 0 && strcmp(t[1].value, "2") == 0 &&
              strcmp(t[2].key, "novalue") == 0 && t[2].value[0] == '\0',
          "parse: empty items skipped, a name without '=' has an empty value (n %d)", n);
    CHECK(mb_tunables_parse("a=1:b=2:c=3", t, 2) == 2, "parse: at most max items");
    CHECK(mb_tunables_parse(NULL, t, 3) == 0 && mb_tunables_parse("", t, 3) == 0, "parse: unset or empty is none");
    return check_done();
}
