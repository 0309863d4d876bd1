"""memsuite-analyse aggregate: the cluster report from a directory of node
reports.  Read (model) -> statistics (stats) -> verdicts (classify) ->
text or JSON (render).  `memsuite cluster --aggregate` is its wrapper: it
checks the directory and the reference, computes the reference id and
expands the expected node list, then runs this and, with --drain, the
scontrol lines this writes to --drain-list.  The suggestions (with
--drain-suggest or --drain) follow the text report as scontrol lines; in
JSON they are the document's "drain_suggestions" (stdout stays one JSON
document).

Exit: 0 every node PASS and none SLOW; 1 a node FAIL, ERROR, MISSING or
SLOW, a drain line refused, or no node to judge; 2 reports made against
other references, bad arguments; 3 the directory or the reference cannot
be read, the output cannot be written."""

import argparse
import itertools
import sys

from . import classify, exitcodes, model, outfile, reference, render

SUMMARY = "the cluster report from a directory of node reports"
SHOW_MAX = 10       # messages listed one by one, then a count


class Messages:
    """Diagnostics on stderr: "PREFIX: [warning: ]text", caret-escaped."""

    def __init__(self, prefix):
        self.prefix = prefix

    def say(self, text, kind=""):
        sys.stderr.write(render.printable("%s: %s%s" % (self.prefix, kind, text)) + "\n")

    def warn(self, text):
        self.say(text, "warning: ")

    def die(self, code, text):
        self.say(text)
        sys.exit(code)


def _decimal(s):
    try:
        v = float(s)
    except ValueError:
        raise argparse.ArgumentTypeError("invalid number '%s'" % s)
    if v != v or v in (float("inf"), float("-inf")):
        raise argparse.ArgumentTypeError("invalid number '%s'" % s)
    return s


def add_arguments(p):
    p.add_argument("--dir", required=True, help="the results directory (DIR/<node>.json)")
    p.add_argument("--ref", required=True, help="the reference, memsuite/ref/1")
    p.add_argument("--ref-id", required=True, help='the reference id ("sha256:<hex>" of its canonical JSON)')
    p.add_argument("--expected", default="", help="file of expected node names, one per line")
    p.add_argument("--expected-from", default="", help="where the expected list came from (shown)")
    p.add_argument("--run-id", default="", help="only the reports of this run")
    p.add_argument("--k", default="5", type=_decimal, help="outlier threshold in MADs (default 5)")
    p.add_argument("--mad-floor", default="0.5", type=_decimal, help="smallest MAD, %% of the median (default 0.5)")
    p.add_argument("--format", default="text", choices=("text", "json"))
    p.add_argument("--top", default=0, type=int, help="text: list only the first N nodes (0: all)")
    p.add_argument("--all", action="store_true", help="text: list every node")
    p.add_argument("--drain-suggest", action="store_true", help="print the scontrol drain lines")
    p.add_argument("--drain-list", default="", help="write NODE<TAB>REASON of the nodes to drain to this file")
    p.add_argument("--prefix", default="memsuite-analyse: aggregate", help="message prefix")


def _expected(path, msg):
    if not path:
        return {}
    try:
        with open(path, encoding="utf-8", errors="surrogateescape") as f:
            return dict.fromkeys(line.rstrip("\n") for line in f if line.strip())
    except OSError as e:
        msg.die(exitcodes.RESOURCE, "cannot read the expected node list %s: %s" % (path, e.strerror))


def _list(msg, items, what_more):
    for text in items[:SHOW_MAX]:
        msg.warn(text)
    if len(items) > SHOW_MAX:
        msg.warn("... and %d more %s" % (len(items) - SHOW_MAX, what_more))


