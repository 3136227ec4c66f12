"""./mmbench compare: did B make a row slower than A, by how much, and how
sure are we?

The unit of replication is the boot, or the code layout: within a load a
row's samples spread a few %, its median moves more between loads, more
again between boots (the loads of one boot share its offset), and across
builds code layout alone moves a row by 10-20 % under TCG.  Per row and
load the figure is log(median ns/op); each load is first normalised (see
normalise()) and the loads a busy host slowed are left out; per row each
boot's value is then the median of its loads, each layout's (where a
kernel was measured in several layouts, the run records' fingerprint
"layout") the mean of its boots', and the two kernels' boots (or layouts)
are compared with Welch's t test, Benjamini-Hochberg over the rows.  A
change no larger than layout alone moves the row is no verdict.  Under
QEMU's icount (ns/op are instructions an op) the change is said in
instructions.  tooling/doc/compare-method.md explains the choices and
the figures behind them.
"""
import math
import os
import re
import statistics
import sys

from .archive import ICOUNT_ACCEL, TAIL_ROW, differences

Q = 0.05                # Benjamini-Hochberg false discovery rate
MIN_EFFECT_PCT = 1.0    # the smallest change worth a verdict, in %
# Under icount: the smallest change worth a verdict, in instructions an op.
MIN_EFFECT_INSN = 0.5
# A p99 row's least effect: two of op_ns_hist's buckets (each up to
# 1/16 of its least wide).  Under icount, where ops take a few fixed
# counts, 4 instructions more on every op of kmalloc_64 moved its p99 by
# 16 (measure --tree's check): a bucket boundary crossed.
TAIL_MIN_EFFECT_PCT = 12.5
MIN_UNITS = 2           # fewer boots (or layouts) a side: INCONCLUSIVE
MORE_BOOTS_CAP = 999
# The most boots, and layouts, ./mmbench measure takes a kernel (--boots,
# --layouts): a hint past them is no advice one can follow.
MOST_UNITS = {"boots": 50, "layouts": 8}
# A first pass's p below this: the row is left out of the common factor.
EXCLUDE_P = 0.01
# A row's load slower than the kernel's median by this many scaled MADs
# (and at least DISTURBED_MIN, log) is taken for disturbed.
DISTURBED_MADS = 4.0
DISTURBED_MIN = 0.05
# A load whose rows disagree on how much slower they ran (spreads()) by
# SPREAD_TIMES the kernel's median, and SPREAD_MIN (log) over it at least,
# is taken for one a busy host slowed; None keeps every load.
SPREAD_TIMES = 2.0
SPREAD_MIN = 0.02
# The calibration rows: pure emulation speed, independent of mm code.
REFERENCE_ROWS = ("baseline", "alu_chain")
NORMS = ("common", "loading", "reference", "none")


class Default(str):
    """The normalisation of a caller that chose none: "common", but
    "none" when both archives count instructions (icount: they do not
    depend on host speed, and a change most rows share must not be
    normalised away).  It equals "common", so that an option whose
    default it is says "default common"."""


DEFAULT_NORM = Default("common")
# What layout alone does to a row, the spread a change must pass: the
# range three layouts span on average (d2 = 1.693 standard deviations
# of a normal sample of three), from the standard deviation between the
# layouts of each kernel, pooled.  Not the largest range seen: that grows
# with the number of layouts (2.85 SD for eight), and --layouts 8 found
# a +10 % change in 4 % of simulated runs, against 93 % without the rule.
LAYOUT_RANGE = 1.693
# The fingerprint key naming a kernel build's code layout (the same code
# shifted by padding that never runs): boots of one layout share it.
LAYOUT_KEY = "layout"

REGRESSION = "REGRESSION"
IMPROVEMENT = "IMPROVEMENT"
NO_CHANGE = "NO CHANGE"
INCONCLUSIVE = "INCONCLUSIVE"
NOT_COMPARABLE = "NOT COMPARABLE"
# The load factor's change between the kernels, judged as a row.
SHIFT_ROW = "(every row alike)"
# The longest kernel name in a column's header; the full names are said
# once, above the table.
NAME_WIDTH = 16
# The rows the summary names a kind of (slower, faster); the table has
# every one.
SUMMARY_ROWS = 4
# The release of measure --tree's builds: the revision's own, with
# -mmb and its commit's first 8 hex digits (revisions.py).
TREE_RELEASE = re.compile(r"(.*)-mmb([0-9a-f]{8})")


def special():
    """scipy.special (the t distribution's fast forms): Debian's
    python3-scipy, also when the python3 that runs mmbench is not
    Debian's (a pyenv of the same version)."""
    try:
        import scipy.special
    except ImportError:
        sys.path.append("/usr/lib/python3/dist-packages")
        import scipy.special
    return scipy.special


def t_quantile(p, df):
    return float(special().stdtrit(df, p))


def t_sf(x, df):
    return float(special().stdtr(df, -x))


def z_quantile(p):
    return float(special().ndtri(p))


# ---------------------------------------------------------------- data

def log_units(archive):
    """{(boot, load): {row: log median}} of an archive's passing rows."""
    return {u: {r: math.log(m) for r, m in rows.items() if m > 0}
            for u, rows in archive.medians().items()}


def _mean(values):
    values = list(values)
    return math.fsum(values) / len(values)


def _variance(values):
    values = list(values)
    m = _mean(values)
    return math.fsum((v - m) ** 2 for v in values) / (len(values) - 1)


