"""./mmbench compare-check: compare's self-check on two kernels (or one
with a known regression) measured in alternating boots: A/A, known
slowdowns, A/A splits of measured data, and ./mmbench test's checks."""
import copy
import json
import math
import re
import statistics
from pathlib import Path

from . import archive, compare, deps, fleet, guest, names
from .common import Failure, say
from .measure import (COMPARE_PACKAGES, EXIT_NO_ANSWER, EXIT_REGRESSION,
                      EXIT_UNDECIDED, GUEST_TIME, EmulatorFault, Side,
                      _earlier_plots, _is, alternate, check_counts,
                      compare_archives, exit_status, one_setup, run_compare,
                      same_module)

# Issue 12's goal: a 2 % change found on 80 % of rows in 2 minutes of
# guest time a kernel.
GOAL_GUEST_S = 120
GOAL_MDE_PCT = 2.0
GOAL_ROWS = 0.8
# The rows compare-check known slows, one of each kind, and the changes.
KNOWN_ROWS = {"inc_dec_zone_page_state": "inc_dec_zone_page_state",
              "kmalloc_64": "kmalloc",
              "alloc_pages_order0": "alloc_pages"}     # row: its benchmark
KNOWN_PCTS = (2, 5, 10)
CALIBRATION = "alu_chain"
CHAIN_STEPS = 1000


def with_param(params, param):
    """@params with @param (NAME=VALUE) in place of its NAME's value."""
    name = param.split("=", 1)[0] + "="
    return [p for p in params if not p.startswith(name)] + [param]


def guest_time(folders):
    """What the boots of @folders (alternate()'s) took a kernel: "median
    N s, most M s" of guest time, or None when none says."""
    secs = []
    for d in folders:
        try:
            secs += json.loads((d / GUEST_TIME).read_text()).values()
        except (OSError, ValueError):
            continue
    if not secs:
        return None
    return (f"guest time a kernel and comparison: median "
            f"{statistics.median(secs):.0f} s, most {max(secs):.0f} s "
            f"(goal: at most {GOAL_GUEST_S} s)")



def calibrate(arch, wanted=tuple(KNOWN_ROWS)):
    """(ns a chain step costs, {row: ns/op} of the rows @wanted) from an
    archive with the alu_chain row.  What counts is a row's cost in
    steps, taken in each load (a busy host slows the chain and the row
    of one load alike) and the median over the loads; the row's ns/op
    returned is that many median steps."""
    per_load = {}
    for rec in arch.rows:
        if rec.get("status") == "pass" and rec.get("row") == CALIBRATION \
                and rec.get("net"):
            per_load.setdefault((rec["boot"], rec["load"]), {})[
                " step"] = rec["net"] / CHAIN_STEPS
    for (boot, load), rows in arch.medians().items():
        if (boot, load) in per_load:
            per_load[(boot, load)].update(rows)
    if not per_load:
        raise Failure(f"no passing {CALIBRATION} row to calibrate the "
                      "chain with")
    step = statistics.median(u[" step"] for u in per_load.values())
    rows = {}
    for row in wanted:
        ratios = [u[row] / u[" step"] for u in per_load.values() if row in u]
        if not ratios:
            raise Failure(f"no passing {row} row to calibrate against")
        rows[row] = step * statistics.median(ratios)
    return step, rows


def slow_into(step, rows, pct):
    """The slow_into= value that makes each row of @rows @pct % slower."""
    return ",".join(f"{row}:{max(1, round(pct / 100 * rows[row] / step))}"
                    for row in rows)


# The list parameter, and its value, that makes each of KNOWN_ROWS that
# is one row of several.
KNOWN_LISTS = {"kmalloc_64": ("sizes", 64),
               "alloc_pages_order0": ("orders", 0)}


def check_known_params(args):
    """Refuse the module parameters that would take from compare-check
    known what it does itself (benchmarks=, slow_into=), or leave out a
    row it slows (a list parameter without the row's value)."""
    from .options import param_sources
    benches = ", ".join(sorted(set(KNOWN_ROWS.values())))
    for p, opt in param_sources(args).items():
        name, value = p.split("=", 1)
        if name == "slow_into":
            raise Failure(f"{opt} {p}: compare-check known slows its rows "
                          "itself, by the calibrated amounts")
        if name == "benchmarks":
            raise Failure(f"{opt} {p}: compare-check known chooses the "
                          f"benchmarks itself: its calibration boot runs "
                          f"{benches} and {CALIBRATION}, its comparisons "
                          "every benchmark")
        for row, (param, want) in KNOWN_LISTS.items():
            if name == param and want not in {
                    names.kstrtouint(v) for v in value.split(",")}:
                raise Failure(f"{opt} {p}: compare-check known slows "
                              f"{row}, which {param}= without {want} "
                              "leaves out")


