/* test_report: the result model rendered as JSON, CSV and text, and the
 * atomic result file.
 *
 * Without arguments: unit checks (TAP).  With arguments it writes a
 * document for tests/bats/schema.bats:
 *   test_report --emit-json FILE          full document from real collection
 *                                         (sysinfo, counters, threads, NUMA
 *                                         placement, LLC)
 *   test_report --emit-json-fixture FILE  the hand-made fixture (hostile
 *                                         strings, unavailable parts)
 *   test_report --emit-json-partial FILE  the fixture with optional parts
 *                                         absent or unavailable
 *   test_report --emit-json-minimal FILE  only the required members
 * Exit: 0 written, 1 rendering failed, 2 usage, 3 file not writable. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "buildinfo.h"
#include "outfile.h"
#include "report.h"

/* ---- the fixture ---------------------------------------------------- */

#define HOSTILE_NAME "we,ird \"name\"\n\x01"

static const double copy_samples[] = { 1.0, 2.0, 3.0 };
static const mb_stats_t copy_stats = {
    .n = 3, .min = 1, .max = 3, .mean = 2, .median = 2, .stddev = 1, .cv = 0.5, .mad = 1,
};

static void config_cb(mb_json_t *j, const void *ctx)
{
    mb_json_uint(j, "array_size", *(const size_t *)ctx);
    mb_json_string(j, "type", "double");
}

static void record_extra_cb(mb_json_t *j, const void *ctx)
{
    mb_json_number(j, "bytes_per_iteration", *(const double *)ctx);
}

static void validation_cb(mb_json_t *j, const void *ctx)
{
    (void)ctx;
    mb_json_number(j, "max_relative_error", 1e-13);
}

typedef struct {
    mb_result_t r;
    mb_record_t rec[2];
    mb_affinity_t aff;
    mb_numa_placement_t place;
    mb_counters_t cnt;
    mb_llc_t llc;
    size_t array_size;
    double bytes_per_iter;
    char *argv[4];
} fixture_t;

static void fixture_init(fixture_t *fx)
{
    memset(fx, 0, sizeof *fx);
    mb_result_t *r = &fx->r;
    r->tool = "stream";
    r->label = "not-standard";
    mb_result_add_label_reason(r, "array smaller than 4x LLC");
    mb_result_add_label_reason(r, "NTIMES < 10");
    fx->argv[0] = "stream";
    fx->argv[1] = "--array-size";
    fx->argv[2] = "1000";
    r->argc = 3;
    r->argv = fx->argv;
    r->complete = true;
    r->has_validation = true;
    r->validated = true;
    r->validation_extra = validation_cb;
    fx->array_size = 1000;
    r->config = config_cb;
    r->config_ctx = &fx->array_size;

    mb_record_t *copy = &fx->rec[0];
    copy->name = "Copy";
    copy->headline = "best_rate_mbps";
    mb_metric_t *m = mb_record_add(copy, "best_rate_mbps", "MB/s", 12345.5);
    m->stats = &copy_stats;
    m->samples = copy_samples;
    m->nsamples = 3;
    mb_record_add(copy, "avg_time_s", "s", INFINITY);
    fx->bytes_per_iter = 16;
    copy->extra = record_extra_cb;
    copy->extra_ctx = &fx->bytes_per_iter;

    mb_record_t *odd = &fx->rec[1];
    odd->name = HOSTILE_NAME;
    odd->headline = "latency_ns";   /* unavailable, but the record has it */
    mb_metric_better(mb_record_add_unavailable(odd, "latency_ns", "ns", "no timer: because, reasons"),
                     MB_BETTER_NONE);
    r->records = fx->rec;
    r->nrecords = 2;

    fx->aff.requested = 2;
    fx->aff.counted = 2;
    fx->aff.cpu[0] = 0;
    fx->aff.cpu[1] = -1;
    strcpy(fx->aff.omp_num_threads, "2");
    strcpy(fx->aff.omp_proc_bind, "close");
    fx->aff.online_cpus = 2;
    fx->aff.allowed_cpus = 2;
    r->affinity = &fx->aff;

    fx->place.valid = true;
    fx->place.pages_sampled = 8;
    fx->place.pages_on_node[0] = 3;
    fx->place.pages_on_node[2] = 5;
    fx->place.max_node = 2;
    r->placement = &fx->place;
    r->numa_policy = "default (first touch)";

    fx->cnt.hw_requested = true;
    fx->cnt.hw_available = true;
    fx->cnt.n = 2;
    strcpy(fx->cnt.ev[0].name, "PAPI_TOT_CYC");
    fx->cnt.ev[0].available = true;
    fx->cnt.ev[0].value = 123;
    fx->cnt.nthreads = 2;                  /* two threads: 100 + 23 */
    fx->cnt.thr[0].id = 41;
    fx->cnt.thr[0].counted = true;
    fx->cnt.thr[0].value[0] = 100;
    fx->cnt.thr[1].id = 42;
    fx->cnt.thr[1].counted = true;
    fx->cnt.thr[1].value[0] = 23;
    strcpy(fx->cnt.ev[1].name, "PAPI_L3_TCM");
    strcpy(fx->cnt.ev[1].why, "unavailable: event not supported");
    strcpy(fx->cnt.sw_why, "perf_event_paranoid is 3");
    fx->cnt.minflt = 10;
    fx->cnt.maxrss_kib = 2048;
    r->counters = &fx->cnt;
    fx->rec[0].counters = &fx->cnt;

    fx->llc.source = MB_LLC_NONE;
    strcpy(fx->llc.note, "no sysfs cache directory");
    r->llc = &fx->llc;

    mb_result_warn(r, "governor is %s", "powersave");
}

