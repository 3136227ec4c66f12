"""The LAVA job: its awk program (KTAP to lava-test-case), the job file
as ./mmbench lava writes it, and lava-run's log read back."""
import os
import shutil
import subprocess
import tempfile
import time
import types
import unittest
from pathlib import Path
from unittest import mock

import support
from mmbench_tool import lava

AWK = shutil.which("busybox") and ["busybox", "awk"] or ["awk"]


def runner(ktap_lines, verdict="ok 1 selftests: mm/mmbench: mmbench_test"):
    """run_kselftest.sh's output around the program's @ktap_lines."""
    lines = ["TAP version 13", "1..1", "# timeout set to 600",
             "# selftests: mm/mmbench: mmbench_test"]
    lines += ["# " + line if line else "#" for line in ktap_lines]
    return lines + ([verdict] if verdict else [])


def row(name, status="pass", median="12.500"):
    return [f"# {name}.status={status}", f"# {name}.reason=",
            f"# {name}.ns_per_op_median={median}"]


def cases(lines):
    """{case: (result, measurement, units)} that the job's awk program
    makes of run_kselftest.sh's output @lines (busybox awk, as in the
    guest), each from a lava-test-case command it prints."""
    proc = subprocess.run(AWK + [lava.awk_program(), "/dev/stdin"],
                          input="\n".join(lines) + "\n", text=True,
                          stdout=subprocess.PIPE, check=True)
    found = {}
    for line in proc.stdout.splitlines():
        words = line.split()
        assert words[0] == "lava-test-case" and words[2] == "--result", line
        opts = dict(zip(words[2::2], words[3::2]))
        found[words[1]] = (opts["--result"], opts.get("--measurement"),
                           opts.get("--units"))
    return found


