#!/usr/bin/python3
"""The hostile sweep: every case of cases.py and fresh.py run once, classified.

Usage: sweep.py [--jobs N] [--family F[,F...]] [--case ID]... [--list]
                [-v] [--timeout S] [--keep DIR]

Fixtures are built once at the start (one real tiny run directory per
shape, one result per tool, a reference, generated node reports) in a temp
directory; each case copies what it damages into its own directory and
runs one command line of the public interface (stream, mbw, mencal,
memsuite SUBCOMMAND).  cases.py's values are fixed; fresh.py's are drawn
anew on each run.  Outcome of a case, the first that applies:
  CODE-EXEC  the case's canary file exists (injected code ran)
  HANG       the command ran past its limit (--timeout, default 30 s, or
             the case's own), or ended leaving a process on its stdout
             (a caller reading to EOF would wait); the limit is a hang
             guard only
  OVERWRITE  an input the case names changed its content (output over an input)
  CRASH      death by a signal, an exit status outside 0 1 2 3 4 5 130 143,
             or a report of one (sanitizer, Traceback, a raw jq or bash error)
  INTERNAL   exit 3 with "internal error" (an analyser exception)
  WRONG      an oracle of the case failed, by kind: wrong-exit (its exit
             status), message (a value not named or uncut, a raw control
             character, a forged line), wrong (what it wrote or judged)
  OK
One line per case that is not OK, a table of counts per family and class,
then "N cases: N ok, N crash, N hang, N code-exec, N wrong (...), N internal
error, N output over an input".  Exit 0 when no case is CRASH, HANG,
CODE-EXEC, INTERNAL or OVERWRITE (WRONG cases are listed and counted), 1
otherwise, 2 usage, 3 the fixtures could not be built.
"""

import argparse
import concurrent.futures
import glob
import json
import os
import re
import select
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import cases as casedef  # noqa: E402
import fresh  # noqa: E402

DOCUMENTED = {0, 1, 2, 3, 4, 5, 130, 143}
CRASH_TEXT = [
    (re.compile(r"AddressSanitizer|LeakSanitizer|UndefinedBehaviorSanitizer|runtime error: "), "sanitizer report"),
    (re.compile(r"internal error", re.I), "internal error"),
    (re.compile(r"Traceback \(most recent call last\)"), "Python traceback"),
    (re.compile(r"Segmentation fault|core dumped|Aborted|stack smashing"), "crash message"),
    (re.compile(r"\bjq: error\b"), "raw jq error"),
    (re.compile(r"(\.sh|memsuite|bash): line \d+: "), "raw bash error"),
    (re.compile(r"unbound variable|integer expression expected|syntax error|bad substitution"
                r"|command not found|ambiguous redirect|division by 0"), "raw shell error"),
    (re.compile(r"gnuplot.*(line \d+:|undefined variable|invalid command)", re.I), "gnuplot error"),
]
RAW_CTL = re.compile(rb"[\x00-\x08\x0b-\x1f\x7f]")
MAX_READ = 4 << 20


# ---- fixtures ----------------------------------------------------------------

def sh(cmd, env, cwd):
    r = subprocess.run(cmd, env=env, cwd=cwd, stdin=subprocess.DEVNULL,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=300)
    if r.returncode != 0:
        raise RuntimeError("%s: exit %d\n%s" % (" ".join(cmd), r.returncode, r.stdout.decode(errors="replace")))


