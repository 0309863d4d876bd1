/* test_outfile: what each kind of path becomes (file, device, FIFO, fd
 * alias, symlink), that nothing is left behind (signals, stale temps) and
 * that devices and link targets are never replaced.  Device nodes are made
 * under the test's own directory, never the system's /dev. */
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "outfile.h"

static char tmpdir[64];

static bool exists(const char *p)
{
    struct stat st;
    return lstat(p, &st) == 0;
}

static size_t count_glob(const char *pattern)
{
    glob_t g;
    size_t n = glob(pattern, 0, NULL, &g) == 0 ? g.gl_pathc : 0;
    globfree(&g);
    return n;
}

static void slurp(const char *path, char *buf, size_t len)
{
    buf[0] = '\0';
    FILE *f = fopen(path, "r");
    if (f) {
        buf[fread(buf, 1, len - 1, f)] = '\0';
        fclose(f);
    }
}

static void spit(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

static void write_and_commit(const char *path, const char *text, const char *name)
{
    char msg[1024] = "";
    mb_out_t o;
    int rc = mb_out_open(&o, path, msg, sizeof msg);
    CHECK(rc == 0, "%s: open (%s)", name, msg);
    if (rc)
        return;
    fputs(text, o.f);
    rc = mb_out_commit(&o, msg, sizeof msg);
    CHECK(rc == 0, "%s: commit (%s)", name, msg);
}

/* A regular file: nothing named appears during the run (no junk even
 * under SIGKILL), commit replaces, abort keeps the previous content. */
static void test_atomic(void)
{
    char msg[1024], path[256], pat[300], buf[64];
    mb_out_t o;
    snprintf(path, sizeof path, "%s/out.json", tmpdir);
    snprintf(pat, sizeof pat, "%s.tmp.*", path);
    CHECK(mb_out_open(&o, path, msg, sizeof msg) == 0 && o.kind == MB_OUT_ATOMIC, "open %s", path);
    CHECK(count_glob(pat) == 0 && !exists(path), "open leaves no named file in the directory");
    fputs("{\"a\":1}\n", o.f);
    CHECK(mb_out_commit(&o, msg, sizeof msg) == 0, "commit");
    CHECK(count_glob(pat) == 0, "commit leaves no temporary");
    slurp(path, buf, sizeof buf);
    CHECK_EQ_STR(buf, "{\"a\":1}\n", "committed content");

    CHECK(mb_out_open(&o, path, msg, sizeof msg) == 0, "reopen");
    fputs("partial", o.f);
    mb_out_abort(&o);
    slurp(path, buf, sizeof buf);
    CHECK_EQ_STR(buf, "{\"a\":1}\n", "abort keeps the previous result");
    mb_out_abort(&o);   /* twice is harmless */

    /* the fallback: a named temporary, unpredictable, removed by abort */
    setenv("MEMSUITE_OUT_NAMED_TEMP", "1", 1);
    CHECK(mb_out_open(&o, path, msg, sizeof msg) == 0 && o.tmp[0], "named temp: open");
    char want[300];
    snprintf(want, sizeof want, "%s.tmp.%ld.", path, (long)getpid());
    CHECK(strncmp(o.tmp, want, strlen(want)) == 0 && strlen(o.tmp) > strlen(want) + 8,
          "named temp is <path>.tmp.<pid>.<random>: %s", o.tmp);
    CHECK(count_glob(pat) == 1, "named temp exists during the run");
    mb_out_abort(&o);
    CHECK(count_glob(pat) == 0, "abort removes the named temp");
    unsetenv("MEMSUITE_OUT_NAMED_TEMP");
}

static void test_refusals(void)
{
    char msg[1024], path[256];
    mb_out_t o;
    snprintf(path, sizeof path, "%s/no/such/dir/r.json", tmpdir);
    int rc = mb_out_open(&o, path, msg, sizeof msg);
    CHECK(rc == -ENOENT, "missing directory -> -ENOENT (got %d)", rc);
    CHECK(strstr(msg, path) && strstr(msg, strerror(ENOENT)) && strstr(msg, "writable"),
          "message names path, reason and hint: %s", msg);
    CHECK(o.f == NULL, "no stream after failed open");
    rc = mb_out_open(&o, tmpdir, msg, sizeof msg);
    CHECK(rc == -EISDIR && strstr(msg, "is a directory"), "directory target -> -EISDIR: %s", msg);
    CHECK(mb_out_open(&o, "", msg, sizeof msg) == -EINVAL, "empty path -> -EINVAL");
    if (geteuid() != 0) {   /* root ignores directory permissions */
        char ro[128];
        snprintf(ro, sizeof ro, "%s/ro", tmpdir);
        mkdir(ro, 0555);
        snprintf(path, sizeof path, "%s/r.json", ro);
        rc = mb_out_open(&o, path, msg, sizeof msg);
        CHECK(rc == -EACCES, "read-only directory -> -EACCES (got %d)", rc);
        rmdir(ro);
    }
    CHECK(mb_out_open(&o, "-", msg, sizeof msg) == 0 && o.is_stdout && o.f == stdout, "'-' is stdout");
    CHECK(mb_out_commit(&o, msg, sizeof msg) == 0, "stdout commit");
    CHECK(mb_out_open(&o, NULL, msg, sizeof msg) == 0 && o.is_stdout, "NULL is stdout");
    mb_out_abort(&o);
    CHECK(mb_out_commit(&o, msg, sizeof msg) == -EBADF, "commit with nothing open -> -EBADF");
}

/* Defect 1/3 family: a device node is written in place or refused, never
 * renamed over; a symlink is never followed into a device or a file. */
static void test_devices_and_links(void)
{
    char msg[1024], node[256], blk[256], link[256], victim[256], vlink[256], buf[64];
    mb_out_t o;
    struct stat st;
    snprintf(node, sizeof node, "%s/null", tmpdir);
    snprintf(blk, sizeof blk, "%s/blk", tmpdir);
    snprintf(link, sizeof link, "%s/to-null", tmpdir);
    if (mknod(node, S_IFCHR | 0666, makedev(1, 3)) == 0) {
        CHECK(mb_out_open(&o, node, msg, sizeof msg) == 0 && o.kind == MB_OUT_IN_PLACE,
              "a character device opens in place (%s)", msg);
        if (o.f)
            fputs("{}\n", o.f);
        CHECK(mb_out_commit(&o, msg, sizeof msg) == 0, "device commit (%s)", msg);
        CHECK(stat(node, &st) == 0 && S_ISCHR(st.st_mode), "the node is still a character device");

        if (symlink(node, link) == 0) {
            int rc = mb_out_open(&o, link, msg, sizeof msg);
            CHECK(rc == -EPERM && strstr(msg, "symbolic link to a character device"),
                  "a symlink to a device is refused: %s", msg);
            CHECK(lstat(link, &st) == 0 && S_ISLNK(st.st_mode), "the link is left alone");
        }
    } else {
        printf("# skipped device cases: mknod: %s\n", strerror(errno));
    }
    if (mknod(blk, S_IFBLK | 0600, makedev(7, 250)) == 0) {
        int rc = mb_out_open(&o, blk, msg, sizeof msg);
        CHECK(rc == -EPERM && strstr(msg, "block device"), "a block device is refused: %s", msg);
        CHECK(stat(blk, &st) == 0 && S_ISBLK(st.st_mode), "the block node is intact");
    }

    /* a symlink planted at the output path: replaced, the target untouched */
    snprintf(victim, sizeof victim, "%s/victim", tmpdir);
    snprintf(vlink, sizeof vlink, "%s/planted.json", tmpdir);
    spit(victim, "precious\n");
    if (symlink(victim, vlink) == 0) {
        write_and_commit(vlink, "{\"b\":2}\n", "symlink to a file");
        slurp(victim, buf, sizeof buf);
        CHECK_EQ_STR(buf, "precious\n", "the link's target is untouched");
        CHECK(lstat(vlink, &st) == 0 && S_ISREG(st.st_mode), "the link became the result file");
        slurp(vlink, buf, sizeof buf);
        CHECK_EQ_STR(buf, "{\"b\":2}\n", "the result is where the link was");
    }
}

/* Defect 2: /proc/self/fd/N, /dev/fd/N and symlinks to them are the
 * descriptor, not the file behind it (and nothing is renamed over them). */
static void test_descriptor_aliases(void)
{
    char file[256], link[256], link2[256], buf[128], msg[1024];
    snprintf(file, sizeof file, "%s/fd7.json", tmpdir);
    snprintf(link, sizeof link, "%s/fd-link", tmpdir);
    snprintf(link2, sizeof link2, "%s/fd-link2", tmpdir);
    int fd = open(file, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0 || dup2(fd, 7) != 7) {
        CHECK(0, "setting up descriptor 7: %s", strerror(errno));
        return;
    }
    close(fd);
    struct stat before, after;
    fstat(7, &before);
    static const char *const aliases[] = { "/proc/self/fd/7", "/dev/fd/7", NULL, NULL };
    const char *paths[] = { aliases[0], aliases[1], link, link2 };
    CHECK(symlink("/proc/self/fd/7", link) == 0 && symlink("fd-link", link2) == 0,
          "symlinks to /proc/self/fd/7");
    for (size_t i = 0; i < sizeof paths / sizeof paths[0]; i++) {
        mb_out_t o;
        int rc = mb_out_open(&o, paths[i], msg, sizeof msg);
        CHECK(rc == 0 && o.kind == MB_OUT_DESCRIPTOR, "%s is descriptor 7 (%s)", paths[i], msg);
        if (rc)
            continue;
        fprintf(o.f, "line %zu\n", i);
        CHECK(mb_out_commit(&o, msg, sizeof msg) == 0, "%s: commit (%s)", paths[i], msg);
    }
    slurp(file, buf, sizeof buf);
    CHECK_EQ_STR(buf, "line 0\nline 1\nline 2\nline 3\n", "all four wrote through descriptor 7");
    CHECK(fstat(7, &after) == 0 && after.st_ino == before.st_ino, "descriptor 7 still open, same file");
    struct stat st;
    CHECK(lstat(link, &st) == 0 && S_ISLNK(st.st_mode) && lstat(link2, &st) == 0 &&
          S_ISLNK(st.st_mode), "the links are still links");
    close(7);
    mb_out_t o;
    int rc = mb_out_open(&o, "/proc/self/fd/7", msg, sizeof msg);
    CHECK(rc == -EBADF && strstr(msg, "not open"), "a closed descriptor is refused: %s", msg);
}

static pid_t dead_pid(void)
{
    pid_t p = fork();
    if (p == 0)
        _exit(0);
    waitpid(p, NULL, 0);
    return p;
}

/* Defect 15: a temporary whose process is gone is removed on the next
 * open; a live process's, a symlink and another file's are not. */
static void test_stale(void)
{
    char path[256], dead[320], dead_old[320], live[320], lnk[320], other[320], target[256];
    snprintf(path, sizeof path, "%s/stale.json", tmpdir);
    pid_t d = dead_pid();
    snprintf(dead, sizeof dead, "%s.tmp.%ld.abcdef", path, (long)d);
    snprintf(dead_old, sizeof dead_old, "%s.tmp.%ld", path, (long)d);
    snprintf(live, sizeof live, "%s.tmp.%ld.xyz", path, (long)getppid());
    snprintf(lnk, sizeof lnk, "%s.tmp.%ld.lnk", path, (long)d);
    snprintf(other, sizeof other, "%s/other.json.tmp.%ld.abc", tmpdir, (long)d);
    snprintf(target, sizeof target, "%s/link-target", tmpdir);
    spit(dead, "");
    spit(dead_old, "");
    spit(live, "");
    spit(other, "");
    spit(target, "keep\n");
    CHECK(symlink(target, lnk) == 0, "plant a symlink with a stale name");
    write_and_commit(path, "{}\n", "stale cleanup");
    CHECK(!exists(dead) && !exists(dead_old), "the dead process's temporaries are gone");
    CHECK(exists(live), "a live process's temporary is kept");
    CHECK(exists(lnk) && exists(target), "a symlink is neither removed nor followed");
    CHECK(exists(other), "another target's temporary is not touched");
    unlink(live);
    unlink(lnk);
    unlink(other);
}

/* Defect 15: with a named temporary, a default-action signal removes it
 * before the process dies of that signal. */
static void test_signals(void)
{
    static const int sigs[] = { SIGHUP, SIGUSR1, SIGPIPE, SIGALRM, SIGTERM };
    char path[256], pat[300];
    snprintf(path, sizeof path, "%s/sig.json", tmpdir);
    snprintf(pat, sizeof pat, "%s.tmp.*", path);
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
        int pfd[2];
        if (pipe(pfd) != 0)
            return;
        pid_t p = fork();
        if (p == 0) {
            char msg[512];
            mb_out_t o;
            setenv("MEMSUITE_OUT_NAMED_TEMP", "1", 1);
            /* the default action, as a tool started normally has it: a
             * suite run under nohup inherits SIGHUP ignored, and
             * mb_out_open rightly keeps an inherited "ignore" */
            signal(sigs[i], SIG_DFL);
            int rc = mb_out_open(&o, path, msg, sizeof msg);
            char ok = rc == 0 && o.tmp[0] ? 'y' : 'n';
            if (write(pfd[1], &ok, 1) != 1)
                _exit(3);
            fputs("partial", o.f);
            raise(sigs[i]);
            _exit(2);
        }
        close(pfd[1]);
        char ok = 'n';
        if (read(pfd[0], &ok, 1) != 1)
            ok = 'n';
        close(pfd[0]);
        int status = 0;
        waitpid(p, &status, 0);
        CHECK(ok == 'y' && WIFSIGNALED(status) && WTERMSIG(status) == sigs[i],
              "child with a named temp died of signal %d", sigs[i]);
        CHECK(count_glob(pat) == 0 && !exists(path), "signal %d: no temporary left", sigs[i]);
    }
}