class Awk(unittest.TestCase):
    def test_rows_cases_and_measurements(self):
        got = cases(runner(
            ["TAP version 13", "1..2",
             "#  RUN           mmbench.kmalloc.run ...",
             *row("baseline", median="1.300"), *row("kmalloc_8"),
             *row("kmalloc_64", median="171.763"),
             "#            OK  mmbench.kmalloc.run",
             "ok 1 mmbench.kmalloc.run",
             "#  RUN           ndelay.slope ...",
             *row("baseline", median="1.500"),
             *row("ndelay_200", median="300.1"),
             "# ndelay.tolerance_pct=10",
             "ok 2 ndelay.slope"]))
        self.assertEqual(got["mmbench.kmalloc_64"], ("pass", None, None))
        self.assertEqual(got["mmbench.kmalloc_64.ns_per_op"],
                         ("pass", "171.763", "ns"))
        # A row printed again by a later case keeps its first case's.
        self.assertEqual(got["mmbench.baseline.ns_per_op"][1], "1.300")
        self.assertEqual(got["mmbench.ndelay_200.ns_per_op"],
                         ("pass", "300.1", "ns"))
        self.assertEqual(got["mmbench.kmalloc.run"][0], "pass")
        self.assertEqual(got["ndelay.slope"][0], "pass")
        self.assertEqual(got["mmbench_test"][0], "pass")
        # Lines that look like figures but have no status are no row.
        self.assertNotIn("mmbench.ndelay", got)
        self.assertTrue(all(lava.case_name(c) == c for c in got))

    def test_p99_measured_where_not_negative(self):
        got = cases(runner(
            ["1..1", "#  RUN           mmbench.kmalloc.run ...",
             *row("kmalloc_8"), "# kmalloc_8.op_ns_p99=40.250",
             *row("kmalloc_64"), "# kmalloc_64.op_ns_p99=-1.500",
             "ok 1 mmbench.kmalloc.run"]))
        self.assertEqual(got["mmbench.kmalloc_8.op_ns_p99"],
                         ("pass", "40.250", "ns"))
        self.assertNotIn("mmbench.kmalloc_64.op_ns_p99", got)

    def test_skips_stay_skips(self):
        got = cases(runner(
            ["1..3", "#  RUN           mmbench.alloc_pages.run ...",
             *row("alloc_pages_order0"),
             *row("alloc_pages_order10", "unsupported", "6140.264"),
             "ok 1 mmbench.alloc_pages.run",
             "#  RUN           mmbench.kmalloc_concurrent.run ...",
             *row("kmalloc_concurrent", "pass", "0.000"),
             "ok 2 mmbench.kmalloc_concurrent.run # SKIP needs two online "
             "CPUs",
             "#  RUN           mmbench.kmem_cache.run ...",
             *row("kmem_cache_8", "noisy", "1.000"),
             "# kmem_cache_8: noisy here: MAD 12 % of the median",
             "ok 3 mmbench.kmem_cache.run"]))
        self.assertEqual(got["mmbench.alloc_pages_order0"][0], "pass")
        self.assertEqual(got["mmbench.alloc_pages_order10"][0], "skip")
        # an unsupported row's figure is no measurement
        self.assertNotIn("mmbench.alloc_pages_order10.ns_per_op", got)
        self.assertEqual(got["mmbench.kmalloc_concurrent"][0], "skip")
        self.assertEqual(got["mmbench.kmalloc_concurrent.run"][0], "skip")
        self.assertEqual(got["mmbench.kmem_cache_8"][0], "skip")
        self.assertNotIn("mmbench.kmem_cache_8.ns_per_op", got)

    def test_failed_row_is_the_one_before_the_report(self):
        got = cases(runner(
            ["1..1", "#  RUN           mmbench.kmalloc.run ...",
             *row("kmalloc_8"), *row("kmalloc_64", median="900.0"),
             "# mmbench_test.c:1507:run:Expected mid (900000) <= ceiling "
             "(300000) (0)",
             "# mmbench_test.c:1508:run:kmalloc_64: median 900.000 ns/op "
             "is over the ceiling of 300.000 ns/op (default)",
             *row("kmalloc_96"),
             "not ok 1 mmbench.kmalloc.run"],
            verdict="not ok 1 selftests: mm/mmbench: mmbench_test # exit=1"))
        self.assertEqual(got["mmbench.kmalloc_8"][0], "pass")
        self.assertEqual(got["mmbench.kmalloc_64"][0], "fail")
        # its figure is still a measurement, of a failed row
        self.assertEqual(got["mmbench.kmalloc_64.ns_per_op"],
                         ("fail", "900.0", "ns"))
        self.assertEqual(got["mmbench.kmalloc_96"][0], "pass")
        self.assertEqual(got["mmbench.kmalloc.run"][0], "fail")
        self.assertEqual(got["mmbench_test"][0], "fail")

    def test_failed_clock_check_fails_its_rows(self):
        got = cases(runner(
            ["1..2", "#  RUN           mmbench.count_vm_event.run ...",
             *row("baseline"), *row("count_vm_event"),
             "ok 1 mmbench.count_vm_event.run",
             "#  RUN           ndelay.slope ...",
             *row("baseline"), *row("ndelay_100"), *row("ndelay_1000"),
             "# ndelay.slope_100_1000.error_pct=4000.000",
             "# mmbench_test.c:1850:slope:Expected 1 (1) == "
             "interval_verdict(err, noise, lo, hi) (0)",
             "not ok 2 ndelay.slope"],
            verdict="not ok 1 selftests: mm/mmbench: mmbench_test # exit=1"))
        self.assertEqual(got["ndelay.slope"][0], "fail")
        self.assertEqual(got["mmbench.ndelay_100"][0], "fail")
        self.assertEqual(got["mmbench.ndelay_1000"][0], "fail")
        # a row of another case keeps its own case's verdict
        self.assertEqual(got["mmbench.baseline"][0], "pass")
        self.assertEqual(got["mmbench.count_vm_event"][0], "pass")

    def test_a_row_that_did_not_finish_never_passes(self):
        got = cases(runner(
            ["1..2", "#  RUN           mmbench.kmalloc.run ...",
             *row("kmalloc_8"), "ok 1 mmbench.kmalloc.run",
             "#  RUN           mmbench.kmem_cache.run ...",
             *row("kmem_cache_8")], verdict=None))
        self.assertEqual(got["mmbench.kmalloc_8"][0], "pass")
        self.assertEqual(got["mmbench.kmem_cache_8"][0], "fail")
        self.assertEqual(got["mmbench_test"][0], "fail")
        self.assertNotIn("mmbench.kmem_cache.run", got)

    def test_module_failed_row_and_skipped_program(self):
        got = cases(runner(
            ["1..1", "#  RUN           mmbench.kmalloc.run ...",
             *row("kmalloc_8", "fail"),
             "# mmbench_test.c:933:run:Expected 'pass' == 'fail'.",
             "not ok 1 mmbench.kmalloc.run"]))
        self.assertEqual(got["mmbench.kmalloc_8"][0], "fail")
        got = cases(["# selftests: mm/mmbench: mmbench_test",
                     "# 1..0 # SKIP not root",
                     "ok 1 selftests: mm/mmbench: mmbench_test # SKIP"])
        self.assertEqual(got, {"mmbench_test": ("skip", None, None)})