def cmd_compare_check(args):
    from .options import check_options, loads_only_options, unused_options
    check_counts(args)
    if args.what == "split":
        unused_options(args, ("loads", "norm"))
    elif getattr(args, "reuse", None):
        unused_options(args, ("boots",) if args.what == "aa" else
                       ("boots", "loads"))
    else:
        loads_only_options(args, f"compare-check {args.what}")
        check_options(args)
        if args.what == "known":
            check_known_params(args)
    if args.reuse:
        _reuse_folder(Path(args.reuse))
    deps.ensure(COMPARE_PACKAGES)
    results = None
    if args.what != "split":
        results = Path(args.reuse) if args.reuse else \
            guest.results_dir(f"-check-{args.what}")
        if args.reuse:
            _check_reuse(results, args)
    try:
        if args.what == "split":
            return check_split(args)
        if args.what == "aa":
            return check_aa(args, results)
        return check_known(args, results)
    except (ValueError, KeyError, TypeError, AttributeError, OSError,
            ArithmeticError) as e:
        raise Failure(f"compare-check {args.what}: {e}") from e


def _reuse_folder(d):
    """Refuse a --reuse that names no folder: missing, or a file (or one
    the system will not look at: a name too long, no permission)."""
    if _is(d, Path.is_dir, "--reuse"):
        return
    raise Failure(f"--reuse {d}: " + ("not a folder" if d.exists() else
                                      "no such folder"))


def _check_reuse(results, args):
    """Refuse --reuse of a folder that lacks what it would read, before
    anything in it is rewritten."""
    if args.what == "aa":
        prefix, files = "aa", ("A.jsonl", "B.jsonl")
    else:
        prefix, files = "known", ["A.jsonl"] + [f"B{p}.jsonl"
                                                 for p in KNOWN_PCTS]
        if not (results / "calibration.json").is_file():
            raise Failure(f"--reuse {results}: no calibration.json: not "
                          "a compare-check known folder")
    missing = [f"{prefix}{n:02d}/{f}" for n in range(1, args.comparisons + 1)
               for f in files
               if not (results / f"{prefix}{n:02d}" / f).is_file()]
    if not missing and args.what == "aa":
        # Each comparison one kernel against itself, all before any
        # folder's files are rewritten.
        for n in range(1, args.comparisons + 1):
            d = results / f"{prefix}{n:02d}"
            try:
                pair = archive.Archive.read(d / "A.jsonl", d / "B.jsonl")
            except (ValueError, OSError) as e:
                raise Failure(f"compare-check aa: {e}") from e
            one_setup(pair, d, said=True)
    if missing:
        have = len([d for d in results.glob(f"{prefix}[0-9][0-9]")
                    if d.is_dir()]) if results.is_dir() else 0
        raise Failure(f"--reuse {results}: no {missing[0]}"
                      + (f" ({len(missing)} files missing)"
                         if len(missing) > 1 else "") +
                      f": --comparisons {args.comparisons} asks for "
                      f"{args.comparisons}, the folder has {have} "
                      f"compare-check {args.what} comparisons")


def _comparison(d, sides, args):
    """Folder @d of one comparison of compare-check: its boots measured
    now, or those of an earlier run with --reuse."""
    if not args.reuse:
        d.mkdir(parents=True, exist_ok=True)
        alternate(sides, args.boots, args.loads, d, retry=True)
    return d


def _kernel_of(args):
    """The kernel of compare-check's sides: --kernel's, or the stock
    one (as Side's options)."""
    return {"kernel": args.kernel, "headers": args.headers,
            "release": args.release}


