"""rica's one figure style: sizes, fonts, titles that fit, axis words with units, log axes with enough
ticks, and colours fixed per network family and per OS policy, so a network or a policy has the same
colour in every figure rica draws (rica_plot.py, plot_experiment.py, plot_faults.py,
eight_neighbour_figs.py and the scripts that call them).

Contract: import after matplotlib.use("Agg"); every function is pure apart from the figure it is
given (no global state besides matplotlib's rcParams, set once by apply()).
"""
import colorsys
import math
import os
import re
import textwrap

import matplotlib
from matplotlib import colors as mcolors
from matplotlib import ticker
import matplotlib.pyplot as plt

FIG_INCHES = (8.0, 5.0)  # x DPI = 1600 x 1000 px
DPI = 200
FONT = {"font.size": 10, "axes.titlesize": 10, "axes.labelsize": 10, "legend.fontsize": 8.5,
        "xtick.labelsize": 9, "ytick.labelsize": 9, "figure.titlesize": 11, "svg.fonttype": "path",
        "axes.spines.top": False, "axes.spines.right": False, "legend.framealpha": 0.85,
        "svg.hashsalt": "rica"}  # the SVG's ids fixed: a figure redrawn from the same data is the same file

# Colour of each network family (the spec's family name, or the papers' labels). Fixed: a family
# keeps its colour in every figure, whatever else the figure shows, and no two families share one:
# every pair is at least 23 apart in CIELAB (tests/plot_tests.sh checks it; the ten families the
# papers compare keep matplotlib's first ten colours, the others were picked greedily from
# qualitative palettes for the largest least distance, none lighter than L* = 80).
FAMILY_COLOURS = {
    "cb2": "#1f77b4", "cccb": "#d62728", "cbanyan": "#2ca02c", "ccc": "#9467bd", "mesh": "#8c564b",
    "torus": "#ff7f0e", "torus3": "#e377c2", "fattree": "#7f7f7f", "omega": "#17becf", "hypercube": "#bcbd22",
    "comega": "#000000", "dce": "#a6761d", "mdce": "#f0027f", "mesh8": "#880e4f", "torus8": "#637939",
    "mxx": "#ff9896", "debruijn": "#4a148c", "ubruijn": "#004d40", "shuffle": "#1b9e77", "msn": "#aec7e8",
    "dragonfly": "#393b79", "hyperx": "#e6ab02", "slimfly": "#fdae6b", "kary": "#7fc97f", "product": "#bf5b17",
    "hier": "#7b4173", "file": "#9c9ede",
}
LABEL_FAMILY = {"(CB)^2": "cb2", "CCCB": "cccb", "CB": "cbanyan", "CCC": "ccc", "2MD": "mesh", "2DT": "torus",
                "3DT": "torus3", "FT": "fattree", "MIN": "omega", "HC": "hypercube", "UB": "ubruijn",
                "8N": "torus8", "dB": "debruijn", "M_{x+x}": "mxx", "DCE": "dce", "MDCE": "mdce",
                "DF": "dragonfly", "HyperX": "hyperx", "SF": "slimfly"}
# Each OS policy: its marker, line style and shade within the colour family of its slice length.
POLICY_STYLE = {"drain": ("o", "-", 0.0), "flush": ("s", "--", 0.45), "drain-pe": ("^", ":", 0.25),
                "baseline": ("x", "-.", 0.6)}
# Colour families (dark, for the first policy; lighter shades for the others) per slice length.
SLICE_HUES = ["#1f4e9c", "#b8420f", "#1d7a35", "#6a3d9a", "#8c2d04", "#0b6e79", "#7a0177", "#525252"]
MARKERS = "osD^v<>ph*"
KEY_WORDS = {"link_cycles": "link time", "timing": "timing", "arbitration": "arbitration",
             "buffer_words": "buffers", "packet_words": "packets", "source_queue": "source queue",
             "cycles": "window", "routing": "routing"}


def apply():
    """Sets rica's rcParams (idempotent)."""
    plt.rcParams.update(FONT)


