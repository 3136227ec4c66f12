"""./mmbench compare: did B make a row slower than A, by how much, and how
sure are we?

The unit of replication is the module load (loads nested in boots), not
the sample: within a load a row's samples spread a few %, its median
moves far more between loads and boots.  Per row and load the figure is
log(median ns/op); each load is first normalised (see normalise()), then
per row the two kernels' loads are compared with Yuen's trimmed-mean t
test (20 % trimmed: robust to the loads a busy host slowed), its variance
inflated by the design effect of loads nested in boots, the intra-boot
correlation pooled over rows.  README.md, "Comparing two kernels",
explains the choices and the figures behind them.
"""
import math
import statistics
import sys

from .archive import differences

TRIM = 0.2              # Yuen's trimming, each tail
Q = 0.05                # Benjamini-Hochberg false discovery rate
MIN_EFFECT_PCT = 1.0    # the smallest change worth a verdict, in %
MIN_LOADS = 3           # fewer passing loads a side: INCONCLUSIVE
MORE_LOADS_CAP = 999
# A first pass's p below this: the row is left out of the common factor.
EXCLUDE_P = 0.01
ROW_ICC = True
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
DEFAULT_NORM = "common"

REGRESSION = "REGRESSION"
IMPROVEMENT = "IMPROVEMENT"
NO_CHANGE = "NO CHANGE"
INCONCLUSIVE = "INCONCLUSIVE"
NOT_COMPARABLE = "NOT COMPARABLE"
# The load factor's change between the kernels, judged as a row.
SHIFT_ROW = "(every row alike)"


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
        use = sorted(common - set(exclude))
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
    spread_limit()); all of them if fewer than MIN_LOADS would be left
    or nothing can be told."""
    fs = spreads(units, exclude)
    limit = spread_limit(list(fs.values()))
    if limit is None:
        return dict(units)
    keep = {k: v for k, v in units.items() if fs.get(k, 0.0) <= limit}
    return keep if len(keep) >= MIN_LOADS else dict(units)


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


def trimmed(values, g=TRIM):
    """(trimmed mean, winsorized variance, h: values left after
    trimming) of @values."""
    x = sorted(values)
    n = len(x)
    k = int(math.floor(g * n))
    h = n - 2 * k
    tm = _mean(x[k:n - k])
    w = [x[k]] * k + x[k:n - k] + [x[n - k - 1]] * k
    sw2 = _variance(w) if n > 1 else 0.0
    return tm, sw2, h


def icc(units):
    """The intra-boot correlation of a kernel's normalised loads: per row
    the one-way ANOVA estimate over the boots with two loads or more of
    it (a load where the row did not pass lacks it), clipped to 0..1.
    Returns (the median over rows, {row: its own}); (None, {}) when no
    row has two such boots."""
    by_boot = {}
    for (boot, _load), rows in units.items():
        by_boot.setdefault(boot, []).append(rows)
    found = {}
    for row in sorted({r for lds in by_boot.values() for ld in lds
                       for r in ld}):
        groups = [g for g in ([ld[row] for ld in lds if row in ld]
                              for lds in by_boot.values()) if len(g) >= 2]
        if len(groups) < 2:
            continue
        k = len(groups)
        n = sum(len(g) for g in groups)
        grand = _mean(v for g in groups for v in g)
        ssb = sum(len(g) * (_mean(g) - grand) ** 2 for g in groups)
        ssw = sum((v - _mean(g)) ** 2 for g in groups for v in g)
        msb, msw = ssb / (k - 1), ssw / (n - k) if n > k else 0.0
        n0 = (n - sum(len(g) ** 2 for g in groups) / n) / (k - 1)
        if msb + (n0 - 1) * msw <= 0:
            continue
        found[row] = min(1.0, max(0.0, (msb - msw) /
                                  (msb + (n0 - 1) * msw)))
    if not found:
        return None, {}
    return statistics.median(found.values()), found


def design_effect(units, rho):
    """1 + (mean loads per boot - 1) * rho."""
    boots = {}
    for boot, _load in units:
        boots[boot] = boots.get(boot, 0) + 1
    m = _mean(boots.values()) if boots else 1
    return 1 + (m - 1) * (rho or 0.0)


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

class RowResult:
    """One row's comparison."""

    def __init__(self, row):
        self.row = row
        self.a_median = self.b_median = None     # ns/op, median over loads
        self.na = self.nb = 0
        self.change = self.lo = self.hi = None   # % B against A
        self.p = self.q = None
        self.significant = False
        self.noise_a = self.noise_b = None       # % (SE of each level)
        self.min_effect = MIN_EFFECT_PCT
        self.mde = None                          # % at 95 %, 80 % power
        self.verdict = INCONCLUSIVE
        self.more_loads = None
        self.why = ""
        self.diff = self.se = self.df = None

    def as_dict(self):
        return {k: v for k, v in vars(self).items()}