def check_aa(args, results):
    """The stock kernel (or --kernel) against itself, @args.comparisons
    times."""
    sides = None
    if not args.reuse:
        sides = [Side(n, args, **_kernel_of(args)) for n in "AB"]
        for s in sides:
            s.prepare()
    total = {}
    lines = []
    found = {pct: [0, 0] for pct in ADDED_PCTS}
    per_row = []
    not_comparable = 0
    for n in range(1, args.comparisons + 1):
        d = _comparison(results / f"aa{n:02d}", sides, args)
        a = archive.Archive.read(d / "A.jsonl")
        b = archive.Archive.read(d / "B.jsonl")
        measured = max((r.get("load", 0) for r in a.rows), default=0)
        if args.reuse:
            # As if each boot had had only --loads loads.
            a, b = a.where(loads=args.loads), b.where(loads=args.loads)
        shape = (len(a.runs), max((r.get("load", 0) for r in a.rows),
                                  default=0), measured)
        c = compare_archives(a, b, args.norm, d, plot=False, quiet=True)
        for pct in found:
            got, of = found_when_added(a, b, pct, args.norm)
            found[pct][0] += got
            found[pct][1] += of
        per_row.append(found_per_row(a, b, GOAL_ADDED_PCT, args.norm))
        if c.not_comparable:
            not_comparable += 1
        counts = c.counts()
        for k, v in counts.items():
            total[k] = total.get(k, 0) + v
        flagged = [f"{r.row} {r.verdict} {r.change:+.1f} %" for r in c.judged()
                   if r.verdict in (compare.REGRESSION, compare.IMPROVEMENT)]
        line = (f"A/A {n:2d}: " + ", ".join(f"{k} {v}" for k, v in
                                             sorted(counts.items())) +
                (f"; flagged: {'; '.join(flagged)}" if flagged else ""))
        lines.append(line)
        print(line, flush=True)
    false = total.get(compare.REGRESSION, 0) + \
        total.get(compare.IMPROVEMENT, 0)
    boots, loads, measured = shape
    cut = f" of the {measured} measured" if loads < measured else ""
    mdes = _mde_table(results, args.comparisons, "aa",
                      timed=f"{measured} loads a boot" if cut else None)
    who = args.kernel if getattr(args, "kernel", None) else \
        "one kernel" if args.reuse else "the stock kernel"
    summary = [f"A/A: {args.comparisons} comparisons of {who} "
               f"with itself ({boots} boots x {loads} loads{cut} a "
               f"kernel, normalised by {args.norm}): {false} REGRESSION or "
               f"IMPROVEMENT verdicts in all (goal: at most 1); " +
               ", ".join(f"{k} {v}" for k, v in sorted(total.items()))]
    counted = found[ADDED_PCTS[0]][1]
    summary.append(
        "the same comparisons with B's figures of " +
        ", ".join(KNOWN_ROWS) + " made slower (a change added to "
        "measured noise): " + ("none of them measured in both kernels"
                               if not counted else ", ".join(
            f"+{pct} % found {got} of {of}" for pct, (got, of)
            in found.items()) + ("" if counted ==
                                 len(KNOWN_ROWS) * args.comparisons else
                                 " (of the rows measured in both "
                                 "kernels: benchmarks= leaves some out, "
                                 "or a row kept no sample)")))
    goal = goal_line(per_row)
    if goal:
        summary.append(goal)
    summary += mdes
    for line in summary:
        print(line, flush=True)
    if not_comparable:
        summary.append(f"{not_comparable} comparisons NOT COMPARABLE: no "
                       "answer (exit status 2)")
    (results / "check.txt").write_text("\n".join(lines + summary) + "\n")
    say(f"results in {results}")
    if not_comparable:
        print(summary[-1], flush=True)
        return 2
    return 0 if false <= 1 else 1


# What check_aa adds to B's figures of KNOWN_ROWS, in %.
ADDED_PCTS = (5, 10)


def _found(a, b, rows, pct, norm):
    """Which of @rows compare calls a REGRESSION when archive @b has them
    @pct % slower (a change added to measured noise) against @a."""
    slower = [dict(r, median=r["median"] * (1 + pct / 100))
              if r.get("row") in rows and r.get("median") else r
              for r in b.rows]
    c = compare.Comparison(a, archive.Archive(b.runs, slower, b.loads),
                           norm)
    return {r.row for r in c.rows
            if r.row in rows and r.verdict == compare.REGRESSION}


def found_when_added(a, b, pct, norm):
    """(how many, of how many) of the KNOWN_ROWS that both archives
    measured (a median in a load at least) come out REGRESSION when archive @b has them @pct % slower
    against @a."""
    def measured(arch):
        return {r.get("row") for r in arch.rows
                if isinstance(r.get("median"), (int, float))}
    both = set(KNOWN_ROWS) & measured(a) & measured(b)
    return len(_found(a, b, both, pct, norm)), len(both)


# The change compare-check aa adds to each row of B in turn: the goal's.
GOAL_ADDED_PCT = 2


def found_per_row(a, b, pct, norm):
    """{row: whether compare calls it a REGRESSION} when archive @b has
    that row alone made @pct % slower against @a, each row in turn."""
    rows = [r.row for r in compare.Comparison(a, b, norm).rows]
    return {row: bool(_found(a, b, {row}, pct, norm)) for row in rows}


def goal_line(per_comparison, pct=GOAL_ADDED_PCT):
    """What @per_comparison ([{row: found}], found_per_row()'s) says of
    the goal: a @pct % regression found on GOAL_ROWS of the rows."""
    pairs = [f for per in per_comparison for f in per.values()]
    if not pairs:
        return None
    rows = sorted({r for per in per_comparison for r in per})
    rate = {r: statistics.mean(per[r] for per in per_comparison if r in per)
            for r in rows}
    often = sum(1 for v in rate.values() if v >= GOAL_ROWS)
    share = statistics.mean(statistics.mean(per.values())
                            for per in per_comparison if per)
    return (f"+{pct} % added to each row of B in turn: found {sum(pairs)} "
            f"times in {len(pairs)} ({share:.0%} of the rows a comparison, "
            f"goal {GOAL_ROWS:.0%}); rows found in {GOAL_ROWS:.0%} of the "
            f"comparisons or more: {often} of {len(rows)}")


