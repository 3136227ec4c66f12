"""The plots of ./mmbench compare (Debian's python3-matplotlib): a forest
plot of every row's change with its interval, per row the samples of A
and B side by side (for a p99 row, beside both kernels' distributions
of the ops timed alone), and the team_cpus= rows (*_concurrent, *_contended) against CPUs."""
import re
import sys

from . import compare, ktap

COLOURS = {compare.REGRESSION: "tab:red", compare.IMPROVEMENT: "tab:green",
           compare.NO_CHANGE: "tab:grey", compare.INCONCLUSIVE: "tab:orange",
           compare.NOT_COMPARABLE: "tab:purple"}


def _pyplot():
    try:
        import matplotlib
    except ImportError:
        sys.path.append("/usr/lib/python3/dist-packages")
        import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def _figures(r, insn):
    """(change, lo, hi, minimum effect) of row @r: in instructions an op
    under icount (@insn), else in %."""
    if insn:
        return r.change_insn, r.lo_insn, r.hi_insn, r.min_effect_insn
    return r.change, r.lo, r.hi, r.min_effect


def forest(c, path, made):
    """Every row's change B against A (in %; under icount in
    instructions an op), its 95 % interval and its minimum effect;
    coloured by verdict, in the table's order (the verdicts first, the
    largest first), the kernels named in the title; every interval
    inside the axis.  Adds @path to the list @made before writing it,
    and returns @made."""
    plt = _pyplot()
    insn = c.icount
    rows = [r for r in c.ordered() if r.change is not None]
    figs = [_figures(r, insn) for r in rows]
    height = max(3.0, 0.22 * len(rows) + 1.6)
    fig, ax = plt.subplots(figsize=(8, height))
    for i, (r, (mid, lo, hi, eff)) in enumerate(zip(reversed(rows),
                                                    reversed(figs))):
        col = COLOURS.get(r.verdict, "black")
        ax.plot([-eff, eff], [i, i], color="0.9",
                linewidth=6, solid_capstyle="butt", zorder=1)
        ax.plot([lo, hi], [i, i], color=col, linewidth=1.5, zorder=2)
        ax.plot([mid], [i], "o", color=col, markersize=4, zorder=3)
    ax.axvline(0, color="black", linewidth=0.8)
    ax.set_yticks(range(len(rows)))
    ax.set_yticklabels([r.row for r in reversed(rows)], fontsize=7)
    ax.set_xlabel("change of B against A, "
                  + ("instructions an op" if insn else "%")
                  + " (right: B slower)\n95 % interval; grey: the "
                  "minimum effect", fontsize=9)
    counts = c.counts()
    ax.set_title(f"mmbench compare: B {_name(c, 'B')} against A "
                 f"{_name(c, 'A')}\n" + ", ".join(
                     f"{k} {counts[k]}" for k in COLOURS if counts.get(k)),
                 fontsize=9)
    lo, hi = limits(figs, insn)
    ax.set_xlim(lo, hi)
    for v, col in COLOURS.items():
        ax.plot([], [], color=col, label=v)
    ax.legend(fontsize=6, loc="best")
    fig.tight_layout()
    made.append(path)
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return made


# The longest kernel name in the forest plot's title.
TITLE_NAME = 40


def _name(c, side):
    full = c.names[side][0]
    return full if len(full) <= TITLE_NAME else full[:TITLE_NAME - 2] + ".."


def limits(figs, insn):
    """The forest plot's x axis: every interval, and every minimum
    effect, inside it, with a margin; at least +-5 % (+-2
    instructions)."""
    least = 2 if insn else 5
    lo = min([f[1] for f in figs] + [-f[3] for f in figs] + [-least])
    hi = max([f[2] for f in figs] + [f[3] for f in figs] + [least])
    pad = 0.05 * (hi - lo)
    return lo - pad, hi + pad


