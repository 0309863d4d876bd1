"""memsuite-analyse peers json|text: the peer report (memsuite peers)
from the figures the orchestration collected, and its text table.

  peers json --rows F --data F --bad F --notrun F
             --probe RESULT --facts FACTS --rounds N --threads N --bytes N --date D
      rows    one "id|group|ours|peer|unit|better|target" line per row
      data    one "round<TAB>row<TAB>side<TAB>value<TAB>detail" line per
              figure (side ours or peer; value a positive number)
      bad     one "row<TAB>why" line per figure that could not be used
      notrun  one "group|why" line per peer that did not run
      probe   a small mencal result (its sysinfo and llc name the machine)
      facts   memsuite-facts --json --only host (microcode, CPU flags)
    prints the memsuite/peers/1 document: per row the medians over the
    rounds of each side, and the ratio ours / peer as the median over the
    rounds of the ratio measured within one round (pairing cancels the
    drift of a shared machine), with every round's pair kept.  A row whose
    median is known less precisely than its target's tolerance is marked
    unsettled.  The rows control_bandwidth and control_latency are A/A
    controls: the same run of ours twice in a row.
  peers text < DOC
    prints the table (the same columns as ever)."""

import json
import math
import sys

from . import exitcodes
from .model import loads
from .stats import median

SUMMARY = "the peer report's document and table (memsuite peers)"
SCHEMA = "memsuite/peers/1"


def add_arguments(p):
    p.add_argument("what", choices=("json", "text"))
    for name in ("--rows", "--data", "--bad", "--notrun"):
        p.add_argument(name, default=None, metavar="FILE")
    p.add_argument("--probe", default=None, metavar="RESULT")
    p.add_argument("--facts", default=None, metavar="FACTS")
    p.add_argument("--rounds", type=int, default=0)
    p.add_argument("--threads", type=int, default=0)
    p.add_argument("--bytes", type=int, default=0)
    p.add_argument("--date", default="")


def _lines(path):
    if not path:
        return []
    with open(path, encoding="utf-8", errors="surrogateescape") as f:
        return [line for line in f.read().split("\n") if line]


def _median(values):
    return median(sorted(values)) if values else None


def _doc(path):
    """The JSON object in path; {} when there is none (a probe that could
    not run leaves the machine's members null, named)."""
    if not path:
        return {}
    try:
        with open(path, "rb") as f:
            doc = loads(f.read())
    except (OSError, ValueError, RecursionError):
        return {}
    return doc if isinstance(doc, dict) else {}


def _fact(facts, key):
    """The value of an "ok" fact of a memsuite/facts/1 document, or None."""
    for f in facts.get("facts") or []:
        if isinstance(f, dict) and f.get("key") == key and f.get("verdict") == "ok":
            return f.get("value")
    return None


def machine(probe, facts):
    """The table's head: CPU model, microcode, flags, LLC and memory, from
    a probe result and the host facts (the C collector's)."""
    sysinfo = probe.get("sysinfo") if isinstance(probe.get("sysinfo"), dict) else {}
    llc = probe.get("llc") if isinstance(probe.get("llc"), dict) else {}
    mc = _fact(facts, "microcode")
    flags = _fact(facts, "cpu_flags")
    return {"cpu_model": sysinfo.get("cpu_model"), "microcode": mc or None,
            "microcode_unavailable": None if mc else "no microcode line in cpuinfo (a VM may hide it)",
            "flags": [x for x in str(flags or "").split(" ") if x],
            "llc_bytes": llc.get("total_bytes"), "llc_source": llc.get("source"),
            "mem_total_bytes": sysinfo.get("mem_total_bytes"), "virtualization": sysinfo.get("virtualization")}


def _peer_variant(figs, better):
    """The peer's figures by round: (variant, {variant: median}, {round:
    value}).  Where the peer ran several variants in a round (likwid-bench's
    load, load_avx512, sum_avx, ...; the detail names each), the variant of
    the best median over the rounds, higher or lower as the row's better
    says, and its figures alone: each round's best of several noisy figures
    against our one would favour the peer by the noise (seqread read 0.75
    of likwid that way on a VM where each variant alone paired 0.93-1.11).
    One figure a round: (None, None, those figures)."""
    by = {}
    for x in figs:
        by.setdefault(x["detail"], {})[x["round"]] = x["value"]
    rounds = {x["round"] for x in figs}
    if len(by) < 2 or len(figs) == len(rounds):
        return None, None, {x["round"]: x["value"] for x in figs}
    medians = {k: _median(list(d.values())) for k, d in sorted(by.items())}
    pick = (min if better == "lower" else max)(medians, key=lambda k: (medians[k], k))
    return pick, medians, by[pick]


CONTROLS = {"bandwidth": "control_bandwidth", "latency": "control_latency"}
MIN_ROUNDS_TO_SETTLE = 3


