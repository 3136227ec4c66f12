"""The command line itself: ./mmbench --help's two lists of commands,
--version, and the front end's modules, none of which imports another
that imports it."""
import ast
import tempfile
import unittest
from pathlib import Path
from unittest import mock

import support
from mmbench_tool import verbs


class Help(unittest.TestCase):
    def test_users_commands_apart_from_own_checks(self):
        rc, out = support.options_only("--help")
        self.assertEqual(rc, 0, out)
        users, _, own = out.partition("mmbench's own checks:")
        self.assertIn("These check mmbench itself", own)
        listed = {w.split()[0] for w in users.partition("commands:")[2]
                  .splitlines() if w.startswith("  ") and w.split()}
        self.assertEqual(listed, set(verbs.USER_COMMANDS))
        for name in verbs.OWN_CHECKS:
            self.assertRegex(own, rf"\n  {name} ")
        for name in verbs.USER_COMMANDS:
            self.assertNotRegex(own, rf"\n  {name} ")

    def test_every_command_has_its_help(self):
        for name in verbs.USER_COMMANDS + verbs.OWN_CHECKS:
            with self.subTest(name=name):
                rc, out = support.options_only(name, "--help")
                self.assertEqual(rc, 0, out)
                self.assertIn(f"usage: mmbench {name} ", out)


class Version(unittest.TestCase):
    def test_the_checkouts(self):
        rc, out = support.options_only("--version")
        self.assertEqual(rc, 0, out)
        self.assertRegex(out, r"^mmbench \S+\n$")
        if (support.REPO / ".git").exists():
            self.assertNotIn(verbs.VERSION, out)

    def test_a_copy_that_is_no_checkout(self):
        with tempfile.TemporaryDirectory() as d, \
                mock.patch.object(verbs, "REPO", Path(d)):
            rc, out = support.options_only("--version")
        self.assertEqual((rc, out), (0, f"mmbench {verbs.VERSION}\n"))


class Imports(unittest.TestCase):
    def test_no_two_modules_import_each_other(self):
        # A relative import each way, at the top or in a function.
        pkg = support.TOOLING / "mmbench_tool"
        mods = {p.stem: p for p in pkg.glob("*.py")}
        imports = {m: set() for m in mods}
        for m, p in mods.items():
            for n in ast.walk(ast.parse(p.read_text())):
                if isinstance(n, ast.ImportFrom) and n.level >= 1:
                    names = ([n.module.split(".")[0]] if n.module else
                             [a.name for a in n.names])
                    imports[m].update(d for d in names
                                      if d in mods and d != m)
        both = sorted((a, b) for a in imports for b in imports[a]
                      if a < b and a in imports[b])
        self.assertEqual(both, [])
        # Nor round a longer loop (selftest -> revcheck -> cli -> verbs
        # -> selftest was one): a walk from each module never comes back.
        for start in imports:
            seen, todo = set(), list(imports[start])
            while todo:
                m = todo.pop()
                if m not in seen:
                    seen.add(m)
                    todo += imports[m]
            self.assertNotIn(start, seen, f"{start} imports itself "
                             "through others")


if __name__ == "__main__":
    unittest.main()


class ClosedPipe(unittest.TestCase):
    """compare ... | head -1: the reader gone, the command still runs to
    its end and exits with its own status (3 here), not 2 for an error
    of its output, as it did 2 times in 6."""

    def test_status_kept_when_stdout_closes(self):
        import os
        import sys
        from unittest import mock
        from mmbench_tool import cli

        r, w = os.pipe()
        os.close(r)
        out = os.fdopen(w, "w", buffering=1)

        def verb(args):
            for i in range(10000):
                print(f"line {i}")
            sys.stdout.flush()
            return 3

        saved = sys.stdout
        try:
            sys.stdout = out
            with mock.patch.object(cli, "command", lambda name: verb):
                rc = cli.main(["compare", "a.jsonl", "b.jsonl"])
            sys.stdout.flush()
        finally:
            sys.stdout = saved
        self.assertEqual(rc, 3)


class Labels(unittest.TestCase):
    """--label-a "" was taken silently, and two equal labels made a
    table that could not tell A from B."""

    def test_empty_and_equal_labels_are_refused(self):
        import contextlib
        import io
        from mmbench_tool import cli, options
        from mmbench_tool.common import Failure
        with self.assertRaises(SystemExit), \
                contextlib.redirect_stderr(io.StringIO()):
            cli.parse(["compare", "a.jsonl", "b.jsonl", "--label-a", " "])
        # One line: a new user's "a\nb" split the table's first line.
        with self.assertRaises(SystemExit), \
                contextlib.redirect_stderr(io.StringIO()) as err:
            cli.parse(["compare", "a.jsonl", "b.jsonl", "--label-a", "a\nb"])
        self.assertIn("a name on one line", err.getvalue())
        args = cli.parse(["compare", "a.jsonl", "b.jsonl", "--label-a",
                          "x", "--label-b", "x"])
        with self.assertRaisesRegex(Failure, "both 'x'"):
            options.check_labels(args)
        options.check_labels(cli.parse(["compare", "a.jsonl", "b.jsonl",
                                         "--label-a", "x", "--label-b",
                                         "y"]))
