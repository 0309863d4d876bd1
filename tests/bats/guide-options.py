#!/usr/bin/env python3
"""guide-options.py: the options the guides put on a tool's command line.

Usage: guide-options.py FILE...  (Markdown guides; man pages are
man-options.bats's).  Prints one line per option use, "FILE:LINE<TAB>TOOL
<TAB>--option", where TOOL is the help to ask: "stream", "mbw",
"stream_mpi", "mencal", "mencal run SCENARIO" or "memsuite CMD".  A use is
a command in a fenced code block or an inline code span whose first word
is the tool (bin/, scripts/, memsuite- prefixes allowed; after sudo, env
assignments, time, mpirun/srun and their own options); its options run to
the end of the command (a pipe, ;, &&, ||, a comment or the end of the
span).  The caller checks each against that tool's --help."""
import re
import sys

FENCE = re.compile(r"^\s*```")
SPAN = re.compile(r"`([^`]+)`")
END = re.compile(r"\s(\||;|&&|\|\||#)\s|\s#")
TOOLS = {"stream", "mbw", "mencal", "memsuite", "stream_mpi"}
LAUNCHERS = {"sudo", "time", "mpirun", "mpiexec", "srun", "numactl", "taskset", "timeout", "exec"}


def tool_of(word):
    w = word.rsplit("/", 1)[-1]
    if w.startswith("memsuite-") and w[len("memsuite-"):] in TOOLS:
        w = w[len("memsuite-"):]
    return w if w in TOOLS else None


def uses(cmd):
    """(TOOL, option) pairs of one command text."""
    m = END.search(" " + cmd + " ")
    if m:
        cmd = (" " + cmd + " ")[:m.start()]
    # a quoted word is a value (--mencal-args "--buffer malloc" passes
    # options on to another tool): not this tool's options
    words = re.sub(r'"[^"]*"|\'[^\']*\'', "VALUE", cmd).split()
    i = 0
    # skip launchers, their options and env assignments up to our tool
    while i < len(words) and not tool_of(words[i]):
        w = words[i]
        if w in LAUNCHERS or w.startswith("-") or re.match(r"^[A-Z_][A-Z0-9_]*=", w) or \
                (i > 0 and words[i - 1] in ("-np", "-n", "-N", "--ntasks-per-node", "-C", "--cpunodebind",
                                              "--membind", "-c")):
            i += 1
            continue
        return []
    if i >= len(words):
        return []
    tool = tool_of(words[i])
    rest = words[i + 1:]
    if tool == "memsuite":
        if not rest or rest[0].startswith("-") or not re.match(r"^[a-z][a-z-]*$", rest[0]):
            return []
        tool, rest = "memsuite " + rest[0], rest[1:]
    elif tool == "mencal" and len(rest) >= 2 and rest[0] == "run" and re.match(r"^[a-z0-9-]+$", rest[1]):
        tool, rest = "mencal run " + rest[1], rest[2:]
    out = []
    for w in rest:
        m = re.match(r"^(--[a-zA-Z][a-zA-Z0-9-]*)", w.strip("`'\",()[]"))
        if m:
            out.append((tool, m.group(1)))
    return out


def main(paths):
    for path in paths:
        fenced = False
        held, held_n = "", 0      # a fenced command continued with a backslash
        with open(path, encoding="utf-8") as f:
            for n, line in enumerate(f, 1):
                if FENCE.match(line):
                    fenced, held = not fenced, ""
                    continue
                if fenced:
                    if not held:
                        held_n = n
                    held += line.rstrip("\n")
                    if held.endswith("\\"):
                        held = held[:-1] + " "
                        continue
                    line, n, held = held, held_n, ""
                texts = [line] if fenced else SPAN.findall(line)
                for t in texts:
                    for tool, opt in uses(t.strip()):
                        print("%s:%d\t%s\t%s" % (path, n, tool, opt))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
