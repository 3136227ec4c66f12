"""tooling/guest/bench.sh injects its ndelay only into a benchmark that
runs: the module refuses inject_into= of one not in benchmarks=, so
./mmbench bench --param benchmarks=kmalloc had no load at all."""
import os
import subprocess
import tempfile
import unittest
from pathlib import Path

import support

BENCH_SH = support.TOOLING / "guest" / "bench.sh"
INJECT = "inject_into=inc_dec_zone_page_state inject_ndelay=200"


class Inject(unittest.TestCase):
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

    def test_default_selection_injects(self):
        self.assertEqual(self.insmod_args(""), INJECT)
        self.assertEqual(self.insmod_args("samples=3 benchmarks=all"),
                         "samples=3 benchmarks=all " + INJECT)

    def test_selection_with_the_benchmark_injects(self):
        self.assertEqual(
            self.insmod_args("benchmarks=kmalloc,inc_dec_zone_page_state"),
            "benchmarks=kmalloc,inc_dec_zone_page_state " + INJECT)

    def test_selection_without_it_does_not(self):
        self.assertEqual(self.insmod_args("benchmarks=kmalloc"),
                         "benchmarks=kmalloc")
        self.assertEqual(self.insmod_args("benchmarks=inc_zone_page_state"),
                         "benchmarks=inc_zone_page_state")

    def test_an_injection_of_ones_own_wins(self):
        own = "inject_into=count_vm_event inject_ndelay=50"
        self.assertEqual(self.insmod_args(own), own)


if __name__ == "__main__":
    unittest.main()
