"""./mmbench measure --tree DIR A B: two revisions of a kernel git tree,
built with one configuration, each in several code layouts, to boot in
turn and compare.

The user's tree is only read.  Its revisions are checked out in a clone
that shares its objects (git clone --shared, kept in the build cache), and
built there with O=, one after the other in one build folder, so that the
second revision builds on the first: make rebuilds what the checkout
changed.  Each build is kept in the cache under a key of the commit, the
configuration, the layout and the compiler (kernels.CACHE/kernels/<key>:
the bzImage), and each revision's headers for out-of-tree modules beside
it (made by the kernel's own scripts/package/install-extmod-build, as
Debian's linux-headers packages are): asked again, nothing is rebuilt.

A layout variant is the same code with padding that never runs: a function
of N bytes of NOPs appended to kernel/fork.c, the first object of kernel/,
which the linker places before mm/, so that everything after it moves by
about N bytes (checked in each build's System.map: check_layouts()).
Under QEMU's TCG the cost of a path moves with its addresses (translation
blocks end at guest pages; a 64-byte shift moved the kmalloc rows by
10-13 %); measure spreads each kernel's boots over its variants, and
compare takes the layout as the unit, so that no verdict claims what
layout alone does.
"""
import os
import re
import shlex
import shutil
import subprocess
import time
from pathlib import Path

from . import kernels
from .common import Failure, Phase, say

# The layouts of a revision: padding in bytes (multiples of 16, the
# functions' alignment; not of 64, so that they move against cache lines
# and pages alike).
PAD_STEP = 1424
MAX_LAYOUTS = 8
# Four: with 16-byte function alignment the four shifts modulo 64 bytes
# (cache-line phases) that there are, and 8 boots, the default, two a
# layout.
DEFAULT_LAYOUTS = 4
# Forced function alignment, the kernel test robot's re-test of a
# suspected regression (lib/Kconfig.debug).
ALIGN_FRAGMENT = "CONFIG_EXPERT=y\nCONFIG_DEBUG_FORCE_FUNCTION_ALIGN_64B=y\n"
# Every build's: the release is the revision's (LOCALVERSION), never one
# that a layout's padding makes "-dirty" (setlocalversion), which the
# module built against the revision's headers would not match.
RELEASE_FRAGMENT = "# CONFIG_LOCALVERSION_AUTO is not set\n"
EXTMOD = "scripts/package/install-extmod-build"
# The file the padding goes into: kernel/ and mm/ are linked after it.
# Not init/: arch/x86's objects come between, and one of them
# (madt_playdead.S, with ACPI) aligns to a page, which took the padding
# back out before mm/ (kmem_cache_free at one page offset in every layout).
PAD_FILE = "kernel/fork.c"
STAMP = "built"
# Symbols of the hot paths whose place in a page each layout must change:
# the proof that the padding reaches mm/.
PROBES = ("kmem_cache_free", "__free_pages")


class Built:
    """One revision's builds: its commit, release, headers and, per
    layout, (label, bzImage)."""

    def __init__(self, rev, sha, release, headers, layouts, maps=()):
        self.rev, self.sha, self.release = rev, sha, release
        self.headers, self.layouts, self.maps = headers, layouts, list(maps)


def page_offsets(system_map):
    """{probe: its address modulo 4096} of the PROBES a System.map
    has."""
    out = {}
    for line in Path(system_map).read_text().splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[2] in PROBES:
            out[parts[2]] = int(parts[0], 16) % 4096
    return out


def check_layouts(builds):
    """Refuse layouts that do not move the hot paths: within a revision
    (and across both sides of an A/A), each probe at another page offset
    in every layout.  Says so and passes where a System.map lacks a
    probe."""
    groups = {}
    for b in builds:
        groups.setdefault(b.sha, []).extend(
            (label, m) for (label, _), m in zip(b.layouts, b.maps))
    for sha, layouts in groups.items():
        if len(layouts) < 2:
            continue
        offsets = [(label, page_offsets(m)) for label, m in layouts]
        for probe in PROBES:
            seen = {}
            if not all(probe in o for _, o in offsets):
                say(f"{sha[:12]}: {probe} not in every System.map: "
                    "cannot tell whether the layouts move it")
                continue
            for label, o in offsets:
                other = seen.setdefault(o[probe], label)
                if other != label:
                    raise Failure(
                        f"layouts {other} and {label}: {probe} at the same "
                        f"page offset ({o[probe]:#x}) in both, so the "
                        f"padding in {PAD_FILE} does not reach mm/ in this "
                        "tree: layout would not be part of the comparison")


