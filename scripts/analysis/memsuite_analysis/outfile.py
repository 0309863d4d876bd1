"""Writing a result file the analyser owns: atomically (a temp file in
the same directory, then rename), so a reader never sees half of it and
a failed write leaves the previous file in place."""

import os
import tempfile


def write_atomic(path, text):
    """Writes text to path; None when done, else why (strerror)."""
    d = os.path.dirname(path) or "."
    try:
        fd, tmp = tempfile.mkstemp(prefix="." + os.path.basename(path) + ".", dir=d)
    except OSError as e:
        return e.strerror
    try:
        with os.fdopen(fd, "w", encoding="utf-8", errors="surrogateescape") as f:
            f.write(text)
        os.chmod(tmp, 0o644)
        os.rename(tmp, path)
        return None
    except OSError as e:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        return e.strerror
