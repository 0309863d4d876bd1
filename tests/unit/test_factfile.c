/* test_factfile: mb_fact_fopen's contract (common/factfile.h): a regular
 * file reads whole and can be read again after rewind (a parser that
 * makes two passes, as the cpuinfo reader does); a FIFO, a directory and
 * a link are refused without blocking, each with its reason. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "factfile.h"

int main(void)
{
    char dir[] = "/tmp/test_factfile.XXXXXX";
    if (!mkdtemp(dir))
        return 1;
    char reg[256], fifo[256], link[256], line[64];
    snprintf(reg, sizeof reg, "%s/reg", dir);
    snprintf(fifo, sizeof fifo, "%s/fifo", dir);
    snprintf(link, sizeof link, "%s/link", dir);
    FILE *w = fopen(reg, "w");
    fputs("model name\t: A\nflags\t\t: b c\n", w);
    fclose(w);

    FILE *f = mb_fact_fopen(reg);
    CHECK(f != NULL, "a regular file opens");
    if (f) {
        CHECK(fgets(line, sizeof line, f) && strcmp(line, "model name\t: A\n") == 0, "first line");
        CHECK(fgets(line, sizeof line, f) && strcmp(line, "flags\t\t: b c\n") == 0, "second line");
        CHECK(!fgets(line, sizeof line, f), "then the end");
        rewind(f);
        CHECK(!ferror(f), "rewind works (the cookie stream seeks)");
        CHECK(fgets(line, sizeof line, f) && strcmp(line, "model name\t: A\n") == 0,
              "after rewind, the first line again");
        fclose(f);
    }

    CHECK(mkfifo(fifo, 0600) == 0, "a FIFO made");
    errno = 0;
    f = mb_fact_fopen(fifo);    /* nobody writes it: must not block */
    CHECK(!f && strstr(mb_fact_strerror(errno), "FIFO"), "a FIFO is refused: %s",
          mb_fact_strerror(errno));
    if (f)
        fclose(f);
    f = mb_fact_fopen(dir);
    CHECK(!f, "a directory is refused: %s", mb_fact_strerror(errno));
    if (f)
        fclose(f);
    CHECK(symlink(reg, link) == 0, "a link made");
    f = mb_fact_fopen(link);
    CHECK(!f, "a link at the last component is not followed: %s", mb_fact_strerror(errno));
    if (f)
        fclose(f);

    unlink(link);
    unlink(fifo);
    unlink(reg);
    rmdir(dir);
    return check_done();
}
