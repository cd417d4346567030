#!/usr/bin/python3
"""rica's cycle engine against BookSim2: the same networks, sizes, traffic and routing in both tools.

Regenerates docs/validation.md, its overlaid plots (docs/validation/*.png, .svg) and the figures
behind them (docs/validation/rica.csv, docs/validation/booksim.csv).

    scripts/validation/booksim_compare.py [--rica build/rica] [--booksim PATH [--booksim-ugal0 PATH]]

With --booksim (a BookSim2 binary built by scripts/validation/build_booksim.sh) BookSim2 is run and
docs/validation/booksim.csv rewritten; without it the recorded BookSim2 figures are used, so the page
regenerates where BookSim2 is absent. rica is always run (a few minutes on one core).

Every run of either tool is stopped after --run-timeout seconds (default 600): one BookSim2 run of
the recorded set never finished. A stopped run counts as unstable (its figures
NaN, so the saturation search treats it as past saturation) and is named on stderr at once and in
a summary at the end.

Every configuration, option and model setting is declared once, below; the page quotes them from here.
"""
import argparse
import csv
import json
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "scripts"))

# ---- The shared model: one setting per line, both tools ---------------------------------------------
PACKET = 1          # words (rica) = flits (BookSim2) per packet
BUFFER = 8          # words per (input port, buffer class) = flits per virtual channel
ROUTER = 3          # rica --router-cycles = BookSim2 VC + switch allocation + crossbar (routing delay 0)
CYCLES = 10000      # rica: injection window; BookSim2: warm-up + up to 7 samples of 1000
WARMUP = 3000
SEED = 1
HOT = 0             # the hot PE
HOT_FRACTION = 0.1  # of the packets go to it, the rest uniform
RUN_TIMEOUT = 600   # seconds a single run of either tool may take (--run-timeout); beyond it the run is
                    # stopped, counted unstable (no figures) and reported (TIMED_OUT, stderr, the summary)
TIMED_OUT = []      # (tool, network, traffic, offered) of every run stopped by the timeout

RICA_COMMON = ["--engine", "cycle", "--link-cycles", "1", "--packet-words", f"{PACKET}:0",
               "--buffer-words", str(BUFFER), "--router-cycles", str(ROUTER), "--arbitration", "rr",
               "--cycles", str(CYCLES), "--warmup", str(WARMUP), "--seed", str(SEED), "--threads", "1", "--quiet"]
BOOKSIM_COMMON = {
    "router": "iq", "packet_size": PACKET, "vc_buf_size": BUFFER,
    "routing_delay": 0, "vc_alloc_delay": 1, "sw_alloc_delay": 1, "st_final_delay": 1,
    "injection_process": "bernoulli", "sample_period": 1000, "warmup_periods": 3, "max_samples": 10,
    "seed": SEED,
    "use_noc_latency": 0,  # else BookSim2 gives a torus's channels 2 cycles (a folded layout), a mesh's 1
}

# ---- The networks ----------------------------------------------------------------------------------
NETWORKS = {
    "mesh": dict(rica="mesh:8x8", routing="deterministic", classes=1, pes=64,
                 booksim={"topology": "mesh", "k": 8, "n": 2, "routing_function": "dim_order", "num_vcs": 1},
                 text="8x8 mesh, dimension order"),
    "torus": dict(rica="torus:8x8", routing="deterministic", classes=2, pes=64,
                  booksim={"topology": "torus", "k": 8, "n": 2, "routing_function": "dim_order", "num_vcs": 2},
                  text="8x8 torus, dimension order (dateline: 2 classes / VCs)"),
    "df-min": dict(rica="dragonfly:h=2", routing="deterministic", classes=2, pes=72,
                   booksim={"topology": "dragonflynew", "k": 2, "n": 1, "routing_function": "min", "num_vcs": 2},
                   text="dragonfly p = h = 2, a = 4, g = 9 (72 terminals), minimal"),
    "df-ugal": dict(rica="dragonfly:h=2", routing="ugal-l", classes=3, pes=72,
                    booksim={"topology": "dragonflynew", "k": 2, "n": 1, "routing_function": "ugal", "num_vcs": 3},
                    text="the same dragonfly, UGAL-L"),
}

# ---- The traffic: rica's pattern and BookSim2's (classes, patterns, shares of the rate) -------------
TRAFFIC = {
    "uniform": dict(rica="uniform", booksim=["uniform"], share=[1.0]),
    # rica: the 8 PEs on the diagonal of the 8x8 shape are fixed points and send nothing (BookSim2:
    # they send to themselves), so rica's accepted rate is 7/8 of the offered load at most.
    "transpose": dict(rica="transpose", booksim=["transpose"], share=[1.0], rica_senders=7 / 8),
    "bitcomp": dict(rica="bitcomp", booksim=["bitcomp"], share=[1.0]),
    "hotspot": dict(rica=f"hotspot:fraction={HOT_FRACTION},hot={HOT}", booksim=["uniform", f"hotspot({{{HOT}}})"],
                    share=[1 - HOT_FRACTION, HOT_FRACTION]),
    # BookSim2's bad_dragon: every packet to a random terminal of the next group; rica: the same matrix.
    "nextgroup": dict(rica="matrix:{nextgroup}", booksim=["bad_dragon"], share=[1.0]),
}

TRAFFIC_WORDS = {"uniform": "uniform", "transpose": "transpose", "bitcomp": "bit-complement", "hotspot": "hot-spot",
                 "nextgroup": "next-group"}

CASES = [(n, t) for n in ("mesh", "torus") for t in ("uniform", "transpose", "bitcomp", "hotspot")] + \
        [(n, t) for n in ("df-min", "df-ugal") for t in ("uniform", "nextgroup", "hotspot")]

RATES = [0.01] + [round(0.05 * i, 2) for i in range(1, 21)]

