"""Build test_mmbench in the kernel tree the series was applied to.

The configuration is Debian's of the 6.12 cloud kernel plus
CONFIG_TEST_MMBENCH=m (olddefconfig), the objects go to a folder of their
own (O=out/linux-6.12-intree, kept: a second build only checks that
modules_prepare is done), and the module is built with the tree's
lib/Makefile as an external build of that folder (M=<tree>/lib), against
the Debian kernel's Module.symvers: an in-tree single-module build ("make
lib/test_mmbench.ko") wants vmlinux.o for modpost, which only a full kernel
build makes.  lib/test_mmbench.c is written against mainline, so the same
compat header as the out-of-tree build is force-included (for that one
object), on 6.12 only.
"""
import os
import re
import time
from pathlib import Path

from .build import COMPAT, warnings_in
from .common import OUT, Failure, run, say

OBJ = OUT / "linux-6.12-intree"
STAMP = ".mmbench-config"
OPTION = "CONFIG_TEST_MMBENCH"


def base_config(release):
    """Debian's configuration of the kernel @release."""
    path = Path("/boot") / f"config-{release}"
    if not path.exists():
        raise Failure(f"{path} missing: apt-get install "
                      f"linux-image-{release}")
    return path


def _make(tree, *args, log=None, check=False):
    cmd = ["make", "-C", str(tree), f"O={OBJ}", "W=1",
           f"-j{os.cpu_count() or 1}", *args]
    out = run(cmd, capture=True, check=check)
    if log:
        with open(log, "a") as f:
            f.write("$ " + " ".join(cmd) + "\n" + out)
    return out


def configure(tree, config):
    """Debian's @config plus CONFIG_TEST_MMBENCH=m, olddefconfig; redone
    only when @config changed.  Fails when the tree's Kconfig does not
    offer the option (olddefconfig drops what no Kconfig declares)."""
    st = config.stat()
    want = f"{config} {st.st_size} {int(st.st_mtime)}\n"
    stamp = OBJ / STAMP
    dot = OBJ / ".config"
    if not (stamp.exists() and stamp.read_text() == want and dot.exists()):
        OBJ.mkdir(parents=True, exist_ok=True)
        stamp.unlink(missing_ok=True)
        dot.write_text(config.read_text() + f"{OPTION}=m\n")
        _make(tree, "olddefconfig", check=True)
        stamp.write_text(want)
    got = re.search(rf"^{OPTION}=(\w+)$", dot.read_text(), re.M)
    if not got or got.group(1) != "m":
        raise Failure(f"{OBJ}/.config has no {OPTION}=m after olddefconfig:"
                      f" {tree}/lib/Kconfig.debug does not offer it")


def build(tree, release, headers):
    """Configure, modules_prepare, build the module in @tree with W=1;
    return (ko, warnings, {step: seconds})."""
    took = {}
    log = OBJ / "build.log"
    start = time.monotonic()
    configure(tree, base_config(release))
    took["config"] = time.monotonic() - start
    symvers = headers / "Module.symvers"
    if not symvers.exists():
        raise Failure(f"{symvers} missing: the kernel's exported symbols")
    if (not (OBJ / "Module.symvers").exists() or
            (OBJ / "Module.symvers").read_bytes() != symvers.read_bytes()):
        (OBJ / "Module.symvers").write_bytes(symvers.read_bytes())
    log.write_text("")
    start = time.monotonic()
    if not (OBJ / ".mmbench-prepared").exists():
        say(f"make modules_prepare in {OBJ} (about a minute, once)")
    _make(tree, "modules_prepare", log=log)
    if not (OBJ / "scripts/module.lds").exists():
        raise Failure(f"make modules_prepare failed (log: {log})")
    (OBJ / ".mmbench-prepared").write_text("")
    took["modules_prepare"] = time.monotonic() - start
    start = time.monotonic()
    lib = tree / "lib"
    # Compiled anew each time: a warning shows only when it compiles.
    for stale in ("test_mmbench.o", "test_mmbench.ko"):
        (lib / stale).unlink(missing_ok=True)
    out = _make(tree, f"M={lib}", "test_mmbench.ko",
                f"CFLAGS_test_mmbench.o=-include {COMPAT}/mmbench_compat.h "
                f"-I{COMPAT}/include", log=log)
    took["module"] = time.monotonic() - start
    ko = lib / "test_mmbench.ko"
    if not ko.exists():
        raise Failure(f"no {ko} after the in-tree build (log: {log}):\n"
                      + "\n".join(out.splitlines()[-15:]))
    return ko, warnings_in(out), took


# The 32-bit build: x86's i386_defconfig plus the option.  A 32-bit
# kernel has no 64-bit division of its own: gcc turns a u64 '/' or '%'
# into a call of one of these libgcc helpers, which no kernel exports, so
# the module would not load (0-day builds i386 and catches it).
OBJ32 = OUT / "linux-6.12-i386"
LIBGCC_DIVISION = ("__divdi3", "__udivdi3", "__moddi3", "__umoddi3",
                   "__divmoddi4", "__udivmoddi4")


def _make32(tree, *args, check=False):
    return run(["make", "-C", str(tree), f"O={OBJ32}", "ARCH=i386",
                f"-j{os.cpu_count() or 1}", *args], capture=True,
               check=check)


def build_32bit(tree):
    """Compile lib/test_mmbench.o of @tree for 32-bit x86 with W=1;
    return (warnings, [libgcc division helpers it calls], seconds)."""
    start = time.monotonic()
    stamp = OBJ32 / STAMP
    if not stamp.exists():
        say(f"i386_defconfig and modules_prepare in {OBJ32} (about 30 s, "
            "once)")
        OBJ32.mkdir(parents=True, exist_ok=True)
        _make32(tree, "defconfig", check=True)
        with open(OBJ32 / ".config", "a") as f:
            f.write(f"{OPTION}=m\n")
        _make32(tree, "olddefconfig", check=True)
        _make32(tree, "modules_prepare", check=True)
        stamp.write_text("i386_defconfig\n")
    if not re.search(rf"^{OPTION}=m$", (OBJ32 / ".config").read_text(),
                     re.M):
        raise Failure(f"{OBJ32}/.config has no {OPTION}=m after "
                      "olddefconfig")
    obj = OBJ32 / "lib" / "test_mmbench.o"
    obj.unlink(missing_ok=True)
    out = _make32(tree, "W=1", "lib/test_mmbench.o",
                  f"CFLAGS_test_mmbench.o=-include {COMPAT}/mmbench_compat.h"
                  f" -I{COMPAT}/include")
    if not obj.exists():
        raise Failure(f"no {obj} after the 32-bit build:\n"
                      + "\n".join(out.splitlines()[-15:]))
    undefined = run(["nm", "-u", str(obj)], capture=True).split()
    calls = sorted(set(undefined) & set(LIBGCC_DIVISION))
    return warnings_in(out), calls, time.monotonic() - start
