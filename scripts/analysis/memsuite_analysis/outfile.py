"""Every file the analyser writes (charts, summaries, references,
Prometheus files), by the rules of common/outfile.h:

  "-", /dev/stdout, /dev/stderr, /dev/fd/N, /proc/self/fd/N (or a chain
  of symlinks to one)   that descriptor itself, never the file behind it.
  a character device or FIFO
                        written in place, opened non-blocking: a FIFO
                        nobody reads is refused, never waited for.
  a block device, a socket, a directory, a symlink to any non-regular file
                        refused.
  a regular file, a symlink to one, or nothing yet
                        replaced atomically: a temporary of its own
                        (mkstemp: unique to this writer, so concurrent
                        writers never touch each other's) in the target's
                        directory, then a rename; a symlink is replaced,
                        never followed.  When the temporary cannot take
                        the document (a full disk), the document is saved
                        under $TMPDIR and the error names that file.
  one of the inputs (the same device and inode, through any link or
  spelling)             refused, code 2.

write() raises OutError (an OSError: strerror is the whole message,
"'PATH': what failed: why; hint"; code is the exit status, 2 or 3)."""

import errno
import fcntl
import os
import re
import stat
import sys
import tempfile

USAGE, RESOURCE = 2, 3
HINT = "choose another path ('-' writes to stdout)"


class OutError(OSError):
    def __init__(self, path, why, code=RESOURCE, err=0):
        super().__init__(err, "%s: %s" % (_shown(path), why))
        self.code = code


def _shown(path):
    p = path if len(path) <= 100 else path[:100] + "..."
    return "'%s'" % re.sub(r"[\x00-\x1f\x7f]", lambda m: "^" + chr(ord(m.group()) ^ 0x40), p)


def _kind(mode):
    for test, name in ((stat.S_ISDIR, "a directory"), (stat.S_ISBLK, "a block device"),
                       (stat.S_ISCHR, "a character device"), (stat.S_ISFIFO, "a FIFO"),
                       (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return name
    return "a regular file"


def fd_alias(path):
    """The descriptor path names through /proc/self/fd (itself or by a
    chain of symlinks), else None."""
    if path == "-":
        return 1
    p = path
    for _ in range(40):
        d, base = os.path.split(p if os.path.isabs(p) else os.path.join(os.getcwd(), p))
        if re.fullmatch(r"[0-9]{1,9}", base):
            real = os.path.realpath(d)
            if real in ("/proc/%d/fd" % os.getpid(), "/proc/self/fd") or \
                    re.fullmatch(r"/proc/%d/task/[0-9]+/fd" % os.getpid(), real):
                return int(base)
        if not os.path.islink(p):
            return None
        link = os.readlink(p)
        p = link if os.path.isabs(link) else os.path.join(d, link)
    return None


def _same(a, b):
    return a.st_dev == b.st_dev and a.st_ino == b.st_ino


def not_input(path, inputs, fd=None):
    """OutError (code 2) when path (or descriptor fd) is one of inputs."""
    for i in inputs or ():
        try:
            st_in = os.stat(i)
        except (OSError, ValueError):
            continue
        outs = []
        for f in ((lambda: os.fstat(fd)),) if fd is not None else (lambda: os.lstat(path), lambda: os.stat(path)):
            try:
                outs.append(f())
            except OSError:
                pass
        if any(_same(st_in, o) and (fd is None or stat.S_ISREG(o.st_mode)) for o in outs):
            raise OutError(path, "is the input %s (the same file); writing it would replace what is "
                           "read; choose another path" % _shown(i), USAGE)


def _write_fd(fd, data):
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def _save_fallback(path, data):
    """The document saved under $TMPDIR (else /tmp); its name, or None."""
    try:
        fd, name = tempfile.mkstemp(prefix=os.path.basename(path)[:64] + ".",
                                    dir=os.environ.get("TMPDIR") or "/tmp")
    except OSError:
        return None
    try:
        _write_fd(fd, data)
        os.fsync(fd)
        return name
    except OSError:
        os.unlink(name)
        return None
    finally:
        os.close(fd)


def check(path, inputs=()):
    """How path would be written ("descriptor", "in place", "atomic"), or
    OutError; nothing is written."""
    if not path:
        raise OutError(path, "empty path; " + HINT)
    fd = fd_alias(path)
    if fd is not None:
        try:
            fl = fcntl.fcntl(fd, fcntl.F_GETFL)
        except OSError as e:
            raise OutError(path, "descriptor is not open (%s); redirect it or choose another path"
                           % e.strerror, err=e.errno)
        if fl & os.O_ACCMODE == os.O_RDONLY:
            raise OutError(path, "descriptor is open for reading only; choose another path", err=errno.EBADF)
        not_input(path, inputs, fd)
        return "descriptor"
    try:
        lst = os.lstat(path)
    except FileNotFoundError:
        lst = None
    except OSError as e:
        raise OutError(path, "cannot inspect it: %s; %s" % (e.strerror, HINT), err=e.errno)
    not_input(path, inputs)
    if lst is None:
        return "atomic"
    if stat.S_ISLNK(lst.st_mode):
        try:
            st = os.stat(path)
        except OSError:
            return "atomic"   # a link to nothing: replaced
        if not stat.S_ISREG(st.st_mode):
            raise OutError(path, "is a symbolic link to %s; name the target itself, or remove the link"
                           % _kind(st.st_mode), err=errno.EPERM)
        return "atomic"
    if stat.S_ISDIR(lst.st_mode):
        raise OutError(path, "is a directory; name a file in it", err=errno.EISDIR)
    if stat.S_ISCHR(lst.st_mode) or stat.S_ISFIFO(lst.st_mode):
        return "in place"
    if not stat.S_ISREG(lst.st_mode):
        raise OutError(path, "is %s, which is never written; choose a file" % _kind(lst.st_mode),
                       err=errno.EPERM)
    return "atomic"


def _in_place(path, data):
    try:
        fd = os.open(path, os.O_WRONLY | os.O_NONBLOCK | os.O_NOFOLLOW | os.O_NOCTTY | os.O_CLOEXEC)
    except OSError as e:
        if e.errno == errno.ENXIO:
            raise OutError(path, "is a FIFO that nobody reads; start its reader first, or " + HINT, err=e.errno)
        raise OutError(path, "cannot open it for writing: %s; %s" % (e.strerror, HINT), err=e.errno)
    try:
        fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) & ~os.O_NONBLOCK)
        _write_fd(fd, data)
    except OSError as e:
        raise OutError(path, "write failed: %s; check the disk, device or pipe" % e.strerror, err=e.errno)
    finally:
        os.close(fd)