/* The fixture with optional parts absent or unavailable. */
static void fixture_make_partial(fixture_t *fx)
{
    fx->r.has_validation = false;
    fx->r.affinity = NULL;
    fx->r.llc = NULL;
    fx->r.label = NULL;
    fx->r.nlabel_reasons = 0;
    fx->r.config = NULL;
    fx->r.complete = false;
    fx->cnt.hw_requested = false;
    fx->place.valid = false;
    strcpy(fx->place.why, "move_pages: Function not implemented");
    fx->rec[1].headline = "latency_p99";   /* a metric the record does not have */
}

/* ---- helpers -------------------------------------------------------- */

static char *render(const mb_result_t *r, mb_format_t fmt, int *rc)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return NULL;
    *rc = mb_report_render(r, fmt, f);
    fclose(f);
    return buf;
}

static bool have(const char *cmd)
{
    char sh[128];
    snprintf(sh, sizeof sh, "command -v %s >/dev/null 2>&1", cmd);
    return system(sh) == 0;
}

static char tmpdir[64];

static const char *write_temp(const char *name, const char *text)
{
    static char path[128];
    snprintf(path, sizeof path, "%s/%s", tmpdir, name);
    FILE *f = fopen(path, "w");
    if (!f)
        return NULL;
    fputs(text ? text : "", f);
    fclose(f);
    return path;
}

/* Runs a command; its stdout (trailing newline kept) in out. */
static int run_capture(const char *cmd, char *out, size_t outlen)
{
    FILE *p = popen(cmd, "r");
    if (!p)
        return -1;
    size_t n = fread(out, 1, outlen - 1, p);
    out[n] = '\0';
    return pclose(p);
}

static void jq_check(const char *file, const char *filter, const char *want)
{
    char cmd[512], out[2048];
    snprintf(cmd, sizeof cmd, "jq -c '%s' %s 2>&1", filter, file);
    int st = run_capture(cmd, out, sizeof out);
    out[strcspn(out, "\n")] = '\0';
    CHECK(st == 0 && strcmp(out, want) == 0, "jq %s == %s", filter, want);
    if (st != 0 || strcmp(out, want) != 0)
        printf("#   got: %s\n", out);
}

/* ---- JSON ----------------------------------------------------------- */

