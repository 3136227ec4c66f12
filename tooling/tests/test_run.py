"""./mmbench run judges what the guest printed (a fake QEMU prints it)."""
import tempfile
import unittest
from pathlib import Path

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

    def test_the_commonest_skip_reason_first(self):
        """A module not installed for the kernel skips every case: that
        reason leads, not the first three in alphabetical order (a new
        user's trial), and no case at all is not "every case skipped"."""
        missing = "module test_mmbench is not installed for this kernel"
        rc, out = self.run_guest(
            ["TAP version 13", "1..5",
             "ok 1 a.run # SKIP a: alone",
             "ok 2 b.run # SKIP " + missing,
             "ok 3 c.run # SKIP " + missing,
             "ok 4 d.run # SKIP " + missing,
             "ok 5 context.fingerprint"])
        self.assertEqual(rc, 1, out)
        self.assertIn("every case skipped: " + missing + "; a: alone", out)
        rc, out = self.run_guest(["TAP version 13", "1..0"])
        self.assertEqual(rc, 1, out)
        self.assertIn("FAIL: the run measured something (every benchmark: "
                      "no case ran)", out)

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

    def test_qemu_spoilt_both_boots(self):
        """A warning with EFLAGS no x86 CPU sets in both boots: QEMU's
        fault (tooling/doc/compare-method.md), no verdict on the
        kernel: exit 2, QEMU named in the failed check."""
        ktap_lines = ["TAP version 13", "1..2"] + FIGURES + [
            "ok 1 mmbench.kmalloc.run", "ok 2 context.fingerprint"]
        for flags, rc_want in (("41541022", 2), ("00010246", 1)):
            fake = support.FakeGuest(
                support.suite_lines(ktap_lines), console=[
                    "[    4.9] WARNING: CPU: 0 PID: 242 at arch/x86/kernel/"
                    "traps.c:1120 exc_debug_kernel",
                    f"[    4.9] RSP: 0018:ffffce52004877c0 EFLAGS: {flags}"])
            self.addCleanup(fake.close)
            rc, out = fake.run("run", "--accel", "tcg")
            self.assertEqual(rc, rc_want, out)
            self.assertEqual(len(fake.commands()), rc_want, out)
            spoilt = "still shows EFLAGS 41541022, bits no x86 CPU sets: " \
                "QEMU's fault"
            self.assertEqual(spoilt in out, rc_want == 2, out)
            self.assertEqual("suite NOT JUDGED" in out, rc_want == 2, out)
            self.assertIn("FAIL: no oops, BUG or WARN", out)



# A row as the test program prints it, "none" where it kept no sample.
ROW = """\
# kmalloc_64.status=pass
# kmalloc_64.reason=
# kmalloc_64.group=slab
# kmalloc_64.cpu=0
# kmalloc_64.context=preempt
# kmalloc_64.samples=3
# kmalloc_64.noise_pct=2.500
# kmalloc_64.ns_per_op_min=170.611
# kmalloc_64.ns_per_op_median=171.763
# kmalloc_64.ns_per_op_mad=6.119
# kmalloc_64.net_ns_per_op=170.500
# kmalloc_64.net_cycles_per_op=none
# kmalloc_64.sample_ns=171.763 170.611 180.002
# kmalloc_64.ceiling_ns=20000.000
# kmalloc_64.ceiling=enforced (default for an emulated machine)
# kmalloc_8.status=unsupported
# kmalloc_8.reason=5 allocation calls failed
# run1.baseline_drift_pct=4.451
# fingerprint.release=6.12-fake
# fingerprint.preempt=voluntary
""".splitlines()


