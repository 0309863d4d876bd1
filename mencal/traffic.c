/* traffic: read, write, copy, triad and rw:PCT over one thread's memory
 * (the contract is in traffic.h).
 *
 * The loops use GCC's vector extension, so they stay vectorised at any
 * optimisation level.  read, write and copy run a variant chosen by
 * measurement (readkern.h, storekern.h; the defaults are what ran before
 * issue 24: 64-byte vectors, eight accumulators for read).  Measured on
 * Zen 5 at 16 KiB, one thread, before the variants: 64-byte vectors read
 * ~560 GB/s, 32-byte ones ~260 GB/s (the same ~39 GB/s in DRAM), and
 * likwid-bench's best load kernel (load_avx512) 330-360 GB/s. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "traffic.h"

/* ---- the loops: [from, to) in 64-byte vectors ------------------------- */

/* read, write and copy run the variant in use (readkern.h, storekern.h);
 * the read sums stay in the caller's state between calls, so a short pass
 * pays no horizontal sum and no reload (on a 16 KiB pass the sum alone
 * cost ~20%). */
typedef double mc_v8d_t __attribute__((vector_size(64)));

static __attribute__((noinline)) void k_triad(double *a, const double *b, const double *c,
                                               size_t from, size_t to, double q)
{
    mc_v8d_t *va = (mc_v8d_t *)(void *)a;
    const mc_v8d_t *vb = (const mc_v8d_t *)(const void *)b, *vc = (const mc_v8d_t *)(const void *)c;
    for (size_t i = from; i < to; i++)
        va[i] = vb[i] + q * vc[i];
}

/* Bytes of vectors [from, to) of every array, as STREAM counts them, and
 * the write-allocate reads: one per line stored, none when the stores are
 * non-temporal (they stream to memory without reading the line first). */
static void count(mc_traffic_t *t, size_t from, size_t to)
{
    uint64_t bytes = (uint64_t)(to - from) * sizeof(mc_v8d_t);
    t->stream_bytes += bytes * (uint64_t)(t->spec.k->reads + t->spec.k->writes);
    if (!(t->sk && t->sk->v.nt_stores))
        t->written_bytes += bytes * (uint64_t)t->spec.k->writes;
}

static void r_read(mc_traffic_t *t, size_t from, size_t to)
{
    t->rk->passes((const uint64_t *)(const void *)(t->arr[0] + from * 8), (to - from) * 8, 1, t->acc);
    count(t, from, to);
}

static void r_write(mc_traffic_t *t, size_t from, size_t to)
{
    t->sk->write(t->arr[0] + from * 8, (to - from) * 8, (double)(t->passes & 7) + 1.0);
    count(t, from, to);
}

static void r_copy(mc_traffic_t *t, size_t from, size_t to)
{
    t->sk->copy(t->arr[0] + from * 8, t->arr[1] + from * 8, (to - from) * 8);
    count(t, from, to);
}

static void r_triad(mc_traffic_t *t, size_t from, size_t to)
{
    k_triad(t->arr[0], t->arr[1], t->arr[2], from, to, 3.0);
    count(t, from, to);
}

/* rw: one line access per vector of the range, exact counts from the mix */
static void r_mix(mc_traffic_t *t, size_t from, size_t to)
{
    uint64_t r0 = t->mix.reads, w0 = t->mix.writes;
    mc_mix_run(&t->mix, to - from);
    uint64_t w = t->mix.writes - w0;
    t->stream_bytes += (t->mix.reads - r0 + w) * MC_LINE_BYTES;
    t->written_bytes += w * MC_LINE_BYTES;
}

const mc_traffic_kernel_t mc_traffic_kernels[MC_TRAFFIC_KERNELS] = {
    { "read", "s += a[i]", 1, 1, 0, false, r_read },
    { "write", "a[i] = s", 1, 0, 1, false, r_write },
    { "copy", "b[i] = a[i]", 2, 1, 1, false, r_copy },
    { "triad", "a[i] = b[i] + q*c[i]", 3, 2, 1, false, r_triad },
    { "rw", "64-byte lines loaded or stored in order, exactly PCT% loads", 1, 0, 0, true, r_mix },
};

const mc_kfamily_t *mc_traffic_family(const mc_traffic_kernel_t *k)
{
    return k->range == r_read ? &mc_read_traffic_family
           : k->range == r_write || k->range == r_copy ? &mc_store_family : NULL;
}

void mc_traffic_use(mc_traffic_t *t, size_t i)
{
    if (t->spec.k->range == r_read && i < mc_nreadkerns)
        t->rk = &mc_readkerns[i];
    else if ((t->spec.k->range == r_write || t->spec.k->range == r_copy) && i < mc_nstorekerns)
        t->sk = &mc_storekerns[i];
}

