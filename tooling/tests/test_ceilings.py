"""A median over its ceiling is marked in the figures table, and every
--ceiling must have been held against a row."""
import contextlib
import io
import unittest

import support
from mmbench_tool import ktap


def row(name, median, ceiling, informational=True, judged=True):
    lines = [f"# {name}.status=pass", f"# {name}.context=preempt",
             f"# {name}.ns_per_op_median={median}",
             f"# {name}.ceiling_ns={ceiling}"]
    if informational:
        lines.append(f"# {name}.ceiling=informational (emulated machine "
                     "(QEMU TCG or similar))")
    else:
        lines.append(f"# {name}.ceiling=enforced (set by "
                     f"MMBENCH_CEILING_{name.upper()})")
    if not judged:
        lines.append(f"# {name}.ceiling=not judged (machine drifted: the "
                     "baseline moved 54.501 % over the run, limit 20 %): "
                     "median is over it")
    return lines


class Table(unittest.TestCase):
    def table_lines(self, ktap_lines):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            ktap.print_table(ktap.figures(ktap_lines))
        return {line.split()[0]: line for line in out.getvalue().splitlines()}

    def test_over_is_marked(self):
        lines = self.table_lines(
            row("kmalloc_64", "171.763", "100.000") +
            row("count_vm_event", "25.000", "20.000", informational=False) +
            row("kmalloc_96", "160.000", "100.000", informational=False,
                judged=False) +
            row("kmalloc_8", "150.100", "20000.000"))
        self.assertIn("vs ceiling", lines["benchmark"])
        self.assertTrue(lines["kmalloc_64"].endswith(
            "100.000  OVER, reported only"), lines["kmalloc_64"])
        self.assertTrue(lines["count_vm_event"].endswith("20.000  OVER"),
                        lines["count_vm_event"])
        self.assertTrue(lines["kmalloc_96"].endswith(
            "100.000  OVER, not judged"), lines["kmalloc_96"])
        self.assertTrue(lines["kmalloc_8"].endswith("20000.000"),
                        lines["kmalloc_8"])

    def test_no_column_when_nothing_is_over(self):
        lines = self.table_lines(row("kmalloc_8", "150.100", "20000.000"))
        self.assertNotIn("vs ceiling", lines["benchmark"])
        self.assertNotIn("OVER", lines["kmalloc_8"])


class Run(unittest.TestCase):
    def run_guest(self, ktap_lines, *argv):
        fake = support.FakeGuest(support.suite_lines(
            ["TAP version 13", "1..1"] + ktap_lines))
        self.addCleanup(fake.close)
        return fake.run("run", "--accel", "tcg", *argv)

    def test_hand_set_ceiling_over_is_said(self):
        rc, out = self.run_guest(
            row("kmalloc_64", "171.763", "100.000") +
            ["ok 1 mmbench.kmalloc.run"], "--ceiling", "kmalloc=100")
        self.assertEqual(rc, 0, out)    # the KTAP's verdict
        self.assertIn("over its ceiling: kmalloc_64 171.763 > 100.000 ns/op "
                      "(--ceiling kmalloc=100), reported only\n", out)
        self.assertIn("the test did not hold a row over its ceiling to it: "
                      "informational: emulated machine (QEMU TCG or "
                      "similar)\n", out)
        self.assertRegex(out, r"kmalloc_64 .* OVER, reported only\n")
        self.assertIn("PASS: every --ceiling was held against a row", out)

    def test_hand_set_ceiling_not_judged_is_said(self):
        rc, out = self.run_guest(
            row("kmalloc_64", "217.913", "100.000", informational=False,
                judged=False) + ["ok 1 mmbench.kmalloc.run"],
            "--ceiling", "kmalloc_64=100")
        self.assertEqual(rc, 0, out)    # the KTAP's verdict
        self.assertIn("over its ceiling: kmalloc_64 217.913 > 100.000 ns/op "
                      "(--ceiling kmalloc_64=100), not judged\n", out)
        self.assertIn("the test did not hold a row over its ceiling to it: "
                      "not judged: machine drifted: the baseline moved "
                      "54.501 % over the run, limit 20 %\n", out)
        self.assertRegex(out, r"kmalloc_64 .* OVER, not judged\n")
        self.assertIn("--ceiling kmalloc_64=100: kmalloc_64 is over it, but "
                      "the run could not judge it: not judged (", out)

    def test_enforced_ceiling_fails_from_the_ktap(self):
        rc, out = self.run_guest(
            row("kmalloc_64", "171.763", "100.000", informational=False) +
            ["# kmalloc_64: median 171.763 ns/op is over the ceiling of "
             "100.000 ns/op", "not ok 1 mmbench.kmalloc.run"],
            "--ceiling", "kmalloc=100")
        self.assertEqual(rc, 1, out)
        self.assertRegex(out, r"kmalloc_64 .* 100\.000  OVER\n")

    def test_ceiling_for_a_row_that_did_not_run(self):
        rc, out = self.run_guest(
            row("kmalloc_64", "171.763", "20000.000") +
            ["ok 1 mmbench.kmalloc.run"], "--ceiling", "kmalloc_100=5")
        self.assertEqual(rc, 1, out)
        self.assertIn("--ceiling kmalloc_100=5 met no row: no such row ran",
                      out)

    def test_benchmark_ceiling_under_a_row_of_its_own(self):
        rc, out = self.run_guest(
            row("alloc_pages_order0", "7000.000", "50000.000") +
            ["ok 1 mmbench.alloc_pages.run"], "--ceiling", "alloc_pages=5")
        self.assertEqual(rc, 1, out)
        self.assertIn("--ceiling alloc_pages=5 met no row (rows with a line "
                      "of their own in the ceilings file keep it: "
                      "alloc_pages_order0)", out)

    def test_benchmark_ceiling_over_some_rows_only(self):
        rc, out = self.run_guest(
            row("alloc_pages_order0", "7000.000", "50000.000") +
            row("alloc_pages_order9", "9000.000", "5.000") +
            ["ok 1 mmbench.alloc_pages.run"], "--ceiling", "alloc_pages=5")
        self.assertEqual(rc, 0, out)
        self.assertIn("--ceiling alloc_pages=5 held alloc_pages_order9 only: "
                      "alloc_pages_order0 have a line of their own", out)


if __name__ == "__main__":
    unittest.main()
