/* test_thp: the AnonHugePages read-back over a fixture smaps (a buffer
 * inside one mapping, spanning two, outside all, an unreadable file) and
 * over this process's own smaps for a buffer advised MADV_NOHUGEPAGE. */
#include "check.h"
#include "thp.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

static const char smaps[] =
    "00400000-00600000 r-xp 00000000 08:01 1 /bin/x\n"
    "Rss:                 100 kB\n"
    "AnonHugePages:         0 kB\n"
    "7f0000000000-7f0000400000 rw-p 00000000 00:00 0 \n"
    "Size:               4096 kB\n"
    "Rss:                4096 kB\n"
    "AnonHugePages:      4096 kB\n"
    "7f0000400000-7f0000800000 rw-p 00000000 00:00 0 \n"
    "Rss:                4096 kB\n"
    "AnonHugePages:      2048 kB\n"
    "VmFlags: rd wr mr mw me ac nh\n";

int main(void)
{
    char path[] = "/tmp/test_thp.XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0 && write(fd, smaps, sizeof smaps - 1) == (ssize_t)(sizeof smaps - 1),
          "fixture written");
    close(fd);
    mb_thp_t t;
    const uintptr_t m1 = 0x7f0000000000, m2 = 0x7f0000400000;

    CHECK(mb_thp_measure_file(path, (void *)m1, 4 << 20, &t) == 0 && t.valid && t.exact &&
          t.anon_huge_bytes == 4u << 20 && fabs(t.share - 1.0) < 1e-12 &&
          fabs(t.share_resident - 1.0) < 1e-12, "a buffer filling one mapping: share 100%%");
    CHECK(mb_thp_measure_file(path, (void *)m1, 8 << 20, &t) == 0 && t.exact &&
          t.anon_huge_bytes == 6u << 20 && t.rss_bytes == 8u << 20 &&
          fabs(t.share - 0.75) < 1e-12 && t.mapping_bytes == 8u << 20,
          "a buffer over two mappings: 6 of 8 MiB, share 75%% (%g)", t.share);
    CHECK(mb_thp_measure_file(path, (void *)(m2 + 4096), 4096, &t) == 0 && !t.exact &&
          fabs(t.share - 1.0) < 1e-12, "a buffer inside a larger mapping: not exact, capped at 1");
    CHECK(mb_thp_measure_file(path, (void *)0x1000, 4096, &t) == -ENOENT && !t.valid &&
          strstr(t.why, "no mapping"), "outside every mapping: %s", t.why);
    /* two ranges in one mapping count it once; ranges in two mappings sum */
    const void *one[2] = { (void *)m1, (void *)(m1 + (1 << 20)) };
    const size_t ob[2] = { 1 << 20, 1 << 20 };
    CHECK(mb_thp_measure_ranges(path, one, ob, 2, &t) == 0 && t.anon_huge_bytes == 4u << 20 &&
          t.range_bytes == 2u << 20 && t.mapping_bytes == 4u << 20,
          "two ranges inside one mapping: its 4 MiB counted once (%zu)", t.anon_huge_bytes);
    const void *two[2] = { (void *)m1, (void *)m2 };
    const size_t tb[2] = { 4 << 20, 4 << 20 };
    CHECK(mb_thp_measure_ranges(path, two, tb, 2, &t) == 0 && t.anon_huge_bytes == 6u << 20 &&
          fabs(t.share - 0.75) < 1e-12, "ranges in two mappings: 4 + 2 MiB of 8");
    unlink(path);
    CHECK(mb_thp_measure_file(path, (void *)m1, 4096, &t) == -ENOENT && strstr(t.why, "cannot read"),
          "unreadable smaps: %s", t.why);

    /* This process: 4 MiB advised MADV_NOHUGEPAGE holds no huge page. */
    size_t len = 4u << 20;
    char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(p != MAP_FAILED, "mmap 4 MiB");
    (void)madvise(p, len, MADV_NOHUGEPAGE);
    for (size_t i = 0; i < len; i += 4096)
        p[i] = 1;
    CHECK(mb_thp_measure(p, len, &t) == 0 && t.valid && t.anon_huge_bytes == 0 &&
          t.rss_bytes >= len, "MADV_NOHUGEPAGE: no AnonHugePages, %zu resident", t.rss_bytes);
    munmap(p, len);
    return check_done();
}