def build_fixtures(fx, env):
    """The shared, read-only inputs of every case, built in parallel."""
    ms = os.path.join(REPO, "scripts", "memsuite")
    b = os.path.join(REPO, "bin")
    e = dict(env, MEMSUITE_LLC="256K")
    run = [ms, "run", "--sizes", "1x", "--threads", "1", "--reps", "2", "--cooldown", "0"]
    jobs = [
        [run + ["--bench", "stream,mbw", "--out", fx + "/run2"]],
        [run + ["--bench", "stream", "--out", fx + "/run-stream"]],
        [run + ["--bench", "mbw", "--out", fx + "/run-mbw"]],
        [[ms, "run", "--bench", "mencal:seqread", "--sizes", "1x", "--threads", "1", "--reps", "1",
          "--cooldown", "0", "--out", fx + "/run-sweep"],
         [b + "/mencal", "run", "sweep", "--size", "1M", "--threads", "1", "--kernels", "read", "--reps", "1",
          "-q", "--format", "json", "-O", fx + "/sweep.json"]],
        [[b + "/mencal", "run", "randread", "--size", "1M", "--threads", "1", "--reps", "1", "-q",
          "--format", "json", "-O", fx + "/randread.json"]],
        [[os.path.join(REPO, "scripts", "bench-aggregate.sh"), "--generate", fx + "/nodes",
          "--ref-out", fx + "/nodes.ref", "--nodes", "4"]],
    ]
    def chain(cmds, i):
        ee = dict(e, MEMSUITE_LOCK="%s/lock%d" % (fx, i), MEMSUITE_STATE_DIR="%s/state%d" % (fx, i))
        for c in cmds:
            sh(c, ee, fx)
    with concurrent.futures.ThreadPoolExecutor(len(jobs)) as ex:
        for f in [ex.submit(chain, c, i) for i, c in enumerate(jobs)]:
            f.result()
    # the sweep result at the seqread cell's path, claiming the planned
    # scenario (the plan check passes; what is inside is then read)
    sweep = json.load(open(fx + "/sweep.json"))
    sweep.setdefault("config", {})["scenarios"] = ["seqread"]
    for cell in glob.glob(fx + "/run-sweep/cells/*.json"):
        json.dump(sweep, open(cell, "w"))
    fixt = os.path.join(REPO, "tests", "fixtures", "memsuite-check")
    shutil.copy(fixt + "/ref-stream.json", fx + "/ref.json")
    shutil.copy(fixt + "/result-node.json", fx + "/result.json")


# ---- preparation steps ---------------------------------------------------------

def _walk(doc, path, create=True):
    """The container holding PATH's last part (dot-separated; numbers index lists)."""
    parts = path.split(".")
    cur = doc
    for p in parts[:-1]:
        if isinstance(cur, list):
            cur = cur[int(p)]
        else:
            if p not in cur and create:
                cur[p] = {}
            cur = cur[p]
    last = parts[-1]
    return cur, (int(last) if isinstance(cur, list) else last)


def _load(f):
    with open(f) as fh:
        return json.load(fh)


def _dump(f, doc, raw=None):
    text = json.dumps(doc, separators=(",", ":"))
    if raw is not None:
        text = text.replace('"__HOSTILE_RAW__"', raw)
    with open(f, "w") as fh:
        fh.write(text + "\n")


def p_json_edit(f, path, value, raw):
    doc = _load(f)
    cont, key = _walk(doc, path)
    cont[key] = "__HOSTILE_RAW__" if raw else value
    _dump(f, doc, value if raw else None)


def p_json_edit_glob(d, path, value):
    for f in sorted(glob.glob(d + "/*.json")):
        p_json_edit(f, path, value, False)


def p_json_del(f, path):
    doc = _load(f)
    cont, key = _walk(doc, path, create=False)
    del cont[key]
    _dump(f, doc)


def p_json_each(f, listkey, key, value, mode):
    doc = _load(f)
    for m in doc[listkey]:
        if mode == "del":
            m.pop(key, None)
        elif mode == "mul":
            m[key] = m[key] * value
        else:
            m[key] = value
    _dump(f, doc)


def p_json_many(f, n):
    doc = _load(f)
    m0 = doc["metrics"][0]
    doc["metrics"] = [dict(m0, record="R%d" % i) for i in range(n)]
    _dump(f, doc)


def p_write(f, text):
    with open(f, "w") as fh:
        fh.write(text)


def p_write_bytes(f, hexs):
    with open(f, "wb") as fh:
        fh.write(bytes.fromhex(hexs))


def p_append(f, text):
    with open(f, "a") as fh:
        fh.write(text)


def p_sub(f, old, new):
    with open(f) as fh:
        s = fh.read()
    p_write(f, s.replace(old, new))


def p_truncate(f, n):
    with open(f, "rb") as fh:
        data = fh.read(n)
    with open(f, "wb") as fh:
        fh.write(data)


