"""memsuite-analyse hostlist: a Slurm hostlist expression, expanded.

    memsuite-analyse hostlist < LIST

LIST (standard input, read whole: it may hold any character) is what
`memsuite cluster --nodes` or SLURM_JOB_NODELIST gave: comma-separated
entries ("n[01-03,7],gpu5", "rack[1-2]-n[1-4]"), blanks around an entry
ignored, empty entries skipped.  A bracket holds comma-separated numbers
and ranges LO-HI; every name keeps the digits of LO (zero padding:
"n[08-10]" is n08 n09 n10); several brackets in one entry multiply, left
to right.  Numbers are exact integers of any size up to NUMBER_MAX_DIGITS
digits.

The whole list is parsed and its size (per entry the product of its
brackets' sizes, summed over the entries) checked against NAMES_MAX before
one name is made: a list that stands for more names is refused without
spending the time or the memory (a[0-999999]b[0-999999] is 10^12).

Exit 0: the names on stdout, one per line, in order, duplicates dropped.
Exit 2: the list is malformed or too large: stdout holds only the reason,
one line, 'invalid node list "LIST": WHY' (LIST cut past SHOW_MAX
characters, marked; newline and tab as \\n and \\t, other control
characters in caret notation)."""

import sys

from . import exitcodes
from .render import printable

SUMMARY = "expand a Slurm hostlist expression (memsuite cluster --nodes)"

NAMES_MAX = 1000000         # names one list may stand for (a large cluster is ~10^4)
NUMBER_MAX_DIGITS = 64      # digits of one bracket number (far beyond any node numbering)
SHOW_MAX = 200              # characters of the list a message shows
SHOW_PART_MAX = 40          # characters of an entry, a range or a number shown


class ListError(ValueError):
    """A malformed or too large list; str(e) is why, for the message."""


def add_arguments(p):
    del p       # the list comes on standard input


def _shown(s, limit):
    """s for a message: newline and tab written \\n and \\t, cut past limit
    characters (marked, with the full length)."""
    cut = ""
    if len(s) > limit:
        s, cut = s[:limit], "...(cut, %d characters)" % len(s)
    return s.replace("\n", "\\n").replace("\t", "\\t") + cut


def _blank_or_control(s):
    return any(c.isspace() or ord(c) < 32 or 0x7F <= ord(c) < 0xA0 for c in s)


def _number(text):
    if len(text) > NUMBER_MAX_DIGITS:
        raise ListError("the number %s has more than %d digits" % (_shown(text, SHOW_PART_MAX), NUMBER_MAX_DIGITS))
    return int(text)


def _ranges(inner):
    """[(lo, hi, width)] of a bracket's contents ("01-03,7")."""
    out = []
    for r in inner.split(","):
        lo_s, dash, hi_s = r.partition("-")
        if not lo_s.isdigit() or not lo_s.isascii() or (dash and not (hi_s.isdigit() and hi_s.isascii())):
            raise ListError("bad range \"%s\"" % _shown(r, SHOW_PART_MAX))
        lo = _number(lo_s)
        hi = _number(hi_s) if dash else lo
        if hi < lo:
            raise ListError("range %s goes down" % _shown(r, SHOW_PART_MAX))
        out.append((lo, hi, len(lo_s)))
    return out


def parse_entry(entry):
    """An entry as [literal, ranges, literal, ranges, ..., literal]."""
    parts = []
    rest = entry
    while True:
        lb = rest.find("[")
        if lb < 0:
            break
        rb = rest.find("]", lb)
        if rb < 0:
            raise ListError("unbalanced [")
        inner = rest[lb + 1:rb]
        if inner == "":
            raise ListError("empty []")
        parts += [rest[:lb], _ranges(inner)]
        rest = rest[rb + 1:]
    parts.append(rest)
    literals = parts[0::2]
    if any("]" in lit for lit in literals):
        raise ListError("unbalanced ]")
    if any(_blank_or_control(lit) for lit in literals):
        first = "".join(p if isinstance(p, str) else str(p[0][0]).zfill(p[0][2]) for p in parts)
        raise ListError("entry \"%s\" holds white space or a control character; one name per entry, "
                        "entries separated by commas" % _shown(first, SHOW_PART_MAX))
    return parts


def entries(text):
    """The entries of a list: split at the commas outside brackets, blanks
    around each removed, empty ones dropped."""
    out, depth, start = [], 0, 0
    for i, c in enumerate(text):
        if c == "[":
            depth += 1
        elif c == "]":
            depth -= 1
            if depth < 0:
                raise ListError("unbalanced brackets")
        elif c == "," and depth == 0:
            out.append(text[start:i])
            start = i + 1
    if depth != 0:
        raise ListError("unbalanced brackets")
    out.append(text[start:])
    return [e.strip() for e in out if e.strip()]


def size(parts, limit):
    """(n, exact): how many names (duplicates counted) an entry stands
    for; once the count passes limit the rest is not multiplied in (a
    hostile entry of many huge brackets never costs time), and exact is
    False: n is then a lower bound."""
    n = 1
    groups = parts[1::2]
    for i, ranges in enumerate(groups):
        n *= sum(hi - lo + 1 for lo, hi, _ in ranges)
        if n > limit and i + 1 < len(groups):
            return n, False
    return n, True


def _names(parts):
    """Every name of a parsed entry, in order: the left bracket varies
    slowest, each number with its range's zero padding."""
    names = [parts[0]]
    for ranges, literal in zip(parts[1::2], parts[2::2]):
        values = [str(v).zfill(width) for lo, hi, width in ranges for v in range(lo, hi + 1)]
        names = [name + v + literal for name in names for v in values]
    return names


def expand(text):
    """The names a list stands for, in order, duplicates dropped; raises
    ListError before making any name when the list is malformed or stands
    for more than NAMES_MAX names."""
    parsed = [parse_entry(e) for e in entries(text)]
    total, exact = 0, True
    for parts in parsed:
        n, exact = size(parts, NAMES_MAX)
        total += n
        if total > NAMES_MAX:
            raise ListError("it stands for %s%d names, more than the %d a node list may have"
                            % ("" if exact else "at least ", total, NAMES_MAX))
    seen = {}
    for parts in parsed:
        seen.update(dict.fromkeys(_names(parts)))
    return list(seen)


def run(args):
    text = sys.stdin.buffer.read().decode("utf-8", "surrogateescape")
    try:
        names = expand(text)
    except ListError as e:
        sys.stdout.write(printable("invalid node list \"%s\": %s" % (_shown(text, SHOW_MAX), e)) + "\n")
        return exitcodes.USAGE
    if names:
        sys.stdout.write("\n".join(names) + "\n")
    return exitcodes.OK
