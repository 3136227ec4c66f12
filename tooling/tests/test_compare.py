"""./mmbench compare's statistics on synthetic archives: Benjamini-Hochberg,
the load normalisation, the boot (or layout) as the unit, the layout
spread, icount's instructions, the false-positive rate of A/A
comparisons, the power on known shifts, NOT COMPARABLE; the archive read
from the guest's lines, and the fleet formats."""
import contextlib
import io
import json
import math
import os
import random
import re
import stat
import subprocess
import tempfile
import types
import unittest
import unittest.mock
from pathlib import Path

import support  # noqa: F401  (the import path)

from mmbench_tool import archive, bench, compare, fleet, measure
from mmbench_tool import setup as setupmod
from mmbench_tool.common import Failure

def _exists_3_14(path):
    try:
        os.stat(path)
    except OSError:
        return False
    return True


def _is_dir_3_14(path):
    try:
        return stat.S_ISDIR(os.stat(path).st_mode)
    except OSError:
        return False


FP = {"arch": "x86_64", "accel": "tcg", "qemu_cpu": "QEMU's default",
      "cpu_model": "QEMU Virtual CPU version 2.5+", "debug": "none",
      "emulated": "yes", "release": "6.12.117+deb12-cloud-amd64",
      "preempt": "voluntary"}
# Row medians (ns/op) and each row's own spread between loads, like the
# stock TCG guest's.
ROWS = {f"row{i:02d}": (20 + 37 * i, 0.02 + 0.005 * (i % 7))
        for i in range(40)}


def synthetic(rng, boots=3, loads=8, shift=None, fp=None, factor_sd=0.03,
              boot_sd=0.03, outliers=0.05, busy=0.2, rows=ROWS):
    """An Archive of @boots x @loads loads, as measured under TCG on a
    shared host: every load's rows share a factor (host speed; lognormal,
    plus a factor per boot); with probability @busy the host is busy for
    a whole load, making it 35-80 % slower, each row by its own amount;
    each row has its own noise, and with probability @outliers a row of
    a load runs 30-100 % slow (a busy moment).  @shift: {row: % slower}."""
    shift = shift or {}
    runs, recs = [], []
    for b in range(boots):
        boot = f"boot{rng.random():.12f}"
        runs.append({"type": "run", "boot": boot,
                     "fingerprint": dict(fp or FP)})
        bf = rng.gauss(0, boot_sd)
        for ld in range(1, loads + 1):
            f = bf + rng.gauss(0, factor_sd)
            slow = rng.uniform(0.3, 0.6) if rng.random() < busy else 0
            for row, (base, sd) in rows.items():
                y = math.log(base) + f + rng.gauss(0, sd)
                y += slow * rng.uniform(0.5, 1.5)
                if rng.random() < outliers:
                    y += math.log(1.3 + 0.7 * rng.random())
                y += math.log1p(shift.get(row, 0) / 100)
                recs.append({"type": "row", "boot": boot, "load": ld,
                             "row": row, "status": "pass",
                             "median": math.exp(y), "net": math.exp(y),
                             "noise": 2.0, "sample_ns": []})
    return archive.Archive(runs, recs, [])


def fleet_refuses(test, content, says, name="a.jsonl"):
    """./mmbench fleet on a file of @content (bytes) exits 2 saying
    @says."""
    with tempfile.TemporaryDirectory() as d:
        p = Path(d) / name
        p.write_bytes(content)
        rc, out = support.options_only("fleet", str(p))
        test.assertEqual(rc, 2, out)
        test.assertIn(says, out)


def flagged(c):
    return [r for r in c.rows + ([c.shift] if c.shift else [])
            if r.verdict in (compare.REGRESSION, compare.IMPROVEMENT)]


def booted(rng, boots=8, loads=8, rows=None, row_boot_sd=0.015,
           load_sd=0.005, mid=0.15, factor_sd=0.03, layouts=None, shift=None,
           add=None, fp=None):
    """An Archive of @boots x @loads loads whose boots each have their own
    offset of each row (sd @row_boot_sd: what a boot's layout, or its
    allocator's state, does to the row), so that the loads of a boot are
    correlated; every load a factor common to its rows (host speed, sd
    @factor_sd), every row of a load its own noise (sd @load_sd), and
    with probability @mid a row of a load runs 3-10 % slow.  @rows: {row:
    ns/op}; @layouts: [(label, {row: % layout makes it slower})], boot i
    in layouts[i % len], its run record naming the label; @shift: {row:
    % slower}; @add: {row: instructions (ns) more an op}."""
    rows = rows or {row: base for row, (base, _sd) in ROWS.items()}
    runs, recs = [], []
    for b in range(boots):
        boot = f"boot{rng.random():.12f}"
        fprint = dict(fp or FP)
        moved = {}
        if layouts:
            label, moved = layouts[b % len(layouts)]
            fprint["layout"] = label
        runs.append({"type": "run", "boot": boot, "fingerprint": fprint})
        off = {row: rng.gauss(0, row_boot_sd) for row in rows}
        for ld in range(1, loads + 1):
            f = rng.gauss(0, factor_sd)
            for row, base in rows.items():
                y = math.log(base) + f + off[row] + rng.gauss(0, load_sd)
                if rng.random() < mid:
                    y += rng.uniform(0.03, 0.1)
                y += math.log1p(moved.get(row, 0) / 100)
                y += math.log1p((shift or {}).get(row, 0) / 100)
                v = math.exp(y) + (add or {}).get(row, 0)
                recs.append({"type": "row", "boot": boot, "load": ld,
                             "row": row, "status": "pass", "median": v,
                             "net": v, "noise": 1.0, "sample_ns": []})
    return archive.Archive(runs, recs, [])


class BH(unittest.TestCase):
    def test_step_up(self):
        p = [0.01, 0.04, 0.03, 0.005, None, 0.2]
        rejected, adjusted = compare.bh(p, q=0.05)
        # sorted 0.005, 0.01, 0.03, 0.04, 0.2 against k/5*0.05 = 0.01,
        # 0.02, 0.03, 0.04, 0.05: the 4 smallest pass.
        self.assertEqual(rejected, [True, True, True, True, False, False])
        self.assertAlmostEqual(adjusted[3], 0.025)
        self.assertAlmostEqual(adjusted[5], 0.2)
        self.assertIsNone(adjusted[4])

    def test_none_significant(self):
        rejected, _ = compare.bh([0.02, 0.04, 0.5], q=0.05)
        self.assertEqual(rejected, [False, False, False])


class Normalise(unittest.TestCase):
    def test_common_factor_taken_out(self):
        rng = random.Random(1)
        a = synthetic(rng, factor_sd=0.3, boot_sd=0, outliers=0, busy=0)
        b = synthetic(rng, factor_sd=0.3, boot_sd=0, outliers=0, busy=0)
        ua, ub = compare.log_units(a), compare.log_units(b)
        na, _nb, factors, _ = compare.normalise(ua, ub, "common")
        self.assertEqual(len(factors), 48)

        def spread(units):
            vals = [u["row05"] for u in units.values()]
            m = sum(vals) / len(vals)
            return math.sqrt(sum((v - m) ** 2 for v in vals) /
                             (len(vals) - 1))
        self.assertGreater(spread(ua), 0.2)
        self.assertLess(spread(na), 0.06)

    def test_one_row_changed_barely_moves_the_factor(self):
        rng = random.Random(2)
        a = synthetic(rng, outliers=0)
        b = synthetic(rng, outliers=0, shift={"row03": 50})
        c = compare.Comparison(a, b, "common")
        by = {r.row: r for r in c.rows}
        self.assertAlmostEqual(by["row03"].change, 50, delta=8)

    def test_reference_without_reference_rows_is_none(self):
        rng = random.Random(3)
        a, b = synthetic(rng), synthetic(rng)
        ua, ub = compare.log_units(a), compare.log_units(b)
        na, _nb, factors, used = compare.normalise(ua, ub, "reference")
        self.assertEqual(used, [])
        self.assertEqual(na, ua)


class FalsePositives(unittest.TestCase):
    """A/A: the same kernel twice.  Benjamini-Hochberg under the global
    null bounds the chance of any flagged row by q: at most about 5 % of
    comparisons may flag one."""

    def aa(self, norm, n=60, **kw):
        rng = random.Random(12)
        bad = 0
        for _ in range(n):
            c = compare.Comparison(synthetic(rng, **kw), synthetic(rng, **kw),
                                   norm)
            bad += bool(flagged(c))
        return bad

    def test_common_normalisation(self):
        # At most 5 % of 200: 10.  3 with the boot as the unit (8 when
        # the load was, with a design effect).
        self.assertLessEqual(self.aa("common", n=200), 10)

    def test_heavy_boot_effect(self):
        # Boots that differ a lot (a factor common to the boot's rows,
        # which the normalisation takes out): 2 of these 60 comparisons
        # flag a row.
        self.assertLessEqual(self.aa("common", boot_sd=0.15,
                                     factor_sd=0.02), 3)

    def test_without_normalisation_loads_a_busy_host_slowed_stay(self):
        # No load factor, so no quiet loads to keep: the loads a busy
        # host slowed stay, and the median of a boot's loads is its
        # value, which one busy load moves little.  1 of these 60 flags
        # a row.
        self.assertLessEqual(self.aa("none"), 3)


class FastMode(unittest.TestCase):
    """Under TCG a module load now and then runs every row on one CPU
    about 38 % faster (its load factor -38 %, the rows agreeing), while
    the rows whose time is not the CPU's (ndelay's wall clock) do not
    move.  A kernel with more such loads than the other must not make a
    row that does not follow the factor look changed (A/A, 2026-12-01:
    one comparison called ndelay_1000 and the rows on several CPUs
    40-55 % slower)."""

    ROWS = dict(ROWS, flat=(1500, 0.02))

    def arch(self, rng):
        arch = synthetic(rng, rows=self.ROWS, busy=0, outliers=0.02)
        fast = {}
        for rec in arch.rows:
            key = (rec["boot"], rec["load"])
            if key not in fast:
                fast[key] = rng.random() < 0.35
            if fast[key] and rec["row"] != "flat":
                rec["median"] *= 0.62
        return arch

    def flags(self, n=30, **knobs):
        rng = random.Random(11)
        flat = comps = 0
        with unittest.mock.patch.multiple(compare, **(knobs or
                                                     {"Q": compare.Q})):
            for _ in range(n):
                c = compare.Comparison(self.arch(rng), self.arch(rng))
                bad = flagged(c)
                comps += bool(bad)
                flat += any(r.row == "flat" for r in bad)
        return flat, comps

    def test_a_row_not_following_the_factor_is_not_flagged(self):
        # The quiet-load filter before this one (a load factor over the
        # fastest third's) kept only the fast loads of a kernel with a
        # third of them fast, and every load of the other: 13 of these
        # 30 comparisons flagged "flat", 14 flagged a row.
        flat, comps = self.flags()
        self.assertLessEqual(flat, 1)
        self.assertLessEqual(comps, 3)


class QuietLoads(unittest.TestCase):
    """The busy-load filter: a load whose rows were slowed each by its
    own amount goes, one whose rows all ran alike faster stays."""

    def units(self, rng, fast=(), busy=(), short=(), loads=24):
        """@loads loads, 4 a boot."""
        out = {}
        for ld in range(loads):
            u = {}
            slow = rng.uniform(0.3, 0.6) if ld in busy else 0.0
            for row, (base, sd) in ROWS.items():
                y = math.log(base) + rng.gauss(0, sd)
                y += slow * rng.uniform(0.5, 1.5)
                y -= 0.48 if ld in fast else 0.0
                u[row] = y
            if ld in short:
                u = {"row00": u["row00"]}
            out[(f"boot{ld // 4}", ld)] = u
        return out

    def kept(self, **kw):
        rng = random.Random(3)
        ua, ub = self.units(rng, **kw), self.units(rng)
        na, _nb, _f, _rows = compare.normalise(ua, ub, "common")
        return {k[1] for k in compare.quiet(na)}

    def test_busy_go_fast_stay(self):
        fast, busy = {1, 4, 9, 15, 20, 22}, {3, 7, 12, 18, 21}
        kept = self.kept(fast=fast, busy=busy)
        self.assertEqual(kept & fast, fast)
        self.assertLessEqual(len(kept & busy), 1)

    def test_a_load_with_one_row_does_not_turn_it_off(self):
        busy = {3, 7, 12, 18, 21}
        kept = self.kept(busy=busy, short={5})
        self.assertLessEqual(len(kept & busy), 1)

    def test_never_below_two_boots(self):
        # Boot "y" busy in every load: left out, it would leave one boot,
        # and no answer.  All kept; with a third boot, "y" goes.
        rng = random.Random(3)
        busy = {8, 9, 10, 11}
        units = {("x" if ld < 8 else "y", ld): u for (_b, ld), u in
                 self.units(rng, busy=busy, loads=12).items()}
        self.assertEqual(len(compare.quiet(units)), 12)
        units = self.units(rng, busy=busy, loads=12)
        self.assertEqual({k[1] for k in compare.quiet(units)},
                         set(range(12)) - busy)


class Power(unittest.TestCase):
    """At the defaults, 8 boots a kernel (4 loads a boot here): each
    boot one value of a row, so 3 boots a kernel find a 30 % change in 19
    of these 30 comparisons."""

    def detected(self, pct, n=30, row="row05", boots=8, loads=4, **kw):
        kw.update(boots=boots, loads=loads)
        rng = random.Random(7)
        hits = 0
        others = 0
        for _ in range(n):
            c = compare.Comparison(synthetic(rng, **kw),
                                   synthetic(rng, shift={row: pct}, **kw),
                                   "common")
            by = {r.row: r for r in c.rows}
            hits += by[row].verdict == compare.REGRESSION
            others += sum(1 for r in flagged(c) if r.row != row)
        return hits, others

    def test_thirty_percent_always(self):
        hits, others = self.detected(30)
        self.assertEqual(hits, 30)
        # Benjamini-Hochberg grows bolder after a true discovery: about
        # q of the discoveries may be false.
        self.assertLessEqual(others, 6)

    def test_ten_percent_mostly(self):
        hits, _ = self.detected(10)
        self.assertGreaterEqual(hits, 24)

    def test_improvement(self):
        rng = random.Random(8)
        kw = {"boots": 8, "loads": 4}
        c = compare.Comparison(synthetic(rng, **kw),
                               synthetic(rng, shift={"row10": -25}, **kw))
        by = {r.row: r for r in c.rows}
        self.assertEqual(by["row10"].verdict, compare.IMPROVEMENT)
        self.assertLess(by["row10"].hi, 0)


class BootUnit(unittest.TestCase):
    """The unit of replication is the boot: a boot's loads share its
    offset of each row, so 64 loads of 8 boots are 8 values, not 64."""

    def test_aa_with_boot_offsets_and_correlated_loads(self):
        # Boots with their own offsets (1.5 %), loads correlated within
        # a boot, 15 % of a row's loads 3-10 % slow: the load as the unit
        # (Yuen's trimmed t, the variance inflated by a design effect)
        # flagged rows in 11 of these 40 comparisons (14 rows; 39 of 200
        # draws of this generator): its winsorized variance was robust to
        # the slow loads, the intra-boot correlation that scaled it not.
        # The boot as the unit: 2 of these 40, 9 of 200 draws.
        rng = random.Random(43)
        bad = []
        for _ in range(40):
            c = compare.Comparison(booted(rng), booted(rng))
            if flagged(c):
                bad.append(", ".join(f"{r.row} {r.verdict} {r.change:+.1f} %"
                                     for r in flagged(c)))
            self.assertEqual(c.replication, {"A": "boot", "B": "boot"})
        # At most the Benjamini-Hochberg rate, 5 % of 40.
        self.assertLessEqual(len(bad), 2, bad)

    def test_a_boot_is_the_median_of_its_loads(self):
        # One load of one boot far off (past what disturbed() takes out
        # as slowed: faster): the boot's median moves little, so the
        # row's interval stays narrow.
        rng = random.Random(44)
        kw = {"mid": 0, "factor_sd": 0, "boots": 4, "loads": 5}
        a, b = booted(rng, **kw), booted(rng, **kw)
        c0 = compare.Comparison(a, b, "none")
        a.rows[0]["median"] *= 0.5
        c1 = compare.Comparison(a, b, "none")
        r0, r1 = c0.rows[0], c1.rows[0]
        self.assertEqual(r1.row, a.rows[0]["row"])
        self.assertLess(abs(r1.change - r0.change), 1.0)
        self.assertEqual((r1.na, r1.nb), (4, 4))


# A layout variant of a revision: the same code shifted by padding.
PAD0, PAD1 = "a1b2c3d4-pad0", "a1b2c3d4-pad1296"
# Rows layout moves, 10 %, in one of the two layouts.
MOVED = {f"row{i:02d}": 10 for i in range(10)}


class Layouts(unittest.TestCase):
    """A kernel measured in several layouts: the layout is the unit, and
    a change layout alone makes is no verdict."""

    def test_layout_alone_is_no_verdict(self):
        # Both kernels in both layouts, A's boots mostly in the first, B's
        # in the second: the load as the unit called rows layout moves
        # REGRESSION in each of these 10 comparisons (+7.4 to +10.5 %).
        rng = random.Random(51)
        for _ in range(10):
            a = booted(rng, layouts=[(PAD0, {})] * 3 + [(PAD1, MOVED)],
                       row_boot_sd=0.005)
            b = booted(rng, layouts=[(PAD0, {})] + [(PAD1, MOVED)] * 3,
                       row_boot_sd=0.005)
            c = compare.Comparison(a, b)
            self.assertEqual(flagged(c), [])
            self.assertEqual(c.replication, {"A": "layout", "B": "layout"})
            by = {r.row: r for r in c.rows}
            for row in MOVED:
                r = by[row]
                self.assertEqual(r.verdict, compare.INCONCLUSIVE)
                # 10 % between two layouts is 7.1 % SD, which the rule
                # takes 1.693 times: 12 %, less what the normalisation's
                # factor took of it (a quarter of the rows moved).
                self.assertTrue(5 < r.layout_spread < 16, r.layout_spread)
                # Said so, or (a change under the minimum effect) a hint
                # towards NO CHANGE, all that more layouts can give.
                if r.more_boots is None:
                    self.assertRegex(
                        r.why, r"^layout alone moves this row by about "
                        r"\d+\.\d % \(change [-+]\d+\.\d %\): more "
                        r"layouts would not decide it$")
                else:
                    self.assertLess(abs(r.change), r.min_effect)
            text = "\n".join(c.report())
            self.assertRegex(text, r"(?m)^A: 6\d loads in 8 boots, 2 layouts "
                             r"\(the unit: the layout\); B: 6\d loads in 8 "
                             r"boots, 2 layouts \(the unit: the layout\)")
            self.assertIn("a change no larger than layout alone moves a "
                          "row (between two layouts of one kernel) is no "
                          "verdict", text)
            self.assertEqual(c.as_json()["shape"]["A"],
                             {"loads": len(c.units_a), "boots": 8,
                              "layouts": 2})

    def test_a_change_within_the_layout_spread_is_no_verdict(self):
        # Significant, past the minimum effect, but no larger than what
        # layout alone did: INCONCLUSIVE, saying why, with no hint (more
        # layouts show more of their spread); past it, REGRESSION.
        for spread, verdict in ((5.0, compare.INCONCLUSIVE),
                                (4.9, compare.REGRESSION)):
            r = compare.RowResult("kmalloc_64")
            r.change, r.lo, r.hi, r.significant = 5.0, 3.0, 7.0, True
            r.diff = math.log1p(r.change / 100)
            r.layout_spread = spread
            compare.decide(r, 10)
            self.assertEqual(r.verdict, verdict)
            self.assertIsNone(r.more_boots)
        r = compare.RowResult("kmalloc_64")
        r.change, r.lo, r.hi, r.significant = -5.0, -7.0, -3.0, True
        r.diff = math.log1p(r.change / 100)
        r.layout_spread = 12.25
        compare.decide(r, 10)
        self.assertEqual((r.verdict, r.why), (
            compare.INCONCLUSIVE, "layout alone moves this row by about "
            "12.2 % (change -5.0 %): more layouts would not decide it"))

    def test_the_layout_rule_reads_alike_both_ways(self):
        """One change of the logs, +6.2 % from A to B and -5.8 % from B
        to A, against a layout spread of 6 %: both found, or neither
        (the rule compared +6.2 and 5.8 with 6)."""
        verdicts = []
        for change in (6.2, 100 * (1 / 1.062 - 1)):
            r = compare.RowResult("kmalloc_64")
            r.change, r.significant = change, True
            r.lo, r.hi = change - 2, change + 2
            r.diff = math.log1p(change / 100)
            r.layout_spread = 6.0
            compare.decide(r, 10)
            verdicts.append(r.verdict)
        self.assertEqual(verdicts, [compare.REGRESSION, compare.IMPROVEMENT])

    def test_no_hint_where_layout_decides(self):
        """An undecided row within the layout spread gets no "about N
        more layouts": more layouts would not decide it."""
        r = compare.RowResult("kmalloc_64")
        r.change, r.lo, r.hi, r.significant = 6.2, -1.0, 13.9, False
        r.diff = math.log1p(r.change / 100)
        r.na = r.nb = 4
        r.se, r.df = 0.03, 6
        r.layout_spread = 7.2
        compare.decide(r, 10)
        self.assertEqual(r.verdict, compare.INCONCLUSIVE)
        self.assertIsNone(r.more_boots)

    def test_a_change_past_layout_is_found(self):
        # Four layouts a side, two boots each: a row B made 30 % slower,
        # which layout moves little, is found; the rows layout moves 10 %
        # are not called changed.
        rng = random.Random(52)
        lay = [(f"a1b2c3d4-pad{64 * i}", MOVED if i % 2 else {})
               for i in range(4)]
        a = booted(rng, layouts=lay, loads=4)
        b = booted(rng, layouts=[(f"e5f6-pad{64 * i}", m)
                                 for i, (_l, m) in enumerate(lay)],
                   loads=4, shift={"row20": 30})
        c = compare.Comparison(a, b)
        by = {r.row: r for r in c.rows}
        self.assertEqual(by["row20"].verdict, compare.REGRESSION)
        self.assertLess(by["row20"].layout_spread, 10)
        self.assertEqual([r.row for r in flagged(c)], ["row20"])
        self.assertEqual((by["row20"].na, by["row20"].nb), (4, 4))
        text = "\n".join(c.report())
        self.assertIn("4 layouts (the unit: the layout)", text)
        self.assertNotIn("more boots a kernel would decide", text)

    def test_one_layout_a_side_keeps_the_boot(self):
        # Archives of before the key, or one label on every boot: one
        # layout, the boot the unit, no layout spread.
        rng = random.Random(53)
        c = compare.Comparison(booted(rng, layouts=[(PAD0, {})]),
                               booted(rng))
        self.assertEqual(c.replication, {"A": "boot", "B": "boot"})
        self.assertTrue(all(r.layout_spread is None for r in c.rows))
        self.assertIn("A: 64 loads in 8 boots, 1 layout (the unit: the "
                      "boot)", "\n".join(c.report()))