def p_double(f):
    with open(f) as fh:
        s = fh.read()
    p_write(f, s + "\n" + s)


def p_rm_f(f):
    if os.path.lexists(f):
        os.unlink(f)


def p_sparse(f, n):
    with open(f, "wb") as fh:
        fh.truncate(n)


def p_json_edit_one(d, path, value):
    """The edit in one node report of d, the first in name order."""
    f = sorted(glob.glob(d + "/*.json"))[0]
    p_json_edit(f, path, value, False)


def p_copy_glob(src, d):
    for f in glob.glob(d + "/*.json"):
        shutil.copy(src, f)


PREP = {
    "copytree": lambda s, d: shutil.copytree(s, d, symlinks=True),
    "copy": shutil.copy, "copy_glob": p_copy_glob,
    "json_edit": p_json_edit, "json_edit_glob": p_json_edit_glob, "json_del": p_json_del,
    "json_each": p_json_each, "json_many": p_json_many,
    "write": p_write, "write_bytes": p_write_bytes, "append": p_append, "sub": p_sub,
    "truncate": p_truncate, "double": p_double,
    "rm_f": p_rm_f, "sparse": p_sparse, "json_edit_one": p_json_edit_one,
    "rm": os.unlink, "rmtree": shutil.rmtree, "mkfifo": os.mkfifo, "mkdir": os.mkdir,
    "symlink": os.symlink, "chmod": os.chmod, "rename": os.rename,
}


def subst(x, tok):
    if isinstance(x, str):
        for k, v in tok.items():
            x = x.replace(k, v)
        return x
    if isinstance(x, list):
        return [subst(i, tok) for i in x]
    if isinstance(x, dict):
        return {subst(k, tok): subst(v, tok) for k, v in x.items()}
    return x


# ---- oracles -----------------------------------------------------------------

def _node_status(out, node):
    try:
        doc = json.loads(out)
    except ValueError:
        return "(stdout is not JSON)"
    for n in doc.get("nodes", []):
        if n.get("node") == node:
            return n.get("status")
    return "(node not listed)"


def caret(text):
    """text with C0 and DEL in caret notation, as the messages show them."""
    return "".join("^" + (chr(ord(c) + 64) if c != "\x7f" else "?") if c < " " or c == "\x7f" else c
                   for c in text)


# The kind of a WRONG outcome, by the check that failed: its exit status,
# a message (a value not named, not cut, a raw control character, a forged
# line), or what it wrote or judged.
WRONG_KIND = {"exit_in": "wrong-exit", "named": "message", "named_shown": "message", "fails_or_named": "message",
              "no_line_re": "message", "html_clean": "message"}


def check(chk, rc, out, w):
    """None when CHK holds, else why not."""
    kind, args = chk[0], chk[1:]
    text = out.decode("utf-8", "replace")
    if kind == "exit_in":
        return None if rc in args[0] else "exit %s, expected %s" % (rc, "/".join(map(str, args[0])))
    if kind in ("named", "fails_or_named"):      # in the output, or in an HTML report the case wrote
        for f in glob.glob(w + "/*.html"):
            text += open(f, encoding="utf-8", errors="replace").read()
    if kind == "named":
        return None if args[0] in text else "the output does not name %r" % args[0]
    if kind == "named_shown":      # named as a message shows it: caret notation, cut
        shown = caret(args[0])[:20]
        return None if shown in text else "the output does not name the value %r" % shown
    if kind == "fails_or_named":
        return None if rc != 0 or args[0] in text else "exit 0 and %r not named" % args[0]
    if kind == "no_file":
        return "%s was written" % args[0] if os.path.lexists(args[0]) else None
    if kind == "no_temp":
        left = [f for f in glob.glob(args[0] + "/**/*.tmp.*", recursive=True)]
        return "temporary file(s) left: %s" % left if left else None
    if kind == "html_clean":
        if not os.path.isfile(args[0]):
            return None
        html = open(args[0], "rb").read()
        bad = [t for t in (b"<script>alert", b"onerror=alert") if t in html]
        return "raw HTML from the input in %s: %s" % (args[0], bad) if bad else None
    if kind == "no_line_re":
        r = re.compile(args[0])
        hit = [ln for ln in text.splitlines() if r.search(ln)]
        return "forged line in the output: %r" % hit[0] if hit else None
    if kind == "json_status":
        st = _node_status(out.split(b"\n\x00ERR\x00\n")[0], args[0])
        return None if st == args[1] else "node %s is %s, expected %s" % (args[0], st, args[1])
    if kind == "json_field":
        try:
            v = _load(args[0]).get(args[1])
        except (OSError, ValueError) as e:
            return "%s: %s" % (args[0], e)
        return None if v == args[2] else "%s: %s is %r, expected %r" % (args[0], args[1], v, args[2])
    return "unknown check %r" % kind


