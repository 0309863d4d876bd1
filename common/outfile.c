/* outfile: atomic result files that never replace a device, never follow a
 * planted symlink and leave no junk (contract in outfile.h). */
#include "outfile.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static const char hint[] =
    "check that the directory exists and is writable, or choose another path ('-' writes to stdout)";

/* ---- the named temporaries a signal must remove ------------------------ */

/* The only mutable globals here: a signal handler has no other way to find
 * the names.  Slots are written before they are armed and disarmed before
 * they are reused. */
#define TMP_SLOTS 4
static char tmp_name[TMP_SLOTS][4352];
static pid_t tmp_owner[TMP_SLOTS];   /* a forked child inherits the slots: not its files */
static volatile sig_atomic_t tmp_armed[TMP_SLOTS];

/* The terminating signals a temporary must not outlive. */
static const int cleanup_signals[] = {
    SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGUSR1, SIGUSR2, SIGPIPE, SIGALRM,
    SIGVTALRM, SIGPROF, SIGXCPU, SIGXFSZ,
};
#define NSIGNALS (sizeof cleanup_signals / sizeof cleanup_signals[0])

/* Async-signal-safe: unlink the armed temporaries, then die of the same
 * signal with its default action. */
static void on_fatal_signal(int sig)
{
    int saved = errno;
    pid_t self = getpid();
    for (int i = 0; i < TMP_SLOTS; i++)
        if (tmp_armed[i] && tmp_owner[i] == self)
            unlink(tmp_name[i]);
    signal(sig, SIG_DFL);
    raise(sig);
    errno = saved;
}

/* Our handler goes only where the action is still the default: a tool's
 * own INT/TERM handler stops the run and aborts or commits itself. */
static void install_handlers(void)
{
    for (size_t i = 0; i < NSIGNALS; i++) {
        struct sigaction old, sa;
        if (sigaction(cleanup_signals[i], NULL, &old) != 0 || old.sa_handler != SIG_DFL ||
            (old.sa_flags & SA_SIGINFO))
            continue;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_fatal_signal;
        sigfillset(&sa.sa_mask);
        sigaction(cleanup_signals[i], &sa, NULL);
    }
}

static int arm(const char *name)
{
    for (int i = 0; i < TMP_SLOTS; i++)
        if (!tmp_armed[i]) {
            snprintf(tmp_name[i], sizeof tmp_name[i], "%s", name);
            tmp_owner[i] = getpid();
            tmp_armed[i] = 1;
            install_handlers();
            return i;
        }
    return -1;   /* more than TMP_SLOTS at once: still cleaned on the next run */
}

static void disarm(const char *name)
{
    for (int i = 0; i < TMP_SLOTS; i++)
        if (tmp_armed[i] && strcmp(tmp_name[i], name) == 0)
            tmp_armed[i] = 0;
}

/* ---- names ------------------------------------------------------------- */

static void split_path(const char *path, char *dir, size_t dirlen, const char **base)
{
    const char *slash = strrchr(path, '/');
    if (!slash) {
        snprintf(dir, dirlen, ".");
        *base = path;
    } else {
        snprintf(dir, dirlen, "%.*s", slash == path ? 1 : (int)(slash - path), path);
        *base = slash + 1;
    }
}

/* "<path>.tmp.<pid>.<12 random letters>": unpredictable, so nobody can
 * plant a symlink at it ahead of us (and it is created exclusively). */
static void temp_name(const char *path, char *out, size_t outlen)
{
    static const char alphabet[] = "abcdefghijklmnopqrstuvwxyz0123456789";
    unsigned char rnd[12];
    if (getrandom(rnd, sizeof rnd, GRND_NONBLOCK) != (ssize_t)sizeof rnd) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        uint64_t x = (uint64_t)ts.tv_nsec * 0x9E3779B97F4A7C15ull ^ (uint64_t)getpid();
        for (size_t i = 0; i < sizeof rnd; i++, x = x * 6364136223846793005ull + 1442695040888963407ull)
            rnd[i] = (unsigned char)(x >> 56);
    }
    char suffix[sizeof rnd + 1];
    for (size_t i = 0; i < sizeof rnd; i++)
        suffix[i] = alphabet[rnd[i] % (sizeof alphabet - 1)];
    suffix[sizeof rnd] = '\0';
    snprintf(out, outlen, "%s.tmp.%ld.%s", path, (long)getpid(), suffix);
}

