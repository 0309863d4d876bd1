/* render: a run's results as text, JSON (memsuite/result/2) or CSV. */
#ifndef MC_RENDER_H
#define MC_RENDER_H

#include <stdio.h>

#include "config.h"
#include "report.h"
#include "result.h"

struct mb_json;

typedef struct {
    const mc_config_t *cfg;
    mc_result_t *res;            /* scenario results */
    size_t nres;
    const char *subcommand;      /* "run" */
    const char *const *scenarios;
    size_t nscenarios;
    bool stopped;                /* a signal came before the measuring was
                                    over: the one decision for the file's
                                    "complete" and the exit code (main.c) */
} mc_run_t;
/* Build the mb_result_t view and render it in cfg->format. */
int mc_render(const mc_run_t *run, mb_result_t *r, FILE *f);
void mc_config_json(struct mb_json *j, const void *ctx);

#endif