def _mde_table(results, count, prefix, timed=None):
    """Per row, the median minimum detectable effect (95 % confidence,
    80 % power) over the comparisons saved under @results."""
    mde = {}
    for n in range(1, count + 1):
        f = results / f"{prefix}{n:02d}" / "compare.json"
        if not f.exists():
            continue
        for r in json.loads(f.read_text())["rows"]:
            if r.get("mde") is not None:
                mde.setdefault(r["row"], []).append(r["mde"])
    if not mde:
        return []
    out = ["minimum detectable effect per row (95 % confidence, 80 % "
           "power; median over the comparisons):"]
    width = max(len(r) for r in mde)
    for row in sorted(mde, key=lambda r: statistics.median(mde[r])):
        out.append(f"  {row:<{width}}  {statistics.median(mde[row]):6.1f} %")
    below = sum(1 for v in mde.values()
                if statistics.median(v) <= GOAL_MDE_PCT)
    out.append(f"rows whose MDE is at most {GOAL_MDE_PCT:g} %: {below} of "
               f"{len(mde)} (goal: {GOAL_ROWS:.0%} of them, "
               f"{math.ceil(GOAL_ROWS * len(mde))})")
    took = guest_time(results / f"{prefix}{n:02d}"
                      for n in range(1, count + 1))
    if took:
        out.append(took + (f", as measured with {timed}" if timed else ""))
    return out


def check_known(args, results):
    """Known regressions: slow_into making the KNOWN_ROWS +2/+5/+10 %
    slower, in boots alternating with the stock kernel's."""
    # The stock selection on both sides; the calibration boot runs the
    # benchmarks of the rows slowed and alu_chain only.
    base = []
    if not args.reuse:
        cal = Side("A", args, **_kernel_of(args), params=[
            "benchmarks=" + ",".join(sorted(set(KNOWN_ROWS.values()))) +
            f",{CALIBRATION}"])
        # The module of the sides it calibrates slow_into for.
        same_module([cal], knobs=True)
        cal.prepare()
        d = results / "calibration"
        d.mkdir(parents=True, exist_ok=True)
        files = alternate([cal], 1, args.loads, d, retry=True)
        step, rows = calibrate(archive.Archive.read(files["A"]))
        (results / "calibration.json").write_text(json.dumps(
            {"step_ns": step, "rows": rows}) + "\n")
    path = results / "calibration.json"
    try:
        cal = json.loads(path.read_text())
        step, rows = cal["step_ns"], cal["rows"]
        good = all(isinstance(v, (int, float)) and
                   not isinstance(v, bool) and 0 < v < 1e9
                   for v in [step] + list(rows.values()))
        same = set(rows) == set(KNOWN_ROWS)
    except (ValueError, KeyError, TypeError, AttributeError) as e:
        raise Failure(f"{path}: not compare-check known's calibration "
                      f"({e})") from e
    if not same:
        raise Failure(f"{path}: its rows are {', '.join(sorted(rows))}, "
                      f"not {', '.join(KNOWN_ROWS)}")
    if not good:
        raise Failure(f"{path}: step_ns and the ns/op of "
                      f"{', '.join(KNOWN_ROWS)} are not positive numbers")
    say(f"a chain step costs {step:.4f} ns; " + ", ".join(
        f"{r} {v:.1f} ns/op" for r, v in rows.items()))
    levels = {pct: slow_into(step, rows, pct) for pct in KNOWN_PCTS}
    for pct, value in levels.items():
        # The chain comes in whole steps: what each row gets in fact.
        got = ", ".join(
            f"{row} +{100 * int(n) * step / rows[row]:.1f} %"
            for row, n in (e.split(":") for e in value.split(",")))
        say(f"+{pct} %: slow_into={value} ({got})")
    sides = None
    if not args.reuse:
        sides = [Side("A", args, **_kernel_of(args), params=base)] + [
            Side(f"B{pct}", args, **_kernel_of(args),
                 params=base + [f"slow_into={value}"])
            for pct, value in levels.items()]
        for s in same_module(sides):
            s.prepare()
    detected = {(row, pct): 0 for row in KNOWN_ROWS for pct in KNOWN_PCTS}
    other = {}
    lines = []
    for n in range(1, args.comparisons + 1):
        d = _comparison(results / f"known{n:02d}", sides, args)
        for pct in KNOWN_PCTS:
            c = run_compare([d / "A.jsonl"], [d / f"B{pct}.jsonl"],
                            args.norm, d / f"B{pct}", plot=False,
                            quiet=True)
            by = {r.row: r for r in c.rows}
            got = []
            for row in KNOWN_ROWS:
                r = by.get(row)
                if r and r.verdict == compare.REGRESSION:
                    detected[(row, pct)] += 1
                got.append(f"{row} {r.verdict if r else 'missing'} "
                           f"{r.change:+.1f} %" if r and r.change is not None
                           else f"{row} {r.verdict if r else 'missing'}")
            for r in c.judged():
                if r.row in KNOWN_ROWS or r.row == CALIBRATION:
                    continue
                if r.verdict in (compare.REGRESSION, compare.IMPROVEMENT):
                    other[r.verdict] = other.get(r.verdict, 0) + 1
            line = f"known {n:2d}, +{pct:2d} %: " + "; ".join(got)
            lines.append(line)
            print(line, flush=True)
    # The shape measured (with --reuse, the archives', not the options').
    a = archive.Archive.read(results / "known01" / "A.jsonl")
    summary = [f"known regressions ({args.comparisons} comparisons a "
               f"level, {len(a.runs)} boots x "
               f"{max((r.get('load', 0) for r in a.rows), default=0)} "
               "loads a kernel):"]
    for row in KNOWN_ROWS:
        summary.append(f"  {row:<24} " + ", ".join(
            f"+{pct} %: {detected[(row, pct)]}/{args.comparisons}"
            for pct in KNOWN_PCTS))
    summary.append("verdicts on the rows not slowed: " +
                   (", ".join(f"{k} {v}" for k, v in other.items())
                    or "none flagged"))
    mde = {}
    for n in range(1, args.comparisons + 1):
        for pct in KNOWN_PCTS:
            f = results / f"known{n:02d}" / f"B{pct}" / "compare.json"
            if f.exists():
                for r in json.loads(f.read_text())["rows"]:
                    if r["row"] in KNOWN_ROWS and r.get("mde") is not None:
                        mde.setdefault(r["row"], []).append(r["mde"])
    for row, v in mde.items():
        summary.append(f"  {row}: minimum detectable effect "
                       f"{statistics.median(v):.1f} % (95 % confidence, "
                       "80 % power, median over the comparisons)")
    took = guest_time(results / f"known{n:02d}"
                      for n in range(1, args.comparisons + 1))
    if took:
        summary.append(took)
    for line in summary:
        print(line, flush=True)
    (results / "check.txt").write_text("\n".join(lines + summary) + "\n")
    say(f"results in {results}")
    return 0



