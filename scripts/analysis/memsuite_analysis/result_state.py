"""memsuite-analyse result-state FILE [--tool T] [--scenario S]: one line
saying what FILE is, as the orchestration needs it before it resumes or
records (results.read_result's rules, one reader for every command):
  complete        a result document that may stand for a measurement
  incomplete      a result document of a run that did not finish
  invalid: WHY    a result document whose figures cannot be trusted (or,
                  with --tool/--scenario, of another tool or scenario)
  anything else   why FILE is not a result document at all
Always exits 0 once the line is printed (the line is the answer)."""

from . import exitcodes, results
from .render import printable

SUMMARY = "what a result file is: complete, incomplete, invalid: why, or why it is none"


def add_arguments(p):
    p.add_argument("--tool", default=None, help="the tool the cell runs (another tool's result is invalid)")
    p.add_argument("--scenario", default=None, help="the mencal scenario the cell runs")
    p.add_argument("--show-tool", action="store_true",
                   help="print the result's tool instead (unknown when it names none; cut when long)")
    p.add_argument("file", metavar="FILE")


def line(res):
    """The one-line state of a Result."""
    if res.state in ("complete", "incomplete"):
        return res.state
    if res.state == "invalid":
        return "invalid: " + res.why
    return res.why


def run(args):
    res = results.read_result(args.file, args.tool or None, args.scenario or None)
    if args.show_tool:
        t = res.get("tool")
        print(printable("unknown" if t is None else results.shown(t)))
        return exitcodes.OK
    print(printable(line(res)))
    return exitcodes.OK