def git(tree, *args, check=True):
    proc = subprocess.run(["git", "-C", str(tree), *args], text=True,
                          stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, check=False)
    if check and proc.returncode:
        raise Failure(f"git {' '.join(args)} in {tree}: "
                      f"{proc.stderr.strip() or proc.returncode}")
    return proc


def check_tree(tree):
    """The top of the kernel git tree @tree, or a Failure naming what it
    is not."""
    tree = Path(tree)
    if not tree.exists():
        raise Failure(f"--tree {tree}: does not exist")
    if not tree.is_dir():
        raise Failure(f"--tree {tree}: not a folder")
    proc = git(tree, "rev-parse", "--show-toplevel", check=False)
    if proc.returncode and "dubious ownership" in proc.stderr:
        # As root, in a tree of one's own user: git reads no repository
        # another user owns (its config could run commands).
        top = proc.stderr.split("repository at '", 1)[-1].split("'")[0]
        raise Failure(
            f"--tree {tree}: git refuses a repository another user owns "
            f"(\"dubious ownership\"); if you trust it: git config --global "
            f"--add safe.directory {top} && git config --global --add "
            f"safe.directory {top}/.git")
    if proc.returncode:
        said = (proc.stderr.strip().splitlines() or ["?"])[0].strip()
        raise Failure(f"--tree {tree}: not a git tree ({said}); give a "
                      "kernel's git tree")
    # Its .git, when the tree has no work tree (a clone --no-checkout).
    return Path(proc.stdout.strip() or tree)


def check_kernel(tree, rev, sha):
    """Refuse a revision that is not a Linux kernel's tree, read from the
    commit (what is built), not from the checkout."""
    makefile = git(tree, "cat-file", "-p", f"{sha}:Makefile", check=False)
    x86 = git(tree, "cat-file", "-e", f"{sha}:arch/x86", check=False)
    if makefile.returncode or x86.returncode or not re.search(
            r"^VERSION = \d+", makefile.stdout[:400], re.M):
        raise Failure(f"revision {rev}: not a Linux kernel's tree (no top "
                      "Makefile with VERSION =, or no arch/x86)")


def resolve(tree, rev):
    """The commit @rev names in @tree, or a Failure naming it."""
    proc = git(tree, "rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}",
               check=False)
    if proc.returncode or not proc.stdout.strip():
        raise Failure(f"revision {rev!r}: not a commit of {tree} (git "
                      "rev-parse --verify)")
    return proc.stdout.strip()


def config_fragments(config, align):
    """(what the configuration is, the fragments merged onto tinyconfig
    or None, the text of a user's .config or of the extra fragment):
    a user's .config (checked for what the guest needs), or tinyconfig
    with guest.config and the kselftest's config; with @align, forced
    function alignment on top of either."""
    extra = RELEASE_FRAGMENT + (ALIGN_FRAGMENT if align else "")
    if config is None:
        return ("tinyconfig + guest.config",
                [kernels.GUEST_CONFIG, kselftest_config()], extra)
    config = Path(config)
    if not config.exists():
        raise Failure(f"--config {config}: no such file")
    if not config.is_file():
        raise Failure(f"--config {config}: not a regular file; give a "
                      ".config")
    try:
        text = config.read_text(errors="replace")
    except OSError as e:
        raise Failure(f"--config {config}: cannot read it "
                      f"({e.strerror or e})") from e
    lost = [m for m in kernels.missed(text, [kernels.GUEST_CONFIG])
            if needed(m)]
    if lost:
        raise Failure(f"--config {config}: lacks what the guest needs "
                      f"(tooling/kernel/guest.config): {', '.join(lost)}; "
                      "merge that file into it (scripts/kconfig/"
                      "merge_config.sh), or leave out --config")
    return f"--config {config}", None, text + extra