def fingerprint(path):
    """What an input is before the command: its content (None: no file)."""
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError:
        return None


def classify(case, rc, out, err, canary, w, before=None, eof_hang=False):
    """(outcome, reason); a WRONG outcome's kind is in the reason's
    "[kind]" prefix (wrong_kind reads it)."""
    for c in (canary, os.path.join(w, "hostile-canary")):
        if os.path.lexists(c):
            return "CODE-EXEC", "the canary %s exists" % c
    if rc is None:
        return "HANG", "still running after the timeout"
    if eof_hang:
        return "HANG", "the command ended but a process it left still holds its stdout (no EOF)"
    for path, was in (before or {}).items():
        if was is not None and fingerprint(path) != was:
            return "OVERWRITE", "the input %s was changed" % path
    both = out + b"\n" + err
    text = both.decode("utf-8", "replace")
    allowed = set(DOCUMENTED)
    for c in case["expect"]:
        if c[0] == "exit_in":
            allowed |= set(c[1])
    if case.get("signal") and rc == -getattr(signal, case["signal"][0]):
        rc = 128 - rc           # death by the signal the case sent: as a shell reports it
    if rc < 0:
        return "CRASH", "killed by signal %d" % -rc
    if rc not in allowed:
        return "CRASH", "exit status %d is not documented" % rc
    m = re.search(r"internal error[^\n]*", text)
    if rc == 3 and m and "Traceback (most recent call last)" not in text:
        return "INTERNAL", "exit 3 from an analyser exception: %s" % m.group(0)[:200]
    for r, what in CRASH_TEXT:
        m = r.search(text)
        if m:
            line = text[max(0, text.rfind("\n", 0, m.start()) + 1):text.find("\n", m.end())][:200]
            return "CRASH", "%s: %s" % (what, line)
    for c in case["expect"]:
        src = out + b"\n\x00ERR\x00\n" + err if c[0] == "json_status" else both
        why = check(c, rc, src if c[0] == "json_status" else both, w)
        if why:
            return "WRONG", "[%s] %s" % (WRONG_KIND.get(c[0], "wrong"), why)
    if case.get("name_option") and rc != 0:
        opt = case["name_option"]
        if opt.lstrip("-") not in text:
            return "WRONG", "[message] the refusal does not name the option %s" % opt
    if case["ctl"]:
        m = RAW_CTL.search(both)
        if m:
            return "WRONG", "[message] a raw control character %r reached the output" % m.group(0)
    if case.get("max_line"):
        longest = max((len(ln) for ln in both.split(b"\n")), default=0)
        if longest > case["max_line"]:
            return "WRONG", "[message] a line of %d bytes: a huge value echoed uncut" % longest
    return "OK", ""


def wrong_kind(res):
    """The table's column of a result: its outcome, a WRONG one by kind."""
    if res["outcome"] != "WRONG":
        return res["outcome"].lower()
    m = re.match(r"\[([a-z-]+)\]", res["reason"])
    return m.group(1) if m else "wrong"


# ---- running a case ------------------------------------------------------------

def _reader(path, proc, stop):
    """Open the FIFO for reading a second after the start, drain it until the end."""
    time.sleep(1.0)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError:
        return
    try:
        while not stop.is_set():
            r, _, _ = select.select([fd], [], [], 0.1)
            if r:
                try:
                    if not os.read(fd, 65536) and proc.poll() is not None:
                        break
                except BlockingIOError:
                    pass
            elif proc.poll() is not None:
                break
    finally:
        os.close(fd)


