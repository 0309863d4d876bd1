/* plandoc: renders the plan a tool made; decides nothing. */
#include "plandoc.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "buildinfo.h"

void mb_plandoc_init(mb_plandoc_t *d, const char *tool)
{
    memset(d, 0, sizeof *d);
    d->tool = tool;
}

static void add_line(const char **lines, size_t *n, const char *line)
{
    if (line && line[0] && *n < MB_PLAN_MAX_LINES)
        lines[(*n)++] = line;
}

void mb_plandoc_reason(mb_plandoc_t *d, const char *line)
{
    add_line(d->reasons, &d->nreasons, line);
}

void mb_plandoc_warning(mb_plandoc_t *d, const char *line)
{
    add_line(d->warnings, &d->nwarnings, line);
}

void mb_plandoc_refuse(mb_plandoc_t *d, const char *check, const char *msg, int exit_code)
{
    d->refused_by = check;
    d->refusal = msg;
    d->exit_code = exit_code;
    d->label = NULL;
}

/* Indexed by mb_rule_verdict_t. */
static const char *const rule_words[] = { "met", "unchecked", "under", "refused" };

const char *mb_plandoc_rule_word(const mb_plandoc_t *d)
{
    if (!d->rule_checked || !d->rule || (unsigned)d->rule->verdict >= 4)
        return "not_checked";
    return rule_words[d->rule->verdict];
}

/* Indexed by mb_fit_t. */
static const char *const fit_words[] = { "not_checked", "fits", "refused", "unknown" };

const char *mb_plandoc_fit_word(mb_fit_t fit)
{
    return (unsigned)fit < 4 ? fit_words[fit] : "not_checked";
}

/* What the run does with each rule verdict, for the text form. */
static const char *rule_meaning(const mb_plandoc_t *d)
{
    const char *w = mb_plandoc_rule_word(d);
    if (strcmp(w, "met") == 0)
        return "met: at least 4x the last-level cache";
    if (strcmp(w, "under") == 0)
        return "under the rule: runs, warned, labelled not-standard (--strict refuses it)";
    if (strcmp(w, "refused") == 0)
        return "under the rule with --strict: refused (exit 2)";
    if (strcmp(w, "unchecked") == 0)
        return "the LLC is unknown: runs unchecked, warned, labelled not-standard";
    return "not checked (an earlier check refused the run)";
}

static const char *fit_meaning(mb_fit_t fit)
{
    switch (fit) {
    case MB_FIT_FITS: return "fits";
    case MB_FIT_REFUSED: return "does not fit: refused before allocating";
    case MB_FIT_UNKNOWN: return "MemAvailable unreadable: allocates without the check";
    case MB_FIT_NOT_CHECKED: break;
    }
    return "not checked (an earlier check refused the run)";
}

static const char *const omp_vars[] = { "OMP_NUM_THREADS", "OMP_PROC_BIND", "OMP_PLACES" };
#define NOMP (sizeof omp_vars / sizeof omp_vars[0])

/* A size in bytes, or null when zero means unknown. */
static void json_bytes_or_null(mb_json_t *j, const char *key, size_t v, const char *why)
{
    if (v)
        mb_json_uint(j, key, v);
    else
        mb_json_unavailable(j, key, why);
}

static void render_json(const mb_plandoc_t *d, FILE *f)
{
    mb_json_t j;

    mb_json_init(&j, f, true);
    mb_json_object_begin(&j, NULL);
    mb_json_string(&j, "schema", MB_PLAN_SCHEMA);
    mb_json_string(&j, "tool", d->tool);
    mb_json_string(&j, "version", MB_VERSION);
    mb_json_bool(&j, "proceed", d->refused_by == NULL);
    mb_json_int(&j, "exit_code", d->exit_code);
    if (d->refused_by) {
        mb_json_object_begin(&j, "refusal");
        mb_json_string(&j, "check", d->refused_by);
        mb_json_string(&j, "message", d->refusal ? d->refusal : "");
        mb_json_object_end(&j);
    } else {
        mb_json_string(&j, "refusal", NULL);
    }

    mb_json_object_begin(&j, "size_rule");
    mb_json_string(&j, "verdict", mb_plandoc_rule_word(d));
    mb_json_string(&j, "subject", d->rule_subject ? d->rule_subject : "");
    mb_json_uint(&j, "bytes", d->rule_bytes);
    if (d->rule_checked && d->rule && d->rule->min_bytes && d->rule->min_bytes != (size_t)-1)
        mb_json_uint(&j, "min_bytes", d->rule->min_bytes);
    else
        mb_json_unavailable(&j, "min_bytes", d->rule_checked ? "the last-level cache size is unknown"
                                                             : "the rule was not checked");
    mb_json_bool(&j, "strict", d->strict);
    mb_json_object_begin(&j, "llc");
    if (d->llc) {
        json_bytes_or_null(&j, "bytes", d->llc->total_bytes, d->llc->note[0] ? d->llc->note
                                                                               : "not detected");
        mb_json_string(&j, "source", mb_llc_source_name(d->llc->source));
        mb_json_string(&j, "note", d->llc->note);
    } else {
        mb_json_unavailable(&j, "bytes", "not detected: an earlier check refused the run");
        mb_json_string(&j, "source", "none");
        mb_json_string(&j, "note", "");
    }
    mb_json_object_end(&j);
    mb_json_string(&j, "message", d->rule_checked && d->rule && d->rule->message[0]
                                      ? d->rule->message : NULL);
    mb_json_object_end(&j);

    mb_json_object_begin(&j, "memory");
    mb_json_string(&j, "verdict", mb_plandoc_fit_word(d->fit));
    mb_json_uint(&j, "need_bytes", d->need_bytes);
    json_bytes_or_null(&j, "available_bytes", d->available_bytes,
                       d->fit == MB_FIT_NOT_CHECKED ? "not read: an earlier check refused the run"
                                                    : "MemAvailable could not be read");
    if (d->available_bytes)
        mb_json_uint(&j, "usable_bytes", d->available_bytes - d->available_bytes / 10);
    else
        mb_json_unavailable(&j, "usable_bytes", "MemAvailable unknown");
    mb_json_string(&j, "message", d->fit_message && d->fit_message[0] ? d->fit_message : NULL);
    mb_json_object_end(&j);

    mb_json_object_begin(&j, "threads");
    if (d->threads_requested > 0)
        mb_json_int(&j, "requested", d->threads_requested);
    else
        mb_json_unavailable(&j, "requested", "not given: the tool's default");
    if (d->threads_effective > 0)
        mb_json_int(&j, "effective", d->threads_effective);
    else
        mb_json_unavailable(&j, "effective", "not resolved: an earlier check refused the run");
    if (d->allowed_cpus > 0)
        mb_json_int(&j, "allowed_cpus", d->allowed_cpus);
    else
        mb_json_unavailable(&j, "allowed_cpus", "not read");
    mb_json_string(&j, "how", d->threads_how);
    mb_json_object_begin(&j, "omp");
    for (size_t i = 0; i < NOMP; i++)
        mb_json_string(&j, omp_vars[i], getenv(omp_vars[i]));
    mb_json_object_end(&j);
    mb_json_object_end(&j);

    mb_json_string(&j, "label", d->label);
    mb_json_array_begin(&j, "label_reasons");
    for (size_t i = 0; i < d->nreasons; i++)
        mb_json_string(&j, NULL, d->reasons[i]);
    mb_json_array_end(&j);
    mb_json_array_begin(&j, "warnings");
    for (size_t i = 0; i < d->nwarnings; i++)
        mb_json_string(&j, NULL, d->warnings[i]);
    mb_json_array_end(&j);

    mb_json_object_begin(&j, "run");
    if (d->run_json)
        d->run_json(&j, d->ctx);
    mb_json_object_end(&j);
    mb_json_object_end(&j);
    mb_json_finish(&j);
}