# One-parameter changes that isolate a model difference: (case, variant, rica args, BookSim2 settings).
# BookSim2's input-queued router allocates an output virtual channel to one packet at a time and frees
# it when the packet's tail has crossed the switch; without speculation the next packet's VC allocation
# then takes a cycle before its switch allocation, so with one-flit packets a VC carries a packet every
# 2 cycles at most. rica's buffer class is fixed by the route and takes a packet whenever it has room.
# `speculative = 1` (switch allocation in the same cycle as VC allocation) removes that turnaround.
SPECULATIVE = {"speculative": 1}
VARIANTS = [(n, t, "speculative", [], SPECULATIVE) for n, t in CASES] + [
    # BookSim2's UGAL takes the minimal path unless q_min > 2 q_nonmin + 30 (flits): with 3 VCs of 8
    # flits a port holds 24 at most, so it never leaves the minimal path. rica's UGAL-L: q_min H_min >
    # q_val H_val, no threshold. The same BookSim2 with the threshold 0:
    ("df-ugal", "nextgroup", "speculative-ugal0", [], dict(SPECULATIVE, binary="ugal0")),
    ("df-ugal", "uniform", "speculative-ugal0", [], dict(SPECULATIVE, binary="ugal0")),
    # BookSim2's non-minimal packet goes to a random intermediate *router* and turns minimal there;
    # rica's to a random intermediate *group*, minimal from its entry. The same BookSim2 (threshold 0)
    # turning minimal on entering the intermediate router's group:
    ("df-ugal", "nextgroup", "speculative-ugal0-group", [], dict(SPECULATIVE, binary="ugal0g")),
] + [
    # On a ring, a destination k/2 away is reached the + way in rica and either way at random in
    # BookSim2's dim_order_torus; the same BookSim2 with + on a tie (one condition changed):
    ("torus", t, "speculative-tieplus", [], dict(SPECULATIVE, binary="tieplus")) for t in ("uniform", "transpose", "hotspot")
] + [
    # rica offers the head of every (input port, class) buffer to the output arbitration each cycle,
    # so the two classes of one input port may both move; BookSim2 reads one flit per input port per
    # cycle (input_speedup 1). The same BookSim2 with one crossbar input per VC:
    ("torus", "bitcomp", "speculative-speedup2", [], dict(SPECULATIVE, input_speedup=2)),
    # BookSim2 picks a ring's VC partition once, on entering the ring (1: the path wraps, 0: it does
    # not; per direction); rica's class is a function of the rest of the path at every hop. The same
    # BookSim2 choosing the partition at every hop from the rest of the path (one condition):
    ("torus", "bitcomp", "speculative-dateline", [], dict(SPECULATIVE, binary="dateline")),
    # Four times the storage per VC, the VCs unchanged (the storage of num_vcs = 8 below):
    ("torus", "bitcomp", "speculative-buf32", [], dict(SPECULATIVE, vc_buf_size=4 * BUFFER)),
    # Four VCs per partition: packets entering a channel need not take turns for one output VC.
    ("torus", "bitcomp", "speculative-vcs8", [], dict(SPECULATIVE, num_vcs=8)),
    # UGAL (threshold 0, intermediate group) weighing the queues by the paths' router hops as rica
    # does, not 1 : 2 (booksim-ugal-hops.patch):
    ("df-ugal", "nextgroup", "speculative-ugal0-group-hops", [], dict(SPECULATIVE, binary="ugal0gh")),
    # ... with 4 VCs per UGAL phase (booksim-ugal-vcs.patch; with num_vcs = 3 it is booksim-ugal0g):
    ("df-ugal", "nextgroup", "speculative-ugal0-group-vcs12", [], dict(SPECULATIVE, binary="ugal0gv", num_vcs=12)),
    # Why BookSim2's UGAL needs the depth, one change at a time at 8 flits, from booksim-ugal0g:
    # each path's queue the occupancy of the one VC it takes out of the router, not of the whole port
    # (booksim-ugal-pervc.patch; rica reads the port's, all classes):
    ("df-ugal", "nextgroup", "speculative-ugal0-group-pervc", [], dict(SPECULATIVE, binary="ugal0gp")),
    # the choice made again, with the credits of the cycle, in every cycle the head waits at its source
    # router for VC allocation, as rica's (booksim-ugal-fresh.patch); BookSim2 makes it once, with
    # routing_delay = 0 (lookahead routing) when the packet leaves its terminal:
    ("df-ugal", "nextgroup", "speculative-ugal0-group-fresh", [], dict(SPECULATIVE, binary="ugal0gf")),
    # both of these (booksim-ugal-pervc.patch and booksim-ugal-fresh.patch):
    ("df-ugal", "nextgroup", "speculative-ugal0-group-pervc-fresh", [], dict(SPECULATIVE, binary="ugal0gpf")),
    # one crossbar input per VC (input_speedup = num_vcs), as rica offers every (port, class) head:
    ("df-ugal", "nextgroup", "speculative-ugal0-group-speedup3", [], dict(SPECULATIVE, binary="ugal0g", input_speedup=3)),
    # Under uniform traffic, from BookSim2's UGAL as configured (its threshold keeps it minimal) and
    # from booksim-ugal0g:
    ("df-ugal", "uniform", "speculative-speedup3", [], dict(SPECULATIVE, input_speedup=3)),
    ("df-ugal", "uniform", "speculative-ugal0-group", [], dict(SPECULATIVE, binary="ugal0g")),
    ("df-ugal", "uniform", "speculative-ugal0-group-pervc", [], dict(SPECULATIVE, binary="ugal0gp")),
    # ... with 64-flit VCs, and rica with 64 words per buffer class (the same change in both):
    ("df-ugal", "nextgroup", "speculative-ugal0-group-buf64", ["--buffer-words", str(8 * BUFFER)],
     dict(SPECULATIVE, binary="ugal0g", vc_buf_size=8 * BUFFER)),
    ("df-ugal", "uniform", "speculative-buf64", ["--buffer-words", str(8 * BUFFER)],
     dict(SPECULATIVE, vc_buf_size=8 * BUFFER)),
]
VARIANT_NAMES = {
    "speculative": "BookSim2 `speculative = 1`",
    "speculative-ugal0": "BookSim2 `speculative = 1` and UGAL threshold 0",
    "speculative-ugal0-group": "BookSim2 `speculative = 1`, UGAL threshold 0, intermediate group (as rica)",
    "speculative-tieplus": "BookSim2 `speculative = 1` and ring ties + (as rica)",
    "speculative-speedup2": "BookSim2 `speculative = 1` and `input_speedup = 2`",
    "speculative-dateline": "BookSim2 `speculative = 1` and the VC partition chosen at every hop (as rica)",
    "speculative-buf32": f"BookSim2 `speculative = 1` and `vc_buf_size = {4 * BUFFER}`",
    "speculative-vcs8": "BookSim2 `speculative = 1` and `num_vcs = 8` (4 VCs per dateline partition)",
    "speculative-ugal0-group-hops": "BookSim2 `speculative = 1`, UGAL threshold 0, intermediate group, queues weighted "
                                    "by router hops (as rica)",
    "speculative-ugal0-group-vcs12": "BookSim2 `speculative = 1`, UGAL threshold 0, intermediate group, `num_vcs = 12` "
                                     "(4 VCs per phase)",
    "speculative-ugal0-group-pervc": "BookSim2 `speculative = 1`, UGAL threshold 0, intermediate group, each path's "
                                     "queue the occupancy of the VC it takes (not the port's)",
    "speculative-ugal0-group-fresh": "BookSim2 `speculative = 1`, UGAL threshold 0, intermediate group, decided again "
                                     "in every cycle the head waits at its source router (as rica)",
    "speculative-ugal0-group-pervc-fresh": "BookSim2 `speculative = 1`, UGAL threshold 0, intermediate group, each "
                                           "path's queue the occupancy of its VC, decided in every cycle (both above)",
    "speculative-ugal0-group-speedup3": "BookSim2 `speculative = 1`, UGAL threshold 0, intermediate group, "
                                        "`input_speedup = 3`",
    "speculative-speedup3": "BookSim2 `speculative = 1` and `input_speedup = 3` (one crossbar input per VC)",
    "speculative-ugal0-group-buf64": f"BookSim2 `speculative = 1`, UGAL threshold 0, intermediate group; both tools "
                                     f"{8 * BUFFER} flits / words per VC / class",
    "speculative-buf64": f"BookSim2 `speculative = 1`; both tools {8 * BUFFER} flits / words per VC / class",
}

FIELDS = ["tool", "network", "traffic", "variant", "kind", "offered", "accepted", "latency", "hops", "stable"]