GUARD_FACTOR = 3


def run_case(case, work, fx, base_env, timeout, keep):
    w = os.path.join(work, "cases", case["id"])
    shutil.rmtree(w, ignore_errors=True)      # a rerun with --keep
    os.makedirs(w)
    canary = os.path.join(work, "canary", case["id"])
    tok = {"{CANARY_REL}": "hostile-canary", "{M}": os.path.join(REPO, "scripts", "memsuite"), "{BIN}": os.path.join(REPO, "bin"),
           "{FX}": fx, "{W}": w, "{CANARY}": canary, "{REPO}": REPO}
    cmd = subst(case["cmd"], tok)
    env = dict(base_env, MEMSUITE_LOCK=w + "/lock", MEMSUITE_STATE_DIR=w + "/state", TMPDIR=w)
    env.update(subst(case["env"], tok))
    try:
        for step in subst(case["prep"], tok):
            PREP[step[0]](*step[1:])
    except Exception as e:  # a case that cannot be built is the sweep's bug
        return dict(case, outcome="WRONG", reason="preparation failed: %r" % e, rc=None, cmdline=cmd,
                    out=b"", err=b"", wall=0.0)
    before = {f: fingerprint(f) for f in subst(case.get("inputs", []), tok)}
    # A case's own limit is what it needs on a quiet machine; a hang runs
    # for ever, so the guard is three times that (never a HANG from a
    # busy machine).  The planted cases of --self-test keep theirs exactly.
    if "limit" in case:
        timeout = case["limit"] * (1 if case["family"] == "self" else GUARD_FACTOR)
    eof_hang = False
    t0 = time.monotonic()
    with open(w + "/.stdout", "wb") as fo, open(w + "/.stderr", "wb") as fe:
        try:
            p = subprocess.Popen(cmd, cwd=w, env=env, stdin=subprocess.DEVNULL,
                                 stdout=subprocess.PIPE if case.get("eof") else fo, stderr=fe,
                                 start_new_session=True)
        except OSError as e:    # a case the kernel will not start is the sweep's bug
            return dict(case, outcome="WRONG", reason="the command could not start: %s" % e, rc=None,
                        cmdline=cmd, out=b"", err=b"", wall=0.0)
        drained = []
        if case.get("eof"):         # a caller reading to EOF, as subprocess.run(capture_output=True)
            def drain():
                while True:
                    b = p.stdout.read1(65536) if hasattr(p.stdout, "read1") else p.stdout.read(65536)
                    if not b:
                        break
                    drained.append(b)
                drained.append(None)
            dth = threading.Thread(target=drain, daemon=True)
            dth.start()
        stop = threading.Event()
        th = None
        if case.get("reader"):
            th = threading.Thread(target=_reader, args=(subst(case["reader"], tok), p, stop), daemon=True)
            th.start()
        if case.get("signal"):
            sig, delay = case["signal"]
            time.sleep(delay)
            try:
                if case.get("signal_pid"):
                    os.kill(p.pid, getattr(signal, sig))
                else:
                    os.killpg(p.pid, getattr(signal, sig))
            except ProcessLookupError:
                pass
        try:
            rc = p.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            rc = None
        if case.get("eof"):
            dth.join(max(0.5, timeout - (time.monotonic() - t0)))
            eof_hang = rc is not None and dth.is_alive()
        try:
            os.killpg(p.pid, signal.SIGKILL)        # a child left behind, or the hung command
        except (ProcessLookupError, PermissionError):
            pass
        if rc is None:
            p.wait()
        if case.get("eof"):
            dth.join(2)
            fo.write(b"".join(b for b in drained if b))
        stop.set()
        if th:
            th.join(2)
    wall = time.monotonic() - t0
    with open(w + "/.stdout", "rb") as fo, open(w + "/.stderr", "rb") as fe:
        out, err = fo.read(MAX_READ), fe.read(MAX_READ)
    done = dict(case, expect=subst(case["expect"], tok))
    outcome, reason = classify(done, rc, out, err, canary, w, before, eof_hang)
    res = dict(case, outcome=outcome, reason=reason, rc=rc, cmdline=cmd, out=out, err=err, wall=wall, env_used=case["env"])
    if not keep:
        shutil.rmtree(w, ignore_errors=True)
    return res


