"""Build the module out of tree, assemble a kernel tree, build the kselftest."""
import re
import shutil
import subprocess
from pathlib import Path

from . import knobs as knobsmod
from .common import OUT, REPO, Failure, run, say

SOURCE_TARBALL = Path("/usr/src/linux-source-6.12.tar.xz")

COMPAT = REPO / "tooling" / "compat"
# The out-of-tree build folder's Kbuild: lib/test_mmbench.c is written
# against mainline; the compat header maps that onto the kernel built
# against, and its include/ is searched after the kernel's own.
KBUILD = ("obj-m := test_mmbench.o\n"
          f"ccflags-y += -include {COMPAT / 'mmbench_compat.h'}\n"
          f"ccflags-y += -I{COMPAT / 'include'}\n")


def default_release():
    """Release of the kernel linux-headers-6.12-cloud-amd64 points at."""
    proc = subprocess.run(
        ["dpkg-query", "-W", "-f=${Depends}",
         "linux-headers-6.12-cloud-amd64"],
        text=True, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
        check=False)
    match = re.search(r"linux-headers-(\S+)", proc.stdout)
    if not match:
        raise Failure("linux-headers-6.12-cloud-amd64 is not installed")
    return match.group(1)


def kernel_release(headers):
    """The release (uname -r) of the kernel @headers were built for.

    UTS_RELEASE is what the kernel reports and what the module's vermagic
    carries.  include/config/kernel.release, which "make kernelrelease"
    prints, is not always that: in Debian's linux-headers-6.1.0-57-cloud-amd64
    it says 6.1.192, the package version, for 6.1.0-57-cloud-amd64.
    """
    uts = headers / "include" / "generated" / "utsrelease.h"
    if uts.exists():
        match = re.search(r'^#define UTS_RELEASE "([^"]+)"', uts.read_text(),
                          re.M)
        if match:
            return match.group(1)
    return run(["make", "-s", "-C", str(headers), "kernelrelease"],
               capture=True).strip().splitlines()[-1]


def warnings_in(output):
    return [line for line in output.splitlines()
            if re.search(r"\b(warning|error):", line)]


def build_module(headers, release, checks=False, cross=(), knobs=False):
    """Build test_mmbench.ko against @headers; return (ko, warnings).

    With @checks, compile from scratch with sparse (C=2) as well as W=1.
    @cross: make variables of a cross build (ARCH=, CROSS_COMPILE=).
    With @knobs, the module with its test-only knobs (knobs.PATCH applied
    to a copy of lib/test_mmbench.c), in a folder of its own: the plain
    module, which users' figures come from, is never overwritten by it.
    """
    bdir = OUT / ("module-knobs" if knobs else "module") / release
    bdir.mkdir(parents=True, exist_ok=True)
    kbuild = bdir / "Kbuild"
    if not kbuild.exists() or kbuild.read_text() != KBUILD:
        kbuild.write_text(KBUILD)
    src = bdir / "test_mmbench.c"
    if knobs:
        # Written only when it changed: make rebuilds by its time, when
        # the module or the patch changed, and not otherwise.
        text = knobsmod.patched_text()
        if src.is_symlink() or not src.exists() or src.read_text() != text:
            src.unlink(missing_ok=True)
            src.write_text(text)
    elif not src.is_symlink():
        src.unlink(missing_ok=True)
        src.symlink_to(REPO / "lib" / "test_mmbench.c")
    if checks:
        for stale in bdir.glob("test_mmbench.o"):
            stale.unlink()
    cmd = ["make", "-C", str(headers), f"M={bdir}", *cross, "W=1",
           "modules"]
    if checks:
        cmd.insert(-1, "C=2")
    out = run(cmd, capture=True)
    ko = bdir / "test_mmbench.ko"
    if not ko.exists():
        raise Failure(f"no {ko} after the build")
    return ko, warnings_in(out)


def build_lockup(headers, release, cross=()):
    """The kernel's own lockup generator, lib/test_lockup.c of
    linux-source-6.12, built out of tree against @headers: isolated.sh's
    stall of the kernel on one CPU.  Returns the .ko."""
    bdir = OUT / "lockup" / release
    bdir.mkdir(parents=True, exist_ok=True)
    src, stamp = bdir / "test_lockup.c", bdir / ".source"
    want = tarball_id() + "\n"
    if not src.exists() or not stamp.exists() or stamp.read_text() != want:
        run(["tar", "-xJf", str(SOURCE_TARBALL), "-C", str(bdir),
             "--strip-components=2", "--wildcards", "--occurrence=1",
             "*/lib/test_lockup.c"])
        stamp.write_text(want)
    (bdir / "Kbuild").write_text("obj-m := test_lockup.o\n")
    run(["make", "-C", str(headers), f"M={bdir}", *cross, "modules"],
        capture=True)
    ko = bdir / "test_lockup.ko"
    if not ko.exists():
        raise Failure(f"no {ko} after the build")
    return ko


def tarball_id():
    """What identifies the source tarball: path, size, mtime."""
    if not SOURCE_TARBALL.exists():
        raise Failure(f"{SOURCE_TARBALL} missing: apt-get install "
                      "linux-source-6.12")
    st = SOURCE_TARBALL.stat()
    return f"{SOURCE_TARBALL} {st.st_size} {int(st.st_mtime)}"


def unpack_source(tree):
    """Unpack linux-source-6.12 into @tree unless it holds this tarball
    already (a stamp says which); return @tree."""
    stamp = tree / ".mmbench-unpacked"
    want = tarball_id() + "\n"
    if not stamp.exists() or stamp.read_text() != want:
        if tree.exists():
            shutil.rmtree(tree)
        tree.mkdir(parents=True)
        say(f"unpacking {SOURCE_TARBALL} into {tree} (about 20 s)")
        run(["tar", "-xJf", str(SOURCE_TARBALL), "-C", str(tree),
             "--strip-components=1"])
        stamp.write_text(want)
    return tree


def kselftest_command(tree, install, cross=(), build=None):
    """The make command that builds and installs the mm/mmbench kselftest
    of @tree into @install.  A cross build (@cross: ARCH=, CROSS_COMPILE=)
    is linked statically, since the guest has no C library of its own for
    it, and built in @build (O=), so that the host's build in the tree is
    left alone."""
    cmd = ["make", "-C", str(tree / "tools/testing/selftests"),
           "TARGETS=mm/mmbench"]
    if cross:
        cmd += [*cross, "LDFLAGS=-static", f"O={build}"]
    return cmd + ["install", f"INSTALL_PATH={install}"]


def build_kselftest(tree, install=None, cross=(), build=None):
    """Build and install the mm/mmbench kselftest of @tree into @install
    (default out/kselftest); return (install, warnings)."""
    install = install or OUT / "kselftest"
    # Compiled anew each time: a warning shows only when it compiles.
    # (with O=, the selftests' Makefile builds in $(O)/kselftest)
    (Path(build) / "kselftest/mm/mmbench" if cross else
     tree / "tools/testing/selftests/mm/mmbench").joinpath(
        "mmbench_test").unlink(missing_ok=True)
    out = run(kselftest_command(tree, install, cross, build), capture=True)
    if not (install / "mm/mmbench/mmbench_test").exists():
        raise Failure("the kselftest install has no mm/mmbench/mmbench_test")
    return install, warnings_in(out)
