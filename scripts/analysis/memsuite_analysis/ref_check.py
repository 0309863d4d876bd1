"""memsuite-analyse ref-check [--run] REF: whether REF is a usable
reference (reference.py's rules).  Prints nothing (--run: the run block's
bench, size_bytes, threads, reps and bind, one a line, empty when the
reference does not say, control characters in caret notation) and exits
0 when it is; else prints the reason (one line, naming the file) and
exits 2.  The orchestration reads a reference only through this (jq
cannot read every string JSON allows)."""

from . import exitcodes, reference
from .render import printable, printable_whole

SUMMARY = "validate a reference (memsuite/ref/1)"


def add_arguments(p):
    p.add_argument("--run", action="store_true", help="print the run block's fields, one a line")
    p.add_argument("ref", metavar="REF")


def run(args):
    try:
        doc = reference.load(args.ref)
    except reference.RefError as e:
        print(printable(str(e)))
        return exitcodes.USAGE
    if args.run:
        run = doc.get("run") or {}
        for k in reference.RUN_KEYS:
            v = run.get(k)
            print("" if v is None else printable_whole(v if isinstance(v, str) else "%d" % v))
    return exitcodes.OK