# Options of guest.config that mmbench's own builds set, but that a
# user's configuration may have otherwise (Debian's do): what makes
# faster code or a longer log, or what a case uses when it is there
# (THP: PREEMPT_RT kernels have none), not what the guest cannot do
# without.
PREFERRED = ("CONFIG_CC_OPTIMIZE_FOR_PERFORMANCE", "CONFIG_MODVERSIONS",
             "CONFIG_UNWINDER_FRAME_POINTER", "CONFIG_PRINTK_TIME",
             "CONFIG_DEVTMPFS_MOUNT", "CONFIG_NR_CPUS",
             "CONFIG_LOG_BUF_SHIFT", "CONFIG_TRANSPARENT_HUGEPAGE")


def needed(missed):
    """Whether kernels.missed()'s @missed ("NAME=want (got have)") is an
    option the guest cannot do without."""
    return missed.split("=", 1)[0] not in PREFERRED


def kselftest_config():
    return kernels.REPO / "tools/testing/selftests/mm/mmbench/config"


def _pad_source(pad):
    """The padding of a layout, in every layout (pad 0 too), so that the
    shifts between layouts are the pads' differences alone, not those
    and a function's frame."""
    return ("\n/* mmbench layout variant: never called; moves the code "
            "after it */\n"
            "void mmbench_layout_pad(void);\n"
            "__used noinline void mmbench_layout_pad(void)\n"
            f"{{\n\tasm volatile(\".skip {pad}, 0x90\");\n}}\n")


