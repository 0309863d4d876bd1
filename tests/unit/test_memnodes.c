/* test_memnodes: memory nodes, tiers and HMAT figures (common/memnodes)
 * and a CPU's package/die/L3 (common/cputopo) from a fake sysfs tree of
 * two CPU nodes and one CPU-less node, the shape of the topology lab's
 * HMAT guest; plus the CPU list grammar. */
#include "check.h"
#include "cputopo.h"
#include "memnodes.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char root[] = "/tmp/test_memnodes.XXXXXX";

/* put("/devices/...", "text"): a file under root/sys, directories made */
static void put(const char *rel, const char *text)
{
    char path[512], cmd[600];
    snprintf(path, sizeof path, "%s/sys%s", root, rel);
    snprintf(cmd, sizeof cmd, "mkdir -p \"$(dirname '%s')\"", path);
    if (system(cmd) != 0)
        return;
    FILE *f = fopen(path, "w");
    if (f) {
        fprintf(f, "%s\n", text);
        fclose(f);
    }
}

static void fixture(void)
{
    const char *N = "/devices/system/node";
    char p[256];
    snprintf(p, sizeof p, "%s/has_memory", N), put(p, "0-2");
    snprintf(p, sizeof p, "%s/node0/cpulist", N), put(p, "0-1");
    snprintf(p, sizeof p, "%s/node1/cpulist", N), put(p, "2-3");
    snprintf(p, sizeof p, "%s/node2/cpulist", N), put(p, "");
    static const char *const mem[] = { "1048576", "1048576", "2097152" };
    for (int n = 0; n < 3; n++) {
        char line[128];
        snprintf(p, sizeof p, "%s/node%d/meminfo", N, n);
        snprintf(line, sizeof line, "Node %d MemTotal:       %s kB\nNode %d MemFree: 1 kB", n, mem[n], n);
        put(p, line);
    }
    put("/devices/virtual/memory_tiering/memory_tier4/nodelist", "0");
    put("/devices/virtual/memory_tiering/memory_tier22/nodelist", "2");
    /* HMAT: node0 local (class 0), node2 reached best from node0 (class 0)
     * and node1 among the CPU initiators (class 1) */
    snprintf(p, sizeof p, "%s/node0/access0/initiators/node0/x", N), put(p, "");
    snprintf(p, sizeof p, "%s/node0/access0/initiators/read_latency", N), put(p, "90");
    snprintf(p, sizeof p, "%s/node0/access0/initiators/read_bandwidth", N), put(p, "40000");
    snprintf(p, sizeof p, "%s/node2/access0/initiators/node0/x", N), put(p, "");
    snprintf(p, sizeof p, "%s/node2/access0/initiators/read_latency", N), put(p, "300");
    snprintf(p, sizeof p, "%s/node2/access0/initiators/write_latency", N), put(p, "320");
    snprintf(p, sizeof p, "%s/node2/access0/initiators/read_bandwidth", N), put(p, "10000");
    snprintf(p, sizeof p, "%s/node2/access1/initiators/node1/x", N), put(p, "");
    snprintf(p, sizeof p, "%s/node2/access1/initiators/read_latency", N), put(p, "350");
    /* topology of CPUs 0-3: two packages, L3 per package */
    for (int c = 0; c < 4; c++) {
        char v[16];
        snprintf(p, sizeof p, "/devices/system/cpu/cpu%d/topology/physical_package_id", c);
        snprintf(v, sizeof v, "%d", c / 2), put(p, v);
        snprintf(p, sizeof p, "/devices/system/cpu/cpu%d/cache/index0/level", c), put(p, "1");
        snprintf(p, sizeof p, "/devices/system/cpu/cpu%d/cache/index1/level", c), put(p, "3");
        snprintf(p, sizeof p, "/devices/system/cpu/cpu%d/cache/index1/shared_cpu_list", c);
        put(p, c < 2 ? "0-1" : "2-3");
    }
}

int main(void)
{
    if (!mkdtemp(root)) {
        perror("mkdtemp");
        return 1;
    }
    fixture();
    char sys[600];
    snprintf(sys, sizeof sys, "%s/sys", root);
    setenv("MEMSUITE_SYSFS", sys, 1);

    mb_memnode_t n[MB_MEMNODES_MAX];
    char why[256] = "";
    int k = mb_memnodes_list(n, MB_MEMNODES_MAX, why, sizeof why);
    CHECK(k == 3, "three nodes listed (got %d: %s)", k, why);
    CHECK(k == 3 && n[0].node == 0 && n[1].node == 1 && n[2].node == 2, "ascending node numbers");
    if (k == 3) {
        CHECK(n[0].has_cpu && n[0].has_memory && CPU_COUNT(&n[0].cpus) == 2, "node0: CPUs 0-1, memory");
        CHECK(!n[2].has_cpu && n[2].has_memory, "node2: memory, no CPUs");
        CHECK_EQ_STR(mb_memnode_kind(&n[0]), "local DRAM", "node0 is local DRAM");
        CHECK_EQ_STR(mb_memnode_kind(&n[2]), "CPU-less memory", "node2 is CPU-less memory");
        CHECK(n[2].mem_total_bytes == 2097152ULL * 1024, "node2 MemTotal 2 GiB");
        CHECK(n[0].memory_tier == 4 && n[2].memory_tier == 22 && n[1].memory_tier == -1,
              "memory tiers 4, none, 22");
    }

    mb_hmat_t h;
    mb_hmat_lookup(2, 0, &h);
    CHECK(h.declared && h.access_class == 0 && h.read_latency_ns == 300 && h.write_latency_ns == 320
          && h.read_bandwidth_mbps == 10000 && isnan(h.write_bandwidth_mbps),
          "node0 -> node2: class 0, read 300 ns / 10000 MB/s, write 320 ns, write bandwidth absent");
    mb_hmat_lookup(2, 1, &h);
    CHECK(h.declared && h.access_class == 1 && h.read_latency_ns == 350 && isnan(h.read_bandwidth_mbps),
          "node1 -> node2: class 1 (CPU initiators), read 350 ns");
    mb_hmat_lookup(0, 1, &h);
    CHECK(!h.declared && h.access_class == -1 && isnan(h.read_latency_ns),
          "node1 -> node0: nothing declared");

    mb_cpu_place_t a, b;
    mb_cpu_place(1, &a);
    mb_cpu_place(2, &b);
    CHECK(a.package == 0 && b.package == 1 && a.l3 == 0 && b.l3 == 2 && a.die == -1,
          "cpu1: package 0, L3 of CPU 0; cpu2: package 1, L3 of CPU 2; no die_id file");
    mb_cpu_place(7, &a);
    CHECK(a.package == -1 && a.l3 == -1, "an absent CPU: everything unknown");

    static const struct { const char *text; int rc, count; } lists[] = {
        { "0-3,8,10-11", 0, 7 }, { "", 0, 0 }, { "5", 0, 1 }, { "3-1", -1, 0 }, { "1,,2", -1, 0 },
        { "a", -1, 0 }, { "1-", -1, 0 }, { "0-1\n", 0, 2 },
    };
    for (size_t i = 0; i < sizeof lists / sizeof lists[0]; i++) {
        cpu_set_t s;
        int rc = mb_cpulist_parse(lists[i].text, &s);
        CHECK((rc == 0) == (lists[i].rc == 0) && (rc != 0 || CPU_COUNT(&s) == lists[i].count),
              "cpu list '%s': %s", lists[i].text, lists[i].rc ? "refused" : "parsed");
    }

    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    CHECK(system(cmd) == 0, "cleanup");
    return check_done();
}
