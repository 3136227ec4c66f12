"""The upstream series: its files in tooling/upstream, the commits it makes
on a git tree (a small stand-in for linux-source-6.12), the cover letter.
That the real series applies to linux-source-6.12 and builds is a check
of ./mmbench test, not a unit test."""
import os
import re
import select
import subprocess
import sys
import tempfile
import textwrap
import threading
import unittest
from pathlib import Path
from unittest import mock

import support  # noqa: F401  (the import path of mmbench_tool)
from mmbench_tool import series
from mmbench_tool.common import Failure

KERNEL_DIRS = ("lib/", "tools/testing/selftests/", "Documentation/")


def git(tree, *args):
    return subprocess.run(["git", "-C", str(tree), *args], check=True,
                          text=True, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT).stdout.strip()


class SeriesFile(unittest.TestCase):
    def test_entries_comments_and_blank_lines(self):
        got = series.parse_series("# a comment\n\none.patch a b  # why\n"
                                  "two.patch\n")
        self.assertEqual(got, [("one.patch", ["a", "b"]), ("two.patch", [])])

    def test_refuses_a_line_that_names_no_patch(self):
        with self.assertRaisesRegex(Failure, r"series:2: want"):
            series.parse_series("one.patch\nlib/test_mmbench.c\n",
                                where="series")

    def test_refuses_an_empty_series(self):
        with self.assertRaisesRegex(Failure, "no patch"):
            series.parse_series("# nothing\n")

    def test_a_patch_file_needs_its_separator(self):
        with tempfile.TemporaryDirectory() as d, \
                mock.patch.object(series, "UPSTREAM", Path(d)):
            (Path(d) / "x.patch").write_text("subject\n\nbody\n")
            with self.assertRaisesRegex(Failure, "no '---' line"):
                series.Patch("x.patch", [])


class Stages(unittest.TestCase):
    ORDER = ["one", "two", "three"]
    TEXT = ("a\n/* series: two */\nb\n/* series: end */\nc\n"
            "/* series: three */\nd\n/* series: end */\n")

    def test_a_stage_has_its_regions_and_those_before(self):
        got = [series.staged_text(self.TEXT, st, self.ORDER)
               for st in self.ORDER]
        self.assertEqual(got, ["a\nc\n", "a\nb\nc\n", "a\nb\nc\nd\n"])

    def test_refuses_bad_regions(self):
        for text, why in (("/* series: one */\nx\n/* series: end */\n",
                           "region one is not a later stage"),
                          ("/* series: nine */\n", "region nine is not"),
                          ("/* series: two */\n/* series: three */\n",
                           "region three inside two"),
                          ("/* series: two */\nx\n", "two never ends"),
                          ("x\n/* series: end */\n", ":2: an end marker"),
                          ("/**\n * x\n/* series: two */\n */\n",
                           ":3: a marker inside a comment"),
                          ("\t/* series: two */\nx\n\t/* series: end */\n",
                           ":1: not a marker as written"),
                          ("/* series: two */ \n", ":1: not a marker")):
            with self.assertRaisesRegex(Failure, why):
                series.staged_text(text, "three", self.ORDER, "f")
        with self.assertRaisesRegex(Failure, "no stage four"):
            series.staged_text("x\n", "four", self.ORDER)

    def test_markers_of_crlf_text_are_markers(self):
        text = self.TEXT.replace("\n", "\r\n")
        self.assertEqual(series.staged_text(text, "one", self.ORDER),
                         "a\r\nc\r\n")

    def test_stages_are_the_order_of_the_entries(self):
        p = [mock.Mock(files=["a@x", "b"]), mock.Mock(files=["a@y", "c@z"])]
        self.assertEqual(series.stages(p), {"a": ["x", "y"], "c": ["z"]})
        with self.assertRaisesRegex(Failure, "names no stage"):
            series.stages([mock.Mock(files=["a@end"])])
        with self.assertRaisesRegex(Failure, "a@x twice"):
            series.stages([mock.Mock(files=["a@x"]),
                           mock.Mock(files=["a@x"])])


