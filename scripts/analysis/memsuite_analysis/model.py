"""The results model: reading a directory
of node reports (memsuite/cluster-node/1, written by `memsuite cluster
--node-run`) into small summaries.

Reading rules (the contract the aggregation relies on):
  - every entry of the directory is accounted for, by name: a regular
    file NAME.json is a node report for node NAME; a symbolic link, FIFO,
    socket, device or directory named NAME.json is an unreadable report of
    NAME (never followed, never opened, so it can never block); a hidden
    .NAME.json is never read: it is NAME's unreadable report when NAME has
    no visible one, else ignored; any other name is ignored.  Ignored
    entries are listed, never dropped silently;
  - a report is read file by file and only its summary is kept (node,
    verdict, exit, summary, reference id, metric values): memory grows with
    the nodes, not with the documents;
  - a report counts for the node its file is named for; one that names
    another node is kept as a claim (flagged by the classifier), never as
    that other node's report;
  - a report that cannot be judged (no "ref" block, or a reference id
    that is not "sha256:<64 hex digits>", the form every node writes) is
    its node's invalid report: that node is marked, with the reason, and
    every other node is judged as ever (it used to make the whole
    aggregate "mixed reference versions", exit 2).
"""

import errno
import json
import math
import os
import re
import stat

NODE_SCHEMA = "memsuite/cluster-node/1"
REPORT_MAX_BYTES = 16 << 20     # far above any real node report (a few KiB)
SUMMARY_MAX_CHARS = 4096        # the part of a summary kept per node
REF_ID = re.compile(r"sha256:[0-9a-f]{64}")     # ms_cluster_ref_id's form
SHOWN_MAX_CHARS = 80            # the part of a bad value a reason quotes

_ESCAPES = str.maketrans({"\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r"})
_SPECIAL = re.compile(r"[\\\t\n\r]")


def one_line(value):
    """Text from a document as one line of a table: a string as it is, with
    backslash, tab, newline and CR written as \\\\ \\t \\n \\r; anything
    else as its JSON text."""
    if value.__class__ is not str:
        if value is None:
            return ""
        value = json.dumps(value, ensure_ascii=False)
    return value.translate(_ESCAPES) if _SPECIAL.search(value) else value


def name_key(s):
    """The sort key of a name (node, file) as LC_ALL=C sorts it: by bytes."""
    return s.encode("utf-8", "surrogateescape")


def _no_constant(name):
    raise ValueError("%s is not a JSON number" % name)


def _constant(name):
    """NaN and +-Infinity as non-finite floats (references: never null,
    which means "no upper bound" there, so the value checks refuse them)."""
    return float(name.replace("Infinity", "inf"))


# A \\uD800-\\uDFFF escape: a surrogate, maybe one without its pair.
_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")
_SURROGATE_ESCAPE_TEXT = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")
_LONE = re.compile("[\ud800-\udfff]")


def _whole(x):
    """x with every lone surrogate of its strings (keys too) replaced by
    U+FFFD."""
    if x.__class__ is str:
        return _LONE.sub("\ufffd", x)
    if x.__class__ is list:
        return [_whole(v) for v in x]
    if x.__class__ is dict:
        return {_whole(k): _whole(v) for k, v in x.items()}
    return x


def loads(data, constants=False):
    """Strict JSON: NaN and Infinity are refused, as in RFC 8259
    (constants=True reads them as non-finite numbers, for the value checks
    to name).  A document nested past Python's recursion limit is refused
    as well (ValueError, like any other bad document; it was an internal
    error).  A string is Unicode text: a \\ud800-\\udfff escape without its
    pair (JSON's syntax allows one; it is no character and cannot be
    written out) is read as U+FFFD, the replacement character, so nothing
    past the reader ever holds one."""
    try:
        doc = json.loads(data, parse_constant=_constant if constants else _no_constant)
        if (_SURROGATE_ESCAPE.search(data) if isinstance(data, (bytes, bytearray))
                else _SURROGATE_ESCAPE_TEXT.search(data) or _LONE.search(data)):
            doc = _whole(doc)
        return doc
    except RecursionError:
        raise ValueError("nested too deeply to read") from None


# what a node report's diagnosis may bring into the aggregate
DIAGNOSIS_MAX, DIAGNOSIS_MAX_CHARS = 4, 200


