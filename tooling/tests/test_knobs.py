"""The module's test-only knobs (tooling/kernel/patches/
test_mmbench-knobs.patch): built only where a run needs them, in a folder
of their own, again when the module or the patch changes; the plain
module, which users' figures and the series come from, never has them."""
import os
import tempfile
import unittest
from pathlib import Path
from unittest import mock

import support
from mmbench_tool import build, knobs, names, options, series
from mmbench_tool.common import Failure

KNOBS = {"slow_into", "inject_stall_ms", "make_it_fail", "break_check"}


class Patch(unittest.TestCase):
    def test_the_knobs_are_the_patches_alone(self):
        self.assertEqual(names.knob_parameters(), KNOBS)
        self.assertFalse(names.parameters(names.MODULE_SOURCE) & KNOBS)
        self.assertLessEqual(KNOBS, names.parameters(knobs.SOURCE))
        self.assertEqual(names.parameters(knobs.SOURCE) - KNOBS,
                         names.parameters(names.MODULE_SOURCE))

    def test_the_series_has_no_knob(self):
        # What goes upstream is lib/test_mmbench.c as the series has it.
        text = series.final_text("lib/test_mmbench.c")
        for knob in KNOBS:
            self.assertNotIn(knob, text)

    def test_a_patch_that_does_not_apply_says_so(self):
        with tempfile.TemporaryDirectory() as d:
            src = Path(d) / "test_mmbench.c"
            src.write_text(names.MODULE_SOURCE.read_text().replace(
                "struct pglist_data *pgdat;", "struct pglist_data *node;"))
            with self.assertRaises(Failure) as e:
                knobs.patched_text(src)
            self.assertIn("test_mmbench-knobs.patch does not apply to", str(e.exception))
            self.assertIn("patch failed: lib/test_mmbench.c:", str(e.exception))

    def test_meant_by_test_or_a_knob(self):
        a = mock.Mock(command="run", param=["samples=3"], env=[])
        self.assertFalse(options.knobs_meant(a, {"samples": "3"}))
        self.assertTrue(options.knobs_meant(a, {"slow_into": "kmalloc_64:5"}))
        a.command = "test"
        self.assertTrue(options.knobs_meant(a, {}))

    def test_a_plain_run_does_not_need_the_patch(self):
        # A patch gone stale stops ./mmbench test, not a user's run.
        broken = mock.patch.object(knobs, "patched_text",
                                   side_effect=Failure("stale patch"))
        with broken:
            rc, out = support.options_only("run", "--accel", "tcg",
                                           "--param", "samples=3")
            self.assertIsNone(rc, out)
            rc, out = support.options_only("run", "--accel", "tcg",
                                           "--param", "bogus=1")
            self.assertEqual(rc, 2, out)
            self.assertIn("test only (with test_mmbench-knobs.patch): "
                          "break_check, inject_stall_ms, make_it_fail, "
                          "slow_into", out)
            rc, out = support.options_only(
                "measure", "--accel", "tcg", "--b-param",
                "slow_into=kmalloc_64:5")
            self.assertEqual(rc, 2, out)
            self.assertIn("stale patch", out)


class Sides(unittest.TestCase):
    def test_both_sides_alike(self):
        # B slowed by slow_into: A too is built with the knobs, so that
        # a comparison measures the knob, not the patch's other code.
        from mmbench_tool import cli, measure
        got = {}

        def keep(a):
            got["args"] = a
            raise support.Reached
        with mock.patch.object(measure, "measure", side_effect=keep):
            try:
                cli.main(["measure", "--accel", "tcg"])
            except support.Reached:
                pass
        args = got["args"]
        plain = [measure.Side(n, args) for n in "AB"]
        self.assertEqual([s.setup.knobs for s in measure.same_module(plain)],
                         [False, False])
        slowed = [measure.Side("A", args),
                  measure.Side("B", args, params=["slow_into=kmalloc_64:5"])]
        self.assertEqual(
            [s.setup.knobs for s in measure.same_module(slowed)],
            [True, True])
        cal = measure.same_module([measure.Side("A", args)], knobs=True)
        self.assertTrue(cal[0].setup.knobs)


class Build(unittest.TestCase):
    def build(self, tmp, knobs_=False):
        def fake_run(cmd, capture=False, **kw):
            bdir = Path(next(w for w in cmd if w.startswith("M="))[2:])
            (bdir / "test_mmbench.ko").touch()
            return ""
        with mock.patch.object(build, "OUT", Path(tmp)), \
                mock.patch.object(build, "run", fake_run):
            return build.build_module(Path("/h"), "6.12-x", knobs=knobs_)[0]

    def test_two_folders_plain_a_link_to_the_module(self):
        with tempfile.TemporaryDirectory() as tmp:
            plain = self.build(tmp)
            with_knobs = self.build(tmp, True)
            self.assertNotEqual(plain.parent, with_knobs.parent)
            src = plain.parent / "test_mmbench.c"
            self.assertEqual(src.resolve(), names.MODULE_SOURCE.resolve())
            text = (with_knobs.parent / "test_mmbench.c").read_text()
            self.assertFalse(
                (with_knobs.parent / "test_mmbench.c").is_symlink())
            self.assertEqual(text, knobs.patched_text())
            for knob in KNOBS:
                self.assertIn(knob, text)
            self.assertNotIn("slow_into", src.read_text())

    def test_written_again_only_when_it_changed(self):
        with tempfile.TemporaryDirectory() as tmp:
            src = self.build(tmp, True).parent / "test_mmbench.c"
            os.utime(src, (1, 1))
            self.build(tmp, True)
            self.assertEqual(src.stat().st_mtime, 1, "rewritten unchanged: "
                             "make would rebuild every time")
            changed = knobs.patched_text() + "/* changed */\n"
            with mock.patch.object(knobs, "patched_text",
                                   return_value=changed):
                self.build(tmp, True)
            self.assertEqual(src.read_text(), changed)
            self.assertGreater(src.stat().st_mtime, 1)

    def test_a_patch_that_does_not_apply_builds_nothing(self):
        with tempfile.TemporaryDirectory() as tmp, \
                mock.patch.object(knobs, "patched_text",
                                  side_effect=Failure("does not apply")):
            with self.assertRaises(Failure):
                self.build(tmp, True)
            self.assertFalse(list(Path(tmp).rglob("*.ko")))


if __name__ == "__main__":
    unittest.main()
