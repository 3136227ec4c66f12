"""./mmbench verdicts: the busy loops never outlive the command, and the
runs of one boot are counted as the report says."""
import os
import signal
import subprocess
import sys
import threading
import time
import unittest
from unittest import mock

import support
from mmbench_tool import setup as setupmod
from mmbench_tool import verdicts


def gone(pid):
    """Has process @pid exited (a zombie counts)?"""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] == "Z"
    except FileNotFoundError:
        return True


def wait_gone(pids, seconds):
    end = time.monotonic() + seconds
    while time.monotonic() < end and not all(gone(p) for p in pids):
        time.sleep(0.05)
    return [p for p in pids if not gone(p)]


class Hog(unittest.TestCase):
    def test_one_busy_loop_per_cpu_killed_at_the_end(self):
        with verdicts.Hog(60) as hog:
            self.assertEqual(len(hog.procs), len(os.sched_getaffinity(0)))
            time.sleep(0.5)
            for proc in hog.procs:
                self.assertIsNone(proc.poll())
                with open(f"/proc/{proc.pid}/stat") as f:
                    utime = int(f.read().rsplit(")", 1)[1].split()[11])
                self.assertGreater(utime, 0, "not busy")
        self.assertTrue(all(p.poll() is not None for p in hog.procs))

    def test_killed_on_ctrl_c(self):
        hog = verdicts.Hog(60, cpus=[0])
        with self.assertRaises(KeyboardInterrupt):
            with hog:
                raise KeyboardInterrupt
        self.assertIsNotNone(hog.procs[0].poll())

    def test_stops_at_its_deadline(self):
        hog = verdicts.Hog(0.5, cpus=[0])
        hog.__enter__()
        try:
            self.assertEqual(hog.procs[0].wait(timeout=10), 0)
        finally:
            hog.stop()

    def test_stops_when_the_command_is_killed(self):
        """A command killed with no chance to clean up (SIGKILL) leaves
        no busy loop behind."""
        code = ("import os, sys; sys.path.insert(0, sys.argv[1]); "
                "from mmbench_tool import verdicts; "
                "h = verdicts.Hog(60).__enter__(); "
                "print(' '.join(str(p.pid) for p in h.procs), flush=True); "
                "os._exit(0)")
        out = subprocess.run([sys.executable, "-c", code,
                              str(support.TOOLING)], text=True, check=True,
                             stdout=subprocess.PIPE, timeout=30).stdout
        pids = [int(p) for p in out.split()]
        self.assertTrue(pids)
        self.assertEqual(wait_gone(pids, 5), [])


def run_lines(number, ktap_lines, end=True, rc=0):
    lines = [f"MMBENCH-VERDICT-BEGIN run={number}",
             "# selftests: mm/mmbench: mmbench_test"]
    lines += ["# " + line for line in ktap_lines]
    if end:
        failed = any(line.startswith("not ok") for line in ktap_lines)
        lines += [f"{'not ok' if failed else 'ok'} 1 selftests: mm/mmbench: "
                  "mmbench_test", f"MMBENCH-VERDICT-END run={number} rc={rc}"]
    return lines


PASS = ["TAP version 13", "1..3", "# kmalloc_64.status=pass",
        "# kmalloc_64.ns_per_op_median=171.763",
        "ok 1 mmbench.kmalloc.run", "ok 2 context.fingerprint",
        "ok 3 ndelay.slope"]
SLOPE_FAILS = PASS[:6] + [
    "#  RUN           ndelay.slope ...",
    "# ndelay.slope_50_200.error_pct=-100.600",
    "# mmbench_test.c:1150:slope:Expected 0 (0) != e >= -tol * 10 (0)",
    "# mmbench_test.c:1152:slope:ndelay(200) - ndelay(50): -100.600% off "
    "(median of 3 runs)",
    "# slope: Test failed", "#          FAIL  ndelay.slope",
    "not ok 3 ndelay.slope"]
NOISY = PASS[:6] + ["ok 3 ndelay.slope # SKIP host too noisy: CV 12.5 %"]
DRIFT = PASS[:6] + ["ok 3 ndelay.slope # SKIP machine drifted: the "
                    "baseline moved -34.0 % over the run, limit 20 %"]


def guest_lines(runs):
    lines = ["MMBENCH-GUEST-BEGIN 6.12-fake cpus=2"]
    for n, ktap_lines in enumerate(runs, 1):
        lines += run_lines(n, ktap_lines)
    return lines + ["MMBENCH-DMESG-BEGIN", "MMBENCH-DMESG-END",
                    "MMBENCH-GUEST-END"]


