/* fuzz_count: mb_parse_count (common/sizing.c), the element counts of
 * stream -s ("20M", "2e7", "20000000").
 * Contract: 0, -EINVAL or -ERANGE with a printable message on refusal; a
 * count never takes a byte unit ("MiB" is refused); "NK" is N x 1000
 * whenever N parses and the product fits. */
#include <errno.h>

#include "fuzz.h"
#include "sizing.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 4096)
        return 0;
    char *text = fuzz_cstring(data, size);
    char err[256];
    size_t n = 0;
    int rc = mb_parse_count(text, &n, err, sizeof err);
    if (rc != 0 && rc != -EINVAL && rc != -ERANGE)
        fuzz_fail("mb_parse_count returned %d", rc);
    fuzz_check_msg(err, sizeof err, rc != 0, true);

    size_t len = strlen(text);
    if (len > 0 && len < 64 && strspn(text, "0123456789.eE+") == len) {
        char k[80], ib[80];
        size_t nk = 0, bytes = 0;
        snprintf(k, sizeof k, "%sK", text);
        int rck = mb_parse_count(k, &nk, err, sizeof err);
        if (rc == 0 && n <= SIZE_MAX / 1000 && (rck != 0 || nk != n * 1000))
            fuzz_fail("'%s' = %zu but '%s' gives rc %d, %zu", text, n, k, rck, nk);
        snprintf(ib, sizeof ib, "%sMiB", text);
        if (mb_parse_count(ib, &bytes, err, sizeof err) != -EINVAL)
            fuzz_fail("count '%s' accepted a byte unit", ib);
    }
    free(text);
    return 0;
}