class Report:
    """The summary of one node report file: what the aggregation reads of
    it, nothing more (the check's lines and stderr are not kept)."""

    __slots__ = ("stem", "node", "verdict", "exit", "summary", "ref_id", "names", "vals", "diagnosis")

    def __init__(self, stem, doc):
        get = doc.get
        self.stem = stem
        node = one_line(get("node"))
        self.node = stem if node == stem else node
        v = get("verdict")
        self.verdict = "ERROR" if v is None else _intern(one_line(v))
        self.exit = _exit_code(get("exit"))
        # the summary is shown only for a node that did not PASS
        s = "" if self.verdict == "PASS" else one_line(get("summary"))
        self.summary = s if len(s) <= SUMMARY_MAX_CHARS else s[:SUMMARY_MAX_CHARS] + "...(cut)"
        # the diagnosis FAILs of a node that did not PASS: a few, each cut
        d = get("diagnosis") if self.verdict != "PASS" else None
        self.diagnosis = tuple(one_line(x)[:DIAGNOSIS_MAX_CHARS] for x in d[:DIAGNOSIS_MAX]
                               if x.__class__ is str) if d.__class__ is list else ()
        ref = get("ref")
        self.ref_id = _intern(one_line(ref.get("id"))) if ref.__class__ is dict else ""
        names, vals = [], []
        metrics = get("metrics")
        for m in metrics if metrics.__class__ is list else ():
            if m.__class__ is not dict:
                continue
            rec, met, val = m.get("record"), m.get("metric"), m.get("value")
            names.append("%s.%s" % ("?" if rec is None else one_line(rec), "?" if met is None else one_line(met)))
            vals.append(_finite(val))
        # the metric names are the same for every node: one tuple for all
        self.names = _intern(tuple(names))
        self.vals = tuple(vals)

    @property
    def values(self):
        """{metric: value or None} (a later duplicate name wins)."""
        return dict(zip(self.names, self.vals))


def _exit_code(x):
    """check's exit status as a number, or None (absent, not a number); an
    integer past a double's range is infinite (never an exit 0)."""
    if _is_number(x):
        try:
            float(x)
        except OverflowError:
            return math.inf if x > 0 else -math.inf
        return x
    try:
        return float(x) if isinstance(x, str) else None
    except ValueError:
        return None


def _finite(x):
    """A metric value as a finite float, or None: not a number, a boolean,
    or an integer past a double's range (float() of it raised
    OverflowError and stopped the whole aggregate)."""
    if not _is_number(x):
        return None
    try:
        f = float(x)
    except OverflowError:
        return None
    return f if math.isfinite(f) else None


_names = {}


def _intern(s):
    """One shared copy of a value many reports repeat (a verdict, the
    reference id, the tuple of metric names)."""
    return _names.setdefault(s, s)


def _is_number(x):
    return isinstance(x, (int, float)) and not isinstance(x, bool) and x == x and abs(x) != float("inf")


class Entry:
    """One directory entry, read.  kind is one of:
      report      a node report (report set);
      unreadable  the node stem's report cannot be read (why);
      invalid     the node stem's report is read but cannot be judged (why);
      other       valid JSON that is not a node report (why; ignored);
      stale       a node report of another run (why: its run id; ignored);
      hidden      .STEM.json, never read (why);
      ignored     not a report by its name (why)."""

    __slots__ = ("name", "path", "stem", "kind", "why", "report")

    def __init__(self, name, path, stem, kind, why="", report=None):
        self.name, self.path, self.stem, self.kind = name, path, stem, kind
        self.why, self.report = why, report


_JSON_TYPES = {list: "array", str: "string", int: "number", float: "number", bool: "boolean",
               type(None): "null"}

_TYPE_NAMES = (
    (stat.S_ISLNK, "is a symbolic link (not followed)"),
    (stat.S_ISDIR, "is a directory"),
    (stat.S_ISFIFO, "is a FIFO (not read)"),
    (stat.S_ISSOCK, "is a socket (not read)"),
    (stat.S_ISCHR, "is a character device (not read)"),
    (stat.S_ISBLK, "is a block device (not read)"),
)


def type_why(mode):
    """Words for a file type that is not a regular file."""
    for test, why in _TYPE_NAMES:
        if test(mode):
            return why
    return "is not a regular file"


def _noun(what):
    """'report' of 'a node report', 'result document' of 'a result document'."""
    return "report" if what == "a node report" else what.split(" ", 1)[-1]