def figure(size=FIG_INCHES, **kw):
    """A figure and axes in rica's style."""
    apply()
    return plt.subplots(figsize=size, **kw)


def save(fig, out, name):
    """DIR/name.png (1600 px wide at the default size) and DIR/name.svg (':' and ',' of name as '_'). Titles and labels are wrapped
    to fit beforehand (title()); tight_layout keeps every label inside the canvas."""
    fig.tight_layout()
    rewrapped = False
    for ax in fig.axes:  # the axes' widths are final now: wrap their titles to them
        text = getattr(ax, "_rica_title", None)
        if text is not None:
            _set_title(ax, text)
            rewrapped = True
    if rewrapped:
        fig.tight_layout()
    name = name.replace(":", "_").replace(",", "_")  # a pattern with parameters ("mesh:wrap=0") names a plain file
    for ext in ("png", "svg"):  # no date in the SVG (see svg.hashsalt)
        fig.savefig(os.path.join(out, f"{name}.{ext}"), dpi=DPI, metadata={"Date": None} if ext == "svg" else None)
    plt.close(fig)


def wrap(text, width_inches, fontsize=10):
    """`text` broken into lines that fit `width_inches` at `fontsize` (existing newlines kept)."""
    chars = max(20, int(width_inches * 72 / (fontsize * 0.56)))
    return "\n".join(textwrap.fill(line, chars, break_long_words=True, break_on_hyphens=False)
                     for line in str(text).split("\n"))


def title(ax, text, fontsize=None):
    """The axes' title, wrapped to the axes' width (again by save(), once the layout is final):
    never cut at any topology-name length."""
    ax._rica_title = text
    _set_title(ax, text, fontsize)


def _set_title(ax, text, fontsize=None):
    fs = fontsize or plt.rcParams["axes.titlesize"]
    fs = fs if isinstance(fs, (int, float)) else 10
    width = ax.get_position().width * ax.figure.get_figwidth()
    ax.set_title(wrap(text, width, fs), fontsize=fs)


def suptitle(fig, text, fontsize=11):
    fig.suptitle(wrap(text, fig.get_figwidth() * 0.95, fontsize), fontsize=fontsize)


def legend_label(text, limit=48):
    """A legend entry: long specs wrapped, never cut."""
    return wrap(text, limit * 0.56 * 8.5 / 72, 8.5) if len(text) > limit else text


def settings(model):
    """Model settings in words ('link time degree, 32-word buffers, ...') from a dict of the CSV or
    JSON keys link_cycles, timing, arbitration, buffer_words, packet_words, source_queue, cycles."""
    words = []
    lc = str(model.get("link_cycles", "")).strip()
    if lc:
        words.append({"degree": "link time = sender's degree", "words": "link time = 1 cycle/word"}.get(
            lc, f"link time {lc} cycle{'s' if lc != '1' else ''}"))
    t = str(model.get("timing", "")).strip()
    if t:
        words.append({"vct": "virtual cut-through", "saf": "store-and-forward"}.get(t, t))
    a = str(model.get("arbitration", "")).strip()
    if a:
        words.append({"rr": "round-robin", "round-robin": "round-robin", "oldest": "oldest-first"}.get(a, a)
                     + " arbitration")
    if str(model.get("buffer_words", "")).strip():
        words.append(f"{model['buffer_words']}-word buffers")
    pw = str(model.get("packet_words", "")).strip()
    if pw:
        mean, _, spread = pw.partition(":")
        words.append(f"{mean}{' ± ' + spread if spread and spread != '0' else ''}-word packets")
    sq = str(model.get("source_queue", "")).strip()
    if sq:
        words.append("unbounded source queues" if sq == "0" else f"source queues of {sq} packets")
    c = str(model.get("cycles", "")).strip()
    if c:
        words.append(f"{int(float(c)):,}-cycle window")
    r = str(model.get("routing", "")).strip()
    if r and r != "deterministic":
        words.append(f"{r} routing")
    return ", ".join(words)