JOB = """\
actions:
- deploy:
    images:
      kernel:
        image_arg: -kernel {kernel}
        url: https://example.org/vmlinuz
      ramdisk:
        image_arg: -initrd {ramdisk}
        url: https://example.org/ramdisk.cpio.gz
- test:
    definitions:
    - from: inline
      name: mmbench
      repository:
        params:
          MMBENCH_PARAMS: ''
        run:
          steps:
          - true
"""


class Job(unittest.TestCase):
    def test_urls_and_params(self):
        text = lava.job_text("file:///boot/vmlinuz", "file:///tmp/r.cpio.gz",
                             "samples=5 cpu=1", text=JOB)
        self.assertIn("        url: file:///boot/vmlinuz\n", text)
        self.assertIn("        url: file:///tmp/r.cpio.gz\n", text)
        self.assertNotIn("example.org", text)
        self.assertIn("MMBENCH_PARAMS: 'samples=5 cpu=1'", text)
        with self.assertRaises(lava.Failure):
            lava.job_text("k", "r", "x='y'", text=JOB)

    def test_one_definition(self):
        text = lava.job_text("file:///k", "file:///r", text=JOB)
        self.assertEqual(text.count("    - from: inline\n"), 1)
        self.assertIn("name: mmbench\n", text)
        self.assertIn("MMBENCH_PARAMS: ''", text)

    def test_device_size(self):
        text = lava.device_text(1, 512)
        self.assertIn("\n          - -smp 1\n", text)
        self.assertIn("\n          - -m 512\n", text)
        self.assertEqual(lava.device_text(2, 1024), lava.DEVICE.read_text())

    def test_repository_files(self):
        # The awk program is in the job the repository ships.
        self.assertIn("lava-test-case", lava.awk_program())
        for url in ("url: https://", "url: https://"):
            self.assertEqual(lava.JOB.read_text().count(url), 2)
        try:
            import yaml
        except ImportError:
            self.skipTest("no python3-yaml here")
        job = yaml.safe_load(lava.JOB.read_text())
        device = yaml.safe_load(lava.DEVICE.read_text())
        self.assertEqual(job["device_type"], device["device_type"])
        self.assertIn(job["context"]["arch"],
                      device["available_architectures"])
        for const in ("failure_retry", "boot_retry"):
            self.assertIn(const, device["constants"])
        steps = job["actions"][2]["test"]["definitions"][0]["repository"][
            "run"]["steps"]
        self.assertIn(lava.awk_program().strip(), steps[2])
        try:
            from lava_common.schemas import validate
        except ImportError:
            return
        validate(yaml.safe_load(lava.job_text("file:///k", "file:///r")),
                 strict=True)