def show(res):
    line = lambda b: b.decode("utf-8", "replace").encode("unicode_escape").decode("ascii").replace("\\n", "\n")
    print("  command: %s%s" % ("".join("%s=%s " % (k, shlex.quote(v)) for k, v in res["env"].items()),
                               " ".join(shlex.quote(a) for a in res["cmdline"])))
    print("  exit: %s (%.2f s)" % (res["rc"], res["wall"]))
    for name in ("out", "err"):
        text = line(res[name][:4000])
        print("  std%s:%s" % (name, "" if not text else "\n    " + text.replace("\n", "\n    ")))


def generate():
    """cases.py's fixed families, then fresh.py's, drawn anew on each run."""
    g = casedef.Gen()
    for fam in casedef.FAMILIES:
        fam(g)
    fresh.generate(g)
    return g.cases


# The table's columns: the outcome classes, a WRONG outcome by its kind.
COLUMNS = ["ok", "crash", "hang", "code-exec", "internal", "overwrite", "wrong-exit", "message", "wrong"]
# Outcomes that fail the sweep whatever else it found.
FATAL = {"CRASH", "HANG", "CODE-EXEC", "INTERNAL", "OVERWRITE"}


def table(results):
    """Counts per family and outcome class, one line per family and a total."""
    fams = []
    n = {}
    for r in results:
        if r["family"] not in n:
            fams.append(r["family"])
            n[r["family"]] = dict.fromkeys(COLUMNS, 0)
        n[r["family"]][wrong_kind(r)] += 1
    w = max([len(f) for f in fams] + [6])
    lines = ["%-*s %s" % (w, "family", " ".join("%10s" % c for c in COLUMNS))]
    tot = dict.fromkeys(COLUMNS, 0)
    for f in fams:
        lines.append("%-*s %s" % (w, f, " ".join("%10d" % n[f][c] for c in COLUMNS)))
        for c in COLUMNS:
            tot[c] += n[f][c]
    lines.append("%-*s %s" % (w, "total", " ".join("%10d" % tot[c] for c in COLUMNS)))
    return "\n".join(lines)


