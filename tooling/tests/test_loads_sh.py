"""tooling/guest/bench.sh as ./mmbench run --loads and measure run it
(MMBENCH_SUITE=0): no suite, every file of a load's rows printed for the
archive."""
import os
import subprocess
import tempfile
import unittest
from pathlib import Path

import support

from mmbench_tool import archive, bench

BENCH_SH = support.TOOLING / "guest" / "bench.sh"


# A lean module's files of one load (grep -r's lines): the baseline and
# a row of 100 ops a sample, whole-sample ns, one sample dropped.
SYSFS = (
    "/sys/kernel/mmbench/preempt:voluntary",
    "/sys/kernel/mmbench/baseline/status:pass",
    "/sys/kernel/mmbench/baseline/reason:",
    "/sys/kernel/mmbench/baseline/cpus:0",
    "/sys/kernel/mmbench/baseline/context:preempt",
    "/sys/kernel/mmbench/baseline/ops_per_sample:1000",
    "/sys/kernel/mmbench/baseline/sample_ns:1500 1400 1600",
    "/sys/kernel/mmbench/baseline/samples_dropped:",
    "/sys/kernel/mmbench/kmalloc_64/status:pass",
    "/sys/kernel/mmbench/kmalloc_64/reason:",
    "/sys/kernel/mmbench/kmalloc_64/cpus:1",
    "/sys/kernel/mmbench/kmalloc_64/context:preempt",
    "/sys/kernel/mmbench/kmalloc_64/ops_per_sample:100",
    "/sys/kernel/mmbench/kmalloc_64/sample_ns:21010 21050 21100",
    "/sys/kernel/mmbench/kmalloc_64/samples_dropped:migrate migrate",
)


