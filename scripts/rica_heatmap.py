"""Link heat maps of a run (`rica plot links`): every directed link's utilisation on a 0-1 scale,
drawn in the layout the topology family declares (its registry entry's drawing, recorded in the
run report as "topology_drawing": grid, ring, stages, levels or graph; rica/registry.hpp Drawing).

Utilisation = busy cycles / cycles run, busy cycles = packets x the cycle engine's link time of the
sending node (rica/channel_load.hpp link_cycles(): a fixed --link-cycles N, the mean packet length
under --link-cycles words, else the sender's in-degree + out-degree). The async engine has no
cycles: there the scale is the load relative to the busiest link (1 = busiest), and the colour bar
says so.

Layouts, by the family's drawing (LAYOUTS; a new family declares its drawing in its registry
entry, nothing here changes):
  grid    (mesh, torus: 3 and 4 dimensions tiled plane by plane, kary, mesh8, torus8, mxx, msn):
          one panel per out-port (a direction), each node's out-link in that direction as a cell;
  ring, stages, levels: the stage layout, nodes at (stage, row), every link a segment.
          ring (cbanyan, ccc, comega, dce, mdce, cccb, cb2: ring position x row), one panel per
          out-port: the stages are a cycle, so a link that wraps (last stage to stage 0, or back)
          is drawn to a copy of its stage beyond the edge (hollow dots), as the cycle unrolled,
          not as a line back across the figure. stages (omega) is one panel, the network from
          left to right: PEs as sources at stage -1 and again as destinations after the last
          stage. levels (fattree): switches by level, PEs at -1, one panel per out-port;
  graph   the rest and the default (hypercube, de Bruijn, shuffle-exchange, dragonfly, HyperX,
          Slim Fly, products, hierarchies, file: and user families): node positions from Graphviz
          (neato/sfdp, Debian's graphviz), every directed link a segment offset to its own side, so
          the two directions of a link show apart.
The same loads also go to links.dot (Graphviz; one edge per link, its packets and utilisation).
"""
import json
import math
import os
import re
import shutil
import subprocess
from collections import Counter, defaultdict

import matplotlib.pyplot as plt
from matplotlib import cm, colors
from matplotlib.collections import LineCollection
from matplotlib.ticker import MaxNLocator

import rica_style

CMAP = "viridis"


class Links:
    """What a run's report holds about its links: labels, per-link packets, utilisation."""

    def __init__(self, report, labels, rows):
        self.report = report
        self.spec = str(report.get("topology", ""))
        self.drawing = str(report.get("topology_drawing", "graph"))  # the family's, from its registry entry
        self.labels = labels  # node -> label (every node of the per-PE CSV; switches included)
        self.edges = [(int(r["node"]), int(r["port"]), int(r["peer"]), int(r["packets"])) for r in rows]
        for u, _, v, _ in self.edges:
            self.labels.setdefault(u, f"n{u}")
            self.labels.setdefault(v, f"n{v}")
        model = report.get("model", {})
        cycles = report.get("cycles_run")
        engine = model.get("engine", report.get("config", {}).get("engine", ""))
        if engine == "cycle" and cycles:
            lc = str(model.get("link_cycles", "degree"))
            if lc == "degree":
                deg = Counter()
                for u, _, v, _ in self.edges:
                    deg[u] += 1
                    deg[v] += 1
                time = {v: max(1, deg[v]) for v in self.labels}
            elif lc == "words":
                time = defaultdict(lambda: int(model.get("packet_words", 1)))
            else:
                time = defaultdict(lambda: int(lc))
            self.util = {(u, p): min(1.0, k * time[u] / cycles) for u, p, _, k in self.edges}
            self.word = "utilisation"
            self.scale = ("link utilisation (busy cycles / cycles run)"
                          f"; link time {'= sender degree' if lc == 'degree' else lc}")
        else:
            top = max((k for *_, k in self.edges), default=0) or 1
            self.util = {(u, p): k / top for u, p, _, k in self.edges}
            self.word = "relative load"
            self.scale = "relative link load (busiest link = 1; async engine: no cycle clock)"
        self.ports = sorted({p for _, p, _, _ in self.edges})

    def title(self):
        cfg = self.report.get("config", {})
        traffic = self.report.get("traffic") or self.report.get("app_spec") or cfg.get("traffic", "")
        rate = cfg.get("rate")
        mx = max(self.util.values(), default=0.0)
        mean = sum(self.util.values()) / len(self.util) if self.util else 0.0
        return (f"{self.spec}: link {self.word} per direction; traffic {traffic}"
                + (f", rate {rate}" if rate not in (None, "") else "") + f", engine {cfg.get('engine', '')}"
                + f"\nbusiest link {mx:.3f}, mean {mean:.3f}")


