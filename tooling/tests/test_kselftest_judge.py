"""The kselftest's judgement on the host: mmbench_test.c built with ASan and
UBSan against 6.12's kselftest_harness.h, its paths moved into a fake root
that a fake modprobe fills with a scenario's /sys/kernel/mmbench, and one
case run; its KTAP asserted.

Nothing else runs mmbench_test.c outside a guest.  The copy is changed, the
source never: "/sys/..", "/proc/.." (not /proc/self/exe), /dev/kmsg and
/boot/config-* point into the fake root, geteuid() is 0, and delete_module(2)
is a fake rmmod on PATH.  MMBENCH_JUDGE_SOURCE=<file.c> builds another
version (git show 8f91f90^:<path> > f.c: the one before the judge's review).
"""
import os
import shutil
import stat
import subprocess
import tempfile
import unittest
from pathlib import Path

import support
from mmbench_tool import build, common

SOURCE = support.REPO / "tools/testing/selftests/mm/mmbench/mmbench_test.c"
HEADERS = ("kselftest_harness.h", "kselftest.h")
SELFTESTS = "tools/testing/selftests"

FAKE_MODPROBE = """#!/bin/sh
# modprobe test_mmbench <params>: the scenario's next load into the fake root.
echo "$*" >>"{scen}/modprobe.log"
n=$(wc -l <"{scen}/modprobe.log")
[ -d "{scen}/load$n" ] || n=$(ls "{scen}" | grep -c '^load')
[ ! -e "{scen}/load$n/refused" ] || exit 1
mkdir -p "{root}" && cp -R "{scen}/load$n/." "{root}/"
"""
FAKE_RMMOD = """#!/bin/sh
# rmmod test_mmbench: the module's files gone; status 1 if not loaded.
echo "$*" >>"{scen}/rmmod.log"
[ -d "{root}/sys/module/test_mmbench" ] || exit 1
rm -rf "{root}/sys/module/test_mmbench" "{root}/sys/kernel/mmbench"
"""
# A generous default ceiling beside the program for the rows that pass.
CEILINGS = "kmalloc 1000000\ncount_vm_event 1000000\n"


def harness_dir():
    """The folder of 6.12's kselftest_harness.h and kselftest.h: the
    pristine tree's (series.pristine()), else unpacked once from the
    tarball (about 20 s) into out/kselftest-headers, kept for the next
    test (run.py runs each in a process of its own); None with neither."""
    for sel in (common.OUT / "pristine-6.12" / SELFTESTS,
                common.OUT / "kselftest-headers" / SELFTESTS):
        if all((sel / h).is_file() for h in HEADERS):
            return sel, None
    if not build.SOURCE_TARBALL.exists():
        return None, None
    common.OUT.mkdir(parents=True, exist_ok=True)
    tmp = tempfile.TemporaryDirectory(dir=common.OUT)
    top = "linux-source-6.12/" + SELFTESTS
    subprocess.run(["tar", "-xJf", str(build.SOURCE_TARBALL), "-C", tmp.name,
                    "--strip-components=1", "--occurrence=1"] +
                   [f"{top}/{h}" for h in HEADERS],
                   check=False, capture_output=True)
    if not all((Path(tmp.name) / SELFTESTS / h).is_file() for h in HEADERS):
        tmp.cleanup()
        return None, None
    try:        # whole or not at all: another test may do the same
        Path(tmp.name).rename(common.OUT / "kselftest-headers")
    except OSError:
        tmp.cleanup()
    sel = common.OUT / "kselftest-headers" / SELFTESTS
    return (sel, None) if all((sel / h).is_file() for h in HEADERS) else \
        (None, None)


def redirect(text, root):
    """@text of mmbench_test.c with what it reads of the machine in @root."""
    moves = [('"/sys/', f'"{root}/sys/'),
             ('"/proc/self/exe"', '"/PROC_SELF_EXE"'),
             ('"/proc/', f'"{root}/proc/'),
             ('"/PROC_SELF_EXE"', '"/proc/self/exe"'),
             ('"/dev/kmsg"', f'"{root}/dev/kmsg"'),
             ("cat /boot/", f"cat {root}/boot/"),
             ("zcat /proc/", f"zcat {root}/proc/"),
             ("geteuid()", "0"),
             ("syscall(__NR_delete_module, MODNAME, O_NONBLOCK)",
              '(system("rmmod " MODNAME) ? (errno = ENOENT) : 0)')]
    for old, new in moves:
        if old not in text:
            raise AssertionError(f"mmbench_test.c has no {old}: redirect "
                                 "it anew in this test")
        text = text.replace(old, new)
    left = text.replace(f"{root}/", "ROOT/")
    if ('"/sys/' in left or '"/dev/' in left or " /boot/" in left or
            "__NR_delete_module" in left or
            left.count('"/proc/') != left.count('"/proc/self/exe"')):
        raise AssertionError("the copy still reads the machine's files")
    return text


