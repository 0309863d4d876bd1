/* test_edac: common/edac on the EDAC fixture trees (tests/fixtures/edac):
 * counts per controller and DIMM, labels, a count that grows between two
 * reads, junk and huge values as unavailable with the reason. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "edac.h"

static mb_edac_t e;

static void read_tree(const char *name)
{
    const char *root = getenv("MEMSUITE_ROOT");
    char sys[4096];
    snprintf(sys, sizeof sys, "%s/tests/fixtures/edac/%s/sys", root && *root ? root : ".", name);
    setenv("MEMSUITE_SYSFS", sys, 1);
    mb_edac_read(&e);
}

int main(void)
{
    char text[512];

    read_tree("clean");
    CHECK(e.available && e.nmc == 1, "clean: one controller (%d)", e.nmc);
    CHECK_EQ_STR(e.mc[0].name, "mc0", "clean: mc0");
    CHECK(e.mc[0].ce.ok && e.mc[0].ce.value == 0 && e.mc[0].ue.ok && e.mc[0].ue.value == 0, "clean: 0/0");
    CHECK(e.mc[0].ndimms == 2, "clean: two DIMMs");
    CHECK_EQ_STR(e.mc[0].dimm[1].label, "CPU1_DIMM_A1", "clean: dimm1's label");
    mb_edac_text(&e, text, sizeof text);
    CHECK_EQ_STR(text, "mc0 ce 0 ue 0 (CPU0_DIMM_A1 ce 0 ue 0, CPU1_DIMM_A1 ce 0 ue 0)", "clean: text");

    unsigned long long before = e.mc[0].dimm[1].ce.value;
    read_tree("ce");
    CHECK(e.mc[0].dimm[1].ce.ok && e.mc[0].dimm[1].ce.value == before + 5, "ce: dimm1 grew by 5");
    CHECK(e.mc[0].ce.value == 5, "ce: mc0 counts 5");

    read_tree("ue");
    CHECK(e.mc[0].ue.ok && e.mc[0].ue.value == 1, "ue: mc0 ue 1");
    CHECK(e.mc[0].dimm[1].ue.value == 1, "ue: on dimm1");

    read_tree("junk");
    CHECK(e.available, "junk: the controller is listed");
    CHECK(!e.mc[0].ce.ok, "junk: ce_count 'abc' unavailable");
    CHECK_EQ_STR(e.mc[0].ce.why, "mc0/ce_count holds 'abc', not a count (0..1000000000000000)", "junk: the reason");
    CHECK(!e.mc[0].ue.ok && strstr(e.mc[0].ue.why, "holds '99999999999999999999'"), "junk: huge ue: %s",
          e.mc[0].ue.why);
    CHECK(!e.mc[0].dimm[0].ue.ok && strstr(e.mc[0].dimm[0].ue.why, "longer than 63 bytes"),
          "junk: a 200-byte count: %s", e.mc[0].dimm[0].ue.why);
    CHECK(!e.mc[0].dimm[1].ce.ok && strstr(e.mc[0].dimm[1].ce.why, "not a regular file"),
          "junk: a directory for a count: %s", e.mc[0].dimm[1].ce.why);
    CHECK_EQ_STR(e.mc[0].dimm[1].label, "CPU1^IDIMM^AA1", "junk: the label's control characters escaped");
    mb_edac_text(&e, text, sizeof text);
    CHECK(strstr(text, "mc0 ce unavailable ue unavailable") != NULL, "junk: text says unavailable: %s", text);

    read_tree("none");
    CHECK(!e.available && strstr(e.why, "no EDAC driver loaded"), "none: %s", e.why);
    return check_done();
}
