/* test_damon: DAMON's running monitors read from a temporary sysfs tree
 * (MEMSUITE_SYSFS): no interface, every kdamond off, one on with and one
 * without schemes, and the damon_reclaim module enabled; and the sysinfo
 * fact "damon" that results carry, including an unreadable sysfs. */
#include "check.h"
#include "damon.h"
#include "sysinfo.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static char root[] = "/tmp/test_damon.XXXXXX";

/* Writes <root>/<rel> (one line), creating its directories. */
static void put(const char *rel, const char *line)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", root, rel);
    for (char *p = path + strlen(root) + 1; (p = strchr(p, '/')) != NULL; p++) {
        *p = '\0';
        mkdir(path, 0755);
        *p = '/';
    }
    FILE *f = fopen(path, "w");
    if (f) {
        fprintf(f, "%s\n", line);
        fclose(f);
    }
}

/* put() under DAMON's kdamonds directory. */
static void kput(const char *sub, const char *line)
{
    char rel[256];
    snprintf(rel, sizeof rel, "kernel/mm/damon/admin/kdamonds/%s", sub);
    put(rel, line);
}

int main(void)
{
    mb_damon_t m;
    CHECK(mkdtemp(root) != NULL, "temp root");
    setenv("MEMSUITE_SYSFS", root, 1);

    mb_damon_read(&m);
    CHECK(!m.interface && m.running == 0, "no interface: nothing runs");
    CHECK_EQ_STR(m.text, MB_DAMON_ABSENT, "no interface: said so");
    mb_fact_t f;
    CHECK(mb_sysinfo_one("damon", &f), "sysinfo has a damon fact");
    CHECK(!f.ok, "no <sysfs>/kernel/mm: whether DAMON runs is unknown");
    CHECK(strstr(f.why, "/kernel/mm") != NULL, "the reason names the directory it could not read");

    put("kernel/mm/transparent_hugepage/enabled", "always [madvise] never");
    mb_sysinfo_one("damon", &f);
    CHECK(f.ok && !f.numeric, "a kernel/mm without DAMON: a value");
    CHECK_EQ_STR(f.value, MB_DAMON_ABSENT, "a kernel without DAMON: not running, and why");

    kput("nr_kdamonds", "2");
    kput("0/state", "off");
    kput("1/state", "off");
    mb_damon_read(&m);
    CHECK(m.interface && m.running == 0, "two kdamonds, both off");
    CHECK_EQ_STR(m.text, "off", "both off: off");
    mb_sysinfo_one("damon", &f);
    CHECK(f.ok && strcmp(f.value, "off") == 0, "both off: the fact reads off");

    /* kdamond 1 on, monitoring virtual addresses with no scheme */
    kput("1/state", "on");
    kput("1/contexts/0/operations", "vaddr");
    kput("1/contexts/0/schemes/nr_schemes", "0");
    mb_damon_read(&m);
    CHECK(m.running == 1, "one on");
    CHECK_EQ_STR(m.text, "kdamond 1 on (vaddr; no scheme: monitoring only)", "monitoring only");

    /* two schemes, one with a minimum age; and damon_reclaim enabled */
    kput("1/contexts/0/schemes/nr_schemes", "2");
    kput("1/contexts/0/schemes/0/action", "pageout");
    kput("1/contexts/0/schemes/0/access_pattern/age/min", "20");
    kput("1/contexts/0/monitoring_attrs/intervals/aggr_us", "100000");
    kput("1/contexts/0/schemes/1/action", "nohugepage");
    put("module/damon_reclaim/parameters/enabled", "Y");
    put("module/damon_lru_sort/parameters/enabled", "N");
    mb_damon_read(&m);
    CHECK(m.running == 2, "a kdamond and a module");
    CHECK_EQ_STR(m.text, "kdamond 1 on (vaddr; pageout at age >= 20 x 0.1 s, nohugepage); damon_reclaim enabled",
                 "schemes with their ages, and the enabled module");
    mb_sysinfo_one("damon", &f);
    CHECK(f.ok, "running: a value");
    CHECK_EQ_STR(f.value, m.text, "the result's fact is what runs");
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    CHECK(system(cmd) == 0, "cleanup");
    return check_done();
}