def nextgroup_matrix(pes, per_group, path):
    with open(path, "w") as f:
        f.write("src,dst,rate\n")
        groups = pes // per_group
        for s in range(pes):
            g = (s // per_group + 1) % groups
            for d in range(g * per_group, (g + 1) * per_group):
                f.write(f"{s},{d},{1.0 / per_group!r}\n")


NAN = dict(accepted=float("nan"), latency=float("nan"), hops=float("nan"))
LATENCY_LIMIT = 500.0  # BookSim2's latency_thres: a mean latency above it is unstable, in both tools
STABLE_SHARE = 0.98    # and so is an accepted rate below this share of the offered load


def stable(p, offered, senders=1.0):
    """Stable: the accepted rate is the offered one (of the PEs that send) and the latency is bounded."""
    return p is not None and p["accepted"] >= STABLE_SHARE * senders * offered and p["latency"] < LATENCY_LIMIT


def curve(rows, tool, net, traffic, variant, point):
    """The latency-throughput curve over RATES up to two unstable points, then the saturation point
    found by bisection between the last stable and the first unstable load, to 2 % of the load."""
    lo, hi = 0.0, None
    for r in RATES:
        p, ok = point(r)
        rows.append(dict(tool=tool, network=net, traffic=traffic, variant=variant, kind="curve", offered=r,
                         stable=int(ok), **(p or NAN)))
        if ok:
            lo = max(lo, r)
        elif hi is None:
            hi = r
        elif r > hi:
            break
    if hi is not None and lo < hi:
        while hi - lo > 0.02 * hi and hi > 0.005:
            r = round((lo + hi) / 2, 4)
            p, ok = point(r)
            rows.append(dict(tool=tool, network=net, traffic=traffic, variant=variant, kind="search", offered=r,
                             stable=int(ok), **(p or NAN)))
            lo, hi = (r, hi) if ok else (lo, r)
    rows.append(dict(tool=tool, network=net, traffic=traffic, variant=variant, kind="saturation", offered=lo,
                     stable=1, accepted=lo, latency=float("nan"), hops=float("nan")))
    print(f"{tool} {net} {traffic} {variant}: saturation {lo:.4f} (unstable at {hi})", file=sys.stderr)


# ---- rica ------------------------------------------------------------------------------------------
def rica_run(rica, net, traffic, rate, tmp, extra=(), source_queue=0):
    n = NETWORKS[net]
    t = TRAFFIC[traffic]["rica"].format(nextgroup=os.path.join(tmp, "nextgroup.csv"))
    cmd = [rica, "run", n["rica"], "--traffic", t, "--rate", repr(rate), "--routing", n["routing"],
           "--source-queue", str(source_queue), "--json", "-"] + rica_options(extra)
    out = run_limited("rica", net, traffic, rate, cmd, check=True)
    if out is None:
        return None
    j = json.loads(out)
    return dict(accepted=j["throughput"], latency=j["latency_mean"], hops=j["hops_mean"])


def rica_options(extra):
    """RICA_COMMON with a variant's options (pairs OPTION VALUE) replacing those of the same name."""
    out, extra = list(RICA_COMMON), list(extra)
    for i in range(0, len(extra), 2):
        if extra[i] in out:
            out[out.index(extra[i]) + 1] = extra[i + 1]
        else:
            out += extra[i:i + 2]
    return out


def run_limited(tool, net, traffic, rate, cmd, check=False):
    """stdout of cmd, or None when it ran past RUN_TIMEOUT seconds (stopped, recorded in TIMED_OUT and
    reported on stderr at once)."""
    try:
        return subprocess.run(cmd, check=check, capture_output=True, text=True, timeout=RUN_TIMEOUT).stdout
    except subprocess.TimeoutExpired:
        TIMED_OUT.append((tool, net, traffic, rate))
        print(f"{tool} {net} {traffic} at offered {rate}: stopped after {RUN_TIMEOUT} s (--run-timeout); "
              "counted unstable", file=sys.stderr)
        return None


def rica_points(rica, tmp, cases, variants):
    rows = []
    nextgroup_matrix(72, 8, os.path.join(tmp, "nextgroup.csv"))
    for net, traffic, variant, extra, _ in [(n, t, "base", [], {}) for n, t in cases] + variants:
        def point(r, extra=extra, net=net, traffic=traffic):
            p = rica_run(rica, net, traffic, r, tmp, extra)
            return p, stable(p, r, TRAFFIC[traffic].get("rica_senders", 1.0))
        curve(rows, "rica", net, traffic, variant, point)
        # Throughput under overload: offered load 1, a source queue of 8 packets (the accepted rate
        # does not depend on its length).
        p = rica_run(rica, net, traffic, 1.0, tmp, extra, source_queue=8) or NAN
        rows.append(dict(tool="rica", network=net, traffic=traffic, variant=variant, kind="overload", offered=1.0,
                         stable=0, **p))
    return rows


# ---- BookSim2 --------------------------------------------------------------------------------------
def booksim_config(net, traffic, rate, sim_type, over):
    n, t = NETWORKS[net], TRAFFIC[traffic]
    c = dict(BOOKSIM_COMMON)
    c.update(n["booksim"])
    c["sim_type"] = sim_type
    c.update(over)
    lines = [f"{k} = {v};" for k, v in c.items()]
    if len(t["booksim"]) == 1:
        lines += [f"traffic = {t['booksim'][0]};", f"injection_rate = {rate!r};"]
    else:
        lines += [f"classes = {len(t['booksim'])};", "traffic = {" + ",".join(t["booksim"]) + "};",
                  "injection_rate = {" + ",".join(repr(rate * s) for s in t["share"]) + "};"]
    return "\n".join(lines) + "\n"


def booksim_run(booksim, net, traffic, rate, sim_type, tmp, over):
    path = os.path.join(tmp, "bs.cfg")
    with open(path, "w") as f:
        f.write(booksim_config(net, traffic, rate, sim_type, over))
    out = run_limited("booksim", net, traffic, rate, [booksim, path])
    if out is None or "Overall Traffic Statistics" not in out:
        return None
    tail = out.split("Overall Traffic Statistics", 1)[1]
    lat = [float(x) for x in re.findall(r"Packet latency average = ([0-9.e+-]+)", tail)]
    acc = [float(x) for x in re.findall(r"Accepted packet rate average = ([0-9.e+-]+)", tail)]
    hops = [float(x) for x in re.findall(r"Hops average = ([0-9.e+-]+)", tail)]
    w = sum(acc)
    return dict(accepted=w, latency=sum(a * b for a, b in zip(acc, lat)) / w if w else float("nan"),
                hops=sum(a * b for a, b in zip(acc, hops)) / w if w else float("nan"))


def booksim_points(booksim, tmp, cases, variants, binaries):
    rows = []
    for net, traffic, variant, _, over in [(n, t, "base", [], {}) for n, t in cases] + variants:
        exe = binaries.get(over["binary"]) if "binary" in over else booksim
        if not exe:  # that build was not given: its recorded rows stay
            print(f"booksim {net} {traffic} {variant}: skipped (no --booksim-{over['binary']})", file=sys.stderr)
            continue
        over = {k: v for k, v in over.items() if k != "binary"}

        def point(r, exe=exe, net=net, traffic=traffic, over=over):
            p = booksim_run(exe, net, traffic, r, "latency", tmp, over)
            return p, stable(p, r)
        curve(rows, "booksim", net, traffic, variant, point)
        p = booksim_run(exe, net, traffic, 1.0, "throughput", tmp, over) or NAN
        rows.append(dict(tool="booksim", network=net, traffic=traffic, variant=variant, kind="overload",
                         offered=1.0, stable=0, **p))
    return rows


def write_csv(path, rows):
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=FIELDS, lineterminator="\n")
        w.writeheader()
        for r in rows:
            w.writerow({k: (f"{r[k]:.6g}" if isinstance(r[k], float) else r[k]) for k in FIELDS})