/* ---- what a path names ------------------------------------------------- */

/* "/proc/<our pid>/fd" or "/proc/<our pid>/task/<tid>/fd" (canonical). */
static bool is_own_fd_dir(const char *dir)
{
    long pid, tid;
    int end = 0;
    if (sscanf(dir, "/proc/%ld/fd%n", &pid, &end) == 1 && dir[end] == '\0')
        return pid == (long)getpid();
    end = 0;
    if (sscanf(dir, "/proc/%ld/task/%ld/fd%n", &pid, &tid, &end) == 2 && dir[end] == '\0')
        return pid == (long)getpid();
    return false;
}

static bool all_digits(const char *s)
{
    if (!*s || strlen(s) > 9)
        return false;
    for (; *s; s++)
        if (*s < '0' || *s > '9')
            return false;
    return true;
}

/* The descriptor a path names through /proc/self/fd (as /dev/stdout,
 * /dev/fd/N and any symlink chain to them do), else -1.  Each hop's
 * directory is canonicalised (so /dev/fd and /proc/self resolve to our
 * pid); the last component is never followed into the file behind the
 * descriptor. */
static int descriptor_alias(const char *path)
{
    char cur[PATH_MAX], dir[PATH_MAX], real[PATH_MAX], link[PATH_MAX];
    snprintf(cur, sizeof cur, "%s", path);
    for (int hop = 0; hop < 40; hop++) {
        const char *base;
        split_path(cur, dir, sizeof dir, &base);
        if (all_digits(base) && realpath(dir, real) && is_own_fd_dir(real))
            return atoi(base);
        struct stat st;
        if (lstat(cur, &st) != 0 || !S_ISLNK(st.st_mode))
            return -1;
        ssize_t n = readlink(cur, link, sizeof link - 1);
        if (n <= 0)
            return -1;
        link[n] = '\0';
        if (link[0] == '/')
            snprintf(cur, sizeof cur, "%s", link);
        else if (snprintf(cur, sizeof cur, "%s/%s", dir, link) >= (int)sizeof cur)
            return -1;
    }
    return -1;
}

static const char *kind_name(mode_t m)
{
    return S_ISDIR(m) ? "a directory" : S_ISBLK(m) ? "a block device" : S_ISCHR(m) ? "a character device"
         : S_ISFIFO(m) ? "a FIFO" : S_ISSOCK(m) ? "a socket" : S_ISLNK(m) ? "a symbolic link"
         : "a regular file";
}

/* msg = "<what> '<path>': " + the formatted rest; returns -e. */
static int fail(int e, char *msg, size_t msglen, const mb_out_t *o, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
static int fail(int e, char *msg, size_t msglen, const mb_out_t *o, const char *fmt, ...)
{
    int n = snprintf(msg, msglen, "%s '%s': ", o->what, o->path);
    if (n >= 0 && (size_t)n < msglen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg + n, msglen - (size_t)n, fmt, ap);
        va_end(ap);
    }
    return -e;
}

/* ---- the standard descriptors ----------------------------------------- */

/* Which of 0, 1, 2 were closed when the process started.  Each is then
 * held by /dev/null (before main, so no later open - a counter, a
 * temporary - is handed descriptor 1 and written as "/dev/stdout"), and
 * a path naming it is refused as a descriptor that is not open. */
static bool stdio_closed[3];

__attribute__((constructor)) static void hold_closed_stdio(void)
{
    for (int fd = 0; fd < 3; fd++)
        if (fcntl(fd, F_GETFD) < 0 && errno == EBADF) {
            int d = open("/dev/null", O_RDWR | O_CLOEXEC);
            stdio_closed[fd] = true;
            if (d >= 0 && d != fd) {   /* not the lowest free: place it */
                dup3(d, fd, O_CLOEXEC);
                close(d);
            }
        }
}

/* ---- open -------------------------------------------------------------- */

/* fd moved to 3 or above (close-on-exec): with stdout closed, open() hands
 * out 1, and a later "/dev/stdout" would then name this very file.
 * Returns the descriptor, or -1 with errno (fd closed). */
static int above_stdio(int fd)
{
    if (fd < 0 || fd > STDERR_FILENO)
        return fd;
    int d = fcntl(fd, F_DUPFD_CLOEXEC, STDERR_FILENO + 1);
    int e = errno;
    close(fd);
    errno = e;
    return d;
}