ICOUNT = dict(FP, accel=archive.ICOUNT_ACCEL)
# Rows of about 190 instructions an op.
INSN_ROWS = {f"row{i:02d}": 185.0 + i for i in range(20)}


class Icount(unittest.TestCase):
    """Under icount ns/op are instructions an op: the change is said in
    instructions, its minimum effect 0.5 instructions."""

    def archives(self, seed, add=None, **kw):
        rng = random.Random(seed)
        kw = {"rows": INSN_ROWS, "row_boot_sd": 0.0002, "load_sd": 0.0002,
              "mid": 0, "factor_sd": 0, "fp": ICOUNT, "loads": 4} | kw
        return booted(rng, **kw), booted(rng, add=add, **kw)

    def test_one_instruction_more_is_a_regression(self):
        # +0.5 % on ~190 instructions: under the 1 % minimum effect, the
        # load-unit method called these rows NO CHANGE.
        more = {f"row{i:02d}": 1.0 for i in range(5)}
        a, b = self.archives(61, add=more | {"row10": -1.0})
        c = compare.Comparison(a, b)
        self.assertEqual(c.norm, "none")
        by = {r.row: r for r in c.rows}
        for row in INSN_ROWS:
            r = by[row]
            if row == "row10":
                self.assertEqual(r.verdict, compare.IMPROVEMENT)
                self.assertAlmostEqual(r.change_insn, -1.0, delta=0.1)
            elif row in more:
                self.assertEqual(r.verdict, compare.REGRESSION, row)
                self.assertAlmostEqual(r.change_insn, 1.0, delta=0.1)
                self.assertLess(r.lo_insn, r.change_insn)
                self.assertGreater(r.hi_insn, r.change_insn)
                self.assertGreater(r.lo_insn, 0.5)
                self.assertLess(r.change, 1.0)
            else:
                self.assertIn(r.verdict, (compare.NO_CHANGE,
                                          compare.INCONCLUSIVE), row)
                self.assertLess(abs(r.change_insn), 0.2)
            self.assertEqual(r.min_effect_insn, compare.MIN_EFFECT_INSN)
        text = "\n".join(c.report())
        self.assertIn("\nicount: ns/op are instructions an op (1 ns = 1 "
                      "instruction); a barrier, a cache miss or a lock "
                      "costs one instruction there, so a change is one of "
                      "path length, not of time\n", text)
        self.assertRegex(text, r"\nrow +A insn/op +B insn/op +change \(insn\)")
        self.assertRegex(text, r"\nrow00 +184\.9\d+ +185\.9\d+ +\+1\.0\d "
                         r"\[ *\+\d\.\d\d, *\+\d\.\d\d\] .* REGRESSION\n")
        got = c.as_json()
        self.assertEqual(got["unit"], "insn")
        self.assertAlmostEqual(got["rows"][0]["change_insn"], 1.0, delta=0.1)
        self.assertIn("lo_insn", got["rows"][0])
        self.assertIn("hi_insn", got["rows"][0])

    def test_loads_at_two_levels_are_no_verdict(self):
        # A new user's kfree_bulk_64 under icount: B's loads at two fixed
        # levels, 7 of 9 at -2.3 insn and 2 at +3.7, each layout's
        # median at the majority: "faster" from four NOPs added.
        a, b = self.archives(64, boots=9, layouts=[(f"pad{i}", {})
                                                   for i in range(3)])
        rng = random.Random(64)
        for rec in b.rows:
            if rec["row"] == "row05":
                rec["median"] += -2.3 if rng.random() < 0.75 else 3.7
        by = {r.row: r for r in compare.Comparison(a, b).rows}
        self.assertEqual(by["row05"].verdict, compare.INCONCLUSIVE)
        self.assertIn("loads of one boot or layout differ by about",
                      by["row05"].why)
        # One instruction more on every load still is one.
        a, b = self.archives(65, add={"row05": 1.0})
        by = {r.row: r for r in compare.Comparison(a, b).rows}
        self.assertEqual(by["row05"].verdict, compare.REGRESSION)

    def untested(self, seed, row, change):
        """Comparison of icount archives whose @row is changed by
        @change (a function of a record) and 5 instructions longer in
        B, the row's result; its table and JSON are made (CI's
        traceback: an untested row's p is None)."""
        a, b = self.archives(seed, add={"row07": 5.0, "row08": 5.0})
        for rec in a.rows + b.rows:
            if rec["row"] == "row07":
                change(rec)
        c = compare.Comparison(a, b)
        by = {r.row: r for r in c.rows}
        # Its medians, and no change or interval (a p99's df=1 interval
        # spanned 10^13 in a new user's forest plot).
        report = "\n".join(c.report())
        self.assertRegex(report, rf"\n{re.escape(row)} +[0-9.]+ +[0-9.]+ +"
                                 "INCONCLUSIVE")
        self.assertIn("undecided: 1 row, no answer for them (1: p99 rows or "
                      "rows on several CPUs, which icount does not judge; "
                      "time mode does)", report)
        json.dumps(c.as_json())
        self.assertEqual(by["row08"].verdict, compare.REGRESSION)
        self.assertEqual(by[row].verdict, compare.INCONCLUSIVE)
        self.assertIsNone(by[row].p)
        self.assertIsNone(by[row].change_insn)
        self.assertIsNone(by[row].hi)
        return by[row]

    def test_rows_on_several_cpus_are_no_verdict(self):
        # They count the vCPUs' turns under icount, not a path.
        r = self.untested(66, "row07", lambda rec: rec.update(cpu="0-1"))
        self.assertIn("vCPUs' turns", r.why)

    def test_a_p99_is_no_verdict_under_icount(self):
        # It moves by whole buckets: ./mmbench test's known regression
        # found an unchanged row's p99 13.9 % slower.
        r = self.untested(67, "row07+p99",
                          lambda rec: rec.update(row="row07+p99"))
        self.assertIn("judged in time mode only", r.why)

    def test_half_an_instruction_is_the_least(self):
        # 0.3 instructions more, precisely measured: inside the minimum
        # effect, NO CHANGE.
        a, b = self.archives(62, add={"row03": 0.3})
        r = {r.row: r for r in compare.Comparison(a, b).rows}["row03"]
        self.assertAlmostEqual(r.change_insn, 0.3, delta=0.05)
        self.assertEqual(r.verdict, compare.NO_CHANGE)

    def test_a_change_of_every_row_is_not_normalised_away(self):
        # One instruction more in every row: found in each by default;
        # normalised as asked, the factor takes most of it.
        more = {row: 1.0 for row in INSN_ROWS}
        a, b = self.archives(63, add=more)
        c = compare.Comparison(a, b)
        self.assertEqual({r.verdict for r in c.rows}, {compare.REGRESSION})
        self.assertIsNone(c.shift)
        c = compare.Comparison(a, b, "common")
        self.assertEqual(c.norm, "common")
        self.assertLess(max(abs(r.change_insn) for r in c.rows), 0.2)
        # Not icount: the default stays common.
        rng = random.Random(64)
        self.assertEqual(compare.Comparison(booted(rng), booted(rng)).norm,
                         "common")

    def test_compare_without_norm_given(self):
        # ./mmbench compare: none by default, common when asked.
        from mmbench_tool import cli, common
        a, b = self.archives(65)
        with tempfile.TemporaryDirectory() as d:
            for name, arch in zip("AB", (a, b)):
                archive.write(Path(d) / f"{name}.jsonl", arch.runs + arch.rows)
            for opts, norm in (([], "none"), (["--norm", "common"],
                                              "common")):
                out = Path(d) / norm
                with unittest.mock.patch.object(measure.deps, "ensure"), \
                        unittest.mock.patch.object(common.Phase, "timings",
                                                   []), \
                        contextlib.redirect_stdout(io.StringIO()), \
                        contextlib.redirect_stderr(io.StringIO()):
                    rc = cli.main(["compare", f"{d}/A.jsonl", f"{d}/B.jsonl",
                                   "-o", str(out), "--no-plots", *opts])
                self.assertEqual(rc, 0)
                got = json.loads((out / "compare.json").read_text())
                self.assertEqual((got["norm"], got["unit"]), (norm, "insn"))


class Verdicts(unittest.TestCase):
    def test_not_comparable(self):
        rng = random.Random(4)
        other = dict(FP, cpu_model="Intel(R) Xeon(R)")
        c = compare.Comparison(synthetic(rng), synthetic(rng, fp=other))
        self.assertTrue(c.not_comparable)
        self.assertEqual({r.verdict for r in c.rows},
                         {compare.NOT_COMPARABLE})
        self.assertIn("cpu_model", "\n".join(c.report()))
        from mmbench_tool import measure
        self.assertEqual(measure.exit_status(c), 2)

    def test_debug_options_and_emulation_not_comparable(self):
        rng = random.Random(5)
        for key, value in (("debug", "kasan lockdep"), ("accel", "kvm"),
                           ("accel", archive.ICOUNT_ACCEL)):
            c = compare.Comparison(synthetic(rng),
                                   synthetic(rng, fp=dict(FP, **{key: value})))
            self.assertEqual([k for k, _, _ in c.not_comparable], [key])

    def test_release_and_preempt_may_differ(self):
        rng = random.Random(6)
        c = compare.Comparison(
            synthetic(rng),
            synthetic(rng, fp=dict(FP, release="6.1.0-37-cloud-amd64",
                                   preempt="full")))
        self.assertFalse(c.not_comparable)
        self.assertIn("preempt", [k for k, _, _ in c.warnings])

    def test_an_archive_without_kaslr_booted_with_it(self):
        # Archives from before the key: their guests had KASLR on.
        rng = random.Random(8)
        c = compare.Comparison(synthetic(rng),
                               synthetic(rng, fp=dict(FP, kaslr="off")))
        self.assertIn(("kaslr", ["on"], ["off"]), c.warnings)

    def test_kaslr_said_not_refused(self):
        # Boots with and without KASLR (--kernel-arg nokaslr): the layout
        # may move a row's cost from boot to boot, said but compared.
        rng = random.Random(7)
        c = compare.Comparison(synthetic(rng, fp=dict(FP, kaslr="on")),
                               synthetic(rng, fp=dict(FP, kaslr="off")))
        self.assertFalse(c.not_comparable)
        self.assertIn("kaslr", [k for k, _, _ in c.warnings])

    def test_no_change_when_precise(self):
        rng = random.Random(9)
        kw = {"factor_sd": 0.02, "boot_sd": 0.0, "outliers": 0.0,
              "rows": {"quiet": (100, 0.002)} | {
                  f"r{i}": (50 + i, 0.01) for i in range(10)}}
        c = compare.Comparison(synthetic(rng, **kw), synthetic(rng, **kw))
        by = {r.row: r for r in c.rows}
        self.assertEqual(by["quiet"].verdict, compare.NO_CHANGE)

    def test_inconclusive_says_how_many_boots(self):
        # The hint counts the unit: boots (it counted loads, which more
        # of in the same boots do not decide).
        rng = random.Random(10)
        kw = {"boots": 3, "loads": 3, "outliers": 0.0}
        c = compare.Comparison(synthetic(rng, **kw),
                               synthetic(rng, shift={"row20": 4}, **kw))
        r = {r.row: r for r in c.rows}["row20"]
        self.assertEqual(r.verdict, compare.INCONCLUSIVE)
        self.assertGreater(r.more_boots, 0)
        text = "\n".join(c.report())
        self.assertRegex(text, r"\nrow20 .*INCONCLUSIVE \(about "
                         f"{r.more_boots} more boots a kernel would "
                         r"decide\)\n")
        self.assertNotIn("loads a kernel would decide", text)
        self.assertEqual(c.as_json()["rows"][20]["more_boots"],
                         r.more_boots)

    def test_a_hint_past_what_measure_takes_is_not_given(self):
        # A row whose change is far under its noise would want hundreds
        # of boots, more than --boots takes (50): said undecided.
        rng = random.Random(12)
        kw = {"boots": 3, "loads": 3, "outliers": 0.0}
        c = compare.Comparison(synthetic(rng, **kw),
                               synthetic(rng, shift={"row20": 0.3}, **kw))
        hinted = [r for r in c.rows if r.verdict == compare.INCONCLUSIVE
                  and r.more_boots is not None]
        far = [r for r in hinted if min(r.na, r.nb) + r.more_boots > 50]
        near = [r for r in hinted if min(r.na, r.nb) + r.more_boots <= 50]
        self.assertTrue(far and near, [r.more_boots for r in hinted])
        text = "\n".join(c.report())
        for r in far:
            self.assertRegex(text, rf"\n{r.row} .*INCONCLUSIVE \(more boots "
                             r"than measure takes \(50\) would be needed: "
                             r"undecided at this noise\)\n")
        for r in near:
            self.assertRegex(text, rf"\n{r.row} .*\(about {r.more_boots} "
                             "more boots? a kernel would decide\\)\n")

    def test_too_few_boots(self):
        # Two boots of A, one of B passing the row: not judged, said.
        rng = random.Random(11)
        a, b = synthetic(rng, boots=2, loads=4), synthetic(rng, boots=2,
                                                          loads=4)
        b = archive.Archive(b.runs, [r for r in b.rows if r["row"] !=
                                     "row07" or r["boot"] ==
                                     b.runs[0]["boot"]], [])
        c = compare.Comparison(a, b)
        r = {r.row: r for r in c.rows}["row07"]
        self.assertEqual(r.verdict, compare.INCONCLUSIVE)
        self.assertIsNone(r.change)
        self.assertEqual(r.why, "A 2 boots, B 1 boot with quiet passing "
                         "loads of it: at least 2 a kernel")
        self.assertIn(r.why, "\n".join(c.report()))

    def test_exit_status_says_regression(self):
        from mmbench_tool import measure
        rng = random.Random(13)
        kw = {"boots": 6, "loads": 4}
        c = compare.Comparison(synthetic(rng, **kw),
                               synthetic(rng, shift={"row01": 40}, **kw))
        self.assertEqual(measure.exit_status(c), 1)
        # An A/A of noisy rows: no regression, but rows undecided, no
        # answer for them: 3, not 0 (it was 0, a green gate that could
        # have seen nothing).
        c = compare.Comparison(synthetic(rng, **kw), synthetic(rng, **kw))
        self.assertFalse(c.regressions())
        self.assertTrue(c.undecided())
        self.assertEqual(measure.exit_status(c), 3)

    def test_a_slowdown_every_row_shares_is_found(self):
        # The normalisation takes it out of each row: the load factor's
        # own change, boot by boot, says it (it was silent, exit 0).
        from mmbench_tool import measure
        rng = random.Random(14)
        kw = {"boots": 6, "loads": 4, "busy": 0}
        c = compare.Comparison(synthetic(rng, **kw),
                               synthetic(rng, **kw,
                                         shift={r: 20 for r in ROWS}))
        self.assertEqual(c.shift.verdict, compare.REGRESSION)
        self.assertGreater(c.shift.change, 10)
        self.assertEqual(measure.exit_status(c), 1)

    def test_a_row_in_one_kernel_only_is_no_answer(self):
        from mmbench_tool import measure
        rng = random.Random(15)
        a, b = synthetic(rng), synthetic(rng)
        for rec in b.rows:
            if rec["row"] == "row03":
                rec["status"] = "error"
        c = compare.Comparison(a, b)
        self.assertEqual(c.only_a, ["row03"])
        self.assertIn("only in A: row03: B never passed (error)",
                      c.report())
        self.assertEqual(measure.exit_status(c), 2)

    def test_a_row_neither_passed_and_a_missing_p99_are_said(self):
        # A new user's: kmalloc_account_64 unsupported on both sides was
        # dropped without a word; a p99 row B did not have was "B did not
        # run it" where B ran the row and had no p99.
        rng = random.Random(15)
        a, b = synthetic(rng), synthetic(rng)
        for arch in (a, b):
            for rec in arch.rows:
                if rec["row"] == "row03":
                    rec["status"] = "unsupported"
                if rec["row"] == "row04":
                    rec["op_ns"] = {"alone": 4096, "p50": 50.0, "p99": 90.0}
        c = compare.Comparison(a.with_tails(), b)
        text = c.report()
        self.assertIn("neither passed: row03: A unsupported, B unsupported",
                      text)
        self.assertIn("only in A: row04+p99: B has no p99 (under 100 ops "
                      "timed alone)", text)
        self.assertEqual([t for t in text if t.startswith("neither")],
                         ["neither passed: row03: A unsupported, "
                          "B unsupported"])

    def test_nothing_to_compare_or_the_same_boots_refused(self):
        rng = random.Random(16)
        a, b = synthetic(rng), synthetic(rng)
        with self.assertRaisesRegex(ValueError, "the same boots: an "
                                    "archive compared with itself"):
            compare.Comparison(a, a)
        both = archive.Archive(a.runs + b.runs, a.rows + b.rows, [])
        with self.assertRaisesRegex(ValueError, "share 3 of their boots "
                                    ".*a boot belongs to one side"):
            compare.Comparison(both, b)
        for rec in b.rows:
            rec["status"] = "error"
        with self.assertRaisesRegex(ValueError, "B .*no row passed"):
            compare.Comparison(a, b)


def by_row(c, row):
    return next(r for r in c.rows if r.row == row)


class Tails(unittest.TestCase):
    """A row's p99 of its ops timed alone, compared as its own row."""

    def test_bucket_bounds_and_percentiles(self):
        # lib/test_mmbench.c's buckets: exact under 32, then 16 to a
        # power of two.
        self.assertEqual([bench.bucket_low(i) for i in (0, 31, 32, 33, 47,
                                                         48, 335)],
                         [0, 31, 32, 34, 62, 64, 31 << 19])
        t = bench.tail("40 " + " ".join(["0"] * 20 + ["98", "0", "1", "1"]))
        self.assertEqual(t["alone"], 100)
        # 1 ns buckets: not interpolated; p99.9 wants 1000 ops.
        self.assertEqual((t["p50"], t["p90"], t["p99"], t["max"]),
                         (20.0, 20.0, 22.0, 40.0))
        self.assertNotIn("p99_9", t)
        # Interpolated within a wider bucket (48, 50), never past the
        # slowest (a reviewer's: all 4096 at 31 ns gave a p50 of 31.499).
        t = bench.tail("49 " + " ".join(["0"] * 40 + ["10"]))
        self.assertEqual((t["p50"], t["p90"], t["max"]), (48.45, 48.85,
                                                          49.0))
        self.assertNotIn("p99", t)
        t = bench.tail("31 " + " ".join(["0"] * 31 + ["4096"]))
        self.assertEqual((t["p50"], t["p99_9"], t["max"]), (31, 31, 31))
        for bad in ("", "0", "x 1", "5 -1 2"):
            self.assertIsNone(bench.tail(bad), bad)

    def test_p99_rows_found_changed_beside_the_median(self):
        rng = random.Random(46)

        def with_p99(arch, slow=()):
            for rec in arch.rows:
                rec["op_ns"] = {"alone": 4096, "p50": 80.0, "p99": (
                    90.0 if rec["row"] == "baseline" else
                    (1500 if rec["row"] in slow else 1000) *
                    (1 + rng.gauss(0, 0.02)))}
            return arch.with_tails()
        rows = dict(ROWS, baseline=(5.0, 0.01))
        a = with_p99(synthetic(rng, boots=6, rows=rows))
        b = with_p99(synthetic(rng, boots=6, rows=rows), {"row05"})
        self.assertIn("row05+p99", {r["row"] for r in a.rows})
        # Net of the load's clock: the baseline's p50.
        self.assertTrue(all(abs(r["median"] - 920) < 100 for r in a.rows
                            if r["row"] == "row05+p99"))
        c = compare.Comparison(a, b)
        verdict = {r.row: r.verdict for r in c.rows}
        self.assertEqual(verdict["row05+p99"], "REGRESSION")
        self.assertNotEqual(verdict["row05"], "REGRESSION")
        self.assertEqual([r for r, v in verdict.items()
                          if v == "REGRESSION"], ["row05+p99"])
        # A change within two buckets' width is no finding for a p99.
        self.assertEqual(by_row(c, "row05+p99").min_effect, 12.5)
        # No p99 row in the factor each load's figures are divided by.
        self.assertFalse([r for r in c.norm_rows if "+" in r])

    def test_the_p99_rows_plot_shows_both_distributions(self):
        try:
            from mmbench_tool import plots
            plt = plots._pyplot()
        except ImportError:
            self.skipTest("python3-matplotlib not installed")
        rng = random.Random(47)
        rows = {"baseline": (5.0, 0.01), "row05": (100.0, 0.01)}

        def archived(slow):
            arch = synthetic(rng, boots=3, rows=rows)
            for rec in arch.rows:
                text = f"{slow} " + " ".join(
                    ["0"] * 80 + ["4000"] + ["0"] * 60 + ["96"])
                rec["op_ns"] = bench.tail(text)
                rec["op_ns_hist"] = bench.hist(text)
            return arch
        with tempfile.TemporaryDirectory() as tmp, \
                unittest.mock.patch.object(plt, "close") as close:
            a, b = archived(2000), archived(9000)
            c = measure.compare_archives(a, b, True, Path(tmp), quiet=True)
            figs = {call.args[0].axes[0].get_title().split(":")[0]:
                    call.args[0] for call in close.call_args_list
                    if hasattr(call.args[0], "axes")}
        self.assertIn("row05+p99", {r.row for r in c.rows})
        fig = figs["row05+p99"]
        dots, dist = fig.axes
        # Each kernel's p99 of each load (it was an empty plot before).
        self.assertEqual(sum(len(line.get_ydata()) for line in
                             dots.get_lines()),
                         sum(r["row"] == "row05" for r in a.rows + b.rows))
        # Both kernels' distributions, from 1 down to the slowest 96.
        ops = 4096 * sum(r["row"] == "row05" for r in a.rows)
        self.assertEqual([line.get_label() for line in dist.get_lines()],
                         [f"A: {ops} ops", f"B: {ops} ops"])
        ys = dist.get_lines()[0].get_ydata()
        self.assertEqual((ys[0], round(ys[-1], 4)), (1.0, 0.0234))
        self.assertEqual(len(figs["row05"].axes), 1)


