/* isa.h: run-time choice of a hot loop's instruction set.
 *
 * MB_HOT_LOOP marks a function whose loop the compiler vectorises (STREAM's
 * kernels, mencal's sequential sum; not mbw's DUMB, which stays the
 * original's scalar loop, mbw/dumb.c).  It is written
 *
 *     MB_HOT_LOOP void MB_HOT_NAME(f)(params) { ... }
 *     MB_HOT_DISPATCH(void, f, (params))      (after the body, before any call)
 *
 * and the caller calls f.  The variant in use is not chosen per call:
 * there is no run-time cost.
 *
 * x86-64 with GCC or clang: f is static and compiled several times by
 * target_clones, for x86-64-v4 (AVX-512), x86-64-v3 (AVX2 + FMA) and the
 * build's own target ("default"); the dynamic loader picks the best one
 * the CPU has (an ifunc resolved from cpuid, once, at start-up).  So a
 * binary built for a portable baseline (the packages: -march=x86-64) runs
 * the same vector loops as a -march=native build, and one built with
 * -march=native loses nothing (its "default" is already native).  Clang 14
 * accepts one "arch=" per clone list, hence its feature names (avx512f
 * implies FMA there; avx2 alone does not).
 *
 * aarch64 with GCC (GCC 12 and clang 14 reject target_clones there): the
 * file's bodies are compiled twice.  The file itself gives f_neon (the
 * build's target: NEON at armv8-a); a file of its own
 * (stream/kernels_sve.c) defines MB_ISA_SVE_BODY, switches SVE on
 * (#pragma GCC target "+sve") and includes the same bodies as f_sve.
 * MB_HOT_DISPATCH makes f an ifunc whose resolver takes f_sve when
 * AT_HWCAP has HWCAP_SVE, else f_neon; so an SVE body never runs on a CPU
 * without SVE (no SIGILL: the NEON one runs, and mb_isa_hot_loops() says
 * so).
 *
 * A file whose loops are fixed-width GNU vectors (mencal's readkern.c and
 * storekern.c: "v32x4" means 32-byte vectors) defines MB_ISA_FIXED_WIDTH
 * before including this header: on aarch64 it keeps one NEON body (SVE
 * off in that file, even where the build enables it: GCC 12 lowers 32-
 * and 64-byte generic vectors to scalar code where SVE is on, and SVE's
 * length is the CPU's, not the variant's).  Its x86 clones are unchanged.
 *
 * Contract: the function is never inlined (GCC: noinline; clang refuses
 * noinline with target_clones but never inlines a multiversioned
 * function; an ifunc is called through the PLT), so a restrict-qualified
 * part function keeps its no-overlap fact (see stream/kernels_tmpl.h).
 * Elsewhere (another architecture, or MB_NO_ISA_CLONES defined: a native
 * build, analysers, clang on aarch64) f is one static noinline body. */
#ifndef MB_ISA_H
#define MB_ISA_H

#include <stddef.h>

#if defined(__x86_64__) && !defined(MB_NO_ISA_CLONES) && defined(__clang__)
#define MB_HOT_LOOP static __attribute__((target_clones("avx512f", "avx2", "default")))
#elif defined(__x86_64__) && !defined(MB_NO_ISA_CLONES) && defined(__GNUC__)
#define MB_HOT_LOOP \
    static __attribute__((noinline, target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#elif defined(__aarch64__) && defined(__linux__) && defined(__GNUC__) && !defined(__clang__) && \
    !defined(MB_NO_ISA_CLONES) && !defined(MB_ISA_FIXED_WIDTH)
#define MB_ISA_AARCH64_IFUNC 1
#define MB_HOT_LOOP __attribute__((noinline, visibility("hidden")))
#else
#define MB_HOT_LOOP static __attribute__((noinline))
#endif

/* HWCAP_SVE of <asm/hwcap.h> (aarch64): bit 22 of AT_HWCAP, which glibc
 * also passes to an aarch64 ifunc resolver as its first argument. */
#define MB_ISA_HWCAP_SVE (1UL << 22)

#if defined(__aarch64__) && defined(MB_ISA_FIXED_WIDTH) && defined(__GNUC__) && !defined(__clang__)
#pragma GCC target("+nosve")
#endif

#ifdef MB_ISA_AARCH64_IFUNC
#include <stdint.h>
#define MB_HOT_CAT_(a, b) a##b
#define MB_HOT_CAT(a, b) MB_HOT_CAT_(a, b)
#define MB_HOT_STR_(x) #x
#define MB_HOT_STR(x) MB_HOT_STR_(x)
#ifdef MB_ISA_SVE_BODY
#define MB_HOT_NAME(f) MB_HOT_CAT(f, _sve)
#else
#define MB_HOT_NAME(f) MB_HOT_CAT(f, _neon)
#endif
#define MB_HOT_DISPATCH(ret, f, params)                                              \
    __attribute__((visibility("hidden"))) ret MB_HOT_CAT(f, _sve) params;            \
    __attribute__((used)) static ret (*MB_HOT_CAT(f, _resolve)(uint64_t hwcap)) params \
    {                                                                                \
        return (hwcap & MB_ISA_HWCAP_SVE) ? MB_HOT_CAT(f, _sve) : MB_HOT_CAT(f, _neon); \
    }                                                                                \
    static ret f params __attribute__((ifunc(MB_HOT_STR(MB_HOT_CAT(f, _resolve)))));
#else
#define MB_HOT_NAME(f) f
#define MB_HOT_DISPATCH(ret, f, params)
#endif

/* The hot loops a tool has: none (mbw), dispatched (stream's parts), or
 * fixed-width (mencal's readkern/storekern: MB_ISA_FIXED_WIDTH). */
typedef enum { MB_HOT_NONE = 0, MB_HOT_DISPATCHED, MB_HOT_FIXED_WIDTH } mb_hot_kind_t;

/* Which hot-loop body of that kind this process runs, and why:
 * "x86-64-v4", "x86-64-v3" (clang: "avx512f", "avx2"), "default" (the
 * build's target), "sve", "neon", or "native" (a -march/-mcpu=native
 * build: one body).  why (may be NULL) gets the reason ("the CPU has no
 * SVE (AT_HWCAP): the NEON body runs").  The same test the resolvers make. */
const char *mb_isa_hot_loops(mb_hot_kind_t kind, char *why, size_t len);

/* aarch64: true when the CPU has SVE (AT_HWCAP), false elsewhere. */
int mb_isa_cpu_has_sve(void);

#endif
