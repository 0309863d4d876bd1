"""memsuite-analyse ref-check REF: whether REF is a usable reference
(reference.py's rules).  Prints nothing and exits 0 when it is; else
prints the reason (one line, naming the file) and exits 2."""

from . import exitcodes, reference
from .render import printable

SUMMARY = "validate a reference (memsuite/ref/1)"


def add_arguments(p):
    p.add_argument("ref", metavar="REF")


def run(args):
    try:
        reference.load(args.ref)
    except reference.RefError as e:
        print(printable(str(e)))
        return exitcodes.USAGE
    return exitcodes.OK
