/* report: the result model rendered as JSON, CSV or a text table
 * (contract in report.h). */
#include "report.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "buildinfo.h"
#include "isa.h"
#include "counter_names.h"
#include "wstatus.h"

/* ---- formats ------------------------------------------------------- */

static const struct {
    const char *name;
    mb_format_t fmt;
    int (*render)(const mb_result_t *, FILE *);
} formats[] = {
    { "text", MB_FMT_TEXT, mb_report_text },
    { "json", MB_FMT_JSON, mb_report_json },
    { "csv", MB_FMT_CSV, mb_report_csv },
};
#define NFORMATS (sizeof formats / sizeof formats[0])

int mb_format_parse(const char *s, mb_format_t *out)
{
    for (size_t i = 0; s && i < NFORMATS; i++)
        if (strcmp(s, formats[i].name) == 0) {
            *out = formats[i].fmt;
            return 0;
        }
    return -EINVAL;
}

int mb_report_render(const mb_result_t *r, mb_format_t fmt, FILE *f)
{
    for (size_t i = 0; i < NFORMATS; i++)
        if (formats[i].fmt == fmt)
            return formats[i].render(r, f);
    return -EINVAL;
}

/* ---- building the model -------------------------------------------- */

void mb_result_warn(mb_result_t *r, const char *fmt, ...)
{
    if (r->nwarnings >= MB_MAX_WARNINGS)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->warnings[r->nwarnings], sizeof r->warnings[0], fmt, ap);
    va_end(ap);
    r->nwarnings++;
}

void mb_result_add_label_reason(mb_result_t *r, const char *reason)
{
    size_t cap = sizeof r->label_reasons / sizeof r->label_reasons[0];
    for (size_t i = 0; reason && i < r->nlabel_reasons; i++)
        if (strcmp(r->label_reasons[i], reason) == 0)
            return;   /* one reason, listed once, whichever part of a tool found it */
    if (reason && r->nlabel_reasons < cap)
        r->label_reasons[r->nlabel_reasons++] = reason;
}

mb_metric_t *mb_record_add(mb_record_t *rec, const char *name, const char *unit, double value)
{
    if (rec->nmetric >= MB_REC_MAX_METRICS)
        return NULL;
    mb_metric_t *m = &rec->metric[rec->nmetric++];
    memset(m, 0, sizeof *m);
    m->name = name;
    m->unit = unit;
    m->value = value;
    m->available = true;
    return m;
}

mb_metric_t *mb_record_add_unavailable(mb_record_t *rec, const char *name, const char *unit,
                                       const char *why)
{
    mb_metric_t *m = mb_record_add(rec, name, unit, NAN);
    if (m) {
        m->available = false;
        m->why = why;
    }
    return m;
}

mb_metric_t *mb_metric_better(mb_metric_t *m, mb_better_t b)
{
    if (m)
        m->better = b;
    return m;
}

const mb_metric_t *mb_record_metric(const mb_record_t *rec, const char *name)
{
    for (size_t i = 0; name && i < rec->nmetric && i < MB_REC_MAX_METRICS; i++)
        if (rec->metric[i].name && strcmp(rec->metric[i].name, name) == 0)
            return &rec->metric[i];
    return NULL;
}

/* A result without a label is not standard, and says so. */
static const char no_label_reason[] = "the tool set no label";

static const char failed_validation_reason[] =
    "validation failed: the results do not match the expected values, the figures are not valid";

static bool validation_failed(const mb_result_t *r)
{
    return r->has_validation && !r->validated;
}

/* The label printed: a failed validation is never standard (nor tuned),
 * whatever the tool set; no label at all is not-standard. */
/* Whether TEXT is one of the result's warnings, word for word. */
static bool is_warning(const mb_result_t *r, const char *text)
{
    for (size_t i = 0; i < r->nwarnings && i < MB_MAX_WARNINGS; i++)
        if (strcmp(r->warnings[i], text) == 0)
            return true;
    return false;
}

static const char *result_label(const mb_result_t *r)
{
    return (!r->label || validation_failed(r)) ? "not-standard" : r->label;
}

/* Reasons the renderer adds before the tool's own: no label, a failed
 * validation.  Returns how many (at most 2) are in out. */
