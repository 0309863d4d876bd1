"""memsuite check's diagnosis: the memory as built now (memsuite-facts
--only build: its "memory_build" object) against the reference's "memory"
block (written by --record), and the EDAC counters before and after the
check.  Each finding is a Diagnosis: kind, subject, reference, found,
severity ("fail" or "note") and its text line.

  memory population  a slot populated in the reference and empty now (or
                     the reverse), a size, type, configured speed or rank
                     that differs, a socket with another number of
                     populated channels: FAIL, naming the locator
  node memory        a NUMA node whose MemTotal differs from the
                     reference's by more than NODE_TOLERANCE_PCT: FAIL
  EDAC uncorrected   any uncorrected error: FAIL
  EDAC corrected     corrected errors that grew during the check, or more
                     than --max-ce (MAX_CE_DEFAULT): FAIL, naming the
                     controller and the DIMM label
A fact that cannot be had (not root, no EDAC driver, a VM, a reference
recorded before the block existed) is a note saying why, never a FAIL.
"""

NODE_TOLERANCE_PCT = 2.0    # MemTotal moves a little between boots (kernel reservations)
MAX_CE_DEFAULT = 100        # corrected errors since the driver loaded before a FAIL
POPULATION = "memory population"
NODE = "node memory"
UE = "EDAC uncorrected errors"
CE = "EDAC corrected errors"


def _obj(x):
    return x if isinstance(x, dict) else {}


def _list(x):
    return x if isinstance(x, list) else None


def _int(x):
    return x if isinstance(x, int) and not isinstance(x, bool) else None


def build_block(facts):
    """The reference's "memory" block from a memsuite-facts document (its
    memory_build object); {"unavailable": why} when there is none."""
    b = _obj(facts).get("memory_build")
    if not isinstance(b, dict):
        return {"unavailable": "memsuite-facts gave no memory_build (helper missing or too old)"}
    keys = ("slots", "channels_per_socket", "peak_mbps", "peak_note", "nodes", "edac")
    out = {}
    for k in keys:
        out[k] = b.get(k)
        if b.get(k + "_unavailable"):
            out[k + "_unavailable"] = b[k + "_unavailable"]
    return out


def record_block(path):
    """The "memory" block --record writes, from the memsuite-facts --only
    build document at path."""
    import json
    try:
        with open(path, encoding="utf-8", errors="surrogateescape") as f:
            return build_block(json.load(f))
    except (OSError, ValueError) as e:
        return {"unavailable": "the memory as built could not be read (%s)" % e}


def diag(kind, subject, reference, found, severity, text):
    return {"kind": kind, "subject": subject, "reference": reference, "found": found,
            "severity": severity, "text": text}


def _why(block, key, default):
    return _obj(block).get(key + "_unavailable") or _obj(block).get("unavailable") or default