/* A FIFO is opened non-blocking: nobody reading is refused at once
 * (-ENXIO, named), never waited for; with a reader it is written in
 * place. */
static void test_fifo(void)
{
    char msg[1024], fifo[256], buf[64];
    mb_out_t o;
    snprintf(fifo, sizeof fifo, "%s/fifo", tmpdir);
    if (mkfifo(fifo, 0600) != 0) {
        printf("# skipped FIFO cases: mkfifo: %s\n", strerror(errno));
        return;
    }
    int rc = mb_out_open(&o, fifo, msg, sizeof msg);
    CHECK(rc == -ENXIO && strstr(msg, fifo) && strstr(msg, "nobody reads"),
          "a FIFO without a reader is refused at open: %s", msg);
    int r = open(fifo, O_RDONLY | O_NONBLOCK);
    CHECK(r >= 0, "a reader opens the FIFO");
    rc = mb_out_open(&o, fifo, msg, sizeof msg);
    CHECK(rc == 0 && o.kind == MB_OUT_IN_PLACE, "with a reader it opens in place (%s)", msg);
    if (rc == 0) {
        CHECK((fcntl(fileno(o.f), F_GETFL) & O_NONBLOCK) == 0, "the writes that follow block");
        fputs("{\"f\":1}\n", o.f);
        CHECK(mb_out_commit(&o, msg, sizeof msg) == 0, "FIFO commit (%s)", msg);
        ssize_t n = read(r, buf, sizeof buf - 1);
        buf[n > 0 ? n : 0] = '\0';
        CHECK_EQ_STR(buf, "{\"f\":1}\n", "the reader got the document");
    }
    if (r >= 0)
        close(r);
    struct stat st;
    CHECK(lstat(fifo, &st) == 0 && S_ISFIFO(st.st_mode), "the node is still a FIFO");
}