static size_t implied_reasons(const mb_result_t *r, const char *out[2])
{
    size_t n = 0;
    if (!r->label)
        out[n++] = no_label_reason;
    if (validation_failed(r))
        out[n++] = failed_validation_reason;
    return n;
}

/* The CSV validation column: passed | failed | none (no validation step). */
static const char *validation_word(const mb_result_t *r)
{
    return !r->has_validation ? "none" : r->validated ? "passed" : "failed";
}

static int stream_status(FILE *f)
{
    return -mb_write_status(f);
}

/* ---- JSON ----------------------------------------------------------- */

/* An integer that is meaningful only when positive. */
static void positive_or_unavailable(mb_json_t *j, const char *key, long long v, const char *why)
{
    if (v > 0)
        mb_json_int(j, key, v);
    else
        mb_json_unavailable(j, key, why);
}

#define MB_ONE_SAMPLE_WHY "one sample: no spread measured"

static void stats_json(mb_json_t *j, const mb_stats_t *s)
{
    mb_json_object_begin(j, "stats");
    mb_json_uint(j, "n", s->n);
    mb_json_number(j, "min", s->min);
    mb_json_number(j, "max", s->max);
    mb_json_number(j, "mean", s->mean);
    mb_json_number(j, "median", s->median);
    if (s->n < 2) {   /* one sample: a spread of 0 would claim one was measured */
        mb_json_unavailable(j, "stddev", MB_ONE_SAMPLE_WHY);
        mb_json_unavailable(j, "cv", MB_ONE_SAMPLE_WHY);
    } else {
        mb_json_number(j, "stddev", s->stddev);
        mb_json_number(j, "cv", s->cv);
    }
    mb_json_number(j, "mad", s->mad);
    mb_json_object_end(j);
}

static void metric_json(mb_json_t *j, const mb_metric_t *m)
{
    mb_json_object_begin(j, m->name ? m->name : "unnamed");
    if (m->available)
        mb_json_number(j, "value", m->value);
    else
        mb_json_unavailable(j, "value", m->why ? m->why : "unavailable (no reason given)");
    mb_json_string(j, "unit", m->unit ? m->unit : "");
    /* what the unit means (units.h): value x scale is in base_unit */
    mb_json_string(j, "base_unit", mb_unit_base(m->unit));
    mb_json_number(j, "scale", mb_unit_scale(m->unit));
    const char *better = mb_better_name(mb_unit_better(m->unit, m->better));
    if (better)
        mb_json_string(j, "better", better);
    if (m->stats)
        stats_json(j, m->stats);
    if (m->samples && m->nsamples) {
        mb_json_array_begin(j, "samples");
        for (size_t i = 0; i < m->nsamples; i++)
            mb_json_number(j, NULL, m->samples[i]);
        mb_json_array_end(j);
    }
    mb_json_object_end(j);
}

static void record_json(mb_json_t *j, const mb_record_t *rec)
{
    mb_json_object_begin(j, NULL);
    mb_json_string(j, "name", rec->name ? rec->name : "");
    if (mb_record_metric(rec, rec->headline))
        mb_json_string(j, "headline", rec->headline);
    mb_json_object_begin(j, "metrics");
    for (size_t i = 0; i < rec->nmetric && i < MB_REC_MAX_METRICS; i++)
        metric_json(j, &rec->metric[i]);
    mb_json_object_end(j);
    if (rec->counters)
        mb_counters_json(rec->counters, j, "counters");
    if (rec->extra)
        rec->extra(j, rec->extra_ctx);
    mb_json_object_end(j);
}

static void env_string(mb_json_t *j, const char *key, const char *v)
{
    if (v && *v)
        mb_json_string(j, key, v);
    else
        mb_json_unavailable(j, key, "not set in the environment");
}

