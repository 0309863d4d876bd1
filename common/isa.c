/* isa: which hot-loop body runs (contract in isa.h), and the guard that
 * keeps a binary whose whole baseline is SVE from a SIGILL. */
#include "isa.h"

#include <stdio.h>

#include "exitcodes.h"

#if defined(__aarch64__) && defined(__linux__)
#include <stdlib.h>
#include <sys/auxv.h>
#include <unistd.h>
#if defined(__ARM_FEATURE_SVE)
#define MB_ISA_BASELINE_SVE 1   /* the build's CFLAGS enable SVE everywhere */
#else
#define MB_ISA_BASELINE_SVE 0
#endif

int mb_isa_cpu_has_sve(void)
{
    return (getauxval(AT_HWCAP) & MB_ISA_HWCAP_SVE) != 0;
}
#else
int mb_isa_cpu_has_sve(void)
{
    return 0;
}
#endif

const char *mb_isa_hot_loops(mb_hot_kind_t kind, char *why, size_t len)
{
    char dummy[1];
    if (!why) {
        why = dummy;
        len = sizeof dummy;
    }
#if defined(MB_NO_ISA_CLONES) || !(defined(__x86_64__) || defined(MB_ISA_AARCH64_IFUNC))
    (void)kind;
    snprintf(why, len, "one body, compiled for the build's target (no run-time dispatch in "
             "this build)");
    return "native";
#elif defined(MB_ISA_AARCH64_IFUNC)
    if (kind == MB_HOT_FIXED_WIDTH) {
        snprintf(why, len, "fixed-width vector loops: one NEON body on every aarch64 CPU");
        return "neon";
    }
    if (mb_isa_cpu_has_sve()) {
        snprintf(why, len, "the CPU has SVE (AT_HWCAP): the SVE body runs");
        return "sve";
    }
    snprintf(why, len, "the CPU has no SVE (AT_HWCAP): the NEON body runs");
    return "neon";
#elif defined(__clang__)
    (void)kind;
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f")) {
        snprintf(why, len, "the CPU has AVX-512F (cpuid): that clone runs");
        return "avx512f";
    }
    if (__builtin_cpu_supports("avx2")) {
        snprintf(why, len, "the CPU has AVX2 (cpuid): that clone runs");
        return "avx2";
    }
    snprintf(why, len, "the CPU has neither AVX-512F nor AVX2: the build's target runs");
    return "default";
#else
    (void)kind;
    __builtin_cpu_init();
    if (__builtin_cpu_supports("x86-64-v4")) {
        snprintf(why, len, "the CPU is x86-64-v4 (cpuid): that clone runs");
        return "x86-64-v4";
    }
    if (__builtin_cpu_supports("x86-64-v3")) {
        snprintf(why, len, "the CPU is x86-64-v3 (cpuid): that clone runs");
        return "x86-64-v3";
    }
    snprintf(why, len, "the CPU is below x86-64-v3: the build's target runs");
    return "default";
#endif
}

#if defined(__aarch64__) && defined(__linux__) && MB_ISA_BASELINE_SVE
/* CFLAGS with SVE (-march=armv8.2-a+sve, -mcpu=a64fx) let the compiler
 * use SVE in any loop, not only in the dispatched bodies: on a CPU
 * without it the first such loop would be a SIGILL.  Say so and stop,
 * with exit 4 (built for a feature this machine lacks), before main.
 * This function's own code has no loop the compiler could vectorise. */
__attribute__((constructor)) static void mb_isa_guard(void)
{
    if (mb_isa_cpu_has_sve())
        return;
    static const char msg[] =
        "memsuite: this binary was built with SVE throughout (its CFLAGS enable SVE) and this "
        "CPU has no SVE; build with the portable default (-march=armv8-a), whose hot loops "
        "choose SVE or NEON at run time\n";
    ssize_t w = write(2, msg, sizeof msg - 1);
    (void)w;
    _exit(MB_EXIT_UNBUILT);
}
#endif
