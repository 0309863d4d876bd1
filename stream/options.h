/* options: stream's option table (one table parses argv, checks ranges
 * and prints --help) and the build-time defaults from STREAM's macros. */
#ifndef ST_OPTIONS_H
#define ST_OPTIONS_H

#include <stddef.h>
#include <stdio.h>

#include "config.h"

/* Build-time defaults (make STREAM_ARRAY_SIZE= NTIMES= OFFSET= STREAM_TYPE=). */
size_t st_default_array_size(void);
int st_default_ntimes(void);
long long st_default_offset(void);
const char *st_default_type(void);       /* "double" | "float" */

/* Fills opts with the defaults, then parses argv.  Returns 0, or 2 with
 * msg filled (usage error).  Positional arguments are a usage error. */
int st_options_parse(int argc, char **argv, st_options_t *opts, char *msg, size_t msglen);
/* --help text, generated from the same table. */
void st_options_help(FILE *f);

#endif
