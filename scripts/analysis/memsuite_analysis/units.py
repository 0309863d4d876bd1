"""Units: the one table of the units memsuite's tools write, their base
unit and scale, the better direction a quantity has by default, and the
display formatters.  Nothing else in the analyser knows a unit's name.

Contract:
  - base units are "B/s" (bandwidth), "s" (time), "B" (bytes),
    "fraction" (a ratio, 1 = 100%), "Hz" and "count"; a value v in unit u
    is v * scale(u) in base(u);
  - a result document of schema memsuite/result/2 states base_unit and
    scale on every metric; the table is used for memsuite/result/1
    documents and for units a v2 document does not state;
  - a unit the table does not know is its own base, scale 1, no direction.
"""

import os
import re

# The table is common/units.def, which the C tools compile in: the tree's
# copy (common/ beside scripts/), or the one installed beside this package.
_HERE = os.path.dirname(os.path.abspath(__file__))
_DEF_PLACES = (os.path.join(_HERE, "units.def"),
               os.path.join(_HERE, "..", "..", "..", "common", "units.def"))
_UNIT_LINE = re.compile(r'^MB_UNIT\("([^"]*)", "([^"]*)", ([0-9.eE+-]+)\)$')
_BETTER_LINE = re.compile(r'^MB_BASE_BETTER\("([^"]*)", (HIGHER|LOWER)\)$')


def _load_table():
    """({unit: (base, scale)}, {base: 'higher'|'lower'}) from units.def."""
    for path in _DEF_PLACES:
        try:
            with open(path, encoding="utf-8") as f:
                text = f.read()
        except OSError:
            continue
        table, better = {}, {}
        for line in text.splitlines():
            m = _UNIT_LINE.match(line.strip())
            if m:
                table[m.group(1)] = (m.group(2), float(m.group(3)))
                continue
            m = _BETTER_LINE.match(line.strip())
            if m:
                better[m.group(1)] = m.group(2).lower()
        if table:
            return table, better
    raise RuntimeError("units.def not found (looked in %s)" % ", ".join(_DEF_PLACES))


# unit: (base unit, scale to the base); base: the better direction of a
# base quantity when a document does not say.
UNITS, BETTER = _load_table()


def base(unit):
    """(base unit, scale) of unit; an unknown unit is its own base."""
    return UNITS.get(unit or "", (unit or "", 1.0))


def conflict(unit, base_unit, scale):
    """Why a unit does not go with the base unit and scale a document
    states beside it (a unit of the table has its own: "GB/s" is 1e9 B/s,
    never 1e6), or None when they agree or the unit is not in the table."""
    known = UNITS.get(unit or "")
    if known is None:
        return None
    b, s = known
    if base_unit == b and abs(scale - s) <= 1e-9 * s:
        return None
    return "unit %s is %g %s, but the document states scale %g (base_unit %s)" % (unit, s, b, scale, base_unit)


def is_rate(unit):
    return base(unit)[0] == "B/s"


def to_base(value, unit):
    """value in unit, in the base unit (None stays None)."""
    return None if value is None else value * base(unit)[1]


def convert(value, unit, to):
    """value in unit, in unit `to` of the same base; ValueError when the
    two have different bases."""
    b1, s1 = base(unit)
    b2, s2 = base(to)
    if b1 != b2:
        raise ValueError("cannot convert %s to %s" % (unit or "no unit", to or "no unit"))
    return None if value is None else value * s1 / s2


def default_better(unit):
    """'higher', 'lower' or None for a unit, by its base quantity."""
    return BETTER.get(base(unit)[0])


# Display ----------------------------------------------------------------

_BINARY = ((1 << 40, "TiB"), (1 << 30, "GiB"), (1 << 20, "MiB"), (1 << 10, "KiB"))


def human_bytes(n, fixed=False):
    """A byte count as people read sizes: 32 KiB, 1.5 MiB, 8 GiB (binary
    prefixes, at most one decimal, none when it is whole); below 1 KiB in B.
    fixed: always one decimal (32.0 MiB), as the report's tables and
    health lines have always shown sizes."""
    n = float(n)
    for size, name in _BINARY:
        if abs(n) >= size:
            v = n / size
            if fixed:
                return "%.1f %s" % (v, name)
            return ("%d %s" % (v, name)) if v == int(v) else ("%.1f %s" % (v, name))
    return "%d B" % n


def fmt_number(v, digits=4):
    """A figure with `digits` significant digits, no exponent for everyday
    magnitudes (12345.6 -> 12346, 0.01234 -> 0.01234)."""
    if v is None:
        return "-"
    if v == 0:
        return "0"
    a = abs(v)
    if a >= 10 ** digits:
        return "%.0f" % v
    decimals = max(0, digits - 1 - int(_floor_log10(a)))
    return "%.*f" % (decimals, v)


def _floor_log10(a):
    e = 0
    while a >= 10:
        a /= 10
        e += 1
    while a < 1:
        a *= 10
        e -= 1
    return e


def fmt_value(value, unit, to=None, digits=4):
    """'12.35 GB/s': value (in unit) shown in unit `to` (default: unit)."""
    if value is None:
        return "unavailable"
    shown = unit if to is None else to
    v = value if to is None else convert(value, unit, to)
    return "%s %s" % (fmt_number(v, digits), shown) if shown else fmt_number(v, digits)


# The display unit of each base quantity: one bandwidth unit throughout.
DISPLAY = {"B/s": "GB/s", "fraction": "%", "Hz": "GHz"}


def display_unit(unit):
    """The unit a report shows a quantity in: GB/s for every bandwidth
    (MB/s and MiB/s are kept only where a tool's compatible output needs
    them), times and others in their own unit."""
    b = base(unit)[0]
    return DISPLAY.get(b, unit)
