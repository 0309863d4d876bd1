/* test_dimms: common/dimms, the one dmidecode parser, on the fixture
 * outputs (tests/fixtures/memsuite-dmi) and on locator spellings. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "dimms.h"

static mb_dimms_t t;

static const char *repo_root(void)
{
    const char *root = getenv("MEMSUITE_ROOT");
    return root && *root ? root : ".";
}

static void parse_fixture(const char *name)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/tests/fixtures/memsuite-dmi/%s.txt", repo_root(), name);
    FILE *f = fopen(path, "r");
    CHECK(f != NULL, "open %s", path);
    t.n = 0;
    if (f) {
        mb_dimms_parse(f, &t);
        fclose(f);
    }
}

static void parse_text(const char *text)
{
    FILE *f = fmemopen((void *)text, strlen(text), "r");
    mb_dimms_parse(f, &t);
    fclose(f);
}

/* One Memory Device block per (locator, bank, size, speed). */
static const char *device(char *buf, size_t len, const char *loc, const char *bank, const char *size,
                          const char *speed)
{
    snprintf(buf, len,
             "Handle 0x0040, DMI type 17, 92 bytes\nMemory Device\n\tSize: %s\n\tLocator: %s\n"
             "\tBank Locator: %s\n\tType: DDR5\n\tSpeed: %s\n\n",
             size, loc, bank, speed);
    return buf;
}

static const struct {
    const char *loc, *bank;
    int socket;
    const char *channel;
} locators[] = {
    { "CPU0_DIMM_A1", "P0_Node0_Channel0_Dimm0", 0, "0" },
    { "CPU1_DIMM_B2", "Not Specified", 1, "B" },
    { "PROC 2 DIMM 3", "Not Specified", 2, "" },
    { "DIMM 0", "NODE 1 CHANNEL B", 1, "B" },
    { "DIMM 0", "Not Specified", -1, "" },
    { "SOCKET-3 DIMM_C1", "BANK 0", 3, "C" },
};

static void test_locators(void)
{
    for (size_t i = 0; i < sizeof locators / sizeof locators[0]; i++) {
        char buf[1024];
        parse_text(device(buf, sizeof buf, locators[i].loc, locators[i].bank, "16 GB", "4800 MT/s"));
        CHECK(t.n == 1 && t.d[0].socket == locators[i].socket &&
                  strcmp(t.d[0].channel, locators[i].channel) == 0,
              "'%s' / '%s' -> socket %d channel '%s' (got %d '%s')", locators[i].loc, locators[i].bank,
              locators[i].socket, locators[i].channel, t.n ? t.d[0].socket : -9,
              t.n ? t.d[0].channel : "?");
    }
}

static void test_fixtures(void)
{
    mb_dimms_summary_t s;
    parse_fixture("balanced");
    CHECK(t.n == 16, "balanced: 16 slots (got %d)", t.n);
    CHECK(t.d[0].size_mb == 16384 && t.d[0].speed_mts == 3200 && strcmp(t.d[0].type, "DDR4") == 0,
          "balanced: the first slot is 16 GB DDR4 at 3200 MT/s");
    CHECK(t.d[1].size_mb == 0, "balanced: 'No Module Installed' is an empty slot");
    mb_dimms_summarise(&t, &s);
    CHECK(s.verdict == MB_DIMMS_OK, "balanced: ok (why '%s')", s.why);
    CHECK_EQ_STR(s.text, "8/16 slots populated, DDR4, 16 GB each, 3200 MT/s (socket 0 4/8, socket 1 4/8)",
                 "balanced: the summary");
    CHECK(s.peak_mbps == 204800, "balanced: peak 8 channels x 3200 x 8 = 204800 MB/s (got %lld)",
          s.peak_mbps);
    CHECK_EQ_STR(s.peak_text, "8 channel(s) x 3200 MT/s x 8 bytes", "balanced: how the peak was computed");

    parse_fixture("unbalanced");
    mb_dimms_summarise(&t, &s);
    CHECK(s.verdict == MB_DIMMS_WARN &&
              strcmp(s.why, "unbalanced: populated DIMMs differ between sockets") == 0,
          "unbalanced: warn (got '%s')", s.why);
    CHECK(strstr(s.text, "(socket 0 6/8, socket 1 2/8)") != NULL, "unbalanced: per socket (%s)", s.text);
    CHECK(s.peak_mbps == 153600, "unbalanced: 6 channels named (got %lld)", s.peak_mbps);

    parse_fixture("vm");
    mb_dimms_summarise(&t, &s);
    CHECK(s.verdict == MB_DIMMS_OK && strncmp(s.text, "1/1 slots populated, RAM, 4 GB each (socket ? 1/1)", 60) == 0,
          "vm: one RAM DIMM, socket unknown (got '%s')", s.text);
    CHECK(s.peak_mbps == -1 && strcmp(s.peak_text, "DIMM speed unknown in dmidecode") == 0,
          "vm: no speed, no peak (got %lld '%s')", s.peak_mbps, s.peak_text);
}