def _tolerance(target):
    """How far from parity a ratio may move before it leaves the target:
    half the band of "lo-hi", the distance of the one bound from 1 for
    "lo-" or "-hi" (0.03 for "0.97-", 0.02 for "1.02-")."""
    lo, hi = (target.split("-") + [""])[:2]
    if lo and hi:
        return (float(hi) - float(lo)) / 2
    return abs(1 - float(lo or hi)) or None


def _median_uncertainty(ratios):
    """Two standard errors of the median of the per-round ratios (about a
    95% interval for it): 2 x 1.2533 x s / sqrt(n), s their sample
    standard deviation; None under MIN_ROUNDS_TO_SETTLE rounds."""
    n = len(ratios)
    if n < MIN_ROUNDS_TO_SETTLE:
        return None
    mean = sum(ratios) / n
    s = math.sqrt(sum((x - mean) ** 2 for x in ratios) / (n - 1))
    return 2 * 1.2533 * s / math.sqrt(n)


def _settle(out):
    """Whether each row with a target is settled: its median known more
    precisely (two standard errors, from its own per-round ratios) than
    the target's tolerance.  An unsettled row can meet or miss its target
    by luck; more rounds settle it.  The A/A control of the row's kind
    (latency for ns rows, bandwidth for the others) rides along: its range
    says whether the noise is the machine's (the same run twice moves as
    much) or one of the tools'."""
    by_id = {r["id"]: r for r in out}
    for r in out:
        r["control"], r["control_range"], r["median_uncertainty"], r["settled"] = None, None, None, None
        if r["id"] in CONTROLS.values() or r["ratio"] is None:
            continue
        c = by_id.get(CONTROLS["latency" if r["unit"] == "ns" else "bandwidth"])
        if c and c.get("ratio_range"):
            r["control"], r["control_range"] = c["id"], c["ratio_range"]
        r["median_uncertainty"] = _median_uncertainty([p["ours"] / p["peer"] for p in r["per_round"]])
        tol = _tolerance(r["target"]) if r["target"] else None
        if tol is not None and r["median_uncertainty"] is not None:
            r["settled"] = r["median_uncertainty"] <= tol


def build(rows, data, bad, notrun, machine, rounds, threads, size_bytes, date):
    """The peers document from the parsed inputs (lists of split lines)."""
    figs = [{"round": int(d[0]), "row": d[1], "side": d[2], "value": float(d[3]),
             "detail": d[4] if len(d) > 4 else ""} for d in data]
    out = []
    for r in rows:
        rid = r[0]
        v = [x for x in figs if x["row"] == rid]
        why_bad = sorted({b[1] for b in bad if b[0] == rid})
        if not v and not why_bad:
            continue
        ours = {x["round"]: x["value"] for x in v if x["side"] == "ours"}
        pick, medians, peer = _peer_variant([x for x in v if x["side"] == "peer"], r[5])
        paired = sorted(k for k in ours if k in peer)
        ratios = [ours[k] / peer[k] for k in paired]
        out.append({
            "id": rid, "group": r[1], "ours": r[2], "peer": r[3], "unit": r[4], "better": r[5],
            "target": None if r[6] == "-" else r[6],
            "ours_median": _median(list(ours.values())), "peer_median": _median(list(peer.values())),
            "ratio": _median(ratios), "rounds_paired": len(ratios),
            "ratio_range": [min(ratios), max(ratios)] if ratios else None,
            "rounds_in_target": sum(_in_target(x, r[6]) for x in ratios) if r[6] != "-" else None,
            "peer_variants": sorted({x["detail"] for x in v if x["side"] == "peer" and x["detail"]}),
            "peer_variant": pick, "peer_variant_medians": medians,
            # an A/A control runs its A ("ours") first in every round
            "per_round": [{"round": k, "first": "ours" if k % 2 == 1 or rid in CONTROLS.values() else "peer",
                           "ours": ours[k], "peer": peer[k],
                           "ours_detail": next((x["detail"] for x in v
                                                if x["side"] == "ours" and x["round"] == k), "")}
                          for k in paired],
            "unavailable": None if ratios else ("; ".join(why_bad) or "no round with both figures"),
        })
    _settle(out)
    return {"schema": SCHEMA, "date": date, "machine": machine, "rounds": rounds, "threads": threads,
            "size_bytes": size_bytes, "rows": out,
            "not_run": [{"group": n[0], "why": n[1] if len(n) > 1 else ""} for n in notrun]}


def _jq_number(x):
    """A number as jq's tostring shows it (20, 1.1)."""
    return str(int(x)) if x == int(x) and abs(x) < 1e17 else repr(x)


def _round(x, scale):
    """x rounded to 1/scale, halves away from zero (C's round(), as jq)."""
    return math.copysign(math.floor(abs(x) * scale + 0.5), x) / scale


