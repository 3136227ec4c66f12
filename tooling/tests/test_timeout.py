"""A guest stopped at --timeout keeps everything it printed and the run
exits 1 saying so: it used to keep an empty console.log and exit 2, as
for a bad option."""
import json
import os
import unittest

import support


class Timeout(unittest.TestCase):
    def test_timeout_keeps_the_logs(self):
        fake = support.FakeGuest(support.suite_lines(
            ["TAP version 13", "1..27", "# kmalloc_64.status=pass",
             "# kmalloc_64.ns_per_op_median=171.763",
             "ok 1 mmbench.kmalloc.run",
             "#  RUN           mmbench.kmem_cache.run ..."], end=False),
            hang=True)
        self.addCleanup(fake.close)
        rc, out = fake.run("run", "--accel", "tcg", "--timeout", "2")
        self.assertEqual(rc, 1, out)
        results = fake.results[0]
        self.assertIn(f"the guest timed out after 2 s and was stopped; what "
                      f"it printed is in {results}", out)
        self.assertIn("FAIL: the guest ran to the end (timed out after 2 s",
                      out)
        log = (results / "guest.log").read_text()
        self.assertIn("MMBENCH-GUEST-BEGIN", log)
        self.assertIn("# #  RUN           mmbench.kmem_cache.run ...", log)
        ktap = (results / "mmbench_test.ktap").read_text()
        self.assertIn("ok 1 mmbench.kmalloc.run\n", ktap)
        self.assertIn("Linux version",
                      (results / "console.log").read_text())
        # QEMU itself is gone, not left running.
        (pid,) = fake.pids()
        self.assertFalse(os.path.exists(f"/proc/{pid}"), pid)
        # results.json is there, with what there was and the case that
        # was running.
        self.assertIn("the case running when the guest was stopped: "
                      "mmbench.kmem_cache.run", out)
        doc = json.loads((results / "results.json").read_text())
        self.assertEqual((doc["outcome"], doc["exit_status"],
                          doc["finished"], doc["verdict"]),
                         ("failed", 1, False, None))
        self.assertEqual(doc["guest"]["timed_out_after_s"], 2)
        self.assertTrue(doc["guest"]["started"])
        self.assertEqual(doc["unfinished_case"], "mmbench.kmem_cache.run")
        self.assertEqual(doc["cases_planned"], 27)
        self.assertEqual([c["name"] for c in doc["cases"]],
                         ["mmbench.kmalloc.run"])
        self.assertEqual(doc["rows"][0]["ns_per_op_median"], 171.763)
        self.assertIn({"ok": False, "check": "the guest ran to the end",
                       "why": f"timed out after 2 s; what it printed is "
                       f"in {results}: guest.log, mmbench_test.ktap, "
                       "console.log"}, doc["checks"])

    def test_timeout_while_booting(self):
        """Stopped before the guest printed its first line (--cpus 255 under TCG, a new
        user's trial): one failed check that says so and how to avoid
        it, not a list of checks of a suite that never ran."""
        fake = support.FakeGuest([], hang=True, console=[
            "smpboot: Booting Node 0 Processor 254 APIC 0xfe"])
        self.addCleanup(fake.close)
        rc, out = fake.run("run", "--accel", "tcg", "--timeout", "2",
                           "--cpus", "255")
        self.assertEqual(rc, 1, out)
        self.assertIn("FAIL: the guest ran to the end (timed out after 2 s "
                      "before the guest printed its first line (its "
                      "console's last line: smpboot: Booting Node 0 "
                      "Processor 254 APIC 0xfe): 255 CPUs emulated by TCG "
                      "can take that long; raise --timeout or lower --cpus)",
                      out)
        # What a boot that hung said is still judged.
        self.assertNotIn("has said nothing", out)
        self.assertIn("PASS: no oops, BUG or WARN in the kernel log", out)
        self.assertNotIn("kunit.py parse", out)
        self.assertNotIn("the run measured something", out)
        doc = json.loads((fake.results[0] / "results.json").read_text())
        self.assertEqual((doc["finished"], doc["guest"]["started"],
                          doc["guest"]["timed_out_after_s"], doc["rows"],
                          doc["cases"]), (False, False, 2, [], []))

    def test_a_silent_boot_is_said_while_it_waits(self):
        """A new user's measure of Debian's 6.1 kernel under icount on 2
        CPUs sat 11 minutes in its first boot with no word: the run says
        where the console stopped once the guest is silent that long."""
        from unittest import mock

        from mmbench_tool import guest
        fake = support.FakeGuest([], hang=True, console=[
            "x86: Booting SMP configuration:"])
        self.addCleanup(fake.close)
        with mock.patch.object(guest, "QUIET_SECONDS", 1):
            rc, out = fake.run("run", "--accel", "icount", "--timeout", "3")
        self.assertEqual(rc, 1, out)
        self.assertIn("the guest has said nothing for 1 s; its console's "
                      "last line: 'x86: Booting SMP configuration:' (under "
                      "--accel icount, Debian's 6.1 kernel stops at "
                      "'Booting SMP configuration' with 2 CPUs: --cpus 1); "
                      "it waits until --timeout, or Ctrl-C", out)
        # Said once, and not where the guest speaks in time.
        self.assertEqual(out.count("has said nothing"), 1)
        self.assertNotIn("(under --accel icount", guest.quiet_note(
            "/nonexistent", 1, True))


if __name__ == "__main__":
    unittest.main()


class Settings(unittest.TestCase):
    """The kselftest's settings file holds every case's own time limit:
    it said 600 s while the cases' limits added up to 3180 s, so a case
    that hung early lost the results of every later one."""

    def test_settings_hold_every_case_timeout(self):
        import re
        from pathlib import Path
        top = Path(__file__).resolve().parents[2]
        src = top / "tools/testing/selftests/mm/mmbench"
        text = (src / "mmbench_test.c").read_text()
        defines = dict(re.findall(r"^#define\s+(\w+)\s+(\d+)\s*$", text,
                                  re.M))
        variants = {}
        for fixture in re.findall(r"^FIXTURE_VARIANT_ADD\((\w+),", text,
                                  re.M):
            variants[fixture] = variants.get(fixture, 0) + 1
        cases = re.findall(r"^TEST_F(?:_TIMEOUT)?\((\w+),\s*\w+(?:,\s*(\w+))?\)",
                           text, re.M)
        # A case per variant of its fixture: the 24 benchmarks and context.
        self.assertGreater(sum(variants.get(f, 1) for f, _ in cases), 2)
        total = 0
        for fixture, limit in cases:
            # The harness's default is 30 s a case.
            limit = int(defines.get(limit, limit or 30))
            total += limit * variants.get(fixture, 1)
        settings = dict(line.split("=", 1) for line in
                        (src / "settings").read_text().split())
        self.assertLessEqual(total, int(settings["timeout"]),
                             "the cases' time limits add up past the "
                             "settings file's timeout")