def merge_csv(path, rows):
    """Rewrites `path` with `rows`, keeping the recorded rows of every other (network, traffic, variant)."""
    keys = {(r["network"], r["traffic"], r["variant"]) for r in rows}
    old = [r for r in read_csv(path) if (r["network"], r["traffic"], r["variant"]) not in keys] \
        if os.path.exists(path) else []
    order = {k: i for i, k in enumerate([(n, t, "base") for n, t in CASES] + [(v[0], v[1], v[2]) for v in VARIANTS])}
    write_csv(path, sorted(old + rows, key=lambda r: order.get((r["network"], r["traffic"], r["variant"]), 1 << 30)))


def read_csv(path):
    with open(path) as f:
        rows = list(csv.DictReader(f))
    for r in rows:
        for k in ("offered", "accepted", "latency", "hops"):
            r[k] = float(r[k])
        r["stable"] = int(r["stable"])
    return rows


# ---- The page's text (its numbers come from the CSVs) -----------------------------------------------
PAGE_HEAD = [
    "# rica against BookSim2",
    "",
    "rica's cycle engine and [BookSim2](https://github.com/booksim/booksim2) (commit `28f43299`), the",
    "field's reference network simulator, run on the same networks, sizes, traffic and routing; their",
    "latency-throughput curves are overlaid below. Every number on this page comes from",
    "",
    "    bash scripts/validation/build_booksim.sh /tmp/booksim2 /tmp/booksim-build   # once, from your own clone",
    "    scripts/validation/booksim_compare.py --booksim /tmp/booksim-build/booksim \\",
    "        --booksim-ugal0 /tmp/booksim-build/booksim-ugal0 --booksim-tieplus /tmp/booksim-build/booksim-tieplus \\",
    "        --booksim-ugal0g /tmp/booksim-build/booksim-ugal0g --booksim-dateline /tmp/booksim-build/booksim-dateline \\",
    "        --booksim-ugal0gh /tmp/booksim-build/booksim-ugal0gh --booksim-ugal0gv /tmp/booksim-build/booksim-ugal0gv \\",
    "        --booksim-ugal0gp /tmp/booksim-build/booksim-ugal0gp --booksim-ugal0gf /tmp/booksim-build/booksim-ugal0gf \\",
    "        --booksim-ugal0gpf /tmp/booksim-build/booksim-ugal0gpf",
    "",
    "which runs both tools and writes this page, the plots and the figures behind them",
    "(`docs/validation/rica.csv`, `docs/validation/booksim.csv`: one row per run). A BookSim2 variant",
    "whose build is not given is skipped and its recorded rows kept (`--only` runs named cases and",
    "variants). Without",
    "`--booksim` the script runs rica only and takes BookSim2's figures from `booksim.csv`, so the page",
    "regenerates where BookSim2 is absent (`--page-only` redraws it from both files). BookSim2 is built",
    "outside the repository and never committed.",
    "",
    "## The configurations",
    "",
    "| | rica | BookSim2 |",
    "|---|---|---|",
    f"| packets | {PACKET} word (`--packet-words {PACKET}:0`) | {PACKET} flit (`packet_size = {PACKET}`) |",
    "| links | 1 cycle per packet (`--link-cycles 1`) | channel latency 1 (`use_noc_latency = 0`; dragonfly: "
    "`DRAGON_LATENCY` off) |",
    f"| buffers | {BUFFER} words per input port and buffer class (`--buffer-words {BUFFER}`) | {BUFFER} flits per "
    f"virtual channel (`vc_buf_size = {BUFFER}`) |",
    "| classes / VCs | the route's buffer class: mesh 1, torus 2 (dateline), dragonfly minimal 2, UGAL-L 3 | "
    "`num_vcs` the same, assigned by BookSim2's routing functions alike |",
    f"| router | `--router-cycles {ROUTER}`: a head leaves a node {ROUTER} cycles after it arrived | `iq` router: "
    "routing delay 0, VC allocation, switch allocation and crossbar 1 cycle each (iSLIP allocators, 1 "
    "iteration) |",
    "| arbitration | round robin per output port (`--arbitration rr`) | round-robin arbiters |",
    "| sources | Bernoulli at the offered load, unbounded source queue (`--source-queue 0`) | Bernoulli, "
    "unbounded source queue |",
    f"| measurement | `--cycles {CYCLES} --warmup {WARMUP}`, latency of the packets generated after the "
    "warm-up (drained), accepted rate in the window | 3 warm-up periods of 1,000 cycles, then samples "
    "of 1,000 until converged (at most 10), measured packets drained |",
    f"| seed | `--seed {SEED}`, one run per point | `seed = {SEED}` |",
    "",
    "| network | rica | BookSim2 |",
    "|---|---|---|",
] + [f"| {n['text']} | `{n['rica']}` `--routing {n['routing']}` | "
     + ", ".join(f"`{k} = {v}`" for k, v in n["booksim"].items()) + " |" for n in NETWORKS.values()] + [
    "",
    "| traffic | rica | BookSim2 |",
    "|---|---|---|",
    "| uniform | `uniform` (the other N − 1 PEs) | `uniform` (all N nodes, itself included) |",
    "| transpose | `transpose` ((x, y) → (y, x); the 8 diagonal PEs send nothing) | `transpose` (the "
    "diagonal nodes send to themselves) |",
    "| bit complement | `bitcomp` | `bitcomp` |",
    f"| hot spot | `hotspot:fraction={HOT_FRACTION},hot={HOT}`: {HOT_FRACTION:.0%} of the packets to PE {HOT}, "
    f"the rest uniform | two classes: `uniform` at {1 - HOT_FRACTION:.0%} of the rate and `hotspot({{{HOT}}})` "
    f"at {HOT_FRACTION:.0%} |",
    "| next group (dragonfly) | `matrix:` every packet to a random terminal of the next group (the "
    "script writes the matrix) | `bad_dragon` |",
    "",
    "A point is **stable** in either tool when the accepted rate is at least "
    "98 % of the offered load (of the PEs that send) and the mean latency is below 500 cycles "
    "(BookSim2's `latency_thres`, which aborts its run). **Saturation throughput** is the highest "
    "stable offered load: both tools step the load by 0.05 up to two unstable points, then bisect "
    "between the last stable and the first unstable load to 2 % of it. The last column of the "
    "saturation table is the accepted rate at offered load 1 (BookSim2 `sim_type = throughput`; "
    "rica with its default 8-packet source queue), where unfairness shows.",
]

