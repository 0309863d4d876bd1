/* test_hugepools: common/hugepools on a temporary sysfs tree. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "check.h"
#include "hugepools.h"

static void put(const char *root, const char *rel, const char *text)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", root, rel);
    FILE *f = fopen(path, "w");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

int main(void)
{
    char root[] = "/tmp/test_hugepools.XXXXXX", dir[4200], why[200] = "";
    mb_hugepool_t p[MB_HUGEPOOLS_MAX];
    CHECK(mkdtemp(root) != NULL, "tree %s", root);
    setenv("MEMSUITE_SYSFS", root, 1);
    CHECK(mb_hugepools_read(p, MB_HUGEPOOLS_MAX, why, sizeof why) == -1 && strstr(why, "cannot open"),
          "no hugepages directory: -1 with why (%s)", why);
    snprintf(dir, sizeof dir, "%s/kernel", root);
    mkdir(dir, 0755);
    snprintf(dir, sizeof dir, "%s/kernel/mm", root);
    mkdir(dir, 0755);
    snprintf(dir, sizeof dir, "%s/kernel/mm/hugepages", root);
    mkdir(dir, 0755);
    snprintf(dir, sizeof dir, "%s/kernel/mm/hugepages/hugepages-1048576kB", root);
    mkdir(dir, 0755);
    snprintf(dir, sizeof dir, "%s/kernel/mm/hugepages/hugepages-2048kB", root);
    mkdir(dir, 0755);
    put(root, "kernel/mm/hugepages/hugepages-2048kB/nr_hugepages", "64\n");
    put(root, "kernel/mm/hugepages/hugepages-2048kB/free_hugepages", "60\n");
    put(root, "kernel/mm/hugepages/hugepages-2048kB/surplus_hugepages", "0\n");
    put(root, "kernel/mm/hugepages/hugepages-2048kB/resv_hugepages", "2\n");
    put(root, "kernel/mm/hugepages/hugepages-1048576kB/nr_hugepages", "1\n");
    int n = mb_hugepools_read(p, MB_HUGEPOOLS_MAX, why, sizeof why);
    CHECK(n == 2, "two pools (got %d)", n);
    CHECK(n == 2 && p[0].size_kib == 2048 && p[1].size_kib == 1048576, "smallest page size first");
    CHECK(n == 2 && p[0].total == 64 && p[0].free_pages == 60 && p[0].surplus == 0 && p[0].reserved == 2,
          "2 MiB pool counters");
    CHECK(n == 2 && p[1].total == 1 && p[1].free_pages == -1, "an unreadable counter is -1, not 0");
    char cmd[4300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    CHECK(system(cmd) == 0, "cleanup");
    return check_done();
}