def _atomic(path, data):
    d = os.path.dirname(path) or "."
    try:
        fd, tmp = tempfile.mkstemp(prefix="." + os.path.basename(path) + ".", dir=d)
    except OSError as e:
        raise OutError(path, "cannot create a file in %s: %s; check that the directory exists and is "
                       "writable, or %s" % (_shown(d), e.strerror, HINT), err=e.errno)
    step = "write"
    try:
        _write_fd(fd, data)
        step = "fsync"
        os.fsync(fd)
        mask = os.umask(0)
        os.umask(mask)
        os.fchmod(fd, 0o666 & ~mask)
        os.close(fd)
        fd = -1
        step = "rename"
        lst = os.lstat(path) if os.path.lexists(path) else None
        if lst is not None and not (stat.S_ISREG(lst.st_mode) or stat.S_ISLNK(lst.st_mode)):
            raise OutError(path, "became %s while it was being written; nothing replaced" % _kind(lst.st_mode))
        os.rename(tmp, path)
    except OSError as e:
        if fd >= 0:
            os.close(fd)
        try:
            os.unlink(tmp)
        except OSError:
            pass
        if isinstance(e, OutError):
            raise
        saved = _save_fallback(path, data) if step in ("write", "fsync") else None
        kept = "the document was saved in %s instead" % _shown(saved) if saved else \
            "the previous file, if any, is unchanged"
        raise OutError(path, "%s of the temporary file failed: %s; %s; free disk space or choose "
                       "another path" % (step, e.strerror, kept), err=e.errno)


def write(path, data, inputs=()):
    """data (str or bytes) becomes path, by the rules above; OutError."""
    if isinstance(data, str):
        data = data.encode("utf-8", "surrogateescape")
    kind = check(path, inputs)
    if kind == "descriptor":
        fd = fd_alias(path)
        try:
            if fd in (1, 2):
                stream = sys.stdout if fd == 1 else sys.stderr
                stream.flush()
            _write_fd(fd, data)
        except OSError as e:
            raise OutError(path, "write failed: %s; check the disk, device or pipe" % e.strerror, err=e.errno)
    elif kind == "in place":
        _in_place(path, data)
    else:
        _atomic(path, data)


def make_dir(path):
    """The directory path, made when missing (with its parents); OutError
    (code 3) naming what is there instead or why it cannot be made."""
    try:
        os.makedirs(path, exist_ok=True)
        return
    except FileExistsError:
        pass
    except OSError as e:
        raise OutError(path, "cannot create the directory: %s; %s" % (e.strerror, HINT), err=e.errno)
    try:
        mode = os.stat(path).st_mode
    except OSError:
        mode = os.lstat(path).st_mode
    raise OutError(path, "is %s, not a directory; remove or rename it, or choose another path"
                   % _kind(mode), err=errno.ENOTDIR)