static void threads_json(mb_json_t *j, const mb_affinity_t *a)
{
    mb_json_object_begin(j, "threads");
    positive_or_unavailable(j, "requested", a->requested, "not recorded");
    positive_or_unavailable(j, "counted", a->counted, "no parallel region was recorded");
    mb_json_array_begin(j, "cpus");
    int n = a->counted < MB_MAX_THREADS ? a->counted : MB_MAX_THREADS;
    for (int t = 0; t < n; t++) {
        if (a->cpu[t] >= 0)
            mb_json_int(j, NULL, a->cpu[t]);
        else
            mb_json_unavailable(j, NULL, NULL);
    }
    mb_json_array_end(j);
    env_string(j, "omp_num_threads", a->omp_num_threads);
    env_string(j, "omp_proc_bind", a->omp_proc_bind);
    env_string(j, "omp_places", a->omp_places);
    positive_or_unavailable(j, "online_cpus", a->online_cpus,
                            "sysconf(_SC_NPROCESSORS_ONLN) failed");
    positive_or_unavailable(j, "allowed_cpus", a->allowed_cpus, "sched_getaffinity failed");
    mb_json_object_end(j);
}

static void numa_json(mb_json_t *j, const char *policy, const mb_numa_placement_t *p)
{
    mb_json_object_begin(j, "numa");
    if (policy)
        mb_json_string(j, "policy", policy);
    else
        mb_json_unavailable(j, "policy", "not recorded");
    if (p && !p->valid) {
        mb_json_unavailable(j, "placement", p->why[0] ? p->why : "placement not verified");
    } else if (p) {
        mb_json_object_begin(j, "placement");
        mb_json_uint(j, "pages_sampled", p->pages_sampled);
        mb_json_uint(j, "pages_not_present", p->pages_not_present);
        mb_json_object_begin(j, "pages_per_node");
        int last = p->max_node < MB_NUMA_MAX_NODES ? p->max_node : MB_NUMA_MAX_NODES - 1;
        for (int n = 0; n <= last; n++) {
            char key[16];
            snprintf(key, sizeof key, "%d", n);
            mb_json_uint(j, key, p->pages_on_node[n]);
        }
        mb_json_object_end(j);
        mb_json_object_end(j);
    }
    mb_json_object_end(j);
}

static void llc_json(mb_json_t *j, const mb_llc_t *l)
{
    const char *why = l->note[0] ? l->note : "no cache size was reported";
    mb_json_object_begin(j, "llc");
    positive_or_unavailable(j, "total_bytes", (long long)l->total_bytes, why);
    positive_or_unavailable(j, "instance_bytes", (long long)l->instance_bytes, why);
    positive_or_unavailable(j, "instances", l->instances, why);
    positive_or_unavailable(j, "level", l->level, why);
    mb_json_string(j, "source", mb_llc_source_name(l->source));
    if (l->note[0])
        mb_json_string(j, "note", l->note);
    mb_json_object_end(j);
}

/* Each rate: {value | null + value_unavailable, unit, formula, events}. */
static void rates_json(const mb_counters_t *c, mb_json_t *j)
{
    mb_counter_rate_t rt[MB_COUNTER_RATES_MAX];
    int nr = mb_counter_rates(c, rt, MB_COUNTER_RATES_MAX);
    mb_json_object_begin(j, "rates");
    for (int i = 0; i < nr; i++) {
        mb_json_object_begin(j, rt[i].key);
        if (rt[i].ok)
            mb_json_number(j, "value", rt[i].value);
        else
            mb_json_unavailable(j, "value", rt[i].why);
        mb_json_string(j, "unit", rt[i].unit);
        mb_json_string(j, "formula", rt[i].formula);
        mb_json_array_begin(j, "events");
        for (int k = 0; k < 2; k++)
            if (rt[i].used[k])
                mb_json_string(j, NULL, rt[i].used[k]);
        mb_json_array_end(j);
        mb_json_object_end(j);
    }
    mb_json_object_end(j);
}

/* per_thread: [{slot, id, counts: {NAME: n} | null + counts_unavailable}] */
static void per_thread_json(const mb_counters_t *c, mb_json_t *j)
{
    int n = c->n < MB_COUNTERS_MAX ? c->n : MB_COUNTERS_MAX;
    mb_json_array_begin(j, "per_thread");
    for (int t = 0; t < c->nthreads && t < MB_COUNTERS_THREADS; t++) {
        const mb_counter_thread_t *s = &c->thr[t];
        mb_json_object_begin(j, NULL);
        mb_json_int(j, "slot", t);
        if (s->id > 0)
            mb_json_int(j, c->processes ? "pid" : "tid", s->id);
        else
            mb_json_unavailable(j, c->processes ? "pid" : "tid", "never joined the counters");
        if (s->missing) {
            mb_json_unavailable(j, "counts", s->why);
        } else if (!s->counted) {
            mb_json_unavailable(j, "counts", "joined, but no counted region ran on it");
        } else {
            mb_json_object_begin(j, "counts");
            for (int i = 0; i < n; i++)
                if (c->ev[i].available)
                    mb_json_int(j, c->ev[i].name, s->value[i]);
            mb_json_object_end(j);
        }
        mb_json_object_end(j);
    }
    mb_json_array_end(j);
}

