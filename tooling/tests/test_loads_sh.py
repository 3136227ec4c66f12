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


class Loads(unittest.TestCase):
    def run_sh(self, env, dmesg='/bin/cat "$TMPDIR/klog" 2>/dev/null',
               loads=2):
        """bench.sh's output under a fake insmod that records its
        arguments and succeeds, a fake rmmod, dmesg and grep -r (a
        module's sysfs files)."""
        with tempfile.TemporaryDirectory() as tmp:
            bin_dir = Path(tmp) / "bin"
            bin_dir.mkdir()
            fake = {
                # The kernel log grows a line a load.
                "insmod": 'echo "$*" >>"$TMPDIR/args"; '
                          "echo '[    1.0] test_mmbench: kmalloc_64: "
                          "median 1 ns, dropped 0 preempted, 2 migrated, "
                          "0 with steal time' >>\"$TMPDIR/klog\"",
                "rmmod": "true",
                "uname": "echo 6.12-fake",
                "cat": 'case "$1" in */run_ms) echo 1300;; '
                       '*) /bin/cat "$@";; esac',
                "dmesg": dmesg,
                "grep": 'if [ "$1" = -r ]; then '
                        "printf '%s\\n' "
                        "'/sys/kernel/mmbench/kmalloc_64/status:pass' "
                        "'/sys/kernel/mmbench/kmalloc_64/ns_per_op_median:"
                        "210.500' "
                        "'/sys/kernel/mmbench/kmalloc_64/sample_ns:210.100 "
                        "210.500 211.000' "
                        "'/sys/kernel/mmbench/kmalloc_64/reason:' "
                        "'/sys/kernel/mmbench/fingerprint/debug:none'; "
                        'else /bin/grep "$@"; fi',
                "run_kselftest.sh": "echo SUITE RAN",
            }
            for name, body in fake.items():
                (bin_dir / name).write_text(f"#!/bin/sh\n{body}\n")
                (bin_dir / name).chmod(0o755)
            # The log as it was before the first load.
            (Path(tmp) / "klog").write_text("[ 0.5] boot\n" * 10)
            env = dict(os.environ, PATH=f"{bin_dir}:{os.environ['PATH']}",
                       TMPDIR=tmp, MMBENCH_LOADS=str(loads),
                       MMBENCH_KMSG=f"{tmp}/klog", **env)
            raw = subprocess.run(["dash", str(BENCH_SH)], env=env,
                                 text=True, stdout=subprocess.PIPE,
                                 stderr=subprocess.STDOUT, timeout=60,
                                 check=False).stdout
            args = (Path(tmp) / "args").read_text().splitlines()
        # A load's files leave packed (the serial port is slow): the
        # host sees their lines once unpacked.
        self.assertNotIn("sysfs=", raw)
        self.assertEqual(raw.count(bench.GZ_BEGIN), loads)
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
                         [(1, "kmalloc_64"), (2, "kmalloc_64")])
        self.assertEqual(rows[0]["sample_ns"], [210.1, 210.5, 211.0])
        self.assertEqual(rows[0]["median"], 210.5)
        self.assertEqual(rows[0]["dropped_why"]["migrated"], 2)
        # Each load has its own log line, not the earlier loads'.
        self.assertEqual(out.count("klog=test_mmbench: kmalloc_64"), 2)
        self.assertEqual(recs[0]["fingerprint"]["debug"], "none")
        # The release is the guest's uname -r: the module does not say it.
        self.assertEqual(recs[0]["fingerprint"]["release"], "6.12-fake")

    def test_log_lines_when_the_log_buffer_is_full(self):
        # A full buffer keeps its newest lines only: counting lines told
        # the loads after the first few that they had none.
        out, _args = self.run_sh({"MMBENCH_SUITE": "0"},
                                 dmesg='tail -n 4 "$TMPDIR/klog"', loads=5)
        for i in range(1, 6):
            self.assertEqual(out.count(f"load={i} klog=test_mmbench: "
                                       "kmalloc_64"), 1, out)


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
