"""draw: a plots.Figure as a PNG, with matplotlib (Debian: python3-matplotlib)
on the Agg backend (no display).  Draws, never computes: every number,
label and axis choice comes from plots.py.

Importing this module raises ImportError when matplotlib is missing; the
callers (plots.draw_run, the plot command) turn that into
plots.UNAVAILABLE.

write_png(fig, path): path "-" is stdout (mencal --plot hands the image to
its own output file handling); otherwise a temporary in path's directory
renamed into place (outfile.py), so a failed write leaves nothing
partial.  OSError when it cannot be written (a full disk included: the
write is checked with fsync, never assumed).
"""

import io
import math

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.ticker import FixedLocator, FuncFormatter, LogLocator, NullLocator  # noqa: E402

from . import outfile, plots  # noqa: E402
from .render import printable  # noqa: E402


def _t(text):
    """A label as it is drawn: text from documents (record names, node
    names, tools) in caret notation, as on a terminal (render.printable),
    and what cannot be encoded (a lone surrogate) as "?": matplotlib has no
    glyph for a control character and warned "Glyph 27 (\\x1b) missing"
    with the raw byte, straight to the terminal."""
    text = "" if text is None else str(text)
    return printable(text.encode("utf-8", "replace").decode("utf-8"))

WIDTH_IN = 11.0
PANEL_H_IN = 4.6
DPI = 100


def render(fig):
    """The PNG bytes of fig."""
    n = max(1, len(fig.panels))
    ncols = max(1, min(fig.ncols, n))
    nrows = (n + ncols - 1) // ncols
    caption_lines = max(1, len(fig.caption) // 150 + 1) if fig.caption else 0
    h = PANEL_H_IN * nrows + 0.9 + 0.22 * caption_lines
    f, axes = plt.subplots(nrows, ncols, figsize=(WIDTH_IN, h), dpi=DPI, squeeze=False)
    try:
        for i, ax in enumerate(ax for row in axes for ax in row):
            if i >= n or not fig.panels:
                ax.set_visible(False)
                continue
            p = fig.panels[i]
            if isinstance(p, plots.Heatmap):
                _heatmap(f, ax, p)
            else:
                _panel(ax, p)
        f.suptitle(_t(fig.title), fontsize=12)
        bottom = 0.0
        if fig.caption:
            import textwrap
            text = "\n".join(textwrap.wrap(_t(fig.caption), 150))
            f.text(0.01, 0.005, text, fontsize=8, va="bottom", ha="left", color="#333333")
            bottom = (0.16 * (text.count("\n") + 1) + 0.15) / h
        f.tight_layout(rect=(0, bottom, 1, 1 - 0.1 / h))
        buf = io.BytesIO()
        f.savefig(buf, format="png")
        return buf.getvalue()
    finally:
        plt.close(f)


STYLES = {
    "line": dict(marker="o", markersize=4, linewidth=1.8),
    "points": dict(marker="o", markersize=5, linestyle="none", markerfacecolor="none"),
    "marker": dict(marker="D", markersize=8, linestyle="none", color="black"),
    "ring": dict(marker="o", markersize=13, linestyle="none", markerfacecolor="none",
                 markeredgecolor="black", markeredgewidth=1.0),
}


def _panel(ax, p):
    if p.logx:
        ax.set_xscale("log", base=2)
    if p.logy:
        ax.set_yscale("log")
    for s in p.series:
        if s.style == "bar":
            yerr = _yerr(s)
            ax.bar(s.x, s.y, yerr=yerr, capsize=4, color="#4c78a8")
            continue
        kw = dict(STYLES.get(s.style, STYLES["line"]))
        if s.has_bars and s.style == "line":
            ax.errorbar(s.x, s.y, yerr=_yerr(s), capsize=3, label=_t(s.label), **kw)
        else:
            ax.plot(s.x, s.y, label=_t(s.label), **kw)
    for m in p.marks:
        ax.axvline(m.x, linestyle="--", color="#666666", linewidth=1)
        ax.text(m.x, 1.01, _t(m.label), transform=ax.get_xaxis_transform(), va="bottom",
                ha="center", fontsize=8, color="#333333")
    if p.xticks:
        ax.xaxis.set_major_locator(FixedLocator([v for v, _ in p.xticks]))
        labels = {v: _t(t) for v, t in p.xticks}
        ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _pos: labels.get(v, "")))
        ax.xaxis.set_minor_locator(NullLocator())
        if all(isinstance(t, str) and not _is_num_text(t) for _, t in p.xticks):
            plt.setp(ax.get_xticklabels(), rotation=20, ha="right")
    if p.logy:
        ax.yaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
        ax.yaxis.set_minor_locator(NullLocator())
        ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _pos: plots.tick_text(v)
                                                   if v >= 1 else "%g" % v))
    elif p.ymin0:
        ax.set_ylim(bottom=0)
    ax.set_xlabel(_t(p.xlabel))
    ax.set_ylabel(_t(p.ylabel))
    if p.title:
        ax.set_title(_t(p.title), fontsize=10)
    ax.grid(True, which="major", alpha=0.35)
    if not p.series:
        ax.text(0.5, 0.5, "no values", transform=ax.transAxes, ha="center", va="center")
    elif any(s.style != "bar" for s in p.series):
        if len(p.series) > 4:     # many lines: the legend beside the axes, never over them
            ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0)
        else:
            ax.legend(fontsize=8, loc="best")


def _is_num_text(t):
    try:
        float(t)
        return True
    except ValueError:
        return False


def _yerr(s):
    lo = [y - l if l is not None else 0.0 for y, l in zip(s.y, s.lo)]
    hi = [h - y if h is not None else 0.0 for y, h in zip(s.y, s.hi)]
    return [lo, hi]


def _heatmap(f, ax, h):
    nan = float("nan")
    data = [[nan if v is None else v for v in row] for row in h.values] or [[nan]]
    finite = [v for row in h.values for v in row if v is not None]
    # the colour scale starts at zero: a colour's depth is proportional to
    # the value, so two cells 5% apart never look twice as far apart
    im = ax.imshow(data, cmap="Oranges", aspect="auto", interpolation="nearest",
                   vmin=0, vmax=max(finite) if finite else 1)
    cb = f.colorbar(im, ax=ax)
    cb.set_label(_t(h.unit))
    ax.set_xticks(range(len(h.cols)))
    ax.set_xticklabels([_t(c) for c in h.cols])
    ax.set_yticks(range(len(h.rows)))
    ax.set_yticklabels([_t(r) for r in h.rows])
    ax.set_xlabel(_t(h.xlabel))
    ax.set_ylabel(_t(h.ylabel))
    if h.title:
        ax.set_title(_t(h.title), fontsize=10)
    top = max(finite) if finite else 0
    ncell = len(h.rows) * len(h.cols)
    if ncell <= 400:
        size = 12 if ncell <= 16 else 8
        for i, row in enumerate(h.values):
            for j, v in enumerate(row):
                if v is not None and math.isfinite(v):
                    ax.text(j, i, "%.1f" % v if abs(v) < 1000 else "%.0f" % v, ha="center",
                            va="center", fontsize=size,
                            color="white" if v > 0.6 * top else "black")
    for b in h.bounds:
        ax.axvline(b - 0.5, color="black", linewidth=2)
        ax.axhline(b - 0.5, color="black", linewidth=2)


def write_png(fig, path):
    """Renders fig and writes it to path ("-": stdout) by outfile's rules;
    OSError (outfile.OutError) on failure."""
    outfile.write(path, render(fig))
