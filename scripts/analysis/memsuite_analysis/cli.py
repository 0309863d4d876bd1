"""The command line: memsuite-analyse COMMAND [OPTIONS].  A subcommand is
one module with SUMMARY, add_arguments(parser) and run(args) -> exit code,
and one row in COMMANDS (name, module).  Only the module of the command
asked for is imported (the orchestration starts the analyser many times
per check, on nodes that may be slowed or quota-limited); --help and a
bad command import them all to list them."""

import argparse
import codecs
import importlib
import os
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


def _out_errors(e):
    """The encoding errors of standard output and error: a byte that was
    not UTF-8 (read with surrogateescape: a file name) is written back as
    it was; any other surrogate, which no renderer should let through
    (render.printable), as U+FFFD rather than an encoding error."""
    if isinstance(e, UnicodeEncodeError):
        s = e.object[e.start:e.end]
        if all("\udc80" <= c <= "\udcff" for c in s):
            return bytes(ord(c) - 0xdc00 for c in s), e.end
        return "\ufffd".encode("utf-8") * len(s), e.end
    raise e


codecs.register_error("memsuite-out", _out_errors)


ARGS_FILE = "--args-file"


def _args_files(argv):
    """argv with each "--args-file FILE" replaced by the arguments FILE
    holds, each ended by a NUL byte (printf '%s\\0' ... in bash, a builtin):
    how the orchestration hands over values taken from documents (a CPU
    model, notes, a run block), which may be longer than a command line
    can carry.  None (said on stderr) when FILE cannot be read."""
    if ARGS_FILE not in argv:
        return argv
    out, i = [], 0
    while i < len(argv):
        if argv[i] == ARGS_FILE and i + 1 < len(argv):
            try:
                with open(argv[i + 1], "rb") as f:
                    data = f.read()
            except OSError as e:
                sys.stderr.write("memsuite-analyse: %s %s: %s\n" % (ARGS_FILE, argv[i + 1], e.strerror))
                return None
            out.extend(os.fsdecode(a) for a in data.split(b"\0")[:-1])
            i += 2
        else:
            out.append(argv[i])
            i += 1
    return out


def main(argv=None):
    for stream in (sys.stdout, sys.stderr):
        if hasattr(stream, "reconfigure"):     # not a StringIO of a test
            stream.reconfigure(encoding="utf-8", errors="memsuite-out")
    argv = sys.argv[1:] if argv is None else list(argv)
    argv = _args_files(argv)
    if argv is None:
        return exitcodes.RESOURCE
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