def normalise(ua, ub, how=DEFAULT_NORM, exclude=()):
    """Take each load's factor out: "common", the median over the rows
    every load has of (row - the row's median over all loads of both
    kernels), the factor common to all rows of a load (host speed under
    TCG); "reference", the mean of the same over the calibration rows;
    "none".  Rows in @exclude (found changed in a first pass) are left
    out of the factor.  Returns (ua', ub', factors {unit: factor}, rows
    used)."""
    if how == "none" or not ua or not ub:
        return ua, ub, {}, []
    every = [u for u in list(ua.values()) + list(ub.values())]
    common = set.intersection(*(set(u) for u in every))
    if how == "reference":
        use = [r for r in REFERENCE_ROWS if r in common]
    else:
        # A row's p99 (archive.TAIL_ROW) is no measure of the host's speed.
        use = sorted(r for r in common - set(exclude)
                     if not r.endswith(TAIL_ROW))
    if not use:
        return ua, ub, {}, []
    centre = {r: statistics.median(u[r] for u in every) for r in use}

    def factor(u):
        devs = [u[r] - centre[r] for r in use]
        return _mean(devs) if how == "reference" else \
            statistics.median(devs)
    factors = {}
    for side, units in (("A", ua), ("B", ub)):
        for key, u in units.items():
            factors[(side,) + tuple(key)] = factor(u)
    slopes = loadings(ua, ub, factors) if how == "loading" else {}
    out = []
    for side, units in (("A", ua), ("B", ub)):
        norm = {}
        for key, u in units.items():
            f = factors[(side,) + tuple(key)]
            norm[key] = {r: v - slopes.get(r, 1.0) * f for r, v in u.items()}
        out.append(norm)
    return out[0], out[1], factors, use


def loadings(ua, ub, factors):
    """Per row, how much of the load factor it takes (its loading, the
    slope of the row on the factor, fitted within each kernel so that a
    change between the kernels is not taken for one), clipped to 0..2: a
    row on one CPU moves with the factor (about 1), a row on several CPUs
    its own way under a busy host."""
    out = {}
    rows = set(r for u in list(ua.values()) + list(ub.values()) for r in u)
    for row in rows:
        sxy = sxx = 0.0
        for side, units in (("A", ua), ("B", ub)):
            pts = [(factors[(side,) + tuple(k)], u[row])
                   for k, u in units.items() if row in u]
            if len(pts) < 2:
                continue
            fm = _mean(f for f, _ in pts)
            ym = _mean(y for _, y in pts)
            sxy += math.fsum((f - fm) * (y - ym) for f, y in pts)
            sxx += math.fsum((f - fm) ** 2 for f, _ in pts)
        if sxx > 1e-9:
            out[row] = min(2.0, max(0.0, sxy / sxx))
    return out


def disturbed(values):
    """@values without those a busy host slowed: a host can only make a
    row slower, so a load's value over the kernel's median by more than
    DISTURBED_MADS scaled MADs (and DISTURBED_MIN) is left out."""
    if DISTURBED_MADS is None or len(values) < 4:
        return values
    m = statistics.median(values)
    s = 1.4826 * statistics.median(abs(v - m) for v in values)
    limit = m + max(DISTURBED_MADS * s, DISTURBED_MIN)
    return [v for v in values if v <= limit]


def spreads(units, exclude=()):
    """Per load of @units (normalised), how far its rows disagree: the
    median absolute deviation over the rows of (row - the row's median
    over the kernel's loads), over the rows 80 % of the loads have (a
    load with few passing rows does not narrow them for all) but those
    in @exclude, found changed.  A busy host slows a load's rows each by
    its own amount (35-100 %), so they disagree; a load whose rows all
    ran alike faster or slower (under TCG a module load now and then runs
    every row on one CPU about 38 % faster) keeps their agreement, and
    its factor is what normalise() takes out.  (While such loads are
    fewer than half a kernel's, disturbed() then leaves out the values
    of rows that do not follow the factor in them; when they are most,
    both kinds are kept and those rows' spread is wider.)"""
    if not units:
        return {}
    seen = {}
    for u in units.values():
        for r in u:
            seen[r] = seen.get(r, 0) + 1
    rows = {r for r, n in seen.items()
            if n >= 0.8 * len(units)} - set(exclude)
    centre = {r: statistics.median(u[r] for u in units.values() if r in u)
              for r in rows}
    out = {}
    for key, u in units.items():
        dev = [u[r] - centre[r] for r in rows if r in u]
        if not dev:
            continue
        m = statistics.median(dev)
        out[key] = statistics.median(abs(d - m) for d in dev)
    return out


def spread_limit(values):
    """The largest spread of a quiet load: SPREAD_TIMES the kernel's
    median spread, and SPREAD_MIN (log) over it at least (when the host
    was busy for most loads, most are kept: compare then says
    INCONCLUSIVE rather than guess); None, no limit, without values."""
    if not values or SPREAD_TIMES is None:
        return None
    m = statistics.median(values)
    return max(SPREAD_TIMES * m, m + SPREAD_MIN)


def quiet(units, exclude=()):
    """@units without the loads a busy host slowed (spreads() over
    spread_limit()); all of them if the loads left would come from fewer
    than MIN_UNITS boots, or nothing can be told."""
    fs = spreads(units, exclude)
    limit = spread_limit(list(fs.values()))
    if limit is None:
        return dict(units)
    keep = {k: v for k, v in units.items() if fs.get(k, 0.0) <= limit}
    return keep if len({boot for boot, _load in keep}) >= MIN_UNITS \
        else dict(units)


def undisturbed(units):
    """@units without the rows' values disturbed() leaves out."""
    rows = set(r for u in units.values() for r in u)
    keep = {}
    for row in rows:
        vals = [u[row] for u in units.values() if row in u]
        kept = disturbed(vals)
        keep[row] = max(kept) if kept else None
    return {k: {r: v for r, v in u.items()
                if keep[r] is not None and v <= keep[r]}
            for k, u in units.items()}


