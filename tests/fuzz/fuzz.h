/* fuzz.h: shared helpers of the libFuzzer targets (tests/fuzz/fuzz_*.c).
 *
 * Each target feeds hostile bytes to one parser and checks its contract,
 * not only that it survives: return codes from the documented set, an
 * error message for every refusal, messages that quote bytes escaped.
 * A broken contract calls fuzz_fail, which aborts: libFuzzer saves the
 * input as a crash artifact and `make fuzz` fails. */
#ifndef MB_FUZZ_H
#define MB_FUZZ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define fuzz_fail(...) do {                                           \
        fprintf(stderr, "fuzz contract broken at %s:%d: ", __FILE__, __LINE__); \
        fprintf(stderr, __VA_ARGS__);                                 \
        fputc('\n', stderr);                                          \
        abort();                                                      \
    } while (0)

/* The input as a C string (cut at the first NUL); free() it. */
static inline char *fuzz_cstring(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1);
    if (!s)
        abort();
    memcpy(s, data, size);
    s[size] = '\0';
    return s;
}

/* msg is terminated inside msglen and, when `plain`, holds printable
 * ASCII only (hostile bytes are shown as \xHH, never raw). */
static inline void fuzz_check_msg(const char *msg, size_t msglen, bool want_text, bool plain)
{
    size_t len = strnlen(msg, msglen);
    if (len == msglen)
        fuzz_fail("message not terminated inside its %zu-byte buffer", msglen);
    if (want_text && len == 0)
        fuzz_fail("a refusal without a message");
    if (!want_text && len != 0)
        fuzz_fail("success with a message: %s", msg);
    for (size_t i = 0; plain && i < len; i++) {
        unsigned char c = (unsigned char)msg[i];
        if (c < 0x20 || c > 0x7e)
            fuzz_fail("raw byte 0x%02x at %zu in message: %s", c, i, msg);
    }
}

#endif
