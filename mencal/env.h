/* env: `mencal env`, the machine facts that change a memory figure. */
#ifndef MC_ENV_H
#define MC_ENV_H

#include "config.h"
#include "scenario.h"

/* cmd: the whole command line (recorded in JSON); options already parsed
 * into cfg.  An MB_EXIT_* code. */
int mc_env_main(const mc_config_t *cfg, const mc_cmdline_t *cmd);

#endif