static void test_json(void)
{
    fixture_t fx;
    fixture_init(&fx);
    int rc = -1;
    char *doc = render(&fx.r, MB_FMT_JSON, &rc);
    CHECK(doc && rc == 0, "JSON renders (rc %d)", rc);
    if (!doc)
        return;
    CHECK(strncmp(doc, "{\n  \"schema\": \"memsuite/result/2\",\n  \"tool\": \"stream\",\n", 52) == 0,
          "JSON is pretty and starts with schema and tool");
    CHECK(strstr(doc, "\"samples\": [\n") != NULL, "samples are an array");
    CHECK(strstr(doc, "\"name\": \"we,ird \\\"name\\\"\\n\\u0001\"") != NULL,
          "hostile record name is escaped");

    if (!have("jq")) {
        printf("# jq not installed: structural checks skipped\n");
        free(doc);
        return;
    }
    const char *file = write_temp("fixture.json", doc);
    static const struct { const char *filter, *want; } q[] = {
        { "keys_unsorted",
          "[\"schema\",\"tool\",\"version\",\"build\",\"label\",\"label_reasons\",\"complete\","
          "\"command\",\"config\",\"records\",\"validation\",\"threads\",\"numa\",\"counters\","
          "\"llc\",\"warnings\"]" },
        { ".label_reasons", "[\"array smaller than 4x LLC\",\"NTIMES < 10\"]" },
        { ".command", "[\"stream\",\"--array-size\",\"1000\"]" },
        { ".complete", "true" },
        { ".config", "{\"array_size\":1000,\"type\":\"double\"}" },
        { ".records[0].name", "\"Copy\"" },
        { ".records[0] | keys_unsorted", "[\"name\",\"headline\",\"metrics\",\"counters\","
                                         "\"bytes_per_iteration\"]" },
        { ".records[0].headline", "\"best_rate_mbps\"" },
        { ".records[1].headline", "\"latency_ns\"" },
        { ".records[0].metrics.best_rate_mbps",
          "{\"value\":12345.5,\"unit\":\"MB/s\",\"base_unit\":\"B/s\",\"scale\":1000000,"
          "\"better\":\"higher\",\"stats\":{\"n\":3,\"min\":1,\"max\":3,\"mean\":2,"
          "\"median\":2,\"stddev\":1,\"cv\":0.5,\"mad\":1},\"samples\":[1,2,3]}" },
        { ".records[0].metrics.avg_time_s",
          "{\"value\":null,\"value_unavailable\":\"non-finite value (inf)\",\"unit\":\"s\","
          "\"base_unit\":\"s\",\"scale\":1,\"better\":\"lower\"}" },
        { ".records[0].bytes_per_iteration", "16" },
        { ".records[0].counters.hardware.events.PAPI_TOT_CYC", "123" },
        { ".records[1].name", "\"we,ird \\\"name\\\"\\n\\u0001\"" },
        { ".records[1].metrics.latency_ns",
          "{\"value\":null,\"value_unavailable\":\"no timer: because, reasons\",\"unit\":\"ns\","
          "\"base_unit\":\"s\",\"scale\":1e-09}" },
        { ".records[1] | has(\"counters\")", "false" },
        { ".validation", "{\"passed\":true,\"max_relative_error\":1e-13}" },
        { ".threads",
          "{\"requested\":2,\"counted\":2,\"cpus\":[0,null],\"omp_num_threads\":\"2\","
          "\"omp_proc_bind\":\"close\",\"omp_places\":null,"
          "\"omp_places_unavailable\":\"not set in the environment\",\"online_cpus\":2,"
          "\"allowed_cpus\":2}" },
        { ".numa",
          "{\"policy\":\"default (first touch)\",\"placement\":{\"pages_sampled\":8,"
          "\"pages_not_present\":0,\"pages_per_node\":{\"0\":3,\"1\":0,\"2\":5}}}" },
        { ".counters",
          "{\"hardware\":{\"available\":true,\"counted_per\":\"thread\",\"threads_counted\":2,"
          "\"events\":{\"PAPI_TOT_CYC\":123,\"PAPI_L3_TCM\":null,"
          "\"PAPI_L3_TCM_unavailable\":\"unavailable: event not supported\"},"
          "\"per_thread\":[{\"slot\":0,\"tid\":41,\"counts\":{\"PAPI_TOT_CYC\":100}},"
          "{\"slot\":1,\"tid\":42,\"counts\":{\"PAPI_TOT_CYC\":23}}],"
          "\"mapping\":{\"PAPI_TOT_CYC\":\"PAPI_TOT_CYC\",\"PAPI_L3_TCM\":\"PAPI_L3_TCM\"},"
          "\"multiplexed\":{},"
          "\"rates\":{\"ipc\":{\"value\":null,\"value_unavailable\":\"unavailable: instructions is "
          "not in the --counters list; add it\",\"unit\":\"instructions per cycle\",\"formula\":"
          "\"instructions / cycles\",\"events\":[\"PAPI_TOT_CYC\"]},\"cache_miss_pct\":{\"value\":null,"
          "\"value_unavailable\":\"unavailable: PAPI_L3_TCM was not counted (its reason is given "
          "with it)\",\"unit\":\"% of cache references\",\"formula\":\"100 * cache-misses / "
          "cache-references\",\"events\":[\"PAPI_L3_TCM\"]},\"llc_misses_per_kb\":{\"value\":null,"
          "\"value_unavailable\":\"unavailable: PAPI_L3_TCM was not counted (its reason is given "
          "with it)\",\"unit\":\"misses per 1000 bytes moved\",\"formula\":\"1000 * cache-misses / "
          "bytes moved\",\"events\":[\"PAPI_L3_TCM\"]},\"bytes_per_cycle\":{\"value\":null,"
          "\"value_unavailable\":\"unavailable: the tool did not state the bytes moved in this "
          "region\",\"unit\":\"bytes moved per core cycle (summed over threads)\",\"formula\":"
          "\"bytes moved / cycles\",\"events\":[\"PAPI_TOT_CYC\"]}}},\"software\":null,"
          "\"software_unavailable\":\"perf_event_paranoid is 3\",\"rusage\":{\"minflt\":10,"
          "\"majflt\":0,\"maxrss_kib\":2048}}" },
        { ".llc",
          "{\"total_bytes\":null,\"total_bytes_unavailable\":\"no sysfs cache directory\","
          "\"instance_bytes\":null,\"instance_bytes_unavailable\":\"no sysfs cache directory\","
          "\"instances\":null,\"instances_unavailable\":\"no sysfs cache directory\","
          "\"level\":null,\"level_unavailable\":\"no sysfs cache directory\",\"source\":\"none\","
          "\"note\":\"no sysfs cache directory\"}" },
        { ".warnings", "[\"governor is powersave\"]" },
    };
    for (size_t i = 0; i < sizeof q / sizeof q[0]; i++)
        jq_check(file, q[i].filter, q[i].want);
    free(doc);

    /* Optional parts vanish when absent; hardware counters not requested
     * and an invalid placement say why. */
    fixture_make_partial(&fx);
    doc = render(&fx.r, MB_FMT_JSON, &rc);
    file = write_temp("partial.json", doc ? doc : "");
    static const struct { const char *filter, *want; } q2[] = {
        { "[has(\"validation\"), has(\"threads\"), has(\"llc\"), has(\"sysinfo\")]",
          "[false,false,false,false]" },
        { "[.label, .complete, .config, .label_reasons]",
          "[\"not-standard\",false,{},[\"the tool set no label\"]]" },
        { "[.counters.hardware, .counters.hardware_unavailable]", "[null,\"not requested\"]" },
        /* a headline naming no metric of the record is left out */
        { "[.records[] | has(\"headline\")]", "[true,false]" },
        { ".numa", "{\"policy\":\"default (first touch)\",\"placement\":null,"
                   "\"placement_unavailable\":\"move_pages: Function not implemented\"}" },
    };
    for (size_t i = 0; i < sizeof q2 / sizeof q2[0]; i++)
        jq_check(file, q2[i].filter, q2[i].want);
    free(doc);
}

