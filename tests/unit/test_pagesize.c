/* test_pagesize: the base page (sysconf, the MEMSUITE_TEST_PAGE_SIZE
 * hook taken only when it keeps alignments valid), the PMD huge page
 * from hpage_pmd_size (a 64 KiB-page tree's 512 MiB) or derived from the
 * base page with the reason, and the exact page text. */
#include "check.h"
#include "pagesize.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *repo_root(void)
{
    const char *root = getenv("MEMSUITE_ROOT");
    return root && *root ? root : ".";
}

static void test_page(void)
{
    const size_t real = (size_t)sysconf(_SC_PAGESIZE);
    unsetenv("MEMSUITE_TEST_PAGE_SIZE");
    CHECK(mb_page_size() == real, "no hook: sysconf's %zu (got %zu)", real, mb_page_size());
    char v[32];
    snprintf(v, sizeof v, "%zu", real * 16);
    setenv("MEMSUITE_TEST_PAGE_SIZE", v, 1);
    CHECK(mb_page_size() == real * 16, "hook %s taken (got %zu)", v, mb_page_size());
    /* a value that could misalign a real page, or that is no size: ignored */
    static const char *const ignored[] = { "1000", "2048", "65537", "0", "-65536", "64K",
                                           "", "99999999999999999999", "2147483648" };
    for (size_t i = 0; i < sizeof ignored / sizeof ignored[0]; i++) {
        setenv("MEMSUITE_TEST_PAGE_SIZE", ignored[i], 1);
        CHECK(mb_page_size() == real, "hook '%s' ignored (got %zu)", ignored[i], mb_page_size());
    }
    unsetenv("MEMSUITE_TEST_PAGE_SIZE");
}

static void tree(const char *name)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/tests/fixtures/%s/sys", repo_root(), name);
    setenv("MEMSUITE_SYSFS", path, 1);
}

static void test_pmd(void)
{
    mb_pmd_t pmd;
    tree("arm-grace");
    setenv("MEMSUITE_TEST_PAGE_SIZE", "65536", 1);
    mb_pmd_size(&pmd);
    CHECK(pmd.from_sysfs && pmd.bytes == 536870912, "Grace: hpage_pmd_size 512 MiB (got %zu)",
          pmd.bytes);
    CHECK(mb_huge_align() == 536870912, "Grace: the THP alignment is the PMD size");
    tree("arm-graviton3");
    unsetenv("MEMSUITE_TEST_PAGE_SIZE");
    mb_pmd_size(&pmd);
    CHECK(pmd.from_sysfs && pmd.bytes == 2097152, "Graviton3: 2 MiB (got %zu)", pmd.bytes);
    /* no hpage_pmd_size: page * page / 8 with the reason (2 MiB with 4 KiB
     * pages, 512 MiB with 64 KiB) */
    tree("memsuite-vm");
    mb_pmd_size(&pmd);
    size_t page = mb_page_size();
    CHECK(!pmd.from_sysfs && pmd.bytes == page * page / 8 &&
              strstr(pmd.why, "transparent_hugepage/hpage_pmd_size") &&
              strstr(pmd.why, "No such file"),
          "no file: derived %zu, why '%s'", pmd.bytes, pmd.why);
    setenv("MEMSUITE_TEST_PAGE_SIZE", "65536", 1);
    mb_pmd_size(&pmd);
    CHECK(!pmd.from_sysfs && pmd.bytes == 536870912, "no file, 64 KiB pages: 512 MiB derived (got %zu)",
          pmd.bytes);
    unsetenv("MEMSUITE_TEST_PAGE_SIZE");
    /* a file that holds no power of two: derived, the content shown */
    char dir[] = "/tmp/test_pagesize.XXXXXX", path[256], cmd[300];
    CHECK(mkdtemp(dir) != NULL, "temp tree");
    snprintf(cmd, sizeof cmd, "mkdir -p %s/kernel/mm/transparent_hugepage", dir);
    CHECK(system(cmd) == 0, "mkdir");
    snprintf(path, sizeof path, "%s/kernel/mm/transparent_hugepage/hpage_pmd_size", dir);
    static const char *const bad[] = { "3000000\n", "banana\n", "1024\n", "\033[2J\n" };
    setenv("MEMSUITE_SYSFS", dir, 1);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        FILE *f = fopen(path, "w");
        if (f) {
            fputs(bad[i], f);
            fclose(f);
        }
        mb_pmd_size(&pmd);
        CHECK(!pmd.from_sysfs && pmd.bytes == page * page / 8 && strstr(pmd.why, "not a power of two") &&
                  !strchr(pmd.why, '\033'),
              "hpage_pmd_size case %zu refused: %s", i, pmd.why);
    }
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    CHECK(system(cmd) == 0, "cleanup");
}

static void test_text(void)
{
    static const struct {
        size_t bytes;
        const char *text;
    } cases[] = {
        { 4096, "4 KiB" },          { 16384, "16 KiB" },       { 65536, "64 KiB" },
        { 2097152, "2 MiB" },       { 33554432, "32 MiB" },    { 536870912, "512 MiB" },
        { 1073741824, "1 GiB" },    { 1536, "1536 B" },        { 3 << 20, "3 MiB" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char buf[32];
        CHECK_EQ_STR(mb_page_text(cases[i].bytes, buf, sizeof buf), cases[i].text, cases[i].text);
    }
}

int main(void)
{
    test_page();
    test_pmd();
    test_text();
    return check_done();
}