void mb_counters_json(const mb_counters_t *c, mb_json_t *j, const char *key)
{
    mb_json_object_begin(j, key);

    if (!c->hw_requested) {
        mb_json_unavailable(j, "hardware", c->hw_why[0] ? c->hw_why : "not requested");
    } else {
        mb_json_object_begin(j, "hardware");
        mb_json_bool(j, "available", c->hw_available);
        if (!c->hw_available)
            mb_json_string(j, "reason", c->hw_why[0] ? c->hw_why : "unavailable (no reason given)");
        mb_json_string(j, "counted_per", c->processes ? "worker process" : "thread");
        mb_json_int(j, "threads_counted", mb_counters_threads_counted(c));
        if (c->threads_uncounted > 0)
            mb_json_int(j, "threads_uncounted", c->threads_uncounted);
        mb_json_object_begin(j, "events");
        int n = c->n < MB_COUNTERS_MAX ? c->n : MB_COUNTERS_MAX;
        int counted = mb_counters_threads_counted(c);
        for (int i = 0; i < n; i++) {
            const mb_counter_t *e = &c->ev[i];
            if (c->hw_available && e->available && counted > 0)
                mb_json_int(j, e->name, e->value);
            else
                mb_json_unavailable(j, e->name, e->why[0] ? e->why
                                                : c->hw_why[0] ? c->hw_why
                                                               : "not counted");
        }
        mb_json_object_end(j);
        per_thread_json(c, j);
        /* what counts each name: a PAPI event or perf_event_open's generic event */
        mb_json_object_begin(j, "mapping");
        for (int i = 0; i < n; i++)
            mb_json_string(j, c->ev[i].name, c->ev[i].event[0] ? c->ev[i].event : c->ev[i].name);
        mb_json_object_end(j);
        mb_json_object_begin(j, "multiplexed");
        for (int i = 0; i < n; i++)
            if (c->ev[i].available && c->ev[i].running_frac > 0 && c->ev[i].running_frac < 1.0)
                mb_json_number(j, c->ev[i].name, c->ev[i].running_frac);
        mb_json_object_end(j);
        if (c->bytes_moved > 0)
            mb_json_number(j, "bytes_moved", c->bytes_moved);
        rates_json(c, j);
        mb_json_object_end(j);
    }

    if (!c->sw_available) {
        mb_json_unavailable(j, "software", c->sw_why[0] ? c->sw_why : "not counted");
    } else {
        mb_json_object_begin(j, "software");
        mb_json_int(j, "page_faults", c->sw_page_faults);
        mb_json_int(j, "context_switches", c->sw_context_switches);
        mb_json_int(j, "cpu_migrations", c->sw_cpu_migrations);
        mb_json_uint(j, "task_clock_ns", c->sw_task_clock_ns);
        mb_json_object_end(j);
    }

    mb_json_object_begin(j, "rusage");
    mb_json_int(j, "minflt", c->minflt);
    mb_json_int(j, "majflt", c->majflt);
    mb_json_int(j, "maxrss_kib", c->maxrss_kib);
    mb_json_object_end(j);

    mb_json_object_end(j);
}