/* An output that is an input: the same file under another spelling, a
 * hard link or a symlink is refused; another file is not. */
static void test_not_input(void)
{
    char msg[1024], in[256], other[256], hard[256], soft[256], spelled[300];
    mb_out_t o;
    snprintf(in, sizeof in, "%s/cell.json", tmpdir);
    snprintf(other, sizeof other, "%s/other.json", tmpdir);
    snprintf(hard, sizeof hard, "%s/hard.json", tmpdir);
    snprintf(soft, sizeof soft, "%s/soft.json", tmpdir);
    snprintf(spelled, sizeof spelled, "%s/./../%s/cell.json", tmpdir, strrchr(tmpdir, '/') + 1);
    spit(in, "{\"in\":1}\n");
    CHECK(link(in, hard) == 0 && symlink(in, soft) == 0, "links made");
    const char *same[] = { in, spelled, hard, soft };
    for (size_t i = 0; i < sizeof same / sizeof same[0]; i++) {
        CHECK(mb_out_open(&o, same[i], msg, sizeof msg) == 0, "open %s", same[i]);
        int rc = mb_out_not_input(&o, in, msg, sizeof msg);
        CHECK(rc == -EEXIST && strstr(msg, "is the input"), "%s is the input: %s", same[i], msg);
        mb_out_abort(&o);
    }
    char buf[64];
    slurp(in, buf, sizeof buf);
    CHECK_EQ_STR(buf, "{\"in\":1}\n", "the input is untouched");
    CHECK(mb_out_open(&o, other, msg, sizeof msg) == 0, "open %s", other);
    CHECK(mb_out_not_input(&o, in, msg, sizeof msg) == 0, "another file is no conflict");
    CHECK(mb_out_not_input(&o, "/nonexistent/x", msg, sizeof msg) == 0,
          "a missing input is no conflict");
    mb_out_abort(&o);
}

