/* registry: the scenario table, expanded from scenarios.h. */
#include <string.h>

#include "scenario.h"
#include "scenarios.h"

#define MC_DECLARE(n) extern const mc_scenario_t mc_sc_##n;
MC_SCENARIOS(MC_DECLARE)
#undef MC_DECLARE

static const mc_scenario_t *const scenarios[] = {
#define MC_ENTRY(n) &mc_sc_##n,
    MC_SCENARIOS(MC_ENTRY)
#undef MC_ENTRY
};
#define NSCENARIOS (sizeof scenarios / sizeof scenarios[0])

size_t mc_scenario_count(void)
{
    return NSCENARIOS;
}

const mc_scenario_t *mc_scenario_at(size_t i)
{
    return i < NSCENARIOS ? scenarios[i] : NULL;
}

const mc_scenario_t *mc_scenario_find(const char *name)
{
    for (size_t i = 0; name && i < NSCENARIOS; i++)
        if (strcmp(scenarios[i]->name, name) == 0)
            return scenarios[i];
    return NULL;
}

const char *mc_scenario_names(char *buf, size_t buflen)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < NSCENARIOS && used < buflen; i++)
        used += (size_t)snprintf(buf + used, buflen - used, "%s%s", i ? ", " : "",
                                 scenarios[i]->name);
    return buf;
}

bool mc_scenario_accepts(const mc_scenario_t *sc, const char *opt)
{
    for (size_t k = 0; k < sc->nopts; k++)
        if (strcmp(sc->opts[k].long_name, opt) == 0)
            return true;
    return false;
}