def bh(pvalues, q=Q):
    """Benjamini-Hochberg: (rejected flags, adjusted p-values), in the
    order of @pvalues (None: not tested)."""
    tested = [(p, i) for i, p in enumerate(pvalues) if p is not None]
    m = len(tested)
    rejected = [False] * len(pvalues)
    adjusted = [None] * len(pvalues)
    if not m:
        return rejected, adjusted
    tested.sort()
    last = 0
    for k, (p, _) in enumerate(tested, 1):
        if p <= k / m * q:
            last = k
    for k, (_, i) in enumerate(tested, 1):
        rejected[i] = k <= last
    running = 1.0
    for k in range(m, 0, -1):
        p, i = tested[k - 1]
        running = min(running, p * m / k)
        adjusted[i] = running
    return rejected, adjusted


def pct(logdiff):
    return 100 * math.expm1(logdiff)


# ----------------------------------------------------------- the test

def layout_of(arch):
    """{boot: its layout} of @arch's boots, from its run records'
    fingerprint (LAYOUT_KEY; None where a run does not say), or None when
    they name fewer than two layouts: the boot is then the unit."""
    found = {}
    for run in arch.runs:
        fp = run.get("fingerprint") or {}
        label = fp.get(LAYOUT_KEY)
        found[run.get("boot")] = None if label is None else str(label)
    return found if len(set(found.values())) >= 2 else None


def unit_values(values, layouts=None):
    """One row's values of one kernel in its units: @values {(boot,
    load): normalised log}; each boot's the median of its loads', and
    with @layouts ({boot: layout}) each layout's the mean of its boots'.
    Returns {boot or layout: value}."""
    boots = {}
    for (boot, _load), v in values.items():
        boots.setdefault(boot, []).append(v)
    out = {b: statistics.median(v) for b, v in boots.items()}
    if not layouts:
        return out
    by = {}
    for b, v in out.items():
        by.setdefault(layouts.get(b), []).append(v)
    return {lay: _mean(v) for lay, v in by.items()}


class RowResult:
    """One row's comparison."""

    def __init__(self, row):
        self.row = row
        self.a_median = self.b_median = None     # ns/op, median over loads
        self.na = self.nb = 0                    # boots or layouts
        self.change = self.lo = self.hi = None   # % B against A
        self.p = self.q = None
        self.significant = False
        self.noise_a = self.noise_b = None       # % (SE of each level)
        self.min_effect = MIN_EFFECT_PCT
        self.mde = None                          # % at 95 %, 80 % power
        # Under icount: B minus A in instructions an op.
        self.change_insn = self.lo_insn = self.hi_insn = None
        self.min_effect_insn = self.mde_insn = None
        # What layout alone does to the row, in % (LAYOUT_RANGE).
        self.layout_spread = None
        # icount: how far loads of one boot or layout differ (log).
        self.load_spread = None
        self.verdict = INCONCLUSIVE
        self.more_boots = None
        self.why = ""
        self.untested = False  # one icount cannot judge (_untested())
        self.diff = self.se = self.df = None
        self.level = None      # icount: A's mean, instructions an op

    def as_dict(self):
        return {k: v for k, v in vars(self).items()}


def compare_row(row, xa, xb, insn=False, words=("boot", "boot")):
    """The test of one row: @xa, @xb each kernel's values of it in its
    units (log), Welch's t test on them; @insn: the figures are
    instructions an op (icount), said so; @words: what A's and B's
    units are."""
    r = RowResult(row)
    r.na, r.nb = len(xa), len(xb)
    if r.na < MIN_UNITS or r.nb < MIN_UNITS:
        r.why = (f"A {_count(r.na, words[0])}, B {_count(r.nb, words[1])} "
                 f"with quiet passing loads of it: at least {MIN_UNITS} a "
                 "kernel")
        r.more_boots = max(0, MIN_UNITS - min(r.na, r.nb))
        return r
    ma, mb = _mean(xa), _mean(xb)
    # Each level's squared standard error.
    da, db = _variance(xa) / r.na, _variance(xb) / r.nb
    se = math.sqrt(da + db)
    diff = mb - ma
    if se > 0:
        df = (da + db) ** 2 / (da ** 2 / (r.na - 1) + db ** 2 / (r.nb - 1))
    else:
        df = r.na + r.nb - 2
    t975 = t_quantile(0.975, df)
    r.diff, r.se, r.df = diff, se, df
    r.change = pct(diff)
    r.lo, r.hi = pct(diff - t975 * se), pct(diff + t975 * se)
    r.p = 2 * t_sf(abs(diff) / se, df) if se > 0 else \
        (0.0 if diff else 1.0)
    r.noise_a, r.noise_b = 100 * math.sqrt(da), 100 * math.sqrt(db)
    mde = (t975 + t_quantile(0.80, df)) * se
    r.mde = pct(mde)
    if insn:
        # The log-scale estimate at A's level, in instructions (decide()
        # judges these); the minimum effect also as the % it is there.
        level = r.level = math.exp(ma)
        r.change_insn = level * math.expm1(diff)
        r.lo_insn = level * math.expm1(diff - t975 * se)
        r.hi_insn = level * math.expm1(diff + t975 * se)
        r.mde_insn = level * math.expm1(mde)
        r.min_effect_insn = MIN_EFFECT_INSN
        r.min_effect = 100 * MIN_EFFECT_INSN / level
    else:
        r.min_effect = max(MIN_EFFECT_PCT, r.noise_a, r.noise_b)
    return r


