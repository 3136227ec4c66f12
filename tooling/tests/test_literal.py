"""The users' literal make ... run_tests in the guest: the tree copied in,
and what the guest printed judged."""
import os
import tempfile
import unittest
from pathlib import Path

import support
from mmbench_tool import common, guest, literal

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


class Tree(unittest.TestCase):
    def setUp(self):
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        self.tree = Path(tmp.name) / "linux"
        self.dest = Path(tmp.name) / "root/usr/src/linux"
        sel = self.tree / "tools/testing/selftests"
        for rel in ("Makefile", "lib.mk", "kselftest.h",
                    "kselftest/runner.sh", "mm/Makefile", "mm/gup_test.c",
                    "net/Makefile", "mm/mmbench/Makefile",
                    "mm/mmbench/mmbench_test.c", "mm/mmbench/settings",
                    "mm/mmbench/mmbench_test"):
            (sel / rel).parent.mkdir(parents=True, exist_ok=True)
            (sel / rel).write_text(rel)
        (self.tree / "scripts").mkdir()
        (self.tree / "scripts/subarch.include").write_text("SUBARCH")
        # Built after its source, a second later.
        prog = sel / "mm/mmbench/mmbench_test"
        src = sel / "mm/mmbench/mmbench_test.c"
        os.utime(src, (1_000_000_000.5, 1_000_000_000.5))
        os.utime(prog, (1_000_000_001.25, 1_000_000_001.25))

    def test_what_make_reads_is_copied_with_its_times(self):
        rels = guest.copy_literal_tree(self.tree, self.dest)
        sel = "tools/testing/selftests/"
        self.assertEqual(sorted(rels), sorted(
            ["scripts/subarch.include"] +
            [sel + f for f in ("Makefile", "lib.mk", "kselftest.h",
                               "kselftest/runner.sh", "mm/mmbench/Makefile",
                               "mm/mmbench/mmbench_test.c",
                               "mm/mmbench/settings",
                               "mm/mmbench/mmbench_test")]))
        # Other tests' folders stay out.
        self.assertFalse((self.dest / sel / "net").exists())
        self.assertFalse((self.dest / sel / "mm/gup_test.c").exists())
        for rel in rels:
            self.assertEqual((self.dest / rel).stat().st_mtime_ns,
                             (self.tree / rel).stat().st_mtime_ns, rel)

    def test_an_unbuilt_tree_is_refused(self):
        (self.tree / guest.LITERAL_PROGRAM).unlink()
        with self.assertRaisesRegex(common.Failure, "build the kselftest"):
            guest.copy_literal_tree(self.tree, self.dest)


class Wiring(unittest.TestCase):
    def test_the_test_guest_gets_the_tree_and_is_judged(self):
        """Setup.boot(..., literal=True) hands make_initramfs the kernel
        tree; literal_checks judges what the guest printed and keeps its
        KTAP and make's output."""
        import argparse
        import contextlib
        import io
        from unittest import mock

        from mmbench_tool import ktap, options, setup as setupmod

        lines = support.suite_lines(INNER)
        lines[lines.index("MMBENCH-DMESG-BEGIN"):
              lines.index("MMBENCH-DMESG-BEGIN")] = literal_lines()
        fake = support.FakeGuest(lines)
        self.addCleanup(fake.close)
        parser = argparse.ArgumentParser()
        options._add_guest_options(parser)
        setup = setupmod.Setup(parser.parse_args(["--accel", "tcg"]))
        fake._prepare(setup)
        for prog in (setup.tree / guest.LITERAL_PROGRAM,
                     setup.kselftest / "mm/mmbench/mmbench_test"):
            prog.parent.mkdir(parents=True)
            prog.write_text("the program")
        results = fake._results_dir()
        path = f"{fake.dir / 'bin'}:{os.environ['PATH']}"
        with mock.patch.object(guest, "make_initramfs",
                               fake._make_initramfs), \
                mock.patch.object(ktap, "kunit_parse",
                                  return_value=(True, "")), \
                mock.patch.dict(os.environ, {"PATH": path}), \
                mock.patch.object(common.Phase, "timings", []), \
                contextlib.redirect_stdout(io.StringIO()):
            out = setup.boot("test", results, literal=True)
            checks = setupmod.literal_checks(setup, out, results)
            plain = setup.boot("test", results)
        self.assertEqual(fake.initramfs[0][1]["literal"], setup.tree)
        self.assertIsNone(fake.initramfs[1][1]["literal"])
        self.assertTrue(plain.finished)
        self.assertEqual([what for ok, what, _ in checks if not ok], [])
        self.assertEqual(len(checks), 6)
        self.assertIn("literal run_tests: kunit.py parse reads its KTAP "
                      "cleanly", [what for _, what, _ in checks])
        self.assertEqual(
            (results / "literal-run_tests.ktap").read_text().splitlines(),
            INNER)
        self.assertIn("make[1]: Nothing to be done for 'all'.",
                      (results / "literal-run_tests.log").read_text())

    def test_another_program_in_the_tree_is_built_again(self):
        """The series' builds patch by patch leave an earlier patch's
        program in the tree: it is built and installed again, and one that
        still differs is refused."""
        import argparse
        import contextlib
        import io
        from unittest import mock

        from mmbench_tool import build, options, setup as setupmod

        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        parser = argparse.ArgumentParser()
        options._add_guest_options(parser)
        setup = setupmod.Setup(parser.parse_args(["--accel", "tcg"]))
        setup.tree = Path(tmp.name) / "tree"
        setup.kselftest = Path(tmp.name) / "kselftest"
        prog = setup.tree / guest.LITERAL_PROGRAM
        installed = setup.kselftest / "mm/mmbench/mmbench_test"
        for path, text in ((prog, "patch 2's"), (installed, "patch 3's")):
            path.parent.mkdir(parents=True)
            path.write_text(text)

        def rebuild(tree, install):
            prog.write_text("patch 3's")
            return install, []
        with mock.patch.object(build, "build_kselftest",
                               side_effect=rebuild) as built, \
                contextlib.redirect_stdout(io.StringIO()):
            setup.literal_tree()
            built.assert_called_once_with(setup.tree,
                                          install=setup.kselftest)
            setup.literal_tree()
            self.assertEqual(built.call_count, 1)
            prog.write_text("patch 1's")
            built.side_effect = lambda tree, install: (install, [])
            with self.assertRaisesRegex(common.Failure, "differs"):
                setup.literal_tree()

    def test_the_guest_runs_the_literal_command(self):
        init = (support.REPO / "tooling/guest/init").read_text()
        self.assertIn(literal.BEGIN, init)
        self.assertIn(literal.COMMAND, " ".join(init.split()))
        self.assertIn(literal.END + " rc=$?", init)


if __name__ == "__main__":
    unittest.main()