int mb_report_json(const mb_result_t *r, FILE *f)
{
    mb_json_t j;
    mb_json_init(&j, f, true);
    mb_json_object_begin(&j, NULL);
    mb_json_string(&j, "schema", MB_RESULT_SCHEMA);
    mb_json_string(&j, "tool", r->tool ? r->tool : "unknown");
    mb_json_string(&j, "version", MB_VERSION);
    mb_json_string(&j, "build", mb_build_summary());
    if (r->hot_loops) {
        char why[160];
        const char *isa = mb_isa_hot_loops((mb_hot_kind_t)r->hot_loops, why, sizeof why);
        mb_json_object_begin(&j, "hot_loops");
        mb_json_string(&j, "isa", isa);
        mb_json_string(&j, "why", why);
        mb_json_object_end(&j);
    }
    mb_json_string(&j, "label", result_label(r));
    mb_json_array_begin(&j, "label_reasons");
    const char *implied[2];
    for (size_t i = 0, n = implied_reasons(r, implied); i < n; i++)
        mb_json_string(&j, NULL, implied[i]);
    for (size_t i = 0; i < r->nlabel_reasons; i++)
        mb_json_string(&j, NULL, r->label_reasons[i]);
    mb_json_array_end(&j);
    mb_json_bool(&j, "complete", r->complete);

    mb_json_array_begin(&j, "command");
    for (int i = 0; r->argv && i < r->argc; i++)
        mb_json_string(&j, NULL, r->argv[i] ? r->argv[i] : "");
    mb_json_array_end(&j);

    mb_json_object_begin(&j, "config");
    if (r->config)
        r->config(&j, r->config_ctx);
    mb_json_object_end(&j);

    mb_json_array_begin(&j, "records");
    for (size_t i = 0; r->records && i < r->nrecords; i++)
        record_json(&j, &r->records[i]);
    mb_json_array_end(&j);

    if (r->has_validation) {
        mb_json_object_begin(&j, "validation");
        mb_json_bool(&j, "passed", r->validated);
        if (r->validation_extra)
            r->validation_extra(&j, r->validation_ctx);
        mb_json_object_end(&j);
    }
    if (r->affinity)
        threads_json(&j, r->affinity);
    if (r->numa_policy || r->placement)
        numa_json(&j, r->numa_policy, r->placement);
    if (r->counters)
        mb_counters_json(r->counters, &j, "counters");
    if (r->llc)
        llc_json(&j, r->llc);

    mb_json_array_begin(&j, "warnings");
    for (size_t i = 0; i < r->nwarnings && i < MB_MAX_WARNINGS; i++)
        mb_json_string(&j, NULL, r->warnings[i]);
    mb_json_array_end(&j);

    if (r->sysinfo)
        mb_sysinfo_json(r->sysinfo, &j, "sysinfo");
    mb_json_object_end(&j);
    mb_json_finish(&j);
    return mb_json_error(&j) ? mb_json_error(&j) : stream_status(f);
}

/* ---- CSV ------------------------------------------------------------ */

/* One field, quoted (RFC 4180) when it holds a comma, quote, CR or LF,
 * or starts or ends with a space. */
static void csv_field(FILE *f, const char *s, bool last)
{
    if (!s)
        s = "";
    size_t len = strlen(s);
    bool quote = strpbrk(s, ",\"\r\n") != NULL || (len && (s[0] == ' ' || s[len - 1] == ' '));
    if (!quote) {
        fputs(s, f);
    } else {
        putc('"', f);
        for (; *s; s++) {
            if (*s == '"')
                putc('"', f);
            putc(*s, f);
        }
        putc('"', f);
    }
    putc(last ? '\n' : ',', f);
}

/* A number field: empty when not finite (the note says why). */
static void csv_number(FILE *f, double v, const char *what, char *note, size_t notelen)
{
    if (isfinite(v)) {
        fprintf(f, "%.17g,", v);
        return;
    }
    size_t used = strlen(note);
    snprintf(note + used, notelen - used, "%s%s: non-finite value (%s)", used ? "; " : "", what,
             isnan(v) ? "nan" : v > 0 ? "inf" : "-inf");
    putc(',', f);
}