def family(name):
    """The colour key of a network: its family from a spec ('torus:8x8' -> 'torus', a 3D torus
    'torus3'), or from the papers' labels ('2DT', 'Adaptive CB', 'HC adaptive')."""
    name = str(name).strip()
    spec = name.split(" = ", 1)[1] if " = " in name else name
    m = re.match(r"([a-z][a-z0-9]*):(.*)", spec)
    if m:
        fam, rest = m.group(1), m.group(2)
        if fam == "torus" and rest.count("x") >= 2:
            return "torus3"
        return fam
    base = re.sub(r"(?i)\badaptive\b", "", name).strip()
    base = base.split(" ")[0] if base not in LABEL_FAMILY else base
    return LABEL_FAMILY.get(base, base.lower())


def _shade(colour, amount):
    """`colour` lightened by `amount` in [0, 1) (0 = as is)."""
    h, l, s = colorsys.rgb_to_hls(*mcolors.to_rgb(colour))
    return mcolors.to_hex(colorsys.hls_to_rgb(h, l + (1 - l) * amount, s))


def network_styles(names, specs=None):
    """Per network name (spec or label): dict(color, linestyle, marker). The colour is its family's
    (FAMILY_COLOURS, found from `specs[name]` when given, else from the name; unknown families get
    a colour fixed by their name); adaptive variants draw dashed in the same colour; several
    networks of one family in one figure get darker and lighter shades of it and different
    markers, in the order of their specs (not of the figure), so one set of networks is drawn
    alike in every figure."""
    specs = specs or {}
    styles, members = {}, {}
    key = {}
    shared = {}  # a spec drawn by several names (one network under several routings): told apart by name
    for n in names:
        shared.setdefault(str(specs.get(n, n)), []).append(n)
    for n in names:
        spec = str(specs.get(n, n))
        fam = family(spec)
        if fam not in FAMILY_COLOURS:
            fam = family(n)
        key[n] = (fam, re.sub(r"(?i)\s*adaptive\s*", "", spec) if n in specs else
                  re.sub(r"(?i)\s*adaptive\s*", "", str(n)))
        members.setdefault(fam, set()).add(key[n][1])
    order = {fam: sorted(m) for fam, m in members.items()}
    for n in names:
        fam, base = key[n]
        colour = FAMILY_COLOURS.get(fam)
        if colour is None:  # fixed by the name, not by the figure's order
            colour = plt.get_cmap("tab20")(sum(map(ord, fam)) % 20)
        adaptive = re.search(r"(?i)adaptive", str(n)) is not None
        idx = order[fam].index(base)
        # Names sharing one spec (one network under several routings) keep its colour and differ
        # in line style and marker, in the order of their names with the adaptive ones last (so
        # "CB" and "Adaptive CB" are solid and dashed, never drawn alike); a network alone under
        # its spec is dashed with the next marker when adaptive.
        same = sorted((m for m in shared.get(str(specs.get(n, n)), [n]) if n in specs),
                      key=lambda m: (re.search(r"(?i)adaptive", str(m)) is not None, str(m)))
        j = same.index(n) if len(same) > 1 else (1 if adaptive else 0)
        styles[n] = {"color": _shade(colour, [0.0, 0.45, 0.25, 0.6][idx % 4]) if idx else mcolors.to_hex(colour),
                     "linestyle": ["-", "--", "-.", ":"][j % 4],
                     "marker": MARKERS[(idx * 3 + j) % len(MARKERS)]}
    return styles


def policy_style(policy, slice_, slices):
    """Colour, marker and line style of an OS policy at a slice length: the slice picks the colour
    family (drain and flush at one slice share it), the policy the shade, marker and line."""
    marker, ls, shade = POLICY_STYLE.get(policy, ("D", "-.", 0.3))
    hue = SLICE_HUES[sorted(slices).index(slice_) % len(SLICE_HUES)] if slice_ in slices else SLICE_HUES[-1]
    return {"color": _shade(hue, shade), "marker": marker, "linestyle": ls}


