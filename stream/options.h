/* options: stream's option table (one table parses argv, checks ranges
 * and prints --help) and the build-time defaults from STREAM's macros. */
#ifndef ST_OPTIONS_H
#define ST_OPTIONS_H

#include <stddef.h>
#include <stdio.h>

#include "config.h"

/* Build-time default of --array-size (make STREAM_ARRAY_SIZE=), elements.
 * The other build-time defaults (NTIMES, OFFSET, STREAM_TYPE) are the
 * option table's defaults. */
size_t st_default_array_size(void);

/* --array-size's grammar: "auto", a size ending in B (bytes per array,
 * mb_parse_size) or an element count (mb_parse_count, >= 1).  Returns 0,
 * or 2 with msg ("invalid value 'x': ...", without the option name). */
int st_options_parse_size(const char *arg, st_size_arg_t *out, char *msg, size_t msglen);

/* Fills opts with the table's defaults, then parses argv.  Returns 0, or
 * 2 with msg filled (usage error).  Positional arguments are a usage error. */
int st_options_parse(int argc, char **argv, st_options_t *opts, char *msg, size_t msglen);
/* --help text, generated from the same table. */
void st_options_help(FILE *f);

/* The same with more options (stream_mpi): `extra` entries follow
 * stream's own (before --quiet, --help and --version) in parsing and in
 * the help.  Their offsets are relative to the same cfg pointer, so the
 * caller's options struct starts with an st_options_t and o points to
 * it.  Returns 0, 2 (usage, msg filled) or 3 (out of memory). */
struct mb_opt;
int st_options_parse_ext(int argc, char **argv, st_options_t *o, const struct mb_opt *extra,
                         size_t nextra, char *msg, size_t msglen);
void st_options_help_ext(FILE *f, const char *usage, const struct mb_opt *extra, size_t nextra);

#endif