ZERO_TEXT = (
    "At 1 % load both tools' means sit on their zero-load formulas (the residue is the little "
    "queueing at 1 %). BookSim2: at each of the r routers a packet visits, 3 cycles of pipeline (VC "
    "allocation, switch allocation, crossbar) and 1 on the channel out (the last one the ejection "
    "channel), and 2 cycles at the ends (the injection channel and one more: a packet to its own "
    "node takes 6): **4 r + 2** cycles, r = BookSim2's \"Hops average\" (routers visited). rica charges its router delay "
    "at every node a packet reaches, the destination included, and 1 cycle per link: **4 H** "
    "cycles over H links (`(H − 1)(h + R) + max(L, h + R)`, docs/runtime.md). On the mesh and "
    "torus a PE is its own router, so H = r − 1 and rica is 6 cycles shorter for the same path: "
    "no pipeline at the source router (3) and its channel (1), and neither of the 2 at the ends. On the dragonfly the PEs are terminals with a link to their router, "
    "H = r + 1 (the terminal's links are BookSim2's injection and ejection channels), and rica is "
    "2 cycles longer: the destination terminal's delay (3) less BookSim2's one more cycle at the "
    "ends. The paths themselves differ only where the traffic does: BookSim2's uniform "
    "includes the source itself (r = 1), its transpose has 8 such nodes, and its `hotspot` class "
    "sends the hot node's share to itself.")

SAT_TEXT = (
    "Verdicts: within 10 %, or the model difference that accounts for the rest, shown by changing "
    "that one parameter (next section).")

VARIANT_TEXT = (
    "**Virtual channel allocation.** BookSim2's input-queued router allocates an output VC to one "
    "packet at a time and frees it when the tail has crossed the crossbar; without speculation the "
    "next packet's VC allocation takes a cycle before its switch allocation, so with one-flit "
    "packets each VC passes a packet every other cycle at most. rica's buffer classes are not "
    "allocated: the route names the class and a packet enters whenever it fits. Turning on "
    "BookSim2's speculative switch allocation (`speculative = 1`, VC and switch allocation in the "
    "same cycle) is the first change below; rica's figures are the base run's except where a change "
    "names both tools.\n\n"
    "**Ties on a ring.** A destination k/2 = 4 hops away is reached the + way by rica and either way "
    "at random by BookSim2's `dim_order_torus`; the random choice balances the two directions, "
    "which raises BookSim2's torus figures under uniform traffic (and transpose, whose "
    "(x, y) → (y, x) has such ties). The same BookSim2 with + on a tie (one condition in "
    "`routefunc.cpp`, `booksim-tieplus`).\n\n"
    "**Input speedup.** rica offers the head of every (input port, class) buffer to the output "
    "arbitration in each cycle, so both classes of one input port may move; BookSim2 reads one flit "
    "per input port per cycle (`input_speedup = 1`). Changing it to 2 moves the torus's bit "
    "complement little, so it is not what separates the tools there (below); on the dragonfly's UGAL "
    "under uniform traffic one input per VC (`input_speedup = 3`) is (the UGAL paragraphs below).\n\n"
    "**VCs per dateline partition.** Under bit complement every ring distance is odd, and each "
    "channel of a ring carries packets of one dateline partition only, in both tools: BookSim2 fixes "
    "a packet's partition on entering the ring (whether its path wraps), rica's class follows the "
    "rest of the path hop by hop, and on every channel the two agree up to the partition's name. So "
    "the rule cannot matter, and BookSim2 choosing the partition at every hop as rica does "
    "(`booksim-dateline`) runs exactly as before: every figure of its curve in `booksim.csv` equals "
    "the `speculative = 1` run's. Each bottleneck channel (2 packets per offered one, "
    "hence the bound 0.5) takes the packets of two inputs; in BookSim2 each packet must first be "
    "allocated the partition's one output VC, which it holds until its tail has crossed the switch, "
    "so the two inputs take turns for it. With four VCs per partition (`num_vcs = 8`) they need "
    "not, and BookSim2 comes within 10 % of rica; the same storage without the VCs (`vc_buf_size = "
    f"{4 * BUFFER}`) changes nothing. rica's buffer class is entered without allocation.\n\n"
    "**UGAL.** BookSim2's `ugal_dragonflynew` leaves the minimal path only when q_min > 2 q_nonmin + "
    "30 flits: with 3 VCs of 8 flits an output holds 24 at most, so as configured it never does, and "
    "its UGAL is its minimal routing (the same saturation on `nextgroup`). rica's UGAL-L has no "
    "threshold (q_min H_min > q_val H_val). With the threshold 0 (`booksim-ugal0`) BookSim2 spreads "
    "the load, but it sends a non-minimal packet to a random intermediate *router* and turns "
    "minimal there, where rica's goes to a random intermediate *group* and turns minimal on "
    "entering it; the router costs extra local hops. `booksim-ugal0g` turns minimal on entering "
    "the intermediate router's group. From there, one change at a time: the queues weighed by the "
    "two paths' router hops as rica weighs them, not 1 : 2 (`booksim-ugal0gh`), barely moves the "
    "figure, so the weighting is not the cause; four VCs per UGAL phase (`booksim-ugal0gv`, "
    "`num_vcs = 12`) lowers it; 64-flit VCs bring BookSim2 within 10 % of rica with 64 words per "
    "class, a depth at which rica's figures hardly change.\n\n"
    "**Why BookSim2's UGAL needs deep VCs.** Both tools' UGAL read the same signal: the flits (words) "
    "held downstream of an output port, all its VCs (classes), by the router's credit view "
    "(BookSim2's `GetUsedCredit`, rica's `Machine::port_words`); neither counts the packets waiting "
    "for the port in the router's own input buffers. Four hypotheses, each changed alone in "
    "`booksim-ugal0g` at 8 flits on next-group traffic (the rows below): "
    "(a) *the signal clipped by the depth* (a port holds 24 flits at most, so at saturation both "
    "paths look full and the tie goes minimal) — the per-VC signal of (d) is clipped harder, at 8 "
    "flits, and comes closest, so the clipping is not what needs the depth; "
    "(b) *the decision's timing* — with `routing_delay = 0` BookSim2 routes a hop ahead, so the "
    "source router's choice is made once, when the packet leaves its terminal, and kept however long "
    "the packet then waits in the router's input VC; rica decides at the head of the input buffer, "
    "again in every cycle the head waits. BookSim2 deciding as rica (`booksim-ugal0gf`: the head "
    "routed again, its intermediate kept, in every cycle it waits for VC allocation at its source "
    "router) gains a little; "
    "(c) *packet size and flit-by-flit credit return* — with 1-flit packets a credit is a packet in "
    "both tools, so there is nothing to change; "
    "(d) *per-VC against per-port occupancy* — each path's queue read from the one VC it takes out of "
    "the router (`booksim-ugal0gp`: the minimal path's VC 1, or 2 on a global channel; the Valiant "
    "path's VC 0) brings BookSim2 within 10 % of rica at 8 flits, as close as 64-flit VCs did, and "
    "with (b) as well (`booksim-ugal0gpf`) closer still. So "
    "what BookSim2's UGAL needs the depth for is its port-wide sum. A reading consistent with these "
    "rows, not measured directly: the sum adds the occupancy of the two VCs the choice does not use, "
    "which at 8 flits per VC hides the difference between the paths' own VCs; deeper VCs let the "
    "congested path's VC outgrow it. One crossbar input per VC "
    "(`input_speedup = 3`, as rica offers the head of every (port, class) buffer) also gains a little "
    "there. Under uniform traffic the UGAL changes do not help BookSim2 (threshold 0 and the group, "
    "and the per-VC signal, each lower its figure): its UGAL as configured, which stays minimal, "
    "with one crossbar input per VC comes within 10 % of rica at 8 flits, so what separated them "
    "there is the input speedup. Why rica's UGAL does well with the port-wide sum at 8 words, where "
    "BookSim2's does not, is not isolated: with BookSim2's port-wide sum, (b) and the input speedup "
    "each close part of the next-group gap, not all of it.")