def compare_row(row, xa, xb, deff_a, deff_b):
    """The test of one row: @xa, @xb the normalised log medians of each
    kernel's loads; @deff_*: each kernel's design effect."""
    r = RowResult(row)
    r.na, r.nb = len(xa), len(xb)
    if r.na < MIN_LOADS or r.nb < MIN_LOADS:
        r.why = (f"{r.na} and {r.nb} quiet passing loads: at least "
                 f"{MIN_LOADS} a kernel")
        r.more_loads = max(0, MIN_LOADS - min(r.na, r.nb))
        return r
    tma, swa, ha = trimmed(xa)
    tmb, swb, hb = trimmed(xb)
    # Yuen's squared standard errors, times each kernel's design effect.
    da = (r.na - 1) * swa / (ha * (ha - 1)) * deff_a
    db = (r.nb - 1) * swb / (hb * (hb - 1)) * deff_b
    hea, heb = max(2.0, ha / deff_a), max(2.0, hb / deff_b)
    se = math.sqrt(da + db)
    diff = tmb - tma
    if se > 0:
        df = (da + db) ** 2 / ((da ** 2 / (hea - 1) if da else 0) +
                               (db ** 2 / (heb - 1) if db else 0))
    else:
        df = hea + heb - 2
    df = max(1.0, df)
    t975 = t_quantile(0.975, df)
    r.diff, r.se, r.df = diff, se, df
    r.change = pct(diff)
    r.lo, r.hi = pct(diff - t975 * se), pct(diff + t975 * se)
    r.p = 2 * t_sf(abs(diff) / se, df) if se > 0 else \
        (0.0 if diff else 1.0)
    r.noise_a, r.noise_b = 100 * math.sqrt(da), 100 * math.sqrt(db)
    r.min_effect = max(MIN_EFFECT_PCT, r.noise_a, r.noise_b)
    r.mde = pct((t975 + t_quantile(0.80, df)) * se)
    return r


def decide(r, m):
    """The verdict of a row already tested and BH-judged, @m rows
    tested."""
    if r.change is None:
        r.verdict = INCONCLUSIVE
        return r
    eff = r.min_effect
    if r.significant and r.change >= eff:
        r.verdict = REGRESSION
    elif r.significant and r.change <= -eff:
        r.verdict = IMPROVEMENT
    elif r.lo >= -eff and r.hi <= eff:
        r.verdict = NO_CHANGE
    else:
        r.verdict = INCONCLUSIVE
        r.more_loads = more_loads(r, m)
    return r


def more_loads(r, m):
    """About how many more loads a kernel would decide the row: enough
    for the interval to lie inside the minimum effect (NO CHANGE) or for
    the change to pass a Bonferroni bound of the rows' test (which
    Benjamini-Hochberg's never exceeds), whichever comes first; the
    interval's width taken to shrink as 1/sqrt(loads)."""
    n = min(r.na, r.nb)
    eff_log = math.log1p(r.min_effect / 100)
    est = abs(r.diff)
    need = []
    z_detect = z_quantile(1 - Q / 2 / max(1, m))
    if est > 0 and abs(r.change) >= r.min_effect:
        need.append(n * (z_detect * r.se / est) ** 2)
    if est < eff_log:
        need.append(n * (1.96 * r.se / (eff_log - est)) ** 2)
    if not need:
        return MORE_LOADS_CAP
    return min(MORE_LOADS_CAP, max(1, math.ceil(min(need)) - n))