/* ---- a record's headline and a metric's direction -------------------- */

static void test_headline_better(void)
{
    static mb_record_t rec;
    memset(&rec, 0, sizeof rec);
    rec.name = "r";
    mb_record_add(&rec, "bw", "GB/s", 1);
    mb_metric_t *cv = mb_record_add(&rec, "cv", "fraction", 0.1);
    CHECK(mb_metric_better(cv, MB_BETTER_LOWER) == cv && cv->better == MB_BETTER_LOWER,
          "mb_metric_better sets the direction and returns the metric");
    CHECK(mb_metric_better(NULL, MB_BETTER_LOWER) == NULL, "mb_metric_better(NULL) is NULL (a full record)");
    CHECK(mb_record_metric(&rec, "cv") == cv, "mb_record_metric finds a metric by name");
    CHECK(mb_record_metric(&rec, "latency") == NULL && mb_record_metric(&rec, NULL) == NULL,
          "mb_record_metric: no such metric, no name: NULL");

    mb_result_t r = { .tool = "t", .label = "standard", .complete = true, .records = &rec, .nrecords = 1 };
    static const struct { const char *headline; bool written; } h[] = {
        { "bw", true }, { "cv", true }, { "latency", false }, { NULL, false },
    };
    for (size_t i = 0; i < sizeof h / sizeof h[0]; i++) {
        rec.headline = h[i].headline;
        int rc = -1;
        char *doc = render(&r, MB_FMT_JSON, &rc);
        char want[64];
        snprintf(want, sizeof want, "\"headline\": \"%s\"", h[i].headline ? h[i].headline : "");
        bool has = doc && strstr(doc, "\"headline\"") != NULL;
        CHECK(rc == 0 && has == h[i].written && (!has || strstr(doc, want)),
              "headline %s: %s", h[i].headline ? h[i].headline : "(none)",
              h[i].written ? "written" : "left out (no such metric)");
        CHECK(doc && strstr(doc, "\"better\": \"lower\"") && strstr(doc, "\"better\": \"higher\""),
              "headline %s: bw better higher (its unit), cv lower (its own)",
              h[i].headline ? h[i].headline : "(none)");
        free(doc);
    }
    /* a full record: the metric is not added, so no direction is set */
    for (int i = 0; i < MB_REC_MAX_METRICS; i++)
        mb_record_add(&rec, "pad", "", 0);
    CHECK(mb_metric_better(mb_record_add(&rec, "late", "s", 1), MB_BETTER_NONE) == NULL,
          "a metric past MB_REC_MAX_METRICS: NULL, and mb_metric_better takes it");
}

/* ---- CSV ------------------------------------------------------------ */