class Counting(unittest.TestCase):
    def test_runs_fails_and_skips(self):
        lines = (["MMBENCH-GUEST-BEGIN 6.12-fake cpus=2"] +
                 run_lines(1, PASS) + run_lines(2, SLOPE_FAILS, rc=1) +
                 run_lines(3, NOISY) + run_lines(4, NOISY[:4], end=False))
        runs = verdicts.parse(lines)
        self.assertEqual([r.number for r in runs], [1, 2, 3, 4])
        self.assertEqual(runs[1].failures(), [
            ("ndelay.slope", "ndelay(200) - ndelay(50): -100.600% off "
             "(median of 3 runs)")])
        self.assertEqual(runs[2].skips(), [
            ("ndelay.slope", "host too noisy: CV 12.5 %")])
        self.assertEqual([r.complete for r in runs],
                         [True, True, True, False])

        idle = verdicts.Condition("idle", 4, runs)
        self.assertEqual(idle.completed, 3)
        self.assertEqual(idle.failed_runs, [runs[1]])
        text = "\n".join(idle.report())
        for want in ("idle: 4 runs of 4 asked, 3 completed",
                     "FAIL: 1 of 4 runs failed a case",
                     "ndelay.slope: failed in 1 runs",
                     "run 2: ndelay(200) - ndelay(50): -100.600% off",
                     "SKIP: 1 in 4 runs",
                     "1  ndelay.slope: host too noisy: CV 12.5 %",
                     "goal: every run completed: NOT met (3 of 4)",
                     "goal: no case FAILs in 4 runs: NOT met"):
            self.assertIn(want, text)
        self.assertEqual(len(idle.goals()), 2)

    def test_skips_grouped_by_reason(self):
        """One group for a reason whatever its figures, signs included."""
        cond = verdicts.Condition("busy", 3, verdicts.parse(guest_lines(
            [NOISY, DRIFT, [line.replace("-34.0", "85.4") for line in DRIFT]
             ])))
        text = "\n".join(cond.report())
        self.assertIn("SKIP: 3 in 3 runs", text)
        self.assertIn("2  ndelay.slope: machine drifted: the baseline "
                      "moved -34.0 % over the run, limit 20 % (figures "
                      "vary)", text)
        self.assertIn("1  ndelay.slope: host too noisy: CV 12.5 %\n",
                      text + "\n")

    def test_a_guest_qemu_spoilt(self):
        """Booted twice, EFLAGS no x86 CPU sets still in its log: the
        report names QEMU, and ./mmbench verdicts exits 2."""
        runs = verdicts.parse(guest_lines([PASS, SLOPE_FAILS]))
        cond = verdicts.Condition("idle", 2, runs, spoilt="41541022")
        self.assertIn("EFLAGS 41541022, bits no x86 CPU sets: QEMU's fault",
                      cond.report()[0])
        checks = setupmod.spoilt([(False, "under load: no case FAILs", "x"),
                                  (True, "every run completed", "2 of 2")], cond)
        self.assertRegex(checks[0][2], "^x; booted twice.*QEMU's fault")
        self.assertEqual(checks[1][2], "2 of 2")
        self.assertIs(setupmod.spoilt(checks, verdicts.Condition(
            "idle", 2, runs)), checks)

    def test_all_good(self):
        cond = verdicts.Condition("idle", 10, verdicts.parse(
            guest_lines([PASS] * 9 + [NOISY])))
        self.assertTrue(all(met for met, _, _ in cond.goals()),
                        cond.report())


class Recording(verdicts.Hog):
    started = []

    def __enter__(self):
        Recording.started.append(self)
        return super().__enter__()