static void test_edges(void)
{
    mb_dimms_summary_t s;
    char a[1024], b[1024], text[2200];
    parse_text("# dmidecode 3.4\nNo SMBIOS nor DMI entry point found, sorry.\n");
    mb_dimms_summarise(&t, &s);
    CHECK(t.n == 0 && s.verdict == MB_DIMMS_UNAVAILABLE && strstr(s.why, "no memory devices"),
          "no Memory Device: unavailable (%s)", s.why);
    parse_text(device(a, sizeof a, "DIMM 0", "Not Specified", "No Module Installed", "Unknown"));
    mb_dimms_summarise(&t, &s);
    CHECK(s.verdict == MB_DIMMS_UNAVAILABLE && strstr(s.why, "1 slots but none populated"),
          "only empty slots: unavailable (%s)", s.why);
    /* mixed sizes and speeds, channels unnamed: counted one per DIMM, at the slowest */
    device(a, sizeof a, "PROC 1 DIMM 1", "Not Specified", "32 GB", "4800 MT/s");
    device(b, sizeof b, "PROC 1 DIMM 2", "Not Specified", "512 MB", "5600 MT/s");
    snprintf(text, sizeof text, "%s%s", a, b);
    parse_text(text);
    mb_dimms_summarise(&t, &s);
    CHECK(s.verdict == MB_DIMMS_WARN && strstr(s.why, "mixed DIMM sizes") && strstr(s.why, "mixed DIMM speeds"),
          "mixed sizes and speeds: warn (%s)", s.why);
    CHECK(strstr(s.text, "512 MB/32 GB each, 4800 MT/s") != NULL, "sizes ascending, slowest speed (%s)", s.text);
    CHECK(s.peak_mbps == 2LL * 4800 * 8 && strstr(s.peak_text, "counted one per DIMM"),
          "unnamed channels: one per DIMM (%lld, %s)", s.peak_mbps, s.peak_text);
    /* the configured speed wins over the rated one */
    parse_text("Memory Device\n\tSize: 8 GB\n\tSpeed: 3200 MT/s\n\tConfigured Memory Speed: 2933 MT/s\n");
    CHECK(t.n == 1 && t.d[0].speed_mts == 2933, "configured speed wins (got %u)", t.n ? t.d[0].speed_mts : 0);
}

/* The slot as built: rated and configured speed, rank, maker, part; the
 * populated channels per socket. */
static void test_slots(void)
{
    parse_fixture("balanced");
    const mb_dimm_t *d = &t.d[0];
    CHECK_EQ_STR(d->locator, "CPU0_DIMM_A1", "balanced: slot 0 locator");
    CHECK_EQ_STR(d->bank, "P0_Node0_Channel0_Dimm0", "balanced: slot 0 bank");
    CHECK(d->rated_mts == 3200 && d->configured_mts == 3200 && d->rank == 2, "balanced: 3200/3200 MT/s rank 2");
    CHECK_EQ_STR(d->manufacturer, "Samsung", "balanced: manufacturer");
    CHECK_EQ_STR(d->part, "M393A2K43DB3-CWE", "balanced: part");
    CHECK(t.d[1].size_mb == 0 && t.d[1].manufacturer[0] == '\0', "balanced: an empty slot has no maker (NO DIMM)");
    int sockets[8], channels[8];
    int n = mb_dimms_channels(&t, sockets, channels, 8);
    CHECK(n == 2 && sockets[0] == 0 && channels[0] == 4 && sockets[1] == 1 && channels[1] == 4,
          "balanced: 4 channels on sockets 0 and 1 (%d sockets)", n);
    parse_fixture("one-empty");
    n = mb_dimms_channels(&t, sockets, channels, 8);
    CHECK(n == 2 && channels[0] == 4 && channels[1] == 3, "one-empty: socket 1 has 3 channels");
    parse_fixture("garbage");
    CHECK(t.n == 0, "garbage: no memory device (%d)", t.n);
}

int main(void)
{
    test_locators();
    test_slots();
    test_fixtures();
    test_edges();
    return check_done();
}