class TheSeries(unittest.TestCase):
    """tooling/upstream as it is in this repository."""

    def setUp(self):
        self.patches = series.series()

    def test_adds_files_at_kernel_paths_only(self):
        for p in self.patches:
            for rel in p.files:
                self.assertTrue(rel.startswith(KERNEL_DIRS), rel)

    def test_adds_the_module_first_then_the_kselftest_then_the_docs(self):
        self.assertEqual([p.files[0].split("/")[0] for p in self.patches],
                         ["lib"] * 7 + ["tools", "Documentation"])
        self.assertEqual([p.files for p in self.patches[:7]],
                         [[f"lib/test_mmbench.c@{st}"] for st in
                          ("vmstat", "page_alloc", "slab", "page_frag",
                           "cpus", "memcg", "numa")])

    def test_the_module_grows_stage_by_stage_to_all_of_it(self):
        order = series.stages(self.patches)["lib/test_mmbench.c"]
        text = (support.REPO / "lib/test_mmbench.c").read_text()
        sizes = [len(series.staged_text(text, st, order, "module"))
                 for st in order]
        self.assertEqual(sizes, sorted(set(sizes)))
        final = series.final_text("lib/test_mmbench.c")
        self.assertNotIn("/* series:", final)
        self.assertEqual(len(final.splitlines()),
                         sum(1 for line in text.splitlines()
                             if not series.STAGE_MARK.match(line)))
        # What only the later stages have is theirs.
        first = series.staged_text(text, order[0], order, "module")
        for word in ("alloc_pages_bulk(", "kmem_cache_create(",
                     "page_frag_alloc(", "ptr_ring_init("):
            self.assertNotIn(word, first)
            self.assertIn(word, final)

    def test_hunks_touch_only_files_the_series_does_not_add(self):
        added = {f.split("@")[0] for p in self.patches for f in p.files}
        for p in self.patches:
            for touched in re.findall(r"^\+\+\+ b/(\S+)", p.diff, re.M):
                self.assertNotIn(touched, added, p.hunks)

    def test_maintainers_covers_every_file_it_adds(self):
        # checkpatch asks for a MAINTAINERS update with every new file
        entries, added = [], set()
        for p in self.patches:
            new = {rel.split("@")[0] for rel in p.files} - added
            if new:
                self.assertIn("+++ b/MAINTAINERS", p.diff, p.hunks)
            entries += re.findall(r"^\+F:\t(\S+)", p.diff, re.M)
            for rel in new:
                self.assertTrue(any(rel == e or rel.startswith(e) or
                                    (rel + "/").startswith(e)
                                    for e in entries), rel)
            added |= new

    def test_commit_messages_read_as_kernel_commits(self):
        for p in self.patches:
            subject, blank, *body = p.message.rstrip("\n").split("\n")
            self.assertRegex(subject, r"^[\w/.-]+: [a-z]", p.hunks)
            self.assertLessEqual(len(subject), 75, p.hunks)
            self.assertEqual(blank, "", p.hunks)
            for line in body:
                self.assertLessEqual(len(line), 75, f"{p.hunks}: {line}")
            self.assertNotIn("Signed-off-by", p.message)

    def test_the_kconfig_entry_has_a_help_text(self):
        kconfig = self.patches[0].diff
        self.assertIn("+config TEST_MMBENCH\n", kconfig)
        self.assertIn("+obj-$(CONFIG_TEST_MMBENCH) += test_mmbench.o\n",
                      kconfig)
        kselftest = next(p for p in self.patches
                         if p.files[0].startswith("tools/"))
        self.assertIn("+TARGETS += mm/mmbench\n", kselftest.diff)

    def test_signed_off_by_the_author(self):
        msg = series.commit_message(self.patches[0], "A B", "a@b")
        self.assertTrue(msg.endswith("\n\nSigned-off-by: A B <a@b>\n"))


