"""memsuite-analyse run-block FILE: how a result was run, as the "run"
object of a reference or a check verdict ({bench, size_bytes, threads,
reps}, reference.run_block: members that cannot be told are left out),
on one line; {} when FILE is no readable result.  Always exits 0 once
the line is printed (check --result and --record --result use it after
result-state has judged the file)."""

import json

from . import exitcodes, reference, results

SUMMARY = "how a result was run: its reference run block, one JSON line"


def add_arguments(p):
    p.add_argument("file", metavar="FILE")


def run(args):
    res = results.read_result(args.file)
    block = reference.run_block(res) if isinstance(res.doc, dict) else {}
    print(json.dumps(block, ensure_ascii=False, separators=(",", ":")))
    return exitcodes.OK