def _fig(x):
    if x is None:
        return "-"
    return _jq_number(_round(x, 10)) if x >= 100 else _jq_number(_round(x, 1000))


def _in_target(ratio, target):
    """Whether ratio lies in target ("0.97-1.03", "0.97-" or "-1.03")."""
    lo, hi = (target.split("-") + [""])[:2]
    return (lo == "" or ratio >= float(lo)) and (hi == "" or ratio <= float(hi))


def _verdict(row):
    """ok or OFF by the median ratio; where the rounds disagree, how many
    were in the target ("OFF, 2/5 rounds in"), so noise is not read as a
    defect, nor a lucky median as a pass.  An unsettled row says so with
    its uncertainty and its A/A control's range instead; a control says
    what it is."""
    if row["ratio"] is None or row["target"] is None:
        return "A/A control" if row["id"] in CONTROLS.values() and row["ratio"] is not None else "-"
    if row.get("settled") is False:
        # three significant digits: a 3.04% that printed as "3.0%" looked inside a 3% target
        why = "unsettled: median +-%.3g%% (2 SE over %d rounds)" % (100 * row["median_uncertainty"], row["rounds_paired"])
        return why + ("; A/A control %s" % _range(row["control_range"]) if row.get("control_range") else "")
    verdict = "ok" if _in_target(row["ratio"], row["target"]) else "OFF"
    k, n = row.get("rounds_in_target"), row["rounds_paired"]
    if k is not None and 0 < k < n:
        verdict += ", %d/%d rounds in" % (k, n)
    return verdict


def _range(rr):
    """A [lowest, highest] ratio pair as "lo-hi", at the ratio's precision."""
    if not rr:
        return "-"
    return "%s-%s" % (_jq_number(_round(rr[0], 1000)), _jq_number(_round(rr[1], 1000)))


def text(doc):
    """The table's lines."""
    m = doc.get("machine") or {}
    mc = m.get("microcode") or "unavailable: %s" % m.get("microcode_unavailable")
    llc = "%s MiB (%s)" % (_jq_number(m["llc_bytes"] / 1048576), m.get("llc_source")) if m.get("llc_bytes") else "unknown"
    mem = "%s GiB" % _jq_number(_round(m["mem_total_bytes"] / 1073741824, 10)) if m.get("mem_total_bytes") else "unknown"
    out = ["memsuite peers: %s; microcode %s; flags %s; LLC %s; memory %s" % (
        m.get("cpu_model") or "CPU unknown", mc, " ".join(m.get("flags") or []), llc, mem),
        "%s; %s rounds, alternating; bandwidth rows %s threads, %s bytes" % (
            doc["date"], doc["rounds"], doc["threads"], doc["size_bytes"])]
    fmt = "%-16s %-30s %-42s %-5s %10s %10s %8s %-11s %-9s %s"
    out.append(fmt % ("comparison", "ours", "peer", "unit", "ours", "peer", "ratio", "rounds", "target", ""))
    for r in doc["rows"]:
        if r.get("peer_variant"):
            peer = "%s (%s, best median of %d)" % (r["peer"], r["peer_variant"], len(r["peer_variant_medians"]))
        else:
            peer = r["peer"] + (" (%s)" % ",".join(r["peer_variants"]) if r["peer_variants"] else "")
        ratio = "unavailable: " + r["unavailable"] if r["ratio"] is None else _jq_number(_round(r["ratio"], 1000))
        out.append(fmt % (r["id"], r["ours"], peer, r["unit"], _fig(r["ours_median"]), _fig(r["peer_median"]),
                          ratio, _range(r.get("ratio_range")), r["target"] or "-", _verdict(r)))
    out += ["not run: %s: %s" % (n["group"], n["why"]) for n in doc["not_run"]]
    out.append("ratio = median over rounds of ours / peer measured in the same round (rounds: their "
               "lowest-highest); ours, peer = medians over rounds")
    if any(r.get("settled") is False for r in doc["rows"]):
        out.append("unsettled = the median ratio is known less precisely than the target's tolerance: "
                   "luck can meet or miss the target, more --rounds can settle it"
                   + ("; A/A control = the same run of ours twice in a row, how far this machine alone "
                      "moves a pair" if any(r.get("control_range") for r in doc["rows"]) else ""))
    return out


def run(args):
    if args.what == "text":
        doc = loads(sys.stdin.buffer.read())
        print("\n".join(text(doc)))
        return exitcodes.OK
    split = lambda path, sep: [line.split(sep) for line in _lines(path)]  # noqa: E731
    doc = build(split(args.rows, "|"), split(args.data, "\t"), split(args.bad, "\t"),
                split(args.notrun, "|"), machine(_doc(args.probe), _doc(args.facts)), args.rounds, args.threads, args.bytes, args.date)
    print(json.dumps(doc, ensure_ascii=False))
    return exitcodes.OK