EXPLAINED = {
    ("torus", "hotspot"):
        "ejection: BookSim2 delivers one flit per cycle at a node, so the hot node takes at most "
        f"1/({HOT_FRACTION} · 64 + {1 - HOT_FRACTION}) = {1 / (HOT_FRACTION * 64 + 1 - HOT_FRACTION):.4f} "
        "(its `speculative = 1` run reaches {speculative:.4f}); a rica PE is its own router and takes a packet from "
        "each input buffer in a cycle, so its limit is the 4 links into the hot PE, `rica bound torus:8x8 "
        f"--traffic hotspot:fraction={HOT_FRACTION},hot={HOT} --link-cycles 1 --packet-words 1:0` = 0.2303. "
        "On the dragonfly, where a terminal has one link in both tools, the hot spot agrees",
}

# The BookSim2 variants as patch text (build_booksim.sh applies these to a copy of BookSim2's source;
# the last two are the patch files beside it, applied on top of booksim-ugal0g's changes).
VARIANT_BUILDS = [
    ("booksim", "every build", "networks/dragonfly.cpp", ["-#define DRAGON_LATENCY", "+// #define DRAGON_LATENCY"]),
    ("booksim-ugal0", "UGAL threshold 0", "networks/dragonfly.cpp",
     ["-  int adaptive_threshold = 30;", "+  int adaptive_threshold = 0;"]),
    ("booksim-ugal0g", "and minimal on entering the intermediate group", "networks/dragonfly.cpp",
     ["-  int adaptive_threshold = 30;", "+  int adaptive_threshold = 0;",
      "-    if( rID == intm_rID){", "+    if( grp_ID == intm_rID / gA ){"]),
    ("booksim-tieplus", "a ring tie taken +", "routefunc.cpp",
     ["-\t   ( ( dist2 == 0 ) && ( RandomInt( 1 ) ) ) ) {", "+\t   ( dist2 == 0 ) ) {"]),
    ("booksim-dateline", "the VC partition chosen at every hop", "routefunc.cpp (`dor_next_torus`)",
     ["-    if ( (in_port/2) != dim_left ) {", "+    if ( true ) {"]),
    ("booksim-ugal0gh", "booksim-ugal0g, queues weighted by router hops", "booksim-ugal-hops.patch", None),
    ("booksim-ugal0gv", "booksim-ugal0g, num_vcs / 3 VCs per phase", "booksim-ugal-vcs.patch", None),
    ("booksim-ugal0gp", "booksim-ugal0g, each path's queue the occupancy of the VC it takes", "booksim-ugal-pervc.patch",
     None),
    ("booksim-ugal0gf", "booksim-ugal0g, decided again in every cycle the head waits at its source router",
     "booksim-ugal-fresh.patch", None),
    ("booksim-ugal0gpf", "booksim-ugal0g with both patches above", "booksim-ugal-pervc.patch, then "
     "booksim-ugal-fresh.patch", []),
]


def variant_builds():
    L = ["## The BookSim2 variants", "",
         "Each build changes BookSim2 (commit `28f43299`) as below, applied by "
         "`scripts/validation/build_booksim.sh` to a copy of its source; the patch files are beside it.", ""]
    here = os.path.dirname(os.path.abspath(__file__))
    for name, what, where, lines in VARIANT_BUILDS:
        if lines == []:  # patch files shown above
            L += [f"`{name}` ({what}): {where}.", ""]
            continue
        L += [f"`{name}` ({what}), {where}:", "", "```diff"]
        if lines is None:
            with open(os.path.join(here, where)) as f:
                lines = [l.rstrip("\n") for l in f if not l.startswith(("--- ", "+++ "))]
        L += [l.replace("\t", "        ") for l in lines] + ["```", ""]
    return L[:-1]


# ---- The page ------------------------------------------------------------------------------------
def by_case(rows):
    out = {}
    for r in rows:
        out.setdefault((r["network"], r["traffic"], r["variant"]), []).append(r)
    return out


def saturation(rows):
    return next(r["offered"] for r in rows if r["kind"] == "saturation")


def zero_load(rows):
    return next(r for r in rows if r["kind"] == "curve" and r["offered"] == RATES[0])


def overload(rows):
    return next(r["accepted"] for r in rows if r["kind"] == "overload")


def plots(rica, bs, out):
    """One figure per network, a panel per traffic pattern: mean latency (log scale) against offered
    load for rica, BookSim2 and BookSim2 with `speculative = 1`, each tool's saturation marked, in
    the one style of scripts/rica_style.py (the network's family colour; the tools told apart by
    line style, marker and shade). Drawn from the recorded CSVs only."""
    import rica_style as S  # scripts/rica_style.py: the one figure style
    names = []
    for net in NETWORKS:
        traffics = [t for n, t in CASES if n == net]
        rows_ = (len(traffics) + 1) // 2
        fig, axes = S.figure((S.FIG_INCHES[0], S.FIG_INCHES[1] * 0.95 * rows_), nrows=rows_, ncols=2, squeeze=False)
        for ax in axes.ravel()[len(traffics):]:
            ax.set_axis_off()
        for ax, t in zip(axes.ravel(), traffics):
            for tool, data, v in (("rica", rica, "base"), ("BookSim2", bs, "base"),
                                  ("BookSim2 speculative", bs, "speculative")):
                pts = sorted((r for r in data.get((net, t, v), []) if r["kind"] in ("curve", "search") and r["stable"]),
                             key=lambda r: r["offered"])
                if not pts:
                    continue
                st = S.tool_style(tool, NETWORKS[net]["rica"])
                sat = saturation(data[(net, t, v)])
                label = {"BookSim2 speculative": "BookSim2, speculative = 1"}.get(tool, tool)
                ax.plot([r["offered"] for r in pts], [r["latency"] for r in pts], ms=3.5, lw=1.4,
                        label=f"{label} ({sat:.3f})", **st)
                ax.axvline(sat, color=st["color"], linestyle=":", lw=1.0, alpha=0.8)
            ax.set_xlim(0, None)
            S.log_axis(ax, "y")
            S.finish_log_axes(ax)
            ax.grid(True, axis="x", alpha=0.3)
            S.title(ax, f"{TRAFFIC_WORDS.get(t, t)} traffic")
            ax.set_xlabel("offered load (packets/PE/cycle)")
            ax.set_ylabel("mean latency (cycles)")
            # below the panel, under its axis label: never over a curve
            ax.legend(title="tool (saturation throughput)", loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=1)
        S.suptitle(fig, f"{NETWORKS[net]['text']}: rica against BookSim2 ({PACKET}-flit packets, {BUFFER}-flit "
                        "buffers; dotted: each tool's saturation throughput)")
        name = f"validation_{net}"
        S.save(fig, out, name)
        names.append((NETWORKS[net]["text"], name))
    names.append(isolation_plot(rica, bs, out))
    return names


