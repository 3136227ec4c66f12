"""tooling/guest/faults.sh against the lean module and its knobs patch:
the knob it loads the module with is the patch's, the row files it reads
are the module's, and its groups are the kselftest's (the module no
longer has a group file)."""
import re
import subprocess
import unittest

import support
from mmbench_tool import knobs, names

FAULTS_SH = support.TOOLING / "guest" / "faults.sh"
KSELFTEST = support.REPO / "tools/testing/selftests/mm/mmbench/mmbench_test.c"


def helper(name):
    """faults.sh's function @name, as it defines it."""
    m = re.search(rf"^{name}\(\) \{{.*?^\}}$", FAULTS_SH.read_text(),
                  re.M | re.S)
    return m and m.group(0)


def kselftest_groups():
    """{benchmark: group} of the kselftest's cases."""
    return dict(re.findall(r'^FIXTURE_VARIANT_ADD\(mmbench, \w+\) '
                           r'\{ "(\w+)", "(\w+)" \};',
                           KSELFTEST.read_text(), re.M))


class Faults(unittest.TestCase):
    def sh(self, name, line):
        return subprocess.run(["sh", "-c", f"{helper(name)}\n{line}"],
                              capture_output=True, text=True,
                              check=True).stdout

    def test_the_knobs_it_loads_with_are_the_patches(self):
        loads = re.findall(r"insmod \"\$ko\" (.*)", FAULTS_SH.read_text())
        self.assertEqual(len(loads), 1, loads)
        given = {w.split("=")[0] for w in loads[0].split() if "=" in w}
        self.assertIn("make_it_fail", given)
        self.assertLessEqual(given, names.parameters(knobs.SOURCE))
        self.assertEqual(names.knobs_given(given), {"make_it_fail"})
        self.assertNotIn("make_it_fail",
                         names.parameters(names.MODULE_SOURCE))
        ranges = names.uint_ranges()
        for word in loads[0].split():
            name, _, value = word.partition("=")
            if name in ranges:
                lo, hi = ranges[name]
                self.assertTrue(lo <= int(value) <= hi, word)

    def test_row_files_read_are_the_modules(self):
        # The row files of the lean ABI (Documentation/ABI/testing/
        # sysfs-kernel-mmbench), none of the old ones.
        rows = FAULTS_SH.read_text().partition("for d in $mb/*/")[2]
        read = set(re.findall(r'\$d/(\w+)', rows))
        self.assertEqual(read, {"status", "reason", "sample_ns",
                                "samples_dropped", "ops_per_sample"})
        abi = (support.REPO / "Documentation/ABI/testing/"
               "sysfs-kernel-mmbench").read_text()
        for name in read:
            self.assertIn(f"/{name}", abi)

    def test_groups_are_the_kselftests(self):
        self.assertIsNotNone(helper("group"))
        table = kselftest_groups()
        self.assertGreater(len(table), 20)
        benches = names.benchmarks()
        for bench in benches:
            rows = [bench] if benches[bench] is None else \
                [f"{bench}_{benches[bench]}{n}" for n in (0, 3, 16, 64)]
            want = table.get(bench, "calibration")
            for row in rows:
                self.assertEqual(self.sh("group", f"group {row}"),
                                 want + "\n", row)
        self.assertEqual(self.sh("group", "group nosuch"), "unknown\n")

    def test_words(self):
        for text, n in (("", 0), ("1203 1188 1190\n", 3),
                        ("preempt migrate", 2)):
            self.assertEqual(self.sh("words", "f=$(mktemp); printf '%s' "
                                     f"'{text}' >$f; words $f; rm $f"),
                             f"{n}\n", text)
        self.assertEqual(self.sh("words", "words /nonexistent"), "0\n")


if __name__ == "__main__":
    unittest.main()


class Reason(unittest.TestCase):
    def test_the_failed_calls_read_after_a_remark(self):
        # A row's reason may start with a remark of the tail's before the
        # module's "N allocation calls failed" (the tail then runs no
        # more, but an older module's may): faults.sh reads N either way.
        line = next(x for x in FAULTS_SH.read_text().splitlines()
                    if "allocation calls failed" in x and "sed" in x)
        cmd = line.strip().split("=", 1)[1].strip()
        for why, want in (
                ("42 allocation calls failed: short of memory", "42"),
                ("4000 of 4096 ops timed alone kept (preempted, "
                 "interrupted or no block); 42 allocation calls failed: "
                 "short", "42"),
                ("stopped", "")):
            got = subprocess.run(["sh", "-c", f'why="{why}"; echo {cmd}'],
                                 capture_output=True, text=True,
                                 check=True).stdout.strip()
            self.assertEqual(got, want, why)
