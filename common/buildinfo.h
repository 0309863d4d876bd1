/* buildinfo: how this binary was built; one line, repeated by --version. */
#ifndef MB_BUILDINFO_H
#define MB_BUILDINFO_H

#define MB_VERSION "0.1.0"
/* The licence, named by --version (the text: LICENSE at the top of the tree). */
#define MB_LICENCE_LINE "BSD 3-Clause licence (LICENSE)"

/* e.g. "gcc 12.2.0 | -O3 -march=native | OpenMP 201511 | NUMA on | PAPI on" */
const char *mb_build_summary(void);
const char *mb_build_compiler(void);   /* "gcc 12.2.0" */
const char *mb_build_cflags(void);     /* the optimisation flags as given */
int mb_build_openmp(void);             /* _OPENMP value */
/* Prints "<prog> (memsuite) <version>\n<summary>\n<licence>\n" to stdout. */
void mb_print_version(const char *prog);

#endif
