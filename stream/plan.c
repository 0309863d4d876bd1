/* plan: every check that can refuse a run, before allocation. */
#include "plan.h"

#include <errno.h>
#include <omp.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "affinity.h"
#include "exitcodes.h"
#include "kernels.h"
#include "nt.h"
#include "options.h"
#include "opts.h"
#include "sizing.h"
#include "validate.h"

void st_plan_add_reason(st_plan_t *p, int tuning, const char *fmt, ...)
{
    va_list ap;

    if (p->nreasons >= sizeof p->reasons / sizeof p->reasons[0])
        return;
    va_start(ap, fmt);
    vsnprintf(p->reasons[p->nreasons], sizeof p->reasons[0], fmt, ap);
    va_end(ap);
    if (tuning) {
        p->reason_tuning |= 1u << p->nreasons;
        p->tuned = true;
    }
    p->nreasons++;
}

/* A warning that leaves the label alone (printed with the reasons). */
static void add_note(st_plan_t *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add_note(st_plan_t *p, const char *fmt, ...)
{
    va_list ap;

    if (p->nnotes >= sizeof p->notes / sizeof p->notes[0])
        return;
    va_start(ap, fmt);
    vsnprintf(p->notes[p->nnotes++], sizeof p->notes[0], fmt, ap);
    va_end(ap);
}

int st_plan_reason_is_tuning(const st_plan_t *p, size_t i)
{
    return i < 32 && (p->reason_tuning >> i) & 1u;
}

/* Overflow-checked byte sizes for n elements; false on overflow. */
static bool compute_bytes(st_plan_t *p)
{
    size_t per;
    return mb_mul_size(p->n, p->elem_bytes, &p->array_bytes) &&
           mb_add_size(p->n, p->offset, &per) &&
           mb_mul_size(per, p->elem_bytes, &p->stride_bytes) &&
           mb_mul_size(p->stride_bytes, 3, &p->total_bytes);
}

/* Elements per array that satisfy the 4x LLC rule; 0 when no count can
 * (the LLC is unknown, or 4x it overflows). */
static size_t rule_elements(const st_plan_t *p)
{
    if (p->min_array_bytes == 0 || p->min_array_bytes == SIZE_MAX)
        return 0;
    return p->min_array_bytes / p->elem_bytes + (p->min_array_bytes % p->elem_bytes != 0);
}

/* --array-size (converted by the option table) into elements. */
static int resolve_size(const st_options_t *o, st_plan_t *p, char *msg, size_t msglen)
{
    const st_size_arg_t *a = &o->array_size;

    p->size_source = a->kind;
    switch (a->kind) {
    case ST_SIZE_DEFAULT:
        p->n = st_default_array_size();
        break;
    case ST_SIZE_AUTO:
        if (p->min_array_bytes == 0) {
            snprintf(msg, msglen, "--array-size auto: the last-level cache size is unknown (%s); "
                     "pass --llc SIZE or an explicit --array-size",
                     p->llc.note[0] ? p->llc.note : "nothing reported it");
            return MB_EXIT_USAGE;
        }
        if (p->min_array_bytes == SIZE_MAX) {
            snprintf(msg, msglen, "--array-size auto: 4x the last-level cache (%s) exceeds the "
                     "largest size there is; check --llc or MEMSUITE_LLC, or pass an explicit "
                     "--array-size", p->llc.note);
            return MB_EXIT_USAGE;
        }
        p->n = rule_elements(p);
        break;
    case ST_SIZE_BYTES:
        p->n = a->value / p->elem_bytes;
        if (p->n == 0) {
            snprintf(msg, msglen, "--array-size: invalid value '%s': smaller than one %zu-byte "
                     "element; use e.g. 800MB or 2GiB", a->text, p->elem_bytes);
            return MB_EXIT_USAGE;
        }
        break;
    case ST_SIZE_ELEMENTS:
        p->n = a->value;
        break;
    }
    return 0;
}

/* The element count to suggest so this host's share reaches min_n. */
static size_t suggest_n(const st_split_t *sp, size_t min_n)
{
    size_t per, total;

    if (!sp)
        return min_n;
    per = min_n / (size_t)sp->host_ranks + (min_n % (size_t)sp->host_ranks != 0);
    if (sp->star)
        return per;
    return mb_mul_size(per, (size_t)sp->ranks, &total) ? total : per;
}

typedef struct {
    const st_plan_t *p;
    const st_split_t *sp;
} suggest_ctx_t;

/* mb_rule_suggest_fn: the --array-size that gives each array (this
 * host's share under a split) at least min_bytes. */
static void suggest_size(size_t min_bytes, const void *ctx, char *buf, size_t buflen)
{
    const suggest_ctx_t *c = ctx;
    size_t elem = c->p->elem_bytes, min_n = min_bytes / elem + (min_bytes % elem != 0);

    snprintf(buf, buflen, "--array-size %zu", suggest_n(c->sp, min_n));
}

/* The 4x LLC rule, mb_size_rule's policy: under it runs labelled
 * not-standard, or is refused (2) with --strict.  Under a split the rule
 * applies to this host's share (all its ranks share the cache). */
static int check_llc_rule(const st_options_t *o, const st_split_t *sp, st_plan_t *p, char *msg,
                          size_t msglen)
{
    char what[96], given[160];
    suggest_ctx_t ctx = { p, sp };
    mb_rule_t rule;
    size_t host_bytes;

    if (!mb_mul_size(p->host_n, p->elem_bytes, &host_bytes))
        host_bytes = SIZE_MAX;
    if (sp)
        snprintf(what, sizeof what, "this host's share of each array (%d rank%s here)",
                 sp->host_ranks, sp->host_ranks == 1 ? "" : "s");
    else
        snprintf(what, sizeof what, "each array");
    if (p->size_source == ST_SIZE_DEFAULT)
        snprintf(given, sizeof given, "--array-size not given (%zu elements)", p->n_total);
    else
        snprintf(given, sizeof given, "--array-size %s", o->array_size.text);
    mb_rule_query_t q = { &p->llc, host_bytes, what, given, o->strict, suggest_size, &ctx };
    mb_size_rule(&q, &rule);
    p->rule = rule;
    p->rule_checked = true;
    p->rule_bytes = host_bytes;
    snprintf(p->rule_subject, sizeof p->rule_subject, "%s", what);
    if (rule.verdict == MB_RULE_REFUSED) {
        snprintf(msg, msglen, "%s", rule.message);
        return MB_EXIT_USAGE;
    }
    if (rule.verdict != MB_RULE_MET)       /* under the rule, or unchecked */
        st_plan_add_reason(p, 0, "%s", rule.message);
    return 0;
}

/* No --array-size: STREAM's build-time default, raised to the 4x LLC rule
 * (as auto) when it is under it. */
static void raise_default(const st_split_t *sp, st_plan_t *p)
{
    size_t want, rule_n = rule_elements(p);
    char a[32], b[32];

    if (p->size_source != ST_SIZE_DEFAULT || rule_n == 0)
        return;
    want = suggest_n(sp, rule_n);
    if (want <= p->n)
        return;
    add_note(p, "--array-size not given: the default of %zu elements (%s per array) is under 4x "
             "the last-level cache (%s from %s); raised to %zu elements, as --array-size auto",
             p->n, mb_format_bytes(p->n * p->elem_bytes, a, sizeof a),
             mb_format_bytes(p->llc.total_bytes, b, sizeof b), mb_llc_source_name(p->llc.source),
             want);
    p->n = want;
    p->size_raised = true;
}

/* Bytes all ranks on this host allocate (3 arrays, offsets included). */
static bool host_total_bytes(const st_plan_t *p, const st_split_t *sp, size_t *out)
{
    size_t pad, per;

    if (!sp) {
        *out = p->total_bytes;
        return true;
    }
    return mb_mul_size((size_t)sp->host_ranks, p->offset, &pad) &&
           mb_add_size(p->host_n, pad, &per) && mb_mul_size(per, p->elem_bytes, &per) &&
           mb_mul_size(per, 3, out);
}

static int check_memory(const st_split_t *sp, st_plan_t *p, char *msg, size_t msglen)
{
    size_t avail, need;
    char fit[512];

    if (mb_mem_available(&avail) != 0) {
        p->mem_available_bytes = 0;
        p->fit = MB_FIT_UNKNOWN;
        if (!host_total_bytes(p, sp, &p->need_bytes))
            p->need_bytes = (size_t)-1;
        st_plan_add_reason(p, 0, "MemAvailable could not be read: the memory fit was not checked");
        return 0;
    }
    p->mem_available_bytes = avail;
    if ((p->size_source == ST_SIZE_AUTO || p->size_raised) && !sp) {
        /* Clamp to what fits: 90% of MemAvailable over three arrays. */
        size_t cap = (size_t)((double)avail * 0.9) / 3 / p->elem_bytes;
        if (cap > p->offset && p->n > cap - p->offset) {
            char want[32], got[32];
            size_t old = p->n;
            p->n = cap - p->offset;
            p->n_total = p->host_n = p->n;
            if (!compute_bytes(p)) {
                snprintf(msg, msglen, "--array-size: size arithmetic overflows");
                return MB_EXIT_RESOURCE;
            }
            mb_format_bytes(old * p->elem_bytes, want, sizeof want);
            mb_format_bytes(p->array_bytes, got, sizeof got);
            add_note(p, "--array-size %s: 4x LLC needs %s per array but memory allows %s; "
                     "clamped to %zu elements", p->size_raised ? "default" : "auto", want, got,
                     p->n);
        }
    }
    if (!host_total_bytes(p, sp, &need))
        need = (size_t)-1;
    p->need_bytes = need;
    p->fit = MB_FIT_FITS;
    if (!mb_fits_in_memory(need, avail, fit, sizeof fit)) {
        p->fit = MB_FIT_REFUSED;
        snprintf(p->fit_msg, sizeof p->fit_msg, "%s", fit);
        /* The largest size that fits this host, in --array-size terms. */
        size_t cap = (size_t)((double)avail * 0.9) / 3 / p->elem_bytes, pad = p->offset;
        if (sp && !mb_mul_size((size_t)sp->host_ranks, p->offset, &pad))
            pad = cap;
        cap = cap > pad ? cap - pad : 0;
        if (sp) {
            size_t per = cap / (size_t)sp->host_ranks, total;
            cap = sp->star ? per : mb_mul_size(per, (size_t)sp->ranks, &total) ? total : per;
            snprintf(msg, msglen, "arrays do not fit in this host's memory (nothing was "
                     "allocated; %d rank%s here): %s; use --array-size %zu or less, or fewer "
                     "ranks per host", sp->host_ranks, sp->host_ranks == 1 ? "" : "s", fit, cap);
        } else {
            snprintf(msg, msglen, "arrays do not fit in memory (nothing was allocated): %s; "
                     "for stream that is --array-size %zu or less", fit, cap);
        }
        return MB_EXIT_RESOURCE;
    }
    return 0;
}

/* Turns the resolved size into this process's part (see st_split_t). */
static int apply_split(const st_split_t *sp, st_plan_t *p, char *msg, size_t msglen)
{
    size_t lo, hi;

    p->ranks = sp ? sp->ranks : 1;
    p->rank = sp ? sp->rank : 0;
    p->star = sp && sp->star;
    if (!sp) {
        raise_default(sp, p);
        p->n_total = p->host_n = p->n;
        return 0;
    }
    if (p->size_source == ST_SIZE_AUTO) {
        /* auto sizes the host's share: 4x LLC over the ranks here. */
        size_t per = p->n / (size_t)sp->host_ranks + (p->n % (size_t)sp->host_ranks != 0);
        if (sp->star)
            p->n = per;
        else if (!mb_mul_size(per, (size_t)sp->ranks, &p->n))
            goto overflow;
    }
    raise_default(sp, p);
    if (sp->star) {
        if (!mb_mul_size(p->n, (size_t)sp->ranks, &p->n_total) ||
            !mb_mul_size(p->n, (size_t)sp->host_ranks, &p->host_n))
            goto overflow;
        return 0;
    }
    p->n_total = p->n;
    if (p->n_total < (size_t)sp->ranks) {
        snprintf(msg, msglen, "--array-size %zu: fewer elements than the %d MPI ranks; every rank "
                 "needs at least one: use --array-size %d or more", p->n_total, sp->ranks,
                 sp->ranks);
        return MB_EXIT_USAGE;
    }
    st_static_chunk(p->n_total, sp->rank, sp->ranks, &lo, &hi);
    p->n = hi - lo;
    p->host_n = 0;
    for (int i = 0; i < sp->host_ranks; i++) {
        st_static_chunk(p->n_total, sp->host_rank_ids[i], sp->ranks, &lo, &hi);
        p->host_n += hi - lo;
    }
    return 0;
overflow:
    snprintf(msg, msglen, "--array-size: %zu elements x %d ranks overflows the address space; "
             "use a smaller --array-size", p->n, sp->ranks);
    return MB_EXIT_RESOURCE;
}

static int check_numa(const st_options_t *o, st_plan_t *p, char *msg, size_t msglen)
{
    char why[256];
    int rc;

    p->numa.cpunodebind = o->cpunodebind;
    p->numa.membind = o->membind;
    p->numa.interleave = o->interleave;
    p->numa_requested = o->cpunodebind || o->membind || o->interleave;
    if (!p->numa_requested)
        return 0;
    if (o->membind && o->interleave) {
        snprintf(msg, msglen, "--membind and --interleave conflict: a page is either bound or "
                 "interleaved; give one of them");
        return MB_EXIT_USAGE;
    }
    /* a malformed list is a usage error in every build; a well-formed
     * one without libnuma is "unbuilt" (-ENOSYS, after the checks) */
    rc = mb_numa_check_request(&p->numa, why, sizeof why);
    if (rc == -ENOSYS) {
        snprintf(msg, msglen, "NUMA binding: %s", why);
        return MB_EXIT_UNBUILT;
    }
    if (rc != 0) {
        snprintf(msg, msglen, "%s", why);
        return MB_EXIT_USAGE;
    }
    return 0;
}

static void kernel_list_text(const st_plan_t *p, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < p->nkernels && used < len; i++) {
        int w = snprintf(buf + used, len - used, "%s%s", i ? "," : "",
                         st_kernel_get((st_kernel_id_t)p->kernel[i])->name);
        if (w < 0)
            break;
        used += (size_t)w;
    }
}