class Workspace:
    """The clone and build folder of one tree and configuration."""

    def __init__(self, tree, config, align):
        self.tree = tree
        self.what, self.fragments, self.text = \
            config_fragments(config, align)
        self.cfg_key = kernels.digest(
            *(f.read_text() for f in self.fragments or ()), self.text,
            kernels.toolchain())
        self.root = kernels.CACHE / "trees" / kernels.digest(
            str(tree), self.cfg_key)
        self.src, self.obj = self.root / "src", self.root / "obj"
        self.log = self.root / "build.log"

    def key(self, sha, pad):
        return kernels.digest(sha, self.cfg_key, pad, PAD_FILE,
                              _pad_source(pad))

    def artifact(self, sha, pad):
        return kernels.CACHE / "kernels" / self.key(sha, pad)

    def headers(self, sha):
        return kernels.CACHE / "kernels" / self.key(sha, "headers")

    def clone(self):
        """The clone of the tree, made whole beside its place and moved
        there: a clone killed half way is never taken for one."""
        if self.src.exists():
            shutil.rmtree(self.src)
        tmp = self.root / "src.new"
        if tmp.exists():
            shutil.rmtree(tmp)
        self.root.mkdir(parents=True, exist_ok=True)
        say(f"cloning {self.tree} (shared objects) into {self.src}")
        git(self.root, "clone", "--quiet", "--shared", "--no-checkout",
            str(self.tree), str(tmp))
        os.replace(tmp, self.src)

    def checkout(self, sha, pad):
        if not (self.src / ".git").exists():
            self.clone()
        # A commit made in the tree after the clone: its objects are the
        # tree's, which the clone reads (objects/info/alternates).  A
        # clone that lost them (git gc in the tree after a rebase) is
        # made again, once.
        if git(self.src, "checkout", "--quiet", "--force", "--detach", sha,
               check=False).returncode:
            say(f"the clone in {self.src} cannot check out {sha[:12]}: "
                "cloning again")
            self.clone()
            git(self.src, "checkout", "--quiet", "--force", "--detach", sha)
        with open(self.src / PAD_FILE, "a") as f:
            f.write(_pad_source(pad))

    def configure(self, rev):
        """The .config of the build folder, made anew for each revision
        (tinyconfig and the fragments, or the user's file, then
        olddefconfig: the same for A and B, whatever was built before;
        an unchanged one rebuilds nothing); refused when it lost what
        the guest needs."""
        self.obj.mkdir(parents=True, exist_ok=True)
        cfg = self.obj / ".config"
        if self.fragments is None:
            cfg.write_text(self.text)
            kernels.make(self.src, self.obj, self.log, "olddefconfig",
                         what=f"revision {rev}")
        else:
            extra = self.root / "extra.config"
            extra.write_text(self.text)
            kernels.configure(self.src, self.obj, self.log,
                              [*self.fragments, extra],
                              what=f"revision {rev}",
                              required=[kernels.GUEST_CONFIG])
        lost = [m for m in kernels.missed(cfg.read_text(),
                                          [kernels.GUEST_CONFIG])
                if self.fragments is not None or needed(m)]
        if "CONFIG_LOCALVERSION_AUTO=y" in cfg.read_text().splitlines():
            lost.append("CONFIG_LOCALVERSION_AUTO=n (got y)")
        if lost:
            raise Failure(f"revision {rev}: its .config lost what the "
                          "guest needs: " + ", ".join(lost)
                          + f" (log: {self.log})")

    def build(self, rev, sha, pads):
        """Build @sha in each layout of @pads that the cache lacks;
        return its Built.  Holds the workspace's lock throughout."""
        with kernels.lock(self.root, f"{self.tree}"):
            # A run killed in a checkout leaves git's lock; ours is held.
            (self.src / ".git/index.lock").unlink(missing_ok=True)
            return self._build(rev, sha, pads)

    def _build(self, rev, sha, pads):
        tag = "-mmb" + sha[:8]
        layouts, headers = [], self.headers(sha)
        for pad in pads:
            art = self.artifact(sha, pad)
            label = f"{sha[:12]}-pad{pad}"
            image = art / "bzImage"
            if (art / STAMP).exists() and image.exists() and \
                    (headers / STAMP).exists():
                say(f"{rev} ({sha[:12]}), layout pad {pad}: built before, "
                    f"{art}")
                layouts.append((label, image))
                continue
            with Phase(f"build {rev} ({sha[:12]}) layout pad {pad}"):
                start = time.monotonic()
                self.root.mkdir(parents=True, exist_ok=True)
                say(f"building in {self.obj} ({self.what}), log in "
                    f"{self.log}")
                self.checkout(sha, pad)
                self.configure(rev)
                kernels.make(self.src, self.obj, self.log,
                             f"LOCALVERSION={tag}", "all",
                             "modules_prepare", what=f"revision {rev}")
                if not (headers / STAMP).exists():
                    self.install_headers(headers, rev)
                built = (self.obj / "include/config/kernel.release"
                         ).read_text().strip()
                want = (headers / "include/config/kernel.release"
                        ).read_text().strip()
                if built != want:
                    raise Failure(f"revision {rev}, layout pad {pad}: "
                                  f"release {built}, but its headers' "
                                  f"{want}: the module would not load "
                                  f"(log: {self.log})")
                publish(art, [(self.obj / "arch/x86/boot/bzImage",
                               "bzImage"), (self.obj / ".config", "config"),
                              (self.obj / "System.map", "System.map")],
                        f"{rev} {sha} pad={pad} "
                        f"{time.monotonic() - start:.0f} s\n")
            layouts.append((label, image))
        release = (headers / "include/config/kernel.release").read_text() \
            .strip()
        return Built(rev, sha, release, headers, layouts,
                     [self.artifact(sha, pad) / "System.map"
                      for pad in pads])

    def install_headers(self, dest, rev):
        """The headers of the revision just built, for out-of-tree
        modules: the kernel's own install-extmod-build, run by make
        run-command in kbuild's environment, as its package targets run
        it; installed beside @dest, then moved into place."""
        tmp = dest.with_name(f"{dest.name}.{os.getpid()}.tmp")
        if tmp.exists():
            shutil.rmtree(tmp)
        kernels.make(self.src, self.obj, self.log, "run-command",
                     "KBUILD_RUN_COMMAND=sh " + shlex.quote(
                         str(self.src / EXTMOD)) + " " + shlex.quote(
                         str(tmp)), what="install-extmod-build")
        publish(dest, [(tmp, None)], f"headers {rev}\n")


def publish(art, files, stamp):
    """Put @files [(path, name in @art)] into @art, a folder of the
    cache that another run may be filling with the same build (a user's
    clone and CI's share the cache, and their keys): made in a folder of
    its own, moved into place whole under @art's lock, stamped last; a
    build found stamped by then is kept.  A name None: the path is the
    whole folder."""
    art.parent.mkdir(parents=True, exist_ok=True)
    tmp = art.with_name(f"{art.name}.{os.getpid()}.new")
    if tmp.exists():
        shutil.rmtree(tmp)
    for path, name in files:
        if name is None:
            shutil.move(str(path), str(tmp))
        else:
            tmp.mkdir(exist_ok=True)
            shutil.copy2(path, tmp / name)
    (tmp / STAMP).write_text(stamp)
    with kernels.lock(art.with_name(art.name + ".lock"), art.name):
        if (art / STAMP).exists():
            shutil.rmtree(tmp)
            return
        if art.exists():
            shutil.rmtree(art)
        os.replace(tmp, art)