class Answers(unittest.TestCase):
    """What a mm developer reads first: the kernels by name, the answer
    before the table, the findings first and the largest first, an
    undecided row's change no finding, and an exit status that is not
    0 when a row could not be decided (issue 45)."""

    QUIET = {"rows": {f"row{i:02d}": 50.0 + 10 * i for i in range(10)},
             "row_boot_sd": 0.001, "load_sd": 0.001, "mid": 0,
             "factor_sd": 0.002, "boots": 4, "loads": 4}
    B_FP = dict(FP, release="6.13.0-rc1-cloud-amd64")

    def found(self, seed=90, labels=(None, None)):
        rng = random.Random(seed)
        a = booted(rng, **self.QUIET)
        b = booted(rng, fp=self.B_FP, shift={"row03": 8, "row07": 20,
                                             "row05": -6}, **self.QUIET)
        return compare.Comparison(a, b, labels=labels)

    def table(self, text):
        """The rows of the table of report @text, in order."""
        lines = text.splitlines()
        head = next(i for i, line in enumerate(lines)
                    if line.startswith("row "))
        return [line.split("  ")[0].strip() for line in lines[head + 1:]
                if not line.startswith(("verdicts:", "only in ",
                                        f"{compare.SHIFT_ROW}:"))]

    def test_the_summary_first_the_kernels_by_name(self):
        c = self.found()
        out = c.report()
        self.assertEqual(out[0], "A: 6.12.117+deb12-cloud-amd64, B: "
                         "6.13.0-rc1-cloud-amd64")
        self.assertRegex(out[1], r"^slower in B \(6\.13\.0-rc1-clo\.\.\): "
                         r"row07 \+20\.\d % \[\+\d+\.\d, \+\d+\.\d\], "
                         r"row03 \+8\.\d % \[")
        self.assertRegex(out[2], r"^faster in B \(.*\): row05 -6\.\d % ")
        self.assertRegex(out[3], r"^no change: 8 rows \(a change of "
                         r"\d\.\d % or more would have been found")
        head = next(i for i, line in enumerate(out)
                    if line.startswith("row "))
        self.assertGreater(head, 3)
        # The columns: the releases, cut to 16 characters, over the unit.
        self.assertRegex(out[head - 1], r"^ +6\.12\.117\+deb12\.\. "
                         r"6\.13\.0-rc1-clo\.\.$")
        self.assertRegex(out[head], r"^row +ns/op +ns/op +change ")
        self.assertEqual(c.as_json()["names"],
                         {"A": "6.12.117+deb12-cloud-amd64",
                          "B": "6.13.0-rc1-cloud-amd64"})
        # Names the user gives: in the column, the summary, the header.
        c = self.found(labels=("base", "my-patch"))
        out = c.report()
        self.assertEqual(out[0], "A: base (6.12.117+deb12-cloud-amd64), B: "
                         "my-patch (6.13.0-rc1-cloud-amd64)")
        self.assertTrue(out[1].startswith("slower in B (my-patch): row07"))
        self.assertRegex("\n".join(out), r"\nrow +base ns/op my-patch "
                         r"ns/op +change ")

    def test_names_that_tell_the_kernels_apart(self):
        def names(ra, rb, labels=(None, None), pa=(), pb=()):
            def arch(release, params):
                return archive.Archive([{
                    "type": "run", "boot": "b", "fingerprint":
                    dict(FP, release=release),
                    "params": {"module": list(params)}}], [], [])
            return compare.kernel_names(arch(ra, pa), arch(rb, pb), labels)
        # An A/A: "A" and "B", the full names said once.
        got = names("6.12.117+deb12-cloud-amd64", "6.12.117+deb12-cloud-amd64")
        self.assertEqual({s: n[1] for s, n in got.items()},
                         {"A": "A", "B": "B"})
        # measure --tree's builds: the commit tells them apart.
        got = names("6.12.118-mmb716c5d8d", "6.12.118-mmbbece29ef")
        self.assertEqual((got["A"][1], got["B"][1]),
                         ("A 716c5d8d", "B bece29ef"))
        # Alike in their first 16 characters: their ends.
        got = names("6.12.0-rc1-00001-gabcdef", "6.12.0-rc1-00001-g012345")
        self.assertNotEqual(got["A"][1], got["B"][1])
        self.assertTrue(all(len(n[1]) <= compare.NAME_WIDTH
                            for n in got.values()))
        # The same label twice: A and B before it.
        got = names("6.1", "6.2", labels=("v6.12", "v6.12"))
        self.assertEqual((got["A"][1], got["B"][1]), ("A v6.12", "B v6.12"))
        # A side's own module parameters join its full name.
        got = names("6.12", "6.12", pa=["samples=3"],
                    pb=["samples=3", "slow_into=kmalloc_64:40"])
        self.assertEqual(got["B"][0], "6.12 with slow_into=kmalloc_64:40")
        self.assertEqual(got["A"][0], "6.12")

    def test_findings_first_the_largest_first(self):
        rng = random.Random(10)
        kw = {"boots": 3, "loads": 3, "outliers": 0.0}
        c = compare.Comparison(
            synthetic(rng, **kw),
            synthetic(rng, shift={"row20": 4, "row30": 40, "row31": 60,
                                  "row32": -40}, **kw))
        verdict = {r.row: r.verdict for r in c.judged()}
        rows = self.table("\n".join(c.report()))
        self.assertEqual(sorted(rows), sorted(verdict))
        rank = {compare.REGRESSION: 0, compare.IMPROVEMENT: 0,
                compare.NO_CHANGE: 1, compare.INCONCLUSIVE: 2}
        ranks = [rank[verdict[r]] for r in rows[:-1]]
        self.assertEqual(ranks, sorted(ranks))
        self.assertEqual(rows[-1], compare.SHIFT_ROW)
        by = {r.row: r for r in c.rows}
        found = [r for r in rows if rank[verdict[r]] == 0]
        self.assertEqual(found[0], "row31")
        self.assertEqual(set(found[:3]), {"row30", "row31", "row32"})
        sizes = [round(abs(by[r].change), 1) for r in found]
        self.assertEqual(sizes, sorted(sizes, reverse=True))
        # The other kinds by name.
        for kind in (1, 2):
            named = [r for r in rows[:-1] if rank[verdict[r]] == kind]
            self.assertEqual(named, sorted(named))

    def test_an_undecided_change_is_no_finding(self):
        rng = random.Random(10)
        kw = {"boots": 3, "loads": 3, "outliers": 0.0}
        c = compare.Comparison(synthetic(rng, **kw),
                               synthetic(rng, shift={"row20": 4,
                                                     "row30": 40}, **kw))
        by = {r.row: r for r in c.rows}
        self.assertEqual(by["row20"].verdict, compare.INCONCLUSIVE)
        self.assertEqual(by["row30"].verdict, compare.REGRESSION)
        text = "\n".join(c.report())
        undecided = re.escape(f"({by['row20'].change:+.1f}%)")
        self.assertRegex(text, rf"\nrow20 .* {undecided}  \[.*INCONCLUSIVE "
                         r"\(about \d+ more boots? a kernel would "
                         r"decide\)\n")
        found = re.escape(f" {by['row30'].change:+.1f}%  [")
        self.assertRegex(text, rf"\nrow30 .*{found}.*REGRESSION\n")
        # The summary counts them, naming boots, and says no answer.
        n = len(c.undecided())
        self.assertRegex(text, rf"\nundecided: {n} rows, no answer for "
                         r"them \(about \d+ more boots a kernel would "
                         r"decide ")
        # Under icount the change is in instructions, said so.
        a, b = Icount().archives(61, add={"row00": 1.0, "row01": -1.0})
        c = compare.Comparison(a, b)
        out = c.report()
        self.assertRegex(out[1], r"^slower in B: row00 \+1\.\d\d insn "
                         r"\[\+\d\.\d\d, \+\d\.\d\d\]$")
        self.assertRegex(out[2], r"^faster in B: row01 -[01]\.\d\d insn ")

    def test_exit_3_when_nothing_was_decided(self):
        rng = random.Random(91)
        kw = {"boots": 2, "loads": 3}
        c = compare.Comparison(synthetic(rng, **kw), synthetic(rng, **kw))
        self.assertEqual(set(c.counts()), {compare.INCONCLUSIVE})
        self.assertEqual(measure.exit_status(c), 3)
        with contextlib.redirect_stdout(io.StringIO()) as said, \
                contextlib.redirect_stderr(said):
            measure.say_no_answer(c)
        self.assertIn(f"no regression found, but {len(c.undecided())} rows "
                      "undecided: no answer for them, exit status 3",
                      said.getvalue())

    def test_exit_0_only_when_answered(self):
        # Every row, and the load factor's change, NO CHANGE: answered.
        rng = random.Random(92)
        c = compare.Comparison(booted(rng, **self.QUIET),
                               booted(rng, **self.QUIET))
        self.assertEqual(set(c.counts()), {compare.NO_CHANGE})
        self.assertEqual(measure.exit_status(c), 0)
        # An IMPROVEMENT beside them: answered too.
        c = self.found()
        self.assertEqual(measure.exit_status(c), 1)
        for r in c.regressions():
            r.verdict = compare.NO_CHANGE
        self.assertEqual(measure.exit_status(c), 0)
        # One row undecided among them: no answer for it.
        c.rows[0].verdict = compare.INCONCLUSIVE
        self.assertEqual(measure.exit_status(c), 3)
        # The load factor's change undecided: a change every row shares
        # is not answered either.
        c.rows[0].verdict = compare.NO_CHANGE
        c.shift.verdict = compare.INCONCLUSIVE
        self.assertEqual(measure.exit_status(c), 3)
        # A regression still says 1, no answer (one boot) 2.
        c.rows[1].verdict = compare.REGRESSION
        self.assertEqual(measure.exit_status(c), 1)
        c.rows[1].verdict = compare.NO_CHANGE
        c.one_boot = ["A"]
        self.assertEqual(measure.exit_status(c), 2)

    def test_labels_from_the_command_line(self):
        from mmbench_tool import cli
        a, b = self.found().a, self.found().b
        with tempfile.TemporaryDirectory() as d:
            for name, arch in zip("AB", (a, b)):
                archive.write(Path(d) / f"{name}.jsonl", arch.runs + arch.rows)
            with unittest.mock.patch.object(measure.deps, "ensure"), \
                    contextlib.redirect_stdout(io.StringIO()) as out, \
                    contextlib.redirect_stderr(io.StringIO()):
                rc = cli.main(["compare", d, "-o", f"{d}/out", "--no-plots",
                               "--label-a", "base", "--label-b", "nops"])
            self.assertEqual(rc, 1)
            self.assertTrue(out.getvalue().startswith(
                "A: base (6.12.117+deb12-cloud-amd64), B: nops "
                "(6.13.0-rc1-cloud-amd64)\nslower in B (nops): row07 "))
            got = json.loads((Path(d) / "out" / "compare.json").read_text())
            self.assertEqual(got["labels"], {"A": "base", "B": "nops"})
        # measure --tree names the kernels by the revisions given.
        args = cli.parse(["measure", "--tree", "/nonexistent", "v6.12",
                          "my-patch"])
        self.assertEqual(measure.labels(args), ("v6.12", "my-patch"))
        args = cli.parse(["measure", "--tree", "/nonexistent", "v6.12",
                          "HEAD", "--label-b", "the fix"])
        self.assertEqual(measure.labels(args), ("v6.12", "the fix"))
        self.assertEqual(measure.labels(cli.parse(["measure"])),
                         (None, None))

    def test_the_time_left(self):
        self.assertEqual(measure.time_left([], 16), "")
        self.assertEqual(measure.time_left([10.0, 20.0], 3),
                         "about 45 s left; ")
        self.assertEqual(measure.time_left([60.0, 60.0], 7),
                         "about 7 min left; ")


# The lean module's raw files (whole-sample ns, a list of drops' causes)
# as bench.sh prints them, with the kselftest's fingerprint lines.
# count_vm_event+ndelay_50: a row of modules before 078583c (an injected
# ndelay), which archives of then still hold.
GUEST = """MMBENCH-BENCH fingerprint debug=none
MMBENCH-BENCH fingerprint init_on_alloc=0
MMBENCH-BENCH guest boot_id=1234-abcd
MMBENCH-BENCH guest release=6.12.117+deb12-cloud-amd64
MMBENCH-BENCH guest clocksource=tsc
MMBENCH-BENCH guest cpu_model=QEMU Virtual CPU version 2.5+
MMBENCH-BENCH guest kaslr=off
MMBENCH-BENCH load=1 run_ms=1300
MMBENCH-BENCH load=1 sysfs=preempt=voluntary
MMBENCH-BENCH load=1 sysfs=baseline/status=pass
MMBENCH-BENCH load=1 sysfs=baseline/ops_per_sample=1000
MMBENCH-BENCH load=1 sysfs=baseline/sample_ns=1200 1182 1190 1170
MMBENCH-BENCH load=1 sysfs=baseline/sample_cycles=3000 2980 2990 2950
MMBENCH-BENCH load=1 sysfs=kmalloc_64/status=pass
MMBENCH-BENCH load=1 sysfs=kmalloc_64/reason=
MMBENCH-BENCH load=1 sysfs=kmalloc_64/cpus=0
MMBENCH-BENCH load=1 sysfs=kmalloc_64/context=preempt
MMBENCH-BENCH load=1 sysfs=kmalloc_64/ops_per_sample=1000
MMBENCH-BENCH load=1 sysfs=kmalloc_64/samples_dropped=preempt migrate
MMBENCH-BENCH load=1 sysfs=kmalloc_64/sample_ns=210100 210582 215000
MMBENCH-BENCH load=1 sysfs=kmalloc_64/sample_cycles=525000 526000 530000
MMBENCH-BENCH load=1 sysfs=alloc_pages_order9/status=unsupported
MMBENCH-BENCH load=1 sysfs=alloc_pages_order9/reason=no free block of order 9
MMBENCH-BENCH load=1 sysfs=alloc_pages_order9/samples_dropped=
MMBENCH-BENCH load=1 sysfs=alloc_pages_order9/sample_ns=
MMBENCH-BENCH load=1 sysfs=count_vm_event+ndelay_50/status=pass
MMBENCH-BENCH load=1 sysfs=count_vm_event+ndelay_50/ops_per_sample=10
MMBENCH-BENCH load=1 sysfs=count_vm_event+ndelay_50/sample_ns=3000
MMBENCH-BENCH load=1 sysfs=kmalloc_8/status=pass
MMBENCH-BENCH load=1 sysfs=kmalloc_8/ops_per_sample=1000
MMBENCH-BENCH load=1 sysfs=kmalloc_8/sample_ns=
MMBENCH-BENCH load=1 sysfs=kmalloc_8/samples_dropped=preempt preempt steal
MMBENCH-BENCH load=2 insmod failed
MMBENCH-BENCH load=3 insmod failed: slow_into: kmalloc_100: no such row in this load
MMBENCH-BENCH load=4 insmod failed: cpu=5 is not an online CPU (online: 0-1), nor -1 row=x
""".splitlines()


