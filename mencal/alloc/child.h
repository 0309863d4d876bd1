/* alloc/child: the child process of the allocator comparison. */
#ifndef MC_ALLOC_CHILD_H
#define MC_ALLOC_CHILD_H


#define MC_ALLOC_CHILD_ARG "__mencal-alloc-child"  /* argv[1] of a child */

/* Entry of a child (argv[1] == MC_ALLOC_CHILD_ARG): verifies the allocator,
 * runs the work (twice with --overhead: real, then harness only) and
 * writes "key value" lines on --result-fd.  Returns the exit status.
 * Called from a constructor in child.c, before main(). */
int mc_alloc_child_main(int argc, char **argv);

#endif