def decide(r, m):
    """The verdict of a row already tested and BH-judged, @m rows
    tested: no REGRESSION or IMPROVEMENT where layout alone moves the
    row as much as it changed, and said where it does."""
    if r.change is None:
        r.verdict = INCONCLUSIVE
        return r
    if r.change_insn is not None:
        change, lo, hi = r.change_insn, r.lo_insn, r.hi_insn
        eff = r.min_effect_insn
    else:
        change, lo, hi, eff = r.change, r.lo, r.hi, r.min_effect
    if r.significant and change >= eff:
        r.verdict = REGRESSION
    elif r.significant and change <= -eff:
        r.verdict = IMPROVEMENT
    elif lo >= -eff and hi <= eff:
        r.verdict = NO_CHANGE
    else:
        r.verdict = INCONCLUSIVE
        r.more_boots = more_boots(r, m)
    # A minimum effect, not a test: what layout alone moves the row
    # by does not shrink with more layouts.  In logs, so that a change
    # reads the same from A to B as from B to A.
    # An undecided row within it: only NO CHANGE is still to be had, and
    # the hint counts towards that alone.
    within = r.layout_spread is not None and \
        abs(r.diff) <= math.log1p(r.layout_spread / 100)
    if within and r.verdict in (REGRESSION, IMPROVEMENT):
        r.why = _layout_why(r) + ": more layouts would not decide it"
        r.verdict, r.more_boots = INCONCLUSIVE, None
    # icount: a row whose loads of one boot or layout take one of a few
    # fixed levels (a slab's state the row inherits) moves by a level
    # with no change of its path: a change within that is none.
    if r.load_spread and abs(r.diff) <= r.load_spread and \
            r.verdict in (REGRESSION, IMPROVEMENT):
        r.why = (f"loads of one boot or layout differ by about "
                 f"{r.level * math.expm1(r.load_spread):.2f} insn (change "
                 f"{r.change_insn:+.2f} insn): more boots would not decide "
                 "it")
        r.verdict, r.more_boots = INCONCLUSIVE, None
    elif within and r.verdict == INCONCLUSIVE and not r.why:
        r.more_boots = more_boots(r, m, detect=False)
        if r.more_boots >= MORE_BOOTS_CAP:
            r.why = _layout_why(r) + ": more layouts would not decide it"
            r.more_boots = None
    return r


def _pct(v, width=6, sign="+"):
    """@v (%) in a table's column: past 10^4, ">+9999" (a p99 row of a
    boot that went astray gave +54166067545.7, which pushed every column
    after it)."""
    if abs(v) >= 1e4:
        return f"{'>' if v > 0 else '<'}{'+' if v > 0 and sign else '-' if v < 0 else ''}9999"[:width + 1].rjust(width)
    return f"{v:{sign}{width}.1f}"


def _layout_why(r):
    """What layout alone does to @r, in its unit."""
    if r.change_insn is not None and r.level:
        return (f"layout alone moves this row by about "
                f"{r.level * r.layout_spread / 100:.2f} insn (change "
                f"{r.change_insn:+.2f} insn)")
    return (f"layout alone moves this row by about "
            f"{r.layout_spread:.1f} % (change {r.change:+.1f} %)")


def more_boots(r, m, detect=True):
    """About how many more boots (or layouts) a kernel would decide the
    row: enough for the interval to lie inside the minimum effect (NO
    CHANGE) or for the change to pass a Bonferroni bound of the rows'
    test (which Benjamini-Hochberg's never exceeds), whichever comes
    first (only the first unless @detect); the interval's width taken
    to shrink as 1/sqrt(units)."""
    n = min(r.na, r.nb)
    eff_log = math.log1p(r.min_effect / 100)
    est = abs(r.diff)
    need = []
    z_detect = z_quantile(1 - Q / 2 / max(1, m))
    if detect and est > 0 and abs(r.change) >= r.min_effect:
        need.append(n * (z_detect * r.se / est) ** 2)
    if est < eff_log:
        need.append(n * (1.96 * r.se / (eff_log - est)) ** 2)
    if not need:
        return MORE_BOOTS_CAP
    return min(MORE_BOOTS_CAP, max(1, math.ceil(min(need)) - n))


def _short(text, width=NAME_WIDTH):
    """@text cut to @width characters, ".." saying it was."""
    return text if len(text) <= width else text[:width - 2] + ".."


def _releases(arch):
    """The releases @arch's run records name, in the order first seen."""
    return list(dict.fromkeys(
        str(run["fingerprint"]["release"]) for run in arch.runs
        if isinstance(run.get("fingerprint"), dict) and
        run["fingerprint"].get("release")))


def _module_params(arch):
    """The module parameters of @arch's run records, in order."""
    out = {}
    for run in arch.runs:
        params = run.get("params")
        module = params.get("module") if isinstance(params, dict) else None
        for p in module if isinstance(module, list) else ():
            out[str(p)] = None
    return list(out)


def kernel_names(a, b, labels=(None, None)):
    """{"A": (full name, short name), "B": ...} of archives @a and @b:
    the @labels given, else their releases; the short one, at most
    NAME_WIDTH characters, names a column.  Releases that are the same
    (an A/A), or measure --tree's that differ only in the commit
    (-mmb<commit>), are told apart by "A" and "B" (and the commit); the
    module parameters only one side has (--b-param) join its full
    name."""
    rel = {}
    for side, arch in (("A", a), ("B", b)):
        found = _releases(arch)
        rel[side] = found[0] + (f" and {len(found) - 1} more"
                                if len(found) > 1 else "") \
            if found else "release unknown"
    params = {"A": _module_params(a), "B": _module_params(b)}
    own = {s: [p for p in params[s] if p not in params["AB"[s == "A"]]]
           for s in "AB"}
    label = dict(zip("AB", labels))
    tree = {s: TREE_RELEASE.fullmatch(rel[s]) for s in "AB"}
    short = {}
    if all(label.values()):
        short = {s: label[s] for s in "AB"}
    elif rel["A"] == rel["B"]:
        short = {"A": "A", "B": "B"}
    elif all(tree.values()) and tree["A"].group(1) == tree["B"].group(1):
        short = {s: f"{s} {tree[s].group(2)}" for s in "AB"}
    else:
        short = dict(rel)
        if _short(rel["A"]) == _short(rel["B"]):
            # Alike in their first characters: their ends tell them
            # apart.
            common = len(os.path.commonprefix([rel["A"], rel["B"]]))
            short = {s: ".." + rel[s][max(0, common - 2):] for s in "AB"}
    for s in "AB":
        if label[s]:
            short[s] = label[s]
    if _short(short["A"]) == _short(short["B"]):
        short = {s: f"{s} {short[s]}" for s in "AB"}
    out = {}
    for s in "AB":
        full = f"{label[s]} ({rel[s]})" if label[s] else rel[s]
        if own[s]:
            full += " with " + " ".join(own[s])
        out[s] = (full, _short(short[s]))
    return out