def main(argv):
    ap = argparse.ArgumentParser(prog="sweep-hostile.sh", description=__doc__.split("\n\n")[0])
    ap.add_argument("--jobs", type=int, default=2, help="cases run at once (default 2)")
    ap.add_argument("--family", action="append", default=[], help="only these families (comma-separated)")
    ap.add_argument("--case", action="append", default=[], help="only this case id (repeatable)")
    ap.add_argument("--list", action="store_true", help="list the cases (id, description) and exit")
    ap.add_argument("-v", "--verbose", action="store_true", help="show each reported case's command and output")
    ap.add_argument("--timeout", type=float, default=30.0, help="seconds before a case is a HANG (default 30)")
    ap.add_argument("--keep", metavar="DIR", help="work in DIR and keep it (fixtures and case directories)")
    ap.add_argument("--self-test", action="store_true",
                    help="run planted cases, one per outcome, and check that each is classified as it must be")
    a = ap.parse_args(argv)
    if a.jobs < 1 or a.timeout <= 0:
        ap.error("--jobs and --timeout must be positive")
    allc = casedef.self_test() if a.self_test else generate()
    fams = {f for x in a.family for f in x.split(",") if f}
    known = {c["family"] for c in allc}
    if fams - known:
        ap.error("unknown family %s; the families are: %s" % (", ".join(sorted(fams - known)), " ".join(sorted(known))))
    sel = [c for c in allc if (not fams or c["family"] in fams) and (not a.case or c["id"] in a.case)]
    ids = {c["id"] for c in allc}
    if set(a.case) - ids:
        ap.error("unknown case %s (--list shows them)" % ", ".join(sorted(set(a.case) - ids)))
    if a.list:
        for c in sel:
            print("%s\t%s" % (c["id"], c["desc"].encode("ascii", "backslashreplace").decode()))
        return 0
    if not os.access(os.path.join(REPO, "bin", "stream"), os.X_OK):
        print("sweep-hostile: %s/bin/stream is not built; run make first" % REPO, file=sys.stderr)
        return 3
    work = a.keep or tempfile.mkdtemp(prefix="memsuite-hostile.")
    os.makedirs(work + "/canary", exist_ok=True)
    os.makedirs(work + "/cases", exist_ok=True)
    fx = work + "/fx"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MEMSUITE_", "OMP_", "GOMP_", "SLURM"))}
    env.update(PATH=os.path.join(REPO, "bin") + ":" + env.get("PATH", "/usr/bin:/bin"),
               MEMSUITE_BIN=os.path.join(REPO, "bin"), MEMSUITE_BUSY_WINDOW="0.1", OMP_NUM_THREADS="2",
               LC_ALL="C.UTF-8", GLIBC_TUNABLES="")
    env.pop("GLIBC_TUNABLES")
    t0 = time.monotonic()
    if not os.path.isdir(fx) and not a.self_test:
        os.makedirs(fx)
        try:
            build_fixtures(fx, dict(env, MEMSUITE_LOCK=fx + "/lock", MEMSUITE_STATE_DIR=fx + "/state"))
        except Exception as e:
            print("sweep-hostile: cannot build the fixtures: %s" % e, file=sys.stderr)
            return 3
    tfix = time.monotonic() - t0
    counts = dict.fromkeys(["OK", "CRASH", "HANG", "CODE-EXEC", "WRONG", "INTERNAL", "OVERWRITE"], 0)
    results = []
    misjudged = []
    lock = threading.Lock()
    try:
        with concurrent.futures.ThreadPoolExecutor(a.jobs) as ex:
            futs = [ex.submit(run_case, c, work, fx, env, a.timeout, bool(a.keep)) for c in sel]
            for f in futs:          # in case order, so the report reads the same each time
                r = f.result()
                if a.self_test:
                    results.append(dict(family=r["family"], outcome=r["outcome"], reason=r["reason"]))
                    ok = r["outcome"] == r["want"]
                    print("%s %s: %s: %s%s" % ("ok" if ok else "MISJUDGED", r["id"], r["desc"], r["outcome"],
                                               "" if ok else " (must be %s; %s)" % (r["want"], r["reason"])))
                    if not ok:
                        misjudged.append(r["id"])
                    continue
                with lock:
                    counts[r["outcome"]] += 1
                    results.append(dict(family=r["family"], outcome=r["outcome"], reason=r["reason"]))
                    if r["outcome"] != "OK" or a.verbose:
                        print("%s %s: %s%s" % (r["outcome"], r["id"], r["desc"].encode("ascii", "backslashreplace").decode(),
                                               ": " + r["reason"] if r["reason"] else ""), flush=True)
                        if a.verbose:
                            show(r)
    finally:
        if not a.keep:
            shutil.rmtree(work, ignore_errors=True)
    if a.self_test:
        print(table(results))
        fatal = sorted({r["outcome"] for r in results if r["outcome"] in FATAL})
        print("self-test: %d planted cases, %d misjudged; as a sweep: exit %d (%s)" % (
            len(sel), len(misjudged), 1 if fatal else 0, ", ".join(fatal) or "nothing fatal"))
        return 1 if misjudged else 0
    if len({r["family"] for r in results}) > 1:
        print(table(results))
    kinds = {c: sum(1 for r in results if wrong_kind(r) == c) for c in ("wrong-exit", "message", "wrong")}
    print("%d cases: %d ok, %d crash, %d hang, %d code-exec, %d wrong (%d wrong exit code, %d message defect, "
          "%d other), %d internal error, %d output over an input (fixtures %.0f s, all %.0f s, --jobs %d)" % (
              len(sel), counts["OK"], counts["CRASH"], counts["HANG"], counts["CODE-EXEC"], counts["WRONG"],
              kinds["wrong-exit"], kinds["message"], kinds["wrong"], counts["INTERNAL"], counts["OVERWRITE"],
              tfix, time.monotonic() - t0, a.jobs))
    return 1 if any(counts[o] for o in FATAL) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