static int open_descriptor(mb_out_t *o, int fd, char *msg, size_t msglen)
{
    o->kind = MB_OUT_DESCRIPTOR;
    int fl = fd <= STDERR_FILENO && stdio_closed[fd] ? -1 : fcntl(fd, F_GETFL);
    if (fl < 0)
        return fail(EBADF, msg, msglen, o, "descriptor is not open (%s); redirect it or choose "
                    "another path", strerror(EBADF));
    if ((fl & O_ACCMODE) == O_RDONLY)
        return fail(EBADF, msg, msglen, o, "descriptor is open for reading only (%s); choose another "
                    "path", strerror(EBADF));
    if (fd == STDOUT_FILENO) {
        o->f = stdout;
        o->is_stdout = true;
    } else if (fd == STDERR_FILENO) {
        o->f = stderr;
    } else {
        int d = fcntl(fd, F_DUPFD_CLOEXEC, STDERR_FILENO + 1);
        if (d < 0 || !(o->f = fdopen(d, "w"))) {
            int e = errno;
            if (d >= 0)
                close(d);
            return fail(e, msg, msglen, o, "cannot use the descriptor: %s", strerror(e));
        }
    }
    return 0;
}

/* A character device or FIFO named directly: written in place.  O_NOFOLLOW
 * and the fstat after open close the window in which the node could be
 * swapped for a symlink or a file.  Opened non-blocking, so a FIFO
 * without a reader is refused now (ENXIO) instead of holding the tool
 * before it measures; the writes that follow block as usual. */
static int open_in_place(mb_out_t *o, const struct stat *seen, char *msg, size_t msglen)
{
    o->kind = MB_OUT_IN_PLACE;
    int fd = above_stdio(open(o->path, O_WRONLY | O_NONBLOCK | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC));
    struct stat st;
    if (fd < 0 && errno == ENXIO && S_ISFIFO(seen->st_mode))
        return fail(ENXIO, msg, msglen, o, "%s", "is a FIFO that nobody reads; start its reader "
                    "first, or choose another path ('-' writes to stdout)");
    int fl = fd < 0 ? -1 : fcntl(fd, F_GETFL);
    if (fd < 0 || fstat(fd, &st) != 0 || fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) != 0) {
        int e = errno;
        if (fd >= 0)
            close(fd);
        return fail(e, msg, msglen, o, "cannot open it for writing: %s; choose another path ('-' "
                    "writes to stdout)", strerror(e));
    }
    if (st.st_dev != seen->st_dev || st.st_ino != seen->st_ino ||
        !(S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode))) {
        close(fd);
        return fail(EAGAIN, msg, msglen, o, "%s", "changed while it was being opened; try again");
    }
    if (!(o->f = fdopen(fd, "w"))) {
        int e = errno;
        close(fd);
        return fail(e, msg, msglen, o, "cannot open a stream: %s", strerror(e));
    }
    return 0;
}

static bool named_temp_forced(void)
{
    const char *v = getenv("MEMSUITE_OUT_NAMED_TEMP");
    return v && strcmp(v, "1") == 0;
}

/* Create the named temporary exclusively (never through a symlink). */
static int create_named(mb_out_t *o, int flags_extra)
{
    for (int attempt = 0; attempt < 16; attempt++) {
        temp_name(o->path, o->tmp, sizeof o->tmp);
        int fd = above_stdio(open(o->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC |
                                  flags_extra, 0666));
        if (fd >= 0 || errno != EEXIST)
            return fd;
    }
    errno = EEXIST;
    return -1;
}