class Comparison:
    """Every row of A against B."""

    def __init__(self, a, b, norm=DEFAULT_NORM):
        self.a, self.b, self.norm = a, b, norm
        self.not_comparable, self.warnings = differences(a, b)
        same = {r.get("boot") for r in a.runs} & {r.get("boot") for r in b.runs}
        if same - {None, "unknown"}:
            raise ValueError(f"A and B hold the same boot ({', '.join(sorted(same))}): "
                             "an archive compared with itself")
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
        self.units_a, self.units_b = na, nb
        na, nb = undisturbed(na), undisturbed(nb)
        self.units_a, self.units_b = na, nb
        (self.icc_a, rows_icc_a), (self.icc_b, rows_icc_b) = icc(na), icc(nb)
        pooled = [x for x in (self.icc_a, self.icc_b) if x is not None]
        rho = _mean(pooled) if pooled else 0.0
        self.icc = rho
        # A kernel whose loads all come from one boot: the spread
        # between its boots is not seen at all, and no design effect
        # makes up for it (a boot's offset is no noise of its loads).
        self.one_boot = [side for side, units in (("A", na), ("B", nb))
                         if len({boot for boot, _load in units}) < 2]
        self.deff_a = design_effect(na, rho)
        self.deff_b = design_effect(nb, rho)
        rows_a = set(r for u in na.values() for r in u)
        rows_b = set(r for u in nb.values() for r in u)
        self.only_a = sorted(rows_a - rows_b)
        self.only_b = sorted(rows_b - rows_a)
        self.rows = []
        for row in sorted(rows_a & rows_b):
            xa = [u[row] for u in na.values() if row in u]
            xb = [u[row] for u in nb.values() if row in u]
            # A row whose boots differ more than the rows' usual (the
            # rows on several CPUs under a busy host) keeps its own.
            own = [x for x in (rows_icc_a.get(row), rows_icc_b.get(row))
                   if x is not None]
            r_rho = max(rho, _mean(own)) if own and ROW_ICC else rho
            res = compare_row(row, xa, xb, design_effect(na, r_rho),
                              design_effect(nb, r_rho))
            res.a_median = statistics.median(
                math.exp(u[row]) for u in ua.values() if row in u)
            res.b_median = statistics.median(
                math.exp(u[row]) for u in ub.values() if row in u)
            self.rows.append(res)
        # The load factor's own change joins the rows' family: a change
        # that makes most rows slower alike is taken out of each row by
        # the normalisation, and shows here.
        self.shift = self._shift()
        tested = self.rows + ([self.shift] if self.shift else [])
        rejected, adjusted = bh([r.p for r in tested])
        m = sum(1 for r in tested if r.p is not None)
        for r, rej, q in zip(tested, rejected, adjusted):
            r.significant, r.q = rej, q
            decide(r, m)
            if self.one_boot:
                r.verdict, r.more_loads = INCONCLUSIVE, None
            if self.not_comparable:
                r.verdict = NOT_COMPARABLE

    def _shift(self):
        """The change of the load factor itself, B against A, in %, with
        its 95 % interval: what normalising takes out of every row.  The
        unit is the boot (the mean factor of the loads the busy-load
        filter left, fast ones too): a host speeds or slows a whole boot,
        and boots of A and B alternate."""
        if not self.factors:
            return None
        means = []
        for side, units in (("A", self.units_a), ("B", self.units_b)):
            boots = {}
            for key in units:
                f = self.factors.get((side,) + tuple(key))
                if f is not None:
                    boots.setdefault(key[0], []).append(f)
            means.append([_mean(v) for v in boots.values()])
        r = compare_row(SHIFT_ROW, means[0], means[1], 1.0, 1.0)
        if r.change is None:
            r.why = r.why.replace("quiet passing loads", "boots with "
                                  "quiet loads").replace("loads a", "boots a")
        return r

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

    def report(self):
        """The verdict table, as text lines."""
        out = []
        if self.not_comparable:
            out.append("NOT COMPARABLE: the fingerprints or the "
                       "sampling differ in what changes costs:")
            for k, va, vb in self.not_comparable:
                out.append(f"  {k}: A {', '.join(va)}; B {', '.join(vb)}")
        for k, va, vb in self.warnings:
            out.append(f"note: {k} differs: A {', '.join(va)}; B "
                       f"{', '.join(vb)}")
        boots_a = len({u[0] for u in self.units_a})
        boots_b = len({u[0] for u in self.units_b})
        out.append(f"A: {len(self.units_a)} loads in {boots_a} boots; "
                   f"B: {len(self.units_b)} loads in {boots_b} boots; "
                   f"normalised by {self.norm}"
                   + (f" ({len(self.norm_rows)} rows)" if self.norm_rows
                      else "")
                   + (f", {len(self.excluded)} changed rows left out"
                      if self.excluded else "") +
                   f"; intra-boot correlation {self.icc:.2f}, design "
                   f"effect A {self.deff_a:.2f}, B {self.deff_b:.2f}")
        if self.one_boot and not self.not_comparable:
            out.append(f"{' and '.join(self.one_boot)}: every load from "
                       "one boot, so the spread between boots is unknown: "
                       "every row INCONCLUSIVE, no answer; measure 2 boots "
                       "or more a kernel (more loads of one boot do not "
                       "help)")
        if any(self.dropped_loads.values()):
            out.append(f"loads a busy host slowed (their rows disagree), "
                       f"left out: "
                       f"A {self.dropped_loads['A']}, B "
                       f"{self.dropped_loads['B']}")
        width = max([len(r.row) for r in self.rows] + [3])
        out.append(f"{'row':<{width}}  {'A ns/op':>10} {'B ns/op':>10} "
                   f"{'change':>8} {'95 % CI':>17} {'p':>8} {'q':>8} "
                   f"{'min':>5} {'MDE':>5}  verdict")
        shown = self.rows + ([self.shift] if self.shift else [])
        for r in shown:
            if r.change is None:
                out.append(f"{r.row:<{width}}  "
                           f"{_num(r.a_median):>10} {_num(r.b_median):>10} "
                           f"{'':>8} {'':>17} {'':>8} {'':>8} {'':>5} "
                           f"{'':>5}  {r.verdict} ({r.why})")
                continue
            verdict = r.verdict
            if self.one_boot and r.verdict == INCONCLUSIVE:
                verdict += " (one boot a kernel: measure more boots)"
            elif r.verdict == INCONCLUSIVE and r.more_loads is not None:
                verdict += (f" (more than {MORE_LOADS_CAP} more loads a "
                            "kernel would decide)"
                            if r.more_loads >= MORE_LOADS_CAP else
                            f" (about {r.more_loads} more loads a kernel "
                            "would decide)")
            out.append(f"{r.row:<{width}}  {_num(r.a_median):>10} "
                       f"{_num(r.b_median):>10} {r.change:+7.1f}% "
                       f"[{r.lo:+6.1f},{r.hi:+6.1f}]% {r.p:8.2g} "
                       f"{r.q:8.2g} {r.min_effect:4.1f}% {r.mde:4.1f}%  "
                       f"{verdict}")
        if self.shift:
            out.append(f"{SHIFT_ROW}: the load factor (what the "
                       f"normalisation takes out of every row), boot by "
                       f"boot: a change most rows share, or the host "
                       f"slower during one kernel's boots")
        for side, rows, other, arch in (("A", self.only_a, "B", self.b),
                                        ("B", self.only_b, "A", self.a)):
            for row in rows:
                st = sorted({str(r.get("status")) for r in arch.rows
                             if r.get("row") == row})
                out.append(f"only in {side}: {row}: {other} "
                           + (f"never passed ({', '.join(st)})" if st
                              else "did not run it"))
        c = self.counts()
        out.append("verdicts: " + ", ".join(
            f"{v} {c[v]}" for v in (REGRESSION, IMPROVEMENT, NO_CHANGE,
                                     INCONCLUSIVE, NOT_COMPARABLE)
            if c.get(v)))
        return out

    def as_json(self):
        return {"norm": self.norm, "icc": self.icc,
                "one_boot": self.one_boot,
                "dropped_loads": self.dropped_loads,
                "excluded_from_factor": self.excluded,
                "design_effect": [self.deff_a, self.deff_b],
                "not_comparable": self.not_comparable,
                "warnings": self.warnings,
                "only_a": self.only_a, "only_b": self.only_b,
                "load_factor_change": self.shift.as_dict()
                if self.shift else None,
                "rows": [r.as_dict() for r in self.rows],
                "counts": self.counts()}


def _num(x):
    return "-" if x is None else f"{x:.3f}" if x < 1000 else f"{x:.1f}"