def coords(label):
    """The integer tuple of a label such as "(3,4)" or "(1,2,3)", else None."""
    m = re.fullmatch(r"\((\d+(?:,\d+)*)\)", label.strip())
    return tuple(int(x) for x in m.group(1).split(",")) if m else None


# ---- grid: one imshow per out-port --------------------------------------------------------------

def grid_positions(L):
    """node -> (col, row) on a plane; dimensions 3 and 4 tile the planes side by side / above."""
    xy = {v: coords(L.labels[v]) for v in L.labels}
    if any(c is None for c in xy.values()):
        return None
    dims = max(len(c) for c in xy.values())
    ext = [max(c[i] for c in xy.values() if len(c) > i) + 1 for i in range(dims)]
    if dims > 4:
        return None
    pos = {}
    for v, c in xy.items():
        c = tuple(c) + (0,) * (4 - len(c))
        pos[v] = (c[0] + (ext[0] + 1) * c[2], c[1] + ((ext[1] + 1) * c[3] if dims > 3 else 0))
    return pos


def direction_name(L, port, pos):
    """A port's direction from its most common coordinate step ('+x', '-y', '+x+y', ...)."""
    steps = Counter()
    xy = {v: coords(L.labels[v]) for v in L.labels}
    for u, p, v, _ in L.edges:
        if p != port or xy.get(u) is None or xy.get(v) is None:
            continue
        d = []
        for i, (a, b) in enumerate(zip(xy[u], xy[v])):
            if a == b:
                continue
            k = max(c[i] for c in xy.values()) + 1
            fwd = (b - a) % k
            d.append(("+" if fwd <= k - fwd else "-") + "xyzw"[i] + (str(min(fwd, k - fwd)) if min(fwd, k - fwd) > 1 else ""))
        steps["".join(d) or "self"] += 1
    return steps.most_common(1)[0][0] if steps else f"port {port}"