LOG = """\
{"dt": "2026-11-30T20:16:02.8", "lvl": "target", "msg": "# selftests: mm/mmbench: mmbench_test"}
{"dt": "2026-11-30T20:16:02.8", "lvl": "target", "msg": "# # kmalloc_8.status=pass"}
{"dt": "2026-11-30T20:16:02.8", "lvl": "target", "msg": "# # kmalloc_8.ns_per_op_median=12.500"}
{"dt": "2026-11-30T20:16:02.8", "lvl": "target", "msg": "# # kmalloc_8.op_ns_p99=40.250"}
{"dt": "2026-11-30T20:16:02.8", "lvl": "target", "msg": "# # kmalloc_96.status=unsupported"}
{"dt": "2026-11-30T20:16:02.8", "lvl": "target", "msg": "# ok 1 mmbench.kmalloc.run"}
{"dt": "2026-11-30T20:16:02.8", "lvl": "target", "msg": "ok 1 selftests: mm/mmbench: mmbench_test"}
{"dt": "2026-11-30T20:16:02.9", "lvl": "results", "msg": {"case": "mmbench.kmalloc_8", "definition": "0_mmbench", "endtc": ! "1989", "result": "pass", "starttc": ! "1989"}}
- {"dt": "2026-11-30T20:16:03.0", "lvl": "results", "msg": {"case": "mmbench.kmalloc_8.ns_per_op", "definition": "0_mmbench", "endtc": ! "1992", "measurement": ! "12.5", "result": "pass", "starttc": ! "1992", "units": "ns"}}
{"dt": "2026-11-30T20:16:03.0", "lvl": "results", "msg": {"case": "mmbench.kmalloc_8.op_ns_p99", "definition": "0_mmbench", "measurement": ! "40.25", "result": "pass", "units": "ns"}}
{"dt": "2026-11-30T20:16:03.1", "lvl": "results", "msg": {"case": "mmbench.kmalloc_96", "definition": "0_mmbench", "result": "skip"}}
{"dt": "2026-11-30T20:16:03.2", "lvl": "results", "msg": {"case": "mmbench.kmalloc.run", "definition": "0_mmbench", "result": "pass"}}
{"dt": "2026-11-30T20:16:03.2", "lvl": "results", "msg": {"case": "mmbench_test", "definition": "0_mmbench", "result": "pass"}}
{"dt": "2026-11-30T20:16:03.4", "lvl": "results", "msg": {"case": "job", "definition": "lava", "result": "pass"}}
"""


class Log(unittest.TestCase):
    def test_results_and_target(self):
        results = lava.parse_log(LOG)
        self.assertEqual(len(results), 7)
        self.assertEqual(results[1]["measurement"], "12.5")
        self.assertEqual(results[1]["units"], "ns")
        self.assertEqual(set(lava.suite(results, "mmbench")),
                         {"mmbench.kmalloc_8", "mmbench.kmalloc_8.ns_per_op",
                          "mmbench.kmalloc_8.op_ns_p99", "mmbench.kmalloc_96", "mmbench.kmalloc.run",
                          "mmbench_test"})
        self.assertEqual(lava.runner_output(lava.target_lines(LOG), 0)[-1],
                         "ok 1 selftests: mm/mmbench: mmbench_test")

    def test_checks(self):
        checks = lava.job_checks(0, LOG)
        self.assertTrue(all(ok for ok, _, _ in checks), checks)
        # A row missing or with the wrong result, a measurement missing.
        bad = LOG.replace('"mmbench.kmalloc_96", "definition": "0_mmbench",'
                          ' "result": "skip"', '"mmbench.kmalloc_96", '
                          '"definition": "0_mmbench", "result": "pass"')
        bad = bad.replace('"units": "ns"', '"units": "us"')
        failed = [what for ok, what, _ in lava.job_checks(0, bad) if not ok]
        self.assertEqual(len(failed), 3, failed)
        # A p99 that did not arrive.
        bad = LOG.replace('"mmbench.kmalloc_8.op_ns_p99"', '"x"')
        failed = [what for ok, what, _ in lava.job_checks(0, bad) if not ok]
        self.assertEqual(failed, ["LAVA mmbench: each row with a p99 (1) "
                                  "arrives with it as a measurement in ns"])
        bad = LOG.replace('"case": "mmbench.kmalloc_8",', '"case": "x",')
        failed = [what for ok, what, _ in lava.job_checks(1, bad) if not ok]
        self.assertEqual(len(failed), 2, failed)
        # The program's verdict as KTAP has it, not as it arrived.
        bad = LOG.replace('"mmbench_test", "definition": "0_mmbench", '
                          '"result": "pass"', '"mmbench_test", "definition"'
                          ': "0_mmbench", "result": "fail"')
        failed = [what for ok, what, _ in lava.job_checks(0, bad) if not ok]
        self.assertEqual(len(failed), 1, failed)
        self.assertIn("KTAP result", failed[0])

    def test_names(self):
        self.assertEqual(lava.row_case("kmalloc_64"), "mmbench.kmalloc_64")
        # What a LAVA name does not take ([-_.a-zA-Z0-9]) is made '.'.
        self.assertEqual(lava.case_name("a+b c"), "a.b.c")
        self.assertEqual(lava.measurement_case("kmalloc_64"),
                         "mmbench.kmalloc_64.ns_per_op")