/* Started with stdout closed: no descriptor of ours becomes 1, and
 * "/dev/stdout" is refused as not open (in a child, exec'd afresh so the
 * start-up check sees the closed descriptor). */
static void test_closed_stdout(const char *self)
{
    pid_t pid = fork();
    if (pid == 0) {
        close(STDOUT_FILENO);
        execl(self, self, "--closed-stdout", (char *)NULL);
        _exit(99);
    }
    int st = 0;
    waitpid(pid, &st, 0);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "stdout closed at start: status %d (1: an fd of "
          "ours became 1; 2: /dev/stdout was accepted)", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
}

static int closed_stdout_child(void)
{
    char msg[1024], path[300];
    mb_out_t o, d;
    snprintf(path, sizeof path, "%s/closed.json", tmpdir);
    if (mb_out_open(&o, path, msg, sizeof msg) != 0 || o.fd <= STDERR_FILENO)
        return 1;
    int rc = mb_out_open(&d, "/dev/stdout", msg, sizeof msg);
    mb_out_abort(&o);
    return rc == -EBADF && strstr(msg, "not open") ? 0 : 2;
}

/* A full file system: open cannot reserve the space and says so before
 * anything is written; a document that outgrows the reservation on a
 * disk that filled meanwhile is saved under $TMPDIR, the message naming
 * it.  Needs a small tmpfs (root). */
