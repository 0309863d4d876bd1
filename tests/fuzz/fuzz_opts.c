/* fuzz_opts: the option table parser (common/opts.c) through a table
 * with every option type, and stream's real table (stream/options.c,
 * which also checks --counters lists).
 * Input: NUL-separated words, argv[1..] (at most 32).
 * Contract: mb_opts_parse returns 0 or 2, with a message exactly when it
 * refuses; positionals stay inside argv; INT/SIZE/COUNT/DOUBLE values
 * that were accepted lie inside their declared ranges. */
#include <math.h>
#include <stddef.h>

#include "fuzz.h"
#include "options.h"
#include "opts.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef struct {
    bool flag;
    long long n;
    double x;
    size_t bytes, count;
    const char *s, *cb_arg;
    int choice;
    int cb_calls;
} cfg_t;

static int cb(void *cfgp, const char *arg, char *msg, size_t msglen)
{
    cfg_t *c = cfgp;
    c->cb_calls++;
    c->cb_arg = arg;
    if (arg && strcmp(arg, "bad") == 0) {
        snprintf(msg, msglen, "refused");
        return 2;
    }
    return 0;
}

#define OFF(f) offsetof(cfg_t, f)
static const mb_opt_t table[] = {
    { .long_name = "flag", .short_name = 'f', .type = MB_OPT_FLAG, .offset = OFF(flag),
      .help = "a flag" },
    { .long_name = "num", .short_name = 'n', .type = MB_OPT_INT, .offset = OFF(n), .min = -5,
      .max = 1000, .metavar = "N", .help = "int" },
    { .long_name = "min", .short_name = 'm', .type = MB_OPT_INT, .offset = OFF(n), .min = 2,
      .metavar = "N", .help = "int >= 2" },
    { .long_name = "dbl", .short_name = 'd', .type = MB_OPT_DOUBLE, .offset = OFF(x), .dmin = 0.5,
      .dmax = 8.0, .metavar = "X", .help = "double" },
    { .long_name = "size", .short_name = 's', .type = MB_OPT_SIZE, .offset = OFF(bytes),
      .min = 4096, .max = 1LL << 40, .metavar = "SIZE", .help = "size" },
    { .long_name = "count", .short_name = 'c', .type = MB_OPT_COUNT, .offset = OFF(count),
      .min = 1, .max = 1000000, .metavar = "N", .help = "count" },
    { .long_name = "str", .type = MB_OPT_STRING, .offset = OFF(s), .metavar = "S",
      .help = "string" },
    { .long_name = "fmt", .short_name = 'F', .type = MB_OPT_CHOICE, .offset = OFF(choice),
      .choices = "text|json|csv", .help = "choice" },
    { .long_name = "cb", .type = MB_OPT_CALLBACK, .metavar = "V", .help = "callback", .cb = cb },
    { .long_name = "opt", .type = MB_OPT_CALLBACK, .metavar = "V", .help = "optional", .cb = cb,
      .optional_arg = true },
};
#define NT (sizeof table / sizeof table[0])

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 4096)
        return 0;
    char *buf = malloc(size + 1);
    if (!buf)
        abort();
    memcpy(buf, data, size);
    buf[size] = '\0';
    char *argv[34];
    int argc = 0;
    argv[argc++] = "prog";
    for (size_t i = 0; i <= size && argc < 33;) {
        argv[argc++] = buf + i;
        i += strlen(buf + i) + 1;
    }
    argv[argc] = NULL;

    cfg_t cfg;
    memset(&cfg, 0, sizeof cfg);
    char *pos[34];
    bool seen[NT];
    mb_opts_out_t out = { 0, pos, seen };
    char msg[512] = "";
    int rc = mb_opts_parse(table, NT, argc, argv, &cfg, &out, msg, sizeof msg);
    if (rc != 0 && rc != 2)
        fuzz_fail("mb_opts_parse returned %d", rc);
    fuzz_check_msg(msg, sizeof msg, rc != 0, false);
    if (out.npos < 0 || out.npos > argc - 1)
        fuzz_fail("%d positionals from %d words", out.npos, argc - 1);
    for (int i = 0; i < out.npos; i++) {
        bool inside = false;
        for (int k = 1; k < argc && !inside; k++)
            inside = pos[i] == argv[k];
        if (!inside)
            fuzz_fail("positional %d does not point at an argv word", i);
    }
    if (rc == 0) {
        if (seen[1] && (cfg.n < -5 || cfg.n > 1000) && !seen[2])
            fuzz_fail("--num accepted %lld outside -5..1000", cfg.n);
        if (seen[3] && !(isfinite(cfg.x) && cfg.x >= 0.5 && cfg.x <= 8.0))
            fuzz_fail("--dbl accepted %g outside 0.5..8", cfg.x);
        if (seen[4] && (cfg.bytes < 4096 || cfg.bytes > (1ULL << 40)))
            fuzz_fail("--size accepted %zu", cfg.bytes);
        if (seen[5] && (cfg.count < 1 || cfg.count > 1000000))
            fuzz_fail("--count accepted %zu", cfg.count);
        if (seen[7] && (cfg.choice < 0 || cfg.choice > 2))
            fuzz_fail("--fmt stored index %d", cfg.choice);
    }

    /* stream's own table, with its callbacks (--counters, --inject-error) */
    st_options_t so;
    char smsg[1024] = "";
    int src = st_options_parse(argc, argv, &so, smsg, sizeof smsg);
    if (src != 0 && src != 2 && src != 3)
        fuzz_fail("st_options_parse returned %d", src);
    fuzz_check_msg(smsg, sizeof smsg, src != 0, false);
    if (src == 0 && (so.ntimes < 2 || so.threads < 0 || so.threads > 1024))
        fuzz_fail("stream accepted ntimes %lld threads %lld", so.ntimes, so.threads);
    free(buf);
    return 0;
}