class Loads(unittest.TestCase):
    def run_sh(self, env, loads=2, kselftest=None):
        """bench.sh's output under a fake insmod that records its
        arguments and succeeds, a fake rmmod, dmesg and grep -r (a
        lean module's sysfs files); @kselftest, the fake kselftest's
        output when it is run."""
        with tempfile.TemporaryDirectory() as tmp:
            bin_dir = Path(tmp) / "bin"
            bin_dir.mkdir()
            fake = {
                "insmod": 'echo "$*" >>"$TMPDIR/args"',
                "rmmod": "true",
                "uname": "echo 6.12-fake",
                "dmesg": "true",
                "grep": 'if [ "$1" = -r ]; then printf \'%s\\n\' ' +
                        " ".join(f"'{line}'" for line in SYSFS) +
                        '; else /bin/grep "$@"; fi',
                "run_kselftest.sh": "echo SUITE RAN",
            }
            if kselftest is not None:
                test = Path(tmp) / "kselftest/mm/mmbench/mmbench_test"
                test.parent.mkdir(parents=True)
                test.write_text("#!/bin/sh\necho \"params=$MMBENCH_PARAMS "
                                "args=$*\" >>\"$TMPDIR/test_args\"\n"
                                f"printf '%s\\n' '{kselftest}'\n")
                test.chmod(0o755)
            for name, body in fake.items():
                (bin_dir / name).write_text(f"#!/bin/sh\n{body}\n")
                (bin_dir / name).chmod(0o755)
            (Path(tmp) / "klog").write_text("[ 0.5] boot\n")
            env = dict(os.environ, PATH=f"{bin_dir}:{os.environ['PATH']}",
                       TMPDIR=tmp, MMBENCH_LOADS=str(loads),
                       MMBENCH_KMSG=f"{tmp}/klog",
                       MMBENCH_KSELFTEST=f"{tmp}/kselftest", **env)
            raw = subprocess.run(["dash", str(BENCH_SH)], env=env,
                                 text=True, stdout=subprocess.PIPE,
                                 stderr=subprocess.STDOUT, timeout=60,
                                 check=False).stdout
            args = (Path(tmp) / "args").read_text().splitlines()
            test_args = (Path(tmp) / "test_args").read_text() \
                if (Path(tmp) / "test_args").exists() else None
        # A load's files leave packed (the serial port is slow): the
        # host sees their lines once unpacked.
        self.assertNotIn("sysfs=", raw)
        self.assertEqual(raw.count(bench.GZ_BEGIN), loads)
        self.test_args = test_args
        return "\n".join(bench.unpack(raw.splitlines())), args

    def test_loads_only(self):
        out, args = self.run_sh({"MMBENCH_SUITE": "0",
                                 "MMBENCH_PARAMS": "samples=9"})
        self.assertNotIn("suite_cs=", out)
        self.assertEqual([a.split()[1:] for a in args],
                         [["samples=9"], ["samples=9"]])
        recs = archive.records(out.splitlines(), {"accel": "tcg"}, {})
        rows = [r for r in recs if r["type"] == "row"]
        self.assertEqual([(r["load"], r["row"]) for r in rows],
                         [(1, "baseline"), (1, "kmalloc_64"),
                          (2, "baseline"), (2, "kmalloc_64")])
        # The archive's figures per op from the lean module's raw files:
        # whole-sample ns over ops_per_sample.
        k = rows[1]
        self.assertEqual(k["sample_ns"], [210.1, 210.5, 211.0])
        self.assertEqual((k["median"], k["mad"]), (210.5, 0.4))
        self.assertEqual(k["noise"], 0.19)     # 0.4 / 210.5, in 1/1000 %
        self.assertEqual(k["net"], 209.0)      # less the baseline's 1.5
        self.assertEqual((k["samples"], k["dropped"]), (3, 2))
        self.assertEqual(k["dropped_why"],
                         {"preempted": 0, "migrated": 2, "stolen": 0})
        self.assertEqual((k["group"], k["cpu"], k["context"],
                          k["ops_per_sample"]), ("slab", "1", "preempt", 100))
        self.assertIsNone(k["net_cycles"])     # no sample_cycles
        self.assertEqual(rows[0]["group"], "calibration")
        # The insmod timed by the guest: the module has no run_ms.
        loads = [r for r in recs if r["type"] == "load"]
        self.assertTrue(all(isinstance(r["run_ms"], float) and
                            r["run_ms"] >= 0 for r in loads), loads)
        # The module's preempt file is the fingerprint's preempt.
        self.assertEqual(recs[0]["fingerprint"]["preempt"], "voluntary")
        # The release is the guest's uname -r: the module does not say it.
        self.assertEqual(recs[0]["fingerprint"]["release"], "6.12-fake")

    def test_an_uptime_under_a_second(self):
        """A kernel booted in half a second: /proc/uptime's "0.58" made
        "058", which dash's $(( )) refused as octal, and no load ran."""
        with tempfile.NamedTemporaryFile("w", suffix="uptime") as up:
            up.write("0.58 1.00\n")
            up.flush()
            out, args = self.run_sh({"MMBENCH_SUITE": "0",
                                     "MMBENCH_UPTIME": up.name})
        self.assertNotIn("Illegal number", out)
        self.assertEqual(len(args), 2)
        self.assertIn("load=1 run_ms=0", out)

    def test_the_fingerprint_case_says_what_the_module_does_not(self):
        # No suite ran: the kselftest's fingerprint case alone, with
        # none of the loads' parameters; the module's preempt file over
        # its preempt.
        out, _args = self.run_sh(
            {"MMBENCH_SUITE": "0", "MMBENCH_PARAMS": "samples=3"},
            kselftest="# fingerprint.debug=kasan lockdep\n"
                      "# fingerprint.init_on_alloc=1\n"
                      "# fingerprint.init_on_free=0\n"
                      "# fingerprint.preempt=none\n"
                      "ok 1 context.fingerprint", loads=1)
        self.assertEqual(self.test_args, "params= args=-f context\n")
        fp = archive.records(out.splitlines(), {"accel": "tcg"},
                             {})[0]["fingerprint"]
        self.assertEqual((fp["debug"], fp["init_on_alloc"],
                          fp["init_on_free"], fp["preempt"]),
                         ("kasan lockdep", "1", "0", "voluntary"))

    def test_no_fingerprint_case_after_the_suite(self):
        # ./mmbench bench: the suite's own fingerprint lines say it.
        self.run_sh({}, kselftest="# fingerprint.debug=none", loads=1)
        self.assertIsNone(self.test_args)


class Unpack(unittest.TestCase):
    def packed(self, text):
        import base64
        import gzip
        return [bench.GZ_BEGIN] + base64.encodebytes(
            gzip.compress(text.encode())).decode().splitlines() + \
            [bench.GZ_END]

    def test_round_trip_between_other_lines(self):
        lines = ["before"] + self.packed("a=1\nb 2\n") + ["after"]
        self.assertEqual(list(bench.unpack(lines)),
                         ["before", "a=1", "b 2", "after"])

    def test_a_block_cut_short_or_bad_is_said_and_kept(self):
        block = self.packed("x\n")
        cut = block[:-1] + ["MMBENCH-GUEST-BEGIN again"]
        self.assertEqual(list(bench.unpack(cut)),
                         ["MMBENCH-GZ-ERROR the block was cut short"] +
                         block[:-1] + ["MMBENCH-GUEST-BEGIN again"])
        bad = [bench.GZ_BEGIN, "AAAA", bench.GZ_END, "next"]
        out = list(bench.unpack(bad))
        self.assertTrue(out[0].startswith("MMBENCH-GZ-ERROR"), out)
        self.assertEqual(out[1:], bad)
        # Output that ends inside a block, and a block inside a block.
        self.assertEqual(list(bench.unpack(block[:-1])),
                         ["MMBENCH-GZ-ERROR the output ended inside a "
                          "block"] + block[:-1])
        twice = block[:-1] + block
        self.assertEqual(list(bench.unpack(twice)),
                         ["MMBENCH-GZ-ERROR a block began inside another"]
                         + block[:-1] + ["x"])


if __name__ == "__main__":
    unittest.main()