static int check_tuning(const st_options_t *o, st_plan_t *p, char *msg, size_t msglen)
{
    char list[128];
    size_t used = 0;

    if (st_kernels_parse(o->kernels, p->kernel, &p->nkernels, msg, msglen) != 0)
        return MB_EXIT_USAGE;
    p->standard_kernels = p->nkernels == 4;
    for (size_t i = 0; i < p->nkernels && p->standard_kernels; i++)
        p->standard_kernels = p->kernel[i] == (int)i;
    if (!p->standard_kernels) {
        kernel_list_text(p, list, sizeof list);
        st_plan_add_reason(p, 1, "kernels %s", list);
    }

    if (o->nt_stores) {
        bool unknown;
        p->nt = true;
        p->nt_auto = o->nt_isa == 0;
        char isa[16];
        p->nt_isa = st_nt_select(mb_opts_choice_name(ST_NT_ISA_CHOICES, o->nt_isa, isa, sizeof isa),
                                 &unknown, msg, msglen);
        if (!p->nt_isa)
            return unknown ? MB_EXIT_USAGE : MB_EXIT_UNBUILT;
        st_plan_add_reason(p, 1, "non-temporal stores (%s%s)", p->nt_isa->name,
                           p->nt_isa->nontemporal ? "" : ": plain stores, no streaming instruction");
    }

    p->hugepages = (st_hugepages_t)o->hugepages;
    mb_opts_choice_name(ST_HUGEPAGES_CHOICES, o->hugepages, p->hugepages_name,
                        sizeof p->hugepages_name);
    if (p->hugepages == ST_HP_NEVER)
        st_plan_add_reason(p, 1, "huge pages off (MADV_NOHUGEPAGE)");
    else if (p->hugepages == ST_HP_MADVISE)
        st_plan_add_reason(p, 1, "huge pages requested (MADV_HUGEPAGE)");

    /* The text line names every tuning, in order. */
    used = (size_t)snprintf(p->tuned_line, sizeof p->tuned_line, "*** tuned run: ");
    for (size_t i = 0, k = 0; i < p->nreasons && used < sizeof p->tuned_line; i++) {
        if (!st_plan_reason_is_tuning(p, i))
            continue;
        used += (size_t)snprintf(p->tuned_line + used, sizeof p->tuned_line - used, "%s%s",
                                 k++ ? "; " : "", p->reasons[i]);
    }
    if (used < sizeof p->tuned_line)
        snprintf(p->tuned_line + used, sizeof p->tuned_line - used, " ***");
    return 0;
}