class Comparison:
    """Every row of A against B."""

    def __init__(self, a, b, norm=DEFAULT_NORM, labels=(None, None)):
        self.a, self.b = a, b
        self.labels = tuple(labels)
        self.names = kernel_names(a, b, self.labels)
        self.not_comparable, self.warnings = differences(a, b)
        self.icount = all(arch.fingerprint().get("accel") == {ICOUNT_ACCEL}
                          for arch in (a, b))
        if isinstance(norm, Default) and self.icount:
            norm = "none"
        self.norm = norm = str(norm)
        ba = {r.get("boot") for r in a.runs} - {None, "unknown"}
        bb = {r.get("boot") for r in b.runs} - {None, "unknown"}
        if ba & bb:
            raise ValueError(
                "A and B are the same boots: an archive compared with "
                "itself" if ba == bb else
                f"A and B share {len(ba & bb)} of their boots "
                f"({', '.join(sorted(ba & bb))[:200]}): a boot belongs to "
                "one side; give each kernel's archives once")
        ua, ub = log_units(a), log_units(b)
        for side, units, arch in (("A", ua, a), ("B", ub, b)):
            if not units:
                failed = sum(1 for ld in arch.loads
                             if ld.get("insmod") != "ok")
                raise ValueError(
                    f"{side} ({arch.name}): no row passed in any load "
                    f"({len(arch.loads)} loads, insmod failed in {failed}): "
                    "nothing to compare")
        self.raw_a, self.raw_b = ua, ub
        # Where a kernel was measured in several layouts, the layout is
        # the unit: a layout's offset is no noise of its boots.
        self.layouts = {"A": layout_of(a), "B": layout_of(b)}
        self.replication = {s: "layout" if lay else "boot"
                            for s, lay in self.layouts.items()}
        self.excluded = []
        self._test(ua, ub, norm)
        if norm in ("common", "loading"):
            # A row that changed pulls every load's factor a little its
            # way, and so every other row the other way: the rows a
            # first pass finds changed are left out of the factor.
            self.excluded = sorted(r.row for r in self.rows
                                   if r.p is not None and r.p < EXCLUDE_P)
            if self.excluded:
                self._test(ua, ub, norm)

    def _judge(self, row, va, vb, insn=False):
        """The test of @row from each kernel's per-load values {(boot,
        load): log}: in boots or layouts, and how far layout alone moves
        it."""
        units, ss, df = [], 0.0, 0
        for side, values in (("A", va), ("B", vb)):
            u = unit_values(values, self.layouts[side])
            units.append(list(u.values()))
            if self.layouts[side] and len(u) >= 2:
                ss += _variance(u.values()) * (len(u) - 1)
                df += len(u) - 1
        r = compare_row(row, *units, insn=insn, words=tuple(
            self.replication[s] for s in "AB"))
        if df:
            r.layout_spread = pct(LAYOUT_RANGE * math.sqrt(ss / df))
        if row.endswith(TAIL_ROW):
            # A percentile is had within a bucket up to 6.25 % wide: a
            # change under two may move it by none, one or two, and is
            # no finding.
            r.min_effect = max(r.min_effect, TAIL_MIN_EFFECT_PCT)
            if r.level:
                r.min_effect_insn = max(r.min_effect_insn or 0, r.level *
                                        TAIL_MIN_EFFECT_PCT / 100)
        if insn:
            groups = {}
            for side, values in (("A", va), ("B", vb)):
                lay = self.layouts[side] or {}
                for (boot, _load), v in values.items():
                    groups.setdefault((side, lay.get(boot, boot)),
                                      []).append(v)
            r.load_spread = max([max(g) - min(g) for g in groups.values()],
                                default=None)
        return r

    def _undisturbed(self, side, units):
        """undisturbed() of @side's @units, layout by layout."""
        lay = self.layouts[side] or {}
        groups = {}
        for key, u in units.items():
            groups.setdefault(lay.get(key[0]), {})[key] = u
        out = {}
        for group in groups.values():
            out.update(undisturbed(group))
        return out

    def _test(self, ua, ub, norm):
        na, nb, self.factors, self.norm_rows = normalise(ua, ub, norm,
                                                         self.excluded)
        self.dropped_loads = {"A": 0, "B": 0}
        if SPREAD_TIMES is not None and self.factors:
            # Loads a busy host slowed: their rows disagree (spreads()).
            kept = []
            for side, units in (("A", na), ("B", nb)):
                keep = quiet(units, self.excluded)
                self.dropped_loads[side] = len(units) - len(keep)
                kept.append(keep)
            na, nb = kept
        # A layout that makes a row slower is no busy host: each
        # layout's loads are judged among themselves.
        na, nb = (self._undisturbed(side, units)
                  for side, units in (("A", na), ("B", nb)))
        self.units_a, self.units_b = na, nb
        # A kernel whose loads all come from one boot: the spread
        # between its boots is not seen at all (a boot's offset is no
        # noise of its loads).
        self.one_boot = [side for side, units in (("A", na), ("B", nb))
                         if len({boot for boot, _load in units}) < 2]
        rows_a = set(r for u in na.values() for r in u)
        rows_b = set(r for u in nb.values() for r in u)
        self.only_a = sorted(rows_a - rows_b)
        self.only_b = sorted(rows_b - rows_a)
        self.rows = []
        for row in sorted(rows_a & rows_b):
            res = self._judge(
                row, {k: u[row] for k, u in na.items() if row in u},
                {k: u[row] for k, u in nb.items() if row in u},
                insn=self.icount)
            res.a_median = statistics.median(
                math.exp(u[row]) for u in ua.values() if row in u)
            res.b_median = statistics.median(
                math.exp(u[row]) for u in ub.values() if row in u)
            self.rows.append(res)
        # The load factor's own change joins the rows' family: a change
        # that makes most rows slower alike is taken out of each row by
        # the normalisation, and shows here.
        self.shift = self._shift()
        untested = self._untested() if self.icount else {}
        for r in self.rows:
            if r.row in untested:
                r.p = None
        tested = self.rows + ([self.shift] if self.shift else [])
        rejected, adjusted = bh([r.p for r in tested])
        m = sum(1 for r in tested if r.p is not None)
        for r, rej, q in zip(tested, rejected, adjusted):
            r.significant, r.q = rej, q
            decide(r, m)
            if r.row in untested:
                r.verdict, r.more_boots = INCONCLUSIVE, None
                r.why, r.untested = untested[r.row], True
                # No interval either: a p99's df=1 one spanned 10^13 and
                # squeezed every other row of the forest plot to a dot.
                r.change = r.lo = r.hi = r.mde = None
                r.change_insn = r.lo_insn = r.hi_insn = r.mde_insn = None
            if self.one_boot:
                r.verdict, r.more_boots = INCONCLUSIVE, None
            if self.not_comparable:
                r.verdict = NOT_COMPARABLE

    def _untested(self):
        """{row: why} of the rows icount cannot judge, which are no part
        of the tested family (compare-method.md): a row on several CPUs
        (its cpu a list: 0-1) counts the vCPUs' turns, not its path; a
        p99 of ops that take a few fixed counts moves by whole buckets
        (an unchanged row's by 13.9 % in ./mmbench test's known
        regression)."""
        out = {rec["row"]: "on several CPUs: under icount it counts the "
               "vCPUs' turns, not its path"
               for arch in (self.a, self.b) for rec in arch.rows
               if re.search(r"[-,]", str(rec.get("cpu") or ""))}
        out.update({r.row: "a p99 under icount moves by whole buckets: "
                    "judged in time mode only" for r in self.rows
                    if r.row.endswith(TAIL_ROW)})
        return out

    def _shift(self):
        """The change of the load factor itself, B against A, in %, with
        its 95 % interval: what normalising takes out of every row.  Its
        unit is the rows': the boot (the median factor of the loads the
        busy-load filter left, fast ones too), or the layout."""
        if not self.factors:
            return None
        values = [{k: self.factors[(side,) + tuple(k)] for k in units
                   if (side,) + tuple(k) in self.factors}
                  for side, units in (("A", self.units_a),
                                      ("B", self.units_b))]
        return self._judge(SHIFT_ROW, *values)

    def counts(self):
        out = {}
        for r in self.rows + ([self.shift] if self.shift else []):
            out[r.verdict] = out.get(r.verdict, 0) + 1
        return out

    def judged(self):
        """The rows, and the load factor's change judged as one."""
        return self.rows + ([self.shift] if self.shift else [])

    def regressions(self):
        return [r for r in self.rows + ([self.shift] if self.shift else [])
                if r.verdict == REGRESSION]

    def shape(self, side):
        """(loads, boots, layouts) of @side's loads compare kept."""
        units = self.units_a if side == "A" else self.units_b
        boots = {boot for boot, _load in units}
        lay = self.layouts[side]
        return (len(units), len(boots),
                len({lay.get(b) for b in boots}) if lay else 1)

    def _more(self):
        """What more of a kernel would decide: layouts where both
        kernels' unit is the layout, else boots."""
        return "layouts" if set(self.replication.values()) == \
            {"layout"} else "boots"

    def undecided(self):
        """The rows, and the load factor's change, INCONCLUSIVE: no
        answer for them."""
        return [r for r in self.judged() if r.verdict == INCONCLUSIVE]

    @staticmethod
    def size(r):
        """Row @r's change as it is said: in instructions an op under
        icount, else in %; None without figures."""
        return r.change_insn if r.change_insn is not None else r.change

    def ordered(self):
        """The rows in the table's order: those with a verdict
        (REGRESSION, IMPROVEMENT) first, the largest change first, then
        NO CHANGE, then INCONCLUSIVE (each by name); the load factor's
        change last."""
        rank = {REGRESSION: 0, IMPROVEMENT: 0, NO_CHANGE: 1,
                INCONCLUSIVE: 2}

        def key(r):
            # The change as the table shows it: rows alike there go by
            # name.
            k = rank.get(r.verdict, 3)
            size = round(abs(self.size(r)), 2 if self.icount else 1) \
                if k == 0 else 0
            return (k, -size, r.row)
        return sorted(self.rows, key=key) + \
            ([self.shift] if self.shift else [])

    def who(self, side):
        """@side ("A" or "B") and its short name: "B (nops)"."""
        short = self.names[side][1]
        if short == side:
            return side
        if short.startswith(side + " "):
            short = short[2:]
        return f"{side} ({short})"

    def figure(self, r):
        """Row @r's change and its 95 % interval, as said."""
        if r.change_insn is not None:
            return (f"{r.change_insn:+.2f} insn [{r.lo_insn:+.2f}, "
                    f"{r.hi_insn:+.2f}]")
        return f"{r.change:+.1f} % [{r.lo:+.1f}, {r.hi:+.1f}]"

    def summary(self):
        """The answer, before the table: the rows B made slower and
        faster (the largest change first), how many did not change and
        what change would have been found, how many are undecided and
        what would decide them; or why there is no answer."""
        if self.not_comparable:
            return []
        if self.one_boot:
            return [f"no answer: {' and '.join(self.one_boot)}: every "
                    "load from one boot, so the spread between boots is "
                    "unknown: every row INCONCLUSIVE; measure 2 boots or "
                    "more a kernel (more loads of one boot do not help)"]
        out = []
        rows = self.ordered()
        b = self.who("B")
        for word, verdict in (("slower", REGRESSION),
                              ("faster", IMPROVEMENT)):
            found = [r for r in rows if r.verdict == verdict]
            said = ", ".join(f"{r.row} {self.figure(r)}"
                             for r in found[:SUMMARY_ROWS])
            if len(found) > SUMMARY_ROWS:
                said = (f"{len(found)} rows: {said} and "
                        f"{len(found) - SUMMARY_ROWS} more (the table)")
            out.append(f"{word} in {b}: {said or 'none'}")
        same = [r for r in rows if r.verdict == NO_CHANGE]
        if same:
            # The least change a row's verdict would have said: its MDE,
            # but never under its minimum effect.
            least = statistics.median(
                max(r.mde_insn, r.min_effect_insn)
                if r.mde_insn is not None else max(r.mde, r.min_effect)
                for r in same)
            unit = " insn" if self.icount else " %"
            out.append(f"no change: {_count(len(same), 'row')} (a change "
                       f"of {least:.{2 if self.icount else 1}f}{unit} or "
                       "more would have been found there: their median "
                       "MDE, or the minimum effect where larger)")
        else:
            out.append("no change: none")
        undecided = [r for r in rows if r.verdict == INCONCLUSIVE]
        if undecided:
            out.append(f"undecided: {_count(len(undecided), 'row')}, no "
                       "answer for them" + self._deciding(undecided))
        only = len(self.only_a) + len(self.only_b)
        if only:
            out.append(f"measured in one kernel only: {_count(only, 'row')}"
                       ", no answer for them (below)")
        return out

    def _deciding(self, undecided):
        """What would decide the @undecided rows, in brackets."""
        more = self._more()
        most = MOST_UNITS[more]
        hinted = [r for r in undecided
                  if r.change is not None and r.more_boots is not None]
        near = [r for r in hinted if min(r.na, r.nb) + r.more_boots <= most]
        far = len(hinted) - len(near)
        layout = sum(1 for r in undecided if r.more_boots is None and
                     r.why.startswith("layout alone"))
        untested = sum(1 for r in undecided if r.untested)
        few = sum(1 for r in undecided if r.change is None and
                  not r.untested)
        parts = []
        if near:
            k = max(r.more_boots for r in near)
            least = min(r.more_boots for r in near)
            # "about 42 more would decide 56" read as 42 for each, when
            # most of them said 1 (a new user's).
            fewest = sum(1 for r in near if r.more_boots == least)
            parts.append(f"about {k} more "
                         f"{more if k != 1 else more[:-1]} a kernel would "
                         "decide " + ("them" if len(near) == len(undecided)
                                      else f"{len(near)} of them")
                         + (f", {least} more {fewest} of them (each row's "
                            "verdict says)" if least < k else ""))
        if far:
            parts.append(f"{far} would need more {more} than measure "
                         f"takes ({most})")
        if layout:
            parts.append(f"{layout}: layout alone moves "
                         f"{'it' if layout == 1 else 'them'} as much as "
                         "the change")
        if few:
            parts.append(f"{few}: fewer than {MIN_UNITS} {more} a kernel "
                         "with quiet passing loads")
        if untested:
            parts.append(f"{untested}: p99 rows or rows on several "
                         "CPUs, which icount does not judge; time mode "
                         "does")
        return f" ({'; '.join(parts)})" if parts else ""

    def report(self):
        """The names of the kernels, the answer, then the verdict table,
        as text lines."""
        out = [f"A: {self.names['A'][0]}, B: {self.names['B'][0]}"]
        if self.not_comparable:
            out.append("NOT COMPARABLE: the fingerprints or the "
                       "sampling differ in what changes costs:")
            for k, va, vb in self.not_comparable:
                out.append(f"  {k}: A {', '.join(va)}; B {', '.join(vb)}")
        out += self.summary()
        for k, va, vb in self.warnings:
            out.append(f"note: {k} differs: A {', '.join(va)}; B "
                       f"{', '.join(vb)}")
        sides = []
        for side in "AB":
            loads, boots, layouts = self.shape(side)
            sides.append(f"{side}: {loads} loads in {boots} "
                         f"boot{'s' if boots != 1 else ''}, {layouts} "
                         f"layout{'s' if layouts != 1 else ''}"
                         f" (the unit: the {self.replication[side]})")
        out.append("; ".join(sides) + f"; normalised by {self.norm}"
                   + (f" ({len(self.norm_rows)} rows)" if self.norm_rows
                      else "")
                   + (f", {_count(len(self.excluded), 'changed row')} "
                      "left out"
                      if self.excluded else ""))
        if self.icount:
            out.append("icount: ns/op are instructions an op (1 ns = 1 "
                       "instruction); a barrier, a cache miss or a lock "
                       "costs one instruction there, so a change is one "
                       "of path length, not of time")
        if any(self.layouts.values()):
            out.append("a change no larger than layout alone moves a row "
                       "(between two layouts of one kernel) is no verdict")
        if any(self.dropped_loads.values()):
            out.append(f"loads a busy host slowed (their rows disagree), "
                       f"left out: "
                       f"A {self.dropped_loads['A']}, B "
                       f"{self.dropped_loads['B']}")
        out += self._table()
        more = self._more()
        if self.shift:
            out.append(f"{SHIFT_ROW}: the load factor (what the "
                       f"normalisation takes out of every row), "
                       f"{more[:-1]} by {more[:-1]}: a "
                       f"change most rows share, or the host slower "
                       f"during one kernel's boots")
        def statuses(arch, row):
            # A p99 row's: its row's (a row that passed has one where it
            # timed 100 ops alone).
            return sorted({str(r.get("status")) for r in arch.rows
                           if r.get("row") == row.removesuffix(TAIL_ROW)})
        for side, rows, other, arch in (("A", self.only_a, "B", self.b),
                                        ("B", self.only_b, "A", self.a)):
            for row in rows:
                st = statuses(arch, row)
                out.append(f"only in {side}: {row}: {other} "
                           + ("has no p99 (under 100 ops timed alone)"
                              if st == ["pass"] else
                              f"never passed ({', '.join(st)})" if st
                              else "did not run it"))
        judged = {r.row for r in self.rows} | set(self.only_a + self.only_b)
        for row in sorted({r.get("row") for r in self.a.rows + self.b.rows
                           if r.get("status") != "pass"} - judged - {None}):
            if "pass" in statuses(self.a, row) + statuses(self.b, row):
                continue
            out.append(f"neither passed: {row}: A "
                       f"{', '.join(statuses(self.a, row)) or 'did not run it'}"
                       f", B {', '.join(statuses(self.b, row)) or 'did not run it'}")
        c = self.counts()
        out.append("verdicts: " + ", ".join(
            f"{v} {c[v]}" for v in (REGRESSION, IMPROVEMENT, NO_CHANGE,
                                     INCONCLUSIVE, NOT_COMPARABLE)
            if c.get(v)))
        return out

    def _table(self):
        """The table: a column of each kernel's medians, named by its
        short name; the change of B against A, an undecided row's in
        brackets (no finding)."""
        out = []
        width = max([len(r.row) for r in self.rows] + [len(SHIFT_ROW)])
        unit = "insn/op" if self.icount else "ns/op"
        short = [self.names[s][1] for s in "AB"]
        heads = [f"{n} {unit}" for n in short]
        if all(len(h) <= NAME_WIDTH for h in heads):
            col = max([10] + [len(h) for h in heads])
        else:
            # The names over the unit.
            col = max([10, len(unit)] + [len(n) for n in short])
            out.append(f"{'':<{width}}  {short[0]:>{col}} "
                       f"{short[1]:>{col}}")
            heads = [unit, unit]
        change = "change (insn)" if self.icount else "change"
        out.append(f"{'row':<{width}}  {heads[0]:>{col}} {heads[1]:>{col}} "
                   f"{change:>13} {'95 % CI':>17} {'p':>8} {'q':>8} "
                   f"{'min':>6} {'MDE':>6}  verdict")
        more = self._more()
        for r in self.ordered():
            notes = []
            if self.one_boot and r.verdict == INCONCLUSIVE:
                notes.append("one boot a kernel: measure more boots")
            elif r.verdict == INCONCLUSIVE:
                notes.append(r.why)
                if r.change is not None and r.more_boots is not None:
                    most = MOST_UNITS[more]
                    notes.append(
                        f"more {more} than measure takes ({most}) would "
                        "be needed: undecided at this noise"
                        if min(r.na, r.nb) + r.more_boots > most
                        else f"about {r.more_boots} more "
                        f"{more if r.more_boots != 1 else more[:-1]} a "
                        "kernel would decide")
            notes = "; ".join(n for n in notes if n)
            verdict = r.verdict + (f" ({notes})" if notes else "")
            medians = f"{_num(r.a_median):>{col}} {_num(r.b_median):>{col}}"
            if r.change is None:
                out.append(f"{r.row:<{width}}  {medians} "
                           f"{'':>13} {'':>17} {'':>8} {'':>8} {'':>6} "
                           f"{'':>6}  {verdict}")
                continue
            # An undecided row's change is no finding: in brackets.
            mark = "({})" if r.verdict == INCONCLUSIVE else "{}"
            if r.change_insn is not None:
                shown = mark.format(f"{r.change_insn:+.2f}")
                figs = (f"{shown:>13} "
                        f"{f'[{r.lo_insn:+7.2f},{r.hi_insn:+7.2f}]':>17}",
                        f"{r.min_effect_insn:6.2f} {r.mde_insn:6.2f}")
            else:
                shown = mark.format(f"{r.change:+.1f}%")
                figs = (f"{shown:>13} "
                        f"{f'[{_pct(r.lo)},{_pct(r.hi)}]%':>17}",
                        f"{_pct(r.min_effect, 5, '')}% "
                        f"{_pct(r.mde, 5, '')}%")
            # Untested (icount: a row on several CPUs, a p99): no p, q.
            p = "-" if r.p is None else f"{r.p:.2g}"
            q = "-" if r.q is None else f"{r.q:.2g}"
            out.append(f"{r.row:<{width}}  {medians} {figs[0]} {p:>8} "
                       f"{q:>8} {figs[1]}  {verdict}")
        return out

    def as_json(self):
        shapes = {side: dict(zip(("loads", "boots", "layouts"),
                                 self.shape(side))) for side in "AB"}
        return {"names": {s: self.names[s][0] for s in "AB"},
                "short_names": {s: self.names[s][1] for s in "AB"},
                "labels": dict(zip("AB", self.labels)),
                "summary": self.summary(),
                "norm": self.norm,
                "unit": "insn" if self.icount else "ns",
                "replication": self.replication, "shape": shapes,
                "one_boot": self.one_boot,
                "dropped_loads": self.dropped_loads,
                "excluded_from_factor": self.excluded,
                "not_comparable": self.not_comparable,
                "warnings": self.warnings,
                "only_a": self.only_a, "only_b": self.only_b,
                "load_factor_change": self.shift.as_dict()
                if self.shift else None,
                "rows": [r.as_dict() for r in self.rows],
                "counts": self.counts()}


def _count(n, word):
    return f"{n} {word}{'' if n == 1 else 's'}"


def _num(x):
    return "-" if x is None else f"{x:.3f}" if x < 1000 else f"{x:.1f}"