static void test_full_disk(void)
{
    char msg[2048], mnt[256], path[300], fill[300], cmd[600];
    mb_out_t o;
    snprintf(mnt, sizeof mnt, "%s/small", tmpdir);
    mkdir(mnt, 0700);
    snprintf(cmd, sizeof cmd, "mount -t tmpfs -o size=2m tmpfs '%s' 2>/dev/null", mnt);
    if (system(cmd) != 0) {
        printf("# skipped full-disk cases: cannot mount a small tmpfs (not root?)\n");
        return;
    }
    snprintf(path, sizeof path, "%s/r.json", mnt);
    snprintf(fill, sizeof fill, "%s/fill", mnt);
    CHECK(mb_out_open(&o, path, msg, sizeof msg) == 0, "open with room (%s)", msg);
    snprintf(cmd, sizeof cmd, "dd if=/dev/zero of='%s' bs=4k 2>/dev/null", fill);
    CHECK(system(cmd) != 0, "the disk is filled");
    static char big[3 * MB_OUT_RESERVE / 2];
    memset(big, 'x', sizeof big);
    fwrite(big, 1, sizeof big, o.f);
    setenv("TMPDIR", tmpdir, 1);
    int rc = mb_out_commit(&o, msg, sizeof msg);
    const char *at = strstr(msg, "saved in '");
    CHECK(rc == -ENOSPC && at, "a late ENOSPC saves the document: %s", msg);
    if (at) {
        char saved[300];
        snprintf(saved, sizeof saved, "%s", at + strlen("saved in '"));
        char *q = strchr(saved, '\'');
        if (q)
            *q = '\0';
        struct stat st;
        CHECK(strncmp(saved, tmpdir, strlen(tmpdir)) == 0 && stat(saved, &st) == 0 &&
              st.st_size == (off_t)sizeof big, "the saved file %s holds the whole document", saved);
    }
    CHECK(!exists(path), "nothing half-written at the target");
    snprintf(cmd, sizeof cmd, "dd if=/dev/zero of='%s.2' bs=4k 2>/dev/null", fill);
    CHECK(system(cmd) != 0, "the space the temporary held is filled too");
    rc = mb_out_open(&o, path, msg, sizeof msg);
    CHECK(rc == -ENOSPC && strstr(msg, "cannot reserve") && strstr(msg, path),
          "a full disk is refused at open: %s", msg);
    snprintf(cmd, sizeof cmd, "umount '%s'", mnt);
    if (system(cmd) != 0)
        printf("# could not unmount %s\n", mnt);
}

int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "--closed-stdout") == 0) {
        strcpy(tmpdir, "/tmp");
        return closed_stdout_child();
    }
    strcpy(tmpdir, "/tmp/test_outfile.XXXXXX");
    if (!mkdtemp(tmpdir)) {
        perror("mkdtemp");
        return 1;
    }
    test_atomic();
    test_refusals();
    test_devices_and_links();
    test_descriptor_aliases();
    test_stale();
    test_signals();
    test_fifo();
    test_not_input();
    test_closed_stdout(argv[0]);
    test_full_disk();
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    if (system(cmd) != 0)
        printf("# could not remove %s\n", tmpdir);
    return check_done();
}