# Each tool of a comparison with another simulator (scripts/validation/booksim_compare.py): its
# line style, marker and shade of the network's family colour. rica is drawn solid in the family
# colour itself; the other tool's runs dashed or dash-dotted, lighter, with other markers.
TOOL_STYLE = {"rica": ("-", "o", 0.0), "BookSim2": ("--", "s", 0.3), "BookSim2 speculative": ("-.", "^", 0.55)}


def tool_style(tool, spec):
    """Colour, line style and marker of `tool` (a TOOL_STYLE key) drawing network `spec`: the colour
    is the network's family colour (FAMILY_COLOURS), shaded per tool."""
    ls, marker, shade = TOOL_STYLE.get(tool, (":", "D", 0.4))
    colour = FAMILY_COLOURS.get(family(spec), "#555555")
    return {"color": _shade(colour, shade), "linestyle": ls, "marker": marker}


def log_axis(ax, which="x", base=10):
    """A log axis with enough labelled ticks: 1-2-5 labels when it spans under three decades, every
    decade (minor ticks unlabelled) beyond; plain numbers, not 10^k, within 1e-3..1e6."""
    axis = ax.xaxis if which == "x" else ax.yaxis
    (ax.set_xscale if which == "x" else ax.set_yscale)("log", base=base)
    lo, hi = (ax.get_xlim() if which == "x" else ax.get_ylim())
    lo, hi = max(lo, 1e-300), max(hi, 1e-300)
    span = abs(math.log10(hi / lo)) if lo > 0 else 9
    plain = ticker.FuncFormatter(_plain)
    if base == 10 and span < 1.2:
        axis.set_major_locator(ticker.LogLocator(base=10, subs=(1.0, 1.5, 2.0, 3.0, 5.0, 7.0)))
        axis.set_major_formatter(plain)
        axis.set_minor_formatter(ticker.NullFormatter())
    elif base == 10 and span < 3:
        axis.set_major_locator(ticker.LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
        axis.set_major_formatter(plain)
        axis.set_minor_locator(ticker.LogLocator(base=10, subs=tuple(range(1, 10))))
        axis.set_minor_formatter(ticker.NullFormatter())
    elif base == 10:
        axis.set_major_locator(ticker.LogLocator(base=10))
        axis.set_major_formatter(plain)
        axis.set_minor_locator(ticker.LogLocator(base=10, subs=tuple(range(2, 10))))
        axis.set_minor_formatter(ticker.NullFormatter())
    ax.grid(True, which="major", axis=which, alpha=0.35)
    ax.grid(True, which="minor", axis=which, alpha=0.12)


def _plain(v, _pos=None):
    """A tick label: 0.05, 20, 10,000, 1,000,000; powers of ten only beyond 10^9 or below 10^-3."""
    if v <= 0:
        return ""
    if 1e3 <= v < 1e10 and abs(v - round(v)) < 1e-9:
        return f"{v:,.0f}"
    if 1e-3 <= v < 1e10:
        return f"{v:g}"
    return f"$10^{{{int(round(math.log10(v)))}}}$"


def finish_log_axes(ax):
    """Re-applies log_axis() to every log axis of `ax` once its data are drawn (the span is known)."""
    for which in ("x", "y"):
        if (ax.get_xscale() if which == "x" else ax.get_yscale()) == "log":
            log_axis(ax, which)


def legend(ax, title_=None, **kw):
    """A legend that does not hide data: inside when it has few entries, below the axes otherwise."""
    handles, labels = ax.get_legend_handles_labels()
    if not handles:
        return None
    labels = [legend_label(l) for l in labels]
    if len(handles) > 8 or max(len(l) for l in labels) > 40:
        return ax.legend(handles, labels, title=title_, loc="upper left", bbox_to_anchor=(1.01, 1.0),
                         borderaxespad=0.0, **kw)
    return ax.legend(handles, labels, title=title_, **kw)


apply()
matplotlib.rcParams["savefig.dpi"] = DPI
