"""tooling/guest/bench.sh loads the module with MMBENCH_PARAMS as they
are: it adds no parameter of its own (it injected an ndelay into a
benchmark, with parameters the module no longer has)."""
import os
import subprocess
import tempfile
import unittest
from pathlib import Path

import support

BENCH_SH = support.TOOLING / "guest" / "bench.sh"


class Params(unittest.TestCase):
    def insmod_args(self, params):
        """The parameters bench.sh loads the module with, under a fake
        insmod that records them and fails (so nothing else is read)."""
        with tempfile.TemporaryDirectory() as tmp:
            bin_dir = Path(tmp) / "bin"
            bin_dir.mkdir()
            for name, body in (("insmod", 'echo "$*" >>"$TMPDIR/args"; '
                                          'exit 1'),
                               ("uname", "echo 6.12-fake")):
                (bin_dir / name).write_text(f"#!/bin/sh\n{body}\n")
                (bin_dir / name).chmod(0o755)
            env = dict(os.environ, PATH=f"{bin_dir}:{os.environ['PATH']}",
                       TMPDIR=tmp, MMBENCH_LOADS="1", MMBENCH_PARAMS=params)
            out = subprocess.run(["dash", str(BENCH_SH)], env=env,
                                 text=True, stdout=subprocess.PIPE,
                                 stderr=subprocess.STDOUT, timeout=60,
                                 check=False).stdout
            self.assertIn("MMBENCH-BENCH load=1 insmod failed", out)
            args = (Path(tmp) / "args").read_text().split()
        self.assertTrue(args[0].endswith("/test_mmbench.ko"), args)
        return " ".join(args[1:])

    def test_a_refused_load_says_why(self):
        # The module's last log line after the load's marker (fake
        # insmod and dmesg over a file that stands for the kernel log).
        with tempfile.TemporaryDirectory() as tmp:
            bin_dir = Path(tmp) / "bin"
            bin_dir.mkdir()
            kmsg = Path(tmp) / "kmsg"
            for name, body in (
                    ("insmod", 'echo "[ 1.0] test_mmbench: cpus: '
                               "'x' is not a CPU list such as 0-3,6\" "
                               '>>"$MMBENCH_KMSG"; echo "[ 1.0] '
                               "test_mmbench: \\`x' invalid for "
                               "parameter \\`cpus'\" "
                               '>>"$MMBENCH_KMSG"; exit 1'),
                    ("dmesg", 'cat "$MMBENCH_KMSG"'),
                    ("uname", "echo 6.12-fake")):
                (bin_dir / name).write_text(f"#!/bin/sh\n{body}\n")
                (bin_dir / name).chmod(0o755)
            env = dict(os.environ, PATH=f"{bin_dir}:{os.environ['PATH']}",
                       MMBENCH_LOADS="1", MMBENCH_PARAMS="",
                       MMBENCH_KMSG=str(kmsg))
            out = subprocess.run(["dash", str(BENCH_SH)], env=env,
                                 text=True, stdout=subprocess.PIPE,
                                 stderr=subprocess.STDOUT, timeout=60,
                                 check=False).stdout
        self.assertIn("MMBENCH-BENCH load=1 insmod failed: cpus: 'x' is "
                      "not a CPU list such as 0-3,6\n", out)

    def test_unknown_kernel_parameters_said(self):
        # The kernel's notice of words it passed to init (dmesg over a
        # file that stands for the kernel log); nothing when there is none.
        for log, want in (
                ('[ 0.1] Unknown kernel command line parameters "nokaslr '
                 'mitigation=off", will be passed to user space.\n',
                 "MMBENCH-BENCH guest unknown_params=nokaslr "
                 "mitigation=off\n"),
                ("[ 0.1] Linux version 6.12\n", None)):
            with tempfile.TemporaryDirectory() as tmp:
                bin_dir = Path(tmp) / "bin"
                bin_dir.mkdir()
                kmsg = Path(tmp) / "kmsg"
                kmsg.write_text(log)
                for name, body in (("insmod", "exit 1"),
                                   ("dmesg", 'cat "$MMBENCH_KMSG"'),
                                   ("uname", "echo 6.12-fake")):
                    (bin_dir / name).write_text(f"#!/bin/sh\n{body}\n")
                    (bin_dir / name).chmod(0o755)
                env = dict(os.environ,
                           PATH=f"{bin_dir}:{os.environ['PATH']}",
                           MMBENCH_LOADS="1", MMBENCH_PARAMS="",
                           MMBENCH_SUITE="0", MMBENCH_KMSG=str(kmsg))
                out = subprocess.run(["dash", str(BENCH_SH)], env=env,
                                     text=True, stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT, timeout=60,
                                     check=False).stdout
                if want:
                    self.assertIn(want, out)
                else:
                    self.assertNotIn("unknown_params", out)

    def test_params_as_they_are(self):
        for params in ("", "samples=3 benchmarks=all",
                       "benchmarks=kmalloc,inc_dec_zone_page_state",
                       "benchmarks=kmalloc",
                       "slow_into=count_vm_event:5 benchmarks=count_vm_event"):
            self.assertEqual(self.insmod_args(params), params)


if __name__ == "__main__":
    unittest.main()
