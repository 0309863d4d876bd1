/* isa.h: run-time choice of a hot loop's instruction set.
 *
 * MB_HOT_LOOP marks a function whose loop the compiler vectorises (STREAM's
 * kernels, mencal's sequential sum; not mbw's DUMB, which stays the
 * original's scalar loop, mbw/dumb.c).  On x86-64 with GCC or clang it is
 * compiled several times by target_clones: for
 * x86-64-v4 (AVX-512), x86-64-v3 (AVX2 + FMA) and the build's own target
 * ("default"), and the dynamic loader picks the best one the CPU has
 * (an ifunc resolved from cpuid, once, at start-up).  So a binary built
 * for a portable baseline (the packages: -march=x86-64) runs the same
 * vector loops as a -march=native build, and one built with
 * -march=native loses nothing (its "default" is already native).
 * The variant in use is not chosen per call: there is no run-time cost.
 *
 * Contract: the function is never inlined (GCC: noinline; clang refuses
 * noinline with target_clones but never inlines a multiversioned
 * function), so a restrict-qualified part function keeps its no-overlap
 * fact (see stream/kernels_tmpl.h).  Elsewhere (another architecture, or
 * MB_NO_ISA_CLONES defined, e.g. for analysers) it is only noinline.
 * Clang 14 accepts one "arch=" per clone list, hence its feature names
 * (avx512f implies FMA there; avx2 alone does not). */
#ifndef MB_ISA_H
#define MB_ISA_H

#if defined(__x86_64__) && !defined(MB_NO_ISA_CLONES) && defined(__clang__)
#define MB_HOT_LOOP __attribute__((target_clones("avx512f", "avx2", "default")))
#elif defined(__x86_64__) && !defined(MB_NO_ISA_CLONES) && defined(__GNUC__)
#define MB_HOT_LOOP \
    __attribute__((noinline, target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define MB_HOT_LOOP __attribute__((noinline))
#endif

#endif