def draw_grid(L, out):
    pos = grid_positions(L)
    if pos is None:
        return False
    w = max(x for x, _ in pos.values()) + 1
    h = max(y for _, y in pos.values()) + 1
    panels = L.ports
    ncol = min(4, len(panels))
    nrow = math.ceil(len(panels) / ncol)
    cell = min(3.2, 7.6 / ncol)
    fig, axes = plt.subplots(nrow, ncol, figsize=(8.0, max(3.2, nrow * cell * h / max(w, 1) + 1.6)), squeeze=False, layout="constrained")
    import numpy as np
    im = None
    for i, port in enumerate(panels):
        ax = axes[i // ncol][i % ncol]
        grid = np.full((h, w), np.nan)
        for u, p, _, _ in L.edges:
            if p == port and u in pos:
                x, y = pos[u]
                grid[y][x] = L.util[(u, p)]
        im = ax.imshow(grid, origin="lower", cmap=CMAP, vmin=0, vmax=1, aspect="equal", interpolation="nearest")
        ax.set_title(f"out-port {port} ({direction_name(L, port, pos)})", fontsize=8)
        ax.tick_params(labelsize=7)
    for j in range(len(panels), nrow * ncol):
        axes[j // ncol][j % ncol].axis("off")
    dims = max(len(coords(l) or ()) for l in L.labels.values())
    fig.supxlabel("first coordinate" + (" (planes of the third side by side)" if dims > 2 else ""), fontsize=9)
    fig.supylabel("second coordinate" + (" (fourth: planes stacked)" if dims > 3 else ""), fontsize=9)
    finish(fig, L, im, out)
    return True


# ---- stage: nodes at (stage, row), links as segments ---------------------------------------------

def stage_positions(L):
    """node -> (stage, row): ring position and row for the c-Banyan/DCE/MDCE families (labels
    "(x0,x1,...)", row = the rest as one index), stage/level for omega ("s<stage>.<i>", PEs "pe<i>"
    as stage -1) and the fat tree ("L<level>.<i>", PEs at level -1)."""
    pos = {}
    rows = {}
    for v, lab in L.labels.items():
        c = coords(lab)
        m = re.fullmatch(r"(?:s|L)(\d+)\.(\d+)", lab)
        pe = re.fullmatch(r"pe(\d+)", lab)
        if c is not None:
            rows.setdefault(c[1:], len(rows))
            pos[v] = (c[0], None, c[1:])
        elif m:
            pos[v] = (int(m.group(1)), int(m.group(2)), None)
        elif pe:
            pos[v] = (-1, int(pe.group(1)), None)
        else:
            return None
    # Rows of the ring families in the order of their coordinates (x1 fastest).
    order = {key: i for i, key in enumerate(sorted(rows, key=lambda k: tuple(reversed(k))))}
    out = {}
    for v, (s, r, key) in pos.items():
        out[v] = (s, order[key] if key is not None else r)
    # Indirect networks: spread each stage's switches over the PEs' height.
    per_stage = Counter(s for s, _ in out.values())
    tallest = max(per_stage.values())
    return {v: (s, r * tallest / per_stage[s] + (tallest / per_stage[s] - 1) / 2) for v, (s, r) in out.items()}


def segments(L, pos, offset):
    """Per directed link: the segment from sender to receiver, moved `offset` to its right side so
    the two directions of a link show apart."""
    segs, vals, ports = [], [], []
    for u, p, v, _ in L.edges:
        if u not in pos or v not in pos:
            continue
        (x0, y0), (x1, y1) = pos[u], pos[v]
        dx, dy = x1 - x0, y1 - y0
        n = math.hypot(dx, dy) or 1.0
        ox, oy = dy / n * offset, -dx / n * offset
        segs.append([(x0 + ox, y0 + oy), (x1 + ox, y1 + oy)])
        vals.append(L.util[(u, p)])
        ports.append(p)
    return segs, vals, ports


def draw_segments(ax, L, pos, segs, vals, lw):
    lc = LineCollection(segs, cmap=CMAP, norm=colors.Normalize(0, 1), linewidths=lw)
    lc.set_array(vals)
    ax.add_collection(lc)
    xs = [p[0] for p in pos.values()]
    ys = [p[1] for p in pos.values()]
    ax.scatter(xs, ys, s=max(1.0, 60.0 / math.sqrt(len(pos))), c="0.25", zorder=3, linewidths=0)
    ax.autoscale()
    ax.margins(0.03)
    return lc


def stage_segments(L, pos, offset):
    """segments() for a stage drawing: per directed link its segment, the receiving end moved to
    the copy of its stage that the drawing puts it at (see the module's note), and the ghost
    node positions those copies add."""
    stages = sorted({x for x, _ in pos.values()})
    ring = L.drawing == "ring"
    k = len(stages)  # ring families: stages 0 .. k-1
    last = stages[-1]
    segs, vals, ports, ghosts = [], [], [], set()
    for u, p, v, _ in L.edges:
        if u not in pos or v not in pos:
            continue
        (x0, y0), (x1, y1) = pos[u], pos[v]
        if L.drawing == "stages" and x1 < 0 <= x0:  # delivery: to the PE again, right of the last stage
            x1 = last + 1
            ghosts.add((x1, y1, p))
        elif ring and x1 != x0:
            near = min((x1, x1 + k, x1 - k), key=lambda x: (abs(x - x0), -x))
            if near != x1:
                x1 = near
                ghosts.add((x1, y1, p))
        dx, dy = x1 - x0, y1 - y0
        n = math.hypot(dx, dy) or 1.0
        ox, oy = dy / n * offset, -dx / n * offset
        segs.append([(x0 + ox, y0 + oy), (x1 + ox, y1 + oy)])
        vals.append(L.util[(u, p)])
        ports.append(p)
    return segs, vals, ports, ghosts


def draw_stage(L, out):
    pos = stage_positions(L)
    if pos is None:
        return False
    # Stages (omega): one panel, the whole network left to right (each switch's outputs together).
    panels = [None] if L.drawing == "stages" else L.ports
    ncol = min(3, len(panels))
    nrow = math.ceil(len(panels) / ncol)
    fig, axes = plt.subplots(nrow, ncol, figsize=(8.0, min(4.0 * nrow + 1.4, 11.0)), squeeze=False, layout="constrained")
    rows = max(1.0, max(y for _, y in pos.values()) + 1)
    lw = max(0.3, min(2.0, 90.0 / rows))  # thin enough that neighbouring rows stay apart
    lc = None
    all_segs, all_vals, all_ports, ghosts = stage_segments(L, pos, 0.12)  # two directions side by side
    for i, port in enumerate(panels):
        ax = axes[i // ncol][i % ncol]
        segs = [s for s, p in zip(all_segs, all_ports) if port is None or p == port]
        vals = [x for x, p in zip(all_vals, all_ports) if port is None or p == port]
        lc = draw_segments(ax, L, pos, segs, vals, lw)
        mine = [g for g in ghosts if port is None or g[2] == port]  # this panel's stage copies
        if mine:
            ax.scatter([g[0] for g in mine], [g[1] for g in mine], s=max(1.0, 60.0 / math.sqrt(len(pos))),
                       facecolors="none", edgecolors="0.45", zorder=3, linewidths=0.6)
            ax.autoscale()
        ax.set_title("every link, sources to destinations" if port is None else f"out-port {port}", fontsize=8)
        ax.tick_params(labelsize=7)
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    for j in range(len(panels), nrow * ncol):
        axes[j // ncol][j % ncol].axis("off")
    indirect = L.drawing in ("stages", "levels")
    stages = max(x for x, _ in pos.values()) + 1
    fig.supxlabel(f"stage (PEs as sources at -1, as destinations at {stages}, hollow)" if L.drawing == "stages"
                  else "level (PEs at -1)" if indirect
                  else f"ring position x0 (stage; hollow: a stage one turn of the ring on, x0 ± {stages}, where a link "
                       "wraps)" if ghosts else "ring position x0 (stage)", fontsize=9)
    fig.supylabel("switch" if indirect else "row (x1, x2, ... as one index)", fontsize=9)
    finish(fig, L, lc, out)
    return True


# ---- graph: Graphviz positions ------------------------------------------------------------------

def graphviz_positions(L, out):
    """node -> (x, y) from Graphviz (neato up to 2,000 nodes, sfdp beyond), or None without it."""
    engine = "neato" if len(L.labels) <= 2000 else "sfdp"
    if not shutil.which(engine):
        return None
    pairs = {(min(u, v), max(u, v)) for u, _, v, _ in L.edges if u != v}
    src = "graph g {\n  node [shape=point];\n" + "".join(f"  {u} -- {v};\n" for u, v in sorted(pairs)) + "}\n"
    p = subprocess.run([engine, "-Tplain", "-Gstart=1", "-Goverlap=false"] if engine == "neato"
                       else [engine, "-Tplain"], input=src, capture_output=True, text=True, timeout=300)
    if p.returncode != 0:
        return None
    pos = {}
    for line in p.stdout.splitlines():
        f = line.split()
        if f and f[0] == "node":
            pos[int(f[1])] = (float(f[2]), float(f[3]))
    return pos or None


def draw_graph(L, out):
    pos = graphviz_positions(L, out)
    if pos is None:
        return False
    fig, ax = plt.subplots(figsize=(8.0, 7.0), layout="constrained")
    xs = [p[0] for p in pos.values()]
    span = (max(xs) - min(xs)) or 1.0
    lw = max(0.3, min(2.2, 90.0 / math.sqrt(len(L.edges) + 1)))
    segs, vals, _ = segments(L, pos, span * 0.004)
    lc = draw_segments(ax, L, pos, segs, vals, lw)
    ax.set_aspect("equal")
    ax.axis("off")
    fig.text(0.01, 0.01, "layout: Graphviz " + ("neato" if len(L.labels) <= 2000 else "sfdp")
             + "; each direction of a link drawn on its own side", fontsize=7, color="0.35")
    finish(fig, L, lc, out)
    return True


LAYOUTS = {  # the family's drawing (its registry entry's) -> the layouts to try, in order
    "grid": (draw_grid, draw_graph),
    **{d: (draw_stage, draw_graph) for d in ("ring", "stages", "levels")},
}


def finish(fig, L, mappable, out):
    rica_style.suptitle(fig, L.title(), fontsize=10)
    bar = fig.colorbar(mappable, ax=fig.axes, shrink=0.85, fraction=0.04)
    bar.set_label(rica_style.wrap(L.scale, 3.0, 8.5), fontsize=8.5)
    for ext in ("png", "svg"):
        fig.savefig(os.path.join(out, f"{getattr(L, 'name', 'links')}.{ext}"), dpi=rica_style.DPI)
    plt.close(fig)


def heat_map(L, out, name="links"):
    """Draws NAME.png/.svg with the family's layout (the graph layout for the rest) and writes NAME.dot
    (rica plot links: NAME is the input's stem + ".links", R.links.png for R.json); returns the layout's name."""
    L.name = name
    rica_style.apply()
    used = None
    for draw in LAYOUTS.get(L.drawing, ()) + (draw_graph,):
        if draw(L, out):
            used = draw.__name__[len("draw_"):]
            break
    if used is None:  # no Graphviz: a node x port matrix still shows every link
        draw_matrix(L, out)
        used = "matrix"
    write_dot(L, out)
    return used


def draw_matrix(L, out):
    nodes = sorted(L.labels)
    index = {v: i for i, v in enumerate(nodes)}
    import numpy as np
    grid = np.full((len(L.ports), len(nodes)), np.nan)
    for u, p, _, _ in L.edges:
        grid[L.ports.index(p)][index[u]] = L.util[(u, p)]
    fig, ax = plt.subplots(figsize=(8.0, 5.0), layout="constrained")
    im = ax.imshow(grid, origin="lower", cmap=CMAP, vmin=0, vmax=1, aspect="auto", interpolation="nearest")
    ax.set_xlabel("node")
    ax.set_ylabel("out-port")
    finish(fig, L, im, out)


def write_dot(L, out):
    """links.dot: one edge per directed link, colour and width by utilisation; packets in the tooltip."""
    name = lambda v: L.labels.get(v, f"n{v}")  # noqa: E731
    lines = ["digraph links {", f"  label={json.dumps(L.title())}; labelloc=t;",
             "  node [shape=circle, fontsize=8, width=0.3, fixedsize=true];", "  edge [arrowsize=0.4];"]
    for u, p, v, k in L.edges:
        x = L.util[(u, p)]
        rgb = colors.to_hex(cm.get_cmap(CMAP)(x))
        lines.append(f"  {json.dumps(name(u))} -> {json.dumps(name(v))} "
                     f"[color=\"{rgb}\", penwidth={0.3 + 3.0 * x:.2f}, tooltip=\"{k} packets, {L.word} {x:.3f}\"];")
    lines.append("}")
    with open(os.path.join(out, f"{getattr(L, 'name', 'links')}.dot"), "w") as f:
        f.write("\n".join(lines) + "\n")