static int open_atomic(mb_out_t *o, char *msg, size_t msglen)
{
    o->kind = MB_OUT_ATOMIC;
    char dir[PATH_MAX];
    const char *base;
    split_path(o->path, dir, sizeof dir, &base);
    if (!*base)
        return fail(EISDIR, msg, msglen, o, "%s", "names a directory; name a file in it");
    mb_out_clean_stale(o->path);

    /* O_TMPFILE needs /proc/self/fd to be linked at commit (or
     * CAP_DAC_READ_SEARCH): without /proc, a named temporary from the start
     * rather than a result lost after the run. */
    int fd = -1;
    if (!named_temp_forced() && access("/proc/self/fd", F_OK) == 0) {
        fd = above_stdio(open(dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0666));
        if (fd < 0 && errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL)
            return fail(errno, msg, msglen, o, "cannot create a file in '%s': %s; %s", dir,
                        strerror(errno), hint);
    }
    if (fd < 0) {
        fd = create_named(o, 0);
        if (fd < 0) {
            int e = errno;
            fail(e, msg, msglen, o, "cannot create '%s': %s; %s", o->tmp, strerror(e), hint);
            o->tmp[0] = '\0';
            return -e;
        }
        arm(o->tmp);
    }
    o->fd = fd;
    /* The space the document needs, taken now: a full file system fails
     * here, before anything is measured, not after the run. */
    int e = posix_fallocate(fd, 0, MB_OUT_RESERVE);
    if (e == ENOSPC || e == EDQUOT || e == EFBIG || e == EIO) {
        mb_out_abort(o);
        return fail(e, msg, msglen, o, "cannot reserve %d KiB for it in '%s': %s; free disk "
                    "space or choose another path", MB_OUT_RESERVE / 1024, dir, strerror(e));
    }
    if (!(o->f = open_memstream(&o->mem, &o->memlen))) {
        e = errno;
        mb_out_abort(o);
        return fail(e, msg, msglen, o, "cannot open a stream: %s", strerror(e));
    }
    return 0;
}

static int open_path(mb_out_t *o, const char *path, const char *what, char *msg, size_t msglen)
{
    memset(o, 0, sizeof *o);
    o->fd = -1;
    o->what = what ? what : "result file";
    if (!path || strcmp(path, "-") == 0) {
        snprintf(o->path, sizeof o->path, "-");
        return open_descriptor(o, STDOUT_FILENO, msg, msglen);
    }
    snprintf(o->path, sizeof o->path, "%.64s%s", path, strlen(path) > 64 ? "..." : "");
    if (!*path)
        return fail(EINVAL, msg, msglen, o, "empty path; %s", hint);
    if (strlen(path) >= sizeof o->path - 64)
        return fail(ENAMETOOLONG, msg, msglen, o, "%s", "path too long; choose a shorter path");
    snprintf(o->path, sizeof o->path, "%s", path);

    int fd = descriptor_alias(path);
    if (fd >= 0)
        return open_descriptor(o, fd, msg, msglen);

    struct stat lst, st;
    if (lstat(path, &lst) != 0) {
        if (errno != ENOENT)
            return fail(errno, msg, msglen, o, "cannot inspect it: %s; %s", strerror(errno), hint);
        return open_atomic(o, msg, msglen);
    }
    if (S_ISLNK(lst.st_mode)) {
        /* Replaced, never followed: only a link to a regular file (or to
         * nothing) may be replaced by the new file. */
        if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
            char why[256];
            snprintf(why, sizeof why, "is a symbolic link to %s; name %s itself, or remove the "
                     "link", kind_name(st.st_mode), S_ISDIR(st.st_mode) ? "a file in the "
                     "directory" : "the target");
            return fail(EPERM, msg, msglen, o, "%s", why);
        }
        return open_atomic(o, msg, msglen);
    }
    if (S_ISDIR(lst.st_mode)) {
        snprintf(msg, msglen, "%s '%s': is a directory; name a file, e.g. '%s/result.json'", o->what,
                 path, path);
        return -EISDIR;
    }
    if (S_ISCHR(lst.st_mode) || S_ISFIFO(lst.st_mode))
        return open_in_place(o, &lst, msg, msglen);
    if (!S_ISREG(lst.st_mode)) {
        char why[256];
        snprintf(why, sizeof why, "is %s, which is never written; choose a file",
                 kind_name(lst.st_mode));
        return fail(EPERM, msg, msglen, o, "%s", why);
    }
    return open_atomic(o, msg, msglen);
}

int mb_out_open_as(mb_out_t *o, const char *path, const char *what, char *msg, size_t msglen)
{
    return open_path(o, path, what, msg, msglen);
}

int mb_out_stream(mb_out_t *o, FILE **f, char *msg, size_t msglen)
{
    *f = NULL;
    if (!o->f) {
        snprintf(msg, msglen, "%s: nothing open to write", o->what ? o->what : "result file");
        return -EBADF;
    }
    *f = o->f;
    return 0;
}

int mb_out_open(mb_out_t *o, const char *path, char *msg, size_t msglen)
{
    return mb_out_open_as(o, path, "result file", msg, msglen);
}