def read_regular(path, what="a node report", max_bytes=REPORT_MAX_BYTES, follow=False):
    """(bytes, None) or (None, why): the one way the analyser opens a file
    another program or person wrote.  Opened without blocking and, unless
    follow, without following a link (O_NOFOLLOW), then checked to be a
    regular file of at most max_bytes (what: the kind of document, named
    in the refusal): a file swapped for a FIFO or a link after the listing
    is still never waited on, and a huge one is never read.  why is the
    end of a sentence that starts with the file's name."""
    flags = os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | (0 if follow else os.O_NOFOLLOW)
    try:
        fd = os.open(path, flags)
    except OSError as e:
        if not follow and os.path.islink(path):
            return None, type_why(stat.S_IFLNK)
        if follow and e.errno == errno.ENOENT and os.path.islink(path):
            return None, "is a dangling symbolic link"
        return None, "cannot be read: %s" % e.strerror
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            return None, type_why(st.st_mode)
        if st.st_size == 0:
            return None, "is empty (a truncated %s?)" % _noun(what)
        if st.st_size > max_bytes:
            return None, "is %d bytes, more than %s can be (%d MiB); not read" % (
                st.st_size, what, max_bytes >> 20)
        # The size it had when opened (writers rename a complete document
        # into place; one that changes meanwhile is read as far as that
        # size, and a cut one fails to parse, named): one read in the
        # common case.
        chunks, left = [], st.st_size
        while left > 0:
            b = os.read(fd, left)
            if not b:
                break
            chunks.append(b)
            left -= len(b)
        data = b"".join(chunks)
        if not data:
            return None, "is empty (a truncated %s?)" % _noun(what)
        return data, None
    except OSError as e:
        return None, "cannot be read: %s" % e.strerror
    finally:
        os.close(fd)


def read_entry(directory, name, dtype_regular, run_id):
    """Reads one directory entry (name: as listed) into an Entry.  The
    Entry's path and stem are for showing: one line (one_line)."""
    real = directory + name if directory.endswith("/") else directory + "/" + name
    path = one_line(real)
    if not name.endswith(".json") or name in (".json", "..json"):
        return Entry(name, path, None, "ignored", "is not named NODE.json (not a node report)")
    stem = one_line(name[:-5])
    if stem.startswith(".") and len(stem) > 1:
        return Entry(name, path, stem[1:], "hidden", "is a hidden file (not read)")
    if dtype_regular is False:
        try:
            mode = os.lstat(real).st_mode
        except OSError as e:
            return Entry(name, path, stem, "unreadable", "cannot be read: %s" % e.strerror)
        if not stat.S_ISREG(mode):
            return Entry(name, path, stem, "unreadable", type_why(mode))
    data, why = read_regular(real)
    if why:
        return Entry(name, path, stem, "unreadable", why)
    try:
        doc = loads(data)
    except ValueError as e:
        return Entry(name, path, stem, "unreadable", "is not valid JSON (%s)" % _json_why(e))
    if not isinstance(doc, dict) or doc.get("schema") != NODE_SCHEMA:
        if isinstance(doc, dict):
            schema = doc.get("schema")
            schema = "none" if schema is None else one_line(schema)
        else:
            schema = _JSON_TYPES.get(type(doc), "unknown")
        return Entry(name, path, stem, "other", "is not a node report (schema %s)" % schema)
    if run_id and one_line(doc.get("run_id")) != run_id:
        rid = doc.get("run_id")
        return Entry(name, path, stem, "stale", "none" if rid is None else one_line(rid))
    rep = Report(stem, doc)
    if rep.node == "":
        return Entry(name, path, stem, "unreadable", "has no node name")
    why = ref_problem(doc.get("ref"))
    if why:
        return Entry(name, path, stem, "invalid", why)
    return Entry(name, path, stem, "report", report=rep)


def shown(value):
    """A value from a document for a reason: one line, cut past
    SHOWN_MAX_CHARS characters (marked)."""
    text = one_line(value)
    if len(text) > SHOWN_MAX_CHARS:
        text = text[:SHOWN_MAX_CHARS] + "...(cut, %d characters)" % len(text)
    return text


def ref_problem(ref):
    """Why a report's "ref" block names no reference, or "" when its id is
    one (whether it is this aggregate's reference is refs_problem's)."""
    if ref is None:
        return 'has no "ref" block (no reference id)'
    if ref.__class__ is not dict:
        return 'has a "ref" of type %s, not an object (no reference id)' % _JSON_TYPES.get(type(ref), "unknown")
    rid = ref.get("id")
    if rid is None:
        return "has no reference id (ref.id)"
    if rid.__class__ is not str or not REF_ID.fullmatch(rid):
        return 'has the reference id "%s", not sha256:<64 hex digits>' % shown(rid)
    return ""


def _json_why(e):
    if isinstance(e, json.JSONDecodeError):
        return "line %d column %d: %s" % (e.lineno, e.colno, e.msg)
    if isinstance(e, UnicodeDecodeError):
        return "not UTF-8 text at byte %d" % e.start
    return str(e)


def read_directory(directory, run_id=""):
    """Every entry of directory, read, one at a time, in the directory's
    own order (nothing but the open listing is held: callers that show
    entries sort what they keep).  Yields Entry objects."""
    with os.scandir(directory) as it:
        for e in it:
            yield read_entry(directory, e.name, _regular_hint(e), run_id)


def _regular_hint(entry):
    """True when the listing says a regular file (no link followed), False
    otherwise; read_entry then looks at the type itself."""
    try:
        return entry.is_file(follow_symlinks=False)
    except OSError:
        return False
