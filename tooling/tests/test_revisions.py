"""./mmbench measure --tree: refused before anything is built, naming the
problem; builds keyed by what they are built from; boots spread over the
layouts, each boot's archive naming its layout."""
import re
import subprocess
import tempfile
import unittest
from pathlib import Path
from unittest import mock

import support
from mmbench_tool import kernels, measure, revisions
from mmbench_tool import setup as setupmod


def git(tree, *args):
    subprocess.run(["git", "-C", str(tree), *args], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


class Tree(unittest.TestCase):
    """A git tree that looks like a kernel's: two commits, tagged."""

    def setUp(self):
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        self.dir = Path(tmp.name)
        self.tree = self.dir / "linux"
        (self.tree / "arch/x86").mkdir(parents=True)
        (self.tree / "arch/x86/Makefile").write_text("\n")
        (self.tree / "Makefile").write_text("VERSION = 6\nPATCHLEVEL = 12\n")
        (self.tree / "mm").mkdir()
        (self.tree / "mm/slub.c").write_text("int a;\n")
        (self.tree / "kernel").mkdir()
        (self.tree / "kernel/fork.c").write_text("int fork_c;\n")
        (self.tree / "scripts/package").mkdir(parents=True)
        (self.tree / revisions.EXTMOD).write_text("#!/bin/sh\n")
        git(self.tree, "init", "-q")
        for k, v in (("user.name", "t"), ("user.email", "t@localhost")):
            git(self.tree, "config", k, v)
        git(self.tree, "add", "-A")
        git(self.tree, "commit", "-q", "-m", "base")
        git(self.tree, "tag", "base")
        (self.tree / "mm/slub.c").write_text("int a;\nint b;\n")
        git(self.tree, "commit", "-q", "-am", "change")

    def measure(self, *argv):
        return support.options_only("measure", "--accel", "tcg", *argv)

    def refused(self, *argv, says):
        rc, out = self.measure(*argv)
        self.assertEqual(rc, 2, out)
        self.assertIn(says, out)

    def test_not_a_git_tree(self):
        plain = self.dir / "plain"
        plain.mkdir()
        self.refused("--tree", str(plain), "a", "b", says="not a git tree")
        self.refused("--tree", str(self.dir / "none"), "a", "b",
                     says="none: does not exist")
        (self.dir / "file").write_text("")
        self.refused("--tree", str(self.dir / "file"), "a", "b",
                     says="file: not a folder")

    def test_a_refusal_makes_no_cache_folder(self):
        cache = self.dir / "relative-cache"
        with mock.patch.object(kernels, "CACHE", cache):
            self.refused("--tree", str(self.tree), "base", "base",
                         says="same commit")
        self.assertFalse(cache.exists())

    def test_not_a_kernel(self):
        (self.tree / "Makefile").write_text("all:\n")
        git(self.tree, "commit", "-q", "-am", "not a kernel")
        self.refused("--tree", str(self.tree), "base", "HEAD",
                     says="revision HEAD: not a Linux kernel's tree")
        self.refused("--tree", str(self.tree), "HEAD", "base",
                     says="revision HEAD: not a Linux kernel's tree")

    def test_a_tree_with_no_checkout(self):
        """What is built is the commit: a clone with no work tree (as
        ./mmbench test's own) is a kernel's tree all the same."""
        bare = self.dir / "nocheckout"
        subprocess.run(["git", "clone", "-q", "--no-checkout",
                        str(self.tree), str(bare)], check=True)
        self.assertFalse((bare / "Makefile").exists())
        rc, out = self.measure("--tree", str(bare), "HEAD~1", "HEAD")
        self.assertIsNone(rc, out)
        # A checkout with a folder of the kernel's gone, not committed:
        # named (the index has it, the work tree not).
        (self.tree / "mm/slub.c").unlink()
        self.refused("--tree", str(self.tree), "HEAD~1", "HEAD",
                     says="has changes not committed (mm/slub.c)")

    def test_a_tree_without_install_extmod_build(self):
        git(self.tree, "rm", "-q", revisions.EXTMOD)
        git(self.tree, "commit", "-q", "-m", "older")
        self.refused("--tree", str(self.tree), "base", "HEAD",
                     says=f"revision HEAD: no {revisions.EXTMOD} in it")

    def test_changes_not_committed_are_named(self):
        (self.tree / "mm/slub.c").write_text("int a;\nint c;\n")
        rc, out = self.measure("--tree", str(self.tree), "base", "HEAD")
        self.assertEqual(rc, 2, out)
        self.assertIn("has changes not committed (mm/slub.c)", out)
        self.assertIn("commit or stash them", out)
        # Neither revision the checkout's: its changes are not asked for.
        rc, out = self.measure("--tree", str(self.tree), "base", "HEAD~1",
                               "--aa")
        self.assertIsNone(rc, out)

    def test_aa_is_for_one_commit(self):
        self.refused("--tree", str(self.tree), "base", "HEAD", "--aa",
                     says="--aa: base and HEAD are different commits")

    def test_fewer_boots_than_layouts(self):
        self.refused("--tree", str(self.tree), "base", "HEAD", "--boots",
                     "2", "--layouts", "3", says="a layout would never boot")

    def test_a_config_that_is_not_a_file(self):
        self.refused("--tree", str(self.tree), "base", "HEAD", "--config",
                     str(self.dir), says="not a regular file")

    def test_a_tree_another_user_owns(self):
        """As root, git reads no repository another user owns; said with
        the commands that trust it, not as "not a git tree"."""
        said = ("fatal: detected dubious ownership in repository at "
                f"'{self.tree}'\nTo add an exception for this directory, "
                "call:\n\n\tgit config --global --add safe.directory "
                f"{self.tree}\n")
        proc = mock.Mock(returncode=128, stdout="", stderr=said)
        with mock.patch.object(revisions, "git", return_value=proc):
            with self.assertRaises(revisions.Failure) as e:
                revisions.check_tree(self.tree)
        self.assertIn("git refuses a repository another user owns", str(
            e.exception))
        self.assertIn(f"safe.directory {self.tree}/.git", str(e.exception))

    def test_an_error_no_step_named_exits_2(self):
        """An OSError no step turned into a Failure: exit 2 and its
        words, not a traceback and 1 (measure's REGRESSION)."""
        err = OSError(5, "Input/output error", "/proc/self/mem")
        with mock.patch.object(measure, "cmd_measure", side_effect=err):
            rc, out = self.measure()
        self.assertEqual(rc, 2, out)
        self.assertIn("error: /proc/self/mem: Input/output error", out)
        self.assertNotIn("Traceback", out)

    def test_unknown_revision(self):
        self.refused("--tree", str(self.tree), "base", "v9.9",
                     says="revision 'v9.9': not a commit")

    def test_two_revisions_wanted(self):
        self.refused("--tree", str(self.tree), "base",
                     says="--tree takes two revisions")
        self.refused("base", "HEAD", says="go with --tree")
        self.refused("--layouts", "2", says="go with --tree")
        # The default's value too: without --tree there are no layouts.
        self.refused("--layouts", "4", says="go with --tree")

    def test_the_same_commit_is_an_aa(self):
        self.refused("--tree", str(self.tree), "HEAD", "master",
                     says="the same commit")
        self.refused("--tree", str(self.tree), "HEAD", "HEAD~0",
                     says="that is an A/A")
        # --aa: accepted, on to the packages.
        rc, out = self.measure("--tree", str(self.tree), "HEAD", "HEAD",
                               "--aa")
        self.assertIsNone(rc, out)

    def test_other_kernels_not_with_tree(self):
        self.refused("--tree", str(self.tree), "base", "HEAD",
                     "--a-kernel", "/bin/sh", "--a-headers", "/",
                     says="--a-kernel: not with --tree")
        self.refused("--tree", str(self.tree), "base", "HEAD",
                     "--debug-kernel", says="--debug-kernel: not with")
        self.refused("--tree", str(self.tree), "base", "HEAD",
                     "--layouts", "0", says="--layouts must be from 1")

    def test_a_config_without_what_the_guest_needs_is_named(self):
        cfg = self.dir / "user.config"
        cfg.write_text("CONFIG_64BIT=y\nCONFIG_SMP=y\n")
        rc, out = self.measure("--tree", str(self.tree), "base", "HEAD",
                               "--config", str(cfg))
        self.assertEqual(rc, 2, out)
        self.assertIn("lacks what the guest needs", out)
        self.assertIn("CONFIG_BLK_DEV_INITRD=y (got n)", out)
        self.assertNotIn("CONFIG_SMP=", out)
        # What mmbench's own builds prefer is not asked of a user's.
        self.assertNotIn("CONFIG_NR_CPUS", out)
        self.refused("--tree", str(self.tree), "base", "HEAD", "--config",
                     str(self.dir / "none"), says="no such file")

    def test_debians_config_has_what_the_guest_needs(self):
        # Debian's 6.1, 6.12 and 6.12-rt, those that are installed.
        configs = sorted(Path("/boot").glob("config-6.*"))
        if not configs:
            self.skipTest("no /boot/config-6.12* (linux-image-6.12 is not "
                          "installed)")
        for cfg in configs:
            with self.subTest(cfg=cfg.name):
                lost = [m for m in kernels.missed(
                    cfg.read_text(), [kernels.GUEST_CONFIG])
                    if revisions.needed(m)]
                self.assertEqual(lost, [])

    def test_a_cache_path_kbuild_refuses_is_refused_first(self):
        for name in ("with space", "with:colon"):
            with self.subTest(name=name), \
                    mock.patch.object(kernels, "CACHE", self.dir / name):
                self.refused("--tree", str(self.tree), "base", "HEAD",
                             says="a path with a space or a colon")
                self.assertFalse((self.dir / name).exists())

    def test_a_clone_that_lost_its_objects_is_made_again(self):
        """git gc in the user's tree after a rebase takes objects the
        --shared clone needs; a checkout then failed on every run."""
        with mock.patch.object(kernels, "CACHE", self.dir / "cache"):
            ws = revisions.Workspace(self.tree, None, False)
            ws.checkout(revisions.resolve(self.tree, "base"), 0)
            # A commit the clone has never heard of, as after a rebase.
            (self.tree / "mm/slub.c").write_text("int c;\n")
            git(self.tree, "commit", "-q", "-am", "new")
            alternates = ws.src / ".git/objects/info/alternates"
            alternates.write_text("/nonexistent\n")
            ws.checkout(revisions.resolve(self.tree, "HEAD"), 0)
            self.assertEqual((ws.src / "mm/slub.c").read_text(), "int c;\n")
            self.assertFalse((ws.root / "src.new").exists())

    def test_the_users_tree_is_only_read(self):
        before = subprocess.run(
            ["git", "-C", str(self.tree), "status", "--porcelain",
             "--ignored"], text=True, stdout=subprocess.PIPE).stdout
        with mock.patch.object(kernels, "CACHE", self.dir / "cache"):
            ws = revisions.Workspace(self.tree, None, False)
            sha = revisions.resolve(self.tree, "base")
            ws.checkout(sha, 1424)
        self.assertEqual((ws.src / "mm/slub.c").read_text(), "int a;\n")
        self.assertIn(".skip 1424", (ws.src / "kernel/fork.c").read_text())
        self.assertEqual((self.tree / "kernel/fork.c").read_text(),
                         "int fork_c;\n")
        # The next checkout takes the padding back out; pad 0 has the
        # function too, so that layouts differ by the pads alone.
        ws.checkout(sha, 0)
        self.assertEqual((ws.src / "kernel/fork.c").read_text(),
                         "int fork_c;\n" + revisions._pad_source(0))
        self.assertFalse((self.tree / ".git/worktrees").exists())
        after = subprocess.run(
            ["git", "-C", str(self.tree), "status", "--porcelain",
             "--ignored"], text=True, stdout=subprocess.PIPE).stdout
        self.assertEqual(before, after)
        self.assertEqual(subprocess.run(
            ["git", "-C", str(self.tree), "rev-parse", "HEAD"], text=True,
            stdout=subprocess.PIPE).stdout.strip(),
            revisions.resolve(self.tree, "master"))


class Keys(unittest.TestCase):
    def test_a_build_is_keyed_by_commit_config_and_layout(self):
        with tempfile.TemporaryDirectory() as d, \
                mock.patch.object(kernels, "CACHE", Path(d)):
            ws = revisions.Workspace(Path(d), None, False)
            aligned = revisions.Workspace(Path(d), None, True)
            keys = {ws.key("a" * 40, 0), ws.key("b" * 40, 0),
                    ws.key("a" * 40, 1424), aligned.key("a" * 40, 0)}
            self.assertEqual(len(keys), 4)
            self.assertEqual(ws.key("a" * 40, 0), revisions.Workspace(
                Path(d), None, False).key("a" * 40, 0))
            self.assertNotEqual(ws.root, aligned.root)

    def test_the_padding_is_in_the_key(self):
        with tempfile.TemporaryDirectory() as d, \
                mock.patch.object(kernels, "CACHE", Path(d)):
            ws = revisions.Workspace(Path(d), None, False)
            before = ws.key("a" * 40, 1424)
            with mock.patch.object(revisions, "PAD_FILE", "init/main.c"):
                self.assertNotEqual(ws.key("a" * 40, 1424), before)

    def test_padding_is_code_that_never_runs(self):
        src = revisions._pad_source(1424)
        self.assertIn(".skip 1424, 0x90", src)
        # The kernel's macros: noinline is one, inside __attribute__
        # it would not compile.
        self.assertIn("__used noinline void mmbench_layout_pad(void)", src)
        pads = [k * revisions.PAD_STEP for k in range(3)]
        self.assertEqual(pads[0], 0)
        for p in pads[1:]:
            self.assertEqual(p % 16, 0)
            self.assertNotEqual(p % 64, 0)


class Building(unittest.TestCase):
    """The steps of a build, with make and git stood in for."""

    def setUp(self):
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        self.dir = Path(tmp.name)
        self.made = []
        patches = [mock.patch.object(kernels, "CACHE", self.dir),
                   mock.patch.object(revisions, "say"),
                   mock.patch.object(revisions.Workspace, "checkout",
                                     lambda ws, sha, pad: None),
                   mock.patch.object(kernels, "make", self.make),
                   mock.patch.object(kernels, "configure", self.configure)]
        for p in patches:
            p.start()
            self.addCleanup(p.stop)
        self.release = {"obj": "6.12.0-mmbaaaaaaaa",
                        "headers": "6.12.0-mmbaaaaaaaa"}

    def configure(self, src, obj, log, fragments, what, required):
        self.made.append("configure")
        (obj / ".config").write_text(kernels.GUEST_CONFIG.read_text())

    def make(self, src, obj, log, *targets, what=None, env=None):
        self.made.append(" ".join(t for t in targets
                                  if not t.startswith("KBUILD_RUN")))
        for t in targets:
            if t.startswith("KBUILD_RUN_COMMAND="):
                dest = Path(t.split()[-1])
                (dest / "include/config").mkdir(parents=True)
                (dest / "include/config/kernel.release").write_text(
                    self.release["headers"] + "\n")
        if "all" in targets:
            for f in ("arch/x86/boot/bzImage", "System.map",
                      "include/config/kernel.release"):
                (obj / f).parent.mkdir(parents=True, exist_ok=True)
                (obj / f).write_text(self.release["obj"] + "\n")

    def test_each_revision_configured_anew_and_cached(self):
        ws = revisions.Workspace(self.dir / "tree", None, False)
        a = ws.build("A", "a" * 40, [0, 1424])
        self.assertEqual(self.made, [
            "configure", "LOCALVERSION=-mmbaaaaaaaa all modules_prepare",
            "run-command",
            "configure", "LOCALVERSION=-mmbaaaaaaaa all modules_prepare"])
        self.assertEqual([label for label, _ in a.layouts],
                         ["aaaaaaaaaaaa-pad0", "aaaaaaaaaaaa-pad1424"])
        self.assertEqual(a.release, "6.12.0-mmbaaaaaaaa")
        self.made.clear()
        again = ws.build("A", "a" * 40, [0, 1424])
        self.assertEqual(self.made, [])
        self.assertEqual(again.layouts, a.layouts)

    def test_a_build_is_published_whole(self):
        """Two runs sharing the cache (a user's clone and CI's) make the
        same key: the first stamped is kept, a half-copied folder of a
        run that died is replaced, never taken as built."""
        art = self.dir / "kernels" / "k"
        src = self.dir / "bzImage"
        src.write_text("mine")
        art.mkdir(parents=True)
        (art / "bzImage").write_text("half")
        revisions.publish(art, [(src, "bzImage")], "A\n")
        self.assertEqual((art / "bzImage").read_text(), "mine")
        self.assertEqual((art / revisions.STAMP).read_text(), "A\n")
        src.write_text("theirs")
        revisions.publish(art, [(src, "bzImage")], "B\n")
        self.assertEqual((art / "bzImage").read_text(), "mine")
        self.assertEqual(sorted(p.name for p in art.parent.iterdir()),
                         ["k", "k.lock"])

    @staticmethod
    def system_map(path, offsets):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("".join(
            f"ffffffff81{0x20000 + off:06x} T {sym}\n"
            for sym, off in offsets.items()) + "ffffffff81000000 T _text\n")
        return path

    def test_layouts_that_do_not_move_mm_are_refused(self):
        """What a page-aligned object between the padding and mm/ did:
        every layout put kmem_cache_free at one page offset."""
        maps = [self.system_map(self.dir / f"m{k}", {
            "kmem_cache_free": 0x340, "__free_pages": 0x9a0 + 16 * k})
            for k in range(3)]
        built = revisions.Built("A", "a" * 40, "r", None,
                                [(f"a-pad{k}", None) for k in range(3)],
                                maps)
        with self.assertRaisesRegex(revisions.Failure,
                                    "kmem_cache_free at the same "
                                    "page offset"):
            revisions.check_layouts([built])
        moved = [self.system_map(self.dir / f"n{k}", {
            "kmem_cache_free": 0x340 + 1424 * k,
            "__free_pages": 0x9a0 + 1424 * k}) for k in range(3)]
        built.maps = moved
        revisions.check_layouts([built])
        # An A/A: B's layouts must not sit where A's do.
        twin = revisions.Built("B", "a" * 40, "r", None,
                               [("b-pad0", None)], [moved[0]])
        with self.assertRaises(revisions.Failure):
            revisions.check_layouts([built, twin])
        # Two revisions may well put a path at one offset.
        other = revisions.Built("B", "b" * 40, "r", None,
                                [("b-pad0", None)], [moved[0]])
        revisions.check_layouts([built, other])

    def test_a_layout_whose_release_is_not_its_headers_is_refused(self):
        ws = revisions.Workspace(self.dir / "tree", None, False)
        ws.build("A", "a" * 40, [0])
        self.release["obj"] = "6.12.0-mmbaaaaaaaa-dirty"
        with self.assertRaises(revisions.Failure) as e:
            ws.build("A", "a" * 40, [1424])
        self.assertIn("release 6.12.0-mmbaaaaaaaa-dirty, but its headers' "
                      "6.12.0-mmbaaaaaaaa", str(e.exception))

    def test_an_aa_has_layouts_of_its_own_on_each_side(self):
        args = mock.Mock(layouts=2, boots=4, config=None,
                         align_functions=False)
        sha = "a" * 40
        with mock.patch.object(revisions, "check",
                               return_value=(self.dir, [("x", sha),
                                                        ("y", sha)])), \
                mock.patch.object(kernels, "check_cache"):
            a, b = revisions.build(args)
        self.assertEqual([lb for lb, _ in a.layouts],
                         ["aaaaaaaaaaaa-pad0", "aaaaaaaaaaaa-pad1424"])
        self.assertEqual([lb for lb, _ in b.layouts],
                         ["aaaaaaaaaaaa-pad712", "aaaaaaaaaaaa-pad2136"])


class Layouts(unittest.TestCase):
    def test_boots_go_round_the_layouts(self):
        """Each boot of a side boots its next layout, and the layout is
        in what the archive's fingerprint is made from."""
        booted = []

        class FakeSetup:
            release = "6.12-fake"

            def boot(self, mode, d, echo=None):
                booted.append((d.name, self.layout, self.kernel))
                out = mock.Mock(timed_out=False, finished=True, lines=[],
                                guest_s=1.0, spoilt=None)
                return out

        class FakeSide:
            def __init__(self, name):
                self.name = name
                self.args = mock.Mock(accel="tcg", param=[])
                self.setup = FakeSetup()
                self.layouts = [(f"{name}-pad{p}", Path(f"/k/{name}{p}"))
                                for p in (0, 1424, 2848)]
        sides = [FakeSide("A"), FakeSide("B")]
        with tempfile.TemporaryDirectory() as d, \
                mock.patch.object(measure, "short_of_loads",
                                  return_value=None), \
                mock.patch("mmbench_tool.setup.save_archive", return_value=[]), \
                mock.patch.object(measure, "say"):
            measure.alternate(sides, 4, 2, Path(d))
        self.assertEqual([b[:2] for b in booted[:4]],
                         [("A-boot1", "A-pad0"), ("B-boot1", "B-pad0"),
                          ("A-boot2", "A-pad1424"),
                          ("B-boot2", "B-pad1424")])
        self.assertEqual([b[1] for b in booted if b[0].startswith("A")],
                         ["A-pad0", "A-pad1424", "A-pad2848", "A-pad0"])

    def test_host_facts_name_the_layout(self):
        args = mock.Mock(accel="tcg", arch="x86_64")
        s = setupmod.Setup.__new__(setupmod.Setup)
        s.args, s.kernel = args, Path("/k/bzImage")
        s.arch = mock.Mock(machine=["-cpu", "max"])
        s.arch.name = "x86_64"
        self.assertNotIn("layout", s.host_facts())
        s.layout = "abc-pad1424"
        self.assertEqual(s.host_facts()["layout"], "abc-pad1424")


class Judged(unittest.TestCase):
    """revcheck's judgement of the two real builds' comparisons: each
    check fails where the comparison is wrong."""

    @staticmethod
    def comparison(rows):
        from mmbench_tool import compare
        out = []
        for row, verdict, insn in rows:
            r = compare.RowResult(row)
            r.verdict, r.change_insn = verdict, insn
            if insn is not None:
                r.lo_insn, r.hi_insn = insn - 1.5, insn + 1.5
            r.change = None if insn is None else insn / 2
            out.append(r)
        return mock.Mock(rows=out, judged=lambda: out)

    def test_nops_found_on_the_rows_that_reach_them(self):
        from mmbench_tool import compare, revcheck
        R, N, I = compare.REGRESSION, compare.NO_CHANGE, compare.INCONCLUSIVE
        good = [("kmalloc_64", R, 4.1), ("kmem_cache_256", R, 3.9),
                ("kfree_bulk_16", R, 4.0), ("kmem_cache_bulk_16", N, 0.1),
                ("alloc_pages_order0", I, 2.0)]
        self.assertTrue(all(ok for ok, _, _ in revcheck.nops_checks(
            self.comparison(good), "d")))
        # kfree_bulk's noisy rows: INCONCLUSIVE, or a REGRESSION not
        # below 4 (+6.97 [+4.80, +9.16] for 256 objects, seen), pass.
        self.assertTrue(all(ok for ok, _, _ in revcheck.nops_checks(
            self.comparison(good[:2] + [("kfree_bulk_64", I, 0.2),
                                        ("kfree_bulk_256", R, 5.2),
                                        ("kfree_bulk_16", R, 7.0)]),
            "d")))
        # An interval of +4.00 [+4.00, +4.00] a few 1e-7 off 4 (seen).
        tight = self.comparison(good[:2] + [("kfree_bulk_16", R, 4.0000003)])
        tight.rows[-1].lo_insn = tight.rows[-1].hi_insn = 4.0000003
        self.assertTrue(all(ok for ok, _, _ in revcheck.nops_checks(
            tight, "d")))
        # One core row undecided by chance, its interval holding 4.
        self.assertTrue(all(ok for ok, _, _ in revcheck.nops_checks(
            self.comparison([("kmalloc_64", I, 4.0)] + good[1:]), "d")))
        # One row that does not reach slab_alloc_node() flagged by chance.
        self.assertTrue(all(ok for ok, _, _ in revcheck.nops_checks(
            self.comparison(good + [("count_vm_event", R, 0.6)]), "d")))
        for bad, which in (
                ([("kmalloc_64", N, 0.2)] + good[1:], 0),
                ([("kmalloc_64", R, 8.0)] + good[1:], 0),
                ([("kmalloc_64", I, 9.0)] + good[1:], 0),
                ([("kmalloc_64", I, 4.0), ("kmem_cache_256", I, 3.9)]
                 + good[2:], 0),
                (good[:2] + [("kfree_bulk_16", N, 0.1)], 0),
                (good[:2] + [("kfree_bulk_16", R, 1.0)], 0),
                (good[:3] + [("kmem_cache_bulk_16", R, 4.0),
                             ("kmem_cache_bulk_64", R, 4.0)], 1),
                ([("inc_dec_zone_page_state", compare.IMPROVEMENT, -1.0),
                  ("count_vm_event", R, 0.6)] + good, 1)):
            with self.subTest(bad=bad[0]):
                got = [ok for ok, _, _ in revcheck.nops_checks(
                    self.comparison(bad), "d")]
                self.assertFalse(got[which], got)

    def test_a_layout_control_with_a_verdict_fails(self):
        from mmbench_tool import compare, revcheck
        quiet = [("kmalloc_64", compare.INCONCLUSIVE, None),
                 ("kmem_cache_256", compare.NO_CHANGE, 0.1)]
        (ok, _, _), = revcheck.layout_checks(self.comparison(quiet), "d",
                                             "time")
        self.assertTrue(ok)
        # One row flagged is what chance gives one control in twenty.
        (ok, _, _), = revcheck.layout_checks(self.comparison(
            quiet + [("kmalloc_8", compare.IMPROVEMENT, -12.0)]), "d",
            "time")
        self.assertTrue(ok)
        (ok, _, why), = revcheck.layout_checks(self.comparison(
            quiet + [("kmalloc_8", compare.IMPROVEMENT, -12.0),
                     ("kmalloc_96", compare.IMPROVEMENT, -11.0)]), "d",
            "time")
        self.assertFalse(ok)
        self.assertIn("kmalloc_8 IMPROVEMENT", why)

    def test_the_patches_touch_the_slab_alone(self):
        from mmbench_tool import revcheck
        for name in (revcheck.NOPS, revcheck.LAYOUT):
            text = (revcheck.PATCHES / name).read_text()
            self.assertEqual(re.findall(r"^\+\+\+ b/(\S+)", text, re.M),
                             ["mm/slub.c"], name)
        added = [line for line in (revcheck.PATCHES / revcheck.NOPS)
                 .read_text().splitlines() if line.startswith("+\t")]
        self.assertEqual(sum(line.count("nop;") + line.count('nop")')
                             for line in added), revcheck.NOPS_INSN)


if __name__ == "__main__":
    unittest.main()