def run(args):
    msg = Messages(args.prefix)
    k, floor = float(args.k), float(args.mad_floor)
    if k <= 0:
        msg.die(exitcodes.USAGE, "--k: must be more than 0")
    try:
        ref = reference.Reference(args.ref, args.ref_id)
    except (OSError, ValueError, KeyError, TypeError) as e:
        msg.die(exitcodes.USAGE, "cannot read the reference %s: %s" % (args.ref, getattr(e, "strerror", None) or e))
    expected = _expected(args.expected, msg)
    try:
        pop = classify.Population(model.read_directory(args.dir, args.run_id))
    except OSError as e:
        msg.die(exitcodes.RESOURCE, "the results directory %s cannot be read: %s" % (args.dir, e.strerror))

    why = classify.refs_problem(pop, ref.id)
    if why:
        msg.die(exitcodes.USAGE, "mixed reference versions: the node reports were made against %s; rerun the odd "
                "nodes against %s, or aggregate each reference separately" % (why, ref.path))
    if pop.reported() == 0 and not expected:
        msg.die(exitcodes.FAIL, "no node report in %s%s, and no expected node list (--nodes or SLURM_JOB_NODELIST): "
                "nothing to judge" % (args.dir, " for run " + args.run_id if args.run_id else ""))

    spread = classify.spreads(pop, ref, k, floor)
    judged = classify.Judgement(pop, ref, spread, expected, k, args.dir)

    ignored = _warn_entries(msg, pop, args)
    ok = judged.ok()
    entries = drain_lines = None
    if args.drain_suggest or args.drain_list:
        entries = render.drain_entries(judged.rows)
        drain_lines, refused = _drain(msg, entries, args.drain_list)
        ok = ok and not refused
    view = render.View(judged, spread, ref, args.dir, args.expected_from, pop.reported(),
                       args.k, args.mad_floor, args.run_id, ignored, entries)
    # JSON: the suggestions inside the document (stdout stays one JSON
    # document); text: the scontrol lines after the report.
    # (a text line past render.LINE_MAX is cut; the document never is)
    if args.format == "json":
        pieces = (render.printable_text(p) for p in itertools.chain(render.json_chunks(view, k, floor), ("\n",)))
    else:
        pieces = (render.printable(line) + "\n"
                  for line in itertools.chain(render.text(view, args.top, args.all), drain_lines or ()))
    try:
        for piece in pieces:
            sys.stdout.write(piece)
        sys.stdout.flush()
    except OSError as e:
        msg.die(exitcodes.RESOURCE, "cannot write to standard output (%s); the report is lost" % e.strerror)
    return exitcodes.OK if ok else exitcodes.FAIL


def _warn_entries(msg, pop, args):
    """Names every entry that is not a counted report (SHOW_MAX of each
    kind, then a count); returns the ignored (path, why), sorted."""
    _list(msg, ["file %s %s: node %s is ERROR (report unreadable)" % (p, w, stem)
                for stem, (p, w) in sorted(pop.unreadable.items(), key=lambda t: model.name_key(t[1][0]))],
          "unreadable node reports (ERROR)")
    _list(msg, ["file %s %s: node %s is ERROR (report invalid, not judged)" % (p, w, stem)
                for stem, (p, w) in sorted(pop.invalid.items(), key=lambda t: model.name_key(t[1][0]))],
          "invalid node reports (ERROR)")
    _list(msg, ["file %s names node %s, not %s: counted for neither; node %s is ERROR" % (p, r.node, s, s)
                for s, (p, r) in sorted(pop.claims.items(), key=lambda t: model.name_key(t[0]))],
          "reports naming another node (ERROR)")
    ignored = sorted(pop.others + pop.ignored, key=lambda pw: model.name_key(pw[0]))
    _list(msg, ["file %s %s (ignored)" % (p, w) for p, w in ignored], "files that are not node reports")
    if pop.stale:
        msg.say("%d report(s) in %s belong to other runs (not run %s); ignored" % (pop.stale, args.dir, args.run_id))
    return ignored


def _drain(msg, entries, list_path):
    """The drain lines of the suggestions; writes NODE<TAB>REASON of the
    plain names to list_path (for the wrapper to run) and warns about the
    others.  Returns (lines, refused names)."""
    lines, plain, refused = render.drain(entries)
    for node in refused:
        msg.warn("node name %s (from its report) is not a plain host name; not drained" % render.shell_word(node))
    if list_path:
        try:
            outfile.write(list_path, "".join("%s\t%s\n" % pr for pr in plain))
        except outfile.OutError as e:
            msg.die(e.code, "cannot write the drain list %s" % e.strerror)
    return lines, refused