static void test_csv(void)
{
    fixture_t fx;
    fixture_init(&fx);
    int rc = -1;
    char *csv = render(&fx.r, MB_FMT_CSV, &rc);
    CHECK_EQ_STR(csv,
                 "tool,label,record,metric,unit,value,n,min,median,mean,max,stddev,cv,note,"
                 "validation\n"
                 "stream,not-standard,Copy,best_rate_mbps,MB/s,12345.5,3,1,2,2,3,1,0.5,,passed\n"
                 "stream,not-standard,Copy,avg_time_s,s,,,,,,,,,value: non-finite value (inf),"
                 "passed\n"
                 "stream,not-standard,\"we,ird \"\"name\"\"\n\x01\",latency_ns,ns,,,,,,,,,"
                 "\"no timer: because, reasons\",passed\n",
                 "CSV rows, quoting and notes");
    CHECK(rc == 0, "CSV rc 0");

    /* Non-finite statistics are empty with a note each. */
    mb_stats_t bad = copy_stats;
    bad.stddev = NAN;
    bad.cv = -INFINITY;
    fx.rec[0].metric[0].stats = &bad;
    fx.r.nrecords = 1;
    fx.rec[0].nmetric = 1;
    free(csv);
    csv = render(&fx.r, MB_FMT_CSV, &rc);
    CHECK(csv && strstr(csv, "MB/s,12345.5,3,1,2,2,3,,,stddev: non-finite value (nan); "
                             "cv: non-finite value (-inf),passed\n"),
          "non-finite stats leave empty fields and notes");

    /* A real CSV parser sees 15 fields in every row. */
    if (have("python3") && csv) {
        fixture_init(&fx);
        free(csv);
        csv = render(&fx.r, MB_FMT_CSV, &rc);
        const char *file = write_temp("r.csv", csv);
        char cmd[256], out[128];
        snprintf(cmd, sizeof cmd,
                 "python3 -c 'import csv,sys; r=list(csv.reader(open(sys.argv[1], newline=\"\")));"
                 "print(len(r), sorted(set(map(len, r))), r[3][2] == sys.argv[2])' %s '%s'",
                 file, "we,ird \"name\"\n\x01");
        /* the name goes through the shell: quote-safe because it has no ' */
        int st = run_capture(cmd, out, sizeof out);
        out[strcspn(out, "\n")] = '\0';
        CHECK(st == 0 && strcmp(out, "4 [15] True") == 0,
              "python csv reads 4 rows of 15 fields, hostile name intact (%s)", out);
    }
    free(csv);
}

/* A failed validation is never labelled standard (nor tuned), in any
 * format; CSV says passed, failed or none. */
static void test_failed_validation(void)
{
    static const char *const tool_labels[] = { "standard", "tuned", "not-standard" };
    for (size_t i = 0; i < sizeof tool_labels / sizeof tool_labels[0]; i++) {
        fixture_t fx;
        fixture_init(&fx);
        fx.r.label = tool_labels[i];
        fx.r.nlabel_reasons = 0;
        fx.r.validated = false;
        int rc = -1;
        char *json = render(&fx.r, MB_FMT_JSON, &rc);
        CHECK(json && strstr(json, "\"label\": \"not-standard\"") &&
              strstr(json, "\"label_reasons\": [\n    \"validation failed: "),
              "JSON: tool label %s + failed validation -> not-standard, reason first", tool_labels[i]);
        free(json);
        char *csv = render(&fx.r, MB_FMT_CSV, &rc);
        CHECK(csv && strstr(csv, "\nstream,not-standard,Copy,best_rate_mbps,") &&
              strstr(csv, ",failed\n") && !strstr(csv, ",passed\n"),
              "CSV: tool label %s + failed validation -> not-standard, validation failed",
              tool_labels[i]);
        free(csv);
        char *txt = render(&fx.r, MB_FMT_TEXT, &rc);
        CHECK(txt && strstr(txt, "Validation: FAILED\n") &&
              strstr(txt, "\nLabel: not-standard (validation failed: "),
              "text: tool label %s + failed validation -> not-standard", tool_labels[i]);
        free(txt);
    }
    fixture_t fx;
    fixture_init(&fx);
    fx.r.label = "standard";
    fx.r.has_validation = false;
    int rc = -1;
    char *csv = render(&fx.r, MB_FMT_CSV, &rc);
    CHECK(csv && strstr(csv, "\nstream,standard,Copy,best_rate_mbps,") && strstr(csv, ",none\n"),
          "CSV: no validation step -> label kept, validation none");
    free(csv);
}

/* ---- text ----------------------------------------------------------- */