class OnAGitTree(unittest.TestCase):
    """commit_series, format-patch, git am and bisect_builds on a small
    git tree tagged 'pristine', as export() uses them on the kernel's."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.tree = Path(self.tmp.name) / "tree"
        (self.tree / "lib").mkdir(parents=True)
        (self.tree / "lib/Makefile").write_text("obj-y += a.o\n")
        env = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t",
               "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t"}
        self.env = mock.patch.dict(os.environ, env)
        self.env.start()
        git(self.tree, "init", "-q")
        git(self.tree, "add", ".")
        git(self.tree, "commit", "-q", "-m", "pristine")
        git(self.tree, "tag", series.TAG)

    def tearDown(self):
        self.env.stop()
        self.tmp.cleanup()

    def patch(self, hunks_text, files, subject):
        p = series.Patch.__new__(series.Patch)
        p.hunks, p.files, p.subject = "x.patch", files, subject
        p.message = f"{subject}\n\nWhy.\n"
        p.diff = hunks_text
        return p

    def two_patches(self):
        makefile = ("diff --git a/lib/Makefile b/lib/Makefile\n"
                    "--- a/lib/Makefile\n+++ b/lib/Makefile\n"
                    "@@ -1 +1,2 @@\n obj-y += a.o\n"
                    "+obj-$(CONFIG_TEST_MMBENCH) += test_mmbench.o\n")
        return [self.patch(makefile, ["lib/test_mmbench.c"], "lib: one"),
                self.patch("", ["tools/testing/selftests/mm/mmbench"],
                           "selftests/mm: two")]

    def test_commits_one_patch_each_without_touching_the_work_tree(self):
        head = series.commit_series(self.tree, self.two_patches(), "A B",
                                    "a@b")
        log = git(self.tree, "log", "--format=%an <%ae>|%s", head)
        self.assertEqual(log.splitlines(), ["A B <a@b>|selftests/mm: two",
                                            "A B <a@b>|lib: one",
                                            "t <t@t>|pristine"])
        self.assertIn("test_mmbench.o",
                      git(self.tree, "show", f"{head}:lib/Makefile"))
        self.assertEqual(
            git(self.tree, "show", f"{head}:lib/test_mmbench.c"),
            (support.REPO / "lib/test_mmbench.c").read_text().rstrip("\n"))
        files = git(self.tree, "ls-tree", "-r", "--name-only", head,
                    "tools/testing/selftests/mm/mmbench").splitlines()
        self.assertIn("tools/testing/selftests/mm/mmbench/mmbench_test.c",
                      files)
        self.assertNotIn("tools/testing/selftests/mm/mmbench/mmbench_test",
                         files)
        self.assertEqual(git(self.tree, "status", "--porcelain"), "")
        self.assertEqual(git(self.tree, "rev-parse", "HEAD"),
                         git(self.tree, "rev-parse", "pristine^{commit}"))

    def test_a_staged_file_is_committed_as_it_is_at_each_stage(self):
        order = ["vmstat", "page_alloc", "slab", "page_frag", "cpus",
                 "memcg", "numa"]
        patches = [self.patch("", [f"lib/test_mmbench.c@{st}"], f"lib: {st}")
                   for st in order]
        head = series.commit_series(self.tree, patches, "A", "a@b")
        text = (support.REPO / "lib/test_mmbench.c").read_text()
        for rev, st in ((f"{head}~6", "vmstat"), (f"{head}~4", "slab"),
                        (f"{head}~1", "memcg"), (head, "numa")):
            self.assertEqual(
                git(self.tree, "show", f"{rev}:lib/test_mmbench.c"),
                series.staged_text(text, st, order).rstrip("\n"))

    def test_hunks_that_do_not_apply_name_their_file(self):
        bad = self.patch("diff --git a/lib/Makefile b/lib/Makefile\n"
                         "--- a/lib/Makefile\n+++ b/lib/Makefile\n"
                         "@@ -1 +1,2 @@\n obj-y += nothing.o\n+x\n", [],
                         "lib: bad")
        with self.assertRaisesRegex(Failure, "x.patch: its hunks do not"):
            series.commit_series(self.tree, [bad], "A", "a@b")

    def test_a_lock_left_by_a_killed_run(self):
        # A run killed while git held the index's lock (Ctrl-C, timeout)
        # does not fail every run after it.
        lock = self.tree / ".git" / "mmbench-export-index.lock"
        lock.write_text("")
        series.commit_series(self.tree, self.two_patches(), "A", "a@b")
        self.assertFalse(lock.exists())

    def test_a_second_run_waits_for_the_first(self):
        # Run A stops inside commit_series, between git calls; run B, in
        # this process, must neither delete A's index nor write its own
        # over A's working files until A is done.
        line = "obj-y += {}.o"

        def diff(name):
            return ("diff --git a/lib/Makefile b/lib/Makefile\n"
                    "--- a/lib/Makefile\n+++ b/lib/Makefile\n"
                    "@@ -1 +1,2 @@\n obj-y += a.o\n+"
                    f"{line.format(name)}\n")
        hunks = Path(self.tmp.name) / "a.diff"
        hunks.write_text(diff("A"))
        code = textwrap.dedent(f"""\
            import sys
            sys.path.insert(0, {str(support.TOOLING)!r})
            from pathlib import Path
            from mmbench_tool import series
            real = series.git
            def git(tree, *args, **kw):
                if args[0] == "write-tree":
                    print("ready", flush=True)
                    sys.stdin.readline()
                return real(tree, *args, **kw)
            series.git = git
            p = series.Patch.__new__(series.Patch)
            p.hunks, p.files, p.message = "a.patch", [], "A\\n"
            p.diff = Path({str(hunks)!r}).read_text()
            head = series.commit_series(Path({str(self.tree)!r}), [p],
                                        "A", "a@b")
            print(real(Path({str(self.tree)!r}), "show",
                       head + ":lib/Makefile"))
            """)
        a = subprocess.Popen([sys.executable, "-c", code], text=True,
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        try:
            self.assertEqual(a.stdout.readline(), "ready\n")
            got = {}

            def run_b():
                head = series.commit_series(
                    self.tree, [self.patch(diff("B"), [], "B")], "B", "b@b")
                got["B"] = git(self.tree, "show", f"{head}:lib/Makefile")
            b = threading.Thread(target=run_b, daemon=True)
            b.start()
            b.join(2)
            self.assertTrue(b.is_alive(), "run B did not wait for run A")
        finally:
            out, _ = a.communicate("\n", timeout=60)
        b.join(60)
        self.assertEqual(a.returncode, 0)
        self.assertEqual(out.split(),
                         ["obj-y", "+=", "a.o", "obj-y", "+=", "A.o"])
        self.assertEqual(got["B"].split(),
                         ["obj-y", "+=", "a.o", "obj-y", "+=", "B.o"])

    def test_a_second_run_waits_until_the_first_has_done_with_the_tree(self):
        # Run A got the applied tree and goes on using it (checkpatch,
        # builds patch by patch, the kselftest): run B must not get the
        # tree, rewriting patches or checking out under A, until A ends.
        out = Path(self.tmp.name) / "out"
        code = textwrap.dedent(f"""\
            import sys
            sys.path.insert(0, {str(support.TOOLING)!r})
            from pathlib import Path
            from mmbench_tool import series
            series.pristine = lambda: Path({str(self.tree)!r})
            series._applied_tree = lambda tree: tree
            series.applied_tree()
            print("got the tree", flush=True)
            sys.stdin.readline()
            """)
        env = dict(os.environ, MMBENCH_OUT=str(out))

        def start():
            return subprocess.Popen([sys.executable, "-c", code], env=env,
                                    text=True, stdin=subprocess.PIPE,
                                    stdout=subprocess.PIPE)
        a = start()
        b = None
        try:
            self.assertEqual(a.stdout.readline(), "got the tree\n")
            b = start()
            ready, _, _ = select.select([b.stdout], [], [], 60)
            self.assertTrue(ready, "run B said nothing in 60 s")
            line = b.stdout.readline()
            self.assertIn(f"waiting for mmbench run pid {a.pid}", line)
            with self.assertRaises(subprocess.TimeoutExpired):
                b.wait(2)
        finally:
            a.communicate("\n", timeout=60)
            if b:
                rest, _ = b.communicate("\n", timeout=60)
        self.assertEqual(rest, "got the tree\n")
        self.assertEqual(b.returncode, 0)

    def test_format_patch_output_applies_with_git_am(self):
        head = series.commit_series(self.tree, self.two_patches(), "A", "a@b")
        out = Path(self.tmp.name) / "out"
        git(self.tree, "format-patch", "-q", "-o", str(out),
            f"pristine..{head}")
        patches = sorted(out.glob("*.patch"))
        self.assertEqual(len(patches), 2)
        git(self.tree, "am", "-q", *map(str, patches))
        self.assertEqual(git(self.tree, "rev-parse", "HEAD^{tree}"),
                         git(self.tree, "rev-parse", f"{head}^{{tree}}"))

    def test_export_replaces_only_the_patches_an_export_wrote(self):
        # A new user's own 0001-my-own-work.patch in -o DIR was deleted.
        out = Path(self.tmp.name) / "out"
        out.mkdir()
        mine = out / "0001-my-own-work.patch"
        mine.write_text("mine\n")

        def export():
            with mock.patch.object(series, "series",
                                   return_value=self.two_patches()), \
                    mock.patch.object(series, "identity",
                                      return_value=("A B", "a@b")):
                return series._export(self.tree, out, "b", None, False)[1]
        with self.assertRaisesRegex(Failure, f"^{out} holds "
                                    "0001-my-own-work.patch, which no "
                                    "export wrote"):
            export()
        self.assertEqual(sorted(p.name for p in out.iterdir()),
                         ["0001-my-own-work.patch"])
        mine.rename(Path(self.tmp.name) / mine.name)
        # An export of before the marker: its patches are the ones this
        # export writes, replaced.
        (out / "0001-lib-one.patch").write_text("old\n")
        files = export()
        names = ["0001-lib-one.patch", "0002-selftests-mm-two.patch"]
        self.assertEqual([p.name for p in files], names)
        self.assertEqual((out / series.SERIES_MARKER).read_text(),
                         "".join(f"{n}\n" for n in names))
        # A second export removes the first's, under whatever names.
        os.rename(out / names[1], out / "0003-renamed-since.patch")
        (out / series.SERIES_MARKER).write_text(
            f"{names[0]}\n0003-renamed-since.patch\n")
        self.assertEqual([p.name for p in export()], names)
        self.assertEqual(sorted(p.name for p in out.iterdir()),
                         [series.SERIES_MARKER, *names])
        self.assertIn("From: A B <a@b>", (out / names[0]).read_text())

    def test_bisect_builds_each_patch_but_the_last_and_comes_back(self):
        head = series.commit_series(self.tree, self.two_patches(), "A", "a@b")
        git(self.tree, "checkout", "-q", "--detach", head)
        seen = []

        def module(tree):
            seen.append(("module", git(tree, "log", "-1", "--format=%s")))
            return []

        def kselftest(tree):
            seen.append(("kselftest", git(tree, "log", "-1", "--format=%s")))
            return ["warning: x"]
        done, total = series.bisect_builds(self.tree, module, kselftest)
        self.assertEqual(total, 2)
        self.assertEqual(seen, [("module", "lib: one")])
        self.assertEqual(done, [(1, "lib: one", "module", [])])
        self.assertEqual(git(self.tree, "rev-parse", "HEAD"), head)


class CoverLetter(unittest.TestCase):
    TABLE = {"fingerprint": {"release": "6.12.117+deb12-cloud-amd64",
                             "cpu_model": "QEMU Virtual CPU version 2.5+",
                             "hypervisor": "tcg", "preempt": "voluntary",
                             "debug": "none"},
             "baseline": {"status": "pass", "ns_per_op_median": "3.302",
                          "net_ns_per_op": "0.000"},
             "kmalloc_64": {"status": "pass", "ns_per_op_median": "344.468",
                            "net_ns_per_op": "340.873"},
             "kmalloc_4096": {"status": "noisy"},
             "not_quoted": {"status": "pass", "ns_per_op_median": "1",
                            "net_ns_per_op": "1"}}

    def test_quotes_the_rows_that_passed_with_the_machine(self):
        text = series.figures_text(self.TABLE)
        self.assertIn("Kernel 6.12.117+deb12-cloud-amd64", text)
        self.assertRegex(text, r"hypervisor\stcg")
        self.assertRegex(text, r"2 of\s4 rows")
        self.assertRegex(text, r"kmalloc_64 +344\.5 +340\.9")
        self.assertNotIn("kmalloc_4096", text)
        self.assertNotIn("not_quoted", text)
        for line in text.splitlines():
            self.assertLessEqual(len(line), 75, line)

    def test_no_row_no_figures(self):
        self.assertIsNone(series.figures_text({"baseline": {"status":
                                                            "noisy"}}))

    def test_fills_git_format_patchs_placeholders(self):
        with tempfile.TemporaryDirectory() as d:
            path = Path(d) / "0000-cover-letter.patch"
            path.write_text("Subject: [PATCH 0/3] *** SUBJECT HERE ***\n\n"
                            "*** BLURB HERE ***\n\nA (3):\n")
            series.fill_cover_letter(path, "  FIGURES\n")
            text = path.read_text()
        subject = series.COVER.read_text().split("\n", 1)[0]
        self.assertIn(f"[PATCH 0/3] {subject}\n", text)
        self.assertIn("\n  FIGURES\n", text)
        self.assertNotIn("@", text.replace("@FIG", ""))
        self.assertNotIn("***", text)

    def test_refuses_what_is_not_a_cover_letter(self):
        with tempfile.TemporaryDirectory() as d:
            path = Path(d) / "0001-x.patch"
            path.write_text("Subject: [PATCH 1/3] x\n")
            with self.assertRaisesRegex(Failure, "not a cover letter"):
                series.fill_cover_letter(path, "")

    def test_without_a_run_it_says_so(self):
        with tempfile.TemporaryDirectory() as d:
            self.assertIn("no run found", series.cover_figures(Path(d)))

    def test_newest_run_with_figures(self):
        """Not "latest" when that attempt stopped early (a new user's
        trial exported "no run found" with a good run beside it)."""
        ktap = ["# kmalloc_64.status=pass",
                "# kmalloc_64.ns_per_op_median=344.468",
                "# kmalloc_64.net_ns_per_op=340.873", "ok 1 kmalloc"]
        with tempfile.TemporaryDirectory() as d:
            top = Path(d) / "results"
            for name, lines in (("20261201-100000", ktap),
                                ("20261202-100000", ktap),
                                ("20261203-100000", ["# only a plan"]),
                                ("20261204-100000", None),
                                ("20261205-100000-debug", ktap)):
                (top / name).mkdir(parents=True)
                if lines is not None:
                    (top / name / "mmbench_test.ktap").write_text(
                        "\n".join(lines) + "\n")
            (top / "latest").symlink_to("20261204-100000")
            with mock.patch.object(series, "OUT", Path(d)), \
                    mock.patch.object(series, "say"):
                self.assertEqual(series.newest_run(),
                                 top / "20261202-100000")
                # A run that failed is passed over for the one before.
                (top / "20261202-100000" / "results.json").write_text(
                    '{"schema": 2, "outcome": "failed"}')
                self.assertEqual(series.newest_run(),
                                 top / "20261201-100000")
                # So is one given options: a new user's trial quoted a
                # run of benchmarks=kmalloc as the plain command's.
                (top / "20261202-100000" / "results.json").write_text(
                    '{"schema": 2, "outcome": "passed", "options": '
                    '{"params": ["benchmarks=kmalloc", "samples=11"], '
                    '"env": [], "ceilings": []}}')
                self.assertEqual(series.newest_run(),
                                 top / "20261201-100000")
                for given in ("params", "failed"):
                    if given == "failed":
                        (top / "20261202-100000" / "results.json"
                         ).write_text('{"outcome": "failed"}')
                    rc, out = support.options_only(
                        "export", "--results", str(top / "20261202-100000"))
                    self.assertEqual(rc, 2, out)
                    self.assertIn("that run did not pass" if given ==
                                  "failed" else "a run with --param "
                                  "benchmarks=kmalloc --param samples=11",
                                  out)
                (top / "20261202-100000" / "results.json").unlink()
                self.assertRegex(series.cover_figures(),
                                 r"kmalloc_64 +344\.5 +340\.9")
                self.assertIsNone(series.run_figures(top / "20261203-100000"))
                self.assertIsNone(series.run_figures(top / "20261204-100000"))
            rc, out = support.options_only("export", "--results",
                                           str(top / "20261203-100000"))
            self.assertEqual(rc, 2, out)
            self.assertIn("no figures in its mmbench_test.ktap", out)


class ExportCommand(unittest.TestCase):
    def test_writes_where_asked_and_lists_the_patches(self):
        import contextlib
        import io

        from mmbench_tool import cli, deps
        files = [Path("/o/0000-cover-letter.patch"), Path("/o/0001-x.patch")]
        out = io.StringIO()
        with tempfile.TemporaryDirectory() as r, \
                mock.patch.object(deps, "ensure"), \
                mock.patch.object(series, "export",
                                  return_value=("b", files)) as export, \
                mock.patch.object(series, "run_figures",
                                  return_value="FIGURES"), \
                contextlib.redirect_stdout(out):
            rc = cli.main(["export", "-o", "/o", "--results", r])
        self.assertEqual(rc, 0)
        export.assert_called_once_with(Path("/o"), results=Path(r))
        self.assertIn("/o/0001-x.patch\n", out.getvalue())

    def test_refuses_a_file_for_a_folder_and_a_missing_results(self):
        import contextlib
        import io

        from mmbench_tool import cli
        with tempfile.TemporaryDirectory() as d:
            f = Path(d) / "file"
            f.write_text("")
            for argv, why in ((["-o", str(f)], "a file, not a folder"),
                              (["-o", d, "--results", f"{d}/none"],
                               "no such results folder"),
                              (["-o", d, "--results", str(f)],
                               "a file, not a results folder")):
                err = io.StringIO()
                with mock.patch.object(series, "export") as export, \
                        contextlib.redirect_stderr(err):
                    rc = cli.main(["export", *argv])
                self.assertEqual(rc, 2)
                self.assertIn(why, err.getvalue())
                export.assert_not_called()


if __name__ == "__main__":
    unittest.main()
