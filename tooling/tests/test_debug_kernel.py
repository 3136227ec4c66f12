"""--debug-kernel: refused with another kernel, keyed by its config, and
a .config that lost an option of the fragment is named."""
import tempfile
import re
import unittest
from pathlib import Path
from unittest import mock

import support
from mmbench_tool import setup as setupmod


class InTempDir(unittest.TestCase):
    """A test with a directory of its own, self.dir, removed after it."""

    def setUp(self):
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        self.dir = Path(tmp.name)


class DebugKernel(InTempDir):
    def test_not_with_another_kernel(self):
        rc, out = support.options_only(
            "run", "--accel", "tcg", "--debug-kernel",
            "--kernel", "/bin/sh", "--headers", "/")
        self.assertEqual(rc, 2, out)
        self.assertIn("--debug-kernel builds the kernel it boots", out)
        rc, out = support.options_only("run", "--accel", "tcg",
                                       "--debug-kernel")
        self.assertIsNone(rc, out)

    def test_key_follows_the_fragment(self):
        from mmbench_tool import debugkernel
        frag = self.dir / "debug.config"
        frag.write_text("CONFIG_KASAN=y\n")
        with mock.patch.object(debugkernel, "FRAGMENTS", (frag,)), \
                mock.patch.object(debugkernel, "tarball_id",
                                  return_value="tarball 1 2"):
            first = debugkernel.key()
            self.assertEqual(first, debugkernel.key())
            frag.write_text("CONFIG_KASAN=y\nCONFIG_DEBUG_VM=y\n")
            self.assertNotEqual(first, debugkernel.key())

    def test_missed_options_named(self):
        from mmbench_tool import kernels
        frag = self.dir / "debug.config"
        frag.write_text("CONFIG_KASAN=y\n# CONFIG_SLUB_TINY is not set\n"
                        "CONFIG_LOCALVERSION=\"-x\"\n")
        config = self.dir / ".config"
        config.write_text("CONFIG_SLUB_TINY=y\nCONFIG_LOCALVERSION=\"-x\"\n")
        self.assertEqual(kernels.missed(config.read_text(), [frag]),
                         ["CONFIG_KASAN=y (got n)",
                          "CONFIG_SLUB_TINY=n (got y)"])

    def test_leaks_after_rmmod(self):
        from mmbench_tool import ktap
        clean = ["MMBENCH-KMEMLEAK-BEGIN loaded=0", "MMBENCH-KMEMLEAK-END"]
        out = setupmod.GuestOutput(clean, self.dir / "console.log")
        self.assertTrue(all(c[0] for c in setupmod.leaks(out, self.dir)))
        dirty = ["MMBENCH-KMEMLEAK-BEGIN loaded=1",
                 "MMBENCH-SLAB mmbench 0 0 256 16 1 : tunables",
                 "unreferenced object 0xffff888003a1c000 (size 64):",
                 "  comm \"insmod\", pid 80, jiffies 4294937296",
                 "MMBENCH-KMEMLEAK-END"]
        out = setupmod.GuestOutput(dirty, self.dir / "console.log")
        checks = setupmod.leaks(out, self.dir)
        self.assertEqual([c[0] for c in checks], [False, False, False])
        self.assertIn("1: unreferenced object 0xffff888003a1c000", checks[1][2])
        self.assertEqual(checks[2][2], "left: mmbench")
        # No kmemleak (the stock kernel): no check at all.
        out = setupmod.GuestOutput(["MMBENCH-GUEST-END"], self.dir / "c.log")
        self.assertEqual(setupmod.leaks(out, self.dir), [])
        for line in ("BUG: KASAN: slab-use-after-free in mmbench_pop+0x1/0x2",
                     "INFO: trying to register non-static key.",
                     "kmemleak: 2 new suspected memory leaks (see "
                     "/sys/kernel/debug/kmemleak)",
                     "BUG: sleeping function called from invalid context "
                     "at mm/slub.c:4100",
                     "WARNING: possible circular locking dependency "
                     "detected"):
            self.assertEqual(ktap.bad_kernel_lines([line]), [line])
        self.assertEqual(ktap.bad_kernel_lines(
            ["kmemleak: Kernel memory leak detector initialized (mem "
             "pool available: 15999)"]), [])



