#!/usr/bin/env python3
"""Generates docs/reproduction.md from scripts/reproduction.md.in and rica's own output.

Usage:
  scripts/reproduction_tables.py [path/to/rica]            # rewrite docs/reproduction.md
  scripts/reproduction_tables.py [path/to/rica] --check    # exit 1 if the committed page differs
  scripts/reproduction_tables.py [path/to/rica] --stdout   # print the page

The template is Markdown with placeholders {{EXPR}} or {{EXPR|FORMAT}}: EXPR is a Python
expression over the helpers below, FORMAT a Python format spec (",.0f", ".4f", "d", "+.1%").
  topo(spec)          the JSON of `rica topo SPEC --json -` (exact figures: distances, degrees, cost)
  rica(*args)         the JSON of `rica ARGS --json -` (embed, partition, bound, ...)
  exp(name)           docs/experiments/NAME/table.json (committed `rica experiment` output)
  points(name, **eq)  the rows of docs/experiments/NAME/points.csv whose columns equal eq
  csv(path, **eq)     the rows of a committed CSV under docs/ whose columns equal eq
  sat(rows)           the largest `accepted` of some points.csv rows (the experiments' saturation)
{{!NAME(args)}} on a line of its own inserts the table generator NAME's output.
Every command the page runs is listed at its end, so the page names the source of every number.
"""
import csv as csvmod
import functools
import json
import math
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
TEMPLATE = os.path.join(HERE, "reproduction.md.in")
PAGE = os.path.join(ROOT, "docs", "reproduction.md")
RICA = "build/rica"
COMMANDS = []  # every rica command run, in first-use order
FILES = []     # every committed output read (docs/experiments/...), in first-use order


def _read(path):
    rel = os.path.relpath(path, ROOT)
    if rel not in FILES:
        FILES.append(rel)
    return open(path, newline="")


def _run(args):
    cmd = [RICA] + list(args)
    shown = "rica " + " ".join(args)
    if shown not in COMMANDS:
        COMMANDS.append(shown)
    t0 = time.time()
    out = subprocess.run(cmd, check=True, capture_output=True, text=True, cwd=ROOT).stdout
    if os.environ.get("REPRO_TIMES"):
        print(f"{time.time() - t0:7.2f} s  {shown}", file=sys.stderr)
    return out


@functools.lru_cache(maxsize=None)
def _json(args):
    return json.loads(_run(list(args) + ["--json", "-"]))


def topo(spec):
    return _json(("topo", spec))


def rica(*args):
    return _json(tuple(args))


@functools.lru_cache(maxsize=None)
def exp(name):
    with _read(os.path.join(ROOT, "docs", "experiments", name, "table.json")) as f:
        return json.load(f)


@functools.lru_cache(maxsize=None)
def config(name):
    with _read(os.path.join(ROOT, "docs", "experiments", name, "config.json")) as f:
        return json.load(f)


@functools.lru_cache(maxsize=None)
def _csv_rows(path):
    with _read(os.path.join(ROOT, path)) as f:
        return list(csvmod.DictReader(f))


def _num(v):
    try:
        return float(v) if any(c in v for c in ".eE") else int(v)
    except (TypeError, ValueError):
        return v


def csv(path, **eq):
    rows = [{k: _num(v) for k, v in r.items()} for r in _csv_rows(path)]
    return [r for r in rows if all(str(r.get(k)) == str(v) for k, v in eq.items())]


def points(name, **eq):
    return csv(os.path.join("docs", "experiments", name, "points.csv"), **eq)


def sat(rows, key="accepted"):
    if not rows:
        raise ValueError("sat(): no rows")
    return max(r[key] for r in rows)


def verdict(paper, ours, nd=2):
    """'exact' when ours rounds to the paper's printed value (nd decimals), else 'differs'."""
    if isinstance(paper, (list, tuple)):
        return "exact" if all(verdict(a, b, nd) == "exact" for a, b in zip(paper, ours)) else "differs"
    return "exact" if f"{ours:.{nd}f}" == f"{paper:.{nd}f}" else "differs"


def fmt(x, spec=""):
    if spec == "":
        if isinstance(x, float):
            return f"{x:.2f}"
        return str(x)
    return format(x, spec)


# ---- the papers' closed forms, evaluated (the paper columns' sources) ---------------------------

def eq2(n):
    """MDCE paper eq. (2): c-Banyan mean distance (all N^2 pairs, self = 0)."""
    return 1.5 * (n - 1) + 2.0 ** -n


def eq3(n):
    """MDCE paper eq. (3): CCC mean distance."""
    return 2 * n - 2.5 + 2.0 ** -(n - 1)


def eq6(n, B, C):
    """MDCE paper eqs. (4)-(6): (B, C, 1)-MDCE mean distance."""
    def g(k, i):
        return (sum(math.comb(B, j) for j in range(k + 1)) ** (i - 1) * math.comb(B, k)
                * sum(math.comb(B, j) for j in range(k)) ** (n - i))
    return 2.0 ** (-n * B) * sum(((k - 1) * n + i + n * C / 2) * g(k, i)
                                 for k in range(1, B + 1) for i in range(1, n + 1)) + (n - 1) / 2


def necklaces(n):
    """Binary necklaces of length n (rotation classes; Burnside), the paper's spare count."""
    return sum(2 ** math.gcd(n, k) for k in range(n)) // n


def erow(name, network, pattern):
    """The row of docs/experiments/NAME/table.json for (network, pattern)."""
    rows = [r for r in exp(name) if r["network"] == network and r["pattern"] == pattern]
    if len(rows) != 1:
        raise ValueError(f"erow({name!r}, {network!r}, {pattern!r}): {len(rows)} rows")
    return rows[0]


def eight_series(network, key):
    """{N: value} of docs/experiments/eight-neighbour/points.csv (scripts/eight_neighbour_figs.py)."""
    return {r["pes"]: r[key] for r in csv("docs/experiments/eight-neighbour/points.csv", network=network)}


def cube_at(key, N):
    """The binary n-cube's measure at N, linear in log2 N between the neighbouring powers of two.
    r is not interpolated on its own: every network here routes minimally and r counts the relays
    of ordered pairs, so r = (N - 1)(d - 1) for each of them, and the n-cube's r at N is taken
    from its interpolated d (r then orders the two networks exactly as d does)."""
    if key == "r":
        return (N - 1) * (cube_at("d", N) - 1)
    cube = eight_series("binary n-cube", key)
    lo = max(p for p in cube if p <= N)
    hi = min(p for p in cube if p >= N)
    if lo == hi:
        return cube[lo]
    t = (math.log2(N) - math.log2(lo)) / (math.log2(hi) - math.log2(lo))
    return cube[lo] + t * (cube[hi] - cube[lo])


def relay_identity_error():
    """The largest |r - (N - 1)(d - 1)| / r over every row of the eight-neighbour points.csv."""
    return max(abs(r["r"] - (r["pes"] - 1) * (r["d"] - 1)) / max(r["r"], 1.0) for r in csv("docs/experiments/eight-neighbour/points.csv"))


def crossover(key):
    """Where the 8-neighbour torus crosses the n-cube on KEY: {'below': last N below before the first
    N above, 'above': that first N, 'ties': sizes with equal values, 'dips': later sizes below}."""
    tor = eight_series("8-neighbour torus", key)
    above = None
    out = {"below": None, "above": None, "ties": [], "dips": []}
    for N in sorted(tor):
        c = cube_at(key, N)
        if abs(tor[N] - c) < 1e-9 * max(1.0, abs(c)):
            out["ties"].append(N)
        elif tor[N] < c:
            if out["above"] is None:
                out["below"] = N
            else:
                out["dips"].append(N)
        elif out["above"] is None:
            out["above"] = N
    return out


