/* defaults: STREAM's compile-time parameters, the run-time defaults here
 * (make STREAM_ARRAY_SIZE= NTIMES= OFFSET= STREAM_TYPE=, passed as -D).
 * Read by options.c, whose table turns them into option defaults, and by
 * tests/unit/test_stream.c; a stamp file rebuilds both when they change
 * (stream/module.mk). */
#ifndef ST_DEFAULTS_H
#define ST_DEFAULTS_H

#ifndef STREAM_ARRAY_SIZE
#define STREAM_ARRAY_SIZE 10000000
#endif
#ifndef NTIMES
#define NTIMES 10
#endif
#ifndef OFFSET
#define OFFSET 0
#endif
#ifndef STREAM_TYPE
#define STREAM_TYPE double
#endif

#if NTIMES <= 1
#error "NTIMES must be at least 2: the first iteration is not counted"
#endif
#if OFFSET < 0
#error "OFFSET must not be negative"
#endif
_Static_assert(sizeof(STREAM_TYPE) == 4 || sizeof(STREAM_TYPE) == 8,
               "STREAM_TYPE must be float or double");

#endif