class DebugKernelChecks(InTempDir):
    def test_prune_keeps_the_current_kernel_and_the_source(self):
        from mmbench_tool import debugkernel
        import os
        import time
        for name in ("src", "aaa", "bbb", "ccc", "notakernel"):
            (self.dir / "debug-kernel" / name).mkdir(parents=True)
        for name in ("aaa", "bbb", "ccc"):
            (self.dir / "debug-kernel" / name / "build.log").write_text("")
        # aaa is old; ccc was built days ago, within the days kept, by
        # another clone maybe.
        old = time.time() - (debugkernel.PRUNE_DAYS + 1) * 86400
        os.utime(self.dir / "debug-kernel/aaa/build.log", (old, old))
        recent = time.time() - (debugkernel.PRUNE_DAYS - 1) * 86400
        os.utime(self.dir / "debug-kernel/ccc/build.log", (recent, recent))
        with mock.patch.object(debugkernel, "WHERE",
                               self.dir / "debug-kernel"), \
                mock.patch.object(debugkernel, "say"):
            debugkernel.prune("bbb")
        self.assertEqual(sorted(p.name for p in
                                (self.dir / "debug-kernel").iterdir()),
                         ["bbb", "ccc", "notakernel", "src"])

    def test_each_kind_of_report_counted(self):
        from mmbench_tool import ktap
        log = ["BUG: KASAN: slab-use-after-free in team_op+0x1/0x2",
               "BUG: sleeping function called from invalid context at x",
               "WARNING: possible circular locking dependency detected",
               "WARNING: CPU: 0 PID: 1 at mm/slub.c:1 f+0x1/0x2",
               "kmemleak: 2 new suspected memory leaks (see /sys/...)",
               "unreferenced object 0xffff888003a1c000 (size 64):",
               "mmbench-faults: begin",
               "mmbench/0: page allocation failure: order:0, mode:0xcc0",
               "Call Trace:", " </TASK>",
               "mmbench-faults: end"]
        self.assertEqual(ktap.report_counts(log), {
            "KASAN": 1, "sleeping function called from invalid context": 1,
            "lockdep": 1, "kmemleak": 2, "WARN": 1, "BUG or oops": 0})
        self.assertEqual(ktap.injected_failure_reports(log)[0], 1)

    def test_a_section_that_skips_is_required_on_the_debug_kernel(self):
        from mmbench_tool import selftest
        skip = ["KTAP version 1",
                "1..0 # SKIP no failslab and fail_page_alloc in this kernel"]
        with mock.patch.object(selftest, "say"):
            stock = selftest.section_checks(skip, "fault injection",
                                            self.dir / "f.ktap",
                                            required=False)
            debug = selftest.section_checks(skip, "fault injection",
                                            self.dir / "f.ktap", required=True)
            missing = selftest.section_checks(None, "fault injection",
                                              self.dir / "f.ktap")
            short = selftest.section_checks(["1..2", "ok 1 a"], "x",
                                            self.dir / "x.ktap")
        self.assertEqual([c[0] for c in stock], [True])
        self.assertEqual([c[0] for c in debug], [False])
        self.assertFalse(missing[0][0])
        self.assertEqual([c[0] for c in short], [True, True, False, True])

    def test_results_numbered_in_order(self):
        # negative.sh once reused its KTAP counter n for a count of rows:
        # every later result was numbered 64, 65, ...
        from mmbench_tool import selftest
        with mock.patch.object(selftest, "say"):
            good = selftest.section_checks(["1..2", "ok 1 a", "ok 2 b"], "x",
                                           self.dir / "x.ktap")
            bad = selftest.section_checks(["1..3", "ok 1 a", "ok 64 b",
                                           "ok 65 c"], "x",
                                          self.dir / "x.ktap")
        self.assertTrue(all(c[0] for c in good))
        (ok, _, why), = [c for c in bad if "numbered in order" in c[1]]
        self.assertFalse(ok)
        self.assertEqual(why, "result 2 is numbered 64")
        # The scripts set n only as their result counter.
        for script in ("negative.sh", "faults.sh"):
            text = (selftest.REPO / "tooling/guest" / script).read_text()
            self.assertEqual(
                [line for line in text.splitlines()
                 if re.match(r"\s*n=", line) and line.strip() not in
                 ("n=0", "n=$((n + 1))")], [], script)

    def test_the_debug_kernel_runs_every_row(self):
        # It was tinyconfig without memory cgroups or NUMA: the accounted
        # and remote-node rows were unsupported there, and nothing said so.
        from mmbench_tool import kernels
        frag = kernels.DEBUG_CONFIG.read_text().splitlines()
        for option in ("CONFIG_CGROUPS=y", "CONFIG_MEMCG=y", "CONFIG_NUMA=y",
                       "CONFIG_X86_64_ACPI_NUMA=y"):
            self.assertIn(option, frag)

    def test_rows_that_did_not_run_are_named(self):
        from mmbench_tool import selftest

        def out(rows, reasons=None):
            test = "mm/mmbench: mmbench_test"
            lines = ["MMBENCH-GUEST-BEGIN", f"# selftests: {test}"]
            lines += [f"# # {r}.status={st}" for r, st in rows.items()]
            lines += [f"# # {r}.reason={(reasons or {}).get(r, 'why ' + r)}"
                      for r in rows]
            lines += [f"ok 1 selftests: {test}", "MMBENCH-SUITE-END"]
            return setupmod.GuestOutput(lines, self.dir / "console.log")

        good = {"kmalloc_account_64": "pass",
                "alloc_pages_remote_node_order0": "noisy",
                "alloc_pages_contended_cpus2": "pass"}
        # The test's own judgement of a coarse clock is the guest's, not
        # a row the module could not run: CI's debug guest once had
        # "kmem_cache_account_96: unsupported: ktime_get_ns() steps by
        # 11130 ns: a sample of 950890 ns is under 100 steps".
        coarse = {"kmem_cache_account_96": "unsupported"}
        ok, what, _ = selftest.rows_ran_check(
            out(dict(good, **coarse),
                {"kmem_cache_account_96": "ktime_get_ns() steps by 11130 "
                 "ns: a sample of 950890 ns is under 100 steps"}), self.dir)
        self.assertTrue(ok, what)
        ok, what, _ = selftest.rows_ran_check(out(good), self.dir)
        self.assertTrue(ok, what)
        self.assertIn("1 *contended*", what)
        bad = dict(good, kmalloc_account_64="unsupported")
        del bad["alloc_pages_contended_cpus2"]
        ok, _, why = selftest.rows_ran_check(out(bad), self.dir)
        self.assertFalse(ok)
        self.assertIn("kmalloc_account_64: unsupported: why "
                      "kmalloc_account_64", why)
        self.assertIn("no *_contended_* row", why)


if __name__ == "__main__":
    unittest.main()