# The df-ugal one-parameter changes in the isolation figure, in the order drawn, with their short labels.
ISOLATION = [
    ("base", "as configured"), ("speculative", "speculative = 1 (s)"), ("speculative-ugal0", "s, threshold 0"),
    ("speculative-ugal0-group", "s, threshold 0, intermediate group (g)"),
    ("speculative-ugal0-group-hops", "g, queues weighted by router hops"),
    ("speculative-ugal0-group-vcs12", "g, num_vcs = 12"),
    ("speculative-ugal0-group-speedup3", "g, input_speedup = 3"),
    ("speculative-ugal0-group-fresh", "g, decided in every cycle (b)"),
    ("speculative-ugal0-group-pervc", "g, per-VC queue (d)"),
    ("speculative-ugal0-group-pervc-fresh", "g, per-VC queue (d), every cycle (b)"),
    ("speculative-speedup3", "s, input_speedup = 3"),
    ("speculative-ugal0-group-buf64", "g, 64-flit VCs; rica 64 words"),
    ("speculative-buf64", "s, 64-flit VCs; rica 64 words"),
]
ISOLATION_NAME = "validation_df-ugal-isolation"
ISOLATION_TEXT = "the dragonfly's UGAL: BookSim2's saturation under each one-parameter change against rica's"


def isolation_plot(rica, bs, out):
    """The df-ugal rows of "One parameter at a time" as a figure: per traffic pattern, BookSim2's
    saturation throughput under each change (bars) and rica's for the same run (circles; rica's
    8-word figure with its 10 % band shaded)."""
    import rica_style as S
    traffics = ["nextgroup", "uniform"]
    fig, axes = S.figure((S.FIG_INCHES[0], S.FIG_INCHES[1] * 1.1), nrows=1, ncols=2, sharey=True)
    labels = [label for _, label in ISOLATION]
    bar = S.tool_style("BookSim2", NETWORKS["df-ugal"]["rica"])
    dot = S.tool_style("rica", NETWORKS["df-ugal"]["rica"])
    for ax, t in zip(axes, traffics):
        base = saturation(rica[("df-ugal", t, "base")])
        ax.axvspan(base / 1.1, base / 0.9, color=dot["color"], alpha=0.12, lw=0,
                   label=f"BookSim2 within 10 % of rica's {BUFFER}-word figure")
        ax.axvline(base, color=dot["color"], lw=1.2)
        for y, (v, _) in enumerate(ISOLATION):
            if ("df-ugal", t, v) not in bs:
                continue
            sb = saturation(bs[("df-ugal", t, v)])
            sr = saturation(rica.get(("df-ugal", t, v), rica[("df-ugal", t, "base")]))
            ax.barh(y, sb, height=0.6, color=bar["color"], label="BookSim2" if y == 0 else None)
            xmax = 0.8 if t == "uniform" else 0.42
            inside = sb > 0.2 * xmax  # room for the label inside the bar, clear of rica's circle
            ax.text(sb - 0.035 * xmax if inside else sb + 0.015 * xmax, y, f"{sb:.3f}", va="center",
                    ha="right" if inside else "left", fontsize=8, color="white" if inside else "black")
            ax.plot([sr], [y], linestyle="none", marker=dot["marker"], color=dot["color"], ms=6,
                    label="rica, the same run (64 words where named)" if y == 0 else None)
        ax.set_xlim(0, 0.8 if t == "uniform" else 0.42)  # xmax above
        ax.grid(True, axis="x", alpha=0.3)
        S.title(ax, f"{TRAFFIC_WORDS[t]} traffic")
        ax.set_xlabel("saturation (packets/PE/cycle)")
    axes[0].set_yticks(range(len(labels)), labels)
    axes[0].invert_yaxis()  # the axes share y: once
    axes[0].legend(loc="upper left", bbox_to_anchor=(0.0, -0.13), ncol=1)
    S.suptitle(fig, f"{NETWORKS['df-ugal']['text']}: BookSim2's saturation throughput under each change "
                    f"({BUFFER}-flit VCs unless named; blank: not run)")
    S.save(fig, out, ISOLATION_NAME)
    return (ISOLATION_TEXT, ISOLATION_NAME)


def figure_names():
    """(alt text, file name) of every figure plots() draws, in the page's order."""
    return [(n["text"], f"validation_{k}") for k, n in NETWORKS.items()] + [(ISOLATION_TEXT, ISOLATION_NAME)]


def write_page(rica_rows, bs_rows, out, figs):
    rica, bs = by_case(rica_rows), by_case(bs_rows)
    L = []
    L += PAGE_HEAD
    # Zero load
    L += ["", "## Zero-load latency", "", ZERO_TEXT, "",
          "| network | traffic | BookSim2 latency | routers visited r | 4 r + 2 | rica latency | links H | 4 H | "
          "rica − BookSim2 |", "|---|---|---|---|---|---|---|---|---|"]
    for net, t in CASES:
        b, r = zero_load(bs[(net, t, "base")]), zero_load(rica[(net, t, "base")])
        L.append(f"| {net} | {t} | {b['latency']:.2f} | {b['hops']:.3f} | {4 * b['hops'] + 2:.2f} | "
                 f"{r['latency']:.2f} | {r['hops']:.3f} | {4 * r['hops']:.2f} | {r['latency'] - b['latency']:+.2f} |")
    # Saturation
    L += ["", "## Saturation throughput", "", SAT_TEXT, "", "{summary}", "",
          "| network | traffic | BookSim2 | rica | rica / BookSim2 | verdict | at offered load 1: BookSim2, rica |",
          "|---|---|---|---|---|---|---|"]
    tally, verdicts = [0, 0, 0], {}
    for net, t in CASES:
        sb, sr = saturation(bs[(net, t, "base")]), saturation(rica[(net, t, "base")])
        ratio = sr / sb
        verdict = "within 10 %" if abs(ratio - 1) <= 0.10 else None
        for _, _, v, _, _ in [x for x in VARIANTS if x[:2] == (net, t)]:
            if verdict is None and (net, t, v) in bs:
                sv, srv = saturation(bs[(net, t, v)]), saturation(rica.get((net, t, v), rica[(net, t, "base")]))
                if abs(srv / sv - 1) <= 0.10:
                    verdict = f"{VARIANT_NAMES[v]}: {sv:.4f}, ratio {srv / sv:.3f}" + \
                        (f" (rica {srv:.4f})" if srv != sr else "")
        if verdict is None:
            vals = {v: saturation(bs[(net, t, v)]) for _, _, v, _, _ in VARIANTS if (net, t, v) in bs}
            verdict = EXPLAINED.get((net, t), "**not explained**")
            for k, v in sorted(vals.items(), key=lambda kv: -len(kv[0])):
                verdict = verdict.replace("{" + k + ":.4f}", f"{v:.4f}")
        tally[0 if verdict == "within 10 %" else 1 if verdict.startswith("BookSim2") else 2] += 1
        verdicts[(net, t)] = verdict
        L.append(f"| {net} | {t} | {sb:.4f} | {sr:.4f} | {ratio:.3f} | {verdict} | "
                 f"{overload(bs[(net, t, 'base')]):.4f}, {overload(rica[(net, t, 'base')]):.4f} |")
    # One-parameter checks
    if VARIANTS:
        L += ["", "## One parameter at a time", "", VARIANT_TEXT, "",
              "| network | traffic | change | BookSim2 | rica | rica / BookSim2 |", "|---|---|---|---|---|---|"]
        for net, t, v, _, _ in VARIANTS:
            if (net, t, v) not in bs:
                continue
            sb = saturation(bs[(net, t, v)])
            sr = saturation(rica.get((net, t, v), rica[(net, t, "base")]))
            L.append(f"| {net} | {t} | {VARIANT_NAMES[v]} | {sb:.4f} | {sr:.4f} | {sr / sb:.3f} |")
    i = L.index("{summary}")
    spec = VARIANT_NAMES["speculative"]
    beyond = [f"{n} {t}: " + re.sub(r" \([^()]*\)", "", verdicts[(n, t)].split(":")[0][len(spec):].lstrip(" ,")
                                    .removeprefix("and "))
              for n, t in CASES if verdicts.get((n, t), "").startswith(spec + " ") or
              verdicts.get((n, t), "").startswith(spec + ",")]
    rest = [f"{n} {t}" for n, t in CASES if (n, t) in verdicts and not verdicts[(n, t)].startswith("BookSim2")
            and verdicts[(n, t)] != "within 10 %" and (n, t) not in EXPLAINED]
    L[i] = (f"Of the {len(CASES)} configurations, {tally[0]} agree within 10 % as configured; {tally[1]} agree within "
            "10 % once BookSim2's VC allocation turnaround is removed (`speculative = 1`) and, where the row names "
            "more, the further changes it names" +
            ("" if any(f"both tools {8 * BUFFER} flits" in v for v in verdicts.values()) else
             f", all at {BUFFER}-flit / {BUFFER}-word buffers") +
            (f" ({'; '.join(beyond)})" if beyond else "") +
            "; the ejection limit of the torus's hot spot is derived" +
            (f"; not explained: {', '.join(rest)}" if rest else "") + ".")
    L += [""] + variant_builds()
    L += ["", "## Curves", ""]
    for text, name in figs:
        L += [f"![{text}](validation/{name}.png)", ""]
    return "\n".join(L) + "\n"