def _slot_text(s):
    if not s.get("populated"):
        return "empty"
    parts = []
    if _int(s.get("size_mb")):
        mb = s["size_mb"]
        parts.append("%d GB" % (mb // 1024) if mb % 1024 == 0 else "%d MB" % mb)
    if s.get("type"):
        parts.append(str(s["type"]))
    if _int(s.get("configured_mts")):
        parts.append("%d MT/s" % s["configured_mts"])
    if _int(s.get("rank")):
        parts.append("rank %d" % s["rank"])
    return " ".join(parts) or "populated"


SLOT_FIELDS = ("populated", "size_mb", "type", "configured_mts", "rank")


def population(ref, now):
    """Slots and channels per socket: the Diagnosis list."""
    rslots, nslots = _list(_obj(ref).get("slots")), _list(_obj(now).get("slots"))
    if rslots is None:
        return [diag(POPULATION, "slots", None, None, "note",
                     "memory population not recorded in the reference (%s); bandwidth alone is checked"
                     % _why(ref, "slots", "recorded before memsuite kept it"))]
    if nslots is None:
        return [diag(POPULATION, "slots", len(rslots), None, "note",
                     "memory population unavailable on this node: %s" % _why(now, "slots", "no DIMM data"))]
    out = []
    have = {s.get("locator"): s for s in nslots if isinstance(s, dict)}
    if len(rslots) != len(nslots):
        out.append(diag(POPULATION, "slots", len(rslots), len(nslots), "note",
                        "the reference lists %d slots, this node %d" % (len(rslots), len(nslots))))
    for r in rslots:
        if not isinstance(r, dict):
            continue
        loc = str(r.get("locator"))
        n = have.get(r.get("locator"))
        if n is None:
            if r.get("populated"):
                out.append(diag(POPULATION, loc, _slot_text(r), "not listed", "fail",
                                "memory population: %s: reference %s, not listed on this node"
                                % (loc, _slot_text(r))))
            continue
        if any(r.get(k) != n.get(k) for k in SLOT_FIELDS if r.get("populated") or k == "populated"):
            out.append(diag(POPULATION, loc, _slot_text(r), _slot_text(n), "fail",
                            "memory population: %s: reference %s, found %s" % (loc, _slot_text(r), _slot_text(n))))
    rch = _list(_obj(ref).get("channels_per_socket")) or []
    nch = {c.get("socket"): c.get("channels") for c in _list(_obj(now).get("channels_per_socket")) or []
           if isinstance(c, dict)}
    for c in rch:
        if not isinstance(c, dict):
            continue
        sock, want, got = c.get("socket"), c.get("channels"), nch.get(c.get("socket"))
        if got != want:
            subj = "socket %s" % ("?" if sock is None else sock)
            out.append(diag(POPULATION, subj, want, got, "fail",
                            "memory population: %s: reference %s populated channel(s), found %s"
                            % (subj, want, "none" if got is None else got)))
    return out


def node_memory(ref, now):
    rnodes, nnodes = _list(_obj(ref).get("nodes")), _list(_obj(now).get("nodes"))
    if rnodes is None or nnodes is None:
        return []
    have = {n.get("node"): _int(n.get("mem_total_bytes")) for n in nnodes if isinstance(n, dict)}
    out = []
    for r in rnodes:
        if not isinstance(r, dict) or not _int(r.get("mem_total_bytes")):
            continue
        node, want = r.get("node"), r["mem_total_bytes"]
        got = have.get(node)
        subj = "node %s" % node
        if got is None:
            out.append(diag(NODE, subj, want, None, "note" if node in have else "fail",
                            "node memory: %s: reference %s, %s" % (
                                subj, _gib(want), "MemTotal unavailable" if node in have else "no such node")))
        elif abs(got - want) * 100.0 > NODE_TOLERANCE_PCT * want:
            out.append(diag(NODE, subj, want, got, "fail", "node memory: %s: reference %s, found %s (%+.1f%%, "
                            "more than %g%%)" % (subj, _gib(want), _gib(got), (got - want) * 100.0 / want,
                                                 NODE_TOLERANCE_PCT)))
    return out


def _gib(b):
    return "%.1f GiB" % (b / 1073741824.0)


def _counts(block):
    """{(controller, dimm or None): (label, ce, ue)} of an EDAC list."""
    out = {}
    for mc in _list(_obj(block).get("edac")) or []:
        if not isinstance(mc, dict):
            continue
        name = str(mc.get("controller"))
        out[(name, None)] = (None, _int(mc.get("ce_count")), _int(mc.get("ue_count")))
        for d in mc.get("dimms") if isinstance(mc.get("dimms"), list) else []:
            if isinstance(d, dict):
                out[(name, str(d.get("dimm")))] = (d.get("label"), _int(d.get("ce_count")), _int(d.get("ue_count")))
    return out


def edac(ref, now, before, max_ce):
    """Per controller and DIMM: uncorrected errors, corrected errors that
    grew since `before` or exceed max_ce.  A controller's own line only
    when none of its DIMMs says the same."""
    if _list(_obj(now).get("edac")) is None:
        if _list(_obj(ref).get("edac")) is None:
            return []       # none then, none now: nothing to say
        return [diag("EDAC", "edac", None, None, "note",
                     "EDAC counts unavailable: %s" % _why(now, "edac", "no EDAC data"))]
    cur, old = _counts(now), _counts(before)
    found = []          # (controller, is_dimm, Diagnosis)
    for (mc, d), (label, ce, ue) in cur.items():
        subj = mc if d is None else "%s %s" % (mc, label or d)
        if ue:
            found.append((mc, d is not None, diag(UE, subj, 0, ue, "fail",
                                                  "EDAC: %s: %d uncorrected error(s)" % (subj, ue))))
        if ce is None:
            continue
        was = old.get((mc, d), (None, None, None))[1]
        if was is not None and ce > was:
            found.append((mc, d is not None, diag(CE, subj, was, ce, "fail",
                                                  "EDAC: %s: corrected errors grew during the check, %d -> %d"
                                                  % (subj, was, ce))))
        elif ce > max_ce:
            found.append((mc, d is not None, diag(CE, subj, max_ce, ce, "fail",
                                                  "EDAC: %s: %d corrected error(s), more than --max-ce %d"
                                                  % (subj, ce, max_ce))))
    named = {(mc, x["kind"]) for mc, is_dimm, x in found if is_dimm}
    return [x for mc, is_dimm, x in found if is_dimm or (mc, x["kind"]) not in named]


def diagnose(ref_memory, now, before, max_ce=MAX_CE_DEFAULT):
    """Every Diagnosis, failures first (their order kept)."""
    if now is None:
        if not isinstance(ref_memory, dict):
            return population({"unavailable": "recorded before memsuite kept it"}, {})
        return [diag(POPULATION, "node", None, None, "note",
                     "the memory as built was not read on this node (memsuite-facts missing)")]
    ref = ref_memory if isinstance(ref_memory, dict) else {
        "unavailable": "recorded before memsuite kept it"}
    found = population(ref, now) + node_memory(ref, now) + edac(ref, now, before, max_ce)
    return [d for d in found if d["severity"] == "fail"] + [d for d in found if d["severity"] != "fail"]


def explain(diagnoses, ref_memory, now):
    """What explains a bandwidth drop, or "": the populated peak's change
    and the first population difference."""
    pop = [d for d in diagnoses if d["kind"] == POPULATION and d["severity"] == "fail"]
    if not pop:
        return ""
    rp, np_ = _int(_obj(ref_memory).get("peak_mbps")), _int(_obj(now).get("peak_mbps"))
    peak = ""
    if rp and np_ and rp != np_:
        peak = "populated peak %+.0f%%, " % ((np_ - rp) * 100.0 / rp)
    return "consistent with the memory population (%s%s)" % (peak, pop[0]["text"].split(": ", 1)[-1])


def load_build(path):
    """The memory_build of a memsuite-facts document at path, None when the
    file holds no such object (the helper could not say)."""
    import json
    try:
        with open(path, encoding="utf-8", errors="surrogateescape") as f:
            doc = json.load(f)
    except (OSError, ValueError):
        return None
    b = _obj(doc).get("memory_build")
    return b if isinstance(b, dict) else None


def gauges(now):
    """The node's memory as it is, for monitoring (prom.memory): populated
    and total DIMM slots, channels per socket, and the EDAC counts per
    controller and DIMM; None where the node could not say."""
    if not isinstance(now, dict):
        return None
    slots = _list(now.get("slots"))
    edac = [{"controller": mc, "dimm": dimm, "label": label, "ce": ce, "ue": ue}
            for (mc, dimm), (label, ce, ue) in sorted(_counts(now).items(), key=lambda kv: (kv[0][0], kv[0][1] or ""))]
    return {"slots": None if slots is None else len(slots),
            "populated": None if slots is None else sum(1 for x in slots if isinstance(x, dict) and x.get("populated")),
            "channels": [{"socket": c.get("socket"), "channels": c.get("channels")}
                         for c in _list(now.get("channels_per_socket")) or [] if isinstance(c, dict)],
            "edac": edac if _list(now.get("edac")) is not None else None}


def apply(ev, ref, now_path, before_path, max_ce):
    """Adds the diagnosis to an Evaluation (check.py): ev.diagnosis, the
    FAIL lines before the metric lines, the notes, and the explanation of
    a bandwidth FAIL in ev.failed."""
    now = load_build(now_path) if now_path else None
    before = load_build(before_path) if before_path else None
    refmem = ref.doc.get("memory") if isinstance(ref.doc, dict) else None
    ds = diagnose(refmem, now, before, max_ce)
    ev.diagnosis = ds
    ev.memory = gauges(now)
    p = ev.prefix
    ev.lines[:0] = ["%sFAIL  %s" % (p, d["text"]) for d in ds if d["severity"] == "fail"]
    ev.notes.extend("%s%s" % (p, d["text"]) for d in ds if d["severity"] != "fail")
    why = explain(ds, refmem, now)
    if why and ev.fails:
        ev.failed += " (%s)" % why