class Command(unittest.TestCase):
    def test_options(self):
        rc, out = support.options_only("lava", "--param", "samples=5")
        self.assertIsNone(rc, out)
        # The job boots the stock kernel under TCG: lava --help offers
        # no option that would choose another.
        for opt in ("--debug-kernel", "--kernel", "--accel", "--release"):
            rc, out = support.options_only("lava", opt, "x")
            self.assertEqual(rc, 2, out)
            self.assertIn("unrecognized arguments", out)
        self.assertNotIn("--kernel", support.options_only("lava",
                                                          "--help")[1])
        rc, out = support.options_only("lava", "--param", "nosuch=1")
        self.assertEqual(rc, 2, out)


FAKE_LAVA_RUN = """#!/bin/sh
# A stand-in for lava-run: a log line of a result, then a child that hangs
# as libguestfs's appliance did under a KVM that does not work.
echo '{"dt": "x", "lvl": "results", "msg": {"case": "job", "definition": "lava", "result": "pass"}}'
sleep 300 &
echo $! >"$(dirname "$0")/child"
wait
"""


class RunJob(unittest.TestCase):
    def test_stopped_at_the_timeout_with_what_it_started(self):
        with tempfile.TemporaryDirectory() as tmp:
            tmp = Path(tmp)
            (tmp / "lava-run").write_text(FAKE_LAVA_RUN)
            (tmp / "lava-run").chmod(0o755)
            setup = types.SimpleNamespace(
                args=types.SimpleNamespace(timeout=2, accel="tcg", cpus=2,
                                           memory=1024),
                kernel=Path("/boot/vmlinuz-fake"),
                guest_env=lambda: ([], {}, {}))
            env = dict(os.environ, PATH=f"{tmp}:{os.environ['PATH']}")
            with mock.patch.object(lava.deps, "ensure"), \
                    mock.patch.object(lava, "make_ramdisk",
                                      return_value=tmp / "r.cpio.gz"), \
                    mock.patch.object(lava, "GUESTFS_CACHE", tmp / "cache"), \
                    mock.patch.dict(os.environ, env), \
                    mock.patch("sys.stdout"):
                start = time.monotonic()
                rc, text = lava.run_job(setup, tmp / "results")
            self.assertIsNone(rc)
            self.assertLess(time.monotonic() - start, 20)
            self.assertEqual(lava.parse_log(text)[0]["case"], "job")
            child = int((tmp / "child").read_text())
            for _ in range(50):
                if not Path(f"/proc/{child}").exists() or \
                        "Z" in Path(f"/proc/{child}/stat").read_text(
                            ).split()[2]:
                    break
                time.sleep(0.1)
            else:
                self.fail("lava-run's child was left running")
            job = (tmp / "results/lava/job.yaml").read_text()
            self.assertIn("url: file:///boot/vmlinuz-fake", job)
            self.assertIn(f"url: file://{tmp}/r.cpio.gz", job)
            self.assertTrue((tmp / "results/lava/device.yaml").exists())


if __name__ == "__main__":
    unittest.main()