static void csv_row(FILE *f, const mb_result_t *r, const mb_record_t *rec, const mb_metric_t *m)
{
    char note[512] = "";
    csv_field(f, r->tool, false);
    csv_field(f, result_label(r), false);
    csv_field(f, rec->name, false);
    csv_field(f, m->name, false);
    csv_field(f, m->unit, false);
    if (m->available) {
        csv_number(f, m->value, "value", note, sizeof note);
    } else {
        snprintf(note, sizeof note, "%s", m->why ? m->why : "unavailable (no reason given)");
        putc(',', f);
    }
    const mb_stats_t *s = m->stats;
    if (s) {
        fprintf(f, "%zu,", s->n);
        static const char *const names[] = { "min", "median", "mean", "max" };
        const double vals[] = { s->min, s->median, s->mean, s->max };
        for (size_t i = 0; i < sizeof vals / sizeof vals[0]; i++)
            csv_number(f, vals[i], names[i], note, sizeof note);
        if (s->n < 2) {
            size_t used = strlen(note);
            snprintf(note + used, sizeof note - used, "%sstddev, cv: %s", used ? "; " : "",
                     MB_ONE_SAMPLE_WHY);
            fputs(",,", f);
        } else {
            csv_number(f, s->stddev, "stddev", note, sizeof note);
            csv_number(f, s->cv, "cv", note, sizeof note);
        }
    } else {
        fputs(",,,,,,,", f);
    }
    csv_field(f, note, false);
    csv_field(f, validation_word(r), true);
}

int mb_report_csv(const mb_result_t *r, FILE *f)
{
    fputs("tool,label,record,metric,unit,value,n,min,median,mean,max,stddev,cv,note,validation\n", f);
    for (size_t i = 0; r->records && i < r->nrecords; i++) {
        const mb_record_t *rec = &r->records[i];
        for (size_t k = 0; k < rec->nmetric && k < MB_REC_MAX_METRICS; k++)
            csv_row(f, r, rec, &rec->metric[k]);
    }
    return stream_status(f);
}

/* ---- text ----------------------------------------------------------- */

/* Six significant digits without an exponent in the usual range,
 * trailing zeros dropped: 12345.7, 0.0123457, 1.5, 1073741824. */
static void text_number(char *buf, size_t len, double v)
{
    if (!isfinite(v)) {
        snprintf(buf, len, "n/a");
        return;
    }
    double a = fabs(v);
    if (a == 0) {
        snprintf(buf, len, "0");
        return;
    }
    if (a < 1e-4 || a >= 1e15) {
        snprintf(buf, len, "%.6g", v);
        return;
    }
    int decimals = 5 - (int)floor(log10(a));
    decimals = decimals < 0 ? 0 : decimals > 9 ? 9 : decimals;
    snprintf(buf, len, "%.*f", decimals, v);
    if (strchr(buf, '.')) {
        char *end = buf + strlen(buf) - 1;
        while (*end == '0')
            *end-- = '\0';
        if (*end == '.')
            *end = '\0';
    }
}

enum { COL_RECORD, COL_METRIC, COL_VALUE, COL_UNIT, COL_MEDIAN, COL_MIN, COL_MAX, COL_CV, NCOLS };
#define CELL 64

static const struct {
    const char *title;
    bool right;   /* right-aligned */
} text_cols[NCOLS] = {
    [COL_RECORD] = { "Record", false }, [COL_METRIC] = { "Metric", false },
    [COL_VALUE] = { "Value", true },    [COL_UNIT] = { "Unit", false },
    [COL_MEDIAN] = { "Median", true },  [COL_MIN] = { "Min", true },
    [COL_MAX] = { "Max", true },        [COL_CV] = { "CV", true },
};

/* Copies s into a cell, control characters shown as '?' so one row stays
 * one line. */
static void cell_text(char *cell, const char *s)
{
    snprintf(cell, CELL, "%s", s ? s : "");
    for (char *p = cell; *p; p++)
        if ((unsigned char)*p < 0x20 || *p == 0x7f)
            *p = '?';
}

static void fill_row(char (*row)[CELL], const mb_record_t *rec, const mb_metric_t *m)
{
    cell_text(row[COL_RECORD], rec->name);
    cell_text(row[COL_METRIC], m->name);
    if (m->available)
        text_number(row[COL_VALUE], CELL, m->value);
    else
        snprintf(row[COL_VALUE], CELL, "unavailable");
    cell_text(row[COL_UNIT], m->unit);
    if (m->stats) {
        text_number(row[COL_MEDIAN], CELL, m->stats->median);
        text_number(row[COL_MIN], CELL, m->stats->min);
        text_number(row[COL_MAX], CELL, m->stats->max);
        if (m->stats->n >= 2 && isfinite(m->stats->cv))
            snprintf(row[COL_CV], CELL, "%.2f%%", m->stats->cv * 100.0);
        else
            snprintf(row[COL_CV], CELL, "n/a");
    }
}