class ResultsJson(unittest.TestCase):
    """Every run leaves results.json, which json.tool reads, with the
    rows' figures as numbers: a robot need not parse the KTAP."""

    def run_guest(self, ktap_lines, *argv, verdict="ok"):
        fake = support.FakeGuest(support.suite_lines(ktap_lines, verdict))
        self.addCleanup(fake.close)
        rc, out = fake.run("run", "--accel", "tcg", *argv)
        return rc, out, fake

    def results(self, fake):
        import json
        return json.loads((fake.results[-1] / "results.json").read_text())

    def test_rows_and_figures_as_numbers(self):
        import subprocess
        import sys
        rc, out, fake = self.run_guest(
            ["TAP version 13", "1..2"] + ROW +
            ["ok 1 mmbench.kmalloc.run",
             "ok 2 ndelay.slope # SKIP clock too coarse"])
        self.assertEqual(rc, 0, out)
        path = fake.results[0] / "results.json"
        self.assertIn(f"results.json (rows, figures, verdicts, "
                      f"fingerprint): {path}", out)
        # What the done-when asks: json.tool reads it.
        subprocess.run([sys.executable, "-m", "json.tool", str(path)],
                       check=True, stdout=subprocess.DEVNULL)
        doc = self.results(fake)
        self.assertEqual(doc["schema"], 2)
        self.assertEqual((doc["outcome"], doc["exit_status"],
                          doc["verdict"], doc["finished"]),
                         ("passed", 0, "pass", True))
        self.assertTrue(doc["mmbench"])
        self.assertEqual(doc["kernel"]["release"], "6.12-fake")
        self.assertEqual(doc["kernel"]["preempt"], "voluntary")
        self.assertEqual(doc["fingerprint"]["accel"], "tcg")
        self.assertEqual((doc["guest"]["cpus"], doc["guest"]["memory_mib"],
                          doc["guest"]["accel"]), (2, 1024, "tcg"))
        self.assertEqual(doc["cases"], [
            {"number": 1, "name": "mmbench.kmalloc.run", "result": "pass",
             "reason": ""},
            {"number": 2, "name": "ndelay.slope", "result": "skip",
             "reason": "clock too coarse"}])
        self.assertEqual(doc["counts"], {"pass": 1, "fail": 0, "skip": 1})
        rows = {r["row"]: r for r in doc["rows"]}
        self.assertEqual(list(rows), ["kmalloc_8", "kmalloc_64"])
        row = rows["kmalloc_64"]
        self.assertEqual(row["ns_per_op_median"], 171.763)
        self.assertIsInstance(row["ns_per_op_median"], float)
        self.assertEqual((row["samples"], row["cpu"], row["noise_pct"]),
                         (3, 0, 2.5))
        self.assertEqual(row["sample_ns"], [171.763, 170.611, 180.002])
        self.assertIsNone(row["net_cycles_per_op"])
        self.assertEqual((row["status"], row["reason"], row["ceiling_ns"],
                          row["vs_ceiling"], row["case"]),
                         ("pass", "", 20000.0, "under",
                          "mmbench.kmalloc.run"))
        self.assertEqual(rows["kmalloc_8"]["reason"],
                         "5 allocation calls failed")
        self.assertEqual(doc["other_figures"],
                         {"run1": {"baseline_drift_pct": 4.451}})
        self.assertTrue(all(c["ok"] for c in doc["checks"]), doc["checks"])
        self.assertEqual(doc["files"]["ktap"], "mmbench_test.ktap")
        self.assertIsNone(doc["archive"])

    def test_a_failed_run(self):
        rc, out, fake = self.run_guest(
            ["TAP version 13", "1..1"] + ROW +
            ["not ok 1 mmbench.kmalloc.run"], verdict="not ok")
        self.assertEqual(rc, 1, out)
        doc = self.results(fake)
        self.assertEqual((doc["outcome"], doc["exit_status"],
                          doc["verdict"]), ("failed", 1, "fail"))
        self.assertEqual(doc["cases"][0]["result"], "fail")
        failed = [c for c in doc["checks"] if not c["ok"]]
        self.assertIn("mmbench_test: 0 passed, 1 failed, 0 skipped",
                      [c["check"] for c in failed])

    def test_written_when_a_step_fails(self):
        """QEMU exits with an error: the run stops (exit 2), and
        results.json has the error and what guest.log kept."""
        rc, out, fake = self.run_guest(
            ["TAP version 13", "1..1"] + ROW + ["ok 1 mmbench.kmalloc.run"])
        for qemu in (fake.dir / "bin").glob("qemu-system-*"):
            qemu.write_text(qemu.read_text().replace("exit 0", "exit 3"))
        rc, out = fake.run("run", "--accel", "tcg")
        self.assertEqual(rc, 2, out)
        doc = self.results(fake)
        self.assertEqual((doc["outcome"], doc["exit_status"]), ("error", 2))
        self.assertIn("exited with 3", doc["error"])
        self.assertEqual(doc["rows"][1]["ns_per_op_median"], 171.763)
        self.assertEqual(doc["checks"], [])

    def test_the_terminal_shows_progress_and_the_table(self):
        """The figures' "# " lines (a thousand in a full run) stay in the
        results folder; the terminal has each case's result and the
        table, and every line with --raw-output."""
        lines = ["TAP version 13", "1..1"] + ROW + \
            ["ok 1 mmbench.kmalloc.run"]
        rc, out, fake = self.run_guest(lines)
        self.assertEqual(rc, 0, out)
        self.assertIn("  | # ok 1 mmbench.kmalloc.run\n", out)
        self.assertIn("  | ok 1 selftests: mm/mmbench: mmbench_test\n", out)
        self.assertNotIn("  | # # kmalloc_64.", out)
        self.assertNotIn("  | # TAP version 13", out)
        self.assertRegex(out, r"\n  kmalloc_64 +pass +preempt +171\.763 ")
        ktap = (fake.results[0] / "mmbench_test.ktap").read_text()
        self.assertIn("# kmalloc_64.ns_per_op_median=171.763\n", ktap)
        for option in ("--raw-output", "--raw"):
            rc, out, fake = self.run_guest(lines, option)
            self.assertEqual(rc, 0, out)
            self.assertIn("  | # # kmalloc_64.ns_per_op_median=171.763\n",
                          out)
            self.assertRegex(out, r"\n  kmalloc_64 +pass +preempt +171\.763 ")

    def test_values(self):
        from mmbench_tool import results
        self.assertEqual(results.value("samples", "9"), 9)
        self.assertEqual(results.value("ns_per_op_mad", "-0.5"), -0.5)
        self.assertEqual(results.value("sample_ns", "1.5"), [1.5])
        self.assertEqual(results.value("sample_ns", "none"), [])
        self.assertIsNone(results.value("baseline_drift_pct", "none"))
        self.assertEqual(results.value("reason", "5"), "5")
        self.assertEqual(results.value("team_cpus", "0-1"), "0-1")
        self.assertEqual(results.value("x_ns", "1e999"), "1e999")