static bool same_file(const struct stat *a, const struct stat *b)
{
    return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

int mb_out_not_input(const mb_out_t *o, const char *input, char *msg, size_t msglen)
{
    struct stat in, out;
    if (!input || stat(input, &in) != 0)
        return 0;
    bool same;
    if (o->kind == MB_OUT_DESCRIPTOR)   /* e.g. /dev/stdout appended to the input */
        same = o->f && fstat(fileno(o->f), &out) == 0 && S_ISREG(out.st_mode) &&
               same_file(&in, &out);
    else   /* the path itself (a hard link, another spelling), then what a link names */
        same = (lstat(o->path, &out) == 0 && same_file(&in, &out)) ||
               (stat(o->path, &out) == 0 && same_file(&in, &out));
    if (!same)
        return 0;
    return fail(EEXIST, msg, msglen, o, "is the input '%.100s%s' (the same file); writing it "
                "would replace what is read; choose another path", input,
                strlen(input) > 100 ? "..." : "");
}

/* ---- commit ------------------------------------------------------------ */

/* Best effort: make the rename durable. */
static void sync_dir(const char *path)
{
    char dir[PATH_MAX];
    const char *base;
    split_path(path, dir, sizeof dir, &base);
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0) {
        (void)fsync(fd);
        close(fd);
    }
}

/* Give the unnamed O_TMPFILE its temporary name. */
static int link_unnamed(mb_out_t *o, int fd)
{
    char proc[64];
    snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
    for (int attempt = 0; attempt < 16; attempt++) {
        temp_name(o->path, o->tmp, sizeof o->tmp);
        if (linkat(AT_FDCWD, proc, AT_FDCWD, o->tmp, AT_SYMLINK_FOLLOW) == 0 ||
            linkat(fd, "", AT_FDCWD, o->tmp, AT_EMPTY_PATH) == 0)
            return 0;
        if (errno != EEXIST)
            break;
    }
    int e = errno;
    o->tmp[0] = '\0';
    return -e;
}

static int commit_stream(mb_out_t *o, char *msg, size_t msglen)
{
    FILE *f = o->f;
    o->f = NULL;
    o->kind = MB_OUT_CLOSED;
    errno = 0;
    int e = 0;
    if (fflush(f) != 0 || ferror(f))
        e = errno ? errno : EIO;
    if (f != stdout && f != stderr && fclose(f) != 0 && !e)
        e = errno ? errno : EIO;
    if (e)
        return fail(e, msg, msglen, o, "write failed: %s; check the disk, device or pipe",
                    strerror(e));
    return 0;
}

/* All of len bytes at fd's offset 0, then the file cut to len (the
 * reservation beyond it given back).  0 or errno. */