def check(args):
    """Refuse, before anything is built, what --tree cannot do: returns
    (tree top, [(rev, sha)] for A and B)."""
    revs = list(args.revisions or [])
    if len(revs) != 2:
        raise Failure(f"--tree takes two revisions, A then B ({len(revs)} "
                      "given): ./mmbench measure --tree DIR REV_A REV_B "
                      "(e.g. v6.12 HEAD)")
    for opt in ("kernel", "headers", "a_kernel", "b_kernel", "a_headers",
                "b_headers", "release", "a_release", "b_release"):
        if getattr(args, opt, None):
            raise Failure(f"--{opt.replace('_', '-')}: not with --tree, "
                          "which builds both kernels")
    if getattr(args, "debug_kernel", False):
        raise Failure("--debug-kernel: not with --tree, which builds both "
                      "kernels (give --config a debug configuration)")
    if getattr(args, "arch", "x86_64") != "x86_64":
        raise Failure("--tree builds x86_64 kernels only")
    if args.layouts is None:
        args.layouts = DEFAULT_LAYOUTS
    if not 1 <= args.layouts <= MAX_LAYOUTS:
        raise Failure(f"--layouts must be from 1 to {MAX_LAYOUTS}")
    if args.boots < args.layouts:
        raise Failure(f"--boots {args.boots} is fewer than --layouts "
                      f"{args.layouts}: a layout would never boot")
    top = check_tree(args.tree)
    shas = [resolve(top, r) for r in revs]
    for rev, sha in zip(revs, shas):
        check_kernel(top, rev, sha)
        if git(top, "cat-file", "-e", f"{sha}:{EXTMOD}",
               check=False).returncode:
            raise Failure(f"revision {rev}: no {EXTMOD} in it (a kernel "
                          "older than that script): mmbench builds the "
                          "module against the headers it installs; build "
                          "such kernels yourself and give --a-kernel, "
                          "--a-headers, --b-kernel, --b-headers")
    head = git(top, "rev-parse", "--verify", "--quiet", "HEAD",
               check=False).stdout.strip()
    # (A tree with no checkout, an empty index, has no changes to lose.)
    checked_out = git(top, "ls-files", check=False).stdout.strip()
    if head in shas and checked_out:
        dirty = git(top, "--no-optional-locks", "status", "--porcelain",
                    "--untracked-files=no", check=False).stdout.split("\n")
        dirty = [line[3:] for line in dirty if line.strip()]
        if dirty:
            raise Failure(f"{top} has changes not committed ("
                          + ", ".join(dirty[:5])
                          + (", ..." if len(dirty) > 5 else "")
                          + f"), and {revs[shas.index(head)]} is its "
                          "HEAD: measure --tree builds commits; commit or "
                          "stash them")
    if shas[0] == shas[1] and not args.aa:
        raise Failure(f"{revs[0]} and {revs[1]} are the same commit "
                      f"{shas[0][:12]}: that is an A/A (the same kernel "
                      "against itself); give --aa to run one")
    if shas[0] != shas[1] and args.aa:
        raise Failure(f"--aa: {revs[0]} and {revs[1]} are different "
                      "commits; --aa is for one commit against itself")
    config_fragments(args.config, args.align_functions)
    # Last: it makes the cache folder, which a refusal above should not.
    kernels.check_cache()
    return top, list(zip(revs, shas))


def build(args):
    """Build A and B of @args (--tree, two revisions): returns [Built A,
    Built B]."""
    top, revs = check(args)
    ws = Workspace(top, args.config, args.align_functions)
    pads = [k * PAD_STEP for k in range(args.layouts)]
    if args.layouts == 1 and getattr(args, "accel", None) != "icount":
        say("--layouts 1: layout is not part of this comparison; in time "
            "mode a layout alone moved rows by 10-13 % here, and a "
            "verdict may be that")
    if args.boots % args.layouts:
        say(f"--boots {args.boots} is not a multiple of --layouts "
            f"{args.layouts}: some layouts get one boot more")
    out = []
    for rev, sha in revs:
        if out and sha == out[0].sha:
            # An A/A: B in layouts of its own, half a step from A's, so
            # that layout is not the same on both sides.
            pads = [p + PAD_STEP // 2 for p in pads]
        out.append(ws.build(rev, sha, pads))
    check_layouts(out)
    return out