static void test_text(void)
{
    fixture_t fx;
    fixture_init(&fx);
    int rc = -1;
    char *txt = render(&fx.r, MB_FMT_TEXT, &rc);
    CHECK_EQ_STR(txt,
                 "stream " MB_VERSION "\n"
                 "Record           Metric                Value  Unit  Median  Min  Max      CV\n"
                 "Copy             best_rate_mbps      12345.5  MB/s       2    1    3  50.00%\n"
                 "Copy             avg_time_s              n/a  s\n"
                 "we,ird \"name\"??  latency_ns      unavailable  ns\n"
                 "Unavailable: Copy avg_time_s: non-finite value (inf)\n"
                 "Unavailable: we,ird \"name\"?? latency_ns: no timer: because, reasons\n"
                 "Validation: passed\n"
                 "Warning: governor is powersave\n"
                 "Label: not-standard (array smaller than 4x LLC; NTIMES < 10)\n",
                 "text table");
    CHECK(rc == 0, "text rc 0");
    free(txt);

    /* Without any stats the stats columns are absent. */
    fx.rec[0].metric[0].stats = NULL;
    fx.r.nrecords = 1;
    fx.r.label = "standard";
    fx.r.nlabel_reasons = 0;
    fx.r.nwarnings = 0;
    fx.r.has_validation = false;
    fx.r.complete = false;
    txt = render(&fx.r, MB_FMT_TEXT, &rc);
    CHECK_EQ_STR(txt,
                 "stream " MB_VERSION "\n"
                 "Record  Metric            Value  Unit\n"
                 "Copy    best_rate_mbps  12345.5  MB/s\n"
                 "Copy    avg_time_s          n/a  s\n"
                 "Unavailable: Copy avg_time_s: non-finite value (inf)\n"
                 "Result: incomplete (the run was interrupted; figures are partial)\n"
                 "Label: standard\n",
                 "text table without stats");
    free(txt);

    /* A label reason a Warning line already says in full is not repeated
     * (mencal's size rule: one sentence, once); other reasons stay. */
    fx.r.label = "not-standard";
    fx.r.complete = true;
    mb_result_warn(&fx.r, "the working set is under 4x the LLC");
    mb_result_add_label_reason(&fx.r, "the working set is under 4x the LLC");
    mb_result_add_label_reason(&fx.r, "--hugepages madvise");
    txt = render(&fx.r, MB_FMT_TEXT, &rc);
    CHECK(txt && strstr(txt, "Warning: the working set is under 4x the LLC\n"
                             "Label: not-standard (--hugepages madvise; the warning above)\n"),
          "a warned label reason points to the warning");
    size_t seen = 0;
    for (const char *p = txt; p && (p = strstr(p, "under 4x")) != NULL; p++)
        seen++;
    CHECK(seen == 1, "the warned sentence appears once");
    free(txt);

    /* Number formatting: six significant digits, no exponent in range. */
    static const struct { double v; const char *want; } nums[] = {
        { 1073741824, "1073741824" }, { 0.0123456789, "0.0123457" }, { 1.5, "1.5" },
        { 2e-7, "2e-07" }, { -3.25, "-3.25" }, { 100, "100" },
    };
    for (size_t i = 0; i < sizeof nums / sizeof nums[0]; i++) {
        mb_record_t rec = { .name = "r" };
        mb_record_add(&rec, "m", "u", nums[i].v);
        mb_result_t r = { .tool = "t", .label = "standard", .records = &rec, .nrecords = 1 };
        txt = render(&r, MB_FMT_TEXT, &rc);
        char want[128];
        snprintf(want, sizeof want, "  %s  u\n", nums[i].want);
        CHECK(txt && strstr(txt, want), "text number %g -> %s", nums[i].v, nums[i].want);
        free(txt);
    }
}

/* ---- model helpers ---------------------------------------------------- */