static void render_text(const mb_plandoc_t *d, FILE *f)
{
    char a[32], b[32], c[32];

    fprintf(f, "%s plan: %s (exit %d)\n", d->tool,
            d->refused_by ? "the run would be refused" : "the run would proceed", d->exit_code);
    if (d->refused_by)
        fprintf(f, "refused by: %s: %s\n", d->refused_by, d->refusal ? d->refusal : "");
    if (d->run_text)
        d->run_text(f, d->ctx);
    fprintf(f, "size rule: %s\n", rule_meaning(d));
    if (d->llc && d->llc->total_bytes)
        fprintf(f, "  %s %s; 4x LLC %s; LLC %s from %s\n", d->rule_subject ? d->rule_subject : "size",
                mb_format_bytes(d->rule_bytes, a, sizeof a),
                d->rule && d->rule->min_bytes && d->rule->min_bytes != (size_t)-1
                    ? mb_format_bytes(d->rule->min_bytes, b, sizeof b) : "-",
                mb_format_bytes(d->llc->total_bytes, c, sizeof c), mb_llc_source_name(d->llc->source));
    else if (d->llc)
        fprintf(f, "  %s %s; LLC unknown (%s)\n", d->rule_subject ? d->rule_subject : "size",
                mb_format_bytes(d->rule_bytes, a, sizeof a), d->llc->note);
    fprintf(f, "memory: %s\n", fit_meaning(d->fit));
    if (d->fit != MB_FIT_NOT_CHECKED) {
        fprintf(f, "  needs %s", mb_format_bytes(d->need_bytes, a, sizeof a));
        if (d->available_bytes)
            fprintf(f, "; MemAvailable %s, 90%% usable: %s", mb_format_bytes(d->available_bytes, b,
                                                                           sizeof b),
                    mb_format_bytes(d->available_bytes - d->available_bytes / 10, c, sizeof c));
        fputc('\n', f);
    }
    fprintf(f, "threads: ");
    if (d->threads_effective > 0)
        fprintf(f, "%d", d->threads_effective);
    else
        fprintf(f, "not resolved");
    if (d->threads_requested > 0)
        fprintf(f, " (requested %d)", d->threads_requested);
    if (d->allowed_cpus > 0)
        fprintf(f, " on %d allowed CPUs", d->allowed_cpus);
    if (d->threads_how && d->threads_how[0])
        fprintf(f, "; %s", d->threads_how);
    fputc('\n', f);
    fprintf(f, "  ");
    for (size_t i = 0; i < NOMP; i++) {
        const char *v = getenv(omp_vars[i]);
        fprintf(f, "%s%s=%s", i ? " " : "", omp_vars[i], v ? v : "(unset)");
    }
    fputc('\n', f);
    fprintf(f, "label: %s\n", d->label ? d->label : "none (nothing would run)");
    for (size_t i = 0; i < d->nreasons; i++)
        fprintf(f, "  reason: %s\n", d->reasons[i]);
    for (size_t i = 0; i < d->nwarnings; i++)
        fprintf(f, "warning: %s\n", d->warnings[i]);
}

int mb_plandoc_render(const mb_plandoc_t *d, mb_format_t fmt, FILE *f)
{
    if (fmt == MB_FMT_JSON)
        render_json(d, f);
    else
        render_text(d, f);
    return fflush(f) == 0 && !ferror(f) ? 0 : -EIO;
}
