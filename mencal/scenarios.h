/* scenarios.h: the scenario registry, one X(name) per scenario.
 *
 * Adding a scenario is one file, mencal/sc-<name>.c, ending with
 *     const mc_scenario_t mc_sc_<name> = { ... };
 * and one X(<name>) line below, before the end marker (see
 * docs/architecture.md).  The order here is the order of `mencal list`,
 * of `mencal run all` and of the options in --help. */
#ifndef MC_SCENARIOS_H
#define MC_SCENARIOS_H

#define MC_SCENARIOS(X) \
    X(seqread)          \
    X(randread)         \
    X(mixed)            \
    X(concurrent)       \
    X(stability)        \
    X(loaded)           \
    X(sweep)            \
    X(matrix)           \
    X(injection)        \
    X(weights)          \
    X(c2c)              \
    X(alloc)            \
    /* end of the list */

#endif