static void test_model(void)
{
    mb_record_t rec = { .name = "r" };
    size_t added = 0;
    for (int i = 0; i < MB_REC_MAX_METRICS + 3; i++)
        added += mb_record_add(&rec, "m", "u", i) != NULL;
    CHECK(added == MB_REC_MAX_METRICS && rec.nmetric == MB_REC_MAX_METRICS,
          "record holds at most %d metrics", MB_REC_MAX_METRICS);

    mb_result_t r = { 0 };
    for (int i = 0; i < MB_MAX_WARNINGS + 5; i++)
        mb_result_warn(&r, "w%d", i);
    CHECK(r.nwarnings == MB_MAX_WARNINGS && strcmp(r.warnings[MB_MAX_WARNINGS - 1], "w15") == 0,
          "warnings capped at %d", MB_MAX_WARNINGS);
    static const char *const reasons[12] = { "a", "b", "c", "d", "e", "f",
                                             "g", "h", "i", "j", "k", "l" };
    for (int i = 0; i < 12; i++)
        mb_result_add_label_reason(&r, reasons[i]);
    CHECK(r.nlabel_reasons == 8, "label reasons capped at 8");
    /* issue 23, defect 30: one reason found twice (the run's oversubscription,
     * and a scenario's) is listed once */
    mb_result_t once = { 0 };
    char copy[] = "2 threads on 1 allowed CPUs: oversubscribed, not a standard result";
    mb_result_add_label_reason(&once, "2 threads on 1 allowed CPUs: oversubscribed, not a "
                                      "standard result");
    mb_result_add_label_reason(&once, copy);
    mb_result_add_label_reason(&once, "another reason");
    CHECK(once.nlabel_reasons == 2, "30: an equal label reason is listed once (%zu)",
          once.nlabel_reasons);

    static const struct { const char *s; int rc; mb_format_t fmt; } fm[] = {
        { "text", 0, MB_FMT_TEXT }, { "json", 0, MB_FMT_JSON }, { "csv", 0, MB_FMT_CSV },
        { "JSON", -EINVAL, 0 }, { "", -EINVAL, 0 }, { NULL, -EINVAL, 0 },
    };
    for (size_t i = 0; i < sizeof fm / sizeof fm[0]; i++) {
        mb_format_t got = (mb_format_t)99;
        int rc = mb_format_parse(fm[i].s, &got);
        CHECK(rc == fm[i].rc && (rc || got == fm[i].fmt), "format '%s' -> %d",
              fm[i].s ? fm[i].s : "(null)", rc);
    }
    CHECK(mb_report_render(&r, (mb_format_t)42, stdout) == -EINVAL, "unknown format -> -EINVAL");

    FILE *full = fopen("/dev/full", "w");
    if (full) {
        fixture_t fx;
        fixture_init(&fx);
        setvbuf(full, NULL, _IONBF, 0);
        CHECK(mb_report_json(&fx.r, full) != 0, "JSON to /dev/full reports an error");
        CHECK(mb_report_csv(&fx.r, full) == -ENOSPC, "CSV to /dev/full reports -ENOSPC, the real errno");
        fclose(full);
    }
}

/* One sample has no spread: stddev and cv must not read as a measured 0. */
static void test_one_sample(void)
{
    static const mb_stats_t one = { .n = 1, .min = 5, .max = 5, .mean = 5, .median = 5 };
    mb_record_t rec = { .name = "k" };
    mb_metric_t *m = mb_record_add(&rec, "rate", "MB/s", 5);
    if (!m)
        return;
    m->stats = &one;
    mb_result_t r = { .tool = "t", .label = "standard", .records = &rec, .nrecords = 1 };
    int rc;
    char *json = render(&r, MB_FMT_JSON, &rc);
    CHECK(json && strstr(json, "\"cv\": null") && strstr(json, "\"cv_unavailable\": \"one sample"),
          "n=1: JSON cv is null with the reason");
    CHECK(json && strstr(json, "\"stddev\": null"), "n=1: JSON stddev is null");
    free(json);
    char *csv = render(&r, MB_FMT_CSV, &rc);
    CHECK(csv && strstr(csv, ",k,rate,MB/s,5,1,5,5,5,5,,,\"stddev, cv: one sample"),
          "n=1: CSV leaves stddev and cv empty and says why");
    free(csv);
    char *text = render(&r, MB_FMT_TEXT, &rc);
    CHECK(text && !strstr(text, "0.00%"), "n=1: text shows no 0.00%% CV");
    free(text);
}

/* ---- documents for schema.bats --------------------------------------- */

static int write_doc(const mb_result_t *r, const char *path)
{
    char msg[1024];
    mb_out_t o;
    int rc = mb_out_open(&o, path, msg, sizeof msg);
    if (rc) {
        fprintf(stderr, "test_report: %s\n", msg);
        return 3;
    }
    rc = mb_report_json(r, o.f);
    if (rc) {
        mb_out_abort(&o);
        fprintf(stderr, "test_report: rendering failed: %s\n", strerror(-rc));
        return 1;
    }
    if (mb_out_commit(&o, msg, sizeof msg)) {
        fprintf(stderr, "test_report: %s\n", msg);
        return 3;
    }
    return 0;
}

static int emit_fixture(const char *path, bool partial, int argc, char **argv)
{
    fixture_t fx;
    fixture_init(&fx);
    if (partial)
        fixture_make_partial(&fx);
    fx.r.argc = argc;
    fx.r.argv = argv;
    return write_doc(&fx.r, path);
}

static int emit_minimal(const char *path)
{
    mb_result_t r = { .tool = "mbw", .label = "standard", .complete = true };
    return write_doc(&r, path);
}

