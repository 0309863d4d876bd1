/* test_plandoc: the plan document's words, refusal and both renderings
 * (the schema itself is checked against real tool output in
 * tests/bats/plan.bats). */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "plandoc.h"

/* Renders d in fmt into a heap string (freed by the caller). */
static char *render(const mb_plandoc_t *d, mb_format_t fmt)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return NULL;
    int rc = mb_plandoc_render(d, fmt, f);
    fclose(f);
    if (rc != 0) {
        free(buf);
        return NULL;
    }
    return buf;
}

static void run_json(mb_json_t *j, const void *ctx)
{
    mb_json_string(j, "marker", ctx);
}

int main(void)
{
    static const struct {
        bool checked;
        mb_rule_verdict_t verdict;
        const char *word;
    } rules[] = {
        { true, MB_RULE_MET, "met" },
        { true, MB_RULE_UNDER, "under" },
        { true, MB_RULE_REFUSED, "refused" },
        { true, MB_RULE_UNCHECKED, "unchecked" },
        { false, MB_RULE_MET, "not_checked" },
    };
    static const struct {
        mb_fit_t fit;
        const char *word;
    } fits[] = {
        { MB_FIT_FITS, "fits" },
        { MB_FIT_REFUSED, "refused" },
        { MB_FIT_UNKNOWN, "unknown" },
        { MB_FIT_NOT_CHECKED, "not_checked" },
        { (mb_fit_t)42, "not_checked" },
    };
    mb_plandoc_t d;
    mb_rule_t rule;
    mb_llc_t llc;
    char *out;

    for (size_t i = 0; i < sizeof rules / sizeof rules[0]; i++) {
        mb_plandoc_init(&d, "stream");
        memset(&rule, 0, sizeof rule);
        rule.verdict = rules[i].verdict;
        d.rule = &rule;
        d.rule_checked = rules[i].checked;
        CHECK_EQ_STR(mb_plandoc_rule_word(&d), rules[i].word, rules[i].word);
    }
    for (size_t i = 0; i < sizeof fits / sizeof fits[0]; i++)
        CHECK_EQ_STR(mb_plandoc_fit_word(fits[i].fit), fits[i].word, fits[i].word);

    /* a refusal: the label goes, the code and check stay, both formats say so */
    memset(&llc, 0, sizeof llc);
    llc.total_bytes = 8u << 20;
    llc.source = MB_LLC_SYSFS;
    mb_plandoc_init(&d, "mbw");
    d.label = "standard";
    d.llc = &llc;
    d.fit = MB_FIT_REFUSED;
    d.need_bytes = 1ull << 40;
    d.available_bytes = 1ull << 30;
    d.run_json = run_json;
    d.ctx = "run-object";
    mb_plandoc_reason(&d, "");          /* empty lines are not kept */
    mb_plandoc_warning(&d, "careful");
    mb_plandoc_refuse(&d, "memory", "does not fit", 3);
    CHECK(d.label == NULL && d.exit_code == 3 && d.nreasons == 0 && d.nwarnings == 1,
          "refuse: label dropped, code 3, empty reason not kept");
    out = render(&d, MB_FMT_JSON);
    CHECK(out != NULL, "json renders");
    if (out) {
        CHECK(strstr(out, "\"schema\": \"memsuite/plan/1\"") != NULL, "json: schema");
        CHECK(strstr(out, "\"proceed\": false") != NULL, "json: proceed false");
        CHECK(strstr(out, "\"check\": \"memory\"") != NULL, "json: refusal.check");
        CHECK(strstr(out, "\"exit_code\": 3") != NULL, "json: exit_code");
        CHECK(strstr(out, "\"label\": null") != NULL, "json: label null");
        CHECK(strstr(out, "\"verdict\": \"not_checked\"") != NULL, "json: rule not checked");
        CHECK(strstr(out, "\"min_bytes\": null") != NULL &&
              strstr(out, "\"min_bytes_unavailable\": \"the rule was not checked\"") != NULL,
              "json: min_bytes null with why");
        CHECK(strstr(out, "\"usable_bytes\": 966367642") != NULL, "json: usable = 90%% of 1 GiB");
        CHECK(strstr(out, "\"marker\": \"run-object\"") != NULL, "json: the tool's run object");
        free(out);
    }
    out = render(&d, MB_FMT_TEXT);
    CHECK(out != NULL, "text renders");
    if (out) {
        CHECK(strncmp(out, "mbw plan: the run would be refused (exit 3)\n", 44) == 0,
              "text: first line");
        CHECK(strstr(out, "refused by: memory: does not fit\n") != NULL, "text: refusal line");
        CHECK(strstr(out, "memory: does not fit: refused before allocating\n") != NULL,
              "text: memory verdict");
        CHECK(strstr(out, "label: none (nothing would run)\n") != NULL, "text: no label");
        CHECK(strstr(out, "warning: careful\n") != NULL, "text: warning");
        free(out);
    }

    /* a proceeding plan: proceed true, refusal null */
    mb_plandoc_init(&d, "stream");
    d.label = "not-standard";
    mb_plandoc_reason(&d, "small");
    out = render(&d, MB_FMT_JSON);
    CHECK(out && strstr(out, "\"proceed\": true") && strstr(out, "\"refusal\": null") &&
          strstr(out, "\"label\": \"not-standard\"") && strstr(out, "\"small\""),
          "json: proceeding plan with its label and reason");
    free(out);
    return check_done();
}