class Command(unittest.TestCase):
    def setUp(self):
        Recording.started = []
        patch = mock.patch.object(verdicts, "Hog", Recording)
        patch.start()
        self.addCleanup(patch.stop)

    def fake(self, lines, hang=False):
        fake = support.FakeGuest(lines, hang=hang)
        self.addCleanup(fake.close)
        return fake

    def assert_hogs_gone(self, count):
        self.assertEqual(len(Recording.started), count)
        for hog in Recording.started:
            self.assertTrue(hog.procs)
            self.assertTrue(all(p.poll() is not None for p in hog.procs))

    def test_idle_and_busy(self):
        fake = self.fake(guest_lines([PASS, SLOPE_FAILS]))
        rc, out = fake.run("verdicts", "--accel", "tcg", "--runs", "2")
        self.assertEqual(rc, 1, out)
        self.assertEqual([a[3] for a, _ in fake.initramfs],
                         ["verdicts", "verdicts"])
        self.assertEqual(fake.initramfs[0][0][5]["MMBENCH_RUNS"], "2")
        self.assertIn("idle: 2 runs of 2 asked, 2 completed", out)
        self.assertIn("busy: 2 runs of 2 asked, 2 completed", out)
        self.assertIn("busy host: a busy loop on each of CPUs", out)
        self.assertEqual(out.count("FAIL: 1 of 2 runs failed a case"), 2)
        results = fake.results[0]
        self.assertIn("ndelay.slope", (results / "busy/run2.ktap")
                      .read_text())
        self.assertIn("busy:", (results / "verdicts.txt").read_text())
        self.assert_hogs_gone(1)

    def test_qemu_spoilt_is_not_judged(self):
        """A goal missed in a guest whose log, booted twice, shows EFLAGS
        no x86 CPU sets: exit 2, QEMU named."""
        fake = support.FakeGuest(
            guest_lines([PASS, SLOPE_FAILS]),
            console=["[ 4.9] RSP: 0018:ffffce52004877c0 EFLAGS: 41541022"])
        self.addCleanup(fake.close)
        rc, out = fake.run("verdicts", "--accel", "tcg", "--runs", "2",
                           "--load", "idle")
        self.assertEqual(rc, 2, out)
        self.assertEqual(len(fake.commands()), 2, out)
        self.assertIn("EFLAGS 41541022, bits no x86 CPU sets: QEMU's fault",
                      out)
        self.assertIn("verdicts NOT JUDGED", out)

    def test_spoilt_only_where_a_goal_was_missed(self):
        """Exit 2 only when each condition that missed a goal is spoilt:
        a clean boot's miss is the kernel's."""
        good = verdicts.parse(guest_lines([PASS, PASS]))
        bad = verdicts.parse(guest_lines([PASS, SLOPE_FAILS]))
        for idle, busy, rc_want in (((good, "41541022"), (bad, None), 1),
                                    ((good, None), (bad, "41541022"), 2),
                                    ((bad, "41541022"), (bad, "04d68bfa"),
                                     2),
                                    ((good, "41541022"), (good, None), 0)):
            conds = [verdicts.Condition(load, 2, runs, spoilt=flags)
                     for load, (runs, flags) in (("idle", idle),
                                                 ("busy", busy))]
            fake = self.fake(guest_lines([PASS]))
            with mock.patch.object(verdicts, "verdict_runs",
                                   side_effect=conds):
                rc, out = fake.run("verdicts", "--accel", "tcg", "--runs",
                                   "2")
            self.assertEqual(rc, rc_want, out)

    def test_goals_met(self):
        fake = self.fake(guest_lines([PASS, PASS]))
        rc, out = fake.run("verdicts", "--accel", "tcg", "--runs", "2",
                           "--load", "idle")
        self.assertEqual(rc, 0, out)
        self.assert_hogs_gone(0)

    def test_timeout_stops_the_hog(self):
        fake = self.fake(["MMBENCH-GUEST-BEGIN 6.12-fake cpus=2"] +
                         run_lines(1, PASS), hang=True)
        rc, out = fake.run("verdicts", "--accel", "tcg", "--runs", "3",
                           "--load", "busy", "--timeout", "2")
        self.assertEqual(rc, 1, out)
        self.assertIn("goal: every run completed: NOT met (1 of 3; the "
                      "guest timed out after 2 s)", out)
        self.assert_hogs_gone(1)

    def test_sigterm_stops_guest_and_hog(self):
        fake = self.fake(["MMBENCH-GUEST-BEGIN 6.12-fake cpus=2"],
                         hang=True)
        caught = []
        previous = signal.signal(signal.SIGTERM,
                                 lambda *a: caught.append(a))
        self.addCleanup(signal.signal, signal.SIGTERM, previous)
        timer = threading.Timer(1, os.kill, (os.getpid(), signal.SIGTERM))
        timer.start()
        self.addCleanup(timer.cancel)
        rc, out = fake.run("verdicts", "--accel", "tcg", "--runs", "3",
                           "--load", "busy", "--timeout", "10")
        self.assertEqual(rc, 130, out)
        self.assertEqual(caught, [])
        self.assert_hogs_gone(1)
        self.assertEqual(wait_gone(fake.pids(), 2), [])


if __name__ == "__main__":
    unittest.main()