if __name__ == "__main__":
    unittest.main()


class Fragmented(unittest.TestCase):
    """The checks of the suite run in a fragmented guest (fragment.sh)."""

    def checks(self, high):
        import types

        from mmbench_tool import selftest
        lines = ["MMBENCH-FRAGMENT hugepages=57 free_kb=13104 "
                 "top_free_order=8",
                 "# selftests: mm/mmbench: mmbench_test", "# TAP version 13",
                 "# 1..1"]
        for name in ("alloc_pages", "alloc_pages_batch"):
            for o in range(4):
                lines.append(f"# # {name}_order{o}.status=pass")
            for o in (9, 10):
                status, reason = high[f"{name}_order{o}"]
                lines += [f"# # {name}_order{o}.status={status}",
                          f"# # {name}_order{o}.reason={reason}"]
        lines += ["# ok 1 mmbench.alloc_pages.run",
                  "ok 1 selftests: mm/mmbench: mmbench_test",
                  "MMBENCH-FRAGMENT-SUITE-END rc=0",
                  "MMBENCH-FRAGMENT-RELEASED top_free_order=10"]
        with tempfile.TemporaryDirectory() as d:
            got = selftest.fragmented(
                types.SimpleNamespace(fragment=lines), Path(d))
        return {what.split(" (")[0]: (ok, what) for ok, what, _ in got}

    def test_a_block_made_meanwhile_is_no_fault(self):
        failed = ("unsupported", "5 allocation calls failed, 0 objects "
                  "allocated: short of memory")
        rows = {f"{n}_order{o}": failed for n in ("alloc_pages",
                                                  "alloc_pages_batch")
                for o in (9, 10)}
        key = "fragmented: orders 9 and 10 report unsupported: " \
              "allocations failed"
        self.assertTrue(self.checks(rows)[key][0])
        # The kernel found an order-9 block (compaction): it passes.
        made = dict(rows, alloc_pages_order9=("pass", ""))
        ok, what = self.checks(made)[key]
        self.assertTrue(ok)
        self.assertIn("made a block for alloc_pages_order9", what)
        # A fail, or an unsupported row for another reason, is wrong.
        for bad in (("fail", "counter off by 1"), ("unsupported", "other")):
            self.assertFalse(self.checks(
                dict(rows, alloc_pages_order10=bad))[key][0])
        # Blocks made for every one of them: the state was not fragmented.
        self.assertFalse(self.checks(
            {r: ("pass", "") for r in rows})[key][0])



class CoarseClockGuest(unittest.TestCase):
    """The clocksource=jiffies guest adds its argument to its own boot
    only; the options of ./mmbench test stay as they were."""

    def test_this_boot_only(self):
        import argparse
        import unittest.mock
        from mmbench_tool import guest, selftest
        args = argparse.Namespace()
        setup = unittest.mock.Mock(args=args)
        setup.boot.side_effect = RuntimeError("the guest")
        with tempfile.TemporaryDirectory() as d, \
                unittest.mock.patch.object(guest, "results_dir",
                                           return_value=Path(d)):
            with self.assertRaises(RuntimeError):
                selftest.coarse_clock_guest(setup)
        self.assertEqual(setup.boot.call_args.kwargs["kernel_args"],
                         ["clocksource=jiffies"])
        self.assertFalse(hasattr(args, "kernel_arg"))