def _robust_sd(values):
    m = statistics.median(values)
    return 1.4826 * statistics.median(abs(v - m) for v in values)


def draw_splits(boots, per_side, comparisons):
    """@comparisons pairs (A's boots, B's boots), @per_side each and no
    boot in both: every way of splitting @boots when there are few, else
    drawn at random (seeded: the same folder gives the same figures)."""
    import itertools
    import random
    if per_side < 2:
        raise Failure(f"--boots {per_side}: a comparison needs 2 boots a "
                      "kernel or more (the boots are its unit)")
    if len(boots) < 2 * per_side:
        raise Failure(f"{len(boots)} boots: comparisons of {per_side} "
                      f"boots a kernel need {2 * per_side} or more")
    if len(boots) == 2 * per_side:
        every = [(set(g), set(boots) - set(g)) for g in
                 itertools.combinations(boots, per_side) if boots[0] in g]
        return every[:comparisons]
    rng = random.Random(0)
    seen, out = set(), []
    for _ in range(50 * comparisons):
        if len(out) == comparisons:
            break
        pick = rng.sample(boots, 2 * per_side)
        a, b = frozenset(pick[:per_side]), frozenset(pick[per_side:])
        if (a, b) in seen or (b, a) in seen:
            continue
        seen.add((a, b))
        out.append((set(a), set(b)))
    return out