class Archive(unittest.TestCase):
    def recs(self):
        return archive.records(GUEST, {"accel": "tcg", "arch": "x86_64"},
                               {"module": ["samples=3"]})

    def test_an_archive_cut_at_a_line_end_is_refused(self):
        # Cut after any record but the last, the file still reads as
        # JSON lines: the run record's loads and each load record's rows
        # say what is missing.
        lines = [json.dumps(r) for r in self.recs()]
        with tempfile.TemporaryDirectory() as d:
            p = Path(d) / "a.jsonl"
            p.write_text("\n".join(lines) + "\n")
            whole = archive.Archive.read(p)
            self.assertEqual(len(whole.loads), 4)
            for n in range(1, len(lines)):
                p.write_text("\n".join(lines[:n]) + "\n")
                with self.assertRaisesRegex(ValueError,
                                            "a.jsonl:[0-9]+: .* of its [0-9]+"
                                            " (load|row) records: the "
                                            "archive is cut short"):
                    archive.Archive.read(p)

    def test_a_boot_that_did_not_say_its_id(self):
        # A guest without /proc/sys/kernel/random/boot_id: each boot an
        # id of its own, so that two such boots join as two, not as "the
        # same boot twice".
        lines = [line for line in GUEST if "boot_id" not in line]
        with tempfile.TemporaryDirectory() as d:
            paths = [Path(d) / f"{n}.jsonl" for n in (1, 2)]
            for p in paths:
                archive.write(p, archive.records(lines, {"accel": "tcg"},
                                                 {}))
            both = archive.Archive.read(*paths)
            self.assertEqual(len({r["boot"] for r in both.runs}), 2)
            self.assertTrue(all(r["boot"].startswith("host-")
                                for r in both.runs))

    def test_records(self):
        recs = self.recs()
        head = recs[0]
        self.assertEqual(head["type"], "run")
        self.assertEqual(head["boot"], "1234-abcd")
        self.assertEqual(head["fingerprint"]["release"],
                         "6.12.117+deb12-cloud-amd64")
        self.assertEqual(head["fingerprint"]["clocksource"], "tsc")
        self.assertEqual(head["fingerprint"]["kaslr"], "off")
        self.assertEqual(head["fingerprint"]["emulated"], "yes")
        rows = {r["row"]: r for r in recs if r["type"] == "row"}
        k = rows["kmalloc_64"]
        self.assertEqual(k["sample_ns"], [210.1, 210.582, 215.0])
        self.assertEqual(k["median"], 210.582)
        self.assertEqual((k["samples"], k["dropped"]), (3, 2))
        self.assertEqual(k["dropped_why"],
                         {"preempted": 1, "migrated": 1, "stolen": 0})
        # The figures the old module published, made on the host from
        # the lean one's raw files: MAD, noise (with 3 samples or more),
        # net of the baseline's median (of an even count: the middle
        # two's mean), net cycles likewise.
        self.assertEqual((k["mad"], k["noise"]), (0.482, 0.228))
        self.assertEqual(k["net"], 209.396)          # 210.582 - 1.186
        self.assertEqual(k["net_cycles"], 523.015)   # 526 - 2.985
        self.assertEqual((k["group"], k["cpu"], k["context"],
                          k["ops_per_sample"]), ("slab", "0", "preempt",
                                                 1000))
        base = rows["baseline"]
        self.assertEqual((base["median"], base["net"], base["samples"]),
                         (1.186, 0.0, 4))
        # Without the samples_dropped file: no count, no causes.
        self.assertEqual((base["dropped"], base["dropped_why"]), (None, {}))
        self.assertEqual(rows["alloc_pages_order9"]["reason"],
                         "no free block of order 9")
        self.assertEqual((rows["alloc_pages_order9"]["samples"],
                          rows["alloc_pages_order9"]["median"]), (0, None))
        # Passed with no sample kept: noisy, as the kselftest judges it.
        self.assertEqual((rows["kmalloc_8"]["status"],
                          rows["kmalloc_8"]["reason"]),
                         ("noisy", "no sample kept: 3 dropped (2 preempted, "
                          "0 migrated, 1 with steal time)"))
        self.assertEqual(head["fingerprint"]["preempt"], "voluntary")
        self.assertEqual(head["fingerprint"]["debug"], "none")
        loads = [r for r in recs if r["type"] == "load"]
        self.assertEqual([(r["load"], r["insmod"]) for r in loads],
                         [(1, "ok"), (2, "failed"), (3, "failed"),
                          (4, "failed")])
        # Why the module refused a load, when its log said.
        self.assertNotIn("why", loads[1])
        self.assertEqual(loads[2]["why"],
                         "slow_into: kmalloc_100: no such row in this load")
        # A reason with "row=" in it is a reason, not a row.
        self.assertEqual(loads[3]["why"], "cpu=5 is not an online CPU "
                         "(online: 0-1), nor -1 row=x")
        self.assertNotIn("x", {r["row"] for r in recs if r["type"] == "row"})

    def test_round_trip(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / archive.FILE
            archive.write(path, self.recs())
            a = archive.Archive.read(Path(tmp))
            self.assertEqual(len(a.runs), 1)
            self.assertEqual(a.medians()[("1234-abcd", 1)]["kmalloc_64"],
                             210.582)
            self.assertEqual(a.samples("kmalloc_64"), [210.1, 210.582, 215.0])
            for line in path.read_text().splitlines():
                json.loads(line)

    def test_a_figure_not_finite_is_not_measured(self):
        for text in ("nan", "inf", "-inf", "none", ""):
            self.assertIsNone(archive._number(text), text)
        self.assertEqual(archive._number("2.5"), 2.5)

    def test_not_an_archive(self):
        with tempfile.TemporaryDirectory() as tmp:
            p = Path(tmp) / "x.jsonl"
            p.write_text('{"type": "row"}\n')
            with self.assertRaises(ValueError):
                archive.Archive.read(p)

    def test_a_plain_run_folder_says_what_writes_an_archive(self):
        """A results folder of ./mmbench run without --loads (a new
        user's trial): the error says how to get an archive."""
        with tempfile.TemporaryDirectory() as d:
            (Path(d) / "mmbench_test.ktap").write_text("")
            rc, out = support.options_only("compare", d, d)
            self.assertEqual(rc, 2, out)
            self.assertIn(f"{d}: no archive.jsonl, and no *.jsonl archive "
                          "in it; a plain ./mmbench run keeps none: "
                          "./mmbench run --loads N (or measure) writes "
                          "one", out)

    def test_records_of_the_wrong_shape_refused(self):
        run = '{"type": "run", "boot": "b", "fingerprint": {}}'
        row = ('{"type": "row", "boot": "b", "load": 1, "row": "r", '
               '"median": 1.5}')
        bad = {
            '{"type": "row", "boot": "b", "load": null, "row": "r", '
            '"median": 1.5}': "load is not a number",
            '{"type": "row", "boot": "b", "load": 1, "row": "r", '
            '"median": true}': "median is not a number under 1e18",
            '{"type": "row", "boot": "b", "load": 1, "row": "r", '
            '"median": NaN}': "median is not a number under 1e18",
            # What a new user's trial slipped past compare and fleet.
            '{"type": "row", "boot": "b", "load": 1, "row": "r", '
            '"median": 1e999}': "median is not a number under 1e18",
            '{"type": "row", "boot": "b", "load": 1, "row": "r", '
            '"median": Infinity}': "median is not a number under 1e18",
            # Finite, yet past what an archive holds: said so.
            '{"type": "row", "boot": "b", "load": 1, "row": "r", '
            '"median": 1e300}': "median is not a number under 1e18",
            '{"type": "row", "boot": "b", "load": 1, "row": "r", '
            '"median": 0, "status": "pass"}': "passed with a median of 0",
            '{"type": "row", "boot": "b", "load": 1, "row": "r", '
            '"median": -5, "status": "pass"}': "passed with a median of -5",
            '{"type": "row", "boot": "b", "load": 1, "row": "r", '
            '"median": null, "status": "pass"}': "passed with a median of "
                                                 "None",
            '{"type": "row", "boot": "b", "load": 1, "row": "r", '
            '"median": 1, "net": "x"}': "net is not a number under 1e18",
            '{"type": "row", "boot": "b", "load": 1, "row": "a b;rm -rf x", '
            '"median": 1.5}': "row is not a row's name",
            '{"type": "row", "boot": "b", "load": 1, "row": "r", '
            '"median": 1.5, "sample_ns": {"a": 1}}': "sample_ns is not a list",
            '{"type": "row", "boot": "b", "load": 1, "row": "r", '
            '"median": 1.5, "sample_ns": [1, null]}': "sample_ns is not a list",
            '{"type": "row", "boot": "b", "load": 0, "row": "r", '
            '"median": 1.5}': "not a number from 1",
            '{"type": "run", "boot": "c", "schema": 2}': "reads schema 1",
            '{"type": "run", "boot": "c", "schema": "one"}': "reads schema 1",
            '{"type": "row", "boot": ["b"], "load": 1, "row": "r", '
            '"median": 1.5}': "boot is not a string",
            '{"type": "run", "boot": "c", "fingerprint": "x"}':
                "fingerprint or params is not an object",
            '{"type": "load", "boot": "b", "load": "3"}':
                "load is not a number",
            '{"type": "load", "boot": "b", "load": 3, "rows": -1}':
                "rows is not a count",
            '{"type": "run", "boot": "d", "loads": true}':
                "loads is not a count",
        }
        with tempfile.TemporaryDirectory() as tmp:
            p = Path(tmp) / "x.jsonl"
            p.write_text(f"{run}\n{row}\n")
            self.assertEqual(len(archive.Archive.read(p).rows), 1)
            for line, says in bad.items():
                p.write_text(f"{run}\n{line}\n")
                with self.assertRaisesRegex(ValueError, f"x.jsonl:2: .*"
                                            f"{says}"):
                    archive.Archive.read(p)


class Fleet(unittest.TestCase):
    def arch(self):
        recs = archive.records(GUEST, {"accel": "tcg"}, {})
        return archive.Archive([recs[0]],
                               [r for r in recs if r["type"] == "row"], [])

    def test_lava_names_and_results(self):
        text = fleet.lava(self.arch())
        self.assertIn("lava-test-case mmbench.kmalloc_64 --result pass\n",
                      text)
        self.assertIn("lava-test-case mmbench.kmalloc_64.ns_per_op --result "
                      "pass --measurement 210.582 --units ns\n", text)
        self.assertIn("lava-test-case mmbench.alloc_pages_order9 --result "
                      "skip\n", text)
        self.assertIn("mmbench.count_vm_event.ndelay_50.ns_per_op", text)
        self.assertNotIn("+", text)
        for line in text.splitlines():
            name = line.split()[1]
            self.assertRegex(name, r"^[-_.a-zA-Z0-9]+$")

    def test_p99_net_of_the_clock(self):
        arch = self.arch()
        for rec in arch.rows:
            if rec["row"] in ("baseline", "kmalloc_64"):
                rec["op_ns"] = {"alone": 4096, "p50": 30.0, "p99": (
                    40.0 if rec["row"] == "baseline" else 530.5)}
        text = fleet.lava(arch)
        self.assertIn("lava-test-case mmbench.kmalloc_64.op_ns_p99 --result "
                      "pass --measurement 500.5 --units ns\n", text)
        self.assertIn("mmbench.baseline.op_ns_p99 --result pass "
                      "--measurement 40.0 --units ns\n", text)
        self.assertNotIn("p99 --result", text.replace(".op_ns_p99 --", ""))
        self.assertEqual(text.count("op_ns_p99"), 2)

    def test_names_are_the_lava_jobs(self):
        from mmbench_tool import lava
        # A row name with a '+', as archives from before 078583c hold.
        for row in ("kmalloc_64", "count_vm_event+ndelay_50"):
            self.assertEqual(f"mmbench.{fleet.metric_row(row)}",
                             lava.row_case(row))
            self.assertEqual(f"mmbench.{fleet.metric_row(row)}.ns_per_op",
                             lava.measurement_case(row))

    def test_no_instructions_as_ns(self):
        # An archive of --accel icount holds instructions an op.
        from mmbench_tool import fleetcmd
        from mmbench_tool.common import Failure
        with tempfile.TemporaryDirectory() as tmp:
            p = Path(tmp) / "a.jsonl"
            for accel, ok in (("tcg", True), (archive.ICOUNT_ACCEL, False)):
                archive.write(p, archive.records(GUEST, {"accel": accel}, {}))
                args = unittest.mock.Mock(archive=p, format="lkp")
                with contextlib.redirect_stdout(io.StringIO()):
                    if ok:
                        self.assertEqual(fleetcmd.cmd_fleet(args), 0)
                        continue
                    with self.assertRaisesRegex(Failure, "instructions"):
                        fleetcmd.cmd_fleet(args)

    def test_kcidb_and_lkp(self):
        data = json.loads(fleet.kcidb(self.arch()))
        paths = {t["path"]: t for t in data["tests"]}
        self.assertEqual(paths["mmbench.kmalloc_64"]["status"], "PASS")
        # Valid KCIDB v4.3: no "number" (a later version's), the figure
        # in misc; the environment only "comment" and "misc".
        fig = paths["mmbench.kmalloc_64.ns_per_op"]
        self.assertEqual(data["version"], {"major": 4, "minor": 3})
        self.assertEqual((fig["misc"]["measurement"], fig["misc"]["units"]),
                         (210.582, "ns"))
        self.assertEqual(paths["mmbench.kmalloc_64.noise_pct"]["misc"]
                         ["units"], "%")
        for t in data["tests"]:
            self.assertNotIn("number", t)
            self.assertLessEqual(set(t["environment"]), {"comment", "misc"})
            self.assertEqual(t["environment"]["comment"],
                             "QEMU Virtual CPU version 2.5+")
            self.assertEqual(t["environment"]["misc"]["release"],
                             "6.12.117+deb12-cloud-amd64")
            self.assertLessEqual(set(t), {"id", "origin", "build_id", "path",
                                          "status", "environment", "misc"})
        self.assertEqual(paths["mmbench.alloc_pages_order9"]["status"],
                         "SKIP")
        # What a figure rests on, and a known regression said as such.
        self.assertEqual({k: v for k, v in paths[
            "mmbench.kmalloc_64.ns_per_op"]["misc"].items()
            if k in ("loads", "samples")}, {"loads": 1, "samples": 3})
        self.assertNotIn("slow_ops",
                         paths["mmbench.kmalloc_64.ns_per_op"]["misc"])
        arch = self.arch()
        arch.runs[0]["params"] = {"module": ["slow_into=kmalloc_64:40"]}
        for rec in arch.rows:
            if rec["row"] == "kmalloc_64":
                rec["slow_ops"] = 40
        data = json.loads(fleet.kcidb(arch))
        fig = {t["path"]: t for t in data["tests"]}[
            "mmbench.kmalloc_64.ns_per_op"]
        self.assertEqual(fig["misc"]["slow_ops"], 40)
        self.assertEqual(fig["environment"]["misc"]["module_params"],
                         "slow_into=kmalloc_64:40")
        lkp = fleet.lkp(self.arch())
        self.assertIn("mmbench.kmalloc_64.ns_per_op: 210.582\n", lkp)
        for line in lkp.splitlines():
            self.assertRegex(line, r"^[-_.a-zA-Z0-9]+: [0-9.]+$")


class Plots(unittest.TestCase):
    def test_forest_and_samples(self):
        try:
            from mmbench_tool import plots
            plots._pyplot()
        except ImportError:
            self.skipTest("python3-matplotlib not installed")
        rng = random.Random(14)
        icount = Icount().archives(15, add={"row02": 1.0})
        for a, b in ((synthetic(rng, boots=3, loads=4),
                      synthetic(rng, boots=3, loads=4)),
                     (synthetic(rng, boots=1, loads=4),
                      synthetic(rng, boots=1, loads=4)), icount):
            c = compare.Comparison(a, b)
            with tempfile.TemporaryDirectory() as tmp:
                made = plots.forest(c, Path(tmp) / "forest.png", [])
                plots.samples(c, a, b, Path(tmp) / "samples", made)
                self.assertEqual(len(made), 1 + len(c.rows))
                for p in made:
                    self.assertEqual(p.read_bytes()[:4], b"\x89PNG")
        # Under icount the forest's axis is in instructions.
        c = compare.Comparison(*icount)
        self.assertTrue(c.icount)
        with tempfile.TemporaryDirectory() as tmp, \
                unittest.mock.patch.object(plots, "_figures",
                                           wraps=plots._figures) as figs:
            plots.forest(c, Path(tmp) / "forest.png", [])
        self.assertEqual({call.args[1] for call in figs.call_args_list},
                         {True})
        self.assertEqual(plots._figures(c.rows[2], True)[3], 0.5)
        self.assertAlmostEqual(plots._figures(c.rows[2], True)[0], 1.0,
                               delta=0.1)

    def test_scaling_curves_of_both_kernels(self):
        try:
            from mmbench_tool import plots
            plt = plots._pyplot()
        except ImportError:
            self.skipTest("python3-matplotlib not installed")
        rng = random.Random(3)
        rows = {"kmalloc_64": (200.0, 0.02),
                "kmalloc_concurrent_cpus4": (900.0, 0.02),
                "kmalloc_concurrent_cpus1": (300.0, 0.02),
                "kmalloc_concurrent_cpus2": (500.0, 0.02),
                "page_frag_concurrent_cpus1": (80.0, 0.02)}
        kw = {"boots": 3, "loads": 3, "outliers": 0.0, "busy": 0.0,
              "rows": rows}
        c = compare.Comparison(
            synthetic(rng, **kw),
            synthetic(rng, shift={"kmalloc_concurrent_cpus4": 60}, **kw))
        with tempfile.TemporaryDirectory() as tmp, \
                unittest.mock.patch.object(plt, "close") as close:
            path = Path(tmp) / "scaling.png"
            made = plots.scaling(c, path, [])
            self.assertEqual(made, [path])
            self.assertEqual(path.read_bytes()[:4], b"\x89PNG")
        # One panel: page_frag_concurrent has one point, no curve.
        axes = close.call_args.args[0].axes
        self.assertEqual([ax.get_title() for ax in axes],
                         ["kmalloc_concurrent"])
        lines = axes[0].get_lines()
        self.assertEqual([list(ln.get_xdata()) for ln in lines],
                         [[1, 2, 4], [1, 2, 4]])
        by_row = {r.row: r for r in c.rows}
        self.assertEqual(list(lines[1].get_ydata()), [
            by_row[f"kmalloc_concurrent_cpus{n}"].b_median
            for n in (1, 2, 4)])
        self.assertEqual(by_row["kmalloc_concurrent_cpus4"].verdict,
                         compare.REGRESSION)
        self.assertIn("REGRESSION", [t.get_text() for t in axes[0].texts])
        # No benchmark with two points: no plot.
        one = {"kmalloc_64": (200.0, 0.02)}
        c = compare.Comparison(synthetic(rng, boots=2, loads=2, rows=one),
                               synthetic(rng, boots=2, loads=2, rows=one))
        with tempfile.TemporaryDirectory() as tmp:
            self.assertEqual(plots.scaling(c, Path(tmp) / "s.png", []), [])
            self.assertFalse((Path(tmp) / "s.png").exists())

    def test_forest_names_the_kernels_and_clips_nothing(self):
        try:
            from mmbench_tool import plots
            plt = plots._pyplot()
        except ImportError:
            self.skipTest("python3-matplotlib not installed")
        # A row 150 % slower, and a noisy one: each interval whole.
        rng = random.Random(10)
        kw = {"boots": 3, "loads": 3, "outliers": 0.0}
        c = compare.Comparison(
            synthetic(rng, **kw),
            synthetic(rng, fp=dict(FP, release="6.13.0-rc1-cloud-amd64"),
                      shift={"row30": 150, "row31": -70}, **kw),
            labels=("base", None))
        with tempfile.TemporaryDirectory() as tmp, \
                unittest.mock.patch.object(plt, "close") as close:
            plots.forest(c, Path(tmp) / "forest.png", [])
        fig = close.call_args.args[0]
        ax = fig.axes[0]
        self.assertIn("B 6.13.0-rc1-cloud-amd64 against A base "
                      "(6.12.117+deb12-cloud-amd64)", ax.get_title())
        self.assertIn("right: B slower", ax.get_xlabel())
        lo, hi = ax.get_xlim()
        shown = [r for r in c.judged() if r.change is not None]
        self.assertLess(lo, min(r.lo for r in shown))
        self.assertGreater(hi, max(r.hi for r in shown))
        self.assertGreater(max(r.hi for r in shown), 100)
        # The table's order, top down.
        self.assertEqual([t.get_text() for t in ax.get_yticklabels()],
                         [r.row for r in reversed(c.ordered())
                          if r.change is not None])
        plt.close(fig)


class KnownRegression(unittest.TestCase):
    def test_calibrate_and_slow_into(self):
        from mmbench_tool import comparecheck
        recs = []
        for load, (chain, row) in enumerate(((1200.0, 60.0), (1210.0, 62.0),
                                             (1190.0, 61.0)), 1):
            for name, med in (("alu_chain", chain),
                              ("inc_dec_zone_page_state", row),
                              ("kmalloc_64", 220.0),
                              ("alloc_pages_order0", 2100.0)):
                recs.append({"type": "row", "boot": "b", "load": load,
                             "row": name, "status": "pass", "median": med,
                             "net": med - 1})
        arch = archive.Archive([{"type": "run", "boot": "b"}], recs, [])
        step, rows = comparecheck.calibrate(arch)
        self.assertAlmostEqual(step, 1.199)
        # 51.28 steps (the median over the loads of 50.04, 51.28, 51.30)
        self.assertAlmostEqual(rows["inc_dec_zone_page_state"] / step,
                               62 / 1.209)
        self.assertEqual(
            comparecheck.slow_into(step, rows, 10),
            "inc_dec_zone_page_state:5,kmalloc_64:18,alloc_pages_order0:175")
        # Never 0 steps: the module refuses it.
        self.assertTrue(comparecheck.slow_into(step, rows, 0.1)
                        .startswith("inc_dec_zone_page_state:1,"))

    def test_rivals_are_medians(self):
        # CI of e2d829d: count_vm_event+p99 +75.2 % "beat" the slowed
        # row's median +31.9 %; a p99 is no rival to a median.
        from types import SimpleNamespace as NS
        from mmbench_tool import comparecheck
        row = comparecheck.CI_ROW
        c = NS(judged=lambda: [NS(row=r) for r in (
            row, row + "+p99", comparecheck.CALIBRATION, "kmalloc_64",
            "count_vm_event+p99")])
        self.assertEqual([x.row for x in comparecheck.rivals(c, row)],
                         ["kmalloc_64"])


def write_aa(d, pairs):
    """Folders aa01, aa02, ... in @d, as compare-check aa leaves them:
    one for each (A, B) of Archives in @pairs.  Returns the first."""
    for n, pair in enumerate(pairs, 1):
        c = Path(d) / f"aa{n:02d}"
        c.mkdir()
        for name, arch in zip("AB", pair):
            archive.write(c / f"{name}.jsonl", arch.runs + arch.rows)
    return Path(d) / "aa01"


class CheckReuse(unittest.TestCase):
    """compare-check aa and known with --reuse recompute from archives
    already measured, booting nothing."""

    def test_aa_recomputes_from_the_archives(self):
        import argparse

        from mmbench_tool import comparecheck
        rng = random.Random(7)
        with tempfile.TemporaryDirectory() as d:
            # The rows slowed are the known ones: the first three here.
            rows = dict(zip(list(comparecheck.KNOWN_ROWS) + list(ROWS)[3:],
                            ROWS.values()))
            write_aa(d, [(synthetic(rng, rows=rows),
                          synthetic(rng, rows=rows)) for _ in range(2)])
            args = argparse.Namespace(reuse=d, comparisons=2, boots=3,
                                      loads=8, norm=compare.DEFAULT_NORM)
            with unittest.mock.patch.object(comparecheck, "Side") as side:
                rc = comparecheck.check_aa(args, Path(d))
            side.assert_not_called()
            self.assertIn(rc, (0, 1))
            text = (Path(d) / "check.txt").read_text()
            self.assertIn("A/A  2: ", text)
            self.assertIn("A/A: 2 comparisons", text)
            self.assertRegex(text, r"made slower .*: \+5 % found \d+ of "
                             r"6, \+10 % found \d+ of 6")
            self.assertIn("(3 boots x 8 loads a kernel", text)
            self.assertRegex(text, r"\+2 % added to each row of B in turn: "
                             r"found \d+ times in 80 ")
            # Fewer loads than measured: each boot's first ones.
            args.loads = 5
            with unittest.mock.patch.object(comparecheck, "Side"):
                comparecheck.check_aa(args, Path(d))
            text = (Path(d) / "check.txt").read_text()
            self.assertIn("(3 boots x 5 loads of the 8 measured a kernel",
                          text)

    def test_aa_counts_the_known_rows_measured(self):
        # benchmarks= that leaves known rows out: they are not misses.
        import argparse

        from mmbench_tool import comparecheck
        rng = random.Random(8)

        # And a row that kept no sample in any load (noisy: a debug
        # kernel's) was not measured: not a miss either.
        def kmalloc_only(arch):
            return archive.Archive(arch.runs, [
                dict(r, median=None, net=None, mad=None, noise=None,
                     status="noisy", samples=0, sample_ns=[])
                if r["row"] == "alloc_pages_order0"
                else r for r in arch.rows
                if r["row"] != "inc_dec_zone_page_state"], arch.loads)
        rows = dict(zip(list(comparecheck.KNOWN_ROWS) + list(ROWS)[3:],
                        ROWS.values()))
        with tempfile.TemporaryDirectory() as d:
            write_aa(d, [(kmalloc_only(synthetic(rng, rows=rows)),
                          kmalloc_only(synthetic(rng, rows=rows)))
                         for _ in range(2)])
            args = argparse.Namespace(reuse=d, comparisons=2, boots=3,
                                      loads=8, norm=compare.DEFAULT_NORM)
            with unittest.mock.patch.object(comparecheck, "Side"):
                comparecheck.check_aa(args, Path(d))
            text = (Path(d) / "check.txt").read_text()
        self.assertRegex(text, r"\+5 % found \d of 2, \+10 % found \d of 2 "
                               r"\(of the rows measured in both kernels: "
                               r"benchmarks= leaves some out, or a row "
                               r"kept no sample\)")


class CheckOptions(unittest.TestCase):
    """compare-check boots what it is told, and refuses what it would
    ignore."""

    def test_aa_and_known_boot_the_kernel_given(self):
        import argparse

        from mmbench_tool import comparecheck
        args = argparse.Namespace(reuse=None, kernel=Path("K"),
                                  headers=Path("H"), release="R",
                                  comparisons=1, boots=1, loads=2)
        rows = {r: 100.0 for r in comparecheck.KNOWN_ROWS}
        with tempfile.TemporaryDirectory() as d:
            for check in (comparecheck.check_aa, comparecheck.check_known):
                # known: past its calibration boot, to the boots of A and
                # of each slowed B.
                with unittest.mock.patch.object(
                        comparecheck, "Side") as side, \
                        unittest.mock.patch.object(
                            comparecheck, "alternate",
                            side_effect=[{"A": Path(d) / "cal.jsonl"},
                                         support.Reached]
                            if check is comparecheck.check_known else
                            support.Reached), \
                        unittest.mock.patch.object(
                            comparecheck, "calibrate",
                            return_value=(1.2, rows)), \
                        unittest.mock.patch.object(
                            comparecheck.archive.Archive, "read"):
                    with self.assertRaises(support.Reached):
                        check(args, Path(d))
                self.assertEqual(len(side.call_args_list),
                                 2 if check is comparecheck.check_aa else
                                 2 + len(comparecheck.KNOWN_PCTS))
                for call in side.call_args_list:
                    self.assertEqual((call.kwargs["kernel"],
                                      call.kwargs["headers"],
                                      call.kwargs["release"]),
                                     (Path("K"), Path("H"), "R"), check)

    def test_what_booting_nothing_ignores_is_refused(self):
        with tempfile.TemporaryDirectory() as d:
            for what, opts in (
                    (["split"], [["--accel", "icount"], ["--kaslr"],
                                 ["--kernel-arg", "mitigations=off"],
                                 ["--param", "samples=9"], ["--cpus", "1"],
                                 ["--loads", "4"], ["--norm", "none"],
                                 ["--arch", "arm64"], ["--debug-kernel"]]),
                    (["aa"], [["--accel", "tcg"], ["--boots", "3"],
                              ["--env", "MMBENCH_REPEAT=2"]]),
                    (["known"], [["--loads", "4"], ["--timeout", "60"]])):
                for opt in opts:
                    rc, out = support.options_only(
                        "compare-check", *what, "--reuse", d, *opt)
                    self.assertEqual(rc, 2, (what, opt, out))
                    self.assertIn(f"{opt[0]}: this boots no guest", out)
            for what, opt in ((["split"], ["--boots", "3"]),
                              (["aa"], ["--loads", "4"]),
                              (["aa"], ["--norm", "none"]),
                              (["aa"], ["--boots", "8"])):
                rc, out = support.options_only(
                    "compare-check", *what, "--reuse", d, *opt)
                self.assertIsNone(rc, (what, opt, out))


class NotAnAA(unittest.TestCase):
    """What a new user's trial found compare-check and fleet took: bad
    archives (a traceback, exit 1), and folders that are no A/A."""

    def write(self, d, name, arch):
        archive.write(Path(d) / name, arch.runs + arch.rows)

    def test_split_refuses_bad_or_mixed_archives(self):
        from mmbench_tool import comparecheck
        from mmbench_tool.common import Failure
        rng = random.Random(71)
        args = unittest.mock.Mock(reuse=None, boots=2, comparisons=2)
        for bad in ("[]\n", "garbage\n", b"\xff\xfe\n"):
            with tempfile.TemporaryDirectory() as d:
                args.reuse = d
                p = Path(d) / "x.jsonl"
                if isinstance(bad, bytes):
                    p.write_bytes(bad)
                else:
                    p.write_text(bad)
                with self.assertRaisesRegex(Failure, "compare-check split"):
                    comparecheck.check_split(args)
        slowed = synthetic(rng)
        for r in slowed.runs:
            r["params"] = {"module": ["slow_into=kmalloc_64:30"]}
        icount = synthetic(rng, fp=dict(FP, accel=archive.ICOUNT_ACCEL))
        lost = synthetic(rng)
        lost = archive.Archive(lost.runs[1:], lost.rows, [])
        for other, says in ((slowed, "other module parameters"),
                            (icount, "more than one accel"),
                            (lost, "without its run record")):
            with tempfile.TemporaryDirectory() as d:
                args.reuse = d
                self.write(d, "A.jsonl", synthetic(rng))
                self.write(d, "B.jsonl", other)
                with self.assertRaisesRegex(Failure, says):
                    comparecheck.check_split(args)

    def test_sampling_numbers_as_the_module_reads_them(self):
        # kstrtouint(, 0): 011 is octal, 0x9 hex, +9 decimal.
        nine = archive.sampling(["samples=9"])
        for value in ("011", "0x9", "+9", "9"):
            self.assertEqual(archive.sampling([f"samples={value}"]), nine)
        self.assertEqual(archive.sampling(["samples=09"]),
                         archive.sampling(["samples=09"]))
        self.assertNotEqual(archive.sampling(["samples=09"]), nine)

    def test_split_pools_the_default_sampling_given_or_not(self):
        from mmbench_tool import measure
        rng = random.Random(73)
        a, b = synthetic(rng), synthetic(rng)
        for r in b.runs:
            r["params"] = {"module": ["samples=9"]}
        for r in a.runs:
            r["params"] = {"module": []}
        measure.one_setup(archive.Archive(a.runs + b.runs, a.rows + b.rows,
                                          []), "x")

    def test_aa_reuse_refuses_a_slowed_side(self):
        from mmbench_tool import comparecheck
        from mmbench_tool.common import Failure
        rng = random.Random(72)
        with tempfile.TemporaryDirectory() as d:
            b = synthetic(rng)
            for r in b.runs:
                r["params"] = {"module": ["samples=3",
                                          "slow_into=kmalloc_64:30"]}
            # A without params (an archive from before they were said):
            # the defaults, which B's slow_into is not.
            write_aa(d, [(synthetic(rng), b)])
            args = ReuseRefusals().args(d, "aa", 1)
            with unittest.mock.patch.object(comparecheck.deps, "ensure"), \
                    self.assertRaisesRegex(Failure, "slow_into=kmalloc_64"):
                comparecheck.cmd_compare_check(args)

    def test_aa_reuse_checks_every_folder_first(self):
        from mmbench_tool import comparecheck
        from mmbench_tool.common import Failure
        rng = random.Random(74)
        with tempfile.TemporaryDirectory() as d:
            slowed = synthetic(rng)
            for r in slowed.runs:
                r["params"] = {"module": ["slow_into=kmalloc_64:3"]}
            write_aa(d, [(synthetic(rng), synthetic(rng)),
                         (synthetic(rng), slowed)])
            args = ReuseRefusals().args(d, "aa", 2)
            with unittest.mock.patch.object(comparecheck.deps, "ensure"), \
                    self.assertRaisesRegex(Failure, "aa02: boots loaded"):
                comparecheck.cmd_compare_check(args)
            self.assertFalse((Path(d) / "aa01" / "compare.json").exists())

    def test_known_reuse_with_a_bad_calibration(self):
        from mmbench_tool import comparecheck
        from mmbench_tool.common import Failure
        with tempfile.TemporaryDirectory() as d:
            args = ReuseRefusals().args(d, "known", 1)
            for text, says in (
                    ('{"step_ns": 0, "rows": {"kmalloc_64": 180}}',
                     "calibration.json: its rows are kmalloc_64, not "
                     "inc_dec_zone_page_state, kmalloc_64, "
                     "alloc_pages_order0"),
                    ('{"step_ns": true, "rows": {"inc_dec_zone_page_state":'
                     ' 60, "kmalloc_64": 180, "alloc_pages_order0": 1400}}',
                     "calibration.json: step_ns and the ns/op of "
                     "inc_dec_zone_page_state, kmalloc_64, "
                     "alloc_pages_order0 are not positive numbers"),
                    ('{"rows": {}}', "calibration.json: not compare-check "
                     "known's calibration \\('step_ns'\\)"),
                    ("", "calibration.json: not compare-check known's"),
                    ('{"step_ns": -1, "rows": {"inc_dec_zone_page_state": '
                     '60, "kmalloc_64": 180, "alloc_pages_order0": 1400}}',
                     "are not positive numbers")):
                (Path(d) / "calibration.json").write_text(text + "\n")
                with unittest.mock.patch.object(
                        comparecheck, "_check_reuse"), \
                        unittest.mock.patch.object(
                            comparecheck.deps, "ensure"), \
                        self.assertRaisesRegex(Failure, says):
                    comparecheck.cmd_compare_check(args)

    def test_fleet_refuses_an_archive_of_mixed_setups(self):
        # One median a row over every load: loads of two kernels, or
        # of other parameters, would give a figure of neither.
        rng = random.Random(75)
        slowed = synthetic(rng, boots=1)
        for r in slowed.runs:
            r["params"] = {"module": ["slow_into=kmalloc_64:30"]}
        lost = synthetic(rng, boots=1)
        lost.runs.clear()
        # As save_archive() writes them: the default sampling given in
        # one boot, not in the other, is the same setup.
        said = synthetic(rng, boots=2)
        for r, module in zip(said.runs, (["samples=9"], [])):
            r["params"] = {"module": module, "mode": "loads",
                           "loads_asked": 8}
        for other, says in ((synthetic(rng, boots=1, fp=dict(
                FP, release="6.1.0-28-cloud-amd64")),
                             "more than one release"),
                            (synthetic(rng, boots=1, fp=dict(
                                FP, accel=archive.ICOUNT_ACCEL)),
                             "instructions an op"),
                            (synthetic(rng, boots=1, fp=dict(
                                FP, accel="kvm")),
                             "more than one accel"),
                            (slowed, "other module parameters"),
                            (lost, "without its run record"),
                            (synthetic(rng, boots=2), None),
                            (said, None)):
            with tempfile.TemporaryDirectory() as d:
                p = Path(d) / "a.jsonl"
                mixed = synthetic(rng, boots=2)
                if other is said:
                    for r in mixed.runs:
                        r["params"] = {"module": [], "mode": "loads",
                                       "loads_asked": 8}
                archive.write(p, mixed.runs + other.runs + mixed.rows
                              + other.rows)
                rc, out = support.options_only("fleet", str(p))
                self.assertEqual(rc, 2 if says else 0, out)
                if says:
                    self.assertIn(says, out)
                if says and ("more than one" in says or "other" in says):
                    self.assertIn("one kernel and setup", out)

    def test_fleet_refuses_what_a_new_user_fed_it(self):
        # Exit 2 and one line on stderr, never a traceback, nor figures
        # counted twice or of a boot that does not say its kernel.
        import contextlib
        import io
        from mmbench_tool import cli, common
        rng = random.Random(76)
        one = synthetic(rng, boots=2)
        recs = one.runs + one.rows
        nofp = synthetic(rng, boots=1)
        for r in nofp.runs:
            del r["fingerprint"]["release"]
        # A boot none of whose loads worked says less, and is taken.
        empty = synthetic(rng, boots=1)
        del empty.runs[0]["fingerprint"]["debug"]
        rc, out = self.fleet(one.runs + empty.runs + one.rows)
        self.assertEqual(rc, 0, out)

        def row(**kw):
            return dict(one.rows[0], **kw)
        cases = (
            (recs + recs, "'s run record again", "the same boot twice"),
            (recs + one.rows[:1], " of load 1 again", "the same boot twice"),
            (recs + nofp.runs + nofp.rows, "do not say their release",
             "one kernel and setup"),
            (recs + [row(status=["pass"], load=99)], "status is not",
             ""),
            (recs + [row(samples="3", load=99)], "samples is not a count",
             ""),
            (recs + [row(samples=float("nan"), load=99)],
             "samples is not a count", ""),
            ([dict(one.runs[0], params={"module": "slow_into=x:4"})],
             "params.module is not a list", ""),
            # What a new user fed it next: a number no float holds, a
            # median under the module's least (compare's logarithms
            # overflowed), boots that are not strings, records of no
            # archive, parameters that are not NAME=VALUE.
            (recs + [row(median=10 ** 400, load=99)],
             "median is not a number under 1e18", ""),
            (recs + [row(sample_ns=[10 ** 400], load=99)],
             "sample_ns is not a list of finite numbers", ""),
            (recs + [row(median=2e-310, load=99)],
             "not a positive number of ns (0.001 at least)", ""),
            ([dict(r, boot=7) for r in recs], "boot is not a string", ""),
            ([dict(r, boot="") for r in recs], "boot is not a string", ""),
            (recs + [{}], "a record of type None", "not an mmbench"),
            (recs + [{"type": "bogus", "boot": "x"}], "type 'bogus'", ""),
            ([dict(one.runs[0], params={"module": ["samples"]})],
             "params.module is not a list of NAME=VALUE", ""),
            ([dict(one.runs[0], params={"module": ["x y=z\n"]})],
             "params.module is not a list of NAME=VALUE", ""),
            # A name no module gives, too long for a plot's file name.
            (recs + [row(row="k" * 300, load=99)], "not a row's name", ""),
            (recs + [row(row="k" * 64, load=99)], "not a row's name", ""),
        )
        for recs_, says, also in cases:
            with tempfile.TemporaryDirectory() as d:
                p = Path(d) / "a.jsonl"
                archive.write(p, recs_)
                out, err = io.StringIO(), io.StringIO()
                with contextlib.redirect_stdout(out), \
                        contextlib.redirect_stderr(err), \
                        unittest.mock.patch.object(common.Phase, "timings",
                                                   []):
                    rc = cli.main(["fleet", str(p), "--format", "kcidb"])
                self.assertEqual((rc, out.getvalue()), (2, ""), says)
                self.assertEqual(len(err.getvalue().splitlines()), 1)
                self.assertIn(says, err.getvalue())
                self.assertIn(also, err.getvalue())
        for raw, says in ((b"[" * 100000 + b"]" * 100000, "a.jsonl:2: not JSON"),
                          (b'{"type": "run", "boot": "\xff"}', "a.jsonl:2: not JSON")):
            fleet_refuses(self, b"\n" + raw + b"\n", says)

    def test_a_json_document_is_said_to_be_no_archive(self):
        """compare.json given for an archive was "not JSON"."""
        doc = b'{\n  "rows": []\n}\n'
        fleet_refuses(self, doc, "a JSON document, not an archive",
                      "compare.json")
        with tempfile.TemporaryDirectory() as d:
            p = Path(d) / "compare.json"
            p.write_bytes(doc)
            o = Path(d) / "out"
            rc, out = support.options_only("compare", str(p), str(p),
                                           "-o", str(o))
            self.assertEqual(rc, 2, out)
            self.assertFalse(o.exists())

    def test_a_file_without_line_ends_is_not_read_whole(self):
        # /dev/zero once grew compare to 23 GB until the OOM killer came;
        # a tarball given by mistake was read whole before it was refused.
        with tempfile.TemporaryDirectory() as d:
            big = Path(d) / "b.jsonl"
            big.write_bytes(b"\n" + b"x" * (archive.LINE_MAX + 1))
            for path, says in (("/dev/zero", "/dev/zero:1: a line longer "
                                "than 1048576 bytes: not an archive's"),
                               (str(big), "b.jsonl:2: a line longer than "
                                "1048576 bytes")):
                with self.subTest(path=path):
                    out = io.StringIO()
                    with unittest.mock.patch.object(
                            archive.Path, "read_bytes",
                            side_effect=AssertionError("read whole")), \
                            contextlib.redirect_stdout(out), \
                            self.assertRaises(ValueError) as e:
                        archive.Archive.read(path)
                    self.assertIn(says, str(e.exception))

    def test_an_out_folder_that_cannot_be_made(self):
        import subprocess
        for out, says in (("/etc/passwd", "File exists"),
                          ("/proc/nope/x", "No such file or directory")):
            p = subprocess.run(
                [str(support.REPO / "mmbench"), "fleet", "/dev/null"],
                capture_output=True, text=True,
                env=dict(os.environ, MMBENCH_OUT=out))
            self.assertEqual((p.returncode, p.stdout), (2, ""), p.stderr)
            self.assertEqual(p.stderr, f"mmbench: error: MMBENCH_OUT={out}: "
                             f"cannot make that folder: {says}\n")
        # Empty, it once meant the current folder.
        p = subprocess.run(
            [str(support.REPO / "mmbench"), "fleet", "/dev/null"],
            capture_output=True, text=True, cwd=tempfile.gettempdir(),
            env=dict(os.environ, MMBENCH_OUT=""))
        self.assertEqual((p.returncode, p.stdout), (2, ""), p.stderr)
        self.assertEqual(p.stderr, "mmbench: error: MMBENCH_OUT is empty: "
                         "name a folder, or unset it for "
                         f"{support.REPO / 'out'}\n")

    def test_a_refused_compare_leaves_no_results_folder(self):
        # The same archive on both sides: refused, and the new results
        # folder made for it goes again (a new user found three empty).
        with tempfile.TemporaryDirectory() as d:
            a = Path(d) / "a.jsonl"
            archive.write(a, archive.records(GUEST, {"accel": "tcg"}, {}))
            p = subprocess.run(
                [str(support.REPO / "mmbench"), "compare", str(a), str(a)],
                capture_output=True, text=True,
                env=dict(os.environ, MMBENCH_OUT=str(Path(d) / "out")))
            self.assertEqual(p.returncode, 2, p.stderr)
            self.assertIn("compared with itself", p.stderr)
            self.assertEqual(list((Path(d) / "out/results").iterdir()), [])

    def test_a_measure_folder_compared_again_keeps_its_labels(self):
        # measure --tree named the kernels by their revisions; compare of
        # its folder again named them by release (a new user's).
        rng = random.Random(45)
        with tempfile.TemporaryDirectory() as d:
            for side in "AB":
                arch = synthetic(rng, boots=3, loads=3)
                archive.write(Path(d) / f"{side}.jsonl",
                              arch.runs + arch.rows)
            (Path(d) / "compare.json").write_text(json.dumps(
                {"labels": {"A": "base", "B": "my-patch"}}))
            p = subprocess.run(
                [str(support.REPO / "mmbench"), "compare", d, "--no-plots"],
                capture_output=True, text=True)
            self.assertIn("A: base (", p.stdout, p.stderr)
            self.assertIn(", B: my-patch (", p.stdout)
            p = subprocess.run(
                [str(support.REPO / "mmbench"), "compare", d, "--no-plots",
                 "--label-a", "x", "--label-b", "y"],
                capture_output=True, text=True)
            self.assertIn("A: x (", p.stdout, p.stderr)

    def test_a_results_folder_that_cannot_be_made(self):
        # out/results not writable (another user's out/): said, not a
        # traceback.
        from mmbench_tool import guest
        with tempfile.TemporaryDirectory() as d, \
                unittest.mock.patch.object(guest, "OUT", Path(d)):
            (Path(d) / "results").write_text("")
            with self.assertRaises(Failure) as e:
                guest.results_dir("-compare")
        self.assertIn(f"MMBENCH_OUT={d}: cannot make the results folder",
                      str(e.exception))

    def fleet(self, recs):
        with tempfile.TemporaryDirectory() as d:
            p = Path(d) / "a.jsonl"
            archive.write(p, recs)
            return support.options_only("fleet", str(p))

    def test_fleet_refuses_an_archive_without_rows(self):
        fleet_refuses(self, b'{"type": "run", "boot": "b"}\n',
                      "no row record")


def measure_exit(c):
    from mmbench_tool import measure
    return measure.exit_status(c)


class OneBoot(unittest.TestCase):
    """A comparison's unit is the boot: with one boot a kernel the spread
    between boots is unknown, and the loads of a boot count as one (a
    new user's measure --boots 1 counted them as independent)."""

    def test_one_boot_a_kernel(self):
        # One boot a kernel, little noise within it and a boot offset a
        # row of its own (quiet guests: icount, KASLR on): the loads
        # agree, and only more boots would show the offset.
        rng = random.Random(81)
        for sides in ((1, 1), (1, 3), (3, 1)):
            a = synthetic(rng, boots=sides[0], loads=8, factor_sd=0.001,
                          boot_sd=0.03, outliers=0, busy=0)
            b = synthetic(rng, boots=sides[1], loads=8, factor_sd=0.001,
                          boot_sd=0.03, outliers=0, busy=0,
                          shift={"row03": 30})
            c = compare.Comparison(a, b)
            self.assertEqual({r.verdict for r in c.rows},
                             {compare.INCONCLUSIVE}, sides)
            text = "\n".join(c.report())
            self.assertIn("every load from one boot, so the spread "
                          "between boots is unknown", text)
            self.assertIn("(one boot a kernel: measure more boots)", text)
            self.assertNotIn("a kernel would decide", text)
            self.assertFalse([r for r in c.rows if r.more_boots])
            self.assertEqual(c.as_json()["one_boot"],
                             [n for n, k in zip("AB", sides) if k == 1])
            # No answer is not "no regression".
            self.assertEqual(measure_exit(c), 2)
        # Four boots a kernel: judged as before.
        c = compare.Comparison(synthetic(rng, boots=4), synthetic(
            rng, boots=4, shift={"row03": 30}))
        self.assertNotIn("spread between boots is unknown",
                         "\n".join(c.report()))
        self.assertIn(compare.REGRESSION, {r.verdict for r in c.rows})
        # Two boots, one of them with a single load: seen, judged.
        a = synthetic(rng, boots=2)
        first = a.runs[0]["boot"]
        a = archive.Archive(a.runs, [r for r in a.rows if r["boot"] !=
                                     first or r["load"] == 1], [])
        c = compare.Comparison(a, synthetic(rng, boots=2))
        self.assertFalse(c.one_boot)

    def test_measure_refuses_one_boot(self):
        for cmd in (["measure"], ["compare-check", "aa"]):
            rc, out = support.options_only(*cmd, "--boots", "1")
            self.assertEqual(rc, 2, out)
            self.assertIn("--boots must be from 2 to 50", out)


class SideOptions(unittest.TestCase):
    """measure's options of one side: named as given, never mixed with
    --kernel's, and refused before anything boots when the two sides
    would not compare (a new user's trial)."""

    def test_refused_naming_the_option(self):
        with tempfile.TemporaryDirectory() as d:
            k = Path(d) / "vmlinuz"
            k.write_text("")
            # A headers tree as far as the options look.
            hd = Path(d) / "headers"
            (hd / "include/config").mkdir(parents=True)
            (hd / "Makefile").write_text("")
            (hd / "include/config/kernel.release").write_text("6.12.1\n")
            (hd / "include/config/auto.conf").write_text("")
            hd = str(hd)
            for argv, says in (
                    (["--a-kernel", str(k)], "--a-kernel and --a-headers "
                                             "go together"),
                    (["--b-headers", d], "--b-kernel and --b-headers go "
                                         "together"),
                    (["--a-release", "6.1"], "--a-release goes with"),
                    (["--a-kernel", "/nonexistent/k", "--a-headers", d],
                     "--a-kernel /nonexistent/k: does not exist"),
                    (["--debug-kernel", "--a-kernel", str(k),
                      "--a-headers", d], "not with --a-kernel"),
                    (["--a-param", "benchmarks=kmalloc", "--b-param",
                      "benchmarks=kmalloc,inc_dec_zone_page_state"],
                     "would run other benchmarks"),
                    # A new user's trial: the option as given, and
                    # --kernel beside a side's own, refused.
                    (["--a-kernel", "/etc/passwd", "--a-headers", hd],
                     "--a-kernel /etc/passwd: not an x86 bzImage"),
                    (["--kernel", str(k), "--headers", d, "--b-kernel",
                      str(k), "--b-headers", d],
                     "--kernel (both sides') and --b-kernel: give each "
                     "side its own")):
                rc, out = support.options_only("measure", *argv)
                self.assertEqual(rc, 2, (argv, out))
                self.assertIn(says, out, argv)
        # The same benchmarks in another order are the same selection.
        rc, out = support.options_only(
            "measure", "--a-param", "benchmarks=kmalloc,alu_chain",
            "--b-param", "benchmarks=alu_chain,kmalloc")
        self.assertIsNone(rc, out)
        rc, out = support.options_only("compare-check", "known", "--param",
                                       "slow_into=kmalloc_64:5")
        self.assertEqual(rc, 2, out)
        self.assertIn("slows its rows itself", out)
        # Nor does it take benchmarks=: its calibration boot names them.
        for env in ((), ("--env", "MMBENCH_PARAMS=benchmarks=kmalloc")):
            rc, out = support.options_only(
                "compare-check", "known", *env,
                *(() if env else ("--param", "benchmarks=kmalloc")))
            self.assertEqual(rc, 2, out)
            self.assertIn(f"{'--env MMBENCH_PARAMS' if env else '--param'} "
                          "benchmarks=kmalloc: compare-check known chooses "
                          "the benchmarks itself", out)
        # Their guests only load the module: what only the kselftest
        # reads is refused, not ignored.
        for command in (("measure",), ("compare-check", "aa"),
                        ("compare-check", "known")):
            for argv, says in ((("--ceiling", "kmalloc_64=1"),
                                "--ceiling kmalloc_64=1: "),
                               (("--env", "MMBENCH_CEILINGS=/etc/hostname"),
                                "--env MMBENCH_CEILINGS: "),
                               (("--env", "MMBENCH_ENFORCE=0"),
                                "--env MMBENCH_ENFORCE: ")):
                rc, out = support.options_only(*command, *argv)
                self.assertEqual(rc, 2, out)
                self.assertIn(says + f"{' '.join(command)} only loads the "
                              "module", out)
        # Nor a list that leaves out a row it slows.
        for argv, says in ((("--param", "sizes=8,96"),
                            "--param sizes=8,96: compare-check known slows "
                            "kmalloc_64, which sizes= without 64 leaves out"),
                           (("--env", "MMBENCH_PARAMS=orders=1,2"),
                            "--env MMBENCH_PARAMS orders=1,2: compare-check "
                            "known slows alloc_pages_order0")):
            rc, out = support.options_only("compare-check", "known", *argv)
            self.assertEqual(rc, 2, out)
            self.assertIn(says, out)
        for argv in (("--param", "sizes=8,0x40"), ("--param", "orders=0,3")):
            rc, out = support.options_only("compare-check", "known", *argv)
            self.assertIsNone(rc, out)

    def test_a_side_kernel_not_mixed_with_kernel(self):
        import argparse

        from mmbench_tool import measure
        args = argparse.Namespace(kernel="K", headers="H", release="R",
                                  a_kernel="K2", a_headers="H2",
                                  a_release=None, a_param=[],
                                  b_kernel=None, b_headers=None,
                                  b_release=None, b_param=[])
        self.assertEqual(measure._side_args(args, "a"),
                         {"kernel": "K2", "headers": "H2", "release": None,
                          "params": []})
        self.assertEqual(measure._side_args(args, "b"),
                         {"kernel": "K", "headers": "H", "release": "R",
                          "params": []})


class StalePlots(unittest.TestCase):
    def compare(self, out, seed, plot=False):
        from mmbench_tool import measure
        rng = random.Random(seed)
        return measure.compare_archives(synthetic(rng), synthetic(rng),
                                        compare.DEFAULT_NORM, out,
                                        plot=plot, quiet=True)

    def earlier(self, out, plots):
        """An earlier compare's folder: its compare.json lists @plots
        (None: a compare's of before the list), which it made."""
        result = {"rows": []}
        if plots is not None:
            result["plots"] = plots
        (out / "compare.json").write_text(json.dumps(result))
        (out / "samples").mkdir()
        (out / "forest.png").write_text("old")
        (out / "samples" / "r.png").write_text("old")

    def test_no_plots_removes_an_earlier_compares(self):
        # A new user's --no-plots left the forest.png of an earlier
        # compare beside the new compare.txt.
        for listed in (["forest.png", "samples/r.png"], None):
            with tempfile.TemporaryDirectory() as d:
                out = Path(d)
                self.earlier(out, listed)
                (out / "samples" / "notes.txt").write_text("mine")
                self.compare(out, 91)
                self.assertTrue((out / "compare.txt").exists())
                self.assertFalse((out / "forest.png").exists(), listed)
                self.assertFalse(list((out / "samples").glob("*.png")))
                # Nothing else of the folder.
                self.assertTrue((out / "samples" / "notes.txt").exists())
                self.assertEqual(json.loads(
                    (out / "compare.json").read_text())["plots"], [])

    def test_a_users_own_pictures_stay(self):
        # compare -o ~/pictures deleted the user's forest.png and
        # samples/*.png: files no compare had made there.
        with tempfile.TemporaryDirectory() as d:
            out = Path(d)
            (out / "samples").mkdir()
            (out / "forest.png").write_text("mine")
            (out / "samples" / "cat.png").write_text("mine")
            self.compare(out, 92)
            self.compare(out, 93)
            self.assertEqual((out / "forest.png").read_text(), "mine")
            self.assertTrue((out / "samples" / "cat.png").exists())
            # An earlier compare's list removes what it names, and only
            # a plot's name in the folder.
            sub = out / "sub"
            sub.mkdir()
            (sub / "r.png").write_text("mine")
            (out / "abs.png").write_text("mine")
            self.earlier(sub, ["forest.png", "../forest.png",
                               str(out / "abs.png"), "samples/../r.png",
                               "samples/../../forest.png", 3])
            self.compare(sub, 94)
            self.assertEqual((out / "forest.png").read_text(), "mine")
            self.assertTrue((out / "abs.png").exists())
            self.assertTrue((sub / "r.png").exists())
            self.assertFalse((sub / "forest.png").exists())
            self.assertTrue((sub / "samples" / "r.png").exists())
            # Not read: one over EARLIER_MAX, or nested past recursion.
            for junk in (" " * (measure.EARLIER_MAX + 1) + "{}",
                         "[" * 200000):
                (sub / "compare.json").write_text(junk)
                (sub / "forest.png").write_text("mine")
                self.assertEqual(measure._earlier_plots(sub), [])

    def test_plots_that_fail_are_listed_and_a_users_stay(self):
        # A plot that failed listed every forest.png and samples/<row>.png
        # in the folder, a user's too, which the next compare deleted.
        with tempfile.TemporaryDirectory() as d, \
                contextlib.redirect_stdout(io.StringIO()), \
                unittest.mock.patch("mmbench_tool.plots._pyplot",
                                    side_effect=RuntimeError("no Agg")):
            out = Path(d)
            (out / "samples").mkdir()
            (out / "forest.png").write_text("mine")
            (out / "samples" / "row00.png").write_text("mine")
            self.compare(out, 96, plot=True)
            self.compare(out, 97, plot=True)
            self.assertEqual((out / "forest.png").read_text(), "mine")
            self.assertTrue((out / "samples" / "row00.png").exists())

    def test_a_compare_stopped_while_plotting_lists_its_plots(self):
        # Stopped while plotting (a full disk, ^C), compare left the
        # earlier compare.json beside its compare.txt, and its plots
        # listed nowhere: a later compare kept them as the user's.
        with tempfile.TemporaryDirectory() as d, \
                unittest.mock.patch("mmbench_tool.plots.samples",
                                    side_effect=OSError(28, "No space")):
            out = Path(d)
            self.earlier(out, [])
            with self.assertRaisesRegex(Failure, "No space"):
                self.compare(out, 98, plot=True)
            listed = json.loads((out / "compare.json").read_text())
            self.assertTrue(listed["rows"])
            self.assertIn("forest.png", listed["plots"])
            self.assertIn("samples/row00.png", listed["plots"])

    def plot_fails(self, seed, error, says):
        """A plot that raises @error leaves the table printed and whole,
        and says so (@says)."""
        from mmbench_tool import measure
        rng = random.Random(seed)
        with tempfile.TemporaryDirectory() as d, \
                contextlib.redirect_stdout(io.StringIO()) as text, \
                unittest.mock.patch("mmbench_tool.plots._pyplot",
                                    side_effect=error):
            out = Path(d)
            c = measure.compare_archives(synthetic(rng), synthetic(rng),
                                         compare.DEFAULT_NORM, out)
            self.assertIn(c.report()[0], text.getvalue())
            self.assertIn(f"plots: not all made ({says})", text.getvalue())
            self.assertNotIn("plots: " + str(out), text.getvalue())
            self.assertTrue((out / "compare.txt").exists())
            self.assertEqual(json.loads(
                (out / "compare.json").read_text())["plots"], [])

    def test_a_plot_that_fails_hides_no_table(self):
        # A matplotlib error (not an OSError) ended compare with a
        # traceback before it printed the table.
        self.plot_fails(95, ValueError("bad limits"),
                        "ValueError: bad limits")

    def test_no_matplotlib_hides_no_table(self):
        # An ImportError from matplotlib ended compare with a traceback.
        self.plot_fails(94, ModuleNotFoundError("No module named "
                                                "'matplotlib'"),
                        "ModuleNotFoundError: No module named "
                        "'matplotlib'")

class DiedGuest(unittest.TestCase):
    """compare-check boots a guest that died once more, saying why;
    measure (a developer's comparison) stops there."""

    def side(self, outs):
        side = unittest.mock.Mock()
        side.name = "A"
        side.args.param, side.args.accel = [], "tcg"
        side.setup.release = "6.12"
        side.setup.boot.side_effect = outs
        side.layouts = None         # one build, no layout variants
        return side

    def out(self, finished):
        return unittest.mock.Mock(timed_out=False, finished=finished)

    def boot(self, d, outs, retry, accel="tcg",
             oops="Oops: int3: 0000 [#1] PREEMPT SMP NOPTI", lived=(),
             boots=1):
        """@oops in the console of a guest that does not finish, the
        next of @lived (or nothing) in that of one that does."""
        from mmbench_tool import measure
        side = self.side(outs)
        side.args.accel = accel
        lived = list(lived)

        def console(what, folder, echo):
            out = outs.pop(0)
            said = lived.pop(0) if out.finished and lived else \
                "" if out.finished else oops
            (folder / "console.log").write_text(f"[   10.8] {said}\n")
            return out
        side.setup.boot.side_effect = console
        with unittest.mock.patch("mmbench_tool.setup.save_archive",
                                 return_value=[]):
            return side, measure.alternate([side], boots, 2, Path(d),
                                           retry=retry)

    def test_compare_check_replaces_a_boot_qemu_spoilt(self):
        # compare-check's hours of boots go on past a boot that QEMU's
        # fault spoilt at every try: left out, said, its deaths kept,
        # and replaced by one more boot, so that compare still has
        # --boots boots a kernel.
        from mmbench_tool import measure
        fault = "Oops: double fault\n[ 10.8] RSP: 0018:ff EFLAGS: 04d68bfa"
        with tempfile.TemporaryDirectory() as d, \
                contextlib.redirect_stdout(io.StringIO()) as text:
            side, files = self.boot(d, [self.out(False)] * 4 +
                                    [self.out(True)] * 2, True, "icount",
                                    fault, boots=2)
            self.assertEqual(side.setup.boot.call_count, 6)
            self.assertRegex(text.getvalue(), "boot 1: left out: the guest "
                             r"did not finish \(.*double fault.*EFLAGS "
                             "04d68bfa.*4 tries; QEMU's icount fault")
            self.assertRegex(text.getvalue(), r"boot 3 of 3 \(A-boot3, in "
                             r"place of one left out\): about \d+ s left; ")
            self.assertIn("(2 boots of 2 loads)", text.getvalue())
            self.assertFalse((Path(d) / "A-boot1").exists())
            self.assertTrue((Path(d) / "A-boot1-died4").is_dir())
            for n in (2, 3):
                self.assertTrue((Path(d) / f"A-boot{n}").is_dir(), n)
            self.assertTrue(files["A"].exists())
        # Without icount, a guest whose EFLAGS no CPU sets showed in both
        # of Setup.boot()'s boots (out.spoilt) is QEMU's too: measure
        # stops naming it, compare-check boots it again.
        for retry, boots in ((False, 1), (True, 2)):
            with tempfile.TemporaryDirectory() as d, \
                    contextlib.redirect_stdout(io.StringIO()) as text:
                outs = [self.out(False), self.out(True)]
                outs[0].spoilt = "41541022"
                outs[1].spoilt = None
                if retry:
                    side, _ = self.boot(d, outs, retry)
                    self.assertEqual(side.setup.boot.call_count, boots)
                    self.assertIn("with EFLAGS 41541022", text.getvalue())
                    continue
                with self.assertRaisesRegex(
                        measure.EmulatorFault,
                        "did not finish.*see .*A-boot1 \\(2 tries; "
                        "QEMU's fault: EFLAGS 41541022"):
                    self.boot(d, [outs[0], outs[0]], retry)

    def test_compare_check_boots_again(self):
        with tempfile.TemporaryDirectory() as d:
            side, files = self.boot(d, [self.out(False), self.out(True)],
                                    True)
            self.assertEqual(side.setup.boot.call_count, 2)
            self.assertTrue((Path(d) / "A-boot1-died" / "console.log")
                            .exists())
            self.assertIn("A", files)

    def test_twice_is_an_error(self):
        from mmbench_tool.common import Failure
        with tempfile.TemporaryDirectory() as d:
            with self.assertRaisesRegex(Failure, "did not finish"):
                self.boot(d, [self.out(False), self.out(False)], True)

    def test_measure_stops(self):
        from mmbench_tool.common import Failure
        with tempfile.TemporaryDirectory() as d:
            with self.assertRaisesRegex(Failure, "did not finish"):
                self.boot(d, [self.out(False), self.out(True)], False)
            # No empty A.jsonl for compare to call "not an archive".
            self.assertFalse((Path(d) / "A.jsonl").exists())

    def test_a_kernel_arg_the_kernel_did_not_know(self):
        # A misspelt --kernel-arg changes nothing: said after the first
        # boot, naming it; not nokaslr (x86 reads it before parse_args(),
        # so the kernel calls it unknown) nor the guests' own words.
        from mmbench_tool import measure
        measure._said_unknown.clear()
        said = ["MMBENCH-BENCH guest unknown_params=nokaslr "
                "mitigation=off MMBENCH_LOADS=2"]
        for kernel_arg, want in ((["nokaslr", "mitigation=off"],
                                  ["mitigation=off"]),
                                 (["nokaslr"], [])):
            with tempfile.TemporaryDirectory() as d:
                out = self.out(True)
                out.lines = said
                side = self.side([out])
                side.args.kernel_arg = kernel_arg
                text = io.StringIO()
                with unittest.mock.patch("mmbench_tool.setup.save_archive",
                                         return_value=[]), \
                        contextlib.redirect_stdout(text):
                    measure.alternate([side], 1, 2, Path(d))
                if want:
                    self.assertIn("warning: kernel A did not know "
                                  "--kernel-arg mitigation=off", text.getvalue())
                else:
                    self.assertNotIn("did not know", text.getvalue())
                # Said once: compare-check's comparisons boot it again.
                text = io.StringIO()
                with contextlib.redirect_stdout(text):
                    self.assertEqual(
                        measure.unknown_kernel_args(side, said, d), want)
                self.assertNotIn("did not know", text.getvalue())

    def test_a_boot_short_of_its_loads(self):
        # QEMU's icount fault that does not kill the guest: the shell
        # running bench.sh dies, the guest finishes with fewer loads.  In
        # icount mode booted again; else said, and kept.
        from mmbench_tool import measure
        trap = ("[ 3.3] traps: bench.sh[153] general protection fault "
                "ip:55b19ca54dc0 in dash")
        short = ["MMBENCH-BENCH load=1 run_ms=700", trap]
        whole = ["MMBENCH-BENCH load=1 run_ms=700",
                 "MMBENCH-BENCH load=2 insmod failed: x"]
        self.assertEqual(measure.short_of_loads(whole, 2), None)
        self.assertEqual(measure.short_of_loads(short, 2),
                         f"ran 1 of 2 loads ({trap})")
        for accel, boots in (("icount", 2), ("tcg", 1)):
            with tempfile.TemporaryDirectory() as d:
                outs = [self.out(True), self.out(True)]
                outs[0].lines, outs[1].lines = short, whole
                text = io.StringIO()
                with contextlib.redirect_stdout(text):
                    side, _files = self.boot(d, outs, True, accel)
                self.assertEqual(side.setup.boot.call_count, boots, accel)
                self.assertIn("ran 1 of 2 loads", text.getvalue())
                self.assertEqual((Path(d) / "A-boot1-died").exists(),
                                 accel == "icount")
        # A guest that lived through the emulator's impossible flags:
        # booted again in icount mode (what else went wrong is unknown);
        # such flags are not looked for in other modes.
        for accel, boots in (("icount", 2), ("tcg", 1)):
            with tempfile.TemporaryDirectory() as d:
                outs = [self.out(True), self.out(True)]
                outs[0].lines = outs[1].lines = whole
                text = io.StringIO()
                with contextlib.redirect_stdout(text):
                    side, _files = self.boot(
                        d, outs, True, accel, lived=[
                            "WARNING: CPU: 0 PID: 242 at arch/x86/kernel/"
                            "traps.c:1120 exc_debug_kernel\n[   10.8] "
                            "RSP: 0000:fffffe0000010f28 EFLAGS: 058c1002"])
                self.assertEqual(side.setup.boot.call_count, boots, accel)
                self.assertEqual("EFLAGS 058c1002" in text.getvalue(),
                                 accel == "icount")
        # Such flags in every boot, in measure: the emulator's, said so.
        with tempfile.TemporaryDirectory() as d:
            outs = [self.out(True) for _ in range(4)]
            for o in outs:
                o.lines = whole
            with self.assertRaisesRegex(measure.EmulatorFault,
                                        "EFLAGS 058c1002.*4 tries"), \
                    contextlib.redirect_stdout(io.StringIO()):
                self.boot(d, outs, False, "icount",
                          lived=["EFLAGS: 058c1002"] * 4)
        # Short every time in icount mode: the emulator's, said so.
        from mmbench_tool.common import Failure
        with tempfile.TemporaryDirectory() as d:
            outs = [self.out(True) for _ in range(4)]
            for o in outs:
                o.lines = short
            with self.assertRaisesRegex(measure.EmulatorFault,
                                        "ran 1 of 2 loads .*4 tries; "
                                        f"{measure.ICOUNT_FAULT}"), \
                    contextlib.redirect_stdout(io.StringIO()):
                self.boot(d, outs, False, "icount")

    def test_icount_kernel_death_after_qemus_faults(self):
        # compare-check boots again after the kernel's first death, also
        # when QEMU's faults took the tries before it: three of QEMU's,
        # the kernel's, then a sound guest is five boots, not a stop.
        from mmbench_tool import measure
        from mmbench_tool.common import Failure
        fault = "Oops: double fault\n[ 10.8] RSP: 0018:ff EFLAGS: 04d68bfa"
        own = "Oops: int3: 0000 [#1] PREEMPT SMP NOPTI"
        consoles = [fault] * 3 + [own]
        outs = [self.out(False) for _ in range(4)] + [self.out(True)]
        with tempfile.TemporaryDirectory() as d, \
                contextlib.redirect_stdout(io.StringIO()):
            side = self.side(outs)
            side.args.accel = "icount"

            def console(what, folder, echo):
                out = outs.pop(0)
                text = "" if out.finished else consoles.pop(0)
                (folder / "console.log").write_text(f"[   10.8] {text}\n")
                return out
            side.setup.boot.side_effect = console
            with unittest.mock.patch("mmbench_tool.setup.save_archive",
                                     return_value=[]):
                measure.alternate([side], 1, 2, Path(d), retry=True)
            self.assertEqual(side.setup.boot.call_count, 5)
            self.assertTrue((Path(d) / "A-boot1-died4").exists())
        # A second death of the kernel's stops it, QEMU's or not before.
        outs = [self.out(False) for _ in range(5)]
        consoles = [fault] * 3 + [own, own]
        with tempfile.TemporaryDirectory() as d, \
                contextlib.redirect_stdout(io.StringIO()):
            side = self.side(outs)
            side.args.accel = "icount"
            side.setup.boot.side_effect = console
            with self.assertRaisesRegex(Failure, "5 tries, 2 of them "
                                        "without the emulator's flags"), \
                    unittest.mock.patch("mmbench_tool.setup.save_archive",
                                        return_value=[]):
                measure.alternate([side], 1, 2, Path(d), retry=True)
        # One death of the kernel's, then QEMU's fault at every try left:
        # the boot is QEMU's, left out and replaced, as without the
        # death; the death is said.  measure stops at that death.
        outs = [self.out(False) for _ in range(5)] + [self.out(True)]
        consoles = [own] + [fault] * 4
        with tempfile.TemporaryDirectory() as d, \
                contextlib.redirect_stdout(io.StringIO()) as text:
            side = self.side(outs)
            side.args.accel = "icount"
            side.setup.boot.side_effect = console
            with unittest.mock.patch("mmbench_tool.setup.save_archive",
                                     return_value=[]):
                measure.alternate([side], 1, 2, Path(d), retry=True)
            self.assertEqual(side.setup.boot.call_count, 6)
            self.assertRegex(text.getvalue(), r"boot 1: left out: .*\(5 "
                             "tries; QEMU's icount fault, after 1 death "
                             "of the kernel's\)")
            self.assertTrue((Path(d) / "A-boot1-died5").exists())
        outs = [self.out(False)]
        consoles = [own]
        with tempfile.TemporaryDirectory() as d, \
                contextlib.redirect_stdout(io.StringIO()):
            side = self.side(outs)
            side.args.accel = "icount"
            side.setup.boot.side_effect = console
            with self.assertRaises(Failure) as e, \
                    unittest.mock.patch("mmbench_tool.setup.save_archive",
                                        return_value=[]):
                measure.alternate([side], 1, 2, Path(d), retry=False)
            self.assertNotIsInstance(e.exception, measure.EmulatorFault)

    def test_a_boot_short_of_its_loads_by_its_kernel(self):
        # Short of its loads in icount mode where the kernel says why
        # (the OOM killer took the shell): the kernel's, not QEMU's.
        from mmbench_tool import measure
        from mmbench_tool.common import Failure
        short = ["MMBENCH-BENCH load=1 run_ms=700"]
        oom = "Out of memory: Killed process 153 (bench.sh)"
        for retry, boots in ((False, 1), (True, 2)):
            with tempfile.TemporaryDirectory() as d:
                outs = [self.out(True) for _ in range(4)]
                for o in outs:
                    o.lines = short
                with self.assertRaises(Failure) as e, \
                        contextlib.redirect_stdout(io.StringIO()):
                    side, _ = self.boot(d, outs, retry, "icount",
                                        lived=[oom] * 4)
                self.assertNotIsInstance(e.exception, measure.EmulatorFault)
                self.assertIn("ran 1 of 2 loads, its kernel saying: "
                              f"[   10.8] {oom}", str(e.exception))
                self.assertEqual(4 - len(outs), boots)
        # A user program's trap is not the kernel's word: QEMU's; nor a
        # lockup a busy host makes, or a splat that kills nothing; nor
        # the OOM killer's word beside a trap, QEMU's mark.
        trap = "traps: bench.sh[153] general protection fault ip:5"
        for said in (trap, f"{oom}\n{trap}",
                     "watchdog: BUG: soft lockup - CPU#0 stuck for 22s!",
                     "BUG: workqueue lockup - pool cpus=1 node=0",
                     "BUG: sleeping function called from invalid context"):
            with tempfile.TemporaryDirectory() as d:
                outs = [self.out(True) for _ in range(4)]
                for o in outs:
                    o.lines = short
                with self.assertRaises(measure.EmulatorFault, msg=said), \
                        contextlib.redirect_stdout(io.StringIO()):
                    self.boot(d, outs, False, "icount", lived=[said] * 4)

    def test_icount_boots_a_double_fault_four_times(self):
        # QEMU 7.2's icount mode kills a guest now and then, with EFLAGS
        # no CPU has: up to four boots, in measure too, for that death
        # alone.
        from mmbench_tool import guest, measure
        from mmbench_tool.common import Failure
        rsp = "RSP: 0018:ffffc9000048b728 EFLAGS: "
        fault = ("Oops: double fault: 0000 [#1] PREEMPT SMP NOPTI\n"
                 f"[   10.8] {rsp}04d68bfa")
        for retry in (True, False):
            with tempfile.TemporaryDirectory() as d:
                side, files = self.boot(
                    d, [self.out(False)] * 3 + [self.out(True)], retry,
                    "icount", fault)
                self.assertEqual(side.setup.boot.call_count, 4)
                for died in ("A-boot1-died", "A-boot1-died2",
                             "A-boot1-died3"):
                    self.assertTrue((Path(d) / died / "console.log")
                                    .exists(), died)
            # Spoilt at every try: measure stops; compare-check replaces
            # the boot, REPLACEMENTS times, then stops.
            spoilt = 4 * (1 + measure.REPLACEMENTS * retry)
            with tempfile.TemporaryDirectory() as d:
                with self.assertRaisesRegex(
                        measure.EmulatorFault,
                        "3 boots left out, QEMU's fault at every try" if
                        retry else r"did not finish \(.*double fault"), \
                        contextlib.redirect_stdout(io.StringIO()):
                    self.boot(d, [self.out(False)] * spoilt, retry,
                              "icount", fault)
        # The NULL pointers in SLUB it gives the stock kernel too, with
        # the same flags: booted again, and said so after four.
        null = ("BUG: kernel NULL pointer dereference, address: 0\n"
                f"[   10.8] {rsp}3ff01646")
        with tempfile.TemporaryDirectory() as d:
            side, _files = self.boot(d, [self.out(False), self.out(True)],
                                     False, "icount", null)
            self.assertEqual(side.setup.boot.call_count, 2)
        with tempfile.TemporaryDirectory() as d:
            with self.assertRaisesRegex(measure.EmulatorFault,
                                        "NULL pointer.*4 tries; "
                                        f"{measure.ICOUNT_FAULT}: EFLAGS "
                                        "3ff01646, bits no x86 CPU sets"):
                self.boot(d, [self.out(False)] * 4, False, "icount", null)
        # Another death stops measure at once in this mode too, as the
        # kernel's: a double fault or a NULL pointer with real flags (a
        # stack overflow, a bug of the module), an oops without flags, a
        # hang without them.
        for oops in ("Oops: double fault: 0000\n"
                     f"[   10.8] {rsp}00010246",
                     "BUG: kernel NULL pointer dereference, address: 0\n"
                     f"[   10.8] {rsp}00000246",
                     "Oops: int3: 0000 [#1] PREEMPT SMP NOPTI", None):
            with tempfile.TemporaryDirectory() as d:
                out = self.out(False)
                if oops is None:
                    oops, out.timed_out = "rcu: INFO: rcu_sched stall", True
                with self.assertRaisesRegex(Failure,
                                            "did not finish") as cm:
                    self.boot(d, [out, self.out(True)], False, "icount",
                              oops)
                self.assertNotIsInstance(cm.exception,
                                         measure.EmulatorFault, oops)
        self.assertIsNone(guest.impossible_eflags(Path("/nonexistent")))
        # compare-check (retry) boots the kernel's own death once more,
        # in icount mode too, and does not blame the emulator for a boot
        # in which the kernel died without its flags.
        # (QEMU's faults have their four tries besides: see
        # test_icount_kernel_death_after_qemus_faults.)
        for oopses, boots in (([None, None], 2),):
            with tempfile.TemporaryDirectory() as d:
                side = self.side([])
                side.args.accel = "icount"
                seq = list(oopses)

                def console(what, folder, echo):
                    o = seq.pop(0)
                    (folder / "console.log").write_text(
                        f"[   10.8] {o or 'Oops: int3: 0000'}\n")
                    return self.out(False)
                side.setup.boot.side_effect = console
                with self.assertRaisesRegex(Failure, "without the "
                                            "emulator's flags") as cm, \
                        unittest.mock.patch("mmbench_tool.setup.save_archive",
                                            return_value=[]), \
                        contextlib.redirect_stdout(io.StringIO()):
                    measure.alternate([side], 1, 2, Path(d), retry=True)
                self.assertNotIsInstance(cm.exception, measure.EmulatorFault)
                self.assertEqual(side.setup.boot.call_count, boots)

    def test_impossible_eflags(self):
        # Each bit an x86 CPU can set passes; each reserved one (3, 5,
        # 15, 22-63) is the emulator's; real flags of oopses pass, those
        # that the emulator's deaths showed do not.
        from mmbench_tool import guest
        defined = {0, 1, 2, 4, 6, 7, 8, 9, 10, 11, 12, 13, 14, 16, 17, 18,
                   19, 20, 21}
        cases = [(f"{0x2 | 1 << b:0{16 if b >= 32 else 8}x}",
                  b not in defined) for b in range(64)]
        cases += [(v, False) for v in ("00010246", "00050246", "00000282")]
        cases += [(v, True) for v in ("04d68bfa", "3ff01646", "058c1002")]
        for value, impossible in cases:
            with tempfile.TemporaryDirectory() as d:
                (Path(d) / "console.log").write_text(
                    "[    0.1] traps: sh[1] general protection fault\n"
                    f"[    5.7] RSP: 0018:ffffc9000048b728 EFLAGS: {value}\n")
                self.assertEqual(guest.impossible_eflags(Path(d)),
                                 value if impossible else None, value)

    def test_icount_check_not_judged_for_the_emulator(self):
        from mmbench_tool import comparecheck, measure
        from mmbench_tool.common import Failure
        args = Sampling.measure_args()
        for why, judged in (
                ("did not finish ([ 3.0] Oops: double fault: 0000); see x "
                 f"(4 tries; {measure.ICOUNT_FAULT})", False),
                ("ran 1 of 3 loads ([ 3.3] traps: bench.sh[153] general "
                 f"protection fault); see x (4 tries; "
                 f"{measure.ICOUNT_FAULT})", False),
                ("did not finish ([ 3.0] Oops: general protection fault); "
                 "see x", True)):
            with tempfile.TemporaryDirectory() as d, \
                    unittest.mock.patch.object(
                        comparecheck, "_ci_sides", return_value=(
                            types.SimpleNamespace(name="A"),
                            types.SimpleNamespace(name="B"))), \
                    unittest.mock.patch.object(
                        comparecheck, "alternate", side_effect=(
                            Failure if judged else comparecheck.EmulatorFault)(
                            f"kernel A, boot 1: the guest {why}")):
                if judged:
                    with self.assertRaises(Failure):
                        comparecheck.icount_checks(args, Path(d))
                    continue
                (ok, what, _), = comparecheck.icount_checks(args, Path(d))
                self.assertTrue(ok)
                self.assertIn("not judged", what)

    def test_icount_check_boots_once_more_when_inconclusive(self):
        # A load swelled by other work (seen in CI: one sample 5 times
        # the row's) leaves compare INCONCLUSIVE: one more boot of each,
        # then, still INCONCLUSIVE, not judged; NO CHANGE is judged.
        from mmbench_tool import compare, comparecheck
        args = Sampling.measure_args()

        def result(verdict):
            row = unittest.mock.Mock(row=comparecheck.CI_ROW,
                                     verdict=verdict,
                                     change=4.2, lo=3.2, hi=5.3,
                                     change_insn=2.9, lo_insn=2.3,
                                     hi_insn=3.5)
            return unittest.mock.Mock(rows=[row], judged=lambda: [row])
        for verdicts, boots, ok, said in (
                ((compare.INCONCLUSIVE, compare.REGRESSION), 2, True, ""),
                ((compare.INCONCLUSIVE, compare.INCONCLUSIVE), 2, True,
                 "not judged"),
                ((compare.REGRESSION,), 1, True, ""),
                ((compare.NO_CHANGE,), 1, False, ""),
                ((compare.INCONCLUSIVE, compare.NO_CHANGE), 2, False, "")):
            with tempfile.TemporaryDirectory() as d, \
                    unittest.mock.patch.object(
                        comparecheck, "_ci_sides", return_value=(
                            types.SimpleNamespace(name="A"),
                            types.SimpleNamespace(name="B"))), \
                    unittest.mock.patch.object(
                        comparecheck, "alternate",
                        return_value={"A": Path(d) / "A.jsonl",
                                      "B": Path(d) / "B.jsonl"}) as alt, \
                    unittest.mock.patch.object(
                        comparecheck, "run_compare",
                        side_effect=[result(v) for v in verdicts]), \
                    unittest.mock.patch.object(
                        comparecheck.archive.Archive, "read"):
                checks = comparecheck.icount_checks(args, Path(d))
            self.assertEqual(alt.call_count, boots, verdicts)
            if boots == 2:
                self.assertEqual(alt.call_args.kwargs["first"],
                                 comparecheck.ICOUNT_BOOTS + 1)
            (found, what, why), = [c for c in checks
                                   if "REGRESSION" in c[1]]
            self.assertEqual(found, ok, verdicts)
            self.assertIn("+4.2 % [+3.2, +5.3], +2.90 instructions an op "
                          "[+2.30, +3.50]", why)
            self.assertEqual("not judged" in what, bool(said), verdicts)

    def test_rows_flagged_on_a_busy_host_boot_once_more(self):
        # Seen in CI while other work ran: compare left out 3 of B's loads
        # as a busy host's, and flagged 3 rows nothing slowed.  Such a
        # comparison gets one more boot of each; still so, the check is
        # not judged, naming the loads; flagged on a quiet host, it fails.
        from mmbench_tool import compare, comparecheck
        args = Sampling.measure_args()

        def result(flags, dropped, change=-2.0):
            ci = unittest.mock.Mock(row=comparecheck.CI_ROW,
                                    verdict=compare.REGRESSION, change=30.0,
                                    lo=28.0, hi=33.0)
            rows = [ci] + [unittest.mock.Mock(
                row=f"kmalloc_{i}", verdict=compare.REGRESSION if change > 0
                else compare.IMPROVEMENT, change=change)
                for i in range(flags)]
            return unittest.mock.Mock(
                rows=rows, judged=lambda: rows, not_comparable=[],
                regressions=lambda: [ci],
                dropped_loads={"A": 0, "B": dropped})
        for results, boots, ok, said in (
                (((3, 3), (3, 2)), 3, True, "3 rows flagged (limit 1; 4 "
                 "on a busy host), each within 5 %; a busy host slowed A "
                 "0, B 2 loads (limit 0)"),
                # slow_into leaking into every row: small changes in the
                # slower rows, but many.
                (((12, 3, 1.2), (12, 2, 1.2)), 3, False, ""),
                # slow_into leaking into rows it must not slow: a busy
                # host does not excuse +20 %.
                (((3, 3, 20.0), (3, 2, 20.0)), 3, False, ""),
                (((3, 3), (3, 2, -5.5)), 3, False, ""),
                (((3, 3), (2, 0)), 3, False, ""),
                (((3, 3), (1, 0)), 3, True, ""),
                (((3, 0),), 2, False, ""),
                (((1, 3),), 2, True, ""),
                (((0, 0),), 2, True, "")):
            sides = [types.SimpleNamespace(name=n, args=types.SimpleNamespace(
                param=[])) for n in "AB"]
            with tempfile.TemporaryDirectory() as d, \
                    unittest.mock.patch.object(comparecheck.deps, "ensure"), \
                    unittest.mock.patch.object(comparecheck, "_ci_sides",
                                               return_value=sides), \
                    unittest.mock.patch.object(
                        comparecheck, "alternate",
                        return_value={"A": Path(d) / "A.jsonl",
                                      "B": Path(d) / "B.jsonl"}) as alt, \
                    unittest.mock.patch.object(
                        comparecheck, "calibrate", return_value=(
                            0.4, {comparecheck.CI_ROW: 55.0})), \
                    unittest.mock.patch.object(
                        comparecheck, "run_compare",
                        side_effect=[result(*r) for r in results]), \
                    unittest.mock.patch.object(comparecheck.fleet, "lava",
                                               return_value=""), \
                    unittest.mock.patch.object(
                        comparecheck.archive.Archive, "read"), \
                    contextlib.redirect_stdout(io.StringIO()):
                checks = comparecheck.test_checks(args, Path(d))
            # A's calibration boot, B's first, the rest, and the retry.
            self.assertEqual(alt.call_count, 1 + boots, results)
            (found, what, why), = [c for c in checks
                                   if "not slowed" in c[1]]
            self.assertEqual(found, ok, results)
            self.assertEqual("not judged" in what, bool(said), results)
            # No plot written (run_compare is mocked): a failed check.
            (plotted, _, plots_why), = [c for c in checks
                                        if "samples plot" in c[1]]
            self.assertFalse(plotted, plots_why)
            self.assertIn("0 PNG files of 0 listed", plots_why)
            self.assertIn(said, what)
            if not ok:
                self.assertRegex(why, r"kmalloc_0 (IMPROVEMENT|REGRESSION) "
                                 r"[-+]\d")
            if len(results[-1]) == 3:
                self.assertRegex(why, r"(changed more|more rows) than a "
                                 r"busy host explains \(limit (5 %|4)\)")

    def test_a_suite_guest_with_impossible_flags_booted_again(self):
        # QEMU's fault outside icount mode too (a debug kernel's guest in
        # TCG): a guest whose log shows EFLAGS no CPU sets is booted once
        # more, its first console kept; real flags are the kernel's.
        from mmbench_tool import guest
        for flags, boots, then in (("41541022", 2, "all well"),
                                   ("00010246", 1, "all well"),
                                   ("41541022", 2, "EFLAGS: 41541022"),
                                   ("41541022", 2, "EFLAGS: 04d68bfa")):
            with tempfile.TemporaryDirectory() as d:
                console = Path(d) / "console.log"
                setup = setupmod.Setup(Sampling.measure_args())
                setup.kernel = "K"
                said = [f"[ 4.9] RSP: 0018:ffffce52004877c0 EFLAGS: {flags}",
                        f"[ 4.9] {then}", "[ 4.9] a third boot"]

                def boot(*args, **kwargs):
                    console.write_text(said.pop(0) + "\n")
                with unittest.mock.patch.object(guest, "boot",
                                                side_effect=boot) as b, \
                        contextlib.redirect_stdout(io.StringIO()) as text:
                    setup._boot_twice("I", 2, 1024, False, console,
                                      lambda line: None,
                                      ["MMBENCH-GUEST-BEGIN"])
                self.assertEqual(b.call_count, boots, flags)
                first = Path(d) / "console-first-boot.log"
                self.assertEqual(first.exists(), boots == 2)
                if boots == 2:
                    self.assertIn(f"EFLAGS: {flags}", first.read_text())
                    self.assertIn(then, console.read_text())
                    self.assertTrue((Path(d) / "guest-first-boot.log")
                                    .exists())
                self.assertEqual(f"EFLAGS {flags}" in text.getvalue(),
                                 boots == 2)
                # Still so after the second boot: no verdict is the
                # kernel's (setupmod.spoilt()).
                self.assertEqual(setup.spoilt,
                                 then[8:] if "EFLAGS" in then else None)
        # Booted again for an early death, such flags in the second boot
        # alone: not both boots, so not called QEMU's.
        with tempfile.TemporaryDirectory() as d:
            console = Path(d) / "console.log"
            setup = setupmod.Setup(Sampling.measure_args())
            setup.kernel = "K"
            said = ["[ 0.9] Oops: int3", "[ 4.9] RSP: 0018:ff EFLAGS: 41541022"]

            def boot(*args, **kwargs):
                console.write_text(said.pop(0) + "\n")
            with unittest.mock.patch.object(guest, "boot",
                                            side_effect=boot) as b, \
                    contextlib.redirect_stdout(io.StringIO()):
                setup._boot_twice("I", 2, 1024, False, console,
                                  lambda line: None, [])
            self.assertEqual(b.call_count, 2)
            self.assertIsNone(setup.spoilt)

    def test_icount_reaches_qemu(self):
        from mmbench_tool import guest
        setup = setupmod.Setup(Sampling.measure_args("--accel", "icount"))
        setup.kernel = "K"
        with unittest.mock.patch.object(guest, "boot") as boot:
            setup._boot_twice("I", 2, 1024, False, Path("/nonexistent"),
                              lambda line: None, ["MMBENCH-GUEST-BEGIN"])
        self.assertTrue(boot.call_args.kwargs["icount"])
        cmds = []

        class Arch:
            qemu = "true"

            def command(self, *args):
                cmds.append(args)
                return ["true"]
        guest.boot("K", "I", 2, 1024, False, "C", lambda line: None, 10,
                   arch=Arch(), icount=True)
        self.assertTrue(cmds[0][-1])

    def test_a_load_that_could_not_be_unpacked_is_said(self):
        import contextlib
        import io

        from mmbench_tool import measure
        side = self.side([])
        side.setup.boot.side_effect = None
        side.setup.boot.return_value = unittest.mock.Mock(
            timed_out=False, finished=True, guest_s=10.0,
            lines=["MMBENCH-GZ-ERROR 40 characters: Incorrect padding"])
        out = io.StringIO()
        with tempfile.TemporaryDirectory() as d, \
                unittest.mock.patch("mmbench_tool.setup.save_archive",
                                    return_value=[]), \
                contextlib.redirect_stdout(out):
            measure.alternate([side], 1, 2, Path(d))
            took = json.loads((Path(d) / measure.GUEST_TIME).read_text())
        self.assertIn("1 loads' figures could not be unpacked", out.getvalue())
        self.assertEqual(took, {"A": 10.0})

    def test_why(self):
        from mmbench_tool import measure
        with tempfile.TemporaryDirectory() as d:
            (Path(d) / "console.log").write_text(
                "ok\n[ 10.8] Oops: int3: 0000 [#1]\nmore\n")
            self.assertEqual(measure.died_why(Path(d)),
                             "[ 10.8] Oops: int3: 0000 [#1]")
            self.assertEqual(measure.died_why(Path(d) / "none"),
                             "no console.log")


class Splits(unittest.TestCase):
    """compare-check split draws A/A comparisons of --boots boots a side
    from one kernel's boots, no boot on both sides."""

    def test_disjoint_sized_and_repeatable(self):
        from mmbench_tool import comparecheck
        boots = [f"b{i:03d}" for i in range(60)]
        splits = comparecheck.draw_splits(boots, 3, 40)
        self.assertEqual(len(splits), 40)
        for a, b in splits:
            self.assertEqual((len(a), len(b)), (3, 3))
            self.assertFalse(a & b)
        self.assertEqual(len({(frozenset(a), frozenset(b))
                              for a, b in splits}), 40)
        self.assertEqual(splits, comparecheck.draw_splits(boots, 3, 40))

    def test_a_pool_of_boots_split_and_judged(self):
        """The whole of check_split on one kernel's 12 boots: it once
        added found_when_added()'s (found, of) to a count and stopped
        with a TypeError before its first line of A/A counts."""
        import argparse
        import random

        from mmbench_tool import comparecheck
        rows = {"inc_dec_zone_page_state": 60.0, "kmalloc_64": 150.0,
                "alloc_pages_order0": 500.0, "count_vm_event": 4.0}
        pool = booted(random.Random(7), boots=12, loads=3, rows=rows)
        with tempfile.TemporaryDirectory() as tmp:
            archive.write(Path(tmp) / "A.jsonl", pool.runs + pool.rows)
            args = argparse.Namespace(reuse=tmp, boots=4, comparisons=3)
            out = io.StringIO()
            with contextlib.redirect_stdout(out), \
                    unittest.mock.patch.object(comparecheck, "say"):
                self.assertEqual(comparecheck.check_split(args), 0)
            text = (Path(tmp) / "split.txt").read_text()
        self.assertIn("common    3 A/A splits: ", text)
        self.assertRegex(text, r"\+5 % found \d+/9, \+10 % \d+/9")

    def test_every_split_of_few_boots(self):
        from mmbench_tool import comparecheck
        splits = comparecheck.draw_splits(list("abcdef"), 3, 100)
        # Each unordered split once: C(6, 3) / 2.
        self.assertEqual(len(splits), 10)
        self.assertTrue(all("a" in a for a, _b in splits))

    def test_a_folder_that_is_not_there(self):
        import argparse

        from mmbench_tool import comparecheck
        from mmbench_tool.common import Failure
        args = argparse.Namespace(reuse="/nonexistent/mmbench", boots=3,
                                  comparisons=2)
        with self.assertRaisesRegex(Failure, "no such folder"):
            comparecheck.check_split(args)

    def test_reuse_of_no_folder_is_said_before_anything(self):
        with tempfile.TemporaryDirectory() as tmp:
            f = Path(tmp) / "A.jsonl"
            f.write_text("")
            for what in ("aa", "known", "split"):
                for path, said in ((f, "not a folder"),
                                   (Path(tmp) / "gone", "no such folder")):
                    with self.subTest(what=what, said=said):
                        rc, out = support.options_only(
                            "compare-check", what, "--reuse", str(path))
                        self.assertEqual(rc, 2)
                        self.assertIn(f"--reuse {path}: {said}", out)

    def test_too_few_boots_refused(self):
        from mmbench_tool import comparecheck
        from mmbench_tool.common import Failure
        with self.assertRaisesRegex(Failure, "need 6 or more"):
            comparecheck.draw_splits(list("abcde"), 3, 10)
        with self.assertRaisesRegex(Failure, "needs 2 boots a kernel"):
            comparecheck.draw_splits(list("abcdef"), 1, 10)


class Sampling(unittest.TestCase):
    """A load's median of 3 samples is not one of 9: archives that differ
    in the module's sampling parameters are NOT COMPARABLE; measure and
    compare-check take COMPARE_SAMPLES a load unless told."""

    def with_params(self, a, module):
        return archive.Archive([dict(r, params={"module": module})
                                for r in a.runs], a.rows, a.loads)

    def test_other_samples_not_comparable(self):
        rng = random.Random(31)
        a = self.with_params(synthetic(rng), ["samples=3"])
        b = self.with_params(synthetic(rng), [])
        c = compare.Comparison(a, b)
        self.assertEqual([k for k, _, _ in c.not_comparable], ["sampling"])
        self.assertIn("samples=3 sample_us=2000 iterations=0",
                      "\n".join(c.report()))
        self.assertEqual({r.verdict for r in c.rows},
                         {compare.NOT_COMPARABLE})

    def test_the_default_given_or_not_is_the_same(self):
        rng = random.Random(32)
        a = self.with_params(synthetic(rng), ["samples=9", "cpu=1"])
        b = self.with_params(synthetic(rng), ["cpu=1"])
        self.assertFalse(compare.Comparison(a, b).not_comparable)
        # An archive of old, without parameters, has the defaults.
        self.assertFalse(compare.Comparison(synthetic(rng), b)
                         .not_comparable)

    def test_one_archive_mixing_them(self):
        rng = random.Random(33)
        a = synthetic(rng)
        a.runs[0]["params"] = {"module": ["samples=1"]}
        c = compare.Comparison(a, synthetic(rng))
        self.assertEqual([k for k, _, _ in c.not_comparable], ["sampling"])

    def test_other_budget_not_comparable(self):
        # A shorter budget_ms can cut a row's samples short.
        rng = random.Random(34)
        a = self.with_params(synthetic(rng), ["budget_ms=1000"])
        b = self.with_params(synthetic(rng), ["budget_ms=60000"])
        c = compare.Comparison(a, b)
        self.assertEqual([k for k, _, _ in c.not_comparable], ["sampling"])

    def test_a_boot_without_its_run_record(self):
        # Its rows' sampling is unknown: not taken for the others'.
        rng = random.Random(35)
        a = synthetic(rng)
        lost = a.runs[0]["boot"]
        self.assertTrue(any(r["boot"] == lost for r in a.rows))
        a = archive.Archive(a.runs[1:], a.rows, a.loads)
        c = compare.Comparison(a, synthetic(rng))
        self.assertEqual([k for k, _, _ in c.not_comparable], ["sampling"])

    @staticmethod
    def measure_args(*argv):
        """The options ./mmbench measure @argv would measure with."""
        from mmbench_tool import cli, measure
        args = {}

        def keep(a):
            args["a"] = a
            raise support.Reached
        with unittest.mock.patch.object(measure, "cmd_measure",
                                        side_effect=keep):
            try:
                cli.main(["measure"] + list(argv))
            except support.Reached:
                pass
        return args["a"]

    def side_params(self, *argv):
        from mmbench_tool import measure
        return measure.Side("A", self.measure_args(*argv)).args.param

    def test_icount_said_in_the_fingerprint(self):
        # --accel icount: x86_64 and TCG only; its archives say so.
        for cmd in (["measure", "--aa"], ["compare-check", "aa"]):
            rc, out = support.options_only(*cmd, "--accel", "icount")
            self.assertIsNone(rc, out)
            rc, out = support.options_only(*cmd, "--accel", "icount",
                                           "--arch", "arm64")
            self.assertEqual(rc, 2, out)
            self.assertIn("x86_64 guests only", out)
        for cmd in ("run", "test", "bench", "verdicts"):
            rc, out = support.options_only(cmd, "--accel", "icount")
            self.assertEqual(rc, 2, out)
            self.assertIn("for measure and compare-check", out)
        # lava's device runs TCG: it has no --accel to give.
        rc, out = support.options_only("lava", "--accel", "icount")
        self.assertEqual(rc, 2, out)
        self.assertIn("unrecognized arguments: --accel icount", out)
        # Refused for the command before the architecture.
        rc, out = support.options_only("run", "--accel", "icount",
                                       "--arch", "arm64")
        self.assertIn("for measure and compare-check", out)
        setup = setupmod.Setup(self.measure_args("--accel", "icount"))
        setup.kernel = "K"
        facts = setup.host_facts()
        self.assertEqual(facts["accel"], "tcg-icount")
        recs = archive.records([], facts, {})
        self.assertEqual(recs[0]["fingerprint"]["emulated"], "yes")
        self.assertEqual(recs[0]["fingerprint"]["accel"], "tcg-icount")

    def test_kernel_args_reach_both_sides(self):
        from mmbench_tool import measure
        args = self.measure_args("--kernel-arg", "nokaslr",
                                 "--kernel-arg", "mitigations=off")
        for name in "AB":
            self.assertEqual(measure.Side(name, args).args.kernel_arg,
                             ["nokaslr", "mitigations=off"])
        # Without KASLR unless --kaslr.
        for argv, want in (([], ["nokaslr"]), (["--kaslr"], [])):
            self.assertEqual(measure.Side("A", self.measure_args(*argv))
                             .args.kernel_arg, want)
        for bad in ("a b", "x;reboot", '"q"', "", "MMBENCH_KMSG=/dev/null",
                    "\u00e9", "nokaslr\n"):
            for cmd in (["measure"], ["compare-check", "aa"]):
                rc, out = support.options_only(*cmd, "--kernel-arg", bad)
                self.assertEqual(rc, 2, bad)
                self.assertIn("want one parameter of the kernel's command "
                              "line", out)
        for own in ("init=/bin/sh", "rdinit=/bin/sh", "console=tty0",
                    "panic=0", "oops=continue", "loglevel=8"):
            rc, out = support.options_only("measure", "--kernel-arg", own)
            self.assertEqual(rc, 2, own)
            self.assertIn("is the guests' own", out)
        rc, out = support.options_only("measure", "--kernel-arg=--")
        self.assertEqual(rc, 2)
        for dash in ("--kernel-arg=--foo", "--kernel-arg=-x", "--kernel-arg=.a"):
            rc, out = support.options_only("measure", dash)
            self.assertEqual(rc, 2, dash)
            self.assertIn("want one parameter", out)
        rc, out = support.options_only("measure", *["--kernel-arg",
                                                    "x=" + "y" * 200] * 6)
        self.assertEqual(rc, 2)
        self.assertIn("over 1024 characters in all", out)
        rc, out = support.options_only("measure", "--kaslr", "--kernel-arg",
                                       "nokaslr")
        self.assertEqual(rc, 2)
        self.assertIn("one or the other", out)

    def test_a_kernel_arg_of_one_side(self):
        # One kernel under a knob against itself without it.
        from mmbench_tool import measure
        args = self.measure_args(
            "--kernel-arg", "mitigations=off", "--b-kernel-arg",
            "sysctl.vm.percpu_pagelist_high_fraction=100000")
        self.assertEqual(measure.Side("A", args).args.kernel_arg,
                         ["nokaslr", "mitigations=off"])
        self.assertEqual(measure.Side("B", args).args.kernel_arg,
                         ["nokaslr", "mitigations=off",
                          "sysctl.vm.percpu_pagelist_high_fraction=100000"])
        for side in "ab":
            for bad, says in (("a b", "want one parameter"),
                              ("console=ttyS1", "is the guests' own"),
                              ("FOO=1", "want one parameter")):
                rc, out = support.options_only(
                    "measure", f"--{side}-kernel-arg", bad)
                self.assertEqual(rc, 2, out)
                self.assertIn(f"--{side}-kernel-arg ", out)
                self.assertIn(says, out)
        rc, out = support.options_only("measure", "--b-kernel-arg",
                                       "x=" + "y" * 1100)
        self.assertIn("--kernel-arg and --b-kernel-arg: over 1024", out)

    def test_measure_takes_fewer_samples_unless_told(self):
        from mmbench_tool import measure
        self.assertIn(f"samples={measure.COMPARE_SAMPLES}",
                      self.side_params())
        self.assertEqual(self.side_params("--param", "samples=9"),
                         ["samples=9"])
        self.assertNotIn(f"samples={measure.COMPARE_SAMPLES}",
                         self.side_params("--env",
                                          "MMBENCH_PARAMS=samples=5"))


class FoundPerRow(unittest.TestCase):
    """compare-check aa's view of the goal: each row of B made slower
    alone, does compare find it?"""

    def test_each_row_alone(self):
        from mmbench_tool import comparecheck
        rng = random.Random(41)
        rows = {f"row{i}": (100 + 10 * i, 0.004) for i in range(8)}
        quiet = dict(busy=0, outliers=0, rows=rows)
        a, b = synthetic(rng, **quiet), synthetic(rng, **quiet)
        self.assertEqual(comparecheck.found_per_row(a, b, 10, "common"),
                         {r: True for r in rows})
        self.assertFalse(any(comparecheck.found_per_row(a, b, 0, "common")
                             .values()))

    def test_goal_line(self):
        from mmbench_tool import comparecheck
        per = [{"x": True, "y": False}, {"x": True, "y": True}]
        self.assertEqual(comparecheck.goal_line(per),
                         "+2 % added to each row of B in turn: found 3 "
                         "times in 4 (75% of the rows a comparison, goal "
                         "80%); rows found in 80% of the comparisons or "
                         "more: 1 of 2")
        self.assertIsNone(comparecheck.goal_line([]))


class SamplingOptions(unittest.TestCase):
    def test_one_side_sampled_otherwise_refused_before_anything(self):
        for opt in ("--b-param", "--a-param"):
            rc, out = support.options_only("measure", opt, "samples=9")
            self.assertEqual(rc, 2, out)
            self.assertIn("sampled differently", out)
            self.assertIn("samples=3", out)
        rc, out = support.options_only("measure", "--aa", "--param",
                                       "samples=9")
        self.assertIsNone(rc, out)
        rc, out = support.options_only("measure", "--b-param", "cpu=1")
        self.assertIsNone(rc, out)

    def test_slow_into_replaced_not_added(self):
        # ./mmbench test's B side: its calibrated slow_into replaces the
        # first one, whatever Side() appended after it.
        from mmbench_tool import comparecheck
        self.assertEqual(
            comparecheck.with_param(["benchmarks=x", "slow_into=r:1",
                                     "samples=3"], "slow_into=r:7"),
            ["benchmarks=x", "samples=3", "slow_into=r:7"])


class ReuseRefusals(unittest.TestCase):
    """compare-check --reuse of a folder that lacks what it would read:
    a clear error before anything in it is rewritten."""

    def args(self, d, what="aa", comparisons=2):
        import argparse

        from mmbench_tool import options
        # --boots (and with known --loads) as their defaults: --reuse
        # refuses what it would ignore.
        return argparse.Namespace(reuse=str(d), comparisons=comparisons,
                                  boots=options.DEFAULT_BOOTS,
                                  loads=options.DEFAULT_LOADS, what=what,
                                  norm=compare.DEFAULT_NORM)

    def test_missing_comparisons_or_folders(self):
        from mmbench_tool import comparecheck
        from mmbench_tool.common import Failure
        rng = random.Random(61)
        with tempfile.TemporaryDirectory() as d:
            c = write_aa(d, [(synthetic(rng), synthetic(rng))])
            with unittest.mock.patch.object(comparecheck.deps, "ensure"):
                with self.assertRaisesRegex(
                        Failure, r"no aa02/A.jsonl .*--comparisons 2 asks "
                        r"for 2, the folder has 1"):
                    comparecheck.cmd_compare_check(self.args(d))
                self.assertFalse((c / "compare.json").exists())
                for where in (Path(d) / "none", c / "A.jsonl"):
                    with self.assertRaisesRegex(Failure, "--reuse"):
                        comparecheck.cmd_compare_check(
                            self.args(where, "aa", 1))
                with self.assertRaisesRegex(Failure, "no calibration.json"):
                    comparecheck.cmd_compare_check(self.args(d, "known", 1))
                # A bad archive: said, not a traceback.
                (c / "B.jsonl").write_text('{"type": "run", "boot": 1}\n'
                                           '{"type": "row", "load": "x"}\n')
                with self.assertRaisesRegex(Failure, "compare-check aa"):
                    comparecheck.cmd_compare_check(self.args(d, "aa", 1))

    def test_not_comparable_is_no_answer(self):
        from mmbench_tool import comparecheck
        rng = random.Random(62)
        with tempfile.TemporaryDirectory() as d:
            a, b = synthetic(rng), synthetic(rng)
            b.runs[0]["params"] = {"module": ["samples=3"]}
            c = write_aa(d, [(a, b)])
            with unittest.mock.patch.object(comparecheck.deps, "ensure"):
                rc = comparecheck.cmd_compare_check(self.args(d, "aa", 1))
            self.assertEqual(rc, 2)
            self.assertIn("1 comparisons NOT COMPARABLE",
                          (c.parent / "check.txt").read_text())


class FirstLoads(unittest.TestCase):
    def test_each_boots_first(self):
        rng = random.Random(51)
        a = synthetic(rng, boots=2, loads=8)
        cut = a.where(loads=5)
        self.assertEqual(len(cut.medians()), 10)
        self.assertEqual({k[1] for k in cut.medians()}, set(range(1, 6)))
        self.assertEqual(len(a.where(loads=50).medians()), 16)
        first = a.runs[0]["boot"]
        one = a.where(boots={first}, loads=3)
        self.assertEqual([r["boot"] for r in one.runs], [first])
        self.assertEqual(set(one.medians()), {(first, n) for n in (1, 2, 3)})


class GuestTime(unittest.TestCase):
    def test_said_per_kernel(self):
        from mmbench_tool import comparecheck
        with tempfile.TemporaryDirectory() as d:
            for n, secs in ((1, {"A": 100, "B": 110}),
                            (2, {"A": 90, "B": 130})):
                (Path(d) / f"aa{n:02d}").mkdir()
                (Path(d) / f"aa{n:02d}" / comparecheck.GUEST_TIME).write_text(
                    json.dumps(secs))
            line = comparecheck.guest_time(Path(d) / f"aa{n:02d}"
                                           for n in (1, 2, 3))
            self.assertEqual(line, "guest time a kernel and comparison: "
                             "median 105 s, most 130 s (goal: at most "
                             "120 s)")
            self.assertIsNone(comparecheck.guest_time([Path(d) / "none"]))


class Options(unittest.TestCase):
    def test_counts_refused_before_anything(self):
        for argv, says in ((["measure", "--boots", "0"], "--boots"),
                           (["measure", "--loads", "1"], "--loads"),
                           (["compare-check", "aa", "--comparisons", "0"],
                            "--comparisons")):
            rc, out = support.options_only(*argv)
            self.assertEqual(rc, 2, out)
            self.assertIn(says, out)

    def test_measure_accepts_the_defaults(self):
        rc, _out = support.options_only("measure", "--aa")
        self.assertIsNone(rc)

    def test_measure_of_a_kernel_against_itself_needs_aa(self):
        # A new user's bare ./mmbench measure started 16 boots of the
        # stock kernel against itself, saying nothing.
        for argv in ((), ("--param", "samples=5"),
                     ("--kernel-arg", "mitigations=off")):
            rc, out = support.options_only("measure", *argv)
            self.assertEqual(rc, 2, out)
            self.assertIn("A and B are one kernel with the same "
                          "parameters", out)
            self.assertIn("--aa", out)
        for argv in (("--b-param", "cpu=1"),
                     ("--b-kernel-arg", "mitigations=off"), ("--aa",)):
            rc, out = support.options_only("measure", *argv)
            self.assertIsNone(rc, out)

    def test_compare_of_one_folder_that_does_not_exist(self):
        rc, out = support.options_only("compare", "/nonexistent-a")
        self.assertEqual(rc, 2)
        self.assertIn("error: /nonexistent-a: does not exist\n", out)

    def test_compare_wants_two_archives(self):
        rc, out = support.options_only("compare", "/nonexistent-a",
                                       "/nonexistent-b")
        self.assertEqual(rc, 2)
        self.assertIn("/nonexistent-a: does not exist", out)

    def test_compare_output_that_is_a_file(self):
        # Refused before the comparison: it once printed every verdict,
        # then failed writing compare.txt.
        with tempfile.TemporaryDirectory() as tmp:
            a, b, o = (Path(tmp) / n for n in ("A.jsonl", "B.jsonl", "o"))
            for p in (a, b, o):
                p.write_text("")
            for out_dir in (o, o / "sub", o / "sub" / "dir"):
                rc, out = support.options_only("compare", str(a), str(b),
                                               "-o", str(out_dir))
                self.assertEqual(rc, 2)
                self.assertEqual(out.strip().splitlines()[-1],
                                 f"mmbench: error: -o {out_dir}: {o} is a "
                                 "file; want a folder for compare.txt, "
                                 "compare.json and the plots")

    def test_compare_output_that_cannot_be_made(self):
        # Refused before the comparison, as a file is: it printed every
        # verdict, then failed making the folder (exit 2, hiding a
        # REGRESSION's 1).
        with tempfile.TemporaryDirectory() as tmp:
            a, b = (Path(tmp) / n for n in ("A.jsonl", "B.jsonl"))
            for p in (a, b):
                p.write_text("")
            rc, out = support.options_only("compare", str(a), str(b),
                                           "-o", "/proc/mmbench-nope")
        self.assertEqual(rc, 2)
        self.assertEqual(out.strip().splitlines()[-1], "mmbench: error: -o "
                         "/proc/mmbench-nope: No such file or directory")

    def test_compare_output_that_cannot_be_written(self):
        # /proc is a folder: making it is no error, writing in it is.
        # Refused before the verdicts, which once came first (a
        # REGRESSION, then exit 2).
        rng = random.Random(5)
        with tempfile.TemporaryDirectory() as tmp:
            a, b = (Path(tmp) / n for n in ("A.jsonl", "B.jsonl"))
            same = synthetic(rng)
            archive.write(a, same.runs + same.rows)
            slow = synthetic(rng, shift={"row00": 50})
            archive.write(b, slow.runs + slow.rows)
            rc, out = support.options_only("compare", str(a), str(b),
                                           "-o", "/proc")
        self.assertEqual(rc, 2, out)
        self.assertEqual(out.strip().splitlines()[-1], "mmbench: error: -o "
                         "/proc: cannot write a file there: No such file "
                         "or directory")

    def test_compare_output_whose_files_cannot_be_written(self):
        # The folder takes a new file, but compare.txt is a folder there:
        # said before any verdict, which once came first (a REGRESSION,
        # then exit 2).
        rng = random.Random(5)
        with tempfile.TemporaryDirectory() as tmp:
            a, b, o = (Path(tmp) / n for n in ("A.jsonl", "B.jsonl", "o"))
            same = synthetic(rng)
            archive.write(a, same.runs + same.rows)
            slow = synthetic(rng, shift={"row00": 50})
            archive.write(b, slow.runs + slow.rows)
            (o / "compare.txt").mkdir(parents=True)
            out = io.StringIO()
            with contextlib.redirect_stdout(out), \
                    self.assertRaises(Failure) as e:
                measure.run_compare([a], [b], compare.DEFAULT_NORM, o,
                                    plot=False)
        self.assertEqual(out.getvalue(), "")
        self.assertEqual(str(e.exception), f"{o}: cannot write the "
                         "comparison: compare.txt: Is a directory")

    def test_refused_archives_leave_no_output_folder(self):
        with tempfile.TemporaryDirectory() as tmp:
            a, b = (Path(tmp) / n for n in ("A.jsonl", "B.jsonl"))
            for p in (a, b):
                p.write_text("garbage\n")
            rc, out = support.options_only("compare", str(a), str(b),
                                           "-o", f"{tmp}/new/sub")
            self.assertEqual(rc, 2, out)
            self.assertIn("mmbench: error: compare: ", out)
            self.assertEqual(sorted(p.name for p in Path(tmp).iterdir()),
                             ["A.jsonl", "B.jsonl"])

    def test_a_path_the_system_will_not_look_at(self):
        # A name too long for the system: said, exit 2, not a traceback
        # and exit 1 (which compare uses for a REGRESSION).
        long = "/tmp/" + "a" * 300
        with tempfile.TemporaryDirectory() as tmp:
            a = Path(tmp) / "A.jsonl"
            a.write_text("")
            for argv in (["compare", str(a), str(a), "-o", long + "/x"],
                         ["compare", str(a), long],
                         ["compare", long],
                         ["compare-check", "aa", "--reuse", long],
                         ["compare-check", "split", "--reuse", long]):
                with self.subTest(argv=argv[:2] + [argv[-1][-3:]]):
                    rc, out = support.options_only(*argv)
                    self.assertEqual(rc, 2, out)
                    self.assertIn("File name too long", out)
                # From Python 3.14 on, exists() and is_dir() say False
                # for any error instead of raising it.
                with self.subTest(python="3.14", argv=argv[:2]), \
                        unittest.mock.patch.object(Path, "exists",
                                                   _exists_3_14), \
                        unittest.mock.patch.object(Path, "is_dir",
                                                   _is_dir_3_14):
                    rc, out = support.options_only(*argv)
                    self.assertEqual(rc, 2, out)
                    self.assertIn("File name too long", out)

    def test_empty_paths(self):
        # Path("") is the current folder: not what an empty argument
        # (an unset variable) means.
        for args, name in ((["compare", "A", "B", "-o", ""], "-o/--output"),
                           (["compare", "", "B"], "A"),
                           (["fleet", ""], "archive"),
                           (["run", "--kernel", ""], "--kernel")):
            rc, out = support.options_only(*args)
            self.assertEqual(rc, 2, args)
            self.assertIn(f"error: argument {name}: an empty path", out)

    def test_fleet_of_no_file(self):
        rc, out = support.options_only("fleet", "/nonexistent-a.jsonl")
        self.assertEqual(rc, 2)
        self.assertIn("error: /nonexistent-a.jsonl: does not exist\n", out)
        # The README's path after a run without --loads: say what makes one.
        with tempfile.TemporaryDirectory() as tmp:
            (Path(tmp) / "mmbench_test.ktap").write_text("")
            rc, out = support.options_only(
                "fleet", str(Path(tmp) / "archive.jsonl"))
        self.assertEqual(rc, 2)
        self.assertIn("archive.jsonl: does not exist; a plain ./mmbench run "
                      "keeps no archive: ./mmbench run --loads N writes one",
                      out)

    def test_compare_of_one_device(self):
        rc, out = support.options_only("compare", "/dev/null")
        self.assertEqual(rc, 2)
        self.assertIn("/dev/null: neither a folder nor an archive", out)

    def test_compare_of_one_archive_alone(self):
        with tempfile.TemporaryDirectory() as tmp:
            one = Path(tmp) / "A.jsonl"
            one.write_text("")
            rc, out = support.options_only("compare", str(one))
        self.assertEqual(rc, 2)
        self.assertIn("A.jsonl: one archive: give A and B", out)

    def test_compare_usage_says_a_and_b(self):
        import contextlib
        import io

        from mmbench_tool import cli
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), \
                self.assertRaises(SystemExit):
            cli.main(["compare", "-h"])
        self.assertIn(" A [B]\n", out.getvalue())
        with contextlib.redirect_stderr(err), \
                self.assertRaises(SystemExit) as ex:
            cli.main(["compare", "a", "b", "c"])
        self.assertEqual(ex.exception.code, 2)
        self.assertIn("unrecognized arguments: c", err.getvalue())


if __name__ == "__main__":
    unittest.main()