def samples(c, a, b, folder, made):
    """Per row, A's and B's kept samples (ns/op) side by side, each
    load a column of dots.  Adds each file to the list @made before
    writing it, and returns @made."""
    plt = _pyplot()
    folder.mkdir(parents=True, exist_ok=True)
    for r in c.rows:
        hists = {side: _hist(arch, r.row) for side, arch in (("A", a),
                                                             ("B", b))}
        if any(hists.values()):
            fig, (ax, dist) = plt.subplots(1, 2, figsize=(10, 3))
            _distribution(dist, hists)
        else:
            fig, ax = plt.subplots(figsize=(6, 3))
        x = 0
        ticks = []
        for side, arch, col in (("A", a, "tab:blue"), ("B", b, "tab:red")):
            loads = _by_load(arch, r.row)
            start = x
            for vals in loads:
                ax.plot([x] * len(vals), vals, ".", color=col,
                        markersize=3)
                x += 1
            if loads:
                ticks.append(((start + x - 1) / 2, f"{side}: {len(loads)} "
                              "loads"))
            x += 2
        ax.set_xticks([t for t, _ in ticks])
        ax.set_xticklabels([n for _, n in ticks])
        ax.set_yscale("log")
        ax.set_ylabel(("instructions an op" if c.icount else "ns/op")
                      + (" (each load's p99)" if any(hists.values()) else
                         " (each load's kept samples)") + ", log")
        change = "" if r.change is None else \
            f" {r.change_insn:+.2f} insn [{r.lo_insn:+.2f}, " \
            f"{r.hi_insn:+.2f}]" if r.change_insn is not None else \
            f" {r.change:+.1f} % [{r.lo:+.1f}, {r.hi:+.1f}]"
        ax.set_title(f"{r.row}: {r.verdict}{change}", fontsize=9)
        fig.tight_layout()
        path = sample_path(folder, r.row)
        made.append(path)
        fig.savefig(path, dpi=80)
        plt.close(fig)
    return made


def _hist(arch, row):
    """{least ns of a bucket: ops} of the ops timed alone over the loads
    that passed, of @row's p99 row (compare.TAIL_ROW); {} for others."""
    out = {}
    for rec in arch.rows:
        if rec.get("row") == row and rec.get("status") == "pass" and \
                row.endswith(compare.TAIL_ROW):
            for low, ops in rec.get("op_ns_hist") or []:
                out[low] = out.get(low, 0) + ops
    return out


def _distribution(ax, hists):
    """On @ax, each kernel's share of the ops timed alone that took a
    bucket's least ns or more ({side: {ns: ops}} @hists), log-log: the
    tail is the right end."""
    for side, col in (("A", "tab:blue"), ("B", "tab:red")):
        h = hists[side]
        if not h:
            continue
        total, left = sum(h.values()), sum(h.values())
        xs, ys = [], []
        for low in sorted(h):
            xs.append(max(low, 1))
            ys.append(left / total)
            left -= h[low]
        ax.step(xs, ys, where="post", color=col,
                label=f"{side}: {total} ops")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("ns an op (clock reads included)")
    ax.set_ylabel("share of ops this slow or slower")
    ax.legend(fontsize=8)


def scaling(c, path, made):
    """Each team_cpus= benchmark's median against the CPUs running it
    at once, A's and B's (a row a CPU count: compare judges each point);
    nothing when no benchmark has two points.  Adds @path to the list
    @made before writing it, and returns @made."""
    got = {bench: points for bench, points in
           ktap.curves([r.row for r in c.rows]).items() if len(points) > 1}
    if not got:
        return made
    plt = _pyplot()
    by_row = {r.row: r for r in c.rows}
    fig, axes = plt.subplots(1, len(got), figsize=(4 * len(got), 3.4),
                             squeeze=False)
    for ax, (bench, points) in zip(axes[0], got.items()):
        for side, col in (("A", "tab:blue"), ("B", "tab:red")):
            xy = [(n, getattr(by_row[row], f"{side.lower()}_median"))
                  for n, row in points]
            xy = [(n, m) for n, m in xy if m is not None]
            ax.plot([n for n, _ in xy], [m for _, m in xy], "o-",
                    color=col, label=f"{side}: {_name(c, side)}")
        for n, row in points:
            if by_row[row].verdict in (compare.REGRESSION,
                                       compare.IMPROVEMENT):
                ax.annotate(by_row[row].verdict, (n, by_row[row].b_median),
                            fontsize=6, color=COLOURS[by_row[row].verdict])
        ax.set_xscale("log", base=2)
        ax.set_xticks([n for n, _ in points])
        ax.set_xticklabels([str(n) for n, _ in points])
        ax.set_xlabel("CPUs at once")
        ax.set_ylabel("instructions an op" if c.icount else
                      "ns/op of each CPU (median)")
        ax.set_title(bench, fontsize=9)
        ax.legend(fontsize=6)
    fig.tight_layout()
    made.append(path)
    fig.savefig(path, dpi=80)
    plt.close(fig)
    return made


def sample_path(folder, row):
    """The file of @row's samples plot in @folder."""
    return folder / (re.sub(r"[^A-Za-z0-9_.-]", "_", row) + ".png")


def _by_load(arch, row):
    out = []
    for rec in arch.rows:
        if rec.get("row") == row and rec.get("status") == "pass":
            out.append(rec.get("sample_ns") or [rec["median"]])
    return out