def check_split(args):
    """A/A on measured data without booting: the boots of one kernel's
    archives (--reuse: a folder of ./mmbench measure of the stock kernel
    against itself, or of archives) drawn into comparisons of --boots
    boots a kernel, none in both (draw_splits()); per normalisation the
    comparisons that flag a row, the median minimum detectable effect,
    and how often a +5 % and +10 % change added to KNOWN_ROWS's figures
    in B is found."""
    if not args.reuse:
        raise Failure("compare-check split reads archives: give --reuse "
                      "FOLDER (A.jsonl and B.jsonl of the same kernel, or "
                      "*.jsonl)")
    d = Path(args.reuse)
    _reuse_folder(d)
    files = sorted(d.glob("*.jsonl"))
    if not files:
        raise Failure(f"{d}: no *.jsonl archive in it")
    try:
        pool = archive.Archive.read(*files)
    except (ValueError, OSError) as e:
        raise Failure(f"compare-check split: {e}") from e
    one_setup(pool, d)
    boots = sorted({r["boot"] for r in pool.rows})
    splits = draw_splits(boots, args.boots, args.comparisons)
    say(f"{len(boots)} boots, {len(pool.rows)} row records: "
        f"{len(splits)} comparisons of {args.boots} boots against "
        f"{args.boots} others")
    lines = []
    # The spread between loads each normalisation leaves: per row the
    # robust standard deviation (1.4826 MAD) of its log medians over
    # every load and boot, then over the quiet loads; the median over
    # rows.
    units = compare.log_units(pool)
    half = dict(list(units.items())[:len(units) // 2])
    rest = dict(list(units.items())[len(units) // 2:])
    for norm in compare.NORMS:
        na, nb, factors, _r = compare.normalise(half, rest, norm)
        every = list(na.values()) + list(nb.values())
        rows = set.intersection(*(set(u) for u in every))

        def spread(loads):
            sds = sorted(100 * _robust_sd([u[r] for u in loads])
                         for r in rows)
            return (f"median over rows {statistics.median(sds):.1f} %, "
                    f"quartiles {sds[len(sds) // 4]:.1f} and "
                    f"{sds[3 * len(sds) // 4]:.1f} %")
        line = f"{norm:<9} between-load spread: {spread(every)}"
        if factors:
            quiet = [u for units in (na, nb)
                     for u in compare.quiet(units).values()]
            line += (f"; the {len(quiet)} quiet loads of {len(every)}: "
                     f"{spread(quiet)}")
        lines.append(line)
        print(line, flush=True)
    for norm in compare.NORMS:
        flagged = flags = 0
        mdes = []
        found = {5: 0, 10: 0}
        tried = 0
        known_mde = {}
        for ga, gb in splits:
            c = compare.Comparison(pool.where(boots=ga), pool.where(boots=gb),
                                   norm)
            bad = [r for r in c.judged() if r.verdict in
                   (compare.REGRESSION, compare.IMPROVEMENT)]
            flagged += bool(bad)
            flags += len(bad)
            mdes += [r.mde for r in c.rows if r.mde is not None]
            for r in c.rows:
                if r.row in KNOWN_ROWS and r.mde is not None:
                    known_mde.setdefault(r.row, []).append(r.mde)
            for pct in found:
                hit, of = found_when_added(pool.where(boots=ga),
                                           pool.where(boots=gb), pct, norm)
                found[pct] += hit
            tried += of
        line = (f"{norm:<9} {len(splits)} A/A splits: {flagged} flagged a "
                f"row ({flags} rows in all); median MDE "
                f"{statistics.median(mdes) if mdes else math.nan:.1f} %; "
                f"+5 % found {found[5]}/{tried}, +10 % {found[10]}/{tried}; "
                "MDE " + ", ".join(f"{r} {statistics.median(v):.1f} %"
                                   for r, v in known_mde.items()))
        lines.append(line)
        print(line, flush=True)
    (d / "split.txt").write_text("\n".join(lines) + "\n")
    return 0


# ./mmbench test's real comparison: few benchmarks (so few rows), a known
# regression of CI_PCT % on CI_ROW, calibrated in A's first boot.
CI_BENCHMARKS = ("inc_dec_zone_page_state,count_vm_event,mod_node_page_state,"
                 "kmalloc,kmem_cache,alloc_pages,alu_chain")
CI_ROW = "inc_dec_zone_page_state"
CI_PCT = 30
CI_BOOTS = 3
CI_LOADS = 8


def _ci_sides(args, results, **options):
    """./mmbench test's two sides, prepared: the stock kernel (A) and
    the stock kernel with slow_into adding one chain step to each op of
    CI_ROW (B), CI_BENCHMARKS only; none of the options' parameters or
    ceilings; @options: more options of both."""
    args = copy.copy(args)
    args.param, args.env, args.ceiling = [], [], []
    for name, value in options.items():
        setattr(args, name, value)
    sel = f"benchmarks={CI_BENCHMARKS}"
    a = Side("A", args, params=[sel])
    b = Side("B", args, params=[sel, f"slow_into={CI_ROW}:1"])
    for s in same_module([a, b]):
        # The stock kernel's (the debug kernel's guest comes later).
        s.args.debug_kernel = False
        s.prepare()
    results.mkdir(parents=True, exist_ok=True)
    return a, b


def _flagged(c):
    """The rows of comparison @c flagged REGRESSION or IMPROVEMENT, but
    CI_ROW (its median and p99) and CALIBRATION: in ./mmbench test, rows
    nothing slowed."""
    return [x for x in c.judged()
            if x.row not in (CI_ROW, CI_ROW + archive.TAIL_ROW, CALIBRATION)
            and x.verdict in (compare.REGRESSION, compare.IMPROVEMENT)]


# The most a row nothing slowed may change for a busy host to be blamed:
# the rows a busy host flagged in CI changed 1.8 to 3.1 %; slow_into
# leaking into another row (the module's bug) is not excused when it moves
# that row by more.
BUSY_PCT = 5.0
# The most rows a busy host may be blamed for (3 in CI): slow_into leaking
# into every row would flag more, each by less in the slower rows.
BUSY_ROWS = 4


def _busy(c):
    """What a busy host did to comparison @c, as its report says it, or
    None: the loads compare left out because their rows disagree."""
    if not any(c.dropped_loads.values()):
        return None
    return (f"a busy host slowed A {c.dropped_loads['A']}, B "
            f"{c.dropped_loads['B']} loads (limit 0)")


def _ci_compare(what, sides, loads, results, boots, plot=True,
                others=None):
    """Compare the archives of ./mmbench test's @sides (A, B), booted
    @boots times in @results.  One more boot of each, once, when CI_ROW
    comes out INCONCLUSIVE, as compare advises (its unit is the boot, and
    a busy host, or a load whose work other work swelled, leaves few
    boots too uncertain to decide), or when
    more than @others (None: any number) of the other rows are flagged
    and compare left out loads a busy host slowed: the host's work
    reaches the loads it keeps too.  CI_ROW still INCONCLUSIVE, it is
    not judged: the host, not compare, left too few boots to decide, and
    the statistics are the unit tests' to check.  Returns (comparison,
    CI_ROW's row or None, boots, undecided)."""
    files = [[results / f"{s.name}.jsonl"] for s in sides]

    def once():
        c = run_compare(*files, compare.DEFAULT_NORM, results, plot=plot)
        return c, {r.row: r for r in c.rows}.get(CI_ROW)
    c, r = once()
    why = None
    if r is not None and r.verdict == compare.INCONCLUSIVE:
        why = f"{CI_ROW} INCONCLUSIVE"
    elif others is not None and len(_flagged(c)) > others and _busy(c):
        why = f"{len(_flagged(c))} rows nothing slowed flagged, {_busy(c)}"
    if why:
        say(f"{what}: {why}: one more boot of each")
        alternate(sides, 1, loads, results, first=boots + 1)
        boots += 1
        c, r = once()
    undecided = r is not None and r.verdict == compare.INCONCLUSIVE
    if undecided:
        say(f"{what}: {CI_ROW} still INCONCLUSIVE after {boots} boots of "
            f"each: not judged; see {results}/compare.txt")
    return c, r, boots, undecided


def rivals(c, row):
    """The rows of comparison c whose change row's must exceed: each
    median but row's and the calibration's. A p99 row (archive.TAIL_ROW)
    is net of the baseline, a few ns whose percent change is no rival to
    a median's."""
    return [x for x in c.judged()
            if x.row not in (row, CALIBRATION) and
            not x.row.endswith(archive.TAIL_ROW)]


def test_checks(args, results):
    """The checks ./mmbench test makes of compare on real guests: the
    stock kernel (A) against itself with slow_into making CI_ROW CI_PCT %
    slower (B), in boots A, B, A, B; returns [(ok, what, why)]."""
    deps.ensure(COMPARE_PACKAGES)
    a, b = _ci_sides(args, results)
    files = alternate([a], 1, CI_LOADS, results)
    step, rows = calibrate(archive.Archive.read(files["A"]), (CI_ROW,))
    steps = max(1, round(CI_PCT / 100 * rows[CI_ROW] / step))
    say(f"compare: a chain step costs {step:.4f} ns, {CI_ROW} "
        f"{rows[CI_ROW]:.1f} ns/op: slow_into={CI_ROW}:{steps} for "
        f"+{CI_PCT} %")
    b.args.param = with_param(b.args.param, f"slow_into={CI_ROW}:{steps}")
    alternate([b], 1, CI_LOADS, results)
    alternate([a, b], CI_BOOTS - 1, CI_LOADS, results, first=2)
    c, r, boots, undecided = _ci_compare("compare", [a, b], CI_LOADS,
                                         results, CI_BOOTS, others=1)
    got = {}
    for side in ("A", "B"):
        arch = archive.Archive.read(results / f"{side}.jsonl")
        got[side] = sum(1 for ld in arch.loads if ld["insmod"] == "ok")
    others = rivals(c, CI_ROW)
    flagged = [f"{x.row} {x.verdict} {x.change:+.1f} %" for x in _flagged(c)]
    # After one more boot of each: the host's doing, not compare's, if
    # each change is small; a larger one is not the host's to excuse.
    large = [x for x in _flagged(c)
             if x.change is None or abs(x.change) > BUSY_PCT]
    spoilt = None
    if len(flagged) > 1 and _busy(c):
        if large:
            flagged.append(f"{len(large)} of them changed more than a busy "
                           f"host explains (limit {BUSY_PCT:g} %)")
        elif len(flagged) > BUSY_ROWS:
            flagged.append(f"more rows than a busy host explains (limit "
                           f"{BUSY_ROWS})")
        else:
            spoilt = (f"{len(flagged)} rows flagged (limit 1; {BUSY_ROWS} "
                      f"on a busy host), each within {BUSY_PCT:g} %; "
                      f"{_busy(c)}")
    where = f"see {results}/compare.txt"
    lava = fleet.lava(archive.Archive.read(files["A"]))
    # A plot that fails is one line of compare's: here it fails a check.
    made = _earlier_plots(results)
    pngs = [m for m in made if m.is_file() and
            m.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"]
    return [
        (len(pngs) == len(made) == len(c.rows) + 1,
         "compare: forest.png and a samples plot of each row written",
         f"{len(pngs)} PNG files of {len(made)} listed in compare.json, "
         f"{len(c.rows)} rows; {where}"),
        (got["A"] == got["B"] == boots * CI_LOADS,
         f"compare: every load of each kernel archived ({CI_LOADS} a "
         "boot)", f"A {got['A']}, B {got['B']} loads in {boots} boots "
         f"each; see {results}"),
        (undecided or (r is not None and r.verdict == compare.REGRESSION),
         f"compare: REGRESSION for {CI_ROW} slowed {CI_PCT} % "
         "(slow_into)" + (" (not judged: INCONCLUSIVE, a busy host)"
                          if undecided else ""),
         f"{r.verdict} {r.change:+.1f} % [{r.lo:+.1f}, {r.hi:+.1f}]; {where}"
         if r and r.change is not None else f"no figures; {where}"),
        # Undecided, another row's false discovery (one is let pass
        # below) still makes a regression found; else the row undecided
        # is no answer for it (3), never "no regression" (0).
        (exit_status(c) == (EXIT_REGRESSION
                            if not undecided or c.regressions() else
                            EXIT_NO_ANSWER if c.one_boot or c.only_a or
                            c.only_b else EXIT_UNDECIDED),
         "compare: exit status 1 (a regression)" if not undecided else
         "compare: exit status 1 if a row is a REGRESSION, else 3 (a row "
         "undecided; 2 when a kernel's loads all came from one boot)",
         f"{exit_status(c)}; {where}"),
        (undecided or (r is not None and r.change is not None and
         all(x.change is None or x.change < r.change for x in others)),
         f"compare: {CI_ROW} has the largest change of all rows"
         + (" (not judged: INCONCLUSIVE)" if undecided else ""),
         ", ".join(f"{x.row} {x.change:+.1f} %" for x in others
                   if x.change is not None and r and r.change is not None
                   and x.change >= r.change) + f"; {where}"),
        # Benjamini-Hochberg lets about q of the discoveries be false:
        # one other row may be; two would be out of line.
        (len(flagged) <= 1 or spoilt is not None, "compare: at most one "
         "row not slowed is flagged" + (f" (not judged: {spoilt})"
                                        if spoilt else ""),
         "; ".join(flagged) + f"; {where}"),
        (all(re.fullmatch(r"lava-test-case [-_.a-zA-Z0-9]+ --result "
                          r"(pass|fail|skip)( --measurement [0-9.]+ "
                          r"--units (ns|%))?", line)
             for line in lava.splitlines()) and
         f"mmbench.{CI_ROW}.ns_per_op" in lava,
         "compare: the archive's LAVA test cases are well formed",
         f"see ./mmbench fleet {files['A']}"),
    ]


# ./mmbench test's comparison of instructions (--accel icount): one chain
# step, three instructions, added to each op of CI_ROW is found.
ICOUNT_BOOTS = 3
ICOUNT_LOADS = 3


def icount_checks(args, results):
    """The checks ./mmbench test makes of --accel icount on real guests:
    the stock kernel (A) against itself with slow_into adding one chain
    step to each op of CI_ROW (B), in boots A, B, A, B; returns
    [(ok, what, why)]."""
    # A comparison of two kernels, as measure makes it.
    a, b = _ci_sides(args, results, accel="icount", command="measure")
    boots = ICOUNT_BOOTS
    try:
        files = alternate([a, b], boots, ICOUNT_LOADS, results)
        # INCONCLUSIVE: a load whose instructions other work swelled (a
        # rare sample 3-5 times the row's).
        c, r, boots, undecided = _ci_compare(
            "compare --accel icount", [a, b], ICOUNT_LOADS, results, boots,
            plot=False)
    except EmulatorFault as e:
        # Four boots in a row killed or cut short by QEMU's icount
        # fault: the emulator's doing, not the kernel's.
        return [(True, "compare --accel icount (not judged: QEMU's "
                 "icount fault spoilt every boot tried)", str(e))]
    where = f"see {results}/compare.txt"
    flagged = [f"{x.row} {x.verdict} {x.change:+.1f} %" for x in _flagged(c)]
    accel = {side: archive.Archive.read(f).fingerprint().get("accel")
             for side, f in files.items()}
    return [
        (accel == {"A": {archive.ICOUNT_ACCEL}, "B": {archive.ICOUNT_ACCEL}},
         "compare --accel icount: the archives say accel "
         f"{archive.ICOUNT_ACCEL}", f"{accel}; see {results}"),
        (undecided or (r is not None and r.verdict == compare.REGRESSION
                       and r.change is not None and 1 < r.change < 10),
         f"compare --accel icount: REGRESSION for {CI_ROW} with three "
         "instructions more an op (slow_into, one step)"
         + (" (not judged: INCONCLUSIVE, too few boots to decide)"
            if undecided else ""),
         f"{r.verdict} {r.change:+.1f} % [{r.lo:+.1f}, {r.hi:+.1f}], "
         f"{r.change_insn:+.2f} instructions an op [{r.lo_insn:+.2f}, "
         f"{r.hi_insn:+.2f}]; {where}"
         if r and r.change_insn is not None else
         f"{r.verdict} {r.change:+.1f} % [{r.lo:+.1f}, {r.hi:+.1f}]; {where}"
         if r and r.change is not None else f"no figures; {where}"),
        (not flagged, "compare --accel icount: no other row flagged",
         "; ".join(flagged) + f"; {where}"),
    ]
