/* fuzz_size: mb_parse_size (common/sizing.c), the "8G", "512MiB", "1e9"
 * grammar of every --size/--llc option and of MEMSUITE_LLC.
 * Contract: 0 (bytes set, no message), -EINVAL or -ERANGE (a message of
 * printable ASCII naming the value); plain decimal digits parse as the
 * number they spell; a value that parses also parses with "B" appended
 * (bytes), to the same result. */
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
    size_t bytes = 12345;
    int rc = mb_parse_size(text, &bytes, err, sizeof err);
    if (rc != 0 && rc != -EINVAL && rc != -ERANGE)
        fuzz_fail("mb_parse_size returned %d", rc);
    fuzz_check_msg(err, sizeof err, rc != 0, true);

    size_t len = strlen(text), ndig = strspn(text, "0123456789");
    if (len > 0 && len <= 19 && ndig == len) {
        unsigned long long want = strtoull(text, NULL, 10);
        if (rc != 0 || bytes != (size_t)want)
            fuzz_fail("'%s' is %llu bytes, parsed rc %d value %zu", text, want, rc, bytes);
    }
    if (rc == 0 && len > 0 && ndig == len && len < 64) {
        char withb[80];
        size_t b2 = 0;
        snprintf(withb, sizeof withb, "%sB", text);
        if (mb_parse_size(withb, &b2, err, sizeof err) != 0 || b2 != bytes)
            fuzz_fail("'%s' and '%s' differ", text, withb);
    }
    free(text);
    return 0;
}