def mesh8_vs_torus4(key, better=lambda a, b: a < b):
    """The sizes N at which the 8-neighbour mesh is better than the 4-neighbour torus on KEY."""
    a, b = eight_series("8-neighbour mesh", key), eight_series("4-neighbour torus", key)
    return [N for N in sorted(a) if N in b and better(a[N], b[N])]


def nlist(xs):
    return ", ".join(f"{x:,}" for x in xs)


# ---- table generators ({{!name(args)}}) -----------------------------------------------------

def mean_cell(j, key):
    v = fmt(j[key], ".2f")
    if j["method"] == "sampled":
        v += f" ± {j['mean_distance_error']:.1f} (sampled)"
    return v


def mdce_table():
    rows = [
        ("(2,0,1)-MDCE = (CB)^2", "3+3", "cb2:n=4", 8.15, "cb2:n=8", 18.61),
        ("(1,1,1)-MDCE = CCCB", "3+3", "cccb:n=4", 6.44, "cccb:n=8", 14.49),
        ("c-Banyan (x mod n wiring)", "2+2", "cbanyan:n=7,S=8", 10.01, "cbanyan:n=15,S=16", 22.00),
        ("c-Banyan (parallel wiring)", "2+2", "cbanyan:n=7,S=8,wiring=parallel", 10.01,
         "cbanyan:n=15,S=16,wiring=parallel", 22.00),
        ("CCC", "2+2", "ccc:n=7,S=8", 12.52, "ccc:n=15,S=16", 28.50),
        ("2D mesh", "4+4", "mesh:32x32", 32.00, "mesh:1024x512", 768.00),
        ("2D torus", "4+4", "torus:32x32", 16.00, "torus:1024x512", 384.00),
        ("3D torus", "6+6", "torus:8x8x16", 8.00, "torus:64x64x128", 64.00),
        ("binary fat tree", "4+4", "fattree:10", 17.00, "fattree:19", 35.00),
        ("Omega (indirect)", "2+2", "omega:10", 10.00, "omega:19", 19.00),
    ]
    out = ["| network | paper degree | ours in+out | 1,024-PE `rica topo` | paper | ours (incl. self) | ours routed |"
           " 512K `rica topo` | paper | ours (incl. self) | ours routed | verdict |",
           "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for name, deg, small, ps, large, pl in rows:
        a, b = topo(small), topo(large)
        out.append(f"| {name} | {deg} | {a['degree_in']}+{a['degree_out']} | `{small}` | {ps:.2f} | "
                   f"{mean_cell(a, 'mean_distance_incl_self')} | {fmt(a['routed_mean_distance_incl_self'])} | "
                   f"`{large}` | {pl:.2f} | {mean_cell(b, 'mean_distance_incl_self')} | "
                   f"{fmt(b['routed_mean_distance_incl_self'])} | "
                   f"{table1_verdict((ps, pl), (a, b))} |")
    return "\n".join(out)


def table1_verdict(paper, js):
    """exact when our mean rounds to the paper's in either convention (all N² pairs, or distinct
    pairs: the paper's Omega row counts the n switches of every route)."""
    for key in ("mean_distance_incl_self", "mean_distance"):
        if verdict(paper, tuple(j[key] for j in js)) == "exact":
            return "exact" if key == "mean_distance_incl_self" else "exact (pairs of distinct PEs)"
    return "differs"


MXX_PAPER = {16: (7, 4.076), 32: (8, 5.244), 64: (9, 6.445), 256: (15, 10.768)}


def mxx_table():
    out = ["| nodes | `rica topo` | paper D | ours D (shortest = routed) | paper mean | ours mean (src != dst) |"
           " ours mean (incl. self) | degree (max) | verdict |",
           "|---|---|---|---|---|---|---|---|---|"]
    for side, (pd, pm) in MXX_PAPER.items():
        j = topo(f"mxx:{side}")
        v = verdict((pd, pm), (j["diameter"], j["mean_distance"]), 3)
        if v == "differs" and j["diameter"] < pd:
            v += ": ours shorter (minimal table, the paper's routing is not minimal)"
        out.append(f"| {side * side} | `mxx:{side}` | {pd} | {j['diameter']} | {pm} | {j['mean_distance']:.3f} | "
                   f"{j['mean_distance_incl_self']:.3f} | {j['degree_max']} | {v} |")
    return "\n".join(out)


def mxx_paper_table():
    out = ["| nodes | `rica topo` | paper D (its routing) | ours D, route=paper | ours D, minimal | hypercube D |"
           " paper mean | ours mean, route=paper | ours mean, minimal | verdict |",
           "|---|---|---|---|---|---|---|---|---|---|"]
    for side, (pd, pm) in MXX_PAPER.items():
        p, m = topo(f"mxx:{side},route=paper"), topo(f"mxx:{side}")
        hc = int(round(math.log2(side * side)))
        v = "differs (D and mean above the paper's)" if p["routed_diameter"] != pd else "D equal"
        if p["routed_diameter"] >= hc:
            v += f"; D ≥ the hypercube's {hc}"
        out.append(f"| {side * side} (N={side}) | `mxx:{side},route=paper` | {pd} | {p['routed_diameter']} | "
                   f"{m['diameter']} | {hc} | {pm} | {p['routed_mean_distance']:.3f} | {m['mean_distance']:.3f} | {v} |")
    return "\n".join(out)


def eight_table(side=32):
    n = side
    N = n * n
    sq = math.sqrt(N)
    lg = math.log2(N)
    specs = [("8-neighbour mesh", f"mesh8:{n}"), ("8-neighbour torus", f"torus8:{n}"),
             ("4-neighbour torus", f"torus:{n}x{n}"), ("binary n-cube", f"hypercube:{int(lg)}")]
    paper = {
        "G": [8, 8, 4, lg], "L": [4 * N, 4 * N, 2 * N, 0.5 * N * lg], "D": [sq, sq / 2, sq, lg],
        "d": [7 * sq / 15, sq / 3, sq / 2, 0.5 * lg], "s": [56 * sq / 15, 8 * sq / 3, 2 * sq, 0.5 * lg * lg],
        "t": [7 * sq / 60, sq / 12, sq / 4, 1], "r": [7 * N ** 1.5 / 15, N ** 1.5 / 6, N ** 1.5 / 4, 0.25 * lg],
        "R": [N ** 1.5, N ** 1.5 / 6, N ** 1.5 / 4, 0.25 * lg], "F": [3, 8, 4, lg],
        "C": [8 * sq, 4 * sq, 4 * sq, lg * lg],
    }
    keys = {"G": "degree", "L": "links", "D": "diameter", "d": "mean_distance", "s": "normalized_distance",
            "t": "traffic_density", "r": "avg_relay", "R": "max_relay", "F": "fault_tolerance",
            "C": "cost_mean_degree"}
    js = [topo(s) for _, s in specs]
    out = [f"N = {N} ({n} x {n}); each cell: the paper's Table 2 formula evaluated at N / rica's exact value "
           "(C: D x mean degree G, the paper's eq. (34); `rica topo` prints D x nominal degree beside it).", "",
           "| measure | " + " | ".join(f"{name} (`{s}`)" for name, s in specs) + " |",
           "|---|" + "---|" * len(specs)]
    for k, key in keys.items():
        cells = [f"{fmt(float(paper[k][i]), '.2f')} / {fmt(float(j[key]), '.2f')}" for i, j in enumerate(js)]
        out.append(f"| {k} | " + " | ".join(cells) + " |")
    return "\n".join(out)


def eight_vs_four_table(sides=(3, 4, 8, 16, 32)):
    """Conclusion (3): the 8-neighbour mesh against the 4-neighbour torus, measure by measure."""
    keys = [("G", "degree", ".2f"), ("L", "links", "d"), ("D", "diameter", "d"), ("d", "mean_distance", ".2f"),
            ("s", "normalized_distance", ".2f"), ("t", "traffic_density", ".2f"), ("r", "avg_relay", ",.1f"),
            ("R", "max_relay", ",.0f"), ("F", "fault_tolerance", "d"), ("C", "cost_mean_degree", ".1f")]
    out = ["| N | " + " | ".join(f"{k}: `mesh8` / `torus`" for k, _, _ in keys) + " |",
           "|---|" + "---|" * len(keys)]
    for n in sides:
        a, b = topo(f"mesh8:{n}"), topo(f"torus:{n}x{n}")
        cells = []
        for k, key, f in keys:
            x, y = a[key], b[key]
            better = (x > y) if k == "F" else (x < y)
            mark = "**" if better else ""
            cells.append(f"{mark}{fmt(x, f)}{mark} / {fmt(y, f)}")
        out.append(f"| {n * n} | " + " | ".join(cells) + " |")
    return "\n".join(out)


def delta_table():
    out = []
    for d in range(4):
        spec = f"dce:n=7,S=8,delta={d}"
        j = topo(spec)
        out.append(f"| {d}{' (CCC)' if d == 0 else ' (c-Banyan)' if d == 1 else ''} | `{spec}` | {j['routed_diameter']} | "
                   f"{j['diameter']} | {j['routed_mean_distance']:.3f} | {j['mean_distance']:.3f} | {j['classes_used']} |")
    return "\n".join(out)


def cp(spec):
    """The de Bruijn paper's cost/performance: mean distance x links."""
    j = topo(spec)
    return j["mean_distance"] * j["links"]


def hier_ratio(n1, n2):
    """(mean distance x links) of hier:hypercube:N1/hypercube:N2 over the flat hypercube's."""
    h, c = topo(f"hier:hypercube:{n1}/hypercube:{n2}"), topo(f"hypercube:{n1 + n2}")
    return h["mean_distance"] * h["links"] / (c["mean_distance"] * c["links"])


def mxx_excess():
    parts = []
    for side, (pd, pm) in MXX_PAPER.items():
        p = topo(f"mxx:{side},route=paper")
        parts.append(f"D +{p['routed_diameter'] - pd} and mean {p['routed_mean_distance'] / pm - 1:+.0%} at {side * side:,} nodes")
    return "; ".join(parts)


def _z(r):
    return f"{r['zero_load_latency']:.1f} / {r['zero_load_routed']:.1f}"


def mdce_summary():
    nets = ["(CB)^2", "CCCB", "CB", "CCC", "2MD", "2DT", "3DT", "FT", "MIN"]
    out = ["| network | `rica topo` | zero-load (uniform) | uniform | bound | quarter | hot spot (3 seeds) | mesh emulation | localized |",
           "|---|---|---|---|---|---|---|---|---|"]
    for n in nets:
        u = erow("mdce-1024", n, "uniform")
        cells = [f"{erow('mdce-1024', n, p)['saturation']:.4f}" for p in ("quarter", "hotspot", "mesh", "localized")]
        out.append(f"| {n} | `{u['topology']}` | {_z(u)} | {u['saturation']:.4f} | {u['bound']:.4f} | " + " | ".join(cells) + " |")
    return "\n".join(out)


def rwc1_summary():
    nets = ["CB", "Adaptive CB", "(CB)^2", "CCCB", "MIN", "2MD", "2DT"]
    out = ["| network | zero-load (uniform) | uniform | min. send interval | bound | quarter | hot spot (3 seeds) | mesh emulation |",
           "|---|---|---|---|---|---|---|---|"]
    for n in nets:
        u = erow("rwc1", n, "uniform")
        cells = [f"{erow('rwc1', n, p)['saturation']:.4f}" for p in ("quarter", "hotspot", "mesh")]
        out.append(f"| {n} | {_z(u)} | {u['saturation']:.4f} | {1 / u['saturation']:.1f} | {u['bound']:.4f} | " + " | ".join(cells) + " |")
    return "\n".join(out)


def adaptive_summary():
    pairs = [("torus, deterministic / adaptive", "2DT", "2DT adaptive"), ("hypercube", "HC", "HC adaptive"),
             ("fat tree", "FT", "FT adaptive"), ("c-Banyan (CB / Adaptive CB)", "CB", "Adaptive CB"),
             ("CCCB / Adaptive CCCB", "CCCB", "Adaptive CCCB")]
    pats = ["uniform", "transpose", "tornado", "bitrev", "hotspot"]
    out = ["| network | uniform | transpose | tornado | bit reversal | hot spot |", "|---|---|---|---|---|---|"]
    for label, d, a in pairs:
        cells = []
        for p in pats:
            try:
                rd, ra = erow("adaptive", d, p), erow("adaptive", a, p)
            except ValueError:
                cells.append("—")
                continue
            ge = "" if ra["knee_reached"] else "≥ "  # the knee was not reached: saturation is higher
            cells.append(f"{rd['saturation']:.4f} / {ge}{ra['saturation']:.4f}")
        out.append(f"| {label} | " + " | ".join(cells) + " |")
    return "\n".join(out)


def delta_summary():
    out = ["| δ | `rica topo` | zero-load (measured / model) | saturation | bound | mean hops (routed) | classes |",
           "|---|---|---|---|---|---|---|"]
    for d, name in enumerate(["delta=0 (CCC)", "delta=1 (CB)", "delta=2", "delta=3"]):
        r = erow("mdce-delta", name, "uniform")
        j = topo(f"dce:n=7,S=8,delta={d}")
        out.append(f"| {d} | `dce:n=7,S=8,delta={d}` | {_z(r)} | {r['saturation']:.4f} | {r['bound']:.4f} | "
                   f"{j['routed_mean_distance']:.2f} | {j['classes_used']} |")
    return "\n".join(out)


FAULT_NETS = [("2D torus 32x32", "2DT"), ("CCCB (MDCE)", "CCCB (MDCE)"), ("c-Banyan 8x128 (DCE)", "CB (DCE)"),
              ("UB(2,10)", "UB (de Bruijn)"), ("M_{x+x} 32", "M_{x+x}")]


def frow(network, failed, routing=None, series="links"):
    """The row of docs/experiments/faults/table.json: routing 'base' or 'tables' (default: tables if failed)."""
    routing = routing or ("tables" if failed else "base")
    rows = [r for r in exp("faults") if r["network"] == network and r["failed"] == failed
            and r["routing"] == routing and r["series"] == series]
    if len(rows) != 1:
        raise ValueError(f"frow({network!r}, {failed}, {routing!r}): {len(rows)} rows")
    return rows[0]


def faults_summary():
    out = ["| network | `rica topo` | intact, own routing | intact, rerouting tables | tables vs own | 16 failed links | "
           "16 vs intact tables | at offered 1: own / tables | latency 0 → 16 links |",
           "|---|---|---:|---:|---:|---:|---:|---:|---:|"]
    for label, net in FAULT_NETS:
        a, t, f = frow(net, 0, "base"), frow(net, 0, "tables"), frow(net, 16)
        out.append(f"| {label} | `{a['spec']}` | {a['saturation_throughput']:.4f} | {t['saturation_throughput']:.4f} | "
                   f"{t['saturation_throughput'] / a['saturation_throughput'] - 1:+.0%} | {f['saturation_throughput']:.4f} | "
                   f"{f['saturation_throughput'] / t['saturation_throughput'] - 1:+.0%} | "
                   f"{a['accepted_at_rate_1']:.4f} / {t['accepted_at_rate_1']:.4f} | "
                   f"{a['latency_mean']:.1f} → {f['latency_mean']:.1f} |")
    return "\n".join(out)


def faults_range(network, key, failed=(1, 2, 4, 8, 16)):
    vals = [frow(network, k)[key] for k in failed]
    return min(vals), max(vals)


P16 = [("CB", "cbanyan:n=7,S=8"), ("(CB)^2", "cb2:n=4"), ("CCCB", "cccb:n=4")]
P16_PATTERN = "partition:parts=64"


def p16_points(label):
    """points.csv rows of `rica experiment partition16` for one network."""
    return points("partition16", network=label)


def p16_sat(label):
    return erow("partition16", label, P16_PATTERN)["saturation"]


def p16_table():
    out = ["| network | 16-PE partitions (`rica partition NET --parts 64`) | saturation, 16-PE partitions | at offered | "
           "bound | mean hops (lowest rate) | whole machine, uniform (`rwc1`) |",
           "|---|---|---|---|---|---|---|"]
    for label, spec in P16:
        row = erow("partition16", label, P16_PATTERN)
        low = min(p16_points(label), key=lambda r: r["offered"])
        plan = rica("partition", spec, "--parts", "64")
        closed = sum(p["closed"] for p in plan["partitions"])
        out.append(f"| {label} | `{spec}`: {closed} of {len(plan['partitions'])} closed, {plan['partitions'][0]['size']} PEs each | "
                   f"{row['saturation']:.4f} | {row['offered_at_saturation']:.4g} | {row['bound']:.4f} | {low['hops_mean']:.2f} | "
                   f"{erow('rwc1', label, 'uniform')['saturation']:.4f} |")
    return "\n".join(out)


def p16_links():
    rows = csv("docs/experiments/partition16/cbanyan_n_7_S_8.links.csv")
    ring = max(r["packets"] for r in rows if r["port"] == 0 and r["node"] // 8 == r["peer"] // 8)
    between = sorted((r for r in rows if r["peer"] < 16 and r["node"] // 8 != r["peer"] // 8),
                     key=lambda r: -r["packets"])
    return ring, between


def bcast(spec):
    """`rica run SPEC --app broadcast:rule=tree` on the cycle engine with unit links and one-word
    packets (scripts/broadcast_table.sh's zero-contention timing): the app's JSON."""
    return rica("run", spec, "--app", "broadcast:rule=tree", "--engine", "cycle", "--threads", "1",
                "--link-cycles", "1", "--packet-words", "1:0")["app"]


def mesh_closed_loop(name="mdce-1024"):
    """(network, accepted) of the mesh emulation's closed loop (pacing rate 1), best first."""
    rows = [r for r in points(name, pattern="mesh") if float(r["rate"]) == 1.0]
    return sorted(((r["network"], r["accepted"]) for r in rows), key=lambda x: -x[1])


def ordinal(k):
    return f"{k}{'th' if 10 <= k % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(k % 10, 'th')}"


# ---- Saturation against the bound (`rica experiment saturation`) ----------------------------------

def satfrac(label):
    r = erow("saturation", label, "uniform")
    return r["saturation"] / r["bound"]


def sat_by_fraction():
    """The saturation experiment's network labels, by saturation / bound ascending."""
    return sorted((r["network"] for r in exp("saturation")), key=satfrac)


def saturation_table():
    out = ["| network | topology | bound | saturation | / bound |", "|---|---|---|---|---|"]
    for r in exp("saturation"):
        out.append(f"| {r['network']} | `{r['topology']}` | {r['bound']:.4f} | {r['saturation']:.4f} | "
                   f"{r['saturation'] / r['bound']:.2f} |")
    return "\n".join(out)


# ---- Mesh emulation, wrapping or not (mdce-1024 / rwc1 and docs/experiments/mesh-wrap) --------------

def closed_loop(name, wrap=True):
    """{network: accepted} at pacing rate 1 (the closed loop) of set-up NAME's mesh emulation."""
    rows = (points(name, pattern="mesh") if wrap
            else csv(os.path.join("docs", "experiments", "mesh-wrap", name, "points.csv"), pattern="mesh:wrap=0"))
    return {r["network"]: r["accepted"] for r in rows if float(r["rate"]) == 1.0}


def closed_loop_rank(name, wrap=True):
    acc = closed_loop(name, wrap)
    return sorted(acc, key=lambda n: -acc[n])


def mesh_wrap_table():
    nets = list(closed_loop("mdce-1024"))
    nets += [n for n in closed_loop("rwc1") if n not in nets]
    cols = [(name, w) for name in ("mdce-1024", "rwc1") for w in (True, False)]
    out = ["| network | mdce-1024, wrapping | non-wrapping | rwc1, wrapping | non-wrapping |", "|---|---|---|---|---|"]
    key = {**closed_loop("rwc1", False), **closed_loop("mdce-1024", False)}  # order: mdce-1024's non-wrapping figure
    for n in sorted(nets, key=lambda n: -key[n]):
        cells = []
        for name, w in cols:
            acc = closed_loop(name, w)
            cells.append(f"{acc[n]:.4f} ({ordinal(closed_loop_rank(name, w).index(n) + 1)})" if n in acc else "—")
        out.append(f"| {n} | " + " | ".join(cells) + " |")
    return "\n".join(out)


def before_mdce(name="mdce-1024", wrap=False):
    """The networks other than the 2D mesh and torus ranked above the first MDCE ((CB)^2 or CCCB)."""
    order = closed_loop_rank(name, wrap)
    first = min(order.index("CCCB"), order.index("(CB)^2"))
    return [n for n in order[:first] if n not in ("2MD", "2DT")]


def wrap_gain(net, name):
    return closed_loop(name, False)[net] / closed_loop(name, True)[net]


def wrap_others_change(name, skip=("2MD",)):
    """The largest relative change of the closed loop between wrapping and not, other networks."""
    return max(abs(wrap_gain(n, name) - 1) for n in closed_loop(name) if n not in skip)


def wrap_swaps(name, skip=("2MD",)):
    """Pairs of other networks whose order flips between wrapping and not: 'A and B swap (a vs b)'."""
    w, nw = closed_loop(name, True), closed_loop(name, False)
    nets = [n for n in closed_loop_rank(name) if n not in skip]
    out = []
    for i, a in enumerate(nets):
        for b in nets[i + 1:]:
            if (w[a] - w[b]) * (nw[a] - nw[b]) < 0:
                out.append(f"{a} and {b} swap ({nw[b]:.4f} vs {nw[a]:.4f} without wrap)")
    return "; ".join(out) if out else "no two swap"


# ---- Validation of the bound on small networks -----------------------------------------------------

VALIDATION = ["torus:8x8", "torus:16x16", "cbanyan:n=4", "cbanyan:n=5", "cbanyan:n=4,S=6"]
VALIDATION_F = (0.5, 0.7, 0.8, 0.9, 1.0, 1.2, 1.5)


@functools.lru_cache(maxsize=None)
def validation(spec):
    """(bound, saturation, accepted at 3 x bound) of uniform traffic on SPEC: `rica bound`, then one
    `rica sweep` at 0.5 .. 1.5 and 3 x the bound (degree link time, round robin, 5,000 cycles
    with a 1,000-cycle warm-up, as the test CycleEngineSaturatesBelowTheBoundAndWithinAStatedFraction)."""
    bound = rica("bound", spec, "--link-cycles", "degree")["bounds"][0]["bound"]
    rates = [f"{min(1.0, f * bound):.6g}" for f in VALIDATION_F + (3,)]
    pts = rica("sweep", spec, "--rates", ",".join(rates), "--cycles", "5000", "--warmup", "1000", "--link-cycles",
               "degree", "--arbitration", "rr", "--no-plot", "--quiet", "--out", "out/reproduction-validation")["points"]
    deep_rate = float(rates[-1])
    peak = max(p["accepted"] for p in pts if p["offered"] != deep_rate)
    deep = [p["accepted"] for p in pts if p["offered"] == deep_rate][0]
    return bound, peak, deep


def validation_table():
    out = ["| network | bound | saturation | / bound | accepted at 3 × bound | / bound |", "|---|---|---|---|---|---|"]
    for spec in VALIDATION:
        b, peak, deep = validation(spec)
        out.append(f"| {spec} | {b:.4f} | {peak:.4f} | {peak / b:.2f} | {deep:.4f} | {deep / b:.2f} |")
    return "\n".join(out)


# ---- The hot spot within and beyond the window -------------------------------------------------------

HOT32 = ("torus:32x32", "--engine", "cycle", "--traffic", "hotspot", "--rate", "0.0169", "--link-cycles", "degree",
         "--arbitration", "rr")


def hot32(cycles, warmup=0):
    """Accepted throughput of the 2D torus under the hot spot at offered 0.0169 (mdce-1024's timing)."""
    return rica("run", *HOT32, "--cycles", str(cycles), "--warmup", str(warmup), "--quiet")["throughput"]


def hot32_bound():
    return rica("bound", "torus:32x32", "--traffic", "hotspot", "--link-cycles", "degree")["bounds"][0]["bound"]


def drain_max(name="mdce-1024", pat="hotspot"):
    """The longest drain after the window (cycles_run - cycles) of a set-up's runs of PATTERN."""
    return max(r["cycles_run"] - r["cycles"] for r in points(name, pattern=pat))


def over_bound(name="mdce-1024", pat="hotspot"):
    v = [r["saturation_over_bound"] for r in exp(name) if r["pattern"] == pat]
    return min(v), max(v)


# ---- Beyond saturation ----------------------------------------------------------------------------

SWEEP16_RATES = "0.02,0.04,0.05,0.06,0.1,1"


def sweep16(arbitration="rr", buffer_words=32):
    """{topology: [(offered, accepted), ...]} of `rica sweep mesh:16x16 hypercube:8 torus:16x16` at
    degree link time (the experiments' timing) with the given output arbitration."""
    args = ["sweep", "mesh:16x16", "hypercube:8", "torus:16x16", "--rates", SWEEP16_RATES, "--link-cycles", "degree",
            "--arbitration", arbitration, "--no-plot", "--quiet", "--out", "out/reproduction-sweep16"]
    if buffer_words != 32:
        args += ["--buffer-words", str(buffer_words)]
    out = {}
    for p in rica(*args)["points"]:
        out.setdefault(p["topology"].replace("hypercube:n=8", "hypercube:8"), []).append((p["offered"], p["accepted"]))
    return out


def peak16(topology, **kw):
    return max(a for _, a in sweep16(**kw)[topology])


def at_one16(topology, **kw):
    """Accepted throughput at offered load 1."""
    return [a for o, a in sweep16(**kw)[topology] if o == 1][0]


@functools.lru_cache(maxsize=None)
def torus16(rate):
    """One torus:16x16 run at offered load RATE (degree link time, round robin, 500-cycle telemetry
    windows): (per-PE rows, per-link rows, telemetry window rows), from its CSV files under out/."""
    base = f"out/reproduction-torus16-{rate}"
    os.makedirs(os.path.join(ROOT, "out"), exist_ok=True)  # rica refuses a --csv into a missing directory
    _run(["run", "torus:16x16", "--engine", "cycle", "--rate", str(rate), "--link-cycles", "degree", "--arbitration",
          "rr", "--telemetry", "500", "--csv", base + ".csv", "--quiet"])
    read = lambda suffix: [{k: _num(v) for k, v in r.items()} for r in csvmod.DictReader(open(os.path.join(ROOT, base + suffix)))]
    return read(".csv"), read(".links.csv"), read(".telemetry_windows.csv")


def torus16_injected(rate=1):
    """(min, max, median) packets injected per PE, and the mean per x coordinate."""
    pes = torus16(rate)[0]
    inj = sorted(r["injected"] for r in pes)
    by_x = {}
    for r in pes:
        by_x.setdefault(r["pe"] % 16, []).append(r["injected"])
    return inj[0], inj[-1], inj[len(inj) // 2], {x: sum(v) / len(v) for x, v in by_x.items()}


def torus16_xplus(rate=1):
    """Per x: the mean busy fraction of the x+ links (packets x link time 8 cycles / 10,000 cycles)."""
    by_x = {}
    for r in torus16(rate)[1]:
        n, peer = r["node"], r["peer"]
        if peer == n - n % 16 + (n % 16 + 1) % 16:
            by_x.setdefault(n % 16, []).append(r["packets"] * 8 / 10000)
    return {x: sum(v) / len(v) for x, v in by_x.items()}


def torus16_bins(rate=1):
    """Delivered packets per PE per cycle in each 500-cycle window of the injection window."""
    return [r["delivered"] / 256 / 500 for r in torus16(rate)[2] if r["end"] <= 10000]


def fall(net, name="mdce-1024", pat="uniform"):
    """(peak accepted, accepted at the grid's highest rate, that rate / bound, 1 - last / peak)."""
    rows = sorted(points(name, network=net, pattern=pat), key=lambda r: r["rate"])
    peak, last = max(r["accepted"] for r in rows), rows[-1]["accepted"]
    return peak, last, rows[-1]["rate"] / erow(name, net, pat)["bound"], 1 - last / peak


LOWD = ["CB", "CCCB", "MIN", "(CB)^2", "CCC"]   # mdce-1024: the low-diameter networks
HIGHD = ["3DT", "2DT", "FT", "2MD"]


RWC = ["CB", "Adaptive CB", "(CB)^2", "CCCB", "MIN", "2MD", "2DT"]
RWC_HOT = (0.004, 0.006)  # delivered rates below every rwc1 network's hot-spot saturation


def lat_at(net, rate, name="rwc1", pat="hotspot"):
    """The mean latency at offered load RATE, interpolated linearly between each seed's neighbouring
    rates in points.csv: 'lo – hi' cycles over the seeds."""
    rows = points(name, network=net, pattern=pat)
    lat = []
    for sd in sorted({r["seed"] for r in rows}):
        rs = sorted((r for r in rows if r["seed"] == sd), key=lambda r: r["rate"])
        for a, b in zip(rs, rs[1:]):
            if a["rate"] <= rate <= b["rate"]:
                lat.append(a["latency_mean"] + (rate - a["rate"]) / (b["rate"] - a["rate"]) * (b["latency_mean"] - a["latency_mean"]))
                break
    if not lat:
        raise ValueError(f"lat_at({net!r}, {rate}): outside the sweep")
    lo, hi = round(min(lat)), round(max(lat))
    return f"{lo:,}" if lo == hi else f"{lo:,} – {hi:,}"


ADAPTIVE = {"2DT": "2DT adaptive", "HC": "HC adaptive", "FT": "FT adaptive", "CB": "Adaptive CB", "CCCB": "Adaptive CCCB"}


def gain(det, pat):
    """Adaptive over deterministic saturation in the adaptive experiment, '≥' when the knee was not reached."""
    a = erow("adaptive", ADAPTIVE[det], pat)
    return f"{'' if a['knee_reached'] else '≥ '}{a['saturation'] / erow('adaptive', det, pat)['saturation']:.1f}x"


def S(net, pat="uniform", name="mdce-1024"):
    """Saturation throughput of NET under PAT in docs/experiments/NAME/table.json."""
    return erow(name, net, pat)["saturation"]


def Z(net, pat="uniform", name="mdce-1024"):
    """Measured zero-load latency (the sweep's lowest rate)."""
    return erow(name, net, pat)["zero_load_latency"]


def zrange(nets, pat, name="mdce-1024"):
    zs = [Z(n, pat, name) for n in nets]
    return f"{min(zs):.1f} – {max(zs):.1f}"


def _interp_latency(rows, x):
    """Latency at delivered (accepted) rate x along one seed's curve, rates ascending; None past it."""
    rows = sorted(rows, key=lambda r: r["rate"])
    for a, b in zip(rows, rows[1:]):
        if a["accepted"] <= x <= b["accepted"] and b["accepted"] > a["accepted"]:
            t = (x - a["accepted"]) / (b["accepted"] - a["accepted"])
            return a["latency_mean"] + t * (b["latency_mean"] - a["latency_mean"])
    return None


def hotspot_latency_table(rates=(0.004, 0.005), nets=("MIN", "CB", "CCCB", "(CB)^2", "CCC", "2DT", "3DT", "2MD", "FT"),
                          name="mdce-1024"):
    out = ["   | delivered rate | " + " | ".join(nets) + " |", "   |---|" + "---|" * len(nets)]
    for x in rates:
        cells = []
        for n in nets:
            rows = points(name, network=n, pattern="hotspot")
            lat = [_interp_latency([r for r in rows if r["seed"] == sd], x) for sd in sorted({r["seed"] for r in rows})]
            lat = [v for v in lat if v is not None]
            lo, hi = round(min(lat)), round(max(lat))
            cells.append(f"{lo:,}" if lo == hi else f"{lo:,} – {hi:,}")
        out.append(f"   | {x} | " + " | ".join(cells) + " |")
    return "\n".join(out)


def hot_lat(net, x, name="mdce-1024"):
    """Per seed, the hot-spot mean latency interpolated at delivered rate x (None past the curve)."""
    rows = points(name, network=net, pattern="hotspot")
    return [_interp_latency([r for r in rows if r["seed"] == sd], x) for sd in sorted({r["seed"] for r in rows})]


def hot_range(net, x, name="mdce-1024"):
    """(min, max) over the seeds of the hot-spot latency at delivered rate x."""
    lat = [v for v in hot_lat(net, x, name) if v is not None]
    return min(lat), max(lat)


def hot_vs(net, ref, x, name="mdce-1024"):
    """'above' / 'below' when every seed of NET is above / below every seed of REF at delivered
    rate x (rounded to whole cycles, as the table shows them), else 'overlapping'."""
    a, b = [tuple(round(v) for v in hot_range(n, x, name)) for n in (net, ref)]
    return "above" if a[0] > b[1] else "below" if a[1] < b[0] else "overlapping"


def hot_order(nets, x, name="mdce-1024"):
    """NETS by their mean hot-spot latency over the seeds at delivered rate x, lowest first."""
    return sorted(nets, key=lambda n: sum(hot_range(n, x, name)))


def hot_rise(nets, lo=0.004, hi=0.005):
    """(min, max) over NETS and seeds of latency at hi / latency at lo."""
    r = [b / a for n in nets for a, b in zip(hot_lat(n, lo), hot_lat(n, hi)) if a and b]
    return min(r), max(r)


def hot_seed_spread(name="mdce-1024"):
    """The largest relative spread of the hot-spot saturation between seeds, over networks."""
    return max((r["saturation_max"] - r["saturation_min"]) / r["saturation_max"] for r in exp(name)
               if r["pattern"] == "hotspot")


# ---- Store-and-forward against cut-through (the timing change of issue 10) ------------------------

@functools.lru_cache(maxsize=None)
def zero_load_by_timing(name, timing):
    """{network label: mean latency at offered 0.001} of set-up NAME's deterministic networks under
    --timing TIMING (one `rica sweep` with the set-up's model)."""
    cfg = config(name)
    nets = [(n["label"], n["spec"]) for n in cfg["networks"] if n.get("routing", "deterministic") == "deterministic"]
    pts = rica("sweep", *[spec for _, spec in nets], "--rates", "0.001", "--timing", timing, "--link-cycles",
               str(cfg["link_cycles"]), "--buffer-words", str(cfg["buffer_words"]), "--packet-words",
               f"{cfg['packet_words']}:{cfg['packet_spread']}", "--arbitration", "rr", "--cycles", "10000", "--no-plot",
               "--quiet", "--out", "out/reproduction-timing")["points"]
    return {label: p["latency_mean"] for (label, _), p in zip(nets, pts)}


@functools.lru_cache(maxsize=None)
def closed_loop_saf(name):
    """{network label: accepted} of set-up NAME's deterministic networks in the mesh emulation's
    closed loop (pacing rate 1, no warm-up) under store-and-forward timing."""
    cfg = config(name)
    nets = [(n["label"], n["spec"]) for n in cfg["networks"] if n.get("routing", "deterministic") == "deterministic"]
    pts = rica("sweep", *[spec for _, spec in nets], "--traffic", "mesh", "--rates", "1", "--timing", "saf",
               "--link-cycles", str(cfg["link_cycles"]), "--buffer-words", str(cfg["buffer_words"]), "--packet-words",
               f"{cfg['packet_words']}:{cfg['packet_spread']}", "--arbitration", "rr", "--cycles", "10000",
               "--warmup", "0", "--no-plot", "--quiet", "--out", "out/reproduction-timing")["points"]
    return {label: p["accepted"] for (label, _), p in zip(nets, pts)}


def vct_over_saf(name):
    saf, vct = zero_load_by_timing(name, "saf"), zero_load_by_timing(name, "vct")
    return {n: vct[n] / saf[n] for n in saf}


# ---- de Bruijn §4: embeddings under one fault, and the mesh guest -------------------------------------

FAULT_EMBED = [  # (claim, guest on ubruijn:10, one fault)
    ("(3) one failed node: a linear array of N − 1 nodes", "array:1023", "nodes=1"),
    ("(4) one failed link: a linear array of N − 1 nodes", "array:1023", "links=1"),
    ("(5) one failed node: a ring of at least N − log2 N − 1 nodes", "ring:1013", "nodes=1"),
    ("(6) one failed link: a ring of N − 1 nodes", "ring:1023", "links=1"),
    ("(9) one failed link: a complete binary tree of N − 1 nodes (height log2 N − 1)", "tree:9", "links=1"),
    ("(10) one failed node: a complete binary tree of N/2 − 1 nodes (height log2 N − 2)", "tree:8", "nodes=1"),
]
FAULT_SEEDS = range(1, 11)


def fault_embed(guest, faults, seed):
    return rica("embed", guest, "ubruijn:10", "--faults", faults, "--seed", str(seed))


def _search_note(claim):
    """'; the search above shows it ...' when the search's row for the same claim holds."""
    for c, guest, faults in SEARCH_CLAIMS:
        if c.split(" ")[0] == claim.split(" ")[0] and every_fault_verdict(guest, faults).startswith("**holds**"):
            return "; the search above shows it for every single fault at N = " + " and ".join(str(2 ** n) for n in SEARCH_SIZES)
    return ""


def fault_embed_table():
    out = ["| claim (N = 1,024) | `rica embed GUEST ubruijn:10 --faults F --seed 1..10` | fault draws emulated exactly "
           "(dilation 1, load 1) | worst dilation / load | verdict |", "|---|---|---|---|---|"]
    for claim, guest, faults in FAULT_EMBED:
        rs = [fault_embed(guest, faults, sd) for sd in FAULT_SEEDS]
        exact = sum(r["dilation"] == 1 and r["load"] == 1 for r in rs)
        worst = max(rs, key=lambda r: (r["dilation"], r["load"]))
        verdict = ("**holds** (rica's rule, every draw)" if exact == len(rs) else
                   f"**not shown** by rica's rule ({exact} of {len(rs)} draws exact)" + _search_note(claim))
        out.append(f"| {claim} | `{guest}`, `{faults}` | {exact} of {len(rs)} | {worst['dilation']} / {worst['load']} | "
                   f"{verdict} |")
    return "\n".join(out)


SE_SIZES = (3, 4, 5)


def se_search(n):
    return rica("embed", "shuffle-exchange", f"ubruijn:{n}", "--map", "search")


def se_cells():
    words = {"found": "finds one", "none": "proves there is none", "gave up": "gives up (budget)"}
    return "; ".join(f"n = {n}: {words[se_search(n)['search']]} ({se_search(n)['search_steps']:,} steps)" for n in SE_SIZES)


def se_verdict():
    st = [se_search(n)["search"] for n in SE_SIZES]
    if all(x == "none" for x in st):
        return ("partly: holds at dilation 2 (the paper gives no dilation); differs at dilation 1, the page's reading of "
                "\"emulate\" — no placement exists at n = " + ", ".join(str(n) for n in SE_SIZES))
    if all(x == "found" for x in st):
        return ("holds: at dilation 2 with node v on PE v (n = 10), and at dilation 1 — the page's reading of "
                "\"emulate\" — with the placements the search finds at n = " + ", ".join(str(n) for n in SE_SIZES) +
                " (larger n not searched)")
    return "partly: holds at dilation 2; at dilation 1 the search settles only some sizes"


SEARCH_CLAIMS = [  # (claim, guest on UB(2,n) as a function of n, the single fault)
    ("(3) one failed node: a linear array of N − 1 nodes", lambda n: f"array:{2 ** n - 1}", "nodes=1"),
    ("(4) one failed link: a linear array of N − 1 nodes", lambda n: f"array:{2 ** n - 1}", "links=1"),
    ("(5) one failed node: a ring of at least N − log2 N − 1 nodes", lambda n: f"ring:{2 ** n - n - 1}", "nodes=1"),
    ("(6) one failed link: a ring of N − 1 nodes", lambda n: f"ring:{2 ** n - 1}", "links=1"),
    ("(9) one failed link: a complete binary tree of N − 1 nodes (height log2 N − 1)", lambda n: f"tree:{n - 1}", "links=1"),
    ("(10) one failed node: a complete binary tree of N/2 − 1 nodes (height log2 N − 2)", lambda n: f"tree:{n - 2}", "nodes=1"),
]
SEARCH_SIZES = (5, 6)


def every_fault(guest, n, faults):
    """`rica embed GUEST ubruijn:n --faults F --map search --every-fault`: its every_fault object."""
    return rica("embed", guest, f"ubruijn:{n}", "--faults", faults, "--map", "search", "--every-fault")["every_fault"]


def every_fault_cell(guest, n, faults):
    e = every_fault(guest, n, faults)
    cell = f"`{guest}`: {e['found']} of {e['faults']}"
    if e["none"]:
        cell += f", none exists for {e['none']}"
    if e["gave_up"]:
        cell += f", open for {e['gave_up']} (budget)"
    return cell + f" ({e['steps_max']:,} steps at most)"


def every_fault_verdict(claim_guest, faults):
    es = [every_fault(claim_guest(n), n, faults) for n in SEARCH_SIZES]
    if all(e["found"] == e["faults"] for e in es):
        return "**holds** for every single fault at N = " + " and ".join(f"{2 ** n}" for n in SEARCH_SIZES)
    if any(e["none"] for e in es):
        return "**differs**: some single fault leaves no such placement (exhaustive search)"
    return "**partly**: shown for the faults the search settled, the others left open by its budget"


def search_held(held=True):
    """The claim numbers ("(3)", ...) the search shows for every single fault (held) or not."""
    return ", ".join(c.split(" ")[0] for c, g, f in SEARCH_CLAIMS
                     if every_fault_verdict(g, f).startswith("**holds**") == held) or "none"


def search_refuted():
    return any(every_fault(g(n), n, f)["none"] for c, g, f in SEARCH_CLAIMS for n in SEARCH_SIZES)


def fault_search_table():
    out = ["| claim | faults | N = " + " | N = ".join(f"{2 ** n} (`ubruijn:{n}`)" for n in SEARCH_SIZES) + " | verdict |",
           "|---|---|" + "---|" * len(SEARCH_SIZES) + "---|"]
    for claim, guest, faults in SEARCH_CLAIMS:
        cells = [every_fault_cell(guest(n), n, faults) for n in SEARCH_SIZES]
        out.append(f"| {claim} | every {'link' if faults == 'links=1' else 'node'} | " + " | ".join(cells) +
                   f" | {every_fault_verdict(guest, faults)} |")
    return "\n".join(out)


# ---- RWC-1 §4: drain against flush (`rica os`, docs/os.md) -----------------------------------------

OS_NETS = ("cccb:n=4",)
OS_RATES = (0.002, 0.05)


@functools.lru_cache(maxsize=None)
def os_runs(spec):
    """`rica os SPEC --rate 0.002,0.05 --slice 500 --packets 20` (docs/os.md's set-up, one slice): its runs."""
    out = _run(["os", spec, "--rate", ",".join(str(r) for r in OS_RATES), "--slice", "500", "--packets", "20",
                "--threads", "2", "--json", "-"])
    return json.loads(out[out.index("\n{") + 1:])["runs"]  # the console table comes first on stdout


def os_run(spec, policy, rate):
    rs = [r for r in os_runs(spec) if r["policy"] == policy and abs(r["rate"] - rate) < 1e-12]
    if len(rs) != 1:
        raise ValueError(f"os_run({spec!r}, {policy!r}, {rate}): {len(rs)} runs")
    return rs[0]


def os_vs_b2b(spec, policy, rate):
    return os_run(spec, policy, rate)["completion"] / os_run(spec, "baseline", rate)["completion"]


def drain_flush_table():
    out = ["   | network | offered | drain: cycles per switch (max) | drain bound | flush: cycles (max) | of which detection | "
           "packets saved per switch (drain / flush) | completion vs back to back (drain / flush) |",
           "   |---|---|---|---|---|---|---|---|"]
    for spec in OS_NETS:
        for rate in OS_RATES:
            d, f = os_run(spec, "drain", rate), os_run(spec, "flush", rate)
            out.append(f"   | `{spec}` | {rate} | {d['switch_cycles']['mean']:,.1f} ({d['switch_cycles']['max']:,}) | "
                       f"{d['bound_cycles']['max']:,} | {f['switch_cycles']['mean']:,.1f} ({f['switch_cycles']['max']:,}) | "
                       f"{f['detect_cycles']['mean']:,.1f} | {d['packets_saved']['mean']:,.1f} / {f['packets_saved']['mean']:,.1f} | "
                       f"{os_vs_b2b(spec, 'drain', rate):.3f} / {os_vs_b2b(spec, 'flush', rate):.3f} |")
    return "\n".join(out)


def flush_over_drain():
    v = [os_run(s, "flush", r)["switch_cycles"]["mean"] / os_run(s, "drain", r)["switch_cycles"]["mean"]
         for s in OS_NETS for r in OS_RATES]
    return min(v), max(v)


def drain_within_bound():
    return all(os_run(s, "drain", r)["switch_cycles"]["max"] <= os_run(s, "drain", r)["bound_cycles"]["max"]
               for s in OS_NETS for r in OS_RATES)


# ---- Eight-neighbour paper §2: 16 routes on the mesh, 56 on the torus -------------------------------

def _route_cases(n, wrap):
    """One (source, destination) pair of an n x n 8-neighbour mesh or torus (n odd: no ties) per
    positional case of the paper's routing, with the case: per axis the move (+ or − or none) and,
    on the torus, whether it crosses the wrap-around; and how |dx| compares with |dy|."""
    cases = {}
    for dx in range(-(n - 1), n):
        for dy in range(-(n - 1), n):
            if dx == 0 and dy == 0:
                continue
            def axis(d):
                if d == 0:
                    return ("0", False, 0)
                if not wrap or abs(d) <= n // 2:
                    return ("+" if d > 0 else "-", False, abs(d))
                return ("-" if d > 0 else "+", True, n - abs(d))   # the shorter way is across the wrap
            ax, ay = axis(dx), axis(dy)
            cmp = "=" if ax[2] == ay[2] else "<" if ax[2] < ay[2] else ">"
            key = (ax[0], ax[1], ay[0], ay[1], cmp if ax[2] and ay[2] else "")
            if key not in cases:
                sx = 0 if dx >= 0 else -dx
                sy = 0 if dy >= 0 else -dy
                cases[key] = ((sx, sy), (sx + dx, sy + dy))
    return cases


def _route_signature(path, n):
    """(x move, x crossed the wrap, y move, y crossed the wrap, |dx| vs |dy|) of a `rica route` path."""
    xs, ys, xw, yw = set(), set(), False, False
    diag = straight_x = straight_y = 0
    for hop in path:
        (x0, y0), (x1, y1) = (tuple(int(v) for v in hop[k].strip("()").split(",")) for k in ("from", "to"))
        ddx, ddy = x1 - x0, y1 - y0
        if abs(ddx) > 1:
            xw, ddx = True, -ddx // abs(ddx)
        if abs(ddy) > 1:
            yw, ddy = True, -ddy // abs(ddy)
        if ddx:
            xs.add("+" if ddx > 0 else "-")
        if ddy:
            ys.add("+" if ddy > 0 else "-")
        diag += bool(ddx and ddy)
        straight_x += bool(ddx and not ddy)
        straight_y += bool(ddy and not ddx)
    if len(xs) > 1 or len(ys) > 1:
        return None  # not one of the paper's routes (a direction reversed)
    x, y = (xs.pop() if xs else "0"), (ys.pop() if ys else "0")
    cmp = "" if x == "0" or y == "0" else "=" if not straight_x and not straight_y else "<" if straight_y else ">"
    return (x, xw, y, yw, cmp)


@functools.lru_cache(maxsize=None)
def route_cases(spec):
    """(cases, cases whose rica route has the case's signature, distinct signatures) for one pair per
    positional case on SPEC (mesh8:n or torus8:n, n odd), each routed by `rica route SPEC S D`."""
    n = int(spec.split(":")[1])
    cases = _route_cases(n, spec.startswith("torus8"))
    sigs, match = set(), 0
    for key, (s, d) in cases.items():
        path = rica("route", spec, f"({s[0]},{s[1]})", f"({d[0]},{d[1]})")["path"]
        sig = _route_signature(path, n)
        sigs.add(sig)
        match += sig == key
    return len(cases), match, len(sigs)


# ---- MDCE §3.4: partitions along any combination of dimensions -----------------------------------

MDCE_PARTS = [("cccb:n=4", "--dims", "1:2"), ("cccb:n=4", "--dims", "2:2"), ("cccb:n=4", "--dims", "2:1,1:1"),
              ("cb2:n=4", "--dims", "1,2", "--parts", "8"), ("cb2:n=4", "--dims", "2:3,1:1")]


def mdce_parts_cell(args):
    plan = rica("partition", *args)
    parts = plan["partitions"]
    return (f"`rica partition {' '.join(args)}`: {sum(p['closed'] for p in parts)} of {len(parts)} closed, "
            f"{parts[0]['size']} PEs each")


def mdce_parts_all_closed():
    return all(all(p["closed"] for p in rica("partition", *a)["partitions"]) for a in MDCE_PARTS)


def mesh_guest(host):
    return rica("embed", "mesh", host)


BISECT = [("2D mesh", "mesh:32x32", "N/k = 32"), ("2D torus", "torus:32x32", "2N/k = 64"),
          ("3D torus", "torus:8x8x16", "—"), ("hypercube", "hypercube:10", "N/2 = 512"),
          ("8-neighbour mesh", "mesh8:32", "—"), ("8-neighbour torus", "torus8:32", "—"),
          ("(CB)^2", "cb2:n=4", "—"), ("CCCB", "cccb:n=4", "—"), ("c-Banyan 8x128", "cbanyan:n=7,S=8", "—"),
          ("CCC 8x128", "ccc:n=7,S=8", "—"), ("circular Omega 8x128", "comega:n=7,S=8", "—"),
          ("UB(2,10)", "ubruijn:10", "—"), ("B(2,10)", "debruijn:10", "—"), ("shuffle-exchange", "shuffle:10", "—"),
          ("M_{x+x} 32", "mxx:32", "—"), ("Manhattan street 32x32", "msn:32x32", "—"),
          ("fat tree", "fattree:10", "—"), ("Omega", "omega:10", "—")]


def bisection_table():
    out = ["| network | `rica topo` | PEs | links L | bisection B | B / (N/2) | method |", "|---|---|---|---|---|---|---|"]
    for label, spec, _ in BISECT:
        j = topo(spec)
        b = j["bisection"]
        cell = "—" if b is None else (f"{b:,}" if j["bisection_exact"] else f"≤ {b:,}")
        ratio = "—" if b is None else f"{b / (j['pes'] / 2):.3f}"
        out.append(f"| {label} | `{spec}` | {j['pes']:,} | {j['links']:,} | {cell} | {ratio} | {j['bisection_method']} |")
    return "\n".join(out)


def commands_list():
    return ("\n".join(f"    {c}" for c in COMMANDS) + "\n\nand the committed outputs of `rica experiment` and "
            "the scripts named above that it read:\n\n" + "\n".join(f"    {f}" for f in FILES))


# ---- rendering -------------------------------------------------------------------------------

def _env():
    env = {k: v for k, v in globals().items() if not k.startswith("_")}
    env["math"] = math
    return env


def _split(body):
    # EXPR|FORMAT: the last '|' outside brackets and quotes separates the format.
    depth, quote, cut = 0, None, -1
    for i, c in enumerate(body):
        if quote:
            if c == quote:
                quote = None
        elif c in "'\"":
            quote = c
        elif c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif c == "|" and depth == 0:
            cut = i
    return (body, "") if cut < 0 else (body[:cut], body[cut + 1:])


def render(text):
    env = _env()
    out, i = [], 0
    while True:
        j = text.find("{{", i)
        if j < 0:
            out.append(text[i:])
            break
        k = text.find("}}", j)
        if k < 0:
            raise ValueError(f"unclosed placeholder at {text[j:j + 40]!r}")
        out.append(text[i:j])
        body = text[j + 2:k]
        try:
            if body.startswith("!"):
                out.append(str(eval(body[1:], env)))
            else:
                expr, spec = _split(body)
                out.append(fmt(eval(expr, env), spec))
        except Exception as e:
            raise SystemExit(f"reproduction.md.in: {{{{{body}}}}}: {type(e).__name__}: {e}")
        i = k + 2
    return "".join(out)


def main():
    global RICA
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    if args:
        RICA = os.path.abspath(args[0])
    with open(TEMPLATE) as f:
        text = f.read()
    page = render(text)
    page = page.replace("@COMMANDS@", commands_list())
    if "--stdout" in sys.argv:
        sys.stdout.write(page)
    elif "--check" in sys.argv:
        with open(PAGE) as f:
            old = f.read()
        if old != page:
            import difflib
            sys.stdout.writelines(difflib.unified_diff(old.splitlines(True), page.splitlines(True),
                                                       "docs/reproduction.md (committed)", "regenerated", n=1))
            print("\ndocs/reproduction.md differs from what scripts/reproduction_tables.py generates: "
                  "edit scripts/reproduction.md.in and rerun `scripts/reproduction_tables.py build/rica`.")
            sys.exit(1)
        print(f"docs/reproduction.md is up to date ({len(COMMANDS)} rica commands)")
    else:
        with open(PAGE, "w") as f:
            f.write(page)
        print(f"wrote {PAGE} ({len(COMMANDS)} rica commands)", file=sys.stderr)


if __name__ == "__main__":
    main()
