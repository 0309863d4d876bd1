/* loadcurve: the reading of loaded's curve (contract in loadcurve.h). */
#include <math.h>
#include <stdio.h>

#include "loadcurve.h"
#include "stats.h"

mc_load_t mc_load_of(const double *bw, int n, int *none)
{
    *none = 0;
    for (int i = 0; i < n; i++)
        *none += !(bw[i] > 0);
    if (!*none)
        return MC_LOAD_TRAFFIC;
    return n > 0 && mb_median(bw, (size_t)n) > 0 ? MC_LOAD_PARTIAL : MC_LOAD_NONE;
}

const char *mc_load_text(mc_load_t load, int none, int n, char *buf, size_t len)
{
    if (load == MC_LOAD_TRAFFIC)
        snprintf(buf, len, "traffic");
    else
        snprintf(buf, len, "%s in %d of %d windows", load == MC_LOAD_NONE
                 ? "none: no traffic" : "traffic; none", none, n);
    return buf;
}

long mc_load_busiest(const double *rows, size_t n, size_t stride, int delay_col, int bw_col,
                     int *unloaded)
{
    long best = -1;
    *unloaded = 0;
    for (size_t r = 0; r < n; r++) {
        const double *row = &rows[r * stride];
        if (!isfinite(row[delay_col]))   /* the idle point */
            continue;
        if (!(row[bw_col] > 0))
            ++*unloaded;
        else if (best < 0 || row[bw_col] > rows[(size_t)best * stride + (size_t)bw_col])
            best = (long)r;
    }
    return best;
}
