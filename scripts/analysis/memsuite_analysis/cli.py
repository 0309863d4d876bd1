"""The command line: memsuite-analyse COMMAND [OPTIONS].  A subcommand is
one module with SUMMARY, add_arguments(parser) and run(args) -> exit code,
and one row in COMMANDS."""

import argparse
import sys

from . import (aggregate, check, compare, docs_summary, exitcodes, peers, plotcmd, record, ref_check,
               report, result_state, rundir_check, summary, verdict)

COMMANDS = (
    ("aggregate", aggregate),
    ("check", check),
    ("compare", compare),
    ("docs-summary", docs_summary),
    ("peers", peers),
    ("plot", plotcmd),
    ("record", record),
    ("ref-check", ref_check),
    ("report", report),
    ("result-state", result_state),
    ("rundir-check", rundir_check),
    ("summary", summary),
    ("verdict", verdict),
)


class _Parser(argparse.ArgumentParser):
    def error(self, message):       # usage errors exit 2, as everywhere
        self.print_usage(sys.stderr)
        sys.stderr.write("%s: %s\n" % (self.prog, message))
        sys.exit(exitcodes.USAGE)


def main(argv=None):
    for stream in (sys.stdout, sys.stderr):
        if hasattr(stream, "reconfigure"):     # not a StringIO of a test
            stream.reconfigure(encoding="utf-8", errors="surrogateescape")
    p = _Parser(prog="memsuite-analyse", description="memsuite's analyser")
    sub = p.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True
    for name, mod in COMMANDS:
        mod.add_arguments(sub.add_parser(name, help=mod.SUMMARY, description=mod.SUMMARY))
    args = p.parse_args(argv)
    return dict(COMMANDS)[args.command].run(args)