const mc_kvar_t *mc_traffic_variant(const mc_traffic_t *t)
{
    return t->spec.k->range == r_read ? &t->rk->v
           : t->spec.k->range == r_write || t->spec.k->range == r_copy ? &t->sk->v : NULL;
}

const mc_traffic_kernel_t *mc_traffic_find(const char *name)
{
    for (int i = 0; i < MC_TRAFFIC_KERNELS; i++)
        if (strcmp(mc_traffic_kernels[i].name, name) == 0)
            return &mc_traffic_kernels[i];
    return NULL;
}

int mc_traffic_init(mc_traffic_t *t, const mc_traffic_spec_t *spec, void *mem, size_t bytes,
                    uint64_t random_state, uint64_t stream)
{
    memset(t, 0, sizeof *t);
    t->spec = *spec;
    const int na = spec->k->arrays;
    size_t elems = bytes / (size_t)na / sizeof(double);
    elems -= elems % 8;
    if (elems == 0 || ((uintptr_t)mem % MC_LINE_BYTES) != 0)
        return -EINVAL;
    t->elems = elems;
    t->rk = &mc_readkerns[MC_READKERN_TRAFFIC];
    t->sk = &mc_storekerns[MC_STOREKERN_DEFAULT];
    if (spec->variant)
        mc_traffic_use(t, spec->variant - 1);
    for (int i = 0; i < na; i++) {
        t->arr[i] = (double *)mem + (size_t)i * elems;
        for (size_t e = 0; e < elems; e++)   /* first touch by the owner */
            t->arr[i][e] = (double)(i + 1);
    }
    if (spec->k->mix)
        mc_mix_init(&t->mix, (uint64_t *)mem, elems / 8, spec->read_pct, false, random_state, stream);
    return 0;
}

size_t mc_traffic_span(const mc_traffic_t *t)
{
    return (size_t)t->spec.k->arrays * t->elems * sizeof(double);
}

void mc_traffic_lines(mc_traffic_t *t, size_t lines)
{
    const size_t nvec = t->elems / 8;
    size_t pos = t->pos / 8;
    while (lines > 0) {
        size_t n = nvec - pos < lines ? nvec - pos : lines;
        t->spec.k->range(t, pos, pos + n);
        lines -= n;
        pos += n;
        if (pos == nvec) {
            pos = 0;
            t->passes++;
        }
    }
    t->pos = pos * 8;
}

void mc_traffic_passes(mc_traffic_t *t, uint64_t n)
{
    const size_t nvec = t->elems / 8;
    if (t->spec.k->range == r_read) {   /* the sums stay in registers over the passes */
        t->rk->passes((const uint64_t *)(const void *)t->arr[0], nvec * 8, n, t->acc);
        t->stream_bytes += (uint64_t)nvec * sizeof(mc_v8d_t) * n;
        t->passes += n;
        return;
    }
    for (uint64_t p = 0; p < n; p++) {
        t->spec.k->range(t, 0, nvec);
        t->passes++;
        __asm__ volatile("" ::: "memory");   /* every pass really runs */
    }
}

double mc_traffic_pass_bytes(const mc_traffic_t *t)
{
    const mc_traffic_kernel_t *k = t->spec.k;
    if (k->mix)
        return (double)(t->elems / 8) * MC_LINE_BYTES;
    return (double)t->elems * sizeof(double) * (double)(k->reads + k->writes);
}

int mc_traffic_parse(const char *s, mc_traffic_spec_t *out, char *why, size_t whylen)
{
    char shown[192];
    memset(out, 0, sizeof *out);
    if (strncmp(s, "rw:", 3) == 0) {
        const char *p = s + 3;
        unsigned v = 0;
        size_t digits = strspn(p, "0123456789");
        if (digits == 0 || p[digits] != '\0' || digits > 3 || (v = (unsigned)atoi(p)) > 100) {
            snprintf(why, whylen, "'%s': the read share of rw:PCT must be a whole percentage "
                     "0..100, e.g. rw:70", mb_shown(s, 40, shown, sizeof shown));
            return -EINVAL;
        }
        out->k = mc_traffic_find("rw");
        out->read_pct = v;
        return 0;
    }
    const mc_traffic_kernel_t *k = strcmp(s, "rw") == 0 ? NULL : mc_traffic_find(s);
    if (!k) {
        snprintf(why, whylen, "'%s': expected read, write, copy, triad or rw:PCT (PCT 0..100, "
                 "the percentage of loads)", mb_shown(s, 40, shown, sizeof shown));
        return -EINVAL;
    }
    out->k = k;
    return 0;
}

const char *mc_traffic_name(const mc_traffic_spec_t *s, char *buf, size_t buflen)
{
    if (s->k->mix)
        snprintf(buf, buflen, "rw:%u", s->read_pct);
    else
        snprintf(buf, buflen, "%s", s->k->name);
    return buf;
}
