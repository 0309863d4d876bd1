/* planout: stream --plan, from plan.c's st_plan_t. */
#include "planout.h"

#include <errno.h>
#include <string.h>

#include "affinity.h"
#include "exitcodes.h"
#include "kernels.h"
#include "log.h"
#include "nt.h"
#include "numa.h"
#include "plan.h"
#include "plandoc.h"
#include "run.h"

/* Indexed by st_size_source_t. */
static const char *const size_sources[] = { "default", "elements", "bytes", "auto" };

static void run_json(mb_json_t *j, const void *ctx)
{
    const st_plan_t *p = ctx;

    mb_json_array_begin(j, "kernels");
    for (size_t i = 0; i < p->nkernels; i++)
        mb_json_string(j, NULL, st_kernel_get((st_kernel_id_t)p->kernel[i])->name);
    mb_json_array_end(j);
    mb_json_string(j, "type", p->type == ST_FLOAT ? "float" : "double");
    mb_json_uint(j, "elem_bytes", p->elem_bytes);
    mb_json_string(j, "size_source", size_sources[p->size_source]);
    mb_json_uint(j, "elements_per_array", p->n);
    mb_json_uint(j, "array_bytes", p->array_bytes);
    mb_json_uint(j, "offset_elements", p->offset);
    mb_json_uint(j, "total_bytes", p->total_bytes);
    mb_json_int(j, "ntimes", p->ntimes);
    mb_json_bool(j, "nt_stores", p->nt);
    mb_json_string(j, "nt_isa", p->nt && p->nt_isa ? p->nt_isa->name : NULL);
    mb_json_string(j, "hugepages", p->hugepages_name[0] ? p->hugepages_name : NULL);
    mb_json_bool(j, "numa_requested", p->numa_requested);
}

static void run_text(FILE *f, const void *ctx)
{
    const st_plan_t *p = ctx;
    char a[32], b[32];

    fprintf(f, "kernels:");
    for (size_t i = 0; i < p->nkernels; i++)
        fprintf(f, "%s%s", i ? "," : " ", st_kernel_get((st_kernel_id_t)p->kernel[i])->name);
    fputc('\n', f);
    if (p->n)
        fprintf(f, "arrays: 3 x %zu %s elements (%s per array, %s in all; size %s); ntimes %d\n",
                p->n, p->type == ST_FLOAT ? "float" : "double",
                mb_format_bytes(p->array_bytes, a, sizeof a),
                mb_format_bytes(p->total_bytes, b, sizeof b), size_sources[p->size_source],
                p->ntimes);
}

int st_plan_report(const st_options_t *o, st_plan_t *p, int rc, const char *msg, FILE *f)
{
    static char numa_msg[512];
    static st_run_t run;
    mb_plandoc_t d;

    mb_plandoc_init(&d, "stream");
    if (rc == 0) {
        /* The run's next steps that can still refuse, nothing allocated:
         * the timing table and counter sets, then the NUMA request,
         * applied to this process so the CPU set is the run's. */
        rc = st_run_prepare(p, &run, numa_msg, sizeof numa_msg);
        st_run_free(p, &run);
        if (rc != 0) {
            p->refused_by = rc == MB_EXIT_USAGE ? "counters" : "resource";
            msg = numa_msg;
        }
    }
    if (rc == 0 && p->numa_requested) {
        int nr = mb_numa_apply(&p->numa, numa_msg, sizeof numa_msg);
        if (nr != 0) {
            rc = nr == -ENOSYS ? MB_EXIT_UNBUILT : nr == -EINVAL ? MB_EXIT_USAGE : MB_EXIT_RESOURCE;
            p->refused_by = "numa";
            msg = numa_msg;
        }
    }
    if (rc == 0)
        st_plan_finish(p);

    d.exit_code = rc;
    d.rule_checked = p->rule_checked;
    d.rule = &p->rule;
    d.llc = p->llc.source != MB_LLC_NONE || p->llc.note[0] ? &p->llc : NULL;
    d.rule_subject = p->rule_subject[0] ? p->rule_subject : "each array";
    d.rule_bytes = p->rule_checked ? p->rule_bytes : p->array_bytes;
    d.strict = o->strict;
    d.fit = p->fit;
    d.need_bytes = p->need_bytes ? p->need_bytes : p->total_bytes;
    d.available_bytes = p->mem_available_bytes;
    d.fit_message = p->fit_msg;
    d.threads_requested = o->threads > 0 ? (int)o->threads : 0;
    d.threads_effective = p->threads;       /* 0 when refused before it was known */
    d.allowed_cpus = p->allowed_cpus > 0 ? p->allowed_cpus : mb_affinity_allowed_cpus();
    d.threads_how = p->threads_given ? "--threads" : "OpenMP's default team (OMP_NUM_THREADS, else one per CPU)";
    d.label = rc == 0 ? p->label : NULL;
    for (size_t i = 0; i < p->nreasons; i++)
        mb_plandoc_reason(&d, p->reasons[i]);
    for (size_t i = 0; i < p->nnotes; i++)
        mb_plandoc_warning(&d, p->notes[i]);
    for (size_t i = 0; i < p->nreasons; i++)
        if (!st_plan_reason_is_tuning(p, i))
            mb_plandoc_warning(&d, p->reasons[i]);
    if (rc != 0) {
        mb_plandoc_refuse(&d, p->refused_by ? p->refused_by : "options", msg, rc);
        mb_error("%s", msg);
    }
    d.run_json = run_json;
    d.run_text = run_text;
    d.ctx = p;
    if (mb_plandoc_render(&d, (mb_format_t)o->format, f) != 0) {
        mb_error("writing the plan failed: %s", strerror(EIO));
        return MB_EXIT_RESOURCE;
    }
    return rc;
}
