"""./mmbench run judges what the guest printed (a fake QEMU prints it)."""
import unittest

import support

FIGURES = """\
# kmalloc_64.status=pass
# kmalloc_64.ns_per_op_median=171.763
# kmalloc_64.ceiling_ns=20000.000
""".splitlines()


class Selection(unittest.TestCase):
    def run_guest(self, ktap_lines, *argv):
        fake = support.FakeGuest(support.suite_lines(ktap_lines))
        self.addCleanup(fake.close)
        return fake.run("run", "--accel", "tcg", *argv)

    def test_nothing_measured_is_an_error(self):
        """Every case skipped: exit 1, naming what was asked for."""
        rc, out = self.run_guest([
            "TAP version 13", "1..3",
            "ok 1 mmbench.alloc_pages_concurrent.run # SKIP "
            "alloc_pages_concurrent: needs two online CPUs",
            "ok 2 context.fingerprint",
            "ok 3 ndelay.slope # SKIP ndelay is not in the benchmarks= "
            "of MMBENCH_PARAMS"],
            "--param", "benchmarks=alloc_pages_concurrent")
        self.assertEqual(rc, 1, out)
        self.assertIn("FAIL: the run measured something "
                      "(benchmarks=alloc_pages_concurrent: every case "
                      "skipped", out)
        self.assertIn("needs two online CPUs", out)

    def test_no_figures_is_an_error(self):
        rc, out = self.run_guest([
            "TAP version 13", "1..2", "ok 1 mmbench.kmalloc.run",
            "ok 2 context.fingerprint"])
        self.assertEqual(rc, 1, out)
        self.assertIn("FAIL: the run measured something (every benchmark: "
                      "no row printed figures", out)

    def test_a_measured_row_passes(self):
        rc, out = self.run_guest(
            ["TAP version 13", "1..2"] + FIGURES +
            ["ok 1 mmbench.kmalloc.run", "ok 2 context.fingerprint"],
            "--param", "benchmarks=kmalloc")
        self.assertEqual(rc, 0, out)
        self.assertIn("PASS: the run measured something", out)


if __name__ == "__main__":
    unittest.main()