def main():
    global RUN_TIMEOUT
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rica", default=os.path.join(ROOT, "build", "rica"))
    ap.add_argument("--booksim", help="a BookSim2 binary: run it and rewrite docs/validation/booksim.csv")
    ap.add_argument("--booksim-ugal0", help="BookSim2 built with its UGAL threshold 0 (build_booksim.sh)")
    ap.add_argument("--booksim-tieplus", help="BookSim2 built with ring ties taken + (build_booksim.sh)")
    ap.add_argument("--booksim-ugal0g", help="BookSim2 built with UGAL threshold 0 and an intermediate group")
    ap.add_argument("--booksim-dateline", help="BookSim2 built with the ring's VC partition chosen at every hop")
    ap.add_argument("--booksim-ugal0gh", help="booksim-ugal0g built with UGAL's queues weighted by router hops")
    ap.add_argument("--booksim-ugal0gv", help="booksim-ugal0g built with num_vcs / 3 VCs per UGAL phase")
    ap.add_argument("--booksim-ugal0gp", help="booksim-ugal0g built with each path's queue read from the VC it takes")
    ap.add_argument("--booksim-ugal0gf", help="booksim-ugal0g built deciding again in every cycle a head waits")
    ap.add_argument("--booksim-ugal0gpf", help="booksim-ugal0g built with both of the last two changes")
    ap.add_argument("--out", default=os.path.join(ROOT, "docs"))
    ap.add_argument("--run-timeout", type=float, default=RUN_TIMEOUT, metavar="SECONDS",
                    help=f"stop a single run of either tool after this long and count it unstable (default {RUN_TIMEOUT})")
    ap.add_argument("--only", help="NET/TRAFFIC, NET or a variant's name, comma separated: run just these and merge "
                    "their rows into the CSVs (every other row kept)")
    ap.add_argument("--booksim-only", action="store_true", help="run BookSim2 only (with --booksim)")
    ap.add_argument("--page-only", action="store_true", help="redraw the page from the recorded CSVs, run nothing")
    ap.add_argument("--check", action="store_true",
                    help="run nothing; exit 1 unless the page is what the recorded CSVs give")
    a = ap.parse_args()
    if not a.run_timeout > 0:
        ap.error(f"--run-timeout: {a.run_timeout} is not a positive number of seconds")
    RUN_TIMEOUT = a.run_timeout
    data = os.path.join(a.out, "validation")
    os.makedirs(data, exist_ok=True)
    cases, variants = CASES, VARIANTS
    if a.only:  # NET/TRAFFIC, NET, or a variant's name, comma separated
        only = a.only.split(",")
        cases = [c for c in CASES if "/".join(c) in only or c[0] in only]
        variants = [v for v in VARIANTS if v[2] in only]
        if not cases and not variants:
            ap.error(f"--only {a.only}: not a case or variant")
    if not (a.page_only or a.check):
        with tempfile.TemporaryDirectory() as tmp:
            if a.booksim:
                merge_csv(os.path.join(data, "booksim.csv"),
                          booksim_points(a.booksim, tmp, cases, variants, {"ugal0": a.booksim_ugal0, "tieplus": a.booksim_tieplus,
                                                                      "ugal0g": a.booksim_ugal0g,
                                                                      "dateline": a.booksim_dateline,
                                                                      "ugal0gh": a.booksim_ugal0gh,
                                                                      "ugal0gv": a.booksim_ugal0gv,
                                                                      "ugal0gp": a.booksim_ugal0gp,
                                                                      "ugal0gf": a.booksim_ugal0gf,
                                                                      "ugal0gpf": a.booksim_ugal0gpf}))
            if not a.booksim_only:
                merge_csv(os.path.join(data, "rica.csv"), rica_points(a.rica, tmp, cases, variants))
        if TIMED_OUT:
            print(f"{len(TIMED_OUT)} run(s) stopped after {RUN_TIMEOUT} s and counted unstable:", file=sys.stderr)
            for tool, net, traffic, rate in TIMED_OUT:
                print(f"  {tool} {net} {traffic} offered {rate}", file=sys.stderr)
    if a.booksim_only:
        return
    rica_rows = read_csv(os.path.join(data, "rica.csv"))
    bs_rows = read_csv(os.path.join(data, "booksim.csv"))
    page = os.path.join(a.out, "validation.md")
    if a.check:  # the page is what the recorded figures give (ctest validation_page)
        text = write_page(rica_rows, bs_rows, a.out, figure_names())
        if open(page).read() != text:
            sys.exit(f"{page} differs from what {data}/*.csv give; rerun {sys.argv[0]} --page-only")
        print(f"{page}: as the recorded figures give")
        return
    figs = plots(by_case(rica_rows), by_case(bs_rows), data)
    with open(page, "w") as f:
        f.write(write_page(rica_rows, bs_rows, a.out, figs))


if __name__ == "__main__":
    main()
