"""The users' literal make ... run_tests in the guest: what the guest
printed judged."""
import unittest

import support  # noqa: F401 (the import path of mmbench_tool)
from mmbench_tool import literal

INNER = ["TAP version 13", "1..2",
         "# kmalloc_64.status=pass",
         "ok 1 mmbench.kmalloc.run",
         "ok 2 ndelay.slope # SKIP ndelay is not in the benchmarks= of "
         "MMBENCH_PARAMS"]
ENTER = "make[1]: Entering directory '/usr/src/linux/tools/testing/" \
    "selftests/mm/mmbench'"
LEAVE = ENTER.replace("Entering", "Leaving")


def literal_lines(inner=INNER, built=(), verdict="ok", rc=0, end=True):
    """The guest's lines of the literal command: make's, then the runner's
    KTAP around @inner; @built: what make printed building."""
    lines = ["MMBENCH-LITERAL-BEGIN /usr/src/linux",
             "make: Entering directory '/usr/src/linux/tools/testing/"
             "selftests'", ENTER]
    lines += list(built) or ["make[1]: Nothing to be done for 'all'."]
    lines += [LEAVE, ENTER, "TAP version 13", "1..1",
              "# timeout set to 600",
              "# selftests: mm/mmbench: mmbench_test"]
    lines += ["# " + line for line in inner]
    lines += [f"{verdict} 1 selftests: mm/mmbench: mmbench_test", LEAVE,
              "make: Leaving directory '/usr/src/linux/tools/testing/"
              "selftests'"]
    if end:
        lines.append(f"MMBENCH-LITERAL-END rc={rc} seconds=9")
    return lines


class Judge(unittest.TestCase):
    def failed(self, lines, suite=INNER):
        checks, _ = literal.judge(lines, suite)
        for ok, what, _ in checks:
            self.assertTrue(what.startswith("literal run_tests: "), what)
        return {what: why for ok, what, why in checks if not ok}

    def test_a_good_run_passes_every_check(self):
        checks, inner = literal.judge(literal_lines(), INNER)
        self.assertEqual(inner, INNER)
        self.assertEqual([what for ok, what, _ in checks if not ok], [])
        whats = [what for _, what, _ in checks]
        self.assertIn("literal run_tests: mm/mmbench: mmbench_test ok",
                      whats)
        self.assertIn(f"literal run_tests: {literal.COMMAND} ran in the "
                      "guest and exited 0", whats)
        self.assertIn("literal run_tests: mmbench_test: 1 passed, 0 "
                      "failed, 1 skipped", whats)

    def test_a_rebuild_in_the_guest_fails(self):
        """No compiler in the guest: make trying to build is a failure,
        and says what it printed."""
        bad = self.failed(literal_lines(built=[
            "  CC       mmbench_test",
            "/bin/sh: 1: gcc: not found",
            "make[1]: *** [../../lib.mk:222: /usr/src/linux/tools/testing/"
            "selftests/mm/mmbench/mmbench_test] Error 127"],
            inner=[], verdict="", rc=2))
        why = bad["literal run_tests: make built nothing: the test "
                  "program built on the host was up to date"]
        self.assertIn("gcc: not found", why)
        self.assertIn(f"literal run_tests: {literal.COMMAND} ran in the "
                      "guest and exited 0", bad)
        self.assertIn("literal run_tests: mm/mmbench: mmbench_test ok", bad)

    def test_a_tool_missing_in_the_guest_fails(self):
        bad = self.failed(literal_lines(built=[
            "readlink: invalid option -- 'e'",
            "make[1]: Nothing to be done for 'all'."]))
        self.assertEqual(list(bad), ["literal run_tests: make built "
                                     "nothing: the test program built on "
                                     "the host was up to date"])

    def test_a_failed_case_fails(self):
        inner = INNER[:3] + ["not ok 1 mmbench.kmalloc.run"] + INNER[4:]
        bad = self.failed(literal_lines(inner=inner,
                                        verdict="not ok"), suite=INNER)
        self.assertIn("literal run_tests: mm/mmbench: mmbench_test ok", bad)
        self.assertIn("failed: mmbench.kmalloc.run",
                      bad["literal run_tests: mmbench_test: 0 passed, 1 "
                          "failed, 1 skipped"])

    def test_a_skipped_program_fails(self):
        bad = self.failed(literal_lines(
            verdict="ok", inner=INNER[:3] + [
                "ok 1 mmbench.kmalloc.run # SKIP not root", INNER[4]]))
        self.assertIn("literal run_tests: mmbench_test: 0 passed, 0 "
                      "failed, 2 skipped", bad)
        lines = literal_lines()
        lines[-4] += " # SKIP"
        self.assertIn("literal run_tests: mm/mmbench: mmbench_test ok",
                      self.failed(lines))

    def test_other_cases_than_the_suite_fail(self):
        suite = INNER + ["ok 3 mmbench.kmalloc_concurrent.run"]
        bad = self.failed(literal_lines(), suite=suite)
        self.assertIn("missing: mmbench.kmalloc_concurrent.run",
                      bad["literal run_tests: the same cases as "
                          "run_kselftest.sh's run"])

    def test_not_run_or_not_finished_fails(self):
        bad = self.failed(["MMBENCH-GUEST-BEGIN 6.12-fake cpus=2"])
        self.assertEqual(bad[f"literal run_tests: {literal.COMMAND} ran in "
                             "the guest and exited 0"],
                         "the guest did not run it")
        self.assertEqual(len(bad), 5)
        bad = self.failed(literal_lines(end=False))
        self.assertEqual(list(bad), [f"literal run_tests: {literal.COMMAND}"
                                     " ran in the guest and exited 0"])
        self.assertEqual(literal.end_status(literal_lines(rc=2)), (2, 9))


if __name__ == "__main__":
    unittest.main()