/* One table line, trailing blanks trimmed. */
static void print_row(FILE *f, char (*row)[CELL], const int *width, int ncols)
{
    char line[NCOLS * (CELL + 2) + 1];
    size_t used = 0;
    for (int c = 0; c < ncols; c++) {
        int w = text_cols[c].right ? width[c] : -width[c];
        used += (size_t)snprintf(line + used, sizeof line - used, "%*s%s", w, row[c],
                                 c == ncols - 1 ? "" : "  ");
    }
    while (used && line[used - 1] == ' ')
        line[--used] = '\0';
    fprintf(f, "%s\n", line);
}

int mb_report_text(const mb_result_t *r, FILE *f)
{
    size_t nrows = 0;
    bool any_stats = false;
    for (size_t i = 0; r->records && i < r->nrecords; i++)
        for (size_t k = 0; k < r->records[i].nmetric && k < MB_REC_MAX_METRICS; k++) {
            nrows++;
            any_stats |= r->records[i].metric[k].stats != NULL;
        }
    int ncols = any_stats ? NCOLS : COL_UNIT + 1;

    char (*cells)[NCOLS][CELL] = calloc(nrows + 1, sizeof *cells);
    if (!cells)
        return -ENOMEM;
    for (int c = 0; c < NCOLS; c++)
        snprintf(cells[0][c], CELL, "%s", text_cols[c].title);
    size_t row = 1;
    for (size_t i = 0; r->records && i < r->nrecords; i++)
        for (size_t k = 0; k < r->records[i].nmetric && k < MB_REC_MAX_METRICS; k++)
            fill_row(cells[row++], &r->records[i], &r->records[i].metric[k]);

    int width[NCOLS] = { 0 };
    for (size_t i = 0; i <= nrows; i++)
        for (int c = 0; c < ncols; c++) {
            int w = (int)strlen(cells[i][c]);
            width[c] = w > width[c] ? w : width[c];
        }

    fprintf(f, "%s %s\n", r->tool ? r->tool : "memsuite", MB_VERSION);
    if (nrows) {
        for (size_t i = 0; i <= nrows; i++)
            print_row(f, cells[i], width, ncols);
    } else {
        fputs("No results.\n", f);
    }
    free(cells);

    for (size_t i = 0; r->records && i < r->nrecords; i++)
        for (size_t k = 0; k < r->records[i].nmetric && k < MB_REC_MAX_METRICS; k++) {
            const mb_metric_t *m = &r->records[i].metric[k];
            char rec[CELL], name[CELL];
            cell_text(rec, r->records[i].name);
            cell_text(name, m->name);
            if (!m->available)
                fprintf(f, "Unavailable: %s %s: %s\n", rec, name, m->why ? m->why : "no reason given");
            else if (!isfinite(m->value))
                fprintf(f, "Unavailable: %s %s: non-finite value (%s)\n", rec, name,
                        isnan(m->value) ? "nan" : m->value > 0 ? "inf" : "-inf");
        }
    if (r->has_validation)
        fprintf(f, "Validation: %s\n", r->validated ? "passed" : "FAILED");
    if (!r->complete)
        fputs("Result: incomplete (the run was interrupted; figures are partial)\n", f);
    for (size_t i = 0; i < r->nwarnings && i < MB_MAX_WARNINGS; i++)
        fprintf(f, "Warning: %s\n", r->warnings[i]);
    /* A reason that a Warning line above already says in full is not
     * repeated: the label points to it. */
    fprintf(f, "Label: %s", result_label(r));
    const char *implied[2];
    size_t nreasons = 0, warned = 0;
    for (size_t n = implied_reasons(r, implied); nreasons < n; nreasons++)
        fprintf(f, "%s%s", nreasons ? "; " : " (", implied[nreasons]);
    for (size_t i = 0; i < r->nlabel_reasons; i++) {
        if (is_warning(r, r->label_reasons[i])) {
            warned++;
            continue;
        }
        fprintf(f, "%s%s", nreasons++ ? "; " : " (", r->label_reasons[i]);
    }
    if (warned)
        fprintf(f, "%s%s", nreasons++ ? "; " : " (",
                warned == 1 ? "the warning above" : "the warnings above");
    fputs(nreasons ? ")\n" : "\n", f);
    return stream_status(f);
}