static int write_all(int fd, const char *p, size_t len)
{
    for (size_t done = 0; done < len;) {
        ssize_t n = pwrite(fd, p + done, len - done, (off_t)done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return n < 0 ? errno : EIO;
        done += (size_t)n;
    }
    return ftruncate(fd, (off_t)len) == 0 ? 0 : errno;
}

/* The document a late failure would lose, saved as
 * "$TMPDIR/<base>.XXXXXX" (else /tmp); its name in saved, or "". */
static void save_fallback(const mb_out_t *o, char *saved, size_t savedlen)
{
    saved[0] = '\0';
    const char *tmpdir = getenv("TMPDIR");
    if (!tmpdir || !*tmpdir)
        tmpdir = "/tmp";
    char dir[PATH_MAX], name[PATH_MAX];
    const char *base;
    split_path(o->path, dir, sizeof dir, &base);
    if (snprintf(name, sizeof name, "%s/%.64s.XXXXXX", tmpdir, *base ? base : "result") >=
        (int)sizeof name)
        return;
    int fd = above_stdio(mkstemp(name));
    if (fd < 0)
        return;
    int e = write_all(fd, o->mem, o->memlen);
    if (!e && fsync(fd) != 0)
        e = errno;
    close(fd);
    if (e)
        unlink(name);
    else
        snprintf(saved, savedlen, "%s", name);
}

int mb_out_commit(mb_out_t *o, char *msg, size_t msglen)
{
    if (!o->f) {
        snprintf(msg, msglen, "%s: nothing open to commit", o->what ? o->what : "result file");
        return -EBADF;
    }
    if (o->kind != MB_OUT_ATOMIC)
        return commit_stream(o, msg, msglen);

    const char *step = "write";
    int e = 0;
    errno = 0;
    int fd = o->fd;
    if (fclose(o->f) != 0)   /* the memory stream: o->mem, o->memlen are final */
        e = errno ? errno : ENOMEM, step = "buffer";
    o->f = NULL;
    if (!e)
        e = write_all(fd, o->mem, o->memlen);
    if (!e && fsync(fd) != 0)
        e = errno, step = "fsync";
    char saved[PATH_MAX] = "";
    if (e && o->mem)   /* the disk filled during the run: keep the document */
        save_fallback(o, saved, sizeof saved);

    /* No catchable signal between naming the temporary and the rename. */
    sigset_t all, old;
    sigfillset(&all);
    sigprocmask(SIG_BLOCK, &all, &old);
    if (!e && !o->tmp[0] && (e = -link_unnamed(o, fd)) != 0)
        step = "link";
    if (close(fd) != 0 && !e)
        e = errno, step = "close";
    o->fd = -1;
    struct stat st;
    if (!e && lstat(o->path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode))
        e = EPERM, step = "check";   /* became a device or directory meanwhile */
    if (!e && rename(o->tmp, o->path) != 0)
        e = errno, step = "rename";
    if (e && o->tmp[0])
        unlink(o->tmp);
    disarm(o->tmp);
    sigprocmask(SIG_SETMASK, &old, NULL);
    o->kind = MB_OUT_CLOSED;
    free(o->mem);
    o->mem = NULL;
    o->memlen = 0;

    if (e) {
        char why[PATH_MAX + 512], kept[PATH_MAX + 64];
        if (saved[0])
            snprintf(kept, sizeof kept, "the document was saved in '%s' instead", saved);
        else
            snprintf(kept, sizeof kept, "%s", "the previous file, if any, is unchanged");
        snprintf(why, sizeof why, "%s of the temporary file failed: %s; %s; free disk space or "
                 "choose another path", step,
                 e == EPERM && strcmp(step, "check") == 0 ? "it is no longer a regular file"
                 : strerror(e), kept);
        o->tmp[0] = '\0';
        return fail(e, msg, msglen, o, "%s", why);
    }
    o->tmp[0] = '\0';
    sync_dir(o->path);
    return 0;
}

void mb_out_abort(mb_out_t *o)
{
    if (o->f && o->f != stdout && o->f != stderr)
        fclose(o->f);
    if (o->kind == MB_OUT_ATOMIC) {
        if (o->fd >= 0)
            close(o->fd);
        if (o->tmp[0]) {
            unlink(o->tmp);
            disarm(o->tmp);
        }
    }
    free(o->mem);
    o->mem = NULL;
    o->memlen = 0;
    o->fd = -1;
    o->f = NULL;
    o->tmp[0] = '\0';
    o->kind = MB_OUT_CLOSED;
}

/* ---- stale temporaries ------------------------------------------------- */

static bool process_alive(long pid)
{
    if (pid <= 0 || pid > INT_MAX)
        return false;
    if (pid == (long)getpid())
        return true;   /* ours (or a dead namesake): leave it */
    return kill((pid_t)pid, 0) == 0 || errno == EPERM;
}

int mb_out_clean_stale(const char *path)
{
    char dir[PATH_MAX], prefix[NAME_MAX + 8];
    const char *base;
    split_path(path, dir, sizeof dir, &base);
    if (!*base || snprintf(prefix, sizeof prefix, "%s.tmp.", base) >= (int)sizeof prefix)
        return 0;
    size_t plen = strlen(prefix);
    int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd < 0)
        return 0;
    DIR *d = fdopendir(dfd);
    if (!d) {
        close(dfd);
        return 0;
    }
    int removed = 0;
    for (struct dirent *de; (de = readdir(d));) {
        if (strncmp(de->d_name, prefix, plen) != 0)
            continue;
        /* "<pid>" or "<pid>.<suffix>" */
        const char *p = de->d_name + plen;
        char *end;
        errno = 0;
        long pid = strtol(p, &end, 10);
        if (end == p || *p < '0' || *p > '9' || errno || (*end && *end != '.') ||
            process_alive(pid))
            continue;
        struct stat st;
        if (fstatat(dfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode) ||
            st.st_uid != geteuid())
            continue;
        if (unlinkat(dfd, de->d_name, 0) == 0)
            removed++;
    }
    closedir(d);
    return removed;
}