/* A realistic document: every environment part from real collection. */
static int emit_full(const char *path, int argc, char **argv)
{
    static mb_sysinfo_t si;
    static mb_affinity_t aff;
    static mb_counters_t cnt;
    static mb_numa_placement_t place;
    static mb_llc_t llc;
    static mb_record_t rec[2];
    static mb_result_t r;
    char msg[256];

    mb_sysinfo_collect(&si);
    mb_affinity_record(&aff);
    if (mb_counters_init(&cnt, "default", msg, sizeof msg) != 0) {
        fprintf(stderr, "test_report: counters: %s\n", msg);
        return 1;
    }
    if (mb_llc_detect(NULL, &llc, msg, sizeof msg) != 0)
        fprintf(stderr, "test_report: llc: %s\n", msg);

    size_t n = 1 << 16;
    double *a = malloc(n * sizeof *a), samples[5];
    if (!a)
        return 3;
    for (int k = 0; k < 5; k++) {
        mb_counters_start(&cnt);
        double t0 = (double)k;
        for (size_t i = 0; i < n; i++)
            a[i] = t0 + (double)i;
        mb_counters_stop(&cnt);
        samples[k] = 1000.0 + a[n - 1] / 1e6;
    }
    mb_numa_placement(a, n * sizeof *a, 64, &place);
    static mb_stats_t st;
    mb_stats_compute(samples, 5, 1, &st);

    r.tool = "test_report";
    r.label = "not-standard";
    mb_result_add_label_reason(&r, "synthetic document for the schema test");
    r.argc = argc;
    r.argv = argv;
    r.complete = true;
    r.has_validation = true;
    r.validated = true;
    r.validation_extra = validation_cb;
    static size_t array_size;
    array_size = n;
    r.config = config_cb;
    r.config_ctx = &array_size;
    rec[0].name = "Fill";
    mb_metric_t *m = mb_record_add(&rec[0], "best_rate_mbps", "MB/s", st.max);
    m->stats = &st;
    m->samples = samples;
    m->nsamples = 5;
    mb_record_add(&rec[0], "avg_time_s", "s", INFINITY);
    rec[0].counters = &cnt;
    static double bpi = 8;
    rec[0].extra = record_extra_cb;
    rec[0].extra_ctx = &bpi;
    rec[1].name = "Latency";
    mb_record_add_unavailable(&rec[1], "latency_ns", "ns", "not measured by this driver");
    r.records = rec;
    r.nrecords = 2;
    r.affinity = &aff;
    r.numa_policy = "default (first touch)";
    r.placement = &place;
    r.counters = &cnt;
    r.llc = &llc;
    r.sysinfo = &si;
    mb_result_warn(&r, "synthetic: %s", "numbers mean nothing");
    int rc = write_doc(&r, path);
    mb_counters_finish(&cnt);
    free(a);
    return rc;
}

/* MB_FORMAT_CHOICES is an option table's CHOICE list whose index is the
 * mb_format_t: the i-th name must parse to format i. */
static void test_format_choices(void)
{
    const char *c = MB_FORMAT_CHOICES;
    int i = 0;
    while (*c) {
        char name[16];
        size_t len = strcspn(c, "|");
        snprintf(name, sizeof name, "%.*s", (int)len, c);
        mb_format_t f;
        CHECK(mb_format_parse(name, &f) == 0 && (int)f == i, "MB_FORMAT_CHOICES[%d] '%s' is "
              "mb_format_t %d", i, name, i);
        c += len + (c[len] == '|');
        i++;
    }
    CHECK(i == 3, "three formats in MB_FORMAT_CHOICES");
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "--emit-json") == 0)
        return emit_full(argv[2], argc, argv);
    if (argc == 3 && strcmp(argv[1], "--emit-json-fixture") == 0)
        return emit_fixture(argv[2], false, argc, argv);
    if (argc == 3 && strcmp(argv[1], "--emit-json-partial") == 0)
        return emit_fixture(argv[2], true, argc, argv);
    if (argc == 3 && strcmp(argv[1], "--emit-json-minimal") == 0)
        return emit_minimal(argv[2]);
    if (argc != 1) {
        fprintf(stderr, "usage: test_report [--emit-json|--emit-json-fixture|--emit-json-partial|"
                        "--emit-json-minimal FILE]\n");
        return 2;
    }

    test_format_choices();
    strcpy(tmpdir, "/tmp/test_report.XXXXXX");
    if (!mkdtemp(tmpdir)) {
        perror("mkdtemp");
        return 1;
    }
    test_model();
    test_json();
    test_headline_better();
    test_csv();
    test_failed_validation();
    test_text();
    test_one_sample();
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    if (system(cmd) != 0)
        printf("# could not remove %s\n", tmpdir);
    return check_done();
}