def row(status="pass", reason="", per_op=(), ops=1000, dropped=""):
    """A row's files as the module publishes them; @per_op: its samples in
    ns per op (a sample is that times @ops, a few ms: 100 clock steps)."""
    return {"status": status, "reason": reason, "cpus": "0",
            "context": "task", "ops_per_sample": str(ops),
            "sample_ns": " ".join(str(n * ops) for n in per_op),
            "samples_dropped": dropped}


def steady(ns_per_op, n=9):
    """@n samples of @ns_per_op, 1 ns apart: MAD 2 ns for 9."""
    return [ns_per_op + i - n // 2 for i in range(n)]


BASELINE = row(per_op=steady(5000))


class Built:
    """mmbench_test built once for every test here (run.py runs each test
    alone: no setUpClass), in a folder removed when Python exits."""
    done = None

    def __init__(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="mmbench-judge-")
        self.dir = Path(self.tmp.name)
        self.root = self.dir / "root"
        self.scen = self.dir / "scenario"
        self.fakes = self.dir / "path"
        self.prog = self.dir / "bin/mmbench_test"
        self.skip = None
        if set(str(self.root)) & set('"\\ '):
            self.skip = f"{self.root}: no C string literal as it is"
            return
        cc = shutil.which("gcc") or shutil.which("cc")
        sel, self.headers_tmp = harness_dir() if cc else (None, None)
        if not cc:
            self.skip = "no C compiler (gcc) to build mmbench_test.c"
        elif not sel:
            self.skip = (f"no kselftest_harness.h of 6.12: neither "
                         f"{common.OUT}/pristine-6.12 nor "
                         f"{build.SOURCE_TARBALL}")
        else:
            self.skip = self.build(cc, sel)
        if self.headers_tmp:
            self.headers_tmp.cleanup()

    def build(self, cc, sel):
        src = Path(os.environ.get("MMBENCH_JUDGE_SOURCE", SOURCE))
        # "../../kselftest_harness.h" from build/mm/mmbench/.
        copy = self.dir / "build/mm/mmbench/mmbench_test.c"
        copy.parent.mkdir(parents=True)
        for h in HEADERS:
            shutil.copy(sel / h, self.dir / "build" / h)
        copy.write_text(redirect(src.read_text(), self.root))
        self.prog.parent.mkdir()
        (self.prog.parent / "ceilings").write_text(CEILINGS)
        done = subprocess.run(
            [cc, "-Wall", "-O1", "-g", "-fno-omit-frame-pointer",
             "-fsanitize=address,undefined", "-o", str(self.prog), str(copy)],
            capture_output=True, text=True)
        if done.returncode and "cannot find" in done.stderr and \
                "san" in done.stderr:
            return f"{cc} has no ASan/UBSan runtime: {done.stderr.strip()}"
        if done.returncode:
            raise AssertionError(f"mmbench_test.c did not build:\n"
                                 f"{done.stderr}")
        self.fakes.mkdir()
        for name, script in (("modprobe", FAKE_MODPROBE),
                             ("rmmod", FAKE_RMMOD)):
            path = self.fakes / name
            path.write_text(script.format(scen=self.scen, root=self.root))
            path.chmod(path.stat().st_mode | stat.S_IXUSR)
        return None

    @classmethod
    def once(cls):
        if cls.done is None:
            cls.done = cls()
        return cls.done


class Judge(unittest.TestCase):
    """One case of mmbench_test, run against a scenario's files."""

    def setUp(self):
        b = Built.once()
        if b.skip:
            self.skipTest(b.skip)
        self.root, self.scen = b.root, b.scen
        self.fakes, self.prog = b.fakes, b.prog
        for d in (self.root, self.scen):
            shutil.rmtree(d, ignore_errors=True)
        self.scen.mkdir()

    def loads(self, *loads, samples=9):
        """The rows of the module's first, second, ... load (the last one
        again for any load after): {row: files}."""
        for n, rows in enumerate(loads, 1):
            top = self.scen / f"load{n}"
            params = top / "sys/module/test_mmbench/parameters"
            params.mkdir(parents=True)
            (params / "samples").write_text(f"{samples}\n")
            (top / "sys/kernel/mmbench").mkdir(parents=True)
            (top / "sys/kernel/mmbench/preempt").write_text("full\n")
            for name, files in rows.items():
                (top / "sys/kernel/mmbench" / name).mkdir()
                for f, val in files.items():
                    (top / "sys/kernel/mmbench" / name / f).write_text(
                        val + "\n")

    def run_case(self, bench, **env):
        """Run mmbench.<bench>.run: (its KTAP result line, all output)."""
        clean = {k: v for k, v in os.environ.items()
                 if not k.startswith(("MMBENCH_", "ASAN_", "UBSAN_"))}
        clean.update(env)
        clean["PATH"] = f"{self.fakes}:{clean.get('PATH', '/usr/bin:/bin')}"
        clean["ASAN_OPTIONS"] = "detect_leaks=0"
        clean["UBSAN_OPTIONS"] = "print_stacktrace=1"
        done = subprocess.run([str(self.prog), "-r", f"mmbench.{bench}.run"],
                              env=clean, capture_output=True, text=True,
                              timeout=60)
        out = done.stdout + done.stderr
        for bad in ("AddressSanitizer", "runtime error:", "LeakSanitizer"):
            self.assertNotIn(bad, out)
        result = [line for line in done.stdout.splitlines()
                  if line.startswith(("ok ", "not ok "))]
        self.assertEqual(len(result), 1, out)
        return result[0], out

    def modprobes(self):
        log = self.scen / "modprobe.log"
        return log.read_text().splitlines() if log.exists() else []

    def test_a_healthy_case_passes(self):
        self.loads({"baseline": BASELINE,
                    "kmalloc_64": row(per_op=steady(2000)),
                    "kmalloc_128": row(per_op=steady(3000))})
        line, out = self.run_case("kmalloc")
        self.assertEqual(line, "ok 1 mmbench.kmalloc.run", out)
        self.assertIn("# kmalloc_64.status=pass\n", out)
        self.assertIn("# kmalloc_64.ns_per_op_median=2000.000\n", out)
        self.assertIn("# kmalloc_64.ns_per_op_mad=2.000\n", out)
        self.assertIn("# kmalloc_128.net_ns_per_op=-2000.000\n", out)
        self.assertIn("# kmalloc_128.ceiling_ns=1000000.000\n", out)
        self.assertEqual(len(self.modprobes()), 1)
        self.assertIn("benchmarks=kmalloc", self.modprobes()[0])
        # The teardown's delete_module(2) took the module out.
        self.assertFalse((self.root / "sys/module/test_mmbench").exists())

    def test_tail_percentiles_agree_with_the_archives(self):
        # The kselftest's percentiles of the ops timed alone are those
        # bench.tail() puts in the archive: the same buckets and ranks;
        # a row's net of the baseline's p50 (the clock's reads).
        from mmbench_tool import bench
        clock = "400 " + " ".join(["0"] * 60 + ["900", "90", "9", "1"])
        hist = "51234 " + " ".join(["0"] * 70 + ["500", "300", "0", "150"]
                                   + ["0"] * 40 + ["40", "9", "1"])
        self.loads({"baseline": dict(BASELINE, op_ns_hist=clock),
                    "kmalloc_64": dict(row(per_op=steady(2000)),
                                       op_ns_hist=hist)})
        line, out = self.run_case("kmalloc")
        self.assertEqual(line, "ok 1 mmbench.kmalloc.run", out)
        base, figs = bench.tail(clock), bench.tail(hist)
        self.assertEqual(figs["alone"], 1000)
        self.assertIn("# kmalloc_64.op_ns_alone=1000\n", out)
        self.assertIn(f"# baseline.op_ns_p50={base['p50']:.3f}\n", out)
        for key in ("p50", "p90", "p99", "p99_9", "max"):
            self.assertIn(f"# kmalloc_64.op_ns_{key}="
                          f"{figs[key] - base['p50']:.3f}\n", out)
        self.assertLess(figs["p90"], figs["p99"])
        self.assertLess(figs["p99_9"], figs["max"])

    def test_every_sample_dropped_skips_counting_the_causes(self):
        self.loads({"baseline": BASELINE,
                    "kmalloc_64": row(dropped=" ".join(["preempt"] * 26))})
        line, out = self.run_case("kmalloc")
        self.assertEqual(
            line, "ok 1 mmbench.kmalloc.run # SKIP kmalloc_64 noisy: no "
            "sample kept: 26 dropped (26 preempted, 0 migrated, 0 with steal"
            " time), at most 2 x samples + 8 = 26 taken", out)
        self.assertIn("# kmalloc_64.samples_dropped=26\n", out)

    def test_over_an_enforced_ceiling_beside_a_withheld_one_fails(self):
        """8f91f90: the withheld verdict's SKIP hid the other's failure."""
        # MAD 5000 ns/op: 10000 less it is under 6000, not over for sure.
        wide = [5000] * 3 + [10000] * 3 + [15000] * 3
        self.loads({"baseline": BASELINE,
                    "kmalloc_64": row(per_op=steady(10000)),
                    "kmalloc_128": row(per_op=wide)})
        line, out = self.run_case("kmalloc", MMBENCH_CEILING_KMALLOC_64="5000",
                                  MMBENCH_CEILING_KMALLOC_128="6000")
        self.assertIn("# kmalloc_128.ceiling=not judged (median 10000.000 "
                      "less MAD 5000.000", out)
        self.assertIn("kmalloc_64: median 10000.000 ns/op is over the ceiling"
                      " of 5000.000 ns/op", out)
        self.assertIn("# run2.baseline_drift_pct=0.000\n", out)
        self.assertEqual(line, "not ok 1 mmbench.kmalloc.run", out)

    def test_params_too_long_for_the_buffer(self):
        """8f91f90: build_params() wrote past params[1024]."""
        self.loads({"baseline": BASELINE,
                    "kmalloc_64": row(per_op=steady(2000))})
        # 255 short words: 16 + 4 x 252 bytes fill params[], 3 words more.
        params = " ".join(["a=1"] * 255)
        self.assertEqual(len(params), 1019)
        line, out = self.run_case("kmalloc", MMBENCH_PARAMS=params)
        self.assertEqual(line, "not ok 1 mmbench.kmalloc.run", out)
        self.assertIn("MMBENCH_PARAMS and the case's own: over 1023 bytes",
                      out)
        self.assertEqual(self.modprobes(), [])

    def test_more_samples_than_asked_is_an_error(self):
        """8f91f90: a row over samples= passed."""
        self.loads({"baseline": row(per_op=steady(5000, n=5)),
                    "kmalloc_64": row(per_op=steady(2000, n=7))}, samples=5)
        line, out = self.run_case("kmalloc")
        self.assertIn("# kmalloc_64.status=error\n", out)
        self.assertIn("# kmalloc_64.reason=the module took more samples than"
                      " samples= allows\n", out)
        self.assertEqual(line, "not ok 1 mmbench.kmalloc.run", out)

    def test_samples_asked_survive_a_reload_that_failed(self):
        """f5f0720: after a reload that failed, samples= read as 9."""
        wide = [5000] * 7 + [10000] * 6 + [15000] * 7
        self.loads({"baseline": row(per_op=steady(5000, n=20)),
                    "kmalloc_64": row(per_op=wide),
                    "kmalloc_128": row(per_op=steady(3000, n=20))},
                   {}, samples=20)
        (self.scen / "load2/refused").touch()
        line, out = self.run_case("kmalloc", MMBENCH_CEILING_KMALLOC_64="6000")
        self.assertEqual(len(self.modprobes()), 2)
        self.assertIn("# kmalloc_128.status=pass\n", out)
        self.assertTrue(line.startswith(
            "ok 1 mmbench.kmalloc.run # SKIP kmalloc_64 over its ceiling, "
            "not judged: the baseline's drift is unknown"), out)

    def vmstat_off(self, second):
        self.loads({"baseline": BASELINE,
                    "count_vm_event": row("fail", "counter off by 1",
                                          steady(40), ops=100000)},
                   {"count_vm_event": second})
        return self.run_case("count_vm_event")

    def test_a_counter_off_once_is_noisy(self):
        line, out = self.vmstat_off(row(per_op=steady(40), ops=100000))
        self.assertEqual(
            line, "ok 1 mmbench.count_vm_event.run # SKIP count_vm_event "
            "noisy: counter off by 1 in a first load, back in a second: "
            "another task writes it", out)
        loads = self.modprobes()
        self.assertEqual(len(loads), 2)
        # 8f91f90: the recheck has a budget that fits the case's timeout.
        self.assertTrue(loads[1].endswith(
            "benchmarks=count_vm_event budget_ms=1000"), loads[1])

    def test_a_counter_off_twice_fails(self):
        line, out = self.vmstat_off(row("fail", "counter off by 2",
                                        steady(40), ops=100000))
        self.assertEqual(line, "not ok 1 mmbench.count_vm_event.run", out)
        self.assertIn("# count_vm_event.reason=counter off by 1; in a second"
                      " load: fail, counter off by 2\n", out)
        self.assertEqual(len(self.modprobes()), 2)


if __name__ == "__main__":
    unittest.main()
