"""The command line: memsuite-analyse COMMAND [OPTIONS].  A subcommand is
one module with SUMMARY, add_arguments(parser) and run(args) -> exit code,
and one row in COMMANDS (name, module).  Only the module of the command
asked for is imported (the orchestration starts the analyser many times
per check, on nodes that may be slowed or quota-limited); --help and a
bad command import them all to list them."""

import argparse
import importlib
import sys

from . import exitcodes

COMMANDS = (
    ("aggregate", "aggregate"),
    ("check", "check"),
    ("compare", "compare"),
    ("docs-summary", "docs_summary"),
    ("hostlist", "hostlist"),
    ("node-report", "node_report"),
    ("peers", "peers"),
    ("plot", "plotcmd"),
    ("record", "record"),
    ("ref-check", "ref_check"),
    ("report", "report"),
    ("result-state", "result_state"),
    ("run-block", "run_block"),
    ("rundir-check", "rundir_check"),
    ("summary", "summary"),
    ("verdict", "verdict"),
)


class _Parser(argparse.ArgumentParser):
    def error(self, message):       # usage errors exit 2, as everywhere
        self.print_usage(sys.stderr)
        sys.stderr.write("%s: %s\n" % (self.prog, message))
        sys.exit(exitcodes.USAGE)


def _module(name):
    return importlib.import_module("." + dict(COMMANDS)[name], __package__)


def main(argv=None):
    for stream in (sys.stdout, sys.stderr):
        if hasattr(stream, "reconfigure"):     # not a StringIO of a test
            stream.reconfigure(encoding="utf-8", errors="surrogateescape")
    argv = sys.argv[1:] if argv is None else list(argv)
    names = [n for n, _ in COMMANDS]
    wanted = [argv[0]] if argv and argv[0] in names else names
    p = _Parser(prog="memsuite-analyse", description="memsuite's analyser")
    sub = p.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True
    mods = {}
    for name in wanted:
        mods[name] = mod = _module(name)
        mod.add_arguments(sub.add_parser(name, help=mod.SUMMARY, description=mod.SUMMARY))
    args = p.parse_args(argv)
    return mods[args.command].run(args)