/* Records which check refused (for --plan) and passes its code on. */
static int refuse(st_plan_t *p, const char *check, int rc)
{
    p->refused_by = check;
    return rc;
}

int st_plan_build(const st_options_t *o, st_plan_t *p, char *msg, size_t msglen)
{
    return st_plan_build_split(o, NULL, p, msg, msglen);
}

int st_plan_build_split(const st_options_t *o, const st_split_t *sp, st_plan_t *p, char *msg,
                        size_t msglen)
{
    char err[256];
    int rc;

    memset(p, 0, sizeof *p);
    p->inject = -1;
    p->type = (st_type_t)o->type;
    p->elem_bytes = p->type == ST_FLOAT ? sizeof(float) : sizeof(double);
    p->ntimes = (int)o->ntimes;
    p->scalar = sp ? ST_MPI_SCALAR : ST_SCALAR;
    p->offset = (size_t)o->offset;
    p->output = o->output;
    p->counters = o->counters;
    if (o->inject)
        p->inject = strcmp(o->inject, "dot") == 0 ? 3 : o->inject[0] - 'a';
    p->format = (mb_format_t)o->format;

    /* Usage errors first (exit 2), then feature (4), then resources (3). */
    if ((rc = check_tuning(o, p, msg, msglen)) != 0)
        return refuse(p, "options", rc);

    if (mb_llc_detect(o->llc, &p->llc, err, sizeof err) != 0) {
        snprintf(msg, msglen, "%s", err);
        return refuse(p, "llc", MB_EXIT_USAGE);
    }
    p->min_array_bytes = mb_min_array_bytes(&p->llc);
    if ((rc = resolve_size(o, p, msg, msglen)) != 0)
        return refuse(p, "size", rc);
    if ((rc = apply_split(sp, p, msg, msglen)) != 0)
        return refuse(p, "size", rc);
    if (!compute_bytes(p)) {
        snprintf(msg, msglen, "--array-size: %zu elements x 3 arrays x %zu bytes overflows the "
                 "address space; it cannot fit in memory: use a smaller --array-size",
                 p->n, p->elem_bytes);
        return refuse(p, "memory", MB_EXIT_RESOURCE);
    }

    /* A run whose values overflow cannot validate: refuse it now rather
     * than report a failed validation after the whole run. */
    int rounds = st_validate_rounds(p);
    if (rounds < p->ntimes) {
        snprintf(msg, msglen, "--ntimes %d: with %s elements the values overflow after %d "
                 "round%s, so the run could not be validated; use --ntimes %d or fewer%s",
                 p->ntimes, p->type == ST_FLOAT ? "float" : "double", rounds,
                 rounds == 1 ? "" : "s", rounds,
                 p->type == ST_FLOAT ? " (or --type double)" : "");
        return refuse(p, "ntimes", MB_EXIT_USAGE);
    }

    p->threads_given = o->threads > 0;
    p->threads = p->threads_given ? (int)o->threads : omp_get_max_threads();
    if (p->inject == 3) {
        bool has_dot = false;
        for (size_t i = 0; i < p->nkernels; i++)
            has_dot = has_dot || p->kernel[i] == ST_K_DOT;
        if (!has_dot) {
            snprintf(msg, msglen, "--inject-error=dot: Dot is not in --kernels; add it, e.g. "
                     "--kernels copy,scale,add,triad,dot");
            return refuse(p, "options", MB_EXIT_USAGE);
        }
    }

    if ((rc = check_numa(o, p, msg, msglen)) != 0)
        return refuse(p, "numa", rc);
    if ((rc = check_memory(sp, p, msg, msglen)) != 0)   /* auto, default: clamps, noted */
        return refuse(p, "memory", rc);
    if ((rc = check_llc_rule(o, sp, p, msg, msglen)) != 0)   /* after any clamp */
        return refuse(p, "size_rule", rc);

    return 0;
}

void st_plan_finish(st_plan_t *p)
{
    p->allowed_cpus = mb_affinity_allowed_cpus();
    p->threads_set = p->threads_given;
    /* OpenMP sized its default team before --cpunodebind shrank the CPU
     * set: follow the binding unless the user chose a count. */
    if (!p->threads_given && p->numa.cpunodebind && !getenv("OMP_NUM_THREADS") &&
        p->allowed_cpus > 0 && p->threads != p->allowed_cpus) {
        p->threads = p->allowed_cpus;
        p->threads_set = true;
    }
    if (p->allowed_cpus > 0 && p->threads > p->allowed_cpus)
        st_plan_add_reason(p, 0, "%d threads on %d allowed CPUs: oversubscribed, not a standard "
                           "result", p->threads, p->allowed_cpus);
    p->label = p->tuned ? "tuned" : p->nreasons > 0 ? "not-standard" : "standard";
}
